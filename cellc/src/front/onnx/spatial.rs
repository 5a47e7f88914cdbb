//! ONNX's ops over spatial axes (`[N, C, spatial…]`) as cellc's: convolutions (their bias
//! added after, grouped weights given their group axis), pools, batch and instance
//! normalisation, Resize, Pad and Flatten.
use super::node::Node;
use crate::graph::{Elem, TensorId};
use crate::ops::conv::{AutoPad, ConvAttrs, Crop, Window, WindowRounding};
use crate::ops::interpolate::{Coord, Interp, Mode, Rounding};
use crate::ops::norm::{MvnAttrs, Norm};
use crate::ops::pad::PadMode;
use crate::ops::pool::{PoolAttrs, PoolKind};
use crate::ops::{Binary, Op, ReduceKind};

/// `auto_pad`, NOTSET (explicit `pads`) by default.
fn auto_pad(cx: &mut Node<'_, '_>) -> Option<AutoPad> {
    match cx.attrs.string("auto_pad").as_deref().unwrap_or("NOTSET") {
        "NOTSET" => Some(AutoPad::Explicit),
        "SAME_UPPER" => Some(AutoPad::SameUpper),
        "SAME_LOWER" => Some(AutoPad::SameLower),
        "VALID" => Some(AutoPad::Valid),
        other => {
            cx.err(format!("`auto_pad` is {other:?}; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID"));
            None
        }
    }
}

/// How a window of `spatial` axes moves: `strides`, `dilations` (ones by default), `pads`
/// (ONNX writes every axis's begin, then every axis's end; zeros by default).
fn window(cx: &mut Node<'_, '_>, spatial: usize, rounding: WindowRounding) -> Option<Window> {
    let auto_pad = auto_pad(cx)?;
    let list = |cx: &mut Node<'_, '_>, key: &str, n: usize, default: i64| -> Option<Vec<i64>> {
        let v = cx.attrs.ints(key).unwrap_or_else(|| vec![default; n]);
        if v.len() != n {
            cx.err(format!("`{key}` has {} values; expected {n} for {spatial} spatial axes", v.len()));
            return None;
        }
        Some(v)
    };
    let strides = list(cx, "strides", spatial, 1)?;
    let dilations = list(cx, "dilations", spatial, 1)?;
    let pads = list(cx, "pads", 2 * spatial, 0)?;
    let (pads_begin, pads_end) = pads.split_at(spatial);
    Some(Window {
        strides,
        dilations,
        pads_begin: pads_begin.to_vec(),
        pads_end: pads_end.to_vec(),
        auto_pad,
        rounding,
    })
}

/// The spatial axes of a kernel: `kernel_shape`, else the weights' rank less two.
fn spatial(cx: &mut Node<'_, '_>, w: Option<TensorId>) -> Option<(usize, Option<Vec<i64>>)> {
    let kernel = cx.attrs.ints("kernel_shape");
    let n = kernel.as_ref().map(Vec::len).or_else(|| w.and_then(|w| cx.rank(w)).and_then(|r| r.checked_sub(2)));
    match n {
        Some(n) if (1..=crate::limits::MAX_SPATIAL_RANK).contains(&n) => Some((n, kernel)),
        Some(n) => {
            cx.err(format!("the kernel has {n} spatial axes; cellc takes 1 to {}", crate::limits::MAX_SPATIAL_RANK));
            None
        }
        None => {
            cx.err("has no `kernel_shape`, and the rank of its weights is not known while reading");
            None
        }
    }
}

/// The known dimensions of `t` while reading.
fn dims(cx: &Node<'_, '_>, t: TensorId) -> Option<Vec<i64>> {
    cx.b.g.tensors[t].fact.shape.as_ref()?.iter().map(|d| d.value()).collect()
}

/// `Conv` and `ConvTranspose`.
pub(super) fn conv(cx: &mut Node<'_, '_>, transposed: bool) {
    let (Some(x), Some(w)) = (cx.required(0, "X"), cx.required(1, "W")) else { return };
    let b = cx.input(2);
    let Some((mut y, n)) = conv_of(cx, x, w, transposed) else { return };
    if let Some(b) = b {
        y = channel_op(cx, Binary::Add, y, b, n);
    }
    cx.bind(0, y);
}

/// The convolution of `x` by `w` the node's attributes describe (`ConvInteger`'s too), and
/// its number of spatial axes; `None` when refused (reported).
pub(super) fn conv_of(cx: &mut Node<'_, '_>, x: TensorId, w: TensorId, transposed: bool) -> Option<(TensorId, usize)> {
    let group = cx.attrs.int("group").unwrap_or(1);
    let (n, _) = spatial(cx, Some(w))?;
    let mut window = window(cx, n, WindowRounding::Floor)?;
    let mut output_padding = Vec::new();
    let mut crop = None;
    if transposed {
        output_padding = cx.attrs.ints("output_padding").unwrap_or_else(|| vec![0; n]);
        let shape = cx.attrs.ints("output_shape");
        if let Some(s) = &shape
            && s.len() != n
        {
            let k = s.len();
            cx.err(format!("`output_shape` has {k} values; expected {n}, one for each spatial axis"));
            return None;
        }
        let same = matches!(window.auto_pad, AutoPad::SameUpper | AutoPad::SameLower);
        if shape.is_some() || same {
            // The output is the full one cropped to `output_shape` (or `stride·L`): `pads`
            // are not read.
            crop = Some(Crop { shape, odd_at_end: window.auto_pad == AutoPad::SameUpper });
        }
        if crop.is_some() || window.auto_pad == AutoPad::Valid {
            window.auto_pad = AutoPad::Explicit;
            window.pads_begin = vec![0; n];
            window.pads_end = vec![0; n];
        }
    }
    if group < 1 {
        cx.err(format!("`group` is {group}; expected 1 or more"));
        return None;
    }
    let grouped = group > 1;
    let w = if grouped {
        // ONNX writes grouped weights [M, C/G, k…] ([C, M/G, k…] transposed); cellc's op
        // reads them with the group axis first.
        let Some(d) = dims(cx, w) else {
            cx.err("`group` is more than 1 and the shape of W is not known while reading");
            return None;
        };
        if d.is_empty() || d[0] % group != 0 {
            cx.err(format!("W's first dimension {} is not a multiple of `group` {group}", d.first().unwrap_or(&0)));
            return None;
        }
        let target: Vec<i64> = [group, d[0] / group].into_iter().chain(d[1..].iter().copied()).collect();
        let t = cx.ints(&target);
        cx.one(Op::Reshape { special_zero: false }, &[w, t])
    } else {
        w
    };
    let attrs = ConvAttrs { window, grouped, transposed, output_padding, crop };
    Some((cx.one(Op::Conv(Box::new(attrs)), &[x, w]), n))
}

/// `y op v`, `v` holding one value per channel (axis 1 of `n` spatial axes).
fn channel_op(cx: &mut Node<'_, '_>, f: Binary, y: TensorId, v: TensorId, n: usize) -> TensorId {
    let target: Vec<i64> = std::iter::once(-1).chain(std::iter::repeat_n(1, n)).collect();
    let t = cx.ints(&target);
    let v = cx.one(Op::Reshape { special_zero: false }, &[v, t]);
    cx.one(Op::Binary(f), &[y, v])
}

/// `MaxPool` and `AveragePool`.
pub(super) fn pool(cx: &mut Node<'_, '_>, max: bool) {
    // ONNX's `ceil_mode` as onnxruntime and PyTorch compute it: a last window that would
    // start in the padding after the data is dropped.
    let rounding =
        if cx.attrs.int("ceil_mode").unwrap_or(0) != 0 { WindowRounding::CeilTorch } else { WindowRounding::Floor };
    let Some(x) = cx.required(0, "X") else { return };
    let Some((n, kernel)) = spatial(cx, None) else { return };
    let Some(window) = window(cx, n, rounding) else { return };
    let kind = if max {
        if cx.attrs.int("storage_order").unwrap_or(0) != 0 && cx.output_used(1) {
            cx.err("`storage_order` is column-major for the indices it gives; cellc does not give indices");
            return;
        }
        if cx.output_used(1) {
            cx.err("its output 1 (Indices) is read; cellc does not compute a pool's indices");
            return;
        }
        PoolKind::Max
    } else {
        PoolKind::Avg { exclude_pad: cx.attrs.int("count_include_pad").unwrap_or(0) == 0 }
    };
    let attrs = PoolAttrs { window, kernel: kernel.unwrap_or_default(), kind, indices: false, index_elem: Elem::I64 };
    let y = cx.one(Op::Pool(Box::new(attrs)), &[x]);
    cx.bind(0, y);
}

/// The spatial axes of `x` (2 to its rank), when its rank is known while reading.
fn spatial_axes(cx: &mut Node<'_, '_>, x: TensorId) -> Option<TensorId> {
    match cx.rank(x) {
        Some(r) if r >= 2 => {
            let axes: Vec<i64> = (2..r as i64).collect();
            Some(cx.ints(&axes))
        }
        _ => {
            cx.err("the rank of its input is not known while reading; cellc needs it here");
            None
        }
    }
}

/// `GlobalAveragePool` and `GlobalMaxPool`: a reduction over the spatial axes.
pub(super) fn global_pool(cx: &mut Node<'_, '_>, kind: ReduceKind) {
    let Some(x) = cx.required(0, "X") else { return };
    let Some(axes) = spatial_axes(cx, x) else { return };
    let y = cx.one(Op::Reduce { kind, keep_dims: true }, &[x, axes]);
    cx.bind(0, y);
}

/// `BatchNormalization` at inference: the given mean and variance.
pub(super) fn batch_norm(cx: &mut Node<'_, '_>) {
    let eps = cx.attrs.float("epsilon").unwrap_or(1e-5);
    cx.attrs.float("momentum");
    if cx.attrs.int("training_mode").unwrap_or(0) != 0 {
        cx.err("`training_mode` is set; cellc compiles inference, with the given mean and variance");
        return;
    }
    if cx.attrs.int("spatial").unwrap_or(1) != 1 {
        cx.err("`spatial` is 0 (statistics per value); cellc normalises per channel");
        return;
    }
    cx.attrs.int("is_test");
    if (1..5).any(|k| cx.output_used(k)) {
        cx.err("its running statistics (outputs 1 to 4) are read; cellc compiles inference, which gives output 0 only");
        return;
    }
    let ins: Vec<Option<TensorId>> =
        ["X", "scale", "B", "input_mean", "input_var"].iter().enumerate().map(|(k, r)| cx.required(k, r)).collect();
    let Some(ins) = ins.into_iter().collect::<Option<Vec<_>>>() else { return };
    let y = cx.one(Op::Norm(Norm::Batch { eps: f64::from(eps) }), &ins);
    cx.bind(0, y);
}

/// `InstanceNormalization`: each channel of each item normalised over its spatial axes.
pub(super) fn instance_norm(cx: &mut Node<'_, '_>) {
    let eps = cx.attrs.float("epsilon").unwrap_or(1e-5);
    let (Some(x), Some(scale), Some(b)) = (cx.required(0, "input"), cx.required(1, "scale"), cx.required(2, "B"))
    else {
        return;
    };
    let Some(axes) = spatial_axes(cx, x) else { return };
    let n = cx.rank(x).unwrap_or(2) - 2;
    let norm = Op::Norm(Norm::Mvn(MvnAttrs { normalize_variance: true, eps: f64::from(eps), inside: true }));
    let y = cx.one(norm, &[x, axes]);
    let y = channel_op(cx, Binary::Multiply, y, scale, n);
    let y = channel_op(cx, Binary::Add, y, b, n);
    cx.bind(0, y);
}

/// `Flatten`: `[d0…d(axis−1), d(axis)…]` as two dimensions.
pub(super) fn flatten(cx: &mut Node<'_, '_>) {
    let axis = cx.attrs.int("axis").unwrap_or(1);
    let Some(x) = cx.required(0, "input") else { return };
    let axis = match (axis, cx.rank(x)) {
        (a, Some(r)) if a < 0 && a + r as i64 >= 0 => a + r as i64,
        (a, _) if a >= 0 => a,
        _ => {
            cx.err(format!("`axis` is {axis} on an input whose rank is not known while reading"));
            return;
        }
    };
    let s = cx.one(Op::ShapeOf { out: Elem::I64 }, &[x]);
    let (start, stop, step, along) = (cx.ints(&[0]), cx.ints(&[axis]), cx.ints(&[1]), cx.ints(&[0]));
    let lead = cx.one(Op::Slice, &[s, start, stop, step, along]);
    let zero = cx.ints(&[0]);
    let rows = cx.one(Op::Reduce { kind: ReduceKind::Prod, keep_dims: true }, &[lead, zero]);
    let rest = cx.ints(&[-1]);
    let target = cx.one(Op::Concat { axis: 0 }, &[rows, rest]);
    let y = cx.one(Op::Reshape { special_zero: false }, &[x, target]);
    cx.bind(0, y);
}

/// `Pad`: pads as input 1 since opset 11 (begin values, then end values), as an attribute
/// before; the value as input 2 (an attribute before).
pub(super) fn pad(cx: &mut Node<'_, '_>) {
    let mode = match cx.attrs.string("mode").as_deref().unwrap_or("constant") {
        "constant" => PadMode::Constant,
        "edge" => PadMode::Edge,
        "reflect" => PadMode::Reflect,
        other => {
            cx.err(format!("`mode` is {other:?}; cellc pads in modes constant, edge and reflect"));
            return;
        }
    };
    let Some(x) = cx.required(0, "data") else { return };
    let (pads, value) = if cx.opset() < 11 {
        let pads = cx.attrs.ints("pads").unwrap_or_default();
        let value = cx.attrs.float("value").unwrap_or(0.0);
        let elem = cx.elem(x);
        (cx.ints(&pads), Some(cx.float(elem, f64::from(value))))
    } else {
        if cx.input(3).is_some() {
            cx.err("input 3 (axes) is given; cellc pads every axis (give pads for each)");
            return;
        }
        let Some(p) = cx.required(1, "pads") else { return };
        (p, cx.input(2))
    };
    let zero = cx.int(0);
    let halves = cx.add(Op::Split { parts: 2 }, &[Some(pads), Some(zero)], 2);
    let ins: Vec<Option<TensorId>> =
        [Some(x), Some(halves[0]), Some(halves[1])].into_iter().chain(value.map(Some)).collect();
    let y = cx.add(Op::Pad(mode), &ins, 1)[0];
    cx.bind(0, y);
}

/// `Resize` (opset 11 and later): by `sizes` or by `scales`, over the axes given (all by
/// default).
pub(super) fn resize(cx: &mut Node<'_, '_>) {
    if cx.opset() < 11 {
        cx.err("Resize before opset 11 is not read by cellc; convert the model to opset 11 or later");
        return;
    }
    let mode = cx.attrs.string("mode").unwrap_or_else(|| "nearest".to_owned());
    let coord = cx.attrs.string("coordinate_transformation_mode").unwrap_or_else(|| "half_pixel".to_owned());
    let nearest = cx.attrs.string("nearest_mode").unwrap_or_else(|| "round_prefer_floor".to_owned());
    let cubic = f64::from(cx.attrs.float("cubic_coeff_a").unwrap_or(-0.75));
    let exclude = cx.attrs.int("exclude_outside").unwrap_or(0) != 0;
    // Used by tf_crop_and_resize alone, which is refused.
    cx.attrs.float("extrapolation_value");
    let antialias = cx.attrs.int("antialias").unwrap_or(0) != 0;
    let axes = cx.attrs.ints("axes");
    let policy = cx.attrs.string("keep_aspect_ratio_policy").unwrap_or_else(|| "stretch".to_owned());
    let rounding = match nearest.as_str() {
        "round_prefer_floor" => Rounding::PreferFloor,
        "round_prefer_ceil" => Rounding::PreferCeil,
        "floor" => Rounding::Floor,
        "ceil" => Rounding::Ceil,
        other => {
            return cx.err(format!(
                "`nearest_mode` is {other:?}; expected round_prefer_floor, round_prefer_ceil, floor or ceil"
            ));
        }
    };
    let mode = match mode.as_str() {
        "nearest" => Mode::Nearest(rounding),
        "linear" if antialias => Mode::Linear { antialias },
        "linear" => Mode::LinearOnnx,
        "cubic" => Mode::Cubic(cubic),
        other => return cx.err(format!("`mode` is {other:?}; expected nearest, linear or cubic")),
    };
    if antialias && !matches!(mode, Mode::Linear { .. }) {
        return cx.err("`antialias` is set with a mode other than linear; cellc antialiases the linear mode only");
    }
    if exclude {
        return cx.err("`exclude_outside` is set; cellc's cubic resize weighs the taps outside the input too");
    }
    if policy != "stretch" {
        return cx.err(format!("`keep_aspect_ratio_policy` is {policy:?}; cellc resizes with stretch"));
    }
    let coord = match coord.as_str() {
        "half_pixel" => Coord::HalfPixel,
        "pytorch_half_pixel" => Coord::PytorchHalfPixel,
        "asymmetric" => Coord::Asymmetric,
        "tf_half_pixel_for_nn" => Coord::TfHalfPixelForNn,
        "align_corners" => Coord::AlignCorners,
        other => return cx.err(format!(
            "`coordinate_transformation_mode` is {other:?}; cellc takes half_pixel, pytorch_half_pixel, asymmetric, tf_half_pixel_for_nn and align_corners"
        )),
    };
    let Some(x) = cx.required(0, "X") else { return };
    let (scales, sizes) = (cx.input(2), cx.input(3));
    let (by_sizes, target) = match (scales, sizes) {
        (_, Some(s)) => (true, s),
        (Some(s), None) => (false, s),
        (None, None) => return cx.err("has neither scales (input 2) nor sizes (input 3); Resize needs one"),
    };
    let axes = axes.map(|a| cx.ints(&a));
    let interp = Interp { mode, by_sizes, coord, pads_begin: Vec::new(), pads_end: Vec::new() };
    let ins: Vec<TensorId> = [x, target].into_iter().chain(axes).collect();
    let y = cx.one(Op::Interpolate(Box::new(interp)), &ins);
    cx.bind(0, y);
}
