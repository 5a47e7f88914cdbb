//! A scratch crate under `target/` into which generated sources are written as modules and
//! built for real with `cargo build --release`, plus the protocol by which its binary runs
//! jobs: each job names a module, input files and output files with their lengths.
//!
//! `CELLC_SCRATCH_TARGET` (a target triple) builds it for another target, and
//! `CELLC_SCRATCH_RUNNER` (a command and its arguments, e.g. `qemu-aarch64 -L
//! /usr/aarch64-linux-gnu`) runs its binary; the linker comes from cargo's own settings
//! (`CARGO_TARGET_<TRIPLE>_LINKER`).
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A job: run module `module` on `inputs`, writing `outputs` (path, number of values).
#[derive(Clone, Debug)]
pub struct Job {
    /// Index of the module (its position in the sources given to [`Scratch::build`]).
    pub module: usize,
    /// Input files, in Parameter order.
    pub inputs: Vec<PathBuf>,
    /// Output files and lengths, in Result order (all frames').
    pub outputs: Vec<(PathBuf, usize)>,
    /// Runs of the model, one after another on the same model value: each reads its part of
    /// every input but the carried ones, and writes its part of every output.
    pub frames: usize,
    /// `(output, input)`: after each run, the output becomes the input of the next run.
    pub carry: Vec<(usize, usize)>,
    /// Weight files given at run time, in the model's `WEIGHTS` order: set once, before the
    /// first run.
    pub weights: Vec<PathBuf>,
}

impl Job {
    /// One run of `module` on `inputs`, writing `outputs`.
    pub fn single(module: usize, inputs: Vec<PathBuf>, outputs: Vec<(PathBuf, usize)>) -> Job {
        Job { module, inputs, outputs, frames: 1, carry: Vec::new(), weights: Vec::new() }
    }
}

/// The target of `CELLC_SCRATCH_TARGET`, if set.
fn cross_target() -> Option<String> {
    std::env::var("CELLC_SCRATCH_TARGET").ok().filter(|t| !t.is_empty())
}

/// A command running the binary `exe`, through `CELLC_SCRATCH_RUNNER` if set.
fn command(exe: &Path) -> Command {
    let runner = std::env::var("CELLC_SCRATCH_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut cmd = Command::new(program);
            cmd.args(words).arg(exe);
            cmd
        }
        None => Command::new(exe),
    }
}

/// A generated Rust module: its source and, when it reads its tables with
/// `include_bytes!(`[`Module::TABLES`]`)`, their bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The generated source.
    pub source: String,
    /// The bytes of its tables, when they are not literals.
    pub tables: Option<Vec<u8>>,
}

impl Module {
    /// The file name a module's source reads its tables from.
    pub const TABLES: &str = "tables.bin";
}

/// A scratch crate. While the value lives it holds an exclusive lock on the crate's
/// directory, so that two test processes using the same crate take turns instead of
/// overwriting each other's sources and data.
pub struct Scratch {
    dir: PathBuf,
    std: bool,
    /// The locked file (`.lock` in the directory); `None` where locks are not supported.
    _lock: Option<std::fs::File>,
}

/// Locks `dir/.lock` exclusively, waiting for another holder to let go.
fn lock(dir: &Path) -> Option<std::fs::File> {
    std::fs::create_dir_all(dir).ok()?;
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(".lock")).ok()?;
    file.lock().ok()?;
    Some(file)
}

/// The target directory every scratch crate builds in, so that `cellc-runtime` and its
/// dependencies are compiled once (per feature set and flags), not once per crate.
fn shared_target() -> PathBuf {
    workspace_root().join("target").join("cellc-scratch").join("target")
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

const MAIN: &str = r#"
/// A raw little-endian `.f32` file, or an `.i32` one (sequence lengths) as f32 values.
fn read(path: &str) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let words = bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
    if path.ends_with(".i32") {
        words.map(|w| i32::from_le_bytes(w) as f32).collect()
    } else {
        words.map(f32::from_le_bytes).collect()
    }
}

fn run<M: cellc_runtime::Model + Default>(job: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(job).map_err(|e| e.to_string())?;
    let mut inputs = Vec::new();
    let mut outputs: Vec<(String, Vec<f32>)> = Vec::new();
    let mut weights = Vec::new();
    let (mut frames, mut carry) = (1usize, Vec::new());
    for line in text.lines() {
        let parts: Vec<&str> = line.splitn(3, ' ').collect();
        match parts.as_slice() {
            ["in", path] => inputs.push(read(path)),
            ["weight", path] => weights.push(read(path)),
            ["out", len, path] => outputs.push((path.to_string(), vec![f32::NAN; len.parse().map_err(|_| "bad length")?])),
            ["frames", n] => frames = n.parse().map_err(|_| "bad frame count")?,
            ["carry", o, i] => carry.push((o.parse::<usize>().map_err(|_| "bad carry")?, i.parse::<usize>().map_err(|_| "bad carry")?)),
            _ => return Err(format!("bad job line {line:?}")),
        }
    }
    // Each frame reads its part of an input (the whole of a carried one, which later frames
    // take from the output carried into it) and writes its part of each output.
    let carried = |k: usize| carry.iter().any(|&(_, i)| i == k);
    let in_len: Vec<usize> = inputs.iter().enumerate().map(|(k, v)| if carried(k) { v.len() } else { v.len() / frames }).collect();
    let out_len: Vec<usize> = outputs.iter().map(|(_, v)| v.len() / frames).collect();
    let mut state: Vec<Vec<f32>> = inputs.iter().enumerate().map(|(k, v)| if carried(k) { v.clone() } else { Vec::new() }).collect();
    let mut model = Box::new(M::default());
    for f in 0..frames {
        let ins: Vec<&[f32]> = inputs
            .iter()
            .enumerate()
            .map(|(k, v)| if carried(k) { state[k].as_slice() } else { &v[f * in_len[k]..(f + 1) * in_len[k]] })
            .collect();
        let mut outs: Vec<&mut [f32]> =
            outputs.iter_mut().enumerate().map(|(k, (_, v))| &mut v[f * out_len[k]..(f + 1) * out_len[k]]).collect();
        if f == 0 {
            // Weights given at run time are set once, before the first run, which errs
            // until they are; runs read the packed copy, never these slices.
            let ws: Vec<&[f32]> = weights.iter().map(Vec::as_slice).collect();
            if !M::WEIGHTS.is_empty() {
                if model.run(&ins, &mut outs) != Err(cellc_runtime::Error::WeightsNotSet) {
                    return Err("ran before its weights were set".into());
                }
                if model.set_weights(&ws[..ws.len() - 1]).is_ok() {
                    return Err("accepted too few weights".into());
                }
            }
            model.set_weights(&ws).map_err(|e| format!("set_weights: {e}"))?;
            // Wrong counts and lengths must be refused before anything is written.
            if model.run(&ins[..ins.len().saturating_sub(1)], &mut outs).is_ok() {
                return Err("accepted too few inputs".into());
            }
            if let Some(first) = ins.first().filter(|v| !v.is_empty()) {
                let mut short = ins.clone();
                short[0] = &first[..first.len() - 1];
                if model.run(&short, &mut outs).is_ok() {
                    return Err("accepted an input one element short".into());
                }
            }
            if outs.iter().any(|o| o.iter().any(|v| !v.is_nan())) {
                return Err("wrote outputs before refusing bad arguments".into());
            }
        }
        // Run observed: each step's number as it ends, row by row, in the order of RUN_STEPS.
        let mut seen = Vec::new();
        model.run_observed(&ins, &mut outs, |k| seen.push(k)).map_err(|e| e.to_string())?;
        let n = M::RUN_STEPS.len();
        if seen.iter().enumerate().any(|(i, &k)| k != i % n.max(1)) || (n > 0 && (seen.is_empty() || seen.len() % n != 0)) {
            return Err(format!("run_observed reported steps {seen:?} for {n} steps"));
        }
        let next: Vec<(usize, Vec<f32>)> = carry.iter().map(|&(o, i)| (i, outs[o].to_vec())).collect();
        for (i, v) in next {
            state[i] = v;
        }
    }
    for (path, v) in &outputs {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(path, bytes).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--simd-level") {
        println!("{}", cellc_runtime::__private::simd::level().name());
        return;
    }
    let mut failed = false;
    for pair in args.chunks(2) {
        // A model that panics fails its own job, not the ones after it.
        let r = std::panic::catch_unwind(|| dispatch(pair[0].parse().unwrap_or(usize::MAX), &pair[1]))
            .unwrap_or_else(|_| Err("the generated code panicked".into()));
        if let Err(e) = r {
            eprintln!("job {}: {e}", pair[1]);
            failed = true;
        }
    }
    std::process::exit(i32::from(failed));
}
"#;

impl Scratch {
    /// A scratch crate named `name` under the workspace's `target/cellc-scratch/`, using
    /// `cellc-runtime` with its `std` feature, as most users do: kernels run at the best
    /// vector level the CPU has, or at the one `CELLC_SIMD` caps it to.
    pub fn new(name: &str) -> Scratch {
        let dir = workspace_root().join("target").join("cellc-scratch").join(name);
        let lock = lock(&dir);
        Scratch { dir, std: true, _lock: lock }
    }

    /// [`Scratch::new`] with `cellc-runtime` built without `std`, as on an embedded target:
    /// kernels run at the level of the build's target features.
    pub fn no_std(name: &str) -> Scratch {
        let mut s = Scratch::new(name);
        s.std = false;
        s
    }

    /// Writes `sources` (generated files, each defining a model type named `Model`) as
    /// modules and builds the crate in release mode with a `main` that runs jobs. Returns
    /// the binary's path, or the compiler's output.
    pub fn build(&self, sources: &[String]) -> Result<PathBuf, String> {
        let modules: Vec<Module> = sources.iter().map(|s| Module { source: s.clone(), tables: None }).collect();
        self.build_modules(&modules)
    }

    /// [`Scratch::build`] for modules whose tables may be bytes beside them: module `i` is
    /// `src/m{i}/model.rs`, with its bytes in `src/m{i}/` as [`Module::TABLES`].
    pub fn build_modules(&self, modules: &[Module]) -> Result<PathBuf, String> {
        // Generated code must build warning-free in the user's crate, whatever of it the
        // program leaves unused (and pass clippy too: see CELLC_SCRATCH_CLIPPY).
        let mut main = String::new();
        let mut dispatch =
            String::from("fn dispatch(module: usize, job: &str) -> Result<(), String> {\n    match module {\n");
        let mut files = Vec::new();
        for (i, m) in modules.iter().enumerate() {
            files.push((format!("m{i}/model.rs"), m.source.clone()));
            if let Some(bytes) = &m.tables {
                let dir = self.dir.join("src").join(format!("m{i}"));
                std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
                write_if_changed(&dir.join(Module::TABLES), bytes)?;
            }
            let _ = writeln!(main, "mod m{i} {{ include!(\"m{i}/model.rs\"); }}");
            let _ = writeln!(dispatch, "        {i} => run::<m{i}::Model>(job),");
        }
        dispatch.push_str("        _ => Err(format!(\"no module {module} for {job}\")),\n    }\n}\n");
        main.push_str(MAIN);
        main.push_str(&dispatch);
        files.push(("main.rs".into(), main));
        self.build_program(&files)
    }

    /// Writes `files` (a `main.rs` and what it includes) into `src/` and builds the crate in
    /// release mode. Returns the binary's path, or the compiler's output.
    pub fn build_program(&self, files: &[(String, String)]) -> Result<PathBuf, String> {
        let src = self.dir.join("src");
        std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
        let runtime = workspace_root().join("runtime");
        let manifest = format!(
            "[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\ncellc-runtime = {{ path = {:?}, default-features = false, features = [{}] }}\n\n[workspace]\n\n[profile.release]\ndebug = false\nincremental = true\n",
            self.package(),
            runtime.display().to_string(),
            if self.std { "\"std\"" } else { "" }
        );
        write_if_changed(&self.dir.join("Cargo.toml"), &manifest)?;
        for (name, text) in files {
            let path = src.join(name);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            write_if_changed(&path, text)?;
        }
        // With CELLC_SCRATCH_CLIPPY set, the generated code must also pass clippy's default
        // lints with warnings denied, as in a user's crate that includes it.
        if std::env::var_os("CELLC_SCRATCH_CLIPPY").is_some() {
            let out =
                self.cargo(&["clippy", "--release", "--quiet", "--message-format=short", "--", "-D", "warnings"])?;
            if !out.status.success() {
                return Err(format!("the generated code fails clippy:\n{}", String::from_utf8_lossy(&out.stderr)));
            }
        }
        let out = self.cargo(&["build", "--release", "--quiet", "--message-format=short"])?;
        if !out.status.success() {
            return Err(format!("the generated code does not build:\n{}", String::from_utf8_lossy(&out.stderr)));
        }
        let target = shared_target();
        let target = match cross_target() {
            Some(triple) => target.join(triple),
            None => target,
        };
        let binary = target.join("release").join(self.package());
        intrinsics_inlined(&binary)?;
        Ok(binary)
    }

    /// The crate's package name, which names its binary in the shared target directory:
    /// `cellc-scratch-` and the crate's directory name.
    fn package(&self) -> String {
        let name = self.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let name: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
        format!("cellc-scratch-{name}")
    }

    /// Runs cargo with `args` in the scratch crate.
    fn cargo(&self, args: &[&str]) -> Result<std::process::Output, String> {
        let target = cross_target().map(|t| format!("--target={t}"));
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(args)
            .args(target)
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", shared_target())
            // Generated code must build warning-free wherever it is included; extra flags
            // (`CELLC_SCRATCH_RUSTFLAGS`, e.g. `-C target-cpu=native`) reach the paths that
            // depend on target features.
            .env("RUSTFLAGS", format!("-D warnings {}", std::env::var("CELLC_SCRATCH_RUSTFLAGS").unwrap_or_default()))
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))
    }

    /// Runs `jobs` with the binary from [`Scratch::build`]. Errs with the binary's stderr
    /// if any job failed; outputs of the others are written.
    pub fn run(&self, exe: &Path, jobs: &[Job]) -> Result<(), String> {
        self.run_at(exe, jobs, None)
    }

    /// [`Scratch::run`] with the kernels' vector level forced to `level` (a name of
    /// `cellc_runtime::__private::simd::Level`) through `CELLC_SIMD`; errs if the binary does not run at
    /// that level (the CPU lacks it, or the runtime was built without `std`).
    pub fn run_at(&self, exe: &Path, jobs: &[Job], level: Option<&str>) -> Result<(), String> {
        let mut cmd = command(exe);
        if let Some(level) = level {
            let out = command(exe)
                .arg("--simd-level")
                .env("CELLC_SIMD", level)
                .output()
                .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
            let got = String::from_utf8_lossy(&out.stdout);
            if got.trim() != level {
                return Err(format!("kernels run at the level {:?}, not {level:?}", got.trim()));
            }
            cmd.env("CELLC_SIMD", level);
        }
        let jobs_dir = self.dir.join("jobs");
        std::fs::create_dir_all(&jobs_dir).map_err(|e| e.to_string())?;
        let mut args: Vec<[String; 2]> = Vec::new();
        for (k, job) in jobs.iter().enumerate() {
            let mut text = String::new();
            for i in &job.inputs {
                let _ = writeln!(text, "in {}", i.display());
            }
            for (o, len) in &job.outputs {
                let _ = std::fs::remove_file(o);
                let _ = writeln!(text, "out {len} {}", o.display());
            }
            if job.frames > 1 {
                let _ = writeln!(text, "frames {}", job.frames);
            }
            for (o, i) in &job.carry {
                let _ = writeln!(text, "carry {o} {i}");
            }
            for w in &job.weights {
                let _ = writeln!(text, "weight {}", w.display());
            }
            let path = jobs_dir.join(format!("job{k}.txt"));
            std::fs::write(&path, text).map_err(|e| e.to_string())?;
            args.push([job.module.to_string(), path.display().to_string()]);
        }
        let out = cmd.args(args.iter().flatten()).output().map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
        if out.status.success() {
            return Ok(());
        }
        let mut err = String::from_utf8_lossy(&out.stderr).into_owned();
        // A job that crashed the process (a C model under a sanitizer) took the jobs after
        // it along: each job left without its outputs runs again on its own.
        let missing = jobs.iter().zip(&args).filter(|(j, _)| j.outputs.iter().any(|(o, _)| !o.exists()));
        for (_, pair) in missing {
            let mut one = command(exe);
            if let Some(level) = level {
                one.env("CELLC_SIMD", level);
            }
            let out = one.args(pair).output().map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
            if !out.status.success() {
                let _ = write!(err, "{}", String::from_utf8_lossy(&out.stderr));
            }
        }
        Err(err)
    }

    /// The scratch crate's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A directory for data files of this scratch crate.
    pub fn data_dir(&self, name: &str) -> Result<PathBuf, String> {
        let d = self.dir.join("data").join(name);
        std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
        Ok(d)
    }
}

/// Errs when the binary at `path` holds an intrinsic of `core::arch` as a function of its
/// own, naming each. Every intrinsic the generated code and the runtime's kernels use must
/// be inlined into the `#[target_feature]` function of the level `dispatch!` entered; one
/// left out of line (in a closure, compiled apart from that function) costs a call per
/// vector operation — AECMOS's first layer ran 28× slower in a build without
/// `-C target-cpu` — and no comparison of outputs sees it. CPU feature detection's own
/// (`_xgetbv`, `__cpuid`) are not kernels'.
fn intrinsics_inlined(path: &Path) -> Result<(), String> {
    use object::{Object, ObjectSymbol};
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file =
        object::File::parse(&*bytes).map_err(|e| format!("cannot read the symbols of {}: {e}", path.display()))?;
    let mut out_of_line: Vec<String> = file
        .symbols()
        .filter_map(|s| s.name().ok())
        .map(|n| format!("{:#}", rustc_demangle::demangle(n)))
        .filter(|n| n.starts_with("core::core_arch::") && !n.contains("xgetbv") && !n.contains("cpuid"))
        .collect();
    out_of_line.sort();
    out_of_line.dedup();
    if out_of_line.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} calls intrinsics out of line, so its kernels run a call per vector operation (a closure \
         or function compiled without the dispatched level's target features): {}",
        path.display(),
        out_of_line.join(", ")
    ))
}

/// Writes a file only when its content differs, so cargo rebuilds only what changed.
pub(crate) fn write_if_changed(path: &Path, content: impl AsRef<[u8]>) -> Result<(), String> {
    let content = content.as_ref();
    if std::fs::read(path).is_ok_and(|old| old == content) {
        return Ok(());
    }
    std::fs::write(path, content).map_err(|e| format!("{}: {e}", path.display()))
}
