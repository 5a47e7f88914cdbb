"""Collects one benchmark run into docs/perf/results-FAMILY.json and docs/perf/chart-FAMILY.svg
(FAMILY: the CPU's vendor and microarchitecture, e.g. `amd-zen5` or `intel-icelake`, so
that each keeps its latest run), and
writes the results section of docs/PERFORMANCE.md (between its `results:begin` and
`results:end` markers) from every family's latest run: the targets of that family, the
machine's floors measured in the same run (`cargo bench -p cellc-bench --bench machine`:
FMA peak, read rate of each cache level), and each configuration's table.

Reads criterion's estimates and samples (target/criterion) of `cargo bench -p cellc-bench`
the JSON written by bench/openvino/run.sh and by bench/cost.py; run those first
(bench/run.sh does it all).
Only the Python standard library is needed.

    python3 bench/report.py [CRITERION_DIR] [OPENVINO_JSON] [COST_JSON]
    python3 bench/report.py --render     # only docs/PERFORMANCE.md, from docs/perf/results-*.json
"""
import json
import math
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# id, what, criterion group, steps per iteration, FLOPs per step, weight values read per step
# (C: `R` every step and `W` once per 8 steps, the block its hoisted projection takes; D is
# bound by FLOPs, not bytes).
CONFIGS = [
    ("A", "GRU H=128 I=16, one step", "gru_h128_i16", 1, 2 * 3 * 128 * 144, 3 * 128 * 144),
    ("A lbr", "GRU H=128 I=16 linear_before_reset, one step", "gru_lbr_h128_i16", 1, 2 * 3 * 128 * 144, 3 * 128 * 144),
    ("B", "GRU H=16 I=1, one step", "gru_h16_i1", 1, 2 * 3 * 16 * 17, 3 * 16 * 17),
    ("C", "GRU sequence H=256 I=256, L=1000", "gru_seq_h256_i256_l1000", 1000, 2 * 3 * 256 * 512, 3 * 256 * 256 * 9 // 8),
    ("D", "GRU sequence H=512 I=512, batch 64, L=100", "gru_seq_h512_i512_b64_l100", 100, 2 * 64 * 3 * 512 * 1024, None),
    ("E", "RNN tanh H=128 I=16, one step", "rnn_h128_i16", 1, 2 * 128 * 144, 128 * 144),
    ("F", "LSTM H=128 I=16, one step", "lstm_h128_i16", 1, 2 * 4 * 128 * 144, 4 * 128 * 144),
]
# The targets on each vendor's CPUs: ns per step (D: GFLOP/s at least; "A 16-bit": A with its
# weights stored as 16-bit values). The generated C must be within C_VS_RUST of the Rust.
TARGETS = {
    "amd": {"A": 1670.0, "A lbr": 1670.0, "A 16-bit": 1000.0, "B": 42.0, "C": 12000.0, "D": 110.0, "E": 550.0, "F": 2280.0},
    "intel": {"A": 2300.0, "A lbr": 2300.0, "A 16-bit": 1200.0, "B": 51.0, "C": 18000.0, "D": 115.0, "E": 800.0, "F": 3000.0},
}
C_VS_RUST = 1.1

# Criterion bench ids and how the table names them.
IMPLS = {
    "tiled": "cellc Rust, tiled",
    "unrolled": "cellc Rust, unrolled",
    "tiled_f16": "cellc Rust, tiled, f16 weights",
    "tiled_bf16": "cellc Rust, tiled, bf16 weights",
    "tiled_fast": "cellc Rust, tiled, fast activations",
    "tiled_threads2": "cellc Rust, tiled, 2 threads",
    "hoisted_projection_threads2": "cellc Rust, run (projection hoisted), 2 threads",
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


def floors(crit_root):
    """The machine's rates from the `machine` group: GFLOP/s of each FMA width, GB/s of each
    read level, and the cache sizes; None when the group was not run."""
    sizes_path = crit_root / "machine" / "sizes.json"
    if not sizes_path.exists():
        return None
    sizes = json.loads(sizes_path.read_text())
    out = {"caches": sizes.get("caches", {}), "fma_gflops": {}, "read_gbs": {}}
    for name, what in sizes.items():
        if name == "caches":
            continue
        r = criterion(crit_root, "machine", name)
        if r is None:
            continue
        if "flops" in what:
            out["fma_gflops"][name.removeprefix("fma_")] = what["flops"] / r["median_ns"]
        else:
            out["read_gbs"][name.removeprefix("read_")] = what["bytes"] / r["median_ns"]
    return out


def team_costs(crit_root):
    """What a split step's synchronisation costs with nothing to compute (the `team` group):
    a job of one stage in two parts, and a barrier between two stages; None when not run."""
    job, many = criterion(crit_root, "team", "job"), criterion(crit_root, "team", "stages_64")
    if job is None or many is None:
        return None
    return {"job_ns": job["median_ns"], "barrier_ns": (many["median_ns"] - job["median_ns"]) / 63}


def floor_ns(weight_bytes, fl):
    """The least time reading `weight_bytes` takes: at the read rate of the smallest cache
    level that holds them (memory past the last), and which level that is."""
    if not fl or weight_bytes is None:
        return None, None
    levels = sorted(fl["caches"].items(), key=lambda kv: kv[0])
    where = next((lvl for lvl, size in levels if weight_bytes <= size), "memory")
    rate = fl["read_gbs"].get(where)
    return (weight_bytes / rate if rate else None), where


def collect(crit_root, ov, fl=None):
    rows = []
    ov_by = {(r["config"], r["path"]): r for r in (ov or {}).get("results", [])}
    for cid, what, group, steps, flops, weights in CONFIGS:
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
        row = {"config": cid, "what": what, "flops_per_step": flops, "entries": entries}
        if weights is not None:
            for kind, bytes_per in (("f32", 4), ("16-bit", 2)):
                ns, where = floor_ns(weights * bytes_per, fl)
                row[f"weight_bytes_{kind}"] = weights * bytes_per
                row[f"floor_ns_{kind}"], row[f"floor_level_{kind}"] = ns, where
        elif fl and fl["fma_gflops"]:
            peak = max(fl["fma_gflops"].values())
            row["floor_ns_f32"], row["floor_level_f32"] = flops / peak, "FMA peak"
        rows.append(row)
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


def threads_table(rows, targets, team=None):
    """Each kernel split across two threads (`--threads 2`) beside the same kernel on one: the
    gain, and what the split costs a step over half the one-thread time (the helper's wake-up,
    the barriers, the state's trips between cores, an uneven split)."""
    lines = []
    for row in rows:
        by = {e["bench"]: e for e in row["entries"]}
        for one, two in (("tiled", "tiled_threads2"), ("hoisted_projection", "hoisted_projection_threads2")):
            if one in by and two in by:
                t1, t2 = by[one]["median_ns"], by[two]["median_ns"]
                t = targets.get(row["config"])
                met = "—" if t is None else met_ns(t2, t)
                lines.append(
                    f"| {row['config']} | {by[one]['impl']} | {fmt_ns(t1)} | {fmt_ns(t2)} | {t1 / t2:.2f}× | "
                    f"{fmt_ns(t2 - t1 / 2)} | {met} |"
                )
    if not lines:
        return []
    sync = ""
    if team:
        sync = (
            f" With nothing to compute (`cargo bench -p cellc-bench --bench machine -- team`), a job of one stage "
            f"in two parts costs the caller {fmt_ns(team['job_ns'])}, and a barrier between two stages "
            f"{fmt_ns(team['barrier_ns'])}."
        )
    return [
        "#### Two threads (`--threads 2`)",
        "",
        "The same kernel on one thread and split across two, in the same run; the split's cost is the "
        "two-thread time less half the one-thread time. The target column says whether two threads meet "
        "the (one-thread) target. A's and E's lone steps are not split (each stage of them reads less than "
        "128 KiB of weights, below which a split measured no faster), so they have no row here." + sync,
        "",
        "| id | kernel | 1 thread | 2 threads | gain | split's cost a step | target met with 2 |",
        "|---|---|---|---|---|---|---|",
        *lines,
        "",
    ]


def cost_table(cost):
    """The cost of the generated code (bench/cost.py), as a markdown table."""
    out = ["#### Cost of the code", ""]
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


def best_c(row):
    cands = [e for e in row["entries"] if e["impl"].startswith("cellc C")]
    return min(cands, key=lambda e: e["median_ns"]) if cands else None


def met_ns(got, target):
    return "yes" if got <= target else f"no: {got / target:.2f}× the target"


def floor_cell(row, kind, got_ns):
    ns, where = row.get(f"floor_ns_{kind}"), row.get(f"floor_level_{kind}")
    if ns is None:
        return "—"
    return f"{fmt_ns(ns)} ({where}); {got_ns / ns:.2f}× it"


def floors_text(fl):
    """The machine's floors, as a sentence."""
    if not fl:
        return ["Floors: not measured in this run (`cargo bench -p cellc-bench --bench machine`)."]
    fma = ", ".join(f"{g:.0f} GFLOP/s with {w}" for w, g in sorted(fl["fma_gflops"].items(), reverse=True))
    reads = ", ".join(
        f"{lvl.upper() if lvl != 'memory' else 'memory'} {g:.0f} GB/s"
        for lvl, g in sorted(fl["read_gbs"].items(), key=lambda kv: (kv[0] == "memory", kv[0]))
    )
    caches = ", ".join(f"{lvl.upper()} {size // 1024} KiB" for lvl, size in sorted(fl["caches"].items()))
    return [
        f"Floors measured in this run: FMA peak {fma}; one core reading a buffer of half a cache level: {reads} "
        f"(caches: {caches}). A step's floor is its weight bytes over the read rate of the smallest cache that "
        "holds them (D: its FLOPs over the FMA peak)."
    ]


def peer_table(peer):
    """cellc beside RTNeural (bench/benches/peer.rs): each configuration's best build of
    either, medians of the same interleaved rounds."""
    out = ["#### Beside RTNeural", ""]
    if not peer or not peer.get("measured"):
        out.append(
            "RTNeural was not measured in this run (`RTNEURAL_DIR` unset; see `bench/run.sh`)."
        )
        out.append("")
        return out
    out.append(
        f"Same weights and inputs (uniform in [-1, 1], a new row each step, as RTNeural's benchmark "
        f"draws them), {peer['rounds']} interleaved rounds, medians; every GRU with "
        "`linear_before_reset` (Keras's `reset_after`, the GRU RTNeural has). RTNeural built "
        "with `-O3 -march=native`, its Eigen and its xsimd backends."
    )
    out.append("")
    out.append(
        "| config | RTNeural (best build) | cellc Rust (best, default activations) | cellc / RTNeural | "
        "cellc C | C / RTNeural | cellc, fast activations |"
    )
    out.append("|---|---|---|---|---|---|---|")
    configs = []
    for r in peer["rows"]:
        if r["config"] not in configs:
            configs.append(r["config"])
    for cfg in configs:
        rs = [r for r in peer["rows"] if r["config"] == cfg]
        best = lambda f: min((r for r in rs if f(r["kernel"])), key=lambda r: r["median_ns"], default=None)
        rt = best(lambda k: k.startswith("RTNeural"))
        rust = best(lambda k: k.startswith("cellc Rust") and "fast" not in k)
        c = best(lambda k: k.startswith("cellc C"))
        fast = best(lambda k: k.startswith("cellc Rust") and "fast" in k)
        if rt is None or rust is None:
            continue
        name = lambda r: r["kernel"].split(", ", 1)[-1]
        c_cols = "— | —" if c is None else f"{fmt_ns(c['median_ns'])} ({name(c)}) | {c['median_ns'] / rt['median_ns']:.2f}"
        fast_col = "—" if fast is None else f"{fmt_ns(fast['median_ns'])} ({fast['median_ns'] / rt['median_ns']:.2f})"
        out.append(
            f"| {cfg} | {fmt_ns(rt['median_ns'])} ({rt['kernel'].removeprefix('RTNeural ')}) | "
            f"{fmt_ns(rust['median_ns'])} ({name(rust)}) | {rust['median_ns'] / rt['median_ns']:.2f} | {c_cols} | {fast_col} |"
        )
    out.append("")
    return out


def markdown(rows, ov, meta, family, cost=None, fl=None, peer=None):
    targets = TARGETS.get(family.split("-")[0], {})
    out = []
    out.append(
        f"Measured {meta['date']} on {meta['machine']}; OpenVINO {ov.get('version', 'not run') if ov else 'not run'}."
    )
    out.append("")
    out.extend(floors_text(fl))
    out.append("")
    out.append(f"#### Targets ({family})")
    out.append("")
    out.append(
        "| id | configuration | target | cellc (best Rust kernel, default activations) | met | floor | "
        "with fast activations | cellc C (best) | C / Rust |"
    )
    out.append("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        f32 = best_cellc(row, lambda b: not b.endswith(("f16", "bf16", "_fast", "_threads2")))
        fast = best_cellc(row, lambda b: b.endswith("_fast"))
        c = best_c(row)
        fast_col = "—" if fast is None else f"{fmt_ns(fast['median_ns'])} ({fast['impl']})"
        if f32 is None:
            continue
        c_cols = "— | —"
        if c is not None:
            ratio = c["median_ns"] / f32["median_ns"]
            c_cols = f"{fmt_ns(c['median_ns'])} | {ratio:.2f}{'' if ratio <= C_VS_RUST else ' (over ' + str(C_VS_RUST) + ')'}"
        t = targets.get(row["config"])
        if row["config"] == "D":
            got = f32["gflops"]
            met = "—" if t is None else ("yes" if got >= t else f"no: {got / t:.0%} of it")
            tcol = "—" if t is None else f"≥ {t:.0f} GFLOP/s"
            out.append(
                f"| D | {row['what']} | {tcol} | {got:.1f} GFLOP/s ({f32['impl']}) | {met} | "
                f"{floor_cell(row, 'f32', f32['median_ns'])} | — | {c_cols} |"
            )
            continue
        got = f32["median_ns"]
        met = "—" if t is None else met_ns(got, t)
        tcol = "—" if t is None else f"≤ {fmt_ns(t)}"
        out.append(
            f"| {row['config']} | {row['what']} | {tcol} | {fmt_ns(got)} ({f32['impl']}) | {met} | "
            f"{floor_cell(row, 'f32', got)} | {fast_col} | {c_cols} |"
        )
        if row["config"] == "A":
            h = best_cellc(row, lambda b: b.endswith(("f16", "bf16")))
            t16 = targets.get("A 16-bit")
            if h:
                met = "—" if t16 is None else met_ns(h["median_ns"], t16)
                tcol = "—" if t16 is None else f"≤ {fmt_ns(t16)}"
                out.append(
                    f"| A 16-bit | {row['what']}, 16-bit weights | {tcol} | {fmt_ns(h['median_ns'])} ({h['impl']}) | "
                    f"{met} | {floor_cell(row, '16-bit', h['median_ns'])} | — | — | — |"
                )
    out.append("")
    out.extend(peer_table(peer))
    out.extend(threads_table(rows, targets, (fl or {}).get("team")))
    for row in rows:
        if not row["entries"]:
            continue
        out.append(f"#### {row['config']}: {row['what']}")
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


# Microarchitectures by (vendor, cpu family, model), as /proc/cpuinfo numbers them: the key a
# run's results are kept under, and its name. A CPU not listed is keyed by its numbers.
MICROARCH = {
    ("amd", 25, None): ("amd-zen3", "AMD Zen 3"),
    ("amd", 26, None): ("amd-zen5", "AMD Zen 5"),
    # Zen 4 shares Zen 3's family 25: models 0x10-0x1f, 0x60-0x7f and 0xa0-0xaf are Zen 4.
    **{("amd", 25, m): ("amd-zen4", "AMD Zen 4") for m in [*range(0x10, 0x20), *range(0x60, 0x80), *range(0xA0, 0xB0)]},
    ("intel", 6, 106): ("intel-icelake", "Intel Ice Lake"),
    ("intel", 6, 108): ("intel-icelake", "Intel Ice Lake"),
    ("intel", 6, 143): ("intel-sapphirerapids", "Intel Sapphire Rapids"),
}


def machine():
    """The CPU: its model name, vendor, microarchitecture (the key its results are kept
    under), cores, vector extensions and caches, from /proc/cpuinfo and lscpu."""
    import os
    import subprocess

    fields = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if ":" in line:
                k, v = (t.strip() for t in line.split(":", 1))
                fields.setdefault(k, v)
    except OSError:
        pass
    name = fields.get("model name", platform.machine())
    flags = set(fields.get("flags", "").split())
    vendor = {"AuthenticAMD": "amd", "GenuineIntel": "intel"}.get(fields.get("vendor_id"), platform.machine())
    family = int(fields.get("cpu family", "0") or 0)
    model = int(fields.get("model", "0") or 0)
    key, arch = MICROARCH.get(
        (vendor, family, model),
        MICROARCH.get((vendor, family, None), (f"{vendor}-family{family}-model{model}", f"{vendor} family {family} model {model}")),
    )
    lscpu = ""
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        pass
    vector = [f for f in ("avx512f", "avx512bw", "avx512vl", "avx512_bf16", "avx512fp16", "avx2", "fma", "f16c") if f in flags]
    return {
        "model": name,
        "vendor": vendor,
        "key": key,
        "microarchitecture": arch,
        "cpu_family": family,
        "cpu_model": model,
        "cores": os.cpu_count(),
        "vector": vector,
        "lscpu": lscpu,
    }


def family_files(perf):
    """Every family's latest results, family name first, sorted."""
    out = []
    for p in sorted(perf.glob("results-*.json")):
        out.append((p.stem.removeprefix("results-"), json.loads(p.read_text())))
    return out


def render(perf):
    """Writes the results section of docs/PERFORMANCE.md from every family's latest run."""
    sections = []
    for fam, res in family_files(perf):
        sections.append(f"### {res['meta']['machine']} ({fam})")
        sections.append("")
        sections.append(f"![ns per step of each configuration, {fam}](perf/chart-{fam}.svg)")
        sections.append("")
        sections.append(
            markdown(
                res["configs"], res.get("openvino"), res["meta"], fam, res.get("cost"), res.get("floors"), res.get("peer")
            )
        )
        sections.append("")
    doc = ROOT / "docs" / "PERFORMANCE.md"
    text = doc.read_text() if doc.exists() else "<!-- results:begin -->\n<!-- results:end -->\n"
    begin, end = "<!-- results:begin -->", "<!-- results:end -->"
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    body = "\n".join(sections).rstrip("\n")
    doc.write_text(f"{head}{begin}\n{body}\n{end}{tail}")
    return doc


def main():
    perf = ROOT / "docs" / "perf"
    if sys.argv[1:] == ["--render"]:
        print(f"wrote {render(perf)}")
        return
    crit_root = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target" / "criterion"
    ov_path = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "target" / "openvino.json"
    ov = json.loads(ov_path.read_text()) if ov_path.exists() else None
    cost_path = Path(sys.argv[3]) if len(sys.argv) > 3 else ROOT / "target" / "cost.json"
    cost = json.loads(cost_path.read_text()) if cost_path.exists() else None
    peer_path = Path(sys.argv[4]) if len(sys.argv) > 4 else ROOT / "target" / "peer.json"
    peer = json.loads(peer_path.read_text()) if peer_path.exists() else None
    import datetime

    cpu = machine()
    family = cpu["key"]
    meta = {
        "date": datetime.date.today().isoformat(),
        "machine": f"{cpu['model']} ({cpu['microarchitecture']}), {cpu['cores']} cores",
        "cpu": cpu,
    }
    fl = floors(crit_root)
    if fl is not None:
        fl["team"] = team_costs(crit_root)
    rows = collect(crit_root, ov, fl)
    perf.mkdir(parents=True, exist_ok=True)
    results = {"meta": meta, "openvino": ov, "floors": fl, "configs": rows, "cost": cost, "peer": peer}
    (perf / f"results-{family}.json").write_text(json.dumps(results, indent=1) + "\n")
    (perf / f"chart-{family}.svg").write_text(svg(rows) + "\n")
    doc = render(perf)
    print(f"wrote {doc}, {perf / f'results-{family}.json'}, {perf / f'chart-{family}.svg'}")


if __name__ == "__main__":
    main()
