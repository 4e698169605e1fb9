"""mixgc: two-party garbled-circuit computation (semi-honest) from Python.

The Rust crates do the work; this module converts Python ints, lists and NumPy integer
arrays to their values and back, and releases the GIL while a protocol runs. Values follow
the Bristol Fashion convention of ``mixgc run``: bit 0 is the least significant bit, a
negative int is two's complement in its input's width. See docs/python.md.

Private inference with a CNN: ``infer`` (as ``mixgc infer``).
"""

import os
from typing import Any, Callable, Literal, Optional, Sequence, Union

import numpy
import numpy.typing

__version__: str

Role = Literal["garbler", "evaluator"]
"""Which party this process is: the garbler garbles, the evaluator evaluates."""

Inputs = Union[Sequence[int], Sequence[Sequence[int]], numpy.typing.NDArray[numpy.integer[Any]], None]
"""This party's input values: ints (any width), one list per execution, or a NumPy
integer (or bool) array."""

ProgressCallback = Callable[[str, int, Optional[int]], object]
"""``progress(phase, done, total)``: called when a phase begins and ends and at most every
0.1 s while it advances, with the GIL held, from the thread that does the work. ``total``
is None when the phase does not know its size. An exception it raises stops the calls and
is raised by the run when the run is over."""

PathLike = Union[str, "os.PathLike[str]"]

class MixgcError(Exception):
    """Any error mixgc reports; the message is the Rust library's."""

class InputError(MixgcError):
    """A bad argument or input value, found before any byte is sent."""

class PeerError(MixgcError):
    """The connection or the peer failed: nobody connected, a timeout (``timeout``
    seconds of silence), the peer stopped, disagreed on the terms or sent malformed data."""

class RunResult:
    """What one party of a run returns."""

    outputs: Any
    """The output values this party learned, or None if it learns none: a list of ints
    (a list of lists for several executions), or with NumPy a uint64 array (int64 with
    ``signed=True``; dtype object when a value is wider than 64 bits) of shape
    ``(outputs,)``, or ``(executions, outputs)`` for a batch."""
    role: str
    """"garbler" or "evaluator"."""
    ands: int
    """AND gates garbled or evaluated."""
    bytes_sent: int
    bytes_received: int
    seconds: float
    """Wall time from the connection to the end of the run."""
    base_ot_seconds: float
    """Of which the base oblivious transfers."""

def run(
    circuit: PathLike,
    role: Role,
    inputs: Inputs = None,
    *,
    listen: Optional[str] = None,
    connect: Optional[str] = None,
    timeout: int = 30,
    reveal: Literal["both", "garbler", "evaluator"] = "both",
    garbler_values: Optional[int] = None,
    executions: Optional[int] = None,
    numpy: Optional[bool] = None,
    signed: bool = False,
    progress: Optional[ProgressCallback] = None,
    cert: Optional[PathLike] = None,
    key: Optional[PathLike] = None,
    peer_fingerprint: Optional[str] = None,
    peer_ca: Optional[PathLike] = None,
) -> RunResult:
    """Run one party of a two-party computation of a Bristol circuit (Fashion or the older
    Format) or a stream compiled by ``mixgc compile``, like ``mixgc run``.

    ``inputs`` are the values this party owns, in circuit order: the garbler owns the first
    ``garbler_values`` input values (default ⌈n/2⌉), the evaluator the rest. A 2-D array
    (or a list of lists) runs one execution per row in one session (amortized: one OT
    extension for all); ``executions=K`` with one row repeats it K times.

    Exactly one of ``listen`` (wait for the peer on ADDR, e.g. "127.0.0.1:7000") and
    ``connect`` (retrying while the peer starts). Plain TCP is allowed on loopback only;
    elsewhere give ``cert``, ``key`` and ``peer_fingerprint`` or ``peer_ca`` for TLS 1.3.
    ``timeout``: whole seconds (1 to 86400) of silence from the peer before PeerError.

    ``numpy``: outputs as a NumPy array (True), lists (False), or as the inputs came (None).
    ``signed``: read outputs as two's complement.

    Raises InputError before connecting for a bad argument or value, PeerError for a
    failed connection or peer, MixgcError otherwise. Interoperates with ``mixgc run`` on
    the other side."""

def run_op(
    name: str,
    role: Role,
    inputs: Inputs = None,
    *,
    width: Optional[int] = None,
    size: Optional[int] = None,
    listen: Optional[str] = None,
    connect: Optional[str] = None,
    timeout: int = 30,
    numpy: Optional[bool] = None,
    signed: bool = False,
    progress: Optional[ProgressCallback] = None,
    cert: Optional[PathLike] = None,
    key: Optional[PathLike] = None,
    peer_fingerprint: Optional[str] = None,
    peer_ca: Optional[PathLike] = None,
) -> RunResult:
    """Run one party of library op ``name`` (see ``ops()``) gate by gate, like
    ``mixgc example NAME``: ``width`` is the operand width in bits, ``size`` the matrix
    side, string length or count for ops that take one. ``inputs`` are this party's values
    in the op's order (a NumPy array of any shape is read in row-major order; ``cost(name)``
    lists the inputs' owners and widths). Other arguments as for ``run``; both parties must
    give the same ``name``, ``width`` and ``size``."""

def ops() -> list[dict[str, Any]]:
    """The library ops: dicts with ``name``, ``about``, ``default_width`` and
    ``default_size`` (None where the op has none)."""

def cost(
    op: Optional[str] = None,
    *,
    circuit: Optional[PathLike] = None,
    width: Optional[int] = None,
    size: Optional[int] = None,
) -> dict[str, Any]:
    """The cost of library op ``op`` counted without garbling (``ands``, ``xors``, ``nots``,
    ``and_depth``, ``table_bytes``, ``table_rows``, input bits of each party, ``ots``,
    ``ot_bytes``, ``output_bytes``, ``total_bytes``, ``peak_live_wires``, ``inputs`` as
    ``{"owner", "width"}`` dicts and ``outputs`` as widths), or of a Bristol ``circuit``
    (``gates``, ``ands``, ``xors``, ``nots``, ``copies``, ``consts``, ``and_depth``,
    ``input_widths``, ``output_widths``)."""

def plan(
    program: Literal["clipdot", "lenet"] = "clipdot",
    *,
    width: int = 16,
    size: Optional[int] = None,
    objective: Literal["stream", "preprocessing", "bytes"] = "stream",
    check: bool = False,
    reps: int = 3,
    progress: Optional[ProgressCallback] = None,
) -> dict[str, Any]:
    """ABLE §5.2's planner, as ``mixgc plan --json``: unit costs calibrated on this machine
    (about a second), each realization's ``ands``, ``arithmetic_gadgets``, ``table_bytes``
    and ``predicted`` garble/eval µs (``measured`` too with ``check=True``, which runs each
    between two parties in this process), and the ``recommended`` realization for the
    objective. ``width`` 4 to 64; ``size``: values per party (clipdot, default 256) or
    filters (lenet, default 32)."""

class InferResult:
    """What ``infer`` returns."""

    label: Optional[int]
    """The class (the evaluator's; None on the garbler)."""
    logits: Optional[numpy.typing.NDArray[numpy.int64]]
    """The logits with ``logits=True`` (the evaluator's; None otherwise)."""
    role: str
    plan: str
    """The realization of each conv/dense layer, e.g. ``"boolean,boolean,crt,boolean,boolean"``."""
    ands: int
    bytes_sent: int
    bytes_received: int
    seconds: float

def infer(
    arch: PathLike,
    role: Role,
    *,
    image: Union[numpy.typing.NDArray[numpy.integer[Any]], PathLike, None] = None,
    weights: Union[PathLike, Sequence[dict[str, numpy.typing.ArrayLike]], None] = None,
    listen: Optional[str] = None,
    connect: Optional[str] = None,
    timeout: int = 30,
    logits: bool = False,
    realization: Literal["boolean", "mixed", "planned"] = "planned",
    progress: Optional[ProgressCallback] = None,
    cert: Optional[PathLike] = None,
    key: Optional[PathLike] = None,
    peer_fingerprint: Optional[str] = None,
    peer_ca: Optional[PathLike] = None,
) -> InferResult:
    """One party of private inference (``mixgc infer``, docs/inference.md): the garbler
    (server) gives ``weights`` — a weights file, or one ``{"weights": array, "bias": array}``
    per conv/dense layer, flattened in the weights file's order — and the evaluator (client)
    an ``image``: a (side, side) or flat array of pixels 0..=255, or a .npy/PNG file. Both
    give the same public ``arch`` file and ``realization``. The evaluator learns the class
    (``label``), or also the ``logits``; the garbler learns nothing. Raises ``InputError``
    for bad arguments before connecting, ``PeerError`` when the peer disagrees (another
    architecture or realization) or fails."""
