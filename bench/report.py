"""Collects one benchmark run into docs/perf/results.json, the results section of
docs/PERFORMANCE.md (between its `results:begin` and `results:end` markers) and the chart
docs/perf/chart.svg.

Reads criterion's estimates and samples (target/criterion) of `cargo bench -p cellc-bench`
the JSON written by bench/openvino/run.sh and by bench/cost.py; run those first
(bench/run.sh does it all).
Only the Python standard library is needed.

    python3 bench/report.py [CRITERION_DIR] [OPENVINO_JSON] [COST_JSON]
"""
import json
import math
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# id, what, criterion group, steps per iteration, FLOPs per step, targets (ns per step, or
# GFLOP/s for D), the peers' figures quoted by the issue (for scale).
CONFIGS = [
    ("A", "GRU H=128 I=16, one step", "gru_h128_i16", 1, 2 * 3 * 128 * 144, 1600.0),
    ("A lbr", "GRU H=128 I=16 linear_before_reset, one step", "gru_lbr_h128_i16", 1, 2 * 3 * 128 * 144, 1600.0),
    ("B", "GRU H=16 I=1, one step", "gru_h16_i1", 1, 2 * 3 * 16 * 17, 35.0),
    ("C", "GRU sequence H=256 I=256, L=1000", "gru_seq_h256_i256_l1000", 1000, 2 * 3 * 256 * 512, 14000.0),
    ("D", "GRU sequence H=512 I=512, batch 64, L=100", "gru_seq_h512_i512_b64_l100", 100, 2 * 64 * 3 * 512 * 1024, None),
    ("E", "RNN tanh H=128 I=16, one step", "rnn_h128_i16", 1, 2 * 128 * 144, 550.0),
    ("F", "LSTM H=128 I=16, one step", "lstm_h128_i16", 1, 2 * 4 * 128 * 144, 2200.0),
]
D_TARGET_GFLOPS = 100.0
# The 16-bit targets: A with f16 weights.
F16_TARGET = 1000.0

# Criterion bench ids and how the table names them.
IMPLS = {
    "tiled": "cellc Rust, tiled",
    "unrolled": "cellc Rust, unrolled",
    "tiled_f16": "cellc Rust, tiled, f16 weights",
    "tiled_bf16": "cellc Rust, tiled, bf16 weights",
    "tiled_fast": "cellc Rust, tiled, fast activations",
    "unrolled_fast": "cellc Rust, unrolled, fast activations",
    "hoisted_projection": "cellc Rust, run (projection hoisted)",
    "step_loop": "cellc Rust, step in a loop",
    "run_batch": "cellc Rust, run_batch",
    "c_tiled": "cellc C, tiled",
    "c_unrolled": "cellc C, unrolled",
    "c_hoisted_projection": "cellc C, run",
    "naive": "naive Rust",
}


def criterion(root, group, bench):
    """Median and 10th/90th percentiles of the time of one iteration, in ns."""
    d = root / group / bench / "new"
    if not (d / "estimates.json").exists():
        return None
    est = json.loads((d / "estimates.json").read_text())
    sample = json.loads((d / "sample.json").read_text())
    per = sorted(t / n for t, n in zip(sample["times"], sample["iters"]))
    q = statistics.quantiles(per, n=10)
    return {"median_ns": est["median"]["point_estimate"], "p10_ns": q[0], "p90_ns": q[-1], "samples": len(per)}


def collect(crit_root, ov):
    rows = []
    ov_by = {(r["config"], r["path"]): r for r in (ov or {}).get("results", [])}
    for cid, what, group, steps, flops, target in CONFIGS:
        entries = []
        for bench, name in IMPLS.items():
            r = criterion(crit_root, group, bench)
            if r is None:
                continue
            entries.append({"impl": name, "bench": bench, **{k: v / steps if k.endswith("_ns") else v for k, v in r.items()}})
        ov_id = cid.replace(" ", "_")
        for path, name in [("sequence", "OpenVINO, sequence op"), ("per_call", "OpenVINO, cell op per call (Python)")]:
            r = ov_by.get((ov_id, path))
            if r:
                entries.append({"impl": name, "bench": "openvino_" + path, **{k: r[k] for k in ("median_ns", "p10_ns", "p90_ns")}})
        naive = next((e["median_ns"] for e in entries if e["bench"] == "naive"), None)
        ov_seq = next((e["median_ns"] for e in entries if e["bench"] == "openvino_sequence"), None)
        for e in entries:
            e["gflops"] = flops / e["median_ns"]
            e["vs_naive"] = naive / e["median_ns"] if naive else None
            e["vs_openvino"] = ov_seq / e["median_ns"] if ov_seq else None
        rows.append({"config": cid, "what": what, "flops_per_step": flops, "target_ns": target, "entries": entries})
    return rows


def fmt_ns(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.1f} ns"


def fmt_x(x):
    return "—" if x is None else f"{x:.2f}×"


def best_cellc(row, bench_filter=lambda b: True):
    cands = [e for e in row["entries"] if e["impl"].startswith("cellc Rust") and bench_filter(e["bench"])]
    return min(cands, key=lambda e: e["median_ns"]) if cands else None


def cost_table(cost):
    """The cost of the generated code (bench/cost.py), as a markdown table."""
    out = ["### Cost of the code", ""]
    out.append(
        "Each generated file built alone in release as a library crate over `cellc-runtime` (dependencies "
        "already built); machine code is the `.text` of the crate: the public entry points with every kernel "
        "inlined, in their vector-level copies."
    )
    out.append("")
    out.append("| configuration | generated source | release build | machine code |")
    out.append("|---|---|---|---|")
    for c in cost:
        out.append(
            f"| {c['config']} | {c['source_bytes'] / 1024:.0f} KiB, {c['source_lines']} lines | "
            f"{c['release_build_s']:.1f} s | {c['text_bytes'] / 1024:.0f} KiB |"
        )
    out.append("")
    return out


def markdown(rows, ov, meta, cost=None):
    out = []
    out.append(f"Measured {meta['date']} on {meta['machine']}; OpenVINO {ov.get('version', 'not run') if ov else 'not run'}.")
    out.append("")
    out.append("### Targets")
    out.append("")
    out.append("| id | configuration | target | cellc (best Rust kernel, default activations) | met | with fast activations |")
    out.append("|---|---|---|---|---|---|")
    for row in rows:
        f32 = best_cellc(row, lambda b: not b.endswith(("f16", "bf16", "_fast")))
        fast = best_cellc(row, lambda b: b.endswith("_fast"))
        fast_col = "—" if fast is None else f"{fmt_ns(fast['median_ns'])} ({fast['impl']})"
        if f32 is None:
            continue
        if row["config"] == "D":
            got = f32["gflops"]
            out.append(
                f"| D | {row['what']} | ≥ {D_TARGET_GFLOPS:.0f} GFLOP/s | {got:.1f} GFLOP/s ({f32['impl']}) | "
                f"{'yes' if got >= D_TARGET_GFLOPS else f'no: {got / D_TARGET_GFLOPS:.0%} of it'} | — |"
            )
            continue
        t = row["target_ns"]
        got = f32["median_ns"]
        met = "yes" if got <= t else f"no: {got / t:.2f}× the target"
        out.append(f"| {row['config']} | {row['what']} | ≤ {fmt_ns(t)} | {fmt_ns(got)} ({f32['impl']}) | {met} | {fast_col} |")
        if row["config"] == "A":
            h = best_cellc(row, lambda b: b.endswith(("f16", "bf16")))
            if h:
                met = "yes" if h["median_ns"] <= F16_TARGET else f"no: {h['median_ns'] / F16_TARGET:.2f}× the target"
                out.append(f"| A 16-bit | {row['what']}, 16-bit weights | ≤ {fmt_ns(F16_TARGET)} | {fmt_ns(h['median_ns'])} ({h['impl']}) | {met} | — |")
    out.append("")
    for row in rows:
        if not row["entries"]:
            continue
        out.append(f"### {row['config']}: {row['what']}")
        out.append("")
        out.append("| implementation | median per step | p10–p90 | GFLOP/s | vs naive | vs OpenVINO sequence |")
        out.append("|---|---|---|---|---|---|")
        for e in sorted(row["entries"], key=lambda e: e["median_ns"]):
            out.append(
                f"| {e['impl']} | {fmt_ns(e['median_ns'])} | {fmt_ns(e['p10_ns'])}–{fmt_ns(e['p90_ns'])} | "
                f"{e['gflops']:.1f} | {fmt_x(e['vs_naive'])} | {fmt_x(e['vs_openvino'])} |"
            )
        out.append("")
    if cost:
        out.extend(cost_table(cost))
    return "\n".join(out)


def svg(rows):
    """Grouped horizontal bars, log scale: ns per step of each implementation, per configuration."""
    shown = ["tiled", "tiled_fast", "tiled_f16", "hoisted_projection", "run_batch", "c_tiled", "c_hoisted_projection", "naive", "openvino_sequence"]
    colors = {
        "tiled": "#1f77b4", "tiled_fast": "#9467bd", "tiled_f16": "#17becf", "hoisted_projection": "#1f77b4", "run_batch": "#1f77b4",
        "c_tiled": "#2ca02c", "c_hoisted_projection": "#2ca02c", "naive": "#7f7f7f", "openvino_sequence": "#d62728",
    }
    labels = {
        "tiled": "cellc Rust", "tiled_fast": "cellc Rust, fast activations", "tiled_f16": "cellc Rust, f16 weights", "hoisted_projection": "cellc Rust",
        "run_batch": "cellc Rust", "c_tiled": "cellc C", "c_hoisted_projection": "cellc C", "naive": "naive Rust",
        "openvino_sequence": "OpenVINO (sequence op)",
    }
    bars = []
    for row in rows:
        es = [e for e in row["entries"] if e["bench"] in shown]
        es.sort(key=lambda e: shown.index(e["bench"]))
        bars.append((row["config"], es))
    values = [e["median_ns"] for _, es in bars for e in es]
    if not values:
        return ""
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    left, width, bar_h, gap = 150, 560, 14, 12
    height = sum(len(es) * bar_h + gap for _, es in bars) + 60
    x = lambda v: left + (math.log10(v) - lo) / (hi - lo) * width
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 180}" height="{height}" font-family="sans-serif" font-size="11">']
    out.append(f'<text x="{left}" y="14" font-size="13">ns per step (log scale; shorter is faster)</text>')
    for p in range(lo, hi + 1):
        xp = x(10 ** p)
        out.append(f'<line x1="{xp:.1f}" y1="22" x2="{xp:.1f}" y2="{height - 30}" stroke="#ddd"/>')
        out.append(f'<text x="{xp:.1f}" y="{height - 16}" text-anchor="middle">{fmt_ns(10 ** p)}</text>')
    y = 28
    for cid, es in bars:
        out.append(f'<text x="{left - 8}" y="{y + len(es) * bar_h / 2 + 4:.1f}" text-anchor="end" font-weight="bold">{cid}</text>')
        for e in es:
            w = max(x(e["median_ns"]) - left, 1)
            out.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{colors[e["bench"]]}"/>')
            out.append(f'<text x="{left + w + 4:.1f}" y="{y + bar_h - 4}">{labels[e["bench"]]}: {fmt_ns(e["median_ns"])}</text>')
            y += bar_h
        y += gap
    out.append("</svg>")
    return "\n".join(out)


def machine():
    """The CPU's model name and the number of cores."""
    import os

    name = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} cores"


def main():
    crit_root = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target" / "criterion"
    ov_path = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "target" / "openvino.json"
    ov = json.loads(ov_path.read_text()) if ov_path.exists() else None
    cost_path = Path(sys.argv[3]) if len(sys.argv) > 3 else ROOT / "target" / "cost.json"
    cost = json.loads(cost_path.read_text()) if cost_path.exists() else None
    import datetime

    meta = {"date": datetime.date.today().isoformat(), "machine": machine()}
    rows = collect(crit_root, ov)
    perf = ROOT / "docs" / "perf"
    perf.mkdir(parents=True, exist_ok=True)
    results = {"meta": meta, "openvino": ov, "configs": rows, "cost": cost}
    (perf / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    (perf / "chart.svg").write_text(svg(rows) + "\n")
    doc = ROOT / "docs" / "PERFORMANCE.md"
    text = doc.read_text() if doc.exists() else "<!-- results:begin -->\n<!-- results:end -->\n"
    begin, end = "<!-- results:begin -->", "<!-- results:end -->"
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(f"{head}{begin}\n{markdown(rows, ov, meta, cost)}\n{end}{tail}")
    print(f"wrote {doc}, {perf / 'results.json'}, {perf / 'chart.svg'}")


if __name__ == "__main__":
    main()
