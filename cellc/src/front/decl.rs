//! The declaration front-end: `gru_cell! { … }`, `rnn_cell!` and `lstm_cell!` parsed with
//! syn into a graph of one cell node, with the same Parameters, constants and Results an IR
//! model of that cell has, so the passes, `check` and the emitters treat it exactly as
//! they treat IR.
//!
//! ```text
//! /// Doc comments.
//! pub struct VadGru<input_size = 16, hidden_size = 128, activations = [sigmoid, tanh]>;
//! ```
//!
//! Syntax errors (unknown or duplicate keys, values of the wrong type, unreadable weights
//! files) are `syn::Error`s at the offending token. Semantic errors come from the check as
//! diagnostics whose positions are indices into [`Lowered::spans`]: line 1, column `k + 1`
use crate::graph::Graph;
use crate::options::{Options, Simd, Strategy, WeightType};
use crate::vocab::CellOp;
use proc_macro2::Span;
use spec::Tensors;
use std::path::{Path, PathBuf};
use syntax::{Errors, Keys, Spans, boolean, choice, positive, string};
use weights::WeightsFile;

mod spec;
mod syntax;
mod weights;

pub use spec::check;
pub use syntax::{Declaration, KEYS};

/// A declaration lowered to a graph, with what the expansion needs besides.
pub struct Lowered {
    /// The one-cell model, as a graph.
    pub graph: Graph,
    /// The options it compiles with (strategy, simd, weight type; the model type's name).
    pub options: Options,
    /// The tokens positions refer to (see the module documentation).
    pub spans: Vec<Span>,
    /// Files read, whose change must rebuild the crate.
    pub files: Vec<PathBuf>,
}

/// Lowers a declaration of a cell of kind `op`. Paths are relative to `root` (the crate's
/// manifest directory).
pub fn lower(op: CellOp, d: &Declaration, root: &Path) -> syn::Result<Lowered> {
    let mut errors = Errors::default();
    let keys = Keys::new(d, &mut errors);
    let mut spans = Spans(vec![d.name.span()]);
    let spec = spec::spec(op, d, &keys, &mut spans, &mut errors);
    let options = Options {
        name: Some(format!("{}Model", d.name)),
        strategy: keys
            .get("strategy")
            .and_then(|e| errors.ok(choice(e, &Strategy::ALL.map(Strategy::name), Strategy::parse)))
            .unwrap_or_default(),
        simd: keys
            .get("simd")
            .and_then(|e| errors.ok(choice(e, &Simd::ALL.map(Simd::name), Simd::parse)))
            .unwrap_or_default(),
        weight_type: keys
            .get("weight_type")
            .and_then(|e| errors.ok(choice(e, &WeightType::ALL.map(WeightType::name), WeightType::parse)))
            .unwrap_or_default(),
        fast_activations: keys.get("fast_activations").and_then(|e| errors.ok(boolean(e))).unwrap_or(false),
        threads: keys
            .get("threads")
            .and_then(|e| errors.ok(positive(e, crate::limits::MAX_THREADS as u64)))
            .and_then(|n| crate::Threads::new(usize::try_from(n).ok()?))
            .unwrap_or_default(),
        ..Options::default()
    };
    let layer = keys.get("layer");
    let mut files = Vec::new();
    let tensors = match (keys.get("weights"), &spec) {
        (None, _) => {
            if let Some(e) = layer {
                errors.at(e.key.span(), "`layer` picks a cell of the IR model given by `weights`; there is none");
            }
            Some(Tensors::Runtime)
        }
        (Some(e), Some(spec)) => match string(e) {
            Err(e) => {
                errors.push(e);
                None
            }
            Ok(lit) => {
                let allowed = keys.get("allow_outside_crate").and_then(|e| errors.ok(boolean(e))).unwrap_or(false);
                match crate::front::files::inside_crate(root, &lit, allowed) {
                    Err(e) => {
                        errors.push(e);
                        None
                    }
                    Ok(path) => {
                        let file = WeightsFile { pos: spans.at(lit.span()), lit: &lit, path: &path };
                        let found = if path.extension().is_some_and(|x| x == "xml") {
                            let layer = errors.ok(layer.map(string).transpose()).flatten();
                            file.read_ir(spec, &keys, layer.as_ref(), &spans.0, &mut files)
                        } else {
                            if let Some(e) = layer {
                                errors
                                    .at(e.key.span(), "`layer` picks a cell of an IR model; this weights file is raw");
                            }
                            file.read_raw(spec, &mut files)
                        };
                        errors.ok(found)
                    }
                }
            }
        },
        (Some(_), None) => None,
    };
    match (errors.0, spec, tensors) {
        (None, Some(spec), Some(t)) => Ok(Lowered { graph: spec.graph(t), options, spans: spans.0, files }),
        (Some(e), ..) => Err(e),
        _ => Err(syn::Error::new(d.name.span(), "the declaration is incomplete")),
    }
}

/// A declaration written as text (what a macro call holds between its braces), compiled to
/// the validated model as the macro compiles it: for tests and tools that declare cells.
/// Paths are relative to `root`.
pub fn model_of_text(op: CellOp, text: &str, root: &Path) -> syn::Result<crate::ir::verify::Verified> {
    let d: Declaration = syn::parse_str(text)?;
    let lowered = lower(op, &d, root)?;
    check(lowered.graph, &lowered.spans)
}
