//! Weights files a declaration names: a raw file of little-endian f32, or one cell of an
//! OpenVINO IR model, which must be the cell declared.
use super::spec::{Spec, Tensors, check};
use super::syntax::{Errors, Keys};
use crate::diag::Pos;
use crate::graph::{ConstSrc, Elem};
use crate::vocab;
use crate::vocab::Layout;
use proc_macro2::Span;
use std::path::{Path, PathBuf};
use syn::LitStr;

/// The weights file a declaration names.
pub(super) struct WeightsFile<'a> {
    pub(super) lit: &'a LitStr,
    pub(super) path: &'a Path,
    pub(super) pos: Pos,
}

impl WeightsFile<'_> {
    fn err(&self, msg: impl std::fmt::Display) -> syn::Error {
        syn::Error::new(self.lit.span(), msg)
    }

    /// A raw file: `W`, `R` and `B` (when the cell has one), little-endian f32, in the
    /// declared layout, back to back, and nothing else.
    pub(super) fn read_raw(&self, spec: &Spec, files: &mut Vec<PathBuf>) -> syn::Result<Tensors> {
        let written = self.lit.value();
        let tensors = spec.tensors();
        // The sizes are within `limits`: these products and the sum are far from overflowing.
        let lens: Vec<u64> = tensors.iter().map(|(_, s)| s.iter().product()).collect();
        let want: u64 = lens.iter().sum::<u64>() * 4;
        let bytes = match crate::front::files::read_exact(self.path, want) {
            Ok(bytes) => bytes,
            Err(crate::front::files::FileError::Length { len }) => {
                let parts: Vec<String> = tensors.iter().zip(&lens).map(|((t, _), n)| format!("{t}: {n}")).collect();
                return Err(self.err(format!(
                    "{written:?} holds {len} bytes; the declaration needs {want}: little-endian f32 values in the {} layout ({}), one tensor after the other",
                    spec.layout,
                    parts.join(", ")
                )));
            }
            Err(e) => return Err(self.err(format!("cannot read {written:?}: {e}"))),
        };
        files.push(self.path.to_path_buf());
        let mut offset = 0;
        let mut consts = Vec::new();
        for ((_, shape), n) in tensors.into_iter().zip(&lens) {
            consts.push(ConstSrc { elem: Elem::F32, shape, offset, size: n * 4, attr_pos: Vec::new() });
            offset += n * 4;
        }
        Ok(Tensors::File(self.pos, consts, vocab::Weights::whole(&written, bytes)))
    }

    /// The weights of one cell of an IR model, which must be the cell declared: the same
    /// kind, sizes, activations, clip and direction, whether stated or left to defaults.
    /// The model is read as every model is (the graph, its passes and its check), so any
    /// model cellc compiles can lend a cell its weights.
    pub(super) fn read_ir(
        &self,
        spec: &Spec,
        keys: &Keys<'_>,
        layer: Option<&LitStr>,
        spans: &[Span],
        files: &mut Vec<PathBuf>,
    ) -> syn::Result<Tensors> {
        let written = self.lit.value();
        let fail = |diags: crate::Diagnostics| {
            let text = diags.to_string().replace(&self.path.display().to_string(), &written);
            self.err(format!("cannot take weights from {written:?}:\n{text}"))
        };
        let mut g = crate::front::read_graph(self.path, None).map_err(fail)?;
        files.push(self.path.to_path_buf());
        files.push(self.path.with_extension("bin"));
        let diags = crate::pipeline::run_passes(&mut g);
        let theirs = crate::pipeline::check_passed(&g, diags).map_err(fail)?;
        // The model's cells of the declared kind, each with its layer and the name its
        // validated cell has.
        let cells: Vec<(String, String, String)> = g
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.dead)
            .filter_map(|(id, n)| match &n.op {
                crate::ops::Op::Cell(a) if a.op == spec.op && a.sequence == spec.sequence() => {
                    Some((n.origin.name.clone(), n.origin.op.clone(), g.code_name(id)))
                }
                _ => None,
            })
            .filter(|(name, _, _)| layer.is_none_or(|l| *name == l.value()))
            .collect();
        let (name, op, code) = match (cells.as_slice(), layer) {
            ([one], _) => one.clone(),
            ([], Some(l)) => {
                let msg = format!("{written:?} has no layer {:?} of the declared kind", l.value());
                return Err(syn::Error::new(l.span(), msg));
            }
            ([], None) => return Err(self.err(no_cell_of_kind(&g, spec, &written))),
            (many, _) => {
                let names: Vec<String> = many.iter().map(|(n, _, _)| format!("{n:?}")).collect();
                return Err(self.err(format!(
                    "{written:?} has several cells of the declared kind ({}); pick one with `layer = \"…\"`",
                    names.join(", ")
                )));
            }
        };
        // The validated cell of that layer: its name, and the declared kind (another kind of
        // cell may carry the same name).
        let same_kind =
            |c: &&crate::ir::Cell| c.spec.kind.op() == spec.kind().op() && c.seq.is_some() == spec.sequence();
        let Some(c) = theirs.cells.iter().find(|c| c.name == code && same_kind(c)) else {
            return Err(self.err(format!("internal error: the cell of layer {name:?} is not in the checked model")));
        };
        let layer_name = format!("layer {name:?} ({op}) of {written:?}");
        let mut errors = Errors::default();
        let span_of = |key: &str| keys.get(key).map_or(self.lit.span(), |e| e.value.span());
        if spec.layout != Layout::OpenVino {
            errors.at(
                span_of("layout"),
                format!("an IR model holds its weights in OpenVINO's layout, not {}", spec.layout),
            );
        }
        // The declared cell on its own, checked, has every attribute resolved with its
        // defaults: each must be the layer's.
        let mine = check(spec.graph(Tensors::Runtime), spans)?;
        let mine = &mine.cells[0];
        let pairs = [
            ("input_size", mine.spec.input.to_string(), c.spec.input.to_string()),
            ("hidden_size", mine.spec.hidden.to_string(), c.spec.hidden.to_string()),
            ("activations", fmt_acts(&mine.spec.activations), fmt_acts(&c.spec.activations)),
            ("clip", fmt_clip(mine.spec.clip), fmt_clip(c.spec.clip)),
            ("linear_before_reset", lbr(mine.spec.kind), lbr(c.spec.kind)),
            ("steps", fmt_seq(&mine.seq), fmt_seq(&c.seq)),
            ("bias", (mine.b.is_some()).to_string(), c.b.is_some().to_string()),
        ];
        for (key, mine, theirs) in pairs {
            if mine != theirs {
                errors.at(span_of(key), format!("the declaration has {key} {mine}, but {layer_name} has {theirs}"));
            }
        }
        if c.p.is_some() {
            errors.at(
                self.lit.span(),
                format!(
                    "{layer_name} has peepholes (`P`), which a declared cell does not compute; compile the model itself (`include_model!`, or `cellc`)"
                ),
            );
        }
        if let Some(e) = errors.0 {
            return Err(e);
        }
        // The values, decoded and checked, written again in the element type the model
        // stores them in (exactly: they are values of it), as constants of the declaration.
        let sources = [Some(&c.w), Some(&c.r), c.b.as_ref()];
        let mut bytes = Vec::new();
        let mut consts = Vec::new();
        for ((t, shape), src) in spec.tensors().into_iter().zip(sources) {
            let Some(crate::ir::WeightSrc::Embedded { values, stored }) = src else {
                return Err(self.err(format!("{t} of {layer_name} is not a constant: its weights come at run time")));
            };
            let offset = bytes.len() as u64;
            let elem = stored_bytes(values, *stored, &mut bytes);
            let size = bytes.len() as u64 - offset;
            consts.push(ConstSrc { elem, shape, offset, size, attr_pos: Vec::new() });
        }
        Ok(Tensors::File(self.pos, consts, vocab::Weights::whole(&written, bytes)))
    }
}

/// Appends `values` to `bytes` in the element type `stored` (little-endian) when each is a
/// value of it, else as f32; returns the type written.
fn stored_bytes(values: &[f32], stored: crate::ir::ElemType, bytes: &mut Vec<u8>) -> Elem {
    use crate::ir::ElemType;
    let exact = |back: fn(f32) -> f32| values.iter().all(|v| back(*v).to_bits() == v.to_bits());
    let stored = match stored {
        ElemType::F16 if !exact(|v| half::f16::from_f32(v).to_f32()) => ElemType::F32,
        ElemType::Bf16 if !exact(|v| half::bf16::from_f32(v).to_f32()) => ElemType::F32,
        other => other,
    };
    match stored {
        ElemType::F32 => {
            bytes.extend(values.iter().flat_map(|v| v.to_le_bytes()));
            Elem::F32
        }
        ElemType::F16 => {
            bytes.extend(values.iter().flat_map(|v| half::f16::from_f32(*v).to_le_bytes()));
            Elem::F16
        }
        ElemType::Bf16 => {
            bytes.extend(values.iter().flat_map(|v| half::bf16::from_f32(*v).to_le_bytes()));
            Elem::Bf16
        }
        ElemType::F64 => {
            bytes.extend(values.iter().flat_map(|v| f64::from(*v).to_le_bytes()));
            Elem::F64
        }
    }
}

fn fmt_acts(a: &[crate::ir::Activation]) -> String {
    format!("[{}]", a.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))
}

fn lbr(kind: crate::ir::CellKind) -> String {
    matches!(kind, crate::ir::CellKind::Gru { linear_before_reset: true }).to_string()
}

fn fmt_clip(c: Option<f32>) -> String {
    c.map_or_else(|| "none".to_owned(), |c| c.to_string())
}

fn fmt_seq(s: &Option<crate::ir::Seq>) -> String {
    s.as_ref().map_or_else(|| "none (a cell)".to_owned(), |q| format!("{} over {} steps", q.direction.name(), q.steps))
}

/// That the model `written` holds no cell of the declared kind: which it holds, and what
/// to declare to take one of them.
fn no_cell_of_kind(g: &crate::graph::Graph, spec: &Spec, written: &str) -> String {
    let op = match spec.op {
        crate::vocab::CellOp::Gru => "GRU",
        crate::vocab::CellOp::Rnn => "RNN",
        crate::vocab::CellOp::Lstm => "LSTM",
    };
    let want = format!("{op}{}", if spec.sequence() { "Sequence" } else { "Cell" });
    let held: Vec<(String, &crate::ops::CellAttrs)> = g
        .nodes
        .iter()
        .filter(|n| !n.dead)
        .filter_map(|n| match &n.op {
            crate::ops::Op::Cell(a) => Some((format!("{:?} ({})", n.origin.name, n.origin.op), &**a)),
            _ => None,
        })
        .collect();
    if held.is_empty() {
        return format!("{written:?} has no recurrent cell; a declaration takes the weights of one {want}");
    }
    let names: Vec<&str> = held.iter().map(|(n, _)| n.as_str()).collect();
    let advice = if held.iter().any(|(_, a)| a.op == spec.op) {
        if spec.sequence() {
            "; remove `steps` to take a cell's weights"
        } else {
            "; declare its `steps` (and `direction`) to take a sequence's weights"
        }
    } else {
        ""
    };
    format!("{written:?} has no {want} layer, which this declaration takes; it holds {}{advice}", names.join(", "))
}
