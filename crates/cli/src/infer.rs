//! `mixgc infer`: one party of private CNN inference (issue #22): the garbler (server)
//! holds the weights, the evaluator (client) the image; the evaluator learns the class (or
//! the logits), the garbler nothing. `mixgc demo infer` runs both in one process.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use mixgc_program::cnn::{self, model, npy, Arch, Arith, Inference, Realization, Reveal, Weights};
use mixgc_program::Ctx;
use mixgc_session::{stop_at_failure, Audience, EvaluatorSession, GarblerSession, PartyId, SessionConfig};
use mixgc_studies::common::peak_rss_kib;

use crate::party::{role_parser, Connection, SessionOptions};
use crate::progress::Feedback;
use crate::summary::{bytes, thousands};
use crate::CliError;

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

/// Reads at most `max` bytes of `path`; a larger file is an error naming it.
pub fn read_bounded(path: &Path, max: usize, what: &str) -> Result<Vec<u8>, CliError> {
    let file = std::fs::File::open(path).map_err(|e| format!("{what} {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{what} {}: {e}", path.display()))?;
    if bytes.len() > max {
        return Err(format!("{what} {}: larger than {max} bytes", path.display()).into());
    }
    Ok(bytes)
}

/// The architecture file, parsed.
pub fn load_arch(path: &Path) -> Result<Arch, CliError> {
    let bytes = read_bounded(path, model::MAX_ARCH_BYTES, "architecture")?;
    Arch::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// The weights file, parsed and checked against `arch`.
pub fn load_weights(path: &Path, arch: &Arch) -> Result<Weights, CliError> {
    let bytes = read_bounded(path, model::MAX_WEIGHTS_BYTES, "weights")?;
    Weights::parse(&bytes, arch).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// An image for `arch` (single channel, square): a uint8 .npy or a grayscale 8-bit PNG.
pub fn load_image(path: &Path, arch: &Arch) -> Result<Vec<u8>, CliError> {
    let shape = arch.input;
    if shape.channels != 1 || shape.height != shape.width {
        return Err(format!(
            "image files hold one square grayscale image; the architecture takes {}×{}×{}",
            shape.channels, shape.height, shape.width
        )
        .into());
    }
    let side = shape.height;
    let bytes = read_bounded(path, 1 << 20, "image")?;
    let at = |e: String| -> CliError { format!("{}: {e}", path.display()).into() };
    if bytes.starts_with(b"\x93NUMPY") {
        return npy::parse_image(&bytes, side).map_err(|e| at(e.to_string()));
    }
    if bytes.starts_with(b"\x89PNG") {
        return png_image(&bytes, side).map_err(at);
    }
    Err(at("neither a .npy file nor a PNG".into()))
}

/// The pixels of a grayscale 8-bit PNG of `side`×`side` (checked before decoding).
fn png_image(bytes: &[u8], side: usize) -> Result<Vec<u8>, String> {
    let decoder = png::Decoder::new(bytes);
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("not a readable PNG: {e}"))?;
    let info = reader.info();
    if (info.width as usize, info.height as usize) != (side, side) {
        return Err(format!(
            "the PNG is {}×{}, the network takes {side}×{side}",
            info.width, info.height
        ));
    }
    if info.color_type != png::ColorType::Grayscale || info.bit_depth != png::BitDepth::Eight {
        return Err(format!(
            "the PNG is {:?} at {:?} bits, expected 8-bit grayscale",
            info.color_type, info.bit_depth
        ));
    }
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader
        .next_frame(&mut pixels)
        .map_err(|e| format!("not a readable PNG: {e}"))?;
    pixels.truncate(frame.buffer_size());
    if pixels.len() != side * side {
        return Err(format!(
            "the PNG holds {} bytes of pixels, expected {}",
            pixels.len(),
            side * side
        ));
    }
    Ok(pixels)
}

/// The plan and one stderr line per conv/dense layer describing it.
pub fn plan_lines(arch: &Arch, realization: Realization) -> Result<(Vec<Arith>, Vec<String>), CliError> {
    let plan = cnn::plan(arch, realization)?;
    let costs = if realization == Realization::Planned {
        Some(cnn::layer_costs(arch)?)
    } else {
        None
    };
    let mut lines = vec![format!(
        "plan ({}): {} on {} ({} MACs)",
        realization.name(),
        cnn::plan_name(&plan),
        arch.name,
        thousands(arch.macs())
    )];
    let descriptions = arch.describe();
    let mut n = 0;
    for d in descriptions {
        let line = if d.starts_with("maxpool") {
            format!("  {d}: boolean")
        } else {
            let mut l = format!("  {d}: {}", plan[n].name());
            if let Some(c) = costs.as_ref().map(|c| c[n]) {
                let (tb, tc) = c.seconds(&cnn::UnitTimes::default());
                l += &format!(
                    " (counted: boolean {} ≈ {tb:.2} s, crt {} ≈ {tc:.2} s)",
                    bytes(c.boolean_bytes),
                    bytes(c.crt_bytes)
                );
            }
            n += 1;
            l
        };
        lines.push(line);
    }
    lines.push("  argmax: boolean".into());
    Ok((plan, lines))
}

/// The name both parties agree on in the handshake: a difference in the architecture,
/// the realization, the plan or the reveal mode stops both with the parameter named.
pub fn program_name(arch: &Arch, realization: Realization, plan: &[Arith], reveal: Reveal) -> String {
    format!(
        "infer arch=sha256:{} realization={} plan={} reveal={}",
        arch.sha256_hex(),
        realization.name(),
        cnn::plan_name(plan),
        if reveal == Reveal::Logits {
            "logits"
        } else {
            "class"
        }
    )
}

/// What one party's run did.
pub struct PartyRun {
    pub learned: Option<Inference>,
    pub ands: u64,
    pub sent: u64,
    pub received: u64,
    pub seconds: f64,
}

/// One party of the inference over `ch`: the garbler with `weights`, the evaluator with
/// `image`.
#[allow(clippy::too_many_arguments)]
pub fn run_party<C: mixgc_net::Channel + 'static>(
    ch: C,
    cfg: &SessionConfig,
    role: PartyId,
    arch: &Arch,
    plan: &[Arith],
    name: &str,
    reveal: Reveal,
    weights: Option<&Weights>,
    image: Option<&[u8]>,
) -> Result<PartyRun, CliError> {
    let start = Instant::now();
    macro_rules! run_on {
        ($session:ty) => {{
            let mut s = <$session>::setup(ch, cfg)?;
            let backend = s.program(name, Audience::only(PartyId::EVALUATOR))?;
            let ctx = Ctx::new(backend);
            let (learned, ands) = stop_at_failure(|| -> Result<_, CliError> {
                let learned = cnn::infer(&ctx, arch, plan, image, weights, reveal, |_| ())?;
                let backend = ctx.into_inner().ok_or("the program is still shared")?;
                Ok((learned, backend.finish()?))
            })?;
            let ch = s.channel();
            PartyRun {
                learned,
                ands,
                sent: ch.bytes_sent(),
                received: ch.bytes_received(),
                seconds: start.elapsed().as_secs_f64(),
            }
        }};
    }
    Ok(if role == PartyId::GARBLER {
        run_on!(GarblerSession<C>)
    } else {
        run_on!(EvaluatorSession<C>)
    })
}

/// The stderr summary of one party.
pub fn summary(role: PartyId, r: &PartyRun) -> String {
    format!(
        "{role}: {} ANDs, sent {}, received {}, {:.2} s, peak RSS {:.1} MiB",
        thousands(r.ands),
        bytes(r.sent),
        bytes(r.received),
        r.seconds,
        peak_rss_kib() as f64 / 1024.0
    )
}

/// The evaluator's stdout: the class, or the logits one per line.
pub fn result_text(learned: &Inference) -> String {
    match &learned.logits {
        Some(l) => l.iter().map(|v| format!("{v}\n")).collect(),
        None => format!("{}\n", learned.class),
    }
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
