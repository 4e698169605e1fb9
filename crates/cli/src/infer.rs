//! `mixgc infer`: one party of private CNN inference (issue #22): the garbler (server)
//! holds the weights, the evaluator (client) the image; the evaluator learns the class (or
//! the logits), the garbler nothing. `mixgc demo infer` runs both in one process.

use std::path::PathBuf;

use clap::Args;
use mixgc_program::cnn::{self, npy, Arch, Arith, Realization, Reveal, Weights};
use mixgc_session::{PartyId, SessionConfig};
pub use mixgc_studies::infer::*;

use crate::party::{role_parser, Connection, SessionOptions};
use crate::progress::Feedback;
use crate::summary::{bytes, thousands};
use crate::CliError;
use mixgc_studies::common::peak_rss_kib;

#[derive(Args, Debug)]
#[command(
    after_help = "The model is two files written by scripts/train_lenet.py: the public architecture \
(--arch, both parties; its SHA-256 and the realization are compared in the handshake) and the \
server's private integer weights (--weights, the garbler only). The client's image (--image) is a \
grayscale 8-bit PNG or a uint8 .npy of shape (28, 28) or (784,) for LeNet-5 (the architecture's \
input size in general).\n\n\
Realizations: boolean (every layer in Boolean garbling), mixed (convolutions and dense layers in \
CRT arithmetic, ReLU, max-pool and argmax in Boolean, with a bit decomposition after each), \
planned (per layer the faster of the two, predicted from the cost counter's ANDs and bytes with \
unit times fitted on this repository's machine; the default). The plan is \
printed on stderr before the run. In every realization the weights stay in the garbler's tables \
(private projections) and the result equals the quantized plaintext network.\n\n\
The evaluator prints the class as one decimal line on stdout (--logits: the logits, one per line, \
then no class). Both print a summary on stderr: ANDs, bytes, time, peak RSS.\n\n\
Examples:\n  mixgc infer --arch models/lenet5.arch.json --weights models/lenet5.weights.json \
--role garbler --listen 127.0.0.1:7000\n  mixgc infer --arch models/lenet5.arch.json --role evaluator \
--connect 127.0.0.1:7000 --image digit.png"
)]
pub struct InferArgs {
    /// The public architecture (`*.arch.json`, both parties).
    #[arg(long, value_name = "FILE")]
    arch: PathBuf,
    /// The private weights (`*.weights.json`, the garbler only).
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    /// This party's role: garbler (server, weights) or evaluator (client, image).
    #[arg(long, value_parser = role_parser())]
    role: PartyId,
    #[command(flatten)]
    connection: Connection,
    /// The image (the evaluator only): grayscale PNG or uint8 .npy.
    #[arg(long, value_name = "FILE")]
    image: Option<PathBuf>,
    /// Reveal the logits to the evaluator instead of the class.
    #[arg(long)]
    logits: bool,
    /// boolean, mixed or planned (both parties must choose the same).
    #[arg(long, default_value = "planned", value_parser = parse_realization)]
    realization: Realization,
    #[command(flatten)]
    session: SessionOptions,
    #[command(flatten)]
    feedback: Feedback,
}

fn parse_realization(s: &str) -> Result<Realization, String> {
    Realization::parse(s).ok_or_else(|| format!("unknown realization '{s}' (one of boolean, mixed, planned)"))
}

pub fn infer(mut args: InferArgs) -> Result<(), CliError> {
    let arch = load_arch(&args.arch)?;
    // Every local input is checked before connecting.
    let (weights, image) = match args.role {
        PartyId::GARBLER => {
            if args.image.is_some() {
                return Err("--image is the evaluator's (client's); the garbler holds the weights".into());
            }
            let path = args.weights.as_ref().ok_or(cnn::CnnError::MissingWeights)?;
            (Some(load_weights(path, &arch)?), None)
        }
        _ => {
            if args.weights.is_some() {
                return Err("--weights are the garbler's (server's); the evaluator holds the image".into());
            }
            let path = args.image.as_ref().ok_or(cnn::CnnError::MissingImage)?;
            (None, Some(load_image(path, &arch)?))
        }
    };
    let reveal = if args.logits {
        Reveal::Logits
    } else {
        Reveal::Class
    };
    let (plan, lines) = plan_lines(&arch, args.realization)?;
    let name = program_name(&arch, args.realization, &plan, reveal);
    // A listener's first stderr line must be `listening on ADDR`.
    args.connection.quiet = args.feedback.quiet;
    let ch = args.session.open(&args.connection)?;
    for l in &lines {
        args.feedback.summary(l);
    }
    let cfg = args
        .session
        .config()
        .for_command(mixgc_session::Command::Infer)
        .with_progress(args.feedback.reporter());
    let run = run_party(
        ch,
        &cfg,
        args.role,
        &arch,
        &plan,
        &name,
        reveal,
        weights.as_ref(),
        image.as_deref(),
    )?;
    if args.role == PartyId::EVALUATOR {
        let learned = run.learned.as_ref().ok_or("the evaluator learned no result")?;
        crate::write_stdout(&result_text(learned))?;
    }
    args.feedback.summary(&summary(args.role, &run));
    Ok(())
}

/// The committed LeNet-5 (`models/`), built into the binary for `mixgc demo infer`.
const DEMO_ARCH: &[u8] = include_bytes!("../../../models/lenet5.arch.json");
const DEMO_WEIGHTS: &[u8] = include_bytes!("../../../models/lenet5.weights.json");
const DEMO_IMAGES: &[u8] = include_bytes!("../../../models/mnist_test_100.npy");
const DEMO_LABELS: &[u8] = include_bytes!("../../../models/mnist_test_100_labels.npy");

/// `mixgc demo infer`: the committed LeNet-5 on held-out image `index` (random if `None`),
/// both parties as threads over loopback TCP, with what each learns.
pub fn demo(index: Option<usize>, realization: Realization, link_mbps: Option<u64>) -> Result<(), CliError> {
    let arch = Arch::parse(DEMO_ARCH)?;
    let weights = Weights::parse(DEMO_WEIGHTS, &arch)?;
    let (shape, images) = npy::parse_u8(DEMO_IMAGES)?;
    let (_, labels) = npy::parse_u8(DEMO_LABELS)?;
    let count = shape[0];
    let index = index.unwrap_or_else(|| rand::random::<usize>() % count);
    if index >= count {
        return Err(format!(
            "image {index} does not exist: the demo set has {count} (0 to {})",
            count - 1
        )
        .into());
    }
    let side = arch.input.height;
    let image = &images[index * side * side..(index + 1) * side * side];
    let say = |s: &str| crate::write_stdout(&format!("{s}\n"));
    say("mixgc demo infer: private inference of LeNet-5 (issue #22), two threads of this process")?;
    say("over TCP on 127.0.0.1. The server (garbler) holds the trained weights, the client")?;
    say("(evaluator) holds a 28×28 digit; the client learns the digit's class, nothing else.\n")?;
    say(&format!("Held-out image #{index} (label {}):", labels[index]))?;
    for row in image.chunks(side).step_by(2) {
        let line: String = row
            .chunks(1)
            .map(|p| match p[0] {
                0..=63 => ' ',
                64..=127 => '.',
                128..=191 => '+',
                _ => '#',
            })
            .collect();
        say(&format!("    |{line}|"))?;
    }
    let (plan, lines) = plan_lines(&arch, realization)?;
    for l in &lines {
        say(l)?;
    }
    let name = program_name(&arch, realization, &plan, Reveal::Class);
    let cfg = SessionConfig::default().for_command(mixgc_session::Command::Infer);
    let both = Both {
        cfg: &cfg,
        arch: &arch,
        plan: &plan,
        name: &name,
        weights: &weights,
        image,
    };
    let (g, e) = match link_mbps {
        Some(mbps) => {
            say(&format!(
                "(over an emulated {mbps} Mbit/s link in this process, no latency)"
            ))?;
            let (g_ch, e_ch) = mixgc_net::link_pair(mbps * 1_000_000, std::time::Duration::ZERO);
            both.run(g_ch, e_ch)?
        }
        None => {
            let (listener, addr) = mixgc_net::TcpChannel::bind("127.0.0.1:0")?;
            let connect =
                std::thread::spawn(move || mixgc_net::TcpChannel::connect(&addr.to_string(), cfg_timeout()));
            let g_ch = mixgc_net::TcpChannel::accept(&listener, cfg_timeout())?;
            let e_ch = connect.join().map_err(|_| "the connecting thread panicked")??;
            both.run(g_ch, e_ch)?
        }
    };
    let learned = e.learned.as_ref().ok_or("the evaluator learned no result")?;
    let reference = cnn::reference::classify(&arch, &weights, image)?;
    say(&format!(
        "\nThe client learns the class: {}  (label {}; the plaintext quantized network says {}{})",
        learned.class,
        labels[index],
        reference,
        if reference == learned.class {
            ", equal"
        } else {
            ", DIFFERENT"
        }
    ))?;
    say("The server learns nothing: it sent garbled tables whose rows hide its weights (each")?;
    say("product is a projection through a table only the server filled) and never sees an output.")?;
    say("The client saw only random-looking labels; its pixels went in by oblivious transfer.\n")?;
    say(&format!(
        "server (garbler):  sent {}, received {}, {:.2} s",
        bytes(g.sent),
        bytes(g.received),
        g.seconds
    ))?;
    say(&format!(
        "client (evaluator): sent {}, received {}, {:.2} s, {} ANDs; peak RSS of this process {:.1} MiB",
        bytes(e.sent),
        bytes(e.received),
        e.seconds,
        thousands(e.ands),
        peak_rss_kib() as f64 / 1024.0
    ))?;
    if reference != learned.class {
        return Err("the two-party class differs from the plaintext network's".into());
    }
    Ok(())
}

fn cfg_timeout() -> std::time::Duration {
    SessionConfig::default().timeout
}

/// Both parties of the demo on two threads, over a channel pair.
struct Both<'a> {
    cfg: &'a SessionConfig,
    arch: &'a Arch,
    plan: &'a [Arith],
    name: &'a str,
    weights: &'a Weights,
    image: &'a [u8],
}

impl Both<'_> {
    fn run<C: mixgc_net::Channel + Send + 'static>(
        &self,
        g_ch: C,
        e_ch: C,
    ) -> Result<(PartyRun, PartyRun), CliError> {
        let (g, e) = std::thread::scope(|s| {
            let garbler = s.spawn(move || {
                run_party(
                    g_ch,
                    self.cfg,
                    PartyId::GARBLER,
                    self.arch,
                    self.plan,
                    self.name,
                    Reveal::Class,
                    Some(self.weights),
                    None,
                )
            });
            let evaluator = s.spawn(move || {
                run_party(
                    e_ch,
                    self.cfg,
                    PartyId::EVALUATOR,
                    self.arch,
                    self.plan,
                    self.name,
                    Reveal::Class,
                    None,
                    Some(self.image),
                )
            });
            (garbler.join(), evaluator.join())
        });
        let g = g.map_err(|_| CliError::from("the garbler panicked"))?;
        let e = e.map_err(|_| CliError::from("the evaluator panicked"))?;
        Ok((g?, e?))
    }
}
