//! Leaky authenticated AND triples (WRK17's F_LaAND, which its Fig. 8 realises), computed with the
//! half-gate-style protocol of Katz–Ranellucci–Rosulek–Wang ("Optimizing Authenticated
//! Garbling for Faster Secure Two-Party Computation", CRYPTO 2018, ePrint 2018/578,
//! the leaky-AND protocol of Fig. 5), which replaces WRK17's Fig. 8 and needs one block per
//! triple in each direction instead of WRK17's hash-based "half AND" exchange.
//!
//! Input: authenticated shares ⟨x⟩, ⟨y⟩, ⟨r⟩ (random, from F_aBit). With P this party, Q
//! the peer, K_P[·] this party's keys, M[·] its MACs and H a tweakable circular-correlation-
//! robust hash (TCCR) whose tweak names the triple and the party that garbles:
//!
//! ```text
//! C_P = y_P·Δ_P ⊕ K_P[y_Q] ⊕ M[y_P]                         (C_A ⊕ C_B = y·(Δ_A ⊕ Δ_B))
//! G_P = H(K_P[x_Q]) ⊕ H(K_P[x_Q] ⊕ Δ_P) ⊕ C_P              ──G_P──►   (one block)
//! E_P = H(M[x_P]) ⊕ x_P·G_Q                                  (= H(K_Q[x_P]) ⊕ x_P·C_Q)
//! S_P = H(K_P[x_Q]) ⊕ E_P ⊕ K_P[r_Q] ⊕ M[r_P] ⊕ x_P·C_P ⊕ r_P·Δ_P
//!       so S_A ⊕ S_B = (x∧y ⊕ r)·(Δ_A ⊕ Δ_B)
//! d = lsb(S_A) ⊕ lsb(S_B) = x∧y ⊕ r   (lsb(Δ_A ⊕ Δ_B) = 1: lsb Δ_A = 1, lsb Δ_B = 0)
//! ⟨z⟩ = ⟨r⟩ ⊕ d                                             (the garbler adds the public d)
//! check: L_P = S_P ⊕ d·Δ_P, and L_A = L_B through F_EQ (commit, send, open)
//! ```
//!
//! A deviating party (a wrong G, a wrong d share, a wrong Δ) makes L_A ≠ L_B except when
//! its change is cancelled by a secret bit of the honest party it guessed — exactly the
//! leakage F_LaAND allows (guess a bit of x, abort if wrong), which the bucketing of
//! [`super::bucket`] removes. F_EQ fails with `CheckFailed { check: "LaAND check" }`.

use mixgc_core::{Block, Rng, Tccr, TweakableHash};
use mixgc_net::{Channel, ChannelExt};
use rand::RngCore;

use super::abit::Shares;
use super::{pack_bits, unpack_bits, Fault};
use crate::{MaliciousError, Role};

pub const LAAND_CHECK: &str = "LaAND check";
pub const LAAND_COMMITMENT: &str = "LaAND check commitment";

/// High 64 bits of the LaAND hash tweaks: ASCII "mixgcLaA" (never a half-gates tweak,
/// whose high half is zero, nor an OT tweak, "mixgc-ot").
const TWEAK_DOMAIN: u128 = (u64::from_be_bytes(*b"mixgcLaA") as u128) << 64;
const EQ_DOMAIN: &str = "mixgc/malicious/prep/laand-eq/v1";
/// Triples per hash batch (bounds the scratch of the hash calls).
const RUN: usize = 1024;

/// The hash tweak of triple `j` garbled by `garbler_role`'s party.
fn tweak(garbler_role: Role, j: u64) -> Block {
    let side = match garbler_role {
        Role::Garbler => 0u128,
        Role::Evaluator => 1u128 << 63,
    };
    Block::from_u128(TWEAK_DOMAIN | side | j as u128)
}

fn other(role: Role) -> Role {
    match role {
        Role::Garbler => Role::Evaluator,
        Role::Evaluator => Role::Garbler,
    }
}

/// Working buffers of [`leaky_and`], kept between calls (see mixgc-ot's IKNP scratch).
#[derive(Default)]
pub(crate) struct Scratch {
    g: Vec<Block>,
    s: Vec<Block>,
    g_peer: Vec<Block>,
}

/// Everything the leaky AND needs besides the shares.
pub(crate) struct LaandParams<'a> {
    pub(crate) role: Role,
    pub(crate) delta: Block,
    pub(crate) hash: &'a Tccr,
    /// Index of this call's first triple: tweaks never repeat within a session.
    pub(crate) first: u64,
    pub(crate) fault: Fault,
}

/// The MACs and keys of one party's view of a leaky triple ⟨x⟩, ⟨y⟩, ⟨z⟩ (index 0 = x,
/// 1 = y, 2 = z); its share bits are in [`LeakyTriples::bits`]. 96 bytes aligned to 32,
/// so that each of the bucketing's random reads touches exactly two 64-byte cache lines
/// (records start at 0 or 32 mod 64). At `Block`'s 16-byte alignment the allocator's
/// large blocks start at 16 mod 64, and every other record spanned three lines (2.5 on
/// average; with the bits inside, 112 bytes, also 2.5).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
pub(crate) struct Leaky {
    pub(crate) macs: [Block; 3],
    pub(crate) keys: [Block; 3],
}

impl zeroize::DefaultIsZeroes for Leaky {}

impl Leaky {
    /// Share `k` (0 = x, 1 = y, 2 = z) of this triple, whose share bits are `bits`.
    #[inline(always)]
    pub(crate) fn share(&self, bits: u8, k: usize) -> crate::AuthShare {
        crate::AuthShare {
            bit: bits >> k & 1 == 1,
            mac: self.macs[k],
            key: self.keys[k],
        }
    }
}

/// The leaky triples of a batch, one party's view: `auth[i]` the MACs and keys of triple
/// i, `bits[i]` its share bits (bit k = the bit of index k). Kept between batches (the
/// allocations are reused); the bucketing wipes them as it reads them
/// ([`LeakyTriples::take`], [`LeakyTriples::clear_taken`]), [`LeakyTriples::wipe`] in one pass.
#[derive(Debug, Default)]
pub(crate) struct LeakyTriples {
    pub(crate) auth: Vec<Leaky>,
    pub(crate) bits: Vec<u8>,
}

impl LeakyTriples {
    pub(crate) fn len(&self) -> usize {
        self.auth.len()
    }

    /// Triple `i` (its MACs and keys, and its share bits), its MACs and keys wiped in
    /// place as they are read (a volatile write while the record's cache lines are
    /// loaded: no later pass over the batch for the wipe). The bucketing reads every
    /// triple once through this; [`LeakyTriples::clear_taken`] then empties the vectors.
    #[inline(always)]
    pub(crate) fn take(&mut self, i: usize) -> (Leaky, u8) {
        let slot = &mut self.auth[i];
        let auth = *slot;
        // SAFETY: `slot` is a valid, aligned, exclusive reference.
        unsafe { std::ptr::write_volatile(slot, Leaky::default()) };
        (auth, self.bits[i])
    }

    /// Empties both vectors (keeping their allocations) once every triple was read with
    /// [`LeakyTriples::take`], which wiped the MACs and keys: only the share bits are
    /// wiped here.
    pub(crate) fn clear_taken(&mut self) {
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
        zeroize::Zeroize::zeroize(self.bits.as_mut_slice());
        self.auth.clear();
        self.bits.clear();
    }

    /// Room for `n` triples in all; true when the allocation of `auth` had to grow.
    pub(crate) fn reserve(&mut self, n: usize) -> bool {
        self.bits.reserve(n.saturating_sub(self.bits.len()));
        let grow = self.auth.capacity() < n;
        if grow {
            self.auth.reserve(n - self.auth.len());
        }
        grow
    }

    /// Wipes the triples (MACs, keys and bits are secret) element by element and empties
    /// both vectors, keeping their allocations. Not `Vec::zeroize`, which would also wipe
    /// the whole capacity byte by byte (≈ 86 MB of single-byte volatile writes per batch
    /// at B = 3).
    pub(crate) fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(self.auth.as_mut_slice());
        zeroize::Zeroize::zeroize(self.bits.as_mut_slice());
        self.auth.clear();
        self.bits.clear();
    }
}

/// The running hash of the L_P values of a batch, checked by [`equality`] once all its
/// leaky triples are made.
pub(crate) fn eq_hasher() -> blake3::Hasher {
    blake3::Hasher::new_derive_key(EQ_DOMAIN)
}

/// Turns `shares` = [⟨x⟩ (n) ‖ ⟨y⟩ (n) ‖ ⟨r⟩ (n)] into n leaky triples (x, y, z) appended
/// to `out`, z = x∧y unless the peer cheated, and feeds L_P into `eq` for the F_EQ check
/// ([`equality`]) that must pass before any of them is used.
#[inline(never)]
pub(crate) fn leaky_and<C: Channel + ?Sized>(
    ch: &mut C,
    p: &LaandParams<'_>,
    shares: &Shares,
    out: &mut LeakyTriples,
    eq: &mut blake3::Hasher,
    scratch: &mut Scratch,
) -> Result<(), MaliciousError> {
    let n = shares.len() / 3;
    debug_assert_eq!(shares.len(), 3 * n);
    if n == 0 {
        return Ok(());
    }
    ch.set_phase("the leaky AND triples");
    let delta = if p.fault == Fault::WrongDeltaInLaand {
        p.delta ^ Block::from_u128(1 << 64)
    } else {
        p.delta
    };
    let (bits, macs, keys) = (&shares.bits, &shares.macs, &shares.keys);
    let (x, y, r) = (0..n, n..2 * n, 2 * n..3 * n);
    let c = |j: usize| delta.and_bit(bits[y.start + j]) ^ keys[y.start + j] ^ macs[y.start + j];

    // G_P, and H(K_P[x_Q]) kept in `s` for S_P.
    // Every element of `g`, `s` and `g_peer` is written before it is read: `resize`
    // without `clear` zero-fills only what the kept allocations did not hold yet.
    let Scratch { g, s, g_peer } = scratch;
    g.resize(n, Block::ZERO);
    s.resize(n, Block::ZERO);
    let mut pads = [Block::ZERO; 2 * RUN];
    let mut tweaks = [Block::ZERO; 2 * RUN];
    for start in (0..n).step_by(RUN) {
        let len = RUN.min(n - start);
        for k in 0..len {
            let key = keys[x.start + start + k];
            pads[2 * k] = key;
            pads[2 * k + 1] = key ^ delta;
            let t = tweak(p.role, p.first + (start + k) as u64);
            tweaks[2 * k] = t;
            tweaks[2 * k + 1] = t;
        }
        p.hash.hash_many(&mut pads[..2 * len], &mut tweaks[..2 * len]);
        for k in 0..len {
            let j = start + k;
            s[j] = pads[2 * k];
            g[j] = pads[2 * k] ^ pads[2 * k + 1] ^ c(j);
        }
    }
    if p.fault == Fault::CorruptLaandMessage {
        for gj in g.iter_mut().take(64) {
            *gj ^= Block::from_u128(1 << 9);
        }
    }

    // Exchange G and open d in three flights: the garbler sends G_A; the evaluator, once
    // it has G_A, computes S_B and sends G_B with its share lsb(S_B) of d in one message;
    // the garbler answers with lsb(S_A). Each direction carries the same bytes in the
    // same order as a G round followed by a d round; only the evaluator's d share leaves
    // before it has seen the garbler's. KRRW18 Fig. 5 opens d in one round, where a
    // rushing adversary sees the honest share first anyway: that order is allowed.
    g_peer.resize(n, Block::ZERO);
    if p.role == Role::Garbler {
        ch.send_blocks(g)?;
        ch.flush()?;
    }
    ch.recv(Block::slice_as_bytes_mut(g_peer))?;

    // S_P, with E_P = H(M[x_P]) ⊕ x_P·G_Q under the peer's tweaks.
    let peer = other(p.role);
    let mut hm = [Block::ZERO; RUN];
    for start in (0..n).step_by(RUN) {
        let len = RUN.min(n - start);
        for (k, (h, t)) in hm.iter_mut().zip(tweaks.iter_mut()).take(len).enumerate() {
            *h = macs[x.start + start + k];
            *t = tweak(peer, p.first + (start + k) as u64);
        }
        p.hash.hash_many(&mut hm[..len], &mut tweaks[..len]);
        for (k, &h) in hm.iter().take(len).enumerate() {
            let j = start + k;
            let xp = bits[x.start + j];
            let e = h ^ g_peer[j].and_bit(xp);
            s[j] = s[j]
                ^ e
                ^ keys[r.start + j]
                ^ macs[r.start + j]
                ^ c(j).and_bit(xp)
                ^ delta.and_bit(bits[r.start + j]);
        }
    }

    // d = lsb(S_A) ⊕ lsb(S_B), opened by exchanging the lsbs (flights above).
    let mine: Vec<bool> = s.iter().map(|v| v.lsb()).collect();
    let mine_packed = pack_bits(&mine);
    let mut theirs_packed = vec![0u8; mine_packed.len()];
    if p.role == Role::Evaluator {
        ch.send_blocks(g)?;
    }
    ch.send(&mine_packed)?;
    ch.flush()?;
    ch.recv(&mut theirs_packed)?;
    let theirs = unpack_bits(&theirs_packed, n);
    // The triples go into `out.auth`'s spare capacity with streaming stores (below),
    // its length set once all n are written.
    out.auth.reserve(n);
    let made = out.auth.len();
    let slots = &mut out.auth.spare_capacity_mut()[..n];
    let mut l_run = [Block::ZERO; RUN];
    for start in (0..n).step_by(RUN) {
        let len = RUN.min(n - start);
        for (k, l) in l_run.iter_mut().take(len).enumerate() {
            let j = start + k;
            let d = mine[j] ^ theirs[j];
            // L_P = S_P ⊕ d·Δ_P; ⟨z⟩ = ⟨r⟩ ⊕ d: the garbler flips its bit, the
            // evaluator its key on that bit.
            *l = s[j] ^ delta.and_bit(d);
            let (zr, zk) = match p.role {
                Role::Garbler => (bits[r.start + j] ^ d, keys[r.start + j]),
                Role::Evaluator => (bits[r.start + j], keys[r.start + j] ^ p.delta.and_bit(d)),
            };
            store_streaming(
                &mut slots[j],
                Leaky {
                    macs: [macs[x.start + j], macs[y.start + j], macs[r.start + j]],
                    keys: [keys[x.start + j], keys[y.start + j], zk],
                },
            );
            out.bits
                .push(bits[x.start + j] as u8 | (bits[y.start + j] as u8) << 1 | (zr as u8) << 2);
        }
        eq.update(Block::slice_as_bytes(&l_run[..len]));
    }
    streaming_done();
    // SAFETY: `store_streaming` initialised slots[0..n], the n elements after `made`.
    unsafe { out.auth.set_len(made + n) };
    zeroize::Zeroize::zeroize(s.as_mut_slice());
    Ok(())
}

/// Writes `v` into `slot` with non-temporal stores where the CPU has them (x86_64: SSE2
/// `movntdq`), bypassing the cache: a batch's leaky triples (≈ 86 MB at B = 3) are read
/// again only by the bucketing, after the whole batch is made, so caching them only
/// evicts the working set, and a normal store first reads each line from memory.
/// [`streaming_done`] must follow before the triples are read.
#[inline(always)]
fn store_streaming(slot: &mut std::mem::MaybeUninit<Leaky>, v: Leaky) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_stream_si128};
        let dst = slot.as_mut_ptr().cast::<__m128i>();
        let blocks = [v.macs[0], v.macs[1], v.macs[2], v.keys[0], v.keys[1], v.keys[2]];
        for (k, b) in blocks.into_iter().enumerate() {
            // SAFETY: `Leaky` is `repr(C)`: six 16-byte-aligned `Block`s, macs then keys,
            // so `dst.add(k)` is the k-th, aligned and inside `slot`; `Block` is
            // `repr(transparent)` over `__m128i` on x86_64; SSE2 is baseline there.
            unsafe { _mm_stream_si128(dst.add(k), std::mem::transmute::<Block, __m128i>(b)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    slot.write(v);
}

/// Orders the streaming stores of [`store_streaming`] before what follows (`sfence`).
#[inline(always)]
fn streaming_done() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is baseline on x86_64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// F_EQ by commit-and-open (WRK17 §3, as used by F_LaAND's check) on the digests of
/// all L_P of a batch: the garbler commits to its digest, the evaluator sends its own in
/// the clear, the garbler compares and opens, the evaluator checks the opening and
/// compares. `judge` is false only for a cheating party in the tests, which goes on to
/// open so that the honest party is the one that judges.
pub(crate) fn equality<C: Channel + ?Sized>(
    ch: &mut C,
    role: Role,
    digest: &[u8; 32],
    judge: bool,
    rng: &mut Rng,
) -> Result<(), MaliciousError> {
    let commit = |nonce: &[u8; 32], v: &[u8; 32]| {
        let mut h = blake3::Hasher::new_derive_key(EQ_DOMAIN);
        h.update(b"commit");
        h.update(nonce);
        h.update(v);
        *h.finalize().as_bytes()
    };
    let failed = MaliciousError::CheckFailed { check: LAAND_CHECK };
    match role {
        Role::Garbler => {
            let mut nonce = [0u8; 32];
            rng.fill_bytes(&mut nonce);
            ch.send(&commit(&nonce, digest))?;
            ch.flush()?;
            let mut theirs = [0u8; 32];
            ch.recv(&mut theirs)?;
            if judge && &theirs != digest {
                return Err(failed);
            }
            ch.send(&nonce)?;
            ch.send(digest)?;
            ch.flush()?;
        }
        Role::Evaluator => {
            let mut com = [0u8; 32];
            ch.recv(&mut com)?;
            ch.send(digest)?;
            ch.flush()?;
            let mut opening = [0u8; 64];
            ch.recv(&mut opening)?;
            let nonce: [u8; 32] = opening[..32].try_into().expect("32 bytes");
            let theirs: [u8; 32] = opening[32..].try_into().expect("32 bytes");
            if commit(&nonce, &theirs) != com {
                return Err(MaliciousError::CheckFailed {
                    check: LAAND_COMMITMENT,
                });
            }
            if &theirs != digest {
                return Err(failed);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record of a large batch lies in exactly two 64-byte cache lines.
    #[test]
    fn each_leaky_triple_spans_two_cache_lines() {
        let mut t = LeakyTriples::default();
        t.reserve(300_000);
        t.auth.resize(300_000, Leaky::default());
        for l in &t.auth {
            let start = l as *const Leaky as usize;
            let end = start + std::mem::size_of::<Leaky>() - 1;
            assert_eq!(end / 64 - start / 64 + 1, 2, "a record at {start:#x}");
        }
    }

    /// `wipe` zeroes every triple made (MACs, keys and the separate share bits) and keeps
    /// both allocations for the next batch.
    #[test]
    fn wiping_the_leaky_triples_zeroes_every_one_and_keeps_the_allocations() {
        let mut t = LeakyTriples::default();
        assert!(t.reserve(1000));
        for i in 0..1000u128 {
            let v = Block::from_u128(i + 1);
            t.auth.push(Leaky {
                macs: [v; 3],
                keys: [v; 3],
            });
            t.bits.push(7);
        }
        assert_eq!(t.auth[999].share(t.bits[999], 2).mac, Block::from_u128(1000));
        assert!(t.auth[999].share(t.bits[999], 2).bit);
        let (auth_cap, bits_cap) = (t.auth.capacity(), t.bits.capacity());
        t.wipe();
        assert_eq!((t.auth.len(), t.bits.len()), (0, 0));
        assert_eq!((t.auth.capacity(), t.bits.capacity()), (auth_cap, bits_cap));
        assert!(!t.reserve(1000), "the kept allocation suffices");
        // SAFETY: the first 1,000 elements were initialised above, and every bit pattern
        // is a valid `Leaky` and `u8`; only read back here to see the wipe.
        unsafe {
            t.auth.set_len(1000);
            t.bits.set_len(1000);
        }
        assert!(t
            .auth
            .iter()
            .all(|l| l.macs.iter().chain(&l.keys).all(|b| b.to_u128() == 0)));
        assert!(t.bits.iter().all(|&b| b == 0));
    }
}
