use mixgc_arith::{ArithHash, Domain, Label, Modulus, Tweak};
use mixgc_core::new_rng;
use std::time::Instant;
fn main() {
    if std::env::args().nth(1).as_deref() == Some("v") {
        return variants();
    }
    let mut rng = new_rng(Some(1), 0);
    for (p, q) in std::env::args()
        .nth(1)
        .map_or(vec![(17u64, 17u64), (17, 2), (2, 2), (3, 3)], |_| {
            vec![(17, 17); 20]
        })
    {
        let (p, q) = (Modulus::new(p).unwrap(), Modulus::new(q).unwrap());
        let h = ArithHash::new([3; 32]);
        let l = Label::random(p, &mut rng);
        let n = 200_000;
        let t = Instant::now();
        let mut acc = 0;
        for g in 0..n {
            acc += h
                .hash(
                    &l,
                    Tweak {
                        domain: Domain::Projection,
                        gate: g,
                    },
                    q,
                )
                .colour();
        }
        println!(
            "hash {p}->{q}: {:.1} ns ({acc})",
            t.elapsed().as_nanos() as f64 / n as f64
        );
    }
    let n = 200_000;
    let t = Instant::now();
    let mut acc = 0u8;
    for g in 0u64..n {
        let mut hs = blake3::Hasher::new_keyed(&[3; 32]);
        hs.update(&g.to_le_bytes()).update(&[7u8; 40]);
        let mut out = [0u8; 48];
        hs.finalize_xof().fill(&mut out);
        acc ^= out[0];
    }
    println!(
        "bare blake3 xof 48B of 48B: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n as f64
    );
}
#[allow(dead_code)]
fn variants() {
    let n = 1_000_000u64;
    let key = [3u8; 32];
    let t = Instant::now();
    let mut acc = 0u8;
    for g in 0..n {
        let mut hs = blake3::Hasher::new_keyed(&key);
        hs.update(&g.to_le_bytes()).update(&[7u8; 40]);
        let mut out = [0u8; 48];
        hs.finalize_xof().fill(&mut out);
        acc ^= out[0];
    }
    println!(
        "new_keyed: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let mut proto = blake3::Hasher::new_keyed(&key);
    let t = Instant::now();
    for g in 0..n {
        proto.reset();
        proto.update(&g.to_le_bytes()).update(&[7u8; 40]);
        let mut out = [0u8; 48];
        proto.finalize_xof().fill(&mut out);
        acc ^= out[0];
    }
    println!(
        "reset: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let t = Instant::now();
    for g in 0..n {
        let mut block = [7u8; 48];
        block[..8].copy_from_slice(&g.to_le_bytes());
        let mut hs = blake3::Hasher::new_keyed(&key);
        hs.update(&block);
        let mut out = [0u8; 48];
        hs.finalize_xof().fill(&mut out);
        acc ^= out[0];
    }
    println!(
        "one update: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let t = Instant::now();
    for g in 0..n {
        let mut block = [7u8; 48];
        block[..8].copy_from_slice(&g.to_le_bytes());
        let h = blake3::keyed_hash(&key, &block);
        acc ^= h.as_bytes()[0];
    }
    println!(
        "keyed_hash 32B: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n as f64
    );
}
