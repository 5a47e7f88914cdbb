"""Times OpenVINO's CPU plugin on the benchmark configurations of cellc (see
bench/README.md): f32 (INFERENCE_PRECISION_HINT=f32), one thread, one stream, latency hint.

For each per-step configuration (A, A with linear_before_reset, B, E, F) two paths:
`sequence`, the op's Sequence form over 1000 steps in one inference (ns per step is the
inference's time over 1000), and `per_call`, the Cell op run once per inference with its
state fed back, as a program stepping a cell in a real-time loop would (Python's call
overhead included; it is part of that path). Configuration C is GRUSequence, H=I=256,
1000 steps, batch 1; D is GRUSequence, H=I=512, 100 steps, batch 64, in GFLOP/s
(2·N·G·H·(I+H) per step, G gates).

Weights are random of the same shapes and scale as the Rust benchmarks' (the time does
not depend on their values). Writes JSON: for each (config, path) the median and the 10th
and 90th percentiles of the time per step over repeated timed runs.
"""
import json
import platform
import sys
import time

import numpy as np
import openvino as ov
import openvino.opset3 as o3
import openvino.opset4 as o4
import openvino.opset5 as o5

CONFIG = {
    "INFERENCE_PRECISION_HINT": "f32",
    "INFERENCE_NUM_THREADS": "1",
    "NUM_STREAMS": "1",
    "PERFORMANCE_HINT": "LATENCY",
}

# id, kind, hidden, input, linear_before_reset
STEP_CONFIGS = [
    ("A", "gru", 128, 16, False),
    ("A_lbr", "gru", 128, 16, True),
    ("B", "gru", 16, 1, False),
    ("E", "rnn", 128, 16, False),
    ("F", "lstm", 128, 16, False),
]
GATES = {"gru": 3, "rnn": 1, "lstm": 4}


def weights(rng, kind, h, i, lbr, dirs=None):
    g = GATES[kind] * h
    scale = 2.0 / np.sqrt(h + i)
    blocks = 4 if (kind == "gru" and lbr) else GATES[kind]
    lead = () if dirs is None else (dirs,)
    w = rng.uniform(-scale, scale, lead + (g, i)).astype(np.float32)
    r = rng.uniform(-scale, scale, lead + (g, h)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, lead + (blocks * h,)).astype(np.float32)
    return w, r, b


def sequence_model(kind, h, i, lbr, steps, batch, rng):
    x = o3.parameter([batch, steps, i], np.float32, name="X")
    h0 = o3.parameter([batch, 1, h], np.float32, name="H")
    params = [x, h0]
    lens = o3.constant(np.full([batch], steps, np.int32))
    w, r, b = (o3.constant(a) for a in weights(rng, kind, h, i, lbr, dirs=1))
    if kind == "gru":
        node = o5.gru_sequence(x, h0, lens, w, r, b, h, "forward", linear_before_reset=lbr)
    elif kind == "rnn":
        node = o5.rnn_sequence(x, h0, lens, w, r, b, h, "forward")
    else:
        c0 = o3.parameter([batch, 1, h], np.float32, name="C")
        params.append(c0)
        node = o5.lstm_sequence(x, h0, c0, lens, w, r, b, h, "forward")
    return ov.Model([node.output(0)], params, f"{kind}_sequence")


def cell_model(kind, h, i, lbr, rng):
    x = o3.parameter([1, i], np.float32, name="X")
    h0 = o3.parameter([1, h], np.float32, name="H")
    params = [x, h0]
    w, r, b = (o3.constant(a) for a in weights(rng, kind, h, i, lbr))
    if kind == "gru":
        node = o3.gru_cell(x, h0, w, r, b, h, linear_before_reset=lbr)
        outs = [node.output(0)]
    elif kind == "rnn":
        node = o3.rnn_cell(x, h0, w, r, b, h, ["tanh"], [], [])
        outs = [node.output(0)]
    else:
        c0 = o3.parameter([1, h], np.float32, name="C")
        params.append(c0)
        node = o4.lstm_cell(x, h0, c0, w, r, b, h)
        outs = [node.output(0), node.output(1)]
    return ov.Model(outs, params, f"{kind}_cell")


def timed(run, reps, per):
    """Median, 10th and 90th percentile of `run`'s time over `reps` runs, in ns per `per`."""
    run()
    run()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        run()
        samples.append((time.perf_counter_ns() - t0) / per)
    q = np.percentile(samples, [50, 10, 90])
    return {"median_ns": float(q[0]), "p10_ns": float(q[1]), "p90_ns": float(q[2]), "runs": reps}


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else "openvino.json"
    core = ov.Core()
    rng = np.random.default_rng(7)
    results = []

    def compile_model(model):
        return core.compile_model(model, "CPU", CONFIG)

    steps = 1000
    for cid, kind, h, i, lbr in STEP_CONFIGS:
        seq = compile_model(sequence_model(kind, h, i, lbr, steps, 1, rng)).create_infer_request()
        feeds = {"X": rng.uniform(-1, 1, [1, steps, i]).astype(np.float32), "H": np.zeros([1, 1, h], np.float32)}
        if kind == "lstm":
            feeds["C"] = np.zeros([1, 1, h], np.float32)
        for name, value in feeds.items():
            seq.set_tensor(name, ov.Tensor(value))
        results.append({"config": cid, "path": "sequence", **timed(seq.infer, 30, steps)})

        call = compile_model(cell_model(kind, h, i, lbr, rng)).create_infer_request()
        x = ov.Tensor(rng.uniform(-1, 1, [1, i]).astype(np.float32))
        state = {"H": np.zeros([1, h], np.float32)}
        if kind == "lstm":
            state["C"] = np.zeros([1, h], np.float32)
        call.set_tensor("X", x)
        for name, value in state.items():
            call.set_tensor(name, ov.Tensor(value))

        def step_loop(n=1000, call=call, kind=kind):
            for _ in range(n):
                call.infer()
                # The state is fed back: the next step reads this step's outputs.
                call.set_tensor("H", call.get_output_tensor(0))
                if kind == "lstm":
                    call.set_tensor("C", call.get_output_tensor(1))

        results.append({"config": cid, "path": "per_call", **timed(step_loop, 15, 1000)})
        print(cid, results[-2]["median_ns"], results[-1]["median_ns"], file=sys.stderr)

    # C: a long sequence.
    h, i, steps = 256, 256, 1000
    seq = compile_model(sequence_model("gru", h, i, False, steps, 1, rng)).create_infer_request()
    seq.set_tensor("X", ov.Tensor(rng.uniform(-1, 1, [1, steps, i]).astype(np.float32)))
    seq.set_tensor("H", ov.Tensor(np.zeros([1, 1, h], np.float32)))
    results.append({"config": "C", "path": "sequence", **timed(seq.infer, 15, steps)})

    # D: throughput.
    h, i, steps, n = 512, 512, 100, 64
    seq = compile_model(sequence_model("gru", h, i, False, steps, n, rng)).create_infer_request()
    seq.set_tensor("X", ov.Tensor(rng.uniform(-1, 1, [n, steps, i]).astype(np.float32)))
    seq.set_tensor("H", ov.Tensor(np.zeros([n, 1, h], np.float32)))
    r = timed(seq.infer, 10, steps)
    flops_per_step = 2 * n * 3 * h * (i + h)
    r["gflops"] = flops_per_step / r["median_ns"]
    results.append({"config": "D", "path": "sequence", **r})

    doc = {
        "tool": "openvino",
        "version": ov.__version__,
        "settings": CONFIG,
        "machine": platform.processor() or platform.machine(),
        "results": results,
    }
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
