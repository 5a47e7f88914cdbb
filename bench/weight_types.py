"""What a narrower weight type buys on a whole model, side by side: the model compiled with
each `--weight-type` (f32, f16, bf16, i8), its generated Rust and its C (at `-O3
-march=native` and at the README's `-O2`) timed in interleaved rounds on the case's inputs,
with the bytes of its packed tables (`cellc inspect`) and the largest difference of its
outputs from the case's expected ones (onnxruntime's or OpenVINO's, on the f32 weights).

Usage: python3 bench/weight_types.py [--rounds N (default 9)] [MODEL_DIR …]
(default: NSNet2, which tests/scripts/gen_models.py writes to target/real-models/nsnet2, and
the committed keyword spotter pt_kws_conv_gru_layernorm). Prints one table a model, ratios
to f32 within each language.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import models

ROOT = Path(__file__).resolve().parent.parent
TYPES = ["f32", "f16", "bf16", "i8"]
DEFAULT = [ROOT / "target" / "real-models" / "nsnet2", ROOT / "tests" / "models" / "pt_kws_conv_gru_layernorm"]

# The timing program of bench/models.py, which also writes the outputs of its last call
# (raw f32, one file each, in order) where `CELLC_BENCH_OUT` says.
RUST_MAIN = models.RUST_MAIN.replace(
    '    println!("{}", times[times.len() / 2]);',
    '''    if let Ok(dir) = std::env::var("CELLC_BENCH_OUT") {
        for (k, o) in outputs.iter().enumerate() {
            let bytes: Vec<u8> = o.iter().flat_map(|x| x.to_le_bytes()).collect();
            std::fs::write(format!("{dir}/out_{k}.f32"), bytes).expect("output written");
        }
    }
    println!("{}", times[times.len() / 2]);''',
)
assert RUST_MAIN != models.RUST_MAIN, "the timing program's last line moved"


def table_bytes(cellc, xml, flags):
    """The bytes of the packed tables `cellc inspect` reports, over every layer."""
    text = subprocess.run([cellc, "inspect", str(xml), *flags], check=True, capture_output=True, text=True).stdout
    return sum(int(b) for b in re.findall(r"(\d+) bytes embedded", text))


def largest_error(program, case_dir, case, work):
    """The largest |output − expected| of one call of the Rust program `program`."""
    out = work / "outputs"
    out.mkdir(exist_ok=True)
    subprocess.run(program(4), check=True, capture_output=True, env={**os.environ, "CELLC_BENCH_OUT": str(out)})
    worst = 0.0
    for k, o in enumerate(case["outputs"]):
        n = int(np.prod(o["shape"]))
        got = np.fromfile(out / f"out_{k}.f32", np.float32)
        want = np.fromfile(case_dir / o["file"], np.float32)[:n]
        worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - want))))
    return worst


def setup(case_dir, cellc, work):
    """The timing programs of one model for every weight type, with their bytes and errors."""
    case = json.loads((case_dir / "case.json").read_text())
    xml, pins = models.case_xml(case_dir), models.case_pins(case)
    ins = [str(case_dir / i["file"]) for i in case["inputs"]]
    outs = ",".join(str(int(np.prod(o["shape"]))) for o in case["outputs"])
    programs, facts = {}, {}
    for t in TYPES:
        w = work / t
        w.mkdir(parents=True)
        flags = [*pins, "--weight-type", t]
        rust = models.rust_program(xml, flags, w, cellc, RUST_MAIN, target="bench-weight-types")
        (w / "c").mkdir()
        subprocess.run([cellc, str(xml), *flags, "--lang", "c", "--name", "net", "-o", str(w / "c" / "net.c")],
                       check=True)
        (w / "c" / "main.c").write_text(models.C_MAIN)
        c_native = models.c_program(w, "c-bin", ["-O3", "-march=native"])
        c_o2 = models.c_program(w, "c-o2-bin", ["-O2"])
        for lang, binary in (("Rust", rust), ("C -O3 -march=native", c_native), ("C -O2", c_o2)):
            command = models.with_calls([str(binary), str(models.CALLS), outs, *ins], 1)
            programs[(t, lang)] = (command, models.calls_for(command))
        facts[t] = {"table_bytes": table_bytes(cellc, xml, flags),
                    "max_abs_err": largest_error(programs[(t, "Rust")][0], case_dir, case, w)}
    return programs, facts


def main():
    args = sys.argv[1:]
    rounds = 9
    if args[:2] and args[0] == "--rounds":
        rounds, args = int(args[1]), args[2:]
    dirs = [Path(a) for a in args] or [d for d in DEFAULT if (d / "case.json").is_file()]
    cellc = str(ROOT / "target" / "release" / "cellc")
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "cellc"], check=True, cwd=ROOT)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"{cpu}; {rounds} interleaved rounds, the median of each round's median call")
    with tempfile.TemporaryDirectory() as tmp:
        setups = {d.name: setup(d, cellc, Path(tmp) / d.name) for d in dirs}
        samples = {name: {} for name in setups}
        for _ in range(rounds):
            for name, (programs, _) in setups.items():
                for key, (command, calls) in programs.items():
                    samples[name].setdefault(key, []).append(models.run_timed(command, calls))
    for name, (programs, facts) in setups.items():
        med = {k: float(np.median(v)) for k, v in samples[name].items()}
        langs = sorted({lang for _, lang in programs}, key=["Rust", "C -O3 -march=native", "C -O2"].index)
        print(f"\n{name}")
        print("| weight type | tables (bytes) | max abs err vs the case | " + " | ".join(langs) + " |")
        print("|---|---|---|" + "---|" * len(langs))
        for t in TYPES:
            cells = [f"{med[(t, l)] / 1000:.1f} µs ({med[(t, l)] / med[('f32', l)]:.2f}×)" for l in langs]
            print(f"| {t} | {facts[t]['table_bytes']:,} | {facts[t]['max_abs_err']:.2e} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
