//! `cellc-fuzz`: a structure-aware fuzzer of cellc that runs on stable Rust. It mutates the
//! committed models (`tests/fixtures/*/model.xml` and the whole models of `tests/models/`
//! with their weights, their ONNX files at the protobuf level, and the hostile seeds in `fuzz/corpus/`) and macro declarations (`fuzz/corpus/*.decl`), runs each mutant
//! through the front-ends, the check, `inspect` and both emitters in process, and fails on a
//! panic, an input slower than the time limit, or one that allocates past the memory limit.
//! Then it builds the Rust and the C of a sample of the accepted mutants (one of each kind
//! `inspect` tells apart) and runs them.
//! Inputs that fail are written to the output directory; a run is reproduced by its seed.
mod build;
mod mutate;
mod onnx;
mod target;

use clap::Parser;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use target::{Input, Outcome};

/// Fuzz cellc's front-ends, check and emitters with mutants of the committed models.
#[derive(Parser)]
struct Args {
    /// Inputs to try.
    #[arg(long, default_value_t = 10_000)]
    runs: u64,
    /// Stop after this many seconds even if fewer inputs were tried.
    #[arg(long)]
    seconds: Option<u64>,
    /// Seed of the mutations (the same seed and corpus give the same inputs).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Accepted mutants whose Rust and C are built and run (0: none).
    #[arg(long, default_value_t = 24)]
    build: usize,
    /// Time limit per input, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    time_limit_ms: u64,
    /// Memory limit per input: the most bytes allocated at once, in MiB.
    #[arg(long, default_value_t = 1024)]
    memory_limit_mib: u64,
    /// Where failing inputs are written.
    #[arg(long, default_value = "target/fuzz-failures")]
    out: PathBuf,
}

/// A seed model: its text and weights.
struct Seed {
    xml: String,
    bin: Vec<u8>,
}

/// The ONNX files of the whole models of `tests/models`, as seeds.
fn onnx_seeds() -> std::io::Result<Vec<Vec<u8>>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(workspace().join("tests/models"))?
        .filter_map(|e| e.ok().map(|e| e.path().join("model.onnx")))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths.into_iter().map(std::fs::read).collect()
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The seed models: every fixture and whole model, and every `.xml` of the corpus, each
/// with its `.bin`.
fn seeds() -> std::io::Result<Vec<Seed>> {
    let mut paths = Vec::new();
    for dir in ["tests/fixtures", "tests/models"] {
        for entry in std::fs::read_dir(workspace().join(dir))? {
            paths.push(entry?.path().join("model.xml"));
        }
    }
    for entry in std::fs::read_dir(workspace().join("fuzz/corpus"))? {
        let p = entry?.path();
        if p.extension().is_some_and(|x| x == "xml") {
            paths.push(p);
        }
    }
    paths.sort();
    let mut out = Vec::new();
    for p in paths.into_iter().filter(|p| p.exists()) {
        out.push(Seed {
            xml: std::fs::read_to_string(&p)?,
            bin: std::fs::read(p.with_extension("bin")).unwrap_or_default(),
        });
    }
    Ok(out)
}

/// The seed declarations: each `.decl` of the corpus, whose first line names the macro
/// (`gru`, `rnn` or `lstm`).
fn declarations() -> std::io::Result<Vec<(cellc::vocab::CellOp, String)>> {
    use cellc::vocab::CellOp;
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(workspace().join("fuzz/corpus"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "decl"))
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p)?;
        let (first, body) = text.split_once('\n').unwrap_or((&text, ""));
        let op = match first.trim() {
            "rnn" => CellOp::Rnn,
            "lstm" => CellOp::Lstm,
            _ => CellOp::Gru,
        };
        out.push((op, body.to_owned()));
    }
    Ok(out)
}

/// Writes a failing input to `out` and says what failed.
fn report(out: &Path, i: u64, input: &Input, what: &str) {
    let _ = std::fs::create_dir_all(out);
    let base = out.join(format!("fail-{i}"));
    match input {
        Input::Ir { xml, bin } => {
            let _ = std::fs::write(base.with_extension("xml"), xml);
            let _ = std::fs::write(base.with_extension("bin"), bin);
        }
        Input::Onnx { bytes, .. } => {
            let _ = std::fs::write(base.with_extension("onnx"), bytes);
        }
        Input::Decl { text, .. } => {
            let _ = std::fs::write(base.with_extension("decl"), text);
        }
    }
    eprintln!("input {i}: {what} (written to {})", base.display());
}

/// What the inputs came to.
#[derive(Default)]
struct Tally {
    accepted: u64,
    refused: u64,
    failed: u64,
    slowest: Duration,
    peak: u64,
}

/// The seeds of every kind.
struct Corpus {
    ir: Vec<Seed>,
    onnx: Vec<Vec<u8>>,
    decls: Vec<(cellc::vocab::CellOp, String)>,
}

/// The next input: a mutant of a seed model (seven times in eight: an IR's two times in
/// three, an ONNX file's otherwise) or of a declaration.
fn next_input(rng: &mut fastrand::Rng, corpus: &Corpus, root: &Path) -> Input {
    let (seeds, decls) = (&corpus.ir, &corpus.decls);
    if !corpus.onnx.is_empty() && rng.u8(..8) > 0 && rng.u8(..3) == 0 {
        let (a, b) = (&corpus.onnx[rng.usize(..corpus.onnx.len())], &corpus.onnx[rng.usize(..corpus.onnx.len())]);
        let bytes = if rng.u8(..10) == 0 { a.clone() } else { onnx::mutate(rng, a, b) };
        return Input::Onnx { bytes, dir: root.to_path_buf() };
    }
    if decls.is_empty() || rng.u8(..8) > 0 {
        let (a, b) = (&seeds[rng.usize(..seeds.len())], &seeds[rng.usize(..seeds.len())]);
        let xml = if rng.u8(..10) == 0 { a.xml.clone() } else { mutate::xml(rng, &a.xml, &b.xml) };
        let bin = if rng.u8(..4) == 0 { mutate::bin(rng, &a.bin) } else { a.bin.clone() };
        Input::Ir { xml, bin }
    } else {
        let (op, text) = &decls[rng.usize(..decls.len())];
        Input::Decl { text: mutate::declaration(rng, text), op: *op, root: root.to_path_buf() }
    }
}

/// Builds and runs the sampled models; whether they all passed.
fn build_sample(to_build: &[Input], out: &Path) -> bool {
    let t = Instant::now();
    let kept = out.join("built");
    match build::build_and_run(to_build, &kept) {
        Ok(()) => {
            let secs = t.elapsed().as_secs_f64();
            println!("fuzz: {} accepted mutants built and run as Rust and C in {secs:.1} s", to_build.len());
            true
        }
        Err(e) => {
            eprintln!("{e}");
            eprintln!(
                "module m{{k}} of the Rust and of the C was built from {0}/rs{{k}}.xml (or .onnx) and {0}/c{{k}}.xml (or .onnx)",
                kept.display()
            );
            false
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    // One line per panic (the input that caused it is reported after it), not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("panic at {at}");
    }));
    let (Ok(ir), Ok(onnx), Ok(decls)) = (seeds(), onnx_seeds(), declarations()) else {
        eprintln!("cannot read the seed corpus under {}", workspace().display());
        return ExitCode::FAILURE;
    };
    let corpus = Corpus { ir, onnx, decls };
    // A crate root for declarations, holding a raw weights file the mutants may name.
    let root =
        match tempfile::tempdir().and_then(|d| std::fs::write(d.path().join("w.bin"), vec![0u8; 4096]).map(|()| d)) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("cannot create a temporary crate root: {e}");
                return ExitCode::FAILURE;
            }
        };
    let mut rng = fastrand::Rng::with_seed(args.seed);
    let (start, limit) = (Instant::now(), Duration::from_millis(args.time_limit_ms));
    let cap = args.memory_limit_mib << 20;
    let mut t = Tally::default();
    let mut to_build: Vec<Input> = Vec::new();
    let mut kinds = std::collections::HashSet::new();
    let mut sampler = fastrand::Rng::with_seed(args.seed ^ 0x5eed);
    let mut runs = 0;
    for i in 0..args.runs {
        if args.seconds.is_some_and(|s| start.elapsed().as_secs() >= s) {
            break;
        }
        runs += 1;
        let input = next_input(&mut rng, &corpus, root.path());
        let t0 = Instant::now();
        let run = target::run(&input, limit);
        t.slowest = t.slowest.max(t0.elapsed());
        t.peak = t.peak.max(run.peak_bytes);
        match run.outcome {
            None => {
                report(&args.out, i, &input, &format!("no answer within {} ms", args.time_limit_ms));
                return ExitCode::FAILURE;
            }
            Some(Outcome::Bug(what)) => {
                t.failed += 1;
                report(&args.out, i, &input, &what);
            }
            Some(_) if run.peak_bytes > cap => {
                t.failed += 1;
                report(&args.out, i, &input, &format!("allocated {} MiB at once", run.peak_bytes >> 20));
            }
            Some(Outcome::Refused) => t.refused += 1,
            Some(Outcome::Accepted(description)) => {
                t.accepted += 1;
                // A uniform sample of the kinds of model accepted over the whole run (reservoir
                // sampling), so it covers as many shapes, attributes and names as it can.
                if !matches!(input, Input::Decl { .. }) && kinds.insert(description) {
                    if to_build.len() < args.build {
                        to_build.push(input);
                    } else if let Some(slot) = to_build.get_mut(sampler.usize(..kinds.len())) {
                        *slot = input;
                    }
                }
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "fuzz: {runs} inputs in {secs:.1} s ({:.0}/s), seed {}: {} accepted, {} refused, {} failed; slowest {:.0} ms, peak {:.1} MiB",
        runs as f64 / secs.max(1e-9),
        args.seed,
        t.accepted,
        t.refused,
        t.failed,
        t.slowest.as_secs_f64() * 1e3,
        t.peak as f64 / (1u64 << 20) as f64
    );
    // Each input is a case, and so is the build of the sample.
    let (mut passed, mut failed) = (runs - t.failed, t.failed);
    if !to_build.is_empty() {
        if build_sample(&to_build, &args.out) {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
