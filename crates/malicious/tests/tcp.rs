//! Both parties in two processes over real TCP on loopback: this test binary re-runs
//! itself once per party (the ignored `tcp_party_child` test, driven by environment
//! variables), the garbler listening on a free port it prints.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use mixgc_circuit::{bristol, values};
use mixgc_malicious::dealer::TrustedDealer;
use mixgc_malicious::{run_evaluator, run_garbler, Settings, Terms};
use mixgc_net::TcpChannel;

const ROLE: &str = "MIXGC_MALICIOUS_TCP_ROLE";
const ADDR: &str = "MIXGC_MALICIOUS_TCP_ADDR";
const SEED: u64 = 77;

fn aes() -> mixgc_circuit::Circuit {
    bristol::parse(mixgc_circuit::shipped::AES_128, "aes_128.txt").unwrap()
}

fn terms() -> Terms {
    Terms {
        batch_ands: 1000,
        ..Terms::new(1)
    }
}

/// One party, when the parent test asks for it; does nothing otherwise.
#[test]
#[ignore = "run by two_processes_over_tcp as a child process"]
fn tcp_party_child() {
    let Ok(role) = std::env::var(ROLE) else { return };
    let c = aes();
    let inputs = common::random_inputs(&c, SEED);
    let timeout = Duration::from_secs(30);
    let out = if role == "garbler" {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        println!("listening {addr}");
        let mut ch = TcpChannel::accept(&listener, timeout).unwrap();
        let mut prep = TrustedDealer::new(SEED, mixgc_malicious::Role::Garbler);
        run_garbler(
            &mut ch,
            &mut prep,
            &c,
            &terms(),
            &inputs[..1],
            &Settings::default(),
        )
    } else {
        let addr = std::env::var(ADDR).unwrap();
        let mut ch = TcpChannel::connect(&addr, timeout).unwrap();
        let mut prep = TrustedDealer::new(SEED, mixgc_malicious::Role::Evaluator);
        run_evaluator(
            &mut ch,
            &mut prep,
            &c,
            &terms(),
            &inputs[1..],
            &Settings::default(),
        )
    };
    println!("output {}", values::to_hex(&out.unwrap().unwrap()[0]));
}

fn child(role: &str, addr: Option<&str>) -> std::process::Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--ignored",
        "--exact",
        "tcp_party_child",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(ROLE, role)
    .stdout(Stdio::piped());
    if let Some(a) = addr {
        cmd.env(ADDR, a);
    }
    cmd.spawn().unwrap()
}

fn output_line(lines: &mut impl Iterator<Item = std::io::Result<String>>, prefix: &str) -> String {
    for line in lines {
        // libtest may print "test tcp_party_child ... " before the child's first line.
        let line = line.unwrap();
        if let Some(at) = line.find(prefix) {
            return line[at + prefix.len()..].trim().to_string();
        }
    }
    panic!("the child printed no '{prefix}' line");
}

#[test]
fn two_processes_over_tcp() {
    let c = aes();
    let want = values::to_hex(&c.eval_plain(&common::random_inputs(&c, SEED)).unwrap()[0]);
    let mut garbler = child("garbler", None);
    let mut g_lines = BufReader::new(garbler.stdout.take().unwrap()).lines();
    let addr = output_line(&mut g_lines, "listening ");
    let mut evaluator = child("evaluator", Some(&addr));
    let mut e_lines = BufReader::new(evaluator.stdout.take().unwrap()).lines();
    assert_eq!(
        output_line(&mut e_lines, "output "),
        want,
        "the evaluator's output"
    );
    assert_eq!(output_line(&mut g_lines, "output "), want, "the garbler's output");
    assert!(garbler.wait().unwrap().success());
    assert!(evaluator.wait().unwrap().success());
}
