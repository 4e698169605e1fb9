"""Private inference from Python (`mixgc.infer`): the committed LeNet-5, the server's weights
as NumPy arrays in one thread, the client's image as a NumPy array in another (the GIL is
released while each computes), checked against the quantized plaintext network's logits
that the training script committed (models/mnist_test_100_expected.json)."""

import json
import threading

import numpy as np
import pytest

import mixgc
from conftest import ROOT

MODELS = ROOT / "models"
ARCH = MODELS / "lenet5.arch.json"
WEIGHTS = MODELS / "lenet5.weights.json"


def images() -> np.ndarray:
    return np.load(MODELS / "mnist_test_100.npy")


def expected() -> dict:
    return json.loads((MODELS / "mnist_test_100_expected.json").read_text())


def weight_arrays() -> list:
    layers = json.loads(WEIGHTS.read_text())["layers"]
    return [{"weights": np.array(l["weights"], dtype=np.int64), "bias": np.array(l["bias"])} for l in layers]


def test_lenet5_numpy_model_and_image_give_the_plaintext_networks_logits(address):
    index = 7
    image = images()[index]
    assert image.shape == (28, 28) and image.dtype == np.uint8
    server = {}

    def garbler():
        server["result"] = mixgc.infer(ARCH, "garbler", weights=weight_arrays(), listen=address, logits=True, timeout=60)

    t = threading.Thread(target=garbler)
    t.start()
    client = mixgc.infer(str(ARCH), "evaluator", image=image, connect=address, logits=True, timeout=60)
    t.join(timeout=120)
    want = expected()
    assert client.label == want["classes"][index]
    assert client.logits.tolist() == want["logits"][index]
    assert server["result"].label is None and server["result"].logits is None
    assert client.ands == server["result"].ands > 0
    assert client.plan == server["result"].plan and len(client.plan.split(",")) == 5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"role": "evaluator", "image": np.zeros((27, 28), dtype=np.uint8)}, "shape"),
        ({"role": "evaluator", "image": np.full((28, 28), 256)}, "outside 0..=255"),
        ({"role": "evaluator"}, "needs image="),
        ({"role": "garbler"}, "needs weights="),
        ({"role": "garbler", "weights": [{"weights": [1], "bias": [0]}]}, "layers"),
        ({"role": "garbler", "weights": str(WEIGHTS), "image": np.zeros((28, 28))}, "evaluator's"),
        ({"role": "evaluator", "image": np.zeros((28, 28)), "realization": "fast"}, "realization"),
    ],
)
def test_bad_inference_arguments_raise_before_connecting(kwargs, message):
    role = kwargs.pop("role")
    with pytest.raises(mixgc.InputError, match=message):
        mixgc.infer(ARCH, role, connect="127.0.0.1:9", timeout=1, **kwargs)
