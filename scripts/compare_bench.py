#!/usr/bin/env python3
"""Compares two mixgc binaries: `bench --json` and `bench --ops --json`, N rounds, each round
running OLD then NEW (interleaved, so both see the same machine load); prints each figure's
median and [min, max] over the rounds.

Usage: scripts/compare_bench.py OLD_BINARY NEW_BINARY ROUNDS"""
import json, subprocess, sys, statistics
old, new, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
keys = ["garble_ns_per_and", "eval_ns_per_and", "e2e_ns_per_and", "rekeyed_garble_ns_per_and",
        "rekeyed_eval_ns_per_and", "rekeyed_e2e_ns_per_and", "aes128_ms", "millionaires32_ms", "base_ot_ms"]
res = {b: {"main": [], "ops": []} for b in ("old", "new")}
for r in range(rounds):
    for name, binary in (("old", old), ("new", new)):
        out = subprocess.run([binary, "bench", "--json"], capture_output=True, text=True, check=True).stdout
        res[name]["main"].append(json.loads(out))
        out = subprocess.run([binary, "bench", "--ops", "--json"], capture_output=True, text=True, check=True).stdout
        res[name]["ops"].append({o["op"]: o for o in json.loads(out)})
    print(f"round {r+1} done", file=sys.stderr, flush=True)
def row(label, o, n):
    mo, mn = statistics.median(o), statistics.median(n)
    print(f"{label:32s} old {mo:10.3f} [{min(o):9.3f},{max(o):9.3f}]  new {mn:10.3f} [{min(n):9.3f},{max(n):9.3f}]  {100*(mn/mo-1):+6.1f}%")
print(f"machine: {res['old']['main'][0]['machine']}, {rounds} interleaved rounds, medians [min,max]")
for k in keys:
    if k not in res["old"]["main"][0] or k not in res["new"]["main"][0]:
        continue  # a figure one of the two binaries does not report
    row(k, [d[k] for d in res["old"]["main"]], [d[k] for d in res["new"]["main"]])
for op in res["old"]["ops"][0]:
    for k in ("total_ms", "online_ms"):
        row(f"ops {op} {k}", [d[op][k] for d in res["old"]["ops"]], [d[op][k] for d in res["new"]["ops"]])
