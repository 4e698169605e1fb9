#!/usr/bin/env python3
"""Checks that the Python wheel's dependency graph enables the same features on every shared
crate as `cargo test --workspace` does, so that `.ci/run`'s `maturin build --release` reuses
what the test build compiled (a crate whose features differ is compiled again, and so is
every crate above it). Prints the differences and exits 1 if there are any.

Usage: scripts/wheel_features.py   (from anywhere in the workspace; runs `cargo tree` twice)"""
import subprocess, sys


def features(*selection):
    """{"name vX.Y.Z": "feature,list"} of the graph `cargo tree` shows for `selection`."""
    out = subprocess.run(["cargo", "tree", "--locked", "--prefix", "none", "-f", "{p} {f}", *selection],
                         capture_output=True, text=True, check=True).stdout
    graph = {}
    for line in out.splitlines():
        parts = line.replace(" (*)", "").split()
        if len(parts) < 2:
            continue
        # "name vX.Y.Z [(path or proc-macro)] [features]"
        tail = parts[-1] if len(parts) > 2 and not parts[-1].endswith(")") else ""
        graph.setdefault(f"{parts[0]} {parts[1]}", set()).add(tail)
    return graph


tests = features("--workspace", "-e", "normal,build,dev")
wheel = features("-p", "mixgc-python", "-e", "normal,build")
differ = sorted(k for k in wheel if k in tests and wheel[k] != tests[k])
for k in differ:
    print(f"{k}: the test build enables {sorted(tests[k])}, the wheel {sorted(wheel[k])}", file=sys.stderr)
if differ:
    sys.exit(f"{len(differ)} shared crates differ in features: name the test build's features on "
             "them in crates/python/Cargo.toml, or the wheel build recompiles the workspace")
print(f"wheel features: the {sum(k in tests for k in wheel)} crates the wheel shares with the test build agree")
