//! `mixgc synth`: a circuit from Verilog through Yosys (TinyGarble thesis §3.2).

use std::path::PathBuf;

use clap::Args;
use mixgc_circuit::bristol;
use mixgc_circuit::sequential::InputMode;
use mixgc_core::Unit;
use mixgc_hdl::{synthesize, Mapping, Owner, SynthOptions, Synthesized};

use crate::progress::Feedback;
use crate::summary::thousands;
use crate::{write_stdout, CliError};

#[derive(Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct SynthArgs {
    /// Verilog source files (combinational designs, or sequential ones with a `clk` input).
    #[arg(required = true, value_name = "FILE.v")]
    files: Vec<PathBuf>,
    /// Top module (default: the module no other module instantiates).
    #[arg(long, value_name = "MODULE")]
    top: Option<String>,
    /// Write the Bristol Fashion circuit here (default: standard output).
    #[arg(long, value_name = "FILE.txt")]
    out: Option<PathBuf>,
    /// Print the ports and the gate counts: ANDs, XORs, NOTs, AND depth.
    #[arg(long)]
    report: bool,
    /// Input ports the garbler owns although not named g_* (comma separated).
    #[arg(long, value_name = "PORT,...", value_delimiter = ',')]
    garbler_ports: Vec<String>,
    /// Sequential designs: input ports read once, at cycle 0, and held for every cycle
    /// (their labels are reused; the others take a value every cycle).
    #[arg(long, value_name = "PORT,...", value_delimiter = ',')]
    once_ports: Vec<String>,
    /// The Yosys executable.
    #[arg(long, value_name = "PATH", default_value = "yosys")]
    yosys: String,
    /// Skip the second mapping with ABC (faster on large designs; the one-AND adders and
    /// structural S-boxes rarely lose to it).
    #[arg(long)]
    no_abc: bool,
    #[command(flatten)]
    feedback: Feedback,
}

const AFTER_HELP: &str = "Input ports named g_* belong to the garbler, e_* to the evaluator (other \
names are an error unless --garbler-ports lists them). The circuit's inputs are the garbler's ports \
then the evaluator's, each in declaration order; outputs are the output ports in declaration order; \
bit 0 is the least significant. Run it with `mixgc run --garbler-values K`, K = the number of \
garbler ports (printed on stderr). XOR, XNOR and NOT are free, every other gate one AND; adders, \
comparators and multipliers map to one-AND full adders. A design with a `clk` input is \
sequential: registers of always @(posedge clk) with initial values (reg x = V); it is written as \
a sequential netlist (the Bristol core plus flip-flop declarations, docs/hdl.md) and run with \
`mixgc run --cycles C`. Needs Yosys (apt-get install yosys).\n\n\
Example:\n  mixgc synth verilog/mult32.v --out mult32.txt --report\n  \
mixgc run --circuit mult32.txt --garbler-values 1 --role garbler --listen 127.0.0.1:7000 --input 2a\n  \
mixgc run --circuit mult32.txt --garbler-values 1 --role evaluator --connect 127.0.0.1:7000 --input 3";

pub fn synth(args: SynthArgs) -> Result<(), CliError> {
    let opts = SynthOptions {
        files: args.files,
        top: args.top,
        garbler_ports: args.garbler_ports,
        yosys: args.yosys,
        abc: !args.no_abc,
        once_ports: args.once_ports,
    };
    // Yosys reports nothing while it works: a spinner and the time spent show it is alive.
    let progress = args.feedback.reporter();
    progress.begin("synthesizing with Yosys", None, Unit::Time);
    let s = synthesize(&opts);
    progress.end();
    let s = s?;
    let mut text = Vec::new();
    match &s.sequential {
        Some(seq) => seq.write(&mut text)?,
        None => bristol::write_fashion(&s.circuit, &mut text)?,
    }
    match &args.out {
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?
        }
        None => write_stdout(&String::from_utf8(text)?)?,
    }
    if s.sequential.is_some() {
        args.feedback.summary(&format!(
            "{}: a sequential netlist: run it with --cycles C (port owners are in the file)",
            s.top
        ));
    } else {
        args.feedback.summary(&format!(
            "{}: the garbler owns the first {} input value(s): run with --garbler-values {}",
            s.top, s.garbler_values, s.garbler_values
        ));
    }
    if args.report {
        let report = report(&s);
        // The report goes to stdout unless the circuit does.
        if args.out.is_some() {
            write_stdout(&report)?;
        } else {
            eprint!("{report}");
        }
    }
    Ok(())
}

/// The `--report` table: ports, then gate counts.
fn report(s: &Synthesized) -> String {
    let st = s.circuit.stats();
    let mapping = match s.mapping {
        Mapping::Structural => "structural netlist",
        Mapping::Abc => "ABC's netlist",
    };
    let mut r = format!("module {} ({mapping})\n", s.top);
    for (i, p) in s.inputs.iter().enumerate() {
        let owner = match p.owner {
            Some(Owner::Garbler) => "garbler",
            _ => "evaluator",
        };
        let mode = match &s.sequential {
            Some(seq) if seq.inputs[i].mode == InputMode::Once => "  once",
            Some(_) => "  per cycle",
            None => "",
        };
        r += &format!(
            "  input  {i:<3} {:<20} {:>6} bits  {owner}{mode}\n",
            p.name, p.width
        );
    }
    for (i, p) in s.outputs.iter().enumerate() {
        r += &format!("  output {i:<3} {:<20} {:>6} bits\n", p.name, p.width);
    }
    r += &format!("  ANDs       {}\n", thousands(st.ands as u64));
    r += &format!("  XORs       {}\n", thousands(st.xors as u64));
    r += &format!("  NOTs       {}\n", thousands(st.nots as u64));
    if let Some(seq) = &s.sequential {
        r += &format!("  flip-flops {}\n", thousands(seq.state_bits() as u64));
    }
    r += &format!("  AND depth  {}\n", st.and_depth);
    if s.sequential.is_some() {
        r += "  (per cycle: the core's gates; flip-flops cost no AND)\n";
    }
    r
}
