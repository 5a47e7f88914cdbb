//! Accepted models, built and run for real: their Rust in one scratch crate (warnings
//! denied) and their C with the strict flags, each run once on zero inputs, so generated
//! code that does not compile, warns, panics or reads out of bounds (with the C built
//! under the sanitizers when `CELLC_SCRATCH_CFLAGS` asks for them) is found.
use cellc::front::openvino::parse_graph;
use cellc::ir::raw::Weights;
use cellc::ir::{Batch, Dim, ParamRole};
use cellc::{Language, Options, WeightType, WeightsMode};
use cellc_conformance::scratch::{Job, Scratch};
use std::path::Path;

/// An accepted model, checked again.
fn model(xml: &str, bin: &[u8]) -> Result<cellc::ir::Model, String> {
    let g = parse_graph("model.xml", xml, Weights::whole("model.bin", bin.to_vec())).map_err(|d| d.to_string())?;
    cellc::model_of(g).map_err(|d| d.to_string())
}

/// Elements of a tensor, the batch being `batch`.
fn elements(shape: &[Dim], batch: usize) -> usize {
    shape.iter().map(|d| if let Dim::Static(n) = d { *n } else { batch }).product()
}

/// A job running module `k` of language `lang` on zero inputs (lengths 0: every row empty)
/// into `dir`.
fn job(k: usize, m: &cellc::ir::Model, dir: &Path, lang: &str) -> Result<Job, String> {
    let batch = match m.batch {
        Batch::Static(n) => n,
        Batch::Dynamic => 3,
    };
    let mut inputs = Vec::new();
    for (i, p) in m.params.iter().enumerate() {
        let ext = if p.role == ParamRole::Lengths { "i32" } else { "f32" };
        let path = dir.join(format!("{lang}{k}_in{i}.{ext}"));
        std::fs::write(&path, vec![0u8; 4 * elements(&p.shape, batch)]).map_err(|e| e.to_string())?;
        inputs.push(path);
    }
    let outputs = m
        .outputs
        .iter()
        .enumerate()
        .map(|(o, t)| (dir.join(format!("{lang}{k}_out{o}.f32")), elements(&t.shape, batch)));
    Ok(Job { module: k, inputs, outputs: outputs.collect() })
}

/// Writes the model of module `k` of `lang` to `out` as `{lang}{k}.xml` and `.bin`, so a
/// compiler's message about module `m{k}` names the input to triage.
fn keep(out: &Path, lang: &str, k: usize, xml: &str, bin: &[u8]) -> Result<(), String> {
    let base = out.join(format!("{lang}{k}"));
    std::fs::write(base.with_extension("xml"), xml).map_err(|e| e.to_string())?;
    std::fs::write(base.with_extension("bin"), bin).map_err(|e| e.to_string())
}

/// Builds and runs the models `(xml, bin)` as Rust and as C; the first failure's output. A
/// model an emitter refuses (with a diagnostic: the C of 16-bit weights given at run time)
/// is built in the other language only. Module `m{k}` of each language is kept in `out` as
/// `rs{k}` and `c{k}`.
pub(crate) fn build_and_run(models: &[(String, Vec<u8>)], out: &Path) -> Result<(), String> {
    let scratch = Scratch::new("fuzz");
    let dir = scratch.data_dir("inputs")?;
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let (mut rust, mut rust_jobs, mut c, mut c_jobs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (n, (xml, bin)) in models.iter().enumerate() {
        let m = model(xml, bin)?;
        // Every other model with its weights given at run time, in each storage type.
        let weights_mode = if n % 2 == 1 { WeightsMode::Runtime } else { WeightsMode::Embedded };
        let weight_type = [WeightType::Auto, WeightType::F32, WeightType::F16, WeightType::Bf16][n / 2 % 4];
        let opts = Options { name: Some("Model".into()), weights_mode, weight_type, ..Options::default() };
        // Weights given at run time are Parameters of the model as it is emitted.
        let emitted = if weights_mode == WeightsMode::Runtime { m.with_runtime_weights().0 } else { m.clone() };
        if let Ok(r) = cellc::emit::rust::emit(&m, &opts) {
            keep(out, "rs", rust.len(), xml, bin)?;
            rust_jobs.push(job(rust.len(), &emitted, &dir, "rs")?);
            rust.push(r);
        }
        let k = c.len();
        let copts = Options { language: Language::C, name: Some(format!("m{k}")), ..opts };
        if let Ok(cf) = cellc::emit::c::emit(&m, &copts, &format!("m{k}.h")) {
            keep(out, "c", k, xml, bin)?;
            c_jobs.push(job(k, &emitted, &dir, "c")?);
            c.push(cf);
        }
    }
    if !rust.is_empty() {
        let exe = scratch.build(&rust).map_err(|e| format!("the generated Rust does not build:\n{e}"))?;
        scratch.run(&exe, &rust_jobs).map_err(|e| format!("the generated Rust failed on zero inputs:\n{e}"))?;
    }
    if !c.is_empty() {
        let exe = scratch.build_c(&c).map_err(|e| format!("the generated C does not build:\n{e}"))?;
        scratch.run(&exe, &c_jobs).map_err(|e| format!("the generated C failed on zero inputs:\n{e}"))?;
    }
    Ok(())
}
