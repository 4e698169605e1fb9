//! GMW among n parties (threads over in-memory channels) against the plaintext evaluator.

use mixgc_circuit::{bristol, Audience, Circuit, PartyId};
use mixgc_core::new_rng;
use mixgc_nparty::{gmw, memory_mesh, Job};
use rand::Rng as _;

/// Runs `c` among `n` parties with GMW; returns each party's outputs.
fn run(
    c: &Circuit,
    owners: &[usize],
    audience: Audience,
    values: &[Vec<bool>],
    n: usize,
) -> Vec<Option<Vec<Vec<bool>>>> {
    std::thread::scope(|s| {
        let hs: Vec<_> = memory_mesh(n)
            .into_iter()
            .map(|mut mesh| {
                s.spawn(move || {
                    let me = mesh.me();
                    let job = Job {
                        circuit: c,
                        owners,
                        audience,
                    };
                    let mine: Vec<Vec<bool>> = job.mine(me).map(|v| values[v].clone()).collect();
                    let mut rng = new_rng(Some(11), me as u64);
                    gmw::run(&mut mesh, &job, &mine, &[3; 32], &mut rng)
                        .unwrap()
                        .outputs
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn audience(parties: &[usize]) -> Audience {
    let mut a = Audience::only(PartyId::new(parties[0]).unwrap());
    for &p in &parties[1..] {
        a = a.with(PartyId::new(p).unwrap());
    }
    a
}

fn random_values(c: &Circuit, rng: &mut impl rand::Rng) -> Vec<Vec<bool>> {
    c.input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect()
}

#[test]
fn random_circuits_match_plaintext() {
    let mut rng = new_rng(Some(1), 0);
    for n in [2, 3, 5] {
        for round in 0..6 {
            let widths: Vec<u32> = (0..rng.gen_range(1..5)).map(|_| rng.gen_range(1..9)).collect();
            let (gates, outs) = (rng.gen_range(0..300), rng.gen_range(1..20));
            let c = Circuit::random(&mut rng, &widths, gates, outs);
            let owners: Vec<usize> = widths.iter().map(|_| rng.gen_range(0..n)).collect();
            let values = random_values(&c, &mut rng);
            let want = c.eval_plain(&values).unwrap();
            let all: Vec<usize> = (0..n).collect();
            let who = match round % 3 {
                0 => all.clone(),
                1 => vec![n - 1],
                _ => vec![0, n - 1],
            };
            let got = run(&c, &owners, audience(&who), &values, n);
            for (p, g) in got.iter().enumerate() {
                if who.contains(&p) {
                    assert_eq!(g.as_ref(), Some(&want), "n = {n}, round {round}, party {p}");
                } else {
                    assert_eq!(g, &None);
                }
            }
        }
    }
}

#[test]
fn shipped_circuits_among_three_parties() {
    let mut rng = new_rng(Some(2), 0);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../circuits");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let name = path.display().to_string();
        let c = bristol::parse(&std::fs::read_to_string(&path).unwrap(), &name).unwrap();
        let owners: Vec<usize> = (0..c.input_widths.len()).map(|v| v % 3).collect();
        let values = random_values(&c, &mut rng);
        let want = c.eval_plain(&values).unwrap();
        let got = run(&c, &owners, audience(&[0, 1, 2]), &values, 3);
        assert!(got.iter().all(|g| g.as_ref() == Some(&want)), "{name}");
    }
}
