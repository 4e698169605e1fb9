"""The Python call vs the `mixgc` binary for the same 2PC run (docs/python.md).

Workload `aes` (default): AES-128 through `mixgc run` / `mixgc.run`. Workload `infer`:
LeNet-5 private inference of one committed MNIST test image through `mixgc infer` /
`mixgc.infer` (models/, the planner's realization).

Each trial runs the garbler first and lets it reach `accept` (0.2 s for AES, 0.5 s for
inference, which loads the weights), then times the evaluator: the binary's process from
spawn to exit, or the Python call in a Python process started (and `mixgc` imported)
beforehand. Both load their inputs, connect, run OT, evaluation and output decoding.
Trials alternate CLI and Python and must agree; the medians are printed.

    python crates/python/bench/overhead.py [--workload aes|infer] [--trials 31]
                                           [--binary target/release/mixgc]
"""

import argparse
import pathlib
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[3]
AES = ROOT / "circuits" / "aes_128.txt"
ARCH = ROOT / "models" / "lenet5.arch.json"
WEIGHTS = ROOT / "models" / "lenet5.weights.json"
IMAGES = ROOT / "models" / "mnist_test_100.npy"
INFER_WORKER = r"""
import sys, time, mixgc, numpy
arch, weights, images = sys.argv[1:4]
images = numpy.load(images)
for line in sys.stdin:
    role, address, index = line.split()
    t0 = time.perf_counter()
    if role == "garbler":
        r = mixgc.infer(arch, role, weights=weights, listen=address)
        label = "-"
    else:
        r = mixgc.infer(arch, role, image=images[int(index)], connect=address)
        label = r.label
    dt = time.perf_counter() - t0
    print(f"{dt} {label}", flush=True)
"""
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


def worker(workload: str) -> subprocess.Popen:
    argv = ([WORKER, str(AES)] if workload == "aes"
            else [INFER_WORKER, str(ARCH), str(WEIGHTS), str(IMAGES)])
    return subprocess.Popen(
        [sys.executable, "-c", *argv],
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


def infer_cli_trial(binary: str, image_file: str) -> tuple:
    address = free_address()
    infer = [binary, "infer", "--arch", str(ARCH), "--progress", "none"]
    g = subprocess.Popen(infer + ["--weights", str(WEIGHTS), "--role", "garbler", "--listen", address],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(0.5)
    t0 = time.perf_counter()
    out = subprocess.run(infer + ["--image", image_file, "--role", "evaluator", "--connect", address],
                         capture_output=True, text=True, check=True).stdout
    dt = time.perf_counter() - t0
    g.communicate(timeout=60)
    return dt, out.strip()


def python_trial(garbler, evaluator, garbler_arg: str, evaluator_arg: str,
                 wait: float = 0.2) -> tuple:
    address = free_address()
    garbler.stdin.write(f"garbler {address} {garbler_arg}\n")
    garbler.stdin.flush()
    time.sleep(wait)
    evaluator.stdin.write(f"evaluator {address} {evaluator_arg}\n")
    evaluator.stdin.flush()
    dt, out = evaluator.stdout.readline().split()
    garbler.stdout.readline()
    return float(dt), out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workload", choices=["aes", "infer"], default="aes")
    p.add_argument("--trials", type=int, default=31)
    p.add_argument("--binary", default=str(ROOT / "target" / "release" / "mixgc"))
    args = p.parse_args()
    garbler, evaluator = worker(args.workload), worker(args.workload)
    if args.workload == "infer":
        import numpy  # only the inference workload needs it: one image file per index
        images = numpy.load(IMAGES)
        tmp = tempfile.TemporaryDirectory()
    cli, py = [], []
    for i in range(args.trials):
        order = [("cli", cli), ("py", py)] if i % 2 == 0 else [("py", py), ("cli", cli)]
        if args.workload == "aes":
            key, block = random.getrandbits(128), random.getrandbits(128)
            run_cli = lambda: cli_trial(args.binary, key, block)
            run_py = lambda: python_trial(garbler, evaluator, f"{key:032x}", f"{block:032x}")
        else:
            index = i % len(images)
            image_file = str(pathlib.Path(tmp.name) / f"{index}.npy")
            numpy.save(image_file, images[index])
            run_cli = lambda: infer_cli_trial(args.binary, image_file)
            run_py = lambda: python_trial(garbler, evaluator, "-", str(index), wait=0.5)
        outs = []
        for name, times in order:
            dt, out = run_cli() if name == "cli" else run_py()
            times.append(dt)
            outs.append(out)
        assert outs[0] == outs[1], outs
    garbler.stdin.close()
    evaluator.stdin.close()
    c, q = statistics.median(cli), statistics.median(py)
    what = "AES-128" if args.workload == "aes" else "LeNet-5 inference"
    print(f"{what}, {args.trials} interleaved trials, evaluator wall time (median):")
    command = "run" if args.workload == "aes" else "infer"
    print(f"  mixgc {command} (process){' ' * (6 - len(command))}{c * 1e3:8.2f} ms")
    print(f"  mixgc.{command} (call){' ' * (9 - len(command))}{q * 1e3:8.2f} ms")
    print(f"  Python/CLI           {q / c:8.3f}  ({(q / c - 1) * 100:+.1f} %)")


if __name__ == "__main__":
    main()
