"""One party of a test run in its own process: `python peer.py JSON`.

JSON: {"function": "run" | "run_op", "args": [...], "kwargs": {...}, "numpy_dtype": str|null}.
With numpy_dtype, kwargs["inputs"] becomes a NumPy array of that dtype. Prints one JSON
line: {"outputs": ..., "ands": int} or {"error": [exception class name, message]}.
"""

import json
import sys

import numpy as np

import mixgc


def main() -> None:
    spec = json.loads(sys.argv[1])
    kwargs = dict(spec.get("kwargs", {}))
    dtype = spec.get("numpy_dtype")
    if dtype is not None and kwargs.get("inputs") is not None:
        kwargs["inputs"] = np.array(kwargs["inputs"], dtype=dtype)
    function = getattr(mixgc, spec["function"])
    try:
        result = function(*spec.get("args", []), **kwargs)
    except mixgc.MixgcError as e:
        print(json.dumps({"error": [type(e).__name__, str(e)]}))
        return
    outputs = result.outputs
    if isinstance(outputs, np.ndarray):
        outputs = outputs.tolist()
    print(json.dumps({"outputs": outputs, "ands": result.ands}))


if __name__ == "__main__":
    main()
