#!/usr/bin/env python3
"""TLS against plain TCP end to end, for two mixgc binaries, with the CPU it costs.

Each round runs, for OLD and NEW (alternating which goes first), a TCP and a TLS pair of
`mixgc bench-party` processes (what `mixgc bench` spawns: AES-128 x EXECUTIONS, 1,563 for
10^7 ANDs) and records the wall time (the slower party's connect to output) and the CPU
both processes used (user + system, from wait4) per AND. On a shared machine wall-clock
rates swing with its load while CPU per AND barely moves, and each round's TLS run is
compared with its own TCP run (paired), so both survive the noise.

TLS keys come from `mixgc keygen` (each party's certificate pinned by the other).

Usage: scripts/tls_vs_tcp.py OLD_BINARY NEW_BINARY ROUNDS [HASH=tccr] [EXECUTIONS=1563]"""
import atexit, json, os, re, shutil, statistics, subprocess, sys, tempfile

old, new, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
hash_kind = sys.argv[4] if len(sys.argv) > 4 else "tccr"
executions = sys.argv[5] if len(sys.argv) > 5 else "1563"
binaries = {"old": old, "new": new}
keys = tempfile.mkdtemp(prefix="mixgc-tls-vs-tcp-")
atexit.register(shutil.rmtree, keys, True)
fingerprint = {}
for party in ("g", "e"):
    out = subprocess.run([old, "keygen", "--out", f"{keys}/{party}"], capture_output=True, text=True, check=True)
    fingerprint[party] = re.findall(r"\b[0-9a-f]{64}\b", out.stdout + out.stderr)[-1]


def tls_flags(me, peer):
    return ["--cert", f"{keys}/{me}/cert.pem", "--key", f"{keys}/{me}/key.pem", "--peer-fingerprint", fingerprint[peer]]


def one_run(binary, transport):
    """(wall ns/AND, CPU ns/AND of both processes)."""
    common = ["--workload", "aes128", "--executions", executions, "--hash", hash_kind]
    tls = transport == "tls"
    g = subprocess.Popen([binary, "bench-party", "--role", "garbler", "--listen", "127.0.0.1:0"] + common
                         + (tls_flags("g", "e") if tls else []),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    addr = g.stderr.readline().strip().removeprefix("listening on ")
    e = subprocess.Popen([binary, "bench-party", "--role", "evaluator", "--connect", addr] + common
                         + (tls_flags("e", "g") if tls else []),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    e_out, e_err = e.stdout.read(), e.stderr.read()
    _, e_status, e_usage = os.wait4(e.pid, 0)
    g_out, g_err = g.stdout.read(), g.stderr.read()
    _, g_status, g_usage = os.wait4(g.pid, 0)
    if e_status or g_status:
        sys.exit(f"{binary} {transport} failed:\n{g_err}\n{e_err}")
    g_report, e_report = json.loads(g_out), json.loads(e_out)
    ands = g_report["ands"]
    wall = max(g_report["elapsed_ns"], e_report["elapsed_ns"]) / ands
    cpu = sum(u.ru_utime + u.ru_stime for u in (g_usage, e_usage)) * 1e9 / ands
    return wall, cpu


runs = {}
for r in range(rounds):
    for b in (["old", "new"] if r % 2 == 0 else ["new", "old"]):
        for t in (["tcp", "tls"] if r % 4 < 2 else ["tls", "tcp"]):
            wall, cpu = one_run(binaries[b], t)
            runs[(r, b, t)] = (wall, cpu)
            print(f"round {r} {b} {t} (load {os.getloadavg()[0]:.1f}): {1e3 / wall:.2f} M AND/s, CPU {cpu:.1f} ns/AND",
                  file=sys.stderr, flush=True)
print(f"{rounds} interleaved rounds, {hash_kind}, AES-128 x {executions}; medians")
for b in ("old", "new"):
    med = lambda t, i: statistics.median(runs[(r, b, t)][i] for r in range(rounds))
    slower = statistics.median(runs[(r, b, "tcp")][0] / runs[(r, b, "tls")][0] - 1 for r in range(rounds))
    extra = statistics.median(runs[(r, b, "tls")][1] - runs[(r, b, "tcp")][1] for r in range(rounds))
    extra_pct = statistics.median(runs[(r, b, "tls")][1] / runs[(r, b, "tcp")][1] - 1 for r in range(rounds))
    print(f"{b}: TLS {1e3 / med('tls', 0):.2f} / TCP {1e3 / med('tcp', 0):.2f} M AND/s, "
          f"CPU TLS {med('tls', 1):.1f} / TCP {med('tcp', 1):.1f} ns/AND; paired: TLS throughput "
          f"{100 * slower:+.1f} % against TCP, CPU {extra:+.1f} ns/AND ({100 * extra_pct:+.1f} %)")
