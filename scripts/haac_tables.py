#!/usr/bin/env python3
"""Markdown tables of `mixgc sim --plot` results beside HAAC's stated numbers (docs/haac.md).

usage: scripts/haac_tables.py [--cpu CPU.jsonl] FIG_DIR [FIG_DIR ...]   (each holding runs.csv,
table3.csv, fig6.csv, fig7.csv, fig8.csv of one or more workloads). Standard library only.

--cpu CPU.jsonl: the lines of `mixgc sim --cpu-only --json WORKLOAD.*.haac` (one file per
workload; the Evaluator's baseline): every speedup of those workloads is rescaled to that CPU
time (speedup × new CPU seconds / the CPU seconds in runs.csv — the model's cycles do not
depend on it), e.g. a CPU baseline re-measured on a quiet machine.
"""
import csv
import json
import math
import sys
from pathlib import Path

ORDER = ["bubbst", "dotprod", "merse", "triangle", "hamm", "matmult", "relu", "graddesc"]
# HAAC Table 3 (k wires, 2 MB SWW): live seg/full, OoRW seg/full, total seg/full.
SEED_T3 = {
    "matmult": (6.01, 271, 495, 582, 501, 853),
    "dotprod": (5.59, 52.8, 91.5, 56.8, 97.1, 110),
    "merse": (0.06, 21.8, 0.05, 29.4, 0.11, 51.2),
    "triangle": (52.4, 3020, 2411, 5934, 2463, 8954),
    "relu": (67.5, 67.6, 2.11, 2.05, 69.6, 69.7),
    "bubbst": (161, 16.6, 750, 37.2, 911, 53.8),
    "graddesc": (17.3, 19.2, 392, 344, 409, 363),
    "hamm": (0.75, 0.27, 1.22, 0.26, 1.97, 0.53),
}


def rows(dirs, name):
    out = []
    for d in dirs:
        p = Path(d) / name
        if p.is_file():
            out += list(csv.DictReader(p.open()))
    return sorted(out, key=lambda r: (ORDER.index(r["workload"]) if r["workload"] in ORDER else 99))


def gm(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def flag(ours, seed):
    return " **(>25 %)**" if seed and abs(ours - seed) / seed > 0.25 else ""


def cpu_scales(dirs, cpu_file):
    """workload -> factor from the runs' CPU seconds to those of cpu_file; prints both."""
    if not cpu_file:
        return {}
    new = {}
    for line in open(cpu_file):
        if line.strip():
            j = json.loads(line)
            if j.get("role", "evaluator") == "evaluator":
                new[j["workload"]] = (float(j["cpu"]["seconds"]), float(j["cpu"]["ns_per_and"]))
    old = {}
    for r in rows(dirs, "runs.csv"):
        if r["role"] == "Evaluator":
            old.setdefault(r["workload"], float(r["cpu_seconds"]))
    print("CPU baselines (mixgc's in-memory evaluation, one thread; ms):\n")
    print("| workload | in runs.csv | re-measured (--cpu) | ns/AND re-measured | factor |")
    print("|---|---:|---:|---:|---:|")
    scales = {}
    for w in sorted(set(old) & set(new), key=lambda w: ORDER.index(w) if w in ORDER else 99):
        scales[w] = new[w][0] / old[w]
        print(f"| {w} | {old[w] * 1e3:,.2f} | {new[w][0] * 1e3:,.2f} | {new[w][1]:.1f} | {scales[w]:.3f} |")
    print()
    return scales


def main(dirs, cpu_file=None):
    scales = cpu_scales(dirs, cpu_file)
    print("Table 3 (k wires, 2 MB SWW; ours / seed):\n")
    print("| workload | live seg | live full | OoRW seg | OoRW full | total seg | total full |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows(dirs, "table3.csv"):
        if r["window"] != "131072":
            continue
        seed = SEED_T3.get(r["workload"])
        keys = ["live_k_seg", "live_k_full", "oorw_k_seg", "oorw_k_full", "total_k_seg", "total_k_full"]
        cells = []
        for i, k in enumerate(keys):
            ours = float(r[k]) if r[k] else float("nan")
            s = seed[i] if seed else None
            cells.append(f"{ours:,.2f} / {s:,}" if s is not None else f"{ours:,.2f}")
        print(f"| {r['workload']} | " + " | ".join(cells) + " |")

    f6 = rows(dirs, "fig6.csv")
    for r in f6:
        for k in ("baseline", "ro_rn", "ro_rn_esw"):
            r[k] = float(r[k]) * scales.get(r["workload"], 1.0)
    print("\nFigure 6 (16 GEs, 2 MB, DDR4, Evaluator; speedup over mixgc on this CPU):\n")
    print("| workload | baseline | RO+RN | RO+RN+ESW | RO+RN / baseline | ESW / RO+RN |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in f6:
        b, ro, esw = float(r["baseline"]), float(r["ro_rn"]), float(r["ro_rn_esw"])
        print(f"| {r['workload']} | {b:,.1f}x | {ro:,.1f}x | {esw:,.1f}x | {ro / b:.2f}x | {esw / ro:.2f}x |")
    if f6:
        b = [float(r["baseline"]) for r in f6]
        ro = [float(r["ro_rn"]) for r in f6]
        esw = [float(r["ro_rn_esw"]) for r in f6]
        print(f"| geomean | {gm(b):,.1f}x (seed 82.6x avg) | | | {gm([x / y for x, y in zip(ro, b)]):.2f}x (seed 3.1x) "
              f"| {gm([x / y for x, y in zip(esw, ro)]):.2f}x (seed 2.1x) |")

    f8 = rows(dirs, "fig8.csv")
    print("\nFigure 8 (2 MB, Evaluator; speedup over mixgc on this CPU at 1, 2, 4, 8, 16 GEs):\n")
    print("| workload | memory | schedule | 1 | 2 | 4 | 8 | 16 | 1 -> 16 |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    by_mem = {"ddr4": [], "hbm2": []}
    for r in f8:
        v = [float(r[f"ges_{g}"]) * scales.get(r["workload"], 1.0) for g in (1, 2, 4, 8, 16)]
        by_mem[r["memory"]].append(v)
        print(f"| {r['workload']} | {r['memory']} | {r['schedule']} | " + " | ".join(f"{x:,.1f}" for x in v)
              + f" | {v[4] / v[0]:.1f}x |")
    for mem, seed, seed_scale in (("ddr4", 589, None), ("hbm2", 2627, 12.3)):
        v = by_mem[mem]
        if v:
            scale = gm([x[4] / x[0] for x in v])
            print(f"| geomean | {mem} | | | | | | {gm([x[4] for x in v]):,.1f} (seed {seed:,}) | {scale:.1f}x"
                  + (f" (seed {seed_scale}x)" if seed_scale else "") + " |")

    f7 = rows(dirs, "fig7.csv")
    print("\nFigure 7 (16 GEs, DDR4; µs of GE-only compute and of off-chip wire traffic alone):\n")
    print("| workload | schedule | window | compute µs | wire traffic µs |")
    print("|---|---|---:|---:|---:|")
    for r in f7:
        if r["workload"] in ("matmult", "bubbst"):
            print(f"| {r['workload']} | {r['schedule']} | {int(r['window']) * 16 // 1024} KB | "
                  f"{float(r['compute_us']):,.1f} | {float(r['wire_traffic_us']):,.1f} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    cpu = None
    if args[:1] == ["--cpu"]:
        if len(args) < 2:
            sys.exit("usage: haac_tables.py [--cpu CPU.jsonl] FIG_DIR [FIG_DIR ...]")
        cpu, args = args[1], args[2:]
    main(args, cpu)
