"""The cost of the generated code, per benchmark configuration: the size of the generated
Rust source, the time a release build of it takes (as the only module of a library crate
depending on cellc-runtime, after the dependencies are built), and the machine code it
compiles to (the `.text` of the crate's object files: `step`, `feed`, `step_batch` and the
model entry point with every kernel inlined into them, each in its vector-level copies).

Reads the generated files that `cargo bench -p cellc-bench` leaves in its build directory;
writes JSON (default target/cost.json). Needs cargo and binutils' `size`.

    python3 bench/cost.py [OUT_JSON]
"""
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# (label, file in the bench's OUT_DIR)
FILES = [
    ("A tiled", "gru_h128_i16_tiled.rs"),
    ("A unrolled", "gru_h128_i16_unrolled.rs"),
    ("A tiled, f16 weights", "gru_h128_i16_tiled_f16.rs"),
    ("A lbr tiled", "gru_lbr_h128_i16_tiled.rs"),
    ("B tiled", "gru_h16_i1_tiled.rs"),
    ("B unrolled", "gru_h16_i1_unrolled.rs"),
    ("C tiled", "gru_seq_h256_i256.rs"),
    ("D tiled, runtime weights", "gru_seq_h512_i512.rs"),
    ("E tiled", "rnn_h128_i16_tiled.rs"),
    ("F tiled", "lstm_h128_i16_tiled.rs"),
]


def out_dir():
    """The newest build-script output directory of cellc-bench."""
    dirs = sorted(
        (ROOT / "target" / "release" / "build").glob("cellc-bench-*/out"),
        key=lambda d: d.stat().st_mtime,
        reverse=True,
    )
    for d in dirs:
        if (d / FILES[0][1]).exists():
            return d
    sys.exit("no generated files: run `cargo bench -p cellc-bench` first")


def text_size(target):
    """Bytes of `.text` in the crate's object files."""
    total = 0
    for obj in (target / "release" / "deps").glob("libcost-*.rlib"):
        out = subprocess.run(["size", "-A", str(obj)], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if parts and parts[0].startswith(".text") and len(parts) >= 2 and parts[1].isdigit():
                total += int(parts[1])
    return total


def main():
    out_json = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target" / "cost.json"
    src_dir = out_dir()
    crate = ROOT / "target" / "cost-crate"
    if crate.exists():
        shutil.rmtree(crate)
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "cost"\nversion = "0.0.0"\nedition = "2024"\n\n'
        f'[dependencies]\ncellc-runtime = {{ path = "{ROOT / "runtime"}" }}\n\n'
        "[profile.release]\ndebug = false\n\n[workspace]\n"
    )
    target = crate / "target"
    results = []
    for label, name in FILES:
        src = src_dir / name
        if not src.exists():
            continue
        code = src.read_text()
        (crate / "src" / "lib.rs").write_text("#![allow(dead_code)]\n" + code)
        # Build the dependencies once, then time the generated file's crate alone.
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=crate, check=True, env=env(target))
        (crate / "src" / "lib.rs").touch()
        t0 = time.perf_counter()
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=crate, check=True, env=env(target))
        seconds = time.perf_counter() - t0
        results.append({
            "config": label,
            "file": name,
            "source_bytes": len(code.encode()),
            "source_lines": code.count("\n"),
            "release_build_s": round(seconds, 2),
            "text_bytes": text_size(target),
        })
        print(results[-1], file=sys.stderr)
    out_json.write_text(json.dumps(results, indent=1) + "\n")


def env(target):
    import os

    e = dict(os.environ)
    e["CARGO_TARGET_DIR"] = str(target)
    return e


if __name__ == "__main__":
    main()
