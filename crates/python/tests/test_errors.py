"""Bad arguments raise InputError with the Rust message before any connection; a peer
that is absent or silent raises PeerError within the timeout."""

import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import mixgc
from conftest import Peer


def test_the_exceptions_form_one_hierarchy():
    assert issubclass(mixgc.InputError, mixgc.MixgcError)
    assert issubclass(mixgc.PeerError, mixgc.MixgcError)
    assert issubclass(mixgc.MixgcError, Exception)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"inputs": [1, 2]}, "the garbler owns 1 input value(s) (64 bits) but 2 were given"),
        ({"inputs": []}, "owns 1 input value(s) (64 bits) but 0 were given"),
        ({"inputs": [2**64]}, "input value #1: 18446744073709551616 does not fit in 64 bits"),
        ({"inputs": [-(2**63) - 1]}, "does not fit in 64 bits"),
        ({"inputs": [1.5]}, "inputs[0]: expected an int, got float"),
        ({"inputs": "12"}, "not a string"),
        ({"inputs": np.array([1.0])}, "dtype float64 has no integer values"),
        ({"inputs": np.zeros((1, 1, 1), dtype=np.int64)}, "a 3-D array"),
        ({"inputs": np.zeros(2**22 + 1, dtype=np.uint8)}, "an array of 4194305 values is more than the 4194304"),
        ({"inputs": [[1], [2]], "executions": 3}, "executions=3 but the inputs have 2 rows"),
        ({"inputs": [1], "executions": 0}, "executions: expected 1 to"),
        ({"inputs": [1], "timeout": 0}, "timeout: expected whole seconds from 1 to 86400, got 0"),
        ({"inputs": [1], "reveal": "nobody"}, "reveal:"),
        ({"inputs": [1], "connect": "127.0.0.1:9"}, "give exactly one of listen=ADDR"),
        ({"inputs": [1], "listen": None}, "give exactly one of listen=ADDR"),
        ({"inputs": [1], "cert": "c.pem"}, "TLS needs cert=FILE, key=FILE and peer_fingerprint"),
    ],
)
def test_bad_circuit_run_arguments(address, circuits, kwargs, message):
    args = {"listen": address, **kwargs}
    t0 = time.monotonic()
    with pytest.raises(mixgc.InputError) as e:
        mixgc.run(circuits / "adder64.txt", "garbler", **args)
    assert message in str(e.value)
    assert time.monotonic() - t0 < 5  # Refused before waiting for any peer.


def test_bad_role_op_and_files(address, circuits, tmp_path):
    with pytest.raises(mixgc.InputError, match="role: expected 'garbler' or 'evaluator', got 'alice'"):
        mixgc.run(circuits / "adder64.txt", "alice", [1], listen=address)
    with pytest.raises(mixgc.InputError, match="unknown op 'nope'; known ops: add"):
        mixgc.run_op("nope", "garbler", [1], listen=address)
    with pytest.raises(mixgc.InputError, match=r"owns 4 input value\(s\) \(64 bits, 64 bits, 64 bits, 64 bits\) but 9 were given"):
        mixgc.run_op("matmul", "garbler", np.zeros((3, 3), dtype=np.int64), size=2, listen=address)
    with pytest.raises(mixgc.InputError):
        mixgc.run(tmp_path / "missing.txt", "garbler", [1], listen=address)
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("this is not a circuit\n")
    with pytest.raises(mixgc.InputError):
        mixgc.run(garbage, "garbler", [1], listen=address)


def test_plain_tcp_off_loopback_is_refused(circuits):
    with pytest.raises(mixgc.PeerError, match="not a loopback address"):
        mixgc.run(circuits / "adder64.txt", "garbler", [1], listen="0.0.0.0:0")


def test_nobody_connects_within_the_timeout(address, circuits):
    t0 = time.monotonic()
    with pytest.raises(mixgc.PeerError, match=r"no peer connected within 1 s \(timeout\)"):
        mixgc.run(circuits / "adder64.txt", "garbler", [1], listen=address, timeout=1)
    assert time.monotonic() - t0 < 4


def test_a_silent_peer_raises_within_the_timeout(address, circuits):
    # A process that connects and then never sends a byte.
    host, port = address.split(":")
    silent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import socket, time, sys\n"
            f"for _ in range(200):\n"
            f"    try:\n"
            f"        s = socket.create_connection(('{host}', {port})); break\n"
            f"    except OSError: time.sleep(0.05)\n"
            "time.sleep(30)\n",
        ]
    )
    try:
        t0 = time.monotonic()
        with pytest.raises(mixgc.PeerError):
            mixgc.run(circuits / "adder64.txt", "garbler", [1], listen=address, timeout=2)
        elapsed = time.monotonic() - t0
        assert elapsed < 2 + 3, elapsed
    finally:
        silent.kill()
        silent.wait()


def test_a_peer_that_disagrees_on_the_op_is_named(address):
    peer = Peer("run_op", ["add", "evaluator"], {"inputs": [1], "width": 16, "connect": address})
    with pytest.raises(mixgc.PeerError, match="width"):
        mixgc.run_op("add", "garbler", [1], width=32, listen=address, timeout=10)
    name, message = peer.result()["error"]
    assert name == "PeerError" and "width" in message
