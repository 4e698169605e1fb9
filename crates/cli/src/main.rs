//! `mixgc`: run two-party garbled-circuit computations, inspect circuits, benchmark.

mod chain;
mod compile;
mod cpu_time;
mod cycles;
mod demo;
mod demo_party;
mod example;
mod haac;
mod infer;
mod info;
mod keygen;
mod load;
mod memory;
mod mixed;
mod mixed_bench;
mod mixed_kmeans;
mod nparty;
mod ops;
mod party;
mod prep;
mod primes;
mod progress;
mod run;
mod sim;
mod summary;
mod synth;
mod vip;
mod vip_json;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mixgc_studies::common::{write_stdout, CliError};
use mixgc_studies::{bench, lenet, plan, profile};

#[derive(Parser)]
#[command(name = "mixgc", version, about = "Two-party computation with garbled circuits (semi-honest, or malicious with --security malicious)", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one party of a two-party computation on a Bristol circuit or compiled stream over TLS or TCP.
    Run(run::RunArgs),
    /// Run one party of an n-party computation (BMR or GMW) on a Bristol circuit or an application.
    Party(nparty::PartyArgs),
    /// Run one party of an n-party mixed-mode application (threshold HE, B2A/A2B): biomatch, kmeans.
    Mixed(mixed::MixedArgs),
    /// Run both parties in one process over loopback TCP and explain what happened.
    Demo(demo::DemoArgs),
    /// Preprocessing mode, offline: garble and run the OTs before the inputs are known.
    Preprocess(prep::PreprocessArgs),
    /// Preprocessing mode, online: send only input labels and evaluate from storage.
    Online(prep::OnlineArgs),
    /// Compile a circuit to a stream file or HAAC instruction streams (.haac), or report its levels, ILP and memory under a schedule (HAAC).
    Compile(compile::CompileArgs),
    /// Print gate counts, AND depth and memory of a circuit; `--cpu`: the AES kernels this CPU runs.
    Info(info::InfoArgs),
    /// Run one party of a library example (millionaires, auction, ...) over TLS or TCP.
    Example(example::ExampleArgs),
    /// Write a library op's circuit as a Bristol Fashion file.
    Export(ops::ExportArgs),
    /// List the library ops; `--table` prints their AND counts (and the n-party applications').
    Ops(ops::OpsArgs),
    /// Measure garbling, evaluation and end-to-end speed, bytes and memory.
    Bench(bench::BenchArgs),
    /// Predict whether a mixed Boolean/arithmetic realization beats pure Boolean (ABLE §5.2).
    Plan(plan::PlanArgs),
    /// Private inference of a quantized CNN (LeNet-5): the server's weights, the client's image.
    Infer(infer::InferArgs),
    /// ABLE's LeNet case study: a conv layer in four Boolean/arithmetic realizations.
    Lenet(lenet::LenetArgs),
    /// Make a private key and certificate for TLS between the parties (`--ca`: signed by a new CA).
    Keygen(keygen::KeygenArgs),
    /// Print the CRT primes (minimum sum, or `--baseline` first k) for a bit width.
    Primes(primes::PrimesArgs),
    /// Profile ABLE's ops in Boolean and CRT garbling: bytes, times, BC/BD ratios, plots.
    Profile(profile::ProfileArgs),
    /// Synthesize a Verilog design into a Bristol Fashion circuit (or a sequential netlist) with Yosys.
    Synth(synth::SynthArgs),
    /// Run one party of a VIP-Bench workload (HAAC §5) with JSON input, or report its gate counts.
    Vip(vip::VipArgs),
    /// Model a .haac program on the HAAC accelerator cycle by cycle; `--plot`: HAAC's figures.
    Sim(sim::SimArgs),
    /// One party of `mixgc bench`'s end-to-end runs (spawned by `mixgc bench`).
    #[command(hide = true)]
    BenchParty(bench::PartyArgs),
    /// One party of `mixgc bench --mixed` (spawned by it).
    #[command(hide = true)]
    MixedBenchParty(mixed_bench::MixedBenchPartyArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A bad MIXGC_AES_KERNEL stops every command that hashes, before any work (`info`
    // hashes nothing and reports it).
    if let (false, Err(e)) = (
        matches!(cli.command, Command::Info(_)),
        mixgc_core::AesKernel::current(),
    ) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::Run(a) => run::run(a),
        Command::Party(a) => nparty::party(a),
        Command::Mixed(a) => mixed::mixed(a),
        Command::MixedBenchParty(a) => mixed_bench::party(a),
        Command::Demo(a) => demo::demo(a),
        Command::Preprocess(a) => prep::preprocess(a),
        Command::Online(a) => prep::online(a),
        Command::Info(a) => info::info(a),
        Command::Compile(a) => compile::compile(a),
        Command::Bench(a) => bench::bench(a),
        Command::Example(a) => example::example(a),
        Command::Export(a) => ops::export(a),
        Command::Ops(a) => ops::ops(a),
        Command::Keygen(a) => keygen::keygen(a),
        Command::Primes(a) => primes::primes(a),
        Command::Lenet(a) => lenet::lenet(a),
        Command::Infer(a) => infer::infer(a),
        Command::Plan(a) => plan::plan(a),
        Command::Profile(a) => profile::profile(a),
        Command::BenchParty(a) => bench::party(a),
        Command::Synth(a) => synth::synth(a),
        Command::Vip(a) => vip::vip(a),
        Command::Sim(a) => sim::sim(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
