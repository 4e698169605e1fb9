//! Private inference with a CNN (`mixgc infer`, `mixgc.infer` in Python): loading the
//! model and the image with bounded reads, the plan and its description, and one party's run
//! of `mixgc_program::cnn` over a channel.

use std::io::Read;
use std::path::Path;
use std::time::Instant;

use mixgc_program::cnn::{self, model, npy, Arch, Arith, Inference, Realization, Reveal, Weights};
use mixgc_program::Ctx;
use mixgc_session::{stop_at_failure, Audience, EvaluatorSession, GarblerSession, PartyId, SessionConfig};

use crate::common::{bytes, peak_rss_kib, thousands, CliError};

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
