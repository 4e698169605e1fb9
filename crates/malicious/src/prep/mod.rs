//! Function-independent preprocessing (WRK17's F_Pre) secure against a malicious peer:
//! [`Kos15Preprocessor`] implements [`Preprocessor`] over any [`Channel`].
//!
//! The data path, one module per step:
//! - setup: Masny–Rindal endemic base OT ([`mixgc_ot::endemic`]), 128 for the garbler's COT;
//!   the evaluator's COT takes 128 checked COTs of that one as its base OTs;
//! - [`cot`]: IKNP correlated OT with the KOS15 consistency check, correlation = Δ_P;
//! - [`abit`]: random authenticated shares from COT in both directions (WRK17 §3 / Fig. 5, F_aBit);
//! - [`laand`]: leaky AND triples (KRRW18 Fig. 5, realising WRK17's F_LaAND);
//! - [`bucket`]: permute, bucket and combine into secure triples (WRK17 Fig. 9);
//! - [`coin`]: commitments and coin tossing, [`gf128`]: the field of the KOS15 check.
//!
//! The entry point of each step is `#[inline(never)]`, so that profiles attribute time per
//! step (one call per chunk of 2^15 triples: the call costs nothing).
//!
//! Every check these papers require aborts with `MaliciousError::CheckFailed { check }`;
//! the names are listed in `docs/malicious.md` ("Preprocessing") with the tests that
//! show them.

mod abit;
mod bucket;
mod coin;
mod cot;
mod gf128;
mod laand;
#[cfg(test)]
mod tests;

use mixgc_core::{Block, Rng, Tccr};
use mixgc_net::Channel;

use crate::{AuthShare, AuthTriple, Delta, MaliciousError, Preprocessor, Role};
use abit::Shares;
use cot::{CotReceiver, CotSender};

pub use bucket::MIN_TRIPLES;

/// Names of the checks the preprocessing can fail (`MaliciousError::CheckFailed`).
pub mod checks {
    pub use super::bucket::OPEN_CHECK;
    pub use super::cot::{KOS_CHECK, KOS_COINS};
    pub use super::laand::{LAAND_CHECK, LAAND_COMMITMENT};
    /// The garbler's commitment to its bucketing coins did not open.
    pub const BUCKET_COINS: &str = "bucketing coin-toss commitment";
}

/// The most triples generated in one internal batch: bounds memory (≈ 0.7 KB per triple
/// of the batch while it is generated, besides the returned triples) whatever
/// `and_triples` is asked for; ≥ 280,000 so that WRK17's bucket size is 3.
pub const MAX_BATCH: usize = 300_000;

/// Leaky triples per leaky-AND round: bounds the working set of the COTs and hashes.
const LAAND_CHUNK: usize = 1 << 15;

/// A deviation injected by the cheating tests (never set outside them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Fault {
    #[default]
    None,
    /// The COT receiver sends a wrong x in the KOS15 check.
    KosLieInCheck,
    /// The party uses Δ' ≠ Δ in the leaky AND.
    WrongDeltaInLaand,
    /// The party flips a bit in 64 blocks G of its leaky-AND message.
    CorruptLaandMessage,
    /// The party opens a wrong bit d in the bucketing (its MAC no longer fits).
    FlipOpenedBit,
}

/// Sends `mine` and receives as many bytes, the garbler sending first (so a long message
/// never waits on a peer that is itself blocked sending).
pub(crate) fn exchange_bytes<C: Channel + ?Sized>(
    ch: &mut C,
    role: Role,
    mine: &[u8],
) -> Result<Vec<u8>, MaliciousError> {
    let mut theirs = vec![0u8; mine.len()];
    if role == Role::Garbler {
        ch.send(mine)?;
        ch.flush()?;
        ch.recv(&mut theirs)?;
    } else {
        ch.recv(&mut theirs)?;
        ch.send(mine)?;
        ch.flush()?;
    }
    Ok(theirs)
}

/// Room for `n` more outputs in `v`, or an error naming `n` when that much memory cannot
/// be had (instead of aborting the process).
fn reserve_more<T>(v: &mut Vec<T>, n: usize) -> Result<(), MaliciousError> {
    v.try_reserve_exact(n).map_err(|_| {
        MaliciousError::Protocol(format!(
            "cannot hold {n} preprocessed values in memory: ask for fewer per call"
        ))
    })
}

/// The size of the next internal batch when `need` more triples are wanted now and
/// `planned` were announced (counting `need`'s call): at least `need` and [`MIN_TRIPLES`],
/// as many as announced (so that many small calls share one batch, and from 280,000 on
/// WRK17's table gives B = 3 instead of 4), at most [`MAX_BATCH`].
fn batch_len(need: usize, planned: u64) -> usize {
    let planned = usize::try_from(planned).unwrap_or(usize::MAX);
    need.max(planned).clamp(MIN_TRIPLES, MAX_BATCH)
}

/// Asks the kernel to back `v`'s allocation with 2 MiB pages where it can (Linux
/// `madvise(MADV_HUGEPAGE)`; a hint, without effect elsewhere or when refused): the
/// bucketing reads its leaky triples in a random order over tens of MB, where 4 KiB
/// pages make nearly every read a TLB miss.
fn advise_huge_pages<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start + v.capacity() * std::mem::size_of::<T>();
        let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if to > from {
            // SAFETY: [from, to) lies inside `v`'s live allocation; MADV_HUGEPAGE changes
            // only how the kernel backs it, never its contents.
            unsafe { libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

pub(crate) fn pack_bits(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (j, &b) in bits.iter().enumerate() {
        out[j / 8] |= (b as u8) << (j % 8);
    }
    out
}

pub(crate) fn unpack_bits(bytes: &[u8], n: usize) -> Vec<bool> {
    (0..n).map(|j| bytes[j / 8] >> (j % 8) & 1 == 1).collect()
}

/// WRK17's F_Pre against a malicious peer: KOS15-checked COT from endemic base OTs (one direction's; the other's
/// from that COT),
/// KRRW18 leaky ANDs, WRK17 bucketing. Set up once ([`Kos15Preprocessor::setup`]: 128
/// base OTs, and 128 COTs for the other direction's), then any number of calls of any size; both parties make the same calls.
///
/// Δ: the garbler's has lsb 1 (free-XOR colour bit), the evaluator's lsb 0, so that
/// lsb(Δ_A ⊕ Δ_B) = 1 as the opening of d in KRRW18's leaky AND (Fig. 5) needs.
///
/// After any error (a failed check, a dead peer) the instance refuses further calls.
pub struct Kos15Preprocessor<C: Channel> {
    ch: C,
    role: Role,
    delta: Delta,
    cot_send: CotSender,
    cot_recv: CotReceiver,
    rng: Rng,
    hash: Tccr,
    /// Leaky triples made so far: the next leaky AND's first hash tweak.
    leaky_made: u64,
    /// The leaky triples of the current batch; kept between batches so that its pages
    /// are touched once per session, not once per batch.
    leaky: laand::LeakyTriples,
    /// Working buffers of the leaky ANDs, reused across chunks and batches.
    shares_buf: Shares,
    laand_buf: laand::Scratch,
    bucket_buf: bucket::Scratch,
    /// The last batch; `batch[surplus_from..]` are its surplus triples (fewer than
    /// [`MIN_TRIPLES`], or, after a [`Preprocessor::plan_triples`] hint, than
    /// [`MAX_BATCH`]), handed out from the end. The next batch is made into this vector
    /// once the surplus is used up, so that a batch's triples are never moved as a whole
    /// and its allocation serves the next batches.
    batch: Vec<AuthTriple>,
    surplus_from: usize,
    /// Triples lent by [`Preprocessor::with_and_triples`] when they are not one run of
    /// `batch` (some from the surplus, the rest from a fresh batch): copied here.
    lent: Vec<AuthTriple>,
    /// Triples announced by [`Preprocessor::plan_triples`] and not asked for yet.
    planned: u64,
    failed: bool,
    fault: Fault,
}

impl<C: Channel> Kos15Preprocessor<C> {
    /// Picks Δ and sets up both COT directions. `session` must be equal on
    /// both sides and fresh per session (it separates the random-oracle calls).
    pub fn setup(mut ch: C, role: Role, session: &[u8; 32], mut rng: Rng) -> Result<Self, MaliciousError> {
        let raw = Block::random(&mut rng).to_u128();
        let delta = match role {
            Role::Garbler => raw | 1,
            Role::Evaluator => raw & !1,
        };
        let delta = Block::from_u128(delta);
        // Direction 0: the garbler holds the COT correlation, from κ endemic base OTs;
        // direction 1: the evaluator, its base OTs κ checked COTs of direction 0 (KOS15
        // Fig. 7's random-OT output), which saves the second set of endemic OTs.
        let (cot_send, cot_recv) = match role {
            Role::Garbler => {
                let mut s = CotSender::setup(&mut ch, session, 0, delta, &mut rng)?;
                let r = s.reverse_receiver(&mut ch, session, &mut rng)?;
                (s, r)
            }
            Role::Evaluator => {
                let mut r = CotReceiver::setup(&mut ch, session, 0, &mut rng)?;
                (r.reverse_sender(&mut ch, session, delta, &mut rng)?, r)
            }
        };
        Ok(Kos15Preprocessor {
            ch,
            role,
            delta: Delta(delta),
            cot_send,
            cot_recv,
            rng,
            hash: Tccr::default(),
            leaky_made: 0,
            leaky: laand::LeakyTriples::default(),
            shares_buf: Shares::default(),
            laand_buf: laand::Scratch::default(),
            bucket_buf: bucket::Scratch::default(),
            batch: Vec::new(),
            surplus_from: 0,
            lent: Vec::new(),
            planned: 0,
            failed: false,
            fault: Fault::None,
        })
    }

    /// The channel to the peer (e.g. for its byte counters).
    pub fn channel(&self) -> &C {
        &self.ch
    }

    /// The channel to the peer, for the messages of the phases that follow.
    pub fn channel_mut(&mut self) -> &mut C {
        &mut self.ch
    }

    /// Ends the preprocessing and hands the channel back.
    pub fn into_channel(self) -> C {
        self.ch
    }

    #[cfg(test)]
    pub(crate) fn inject(&mut self, fault: Fault) {
        self.fault = fault;
        self.cot_recv.fault = fault;
    }

    fn guarded<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, MaliciousError>,
    ) -> Result<T, MaliciousError> {
        if self.failed {
            return Err(MaliciousError::Protocol(
                "the preprocessing is unusable after an earlier failure".into(),
            ));
        }
        let r = f(self);
        self.failed = r.is_err();
        r
    }

    /// `n` random authenticated shares into `out` (reusing its allocations).
    fn shares_into(&mut self, n: usize, out: &mut Shares) -> Result<(), MaliciousError> {
        abit::random_shares_into(
            &mut self.ch,
            self.role,
            &mut self.cot_send,
            &mut self.cot_recv,
            n,
            &mut self.rng,
            out,
        )
    }

    /// ℓ ≥ [`MIN_TRIPLES`] fresh triples into `out` (replacing its contents, reusing its
    /// allocation): ℓ·B leaky ANDs, one F_EQ, coins, buckets (WRK17 Fig. 9). The leaky
    /// ANDs run in chunks of [`LAAND_CHUNK`], so that their working set stays small; only
    /// the packed leaky triples are held for the whole batch.
    fn batch_into(&mut self, l: usize, out: &mut Vec<AuthTriple>) -> Result<(), MaliciousError> {
        let bucket = bucket::bucket_size(l);
        let total = l * bucket;
        let mut leaky = std::mem::take(&mut self.leaky);
        leaky.wipe();
        if leaky.reserve(total) {
            // Before its pages are first touched (the allocation is kept for later batches).
            advise_huge_pages(&leaky.auth);
        }
        let mut shares = std::mem::take(&mut self.shares_buf);
        let coins = self.leaky_batch(total, &mut shares, &mut leaky);
        // Both hold MACs and keys: wiped on every exit, the allocations kept.
        shares.wipe();
        self.shares_buf = shares;
        let coins = match coins {
            Ok(coins) => coins,
            Err(e) => {
                leaky.wipe();
                self.leaky = leaky;
                return Err(e);
            }
        };
        let out = bucket::combine(
            &mut self.ch,
            self.role,
            self.delta.0,
            &mut leaky,
            bucket,
            &coins,
            self.fault,
            &mut self.bucket_buf,
            out,
        );
        // The leaky triples hold MACs, keys and share bits: `combine` wiped the MACs and
        // keys as it read them, the bits are wiped here; the allocations are kept for the
        // next batch.
        leaky.clear_taken();
        self.leaky = leaky;
        out
    }
}

impl<C: Channel> Kos15Preprocessor<C> {
    /// The `total` leaky triples of a batch into `leaky` (KRRW18 Fig. 5, in chunks of
    /// [`LAAND_CHUNK`], `shares` their working buffer), their F_EQ check, and then the
    /// bucketing's coins (WRK17 Fig. 9 step 2: tossed after the leaky triples are fixed).
    fn leaky_batch(
        &mut self,
        total: usize,
        shares: &mut Shares,
        leaky: &mut laand::LeakyTriples,
    ) -> Result<[u8; 32], MaliciousError> {
        let mut eq = laand::eq_hasher();
        for start in (0..total).step_by(LAAND_CHUNK) {
            let len = LAAND_CHUNK.min(total - start);
            self.shares_into(3 * len, shares)?;
            let params = laand::LaandParams {
                role: self.role,
                delta: self.delta.0,
                hash: &self.hash,
                first: self.leaky_made,
                fault: self.fault,
            };
            laand::leaky_and(&mut self.ch, &params, shares, leaky, &mut eq, &mut self.laand_buf)?;
            self.leaky_made += len as u64;
        }
        // A cheating party (tests only) goes on to open, so that the honest one judges.
        let judge = self.fault == Fault::None;
        laand::equality(
            &mut self.ch,
            self.role,
            eq.finalize().as_bytes(),
            judge,
            &mut self.rng,
        )?;
        coin::toss(
            &mut self.ch,
            self.role == Role::Garbler,
            &mut self.rng,
            checks::BUCKET_COINS,
        )
    }
}

/// Where the triples of one [`Preprocessor::with_and_triples`] call are.
enum Lent {
    /// The last ones of the surplus, `batch[range]` (handed out from its end as always).
    Surplus(std::ops::Range<usize>),
    /// The first ones of a batch made for this call, `batch[range]`.
    Fresh(std::ops::Range<usize>),
    /// Not one run of `batch`: copied into `lent`.
    Copied,
}

impl<C: Channel> Kos15Preprocessor<C> {
    /// Finds or makes the `n` triples [`Preprocessor::and_triples`] would return, in the
    /// same order, without copying them where they are one run of the batch.
    fn lend(&mut self, n: usize) -> Result<Lent, MaliciousError> {
        let surplus = self.batch.len().saturating_sub(self.surplus_from);
        if n <= surplus {
            self.planned = self.planned.saturating_sub(n as u64);
            let end = self.batch.len();
            return Ok(Lent::Surplus(end - n..end));
        }
        if surplus == 0 && n <= MAX_BATCH {
            // As `and_triples_into` with nothing in the surplus: one batch of at least n.
            let planned = self.planned;
            self.planned = planned.saturating_sub(n as u64);
            let mut batch = std::mem::take(&mut self.batch);
            let made = self.batch_into(batch_len(n, planned), &mut batch);
            self.batch = batch;
            made?;
            return Ok(Lent::Fresh(0..n));
        }
        let mut lent = std::mem::take(&mut self.lent);
        let made = self.and_triples_into(n, &mut lent);
        self.lent = lent;
        made.map(|()| Lent::Copied)
    }
}

impl<C: Channel> Preprocessor for Kos15Preprocessor<C> {
    type Error = MaliciousError;

    fn role(&self) -> Role {
        self.role
    }

    fn delta(&self) -> Delta {
        self.delta.clone()
    }

    fn random_shares(&mut self, n: usize) -> Result<Vec<AuthShare>, MaliciousError> {
        let mut out = Vec::new();
        self.random_shares_into(n, &mut out)?;
        Ok(out)
    }

    fn plan_triples(&mut self, n: u64) {
        self.planned = self.planned.max(n);
    }

    fn and_triples(&mut self, n: usize) -> Result<Vec<AuthTriple>, MaliciousError> {
        let mut out = Vec::new();
        self.and_triples_into(n, &mut out)?;
        Ok(out)
    }

    fn random_shares_into(&mut self, n: usize, out: &mut Vec<AuthShare>) -> Result<(), MaliciousError> {
        self.guarded(|me| {
            out.clear();
            reserve_more(out, n)?;
            // Made in the kept struct-of-arrays buffer, at most 3 · MAX_BATCH at a time.
            let mut shares = std::mem::take(&mut me.shares_buf);
            let mut left = n;
            let mut made = Ok(());
            while left > 0 {
                let k = left.min(3 * MAX_BATCH);
                made = me.shares_into(k, &mut shares);
                if made.is_err() {
                    break;
                }
                out.extend((0..k).map(|j| shares.get(j)));
                left -= k;
            }
            shares.wipe();
            me.shares_buf = shares;
            made
        })
    }

    fn and_triples_into(&mut self, n: usize, out: &mut Vec<AuthTriple>) -> Result<(), MaliciousError> {
        self.guarded(|me| {
            out.clear();
            reserve_more(out, n)?;
            let planned = me.planned;
            me.planned = planned.saturating_sub(n as u64);
            // The surplus first (from its end), then the first triples of fresh batches,
            // whose rest becomes the surplus.
            let mut batch = std::mem::take(&mut me.batch);
            let take = n.min(batch.len().saturating_sub(me.surplus_from));
            out.extend(batch.drain(batch.len() - take..));
            let mut made = Ok(());
            while out.len() < n {
                let need = n - out.len();
                let announced = planned.saturating_sub(out.len() as u64);
                // The surplus is used up: the next batch goes into its allocation.
                made = me.batch_into(batch_len(need, announced), &mut batch);
                if made.is_err() {
                    break;
                }
                let take = need.min(batch.len());
                if take == batch.len() && out.is_empty() {
                    // The whole batch is wanted (as at the default `--batch-ands`): the
                    // vectors are swapped instead of copied, and the caller's old (empty)
                    // vector takes the next batch.
                    std::mem::swap(out, &mut batch);
                    me.surplus_from = 0;
                } else {
                    out.extend_from_slice(&batch[..take]);
                    me.surplus_from = take;
                    if take == batch.len() {
                        batch.clear();
                        me.surplus_from = 0;
                    }
                }
            }
            me.batch = batch;
            if made.is_err() {
                out.clear();
            }
            made
        })
    }

    fn with_and_triples<R>(
        &mut self,
        n: usize,
        use_them: impl FnOnce(&[AuthTriple]) -> Result<R, MaliciousError>,
    ) -> Result<R, MaliciousError> {
        let lent = self.guarded(|me| me.lend(n))?;
        let result = match &lent {
            Lent::Surplus(r) | Lent::Fresh(r) => use_them(&self.batch[r.clone()]),
            Lent::Copied => use_them(&self.lent),
        };
        // Consumed: the surplus shrinks from its end, a fresh batch's rest is the surplus.
        match lent {
            Lent::Surplus(r) => self.batch.truncate(r.start),
            Lent::Fresh(r) if r.end == self.batch.len() => {
                self.batch.clear();
                self.surplus_from = 0;
            }
            Lent::Fresh(r) => self.surplus_from = r.end,
            Lent::Copied => self.lent.clear(),
        }
        result
    }
}
