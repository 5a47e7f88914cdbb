//! `cellc-conformance [--strategy auto|unrolled|tiled]... [--weights-mode runtime] DIR...`:
//! compiles each case's model with cellc, builds the generated Rust for real, runs it on the
//! case's inputs and compares with the expected outputs; the reference interpreter is
//! checked against the same expectations. With `--weights-mode runtime` the models' constant
//! weights become Parameters, given the constants' values at run time. One line per case
//! and strategy; exit status 1 if any fails.
use cellc::{Options, Strategy, WeightsMode};
use cellc_conformance::case::{Case, read_data, write_f32};
use cellc_conformance::max_abs_err;
use cellc_conformance::scratch::{Job, Scratch};
use std::path::PathBuf;
use std::process::ExitCode;

struct Entry {
    case: Case,
    strategy: Strategy,
    module: Option<usize>,
    problem: Option<String>,
    reference_err: Vec<f64>,
    /// Files of the weights given at run time, after the case's inputs.
    weight_inputs: Vec<PathBuf>,
}

const USAGE: &str =
    "usage: cellc-conformance [--strategy auto|unrolled|tiled]... [--weights-mode embedded|runtime] DIR...";

fn parse_args() -> Result<(Vec<Strategy>, WeightsMode, Vec<PathBuf>), String> {
    let mut mode = WeightsMode::Embedded;
    let mut strategies = Vec::new();
    let mut dirs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--strategy" => {
                let s = args.next().ok_or("--strategy needs a value")?;
                let k =
                    Strategy::parse(&s).ok_or(format!("unknown strategy {s:?}; expected auto, unrolled or tiled"))?;
                strategies.push(k);
            }
            "--weights-mode" => {
                mode = args
                    .next()
                    .and_then(|m| WeightsMode::parse(&m))
                    .ok_or("--weights-mode takes embedded or runtime")?;
            }
            "-h" | "--help" => return Err(USAGE.into()),
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    if dirs.is_empty() {
        return Err(USAGE.into());
    }
    if strategies.is_empty() {
        strategies.push(Strategy::Auto);
    }
    Ok((strategies, mode, dirs))
}

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
    let (strategies, weights_mode, dirs) = parse_args()?;
    let weights_dir = Scratch::new("conformance").data_dir("weights")?;
    let mut case_dirs = Vec::new();
    for d in &dirs {
        case_dirs.extend(Case::discover(d)?);
    }
    if case_dirs.is_empty() {
        return Err("no case directories (with case.json) found".into());
    }
    let mut entries = Vec::new();
    let mut sources = Vec::new();
    for &strategy in &strategies {
        for dir in &case_dirs {
            let case = Case::load(dir)?;
            let mut e = Entry {
                case,
                strategy,
                module: None,
                problem: None,
                reference_err: Vec::new(),
                weight_inputs: Vec::new(),
            };
            let opts = Options { name: Some("Model".into()), strategy, weights_mode, ..Options::default() };
            match cellc::load_ir(&dir.join("model.xml"), None) {
                Err(d) => e.problem = Some(format!("does not compile: {d}")),
                Ok(model) => {
                    let inputs: Vec<Vec<f64>> =
                        e.case.inputs.iter().map(|(_, v)| v.iter().map(|&x| x as f64).collect()).collect();
                    match cellc::reference::run(&model, &inputs) {
                        Ok(outs) => {
                            e.reference_err = outs
                                .iter()
                                .zip(&e.case.outputs)
                                .map(|(o, (_, want))| {
                                    let want64: Vec<f64> = want.iter().map(|&w| w as f64).collect();
                                    let o32: Vec<f32> = o.iter().map(|&v| v as f32).collect();
                                    max_abs_err(&o32, &want64)
                                })
                                .collect();
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
                    match cellc::emit::rust::emit(&model, &opts) {
                        Ok(src) => {
                            e.module = Some(sources.len());
                            sources.push(src);
                        }
                        Err(d) => e.problem = Some(format!("does not compile: {d}")),
                    }
                }
            }
            entries.push(e);
        }
    }
    let scratch = Scratch::new("conformance");
    eprintln!("building {} generated models...", sources.len());
    let exe = scratch.build(&sources)?;
    let out_dir = scratch.data_dir("outputs")?;
    let mut jobs = Vec::new();
    for (k, e) in entries.iter().enumerate() {
        let Some(module) = e.module else { continue };
        jobs.push(Job {
            module,
            inputs: e
                .case
                .inputs
                .iter()
                .map(|(t, _)| e.case.dir.join(&t.file))
                .chain(e.weight_inputs.clone())
                .collect(),
            outputs: e
                .case
                .outputs
                .iter()
                .enumerate()
                .map(|(o, (_, v))| (out_dir.join(format!("{k}_{o}.f32")), v.len()))
                .collect(),
        });
    }
    // Job failures show up below as missing outputs, case by case.
    if let Err(e) = scratch.run(&exe, &jobs) {
        eprintln!("{e}");
    }
    let (mut passed, mut failed) = (0, 0);
    for (k, e) in entries.iter().enumerate() {
        let label = match weights_mode {
            WeightsMode::Embedded => format!("{} [{}]", e.case.name, e.strategy.name()),
            WeightsMode::Runtime => format!("{} [{}, runtime weights]", e.case.name, e.strategy.name()),
        };
        let mut errs = Vec::new();
        let mut problem = e.problem.clone();
        if problem.is_none() {
            for (o, (_, want)) in e.case.outputs.iter().enumerate() {
                match read_data(&out_dir.join(format!("{k}_{o}.f32"))) {
                    Ok(got) => {
                        let want64: Vec<f64> = want.iter().map(|&w| w as f64).collect();
                        errs.push(max_abs_err(&got, &want64));
                    }
                    Err(err) => problem = Some(format!("no output: {err}")),
                }
            }
        }
        let ok = problem.is_none()
            && errs.iter().all(|&x| x <= e.case.tolerance)
            && e.reference_err.iter().all(|&x| x <= e.case.tolerance);
        let fmt = |v: &[f64]| v.iter().map(|x| format!("{x:.2e}")).collect::<Vec<_>>().join(" ");
        match &problem {
            Some(p) => println!("FAIL {label}: {p}"),
            None => println!(
                "{} {label}: max |err| {} (reference interpreter {}) at tolerance {:.0e}",
                if ok { "PASS" } else { "FAIL" },
                fmt(&errs),
                fmt(&e.reference_err),
                e.case.tolerance
            ),
        }
        if ok { passed += 1 } else { failed += 1 }
    }
    println!("conformance: {passed} passed, {failed} failed");
    Ok(failed == 0)
}
