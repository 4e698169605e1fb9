//! End to end with the real preprocessing: authenticated garbling (`run_garbler`,
//! `run_evaluator`) over `Kos15Preprocessor` instead of the test dealer, against plaintext
//! evaluation. Preprocessing and garbling share one channel ([`preprocess_over`]), as a
//! user's single connection does.

use mixgc_circuit::{bristol, values, Circuit};
use mixgc_core::new_rng;
use mixgc_malicious::{preprocess_over, run_evaluator, run_garbler, Role, Settings, Terms};
use mixgc_net::memory_pair;

fn run(circuit: &Circuit, inputs: &[Vec<bool>], terms: Terms) -> (Vec<Vec<bool>>, Vec<Vec<bool>>) {
    let (ca, cb) = memory_pair();
    let (x, y) = inputs.split_at(terms.garbler_values);
    std::thread::scope(|s| {
        let g = s.spawn(move || {
            let (mut ch, mut prep) = preprocess_over(ca, Role::Garbler, &[8; 32], new_rng(None, 1)).unwrap();
            run_garbler(&mut ch, &mut prep, circuit, &terms, x, &Settings::default())
        });
        let (mut ch, mut prep) = preprocess_over(cb, Role::Evaluator, &[8; 32], new_rng(None, 2)).unwrap();
        let e = run_evaluator(&mut ch, &mut prep, circuit, &terms, y, &Settings::default());
        drop(ch);
        drop(prep);
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
