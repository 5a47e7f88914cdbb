//! One input through cellc in process, under limits: on its own thread with a small stack
//! (a walk that recursed over the input's depth would overflow it), a time limit, and its
//! peak of allocated bytes measured.
use cellc::front::openvino::parse_graph;
use cellc::vocab::Weights;
use cellc::{Language, Options, Strategy};
use std::sync::mpsc;
use std::time::Duration;

/// What cellc made of an input.
pub(crate) enum Outcome {
    /// Refused with diagnostics (or, for the XML, not even read): the expected end of most
    /// mutants.
    Refused,
    /// Accepted; for a model, what `inspect` says of it (what tells it from the others).
    Accepted(String),
    /// A bug: a panic, or a model accepted by the check that an emitter failed on without
    /// a diagnostic.
    Bug(String),
}

/// An input: an IR model, or a macro declaration of a cell.
#[derive(Clone)]
pub(crate) enum Input {
    /// `model.xml` and `model.bin`.
    Ir { xml: String, bin: Vec<u8> },
    /// An ONNX model's bytes and the folder its external data files are read from.
    Onnx { bytes: Vec<u8>, dir: std::path::PathBuf },
    /// A declaration's tokens (the text inside the macro's braces), the macro's cell kind and
    /// the crate root its paths are relative to.
    Decl { text: String, op: cellc::vocab::CellOp, root: std::path::PathBuf },
}

/// Each kernel strategy an accepted model is emitted with; unrolled only for small cells,
/// whose code stays small.
fn strategies(m: &cellc::ir::Model) -> Vec<Strategy> {
    let small = m.cells.iter().all(|c| c.spec.hidden * (c.spec.hidden + c.spec.input) <= 4096);
    if small { vec![Strategy::Tiled, Strategy::Unrolled] } else { vec![Strategy::Tiled] }
}

/// The graph of a model input, or `None` when its front-end refuses it.
pub(crate) fn graph(input: &Input) -> Option<cellc::graph::Graph> {
    match input {
        Input::Ir { xml, bin } => parse_graph("model.xml", xml, Weights::whole("model.bin", bin.clone())).ok(),
        Input::Onnx { bytes, dir } => cellc::front::onnx::parse_graph("model.onnx", "model", dir, bytes).ok(),
        Input::Decl { .. } => None,
    }
}

/// Reads, checks, inspects and emits a model in every form.
fn model(input: &Input) -> Outcome {
    let Some(g) = graph(input) else {
        return Outcome::Refused;
    };
    let Ok(m) = cellc::model_of(g) else {
        return Outcome::Refused;
    };
    let description = cellc::inspect::describe(&m);
    for strategy in strategies(&m) {
        for weights_mode in [cellc::WeightsMode::Embedded, cellc::WeightsMode::Runtime] {
            let opts = Options::default().strategy(strategy).weights_mode(weights_mode).name(Some("Model".into()));
            // An emitter may refuse what it cannot generate, with a diagnostic; the other
            // language must then refuse it too.
            let rust = cellc::emit::rust::emit(&m, &opts);
            let copts = opts.language(Language::C).name(Some("m".into()));
            let c = cellc::emit::c::emit(&m, &copts, "m.h");
            if rust.is_ok() != c.is_ok() && weights_mode == cellc::WeightsMode::Embedded {
                let (ok, err) = if rust.is_ok() { ("Rust", "C") } else { ("C", "Rust") };
                return Outcome::Bug(format!("{ok} was emitted but {err} was refused ({strategy:?})"));
            }
        }
    }
    Outcome::Accepted(description)
}

fn decl(text: &str, op: cellc::vocab::CellOp, root: &std::path::Path) -> Outcome {
    let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else {
        return Outcome::Refused;
    };
    match cellc::expand::declaration(op, tokens, root) {
        Ok(_) => Outcome::Accepted(String::new()),
        Err(_) => Outcome::Refused,
    }
}

/// The result of one run.
pub(crate) struct Run {
    /// What cellc made of the input; `None` when it ran past the time limit.
    pub(crate) outcome: Option<Outcome>,
    /// The most bytes allocated at once while it ran.
    pub(crate) peak_bytes: u64,
}

/// Runs `input` on a thread with a 2 MiB stack, waiting at most `limit`. A thread past the
/// limit is left running: the caller reports it and stops.
pub(crate) fn run(input: &Input, limit: Duration) -> Run {
    let (tx, rx) = mpsc::channel();
    let input = input.clone();
    let spawned = std::thread::Builder::new().stack_size(2 << 20).spawn(move || {
        let mut outcome = Outcome::Refused;
        let info = allocation_counter::measure(|| {
            let caught = std::panic::catch_unwind(|| match &input {
                Input::Ir { .. } | Input::Onnx { .. } => model(&input),
                Input::Decl { text, op, root } => decl(text, *op, root),
            });
            outcome = caught.unwrap_or_else(|p| {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                Outcome::Bug(format!("panic: {msg}"))
            });
        });
        let _ = tx.send(Run { outcome: Some(outcome), peak_bytes: info.bytes_max });
    });
    if let Err(e) = spawned {
        return Run { outcome: Some(Outcome::Bug(format!("cannot start a thread: {e}"))), peak_bytes: 0 };
    }
    rx.recv_timeout(limit).unwrap_or(Run { outcome: None, peak_bytes: 0 })
}
