//! The build-script door, in the style of prost-build and bindgen: configure, then
//! `generate()` writes the Rust for a model into `OUT_DIR` and tells cargo when to rerun.
//!
//! ```no_run
//! // In build.rs's `main`; then src/main.rs does
//! // `include!(concat!(env!("OUT_DIR"), "/vad.rs"));`
//! cellc::Builder::new().model("models/vad.xml").name("Vad").generate_or_exit();
//! ```
use crate::diag::{Diag, Diagnostics};
use crate::options::{Language, Options, Simd, Strategy};
use std::path::{Path, PathBuf};

/// Compiles a model from a build script. Every setting is a field of [`Options`], the same
/// options the command line and the macros use.
///
/// ```no_run
/// use cellc::{Builder, Strategy, WeightsMode};
/// # fn main() -> Result<(), cellc::Diagnostics> {
/// // Straight-line kernels, weights given at run time, written to `$OUT_DIR/vad.rs`.
/// let path = Builder::new()
///     .model("models/vad.xml")
///     .strategy(Strategy::Unrolled)
///     .weights_mode(WeightsMode::Runtime)
///     .file_name("vad.rs")
///     .generate()?;
/// println!("cargo:warning=wrote {}", path.display());
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Builder {
    model: Option<PathBuf>,
    options: Options,
    out_dir: Option<PathBuf>,
    file_name: Option<String>,
    /// What [`Builder::option`] could not set, reported by `generate`.
    refused: Vec<crate::options::OptionError>,
}

impl Builder {
    /// A builder with the default options.
    pub fn new() -> Self {
        Builder::default()
    }

    /// The model to compile (`model.onnx`, or `model.xml` with `model.bin` beside it), relative to the
    /// crate's manifest directory, where build scripts run.
    pub fn model(mut self, path: impl AsRef<Path>) -> Self {
        self.model = Some(path.as_ref().to_path_buf());
        self
    }

    /// The language of the generated code (default: [`Language::Rust`]). With
    /// [`Language::C`], `generate` writes `NAME.c` and the header `NAME.h` beside it, for a
    /// build script to hand to a C compiler (the `cc` crate, say).
    pub fn language(mut self, language: Language) -> Self {
        self.options.language = language;
        self
    }

    /// Name of the generated model type; in C, the prefix of every identifier (default:
    /// from the model's name).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.options.name = Some(name.into());
        self
    }

    /// How the matrix products are written (default: [`Strategy::Auto`]).
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.options.strategy = strategy;
        self
    }

    /// Whether the model's constant weights are embedded (the default) or given at run time.
    pub fn weights_mode(mut self, mode: crate::WeightsMode) -> Self {
        self.options.weights_mode = mode;
        self
    }

    /// Which vector instructions Rust kernels are compiled for (default: [`Simd::Dispatch`],
    /// the best the CPU has, picked at run time).
    pub fn simd(mut self, simd: Simd) -> Self {
        self.options.simd = simd;
        self
    }

    /// Whether sigmoid, tanh, scaledtanh, elu and softplus use the cheaper approximations
    /// of `cellc_runtime::act::fast` (default: `false`, the exact ones).
    pub fn fast_activations(mut self, fast: bool) -> Self {
        self.options.fast_activations = fast;
        self
    }

    /// Splits each step of a large cell across `threads` threads (Rust only; default: one).
    /// See `--threads`.
    pub fn threads(mut self, threads: crate::Threads) -> Self {
        self.options.threads = threads;
        self
    }

    /// Fixes the shape of Parameter `name` (its tensor or layer name) at compile time, as
    /// `--input NAME=[…]` does: `None` keeps a dimension as the model has it. Dynamic steps
    /// must be fixed; a dynamic batch may stay.
    pub fn input(mut self, name: &str, dims: &[Option<u64>]) -> Self {
        self.options.input_shapes.push(crate::InputShape { name: name.to_owned(), dims: dims.to_vec(), value: None });
        self
    }

    /// Fixes Parameter `name`, of one value, to `value` at compile time, as `--input
    /// NAME=VALUE` does: it becomes a constant (a sample rate or a mode that chooses an
    /// `If`'s branch), no longer an input of the generated code.
    pub fn input_value(mut self, name: &str, value: f64) -> Self {
        self.options.input_shapes.push(crate::InputShape {
            name: name.to_owned(),
            dims: Vec::new(),
            value: Some(value),
        });
        self
    }

    /// Compiles from these tensors (or layers) on, as `--inputs` does: each becomes a
    /// Parameter.
    pub fn inputs(mut self, names: &[&str]) -> Self {
        self.options.cut_inputs.extend(names.iter().map(|n| (*n).to_owned()));
        self
    }

    /// Compiles only what these tensors (or layers) need, as `--outputs` does: they become
    /// the Results, in this order.
    pub fn outputs(mut self, names: &[&str]) -> Self {
        self.options.cut_outputs.extend(names.iter().map(|n| (*n).to_owned()));
        self
    }

    /// Carries a state between runs, as `--state IN=OUT` does: Parameter `input` and Result
    /// `output` become a variable of the generated model.
    pub fn state(mut self, input: &str, output: &str) -> Self {
        self.options.states.push((input.to_owned(), output.to_owned()));
        self
    }

    /// Pairs the model's Parameters and Results that carry a state by the names exporters
    /// give a state's two ends, with equal shapes (`--state auto`).
    pub fn state_auto(mut self) -> Self {
        self.options.state_auto = true;
        self
    }

    /// How the weight matrices are stored (default: [`crate::WeightType::Auto`]).
    pub fn weight_type(mut self, weight_type: crate::WeightType) -> Self {
        self.options.weight_type = weight_type;
        self
    }

    /// How generated Rust holds its embedded weight tables (default:
    /// [`crate::WeightTables::Auto`]: bytes in a file beside the generated one, read with
    /// `include_bytes!`, from 256 KiB of tables).
    pub fn weight_tables(mut self, tables: crate::WeightTables) -> Self {
        self.options.weight_tables = tables;
        self
    }

    /// The weights file, when it is not the model's path with the extension `.bin`.
    pub fn weights(mut self, path: impl AsRef<Path>) -> Self {
        self.options.weights = Some(path.as_ref().to_path_buf());
        self
    }

    /// Where to write (default: the `OUT_DIR` cargo gives build scripts).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The generated file's name (default: the model's file stem with `.rs`, or `.c` for C,
    /// whose header takes the same name with `.h`).
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = Some(name.into());
        self
    }

    /// Names the generated type of a cell or dense layer (`--cell-name FROM=TO`): `from` is
    /// the name `cellc inspect` shows (`gru0`) or the layer's name in the model.
    pub fn cell_name(mut self, from: &str, to: &str) -> Self {
        self.options.cell_names.push((from.to_owned(), to.to_owned()));
        self
    }

    /// Sets an option by its key and text, as the command line and `include_model!` spell it
    /// (the keys of [`crate::options::KEYS`]: `.option("weight_type", "f16")`,
    /// `.option("input", "x=[1,?,40]")`); a repeating key adds to what it holds. A key or
    /// value it refuses is reported by [`Builder::generate`].
    pub fn option(mut self, key: &str, value: &str) -> Self {
        if let Err(e) = self.options.set(key, value) {
            self.refused.push(e);
        }
        self
    }

    /// The compilation options this builder stands for.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Compiles the model and writes the generated file — for C, the source and its header —
    /// only when its content changed, so nothing that includes it rebuilds needlessly.
    /// Prints `cargo:rerun-if-changed` for the model and its weights. Returns the path of
    /// the Rust file or of the C source.
    pub fn generate(&self) -> Result<PathBuf, Diagnostics> {
        let model = self.model.as_ref().ok_or_else(|| {
            Diagnostics::one(Diag::new(
                crate::diag::Code::Option,
                "build.rs",
                None,
                "no model: call `Builder::model(path)` before `generate()`",
            ))
        })?;
        if !self.refused.is_empty() {
            let diags = self
                .refused
                .iter()
                .map(|e| Diag::new(crate::diag::Code::Option, "build.rs", None, format!("Builder::option: {e}")));
            return Err(Diagnostics(diags.collect()));
        }
        println!("cargo:rerun-if-changed={}", model.display());
        // An IR's weights are a file of their own; an ONNX file holds its weights, or names
        // files of external data beside it.
        for f in crate::front::side_files(model, self.options.weights.as_deref()) {
            println!("cargo:rerun-if-changed={}", f.display());
        }
        let out_dir = match (&self.out_dir, std::env::var_os("OUT_DIR")) {
            (Some(d), _) => d.clone(),
            (None, Some(d)) => PathBuf::from(d),
            (None, None) => {
                let msg = "OUT_DIR is not set (not running under cargo): set `Builder::out_dir`";
                return Err(Diag::new(crate::diag::Code::Write, &model.display().to_string(), None, msg).into());
            }
        };
        let file = self.file_name.clone().unwrap_or_else(|| {
            let stem = model.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
            let ext = match self.options.language {
                Language::Rust => "rs",
                Language::C => "c",
            };
            format!("{stem}.{ext}")
        });
        let path = out_dir.join(file);
        // Only the files that changed, all of them or none (so cargo rebuilds no more than it must).
        let files = crate::pipeline::compile_to(model, &self.options, &path)
            .map_err(|d| crate::door::Door::Builder.diagnostics(d))?;
        let changed: Vec<(PathBuf, Vec<u8>)> =
            files.into_iter().filter(|(file, bytes)| std::fs::read(file).map_or(true, |old| old != *bytes)).collect();
        crate::output::write_all_or_none(&changed).map_err(|(file, e)| {
            Diagnostics::one(Diag::new(
                crate::diag::Code::Write,
                &file.display().to_string(),
                None,
                format!("cannot write the output: {e}"),
            ))
        })?;
        Ok(path)
    }

    /// [`Builder::generate`], printing the diagnostics and exiting with status 1 on failure:
    /// the one-line form for a build script's `main`.
    pub fn generate_or_exit(&self) -> PathBuf {
        match self.generate() {
            Ok(path) => path,
            Err(diags) => {
                eprintln!("{diags}");
                std::process::exit(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/gru_h1_i1/model.xml")
    }

    #[test]
    fn generates_into_the_out_dir_and_rewrites_only_changes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let b = Builder::new().model(fixture()).name("Tiny").out_dir(dir.path());
        let path = b.generate().expect("generates");
        assert_eq!(path, dir.path().join("model.rs"));
        let first = std::fs::metadata(&path).and_then(|m| m.modified()).expect("mtime");
        std::thread::sleep(std::time::Duration::from_millis(20));
        b.generate().expect("generates again");
        assert_eq!(std::fs::metadata(&path).and_then(|m| m.modified()).expect("mtime"), first);
        assert!(std::fs::read_to_string(&path).expect("read").contains("pub struct Tiny {"));
    }

    #[test]
    fn advice_names_the_builder_options() {
        let dir = tempfile::tempdir().expect("temp dir");
        let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/pt_gru_dynamic_h0/model.xml");
        let err = Builder::new().model(&model).out_dir(dir.path()).generate().expect_err("dynamic steps").to_string();
        assert!(err.contains(r#"pin it with `.input("input", &[None, Some(N), Some(8)])`"#), "{err}");
        assert!(!err.contains("--input"), "{err}");
    }

    #[test]
    fn writes_c_source_and_header() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = Builder::new().model(fixture()).language(Language::C).name("tiny").out_dir(dir.path()).generate();
        assert_eq!(path.expect("generates"), dir.path().join("model.c"));
        let source = std::fs::read_to_string(dir.path().join("model.c")).expect("source");
        let header = std::fs::read_to_string(dir.path().join("model.h")).expect("header");
        assert!(source.contains("#include \"model.h\"") && header.contains("int tiny_run(tiny_model *model,"));
    }

    #[test]
    fn errors_are_diagnostics() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(Builder::new().out_dir(dir.path()).generate().is_err());
        let missing = Builder::new().model(dir.path().join("none.xml")).out_dir(dir.path()).generate();
        assert!(missing.expect_err("no such model").to_string().contains("cannot read the model"));
    }
}
