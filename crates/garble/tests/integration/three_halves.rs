//! Three-halves garbling (Rosulek–Roy, CRYPTO 2021, ePrint 2021/749): evaluation equals
//! plaintext for every input combination, on single AND groups and on whole circuits (any
//! thread count, any framing); the rows depend on Δ and on the control bits; a group costs
//! 24 + 5/8 bytes per AND; the layout is pinned.

use mixgc_circuit::{bristol, Circuit};
use mixgc_compile::{compile, compile_with, CompiledCircuit, Layout, Reorder, RunKind, DEFAULT_WINDOW};
use mixgc_core::{new_rng, AnyHash, Block, HashKind};
use mixgc_garble::{
    three_halves_group_bytes, Evaluator, Garbler, Scheme, ThreeHalvesEvaluator, ThreeHalvesGarbler,
};
use proptest::prelude::*;
use rand::{Rng, RngCore, SeedableRng};

type StdRng = rand::rngs::StdRng;

fn circuit(name: &str) -> Circuit {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    bristol::read_file(&dir.join(name)).unwrap()
}

/// The halves (low, high) of a block.
fn halves(b: Block) -> (u64, u64) {
    let v = b.to_u128();
    (v as u64, (v >> 64) as u64)
}

/// Garbles one group of ANDs with zero-labels `pairs` at global index `first`, evaluates it
/// on every input combination (the same for all gates, then random ones) and checks
/// C = C⁰ ⊕ (x ∧ y)·Δ. Returns the rows.
fn check_group(
    rng: &mut StdRng,
    hash: HashKind,
    delta: Block,
    pairs: &[(Block, Block)],
    first: u64,
) -> Vec<u8> {
    let hash_seed = Block::random(rng);
    let mut g = ThreeHalvesGarbler::new(AnyHash::new(hash, hash_seed), delta, Block::random(rng));
    let mut skipped = Vec::new();
    for _ in 0..first {
        g.garble(
            &[(Block::random(rng), Block::random(rng))],
            &mut [Block::ZERO],
            &mut skipped,
        );
    }
    assert_eq!(g.ands_garbled(), first);
    let n = pairs.len();
    let (mut zero_out, mut rows) = (vec![Block::ZERO; n], Vec::new());
    g.garble(pairs, &mut zero_out, &mut rows);
    assert_eq!(rows.len(), three_halves_group_bytes(n));
    for case in 0..8 {
        let bits: Vec<(bool, bool)> = (0..n)
            .map(|_| match case {
                0..4 => (case & 1 == 1, case & 2 == 2),
                _ => (rng.gen(), rng.gen()),
            })
            .collect();
        let active: Vec<(Block, Block)> = pairs
            .iter()
            .zip(&bits)
            .map(|(&(a0, b0), &(x, y))| (a0 ^ delta.and_bit(x), b0 ^ delta.and_bit(y)))
            .collect();
        let mut e = ThreeHalvesEvaluator::starting_at(AnyHash::new(hash, hash_seed), first);
        let mut out = vec![Block::ZERO; n];
        e.evaluate(&active, &rows, &mut out);
        assert_eq!(e.ands_evaluated(), first + n as u64);
        for (k, &(x, y)) in bits.iter().enumerate() {
            assert_eq!(
                out[k],
                zero_out[k] ^ delta.and_bit(x && y),
                "gate {k} of {n}, inputs ({x}, {y})"
            );
        }
    }
    rows
}

#[test]
fn random_groups_evaluate_to_the_and_of_every_input_combination() {
    let mut rng = StdRng::seed_from_u64(1);
    for round in 0..400 {
        let n = 1 + round % 16;
        let delta = Block::random(&mut rng).with_lsb_set();
        let pairs: Vec<(Block, Block)> = (0..n)
            .map(|_| (Block::random(&mut rng), Block::random(&mut rng)))
            .collect();
        let hash = if round % 2 == 0 {
            HashKind::Tccr
        } else {
            HashKind::Rekeyed
        };
        check_group(&mut rng, hash, delta, &pairs, (round % 70) as u64);
    }
}

#[test]
fn edge_labels_and_deltas_evaluate_correctly() {
    let mut rng = StdRng::seed_from_u64(2);
    let ones = Block::from_u128(u128::MAX);
    for delta in [
        Block::from_u128(1 | 1 << 64),
        ones,
        Block::from_u128(1 | u128::MAX << 64),
    ] {
        let a = Block::random(&mut rng);
        let pairs = [
            (Block::ZERO, Block::ZERO),
            (Block::ZERO, delta),
            (delta, delta),
            (a, a),
            (a, a ^ delta),
            (ones, ones),
            (ones, Block::ZERO),
            (Block::from_u128(1), Block::ZERO),
        ];
        check_group(&mut rng, HashKind::Tccr, delta, &pairs, 0);
        for &pair in &pairs {
            check_group(&mut rng, HashKind::Rekeyed, delta, &[pair], 63);
        }
    }
}

#[test]
#[should_panic(expected = "lsb(Δ) = 1")]
fn an_even_delta_is_refused() {
    ThreeHalvesGarbler::new(
        AnyHash::new(HashKind::Tccr, Block::ZERO),
        Block::from_u128(2 << 64),
        Block::ZERO,
    );
}

#[test]
#[should_panic(expected = "nonzero high half")]
fn a_delta_with_a_zero_high_half_is_refused() {
    Garbler::three_halves(
        AnyHash::new(HashKind::Tccr, Block::ZERO),
        Block::from_u128(0x1235),
        Block::ZERO,
    );
}

/// The labels and secrets of one garbling.
struct Keys {
    hash: HashKind,
    delta: Block,
    hash_seed: Block,
    control_key: Block,
    zero: Vec<Block>,
    consts: [Block; 2],
}

impl Keys {
    fn new(c: &CompiledCircuit, hash: HashKind, rng: &mut impl RngCore) -> Keys {
        Keys {
            hash,
            delta: Block::random(rng).with_lsb_set(),
            hash_seed: Block::random(rng),
            control_key: Block::random(rng),
            zero: (0..c.input_slots().len()).map(|_| Block::random(rng)).collect(),
            consts: [Block::random(rng), Block::random(rng)],
        }
    }

    fn hash(&self) -> AnyHash {
        AnyHash::new(self.hash, self.hash_seed)
    }

    fn active(&self, bits: &[bool]) -> Vec<Block> {
        self.zero
            .iter()
            .zip(bits)
            .map(|(&z, &b)| z ^ self.delta.and_bit(b))
            .collect()
    }

    /// The bits of the evaluator's output labels; each must be the zero-label or it ⊕ Δ.
    fn decode(&self, labels: &[Block], zeros: &[Block]) -> Vec<bool> {
        for (l, z) in labels.iter().zip(zeros) {
            assert!(*l == *z || *l == *z ^ self.delta, "not a valid label");
        }
        labels.iter().zip(zeros).map(|(l, z)| l.lsb() ^ z.lsb()).collect()
    }
}

/// Three-halves garbling of `c` on `threads` threads (every parallel block split), asking
/// for `frame` bytes per call: the tables and output zero-labels.
fn garble(c: &CompiledCircuit, k: &Keys, threads: usize, frame: usize) -> (Vec<u8>, Vec<Block>) {
    let mut g = Garbler::three_halves(k.hash(), k.delta, k.control_key);
    assert_eq!(g.scheme(), Scheme::ThreeHalves);
    g.set_threads(threads).unwrap();
    g.set_split_ands(0);
    g.start(c, &k.zero, k.consts);
    let mut tables = Vec::new();
    while !g.garble_bytes(c.body(), &mut tables, frame) {}
    assert_eq!(g.ands_garbled(), c.num_ands());
    (tables, g.output_zero_labels(c))
}

/// Three-halves evaluation of `c` with the tables arriving in frames of `frame` bytes.
fn evaluate(
    c: &CompiledCircuit,
    k: &Keys,
    bits: &[bool],
    tables: &[u8],
    threads: usize,
    frame: usize,
) -> Vec<Block> {
    let mut e = Evaluator::with_scheme(k.hash(), Scheme::ThreeHalves, 0);
    assert_eq!(e.scheme(), Scheme::ThreeHalves);
    e.set_threads(threads).unwrap();
    e.set_split_ands(0);
    e.start(c, &k.active(bits), [k.consts[0], k.consts[1] ^ k.delta]);
    let (mut pending, mut frames) = (Vec::new(), tables.chunks(frame));
    loop {
        let (used, done) = e.evaluate_bytes(c.body(), &pending);
        pending.drain(..used);
        if done {
            break;
        }
        pending.extend_from_slice(
            frames
                .next()
                .expect("the evaluator wants no more tables than there are"),
        );
    }
    assert!(
        pending.is_empty() && frames.next().is_none(),
        "every table byte used"
    );
    assert_eq!(e.ands_evaluated(), c.num_ands());
    e.output_labels(c)
}

/// Half-gates garbling and evaluation of `c` in one go.
fn half_gates(c: &CompiledCircuit, k: &Keys, bits: &[bool]) -> Vec<bool> {
    let mut g = Garbler::new(k.hash(), k.delta);
    assert_eq!(g.scheme(), Scheme::HalfGates);
    g.start(c, &k.zero, k.consts);
    let mut tables = Vec::new();
    g.garble(c.body(), &mut tables, usize::MAX);
    let mut e = Evaluator::new(k.hash());
    e.start(c, &k.active(bits), [k.consts[0], k.consts[1] ^ k.delta]);
    assert_eq!(e.evaluate(c.body(), &tables), (tables.len(), true));
    k.decode(&e.output_labels(c), &g.output_zero_labels(c))
}

/// Garbles and evaluates `c` under both schemes, three-halves on 1 and 2 threads with random
/// frames: the plaintext answer, and the same tables on any thread count.
fn check_circuit(c: &Circuit, layout: Layout, rng: &mut StdRng, hash: HashKind) {
    let compiled = compile_with(c, layout);
    let inputs: Vec<Vec<bool>> = c
        .input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect();
    let want: Vec<bool> = c.eval_plain(&inputs).unwrap().concat();
    let bits = inputs.concat();
    let keys = Keys::new(&compiled, hash, rng);
    assert_eq!(half_gates(&compiled, &keys, &bits), want, "half-gates");
    let (tables, zeros) = garble(&compiled, &keys, 1, usize::MAX);
    for threads in [1, 2] {
        let frame = rng.gen_range(1..2000);
        assert!(
            garble(&compiled, &keys, threads, frame) == (tables.clone(), zeros.clone()),
            "{threads} threads"
        );
        let labels = evaluate(&compiled, &keys, &bits, &tables, 3 - threads, frame);
        assert_eq!(keys.decode(&labels, &zeros), want, "three-halves, {layout:?}");
    }
}

fn layouts() -> [Layout; 3] {
    [
        Layout::Reordered(Reorder::Full, DEFAULT_WINDOW),
        Layout::Reordered(Reorder::Segment, 4096),
        Layout::Batched,
    ]
}

#[test]
fn shipped_circuits_evaluate_to_the_plaintext_under_both_schemes() {
    let mut rng = StdRng::seed_from_u64(3);
    for name in ["aes_128.txt", "adder64.txt", "sha256.txt"] {
        let c = circuit(name);
        for layout in layouts() {
            check_circuit(&c, layout, &mut rng, HashKind::Tccr);
        }
    }
    check_circuit(&circuit("aes_128.txt"), layouts()[0], &mut rng, HashKind::Rekeyed);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_circuits_evaluate_to_the_plaintext(seed: u64, gates in 1usize..2000, w1 in 1u32..32, w2 in 0u32..32) {
        let mut rng = StdRng::seed_from_u64(seed);
        let c = Circuit::random(&mut rng, &[w1, w2], gates, 12);
        for layout in layouts() {
            check_circuit(&c, layout, &mut rng, HashKind::Tccr);
        }
    }
}

/// AND(x, x) and AND(x, ¬x): the evaluator holds one label for both inputs. Every colour and
/// input evaluates correctly, and no ciphertext half, nor its sum with another or with a
/// half of the active label, is 0, Δ_L or Δ_R.
#[test]
fn and_of_a_wire_with_itself_or_its_negation() {
    let mut rng = StdRng::seed_from_u64(10);
    for negated in [false, true] {
        let text = if negated {
            "2 3\n1 1\n1 1\n\n1 1 0 1 INV\n2 1 0 1 2 AND\n"
        } else {
            "1 2\n1 1\n1 1\n\n2 1 0 0 1 AND\n"
        };
        let compiled = compile(&bristol::parse(text, "selfand").unwrap());
        for p_a in [false, true] {
            for x in [false, true] {
                let mut keys = Keys::new(&compiled, HashKind::Tccr, &mut rng);
                let colour = Block::from_u128(u128::from(keys.zero[0].lsb() != p_a));
                keys.zero[0] ^= colour;
                let (tables, zeros) = garble(&compiled, &keys, 1, usize::MAX);
                assert_eq!(tables.len(), three_halves_group_bytes(1), "one AND");
                let out = keys.decode(&evaluate(&compiled, &keys, &[x], &tables, 1, usize::MAX), &zeros);
                assert_eq!(out, vec![x && (x ^ negated)]);
                let g: Vec<u64> = (0..3)
                    .map(|m| u64::from_le_bytes(tables[8 * m..8 * m + 8].try_into().unwrap()))
                    .collect();
                let (d_l, d_r) = halves(keys.delta);
                let (a_l, a_r) = halves(keys.active(&[x])[0]);
                let sums = [
                    g[0],
                    g[1],
                    g[2],
                    g[0] ^ g[1],
                    g[0] ^ g[2],
                    g[1] ^ g[2],
                    g[0] ^ g[1] ^ g[2],
                ];
                for v in sums.iter().flat_map(|&s| [s, s ^ a_l, s ^ a_r, s ^ a_l ^ a_r]) {
                    assert!(
                        v != 0 && v != d_l && v != d_r,
                        "negated = {negated}, p_a = {p_a}, x = {x}"
                    );
                }
            }
        }
    }
}

/// The rows are a function of Δ (flipping one bit of Δ changes every gate's ciphertexts)
/// and of the control key; the control bits z carry no fixed value: over random keys each
/// takes both values about equally often, for either colour pair of the inputs.
#[test]
fn rows_depend_on_delta_and_on_the_control_bits() {
    let c = compile(&circuit("adder64.txt"));
    let mut rng = StdRng::seed_from_u64(11);
    let keys = Keys::new(&c, HashKind::Tccr, &mut rng);
    let (tables, _) = garble(&c, &keys, 1, usize::MAX);
    let flipped = Keys {
        delta: keys.delta ^ Block::from_u128(1 << 77),
        zero: keys.zero.clone(),
        ..Keys::new(&c, HashKind::Tccr, &mut StdRng::seed_from_u64(11))
    };
    let (other, _) = garble(&c, &flipped, 1, usize::MAX);
    assert_eq!(tables.len(), other.len());
    let mut at = 0;
    for run in c.runs().iter().filter(|r| r.kind == RunKind::And) {
        let n = run.len as usize;
        for k in 0..n {
            let (x, y) = (
                &tables[at + 24 * k..at + 24 * k + 24],
                &other[at + 24 * k..at + 24 * k + 24],
            );
            for m in 0..3 {
                assert_ne!(
                    x[8 * m..8 * m + 8],
                    y[8 * m..8 * m + 8],
                    "gate {k} of a group, G{m}"
                );
            }
        }
        at += three_halves_group_bytes(n);
    }
    assert_eq!(at, tables.len());

    for (p_a, p_b) in [(false, false), (true, false), (false, true), (true, true)] {
        let mut ones = [0u32; 5];
        let rounds = 400;
        for _ in 0..rounds {
            let delta = Block::random(&mut rng).with_lsb_set();
            let colour = |b: Block, p: bool| b ^ Block::from_u128(u128::from(b.lsb() != p));
            let pair = (
                colour(Block::random(&mut rng), p_a),
                colour(Block::random(&mut rng), p_b),
            );
            let mut g = ThreeHalvesGarbler::new(
                AnyHash::new(HashKind::Tccr, Block::ZERO),
                delta,
                Block::random(&mut rng),
            );
            let mut rows = Vec::new();
            g.garble(&[pair], &mut [Block::ZERO], &mut rows);
            for (m, count) in ones.iter_mut().enumerate() {
                *count += u32::from((rows[24] >> m) & 1);
            }
        }
        for (m, &count) in ones.iter().enumerate() {
            assert!(
                (140..=260).contains(&count),
                "z{m} set {count} times of {rounds} (colours {p_a}, {p_b})"
            );
        }
    }
}

#[test]
fn a_group_costs_24_bytes_and_5_bits_per_and() {
    for n in 0..=16 {
        assert_eq!(three_halves_group_bytes(n), 24 * n + (5 * n).div_ceil(8));
    }
    assert_eq!(
        three_halves_group_bytes(16),
        16 * 24 + 10,
        "24 + 5/8 bytes per AND"
    );
    assert_eq!(three_halves_group_bytes(8), 8 * 24 + 5);
    let c = compile(&circuit("aes_128.txt"));
    let keys = Keys::new(&c, HashKind::Tccr, &mut StdRng::seed_from_u64(12));
    let (tables, _) = garble(&c, &keys, 1, usize::MAX);
    let groups: Vec<usize> = c
        .runs()
        .iter()
        .filter(|r| r.kind == RunKind::And)
        .map(|r| r.len as usize)
        .collect();
    assert_eq!(
        tables.len(),
        groups.iter().map(|&n| three_halves_group_bytes(n)).sum::<usize>()
    );
    let ands = c.num_ands() as usize;
    // Each group rounds its 5n bits up to whole bytes: under 1 byte per group over 24.625.
    assert!(tables.len() * 8 >= ands * (24 * 8 + 5));
    assert!(tables.len() * 8 < ands * (24 * 8 + 5) + groups.len() * 8);
    assert!(
        tables.len() * 4 < ands * 32 * 4 * 4 / 5,
        "under 80 % of half-gates' 32 bytes per AND"
    );
}

/// BLAKE3 of the tables and output zero-labels of a seeded three-halves garbling of
/// adder64 and of AES-128: the layout cannot change silently.
#[test]
fn pinned_tables() {
    let mut digests = Vec::new();
    for name in ["adder64.txt", "aes_128.txt"] {
        let c = compile(&circuit(name));
        let keys = Keys::new(&c, HashKind::Tccr, &mut new_rng(Some(2021), 749));
        let (tables, zeros) = garble(&c, &keys, 1, usize::MAX);
        let mut h = blake3::Hasher::new();
        h.update(&tables);
        for z in &zeros {
            h.update(&z.to_bytes());
        }
        digests.push(h.finalize().to_hex().to_string());
    }
    assert_eq!(
        digests,
        [
            "7c66fda7aac7d2f684230a29c588d7b93e512f802928fb238308e1b84d505d63",
            "d82c513b5e4544dcab333953988d0b7ff3c14f96b91cda4a6ca8bbf4acd81d80",
        ]
    );
}
