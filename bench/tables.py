"""What the weight tables of generated Rust cost to build, as literals and as bytes.

For GRU cells of growing size (`GRUCell`, input size = hidden size, f32 weights), writes
the model, compiles it with `cellc --weight-tables source` and `--weight-tables binary`,
and builds each generated file as the only module of a library crate depending on
cellc-runtime (release, after the dependencies are built): the generator's time, the
size of what it writes, rustc's wall time and its peak memory (GNU time's maximum
resident set size of the build). Prints a Markdown table; writes JSON (default
target/tables.json). Needs `target/release/cellc` (`cargo build --release -p cellc`) and
GNU time at /usr/bin/time.

    python3 bench/tables.py [OUT_JSON]
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = [128, 256, 512, 1024]


def port(pid, dims, names=None):
    attr = f' names="{names}"' if names else ""
    body = "".join(f"<dim>{d}</dim>" for d in dims)
    return f'<port id="{pid}" precision="FP32"{attr}>{body}</port>'


def gru_model(dir_, h):
    """A GRUCell with input and hidden size `h`, weights uniform in ±1/sqrt(h)."""
    i = h
    rng = random.Random(h)
    scale = 1.0 / h**0.5
    shapes = [("W", [3 * h, i]), ("R", [3 * h, h]), ("B", [4 * h])]
    blob = bytearray()
    consts = []
    for k, (name, dims) in enumerate(shapes):
        n = 1
        for d in dims:
            n *= d
        offset = len(blob)
        blob += struct.pack(f"<{n}f", *(rng.uniform(-scale, scale) for _ in range(n)))
        shape = ", ".join(map(str, dims))
        consts.append(
            f'<layer id="{2 + k}" name="{name}" type="Const" version="opset1">'
            f'<data element_type="f32" shape="{shape}" offset="{offset}" size="{4 * n}" />'
            f"<output>{port(0, dims)}</output></layer>"
        )
    xml = f"""<?xml version="1.0"?>
<net name="gru{h}" version="11">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,{i}" element_type="f32" /><output>{port(0, [1, i], "x")}</output></layer>
<layer id="1" name="h" type="Parameter" version="opset1"><data shape="1,{h}" element_type="f32" /><output>{port(0, [1, h], "h")}</output></layer>
{"".join(consts)}
<layer id="5" name="gru" type="GRUCell" version="opset3">
<data linear_before_reset="true" hidden_size="{h}" activations="sigmoid, tanh" activations_alpha="" activations_beta="" clip="0" />
<input>{port(0, [1, i])}{port(1, [1, h])}{port(2, [3 * h, i])}{port(3, [3 * h, h])}{port(4, [4 * h])}</input>
<output>{port(5, [1, h], "y")}</output>
</layer>
<layer id="6" name="y" type="Result" version="opset1"><input>{port(0, [1, h])}</input></layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="5" to-port="0" />
<edge from-layer="1" from-port="0" to-layer="5" to-port="1" />
<edge from-layer="2" from-port="0" to-layer="5" to-port="2" />
<edge from-layer="3" from-port="0" to-layer="5" to-port="3" />
<edge from-layer="4" from-port="0" to-layer="5" to-port="4" />
<edge from-layer="5" from-port="5" to-layer="6" to-port="0" />
</edges>
</net>
"""
    (dir_ / "model.xml").write_text(xml)
    (dir_ / "model.bin").write_bytes(bytes(blob))
    return dir_ / "model.xml", 3 * h * (i + h) + 4 * h


def timed(cmd, cwd, env):
    """Wall seconds and peak resident kilobytes of `cmd` (and the processes it waits for)."""
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", *cmd], cwd=cwd, env=env, capture_output=True, text=True
    )
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    seconds, kb = out.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kb)


def main():
    out_json = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target" / "tables.json"
    cellc = ROOT / "target" / "release" / "cellc"
    if not cellc.exists():
        sys.exit("no target/release/cellc: run `cargo build --release -p cellc` first")
    work = ROOT / "target" / "tables-bench"
    if work.exists():
        shutil.rmtree(work)
    crate = work / "crate"
    (crate / "src" / "gen").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "tables"\nversion = "0.0.0"\nedition = "2024"\n\n'
        f'[dependencies]\ncellc-runtime = {{ path = "{ROOT / "runtime"}" }}\n\n'
        "[profile.release]\ndebug = false\n\n[workspace]\n"
    )
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = str(work / "target")
    lib = crate / "src" / "lib.rs"
    lib.write_text("")
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=crate, check=True, env=env)
    rows = []
    for h in SIZES:
        model_dir = work / f"gru{h}"
        model_dir.mkdir()
        model, weights = gru_model(model_dir, h)
        for mode in ["source", "binary"]:
            out = crate / "src" / "gen" / f"gru{h}_{mode}.rs"
            t0 = time.perf_counter()
            subprocess.run([str(cellc), str(model), "--weight-tables", mode, "-o", str(out)], check=True)
            generate = time.perf_counter() - t0
            bin_ = out.with_suffix(".weights.bin")
            written = out.stat().st_size + (bin_.stat().st_size if bin_.exists() else 0)
            lib.write_text(f'#![allow(dead_code)]\ninclude!("gen/{out.name}");\n')
            seconds, kb = timed(["cargo", "build", "--release", "--quiet"], crate, env)
            rows.append({
                "hidden": h,
                "weights": weights,
                "tables": mode,
                "generate_s": round(generate, 2),
                "rust_bytes": out.stat().st_size,
                "written_bytes": written,
                "build_s": seconds,
                "build_peak_mb": round(kb / 1024),
            })
            print(rows[-1], file=sys.stderr)
    out_json.write_text(json.dumps(rows, indent=1) + "\n")
    print("| GRU H = I | weights | tables | cellc | Rust written | bytes beside | rustc (release) | rustc peak memory |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        beside = r["written_bytes"] - r["rust_bytes"]
        print(
            f"| {r['hidden']} | {r['weights'] / 1e6:.2f} M | {r['tables']} | {r['generate_s']:.2f} s "
            f"| {r['rust_bytes'] / 1e6:.2f} MB | {beside / 1e6:.2f} MB | {r['build_s']:.1f} s | {r['build_peak_mb']} MB |"
        )


if __name__ == "__main__":
    main()
