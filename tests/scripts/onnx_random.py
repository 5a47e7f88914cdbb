#!/usr/bin/env python3
"""Random ONNX graphs for cellc's conformance runner, with onnxruntime as the oracle.

    onnx_random.py OUT COUNT SEED [--ir]

writes COUNT case folders `OUT/onnx_random_SEED_K` (a `model.onnx`, its inputs and
onnxruntime's outputs, a `case.json`). With `--ir`, each graph is also converted by
OpenVINO (`convert_model`, saved with f32 weights as `model.xml`) where OpenVINO converts
it and its own outputs agree with onnxruntime's: the runner then compiles both forms of
the same random model, each checked against the same outputs (the case records why a
graph has no IR). Each graph is a chain of random ops with random
legal attributes, at a random opset (each op written in that opset's form: Clip's bounds,
Squeeze's and the reductions' axes, Split's lengths, Softmax's axis convention, Pad's
inputs), around a recurrent cell more often than not: what cellc's ONNX reader maps onto
its ops is checked against what onnxruntime computes, op by op and attribute by attribute.
Needs numpy, onnx and onnxruntime only (and OpenVINO for `--ir`).
"""
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

OPSETS = [11, 13, 14, 17, 18, 20]


class Chain:
    """A graph under construction: one current tensor `x` of known shape `s`."""

    def __init__(self, rng, opset):
        self.rng, self.opset = rng, opset
        self.nodes, self.inits, self.count = [], [], 0
        self.ops = []

    def name(self, stem):
        self.count += 1
        return f"{stem}_{self.count}"

    def node(self, op, ins, n_out=1, **attrs):
        outs = [self.name(op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, ins, outs, name=self.name(op), **attrs))
        self.ops.append(op)
        return outs[0] if n_out == 1 else outs

    def const(self, value):
        name = self.name("c")
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def floats(self, shape, lo=-1.0, hi=1.0):
        return self.const(self.rng.uniform(lo, hi, shape).astype(np.float32))

    def ints(self, values):
        return self.const(np.array(values, np.int64))

    def axes_arg(self, op, ins, axes, since, **attrs):
        """`op` with `axes` as an attribute before opset `since`, as input 1 from it on."""
        if self.opset >= since:
            return self.node(op, ins[:1] + [self.ints(axes)] + ins[1:], **attrs)
        return self.node(op, ins, axes=axes, **attrs)


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def unary(c, x, s):
    op = pick(c.rng, ["Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Softplus", "Softsign", "HardSigmoid",
                      "HardSwish", "Elu", "Selu", "LeakyRelu", "Exp", "Sqrt", "Log", "Mish", "Reciprocal",
                      "ThresholdedRelu", "Celu", "Gelu"])
    r = c.rng
    if op == "HardSigmoid":
        return c.node(op, [x], alpha=float(r.uniform(0.1, 0.5)), beta=float(r.uniform(0.3, 0.7))), s
    if op in ("Elu", "LeakyRelu"):
        return c.node(op, [x], alpha=float(r.uniform(0.01, 1.5))), s
    if op == "Selu":
        return c.node(op, [x], alpha=float(r.uniform(1.0, 2.0)), gamma=float(r.uniform(0.8, 1.2))), s
    if op == "ThresholdedRelu":
        return c.node(op, [x], alpha=float(r.uniform(-0.5, 0.5))), s
    if op == "Celu" and c.opset >= 12:
        return c.node(op, [x], alpha=float(r.uniform(0.3, 2.0))), s
    if op == "Gelu" and c.opset >= 20:
        return c.node(op, [x], approximate="tanh"), s
    if op in ("Celu", "Gelu"):
        op = "Sigmoid"
    if op in ("Sqrt", "Log", "Reciprocal"):
        # Away from the poles: |x| + 0.5.
        x = c.node("Add", [c.node("Abs", [x]), c.const(np.float32(0.5))])
    if op == "Exp":
        x = c.node("Mul", [x, c.const(np.float32(0.5))])
    if (op == "Mish" and c.opset < 18) or (op == "HardSwish" and c.opset < 14):
        op = "Tanh"
    return c.node(op, [x]), s


def broadcast_shape(rng, s):
    """A shape numpy's rules broadcast onto `s`: some trailing axes, some of them 1."""
    k = int(rng.integers(0, len(s) + 1))
    return [d if rng.random() < 0.6 else 1 for d in s[len(s) - k:]]


def binary(c, x, s):
    op = pick(c.rng, ["Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "PRelu", "Where", "Sum", "Mean"])
    shape = broadcast_shape(c.rng, s)
    if op == "Div":
        return c.node(op, [x, c.floats(shape, 0.5, 2.0)]), s
    if op == "Pow":
        base = c.node("Add", [c.node("Abs", [x]), c.const(np.float32(0.5))])
        return c.node(op, [base, c.const(np.float32(pick(c.rng, [2.0, 0.5, 3.0, -1.0])))]), s
    if op == "PRelu":
        return c.node(op, [x, c.floats(shape, 0.0, 0.5)]), s
    if op == "Where":
        return c.node(op, [c.node("Greater", [x, c.floats(shape)]), x, c.floats(shape)]), s
    if op in ("Sum", "Mean"):
        return c.node(op, [x, c.floats(shape), x]), s
    other = c.floats(shape)
    return (c.node(op, [other, x]) if c.rng.random() < 0.3 else c.node(op, [x, other])), s


def clip(c, x, s):
    lo, hi = sorted(c.rng.uniform(-0.8, 0.8, 2).astype(np.float32))
    if c.opset < 11:
        return c.node("Clip", [x], min=float(lo), max=float(hi)), s
    which = c.rng.integers(3)
    ins = [x, c.const(lo) if which != 1 else "", c.const(hi) if which != 2 else ""]
    while ins[-1] == "":
        ins.pop()
    return c.node("Clip", ins), s


def matmul(c, x, s):
    n = int(c.rng.integers(2, 9))
    if c.rng.random() < 0.5 or len(s) != 2:
        return c.node("MatMul", [x, c.floats([s[-1], n], -0.5, 0.5)]), s[:-1] + [n]
    ta, tb = int(c.rng.integers(2)), int(c.rng.integers(2))
    a = c.node("Transpose", [x], perm=[1, 0]) if ta else x
    b = c.floats([n, s[1]] if tb else [s[1], n], -0.5, 0.5)
    bias = c.floats(pick(c.rng, [[n], [1, n], [s[0], n]]))
    return c.node("Gemm", [a, b, bias], transA=ta, transB=tb, alpha=float(c.rng.uniform(0.5, 1.5)),
                  beta=float(c.rng.uniform(0.5, 1.5))), [s[0], n]


def softmax(c, x, s):
    op = pick(c.rng, ["Softmax", "LogSoftmax"])
    axis = int(c.rng.integers(-len(s), len(s)))
    return c.node(op, [x], axis=axis), s


def reduce(c, x, s):
    op = pick(c.rng, ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceProd",
                      "ReduceSumSquare", "ReduceL1", "ReduceLogSum"])
    axes = sorted(set(int(a) for a in c.rng.choice(len(s), int(c.rng.integers(1, len(s))), replace=False)))
    since = 13 if op == "ReduceSum" else 18
    if op == "ReduceLogSum":
        # A sum of positive values: |x| + 0.5.
        x = c.node("Add", [c.node("Abs", [x]), c.const(np.float32(0.5))])
    y = c.axes_arg(op, [x], axes, since, keepdims=1)
    return y, [1 if k in axes else d for k, d in enumerate(s)]


def transpose(c, x, s):
    perm = [int(p) for p in c.rng.permutation(len(s))]
    return c.node("Transpose", [x], perm=perm), [s[p] for p in perm]


def reshape(c, x, s):
    if len(s) >= 3 and c.rng.random() < 0.5:
        # Merge the last two axes, written with 0 (keep) and -1 (infer).
        return c.node("Reshape", [x, c.ints([0] * (len(s) - 2) + [-1])]), s[:-2] + [s[-2] * s[-1]]
    d = s[-1]
    for f in (2, 3):
        if d % f == 0:
            return c.node("Reshape", [x, c.ints(s[:-1] + [f, -1])]), s[:-1] + [f, d // f]
    return c.node("Reshape", [x, c.ints([-1])]), [int(np.prod(s))]


def squeeze(c, x, s):
    k = int(c.rng.integers(0, len(s) + 1))
    y = c.axes_arg("Unsqueeze", [x], [k], 13)
    t = s[:k] + [1] + s[k:]
    if c.rng.random() < 0.5:
        return c.axes_arg("Squeeze", [y], [k - len(t)], 13), s
    return y, t


def concat(c, x, s):
    axis = int(c.rng.integers(-len(s), len(s)))
    y = c.node("Concat", [x, c.node("Relu", [x])], axis=axis)
    t = list(s)
    t[axis] *= 2
    return y, t


def slice_(c, x, s):
    axis = int(c.rng.integers(len(s)))
    d = s[axis]
    if d < 2:
        return x, s
    if c.rng.random() < 0.5:
        start, end, step = int(c.rng.integers(0, d // 2 + 1)), int(d + c.rng.integers(0, 3)), int(c.rng.integers(1, 3))
        n = len(range(start, min(end, d), step))
    else:
        start, end, step = -1, -d - 5, -int(c.rng.integers(1, 3))
        n = len(range(d - 1, -1, step))
    ins = [x, c.ints([start]), c.ints([end]), c.ints([axis]), c.ints([step])]
    t = list(s)
    t[axis] = n
    return c.node("Slice", ins), t


def split(c, x, s):
    axis = int(c.rng.integers(len(s)))
    d = s[axis]
    if d < 2:
        return x, s
    first = int(c.rng.integers(1, d))
    if c.opset >= 13:
        a, b = c.node("Split", [x, c.ints([first, d - first])], 2, axis=axis)
    else:
        a, b = c.node("Split", [x], 2, axis=axis, split=[first, d - first])
    return c.node("Concat", [b, c.node("Neg", [a])], axis=axis), s


def gather(c, x, s):
    axis = int(c.rng.integers(len(s)))
    d = s[axis]
    t = list(s)
    if c.rng.random() < 0.3:
        # Indices from a Range over the axis's length (read with Shape), every `step`-th
        # from a start, forward or backward.
        step = int(pick(c.rng, [1, 2, 3, -1, -2]))
        start = int(c.rng.integers(d)) if step > 0 else d - 1 - int(c.rng.integers(d))
        dim = c.node("Gather", [c.node("Shape", [x]), c.const(np.int64(axis))], axis=0)
        limit = dim if step > 0 else c.const(np.int64(-1))
        idx = c.node("Range", [c.const(np.int64(start)), limit, c.const(np.int64(step))])
        t[axis] = len(range(start, d if step > 0 else -1, step))
        return c.node("Gather", [x, idx], axis=axis), t
    idx = [int(i) for i in c.rng.integers(-d, d, int(c.rng.integers(1, 5)))]
    t[axis] = len(idx)
    return c.node("Gather", [x, c.ints(idx)], axis=axis), t


def spatial(c, x, s):
    """[N, C, L] (the axes moved there first): a convolution, pool or norm."""
    if len(s) != 3:
        x = c.node("Reshape", [x, c.ints([1, 1, -1])])
        s = [1, 1, int(np.prod(s))]
    n, ch, length = s
    op = pick(c.rng, ["Conv", "Conv", "ConvTranspose", "MaxPool", "AveragePool", "BatchNormalization",
                      "InstanceNormalization", "Pad", "Resize", "GlobalAveragePool"])
    r = c.rng
    if op in ("Conv", "ConvTranspose"):
        k, st, dil = int(r.integers(1, 4)), int(r.integers(1, 3)), int(r.integers(1, 3))
        pads = [int(r.integers(0, k)), int(r.integers(0, k))]
        groups = pick(r, [g for g in (1, 2, ch) if ch % g == 0])
        out = pick(r, [groups, 2 * groups, 3 * groups])
        if op == "Conv":
            if length + sum(pads) < dil * (k - 1) + 1:
                return x, s
            w = c.floats([out, ch // groups, k], -0.5, 0.5)
            y = c.node(op, [x, w, c.floats([out])], kernel_shape=[k], strides=[st], dilations=[dil], pads=pads, group=groups)
            return y, [n, out, (length + sum(pads) - dil * (k - 1) - 1) // st + 1]
        w = c.floats([ch, out // groups, k], -0.5, 0.5)
        pads = [min(p, dil * (k - 1)) for p in pads]
        y = c.node(op, [x, w], kernel_shape=[k], strides=[st], dilations=[dil], pads=pads, group=groups)
        return y, [n, out, st * (length - 1) + dil * (k - 1) + 1 - sum(pads)]
    if op in ("MaxPool", "AveragePool"):
        k, st = int(r.integers(1, 4)), int(r.integers(1, 3))
        if length < k:
            return x, s
        pads = [int(r.integers(0, (k + 1) // 2)), int(r.integers(0, (k + 1) // 2))]
        ceil = int(r.integers(2)) if c.opset >= 10 else 0
        attrs = dict(kernel_shape=[k], strides=[st], pads=pads, ceil_mode=ceil)
        if op == "AveragePool":
            attrs["count_include_pad"] = int(r.integers(2))
        num = length + sum(pads) - k
        out = (-(-num // st) if ceil else num // st) + 1
        if ceil and (out - 1) * st >= length + pads[0]:
            out -= 1
        return c.node(op, [x], **attrs), [n, ch, out]
    if op == "BatchNormalization":
        ins = [x, c.floats([ch]), c.floats([ch]), c.floats([ch]), c.floats([ch], 0.5, 2.0)]
        return c.node(op, ins, epsilon=float(r.uniform(1e-5, 1e-2))), s
    if op == "InstanceNormalization":
        return c.node(op, [x, c.floats([ch]), c.floats([ch])], epsilon=float(r.uniform(1e-5, 1e-2))), s
    if op == "Pad":
        mode = pick(r, ["constant", "edge", "reflect"])
        hi = length - 1 if mode == "reflect" else 3
        p = [0, 0, int(r.integers(0, hi + 1)), 0, 0, int(r.integers(0, hi + 1))]
        ins = [x, c.ints(p)] + ([c.const(np.float32(r.uniform(-1, 1)))] if mode == "constant" else [])
        return c.node("Pad", ins, mode=mode), [n, ch, length + p[2] + p[5]]
    if op == "Resize":
        scale = pick(r, [2.0, 3.0, 0.5, 1.5])
        mode = pick(r, ["nearest", "linear"])
        coord = pick(r, ["asymmetric", "half_pixel", "align_corners", "pytorch_half_pixel"])
        out = int(np.floor(length * scale))
        if out < 1:
            return x, s
        roi = c.const(np.zeros(0, np.float32)) if c.opset < 13 else ""
        y = c.node("Resize", [x, roi, c.const(np.array([1, 1, scale], np.float32))], mode=mode,
                   coordinate_transformation_mode=coord)
        return y, [n, ch, out]
    return c.node(op, [x]), [n, ch, 1]


def layer_norm(c, x, s):
    if c.opset < 17:
        return unary(c, x, s)
    axis = int(c.rng.integers(-len(s), len(s)))
    rest = s[axis:]
    return c.node("LayerNormalization", [x, c.floats(rest), c.floats(rest)], axis=axis,
                  epsilon=float(c.rng.uniform(1e-5, 1e-2))), s


def cell(c, x, s):
    """A GRU, LSTM or RNN over [steps, batch, I], its attributes drawn; Y back to rank 3."""
    r = c.rng
    if len(s) != 3:
        x = c.node("Reshape", [x, c.ints([1, 1, -1])]) if len(s) < 3 else c.node("Reshape", [x, c.ints(s[:2] + [-1])])
        s = [1, 1, int(np.prod(s))] if len(s) < 3 else s[:2] + [int(np.prod(s[2:]))]
    kind = pick(r, ["GRU", "LSTM", "RNN"])
    # onnxruntime's CPU kernels refuse `layout` 1 (batch first), so it has no oracle here.
    layout = 0
    steps, batch, inp = (s[1], s[0], s[2]) if layout else s
    hidden = int(r.integers(1, 9))
    direction = pick(r, ["forward", "reverse", "bidirectional"])
    dirs = 2 if direction == "bidirectional" else 1
    gates = {"GRU": 3, "LSTM": 4, "RNN": 1}[kind]
    sets = {"GRU": ["Sigmoid", "Tanh", "Relu", "HardSigmoid", "Softsign"],
            "LSTM": ["Sigmoid", "Tanh", "Relu", "HardSigmoid", "Softsign"],
            "RNN": ["Tanh", "Sigmoid", "Relu", "Softsign"]}[kind]
    n_act = {"GRU": 2, "LSTM": 3, "RNN": 1}[kind]
    attrs = dict(hidden_size=hidden, direction=direction)
    if r.random() < 0.5:
        acts = [pick(r, sets) for _ in range(n_act)]
        attrs["activations"] = acts * dirs
    if r.random() < 0.4:
        attrs["clip"] = float(r.uniform(0.5, 3.0))
    if kind == "GRU" and r.random() < 0.5:
        attrs["linear_before_reset"] = 1
    sc = 1.0 / np.sqrt(hidden)
    w, rr = c.floats([dirs, gates * hidden, inp], -sc, sc), c.floats([dirs, gates * hidden, hidden], -sc, sc)
    state = [batch, dirs, hidden] if layout else [dirs, batch, hidden]
    ins = [x, w, rr, c.floats([dirs, 2 * gates * hidden], -sc, sc) if r.random() < 0.8 else "", "",
           c.floats(state) if r.random() < 0.5 else ""]
    if kind == "LSTM":
        ins.append(c.floats(state) if r.random() < 0.5 else "")
        # Peepholes, P[iof] per direction.
        if r.random() < 0.4:
            ins.append(c.floats([dirs, 3 * hidden]))
    while ins[-1] == "":
        ins.pop()
    outs = c.node(kind, ins, 3 if kind == "LSTM" else 2, **attrs)
    take = int(r.integers(2)) if kind != "LSTM" else int(r.integers(3))
    if take == 0:
        y = outs[0]
        # Y: [steps, dirs, batch, H] (layout 0) or [batch, steps, dirs, H] (layout 1).
        if layout:
            return c.node("Reshape", [y, c.ints([0, 0, -1])]), [batch, steps, dirs * hidden]
        y = c.node("Transpose", [y], perm=[0, 2, 1, 3])
        return c.node("Reshape", [y, c.ints([0, 0, -1])]), [steps, batch, dirs * hidden]
    return outs[take], state


STEPS = [unary, unary, binary, binary, clip, matmul, softmax, reduce, transpose, reshape, squeeze, concat,
         slice_, split, gather, spatial, spatial, layer_norm]


def inferred(c, x, shape):
    """The shape of tensor `x` of the chain so far, as onnxruntime computes it (what each
    step builds on; the steps' own arithmetic only chooses attributes)."""
    g = helper.make_graph(c.nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)], c.inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", c.opset)], ir_version=8)
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"x": np.zeros(shape, np.float32)})
    return [int(d) for d in np.shape(y)]


def graph(seed, shape):
    rng = np.random.default_rng(seed)
    opset = pick(rng, OPSETS)
    c = Chain(rng, opset)
    s, x = list(shape), "x"
    for k in range(int(rng.integers(2, 7))):
        if len(s) < 2:
            x = c.node("Reshape", [x, c.ints([1, -1])])
            s = [1, int(np.prod(s))]
        step = cell if (k == 1 and rng.random() < 0.7) else pick(rng, STEPS)
        x, _ = step(c, x, s)
        s = inferred(c, x, shape)
        if int(np.prod(s)) > 4096 or len(s) > 5 or 0 in s:
            break
    c.nodes.append(helper.make_node("Identity", [x], ["y"], name="out"))
    g = helper.make_graph(c.nodes, f"random_{seed}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], c.inits)
    return g, opset, c.ops, rng


def ir_twin(d, x, y, tolerance):
    """Writes OpenVINO's conversion of `d/model.onnx` beside it when OpenVINO's outputs for
    `x` agree with onnxruntime's `y` within `tolerance` (or 16 ULPs); returns what it did."""
    import openvino as ov

    try:
        m = ov.convert_model(str(d / "model.onnx"))
        got = ov.Core().compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})({"x": x})
        got = np.asarray(next(iter(got.values())), np.float32)
    except Exception as e:  # noqa: BLE001 - a graph OpenVINO refuses has no IR
        return f"no IR: OpenVINO does not convert or run it ({str(e).splitlines()[0][:160]})"
    if got.shape != y.shape:
        return f"no IR: OpenVINO gives shape {list(got.shape)}"
    diff = float(np.max(np.abs(got - y))) if y.size else 0.0
    ulp = 16 * np.spacing(np.abs(y).astype(np.float32))
    if not np.all(np.abs(got - y) <= np.maximum(tolerance, ulp)):
        return f"no IR: OpenVINO's outputs are {diff:.2e} from onnxruntime's"
    # OpenVINO fuses the tanh form of Gelu into its own `Gelu` op, which cellc's IR reader
    # refuses by name ("does not compile Gelu layers yet"; its ONNX reader composes it): such
    # a graph is checked in its ONNX form only.
    unread = sorted({op.get_type_name() for op in m.get_ops()} & {"Gelu"})
    if unread:
        return f"no IR: OpenVINO writes {', '.join(unread)}, which cellc's IR reader does not read yet"
    ov.save_model(m, d / "model.xml", compress_to_fp16=False)
    return f"IR by OpenVINO {ov.__version__} (its outputs {diff:.2e} from onnxruntime's)"


def main():
    args = [a for a in sys.argv[1:] if a != "--ir"]
    with_ir = "--ir" in sys.argv[1:]
    out, count, seed = Path(args[0]), int(args[1]), int(args[2])
    twins = 0
    out.mkdir(parents=True, exist_ok=True)
    made, draw = 0, 0
    while made < count:
        case_seed = seed * 1000 + draw
        draw += 1
        shape = [int(d) for d in np.random.default_rng(case_seed).integers(1, 6, 3)]
        try:
            g, opset, ops, rng = graph(case_seed, shape)
            g.input[0].CopyFrom(helper.make_tensor_value_info("x", TensorProto.FLOAT, shape))
            m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
            x = rng.uniform(-1, 1, shape).astype(np.float32)
            session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
            (y,) = session.run(None, {"x": x})
            m.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", TensorProto.FLOAT, list(np.shape(y))))
            onnx.checker.check_model(m, full_check=True)
        except Exception as e:  # noqa: BLE001 - a graph the oracle refuses is no case
            print(f"graph {case_seed}: not a case (the checker or onnxruntime refuses it: {str(e).splitlines()[0][:200]})")
            if draw > 4 * count + 20:
                sys.exit("onnx_random: most graphs drawn are refused by the checker or onnxruntime")
            continue
        made += 1
        y = np.asarray(y, np.float32)
        d = out / f"onnx_random_{case_seed}"
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir()
        onnx.save(m, d / "model.onnx")
        x.tofile(d / "in_0.f32")
        y.tofile(d / "out_0.f32")
        case = {"inputs": [{"name": "x", "shape": shape, "file": "in_0.f32"}],
                "outputs": [{"name": "y", "shape": list(y.shape), "file": "out_0.f32"}],
                "oracle": f"onnxruntime {ort.__version__} (random graph {case_seed})", "tolerance": 2e-5, "ulps": 16,
                "opset": opset, "ops": ops}
        if with_ir:
            case["ir"] = ir_twin(d, x, y, case["tolerance"])
            twins += case["ir"].startswith("IR")
        (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
        print(f"{d.name}: opset {opset}: {' '.join(ops)} -> {list(y.shape)}" + (f"; {case['ir']}" if with_ir else ""))
    if with_ir:
        print(f"onnx_random: {twins} of {count} graphs also as OpenVINO's IR")


if __name__ == "__main__":
    main()
