//! The `cellc` command line: argument parsing with clap, mapped onto [`Options`].
use crate::options::{Language, Options, Simd, Strategy, WeightTables, WeightType, WeightsMode};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Compile a recurrent model (an ONNX file or an OpenVINO IR: its cells and the convolutions,
/// normalisations and dense layers around them) to specialised Rust or C.
#[derive(Debug, Parser)]
#[command(name = "cellc", version, args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    compile: CompileArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show what a model holds and what cellc makes of it: its inputs and outputs, cells
    /// (attributes, FLOPs per step, weight bytes as stored), layers and the steps a run
    /// performs; for a model cellc refuses, every cell and layer it read, each problem, and
    /// a cut that would compile. Exits with 1 when the model does not compile.
    Inspect {
        /// The model: `model.onnx`, or `model.xml` with `model.bin` beside it.
        model: PathBuf,
        /// An IR's weights file, if not the model's path with the extension `.bin`.
        #[arg(long, value_name = "PATH")]
        weights: Option<PathBuf>,
        /// How the matrices `W` and `R` would be stored (the bytes reported follow it).
        #[arg(long, value_enum, default_value = "auto")]
        weight_type: WeightTypeArg,
        /// The language whose tables the bytes reported are (`auto` stores f32 in the C).
        #[arg(long = "lang", value_enum, default_value = "rust")]
        language: LanguageArg,
        /// Shapes and cut points, as for compiling.
        #[command(flatten)]
        graph: GraphArgs,
        /// Carry a state between runs, as for compiling.
        #[arg(long = "state", value_name = "IN=OUT|auto", value_parser = crate::options::parse_state_arg)]
        states: Vec<crate::options::StateArg>,
        /// Print the report as JSON (for tools) instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// What selects the graph that is compiled (or inspected): shapes and cut points.
#[derive(Clone, Debug, Args)]
struct GraphArgs {
    /// Fix a Parameter's shape at compile time, `NAME=[d0,d1,...]` with `?` (or -1) for a
    /// dimension left as the model has it: dynamic steps must be fixed, a dynamic batch may
    /// stay. Or fix a Parameter of one value to a value, `NAME=VALUE` (e.g. `sr=16000`): it
    /// becomes a constant, and an `If` it chooses compiles. Repeat for several Parameters.
    #[arg(long = "input", value_name = "NAME=[DIMS]|NAME=VALUE", value_parser = crate::InputShape::parse)]
    input_shapes: Vec<crate::InputShape>,
    /// Compile from these tensors (or layers) on: each becomes a Parameter, after the
    /// model's own that are still needed. Names separated by commas.
    #[arg(long = "inputs", value_name = "NAMES", value_delimiter = ',')]
    cut_inputs: Vec<String>,
    /// Compile only what these tensors (or layers) need: they become the Results, in this
    /// order (and the Results of `--state` pairs, carried). Names separated by commas.
    #[arg(long = "outputs", value_name = "NAMES", value_delimiter = ',')]
    cut_outputs: Vec<String>,
}

/// Kernel strategy on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum StrategyArg {
    /// The kernel measured fastest (today: tiled, at every size).
    Auto,
    /// Straight-line code: one statement per input element, no loops.
    Unrolled,
    /// Loops over weights packed at compile time into panels.
    Tiled,
}

/// Language on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum LanguageArg {
    /// One Rust file for crates depending on `cellc-runtime`.
    Rust,
    /// C99: the `.c` file given by `-o` and its header, the same path with `.h`.
    C,
}

impl LanguageArg {
    fn get(self) -> Language {
        match self {
            LanguageArg::Rust => Language::Rust,
            LanguageArg::C => Language::C,
        }
    }
}

/// Weights mode on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum WeightsModeArg {
    /// Constant weights become tables in the generated code, packed at compile time.
    Embedded,
    /// Constant weights become Parameters, given at run time in OpenVINO's layout.
    Runtime,
}

/// Vector instructions of Rust kernels on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum SimdArg {
    /// Copies for AVX-512, AVX2+FMA and the build's target; the best one the CPU has runs.
    Dispatch,
    /// One copy, for the build's target features (`-C target-cpu=…`).
    Build,
}

/// Storage of the weight matrices on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum WeightTypeArg {
    /// The narrowest of bf16, f16 and f32 that holds every embedded value exactly; f32 in the C.
    Auto,
    /// IEEE binary32.
    F32,
    /// IEEE binary16, rounded to nearest: half the bytes a step reads.
    F16,
    /// bfloat16, rounded to nearest: half the bytes, the fastest to convert.
    Bf16,
    /// int8, a scale per column (input) of each matrix: a quarter of the bytes, each weight
    /// within half its column's scale (max |column| / 254); never chosen by auto.
    I8,
}

impl WeightTypeArg {
    fn get(self) -> WeightType {
        match self {
            WeightTypeArg::Auto => WeightType::Auto,
            WeightTypeArg::F32 => WeightType::F32,
            WeightTypeArg::F16 => WeightType::F16,
            WeightTypeArg::Bf16 => WeightType::Bf16,
            WeightTypeArg::I8 => WeightType::I8,
        }
    }
}

/// How generated Rust holds its weight tables, on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum WeightTablesArg {
    /// Bytes beside the source from 256 KiB of tables when writing to a file, else literals.
    Auto,
    /// Literals in the source: one readable file.
    Source,
    /// Bytes in OUT.weights.bin beside the output (keep it with it), read with
    /// `include_bytes!`: large tables build 20 times faster with 7 times less memory.
    Binary,
}

#[derive(Debug, Args)]
struct CompileArgs {
    /// The model to compile: `model.onnx`, or `model.xml` with `model.bin` beside it.
    #[arg(required = true)]
    model: Option<PathBuf>,
    /// Write the generated code here (each file written whole or not at all); default:
    /// standard output. With `--lang c`, the `.c` file; its header goes beside it.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Language of the generated code.
    #[arg(long = "lang", value_enum, default_value = "rust")]
    language: LanguageArg,
    /// Name of the generated model type; in C, the prefix of every identifier (default: from
    /// the model's name).
    #[arg(long)]
    name: Option<String>,
    /// An IR's weights file, if not the model's path with the extension `.bin`.
    #[arg(long, value_name = "PATH")]
    weights: Option<PathBuf>,
    /// How the matrix products are written.
    #[arg(long, value_enum, default_value = "auto")]
    strategy: StrategyArg,
    /// Where the model's constant weights live.
    #[arg(long, value_enum, default_value = "embedded")]
    weights_mode: WeightsModeArg,
    /// Which vector instructions Rust kernels are compiled for (C follows the C compiler's
    /// flags).
    #[arg(long, value_enum, default_value = "dispatch")]
    simd: SimdArg,
    /// How the weight matrices (cells' `W` and `R`, dense layers') are stored (biases stay
    /// f32); kernels compute in f32.
    #[arg(long, value_enum, default_value = "auto")]
    weight_type: WeightTypeArg,
    /// How generated Rust holds its embedded weight tables.
    #[arg(long, value_enum, default_value = "auto")]
    weight_tables: WeightTablesArg,
    /// Use the cheaper approximations of sigmoid, tanh, scaledtanh, elu and softplus
    /// (error at most 4.6e-7) instead of the default ones (within 1 to 3 ULP).
    #[arg(long)]
    fast_activations: bool,
    /// Split each step of a large cell across N threads (Rust only): the caller's and
    /// N - 1 helpers, each keeping its share of the weights in its own core's cache.
    #[arg(long, value_name = "N", default_value = "1", value_parser = crate::options::Threads::parse)]
    threads: crate::options::Threads,
    #[command(flatten)]
    graph: GraphArgs,
    /// Name a cell's or a dense layer's generated type: FROM is the name `inspect` shows
    /// (`gru0`) or the layer's name in the model, TO an identifier. Repeat for several.
    #[arg(long = "cell-name", value_name = "FROM=TO", value_parser = crate::options::parse_rename)]
    cell_names: Vec<(String, String)>,
    /// Carry a state between runs: Parameter IN and Result OUT become a variable of the
    /// generated model (zero after `reset`), as OpenVINO's MakeStateful makes them. `auto`
    /// pairs the Parameters and Results exporters name as a state's two ends (`h0`/`hn`,
    /// `x`/`next_x`, `cache`/`new_cache`, `state`/`stateN`…) with equal shapes, and says which.
    #[arg(long = "state", value_name = "IN=OUT|auto", value_parser = crate::options::parse_state_arg)]
    states: Vec<crate::options::StateArg>,
}

impl CompileArgs {
    fn options(&self) -> Options {
        Options {
            name: self.name.clone(),
            language: self.language.get(),
            strategy: match self.strategy {
                StrategyArg::Auto => Strategy::Auto,
                StrategyArg::Unrolled => Strategy::Unrolled,
                StrategyArg::Tiled => Strategy::Tiled,
            },
            weights: self.weights.clone(),
            weights_mode: match self.weights_mode {
                WeightsModeArg::Embedded => WeightsMode::Embedded,
                WeightsModeArg::Runtime => WeightsMode::Runtime,
            },
            simd: match self.simd {
                SimdArg::Dispatch => Simd::Dispatch,
                SimdArg::Build => Simd::Build,
            },
            weight_type: self.weight_type.get(),
            weight_tables: match self.weight_tables {
                WeightTablesArg::Auto => WeightTables::Auto,
                WeightTablesArg::Source => WeightTables::Source,
                WeightTablesArg::Binary => WeightTables::Binary,
            },
            fast_activations: self.fast_activations,
            threads: self.threads,
            input_shapes: self.graph.input_shapes.clone(),
            cut_inputs: self.graph.cut_inputs.clone(),
            cut_outputs: self.graph.cut_outputs.clone(),
            cell_names: self.cell_names.clone(),
            states: pairs(&self.states),
            state_auto: self.states.contains(&crate::options::StateArg::Auto),
        }
    }
}

/// The options a command line stands for (`cellc MODEL [FLAGS]`, without the program name):
/// what the builder and the macros must be able to say too.
pub fn options_from_args(args: &[&str]) -> Result<Options, clap::Error> {
    let cli = Cli::try_parse_from(std::iter::once("cellc").chain(args.iter().copied()))?;
    Ok(cli.compile.options())
}

/// How much of `rest` (the text from a diagnostic's position) to underline: an attribute
/// `key="value"`, else the element up to its `>` or the end of the line.
fn underline(rest: &str) -> usize {
    let attr = rest
        .find("=\"")
        .filter(|&eq| eq > 0 && rest[..eq].chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-'));
    if let Some(close) = attr.and_then(|eq| Some(eq + 2 + rest[eq + 2..].find('"')? + 1)) {
        return close;
    }
    let end = rest.find(['>', '\n']).map_or(rest.len(), |i| i + usize::from(rest.as_bytes()[i] == b'>'));
    end.max(1).min(rest.len())
}

/// Prints diagnostics to standard error, each with the source line it points at when the
/// file can be read.
fn report(diags: &crate::Diagnostics) {
    use codespan_reporting::diagnostic::{Diagnostic, Label};
    use codespan_reporting::files::SimpleFiles;
    use codespan_reporting::term::{Config, emit_to_io_write};
    let mut files = SimpleFiles::new();
    let mut ids = std::collections::BTreeMap::new();
    let config = Config::default();
    let mut err = std::io::stderr().lock();
    for d in &diags.0 {
        let mut diag = Diagnostic::error().with_code(d.code.id()).with_message(d.headline());
        let source = d.pos.and_then(|pos| {
            // Each file read and indexed once, however many diagnostics point into it.
            let (id, lines) = ids.entry(d.file.clone()).or_insert_with(|| {
                let text = crate::front::files::read_text(std::path::Path::new(&d.file)).unwrap_or_default();
                let lines = crate::diag::LineIndex::new(&text);
                (files.add(d.file.clone(), text), lines)
            });
            let id = *id;
            let text = files.get(id).ok()?.source();
            let start = lines.offset(text, pos)?;
            let rest = &text[start..];
            Some((id, start..start + underline(rest)))
        });
        match source {
            Some((id, range)) => diag = diag.with_labels(vec![Label::primary(id, range)]),
            None => {
                let at = match d.pos {
                    Some(crate::diag::Pos::Node(n)) => format!(", node {n} of its graph (from 0)"),
                    _ => String::new(),
                };
                diag = diag.with_notes(vec![format!("in {}{at}", d.file)]);
            }
        }
        if emit_to_io_write(&mut err, &config, &files, &diag).is_err() {
            let _ = writeln!(err, "{d}");
        }
    }
}

/// Writes generated files, all of them whole or none.
/// Says on standard error which file a Rust source reads beside it (its weight tables as
/// bytes), so that it is not left behind when the source is copied.
fn announce_side_files(files: &[(PathBuf, Vec<u8>)], out: &std::path::Path, language: Language) {
    // The header's note on a large model value, said here too (the one text of it is the
    // generated file's).
    let notes = files.iter().flat_map(|(_, bytes)| {
        let head = &bytes[..bytes.len().min(4096)];
        String::from_utf8_lossy(head)
            .lines()
            .filter_map(|l| {
                let l = l.trim_start_matches(['/', '*', ' ']).trim_end_matches(['*', '/', ' ']);
                (l.starts_with("The model value is") || l.starts_with("The model struct is")).then(|| l.to_owned())
            })
            .collect::<Vec<_>>()
    });
    for note in notes {
        eprintln!("cellc: note: {note}");
    }
    if language != Language::Rust {
        return;
    }
    for (path, bytes) in files.iter().filter(|(p, _)| p != out) {
        eprintln!(
            "cellc: wrote {} and, beside it, {} ({} KiB of weight tables it reads with include_bytes!): keep the two together",
            out.display(),
            path.display(),
            bytes.len().div_ceil(1024)
        );
    }
}

fn write_all(files: &[(PathBuf, Vec<u8>)]) -> Result<(), crate::Diagnostics> {
    crate::output::write_all_or_none(files).map_err(|(path, e)| {
        crate::Diag::new(
            crate::diag::Code::Write,
            &path.display().to_string(),
            None,
            format!("cannot write the output: {e}"),
        )
        .into()
    })
}

/// `cellc inspect`: the report on standard output, text or JSON; exit code 1 when the
/// model does not compile, and diagnostics alone when it cannot be read.
fn inspect(model: &std::path::Path, opts: &Options, json: bool) -> ExitCode {
    match crate::inspect::inspect(model, opts) {
        Ok(r) => {
            let text = if json { r.json() } else { r.text() };
            if let Err(e) = to_stdout(&format!("{}\n", text.trim_end())) {
                return e;
            }
            if r.compiles { ExitCode::SUCCESS } else { ExitCode::FAILURE }
        }
        Err(diags) => {
            report(&diags);
            let n = diags.0.len();
            eprintln!("cellc: {n} error{}; the model could not be read", if n == 1 { "" } else { "s" });
            ExitCode::FAILURE
        }
    }
}

/// Writes `text` to standard output. A reader that closed the pipe early (`cellc m.xml |
/// head`) took what it wanted: that is no failure, and nothing is said; another failure to
/// write is said, and is the exit code (1) of the `Err`.
fn to_stdout(text: &str) -> Result<(), ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            eprintln!("cellc: cannot write to standard output: {e}");
            Err(ExitCode::FAILURE)
        }
    }
}

/// The `IN=OUT` pairs among `--state` values.
fn pairs(states: &[crate::options::StateArg]) -> Vec<(String, String)> {
    states
        .iter()
        .filter_map(|s| match s {
            crate::options::StateArg::Pair(i, o) => Some((i.clone(), o.clone())),
            crate::options::StateArg::Auto => None,
        })
        .collect()
}

/// Runs the command line; the exit code is 1 on any diagnostic.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Inspect { model, weights, weight_type, language, graph, states, json }) => {
            let opts = crate::Options {
                weights: weights.clone(),
                weight_type: weight_type.get(),
                language: language.get(),
                input_shapes: graph.input_shapes.clone(),
                cut_inputs: graph.cut_inputs.clone(),
                cut_outputs: graph.cut_outputs.clone(),
                states: pairs(states),
                state_auto: states.contains(&crate::options::StateArg::Auto),
                ..Default::default()
            };
            return inspect(model, &opts, *json);
        }
        None => {
            let args = &cli.compile;
            let Some(model) = &args.model else {
                return ExitCode::from(2);
            };
            let opts = args.options();
            if opts.state_auto
                && let Ok(found) = crate::pipeline::auto_states(model, &opts)
            {
                let shown: Vec<String> = found.iter().map(|(i, o)| format!("{i}={o}")).collect();
                eprintln!("cellc: --state auto paired {}", shown.join(", "));
            }
            match (&args.output, opts.language) {
                (Some(out), _) => crate::pipeline::compile_to(model, &opts, out).and_then(|files| {
                    write_all(&files)?;
                    announce_side_files(&files, out, opts.language);
                    Ok(())
                }),
                (None, Language::Rust) => match crate::pipeline::compile_file(model, &opts) {
                    Ok(code) => return to_stdout(&code).err().unwrap_or(ExitCode::SUCCESS),
                    Err(e) => Err(e),
                },
                (None, Language::C) => Err(crate::Diag::new(
                    crate::diag::Code::Conflict,
                    &model.display().to_string(),
                    None,
                    "`--lang c` writes a source and a header: give the source's path with `-o NAME.c`",
                )
                .into()),
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(diags) => {
            report(&diags);
            let n = diags.0.len();
            eprintln!("cellc: {n} error{}; nothing was written", if n == 1 { "" } else { "s" });
            ExitCode::FAILURE
        }
    }
}
