//! The pipeline a model file takes, whatever the door: read into a graph, the passes, the
//! check, an emitter; and its stages one by one, for `inspect` and the tests.
use crate::diag::{Diag, Diagnostics, Message, Setting};
use crate::options::{Language, Options, WeightTables};
use crate::{check, emit, front, graph, ir, passes};
use std::path::{Path, PathBuf};

#[doc(hidden)]
/// Reads and checks an OpenVINO IR model with default options. `weights` overrides the
/// `.bin` path.
pub fn load_ir(model: &Path, weights: Option<&Path>) -> Result<ir::verify::Verified, Diagnostics> {
    load_graph(model, &Options { weights: weights.map(Path::to_path_buf), ..Options::default() })
}

#[doc(hidden)]
/// Reads an OpenVINO IR model as a graph, folds and simplifies it, and checks it: the
/// pipeline for whole models (layout glue, shape subgraphs and heads around the cells).
pub fn load_graph(model: &Path, opts: &Options) -> Result<ir::verify::Verified, Diagnostics> {
    model_of(read_graph(model, opts)?)
}

#[doc(hidden)]
/// Reads an OpenVINO IR model as a graph and applies what `opts` says of its graph: the
/// cut (`--inputs`/`--outputs`), the pinned shapes and the states. No pass has run yet.
pub fn read_graph(model: &Path, opts: &Options) -> Result<graph::Graph, Diagnostics> {
    let file = model.display().to_string();
    let repeated = opts.repeated();
    if !repeated.is_empty() {
        return Err(Diagnostics(
            repeated.into_iter().map(|m| Diag::new(crate::diag::Code::Option, &file, None, m)).collect(),
        ));
    }
    let mut g = front::read_graph(model, opts.weights.as_deref())?;
    // The model's own Parameters are pinned before the cut (a pin of one the cut then drops
    // does nothing, rather than naming a Parameter the cut model no longer has); the
    // Parameters the cut makes (`--inputs`), after it.
    let (before, after): (Vec<&crate::options::InputShape>, Vec<_>) =
        opts.input_shapes.iter().partition(|s| g.param_named(&s.name).is_ok());
    pin(&mut g, &file, &before)?;
    let states = states_of(&g, opts)?;
    if !opts.cut_inputs.is_empty() || !opts.cut_outputs.is_empty() {
        // A state's Result stays a Result of the cut model, to be carried: `--outputs y
        // --state h0=hn` keeps `hn` for the state without listing it.
        let mut outputs = opts.cut_outputs.clone();
        if !outputs.is_empty() {
            outputs.extend(states.iter().map(|(_, o)| o).filter(|o| !opts.cut_outputs.contains(o)).cloned());
        }
        let diags = passes::cut(&mut g, &opts.cut_inputs, &outputs);
        if !diags.is_empty() {
            return Err(Diagnostics(diags));
        }
    }
    pin(&mut g, &file, &after)?;
    g.renames = opts.cell_names.clone();
    let diags = passes::make_stateful(&mut g, &states);
    if !diags.is_empty() {
        return Err(Diagnostics(diags));
    }
    Ok(g)
}

/// Fixes the shapes or values `pins` give their Parameters; every problem reported.
fn pin(g: &mut graph::Graph, file: &str, pins: &[&crate::options::InputShape]) -> Result<(), Diagnostics> {
    let diags: Vec<Diag> = pins
        .iter()
        .filter_map(|s| {
            let e = match s.value {
                Some(v) => g.freeze(&s.name, v).err(),
                None => g.pin(&s.name, &s.dims).err(),
            }?;
            Some(Diag::new(
                crate::diag::Code::Pin,
                file,
                None,
                Message::new(e.to_string()).about(Setting::new("input", s.to_string())),
            ))
        })
        .collect();
    if diags.is_empty() { Ok(()) } else { Err(Diagnostics(diags)) }
}

/// The state pairs of a compilation: those `--state IN=OUT` names, and with `--state auto`
/// those found by their names ([`passes::state_pairs`]).
fn states_of(g: &graph::Graph, opts: &Options) -> Result<Vec<(String, String)>, Diagnostics> {
    let mut states = opts.states.clone();
    if opts.state_auto {
        states.extend(passes::state_pairs(g, &opts.states).map_err(Diagnostics)?);
    }
    Ok(states)
}

/// The state pairs `--state auto` finds in `model` (with the options' explicit pairs left
/// out), as the command line reports them.
pub fn auto_states(model: &Path, opts: &Options) -> Result<Vec<(String, String)>, Diagnostics> {
    let g = front::read_graph(model, opts.weights.as_deref())?;
    passes::state_pairs(&g, &opts.states).map_err(Diagnostics)
}

#[doc(hidden)]
/// Folds, simplifies, fuses and checks a graph: the validated model, or every problem the passes
/// and the check found (ops whose inputs are wrong leave their outputs unknown, and the
/// check goes on with the rest).
pub fn model_of(mut g: graph::Graph) -> Result<ir::verify::Verified, Diagnostics> {
    let diags = run_passes(&mut g);
    check_passed(&g, diags)
}

#[doc(hidden)]
/// The passes of [`model_of`] (fold, simplify, lower, cancel_transposes, compose, fuse), leaving the graph as the check sees it;
/// returns the problems folding found.
pub fn run_passes(g: &mut graph::Graph) -> Vec<Diag> {
    let diags = passes::fold(g);
    checked(g, "fold");
    passes::simplify(g);
    checked(g, "simplify");
    passes::lower(g);
    checked(g, "lower");
    passes::cancel_transposes(g);
    checked(g, "cancel_transposes");
    passes::compose(g);
    checked(g, "compose");
    passes::fuse(g);
    checked(g, "fuse");
    passes::drop_unread(g);
    checked(g, "drop_unread");
    diags
}

/// In debug builds, stops at a graph that the pass just run left inconsistent
/// ([`graph::Graph::verify`]): a bug of that pass.
fn checked(g: &graph::Graph, pass: &str) {
    if cfg!(debug_assertions)
        && let Err(problems) = g.verify()
    {
        panic!("the {pass} pass left the graph of {} inconsistent:\n{}", g.file, problems.join("\n"));
    }
}

#[doc(hidden)]
/// The check of [`model_of`] on a graph [`run_passes`] has been through, with the problems
/// the passes found.
pub fn check_passed(g: &graph::Graph, mut diags: Vec<Diag>) -> Result<ir::verify::Verified, Diagnostics> {
    diags.extend(g.unmatched_renames().into_iter().map(|m| Diag::new(crate::diag::Code::Cut, &g.file, None, m)));
    match check::check(g, !diags.is_empty()) {
        Ok(m) if diags.is_empty() => Ok(m),
        Ok(_) => Err(Diagnostics(diags)),
        Err(Diagnostics(more)) => {
            diags.extend(more);
            diags.sort_by_key(|d| d.pos);
            diags.dedup();
            Err(Diagnostics(the_causes(diags)))
        }
    }
}

/// `diags` without what follows from a dimension left dynamic: when a problem says which
/// Parameter to pin (`--input x=[?,N,8]`), an op's own "pin it" is its consequence.
fn the_causes(diags: Vec<Diag>) -> Vec<Diag> {
    let pin = |d: &Diag| d.fix.as_deref().filter(|f| f.is_pin()).map(|f| f.settings.iter().any(|s| s.value.is_some()));
    if !diags.iter().any(|d| pin(d) == Some(true)) {
        return diags;
    }
    diags.into_iter().filter(|d| pin(d) != Some(false)).collect()
}

/// Compiles an OpenVINO IR model to Rust source. C is two files (a source and its header):
/// with `opts.language` C this is an error that says to use [`compile_to`].
pub fn compile_file(model: &Path, opts: &Options) -> Result<String, Diagnostics> {
    if opts.language == Language::C {
        let msg = "compile_file returns one Rust file; C is a source and a header: use compile_to";
        return Err(Diag::new(crate::diag::Code::Conflict, &model.display().to_string(), None, msg).into());
    }
    let m = load_graph(model, opts)?;
    emit::rust::emit(&m, opts)
}

/// Compiles an OpenVINO IR model to the files of `opts.language` whose main file is `out`:
/// for Rust, `out`, and when its weight tables are written as bytes
/// (`opts.weight_tables`), the file they are read from, `out` with the extension
/// `.weights.bin`, first; for C, the header (`out` with the extension `.h`, which the
/// source includes) and then the source `out`. Returns each path with its contents.
pub fn compile_to(model: &Path, opts: &Options, out: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>, Diagnostics> {
    let m = load_graph(model, opts)?;
    match opts.language {
        Language::Rust => {
            let bin = out.with_extension("weights.bin");
            // Bytes go beside a file, not beside a device or a pipe (`-o /dev/stdout`).
            let beside_file = std::fs::metadata(out).map_or(true, |meta| meta.is_file());
            let name = bin.file_name().map(|n| n.to_string_lossy().into_owned());
            let weights_file = name.filter(|_| beside_file && bin != out);
            let rust = emit::rust::emit_files(&m, opts, weights_file.as_deref())?;
            let mut files = Vec::new();
            if let Some(bytes) = rust.weights {
                files.push((bin, bytes));
            }
            files.push((out.to_path_buf(), rust.source.into_bytes()));
            Ok(files)
        }
        Language::C => {
            if opts.weight_tables == WeightTables::Binary {
                let msg = "generated C holds its weight tables as literals: `weight_tables = binary` is for Rust";
                return Err(Diag::new(crate::diag::Code::Conflict, &model.display().to_string(), None, msg).into());
            }
            let header = out.with_extension("h");
            let name = header.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if header == out || out.file_name().is_none() {
                let msg = "the C output must be the source file (NAME.c); its header NAME.h is written beside it";
                return Err(Diag::new(crate::diag::Code::Write, &out.display().to_string(), None, msg).into());
            }
            let files = emit::c::emit(&m, opts, &name)?;
            Ok(vec![(header, files.header.into_bytes()), (out.to_path_buf(), files.source.into_bytes())])
        }
    }
}
