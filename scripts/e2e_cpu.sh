#!/bin/bash
# Old and new mixgc binaries interleaved on `mixgc bench`'s end-to-end run (AES-128 × 1,563,
# re-keyed hash, two bench-party processes over 127.0.0.1; docs/architecture.md, "End to end:
# where the two processes' time goes"): ROUNDS rounds, each process under `perf stat`.
# Prints per binary the medians of wall ns/AND, CPU ns/AND of each process (task-clock:
# all threads, start-up included) and context switches, and the load average.
#
# Usage: scripts/e2e_cpu.sh OLD NEW ROUNDS
set -euo pipefail
old=$1 new=$2 rounds=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=(--workload aes128 --executions 1563 --hash rekeyed)
one() { # one run of binary $1: prints wall_ns ands cpu_g_ms cpu_e_ms ctxsw_g ctxsw_e
    rm -f "$dir"/g.* "$dir"/e.* # else the last run's address may be read
    perf stat -x, -e task-clock,context-switches -o "$dir/g.csv" -- \
        "$1" bench-party --role garbler --listen 127.0.0.1:0 "${args[@]}" >"$dir/g.out" 2>"$dir/g.err" &
    local pid=$! addr=""
    for _ in $(seq 200); do
        addr=$(sed -n 's/^listening on //p' "$dir/g.err" | head -1)
        [ -n "$addr" ] && break
        sleep 0.05
    done
    perf stat -x, -e task-clock,context-switches -o "$dir/e.csv" -- \
        "$1" bench-party --role evaluator --connect "$addr" "${args[@]}" >"$dir/e.out" 2>"$dir/e.err"
    wait "$pid"
    if ! [ -s "$dir/g.out" ] || ! [ -s "$dir/e.out" ]; then
        echo "a party failed ($1): $(cat "$dir/g.err" "$dir/e.err")" >&2
        exit 1
    fi
    python3 - "$dir" <<'P'
import json, sys
d = sys.argv[1]
g, e = (json.load(open(f"{d}/{s}.out")) for s in "ge")
stat = lambda s, ev: float(next(l for l in open(f"{d}/{s}.csv") if ev in l).split(",")[0])
print(max(g["elapsed_ns"], e["elapsed_ns"]), g["ands"], stat("g", "task-clock"), stat("e", "task-clock"),
      stat("g", "context-switches"), stat("e", "context-switches"))
P
}
for _ in $(seq "$rounds"); do
    for tag in old new; do
        bin=$old; [ $tag = new ] && bin=$new
        row=$(one "$bin") || exit 1
        echo "$tag $row" >>"$dir/runs"
    done
done
python3 - "$dir/runs" "$(cut -d' ' -f1 /proc/loadavg)" <<'P'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
for tag in ("old", "new"):
    r = [[float(x) for x in row[1:]] for row in rows if row[0] == tag]
    m = lambda f: st.median(f(x) for x in r)
    print(f"{tag}: wall {m(lambda x: x[0] / x[1]):.2f} ns/AND [{min(x[0] / x[1] for x in r):.1f}, "
          f"{max(x[0] / x[1] for x in r):.1f}], CPU garbler {m(lambda x: x[2] * 1e6 / x[1]):.2f} + evaluator "
          f"{m(lambda x: x[3] * 1e6 / x[1]):.2f} = {m(lambda x: (x[2] + x[3]) * 1e6 / x[1]):.2f} ns/AND, "
          f"context switches {m(lambda x: x[4]):.0f} / {m(lambda x: x[5]):.0f}, {len(r)} runs")
print(f"load average at the end: {sys.argv[2]}")
P
