//! A peer that dies at any point, or sends garbage, makes the honest party return an error
//! (never an output, a panic or a hang).

mod common;

use mixgc_circuit::bristol;
use mixgc_core::new_rng;
use mixgc_malicious::dealer::TrustedDealer;
use mixgc_malicious::{run_evaluator, run_garbler, MaliciousError, Terms};
use mixgc_net::{memory_pair, Channel, NetError};
use rand::RngCore;

/// A channel that fails (and, dropped, closes) once `left` more bytes have been sent.
struct DiesAfter<C> {
    inner: C,
    left: usize,
}

impl<C: Channel> Channel for DiesAfter<C> {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        if data.len() > self.left {
            self.inner.send(&data[..self.left])?;
            self.inner.flush()?;
            self.left = 0;
            return Err(NetError::Disconnected);
        }
        self.left -= data.len();
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

fn adder() -> mixgc_circuit::Circuit {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits/adder64.txt");
    bristol::read_file(&path).unwrap()
}

#[test]
fn a_peer_dying_at_any_byte_stops_the_other_with_an_error() {
    let c = &adder();
    let inputs = common::random_inputs(c, 1);
    let terms = Terms {
        batch_ands: 7,
        ..Terms::new(1)
    };
    for garbler_dies in [true, false] {
        for cut in (0..12_000).step_by(211) {
            let (ca, cb) = memory_pair();
            let (mut pa, mut pb) = TrustedDealer::pair(2);
            let (x, y) = inputs.split_at(1);
            let survivor = std::thread::scope(|s| {
                if garbler_dies {
                    s.spawn(move || {
                        let mut ch = DiesAfter { inner: ca, left: cut };
                        let _ = run_garbler(&mut ch, &mut pa, c, &terms, x, &Default::default());
                    });
                    let mut cb = cb;
                    run_evaluator(&mut cb, &mut pb, c, &terms, y, &Default::default())
                } else {
                    s.spawn(move || {
                        let mut ch = DiesAfter { inner: cb, left: cut };
                        let _ = run_evaluator(&mut ch, &mut pb, c, &terms, y, &Default::default());
                    });
                    let mut ca = ca;
                    run_garbler(&mut ca, &mut pa, c, &terms, x, &Default::default())
                }
            });
            // Once the dying side has sent everything, the survivor may finish honestly.
            match survivor {
                Ok(out) => assert_eq!(out, Some(c.eval_plain(&inputs).unwrap()), "cut at {cut}"),
                Err(MaliciousError::Net(_)) => {}
                Err(e) => panic!("cut at {cut}: {e}"),
            }
        }
    }
}

#[test]
fn garbage_from_the_peer_is_refused() {
    let c = adder();
    let inputs = common::random_inputs(&c, 1);
    let mut rng = new_rng(Some(3), 0);
    for len in [10, 49, 60, 200, 5_000, 100_000] {
        let mut junk = vec![0u8; len];
        rng.fill_bytes(&mut junk);
        let (mut ca, mut cb) = memory_pair();
        let (_, mut pb) = TrustedDealer::pair(4);
        ca.send(&junk).unwrap();
        ca.flush().unwrap();
        drop(ca);
        let r = run_evaluator(
            &mut cb,
            &mut pb,
            &c,
            &Terms::new(1),
            &inputs[1..],
            &Default::default(),
        );
        assert!(
            matches!(r, Err(MaliciousError::Protocol(_) | MaliciousError::Net(_))),
            "{len} junk bytes: {r:?}"
        );
    }
    // An honest header, then junk: the first MAC check refuses it.
    let (mut ca, cb) = memory_pair();
    let mut cb = cb;
    let (mut pa, mut pb) = TrustedDealer::pair(5);
    std::thread::scope(|s| {
        s.spawn(|| {
            // A garbler whose every message after the header is replaced by junk.
            let mut junk = JunkAfter {
                inner: &mut ca,
                header: 49,
                rng: new_rng(Some(6), 0),
            };
            let _ = run_garbler(
                &mut junk,
                &mut pa,
                &c,
                &Terms::new(1),
                &inputs[..1],
                &Default::default(),
            );
        });
        let r = run_evaluator(
            &mut cb,
            &mut pb,
            &c,
            &Terms::new(1),
            &inputs[1..],
            &Default::default(),
        );
        drop(cb); // the garbler, waiting for an answer, sees the connection close
        assert!(
            matches!(
                r,
                Err(MaliciousError::CheckFailed { .. } | MaliciousError::Protocol(_))
            ),
            "{r:?}"
        );
    });
}

/// Sends the first `header` bytes unchanged and random bytes instead of everything after.
struct JunkAfter<C> {
    inner: C,
    header: usize,
    rng: mixgc_core::Rng,
}

impl<C: Channel> Channel for JunkAfter<C> {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        let keep = data.len().min(self.header);
        self.header -= keep;
        let mut out = data.to_vec();
        self.rng.fill_bytes(&mut out[keep..]);
        self.inner.send(&out)
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
