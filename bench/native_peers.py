"""onnxruntime and OpenVINO called as a C or C++ program calls them (bench/peers/ort_main.c
through onnxruntime's C API, bench/peers/ov_main.cpp through OpenVINO's C++ API), built
against the shared libraries and headers the pinned wheels ship (bench/openvino/requirements.txt,
installed in the Python that runs this). Each program binds its inputs and outputs once,
repeats the call, prints the median call in ns and writes the last call's outputs, which are
checked against the case's expected outputs. Used by bench/models.py."""
import subprocess
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent / "peers"


def build(work):
    """Builds both timing programs in `work`; returns {peer: program} and {peer: version}."""
    import onnxruntime
    import openvino

    ort_dir = Path(onnxruntime.__file__).parent / "capi"
    (ort_lib,) = ort_dir.glob("libonnxruntime.so.*")
    ov_dir = Path(openvino.__file__).parent
    (ov_lib,) = (ov_dir / "libs").glob("libopenvino.so.*")
    ort, ov = work / "ort-peer", work / "ov-peer"
    # The library's file name carries its whole version, its soname only the major one: the
    # program finds it through a link of that name.
    libs = work / "ort-lib"
    libs.mkdir(parents=True, exist_ok=True)
    for link in ("libonnxruntime.so", "libonnxruntime.so.1"):
        (libs / link).unlink(missing_ok=True)
        (libs / link).symlink_to(ort_lib)
    subprocess.run(["cc", "-std=c99", "-O2", "-I", str(HERE), "-o", str(ort), str(HERE / "ort_main.c"),
                    "-L", str(libs), "-lonnxruntime", f"-Wl,-rpath,{libs}"], check=True)
    subprocess.run(["c++", "-std=c++17", "-O2", "-I", str(HERE), "-I", str(ov_dir / "include"), "-o", str(ov),
                    str(HERE / "ov_main.cpp"), "-L", str(ov_lib.parent), f"-l:{ov_lib.name}",
                    f"-Wl,-rpath,{ov_lib.parent}"], check=True)
    return ({"onnxruntime C": ort, "OpenVINO C++": ov},
            {"onnxruntime": onnxruntime.__version__, "openvino": openvino.__version__})


def _tensor_args(kind, name, shape, path, f64=False):
    return [kind, name, ("f64:" if f64 else "") + ",".join(str(int(d)) for d in shape), str(path)]


def commands(case_dir, case, onnx_path, xml, work, programs):
    """For each peer: (a function of the number of calls giving the command line, the list of
    (written output file, expected values or None) to check after a run)."""
    import onnxruntime as ort
    import openvino as ov

    work.mkdir(parents=True, exist_ok=True)
    feeds = {}
    for i in case["inputs"]:
        n = int(np.prod(i["shape"]))
        feeds[i["name"]] = np.fromfile(case_dir / i["file"], np.float32, count=n).reshape(i["shape"])
    expected = {}
    for o in case.get("outputs", []):
        path = case_dir / o["file"]
        n = int(np.prod(o["shape"]))
        if path.is_file() and path.stat().st_size == 4 * n and not case.get("frames"):
            expected[o["name"]] = np.fromfile(path, np.float32)
    ordered = [expected.get(o["name"]) for o in case.get("outputs", [])]
    out = {}

    # Each tensor: (name, shape, whether its elements are f64).
    def args(tag, names_shapes_in, names_shapes_out):
        a, checks = [], []
        for k, (name, shape, f64) in enumerate(names_shapes_in):
            path = work / f"{tag}-in{k}.f32"
            feeds[name].astype(np.float32).tofile(path)
            a += _tensor_args("in", name, shape, path, f64)
        for k, (name, shape, f64) in enumerate(names_shapes_out):
            path = work / f"{tag}-out{k}.f32"
            a += _tensor_args("out", name, shape, path, f64)
            want = expected.get(name, ordered[k] if k < len(ordered) else None)
            checks.append((path, want))
        return a, checks

    if onnx_path is not None:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        sess = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
        ins = [(i.name, feeds[i.name].shape, i.type == "tensor(double)") for i in sess.get_inputs()]
        results = sess.run(None, {name: feeds[name].astype(np.float64 if f64 else np.float32) for name, _, f64 in ins})
        outs = [(o.name, r.shape, o.type == "tensor(double)") for o, r in zip(sess.get_outputs(), results)]
        a, checks = args("ort", ins, outs)
        out["onnxruntime C"] = (lambda calls, a=a, p=programs["onnxruntime C"]: [str(p), str(onnx_path), str(calls), *a],
                                checks)
    model = ov.Core().read_model(xml)
    ins = [(p.get_any_name(), feeds[p.get_any_name()].shape, p.get_element_type() == ov.Type.f64) for p in model.inputs]
    model.reshape({name: list(shape) for name, shape, _ in ins})
    outs = [(o.get_any_name(), list(o.get_shape()), o.get_element_type() == ov.Type.f64) for o in model.outputs]
    a, checks = args("ov", ins, outs)
    out["OpenVINO C++"] = (lambda calls, a=a, p=programs["OpenVINO C++"]: [str(p), str(xml), str(calls), *a], checks)
    return out


def check(name, peer, checks):
    """Fails when a peer's written outputs are not the case's expected outputs (to 1e-3 of
    their scale: this catches a wrong binding, not rounding). Returns the largest difference."""
    worst = 0.0
    for path, want in checks:
        if want is None:
            continue
        got = np.fromfile(path, np.float32)
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        diff = float(np.max(np.abs(got - want))) if got.size == want.size and want.size else float("inf")
        if not diff <= 1e-3 * scale:
            raise SystemExit(f"{name}: {peer} wrote outputs {diff} away from the case's expected ones ({path})")
        worst = max(worst, diff)
    return worst


def identity(work, programs):
    """Each peer's command for a model that does nothing (one Identity of one value): the cost
    of an empty call, the floor under its column."""
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper

    work.mkdir(parents=True, exist_ok=True)
    g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "id",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    onnx_path = work / "identity.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), onnx_path)
    xml = work / "identity.xml"
    ov.save_model(ov.convert_model(str(onnx_path)), xml, compress_to_fp16=False)
    np.zeros(1, np.float32).tofile(work / "x.f32")
    io = [*_tensor_args("in", "x", [1], work / "x.f32"), *_tensor_args("out", "y", [1], work / "y.f32")]
    return {"onnxruntime C": lambda calls: [str(programs["onnxruntime C"]), str(onnx_path), str(calls), *io],
            "OpenVINO C++": lambda calls: [str(programs["OpenVINO C++"]), str(xml), str(calls), *io]}


def main():
    """`python bench/native_peers.py CASE_DIR…`: builds both programs and runs each on the
    cases (a few calls), checking their outputs; prints each median call (CI runs this so
    that the programs keep building against the pinned wheels)."""
    import json
    import sys
    import tempfile

    import models

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        programs, versions = build(work)
        print(f"onnxruntime {versions['onnxruntime']}, OpenVINO {versions['openvino']}")
        for d in map(Path, sys.argv[1:]):
            case = json.loads((d / "case.json").read_text())
            found = commands(d, case, models.onnx_of(d.name, work), models.case_xml(d), work / d.name, programs)
            for peer, (command, checks) in found.items():
                ns = float(subprocess.run(command(20), check=True, capture_output=True, text=True).stdout)
                print(f"{d.name}: {peer} {ns / 1000:.1f} µs, outputs within {check(d.name, peer, checks):.2g}")


if __name__ == "__main__":
    main()
