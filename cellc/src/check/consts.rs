//! The checks of a cell's weights and constant sequence lengths: where a constant's bytes
//! are in the weights file, their element types and `Convert` chain, decoding, and weights
//! in another tool's layout brought to the kernels'.
use super::{Checker, input_label};
use crate::ir::raw::{self, Source};
use crate::ir::{CellKind, ElemType, Lengths, ParamRole, WeightSrc};
use crate::limits::MAX_CONSTANT_BYTES;

impl<'a> Checker<'a> {
    /// A weight tensor (`bias` for `B`) in the kernels' layout, direction block by block.
    pub(super) fn relayout(
        &mut self,
        c: &raw::Cell,
        kind: CellKind,
        w: WeightSrc,
        bias: bool,
        dirs: usize,
    ) -> Option<WeightSrc> {
        let layout = c.layout;
        if layout == crate::layout::Layout::OpenVino {
            return Some(w);
        }
        match w {
            // Generated code converts these as it packs them (see `Layout::bias_terms`).
            WeightSrc::Runtime(p) => Some(WeightSrc::Runtime(p)),
            WeightSrc::Embedded { values, stored } => {
                let h = c.hidden_size as usize;
                let block = values.len() / dirs;
                let values = values
                    .chunks(block)
                    .flat_map(|d| if bias { layout.bias(kind, h, d) } else { layout.weights(kind, d) })
                    .collect();
                Some(WeightSrc::Embedded { values, stored })
            }
        }
    }

    /// The `sequence_lengths` input at `port`: a Parameter, or constants within `[0, steps]`.
    pub(super) fn lengths(&mut self, c: &raw::Cell, port: usize, steps: u64) -> Option<Lengths> {
        let label = input_label(c, port);
        match c.inputs[port].source {
            Source::Param(p) => {
                self.use_param(p, ParamRole::Lengths, &c.origin, &label);
                Some(Lengths::Param(p))
            }
            Source::Const(k) => {
                let k = &self.m.consts[k];
                let raw = self.const_bytes(k)?;
                let Some(values) = crate::front::openvino::weights::decode_ints(&k.elem, raw) else {
                    let msg = format!(
                        "element type {:?} is not supported for sequence lengths; expected i32 or i64 values",
                        k.elem
                    );
                    self.err(k.attr_pos("element_type"), &k.origin, msg);
                    return None;
                };
                if let Some(bad) = values.iter().find(|&&v| v < 0 || v as u64 > steps) {
                    let msg = format!("a sequence length is {bad}; expected 0 to {steps} (the steps of X)");
                    self.err(k.origin.pos, &k.origin, msg);
                    return None;
                }
                Some(Lengths::Const(values.into_iter().map(|v| v as usize).collect()))
            }
            _ => {
                self.unsupported(c, port, "a Parameter or a Const of int32 or int64 lengths");
                None
            }
        }
    }

    pub(super) fn weight_source(&mut self, c: &raw::Cell, port: usize) -> Option<WeightSrc> {
        match c.inputs[port].source {
            Source::Param(p) => {
                self.use_param(p, ParamRole::Weights, &c.origin, &input_label(c, port));
                let want = &c.inputs[port].dims;
                let got = &self.m.params[p].shape;
                if got != want || got.contains(&raw::Dim::Dynamic) {
                    let msg = format!(
                        "{} is Parameter {:?} of shape {}; expected the static shape {}",
                        input_label(c, port),
                        self.m.params[p].origin.name,
                        raw::show_dims(got),
                        raw::show_dims(want)
                    );
                    self.err(c.inputs[port].pos, &c.origin, msg);
                    return None;
                }
                Some(WeightSrc::Runtime(p))
            }
            Source::Const(k) => {
                let k = &self.m.consts[k];
                let want: Vec<raw::Dim> = k.shape.iter().map(|&n| raw::Dim::Static(n)).collect();
                if want != c.inputs[port].dims {
                    let msg = format!(
                        "{} is declared {} but constant {:?} has shape {}",
                        input_label(c, port),
                        raw::show_dims(&c.inputs[port].dims),
                        k.origin.name,
                        raw::show_dims(&want)
                    );
                    self.err(c.inputs[port].pos, &c.origin, msg);
                    return None;
                }
                self.constant(k)
            }
            _ => {
                self.unsupported(c, port, "a Const (optionally through Convert) or a Parameter");
                None
            }
        }
    }

    /// Decodes a constant to f32, checking its type, its place in the weights file and its
    /// `Convert` chain.
    fn constant(&mut self, k: &raw::Const) -> Option<WeightSrc> {
        let Some(elem) = ElemType::parse(&k.elem) else {
            self.err(
                k.attr_pos("element_type"),
                &k.origin,
                format!("element type {:?} is not supported for weights; expected f32, f16, bf16 or f64", k.elem),
            );
            return None;
        };
        let mut chain = Vec::new();
        for (dest, o) in &k.converts {
            match ElemType::parse(dest) {
                Some(t) => chain.push(t),
                None => {
                    self.err(None, o, format!("`destination_type` is {dest:?}; expected f32, f16, bf16 or f64"));
                    return None;
                }
            }
        }
        let last = chain.last().copied().unwrap_or(elem);
        if last != ElemType::F32 {
            self.err(
                None,
                &k.origin,
                format!("weights reach the cell as {last}; cellc compiles f32 cells (add a Convert to f32)"),
            );
            return None;
        }
        let Some(count) = crate::limits::product(k.shape.iter().copied()) else {
            let msg = format!("shape {:?} has more elements than cellc can count", k.shape);
            self.err(k.origin.pos, &k.origin, msg);
            return None;
        };
        let want = count.checked_mul(elem.size() as u64);
        if want != Some(k.size) {
            let want = want.map_or_else(|| "more than 2^64".to_owned(), |w| w.to_string());
            let msg =
                format!("`size` is {} bytes; expected {want} ({count} {elem} elements of shape {:?})", k.size, k.shape);
            self.err(k.attr_pos("size"), &k.origin, msg);
            return None;
        }
        let slice = self.const_bytes(k)?;
        Some(WeightSrc::Embedded { values: crate::front::openvino::weights::decode(elem, &chain, slice), stored: elem })
    }

    /// The bytes of a constant in the weights file, or the reason they are not there
    /// reported.
    fn const_bytes(&mut self, k: &raw::Const) -> Option<&'a [u8]> {
        let data = match &self.m.weights.data {
            Ok(d) => d,
            Err(e) => {
                if !self.weights_unreadable_reported {
                    self.weights_unreadable_reported = true;
                    let msg = format!("cannot read the weights file {}: {e}", self.m.weights.path);
                    self.err(None, &k.origin, msg);
                }
                return None;
            }
        };
        if let Some(b) = data.get(k.offset, k.size) {
            return Some(b);
        }
        let end = k.offset.checked_add(k.size);
        let msg = if end.is_some_and(|e| e <= data.len()) && k.size > MAX_CONSTANT_BYTES {
            format!("the constant holds {} bytes; cellc reads constants of at most {MAX_CONSTANT_BYTES} bytes", k.size)
        } else {
            format!(
                "bytes {}..{} lie outside the weights file {} ({} bytes); the file is truncated or does not belong to this model",
                k.offset,
                end.map_or_else(|| "(past 2^64)".to_owned(), |e| e.to_string()),
                self.m.weights.path,
                data.len()
            )
        };
        let key = if end.is_some_and(|e| e <= data.len()) { "size" } else { "offset" };
        self.err(k.attr_pos(key), &k.origin, msg);
        None
    }
}
