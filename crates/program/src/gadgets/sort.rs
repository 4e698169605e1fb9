//! Bitonic sorting network for any number of values, with optional payloads.

use super::lt_unsigned;
use crate::Backend;

/// A list of values, each a vector of wires (least significant bit first).
pub type Values<W> = Vec<Vec<W>>;

/// Compare-exchange of entries i < j: afterwards key i ≤ key j (`up`) or ≥ (`!up`).
/// One comparison (w ANDs) and one swap mask s ∧ (a ⊕ b) per key and payload bit.
fn compare_exchange<B: Backend>(
    b: &mut B,
    keys: &mut [Vec<B::Wire>],
    pay: &mut [Vec<B::Wire>],
    i: usize,
    j: usize,
    up: bool,
) {
    let swap = if up {
        lt_unsigned(b, &keys[j], &keys[i])[0]
    } else {
        lt_unsigned(b, &keys[i], &keys[j])[0]
    };
    let mut swap_bits = |v: &mut [Vec<B::Wire>]| {
        if v.is_empty() {
            return;
        }
        for t in 0..v[i].len() {
            let d = b.xor(v[i][t], v[j][t]);
            let m = b.and(swap, d);
            v[i][t] = b.xor(v[i][t], m);
            v[j][t] = b.xor(v[j][t], m);
        }
    };
    swap_bits(keys);
    swap_bits(pay);
}

/// The largest power of two below n (n ≥ 2).
fn power_below(n: usize) -> usize {
    let p = n.next_power_of_two() / 2;
    if p == n {
        n / 2
    } else {
        p
    }
}

struct Network<'a, B: Backend> {
    b: &'a mut B,
    keys: Vec<Vec<B::Wire>>,
    pay: Vec<Vec<B::Wire>>,
}

impl<B: Backend> Network<'_, B> {
    /// Bitonic sort for arbitrary n (H. W. Lang): sort the halves in opposite directions,
    /// then merge.
    fn sort(&mut self, lo: usize, n: usize, up: bool) {
        if n > 1 {
            let m = n / 2;
            self.sort(lo, m, !up);
            self.sort(lo + m, n - m, up);
            self.merge(lo, n, up);
        }
    }

    /// Merges a bitonic sequence of any length: compare across the largest power of two
    /// below n, then merge both parts.
    fn merge(&mut self, lo: usize, n: usize, up: bool) {
        if n > 1 {
            let m = power_below(n);
            for i in lo..lo + n - m {
                compare_exchange(self.b, &mut self.keys, &mut self.pay, i, i + m, up);
            }
            self.merge(lo, m, up);
            self.merge(lo + m, n - m, up);
        }
    }
}

/// Compare-exchange units in the network for n values: n · log2 n · (log2 n + 1) / 4 when n is
/// a power of two (n = 8: 24, 16: 80, 32: 240), and no more than for the next power of two.
pub fn comparators(n: usize) -> usize {
    fn merge(n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let m = power_below(n);
        (n - m) + merge(m) + merge(n - m)
    }
    fn sort(n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        sort(n / 2) + sort(n - n / 2) + merge(n)
    }
    sort(n)
}

/// Sorts `keys` ascending (unsigned, equal widths w) and carries `payloads` along: payload i
/// travels with key i. `payloads` is empty or has one entry per key, all of one width p.
/// Equal keys may leave in any order (a sorting network is not stable).
///
/// ANDs: [`comparators`]`(n)` × (2w + p): each compare-exchange is one comparison (w ANDs)
/// and a swap s ∧ (a ⊕ b) of the w key bits and p payload bits.
pub fn sort_with_payloads<B: Backend>(
    b: &mut B,
    keys: &[Vec<B::Wire>],
    payloads: &[Vec<B::Wire>],
) -> (Values<B::Wire>, Values<B::Wire>) {
    let n = keys.len();
    if let Some(k) = keys.first() {
        assert!(
            keys.iter().all(|v| v.len() == k.len()),
            "keys must have equal widths"
        );
    }
    assert!(
        payloads.is_empty() || payloads.len() == n,
        "one payload per key, or none"
    );
    if let Some(p) = payloads.first() {
        assert!(
            payloads.iter().all(|v| v.len() == p.len()),
            "payloads must have equal widths"
        );
    }
    let mut net = Network {
        b,
        keys: keys.to_vec(),
        pay: payloads.to_vec(),
    };
    net.sort(0, n, true);
    (net.keys, net.pay)
}

/// Sorts `keys` ascending (unsigned): [`comparators`]`(n)` × 2w ANDs.
pub fn sort<B: Backend>(b: &mut B, keys: &[Vec<B::Wire>]) -> Vec<Vec<B::Wire>> {
    sort_with_payloads(b, keys, &[]).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::{bits, value, wrap, WIDTHS};
    use crate::{Counter, PartyId, Plain, Recorder};
    use rand::{Rng, SeedableRng};

    /// Sorts on all three backends with payload = original index (p bits): (keys, payloads, ANDs).
    fn run(keys: &[u128], w: usize, p: usize) -> (Vec<u128>, Vec<u128>, u64) {
        let n = keys.len();
        let mut inputs: Vec<Vec<bool>> = keys.iter().map(|&k| bits(k, w)).collect();
        if p > 0 {
            inputs.extend((0..n).map(|i| bits(i as u128, p)));
        }
        let widths: Vec<usize> = (0..n)
            .map(|_| w)
            .chain((0..if p > 0 { n } else { 0 }).map(|_| p))
            .collect();
        let mut pl = Plain::default();
        let vals: Vec<Vec<bool>> = inputs
            .iter()
            .zip(&widths)
            .map(|(v, &wd)| pl.input(PartyId::GARBLER, wd as u32, Some(v)).unwrap())
            .collect();
        let (pk, pp) = sort_with_payloads(&mut pl, &vals[..n], &vals[n..]);
        let mut r = Recorder::default();
        let vals: Vec<Vec<u32>> = widths
            .iter()
            .map(|&wd| r.input(PartyId::GARBLER, wd as u32, None).unwrap())
            .collect();
        let (rk, rp) = sort_with_payloads(&mut r, &vals[..n], &vals[n..]);
        for o in rk.iter().chain(&rp) {
            let _ = r.output(o);
        }
        let rec = r.finish();
        let expect: Vec<Vec<bool>> = pk.iter().chain(&pp).cloned().collect();
        assert_eq!(
            rec.circuit.eval_plain(&inputs).unwrap(),
            expect,
            "recorded circuit disagrees"
        );
        let mut c = Counter::default();
        let vals: Vec<Vec<u32>> = widths
            .iter()
            .map(|&wd| c.input(PartyId::GARBLER, wd as u32, None).unwrap())
            .collect();
        sort_with_payloads(&mut c, &vals[..n], &vals[n..]);
        assert_eq!(c.cost().ands, rec.circuit.stats().ands as u64);
        (
            pk.iter().map(|v| value(v)).collect(),
            pp.iter().map(|v| value(v)).collect(),
            c.cost().ands,
        )
    }

    #[test]
    fn sorts_with_payloads_at_every_width() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(61);
        for w in WIDTHS {
            for n in [0usize, 1, 2, 3, 5, 6, 8, 11] {
                for trial in 0..2 {
                    let keys: Vec<u128> = (0..n)
                        .map(|_| {
                            if trial == 0 {
                                wrap(rng.gen(), w)
                            } else {
                                wrap(rng.gen::<u128>() % 3, w)
                            }
                        })
                        .collect();
                    let p = 4;
                    let (sk, sp, ands) = run(&keys, w, p);
                    let mut want = keys.clone();
                    want.sort_unstable();
                    assert_eq!(sk, want, "w={w} n={n}");
                    // Payloads: a permutation that follows the keys.
                    let mut seen = sp.clone();
                    seen.sort_unstable();
                    assert_eq!(seen, (0..n as u128).collect::<Vec<_>>());
                    for (k, &i) in sk.iter().zip(&sp) {
                        assert_eq!(*k, keys[i as usize]);
                    }
                    assert_eq!(ands, (comparators(n) * (2 * w + p)) as u64);
                }
            }
        }
    }

    #[test]
    fn zero_one_principle_for_every_small_n() {
        // A comparator network sorts every input iff it sorts every 0/1 input.
        for n in 1..=12usize {
            for mask in 0u32..1 << n {
                let mut pl = Plain::default();
                let keys: Vec<Vec<bool>> = (0..n).map(|i| vec![mask >> i & 1 == 1]).collect();
                let out = sort(&mut pl, &keys);
                let ones = mask.count_ones() as usize;
                let got: Vec<bool> = out.iter().map(|v| v[0]).collect();
                let want: Vec<bool> = (0..n).map(|i| i >= n - ones).collect();
                assert_eq!(got, want, "n={n} mask={mask:b}");
            }
        }
    }

    #[test]
    fn comparator_counts() {
        for k in 0..8u32 {
            let n = 1usize << k;
            assert_eq!(comparators(n), n * (k * (k + 1)) as usize / 4, "n={n}");
        }
        assert_eq!([comparators(8), comparators(16), comparators(32)], [24, 80, 240]);
        for n in 2..200usize {
            assert!(comparators(n) <= comparators(n.next_power_of_two()));
        }
        let mut c = Counter::default();
        let keys: Vec<Vec<u32>> = (0..16)
            .map(|_| c.input(PartyId::GARBLER, 32, None).unwrap())
            .collect();
        sort(&mut c, &keys);
        assert_eq!(c.cost().ands, 80 * 64);
    }
}
