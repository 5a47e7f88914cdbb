//! Random graphs of the ops around the cells, for the property tests that compare each
//! op's own evaluation (folding), the reference interpreter over the planned steps, and
//! the generated Rust and C. The window and gather ops (convolutions plain, grouped,
//! depthwise and transposed; pools; Pad; the norms; PRelu; Einsum; the scatters;
//! Interpolate) come with random legal attributes.
use cellc::graph::build;
use cellc::graph::{Data, Elem, Graph, Sym, TensorId};
use cellc::ops::conv::{AutoPad, ConvAttrs, Window};
use cellc::ops::interpolate::{Coord, Interp, Mode, Rounding};
use cellc::ops::norm::{EpsMode, MvnAttrs, Norm};
use cellc::ops::pad::PadMode;
use cellc::ops::pool::{PoolAttrs, PoolKind};
use cellc::ops::scatter::{Reduction, Scatter};
use cellc::ops::strided::Masks;
use cellc::ops::{Binary, MathFn, Op, OpKind, ReduceKind, Unary};

/// A small deterministic generator (the case is its seed).
pub struct Rng(u64);

impl Rng {
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.bits() % n.max(1) as u64) as usize
    }
    /// A value in [-1, 1], in steps of 0.001.
    pub fn value(&mut self) -> f64 {
        (self.below(2001) as f64 - 1000.0) / 1000.0
    }
}

/// The static extents of tensor `t`.
fn shape_of(g: &Graph, t: TensorId) -> Vec<usize> {
    g.tensors[t].fact.shape.as_ref().expect("shape").iter().map(|d| d.c as usize).collect()
}

/// A constant node's tensor.
fn constant(g: &mut Graph, elem: Elem, shape: &[usize], data: Data) -> TensorId {
    build::constant(g, build::origin("c", "Const"), elem, shape, data)
}

/// An f32 constant of random values.
fn floats(g: &mut Graph, rng: &mut Rng, shape: &[usize]) -> TensorId {
    let n: usize = shape.iter().product();
    let data = Data::Float((0..n).map(|_| rng.value() as f32 as f64).collect());
    constant(g, Elem::F32, shape, data)
}

/// Applies `op` to `inputs`, the output's shape inferred by the op's own rule; `None`
/// where the rule refuses (the generator then draws another op).
fn apply(g: &mut Graph, op: Op, inputs: Vec<TensorId>) -> Option<TensorId> {
    build::apply(g, build::origin("op", "op"), op, &inputs).ok()
}

/// A random graph with Parameters of random values; returns it and the inputs.
pub fn random_graph(seed: u64) -> (Graph, Vec<Vec<f64>>) {
    let mut rng = Rng(seed | 1);
    let mut g = Graph::new("random.xml", "random");
    let mut pool = Vec::new();
    let mut inputs = Vec::new();
    for k in 0..1 + rng.below(2) {
        let rank = 1 + rng.below(4);
        let mut shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(4)).collect();
        // Now and then a long last axis: rows of positions that fill vectors (the planar
        // convolutions take rows of 16 and more).
        if rank >= 3 && rng.below(4) == 0 {
            shape[rank - 1] = 16 + rng.below(24);
        }
        let t = build::parameter(&mut g, &format!("p{k}"), Elem::F32, &shape);
        inputs.push((0..shape.iter().product::<usize>()).map(|_| rng.value() as f32 as f64).collect());
        pool.push(t);
    }
    for _ in 0..2 + rng.below(6) {
        let x = pool[rng.below(pool.len())];
        let s = shape_of(&g, x);
        let r = s.len();
        let made = match rng.below(19) {
            12..=18 => window_op(&mut g, &mut rng, x, &s),
            0 => {
                // Continuous functions only: sums in another order must not cross a step.
                let fs = [
                    Unary::Relu,
                    Unary::Sigmoid,
                    Unary::Tanh,
                    Unary::Abs,
                    Unary::Negative,
                    Unary::Exp,
                    Unary::HSigmoid,
                    Unary::HSwish,
                    Unary::Swish { beta: 1.5 },
                    Unary::HardSigmoid { alpha: 0.2, beta: 0.5 },
                    Unary::Selu { alpha: 1.67, lambda: 1.05 },
                    Unary::Mish,
                    Unary::SoftSign,
                    Unary::Math(MathFn::Sin),
                    Unary::Math(MathFn::Cos),
                    Unary::Math(MathFn::Atan),
                    Unary::Math(MathFn::Asinh),
                    Unary::Math(MathFn::Erf),
                ];
                let f = fs[rng.below(fs.len())];
                apply(&mut g, Op::Unary(f), vec![x])
            }
            1 => {
                // Against a constant broadcast along some axes.
                let cs: Vec<usize> = s.iter().map(|&n| if rng.below(2) == 0 { 1 } else { n }).collect();
                let from = rng.below(r);
                let c = floats(&mut g, &mut rng, &cs[from..]);
                let f =
                    [Binary::Add, Binary::Multiply, Binary::Subtract, Binary::Maximum, Binary::Minimum][rng.below(5)];
                apply(&mut g, Op::Binary(f), vec![x, c])
            }
            2 => {
                let mut perm: Vec<i64> = (0..r as i64).collect();
                for k in (1..r).rev() {
                    perm.swap(k, rng.below(k + 1));
                }
                let p = build::ints(&mut g, &perm);
                apply(&mut g, Op::Transpose, vec![x, p])
            }
            3 => {
                let n: usize = s.iter().product();
                let target = if rng.below(2) == 0 { vec![n as i64] } else { vec![s[0] as i64, -1] };
                let t = build::ints(&mut g, &target);
                apply(&mut g, Op::Reshape { special_zero: false }, vec![x, t])
            }
            4 => {
                let a = rng.below(r);
                let mut cs = s.clone();
                cs[a] = 1 + rng.below(3);
                let c = floats(&mut g, &mut rng, &cs);
                apply(&mut g, Op::Concat { axis: a as i64 }, vec![x, c])
            }
            5 => {
                let a = rng.below(r);
                let n = s[a] as i64;
                // Forwards, or backwards (a copy per index) a third of the time.
                let (start, stop, step) = if rng.below(3) == 0 {
                    (n - 1 - rng.below(s[a]) as i64, -n - 1 + rng.below(2) as i64, -1 - rng.below(2) as i64)
                } else {
                    (rng.below(s[a]) as i64, n + rng.below(2) as i64, 1 + rng.below(2) as i64)
                };
                let (b, e, st, ax) = (
                    build::ints(&mut g, &[start]),
                    build::ints(&mut g, &[stop]),
                    build::ints(&mut g, &[step]),
                    build::ints(&mut g, &[a as i64]),
                );
                apply(&mut g, Op::Slice, vec![x, b, e, st, ax])
            }
            6 => {
                let k = 1 + rng.below(4);
                let w = floats(&mut g, &mut rng, &[s[r - 1], k]);
                apply(&mut g, Op::MatMul { ta: false, tb: false }, vec![x, w])
            }
            8 => {
                // A StridedSlice with random masks: positive strides, maybe one shrunk axis
                // and a new one.
                let (mut b, mut e, mut st) = (Vec::new(), Vec::new(), Vec::new());
                let mut m = Masks::default();
                // (Rank 1 stays rank 1: the other ops take tensors of rank 1 or more.)
                let shrink = if r > 1 { rng.below(r + 1) } else { r };
                for (a, &n) in s.iter().enumerate() {
                    b.push(rng.below(n) as i64 - if rng.below(3) == 0 { n as i64 } else { 0 });
                    e.push(n as i64 - rng.below(2) as i64);
                    st.push(1 + rng.below(2) as i64);
                    m.begin.push(rng.below(3) == 0);
                    m.end.push(rng.below(3) == 0);
                    m.shrink_axis.push(a == shrink);
                    m.new_axis.push(false);
                }
                if rng.below(2) == 0 {
                    let at = rng.below(r + 1);
                    for (v, x) in [(&mut b, 0), (&mut e, 0), (&mut st, 1)] {
                        v.insert(at, x);
                    }
                    for (v, x) in [
                        (&mut m.begin, false),
                        (&mut m.end, false),
                        (&mut m.shrink_axis, false),
                        (&mut m.new_axis, true),
                    ] {
                        v.insert(at, x);
                    }
                }
                let (b, e, st) = (build::ints(&mut g, &b), build::ints(&mut g, &e), build::ints(&mut g, &st));
                apply(&mut g, Op::StridedSlice(m), vec![x, b, e, st])
            }
            9 => {
                let kinds = [ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Max, ReduceKind::Min, ReduceKind::L2];
                let kind = kinds[rng.below(kinds.len())];
                let mut axes: Vec<i64> = (0..r as i64).filter(|_| rng.below(2) == 0).collect();
                if axes.is_empty() {
                    axes.push(rng.below(r) as i64);
                }
                // Keep rank 1 or more for the ops after it.
                let keep_dims = axes.len() == r || rng.below(2) == 0;
                let a = build::ints(&mut g, &axes);
                apply(&mut g, Op::Reduce { kind, keep_dims }, vec![x, a])
            }
            10 => {
                // Repeats for each axis, sometimes one more (a new leading axis).
                let extra = usize::from(rng.below(3) == 0);
                let reps: Vec<i64> = (0..r + extra).map(|_| 1 + rng.below(3) as i64).collect();
                let reps = build::ints(&mut g, &reps);
                apply(&mut g, Op::Tile, vec![x, reps])
            }
            7 => apply(&mut g, Op::Softmax { axis: rng.below(r) as i64, log: rng.below(2) == 0 }, vec![x]),
            _ => {
                let a = rng.below(r);
                let idx: Vec<i64> = (0..1 + rng.below(3))
                    .map(|_| rng.below(s[a]) as i64 - if rng.below(3) == 0 { s[a] as i64 } else { 0 })
                    .collect();
                let (i, ax) = (build::ints(&mut g, &idx), build::ints(&mut g, &[a as i64]));
                apply(&mut g, Op::Gather { batch_dims: 0 }, vec![x, i, ax])
            }
        };
        if let Some(t) = made.filter(|&t| shape_of(&g, t).iter().product::<usize>() > 0) {
            pool.push(t);
        }
    }
    for k in 0..1 + rng.below(2) {
        let t = pool[pool.len() - 1 - rng.below(pool.len().min(3))];
        build::result(&mut g, t, Some(&format!("r{k}")));
    }
    (g, inputs)
}

/// A window or gather op over `x` (of extents `s`) with random legal attributes, or `None`
/// where its rule refuses them (a kernel longer than the padded axis, say).
fn window_op(g: &mut Graph, rng: &mut Rng, x: TensorId, s: &[usize]) -> Option<TensorId> {
    let r = s.len();
    let spatial = r.checked_sub(2).filter(|&n| n >= 1)?;
    let c = s[1];
    let some = |rng: &mut Rng, n: usize| -> Vec<i64> { (0..spatial).map(|_| 1 + rng.below(n) as i64).collect() };
    let window = |rng: &mut Rng| {
        let auto_pad = [AutoPad::Explicit, AutoPad::Valid, AutoPad::SameUpper, AutoPad::SameLower][rng.below(4)];
        Window {
            strides: some(rng, 2),
            dilations: some(rng, 2),
            pads_begin: (0..spatial).map(|_| rng.below(2) as i64).collect(),
            pads_end: (0..spatial).map(|_| rng.below(2) as i64).collect(),
            auto_pad,
            rounding: cellc::ops::conv::WindowRounding::Floor,
        }
    };
    match rng.below(10) {
        0 | 8 | 9 => {
            // Plain, grouped (depthwise when each group has one channel) or transposed.
            let groups = if rng.below(2) == 0 { 1 } else { c };
            let (per_in, per_out) = (c / groups, 1 + rng.below(3));
            let transposed = rng.below(2) == 0;
            let kernel: Vec<usize> = (0..spatial).map(|_| 1 + rng.below(3)).collect();
            let mut win = window(rng);
            let mut output_padding = Vec::new();
            if transposed {
                // Same padding with no output shape pads nothing; explicit pads crop.
                output_padding = (0..spatial)
                    .map(|a| rng.below(2).min(win.strides[a].max(win.dilations[a]) as usize - 1) as i64)
                    .collect();
                if !matches!(win.auto_pad, AutoPad::SameUpper | AutoPad::SameLower) || rng.below(2) == 0 {
                    win.auto_pad = if rng.below(2) == 0 { AutoPad::Explicit } else { AutoPad::Valid };
                }
            }
            let grouped = groups > 1 || rng.below(2) == 0;
            let mut ws: Vec<usize> = match (grouped, transposed) {
                (true, false) => vec![groups, per_out, per_in],
                (false, false) => vec![per_out, c],
                (true, true) => vec![groups, per_in, per_out],
                (false, true) => vec![c, per_out],
            };
            ws.extend(&kernel);
            let w = floats(g, rng, &ws);
            let same = matches!(win.auto_pad, AutoPad::SameUpper | AutoPad::SameLower);
            let mut ins = vec![x, w];
            if transposed && same {
                // The output shape given (input 2): the pads crop the full output to it, the
                // odd one on the side the auto_pad names.
                let shape: Vec<i64> = (0..spatial)
                    .map(|a| {
                        let full = (s[2 + a] - 1) * win.strides[a] as usize
                            + (kernel[a] - 1) * win.dilations[a] as usize
                            + 1
                            + output_padding[a] as usize;
                        (full - rng.below(full.min(4))) as i64
                    })
                    .collect();
                ins.push(build::ints(g, &shape));
            }
            let a = ConvAttrs { window: win, grouped, transposed, output_padding, crop: None };
            apply(g, Op::Conv(Box::new(a)), ins)
        }
        1 => {
            let kind = match rng.below(3) {
                0 => PoolKind::Max,
                k => PoolKind::Avg { exclude_pad: k == 1 },
            };
            let kernel: Vec<i64> = some(rng, 3);
            let mut win = window(rng);
            if kind != PoolKind::Max {
                win.dilations = vec![1; spatial];
            }
            // No window wholly in the padding or past the data (rounding up), whose maximum
            // is the lowest float and average NaN, as in OpenVINO: values the ops after it
            // would carry to infinities, where roundings decide the sign (the fixtures check
            // those windows against OpenVINO).
            for (p, &k) in win.pads_begin.iter_mut().chain(win.pads_end.iter_mut()).zip(kernel.iter().cycle()) {
                *p = (*p).min(k - 1);
            }
            let a = PoolAttrs { window: win, kernel, kind, indices: false, index_elem: Elem::I64 };
            apply(g, Op::Pool(Box::new(a)), vec![x])
        }
        2 => {
            let mode = [PadMode::Constant, PadMode::Edge, PadMode::Reflect, PadMode::Symmetric][rng.below(4)];
            let pads = |rng: &mut Rng| -> Vec<i64> {
                s.iter().map(|&n| rng.below(n.min(2) + 1) as i64 - i64::from(rng.below(4) == 0 && n > 1)).collect()
            };
            let (b, e) = (pads(rng), pads(rng));
            let (b, e) = (build::ints(g, &b), build::ints(g, &e));
            let mut ins = vec![x, b, e];
            if mode == PadMode::Constant {
                ins.push(constant(g, Elem::F32, &[], Data::Float(vec![0.25])));
            }
            apply(g, Op::Pad(mode), ins)
        }
        3 => {
            let mut axes: Vec<i64> = (1..r as i64).filter(|_| rng.below(2) == 0).collect();
            if axes.is_empty() {
                axes.push(r as i64 - 1);
            }
            let a = build::ints(g, &axes);
            let eps = [1e-5, 1e-3, 0.1][rng.below(3)];
            match rng.below(3) {
                0 => {
                    let n =
                        Norm::Mvn(MvnAttrs { normalize_variance: rng.below(4) != 0, eps, inside: rng.below(2) == 0 });
                    apply(g, Op::Norm(n), vec![x, a])
                }
                1 => {
                    let mode = if rng.below(2) == 0 { EpsMode::Add } else { EpsMode::Max };
                    apply(g, Op::Norm(Norm::L2 { eps, mode }), vec![x, a])
                }
                _ => {
                    let params: Vec<TensorId> = (0..4)
                        .map(|k| {
                            let v =
                                (0..c).map(|_| if k == 3 { 0.1 + rng.value().abs() } else { rng.value() }).collect();
                            constant(g, Elem::F32, &[c], Data::Float(v))
                        })
                        .collect();
                    apply(g, Op::Norm(Norm::Batch { eps }), [vec![x], params].concat())
                }
            }
        }
        4 => {
            // One slope per channel (OpenVINO's rule), or one broadcast by numpy's.
            let slope = if rng.below(2) == 0 { floats(g, rng, &[c]) } else { floats(g, rng, &s[r - 1..]) };
            apply(g, Op::Binary(Binary::PRelu), vec![x, slope])
        }
        5 => {
            // A diagonal, a sum over an axis and a transpose, or a product by a constant.
            let (eq, ins) = match rng.below(3) {
                0 if s[r - 1] == s[r - 2] => ("abcc->acb".to_owned(), vec![x]),
                1 => {
                    let n = 1 + rng.below(3);
                    let w = floats(g, rng, &[s[r - 1], n]);
                    let lead: String = "abcdefg"[..r - 1].to_owned();
                    (format!("{lead}k,kz->{lead}z"), vec![x, w])
                }
                _ => {
                    let all: String = "abcdefg"[..r].to_owned();
                    let out: String = all.chars().rev().skip(1).collect();
                    (format!("{all}->{out}"), vec![x])
                }
            };
            let eq = if r == 4 || !eq.starts_with("abcc") { eq } else { return None };
            let eq = cellc::ops::einsum::Equation::parse(&eq).ok()?;
            apply(g, Op::Einsum(Box::new(eq)), ins)
        }
        6 => {
            // Some axes resized by sizes or scales, in every mode and coordinate rule.
            let mut axes: Vec<usize> = (0..r).filter(|_| rng.below(2) == 0).collect();
            if axes.is_empty() {
                axes.push(r - 1);
            }
            let mode = match rng.below(4) {
                0 => {
                    let all = [
                        Rounding::PreferFloor,
                        Rounding::PreferCeil,
                        Rounding::Floor,
                        Rounding::Ceil,
                        Rounding::Simple,
                    ];
                    Mode::Nearest(all[rng.below(all.len())])
                }
                1 => Mode::Linear { antialias: false },
                2 => Mode::LinearOnnx,
                _ => Mode::Cubic(-0.75),
            };
            let coords = [
                Coord::HalfPixel,
                Coord::PytorchHalfPixel,
                Coord::Asymmetric,
                Coord::TfHalfPixelForNn,
                Coord::AlignCorners,
            ];
            let pads = |rng: &mut Rng| -> Vec<i64> { (0..r).map(|_| i64::from(rng.below(4) == 0)).collect() };
            let by_sizes = rng.below(2) == 0;
            let it = Interp {
                mode,
                by_sizes,
                coord: coords[rng.below(coords.len())],
                pads_begin: pads(rng),
                pads_end: pads(rng),
            };
            let given = if by_sizes {
                let sizes: Vec<i64> = axes.iter().map(|&a| 1 + rng.below(2 * s[a] + 1) as i64).collect();
                build::ints(g, &sizes)
            } else {
                let scales = axes.iter().map(|_| [0.5, 0.75, 1.0, 1.5, 2.0, 3.0][rng.below(6)]).collect();
                constant(g, Elem::F32, &[axes.len()], Data::Float(scales))
            };
            let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
            let axes = build::ints(g, &axes);
            apply(g, Op::Interpolate(Box::new(it)), vec![x, given, axes])
        }
        _ if rng.below(3) == 0 => {
            // ScatterElements: indices of a shape within the data's along each axis, pointing
            // anywhere along one axis (repeats and from the end included).
            let a = rng.below(s.len());
            let is: Vec<usize> = s.iter().map(|&n| 1 + rng.below(n)).collect();
            let n: usize = is.iter().product();
            let at: Vec<Sym> = (0..n).map(|_| Sym::known(rng.below(2 * s[a]) as i64 - s[a] as i64)).collect();
            let idx = constant(g, Elem::I64, &is, Data::Int(at));
            let u = floats(g, rng, &is);
            let ax = build::ints(g, &[a as i64]);
            let r = [None, Some(Reduction::Sum), Some(Reduction::Prod), Some(Reduction::Max), Some(Reduction::Min)]
                [rng.below(5)];
            apply(g, Op::Scatter(Scatter::Elements(r)), vec![x, idx, u, ax])
        }
        _ => {
            // Rows along the first axis updated (an index repeated, one from the end), with or
            // without a reduction.
            let rows: Vec<i64> = (0..1 + rng.below(3))
                .map(|_| rng.below(s[0]) as i64 - if rng.below(3) == 0 { s[0] as i64 } else { 0 })
                .collect();
            let idx =
                constant(g, Elem::I64, &[rows.len(), 1], Data::Int(rows.iter().map(|&v| Sym::known(v)).collect()));
            let mut us = vec![rows.len()];
            us.extend(&s[1..]);
            let u = floats(g, rng, &us);
            let kind = match rng.below(6) {
                0 => Scatter::NdReduce(Reduction::Sum),
                1 => Scatter::NdReduce(Reduction::Sub),
                2 => Scatter::NdReduce(Reduction::Prod),
                3 => Scatter::NdReduce(Reduction::Max),
                4 => Scatter::NdReduce(Reduction::Min),
                _ => Scatter::Nd,
            };
            apply(g, Op::Scatter(kind), vec![x, idx, u])
        }
    }
}

/// The ops [`random_graph`] never draws, and why: the random-graph line of the op checklist.
/// An op added to cellc is drawn by the generator or listed here (a test checks that every
/// [`OpKind`] is one or the other, over many graphs).
pub const NOT_GENERATED: &[(OpKind, &str)] = &[
    (
        OpKind::Pure,
        "computed at compile time only, by the evaluator the reference shares: checked against onnxruntime by onnx_pure_ops",
    ),
    (OpKind::Dense, "the fuse pass makes it of the products, sums and activations drawn"),
    (OpKind::Chain, "the fuse pass makes it of the elementwise ops drawn"),
    (OpKind::Pick, "the lowering makes it of the convolutions, pools and pads drawn"),
    (OpKind::Windows, "the lowering makes it of the convolutions drawn"),
    (OpKind::PoolWindows, "the lowering makes it of the pools drawn"),
    (OpKind::Unknown, "refused by the checker: nothing runs to compare"),
    (OpKind::If, "taken at compile time (its condition known) or refused: the If fixtures"),
    (OpKind::Range, "computed at compile time only: the Range fixtures"),
    (OpKind::ShapeOf, "computed at compile time only: the shape subgraphs of the real models"),
    (OpKind::ReadValue, "carried between runs: the stateful tests (tests/it/stateful.rs)"),
    (OpKind::Assign, "carried between runs: the stateful tests (tests/it/stateful.rs)"),
    (OpKind::Cell, "the cells' own property test over random cells and sequences (tests/it/properties.rs)"),
    (OpKind::Parametric, "a Unary once its parameters are known (the simplify pass)"),
    // Not drawn yet: the fixtures cover them (ov_strided_glue, ov_edge_ops, the PyTorch exports).
    (OpKind::Convert, "not drawn yet: the f16-compressed fixtures"),
    (OpKind::ConvertLike, "not drawn yet: ov_edge_ops"),
    (OpKind::Identity, "not drawn yet: the ONNX exports"),
    (OpKind::Squeeze, "not drawn yet: the PyTorch exports"),
    (OpKind::Unsqueeze, "not drawn yet: the PyTorch exports"),
    (OpKind::Split, "not drawn yet: ov_strided_glue"),
    (OpKind::VariadicSplit, "not drawn yet: ov_strided_glue"),
    (OpKind::Broadcast, "not drawn yet: the shape subgraphs of the real models"),
    (OpKind::Compare, "not drawn yet: ov_edge_ops"),
    (OpKind::Select, "not drawn yet: ov_edge_ops"),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every op is drawn by the generator over these graphs, or listed in `NOT_GENERATED`
    /// (and then never drawn).
    #[test]
    fn every_op_is_drawn_or_says_why_not() {
        let mut drawn = std::collections::BTreeSet::new();
        for seed in 1..=400 {
            let (g, _) = random_graph(seed);
            drawn.extend(g.nodes.iter().map(|n| n.op.kind()));
        }
        for &kind in OpKind::ALL {
            let listed = NOT_GENERATED.iter().any(|(k, _)| *k == kind);
            assert!(listed != drawn.contains(&kind), "{kind:?}: drawn {}, listed {listed}", drawn.contains(&kind));
        }
    }
}
