use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use super::*;

fn block(hex: &str) -> Block {
    Block::from_u128(u128::from_str_radix(hex, 16).unwrap().swap_bytes())
}

fn random_blocks(rng: &mut ChaCha20Rng, n: usize) -> Vec<Block> {
    (0..n).map(|_| Block::from_u128(rng.gen())).collect()
}

#[test]
fn reports_the_kernels_this_cpu_runs() {
    let names: Vec<_> = AesKernel::available().iter().map(|k| k.name()).collect();
    println!(
        "AES kernels tested on this CPU: {} (best: {})",
        names.join(", "),
        AesKernel::best()
    );
    assert!(AesKernel::available().contains(&AesKernel::Portable));
}

#[test]
fn key_expansion_matches_fips197_appendix_a1() {
    let key = block("2b7e151628aed2a6abf7158809cf4f3c");
    for kernel in AesKernel::available() {
        let keys = kernel.expand(key);
        assert_eq!(keys.round_key(0), key);
        assert_eq!(
            keys.round_key(1),
            block("a0fafe1788542cb123a339392a6c7605"),
            "{kernel}"
        );
        assert_eq!(
            keys.round_key(10),
            block("d014f9a8c9ee2589e13f0cc8b6630ca6"),
            "{kernel}"
        );
    }
}

#[test]
fn every_operation_matches_fips197_appendix_c1() {
    let key = block("000102030405060708090a0b0c0d0e0f");
    let plain = block("00112233445566778899aabbccddeeff");
    let cipher = block("69c4e0d86a7b0430d8cdb78070b4c55a");
    // The re-keyed ops get seed ⊕ tweak = key with a random-looking seed.
    let seed = block("0f1e2d3c4b5a69788796a5b4c3d2e1f0");
    for kernel in AesKernel::available() {
        for n in [1, 3, 4, 17, 40] {
            let mut xs = vec![plain; n];
            kernel.encrypt_many(&kernel.expand(key), &mut xs);
            assert!(xs.iter().all(|&x| x == cipher), "{kernel} fixed, {n} blocks");
            let mut xs = vec![plain; n];
            kernel.encrypt_each_under(seed, &mut xs, &vec![seed ^ key; n]);
            assert!(xs.iter().all(|&x| x == cipher), "{kernel} per block, {n} blocks");
            let mut xs = vec![plain; 2 * n];
            kernel.encrypt_pairs_under(seed, &mut xs, &vec![seed ^ key; n]);
            assert!(xs.iter().all(|&x| x == cipher), "{kernel} per pair, {n} pairs");
        }
    }
}

/// Every kernel against the portable one, `n` blocks, tweaks drawn from `distinct` values.
fn compare_all(rng: &mut ChaCha20Rng, n: usize, distinct: u128) {
    let seed = Block::from_u128(rng.gen());
    let key = Block::from_u128(rng.gen());
    let delta = Block::from_u128(rng.gen());
    let xs = random_blocks(rng, n);
    let tweaks: Vec<Block> = (0..n)
        .map(|_| Block::from_u128(rng.gen_range(0..distinct)))
        .collect();
    let pair_tweaks = &tweaks[..n / 2];
    let pairs = &xs[..2 * (n / 2)];
    let run = |kernel: AesKernel| {
        let mut out = Vec::new();
        let mut v = xs.clone();
        kernel.encrypt_many(&kernel.expand(key), &mut v);
        out.push(v);
        let mut v = xs.clone();
        kernel.encrypt_each_under(seed, &mut v, &tweaks);
        out.push(v);
        let mut v = pairs.to_vec();
        kernel.encrypt_pairs_under(seed, &mut v, pair_tweaks);
        out.push(v);
        let mut v = xs.clone();
        kernel.sigma_mmo_each_under(seed, &mut v, &tweaks);
        out.push(v);
        let mut v = pairs.to_vec();
        kernel.sigma_mmo_pairs_under(seed, &mut v, pair_tweaks);
        out.push(v);
        let (mut h0, mut h1) = (vec![Block::ZERO; n], vec![Block::ZERO; n]);
        kernel.sigma_mmo_offset_pairs(seed, delta, &xs, &tweaks, &mut h0, &mut h1);
        out.push(h0.into_iter().zip(h1).flat_map(|(a, b)| [a, b]).collect());
        out
    };
    let want = run(AesKernel::Portable);
    // The offset pairs are the hashes of the pairs (x, x ⊕ Δ), each pair under its block's tweak.
    let mut offset_pairs: Vec<Block> = xs.iter().flat_map(|&x| [x, x ^ delta]).collect();
    AesKernel::Portable.sigma_mmo_pairs_under(seed, &mut offset_pairs, &tweaks);
    assert_eq!(want[5], offset_pairs, "portable offset pairs, {n} blocks");
    for kernel in AesKernel::available() {
        let got = run(kernel);
        for (op, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g, w,
                "{kernel}, operation {op}, {n} blocks, {distinct} distinct tweaks"
            );
        }
    }
}

#[test]
fn kernels_agree_with_portable_on_every_batch_size() {
    let mut rng = ChaCha20Rng::seed_from_u64(16);
    for n in (0..=100).chain([127, 128, 129, 1000, 4099]) {
        compare_all(&mut rng, n, u128::MAX);
        compare_all(&mut rng, n, 3);
    }
}

#[test]
fn portable_mmo_is_the_formula() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let seed = Block::from_u128(rng.gen());
    let xs = random_blocks(&mut rng, 9);
    let tweaks = random_blocks(&mut rng, 9);
    let mut got = xs.clone();
    AesKernel::Portable.sigma_mmo_each_under(seed, &mut got, &tweaks);
    for k in 0..9 {
        let mut want = [sigma(xs[k])];
        AesKernel::Portable.encrypt_each_under(seed, &mut want, &tweaks[k..k + 1]);
        assert_eq!(got[k], want[0] ^ sigma(xs[k]));
    }
}

#[test]
fn kernel_choice_by_name() {
    assert_eq!(AesKernel::choose(None), Ok(AesKernel::best()));
    assert_eq!(AesKernel::choose(Some("")), Ok(AesKernel::best()));
    assert_eq!(AesKernel::choose(Some("portable")), Ok(AesKernel::Portable));
    for kernel in AesKernel::ALL {
        assert_eq!(kernel.name().parse(), Ok(kernel));
        assert_eq!(
            AesKernel::choose(Some(kernel.name())).is_ok(),
            kernel.is_available()
        );
    }
    let err = AesKernel::choose(Some("fast")).unwrap_err().to_string();
    assert!(
        err.contains("MIXGC_AES_KERNEL=fast") && err.contains("vaes-512"),
        "{err}"
    );
}
