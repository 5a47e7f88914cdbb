//! The `cellc` command line: argument parsing with clap, mapped onto [`Options`].
use crate::options::{Options, Strategy};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Compile recurrent cells from an OpenVINO IR model to specialised Rust.
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
    /// Show the cells of a model: shapes, attributes, FLOPs per step, weight bytes.
    Inspect {
        /// The model (`model.xml`, with `model.bin` beside it).
        model: PathBuf,
        /// The weights file, if not the model's path with the extension `.bin`.
        #[arg(long, value_name = "PATH")]
        weights: Option<PathBuf>,
    },
}

/// Kernel strategy on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum StrategyArg {
    /// Unrolled for tiny cells, tiled otherwise.
    Auto,
    /// Straight-line code with the weights as literals (tiny cells).
    Unrolled,
    /// Loops over weights packed at compile time into panels.
    Tiled,
}

#[derive(Debug, Args)]
struct CompileArgs {
    /// The model to compile (`model.xml`, with `model.bin` beside it).
    #[arg(required = true)]
    model: Option<PathBuf>,
    /// Write the generated Rust here (written whole or not at all); default: standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Name of the generated model type (default: from the model's name).
    #[arg(long)]
    name: Option<String>,
    /// The weights file, if not the model's path with the extension `.bin`.
    #[arg(long, value_name = "PATH")]
    weights: Option<PathBuf>,
    /// How the matrix products are written.
    #[arg(long, value_enum, default_value = "auto")]
    strategy: StrategyArg,
}

impl CompileArgs {
    fn options(&self) -> Options {
        Options {
            name: self.name.clone(),
            strategy: match self.strategy {
                StrategyArg::Auto => Strategy::Auto,
                StrategyArg::Unrolled => Strategy::Unrolled,
                StrategyArg::Tiled => Strategy::Tiled,
            },
            weights: self.weights.clone(),
        }
    }
}

/// Writes `text` to `path` through a temporary file in the same directory, so a reader (or
/// a failed run) never sees a partial file and an existing file is replaced only whole.
fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Runs the command line; the exit code is 1 on any diagnostic.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Inspect { model, weights }) => crate::load_ir(model, weights.as_deref()).map(|m| {
            print!("{}", crate::inspect::describe(&m));
        }),
        None => {
            let args = &cli.compile;
            let Some(model) = &args.model else {
                return ExitCode::from(2);
            };
            crate::compile_file(model, &args.options()).and_then(|code| match &args.output {
                Some(out) => write_atomic(out, &code).map_err(|e| {
                    crate::Diag::new(&out.display().to_string(), None, format!("cannot write the output: {e}")).into()
                }),
                None => {
                    print!("{code}");
                    Ok(())
                }
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(diags) => {
            eprintln!("{diags}");
            let n = diags.0.len();
            eprintln!("cellc: {n} error{}; nothing was written", if n == 1 { "" } else { "s" });
            ExitCode::FAILURE
        }
    }
}
