#!/usr/bin/env python3
"""Where the CI tests step's time goes: runs every test executable of
`cargo test --workspace --release --locked` alone, one after another as cargo does (from the
package's directory, with libtest's per-test times through `--report-time`, which a stable
toolchain accepts under RUSTC_BOOTSTRAP=1 on the executable alone, so no build fingerprint
changes), then prints the slowest executables with their wall times and each one's slowest
tests. Doc tests are not run (time them with `cargo test --workspace --release --doc`).

Usage: scripts/test_times.py [TOP] [FILTER]   (TOP executables, 15 by default; FILTER: only
executables whose package or target name contains it). Build first:
`cargo test --workspace --release --locked --no-run`."""
import json, os, re, subprocess, sys, time

top = int(sys.argv[1]) if len(sys.argv) > 1 else 15
only = sys.argv[2] if len(sys.argv) > 2 else ""
build = subprocess.run(
    ["cargo", "test", "--workspace", "--release", "--locked", "--no-run", "--message-format=json"],
    capture_output=True, text=True, check=True).stdout
runs = []
for line in build.splitlines():
    msg = json.loads(line)
    if msg.get("reason") != "compiler-artifact" or not msg.get("executable") or not msg["profile"]["test"]:
        continue
    package = msg["package_id"].split("#")[0].rsplit("/", 1)[-1]
    target = msg["target"]["name"] + ("" if msg["target"]["kind"] != ["lib"] else " (unit)")
    if only and only not in package and only not in target:
        continue
    runs.append((package, target, msg["executable"], os.path.dirname(msg["manifest_path"])))
env = dict(os.environ, RUSTC_BOOTSTRAP="1")
rows, failed = [], []
with open("/proc/loadavg") as f:
    load_before = f.read().split()[:3]
started = time.monotonic()
for package, target, exe, cwd in runs:
    t0 = time.monotonic()
    p = subprocess.run([exe, "-Z", "unstable-options", "--report-time"], cwd=cwd,
                       env=dict(env, CARGO_MANIFEST_DIR=cwd),
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    tests = sorted(((float(s), name) for name, s in
                    re.findall(r"^test (\S+) \.\.\. \w+ <([0-9.]+)s>$", p.stdout, re.M)), reverse=True)
    rows.append((wall, package, target, tests))
    if p.returncode != 0:
        failed.append(f"{package} {target}")
    print(f"{wall:7.1f} s  {package} {target}", file=sys.stderr, flush=True)
total = time.monotonic() - started
with open("/proc/loadavg") as f:
    load_after = f.read().split()[:3]
print(f"{len(rows)} test executables in {total:.0f} s (load average {' '.join(load_before)} "
      f"before, {' '.join(load_after)} after)")
for wall, package, target, tests in sorted(rows, reverse=True)[:top]:
    slow = ", ".join(f"{name} {s:.1f}" for s, name in tests[:3])
    print(f"| {package} | {target} | {len(tests)} | {wall:.1f} | {slow} |")
if failed:
    print("failed: " + "; ".join(failed))
    sys.exit(1)
