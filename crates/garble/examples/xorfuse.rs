//! Would free-XOR chains fused at compile time make the XOR runs faster? A wire computed
//! by XOR and read once, by a later XOR of the same run, need not be stored: its reader
//! becomes an n-ary record (k inputs, k − 1 register XORs, one store). This example builds
//! such records from a compiled stream (on its own slots, where a freed input slot may be
//! reused before the reader runs, and on single-assignment slots, the best any
//! fusion-aware allocation could do), checks that every variant computes the stream's
//! outputs, and times the XOR runs alone: minimum wall time over interleaved repetitions.
//! `xorfuse [CIRCUIT]`.
use std::collections::HashMap;
use std::time::Instant;

use mixgc_circuit::bristol;
use mixgc_compile::{compile, CompiledCircuit, Gate, RunKind};
use mixgc_core::Block;

const REPS: usize = 300;
const NONE: usize = usize::MAX;

/// How records are built and laid out.
struct Variant {
    name: &'static str,
    /// Every gate output renamed to a fresh slot (no slot reuse).
    single_assignment: bool,
    /// Most inputs of one record.
    max_inputs: usize,
    /// Records' inputs padded with a slot holding zero.
    pad: Pad,
    /// Records of a run ordered by (level, padded arity), so runs of equal arity are longer.
    sort: bool,
}

/// How records' inputs are padded with a slot holding zero.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pad {
    None,
    /// To 2, 4 or 8 inputs.
    PowerOfTwo,
    /// All to the most inputs: one arity, one loop, no dispatch.
    Uniform,
}

/// A run of records of `arity` inputs each: `arity` input slots, then the output slot.
type SubRun = (usize, Vec<u32>);

/// The stream's gates with their run kinds, on the variant's slots.
struct Program {
    num_slots: usize,
    /// A slot no gate writes, holding zero (the padding's input).
    zero: u32,
    kinds: Vec<RunKind>,
    run_of: Vec<usize>,
    gates: Vec<Gate>,
    outputs: Vec<u32>,
}

fn program(c: &CompiledCircuit, single_assignment: bool) -> Program {
    let (mut kinds, mut run_of) = (Vec::new(), Vec::new());
    for (i, r) in c.runs().iter().enumerate() {
        let n = r.kind.gates_in(r.len);
        kinds.extend(std::iter::repeat_n(r.kind, n));
        run_of.extend(std::iter::repeat_n(i, n));
    }
    let base = c.num_slots();
    if !single_assignment {
        let outputs = c.output_slots().to_vec();
        let gates = c.gates().to_vec();
        return Program {
            num_slots: base as usize + 1,
            zero: base,
            kinds,
            run_of,
            gates,
            outputs,
        };
    }
    // An AND run reads all its inputs before it writes (an output may reuse an input's
    // slot), so its writes are renamed after its reads.
    let mut current: Vec<u32> = (0..base).collect();
    let mut gates: Vec<Gate> = Vec::with_capacity(c.gates().len());
    let mut pending: Vec<(u32, u32)> = Vec::new();
    for (i, g) in c.gates().iter().enumerate() {
        if i > 0 && run_of[i] != run_of[i - 1] {
            pending.drain(..).for_each(|(s, out)| current[s as usize] = out);
        }
        let out = base + 1 + i as u32;
        let read = |s: u32| current[s as usize];
        let (a, b) = if kinds[i] == RunKind::Const {
            (g.a, g.b)
        } else {
            (read(g.a), read(g.b))
        };
        gates.push(Gate { a, b, out });
        if kinds[i] == RunKind::And {
            pending.push((g.out, out));
        } else {
            current[g.out as usize] = out;
        }
    }
    pending.drain(..).for_each(|(s, out)| current[s as usize] = out);
    let outputs = c.output_slots().iter().map(|&s| current[s as usize]).collect();
    Program {
        num_slots: base as usize + 1 + gates.len(),
        zero: base,
        kinds,
        run_of,
        gates,
        outputs,
    }
}

/// The gate whose value each slot holds, as gates run: an AND run reads all its inputs
/// before it writes, so its writes take effect when the next run starts.
struct Writers {
    writer: Vec<usize>,
    pending: Vec<(u32, usize)>,
}

impl Writers {
    fn new(num_slots: usize) -> Writers {
        Writers {
            writer: vec![NONE; num_slots],
            pending: Vec::new(),
        }
    }

    /// Before gate `i` (or `gates.len()`, after the last).
    fn enter(&mut self, p: &Program, i: usize) {
        if i == p.gates.len() || (i > 0 && p.run_of[i] != p.run_of[i - 1]) {
            self.pending
                .drain(..)
                .for_each(|(s, w)| self.writer[s as usize] = w);
        }
    }

    fn of(&self, slot: u32) -> usize {
        self.writer[slot as usize]
    }

    fn wrote(&mut self, p: &Program, i: usize) {
        let out = p.gates[i].out;
        if p.kinds[i] == RunKind::And {
            self.pending.push((out, i));
        } else {
            self.writer[out as usize] = i;
        }
    }
}

/// What became of an XOR value read once, by an XOR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// Its reader is in a later run.
    OtherRun,
    /// A slot it was computed from holds another value when its reader runs.
    InputOverwritten,
    /// The reader's record would exceed the variant's most inputs.
    TooManyInputs,
    Fused,
}

/// The fused XOR runs (one list of sub-runs per XOR run, in order), the records' arities,
/// and how many single-use XOR values got each [`Verdict`].
fn fuse(p: &Program, v: &Variant) -> (Vec<Vec<SubRun>>, Vec<usize>, [usize; 4]) {
    assert!(
        !v.sort || v.single_assignment,
        "reordering is safe only without slot reuse"
    );
    let n = p.gates.len();
    // The value (writing gate) each operand reads, and how often each value is read.
    let mut writer = Writers::new(p.num_slots);
    let mut read = vec![[NONE; 2]; n];
    let mut uses = vec![0u32; n];
    for (i, g) in p.gates.iter().enumerate() {
        writer.enter(p, i);
        if p.kinds[i] != RunKind::Const {
            read[i] = [g.a, g.b].map(|s| writer.of(s));
            read[i].iter().filter(|&&w| w != NONE).for_each(|&w| uses[w] += 1);
        }
        writer.wrote(p, i);
    }
    writer.enter(p, n);
    for &s in &p.outputs {
        if writer.of(s) != NONE {
            uses[writer.of(s)] += 2;
        }
    }
    // Greedy fusion in program order: an operand whose value is read only here, written by
    // an XOR of this run whose own inputs still hold their values, is replaced by them.
    let mut writer = Writers::new(p.num_slots);
    let mut leaves: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
    let mut dropped = vec![false; n];
    let mut verdicts = [0usize; 4];
    for (i, g) in p.gates.iter().enumerate() {
        writer.enter(p, i);
        if p.kinds[i] == RunKind::Xor {
            let mut l = Vec::new();
            for (s, w) in [g.a, g.b].into_iter().zip(read[i]) {
                let candidate = w != NONE && p.kinds[w] == RunKind::Xor && uses[w] == 1;
                let verdict = if !candidate {
                    None
                } else if p.run_of[w] != p.run_of[i] {
                    Some(Verdict::OtherRun)
                } else if !leaves[w].iter().all(|&(ls, lw)| writer.of(ls) == lw) {
                    Some(Verdict::InputOverwritten)
                } else if l.len() + leaves[w].len() >= v.max_inputs {
                    Some(Verdict::TooManyInputs)
                } else {
                    Some(Verdict::Fused)
                };
                if let Some(x) = verdict {
                    verdicts[x as usize] += 1;
                }
                if verdict == Some(Verdict::Fused) {
                    dropped[w] = true;
                    l.append(&mut leaves[w]);
                } else {
                    l.push((s, w));
                }
            }
            leaves[i] = l;
        }
        writer.wrote(p, i);
    }
    let mut runs: Vec<Vec<(Vec<u32>, u32)>> = Vec::new();
    let mut last_run = NONE;
    for (i, g) in p.gates.iter().enumerate() {
        if p.kinds[i] == RunKind::Xor && !dropped[i] {
            if p.run_of[i] != last_run {
                runs.push(Vec::new());
                last_run = p.run_of[i];
            }
            let mut ins: Vec<u32> = leaves[i].iter().map(|l| l.0).collect();
            match v.pad {
                Pad::None => {}
                Pad::PowerOfTwo => ins.resize(ins.len().next_power_of_two().max(2), p.zero),
                Pad::Uniform => ins.resize(v.max_inputs, p.zero),
            }
            runs.last_mut().unwrap().push((ins, g.out));
        }
    }
    let arities = runs.iter().flatten().map(|r| r.0.len()).collect();
    let subs = runs.into_iter().map(|run| sub_runs(run, v.sort)).collect();
    (subs, arities, verdicts)
}

/// One run's records cut into runs of equal arity; if `sort`, first ordered by level
/// (single-assignment slots only: no write-after-read hazards) and arity.
fn sub_runs(mut run: Vec<(Vec<u32>, u32)>, sort: bool) -> Vec<SubRun> {
    if sort {
        let mut level = HashMap::<u32, usize>::new();
        let keys: Vec<(usize, usize)> = run
            .iter()
            .map(|(ins, out)| {
                let l = 1 + ins.iter().filter_map(|s| level.get(s)).max().unwrap_or(&0);
                level.insert(*out, l);
                (l, ins.len())
            })
            .collect();
        let mut keyed: Vec<_> = keys.into_iter().zip(run).collect();
        keyed.sort_by_key(|k| k.0);
        run = keyed.into_iter().map(|k| k.1).collect();
    }
    let mut subs: Vec<SubRun> = Vec::new();
    for (ins, out) in run {
        if subs.last().map(|s| s.0) != Some(ins.len()) {
            subs.push((ins.len(), Vec::new()));
        }
        let words = &mut subs.last_mut().unwrap().1;
        words.extend(&ins);
        words.push(out);
    }
    subs
}

/// The whole stream with AND gates replaced by a fixed non-linear function of their
/// inputs and the XOR runs by `xor_run(run index, slots)`: the outputs.
fn run_model(p: &Program, mut xor_run: impl FnMut(usize, &mut [Block])) -> Vec<Block> {
    let mut slots: Vec<Block> = (1..=p.num_slots as u128)
        .map(|i| Block::from_u128(i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)))
        .collect();
    slots[p.zero as usize] = Block::ZERO;
    let (mut i, mut xor_runs) = (0, 0);
    while i < p.gates.len() {
        let run = p.run_of[i];
        let end = i + p.run_of[i..].iter().take_while(|&&r| r == run).count();
        match p.kinds[i] {
            RunKind::Xor => {
                xor_run(xor_runs, &mut slots);
                xor_runs += 1;
            }
            kind => {
                let vals: Vec<Block> = p.gates[i..end]
                    .iter()
                    .map(|g| match kind {
                        RunKind::Const => Block::from_u128(g.a as u128),
                        _ => {
                            let (a, b) = (slots[g.a as usize].to_u128(), slots[g.b as usize].to_u128());
                            Block::from_u128(a.rotate_left(7) ^ b.wrapping_mul(3) ^ (a & b))
                        }
                    })
                    .collect();
                p.gates[i..end]
                    .iter()
                    .zip(vals)
                    .for_each(|(g, x)| slots[g.out as usize] = x);
            }
        }
        i = end;
    }
    p.outputs.iter().map(|&s| slots[s as usize]).collect()
}

#[inline(never)]
fn run_gates(slots: &mut [Block], runs: &[Vec<Gate>]) {
    let p = slots.as_mut_ptr();
    for g in runs.iter().flatten() {
        // SAFETY: every operand is < num_slots = the array's length.
        unsafe { *p.add(g.out as usize) = *p.add(g.a as usize) ^ *p.add(g.b as usize) };
    }
}

/// # Safety
/// Every slot in `subs` is < `slots.len()`.
#[inline(never)]
unsafe fn run_subs(slots: &mut [Block], subs: &[SubRun]) {
    for (k, words) in subs {
        // SAFETY: the caller's precondition.
        unsafe {
            match k {
                2 => run_arity::<2>(slots, words),
                3 => run_arity::<3>(slots, words),
                4 => run_arity::<4>(slots, words),
                5 => run_arity::<5>(slots, words),
                6 => run_arity::<6>(slots, words),
                7 => run_arity::<7>(slots, words),
                _ => run_arity::<8>(slots, words),
            }
        }
    }
}

/// # Safety
/// Every slot in `words` is < `slots.len()`.
#[inline(always)]
unsafe fn run_arity<const K: usize>(slots: &mut [Block], words: &[u32]) {
    let p = slots.as_mut_ptr();
    for r in words.chunks_exact(K + 1) {
        // SAFETY: the caller's precondition.
        unsafe {
            let mut acc = *p.add(r[0] as usize);
            for &s in &r[1..K] {
                acc ^= *p.add(s as usize);
            }
            *p.add(r[K] as usize) = acc;
        }
    }
}

fn xor_runs(p: &Program) -> Vec<Vec<Gate>> {
    let mut runs: Vec<Vec<Gate>> = Vec::new();
    for (i, g) in p.gates.iter().enumerate() {
        if p.kinds[i] == RunKind::Xor {
            if i == 0 || p.run_of[i - 1] != p.run_of[i] {
                runs.push(Vec::new());
            }
            runs.last_mut().unwrap().push(*g);
        }
    }
    runs
}

fn main() {
    let file = std::env::args().nth(1).unwrap_or("circuits/aes_128.txt".into());
    let c = compile(&bristol::read_file(std::path::Path::new(&file)).expect("a Bristol circuit"));
    let variant = |name, single_assignment, max_inputs, pad, sort| Variant {
        name,
        single_assignment,
        max_inputs,
        pad,
        sort,
    };
    let variants = [
        variant("compiled slots, k = 2 (no fusion)", false, 2, Pad::None, false),
        variant("compiled slots, k <= 8", false, 8, Pad::None, false),
        variant("single-assignment, k = 2 (no fusion)", true, 2, Pad::None, false),
        variant("single-assignment, k <= 8", true, 8, Pad::None, false),
        variant(
            "single-assignment, k <= 8, padded 2/4/8, sorted",
            true,
            8,
            Pad::PowerOfTwo,
            true,
        ),
        variant(
            "single-assignment, k <= 4, padded 2/4, sorted",
            true,
            4,
            Pad::PowerOfTwo,
            true,
        ),
        variant("single-assignment, k <= 3, sorted", true, 3, Pad::None, true),
        variant(
            "compiled slots, k <= 3, all padded to 3",
            false,
            3,
            Pad::Uniform,
            false,
        ),
        variant(
            "single-assignment, k <= 3, all padded to 3",
            true,
            3,
            Pad::Uniform,
            false,
        ),
    ];
    let base = program(&c, false);
    let base_runs = xor_runs(&base);
    let expected = run_model(&base, |r, slots| run_gates(slots, &base_runs[r..=r]));
    let xors = base_runs.iter().map(Vec::len).sum::<usize>();
    println!(
        "{file}: {xors} XOR gates ({} label loads, {xors} stores), {} ANDs",
        2 * xors,
        c.num_ands()
    );
    let mut built = Vec::new();
    for v in &variants {
        let p = program(&c, v.single_assignment);
        let (subs, arities, verdicts) = fuse(&p, v);
        let in_range = subs
            .iter()
            .flatten()
            .flat_map(|s| &s.1)
            .all(|&s| (s as usize) < p.num_slots);
        assert!(in_range, "{}: a record's slot is out of range", v.name);
        // SAFETY: every slot of `subs` is < p.num_slots, the model's slot count (checked).
        let got = run_model(&p, |r, slots| unsafe { run_subs(slots, &subs[r]) });
        assert!(
            got == expected,
            "{}: the fused records compute other outputs",
            v.name
        );
        let mut hist = [0usize; 9];
        arities.iter().for_each(|&k| hist[k] += 1);
        println!(
            "{:48}: {} records ({} label loads incl. padding), {} runs of one arity; records by arity 2..8 {:?}",
            v.name,
            arities.len(),
            arities.iter().sum::<usize>(),
            subs.iter().map(Vec::len).sum::<usize>(),
            &hist[2..]
        );
        println!(
            "{:48}  single-use XOR values read by an XOR: {} read in another run, {} with an \
             input overwritten first, {} over the most inputs, {} fused",
            "", verdicts[0], verdicts[1], verdicts[2], verdicts[3]
        );
        built.push((p.num_slots, subs.concat()));
    }
    let mut slots: Vec<Block> = (0..base.num_slots as u128).map(Block::from_u128).collect();
    let mut variant_slots: Vec<Vec<Block>> = built.iter().map(|b| vec![Block::ZERO; b.0]).collect();
    let mut best = vec![u64::MAX; 1 + built.len()];
    // Each timed pass follows an untimed one of the same variant, so that its slots (up to
    // 0.6 MB on single-assignment slots) are in cache, not another variant's.
    let time = |best: &mut u64, f: &mut dyn FnMut()| {
        f();
        let t = Instant::now();
        f();
        *best = (*best).min(t.elapsed().as_nanos() as u64);
    };
    for _ in 0..REPS {
        time(&mut best[0], &mut || run_gates(&mut slots, &base_runs));
        for (k, (_, subs)) in built.iter().enumerate() {
            // SAFETY: every slot of `subs` is < the variant's slot count (checked above).
            time(&mut best[k + 1], &mut || unsafe {
                run_subs(&mut variant_slots[k], subs)
            });
        }
    }
    let per_and = |b: u64| b as f64 / c.num_ands() as f64;
    println!(
        "XOR runs as compiled (2 inputs a gate){:12}: {:.3} ns/AND",
        "",
        per_and(best[0])
    );
    for (v, b) in variants.iter().zip(&best[1..]) {
        println!("XOR runs fused, {:36}: {:.3} ns/AND", v.name, per_and(*b));
    }
}
