"""Shared helpers: the repository's circuits, free loopback ports, and a peer process."""

import json
import pathlib
import socket
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CIRCUITS = ROOT / "circuits"
PEER = pathlib.Path(__file__).with_name("peer.py")


def free_address() -> str:
    """A loopback address with a port that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


class Peer:
    """The other party, in its own Python process (see peer.py)."""

    def __init__(self, function: str, args: list, kwargs: dict, numpy_dtype=None):
        spec = {"function": function, "args": args, "kwargs": kwargs, "numpy_dtype": numpy_dtype}
        self.process = subprocess.Popen(
            [sys.executable, str(PEER), json.dumps(spec)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def result(self, timeout: float = 60) -> dict:
        out, err = self.process.communicate(timeout=timeout)
        assert self.process.returncode == 0, err
        return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def address() -> str:
    return free_address()


@pytest.fixture
def circuits() -> pathlib.Path:
    return CIRCUITS


def mixgc_binary():
    """The `mixgc` command-line binary of this checkout (`cargo build --release`), or None."""
    import os

    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    binary = target / "release" / "mixgc"
    return binary if binary.exists() else None
