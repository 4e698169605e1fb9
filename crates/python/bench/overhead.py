"""The Python call vs the `mixgc` binary for the same AES-128 2PC run (docs/python.md).

Each trial runs the garbler first and lets it reach `accept` (0.2 s), then times the
evaluator: the `mixgc run` process from spawn to exit, or the `mixgc.run(...)` call in a
Python process started (and `mixgc` imported) beforehand. Both load and compile the
circuit, connect, run OT, evaluation and output decoding. Trials alternate CLI and Python;
the medians are printed.

    python crates/python/bench/overhead.py [--trials 31] [--binary target/release/mixgc]
"""

import argparse
import pathlib
import random
import socket
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[3]
AES = ROOT / "circuits" / "aes_128.txt"
WORKER = r"""
import sys, time, mixgc
for line in sys.stdin:
    role, address, value = line.split()
    where = {"listen": address} if role == "garbler" else {"connect": address}
    t0 = time.perf_counter()
    r = mixgc.run(sys.argv[1], role, [int(value, 16)], **where)
    dt = time.perf_counter() - t0
    print(f"{dt} {r.outputs[0]:032x}", flush=True)
"""


def free_address() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def worker() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, str(AES)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )


def cli_trial(binary: str, key: int, block: int) -> tuple:
    address = free_address()
    run = [binary, "run", "--circuit", str(AES), "--quiet", "--progress", "none"]
    g = subprocess.Popen(run + ["--role", "garbler", "--listen", address, "--input", f"{key:032x}"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(0.2)
    t0 = time.perf_counter()
    out = subprocess.run(run + ["--role", "evaluator", "--connect", address, "--input", f"{block:032x}"],
                         capture_output=True, text=True, check=True).stdout
    dt = time.perf_counter() - t0
    g.communicate(timeout=30)
    return dt, out.strip()


def python_trial(garbler, evaluator, key: int, block: int) -> tuple:
    address = free_address()
    garbler.stdin.write(f"garbler {address} {key:032x}\n")
    garbler.stdin.flush()
    time.sleep(0.2)
    evaluator.stdin.write(f"evaluator {address} {block:032x}\n")
    evaluator.stdin.flush()
    dt, out = evaluator.stdout.readline().split()
    garbler.stdout.readline()
    return float(dt), out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=31)
    p.add_argument("--binary", default=str(ROOT / "target" / "release" / "mixgc"))
    args = p.parse_args()
    garbler, evaluator = worker(), worker()
    cli, py = [], []
    for i in range(args.trials):
        key, block = random.getrandbits(128), random.getrandbits(128)
        order = [("cli", cli), ("py", py)] if i % 2 == 0 else [("py", py), ("cli", cli)]
        outs = []
        for name, times in order:
            dt, out = (cli_trial(args.binary, key, block) if name == "cli"
                       else python_trial(garbler, evaluator, key, block))
            times.append(dt)
            outs.append(out)
        assert outs[0] == outs[1], outs
    garbler.stdin.close()
    evaluator.stdin.close()
    c, q = statistics.median(cli), statistics.median(py)
    print(f"AES-128, {args.trials} interleaved trials, evaluator wall time (median):")
    print(f"  mixgc run (process)  {c * 1e3:8.2f} ms")
    print(f"  mixgc.run (call)     {q * 1e3:8.2f} ms")
    print(f"  Python/CLI           {q / c:8.3f}  ({(q / c - 1) * 100:+.1f} %)")


if __name__ == "__main__":
    main()
