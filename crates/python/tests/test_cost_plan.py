"""The cost counter and the planner as dicts, checked against known counts."""

import pytest

import mixgc


def test_ops_lists_the_library():
    ops = {op["name"]: op for op in mixgc.ops()}
    assert {"add", "mul", "aes128", "matmul", "millionaires"} <= set(ops)
    assert ops["add"]["default_width"] == 32 and ops["aes128"]["default_width"] is None
    assert ops["matmul"]["default_size"] == 10


@pytest.mark.parametrize("width", [1, 8, 32, 64, 1024])
def test_the_cost_of_an_adder_is_width_minus_one_ands(width):
    c = mixgc.cost("add", width=width)
    assert c["ands"] == width - 1  # TinyGarble2 Table 3.1: Sum-1024, 1023 ANDs.
    assert c["table_bytes"] == 32 * c["ands"]  # Half-gates: two 16-byte rows an AND.
    assert c["inputs"] == [{"owner": "garbler", "width": width}, {"owner": "evaluator", "width": width}]
    assert c["outputs"] == [width]
    assert c["garbler_input_bits"] == c["evaluator_input_bits"] == c["ots"] == width


def test_aes_costs_agree_between_the_op_and_the_circuit(circuits):
    op = mixgc.cost("aes128")
    circuit = mixgc.cost(circuit=circuits / "aes_128.txt")
    assert op["ands"] == circuit["ands"] == 6400
    assert circuit["input_widths"] == [128, 128] and circuit["output_widths"] == [128]
    assert circuit["and_depth"] == 60 and circuit["gates"] == 36663
    assert op["total_bytes"] >= op["table_bytes"] + op["ot_bytes"]


def test_bad_cost_arguments():
    with pytest.raises(mixgc.InputError, match="one of the two"):
        mixgc.cost()
    with pytest.raises(mixgc.InputError, match="unknown op"):
        mixgc.cost("nope")
    with pytest.raises(mixgc.InputError, match="width and size are for a library op"):
        mixgc.cost(circuit="x.txt", width=8)


def test_plan_returns_every_realization_and_recommends_one():
    calls = []
    plan = mixgc.plan("clipdot", width=8, size=16, objective="bytes", progress=lambda *c: calls.append(c))
    assert plan["program"] == "clipdot" and plan["width"] == 8 and plan["objective"] == "bytes"
    names = [r["realization"] for r in plan["realizations"]]
    assert len(names) == 3 and plan["recommended"] in names
    best = min(plan["realizations"], key=lambda r: r["table_bytes"])
    assert plan["recommended"] == best["realization"]
    for r in plan["realizations"]:
        assert r["predicted"]["garble_us"] > 0 and r["measured"] is None
    assert all(p > 1 for p in plan["primes"])
    # One step for the calibration and one per realization, the last call at the end.
    assert calls[-1][0].startswith("plan") and calls[-1][1] == calls[-1][2] == 4


def test_plan_check_measures_each_realization():
    plan = mixgc.plan("clipdot", width=8, size=8, check=True, reps=1)
    for r in plan["realizations"]:
        assert r["measured"]["garble_us"] > 0 and r["measured"]["eval_us"] > 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"program": "sort"}, "program: expected one of 'clipdot', 'lenet', got 'sort'"),
        ({"objective": "speed"}, "objective: expected one of"),
        ({"width": 3}, "3 is not a width from 4 to 64"),
        ({"size": 0}, "clipdot takes 1 to 65536 values"),
        ({"reps": 0}, "0 is not a number of runs from 1 to 100"),
    ],
)
def test_bad_plan_arguments(kwargs, message):
    with pytest.raises(mixgc.InputError) as e:
        mixgc.plan(**kwargs)
    assert message in str(e.value)
