#!/bin/sh
# Old against new, interleaved: LeNet-5 on held-out image 0 for each realization, two
# processes over loopback TCP and one process over the emulated 1 Gbit/s link, RUNS rounds
# (default 3) of every (binary, realization, link). Prints one tagged line per party and
# run; `python3 scripts/infer_medians.py < log` takes the medians.
# Usage: OLD=/tmp/mixgc-old-infer NEW=target/release/mixgc sh scripts/infer_compare.sh
set -e
OLD=${OLD:-/tmp/mixgc-old-infer}
NEW=${NEW:-target/release/mixgc}
RUNS=${RUNS:-3}
IMG=$(mktemp --suffix .npy)
python3 - "$IMG" <<'PY'
import sys
data = open("models/mnist_test_100.npy", "rb").read()
pixels = data[len(data) - 100 * 784:][:784]
header = "{'descr': '|u1', 'fortran_order': False, 'shape': (28, 28), }".ljust(117) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + pixels)
PY
for run in $(seq "$RUNS"); do
  for r in boolean mixed planned; do
    for which in old new; do
      if [ $which = old ]; then BIN=$OLD; else BIN=$NEW; fi
      PORT=$((17000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
      $BIN infer --arch models/lenet5.arch.json --weights models/lenet5.weights.json \
        --role garbler --listen 127.0.0.1:$PORT --realization $r --timeout 300 2> /tmp/g.$$ &
      G=$!
      sleep 0.5
      $BIN infer --arch models/lenet5.arch.json --image "$IMG" \
        --role evaluator --connect 127.0.0.1:$PORT --realization $r --timeout 300 2> /tmp/e.$$ >/dev/null
      wait $G
      grep -hE "^(garbler|evaluator):" /tmp/g.$$ /tmp/e.$$ | sed "s/^/$which $r loopback run$run /"
      $BIN demo infer --image 0 --realization $r --link-mbps 1000 | grep -E "^(server|client)" \
        | sed "s/^/$which $r link1g run$run /"
    done
  done
done
rm -f "$IMG" /tmp/g.$$ /tmp/e.$$
