"""The Python package and the `mixgc` binary are the same protocol: each plays one side."""

import os
import random
import subprocess

import pytest

import mixgc
from aes_model import encrypt_int
from conftest import mixgc_binary

BINARY = mixgc_binary()
pytestmark = pytest.mark.skipif(
    BINARY is None and not os.environ.get("CI"),
    reason="build the binary first: cargo build --release",
)


def test_python_garbler_with_a_cli_evaluator(address, circuits):
    key, block = random.getrandbits(128), random.getrandbits(128)
    cli = subprocess.Popen(
        [str(BINARY), "run", "--circuit", str(circuits / "aes_128.txt"), "--role", "evaluator",
         "--connect", address, "--input", f"{block:032x}", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    mine = mixgc.run(circuits / "aes_128.txt", "garbler", [key], listen=address)
    out, err = cli.communicate(timeout=60)
    assert cli.returncode == 0, err
    want = encrypt_int(key, block)
    assert mine.outputs == [want]
    assert out.strip() == f"{want:032x}"


def test_cli_garbler_with_a_python_evaluator_on_a_library_op(address):
    x, y = random.getrandbits(32), random.getrandbits(32)
    cli = subprocess.Popen(
        [str(BINARY), "example", "mul", "--role", "garbler", "--listen", address,
         "--input", f"{x:x}", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    mine = mixgc.run_op("mul", "evaluator", [y], connect=address)
    out, err = cli.communicate(timeout=60)
    assert cli.returncode == 0, err
    assert mine.outputs == [(x * y) % 2**32]
    assert int(out.strip(), 16) == (x * y) % 2**32
