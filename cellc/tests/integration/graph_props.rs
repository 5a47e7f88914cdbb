//! Random graphs of the ops around the cells, two ways: planned into steps and run by the
//! reference interpreter, and folded as constants (each op's own evaluation, which shares
//! nothing with the planner and the steps). Both must give the same values. The window and
//! gather ops (convolutions plain, grouped, depthwise and transposed; pools; Pad; the norms;
//! PRelu; Einsum; the scatters) come with random legal attributes, lowered onto gathers and
//! products by the passes on one side and evaluated directly on the other.
use cellc::graph::{Data, Elem, Fact, Graph, Sym, TensorId};
use cellc::ops::conv::{AutoPad, ConvAttrs, Window};
use cellc::ops::norm::{EpsMode, MvnAttrs, Norm};
use cellc::ops::pad::PadMode;
use cellc::ops::pool::{PoolAttrs, PoolKind};
use cellc::ops::scatter::{Reduction, Scatter};
use cellc::ops::strided::Masks;
use cellc::ops::{Binary, Op, ReduceKind, Unary};
use cellc::vocab::{Dim, Origin};
use proptest::prelude::*;

/// A small deterministic generator (the case is its seed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn value(&mut self) -> f64 {
        (self.below(2001) as f64 - 1000.0) / 1000.0
    }
}

fn origin(name: &str, op: &str) -> Origin {
    Origin { pos: None, name: name.into(), op: op.into() }
}

fn shape_of(g: &Graph, t: TensorId) -> Vec<usize> {
    g.tensors[t].fact.shape.as_ref().expect("shape").iter().map(|d| d.c as usize).collect()
}

fn known(v: &[usize]) -> Vec<Sym> {
    v.iter().map(|&n| Sym::known(n as i64)).collect()
}

/// A constant node's tensor.
fn constant(g: &mut Graph, elem: Elem, shape: &[usize], data: Data) -> TensorId {
    let id = g.add(Op::Const { src: None }, origin("c", "Const"), Vec::new(), 1);
    let t = g.nodes[id].outputs[0];
    g.tensors[t].fact = Fact::constant(elem, known(shape), data);
    t
}

fn ints(g: &mut Graph, v: &[i64]) -> TensorId {
    constant(g, Elem::I64, &[v.len()], Data::Int(v.iter().map(|&x| Sym::known(x)).collect()))
}

fn floats(g: &mut Graph, rng: &mut Rng, shape: &[usize]) -> TensorId {
    let n: usize = shape.iter().product();
    let data = Data::Float((0..n).map(|_| rng.value() as f32 as f64).collect());
    constant(g, Elem::F32, shape, data)
}

/// Applies `op` to `inputs`, the output's shape inferred by the op's own rule.
fn apply(g: &mut Graph, op: Op, inputs: Vec<TensorId>) -> Option<TensorId> {
    let facts: Vec<Option<&Fact>> = inputs.iter().map(|&t| Some(&g.tensors[t].fact)).collect();
    let out = cellc::ops::infer(&op, &facts, 1).ok()?.remove(0);
    let id = g.add(op, origin("op", "op"), inputs.into_iter().map(Some).collect(), 1);
    let t = g.nodes[id].outputs[0];
    g.tensors[t].fact = Fact { value: None, ..out };
    Some(t)
}

/// A random graph with Parameters of random values; returns it and the inputs.
fn random_graph(seed: u64) -> (Graph, Vec<Vec<f64>>) {
    let mut rng = Rng(seed | 1);
    let mut g = Graph::new("random.xml", "random");
    let mut pool = Vec::new();
    let mut inputs = Vec::new();
    for k in 0..1 + rng.below(2) {
        let rank = 1 + rng.below(4);
        let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(4)).collect();
        let dims = shape.iter().map(|&n| Dim::Static(n as u64)).collect();
        let id =
            g.add(Op::Parameter { elem: Elem::F32, shape: dims }, origin(&format!("p{k}"), "Parameter"), Vec::new(), 1);
        let t = g.nodes[id].outputs[0];
        g.tensors[t].fact = Fact::new(Elem::F32, known(&shape));
        g.tensors[t].names = vec![format!("p{k}")];
        g.params.push(id);
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
                let p = ints(&mut g, &perm);
                apply(&mut g, Op::Transpose, vec![x, p])
            }
            3 => {
                let n: usize = s.iter().product();
                let target = if rng.below(2) == 0 { vec![n as i64] } else { vec![s[0] as i64, -1] };
                let t = ints(&mut g, &target);
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
                let (b, e, st, ax) =
                    (ints(&mut g, &[start]), ints(&mut g, &[stop]), ints(&mut g, &[step]), ints(&mut g, &[a as i64]));
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
                let (b, e, st) = (ints(&mut g, &b), ints(&mut g, &e), ints(&mut g, &st));
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
                let a = ints(&mut g, &axes);
                apply(&mut g, Op::Reduce { kind, keep_dims }, vec![x, a])
            }
            10 => {
                // Repeats for each axis, sometimes one more (a new leading axis).
                let extra = usize::from(rng.below(3) == 0);
                let reps: Vec<i64> = (0..r + extra).map(|_| 1 + rng.below(3) as i64).collect();
                let reps = ints(&mut g, &reps);
                apply(&mut g, Op::Tile, vec![x, reps])
            }
            7 => apply(&mut g, Op::Softmax { axis: rng.below(r) as i64, log: rng.below(2) == 0 }, vec![x]),
            _ => {
                let a = rng.below(r);
                let idx: Vec<i64> = (0..1 + rng.below(3))
                    .map(|_| rng.below(s[a]) as i64 - if rng.below(3) == 0 { s[a] as i64 } else { 0 })
                    .collect();
                let (i, ax) = (ints(&mut g, &idx), ints(&mut g, &[a as i64]));
                apply(&mut g, Op::Gather { batch_dims: 0 }, vec![x, i, ax])
            }
        };
        if let Some(t) = made.filter(|&t| shape_of(&g, t).iter().product::<usize>() > 0) {
            pool.push(t);
        }
    }
    for k in 0..1 + rng.below(2) {
        let t = pool[pool.len() - 1 - rng.below(pool.len().min(3))];
        let id = g.add(Op::Result, origin(&format!("r{k}"), "Result"), vec![Some(t)], 0);
        g.results.push(id);
        g.result_names.push(Some(format!("r{k}")));
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
            ceil: false,
        }
    };
    match rng.below(7) {
        0 => {
            // Plain, grouped (depthwise when each group has one channel) or transposed.
            let groups = if rng.below(2) == 0 { 1 } else { c };
            let (per_in, per_out) = (c / groups, 1 + rng.below(3));
            let transposed = rng.below(3) == 0;
            let kernel: Vec<usize> = (0..spatial).map(|_| 1 + rng.below(3)).collect();
            let mut win = window(rng);
            let mut output_padding = Vec::new();
            if transposed {
                // Same padding with no output shape pads nothing; explicit pads crop.
                output_padding = (0..spatial)
                    .map(|a| rng.below(2).min(win.strides[a].max(win.dilations[a]) as usize - 1) as i64)
                    .collect();
                win.auto_pad = if rng.below(2) == 0 { AutoPad::Explicit } else { AutoPad::Valid };
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
            let a = ConvAttrs { window: win, grouped, transposed, output_padding };
            apply(g, Op::Conv(Box::new(a)), vec![x, w])
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
            let (b, e) = (ints(g, &b), ints(g, &e));
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
            let a = ints(g, &axes);
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

/// The Results' values by folding: each Parameter replaced by a constant of its input.
fn folded(mut g: Graph, inputs: &[Vec<f64>]) -> Vec<Vec<f64>> {
    for (k, &p) in g.params.clone().iter().enumerate() {
        g.nodes[p].op = Op::Const { src: None };
        let t = g.nodes[p].outputs[0];
        g.tensors[t].fact.value = Some(Data::Float(inputs[k].clone()));
    }
    g.params.clear();
    let diags = cellc::passes::fold(&mut g);
    assert!(diags.is_empty(), "{diags:?}");
    g.results
        .iter()
        .map(|&r| {
            let t = g.nodes[r].inputs[0].expect("input");
            g.tensors[t].fact.value.as_ref().and_then(Data::floats).expect("folded")
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn planned_steps_compute_what_the_ops_define(seed in any::<u64>()) {
        let (g, inputs) = random_graph(seed);
        let want = folded(g.clone(), &inputs);
        let m = match cellc::model_of(g) {
            Ok(m) => m,
            Err(d) => return Err(TestCaseError::fail(format!("refused: {d}"))),
        };
        let got = cellc::reference::run(&m, &inputs).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            prop_assert_eq!(g.len(), w.len());
            for (a, b) in g.iter().zip(w) {
                // Both round each op to f32; the reference sums products in another order.
                // NaN on both sides is agreement: an average excluding padding over a last
                // window (rounding up) past the data has no value to count, as in OpenVINO.
                let same = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-5 * (1.0 + b.abs());
                prop_assert!(same, "{} vs {}", a, b);
            }
        }
    }
}

#[test]
fn a_gather_past_its_dimension_is_refused() {
    // Its copy would read past the data: refused, not compiled.
    let mut g = Graph::new("gather.xml", "gather");
    let id = g.add(
        Op::Parameter { elem: Elem::F32, shape: vec![Dim::Static(2), Dim::Static(3)] },
        origin("x", "Parameter"),
        Vec::new(),
        1,
    );
    let x = g.nodes[id].outputs[0];
    g.tensors[x].fact = Fact::new(Elem::F32, known(&[2, 3]));
    g.params.push(id);
    for bad in [3, -4] {
        let mut g = g.clone();
        let (i, ax) = (ints(&mut g, &[0, bad]), ints(&mut g, &[1]));
        let y = apply(&mut g, Op::Gather { batch_dims: 0 }, vec![x, i, ax]).expect("a shape");
        let r = g.add(Op::Result, origin("r", "Result"), vec![Some(y)], 0);
        g.results.push(r);
        g.result_names.push(None);
        let err = cellc::model_of(g).expect_err("out of range");
        assert!(err.to_string().contains(&format!("gathers index {bad} of dimension 1")), "{err}");
    }
}

#[test]
fn scalars_and_whole_reductions_compile_in_both_languages() {
    // A scalar Parameter through an elementwise op, and a [2, 3] one reduced to a scalar:
    // steps over tensors of rank 0 (no axes at all) are planned, run and emitted.
    let mut g = Graph::new("scalar.xml", "scalar");
    let param = |g: &mut Graph, name: &str, dims: &[usize]| {
        let shape = dims.iter().map(|&d| Dim::Static(d as u64)).collect();
        let id = g.add(Op::Parameter { elem: Elem::F32, shape }, origin(name, "Parameter"), Vec::new(), 1);
        let t = g.nodes[id].outputs[0];
        g.tensors[t].fact = Fact::new(Elem::F32, known(dims));
        g.tensors[t].names = vec![name.into()];
        g.params.push(id);
        t
    };
    let (s, x) = (param(&mut g, "s", &[]), param(&mut g, "x", &[2, 3]));
    let y = apply(&mut g, Op::Unary(Unary::Abs), vec![s]).expect("a shape");
    let axes = ints(&mut g, &[0, 1]);
    let z = apply(&mut g, Op::Reduce { kind: ReduceKind::Mean, keep_dims: false }, vec![x, axes]).expect("a shape");
    for (k, t) in [y, z].into_iter().enumerate() {
        let r = g.add(Op::Result, origin(&format!("r{k}"), "Result"), vec![Some(t)], 0);
        g.results.push(r);
        g.result_names.push(Some(format!("r{k}")));
    }
    let m = cellc::model_of(g).expect("compiles");
    let got = cellc::reference::run(&m, &[vec![-2.5], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]).expect("runs");
    assert_eq!(got, vec![vec![2.5], vec![3.5]]);
    let opts = cellc::Options::default();
    let rust = cellc::emit::rust::emit(&m, &opts).expect("Rust");
    assert!(rust.contains("acc / 6"), "the mean divides by the count:\n{rust}");
    cellc::emit::c::emit(&m, &opts, "scalar.h").expect("C");
}

#[test]
fn a_cut_drops_the_parameters_it_read_only_for_their_shape() {
    // x → Exp → y, reshaped to x's own shape: cut at y, x is read only by the ShapeOf,
    // which folds to a constant; the cut model takes y alone.
    let mut g = Graph::new("cut.xml", "cut");
    let id = g.add(
        Op::Parameter { elem: Elem::F32, shape: vec![Dim::Static(2), Dim::Static(3)] },
        origin("x", "Parameter"),
        Vec::new(),
        1,
    );
    let x = g.nodes[id].outputs[0];
    g.tensors[x].fact = Fact::new(Elem::F32, known(&[2, 3]));
    g.params.push(id);
    let y = apply(&mut g, Op::Unary(Unary::Exp), vec![x]).expect("a shape");
    g.tensors[y].names = vec!["y".into()];
    g.tensors[y].declared = vec![Dim::Static(2), Dim::Static(3)];
    let s = apply(&mut g, Op::ShapeOf { out: Elem::I64 }, vec![x]).expect("a shape");
    // The target shape is known once the passes fold the ShapeOf.
    let id = g.add(Op::Reshape { special_zero: false }, origin("z", "Reshape"), vec![Some(y), Some(s)], 1);
    let z = g.nodes[id].outputs[0];
    g.tensors[z].fact = Fact::new(Elem::F32, known(&[2, 3]));
    let r = g.add(Op::Result, origin("z", "Result"), vec![Some(z)], 0);
    g.results.push(r);
    g.result_names.push(None);
    let whole = cellc::model_of(g.clone()).expect("compiles");
    assert_eq!(whole.params.len(), 1);
    assert!(cellc::passes::cut(&mut g, &["y".to_owned()], &[]).is_empty());
    assert_eq!(g.params.len(), 2, "the cut keeps x for its ShapeOf");
    let cut = cellc::model_of(g).expect("compiles");
    let names: Vec<&str> = cut.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["y"]);
}

#[test]
fn the_random_graphs_hold_every_window_and_gather_op() {
    // A generator whose attributes its ops refuse would test nothing: over the seeds the
    // property test draws from, each kind is made, transposed convolutions and reductions
    // of scatters among them.
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for seed in 0..400u64 {
        let (g, _) = random_graph(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        for n in &g.nodes {
            let kind = match &n.op {
                Op::Conv(a) if a.transposed => "transposed convolution",
                Op::Conv(a) if a.grouped => "grouped convolution",
                Op::Conv(_) => "convolution",
                Op::Pool(_) => "pool",
                Op::Pad(_) => "pad",
                Op::Norm(_) => "norm",
                Op::Binary(Binary::PRelu) => "prelu",
                Op::Einsum(_) => "einsum",
                Op::Scatter(Scatter::NdReduce(_)) => "scatter with a reduction",
                Op::Scatter(_) => "scatter",
                _ => continue,
            };
            *seen.entry(kind).or_default() += 1;
        }
    }
    for kind in [
        "transposed convolution",
        "grouped convolution",
        "convolution",
        "pool",
        "pad",
        "norm",
        "prelu",
        "einsum",
        "scatter with a reduction",
        "scatter",
    ] {
        assert!(seen.get(kind).is_some_and(|&n| n >= 3), "{kind}: {seen:?}");
    }
}
