//! What the tests of this crate share: running every party of a mesh in its own thread.

use fhe_rand::{Rng, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_mixed::MixedError;
use mixgc_nparty::{memory_mesh, Mesh};

/// Runs `f(mesh, rng)` at every party of `meshes`, each in its own thread, party i with
/// the RNG seeded from `seed` and i; the results in party order.
pub fn run_on<T: Send>(
    meshes: Vec<Mesh>,
    seed: u64,
    f: impl Fn(&mut Mesh, &mut ChaCha20Rng) -> T + Sync,
) -> Vec<T> {
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = meshes
            .into_iter()
            .map(|mut mesh| {
                s.spawn(move || {
                    let mut rng = ChaCha20Rng::seed_from_u64(seed * 1000 + mesh.me() as u64);
                    f(&mut mesh, &mut rng)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// [`run_on`] an n-party in-memory mesh.
pub fn run_parties<T: Send>(
    n: usize,
    seed: u64,
    f: impl Fn(&mut Mesh, &mut ChaCha20Rng) -> T + Sync,
) -> Vec<T> {
    run_on(memory_mesh(n), seed, f)
}

/// Random XOR shares of `bits` for `n` parties: parties 1.. draw theirs from `rng`, party
/// 0's makes the XOR of all `bits`.
#[allow(dead_code)]
pub fn xor_shares(rng: &mut ChaCha20Rng, bits: &[u8], n: usize) -> Vec<Vec<u8>> {
    let mut shares: Vec<Vec<u8>> = (1..n)
        .map(|_| bits.iter().map(|_| rng.random_range(0..2u8)).collect())
        .collect();
    let first: Vec<u8> = (0..bits.len())
        .map(|j| shares.iter().fold(bits[j], |a, s| a ^ s[j]))
        .collect();
    shares.insert(0, first);
    shares
}

/// The per-party byte formula of distributed garbling (`docs/mixed-mode.md`, "The refit
/// formula"); used by the garbling tests only.
#[allow(dead_code)]
pub mod garbling_formula {
    use mixgc_mixed::DEGREE;

    /// Bytes per key slot of one batch of the key selection (`KeySelection::Products`) at
    /// the busiest party: two A2E ciphertexts (chain sum, pass back), the e·D sum, the c1
    /// polynomial and the E2A share, on the N = 16384, 438-bit ring (109.5 B a slot per
    /// ciphertext).
    pub const SLOT_BYTES: f64 = 438.0;

    /// Bytes a key coefficient takes in a garbled row.
    pub const ROW_COEFFICIENT_BYTES: f64 = 7.0;

    /// β(n) per slot: one B2A batch at the busiest party, n ≥ 3: the seeded sum and sign
    /// polynomial up to `sign_sum`'s limit (one polynomial each way, c1 and the E2A share
    /// at three primes: 91 B a bit), the XOR tree's bound beyond it.
    pub fn b2a_slot_bytes(parties: usize) -> f64 {
        if mixgc_mixed::sign_sum::sum_fits(parties, 0) {
            91.0
        } else {
            328.5
        }
    }

    /// Bytes per AND gate of λ_u·λ_v (a pairwise OT triple and its openings).
    pub fn and_bytes(parties: usize) -> f64 {
        16.6 * (parties as f64 - 1.0)
    }

    /// The key-selection batches `garble` makes: it fills each batch of N slots with the
    /// lookups of whole gates (`gate_lookups`: 4 for an AND, 1 for an XOR, in circuit
    /// order), L slots a lookup, never splitting a gate — so at L = 2048, where an AND is
    /// half a batch, more than ⌈(4A + X)·L / N⌉.
    pub fn key_batches(gate_lookups: &[usize], l: usize) -> usize {
        let per_batch = DEGREE / l;
        let (mut batches, mut used) = (0, 0);
        for &k in gate_lookups {
            if batches == 0 || used + k > per_batch {
                batches += 1;
                used = 0;
            }
            used += k;
        }
        batches
    }

    /// The most bytes any of `parties` ≥ 3 parties sends garbling the gates of
    /// `gate_lookups` (4 lookups an AND, 1 an XOR, in circuit order) with keys of degree `l`.
    pub fn predicted_bytes(parties: usize, gate_lookups: &[usize], l: usize) -> f64 {
        let n = DEGREE as f64;
        let ands = gate_lookups.iter().filter(|&&k| k == 4).count();
        let xors = gate_lookups.len() - ands;
        let lookups = 4 * ands + xors;
        key_batches(gate_lookups, l) as f64 * SLOT_BYTES * n
            + 4.0 * ROW_COEFFICIENT_BYTES * (l * (ands + xors)) as f64
            + lookups.div_ceil(DEGREE) as f64 * b2a_slot_bytes(parties) * n
            + and_bytes(parties) * ands as f64
    }
}

/// Whether `e` names party `culprit`: it is about that party, or it is the reason another
/// party relayed when it stopped because of it (read by the mesh or inside an OT exchange
/// alike), "party {culprit}: …", possibly itself relayed ("party k: the peer stopped:
/// party {culprit}: …", as a chain passes it on).
#[allow(dead_code)]
pub fn names(e: &MixedError, culprit: usize) -> bool {
    let relayed = match e {
        MixedError::Mesh(e) => e.relayed(),
        _ => None,
    };
    e.party() == Some(culprit)
        || relayed.is_some_and(|reason| first_cause(reason).starts_with(&format!("party {culprit}: ")))
}

/// A relayed reason without the parties that only passed it on.
fn first_cause(mut reason: &str) -> &str {
    while let Some(inner) = reason
        .strip_prefix("party ")
        .and_then(|r| r.split_once(": the peer stopped: "))
        .filter(|(party, _)| party.parse::<usize>().is_ok())
        .map(|(_, inner)| inner)
    {
        reason = inner;
    }
    reason
}
