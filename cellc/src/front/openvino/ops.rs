//! The `<data>` attributes of each IR op type, parsed into an [`Op`]. A type cellc does
//! not know becomes [`Op::Unknown`], kept in the graph so that it can be named in errors.
use super::xml::Layer;
use crate::diag::{Diag, Pos};
use crate::graph::Elem;
use crate::ops::conv::{AutoPad, ConvAttrs, Window, WindowRounding};
use crate::ops::norm::{EpsMode, MvnAttrs, Norm};
use crate::ops::pad::PadMode;
use crate::ops::pool::{PoolAttrs, PoolKind};
use crate::ops::pure::{Class, Pure};
use crate::ops::strided::Masks;
use crate::ops::{Binary, BroadcastMode, CellAttrs, Compare, Op, Parametric, ReduceKind, Unary};
use crate::vocab::{self, CellOp};

/// Reads attributes, collecting problems.
pub(super) struct Attrs<'a> {
    pub(super) file: &'a str,
    pub(super) layer: &'a Layer,
    pub(super) diags: &'a mut Vec<Diag>,
}

impl<'a> Attrs<'a> {
    fn err(&mut self, pos: Option<Pos>, msg: String) {
        let l = self.layer;
        self.diags.push(Diag::new(crate::diag::Code::Layer, self.file, pos, msg).in_layer(&l.name, &l.op));
    }

    /// The layer's `version` (its opset), trimmed.
    fn version(&self) -> Option<&'a str> {
        let l: &'a Layer = self.layer;
        l.version.as_deref().map(str::trim)
    }

    fn bool(&mut self, key: &str, default: bool) -> bool {
        match self.layer.attr(key).map(|s| s.trim().to_ascii_lowercase()) {
            None => default,
            Some(s) if s == "true" || s == "1" => true,
            Some(s) if s == "false" || s == "0" => false,
            Some(s) => {
                self.err(self.layer.attr_pos(key), format!("`{key}` is {s:?}; expected true or false"));
                default
            }
        }
    }

    fn int(&mut self, key: &str, default: Option<i64>) -> i64 {
        match (self.layer.attr(key).map(|s| s.trim().parse::<i64>()), default) {
            (Some(Ok(v)), _) => v,
            (None, Some(d)) => d,
            (Some(Err(_)), _) => {
                let v = self.layer.attr(key).unwrap_or_default().to_owned();
                self.err(self.layer.attr_pos(key), format!("`{key}` is {v:?}; expected a whole number"));
                0
            }
            (None, None) => {
                self.err(self.layer.data_pos.or(self.layer.pos), format!("no `{key}` attribute in <data>"));
                0
            }
        }
    }

    /// A required non-negative whole number.
    pub(super) fn u64(&mut self, key: &str) -> u64 {
        match self.layer.attr(key).map(|v| v.trim().parse::<u64>()) {
            Some(Ok(v)) => v,
            Some(Err(_)) => {
                let v = self.layer.attr(key).unwrap_or_default().to_owned();
                self.err(self.layer.attr_pos(key), format!("`{key}` is {v:?}; expected a non-negative integer"));
                0
            }
            None => {
                self.err(self.layer.data_pos.or(self.layer.pos), format!("no `{key}` attribute in <data>"));
                0
            }
        }
    }

    fn float(&mut self, key: &str, default: Option<f64>) -> f64 {
        match (self.layer.attr(key).map(|s| s.trim().parse::<f64>()), default) {
            (Some(Ok(v)), _) if !v.is_nan() => v,
            (None, Some(d)) => d,
            (None, None) => {
                self.err(self.layer.data_pos.or(self.layer.pos), format!("no `{key}` attribute in <data>"));
                0.0
            }
            _ => {
                let v = self.layer.attr(key).unwrap_or_default().to_owned();
                self.err(self.layer.attr_pos(key), format!("`{key}` is {v:?}; expected a number"));
                0.0
            }
        }
    }

    /// A mask of 0s and 1s separated by commas (empty when absent).
    fn flags(&mut self, key: &str) -> Vec<bool> {
        let Some(s) = self.layer.attr(key) else { return Vec::new() };
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "0" => out.push(false),
                "1" => out.push(true),
                _ => {
                    let pos = self.layer.attr_pos(key);
                    self.err(pos, format!("`{key}` holds {part:?}; expected 0s and 1s separated by commas"));
                }
            }
        }
        out
    }

    /// A required list of whole numbers separated by commas (empty when written empty).
    fn int_list(&mut self, key: &str) -> Vec<i64> {
        if self.layer.attr(key).is_none() {
            self.err(self.layer.data_pos.or(self.layer.pos), format!("no `{key}` attribute in <data>"));
        }
        self.list(key, "whole numbers")
    }

    /// A list of values separated by commas (empty when absent), each bad one reported.
    fn list<T: std::str::FromStr>(&mut self, key: &str, what: &str) -> Vec<T> {
        let Some(s) = self.layer.attr(key) else { return Vec::new() };
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.parse::<T>() {
                Ok(v) => out.push(v),
                Err(_) => {
                    let pos = self.layer.attr_pos(key);
                    self.err(pos, format!("`{key}` holds {part:?}; expected {what} separated by commas"));
                }
            }
        }
        out
    }

    /// How a convolution's or pool's window moves: a convolution's (`pool` false) always
    /// dilates and never rounds up, a pool's rounds as `rounding_type` says and dilates
    /// where it says so (MaxPool-8).
    fn window(&mut self, pool: bool) -> Window {
        let auto_pad = match self.layer.attr("auto_pad").map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            None | Some("explicit") => AutoPad::Explicit,
            Some("same_upper") => AutoPad::SameUpper,
            Some("same_lower") => AutoPad::SameLower,
            Some("valid") => AutoPad::Valid,
            Some(m) => {
                let msg = format!("`auto_pad` is {m:?}; expected explicit, same_upper, same_lower or valid");
                self.err(self.layer.attr_pos("auto_pad"), msg);
                AutoPad::Explicit
            }
        };
        let rounding = if pool { self.layer.attr("rounding_type") } else { None };
        let rounding = match rounding.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            None | Some("floor") => WindowRounding::Floor,
            Some("ceil") => WindowRounding::Ceil,
            Some("ceil_torch") => WindowRounding::CeilTorch,
            Some(m) => {
                let msg = format!("`rounding_type` is {m:?}; expected floor, ceil or ceil_torch");
                self.err(self.layer.attr_pos("rounding_type"), msg);
                WindowRounding::Floor
            }
        };
        // Without explicit padding the pads need not be written.
        let pads = |s: &mut Self, key: &str| {
            if auto_pad != AutoPad::Explicit && s.layer.attr(key).is_none() { Vec::new() } else { s.int_list(key) }
        };
        let strides = self.int_list("strides");
        // A pool's `dilations` is a MaxPool-8 key: MaxPool-1 and AvgPool-1 have none.
        if pool && self.layer.attr("dilations").is_some() && self.version() == Some("opset1") {
            let msg = format!(
                "`dilations` is not an attribute of {}-1 (opset1); MaxPool-8 (opset8) and later have it",
                self.layer.op
            );
            self.err(self.layer.attr_pos("dilations"), msg);
        }
        let dilations = if !pool || self.layer.attr("dilations").is_some() {
            self.int_list("dilations")
        } else {
            vec![1; strides.len()]
        };
        Window {
            strides,
            dilations,
            pads_begin: pads(self, "pads_begin"),
            pads_end: pads(self, "pads_end"),
            auto_pad,
            rounding,
        }
    }

    /// A convolution's attributes.
    fn conv(&mut self, grouped: bool, transposed: bool) -> Op {
        let window = self.window(false);
        let output_padding = if transposed { self.list("output_padding", "whole numbers") } else { Vec::new() };
        Op::Conv(Box::new(ConvAttrs { window, grouped, transposed, output_padding, crop: None }))
    }

    /// A pool's attributes.
    fn pool(&mut self, max: bool) -> Op {
        let window = self.window(true);
        let kernel = self.int_list("kernel");
        let kind = if max { PoolKind::Max } else { PoolKind::Avg { exclude_pad: self.bool("exclude-pad", false) } };
        let index_elem = if max { self.elem("index_element_type", Some(Elem::I64)) } else { Elem::I64 };
        // MaxPool-8's `axis` says from which axis its indices count; a model whose indices
        // are read is refused (`passes::lower`), so it changes nothing cellc computes.
        if max {
            self.int("axis", Some(0));
        }
        // MaxPool-8 computes its indices as output 1; a layer that declares its first output
        // port alone is the same op, whose indices nobody can read.
        let indices = max && self.layer.version.as_deref() != Some("opset1") && self.layer.outputs.len() > 1;
        Op::Pool(Box::new(PoolAttrs { window, kernel, kind, indices, index_elem }))
    }

    /// An attribute that names one of `options` (any case), `default` when absent; `None`
    /// (reported) for another name.
    fn choice(&mut self, key: &str, default: Option<usize>, options: &[&str]) -> Option<usize> {
        match self.layer.attr(key).map(|s| s.trim().to_ascii_lowercase()) {
            None if default.is_some() => default,
            None => {
                self.err(self.layer.data_pos.or(self.layer.pos), format!("no `{key}` attribute in <data>"));
                None
            }
            Some(s) => {
                let found = options.iter().position(|o| *o == s);
                if found.is_none() {
                    let msg = format!("`{key}` is {s:?}; cellc supports {}", options.join(", "));
                    self.err(self.layer.attr_pos(key), msg);
                }
                found
            }
        }
    }

    /// An `Interpolate`'s attributes (opset 4 and 11).
    fn interpolate(&mut self) -> Op {
        use crate::ops::interpolate::{Coord, Interp, Mode, Rounding};
        let modes = ["nearest", "linear", "linear_onnx", "cubic"];
        let mode = self.choice("mode", None, &modes);
        let roundings = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"];
        let rounding = self.choice("nearest_mode", Some(0), &roundings);
        let by_sizes = self.choice("shape_calculation_mode", None, &["sizes", "scales"]);
        let coords = ["half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners"];
        let coord = self.choice("coordinate_transformation_mode", Some(0), &coords);
        let antialias = self.bool("antialias", false);
        let cube = self.float("cube_coeff", Some(-0.75));
        let pads_begin = self.list("pads_begin", "whole numbers");
        let pads_end = self.list("pads_end", "whole numbers");
        let (Some(mode), Some(rounding), Some(by_sizes), Some(coord)) = (mode, rounding, by_sizes, coord) else {
            return Op::Unknown;
        };
        let rounding =
            [Rounding::PreferFloor, Rounding::PreferCeil, Rounding::Floor, Rounding::Ceil, Rounding::Simple][rounding];
        let name = modes[mode];
        let mode = [Mode::Nearest(rounding), Mode::Linear { antialias }, Mode::LinearOnnx, Mode::Cubic(cube)][mode];
        if antialias && !matches!(mode, Mode::Linear { .. }) {
            let msg = format!("`antialias` is set with mode {name:?}; cellc antialiases the linear mode only");
            self.err(self.layer.attr_pos("antialias"), msg);
            return Op::Unknown;
        }
        let coord = [
            Coord::HalfPixel,
            Coord::PytorchHalfPixel,
            Coord::Asymmetric,
            Coord::TfHalfPixelForNn,
            Coord::AlignCorners,
        ][coord];
        Op::Interpolate(Box::new(Interp { mode, by_sizes: by_sizes == 0, coord, pads_begin, pads_end }))
    }

    fn floats(&mut self, key: &str) -> Vec<f32> {
        self.list(key, "numbers")
    }

    pub(super) fn elem(&mut self, key: &str, default: Option<Elem>) -> Elem {
        match (self.layer.attr(key), default) {
            (Some(s), _) => Elem::parse(s).unwrap_or_else(|| {
                let msg =
                    format!("`{key}` is {s:?}; expected an element type (f32, f16, bf16, f64, i32, i64, boolean, …)");
                self.err(self.layer.attr_pos(key), msg);
                Elem::F32
            }),
            (None, Some(d)) => d,
            (None, None) => {
                self.err(self.layer.data_pos.or(self.layer.pos), format!("no `{key}` attribute in <data>"));
                Elem::F32
            }
        }
    }

    /// `auto_broadcast`: numpy (the default) or none; pdpd is not supported.
    fn numpy_broadcast(&mut self) -> bool {
        match self.layer.attr("auto_broadcast").map(|s| s.trim().to_ascii_lowercase()) {
            None => true,
            Some(s) if s == "numpy" || s == "none" => true,
            Some(s) => {
                let msg = format!("`auto_broadcast` is {s:?}; cellc supports numpy and none");
                self.err(self.layer.attr_pos("auto_broadcast"), msg);
                false
            }
        }
    }

    fn cell(&mut self, op: CellOp) -> CellAttrs {
        let l = self.layer;
        let hidden_size = match l.attr("hidden_size") {
            Some(_) => self.int("hidden_size", None),
            None => {
                self.err(l.data_pos.or(l.pos), "no `hidden_size` attribute; it is required".to_owned());
                1
            }
        };
        let sequence = l.op.ends_with("Sequence");
        let linear_before_reset = op == CellOp::Gru && self.bool("linear_before_reset", false);
        let names: Option<Vec<String>> = l
            .attr("activations")
            .map(|s| s.split(',').map(|a| a.trim().to_owned()).filter(|a| !a.is_empty()).collect());
        let alpha: Vec<Option<f32>> = self.floats("activations_alpha").into_iter().map(Some).collect();
        let beta: Vec<Option<f32>> = self.floats("activations_beta").into_iter().map(Some).collect();
        let kind = CellAttrs::kind_of(op, linear_before_reset);
        let direction = if sequence {
            vocab::resolve_direction(l.attr("direction").map(str::trim))
        } else {
            Ok(vocab::Direction::Forward)
        };
        let dirs = direction.as_ref().map_or(1, |d| d.count());
        CellAttrs {
            op,
            sequence,
            direction,
            hidden_size,
            activations: vocab::resolve_activations_of(kind, dirs, names.as_deref(), &alpha, &beta),
            clip: vocab::resolve_clip(self.floats("clip").first().copied().unwrap_or(0.0)),
            linear_before_reset,
            layout: crate::vocab::Layout::OpenVino,
            attr_pos: ["hidden_size", "activations", "clip", "direction"]
                .into_iter()
                .filter_map(|k| Some((k, l.attr_pos(k)?)))
                .collect(),
        }
    }

    /// The op of the layer (Parameter and Const are built by the caller).
    pub(super) fn op(&mut self) -> Op {
        let t = self.layer.op.as_str();
        if let Some(u) = self.unary(t) {
            return Op::Unary(u);
        }
        match t {
            "HardSigmoid" => return Op::Parametric(Parametric::HardSigmoid),
            "Swish" => return Op::Parametric(Parametric::Swish),
            "Selu" => return Op::Parametric(Parametric::Selu),
            _ => {}
        }
        if let Some(b) = binary(t) {
            let b = match b {
                Binary::Divide { .. } => Binary::Divide { python: self.bool("m_pythondiv", true) },
                b => b,
            };
            return if self.numpy_broadcast() { Op::Binary(b) } else { Op::Unknown };
        }
        if let Some(c) = compare(t) {
            return if self.numpy_broadcast() { Op::Compare(c) } else { Op::Unknown };
        }
        if let Some(k) = ReduceKind::of_op(t) {
            return Op::Reduce { kind: k, keep_dims: self.bool("keep_dims", false) };
        }
        match t {
            "Result" => Op::Result,
            "GatherElements" => Op::Pure(Pure::GatherElements { axis: self.int("axis", None) }),
            "TopK" => {
                let largest = self.choice("mode", None, &["max", "min"]) == Some(0);
                // Sorted by value, or left to the implementation (cellc sorts); equal values
                // by index, which `stable` asks for.
                if self.choice("sort", Some(0), &["value", "none", "index"]) == Some(2) {
                    let msg = "`sort` is \"index\"; cellc gives TopK's values sorted by value".to_owned();
                    self.err(self.layer.attr_pos("sort"), msg);
                }
                self.bool("stable", false);
                self.elem("index_element_type", Some(Elem::I32));
                Op::Pure(Pure::TopK { axis: self.int("axis", None), largest })
            }
            "CumSum" => Op::Pure(Pure::Cumulative {
                product: false,
                exclusive: self.bool("exclusive", false),
                reverse: self.bool("reverse", false),
            }),
            "NonZero" => {
                if self.elem("output_type", Some(Elem::I64)) != Elem::I64 {
                    self.err(
                        self.layer.attr_pos("output_type"),
                        "`output_type` is i32; cellc gives NonZero's indices as i64".to_owned(),
                    );
                }
                Op::Pure(Pure::NonZero)
            }
            "IsNaN" => Op::Pure(Pure::Class(Class::Nan)),
            "IsInf" => Op::Pure(Pure::Class(Class::Inf {
                positive: self.bool("detect_positive", true),
                negative: self.bool("detect_negative", true),
            })),
            "Convert" => Op::Convert { to: self.elem("destination_type", None) },
            "ConvertLike" => Op::ConvertLike,
            "Identity" => Op::Identity,
            "ShapeOf" => Op::ShapeOf { out: self.elem("output_type", Some(Elem::I64)) },
            "Reshape" => Op::Reshape { special_zero: self.bool("special_zero", false) },
            "Squeeze" => Op::Squeeze,
            "Unsqueeze" => Op::Unsqueeze,
            "Transpose" => Op::Transpose,
            "Concat" => Op::Concat { axis: self.int("axis", None) },
            "Gather" => Op::Gather { batch_dims: self.int("batch_dims", Some(0)) },
            "Slice" => Op::Slice,
            "StridedSlice" => Op::StridedSlice(Masks {
                begin: self.flags("begin_mask"),
                end: self.flags("end_mask"),
                new_axis: self.flags("new_axis_mask"),
                shrink_axis: self.flags("shrink_axis_mask"),
                ellipsis: self.flags("ellipsis_mask"),
            }),
            "Split" => Op::Split { parts: self.int("num_splits", None).max(0) as u64 },
            "VariadicSplit" => Op::VariadicSplit,
            "Tile" => Op::Tile,
            "Range" => match self.layer.version.as_deref() {
                Some("opset1") => Op::Range { out: None },
                _ => Op::Range { out: Some(self.elem("output_type", None)) },
            },
            "Broadcast" => match self.layer.attr("mode").map(|m| m.trim().to_ascii_lowercase()).as_deref() {
                None | Some("numpy") => Op::Broadcast { mode: BroadcastMode::Numpy },
                Some("bidirectional") => Op::Broadcast { mode: BroadcastMode::Bidirectional },
                Some("explicit") => Op::Broadcast { mode: BroadcastMode::Explicit },
                Some(m) => {
                    let msg = format!("`mode` is {m:?}; cellc supports numpy, bidirectional and explicit");
                    self.err(self.layer.attr_pos("mode"), msg);
                    Op::Unknown
                }
            },
            "Select" => {
                if self.numpy_broadcast() {
                    Op::Select
                } else {
                    Op::Unknown
                }
            }
            "MatMul" => Op::MatMul { ta: self.bool("transpose_a", false), tb: self.bool("transpose_b", false) },
            "SoftMax" | "Softmax" => Op::Softmax { axis: self.int("axis", Some(1)), log: false },
            "LogSoftmax" => Op::Softmax { axis: self.int("axis", Some(1)), log: true },
            "Convolution" => self.conv(false, false),
            "GroupConvolution" => self.conv(true, false),
            "ConvolutionBackpropData" => self.conv(false, true),
            "GroupConvolutionBackpropData" => self.conv(true, true),
            "MaxPool" => self.pool(true),
            "Interpolate" => self.interpolate(),
            "MVN" => {
                let inside = match self.layer.attr("eps_mode").map(|m| m.trim().to_ascii_lowercase()).as_deref() {
                    Some("inside_sqrt") => true,
                    Some("outside_sqrt") => false,
                    other => {
                        let msg = match other {
                            Some(m) => format!("`eps_mode` is {m:?}; expected inside_sqrt or outside_sqrt"),
                            None => {
                                "no `eps_mode` attribute in <data>; expected inside_sqrt or outside_sqrt".to_owned()
                            }
                        };
                        self.err(self.layer.attr_pos("eps_mode").or(self.layer.data_pos), msg);
                        true
                    }
                };
                let normalize_variance = self.bool("normalize_variance", true);
                Op::Norm(Norm::Mvn(MvnAttrs { normalize_variance, eps: self.float("eps", None), inside }))
            }
            "NormalizeL2" => {
                let mode = match self.layer.attr("eps_mode").map(|m| m.trim().to_ascii_lowercase()).as_deref() {
                    Some("add") => EpsMode::Add,
                    Some("max") => EpsMode::Max,
                    other => {
                        let msg = match other {
                            Some(m) => format!("`eps_mode` is {m:?}; expected add or max"),
                            None => "no `eps_mode` attribute in <data>; expected add or max".to_owned(),
                        };
                        self.err(self.layer.attr_pos("eps_mode").or(self.layer.data_pos), msg);
                        EpsMode::Add
                    }
                };
                Op::Norm(Norm::L2 { eps: self.float("eps", None), mode })
            }
            "ScatterUpdate" => Op::Scatter(crate::ops::scatter::Scatter::Axis),
            "ScatterElementsUpdate" => {
                use crate::ops::scatter::{Reduction, Scatter};
                let modes = ["none", "sum", "prod", "min", "max", "mean"];
                let r = match self.choice("reduction", Some(0), &modes) {
                    Some(5) => {
                        self.err(
                            self.layer.attr_pos("reduction"),
                            "`reduction` is \"mean\"; cellc supports none, sum, prod, min and max".to_owned(),
                        );
                        None
                    }
                    Some(k) => Reduction::parse(modes[k]).flatten(),
                    None => None,
                };
                // Without `use_init_val`, a position an update reaches starts from the
                // reduction's identity rather than the data's value.
                if r.is_some() && !self.bool("use_init_val", true) {
                    self.err(
                        self.layer.attr_pos("use_init_val"),
                        "`use_init_val` is false; cellc supports true".to_owned(),
                    );
                }
                Op::Scatter(Scatter::Elements(r))
            }
            "ScatterNDUpdate" => {
                use crate::ops::scatter::{Reduction, Scatter};
                let name = self.layer.attr("reduction").map(|r| r.trim().to_ascii_lowercase());
                if name.is_some() && self.version() != Some("opset15") {
                    let v = self.version().unwrap_or_default().to_owned();
                    let msg = format!(
                        "`reduction` is not an attribute of ScatterNDUpdate in {v}; ScatterNDUpdate-15 (opset15) has it"
                    );
                    self.err(self.layer.attr_pos("reduction"), msg);
                }
                match name.as_deref().map_or(Some(None), Reduction::parse) {
                    Some(None) => Op::Scatter(Scatter::Nd),
                    Some(Some(r)) => Op::Scatter(Scatter::NdReduce(r)),
                    None => {
                        let r = name.unwrap_or_default();
                        let msg = format!("`reduction` is {r:?}; expected none, sum, sub, prod, min or max");
                        self.err(self.layer.attr_pos("reduction"), msg);
                        Op::Unknown
                    }
                }
            }
            "Einsum" => match self.layer.attr("equation").map(crate::ops::einsum::Equation::parse) {
                Some(Ok(eq)) => Op::Einsum(Box::new(eq)),
                Some(Err(msg)) => {
                    self.err(self.layer.attr_pos("equation"), msg.to_string());
                    Op::Unknown
                }
                None => {
                    self.err(self.layer.data_pos.or(self.layer.pos), "no `equation` attribute in <data>".to_owned());
                    Op::Unknown
                }
            },
            "BatchNormInference" => {
                let eps = self.float("epsilon", None);
                if eps < 0.0 {
                    self.err(self.layer.attr_pos("epsilon"), format!("`epsilon` is {eps}; expected 0 or more"));
                }
                Op::Norm(Norm::Batch { eps })
            }
            "AvgPool" => self.pool(false),
            "Pad" => match self.layer.attr("pad_mode").map(|m| m.trim().to_ascii_lowercase()).as_deref() {
                None | Some("constant") => Op::Pad(PadMode::Constant),
                Some("edge") => Op::Pad(PadMode::Edge),
                Some("reflect") => Op::Pad(PadMode::Reflect),
                Some("symmetric") => Op::Pad(PadMode::Symmetric),
                Some(m) => {
                    let msg = format!("`pad_mode` is {m:?}; expected constant, edge, reflect or symmetric");
                    self.err(self.layer.attr_pos("pad_mode"), msg);
                    Op::Unknown
                }
            },
            "If" => Op::If,
            "ReadValue" => Op::ReadValue {
                variable: self.variable(),
                shape: self.layer.attr("variable_shape").map(|v| self.dims("variable_shape", v)),
                elem: match self.layer.attr("variable_type").map(str::trim) {
                    None | Some("dynamic" | "undefined") => None,
                    Some(_) => Some(self.elem("variable_type", None)),
                },
            },
            "Assign" => Op::Assign { variable: self.variable() },
            "GRUCell" | "GRUSequence" => Op::Cell(Box::new(self.cell(CellOp::Gru))),
            "RNNCell" | "RNNSequence" => Op::Cell(Box::new(self.cell(CellOp::Rnn))),
            "LSTMCell" | "LSTMSequence" => Op::Cell(Box::new(self.cell(CellOp::Lstm))),
            _ => Op::Unknown,
        }
    }

    /// `variable_id`, required.
    fn variable(&mut self) -> String {
        match self.layer.attr("variable_id") {
            Some(v) if !v.trim().is_empty() => v.trim().to_owned(),
            _ => {
                self.err(self.layer.data_pos.or(self.layer.pos), "no `variable_id` attribute in <data>".to_owned());
                String::new()
            }
        }
    }

    /// A list of dimensions (`1,2,16` or `[1,2,16]`, `?` or -1 for a dynamic one).
    fn dims(&mut self, key: &str, v: &str) -> Vec<crate::vocab::Dim> {
        let inner = v.trim().trim_start_matches('[').trim_end_matches(']');
        if inner.trim().is_empty() {
            return Vec::new();
        }
        let parsed: Option<Vec<_>> = inner.split(',').map(super::xml::parse_dim).collect();
        parsed.unwrap_or_else(|| {
            self.err(self.layer.attr_pos(key), format!("`{key}` is {v:?}; expected sizes separated by commas"));
            Vec::new()
        })
    }

    fn unary(&mut self, t: &str) -> Option<Unary> {
        Some(match t {
            "ReLU" | "Relu" => Unary::Relu,
            "Sigmoid" => Unary::Sigmoid,
            "Tanh" => Unary::Tanh,
            "Exp" => Unary::Exp,
            "Log" => Unary::Log,
            "Abs" => Unary::Abs,
            "Sqrt" => Unary::Sqrt,
            "Negative" => Unary::Negative,
            "Floor" => Unary::Floor,
            "Ceiling" => Unary::Ceiling,
            "Clamp" => {
                let (min, max) = (self.float("min", None), self.float("max", None));
                if min > max {
                    let msg = format!("`min` is {min} and `max` {max}; expected min <= max");
                    self.err(self.layer.attr_pos("min"), msg);
                }
                Unary::Clamp { min, max }
            }
            "Elu" => Unary::Elu { alpha: self.float("alpha", None) },
            "SoftPlus" => Unary::SoftPlus,
            "SoftSign" => Unary::SoftSign,
            "HSigmoid" => Unary::HSigmoid,
            "HSwish" => Unary::HSwish,
            "Swish" if self.layer.inputs.len() == 1 => Unary::Swish { beta: 1.0 },
            "Mish" => Unary::Mish,
            "Sign" => Unary::Sign,
            "LogicalNot" => Unary::LogicalNot,
            "Gelu" => match self.layer.version.as_deref() {
                // Gelu-2 has no attributes: the erf form.
                Some("opset2") => Unary::Gelu { tanh: false },
                _ => Unary::Gelu { tanh: self.choice("approximation_mode", Some(0), &["erf", "tanh"]) == Some(1) },
            },
            "Round" => {
                let mode = self.choice("mode", None, &["half_to_even", "half_away_from_zero"]);
                Unary::Round { even: mode != Some(1) }
            }
            _ => Unary::Math(crate::ops::MathFn::of_op(t)?),
        })
    }
}

fn binary(t: &str) -> Option<Binary> {
    Some(match t {
        "Add" => Binary::Add,
        "Subtract" => Binary::Subtract,
        "Multiply" => Binary::Multiply,
        "Divide" => Binary::Divide { python: true },
        "Power" => Binary::Power,
        "Maximum" => Binary::Maximum,
        "Minimum" => Binary::Minimum,
        "SquaredDifference" => Binary::SquaredDifference,
        // OpenVINO writes `PReLU`; its opset names the op `PRelu`.
        "PRelu" | "PReLU" => Binary::PRelu,
        "LogicalAnd" => Binary::LogicalAnd,
        "LogicalOr" => Binary::LogicalOr,
        "LogicalXor" => Binary::LogicalXor,
        "Mod" => Binary::Mod { fmod: true },
        "FloorMod" => Binary::Mod { fmod: false },
        _ => return None,
    })
}

fn compare(t: &str) -> Option<Compare> {
    Some(match t {
        "Equal" => Compare::Equal,
        "NotEqual" => Compare::NotEqual,
        "Less" => Compare::Less,
        "LessEqual" => Compare::LessEqual,
        "Greater" => Compare::Greater,
        "GreaterEqual" => Compare::GreaterEqual,
        _ => return None,
    })
}
