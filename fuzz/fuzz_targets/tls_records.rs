#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mixgc_fuzz_targets::tls_records(data));
