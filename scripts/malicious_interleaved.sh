#!/bin/bash
# Old and new mixgc binaries interleaved on one two-process malicious run (docs/malicious.md,
# "Fourth speed pass"): RUNS pairs of bench-party processes over loopback per binary, each
# process under `perf stat -e task-clock`. Prints one row per run:
#   TAG wall_ms cpu_garbler_ms cpu_evaluator_ms rss_garbler_kib rss_evaluator_kib load1
# (wall = the evaluator's elapsed_ns) and the medians per binary at the end.
# Usage: scripts/malicious_interleaved.sh OLD_BIN NEW_BIN RUNS bench-party-flags...
# e.g.   scripts/malicious_interleaved.sh /tmp/old target/release/mixgc 5 \
#            --security malicious --workload aes128 --executions 1
set -euo pipefail
OLD=$1; NEW=$2; RUNS=$3; shift 3

one() { # BIN TAG flags...
    local bin=$1 tag=$2; shift 2
    local d; d=$(mktemp -d)
    perf stat -x, -e task-clock -o "$d/g.perf" "$bin" bench-party --role garbler --listen 127.0.0.1:0 "$@" \
        >"$d/g.out" 2>"$d/g.err" &
    local gp=$! addr=""
    for _ in $(seq 200); do
        addr=$(grep -o '127.0.0.1:[0-9]*' "$d/g.err" 2>/dev/null || true)
        [ -n "$addr" ] && break
        sleep 0.05
    done
    perf stat -x, -e task-clock -o "$d/e.perf" "$bin" bench-party --role evaluator --connect "$addr" "$@" \
        >"$d/e.out" 2>"$d/e.err"
    wait "$gp"
    printf '%s %.1f %s %s %s %s %s\n' "$tag" \
        "$(grep -o '"elapsed_ns":[0-9]*' "$d/e.out" | cut -d: -f2 | awk '{print $1 / 1e6}')" \
        "$(grep task-clock "$d/g.perf" | cut -d, -f1)" "$(grep task-clock "$d/e.perf" | cut -d, -f1)" \
        "$(grep -o '"peak_rss_kib":[0-9]*' "$d/g.out" | cut -d: -f2)" \
        "$(grep -o '"peak_rss_kib":[0-9]*' "$d/e.out" | cut -d: -f2)" \
        "$(cut -d' ' -f1 /proc/loadavg)"
    rm -rf "$d"
}

rows=$(mktemp)
for _ in $(seq "$RUNS"); do
    one "$OLD" old "$@" | tee -a "$rows"
    one "$NEW" new "$@" | tee -a "$rows"
done
for tag in old new; do
    for col in 2 3 4; do
        grep "^$tag " "$rows" | awk -v c=$col '{print $c}' | sort -g |
            awk -v t=$tag -v c=$col '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
                n = c == 2 ? "wall ms" : c == 3 ? "CPU garbler ms" : "CPU evaluator ms";
                printf "%s median %s: %.1f\n", t, n, m}'
    done
done
rm -f "$rows"
