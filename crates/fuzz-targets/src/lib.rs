//! The bodies of the `cargo fuzz` targets in `fuzz/` (one function a target), here so the
//! workspace's smoke test (`tests/smoke.rs`) runs them too. Each takes arbitrary bytes and
//! must return, never panic nor allocate beyond a bound.

use std::cell::RefCell;
use std::path::PathBuf;

use mixgc_arith::{ArithEvaluator, Label, Modulus, TableReader};
use mixgc_circuit::bristol::{self, Format};
use mixgc_compile::{GateStream, StreamFile};
use mixgc_net::{peer_abort, recv_frame, Channel, Tag, MAX_FRAME_BYTES};
use rand::SeedableRng;

/// The Bristol reader, auto-detected and as each format.
pub fn bristol(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = bristol::parse(text, "fuzz");
    let _ = bristol::parse_as(text, "fuzz", Format::Fashion);
    let _ = bristol::parse_as(text, "fuzz", Format::Legacy);
}

thread_local! {
    /// This thread's scratch file for [`stream`] (the reader opens a path).
    static STREAM_PATH: RefCell<Option<PathBuf>> = const { RefCell::new(None) };
}

/// The compiled-stream file reader: open, then every chunk to the end marker.
pub fn stream(data: &[u8]) {
    let path = STREAM_PATH.with(|p| {
        p.borrow_mut()
            .get_or_insert_with(|| {
                let dir = std::env::temp_dir();
                let id = format!("{:?}", std::thread::current().id());
                let id: String = id.chars().filter(char::is_ascii_digit).collect();
                dir.join(format!("mixgc-fuzz-{}-{id}.mgcs", std::process::id()))
            })
            .clone()
    });
    std::fs::write(&path, data).expect("scratch file");
    if let Ok(mut f) = StreamFile::open(&path) {
        while let Ok(Some(_)) = f.next_chunk() {}
    }
}

/// [`stream`] on the bytes with their header checksum recomputed first (as a forger
/// would), so mutations reach the header checks and the body reader, not only the checksum.
pub fn stream_forged(data: &[u8]) {
    let mut image = data.to_vec();
    mixgc_compile::reseal_header(&mut image);
    stream(&image);
}

/// The frame decoder over a channel whose peer sent `data`: frames of any tag until one
/// fails, each checked for an abort.
pub fn frame(data: &[u8]) {
    let (mut ours, mut theirs) = mixgc_net::memory_pair();
    let data = &data[..data.len().min(1 << 20)];
    if theirs.send(data).and_then(|()| theirs.flush()).is_err() {
        return;
    }
    theirs.close();
    let tags = [Tag::Hello, Tag::Tables, Tag::Abort, Tag::ArithTables];
    for (i, tag) in tags.iter().cycle().enumerate() {
        let max = [64, MAX_FRAME_BYTES, 1 << 12, 1 << 16][i % 4];
        match recv_frame(&mut ours, *tag, max) {
            Ok(payload) => {
                let _ = peer_abort(&mut ours, &payload);
            }
            Err(_) => break,
        }
    }
}

/// The TLS record layer's receiving side: a peer's stream of records sealed under the
/// session's key, raw bytes and flipped bits, cut and read in various sizes; the plaintext
/// is checked against what the peer sealed (`mixgc_net::fuzz_tls_records`).
pub fn tls_records(data: &[u8]) {
    mixgc_net::fuzz_tls_records(data);
}

/// The handshake: a hello and a circuit header from a peer.
pub fn handshake(data: &[u8]) {
    let _ = mixgc_session::fuzz_handshake(data);
}

/// The preprocessing state readers (garbler's and evaluator's).
pub fn state(data: &[u8]) {
    let _ = mixgc_session::GarblerPrep::from_bytes(data);
    let _ = mixgc_session::EvaluatorPrep::from_bytes(data);
}

/// The moduli the arithmetic target picks from.
fn modulus(code: u8) -> Modulus {
    let m = match code % 8 {
        0 => Modulus::new(2),
        1 => Modulus::new(3),
        2 => Modulus::new(5),
        3 => Modulus::new(7),
        4 => Modulus::new(13),
        5 => Modulus::new(251),
        6 => Modulus::power_of_two(8),
        _ => Modulus::power_of_two(32),
    };
    m.expect("a valid modulus")
}

/// The arithmetic evaluator reading a malicious garbler's rows: the first bytes pick gadgets
/// and moduli (the input labels are random), the rest are the rows.
pub fn arith_tables(data: &[u8]) {
    let [seed, ops @ ..] = data else {
        return;
    };
    let n_ops = (ops.first().copied().unwrap_or(0) % 4) as usize + 1;
    let Some((ops, rows)) = ops
        .get(1..)
        .and_then(|o| o.split_at_checked(2 * n_ops.min(o.len() / 2)))
    else {
        return;
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(*seed));
    let mut ev = ArithEvaluator::new([*seed; 32]);
    let mut tables = TableReader::new(rows);
    for op in ops.chunks_exact(2) {
        let m = modulus(op[1]);
        let a = Label::random(m, &mut rng);
        let b = Label::random(m, &mut rng);
        let _ = match op[0] % 3 {
            0 => ev.project(&a, modulus(op[1] >> 3), &mut tables).map(|_| ()),
            1 => ev.project_to_bit(&a, &mut tables).map(|_| ()),
            _ => ev.mul(&a, &b, &mut tables).map(|_| ()),
        };
    }
    let _ = tables.finish();
}
