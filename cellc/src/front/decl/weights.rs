//! Weights files a declaration names: a raw file of little-endian f32, or one cell of an
//! OpenVINO IR model, which must be the cell declared.
use super::{Errors, Keys, Spec, Tensors, check};
use crate::diag::Pos;
use crate::ir::raw::{self, Origin, Source};
use crate::layout::Layout;
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
            Err((None, e)) => return Err(self.err(format!("cannot read {written:?}: {e}"))),
            Err((Some(len), _)) => {
                let parts: Vec<String> = tensors.iter().zip(&lens).map(|((t, _), n)| format!("{t}: {n}")).collect();
                return Err(self.err(format!(
                    "{written:?} holds {len} bytes; the declaration needs {want}: little-endian f32 values in the {} layout ({}), one tensor after the other",
                    spec.layout,
                    parts.join(", ")
                )));
            }
        };
        files.push(self.path.to_path_buf());
        let mut offset = 0;
        let mut consts = Vec::new();
        for ((t, shape), n) in tensors.into_iter().zip(&lens) {
            consts.push(raw::Const {
                origin: Origin { pos: Some(self.pos), name: t.to_owned(), op: "Const".to_owned() },
                elem: "f32".to_owned(),
                shape,
                offset,
                size: n * 4,
                converts: Vec::new(),
                attr_pos: Vec::new(),
            });
            offset += n * 4;
        }
        Ok(Tensors::File(self.pos, consts, raw::Weights::whole(&written, bytes)))
    }

    /// The weights of one cell of an IR model, which must be the cell declared: the same
    /// kind, sizes, activations, clip and direction, whether stated or left to defaults.
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
        let raw = crate::front::openvino::read(self.path, None).map_err(fail)?;
        files.push(self.path.to_path_buf());
        files.push(self.path.with_extension("bin"));
        let theirs = crate::check::check(&raw).map_err(fail)?;
        let candidates: Vec<usize> = (0..raw.cells.len())
            .filter(|&k| raw.cells[k].op == spec.op && raw.cells[k].sequence == spec.sequence())
            .filter(|&k| layer.is_none_or(|l| raw.cells[k].origin.name == l.value()))
            .collect();
        let k = match (candidates.as_slice(), layer) {
            ([k], _) => *k,
            ([], Some(l)) => {
                let msg = format!("{written:?} has no layer {:?} of the declared kind", l.value());
                return Err(syn::Error::new(l.span(), msg));
            }
            ([], None) => return Err(self.err(format!("{written:?} has no cell of the declared kind"))),
            (many, _) => {
                let names: Vec<String> = many.iter().map(|&k| format!("{:?}", raw.cells[k].origin.name)).collect();
                return Err(self.err(format!(
                    "{written:?} has several cells of the declared kind ({}); pick one with `layer = \"…\"`",
                    names.join(", ")
                )));
            }
        };
        let (rc, c) = (&raw.cells[k], &theirs.cells[k]);
        let layer_name = format!("layer {:?} ({}) of {written:?}", rc.origin.name, rc.origin.op);
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
        let mine = check(&spec.model(Tensors::Runtime), spans)?;
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
        if let Some(e) = errors.0 {
            return Err(e);
        }
        let mut consts = Vec::new();
        let weight_ports = rc.inputs.len() - spec.tensors().len();
        for (t, input) in ["W", "R", "B"].iter().zip(&rc.inputs[weight_ports..]) {
            let Source::Const(i) = input.source else {
                return Err(self.err(format!("{t} of {layer_name} is not a constant: its weights come at run time")));
            };
            // Checked already: no diagnostic can point into the IR file from here.
            let mut k = raw.consts[i].clone();
            k.origin.pos = Some(self.pos);
            k.attr_pos.clear();
            for (_, o) in &mut k.converts {
                o.pos = Some(self.pos);
            }
            consts.push(k);
        }
        Ok(Tensors::File(self.pos, consts, raw.weights))
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
