#!/usr/bin/env python3
"""Writes the conformance fixtures of cellc: OpenVINO IR models and their expected outputs.

Each case is a directory holding model.xml + model.bin, case.json and raw little-endian
float32 inputs and outputs. Expected outputs come from the OpenVINO CPU runtime at
INFERENCE_PRECISION_HINT=f32. Where OpenVINO's CPU plugin refuses an attribute (the
hardsigmoid activation inside GRUCell/RNNCell), they come from the opset formulas evaluated
in numpy float64 -- a formula this script first checks against OpenVINO on every case
OpenVINO can run.

Usage: python gen_fixtures.py OUT_DIR   (needs: pip install -r requirements.txt)
"""
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as o1
import openvino.opset3 as o3
import openvino.opset4 as o4
import openvino.opset5 as o5
from openvino import op

ACTS = ["relu", "sigmoid", "tanh", "hardsigmoid"]
TOL = 1e-5


# ---------------------------------------------------------------- numpy float64 oracle
OV_ACTS = {"relu", "sigmoid", "tanh", "hardsigmoid"}
# Defaults: OpenVINO's for hardsigmoid, ONNX's for the others.
DEFAULTS = {"hardsigmoid": (0.2, 0.5), "affine": (1.0, 0.0), "leakyrelu": (0.01, None),
            "thresholdedrelu": (1.0, None), "scaledtanh": (1.0, 1.0), "elu": (1.0, None)}


def act(name, x, alpha, beta):
    name = name.lower()
    da, db = DEFAULTS.get(name, (None, None))
    a = da if alpha is None else alpha
    b = db if beta is None else beta
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "sigmoid":
        return 1.0 / (1.0 + np.exp(-x))
    if name == "tanh":
        return np.tanh(x)
    if name == "hardsigmoid":
        return np.clip(a * x + b, 0.0, 1.0)
    if name == "affine":
        return a * x + b
    if name == "leakyrelu":
        return np.where(x >= 0, x, a * x)
    if name == "thresholdedrelu":
        return np.where(x > a, x, 0.0)
    if name == "scaledtanh":
        return a * np.tanh(b * x)
    if name == "elu":
        return np.where(x >= 0, x, a * np.expm1(np.minimum(x, 0.0)))
    if name == "softsign":
        return x / (1.0 + np.abs(x))
    if name == "softplus":
        return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))
    raise ValueError(name)


def make_act(names, alphas, betas, clip):
    def f(i, x):
        if clip:
            x = np.clip(x, -clip, clip)
        a = alphas[i] if i < len(alphas) else None
        b = betas[i] if i < len(betas) else None
        return act(names[i], x, a, b)
    return f


def gru_ref(x, h, W, R, B, hs, acts, alphas, betas, clip, lbr):
    """GRUCell-3 as the opset spec writes it, in float64."""
    x, h, W, R = (np.asarray(a, np.float64) for a in (x, h, W, R))
    B = np.zeros((4 if lbr else 3) * hs) if B is None else np.asarray(B, np.float64)
    A = make_act(acts, alphas, betas, clip)
    Wz, Wr, Wh = W[:hs], W[hs:2 * hs], W[2 * hs:]
    Rz, Rr, Rh = R[:hs], R[hs:2 * hs], R[2 * hs:]
    z = A(0, x @ Wz.T + h @ Rz.T + B[:hs])
    r = A(0, x @ Wr.T + h @ Rr.T + B[hs:2 * hs])
    if lbr:
        n = A(1, x @ Wh.T + B[2 * hs:3 * hs] + r * (h @ Rh.T + B[3 * hs:]))
    else:
        n = A(1, x @ Wh.T + (r * h) @ Rh.T + B[2 * hs:3 * hs])
    return (1 - z) * n + z * h


def lstm_ref(x, h, c, W, R, B, hs, acts, alphas, betas, clip):
    """LSTMCell-4 (gates f, i, c, o) in float64; h(Ct) takes the cell state unclipped."""
    x, h, c, W, R, B = (np.asarray(a, np.float64) for a in (x, h, c, W, R, B))
    A = make_act(acts, alphas, betas, clip)
    g = [x @ W[k * hs:(k + 1) * hs].T + h @ R[k * hs:(k + 1) * hs].T + B[k * hs:(k + 1) * hs] for k in range(4)]
    ct = A(0, g[0]) * c + A(0, g[1]) * A(1, g[2])
    ht = A(0, g[3]) * make_act(acts, alphas, betas, 0.0)(2, ct)
    return ht, ct


def rnn_ref(x, h, W, R, B, hs, acts, alphas, betas, clip):
    x, h, W, R, B = (np.asarray(a, np.float64) for a in (x, h, W, R, B))
    return make_act(acts, alphas, betas, clip)(0, x @ W.T + h @ R.T + B)


# ---------------------------------------------------------------- case building
class Case:
    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.params = []  # (parameter node, value)
        self.oracle_outputs = []  # numpy float64 expectations, in Result order
        self.refuses = False  # OpenVINO's CPU plugin cannot run it (or runs it wrong)
        self.oracle_note = "numpy-float64 (OpenVINO does not run this activation)"
        self.rewrites = []  # (layer name, activations, alphas, betas) OpenVINO cannot express

    def data(self, name, shape, run_shape=None):
        value = self.rng.standard_normal(run_shape or shape).astype(np.float32)
        p = o3.parameter(shape, np.float32, name=name)
        self.params.append((p, value))
        return p, value

    def weights(self, shape, fan_in):
        return (self.rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)


def const(value, kind, name):
    """A weight constant stored as `kind`, decompressed to f32 by a Convert where needed.
    Returns the node and the float64 values OpenVINO will compute with."""
    node, values = const_node(value, kind)
    node.set_friendly_name(name)
    for i, src in enumerate(node.input_values()):
        src.get_node().set_friendly_name(f"{name}_stored{i}")
    return node, values


def const_node(value, kind):
    if kind == "f32":
        return o3.constant(value), value.astype(np.float64)
    if kind == "f64":
        v = value.astype(np.float64) * (1 + 1e-9)
        return o1.convert(o3.constant(v), "f32"), v.astype(np.float32).astype(np.float64)
    if kind == "bf16":
        bits = (value.view(np.uint32) + 0x8000) >> 16  # round half up is fine for test data
        t = ov.Tensor(ov.Type.bf16, ov.Shape(list(value.shape)))
        t.data.view(np.uint16)[...] = bits.astype(np.uint16)
        decoded = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        return o1.convert(op.Constant(t), "f32"), decoded
    if kind == "f16-save":  # compressed by save_model itself
        return o3.constant(value), value.astype(np.float16).astype(np.float64)
    raise ValueError(kind)


def cell(case, kind, x, xv, h, hv, hs, *, acts, alphas=(), betas=(), clip=0.0, lbr=False,
         store="f32", runtime_weights=False, bias=True, name="cell", c=None, cv=None):
    """Adds a GRUCell, RNNCell or LSTMCell (with initial cell state `c`); returns its node and
    its float64 expectation (a pair of states for an LSTM)."""
    inp = xv.shape[-1]
    g = {"gru": 3, "rnn": 1, "lstm": 4}[kind]
    W = case.weights((g * hs, inp), inp + hs)
    R = case.weights((g * hs, hs), inp + hs)
    nb = {"gru": (4 if lbr else 3) * hs, "rnn": hs, "lstm": 4 * hs}[kind]
    B = case.weights((nb,), 4) if bias else np.zeros(nb, np.float32)
    if runtime_weights:
        nodes, vals = [], []
        for nm, v in (("W", W), ("R", R), ("B", B)):
            p = o3.parameter(list(v.shape), np.float32, name=f"{name}_{nm}")
            case.params.append((p, v))
            nodes.append(p)
            vals.append(v.astype(np.float64))
    else:
        pairs = [const(v, store, f"{name}_{nm}") for nm, v in (("W", W), ("R", R), ("B", B))]
        nodes, vals = [p[0] for p in pairs], [p[1] for p in pairs]
    # OpenVINO's API knows only its four activations: others are written into the XML after.
    ov_acts, ov_alphas, ov_betas = list(acts), list(alphas), list(betas)
    if not all(a.lower() in OV_ACTS for a in acts):
        case.rewrites.append((name, list(acts), list(alphas), list(betas)))
        placeholder = {"gru": ["sigmoid", "tanh"], "rnn": ["tanh"], "lstm": ["sigmoid", "tanh", "tanh"]}
        ov_acts, ov_alphas, ov_betas = placeholder[kind], [], []
    if kind == "lstm":
        node = o4.lstm_cell(x, h, c, *nodes, hs, activations=ov_acts, activations_alpha=ov_alphas,
                            activations_beta=ov_betas, clip=clip, name=name)
        want = lstm_ref(xv, hv, cv, *vals, hs, acts, list(alphas), list(betas), clip)
    elif kind == "gru":
        node = o3.gru_cell(x, h, *nodes, hs, activations=ov_acts, activations_alpha=ov_alphas,
                           activations_beta=ov_betas, clip=clip, linear_before_reset=lbr, name=name)
        want = gru_ref(xv, hv, *vals, hs, acts, list(alphas), list(betas), clip, lbr)
    else:
        node = o3.rnn_cell(x, h, *nodes, hs, activations=ov_acts, activations_alpha=ov_alphas,
                           activations_beta=ov_betas, clip=clip, name=name)
        want = rnn_ref(xv, hv, *vals, hs, acts, list(alphas), list(betas), clip)
    if any(a.lower() not in OV_ACTS - {"hardsigmoid"} for a in acts):
        case.refuses = True
    return node, want


def seq_ref(kind, xv, hv, cv, lens, W, R, B, hs, acts, alphas, betas, clip, lbr, direction):
    """A Sequence op in float64 from the cell formulas: per row and direction, steps within
    the row's length (backwards for reverse), zero outputs past it, states kept (zero final
    states for a row of length 0, as OpenVINO computes them)."""
    n_rows, steps, _ = xv.shape
    dirs = 2 if direction == "bidirectional" else 1
    y = np.zeros((n_rows, dirs, steps, hs))
    ho = np.zeros((n_rows, dirs, hs))
    co = np.zeros((n_rows, dirs, hs))
    for n in range(n_rows):
        for d in range(dirs):
            rev = direction == "reverse" or d == 1
            h = hv[n, d][None].astype(np.float64)
            c = cv[n, d][None].astype(np.float64) if cv is not None else None
            order = range(lens[n] - 1, -1, -1) if rev else range(lens[n])
            for t in order:
                x = xv[n, t][None]
                if kind == "lstm":
                    h, c = lstm_ref(x, h, c, W[d], R[d], B[d], hs, acts, alphas, betas, clip)
                elif kind == "gru":
                    h = gru_ref(x, h, W[d], R[d], B[d], hs, acts, alphas, betas, clip, lbr)
                else:
                    h = rnn_ref(x, h, W[d], R[d], B[d], hs, acts, alphas, betas, clip)
                y[n, d, t] = h[0]
            # OpenVINO returns zero final states for a row of length 0.
            if lens[n] > 0:
                ho[n, d] = h[0]
                if c is not None:
                    co[n, d] = c[0]
    return (y, ho, co) if kind == "lstm" else (y, ho)


def seq_case(out_dir, name, kind, hs, inp, steps, *, lens, direction="forward", acts, alphas=(), betas=(),
             clip=0.0, lbr=False, seed=0, dynamic=False, len_type=np.int32, const_lens=False, tol=TOL,
             runtime_weights=False, len_name="seq_len", cell_name=None, **names):
    """One GRUSequence / RNNSequence / LSTMSequence-5 case, batch = len(lens)."""
    if dynamic:
        # OpenVINO 2026.4's CPU plugin ignores sequence_lengths when the batch is dynamic
        # (every row runs all steps), so the expectation is the float64 formula, first checked
        # against OpenVINO on the same data with a static batch.
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            seq_case(Path(tmp), name, kind, hs, inp, steps, lens=lens, direction=direction, acts=acts,
                     alphas=alphas, betas=betas, clip=clip, lbr=lbr, seed=seed, len_type=len_type,
                     const_lens=const_lens, tol=tol, runtime_weights=runtime_weights)
    case = Case(name, seed)
    if dynamic:
        case.refuses = True
        case.oracle_note = ("numpy-float64, checked against OpenVINO with a static batch "
                            "(its dynamic-batch path ignores sequence_lengths)")
    batch, dirs = len(lens), 2 if direction == "bidirectional" else 1
    b = -1 if dynamic else batch
    x, xv = case.data("X", [b, steps, inp], [batch, steps, inp])
    h, hv = case.data("H", [b, dirs, hs], [batch, dirs, hs])
    c, cv = case.data("C", [b, dirs, hs], [batch, dirs, hs]) if kind == "lstm" else (None, None)
    lv = np.array(lens, dtype=len_type)
    if const_lens:
        sl = o3.constant(lv)
        sl.set_friendly_name(f"{name}_lengths")
    else:
        sl = o3.parameter([b], len_type, name=len_name)
        case.params.append((sl, lv))
    g = {"gru": 3, "rnn": 1, "lstm": 4}[kind]
    nb = {"gru": (4 if lbr else 3) * hs, "rnn": hs, "lstm": 4 * hs}[kind]
    W = case.weights((dirs, g * hs, inp), inp + hs)
    R = case.weights((dirs, g * hs, hs), inp + hs)
    B = case.weights((dirs, nb), 4)
    if runtime_weights:
        nodes = []
        for v, nm in zip((W, R, B), "WRB"):
            p = o3.parameter(list(v.shape), np.float32, name=f"{name}_{nm}")
            case.params.append((p, v))
            nodes.append(p)
    else:
        nodes = [o3.constant(v) for v in (W, R, B)]
        for node, nm in zip(nodes, "WRB"):
            node.set_friendly_name(f"{name}_{nm}")
    common = dict(activations=list(acts), activations_alpha=list(alphas), activations_beta=list(betas), clip=clip,
                  name=cell_name or name)
    if kind == "lstm":
        node = o5.lstm_sequence(x, h, c, sl, *nodes, hs, direction, **common)
    elif kind == "gru":
        node = o5.gru_sequence(x, h, sl, *nodes, hs, direction, linear_before_reset=lbr, **common)
    else:
        node = o5.rnn_sequence(x, h, sl, *nodes, hs, direction, **common)
    if any(a.lower() not in OV_ACTS - {"hardsigmoid"} for a in acts):
        case.refuses = True
    want = seq_ref(kind, xv, hv, cv, lens, W.astype(np.float64), R.astype(np.float64), B.astype(np.float64), hs,
                   acts, list(alphas), list(betas), clip, lbr, direction)
    write(case, [node.output(k) for k in range(len(want))], list(want), out_dir, tol=tol, **names)


def write(case, outputs, expectations, out_dir, *, compress=False, drop_bias_of=None, tol=TOL, net_name=None,
          out_names=None):
    """Saves the case. `net_name` and `out_names` (Result tensor names) default to the case's
    name and `<node>_out<port>`."""
    d = out_dir / case.name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    params = [p for p, _ in case.params]
    outputs = [o.output(0) if isinstance(o, ov.Node) else o for o in outputs]
    for k, o in enumerate(outputs):
        node = o.get_node()
        if out_names:
            o.get_tensor().set_names({out_names[k]})
        elif node not in params:  # a Parameter returned as it is keeps its name
            suffix = "" if o.get_index() == 0 else str(o.get_index())
            o.get_tensor().set_names({f"{node.get_friendly_name()}_out{suffix}"})
    model = ov.Model(outputs, params, net_name or case.name)
    ov.save_model(model, str(d / "model.xml"), compress_to_fp16=compress)
    for layer, acts, alphas, betas in case.rewrites:
        rewrite_activations(d / "model.xml", layer, acts, alphas, betas)
    core = ov.Core()
    if case.rewrites:
        read = None  # OpenVINO cannot read these activations back
    else:
        read = core.read_model(str(d / "model.xml"))
    inputs = [v for _, v in case.params]
    if read is not None:
        names = [i.get_any_name() for i in read.inputs]
        assert names == [p.get_friendly_name() for p, _ in case.params], (names, case.name)
    if case.refuses:
        got = [np.asarray(e, np.float32) for e in expectations]
        oracle = case.oracle_note
    else:
        compiled = core.compile_model(read, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"})
        res = compiled(inputs)
        got = [np.asarray(res[o], np.float32) for o in compiled.outputs]
        for g, e in zip(got, expectations):
            err = np.max(np.abs(g.astype(np.float64) - e)) if g.size else 0.0
            assert err < tol, f"{case.name}: the float64 formula differs from OpenVINO by {err}"
        oracle = "openvino-cpu-f32"
    meta = {"inputs": [], "outputs": [], "oracle": oracle, "tolerance": tol}
    for k, ((p, _), v) in enumerate(zip(case.params, inputs)):
        if v.dtype.kind == "i":  # sequence lengths
            fname = f"in_{k}.i32"
            v.astype("<i4").tofile(d / fname)
        else:
            fname = f"in_{k}.f32"
            v.astype("<f4").tofile(d / fname)
        meta["inputs"].append({"name": p.get_friendly_name(), "shape": list(v.shape), "file": fname})
    for k, g in enumerate(got):
        g.astype("<f4").tofile(d / f"out_{k}.f32")
        meta["outputs"].append({"shape": list(g.shape), "file": f"out_{k}.f32"})
    if drop_bias_of:
        # OpenVINO's IR reader needs B, so the expectation comes from the model with a zero B.
        strip_bias(d / "model.xml", drop_bias_of)
        meta["note"] = "B removed after running OpenVINO on the same model with B = 0"
    (d / "case.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{case.name}: {oracle}")


def rewrite_activations(xml_path, layer, acts, alphas, betas):
    """Writes activations OpenVINO's API cannot express into a cell's <data>."""
    import xml.etree.ElementTree as ET
    tree = ET.parse(xml_path)
    cell = next(l for l in tree.getroot().find("layers") if l.get("name") == layer)
    data = cell.find("data")
    data.set("activations", ", ".join(acts))
    data.set("activations_alpha", ", ".join(str(a) for a in alphas))
    data.set("activations_beta", ", ".join(str(b) for b in betas))
    tree.write(xml_path)


def strip_bias(xml_path, cell_name):
    """Removes input B of a cell from the XML (OpenVINO's Python API always writes it)."""
    import xml.etree.ElementTree as ET
    tree = ET.parse(xml_path)
    net = tree.getroot()
    layers = net.find("layers")
    cell = next(l for l in layers if l.get("name") == cell_name)
    port = cell.find("input").findall("port")[4]
    cell.find("input").remove(port)
    edges = net.find("edges")
    edge = next(e for e in edges if e.get("to-layer") == cell.get("id") and e.get("to-port") == port.get("id"))
    edges.remove(edge)
    # Drop the now unused constant chain feeding B.
    src = edge.get("from-layer")
    while src is not None:
        layer = next(l for l in layers if l.get("id") == src)
        layers.remove(layer)
        feeding = [e for e in edges if e.get("to-layer") == src]
        for e in feeding:
            edges.remove(e)
        src = feeding[0].get("from-layer") if feeding else None
    tree.write(xml_path)


def as_ir_v10(out_dir, src, dst):
    """Copies case `src` as IR version 10 (no tensor names), checking that OpenVINO reads the
    copy and computes the same outputs from it."""
    import re
    d = out_dir / dst
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(out_dir / src, d)
    xml = (d / "model.xml").read_text()
    xml = xml.replace('<net name="' + src + '" version="11">', '<net name="' + dst + '" version="10">')
    xml = re.sub(r' (output_)?names="[^"]*"', "", xml)
    (d / "model.xml").write_text(xml)
    meta = json.loads((d / "case.json").read_text())
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(d / "model.xml")), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"})
    inputs = [np.fromfile(d / i["file"], "<f4").reshape(i["shape"]) for i in meta["inputs"]]
    res = compiled(inputs)
    for o, want in zip(compiled.outputs, meta["outputs"]):
        assert np.array_equal(np.asarray(res[o], np.float32).ravel(), np.fromfile(d / want["file"], "<f4"))
    print(f"{dst}: {meta['oracle']} (IR v10 copy of {src})")


# ---------------------------------------------------------------- the cases
def one_cell(out_dir, name, kind, hs, inp, *, batch=1, seed=0, dynamic=False, compress=False, cell_name=None,
             net_name=None, out_names=None, **kw):
    case = Case(name, seed)
    bshape = [-1] if dynamic else [batch]
    x, xv = case.data("X", bshape + [inp], [batch, inp])
    h, hv = case.data("H", bshape + [hs], [batch, hs])
    if kind == "lstm":
        c, cv = case.data("C", bshape + [hs], [batch, hs])
        node, (wh, wc) = cell(case, kind, x, xv, h, hv, hs, name=cell_name or name, c=c, cv=cv, **kw)
        outputs, wants = [node.output(0), node.output(1)], [wh, wc]
    else:
        node, want = cell(case, kind, x, xv, h, hv, hs, name=cell_name or name, **kw)
        outputs, wants = [node], [want]
    write(case, outputs, wants, out_dir, compress=compress,
          drop_bias_of=name if kw.get("bias") is False else None, net_name=net_name, out_names=out_names)


def macro_example(d):
    """examples/macro: a GRU in PyTorch's layout feeding an LSTM in ONNX's, weights as raw
    little-endian f32 files, an input sequence, and OpenVINO's output for the pair (weights
    converted to its layout here) for the example to check itself against."""
    rng = np.random.default_rng(7)
    n_in, h1, h2, steps = 8, 16, 12, 50
    w = lambda *shape: (rng.standard_normal(shape) / np.sqrt(shape[-1] + h1)).astype(np.float32)
    # torch.nn.GRU: weight_ih_l0 [3H, I] and weight_hh_l0 [3H, H] with rows r, z, n; bias_ih, bias_hh.
    g_wih, g_whh, g_bih, g_bhh = w(3 * h1, n_in), w(3 * h1, h1), w(3 * h1), w(3 * h1)
    # ONNX LSTM: W [4H, I], R [4H, H] with rows i, o, f, c; B = [Wb, Rb].
    l_w, l_r, l_b = w(4 * h2, h1), w(4 * h2, h2), w(8 * h2)
    (d / "weights").mkdir(parents=True, exist_ok=True)
    np.concatenate([g_wih.ravel(), g_whh.ravel(), g_bih, g_bhh]).astype("<f4").tofile(d / "weights" / "gru.bin")
    np.concatenate([l_w.ravel(), l_r.ravel(), l_b]).astype("<f4").tofile(d / "weights" / "lstm.bin")
    blocks = lambda m, n, order: np.concatenate([m[k * n:(k + 1) * n] for k in order])
    # OpenVINO: GRU z, r, n with B = [bz, br summed; b_in; b_hn]; LSTM f, i, c, o with B summed.
    gw, gr = blocks(g_wih, h1, [1, 0, 2]), blocks(g_whh, h1, [1, 0, 2])
    gb = np.concatenate([blocks(g_bih + g_bhh, h1, [1, 0]), g_bih[2 * h1:], g_bhh[2 * h1:]])
    lw, lr = blocks(l_w, h2, [2, 0, 3, 1]), blocks(l_r, h2, [2, 0, 3, 1])
    lb = blocks(l_b[:4 * h2] + l_b[4 * h2:], h2, [2, 0, 3, 1])
    x = rng.standard_normal((1, steps, n_in)).astype(np.float32)
    xp = o3.parameter([1, steps, n_in], np.float32, name="X")
    lens = o3.constant(np.array([steps], np.int32))
    zeros = lambda h: o3.constant(np.zeros((1, 1, h), np.float32))
    gru = o5.gru_sequence(xp, zeros(h1), lens, gw[None], gr[None], gb[None], h1, "forward",
                          linear_before_reset=True)
    y1 = o1.squeeze(gru.output(0), o3.constant(np.array([1], np.int64)))
    lstm = o5.lstm_sequence(y1, zeros(h2), zeros(h2), lens, lw[None], lr[None], lb[None], h2, "forward")
    compiled = ov.Core().compile_model(ov.Model([lstm.output(0)], [xp], "pair"), "CPU",
                                       {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"})
    y = np.asarray(compiled([x])[0], np.float32)  # [1, 1, steps, h2]
    (d / "data").mkdir(parents=True, exist_ok=True)
    x.astype("<f4").tofile(d / "data" / "input.f32")
    y.astype("<f4").tofile(d / "data" / "expected.f32")
    print(f"examples/macro: openvino-cpu-f32, {steps} steps")


def c_example(d, model):
    """examples/c: input rows for the README's GRU (examples/gru/model.xml) and OpenVINO's
    hidden state after each, the cell run step by step with its state fed back, for the C
    program to check itself against."""
    rng = np.random.default_rng(11)
    steps, n_in, hs = 60, 16, 128
    core = ov.Core()
    compiled = core.compile_model(core.read_model(model), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"})
    x = rng.standard_normal((steps, n_in)).astype(np.float32)
    h = np.zeros((1, hs), np.float32)
    ys = []
    for t in range(steps):
        h = np.asarray(compiled([x[t:t + 1], h])[0], np.float32)
        ys.append(h[0].copy())
    (d / "data").mkdir(parents=True, exist_ok=True)
    x.astype("<f4").tofile(d / "data" / "input.f32")
    np.stack(ys).astype("<f4").tofile(d / "data" / "expected.f32")
    print(f"examples/c: openvino-cpu-f32, {steps} steps")


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures")
    macro_example(Path(__file__).resolve().parents[2] / "examples" / "macro")
    out.mkdir(parents=True, exist_ok=True)
    st = {"acts": ["sigmoid", "tanh"]}
    one_cell(out, "gru_spec_example", "gru", 128, 16, seed=1, lbr=True, **st)
    # The README's example: the spec example again, named for use.
    example = Path(__file__).resolve().parents[2] / "examples" / "gru"
    example.mkdir(parents=True, exist_ok=True)
    xml = (out / "gru_spec_example" / "model.xml").read_text()
    xml = xml.replace('<net name="gru_spec_example"', '<net name="vad"').replace('name="gru_spec_example"', 'name="gru"')
    (example / "model.xml").write_text(xml)
    shutil.copy(out / "gru_spec_example" / "model.bin", example / "model.bin")
    c_example(example.parent / "c", example / "model.xml")
    one_cell(out, "gru_lbr_off", "gru", 128, 16, seed=2, lbr=False, **st)
    for i, f in enumerate(ACTS):
        for j, g in enumerate(ACTS):
            one_cell(out, f"gru_act_{f}_{g}", "gru", 8, 5, batch=2, seed=10 + 4 * i + j,
                     acts=[f, g], lbr=(i + j) % 2 == 1)
    onnx = [("affine", [0.5], [0.1]), ("leakyrelu", [0.2], []), ("thresholdedrelu", [0.3], []),
            ("scaledtanh", [1.5], [0.7]), ("elu", [0.8], []), ("softsign", [], []), ("softplus", [], [])]
    for k, (a, al, be) in enumerate(onnx):
        # As f (with its alpha and beta) in a GRU, and with ONNX's defaults as the RNN's f.
        one_cell(out, f"gru_act_{a}", "gru", 10, 6, batch=2, seed=70 + k, acts=[a, "tanh"],
                 alphas=al, betas=be, lbr=k % 2 == 0)
        one_cell(out, f"rnn_act_{a}_default", "rnn", 10, 6, batch=2, seed=80 + k, acts=[a])
    one_cell(out, "gru_alpha_beta", "gru", 12, 6, batch=2, seed=30, acts=["hardsigmoid", "hardsigmoid"],
             alphas=[0.3, 0.15], betas=[0.45, 0.55])
    one_cell(out, "gru_alpha_beta_ignored", "gru", 12, 6, batch=2, seed=31, acts=["Sigmoid", "TANH"],
             alphas=[0.3, 0.15], betas=[0.45, 0.55])
    one_cell(out, "gru_clip", "gru", 24, 10, batch=2, seed=32, clip=0.5, **st)
    one_cell(out, "gru_clip_lbr", "gru", 24, 10, batch=2, seed=33, clip=0.75, lbr=True, **st)
    one_cell(out, "gru_f16_weights", "gru", 32, 8, seed=34, compress=True, store="f16-save", **st)
    one_cell(out, "gru_bf16_weights", "gru", 32, 8, seed=35, store="bf16", lbr=True, **st)
    one_cell(out, "gru_f64_weights", "gru", 16, 4, seed=36, store="f64", **st)
    one_cell(out, "gru_runtime_weights", "gru", 20, 6, batch=2, seed=37, runtime_weights=True, lbr=True, **st)
    one_cell(out, "gru_dynamic_batch", "gru", 16, 8, batch=3, seed=38, dynamic=True, **st)
    one_cell(out, "gru_h1_i1", "gru", 1, 1, seed=39, **st)
    one_cell(out, "gru_h1_i1_lbr", "gru", 1, 1, seed=40, lbr=True, **st)
    one_cell(out, "gru_odd_sizes", "gru", 37, 13, batch=2, seed=41, **st)
    one_cell(out, "gru_odd_sizes_lbr", "gru", 37, 13, batch=2, seed=42, lbr=True, **st)
    one_cell(out, "gru_batch4", "gru", 16, 16, batch=4, seed=43, **st)
    # Batches past the 4- and 8-row blocks of the batched step, with rows left over.
    one_cell(out, "gru_batch11", "gru", 37, 13, batch=11, seed=46, **st)
    one_cell(out, "gru_batch11_lbr", "gru", 37, 13, batch=11, seed=47, lbr=True, **st)
    one_cell(out, "rnn_batch11", "rnn", 37, 13, batch=11, seed=48, acts=["tanh"])
    one_cell(out, "lstm_batch11", "lstm", 37, 13, batch=11, seed=49, acts=["sigmoid", "tanh", "tanh"])
    one_cell(out, "gru_tiny_audio", "gru", 16, 1, seed=44, **st)
    as_ir_v10(out, "gru_tiny_audio", "gru_ir_v10")
    one_cell(out, "gru_no_bias", "gru", 10, 4, batch=2, seed=45, bias=False, **st)
    for i, a in enumerate(ACTS):
        one_cell(out, f"rnn_{a}", "rnn", 20, 7, batch=2, seed=50 + i, acts=[a])
    one_cell(out, "rnn_clip", "rnn", 128, 16, seed=55, clip=0.3, acts=["tanh"])
    one_cell(out, "rnn_tiny_clip", "rnn", 2, 3, batch=2, seed=57, clip=0.8, acts=["relu"])
    one_cell(out, "gru_tiny_runtime", "gru", 2, 2, batch=2, seed=58, dynamic=True, runtime_weights=True,
             lbr=True, **st)
    one_cell(out, "rnn_runtime_weights_dynamic", "rnn", 9, 3, batch=2, seed=56, dynamic=True,
             runtime_weights=True, acts=["tanh"])

    # Two stacked cells, both states returned.
    case = Case("stacked_gru_rnn", 60)
    x, xv = case.data("X", [-1, 6], [2, 6])
    h1, h1v = case.data("H1", [-1, 12], [2, 12])
    h2, h2v = case.data("H2", [-1, 9], [2, 9])
    c1, w1 = cell(case, "gru", x, xv, h1, h1v, 12, acts=["sigmoid", "tanh"], lbr=True, name="layer1")
    c2, w2 = cell(case, "rnn", c1, w1, h2, h2v, 9, acts=["relu"], name="layer2")
    write(case, [c2, c1], [w2, w1], out)

    # LSTMCell-4.
    lstm = {"acts": ["sigmoid", "tanh", "tanh"]}
    one_cell(out, "lstm_cell", "lstm", 32, 12, batch=2, seed=90, **lstm)
    one_cell(out, "lstm_clip", "lstm", 24, 8, batch=2, seed=91, clip=0.6, **lstm)
    one_cell(out, "lstm_acts", "lstm", 16, 5, batch=2, seed=92, acts=["tanh", "sigmoid", "relu"])
    one_cell(out, "lstm_acts_clip_hardsigmoid", "lstm", 16, 5, batch=2, seed=93, clip=0.5,
             acts=["hardsigmoid", "tanh", "softsign"], alphas=[0.3], betas=[0.4])
    one_cell(out, "lstm_h1_i1", "lstm", 1, 1, seed=94, **lstm)
    one_cell(out, "lstm_runtime_weights_dynamic", "lstm", 12, 7, batch=3, seed=95, dynamic=True,
             runtime_weights=True, **lstm)
    one_cell(out, "lstm_f16_weights", "lstm", 128, 16, seed=96, compress=True, store="f16-save", **lstm)
    one_cell(out, "lstm_odd_sizes", "lstm", 37, 13, batch=2, seed=97, **lstm)

    # An LSTM's hidden state feeding a GRU, and its cell state returned.
    case = Case("stacked_lstm_gru", 63)
    x, xv = case.data("X", [2, 6], [2, 6])
    h1, h1v = case.data("H1", [2, 10], [2, 10])
    c1, c1v = case.data("C1", [2, 10], [2, 10])
    h2, h2v = case.data("H2", [2, 7], [2, 7])
    l1, (w1h, w1c) = cell(case, "lstm", x, xv, h1, h1v, 10, acts=["sigmoid", "tanh", "tanh"], name="lstm",
                          c=c1, cv=c1v)
    g2, w2 = cell(case, "gru", l1.output(0), w1h, h2, h2v, 7, acts=["sigmoid", "tanh"], name="gru")
    write(case, [g2, l1.output(1)], [w2, w1c], out)

    # Sequence-5 ops: directions, unequal lengths (a zero one too), lbr, clip, activations,
    # int32/int64 and constant lengths, dynamic batch, and sequences of 64 steps.
    seq_case(out, "gru_seq_forward", "gru", 16, 8, 10, lens=[10, 7, 3], seed=100, **st)
    seq_case(out, "gru_seq_reverse", "gru", 16, 8, 10, lens=[10, 6, 0], direction="reverse", seed=101, **st)
    seq_case(out, "gru_seq_bidirectional_lbr", "gru", 20, 6, 9, lens=[9, 4], direction="bidirectional", lbr=True,
             seed=102, **st)
    seq_case(out, "gru_seq_bidirectional", "gru", 12, 5, 8, lens=[5, 8, 1], direction="bidirectional", seed=103,
             clip=0.7, acts=["hardsigmoid", "relu"], alphas=[0.25], betas=[0.45])
    seq_case(out, "gru_seq_int64_lengths", "gru", 8, 4, 6, lens=[6, 2], seed=104, len_type=np.int64, **st)
    seq_case(out, "gru_seq_const_lengths", "gru", 8, 4, 6, lens=[3, 6], seed=105, const_lens=True,
             direction="reverse", **st)
    seq_case(out, "gru_seq_dynamic_batch", "gru", 8, 4, 5, lens=[5, 3, 4, 1], seed=106, dynamic=True, **st)
    seq_case(out, "gru_seq_long", "gru", 32, 16, 64, lens=[64, 50], seed=107, tol=1e-4, **st)
    # Batches past the 8-row blocks of a batched sequence, rows of every length.
    seq_case(out, "gru_seq_batch11", "gru", 20, 6, 9, lens=[9, 4, 0, 9, 1, 7, 9, 3, 8, 2, 5],
             direction="bidirectional", seed=115, **st)
    seq_case(out, "lstm_seq_batch11", "lstm", 20, 6, 9, lens=[9, 9, 9, 9, 9, 9, 9, 9, 6, 0, 9],
             direction="reverse", seed=116, **lstm)
    seq_case(out, "rnn_seq_bidirectional", "rnn", 10, 6, 7, lens=[7, 5], direction="bidirectional", seed=108,
             clip=0.9, acts=["relu"])
    seq_case(out, "rnn_seq_reverse", "rnn", 10, 6, 7, lens=[3, 7], direction="reverse", seed=109, acts=["tanh"])
    seq_case(out, "lstm_seq_forward", "lstm", 16, 8, 10, lens=[10, 4], seed=110, **lstm)
    seq_case(out, "lstm_seq_reverse", "lstm", 16, 8, 10, lens=[2, 10], direction="reverse", seed=111, **lstm)
    seq_case(out, "lstm_seq_bidirectional", "lstm", 12, 6, 8, lens=[8, 5, 0], direction="bidirectional", seed=112,
             clip=0.8, acts=["sigmoid", "tanh", "relu"])
    seq_case(out, "gru_seq_runtime_weights", "gru", 10, 4, 6, lens=[6, 2], direction="bidirectional", lbr=True,
             seed=114, runtime_weights=True, **st)
    seq_case(out, "lstm_seq_runtime_weights", "lstm", 9, 5, 7, lens=[7, 3], direction="reverse", seed=115,
             runtime_weights=True, **lstm)
    seq_case(out, "lstm_seq_long", "lstm", 32, 16, 64, lens=[64, 57], seed=113, tol=1e-4, **lstm)

    # A Parameter returned as it is beside a cell's output, and a Parameter no cell reads.
    case = Case("passthrough_and_cell", 62)
    x, xv = case.data("X", [-1, 3], [2, 3])
    h, hv = case.data("H", [-1, 4], [2, 4])
    extra, ev = case.data("Extra", [-1, 5], [2, 5])
    c1, w1 = cell(case, "gru", x, xv, h, hv, 4, acts=["sigmoid", "tanh"], name="gru")
    write(case, [c1, extra], [w1, ev.astype(np.float64)], out)

    # Cells named as the declaration macros name a cell's model (the struct's name; X, H, C,
    # sequence_lengths; Y, Ho, Co), for the test that macro, command line and builder agree.
    one_cell(out, "decl_vad_gru", "gru", 16, 4, batch=2, seed=120, lbr=True, clip=2.5, acts=["hardsigmoid", "tanh"],
             alphas=[0.3], betas=[0.6], cell_name="VadGru", net_name="VadGru", out_names=["Ho"])
    seq_case(out, "decl_bi_lstm", "lstm", 8, 3, 5, lens=[5, 2], direction="bidirectional", seed=121, clip=0.9,
             len_name="sequence_lengths", cell_name="BiLstm", net_name="BiLstm", out_names=["Y", "Ho", "Co"], **lstm)

    case = Case("stacked_gru_gru", 61)
    x, xv = case.data("X", [1, 16], [1, 16])
    h1, h1v = case.data("H1", [1, 64], [1, 64])
    h2, h2v = case.data("H2", [1, 32], [1, 32])
    c1, w1 = cell(case, "gru", x, xv, h1, h1v, 64, acts=["sigmoid", "tanh"], name="gru_a")
    c2, w2 = cell(case, "gru", c1, w1, h2, h2v, 32, acts=["sigmoid", "tanh"], lbr=True, name="gru_b")
    write(case, [c2], [w2], out)


if __name__ == "__main__":
    main()
