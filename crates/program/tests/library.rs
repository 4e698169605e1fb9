//! Every library op computes its documented function (plaintext backend vs native Rust),
//! its recorded circuit agrees, and its input/output shape is as documented.

use mixgc_program::library::{self, Supply, OPS};
use mixgc_program::Plain;
use rand::{Rng, SeedableRng};

fn bits(v: u128, w: u32) -> Vec<bool> {
    (0..w).map(|i| i < 128 && v >> i & 1 == 1).collect()
}

fn val(b: &[bool]) -> u128 {
    b.iter()
        .take(128)
        .enumerate()
        .map(|(i, &x)| (x as u128) << i)
        .sum()
}

fn mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1 << w) - 1
    }
}

/// Runs op `name` in plaintext on the given values (garbler's, evaluator's); also checks the
/// recorded circuit gives the same outputs.
fn run(name: &str, w: Option<u32>, n: Option<usize>, g: Vec<Vec<bool>>, e: Vec<Vec<bool>>) -> Vec<Vec<bool>> {
    let mut p = Plain::default();
    let out: Vec<Vec<bool>> = library::build(&mut p, name, w, n, &mut Supply::both(g.clone(), e.clone()))
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect();
    let rec = library::record(name, w, n).unwrap();
    let inputs: Vec<Vec<bool>> = g.into_iter().chain(e).collect();
    assert_eq!(
        rec.circuit.eval_plain(&inputs).unwrap(),
        out,
        "{name}: recorded circuit disagrees"
    );
    out
}

#[test]
fn two_operand_ops_match_native_arithmetic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(21);
    for w in [1u32, 7, 8, 31, 64] {
        let m = mask(w);
        for _ in 0..10 {
            let (x, y) = (rng.gen::<u128>() & m, rng.gen::<u128>() & m);
            let check = |name: &str, want: u128| {
                let out = run(name, Some(w), None, vec![bits(x, w)], vec![bits(y, w)]);
                assert_eq!(val(&out[0]), want, "{name} w={w} x={x:x} y={y:x}");
            };
            check("add", x.wrapping_add(y) & m);
            check("sub", x.wrapping_sub(y) & m);
            check("mul", x.wrapping_mul(y) & m);
            check("div", x.checked_div(y).unwrap_or(m));
            check("lt", (x < y) as u128);
            check("eq", (x == y) as u128);
            check("hamming", (x ^ y).count_ones() as u128);
            check("millionaires", (x > y) as u128);
        }
    }
}

#[test]
fn one_operand_ops_match_native_arithmetic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(22);
    for w in [2u32, 8, 31, 64] {
        for _ in 0..10 {
            let x = rng.gen::<u128>() & mask(w);
            let out = run("sqrt", Some(w), None, vec![bits(x, w)], vec![]);
            assert_eq!(out[0].len() as u32, w.div_ceil(2));
            let r = val(&out[0]);
            assert!(r * r <= x && (r + 1) * (r + 1) > x, "sqrt({x}) = {r}");
            let out = run("relu", Some(w), None, vec![bits(x, w)], vec![]);
            let negative = x >> (w - 1) & 1 == 1;
            assert_eq!(val(&out[0]), if negative { 0 } else { x }, "relu w={w}");
        }
    }
}

#[test]
fn examples_compute_what_they_say() {
    // auction: [garbler wins], winning bid; ties go to the garbler.
    for (x, y) in [(5u128, 3u128), (3, 5), (4, 4)] {
        let out = run("auction", Some(16), None, vec![bits(x, 16)], vec![bits(y, 16)]);
        assert_eq!((val(&out[0]), val(&out[1])), ((x >= y) as u128, x.max(y)));
    }
    // puf-auth: accept iff at most N of the w bits differ.
    for (d, n) in [(0u32, 3usize), (3, 3), (4, 3), (20, 16), (17, 16)] {
        let x = 0x0123_4567_89ab_cdef_0f1e_2d3c_4b5a_6978u128;
        let y = x ^ ((1u128 << d) - 1);
        let out = run(
            "puf-auth",
            Some(128),
            Some(n),
            vec![bits(x, 128)],
            vec![bits(y, 128)],
        );
        assert_eq!(out[0], vec![d as usize <= n], "distance {d}, threshold {n}");
    }
    // matmul: C = A·B mod 2^w, row-major, for odd and even N (Winograd's pairing differs).
    let mut rng = rand::rngs::StdRng::seed_from_u64(23);
    for n in [1usize, 2, 3, 4, 5, 6] {
        let w = 16u32;
        let a: Vec<u128> = (0..n * n).map(|_| rng.gen::<u128>() & mask(w)).collect();
        let b: Vec<u128> = (0..n * n).map(|_| rng.gen::<u128>() & mask(w)).collect();
        let out = run(
            "matmul",
            Some(w),
            Some(n),
            a.iter().map(|&v| bits(v, w)).collect(),
            b.iter().map(|&v| bits(v, w)).collect(),
        );
        for i in 0..n {
            for j in 0..n {
                let want = (0..n).fold(0u128, |s, k| {
                    s.wrapping_add(a[i * n + k].wrapping_mul(b[k * n + j]))
                }) & mask(w);
                assert_eq!(val(&out[i * n + j]), want, "N={n}: C[{i}][{j}]");
            }
        }
    }
}

#[test]
fn every_op_declares_garbler_inputs_first_and_rejects_bad_arguments() {
    for op in OPS {
        let shape = library::shape(op.name, None, op.default_size.map(|_| 3)).unwrap();
        let owners: Vec<_> = shape.inputs().iter().map(|(o, _)| *o).collect();
        let first_evaluator = owners
            .iter()
            .position(|o| *o == mixgc_program::PartyId::EVALUATOR)
            .unwrap_or(owners.len());
        assert!(
            owners[first_evaluator..]
                .iter()
                .all(|o| *o == mixgc_program::PartyId::EVALUATOR),
            "{}",
            op.name
        );
        // The default ownership of `mixgc run` (the first ⌈n/2⌉ values) is the op's.
        assert_eq!(
            first_evaluator,
            owners.len().div_ceil(2),
            "{}: garbler owns the first half",
            op.name
        );
    }
    assert!(library::record("nope", None, None).is_err());
    assert!(library::record("add", Some(0), None).is_err());
    assert!(library::record("matmul", None, Some(0)).is_err());
}

/// What `mixgc export` writes (the recorded circuit as Bristol Fashion), read back by the
/// Bristol reader, computes what the op computes in plaintext, for every op.
#[test]
fn every_exported_op_reimports_and_evaluates_equal() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(24);
    for op in OPS {
        let size = op.default_size.map(|_| 3);
        let rec = library::record(op.name, None, size).unwrap();
        let mut text = Vec::new();
        mixgc_circuit::bristol::write_fashion(&rec.circuit, &mut text).unwrap();
        let back = mixgc_circuit::bristol::parse(std::str::from_utf8(&text).unwrap(), op.name).unwrap();
        let shape = library::shape(op.name, None, size).unwrap();
        for _ in 0..3 {
            let values: Vec<Vec<bool>> = shape
                .inputs()
                .iter()
                .map(|&(_, w)| (0..w).map(|_| rng.gen()).collect())
                .collect();
            let garbler = rec.garbler_values;
            let plain = run(
                op.name,
                None,
                size,
                values[..garbler].to_vec(),
                values[garbler..].to_vec(),
            );
            assert_eq!(back.eval_plain(&values).unwrap(), plain, "{}", op.name);
        }
    }
}

/// `aes-chain` of N is the AES gadget applied N times (x ← AES_k(x)); its first link is the
/// FIPS-197 known answer; its size has its own cap (it streams, so lengths beyond
/// `MAX_SIZE` are the point) and a clear error beyond it.
#[test]
fn aes_chain_is_aes_applied_repeatedly() {
    use mixgc_program::{gadgets, Backend, PartyId};
    let key = 0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0fu128;
    let x = 0x0011_2233_4455_6677_8899_aabb_ccdd_eeffu128;
    let chain = |n: usize| {
        val(&run(
            "aes-chain",
            None,
            Some(n),
            vec![bits(key, 128)],
            vec![bits(x, 128)],
        )[0])
    };
    assert_eq!(chain(1), 0x69c4_e0d8_6a7b_0430_d8cd_b780_70b4_c55a);
    let mut p = Plain::default();
    let k = p.input(PartyId::GARBLER, 128, Some(&bits(key, 128))).unwrap();
    let mut y = p.input(PartyId::EVALUATOR, 128, Some(&bits(x, 128))).unwrap();
    for n in 1..=3 {
        y = gadgets::aes::aes128(&mut p, &k, &y);
        assert_eq!(chain(n), val(&y), "chain of {n}");
    }
    assert_eq!(library::cost("aes-chain", None, Some(3)).unwrap().ands, 3 * 6_400);
    let err = library::shape("aes-chain", None, Some(library::MAX_CHAIN + 1)).unwrap_err();
    assert!(err.to_string().contains(&library::MAX_CHAIN.to_string()), "{err}");
    assert!(library::shape("aes-chain", None, Some(0)).is_err());
}

/// A width for a fixed-width op or a size for an op without one is refused, not ignored,
/// both when building and when naming a two-party run (so it fails before connecting).
#[test]
fn parameters_an_op_does_not_take_are_refused() {
    use mixgc_program::library::{record, run_name, LibraryError};
    for e in [
        record("aes128", Some(8), None).err(),
        run_name("aes128", Some(8), None).err(),
    ] {
        assert_eq!(
            e,
            Some(LibraryError::FixedWidth {
                name: "aes128".into()
            })
        );
    }
    for e in [
        record("millionaires", None, Some(5)).err(),
        run_name("millionaires", None, Some(5)).err(),
    ] {
        let e = e.expect("refused");
        assert_eq!(
            e,
            LibraryError::NoSize {
                name: "millionaires".into()
            }
        );
        assert_eq!(e.to_string(), "op 'millionaires' takes no size: drop --size");
    }
    assert!(record("millionaires", Some(16), None).is_ok());
    assert!(record("matmul", Some(8), Some(2)).is_ok());
}

/// The matrix product frees each step's temporaries and the accumulators it replaces, so
/// the counter's live wires stay at what it keeps (inputs, outputs, ξ, η) plus one step of
/// 16 lanes, whatever D; before the fix they were every wire made.
#[test]
fn matmul_keeps_only_its_values_and_one_step_alive() {
    use mixgc_program::{gadgets, Backend, Counter, PartyId, MAX_LANES};
    let w = 64u32;
    let step = {
        let mut c = Counter::default();
        let x = c.input(PartyId::GARBLER, w, None).unwrap();
        let p = gadgets::mul::mul(&mut c, &x, &x);
        let s = gadgets::add(&mut c, &p, &x);
        let t = gadgets::add(&mut c, &s, &x);
        gadgets::add(&mut c, &t, &x);
        MAX_LANES as u64 * c.peak_live_wires()
    };
    for d in [4u64, 8, 12, 30] {
        let shape = library::shape("matmul", Some(w), Some(d as usize)).unwrap();
        let cost = shape.cost();
        let made = cost.ands + cost.xors + cost.nots;
        let kept = 3 * d * d * u64::from(w) + 2 * d * u64::from(w);
        let peak = shape.peak_live_wires();
        eprintln!("D = {d}: {made} wires made, peak live {peak}, kept {kept}, one step {step}");
        assert!(
            peak <= kept + step + 64,
            "D = {d}: peak {peak}, kept {kept}, one step {step}"
        );
        if d >= 8 {
            assert!(made > 10 * peak, "D = {d}: {made} wires made, peak {peak}");
        }
    }
}
