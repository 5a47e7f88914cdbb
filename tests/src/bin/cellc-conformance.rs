//! `cellc-conformance [--lang rust|c]... [--strategy auto|unrolled|tiled]... [--weights-mode
//! runtime] [--simd dispatch|build] [--simd-level LEVEL]... [--weight-type auto|f32|f16|bf16|i8]
//! [--fast-activations] DIR...`: compiles each case's model with cellc, builds the generated Rust (or C,
//! with the system's compiler and strict flags) for real, runs it on the case's inputs and
//! compares with the expected outputs; the reference interpreter is checked against the same
//! expectations. With both languages, the Rust and C outputs of each case must also be
//! within the case's tolerance of each other; each line says whether they are bit-identical
//! and whether both fuse multiply-adds alike (the C fuses where its compiler defines
//! `FP_FAST_FMAF`, the Rust at a level with FMA): a fused and an unfused build of one deep
//! model differ by ULPs, and so do the two back-ends' products, which sum in different
//! orders. A case on which cellc, the reference or the generated code panics fails
//! alone, and the others are still reported. With `--weights-mode runtime` the models' constant weights
//! become Parameters, given the constants' values at run time. With `--simd-level`, the
//! Rust runs once at each level given (`portable`, `avx2`, `avx512`; a level the CPU lacks is skipped, with a line saying so),
//! and the outputs of the levels with FMA (`avx2`, `avx512`) must be bit-identical to each
//! other, as must those of levels without. With `--weight-type f16`, `bf16` or `i8` the
//! weights are rounded, so the expected outputs are the reference interpreter's on the model
//! with its weight matrices rounded to that type ([`cellc_conformance::stored_as`]), and the
//! lines show how far the rounding moved them from OpenVINO's; a case whose `case.json`
//! fixes its weight type is compiled with it and checked against its own expected outputs.
//! With `--fast-activations` the models use `cellc_runtime::act::fast`, and must still be
//! within each case's tolerance of OpenVINO's outputs. One line per case, language,
//! strategy (and level); exit status 1 if any fails. With `--sample PERCENT`, only that
//! share of the cases runs, drawn by a seed (`--seed N`, else a fresh one) that the first line
//! prints, so that a failing draw reproduces with one command.
use cellc::{Language, Options, Strategy, WeightsMode};
use cellc_conformance::args::{Args, draw, fresh_seed, guarded};
use cellc_conformance::case::{Case, read_data, write_f32};
use cellc_conformance::scratch::{Job, Module, Scratch};
use cellc_conformance::{max_abs_err, tolerance_used};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Whether the generated Rust fuses multiply-adds at `level` (or, with none, at the level
/// it runs at here: the best the CPU has, capped by `CELLC_SIMD`; with every level when it
/// is built for this CPU).
fn rust_fuses(level: Option<&str>) -> bool {
    use cellc_runtime::__private::simd::{Level, cpu_level, level as run_level};
    let native = std::env::var("CELLC_SCRATCH_RUSTFLAGS").is_ok_and(|f| f.contains("target-cpu=native"));
    match level.and_then(Level::parse) {
        _ if native => cpu_level() > Level::Portable,
        Some(l) => l > Level::Portable,
        None => run_level() > Level::Portable,
    }
}

/// Whether two runs gave the same bits (NaNs of any payload count as equal).
fn same_bits(a: &[Vec<f32>], b: &[Vec<f32>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
        })
}

#[derive(Clone)]
struct Entry {
    case: Case,
    language: Language,
    strategy: Strategy,
    /// The vector level the Rust was forced to run at.
    level: Option<String>,
    module: Option<usize>,
    problem: Option<String>,
    reference_err: Vec<f64>,
    /// How much of the case's tolerance the reference interpreter uses (see
    /// `tolerance_used`).
    reference_used: f64,
    /// Files of the weights given at run time, after the case's inputs.
    weight_inputs: Vec<PathBuf>,
    /// Whether each of the case's inputs is a Parameter holding weights (set once, not run).
    weight_params: Vec<bool>,
    /// The outputs expected: OpenVINO's, or the reference interpreter's on rounded weights.
    expected: Vec<Vec<f32>>,
    /// Whether `expected` is the reference's on rounded weights.
    rounded: bool,
}

/// The largest cell (`H·(H+I)`) the suite builds with the unrolled kernel.
const UNROLLED_MAX: usize = 20_000;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("cellc-conformance: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<bool, String> {
    let Args { languages, strategies, weights_mode, levels, simd, weight_type, fast_activations, sample, dirs } =
        Args::parse(std::env::args().skip(1))?;
    let weights_dir = Scratch::new("conformance").data_dir("weights")?;
    let mut cases = Vec::new();
    for d in &dirs {
        for dir in Case::discover(d)? {
            cases.extend(Case::variants(&dir)?);
        }
    }
    if cases.is_empty() {
        return Err("no case directories (with case.json) found".into());
    }
    if let Some((percent, seed)) = sample {
        let seed = seed.unwrap_or_else(fresh_seed);
        let all = cases.len();
        cases.retain(|c| draw(seed, &c.name) % 100 < percent);
        println!(
            "sample: {} of {all} cases ({percent}%), seed {seed}: the same draw again with --sample {percent} --seed {seed}",
            cases.len()
        );
    }
    let mut entries = Vec::new();
    let mut sources = Vec::new();
    let mut c_sources = Vec::new();
    let mut built: std::collections::HashMap<(String, bool), Vec<usize>> = std::collections::HashMap::new();
    for (&language, &strategy) in languages.iter().flat_map(|l| strategies.iter().map(move |s| (l, s))) {
        for case in &cases {
            let case = case.clone();
            let mut e = Entry {
                case,
                language,
                strategy,
                level: None,
                module: None,
                problem: None,
                reference_err: Vec::new(),
                reference_used: 0.0,
                weight_inputs: Vec::new(),
                weight_params: Vec::new(),
                expected: Vec::new(),
                rounded: false,
            };
            e.expected = e.case.outputs.iter().map(|(_, v)| v.clone()).collect();
            let name = match language {
                Language::Rust => "Model".to_owned(),
                Language::C => format!("m{}", c_sources.len()),
            };
            let mut opts = Options::default()
                .name(Some(name.clone()))
                .strategy(strategy)
                .weights_mode(weights_mode)
                .language(language)
                .simd(simd)
                .weight_type(e.case.weight_type.unwrap_or(weight_type))
                .fast_activations(fast_activations)
                .input_shapes(e.case.pins.clone())
                .cut_inputs(e.case.cut.0.clone())
                .cut_outputs(e.case.cut.1.clone());
            let stated = e.case.states.iter().try_for_each(|s| opts.set("state", s).map_err(|err| err.to_string()));
            // Every plan is checked against itself too (a release build of cellc does not).
            let loaded = stated
                .and_then(|()| guarded("cellc", || cellc::load_graph(&e.case.model, &opts)))
                .and_then(|r| r.map_err(|d| d.to_string()))
                .and_then(|m| {
                    m.verify(&[]).map(|()| m).map_err(|p| {
                        format!(
                            "the plan fails its check: {}",
                            p.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
                        )
                    })
                });
            match loaded {
                Err(d) => e.problem = Some(format!("does not compile: {d}")),
                // The unrolled kernel is for tiny cells: past this size its code takes minutes
                // to build and is never what `auto` picks.
                Ok(model)
                    if strategy == Strategy::Unrolled
                        && model
                            .cells
                            .iter()
                            .any(|c| c.spec.hidden * (c.spec.hidden + c.spec.input) > UNROLLED_MAX) =>
                {
                    println!(
                        "SKIP {} [{}, unrolled]: a cell past H·(H+I) = {UNROLLED_MAX}",
                        e.case.name,
                        language.name()
                    );
                    continue;
                }
                Ok(model) => {
                    e.weight_params = model.params.iter().map(|p| p.role == cellc::ir::ParamRole::Weights).collect();
                    let inputs: Vec<Vec<f64>> =
                        e.case.inputs.iter().map(|(_, v)| v.iter().map(|&x| x as f64).collect()).collect();
                    // A case that fixes its weight type is checked against its oracle as it is.
                    let rounded = match e.case.weight_type {
                        Some(_) => None,
                        None => cellc_conformance::stored_as(&model, &inputs, weight_type),
                    };
                    let ref_model = rounded.as_ref().map_or(model.model(), |(m, _)| m);
                    let reference = guarded("the reference interpreter", || {
                        frames(&e.case, ref_model, rounded.as_ref().map(|(_, i)| i.as_slice()))
                    })
                    .and_then(|r| r);
                    match reference {
                        Ok(outs) => {
                            if rounded.is_some() {
                                e.rounded = true;
                                e.expected = outs.iter().map(|o| o.iter().map(|&v| v as f32).collect()).collect();
                            }
                            let ulps = e.case.ulps;
                            for ((o, (_, want)), &tol) in outs.iter().zip(&e.case.outputs).zip(&e.case.tolerances) {
                                let want64: Vec<f64> = want.iter().map(|&w| w as f64).collect();
                                let o32: Vec<f32> = o.iter().map(|&v| v as f32).collect();
                                e.reference_err.push(max_abs_err(&o32, &want64));
                                e.reference_used = e.reference_used.max(tolerance_used(&o32, &want64, tol, ulps));
                            }
                        }
                        Err(err) => e.problem = Some(format!("reference interpreter: {err}")),
                    }
                    if weights_mode == WeightsMode::Runtime {
                        for (j, values) in model.with_runtime_weights().1.iter().enumerate() {
                            let path = weights_dir.join(format!("{}_{j}.f32", entries.len()));
                            write_f32(&path, values)?;
                            e.weight_inputs.push(path);
                        }
                    }
                    // Code identical to an earlier entry's of the same case (a strategy that
                    // changes nothing in a model without cells) is built once and run by both.
                    let earlier: Vec<usize> =
                        built.get(&(e.case.name.clone(), language == Language::C)).cloned().unwrap_or_default();
                    let emitted = match language {
                        // Large tables as bytes beside the source, as when writing a file.
                        Language::Rust => guarded("the Rust emitter", || {
                            cellc::emit::rust::emit_files(&model, &opts, Some(Module::TABLES))
                        })
                        .and_then(|r| r.map_err(|d| d.to_string()))
                        .map(|r| Module { source: r.source, tables: r.weights })
                        .map(|module| match earlier.iter().find(|&&k| sources[k] == module) {
                            Some(&k) => e.module = Some(k),
                            None => {
                                e.module = Some(sources.len());
                                sources.push(module);
                            }
                        }),
                        Language::C => {
                            let emit_as = |name: &str| {
                                let opts = opts.clone().name(Some(name.to_owned()));
                                guarded("the C emitter", || cellc::emit::c::emit(&model, &opts, &format!("{name}.h")))
                                    .and_then(|r| r.map_err(|d| d.to_string()))
                            };
                            let same = earlier
                                .iter()
                                .copied()
                                .find(|&k| emit_as(&format!("m{k}")).is_ok_and(|files| files == c_sources[k]));
                            match same {
                                Some(k) => {
                                    e.module = Some(k);
                                    Ok(())
                                }
                                None => emit_as(&name).map(|files| {
                                    e.module = Some(c_sources.len());
                                    c_sources.push(files);
                                }),
                            }
                        }
                    };
                    if let Some(k) = e.module.filter(|k| !earlier.contains(k)) {
                        built.entry((e.case.name.clone(), language == Language::C)).or_default().push(k);
                    }
                    if let Err(d) = emitted {
                        e.problem = Some(format!("does not compile: {d}"));
                    }
                }
            }
            // One entry per level, all running the same module.
            if language == Language::Rust && !levels.is_empty() {
                for l in &levels {
                    entries.push(Entry { level: Some(l.clone()), ..e.clone() });
                }
                continue;
            }
            entries.push(e);
        }
    }
    let scratch = Scratch::new("conformance");
    // Outputs of an earlier run must never be read as this one's.
    let out_dir = scratch.data_dir("outputs")?;
    std::fs::remove_dir_all(&out_dir).map_err(|e| format!("cannot clear {}: {e}", out_dir.display()))?;
    let out_dir = scratch.data_dir("outputs")?;
    // A level this CPU lacks cannot be run here: its entries are skipped, and say so.
    let cpu = cellc_runtime::__private::simd::cpu_level();
    let missing: Vec<String> = levels
        .iter()
        .filter(|l| cellc_runtime::__private::simd::Level::parse(l).is_some_and(|l| l > cpu))
        .cloned()
        .collect();
    for l in &missing {
        println!("SKIP every case at the level {l:?}: this CPU runs at most {:?}", cpu.name());
    }
    entries.retain(|e| e.level.as_ref().is_none_or(|l| !missing.contains(l)));
    for language in languages.iter().copied() {
        // Nothing to build when no case compiled in this language: the report says why.
        let count = if language == Language::Rust { sources.len() } else { c_sources.len() };
        if count == 0 {
            continue;
        }
        let exe = match language {
            Language::Rust => {
                eprintln!("building {} generated Rust models...", sources.len());
                scratch.build_modules(&sources)?
            }
            Language::C => {
                eprintln!("compiling {} generated C models...", c_sources.len());
                scratch.build_c(&c_sources)?
            }
        };
        let runs: Vec<Option<&str>> = match language {
            Language::Rust if !levels.is_empty() => {
                levels.iter().filter(|l| !missing.contains(l)).map(|l| Some(l.as_str())).collect()
            }
            _ => vec![None],
        };
        for level in runs {
            let jobs = jobs(&entries, language, level, &out_dir);
            // Job failures show up below as missing outputs, case by case.
            if let Err(e) = scratch.run_at(&exe, &jobs, level) {
                eprintln!("{e}");
            }
        }
    }
    let c_fuses = if languages.contains(&Language::C) { cellc_conformance::cscratch::fuses() } else { None };
    report(&entries, weights_mode, &out_dir, c_fuses)
}

/// The reference interpreter's outputs on a case, frame after frame on one session (each
/// output the frames' values in order), the carried outputs fed back. `rounded`: the
/// inputs with weights given as Parameters rounded to a stored type (a single frame).
fn frames(case: &Case, m: &cellc::ir::Model, rounded: Option<&[Vec<f64>]>) -> Result<Vec<Vec<f64>>, String> {
    let mut session = cellc::reference::Session::new(m);
    let mut outs: Vec<Vec<f64>> = vec![Vec::new(); case.outputs.len()];
    let mut carried: Vec<(usize, Vec<f64>)> = Vec::new();
    for f in 0..case.frames {
        let mut ins = match rounded {
            Some(r) if case.frames == 1 => r.to_vec(),
            _ => case.frame_inputs(f),
        };
        for (i, v) in carried.drain(..) {
            ins[i] = v;
        }
        let got = cellc::reference::run_session(m, &ins, &mut session).map_err(|e| e.to_string())?;
        carried = case.carry.iter().map(|&(o, i)| (i, got[o].clone())).collect();
        for (acc, o) in outs.iter_mut().zip(got) {
            acc.extend(o);
        }
    }
    Ok(outs)
}

/// The jobs of the entries in `language` (at `level`), each writing its outputs into `out_dir`.
fn jobs(entries: &[Entry], language: Language, level: Option<&str>, out_dir: &Path) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (k, e) in entries.iter().enumerate().filter(|(_, e)| e.language == language && e.level.as_deref() == level) {
        let Some(module) = e.module else { continue };
        // The case's inputs in Parameter order, split as the model takes them: data each
        // run, weights once.
        let is_weight = |k: usize| e.weight_params.get(k).copied().unwrap_or(false);
        let files = e.case.inputs.iter().enumerate().map(|(k, (t, _))| (k, e.case.dir.join(&t.file)));
        let (weights, inputs): (Vec<_>, Vec<_>) = files.partition(|(k, _)| is_weight(*k));
        let run_index = |i: usize| (0..i).filter(|&k| !is_weight(k)).count();
        jobs.push(Job {
            module,
            inputs: inputs.into_iter().map(|(_, f)| f).collect(),
            weights: weights.into_iter().map(|(_, f)| f).chain(e.weight_inputs.clone()).collect(),
            outputs: e
                .case
                .outputs
                .iter()
                .enumerate()
                .map(|(o, (_, v))| (out_dir.join(format!("{k}_{o}.f32")), v.len()))
                .collect(),
            frames: e.case.frames,
            carry: e.case.carry.iter().map(|&(o, i)| (o, run_index(i))).collect(),
        });
    }
    jobs
}

/// The outputs of entry `k`, or what is wrong.
fn outputs(e: &Entry, k: usize, out_dir: &Path) -> Result<Vec<Vec<f32>>, String> {
    if let Some(p) = &e.problem {
        return Err(p.clone());
    }
    (0..e.case.outputs.len())
        .map(|o| read_data(&out_dir.join(format!("{k}_{o}.f32"))).map_err(|err| format!("no output: {err}")))
        .collect()
}

/// Prints one line per entry and the summary; whether all passed.
fn report(entries: &[Entry], weights_mode: WeightsMode, out_dir: &Path, c_fuses: Option<bool>) -> Result<bool, String> {
    let (mut passed, mut failed) = (0, 0);
    // C is compared with the Rust run at the first level given (or the only run).
    let rust_level = entries.iter().find(|f| f.language == Language::Rust).and_then(|f| f.level.clone());
    for (k, e) in entries.iter().enumerate() {
        let mode = match weights_mode {
            WeightsMode::Embedded => String::new(),
            WeightsMode::Runtime => ", runtime weights".into(),
        };
        let level = e.level.as_ref().map_or_else(String::new, |l| format!(", {l}"));
        let label = format!("{} [{}, {}{mode}{level}]", e.case.name, e.language.name(), e.strategy.name());
        let got = outputs(e, k, out_dir);
        // The same case and strategy at the first level that multiplies and adds as this one
        // does (fused with FMA, or not): such levels compute the same bits.
        let fused = |l: &Option<String>| l.as_deref() != Some("portable");
        let first_level = entries.iter().enumerate().find(|(_, t)| {
            e.level.is_some()
                && t.level.is_some()
                && t.level != e.level
                && fused(&t.level) == fused(&e.level)
                && t.strategy == e.strategy
                && t.case.name == e.case.name
        });
        let same_as_first = match (&got, first_level) {
            (Ok(got), Some((j, t))) if j < k => Some(outputs(t, j, out_dir).is_ok_and(|first| {
                first.iter().zip(got).all(|(a, b)| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()))
            })),
            _ => None,
        };
        // The same case and strategy in the other language, run earlier in the list.
        let twin = entries.iter().enumerate().find(|(_, t)| {
            t.language != e.language
                && t.language == Language::Rust
                && t.level == rust_level
                && t.strategy == e.strategy
                && t.case.name == e.case.name
        });
        // The C and the Rust answer to the case's tolerance of each other too.
        let versus = match (&got, twin) {
            (Ok(got), Some((j, t))) => outputs(t, j, out_dir).ok().map(|rust| {
                let (mut diff, mut used) = (0.0f64, 0.0f64);
                for ((r, c), &tol) in rust.iter().zip(got).zip(&e.case.tolerances) {
                    let r: Vec<f64> = r.iter().map(|&v| v as f64).collect();
                    diff = diff.max(max_abs_err(c, &r));
                    used = used.max(tolerance_used(c, &r, tol, e.case.ulps));
                }
                let alike = c_fuses.map(|c| c == rust_fuses(t.level.as_deref()));
                (diff, used, alike, same_bits(&rust, got))
            }),
            _ => None,
        };
        let (mut errs, mut used) = (Vec::new(), 0.0f64);
        if let Ok(got) = &got {
            for ((g, want), &tol) in got.iter().zip(&e.expected).zip(&e.case.tolerances) {
                let want: Vec<f64> = want.iter().map(|&w| w as f64).collect();
                errs.push(max_abs_err(g, &want));
                used = used.max(tolerance_used(g, &want, tol, e.case.ulps));
            }
        }
        // With rounded weights the reference runs on them, and its distance from OpenVINO is
        // what the rounding costs, reported rather than checked.
        let rounded = e.rounded;
        let ok = got.is_ok()
            && errs.len() == e.expected.len()
            && used <= 1.0
            && (rounded || e.reference_used <= 1.0)
            && versus.is_none_or(|(_, used, _, _)| used <= 1.0)
            && same_as_first != Some(false);
        let fmt = |v: &[f64]| v.iter().map(|x| format!("{x:.2e}")).collect::<Vec<_>>().join(" ");
        match &got {
            Err(p) => println!("FAIL {label}: {p}"),
            Ok(_) => println!(
                "{} {label}: max |err| {} ({} {}) at tolerance {:.0e}{}{}{}",
                if ok { "PASS" } else { "FAIL" },
                fmt(&errs),
                if rounded {
                    "vs the reference on rounded weights; the rounding moved it from the expected values by"
                } else {
                    "reference interpreter"
                },
                fmt(&e.reference_err),
                e.case.tolerance,
                if e.case.ulps > 0.0 {
                    format!(" or {} ULP ({:.0}% used)", e.case.ulps, used * 100.0)
                } else {
                    String::new()
                },
                versus.map_or_else(String::new, |(v, used, alike, same)| {
                    let fuse = match alike {
                        Some(true) => "both fuse multiply-adds alike",
                        Some(false) => "one fuses multiply-adds, the other not",
                        None => "whether the C fuses is not known",
                    };
                    let bits = if same { "bit-identical" } else { "not bit-identical" };
                    format!("; |rust - c| {v:.2e} ({:.0}% of the tolerance; {bits}; {fuse})", used * 100.0)
                }),
                match same_as_first {
                    Some(true) => "; bit-identical to the first level with the same rounding",
                    Some(false) => "; DIFFERS from the first level with the same rounding",
                    None => "",
                }
            ),
        }
        if ok { passed += 1 } else { failed += 1 }
    }
    println!("conformance: {passed} passed, {failed} failed");
    Ok(failed == 0)
}
