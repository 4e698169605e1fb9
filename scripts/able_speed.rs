//! ABLE's 16-bit CRT product and mux timed as mixgc's `gadget_speed` times its own
//! (docs/arithmetic.md, "Against ABLE"): one thread, in memory, every call's inputs
//! encoded before the timed calls, `CALLS` timed `crt_mul` / `crt_multiplex` calls per
//! side, each output decoded against the garbler's zero-labels and Δs and checked, the
//! median printed in the format `scripts/crt_vs_able.py` parses.
//!
//! Not part of mixgc: copy it to `fancy-garbling/examples/able_speed.rs` of ABLE
//! (github.com/jianqiaomo/mixed_boolean_arith_garble, branch `impl_mixedGC`, commit
//! 0c8392ba16cb2d0405da58b2bc1a7ea642007b4b) and build there with
//! `cargo build --release -p fancy-garbling --example able_speed` (scripts/README.md).

use std::cell::RefCell;
use std::io::{Read, Write};
use std::rc::Rc;
use std::time::Instant;

use fancy_garbling::util::{crt, factor, modulus_with_width, modulus_with_width_opt};
use fancy_garbling::{AllWire, CrtBundle, CrtGadgets, Evaluator, Garbler, HasModulus, WireLabel};
use scuttlebutt::{AesRng, Channel};

/// Calls per gadget and side (the median is reported).
const CALLS: usize = 41;
const X: u128 = 40_503;
const Y: u128 = 31_337;

/// The garbler's end of the in-memory link: appends to one buffer reserved up front.
struct Sink(Rc<RefCell<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The evaluator's end: reads the same buffer back from the start.
struct Source(Rc<RefCell<Vec<u8>>>, usize);

impl Read for Source {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let buf = self.0.borrow();
        let n = out.len().min(buf.len() - self.1);
        out[..n].copy_from_slice(&buf[self.1..self.1 + n]);
        self.1 += n;
        Ok(n)
    }
}

type Link = Channel<Source, Sink>;
type Gb = Garbler<Link, AesRng, AllWire>;
type Ev = Evaluator<Link, AllWire>;

fn median_us(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[samples.len() / 2] * 1e6
}

/// The value of an evaluator's label `active` given the garbler's zero-label.
fn decode(gb: &mut Gb, zero: &AllWire, active: &AllWire) -> u16 {
    let q = zero.modulus();
    let delta = gb.delta(q);
    (0..q)
        .find(|&x| zero.plus(&delta.cmul(x)) == *active)
        .unwrap_or_else(|| panic!("output label mod {q} decodes to no value"))
}

/// Garbles `CALLS` calls of `garble`, evaluates them with `evaluate` on the same rows,
/// checks every output against `expect` residue by residue and prints the medians.
fn run<I>(
    name: &str,
    modulus: u128,
    inputs: impl Fn(&mut Gb) -> (I, I),
    garble: impl Fn(&mut Gb, &I) -> CrtBundle<AllWire>,
    evaluate: impl Fn(&mut Ev, &I) -> CrtBundle<AllWire>,
    expect: u128,
) {
    let buf = Rc::new(RefCell::new(Vec::with_capacity(CALLS << 16)));
    let mut gb = Gb::new(
        Channel::new(Source(buf.clone(), 0), Sink(buf.clone())),
        AesRng::new(),
    );
    let mut ev = Ev::new(Channel::new(Source(buf.clone(), 0), Sink(Rc::default())));
    let calls: Vec<(I, I)> = (0..CALLS).map(|_| inputs(&mut gb)).collect();
    let (mut zeros, mut times_gb, mut ends) = (Vec::with_capacity(CALLS), Vec::new(), Vec::new());
    for (zero, _) in &calls {
        let start = Instant::now();
        let out = garble(&mut gb, zero);
        times_gb.push(start.elapsed().as_secs_f64());
        zeros.push(out);
        ends.push(buf.borrow().len());
    }
    let (mut actives, mut times_ev) = (Vec::with_capacity(CALLS), Vec::new());
    for (_, active) in &calls {
        let start = Instant::now();
        let out = evaluate(&mut ev, active);
        times_ev.push(start.elapsed().as_secs_f64());
        actives.push(out);
    }
    let moduli = factor(modulus);
    let want = crt(expect % modulus, &moduli);
    for (zero, active) in zeros.iter().zip(&actives) {
        for ((z, a), w) in zero.wires().iter().zip(active.wires()).zip(&want) {
            assert_eq!(decode(&mut gb, z, a), *w, "{name}: wrong output");
        }
    }
    println!(
        "{:<34} {:>10.2} {:>10.2} {:>8}",
        name,
        median_us(times_gb),
        median_us(times_ev),
        ends[0]
    );
}

type Pair = (CrtBundle<AllWire>, CrtBundle<AllWire>);

/// Zero-labels and active labels of X and Y mod `modulus` (the evaluator's without OT: in
/// memory, as mixgc's `gadget_speed` makes its inputs).
fn encode_xy(gb: &mut Gb, modulus: u128) -> (Pair, Pair) {
    let (x0, x) = gb.crt_encode_wire(X, modulus).unwrap();
    let (y0, y) = gb.crt_encode_wire(Y, modulus).unwrap();
    ((x0, y0), (x, y))
}

fn product(label: &str, modulus: u128) {
    run(
        &format!("ABLE {label} product 16 bits"),
        modulus,
        |gb| encode_xy(gb, modulus),
        |gb, (x, y)| gb.crt_mul(x, y).unwrap(),
        |ev, (x, y)| ev.crt_mul(x, y).unwrap(),
        X * Y,
    );
}

fn mux(label: &str, modulus: u128) {
    run(
        &format!("ABLE {label} mux 16 bits"),
        modulus,
        |gb| {
            let ((x0, y0), (x, y)) = encode_xy(gb, modulus);
            let (s0, s) = gb.encode_wire(1, 2); // s = 1 selects y
            ((s0, x0, y0), (s, x, y))
        },
        |gb, (s, x, y)| gb.crt_multiplex(s, x, y).unwrap(),
        |ev, (s, x, y)| ev.crt_multiplex(s, x, y).unwrap(),
        Y,
    );
}

fn main() {
    println!("median of {CALLS} calls, µs");
    println!(
        "{:<34} {:>10} {:>10} {:>8}",
        "gadget", "garble", "evaluate", "bytes"
    );
    let (opt, first) = (modulus_with_width_opt(16), modulus_with_width(16));
    eprintln!("OPT primes {:?}, first primes {:?}", factor(opt), factor(first));
    product("OPT", opt);
    mux("OPT", opt);
    product("first-primes", first);
    mux("first-primes", first);
}
