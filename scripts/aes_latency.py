#!/usr/bin/env python3
"""One AES-128 from connect, for two mixgc binaries, over TCP and TLS, interleaved.

Each round runs, for OLD and NEW (alternating which goes first) and for each transport
(alternating the order too), one pair of `mixgc bench-party` processes on the AES-128
workload with one execution, as `mixgc bench` does for its latency line: the evaluator's
connect (with TLS, the whole handshake) plus the slower party's time from the established
connection to the output, and the base OTs (the slower party's). With --security malicious
the parties run the malicious model (the figure `mixgc bench --security malicious` calls
"AES-128 from connect", which starts at the established connection; the connect is
reported beside it). Also the CPU time both processes used (user + system, whole process
lives, from getrusage of the reaped children), which a loaded machine disturbs far less.

TLS keys come from `mixgc keygen` (each party's certificate pinned by the other).

Usage: scripts/aes_latency.py OLD_BINARY NEW_BINARY ROUNDS [semi-honest|malicious]"""
import atexit, json, os, re, resource, shutil, statistics, subprocess, sys, tempfile

old, new, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
model = sys.argv[4] if len(sys.argv) > 4 else "semi-honest"
binaries = {"old": old, "new": new}
keys = tempfile.mkdtemp(prefix="mixgc-aes-latency-")
atexit.register(shutil.rmtree, keys, True)
fingerprint = {}
for party in ("g", "e"):
    out = subprocess.run([old, "keygen", "--out", f"{keys}/{party}"], capture_output=True, text=True, check=True)
    fingerprint[party] = re.findall(r"\b[0-9a-f]{64}\b", out.stdout + out.stderr)[-1]


def tls_flags(me, peer):
    return ["--cert", f"{keys}/{me}/cert.pem", "--key", f"{keys}/{me}/key.pem", "--peer-fingerprint", fingerprint[peer]]


def children_cpu_ms():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (u.ru_utime + u.ru_stime) * 1e3


def one_run(binary, transport):
    """(from connect ms, connect ms, base OT ms, CPU ms of both processes)."""
    cpu = children_cpu_ms()
    common = ["--workload", "aes128", "--executions", "1", "--security", model]
    tls = transport == "tls"
    g = subprocess.Popen([binary, "bench-party", "--role", "garbler", "--listen", "127.0.0.1:0"] + common
                         + (tls_flags("g", "e") if tls else []),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    addr = g.stderr.readline().strip().removeprefix("listening on ")
    e = subprocess.Popen([binary, "bench-party", "--role", "evaluator", "--connect", addr] + common
                         + (tls_flags("e", "g") if tls else []),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    e_out, e_err = e.communicate()
    g_out, g_err = g.communicate()
    if e.returncode or g.returncode:
        sys.exit(f"{binary} {transport} failed:\n{g_err}\n{e_err}")
    gr, er = json.loads(g_out), json.loads(e_out)
    session = max(gr["elapsed_ns"], er["elapsed_ns"]) / 1e6
    connect = er["connect_ns"] / 1e6
    return connect + session, connect, max(gr["base_ot_ns"], er["base_ot_ns"]) / 1e6, children_cpu_ms() - cpu


runs = {}
for r in range(rounds):
    for b in (["old", "new"] if r % 2 == 0 else ["new", "old"]):
        for t in (["tcp", "tls"] if r % 4 < 2 else ["tls", "tcp"]):
            runs[(r, b, t)] = one_run(binaries[b], t)
            f, c, ot, cpu = runs[(r, b, t)]
            print(f"round {r} {b} {t} (load {os.getloadavg()[0]:.1f}): {f:.2f} ms from connect "
                  f"(connect {c:.2f}, base OT {ot:.2f}, CPU {cpu:.1f})", file=sys.stderr, flush=True)
print(f"{rounds} interleaved rounds, {model}, one AES-128; medians [min, max] in ms")
for b in ("old", "new"):
    for t in ("tcp", "tls"):
        col = lambda i: [runs[(r, b, t)][i] for r in range(rounds)]
        f, c, ot, cpu = col(0), col(1), col(2), col(3)
        print(f"{b} {t}: from connect {statistics.median(f):.2f} [{min(f):.2f}, {max(f):.2f}], "
              f"connect {statistics.median(c):.2f}, base OT {statistics.median(ot):.2f}, "
              f"CPU of both processes {statistics.median(cpu):.1f}")
