"""Two Python processes over loopback: this one garbles, a peer process evaluates. Every
output is checked against a plaintext model on random inputs."""

import random
import threading

import numpy as np
import pytest

import mixgc
from aes_model import encrypt_int
from conftest import Peer

RNG = np.random.default_rng()


def test_adder64_numpy_batch_both_learn_the_sum(address, circuits):
    k = 8
    a = RNG.integers(0, 2**64, size=(k, 1), dtype=np.uint64)
    b = RNG.integers(0, 2**64, size=(k, 1), dtype=np.uint64)
    # Edge values in the first rows: zero, all ones, the carry out of bit 63.
    a[0, 0], b[0, 0] = 0, 0
    a[1, 0], b[1, 0] = 2**64 - 1, 1
    a[2, 0], b[2, 0] = 2**63, 2**63
    peer = Peer(
        "run",
        [str(circuits / "adder64.txt"), "evaluator"],
        {"inputs": b.tolist(), "connect": address, "timeout": 20},
        numpy_dtype="uint64",
    )
    mine = mixgc.run(circuits / "adder64.txt", "garbler", a, listen=address, timeout=20)
    theirs = peer.result()
    want = (a + b)  # NumPy's uint64 addition wraps modulo 2^64, as the circuit does.
    assert isinstance(mine.outputs, np.ndarray) and mine.outputs.dtype == np.uint64
    assert mine.outputs.shape == (k, 1)
    np.testing.assert_array_equal(mine.outputs, want)
    assert theirs["outputs"] == want.tolist()
    assert mine.ands == 63 * k and mine.role == "garbler"
    assert mine.bytes_sent > 0 and mine.bytes_received > 0 and mine.seconds > 0


def test_aes128_circuit_python_ints(address, circuits):
    key, block = random.getrandbits(128), random.getrandbits(128)
    peer = Peer("run", [str(circuits / "aes_128.txt"), "evaluator"], {"inputs": [block], "connect": address})
    mine = mixgc.run(str(circuits / "aes_128.txt"), "garbler", [key], listen=address)
    want = encrypt_int(key, block)
    assert mine.outputs == [want]
    assert peer.result()["outputs"] == [want]


def test_aes128_fips_197_numpy_outputs_are_python_ints(address, circuits):
    peer = Peer(
        "run",
        [str(circuits / "aes_128.txt"), "evaluator"],
        {"inputs": [0x00112233445566778899AABBCCDDEEFF], "connect": address, "reveal": "evaluator"},
    )
    mine = mixgc.run(
        circuits / "aes_128.txt",
        "garbler",
        [0x000102030405060708090A0B0C0D0E0F],
        listen=address,
        reveal="evaluator",
        numpy=True,
    )
    assert mine.outputs is None  # Revealed to the evaluator only.
    assert peer.result()["outputs"] == [0x69C4E0D86A7B0430D8CDB78070B4C55A]


def test_matmul_op_numpy_matrices(address):
    n, w = 4, 16
    x = RNG.integers(0, 2**w, size=(n, n), dtype=np.uint16)
    y = RNG.integers(0, 2**w, size=(n, n), dtype=np.uint16)
    peer = Peer(
        "run_op",
        ["matmul", "evaluator"],
        {"inputs": y.tolist(), "width": w, "size": n, "connect": address},
        numpy_dtype="uint16",
    )
    mine = mixgc.run_op("matmul", "garbler", x, width=w, size=n, listen=address)
    want = (x.astype(np.uint64) @ y.astype(np.uint64)) % 2**w
    np.testing.assert_array_equal(mine.outputs, want.reshape(-1))
    assert peer.result()["outputs"] == want.reshape(-1).tolist()


@pytest.mark.parametrize("x", [-128, -1, 0, 1, 127, None])
def test_relu_op_signed(address, x):
    x = int(RNG.integers(-128, 128)) if x is None else x
    peer = Peer("run_op", ["relu", "evaluator"], {"width": 8, "connect": address, "signed": True})
    mine = mixgc.run_op("relu", "garbler", [x], width=8, listen=address, signed=True)
    assert mine.outputs == [max(x, 0)]
    assert peer.result()["outputs"] == [max(x, 0)]


def test_both_parties_in_threads_of_one_process_release_the_gil(address, circuits):
    # The garbler blocks in accept until the evaluator connects: with the GIL held, the
    # evaluator's thread could never run.
    a, b = random.getrandbits(64), random.getrandbits(64)
    results = {}

    def evaluator():
        results["e"] = mixgc.run(circuits / "adder64.txt", "evaluator", [b], connect=address, timeout=10)

    t = threading.Thread(target=evaluator)
    t.start()
    g = mixgc.run(circuits / "adder64.txt", "garbler", [a], listen=address, timeout=10)
    t.join(timeout=30)
    assert g.outputs == results["e"].outputs == [(a + b) % 2**64]


def test_progress_callback_sees_the_run(address):
    calls = []
    peer = Peer("run_op", ["aes-chain", "evaluator"], {"inputs": [7], "size": 40, "connect": address})
    mine = mixgc.run_op(
        "aes-chain", "garbler", [5], size=40, listen=address, progress=lambda *c: calls.append(c)
    )
    peer.result()
    assert mine.ands == 40 * 6400
    assert calls, "the callback was never called"
    for phase, done, total in calls:
        assert isinstance(phase, str) and done >= 0 and (total is None or total >= 0)
    # Rate-limited: far fewer calls than ANDs.
    assert len(calls) < 1000


def test_an_exception_in_the_progress_callback_is_raised(address, circuits):
    peer = Peer("run", [str(circuits / "adder64.txt"), "evaluator"], {"inputs": [1], "connect": address})

    def fail(phase, done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        mixgc.run(circuits / "adder64.txt", "garbler", [2], listen=address, progress=fail)
    peer.result()
