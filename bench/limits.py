#!/usr/bin/env python3
"""Measures cellc at the sizes it accepts: for GRU cells of growing size up to the largest
embedded model (cellc::limits::MAX_EMBEDDED_WEIGHTS weight values), the time and peak memory
of `cellc model.xml -o net.rs` (and `--lang c`), and the size of the generated code per byte
of weights; then one model past the limit, which must be refused at once, and compile with
its weights given at run time.

Usage: python3 bench/limits.py [CELLC]   (CELLC: the binary, default target/release/cellc;
build it first with `cargo build -p cellc --release`). Needs only the standard library.
"""
import array
import random
import subprocess
import sys
import tempfile
from pathlib import Path

CELLC = sys.argv[1] if len(sys.argv) > 1 else "target/release/cellc"


def port(pid, dims):
    return f'<port id="{pid}" precision="FP32">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


def gru(h, i):
    """model.xml and model.bin of a GRUCell (batch 1) with random f32 weights."""
    shapes = [("W", [3 * h, i]), ("R", [3 * h, h]), ("B", [3 * h])]
    rng = random.Random(1)
    scale = h ** -0.5
    layers, offset, blobs = [], 0, []
    layers.append(f'<layer id="0" name="X" type="Parameter" version="opset1"><data shape="1,{i}" element_type="f32"/><output>{port(0, [1, i])}</output></layer>')
    layers.append(f'<layer id="1" name="H" type="Parameter" version="opset1"><data shape="1,{h}" element_type="f32"/><output>{port(0, [1, h])}</output></layer>')
    for k, (name, dims) in enumerate(shapes):
        n = 1
        for d in dims:
            n *= d
        blob = array.array("f", (rng.uniform(-scale, scale) for _ in range(n))).tobytes()
        shape = ",".join(map(str, dims))
        layers.append(f'<layer id="{2 + k}" name="{name}" type="Const" version="opset1"><data element_type="f32" shape="{shape}" offset="{offset}" size="{len(blob)}"/><output>{port(0, dims)}</output></layer>')
        offset += len(blob)
        blobs.append(blob)
    ins = port(0, [1, i]) + port(1, [1, h]) + port(2, [3 * h, i]) + port(3, [3 * h, h]) + port(4, [3 * h])
    layers.append(f'<layer id="5" name="gru" type="GRUCell" version="opset3"><data hidden_size="{h}"/><input>{ins}</input><output>{port(5, [1, h])}</output></layer>')
    layers.append(f'<layer id="6" name="out" type="Result" version="opset1"><input>{port(0, [1, h])}</input></layer>')
    edges = [(0, 0, 5, 0), (1, 0, 5, 1), (2, 0, 5, 2), (3, 0, 5, 3), (4, 0, 5, 4), (5, 5, 6, 0)]
    e = "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>\n' for a, b, c, d in edges)
    xml = f'<?xml version="1.0"?>\n<net name="gru" version="11">\n<layers>\n' + "\n".join(layers) + f"\n</layers>\n<edges>\n{e}</edges>\n</net>\n"
    return xml, b"".join(blobs), sum(len(b) for b in blobs) // 4


def folding(tiles, n):
    """model.xml and model.bin of `tiles` constants of `n` values (a Tile of one value each,
    folded at compile time) each added to a Parameter: past the folding budget when
    tiles * n is."""
    layers = [f'<layer id="0" name="X" type="Parameter" version="opset1"><data shape="{n}" element_type="f32"/><output>{port(0, [n])}</output></layer>',
              '<layer id="1" name="one" type="Const" version="opset1"><data element_type="f32" shape="1" offset="0" size="4"/><output>' + port(0, [1]) + '</output></layer>',
              '<layer id="2" name="reps" type="Const" version="opset1"><data element_type="i64" shape="1" offset="4" size="8"/><output><port id="0" precision="I64"><dim>1</dim></port></output></layer>']
    edges = []
    for k in range(tiles):
        t, a, r = 10 + 3 * k, 11 + 3 * k, 12 + 3 * k
        layers.append(f'<layer id="{t}" name="tile{k}" type="Tile" version="opset1"><input>{port(0, [1])}<port id="1" precision="I64"><dim>1</dim></port></input><output>{port(2, [n])}</output></layer>')
        layers.append(f'<layer id="{a}" name="add{k}" type="Add" version="opset1"><input>{port(0, [n])}{port(1, [n])}</input><output>{port(2, [n])}</output></layer>')
        layers.append(f'<layer id="{r}" name="out{k}" type="Result" version="opset1"><input>{port(0, [n])}</input></layer>')
        edges += [(1, 0, t, 0), (2, 0, t, 1), (0, 0, a, 0), (t, 2, a, 1), (a, 2, r, 0)]
    e = "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>\n' for a, b, c, d in edges)
    xml = f'<?xml version="1.0"?>\n<net name="fold" version="11">\n<layers>\n' + "\n".join(layers) + f"\n</layers>\n<edges>\n{e}</edges>\n</net>\n"
    return xml, array.array("f", [0.5]).tobytes() + array.array("q", [n]).tobytes()


def run(args):
    """Wall time, peak RSS (MiB) and exit code of `args`, and its stderr. Each run is measured
    from a fresh Python process, whose children's peak is this run's alone."""
    probe = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); w = time.perf_counter() - t; "
        "print(w, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode); sys.stderr.write(p.stderr)"
    )
    p = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True)
    wall, rss, code = p.stdout.split()
    return float(wall), int(rss) / 1024, int(code), p.stderr


def main():
    print("| cell (H, I) | weight values | language | cellc time | peak memory | generated | bytes per weight byte |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        for h, i in [(128, 16), (512, 512), (1024, 1024), (2048, 592)]:
            xml, bin_, n = gru(h, i)
            (d / "model.xml").write_text(xml)
            (d / "model.bin").write_bytes(bin_)
            for lang, out in [("rust", "net.rs"), ("c", "net.c")]:
                wall, rss, code, err = run([CELLC, str(d / "model.xml"), "--lang", lang, "-o", str(d / out)])
                if code != 0:
                    sys.exit(f"cellc refused H={h} I={i}: {err}")
                size = (d / out).stat().st_size + ((d / "net.h").stat().st_size if lang == "c" else 0)
                print(f"| GRU {h}, {i} | {n:,} | {lang} | {wall:.2f} s | {rss:.0f} MiB | {size / 2**20:.1f} MiB | {size / (4 * n):.2f} |")
        xml, bin_, n = gru(2048, 736)
        (d / "model.xml").write_text(xml)
        (d / "model.bin").write_bytes(bin_)
        wall, rss, code, err = run([CELLC, str(d / "model.xml"), "-o", str(d / "big.rs")])
        assert code == 1 and "weight values" in err and not (d / "big.rs").exists(), (code, err)
        print(f"| GRU 2048, 736 | {n:,} | rust | refused in {wall:.2f} s | | | |")
        # The same weights given at run time are not embedded: the model compiles.
        wall, rss, code, err = run([CELLC, str(d / "model.xml"), "--weights-mode", "runtime", "-o", str(d / "big.rs")])
        assert code == 0, err
        size = (d / "big.rs").stat().st_size
        print(f"| GRU 2048, 736, `--weights-mode runtime` | {n:,} | rust | {wall:.2f} s | {rss:.0f} MiB | {size / 2**10:.0f} KiB | |")
        # Constants folded past the budget (cellc::limits::MAX_FOLDED_TOTAL, 2^26 values):
        # nine of 2^23 values; the ninth is refused before it is computed.
        xml, bin_ = folding(9, 1 << 23)
        (d / "fold.xml").write_text(xml)
        (d / "fold.bin").write_bytes(bin_)
        wall, rss, code, err = run([CELLC, str(d / "fold.xml"), "-o", str(d / "fold.rs")])
        assert code == 1 and "past 67108864 values" in err and "tile8" in err and not (d / "fold.rs").exists(), (code, err)
        assert err.count("error[") == 1, err
        print(f"| 9 folded constants of 2^23 values | | rust | refused in {wall:.2f} s | {rss:.0f} MiB | | |")


if __name__ == "__main__":
    main()
