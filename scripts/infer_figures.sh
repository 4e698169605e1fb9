#!/bin/sh
# The figures of docs/inference.md: LeNet-5 on one held-out image, garbler and evaluator as
# two processes over loopback TCP, for each realization; then each realization over the
# in-repo emulated 1 Gbit/s link (`mixgc demo infer --link-mbps 1000`, both parties in one
# process). Run from the repository root after `cargo build --release`.
set -e
BIN=${BIN:-target/release/mixgc}
IMG=$(mktemp --suffix .npy)
python3 - "$IMG" <<'PY'
import sys
data = open("models/mnist_test_100.npy", "rb").read()
pixels = data[len(data) - 100 * 784:][:784]
header = "{'descr': '|u1', 'fortran_order': False, 'shape': (28, 28), }".ljust(117) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + pixels)
PY
for r in boolean mixed planned; do
  echo "== $r, loopback, two processes"
  PORT=$((17000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
  $BIN infer --arch models/lenet5.arch.json --weights models/lenet5.weights.json \
    --role garbler --listen 127.0.0.1:$PORT --realization $r --timeout 120 2> /tmp/g.$$ &
  G=$!
  sleep 0.5
  $BIN infer --arch models/lenet5.arch.json --image "$IMG" \
    --role evaluator --connect 127.0.0.1:$PORT --realization $r --timeout 120 2> /tmp/e.$$
  wait $G
  grep -E "^(garbler|evaluator):" /tmp/g.$$ /tmp/e.$$ | sed 's/^[^:]*://'
done
for r in boolean mixed planned; do
  echo "== $r, emulated 1 Gbit/s link, one process"
  $BIN demo infer --image 0 --realization $r --link-mbps 1000 | grep -E "^(server|client)"
done
rm -f "$IMG" /tmp/g.$$ /tmp/e.$$
