//! End to end with the real preprocessing: authenticated garbling (`run_garbler`,
//! `run_evaluator`) over `Kos15Preprocessor` instead of the test dealer, against plaintext
//! evaluation. The preprocessor owns a second channel between the same two parties (the
//! `Preprocessor` trait's calls take none).
//!
//! Both parties' main channels flush after every send ([`Flushing`]): `run_garbler` leaves
//! its zero label buffered (`Garbler::start` sends without flushing) when it makes its first
//! F_Pre call, which is harmless with the trusted dealer but deadlocks with a preprocessor
//! that talks to the peer — to be fixed in `src/garble/`.

use mixgc_circuit::{bristol, values, Circuit};
use mixgc_core::new_rng;
use mixgc_malicious::{run_evaluator, run_garbler, Kos15Preprocessor, Role, Settings, Terms};
use mixgc_net::{memory_pair, Channel, NetError};

/// A channel that flushes after every send.
struct Flushing<C>(C);

impl<C: Channel> Channel for Flushing<C> {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.0.send(data)?;
        self.0.flush()
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.0.recv(buf)
    }
    fn flush(&mut self) -> Result<(), NetError> {
        self.0.flush()
    }
    fn bytes_sent(&self) -> u64 {
        self.0.bytes_sent()
    }
    fn bytes_received(&self) -> u64 {
        self.0.bytes_received()
    }
}

fn run(circuit: &Circuit, inputs: &[Vec<bool>], terms: Terms) -> (Vec<Vec<bool>>, Vec<Vec<bool>>) {
    let (ca, cb) = memory_pair();
    let (mut ca, mut cb) = (Flushing(ca), Flushing(cb));
    let (pa, pb) = memory_pair();
    let (x, y) = inputs.split_at(terms.garbler_values);
    std::thread::scope(|s| {
        let g = s.spawn(move || {
            let mut prep = Kos15Preprocessor::setup(pa, Role::Garbler, &[8; 32], new_rng(None, 1)).unwrap();
            run_garbler(&mut ca, &mut prep, circuit, &terms, x, &Settings::default())
        });
        let mut prep = Kos15Preprocessor::setup(pb, Role::Evaluator, &[8; 32], new_rng(None, 2)).unwrap();
        let e = run_evaluator(&mut cb, &mut prep, circuit, &terms, y, &Settings::default());
        drop(cb);
        let g = g.join().unwrap();
        (g.unwrap().unwrap(), e.unwrap().unwrap())
    })
}

#[test]
fn aes_128_with_the_real_preprocessing_gives_the_fips_197_ciphertext() {
    let c = bristol::parse(mixgc_circuit::shipped::AES_128, "aes_128.txt").unwrap();
    let hex_bits = |h: &str| values::parse_hex(h, 128).unwrap();
    let inputs = vec![
        hex_bits("000102030405060708090a0b0c0d0e0f"),
        hex_bits("00112233445566778899aabbccddeeff"),
    ];
    let want = c.eval_plain(&inputs).unwrap();
    assert_eq!(want[0], hex_bits("69c4e0d86a7b0430d8cdb78070b4c55a"));
    for batch in [1_000, 6_400] {
        let terms = Terms {
            batch_ands: batch,
            ..Terms::new(1)
        };
        let (g, e) = run(&c, &inputs, terms);
        assert_eq!(g, want, "garbler, batch {batch}");
        assert_eq!(e, want, "evaluator, batch {batch}");
    }
}
