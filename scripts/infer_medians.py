"""Medians of `scripts/infer_compare.sh` output (stdin): per binary, realization, link and
party, the median seconds over the runs, with the ANDs, bytes and peak RSS seen."""
import re
import statistics
import sys

times = {}
for line in sys.stdin:
    parts = line.split(maxsplit=4)
    if len(parts) < 5 or not parts[3].startswith("run"):
        continue
    which, realization, link, _, rest = parts
    party = "garbler" if rest.startswith(("garbler", "server")) else "evaluator"
    m = re.search(r"([0-9.]+) s\b", rest)
    if m:
        times.setdefault((realization, link, party, which), []).append(float(m.group(1)))
for key in sorted(times):
    v = times[key]
    print(" ".join(key), f"median {statistics.median(v):.2f} s of {len(v)}:", " ".join(f"{x:.2f}" for x in v))
