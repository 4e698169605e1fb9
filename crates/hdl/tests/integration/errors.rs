//! Bad designs give clear errors naming file, line and construct, never a netlist.

use super::common;

use common::*;
use mixgc_hdl::{synthesize, HdlError, SynthOptions};

fn error_of(file: &str) -> (HdlError, String) {
    let e = synthesize(&SynthOptions::new(vec![bad(file)])).expect_err(file);
    let text = e.to_string();
    eprintln!("{file}: {text}");
    (e, text)
}

fn assert_mentions(text: &str, needles: &[&str]) {
    for n in needles {
        assert!(text.contains(n), "{n:?} not in: {text}");
    }
}

#[test]
fn syntax_error_names_file_and_line() {
    if !tools_present() {
        return;
    }
    let (e, text) = error_of("syntax.v");
    assert!(matches!(e, HdlError::Yosys { .. }));
    assert_mentions(&text, &["syntax.v:2", "syntax error"]);
}

#[test]
fn combinational_loop_is_refused() {
    if !tools_present() {
        return;
    }
    let (_, text) = error_of("loop.v");
    assert_mentions(&text, &["logic loop", "loop.v:3", "loop.v:4"]);
}

#[test]
fn latch_is_refused_with_its_line() {
    if !tools_present() {
        return;
    }
    let (e, text) = error_of("latch.v");
    assert!(matches!(e, HdlError::Unsupported { .. }));
    assert_mentions(&text, &["latch.v:2", "latch"]);
}

#[test]
fn display_and_initial_are_refused_with_their_line() {
    if !tools_present() {
        return;
    }
    let (_, text) = error_of("display.v");
    assert_mentions(&text, &["display.v:4", "$display"]);
    let (_, text) = error_of("initial.v");
    assert_mentions(&text, &["initial.v:2", "initial"]);
}

#[test]
fn flip_flops_need_clk_and_an_initial_value() {
    if !tools_present() {
        return;
    }
    let (e, text) = error_of("clocked.v");
    assert!(matches!(e, HdlError::NoInitialValue { .. }), "{text}");
    assert_mentions(&text, &["`y`", "initial value"]);
    let (e, text) = error_of("flop.v");
    assert!(matches!(e, HdlError::Sequential { .. }), "{text}");
    assert_mentions(&text, &["flop.v:2", "flip-flop", "`clk`"]);
}

#[test]
fn unsupported_sequential_constructs_name_file_line_and_construct() {
    if !tools_present() {
        return;
    }
    for (file, needles) in [
        ("two_clocks.v", &["two_clocks.v:4", "second clock"][..]),
        ("async_reset.v", &["async_reset.v:3", "asynchronous reset"]),
        ("negedge.v", &["negedge.v:2", "falling-edge"]),
        (
            "init_wire.v",
            &["init_wire.v:4", "timing (`#`) in an `initial` block"],
        ),
        (
            "clock_data.v",
            &["clock_data.v:4", "reads the clock `clk` as data"],
        ),
        ("seq_latch.v", &["seq_latch.v:4", "latch"]),
    ] {
        let (_, text) = error_of(file);
        assert_mentions(&text, needles);
    }
}

#[test]
fn unknown_top_and_missing_yosys_are_explained() {
    if !tools_present() {
        return;
    }
    let mut opts = SynthOptions::new(vec![design("adder.v")]);
    opts.top = Some("no_such_module".into());
    let text = synthesize(&opts).unwrap_err().to_string();
    assert_mentions(&text, &["no_such_module", "not found"]);
    let mut opts = SynthOptions::new(vec![design("adder.v")]);
    opts.yosys = "/nonexistent/yosys".into();
    let e = synthesize(&opts).unwrap_err();
    assert!(matches!(e, HdlError::YosysMissing { .. }));
    assert_mentions(&e.to_string(), &["apt-get install yosys"]);
    let e = synthesize(&SynthOptions::new(vec![bad("missing.v")])).unwrap_err();
    assert_mentions(&e.to_string(), &["missing.v"]);
}

#[test]
fn port_ownership_is_checked() {
    if !tools_present() {
        return;
    }
    let (e, text) = error_of("unowned.v");
    assert!(matches!(e, HdlError::UnownedPort { .. }));
    assert_mentions(&text, &["`key`", "--garbler-ports"]);
    let mut opts = SynthOptions::new(vec![bad("unowned.v")]);
    opts.garbler_ports = vec!["key".into()];
    let s = synthesize(&opts).unwrap();
    assert_eq!(s.garbler_values, 2);
    opts.garbler_ports = vec!["nope".into()];
    let text = synthesize(&opts).unwrap_err().to_string();
    assert_mentions(&text, &["`nope`", "unowned"]);
}

#[test]
fn undriven_output_is_refused() {
    if !tools_present() {
        return;
    }
    let (e, text) = error_of("undriven.v");
    assert!(matches!(e, HdlError::Yosys { .. }));
    assert_mentions(&text, &["undriven.\\z", "no driver"]);
}
