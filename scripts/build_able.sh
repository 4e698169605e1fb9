#!/usr/bin/env bash
# usage: build_able.sh ABLE_GIT FF_GIT DEST — builds ABLE's able_speed (scripts/able_speed.rs)
# outside this repository, as docs/arithmetic.md ("Against ABLE") describes: ABLE_GIT is a
# clone of github.com/jianqiaomo/mixed_boolean_arith_garble, FF_GIT one of
# github.com/GaloisInc/ff (the fork ABLE pins, patched in as a path dependency so the build
# needs no GitHub access), DEST an empty folder; prints the binary's path.
set -euo pipefail
able_git=$1 ff_git=$2 dest=$3
able_rev=0c8392ba16cb2d0405da58b2bc1a7ea642007b4b
ff_rev=8385746572cde82920947763e634c933d36d4557
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dest" && cd "$dest"
git clone -q --no-checkout "$able_git" swanky
git clone -q --no-checkout "$ff_git" ff
git -C ff checkout -q "$ff_rev"
# The large files (the lookup table among them) may be absent from a mirror: restore the rest.
git -C swanky restore --source="$able_rev" -- ':/' ':!bristol-fashion/circuits/Keccak_f.txt' ':!bristol-fashion/circuits/sha512.txt' ':!fancy-garbling/circuits/sha-256.txt' ':!fancy-garbling/base_conversion/cbits/lookup_tables.c'
sed -i "s|^ff = { git = .*|ff = { path = \"$dest/ff\" }|; s|^ff_codegen = { git = .*|ff_codegen = { path = \"$dest/ff/ff_codegen\" }|" swanky/Cargo.toml
(cd swanky/fancy-garbling && mkdir -p base_conversion/cbits && python3 scripts/make_lookup_tables.py)
cp "$here/able_speed.rs" swanky/fancy-garbling/examples/
# ABLE pins Rust 1.80.1 (rust-toolchain); it builds with the current stable too.
(cd swanky && RUSTUP_TOOLCHAIN=${RUSTUP_TOOLCHAIN:-stable} cargo build --release -p fancy-garbling --example able_speed)
echo "$dest/swanky/target/release/examples/able_speed"
