//! Seeded n-party runs send fixed bytes: each protocol's transcript is pinned, so a change
//! to what crosses the wire (frames, OT, garbling, tweaks) changes a digest on purpose.

use std::sync::{Arc, Mutex};

use mixgc_circuit::{bristol, Audience, PartyId};
use mixgc_core::new_rng;
use mixgc_net::{memory_pair_holding, Channel, NetError};
use mixgc_nparty::{run, Job, Mesh, Protocol};

/// A channel that hashes every byte it sends.
struct Hashing<C> {
    inner: C,
    sent: Arc<Mutex<blake3::Hasher>>,
}

impl<C: Channel> Channel for Hashing<C> {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.sent.lock().unwrap().update(data);
        self.inner.send(data)
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.inner.recv(buf)
    }
    fn flush(&mut self) -> Result<(), NetError> {
        self.inner.flush()
    }
    fn bytes_sent(&self) -> u64 {
        self.inner.bytes_sent()
    }
    fn bytes_received(&self) -> u64 {
        self.inner.bytes_received()
    }
}

/// The digest of everything every party sent on every link (links in (from, to) order) in
/// a run of adder64 among three parties, seeded with `seed` (`None`: fresh randomness).
fn transcript(protocol: Protocol, seed: Option<u64>) -> String {
    let n = 3;
    let hashers: Vec<Vec<Arc<Mutex<blake3::Hasher>>>> = (0..n)
        .map(|_| {
            (0..n)
                .map(|_| Arc::new(Mutex::new(blake3::Hasher::new())))
                .collect()
        })
        .collect();
    let mut links: Vec<Vec<Option<Box<dyn Channel>>>> =
        (0..n).map(|_| (0..n).map(|_| None).collect()).collect();
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        let (a, b) = memory_pair_holding(1 << 14);
        links[i][j] = Some(Box::new(Hashing {
            inner: a,
            sent: hashers[i][j].clone(),
        }));
        links[j][i] = Some(Box::new(Hashing {
            inner: b,
            sent: hashers[j][i].clone(),
        }));
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../circuits/adder64.txt");
    let c = bristol::read_file(std::path::Path::new(path)).unwrap();
    let owners = [0, 2];
    let values = [vec![true; 64], (0..64).map(|k| k % 3 == 0).collect::<Vec<bool>>()];
    let all = Audience::only(PartyId::new(0).unwrap())
        .with(PartyId::new(1).unwrap())
        .with(PartyId::new(2).unwrap());
    std::thread::scope(|s| {
        for (me, l) in links.into_iter().enumerate() {
            let (c, values) = (&c, &values);
            s.spawn(move || {
                let mut mesh = Mesh::new(me, l);
                let job = Job {
                    circuit: c,
                    owners: &owners,
                    audience: all,
                };
                let mine: Vec<Vec<bool>> = job.mine(me).map(|v| values[v].clone()).collect();
                let mut rng = new_rng(seed, 100 + me as u64);
                run(
                    &mut mesh,
                    protocol,
                    &job,
                    &mine,
                    &[1; 32],
                    &mut rng,
                    &Default::default(),
                )
                .unwrap();
            });
        }
    });
    let mut all = blake3::Hasher::new();
    for row in &hashers {
        for h in row {
            all.update(h.lock().unwrap().finalize().as_bytes());
        }
    }
    all.finalize().to_hex().to_string()
}

const PINNED_GMW: &str = "e62d5f94acba4e0921abd57ef0457e5bb4be4367798a53dbc07358a8d3abd57d";
const PINNED_BMR: &str = "94290f610a7306fb51d25a88cf691ec9142be58256f60ee634ec8ea2ebfe9bab";

#[test]
fn seeded_transcripts_are_pinned() {
    assert_eq!(transcript(Protocol::Gmw, Some(7)), PINNED_GMW);
    assert_eq!(transcript(Protocol::Bmr, Some(7)), PINNED_BMR);
}

#[test]
fn unseeded_transcripts_differ() {
    assert_ne!(transcript(Protocol::Bmr, None), transcript(Protocol::Bmr, None));
}
