//! `mixgc primes`: CRT prime sets printed for scripts (comma-separated, ascending).

use super::common;

use common::*;

/// The primes `mixgc primes ARGS` prints.
fn primes(args: &[&str]) -> Vec<u64> {
    let mut all = vec!["primes"];
    all.extend_from_slice(args);
    let out = run1(&all);
    out.assert_ok(&format!("mixgc {}", all.join(" ")));
    let line = out.stdout.strip_suffix('\n').expect("one line");
    line.split(',').map(|p| p.parse().expect("a prime")).collect()
}

fn product_bits(primes: &[u64]) -> f64 {
    primes.iter().map(|&p| (p as f64).log2()).sum()
}

#[test]
fn width_38_beats_able_table_7() {
    let set = primes(&["--width", "38"]);
    assert_eq!(set, [2, 3, 5, 7, 11, 13, 17, 19, 23, 31, 41]);
    assert_eq!(set.iter().sum::<u64>(), 172, "ABLE's Table 7 has 174");
    assert!(set.windows(2).all(|w| w[0] < w[1]), "ascending");
    assert!(product_bits(&set) >= 38.0);
}

#[test]
fn baseline_is_the_first_k_primes() {
    assert_eq!(
        primes(&["--width", "38", "--baseline"]),
        [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
    );
    assert_eq!(primes(&["--baseline", "--width", "8"]), [2, 3, 5, 7, 11]);
}

#[test]
fn every_width_fits_and_is_no_worse_than_the_baseline() {
    for w in [1u32, 3, 16, 60, 64, 65, 127] {
        let (best, base) = (
            primes(&["--width", &w.to_string()]),
            primes(&["--width", &w.to_string(), "--baseline"]),
        );
        assert!(product_bits(&best) >= w as f64, "width {w}");
        assert!(best.iter().sum::<u64>() <= base.iter().sum::<u64>(), "width {w}");
    }
    assert_eq!(primes(&["--width", "60"]).iter().sum::<u64>(), 356);
    assert_eq!(primes(&["--width", "65"]).iter().sum::<u64>(), 389);
}

#[test]
fn bad_widths_are_clear_errors() {
    for w in ["0", "128", "1000"] {
        run1(&["primes", "--width", w]).assert_error(&format!("width {w}"), &["bit width", w, "1..=127"]);
    }
    run1(&["primes", "--width", "-3"]).assert_error("negative width", &["--width"]);
    run1(&["primes", "--width", "abc"]).assert_error("non-numeric width", &["--width"]);
    run1(&["primes"]).assert_error("missing width", &["--width"]);
}
