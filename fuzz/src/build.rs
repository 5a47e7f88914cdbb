//! Accepted models, built and run for real: their Rust in one scratch crate (warnings
//! denied) and their C with the strict flags, each run once on small random inputs (every
//! sequence empty: its lengths 0), so generated code that does not compile, warns, panics
//! or reads out of bounds (with the C built under the sanitizers when
//! `CELLC_SCRATCH_CFLAGS` asks for them) is found; and their outputs compared with the
//! reference interpreter's on the same inputs, so code that runs but computes something
//! else is found too.
use crate::target::Input;
use cellc::ir::{Batch, Dim, ParamRole};
use cellc::{Language, Options, WeightType, WeightsMode};
use cellc_conformance::scratch::{Job, Scratch};
use std::path::Path;

/// An accepted model, checked again.
fn model(input: &Input) -> Result<cellc::ir::verify::Verified, String> {
    let g = crate::target::graph(input).ok_or("the model is no longer read")?;
    cellc::model_of(g).map_err(|d| d.to_string())
}

/// Elements of a tensor, the batch being `batch`.
fn elements(shape: &[Dim], batch: usize) -> usize {
    shape.iter().map(|d| if let Dim::Static(n) = d { *n } else { batch }).product()
}

/// The rows a job runs.
fn batch(m: &cellc::ir::Model) -> usize {
    match m.batch {
        Batch::Static(n) => n,
        Batch::Dynamic => 3,
    }
}

/// The inputs of model `m` (its own Parameters): values in [-1, 1) drawn from `seed`,
/// sequence lengths 0.
fn inputs(m: &cellc::ir::Model, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let b = batch(m);
    m.params
        .iter()
        .map(|p| {
            let n = elements(&p.shape, b);
            if p.role == ParamRole::Lengths { vec![0.0; n] } else { (0..n).map(|_| rng.f64() * 2.0 - 1.0).collect() }
        })
        .collect()
}

/// A job running module `k` of language `lang` on `values` (the emitted model's inputs,
/// weights given at run time included) into `dir`.
fn job(k: usize, m: &cellc::ir::Model, values: &[Vec<f64>], dir: &Path, lang: &str) -> Result<Job, String> {
    let batch = batch(m);
    let (mut inputs, mut weights) = (Vec::new(), Vec::new());
    for (i, (p, v)) in m.params.iter().zip(values).enumerate() {
        let ext = if p.role == ParamRole::Lengths { "i32" } else { "f32" };
        let path = dir.join(format!("{lang}{k}_in{i}.{ext}"));
        let bytes: Vec<u8> = if p.role == ParamRole::Lengths {
            v.iter().flat_map(|&x| (x as i32).to_le_bytes()).collect()
        } else {
            v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
        };
        std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
        // Weights given at run time are set once; the runs take the rest.
        match p.role {
            ParamRole::Weights => weights.push(path),
            ParamRole::Data | ParamRole::Lengths => inputs.push(path),
        }
    }
    let outputs = m
        .outputs
        .iter()
        .enumerate()
        .map(|(o, t)| (dir.join(format!("{lang}{k}_out{o}.f32")), elements(&t.shape, batch)));
    Ok(Job { weights, ..Job::single(k, inputs, outputs.collect()) })
}

/// Writes the model of module `k` of `lang` to `out` as `{lang}{k}.xml` and `.bin` (or
/// `.onnx`), so a compiler's message about module `m{k}` names the input to triage.
fn keep(out: &Path, lang: &str, k: usize, input: &Input) -> Result<(), String> {
    let base = out.join(format!("{lang}{k}"));
    let written = match input {
        Input::Ir { xml, bin } => std::fs::write(base.with_extension("xml"), xml)
            .and_then(|()| std::fs::write(base.with_extension("bin"), bin)),
        Input::Onnx { bytes, .. } => std::fs::write(base.with_extension("onnx"), bytes),
        Input::Decl { text, .. } => std::fs::write(base.with_extension("decl"), text),
    };
    written.map_err(|e| e.to_string())
}

/// Builds and runs the models (IR or ONNX inputs) as Rust and as C; the first failure's output. A
/// model an emitter refuses (with a diagnostic: the C of 16-bit weights given at run time)
/// is built in the other language only. Module `m{k}` of each language is kept in `out` as
/// `rs{k}` and `c{k}`.
pub(crate) fn build_and_run(models: &[Input], out: &Path) -> Result<(), String> {
    let scratch = Scratch::new("fuzz");
    let dir = scratch.data_dir("inputs")?;
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let (mut rust, mut rust_jobs, mut c, mut c_jobs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // What each job's outputs must be: the reference interpreter's on the same inputs.
    let (mut rust_want, mut c_want) = (Vec::new(), Vec::new());
    for (n, input) in models.iter().enumerate() {
        let m = model(input)?;
        let data = inputs(&m, n as u64);
        // Every other model with its weights given at run time, in each storage type.
        let weights_mode = if n % 2 == 1 { WeightsMode::Runtime } else { WeightsMode::Embedded };
        let weight_type = [WeightType::Auto, WeightType::F32, WeightType::F16, WeightType::Bf16][n / 2 % 4];
        let opts = Options::default().name(Some("Model".into())).weights_mode(weights_mode).weight_type(weight_type);
        // Weights given at run time are Parameters of the model as it is emitted.
        let (emitted, values) = if weights_mode == WeightsMode::Runtime {
            let (e, weights) = m.with_runtime_weights();
            let w = weights.iter().map(|v| v.iter().map(|&x| f64::from(x)).collect());
            (e, data.iter().cloned().chain(w).collect::<Vec<_>>())
        } else {
            (m.model().clone(), data.clone())
        };
        let (reference, ref_inputs) =
            cellc_conformance::stored_as(&m, &data, weight_type).unwrap_or((m.model().clone(), data));
        let run =
            |i: &[Vec<f64>]| cellc::reference::run(&reference, i).map_err(|e| format!("the reference refused: {e}"));
        let exact = run(&ref_inputs)?;
        // With each input moved by one rounding: f32 code cannot be asked to be closer to the
        // exact result than some multiple of how far that moves it.
        let nudged = run(&nudge(&m, &ref_inputs))?;
        let want: Vec<Vec<(f64, f64)>> = exact
            .iter()
            .zip(&nudged)
            .map(|(e, n)| e.iter().zip(n).map(|(&a, &b)| (a, moved(a, b))).collect())
            .collect();
        if let Ok(r) = cellc::emit::rust::emit(&m, &opts) {
            keep(out, "rs", rust.len(), input)?;
            rust_jobs.push(job(rust.len(), &emitted, &values, &dir, "rs")?);
            rust_want.push(want.clone());
            rust.push(r);
        }
        let k = c.len();
        let copts = opts.language(Language::C).name(Some(format!("m{k}")));
        if let Ok(cf) = cellc::emit::c::emit(&m, &copts, &format!("m{k}.h")) {
            keep(out, "c", k, input)?;
            c_jobs.push(job(k, &emitted, &values, &dir, "c")?);
            c_want.push(want);
            c.push(cf);
        }
    }
    if !rust.is_empty() {
        let exe = scratch.build(&rust).map_err(|e| format!("the generated Rust does not build:\n{e}"))?;
        scratch.run(&exe, &rust_jobs).map_err(|e| format!("the generated Rust failed:\n{e}"))?;
        agree("rs", &rust_jobs, &rust_want)?;
    }
    if !c.is_empty() {
        let exe = scratch.build_c(&c).map_err(|e| format!("the generated C does not build:\n{e}"))?;
        scratch.run(&exe, &c_jobs).map_err(|e| format!("the generated C failed:\n{e}"))?;
        agree("c", &c_jobs, &c_want)?;
    }
    Ok(())
}

/// How far `b` is from `a`: 0 when equal (two NaNs too), infinite when only one is NaN.
fn moved(a: f64, b: f64) -> f64 {
    if a == b || a.is_nan() && b.is_nan() {
        return 0.0;
    }
    let d = (a - b).abs();
    if d.is_nan() { f64::INFINITY } else { d }
}

/// The inputs of `m` each moved by one f32 rounding (up and down in turn); sequence lengths
/// as they are.
fn nudge(m: &cellc::ir::Model, inputs: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let ulp = f64::from(f32::EPSILON) / 2.0;
    inputs
        .iter()
        .zip(&m.params)
        .map(|(v, p)| {
            let keep = p.role == ParamRole::Lengths;
            v.iter().enumerate().map(|(j, &x)| if keep { x } else { x * (1.0 + ulp * [1.0, -1.0][j % 2]) }).collect()
        })
        .collect()
}

/// Whether a generated output value is the reference's `want` (with how far one rounding of
/// the inputs moves it): within 1e-3 of it relative to its size past 1, plus 64 such moves
/// (the reference computes cells in f64, and a mutant's weights may be large or amplify
/// errors step after step); NaN for NaN. A reference value past f32's range is not
/// compared: f32 code overflows there.
fn close(got: f32, (want, moved): (f64, f64)) -> bool {
    let g = f64::from(got);
    want.is_nan() && got.is_nan()
        || g == want
        || want.abs() > 1e30
        || (g - want).abs() <= 1e-3 * want.abs().max(1.0) + 64.0 * moved
}

/// Compares each job's outputs with the reference's; names the first module that differs.
fn agree(lang: &str, jobs: &[Job], want: &[Vec<Vec<(f64, f64)>>]) -> Result<(), String> {
    for (job, want) in jobs.iter().zip(want) {
        for ((path, _), w) in job.outputs.iter().zip(want) {
            let got = cellc_conformance::case::read_data(path)?;
            let bad = got.iter().zip(w).position(|(&g, &w)| !close(g, w));
            if got.len() != w.len() || bad.is_some() {
                let at = bad.unwrap_or(0);
                return Err(format!(
                    "module {lang}{} computes {:?} at value {at} of {}, where the reference interpreter gives {:?}",
                    job.module,
                    got.get(at),
                    path.display(),
                    w.get(at).map(|p| p.0)
                ));
            }
        }
    }
    Ok(())
}
