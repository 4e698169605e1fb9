//! Parallel blocks on several threads.
//!
//! A compiled stream marks blocks of runs whose gates are mutually independent and whose
//! outputs share no slot with anything else the block reads or writes
//! ([`RunKind::Parallel`], checked by [`mixgc_compile::Chunk::check`]). A core cuts such a
//! block at run boundaries into a few pieces per thread, of about equal work, which the
//! threads take as they come. Each piece knows how many ANDs of the block come before it, so its gates get the tweaks (2g, 2g + 1 from
//! the global AND index g) and its rows the places they have on one thread: tables and
//! labels are the same for every thread count. Blocks too small to pay for waking the
//! workers run on the calling thread.

use mixgc_compile::{Run, RunKind, MAX_PARALLEL_GATES};

use crate::pool::Pool;

/// An AND gate's work in units of a free gate's: it hashes two (evaluator) or four
/// (garbler) blocks with two AES calls each, where a free gate XORs two labels.
const AND_WORK: usize = 16;

/// Most pieces a block is cut into per thread: enough that the threads finish a block
/// together (and that one starting late leaves its share to the others), few enough to
/// stay cheap.
const PIECES_PER_THREAD: usize = 16;

/// The least work worth a piece of its own: two AND groups' worth, about 1 µs.
const PIECE_WORK: usize = 32 * AND_WORK;

/// Default of [`Threads::set_split_ands`]: a block is split when it holds the work of 64
/// ANDs (about 2 µs on one thread; handing pieces to a waiting worker costs well under
/// 1 µs).
pub const DEFAULT_SPLIT_ANDS: usize = 64;

/// Where a piece of a block starts, counted from the block's start: its first run,
/// that run's first gate, and the ANDs before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cut {
    pub run: usize,
    pub gate: usize,
    pub and: usize,
}

/// The size of a block to be split: its runs (after the marker), gates and ANDs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    pub runs: usize,
    pub gates: usize,
    pub ands: usize,
}

/// How a core runs parallel blocks: its worker pool and the cuts of the block at hand.
pub(crate) struct Threads {
    pool: Option<Pool>,
    split_ands: usize,
    /// `cuts[p]..cuts[p + 1]` is piece p.
    cuts: Vec<Cut>,
}

impl Threads {
    /// One thread: blocks run like any other runs.
    pub(crate) fn new() -> Threads {
        Threads {
            pool: None,
            split_ands: DEFAULT_SPLIT_ANDS,
            cuts: Vec::new(),
        }
    }

    /// Uses `threads` threads (the caller and `threads - 1` workers) from now on.
    pub(crate) fn set(&mut self, threads: usize) -> std::io::Result<()> {
        assert!(threads >= 1, "at least one thread");
        if threads != self.count() {
            self.pool = None;
            if threads > 1 {
                self.pool = Some(Pool::new(threads)?);
            }
        }
        Ok(())
    }

    pub(crate) fn count(&self) -> usize {
        self.pool.as_ref().map_or(1, Pool::threads)
    }

    pub(crate) fn set_split_ands(&mut self, ands: usize) {
        self.split_ands = ands;
    }

    /// If the block announced by the marker `runs[0]` is worth spreading over the threads,
    /// its size, with the cuts of its pieces. Blocks of more than
    /// [`MAX_PARALLEL_GATES`] gates (which `compile` never makes) run on one thread, so an
    /// evaluator never waits for more tables than that.
    pub(crate) fn plan(&mut self, runs: &[Run]) -> Option<Plan> {
        let pool = self.pool.as_ref()?;
        debug_assert_eq!(runs[0].kind, RunKind::Parallel);
        let block = &runs[1..1 + runs[0].len as usize];
        let plan = Plan {
            runs: block.len(),
            gates: block.iter().map(|r| r.len as usize).sum(),
            ands: block.iter().map(|r| and_gates(*r)).sum(),
        };
        let work = plan.gates + (AND_WORK - 1) * plan.ands;
        if plan.gates > MAX_PARALLEL_GATES || work < self.split_ands * AND_WORK {
            return None;
        }
        let threads = pool.threads();
        let parts = (work / PIECE_WORK).clamp(threads, threads * PIECES_PER_THREAD);
        self.cuts.clear();
        self.cuts.push(Cut::default());
        let (mut at, mut done) = (Cut::default(), 0);
        for t in 1..parts {
            // Whole runs until the pieces so far hold t/parts of the work.
            while at.run < block.len() && done * parts < work * t {
                let r = block[at.run];
                done += r.len as usize + (AND_WORK - 1) * and_gates(r);
                at = Cut {
                    run: at.run + 1,
                    gate: at.gate + r.len as usize,
                    and: at.and + and_gates(r),
                };
            }
            self.cuts.push(at);
        }
        self.cuts.push(Cut {
            run: plan.runs,
            gate: plan.gates,
            and: plan.ands,
        });
        Some(plan)
    }

    /// Runs `piece(from, to)` for every piece of the block [`Threads::plan`] planned last,
    /// on all threads, and returns when all are done.
    pub(crate) fn run(&self, piece: impl Fn(Cut, Cut) + Sync) {
        let pool = self.pool.as_ref().expect("plan() found threads");
        let cuts = &self.cuts;
        pool.run(cuts.len() - 1, &|p| piece(cuts[p], cuts[p + 1]));
    }
}

fn and_gates(r: Run) -> usize {
    if r.kind == RunKind::And {
        r.len as usize
    } else {
        0
    }
}
