"""The sweep: one layer at a time over a grid of convolution and product shapes (channels
1–512, kernels 1–7, strides, dilations, lengths, batches; the product's constant on either
side, batched, broadcast, transposed, and two run-time operands), each a single-layer ONNX
model compiled by cellc to Rust (`-C target-cpu=native`) and C (`-O3 -march=native` and the
README's `-O2`) and timed beside onnxruntime's C API on the same file, in interleaved rounds,
with the medians. Each shape's rate is printed beside the machine's FMA peak (criterion's
`machine` group of `cargo bench -p cellc-bench`, run first) and beside onnxruntime's; a shape
under the floor (half the peak, or onnxruntime's rate) is marked, with the bound its bytes set
(the least time reading its weights, input and output from the cache level that holds them).
Every output of cellc's Rust is checked against onnxruntime's.

Usage: python bench/sweep.py OUT.json [--rounds N (default 3)] [--only SUBSTRING[|SUBSTRING…]] [--doc]
(with the bench venv's Python: onnx, onnxruntime and openvino from bench/openvino/requirements.txt);
`--doc` writes the table into docs/PERFORMANCE.md between `sweep:begin` and `sweep:end`.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import models
import native_peers
import report

ROOT = models.ROOT
CALLS = 200

# (name, kind, parameters). conv: (ci, co, spatial, kernel, stride, dilation, group);
# matmul: (a shape, b shape, which operand is constant: "b", "a" or "" for none, Gemm transB).
CONV = [
    # First layers of spectrogram models: few input channels, long rows.
    ("conv2d 1→8 3×3 128×128", (1, 8, (128, 128), (3, 3), 1, 1, 1)),
    ("conv2d 1→32 3×3 128×128", (1, 32, (128, 128), (3, 3), 1, 1, 1)),
    ("conv2d 3→16 3×3 64×64", (3, 16, (64, 64), (3, 3), 1, 1, 1)),
    ("conv2d 3→64 7×7 s2 128×128", (3, 64, (128, 128), (7, 7), 2, 1, 1)),
    # Channels at 3×3.
    ("conv2d 8→8 3×3 64×64", (8, 8, (64, 64), (3, 3), 1, 1, 1)),
    ("conv2d 16→16 3×3 64×64", (16, 16, (64, 64), (3, 3), 1, 1, 1)),
    ("conv2d 32→32 3×3 32×64", (32, 32, (32, 64), (3, 3), 1, 1, 1)),
    ("conv2d 64→64 3×3 32×32", (64, 64, (32, 32), (3, 3), 1, 1, 1)),
    ("conv2d 128→128 3×3 16×16", (128, 128, (16, 16), (3, 3), 1, 1, 1)),
    ("conv2d 512→512 3×3 4×4", (512, 512, (4, 4), (3, 3), 1, 1, 1)),
    # Kernels, rectangular kernels, strides, dilations.
    ("conv2d 32→32 1×1 32×32", (32, 32, (32, 32), (1, 1), 1, 1, 1)),
    ("conv2d 512→512 1×1 16×16", (512, 512, (16, 16), (1, 1), 1, 1, 1)),
    ("conv2d 32→32 5×5 32×32", (32, 32, (32, 32), (5, 5), 1, 1, 1)),
    ("conv2d 32→32 7×1 64×32", (32, 32, (64, 32), (7, 1), 1, 1, 1)),
    ("conv2d 32→32 1×7 32×64", (32, 32, (32, 64), (1, 7), 1, 1, 1)),
    ("conv2d 32→32 3×3 s2 64×64", (32, 32, (64, 64), (3, 3), 2, 1, 1)),
    ("conv2d 32→32 3×3 d2 32×64", (32, 32, (32, 64), (3, 3), 1, 2, 1)),
    ("conv2d 12→12 7×3 d(17,1) 128×62", (12, 12, (128, 62), (7, 3), 1, (17, 1), 1)),
    # Grouped and depthwise layers (mobile-style blocks): wide rows, narrow ones, strided.
    ("conv2d dw 64 3×3 32×32", (64, 64, (32, 32), (3, 3), 1, 1, 64)),
    ("conv2d dw 128 3×3 12×12", (128, 128, (12, 12), (3, 3), 1, 1, 128)),
    ("conv2d dw 256 3×3 6×6", (256, 256, (6, 6), (3, 3), 1, 1, 256)),
    ("conv2d dw 32 5×5 s2 64×64", (32, 32, (64, 64), (5, 5), 2, 1, 32)),
    ("conv2d g8 64→64 3×3 32×32", (64, 64, (32, 32), (3, 3), 1, 1, 8)),
    # One-dimensional layers over long inputs.
    ("conv1d 1→16 k9 s2 1600", (1, 16, (1600,), (9,), 2, 1, 1)),
    ("conv1d 16→16 k5 400", (16, 16, (400,), (5,), 1, 1, 1)),
    ("conv1d 40→128 k3 100", (40, 128, (100,), (3,), 1, 1, 1)),
    ("conv1d 64→64 k3 400", (64, 64, (400,), (3,), 1, 1, 1)),
    ("conv1d 64→64 k5 d2 400", (64, 64, (400,), (5,), 1, 2, 1)),
    ("conv1d 64→64 k4 s2 400", (64, 64, (400,), (4,), 2, 1, 1)),
    ("conv1d 128→128 k1 200", (128, 128, (200,), (1,), 1, 1, 1)),
    ("conv1d 256→256 k3 100", (256, 256, (100,), (3,), 1, 1, 1)),
    ("conv1d 512→512 k3 50", (512, 512, (50,), (3,), 1, 1, 1)),
    ("conv1d dw 128 k7 400", (128, 128, (400,), (7,), 1, 1, 128)),
]
MATMUL = [
    # A constant on the right (a dense layer), rows of one to many.
    ("matmul 1×64 · 64×64", ((1, 64), (64, 64), "b", False)),
    ("matmul 1×256 · 256×256", ((1, 256), (256, 256), "b", False)),
    ("matmul 1×512 · 512×512", ((1, 512), (512, 512), "b", False)),
    ("matmul 1×1024 · 1024×1024", ((1, 1024), (1024, 1024), "b", False)),
    ("matmul 16×256 · 256×256", ((16, 256), (256, 256), "b", False)),
    ("matmul 64×512 · 512×512", ((64, 512), (512, 512), "b", False)),
    ("matmul 20×161 · 161×400", ((20, 161), (161, 400), "b", False)),
    ("gemm 16×256 · (256×256)ᵀ", ((16, 256), (256, 256), "b", True)),
    ("matmul 8×16×64 · 64×64", ((8, 16, 64), (64, 64), "b", False)),
    # A constant on the left (an STFT's bases, a mixing matrix).
    ("matmul 128×512 · 512×62", ((128, 512), (512, 62), "a", False)),
    ("matmul 64×256 · 1×256×128", ((64, 256), (1, 256, 128), "a", False)),
    ("matmul 257×64 · 64×100", ((257, 64), (64, 100), "a", False)),
    # Two run-time operands: attention-like, batched and broadcast.
    ("matmul 8×32×64 · 8×64×32 (run time)", ((8, 32, 64), (8, 64, 32), "", False)),
    ("matmul 4×100×64 · 4×64×100 (run time)", ((4, 100, 64), (4, 64, 100), "", False)),
    ("matmul 8×16×32 · 32×16 (run time)", ((8, 16, 32), (32, 16), "", False)),
    ("matmul 1×256 · 256×256 (run time)", ((1, 256), (256, 256), "", False)),
]


def conv_model(p, rng):
    """A single Conv: its ONNX model, its input, its FLOPs and bytes."""
    from onnx import TensorProto, helper, numpy_helper

    ci, co, spatial, kernel, stride, dil, group = p
    dims = len(spatial)
    dil = dil if isinstance(dil, tuple) else (dil,) * dims
    stride = (stride,) * dims
    pads = [d * (k - 1) // 2 for k, d in zip(kernel, dil)]
    w = (rng.standard_normal((co, ci // group, *kernel)) / np.sqrt(ci // group * np.prod(kernel))).astype(np.float32)
    b = rng.standard_normal(co).astype(np.float32) * 0.1
    x = rng.standard_normal((1, ci, *spatial)).astype(np.float32)
    out = [(s + 2 * pd - d * (k - 1) - 1) // st + 1 for s, pd, d, k, st in zip(spatial, pads, dil, kernel, stride)]
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=list(kernel), strides=list(stride),
                            dilations=list(dil), pads=pads + pads, group=group)
    graph = helper.make_graph([node], "layer", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, co, *out])],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    flops = 2 * co * (ci // group) * int(np.prod(kernel)) * int(np.prod(out))
    nbytes = 4 * (w.size + b.size + x.size + co * int(np.prod(out)))
    return graph, [("x", x)], flops, nbytes


def matmul_model(p, rng):
    """A single MatMul (or Gemm): its ONNX model, its run-time inputs, its FLOPs and bytes."""
    from onnx import TensorProto, helper, numpy_helper

    a_shape, b_shape, constant, trans_b = p
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = (rng.standard_normal(b_shape) / np.sqrt(b_shape[-2])).astype(np.float32)
    if trans_b:
        b = np.ascontiguousarray(np.swapaxes(b, -1, -2))
        node = helper.make_node("Gemm", ["a", "b"], ["y"], transB=1)
        y = a @ b.T
    else:
        node = helper.make_node("MatMul", ["a", "b"], ["y"])
        y = a @ b
    inits = [numpy_helper.from_array(v, n) for n, v in (("a", a), ("b", b)) if n == constant]
    ins = [(n, v) for n, v in (("a", a), ("b", b)) if n != constant]
    graph = helper.make_graph([node], "layer", [helper.make_tensor_value_info(n, TensorProto.FLOAT, v.shape) for n, v in ins],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)], inits)
    flops = 2 * int(np.prod(y.shape)) * a_shape[-1]
    return graph, ins, flops, 4 * (a.size + b.size + y.size)


def build(index, name, kind, p, work, cellc, rng):
    """Writes layer `index`'s model and inputs and compiles its two C programs; returns what
    timing it needs."""
    import onnx
    from onnx import helper

    d = work / f"l{index}"
    d.mkdir()
    graph, ins, flops, nbytes = (conv_model if kind == "conv" else matmul_model)(p, rng)
    path = d / "model.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    files = []
    for n, v in ins:
        f = d / f"{n}.f32"
        v.tofile(f)
        files.append((n, v.shape, f))
    (d / "c").mkdir()
    subprocess.run([cellc, str(path), "--lang", "c", "--name", "net", "-o", str(d / "c" / "net.c")], check=True)
    (d / "c" / "main.c").write_text(models.C_MAIN)
    c_native = models.c_program(d, "c-native", ["-O3", "-march=native"])
    c_o2 = models.c_program(d, "c-o2", ["-O2"])
    return {"name": name, "kind": kind, "dir": d, "onnx": path, "ins": files, "flops": flops, "bytes": nbytes,
            "c_native": c_native, "c_o2": c_o2}


RUST_MAIN = """use cellc_runtime::Model;

fn read(path: &str) -> Vec<f32> {
    let b = std::fs::read(path).expect("input");
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn time<M: Model + Default>(calls: usize, out: &str, out_len: usize, paths: &[String]) -> f64 {
    let inputs: Vec<Vec<f32>> = paths.iter().map(|p| read(p)).collect();
    let ins: Vec<&[f32]> = inputs.iter().map(Vec::as_slice).collect();
    let mut y = vec![0.0f32; out_len];
    let mut model = Box::<M>::default();
    for _ in 0..calls / 4 {
        model.run(&ins, &mut [y.as_mut_slice()]).expect("run");
    }
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = std::time::Instant::now();
        model.run(std::hint::black_box(&ins), &mut [y.as_mut_slice()]).expect("run");
        times.push(t.elapsed().as_nanos() as f64);
    }
    let bytes: Vec<u8> = y.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(out, bytes).expect("output");
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which: usize = args[0].parse().expect("layer");
    let calls: usize = args[1].parse().expect("calls");
    let out_len: usize = args[3].parse().expect("length");
    let ns = match which {
MATCH        _ => panic!("no such layer"),
    };
    println!("{ns}");
}
"""


def rust_program(layers, work, cellc):
    """One Rust program holding every layer as a module, built once; returns its path."""
    crate = work / "rust"
    (crate / "src").mkdir(parents=True)
    mods, arms = [], []
    for k, layer in enumerate(layers):
        subprocess.run([cellc, str(layer["onnx"]), "--name", f"Layer{k}", "-o", str(crate / "src" / f"layer{k}.rs")],
                       check=True)
        mods.append(f'#[allow(dead_code, clippy::all)]\nmod layer{k} {{ include!("layer{k}.rs"); }}\n')
        arms.append(f"        {k} => time::<layer{k}::Layer{k}>(calls, &args[2], out_len, &args[4..]),\n")
    (crate / "src" / "main.rs").write_text("".join(mods) + RUST_MAIN.replace("MATCH", "".join(arms)))
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "sweep"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f'[dependencies]\ncellc-runtime = {{ path = "{ROOT / "runtime"}" }}\n\n'
        '[profile.release]\ncodegen-units = 16\n\n[workspace]\n')
    env = dict(os.environ, RUSTFLAGS="-C target-cpu=native", CARGO_TARGET_DIR=str(ROOT / "target" / "bench-sweep"))
    subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path", str(crate / "Cargo.toml")],
                   check=True, env=env)
    return ROOT / "target" / "bench-sweep" / "release" / "sweep"


def commands(layer, k, rust, ort):
    """The command line of each program timing the layer, as a function of the calls."""
    ins = [str(f) for _, _, f in layer["ins"]]
    out_len = layer["out_len"]
    d = layer["dir"]
    ort_args = [a for n, s, f in layer["ins"] for a in ("in", n, ",".join(map(str, s)), str(f))]
    ort_args += ["out", "y", ",".join(map(str, layer["out_shape"])), str(d / "ort-y.f32")]
    return {
        "rust": lambda c: [str(rust), str(k), str(c), str(d / "rust-y.f32"), str(out_len), *ins],
        "c_native": lambda c: [str(layer["c_native"]), str(c), str(out_len), *ins],
        "c_o2": lambda c: [str(layer["c_o2"]), str(c), str(out_len), *ins],
        "ort": lambda c: [str(ort), str(layer["onnx"]), str(c), *ort_args],
    }


def check(layer):
    """Fails when cellc's Rust and onnxruntime disagree past rounding."""
    d = layer["dir"]
    got, want = np.fromfile(d / "rust-y.f32", np.float32), np.fromfile(d / "ort-y.f32", np.float32)
    scale = max(1.0, float(np.max(np.abs(want))))
    if got.size != want.size or not float(np.max(np.abs(got - want))) <= 1e-4 * scale:
        raise SystemExit(f"{layer['name']}: cellc's outputs differ from onnxruntime's")


def render(rows, peak, meta):
    head = ("| layer | MFLOP | cellc Rust µs (% peak) | C native µs (% peak) | C `-O2` µs | onnxruntime µs (% peak) "
            "| Rust / onnxruntime | bytes' floor | under the floor |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
    lines = []
    for r in rows:
        pct = {k: 100 * r["flops"] / r[k] / peak for k in ("rust", "c_native", "ort")}
        ratio = r["rust"] / r["ort"]
        floor = f"{r['floor_ns'] / 1000:.1f} µs ({r['floor_level']})" if r.get("floor_ns") else "—"
        marks = []
        for k, what in (("rust", "Rust"), ("c_native", "C")):
            # Excused under half the peak: a call within twice the time its bytes take, or
            # one too short to fill a vector's worth of work (under a microsecond).
            bytes_bound = r.get("floor_ns") and r[k] <= 2 * r["floor_ns"]
            if pct[k] < 50:
                why = " (bound by its bytes)" if bytes_bound else " (a call under 1 µs)" if r[k] < 1000 else ""
                marks.append(f"{what} < ½ peak{why}")
            if r[k] > r["ort"]:
                marks.append(f"{what} slower than onnxruntime")
        lines.append(f"| {r['name']} | {r['flops'] / 1e6:.2f} | {r['rust'] / 1000:.1f} ({pct['rust']:.0f}) "
                     f"| {r['c_native'] / 1000:.1f} ({pct['c_native']:.0f}) | {r['c_o2'] / 1000:.1f} "
                     f"| {r['ort'] / 1000:.1f} ({pct['ort']:.0f}) | {ratio:.2f} | {floor} | {'; '.join(marks)} |")
    return meta + "\n\n" + head + "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--doc", action="store_true")
    args = ap.parse_args()
    cellc = os.environ.get("CELLC") or str(ROOT / "target" / "release" / "cellc")
    if "CELLC" not in os.environ:
        subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "cellc"], check=True, cwd=ROOT)
    subprocess.run(["cargo", "bench", "-p", "cellc-bench", "--no-default-features", "--bench", "machine", "--", "machine/",
                    "--warm-up-time", "1", "--measurement-time", "2"], check=True, cwd=ROOT, capture_output=True)
    fl = report.floors(ROOT / "target" / "criterion")
    peak = max(fl["fma_gflops"].values())
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        chosen = [(n, kind, p) for kind, grid in (("conv", CONV), ("matmul", MATMUL)) for n, p in grid
              if any(o in n for o in args.only.split("|"))]
        layers = [build(k, n, kind, p, work, cellc, rng) for k, (n, kind, p) in enumerate(chosen)]
        import onnxruntime as ort

        for layer in layers:
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = 1
            sess = ort.InferenceSession(str(layer["onnx"]), opts, providers=["CPUExecutionProvider"])
            (y,) = sess.run(None, {n: np.fromfile(f, np.float32).reshape(s) for n, s, f in layer["ins"]})
            layer["out_shape"], layer["out_len"] = list(y.shape), int(y.size)
        rust = rust_program(layers, work, cellc)
        programs, versions = native_peers.build(work / "peers")
        cmds = [commands(layer, k, rust, programs["onnxruntime C"]) for k, layer in enumerate(layers)]
        calls = [{p: models.calls_for(c) for p, c in cm.items()} for cm in cmds]
        times = [{p: [] for p in cm} for cm in cmds]
        for rnd in range(args.rounds):
            for k, cm in enumerate(cmds):
                for p, c in cm.items():
                    times[k][p].append(models.run_timed(c, calls[k][p]))
            print(f"round {rnd + 1} of {args.rounds}", file=sys.stderr)
        rows = []
        for layer, t in zip(layers, times):
            check(layer)
            floor_ns, level = report.floor_ns(layer["bytes"], fl)
            rows.append({"name": layer["name"], "flops": layer["flops"], "bytes": layer["bytes"],
                         "floor_ns": floor_ns, "floor_level": level, **{p: statistics.median(v) for p, v in t.items()}})
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
               platform.machine())
    meta = (f"Measured {datetime.date.today()} on {cpu} with `python bench/sweep.py` ({args.rounds} "
            f"interleaved rounds, the median call of each (up to {CALLS} calls), then the median of the rounds; one "
            f"thread, f32, batch 1; onnxruntime {versions['onnxruntime']} through its C API). FMA peak {peak:.0f} "
            f"GFLOP/s (criterion's `machine` group, same run). Rust at `-C target-cpu=native`; C at `-O3 "
            f"-march=native` and at `-O2`. The bytes' floor: the layer's weights, input and output read once at the "
            f"rate of the cache level that holds them.")
    text = render(rows, peak, meta)
    print(text)
    Path(args.out).write_text(json.dumps({"peak_gflops": peak, "rows": rows, "versions": versions}, indent=1))
    if args.doc:
        models.write_section(ROOT / "docs" / "PERFORMANCE.md", "sweep", text)


if __name__ == "__main__":
    main()
