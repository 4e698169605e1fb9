//! `mixgc demo party`: n parties as threads of this process, over a loopback TCP mesh,
//! running MPCircuits' sealed-bid auction (TinyGarble2 thesis §3.6) by BMR.

use std::net::TcpListener;
use std::thread;
use std::time::{Duration, Instant};

use mixgc_circuit::{Audience, Circuit, PartyId};
use mixgc_core::new_rng;
use mixgc_nparty::{connect_mesh_on, handshake, Job, MeshOptions, Outcome, Protocol, RunFacts};
use mixgc_program::apps;
use rand::Rng;

use crate::summary::{bytes, thousands};
use crate::CliError;

/// Bid width of the demo's auction.
const BITS: u32 = 16;

/// What one party ends with: its outcome, its bytes sent and received per peer, and its time.
struct PartyEnd {
    outcome: Outcome,
    per_peer: Vec<(u64, u64)>,
    elapsed: Duration,
}

macro_rules! say {
    ($($fmt:tt)*) => {
        crate::write_stdout(&format!("{}\n", format_args!($($fmt)*)))?
    };
}

/// Runs the demo among `n` parties.
pub fn party_demo(n: usize) -> Result<(), CliError> {
    if !(2..=16).contains(&n) {
        return Err(format!("--parties {n}: the demo runs 2 to 16 parties").into());
    }
    let circuit = apps::record_auction(n, BITS)?.circuit;
    let mut rng = rand::thread_rng();
    let bids: Vec<u64> = (0..n).map(|_| rng.gen_range(0..1u64 << BITS)).collect();
    say!("mixgc demo party: {n} parties, {n} threads of this process, each with its own TCP");
    say!("connection to every other on 127.0.0.1 (a full mesh). They run a sealed-bid auction");
    say!("by BMR: together they garble the circuit, no party ever sees another's bid, and");
    say!(
        "everyone learns only the winner and the highest bid. Any {} of them may collude.\n",
        n - 1
    );
    for (i, b) in bids.iter().enumerate() {
        say!("    party {i} knows only its bid   {b:>6}");
    }
    let started = Instant::now();
    let ends = run_all(&circuit, &bids)?;
    let wall = started.elapsed();
    let inputs: Vec<Vec<bool>> = bids
        .iter()
        .map(|&b| (0..BITS).map(|i| b >> i & 1 == 1).collect())
        .collect();
    let expected = circuit.eval_plain(&inputs)?;
    let as_u64 = |v: &[bool]| v.iter().rev().fold(0u64, |a, &b| a << 1 | b as u64);
    say!("");
    let mut all_agree = true;
    for (i, end) in ends.iter().enumerate() {
        let learned = end
            .outcome
            .outputs
            .as_ref()
            .ok_or_else(|| format!("party {i} learned nothing"))?;
        let ok = *learned == expected;
        all_agree &= ok;
        say!(
            "    party {i} learns: winner {}, highest bid {}  {}",
            as_u64(&learned[0]),
            as_u64(&learned[1]),
            if ok {
                "(matches the plaintext auction)"
            } else {
                "(WRONG)"
            }
        );
    }
    let sent: u64 = ends
        .iter()
        .map(|e| e.per_peer.iter().map(|p| p.0).sum::<u64>())
        .sum();
    let busiest = ends
        .iter()
        .flat_map(|e| {
            e.per_peer
                .iter()
                .zip(&e.outcome.setup_bytes)
                .map(|(b, s)| b.0 - s.0)
        })
        .max()
        .unwrap_or(0);
    let ands = ends[0].outcome.ands;
    let slowest = |f: fn(&Outcome) -> Duration| ends.iter().map(|e| f(&e.outcome)).max().unwrap_or_default();
    say!(
        "\n    cost: {} ANDs; every party sends each other party its share of every garbled",
        thousands(ands)
    );
    say!(
        "          table: 4 rows of {n} keys, 16 B each. All parties sent {} in all, the busiest",
        bytes(sent)
    );
    say!(
        "          pair {} one way after the base OTs ({:.0} B per AND; the thesis's BMR: 9·(n−1)·16 = {}).",
        bytes(busiest),
        busiest as f64 / ands.max(1) as f64,
        9 * (n - 1) * 16
    );
    say!(
        "          offline (base OTs, joint garbling) {:.1} ms, online {:.1} ms; {:.1} ms in all",
        slowest(|o| o.offline).as_secs_f64() * 1e3,
        slowest(|o| o.online).as_secs_f64() * 1e3,
        wall.as_secs_f64() * 1e3
    );
    say!(
        "          (slowest party {:.1} ms). As processes: `mixgc party --help`.",
        ends.iter()
            .map(|e| e.elapsed)
            .max()
            .unwrap_or_default()
            .as_secs_f64()
            * 1e3
    );
    if !all_agree {
        return Err("a party's output differs from the plaintext auction".into());
    }
    Ok(())
}

/// Every party on its own thread over a loopback TCP mesh (listeners bound first, on free
/// ports), each bidding `bids[i]`.
fn run_all(circuit: &Circuit, bids: &[u64]) -> Result<Vec<PartyEnd>, CliError> {
    let n = bids.len();
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<_, _>>()?;
    let addrs: Vec<String> = listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.to_string()))
        .collect::<Result<_, _>>()?;
    let owners: Vec<usize> = (0..n).collect();
    let everyone = (1..n).fold(Audience::only(PartyId::new(0).expect("0 is a party")), |a, i| {
        a.with(PartyId::new(i).expect("below 16"))
    });
    let facts = RunFacts {
        protocol: Protocol::Bmr.to_string(),
        digest: circuit.digest(),
        input_owners: owners.clone(),
        output_audience: vec![(0..n).collect(); circuit.output_widths.len()],
        extra: Vec::new(),
    };
    let results: Vec<Result<PartyEnd, String>> = thread::scope(|s| {
        let handles: Vec<_> = listeners
            .iter()
            .enumerate()
            .map(|(me, listener)| {
                let (addrs, facts, owners) = (&addrs, &facts, &owners);
                s.spawn(move || -> Result<PartyEnd, String> {
                    let started = Instant::now();
                    let options = MeshOptions::default();
                    let mut mesh =
                        connect_mesh_on(me, listener, addrs, &options).map_err(|e| e.to_string())?;
                    let session = handshake(&mut mesh, facts).map_err(|e| e.to_string())?;
                    let job = Job {
                        circuit,
                        owners,
                        audience: everyone,
                    };
                    let bid: Vec<bool> = (0..BITS).map(|i| bids[me] >> i & 1 == 1).collect();
                    let mut rng = new_rng(None, 0);
                    let outcome = mixgc_nparty::run(
                        &mut mesh,
                        Protocol::Bmr,
                        &job,
                        &[bid],
                        &session,
                        &mut rng,
                        &Default::default(),
                    )
                    .inspect_err(|e| mesh.abort_all(&format!("party {me} stopped: {e}")))
                    .map_err(|e| format!("party {me}: {e}"))?;
                    Ok(PartyEnd {
                        outcome,
                        per_peer: mesh.bytes(),
                        elapsed: started.elapsed(),
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a party's thread panicked".into()))
            })
            .collect()
    });
    results.into_iter().map(|r| r.map_err(CliError::from)).collect()
}
