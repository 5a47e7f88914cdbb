//! Fusion: a `MatMul` of a run-time tensor by a constant matrix, with the `Add` of a
//! constant bias along its columns and then an activation, becomes one [`Op::Dense`] node,
//! which the planner gives a kernel over weights packed at compile time (the cells'
//! register-blocked product); then trees of elementwise ops become one [`Op::Chain`], one
//! loop over the elements with the values between them in registers. A step is absorbed
//! only when nothing else reads the value before it, so every tensor the model still needs
//! keeps its producer.
use crate::graph::{Data, Elem, Graph, NodeId, Sym, TensorId};
use crate::limits::MAX_CHAIN;
use crate::ops::chain::{Arg, Chain, Instr, MapFn};
use crate::ops::{Binary, DenseAct, Op};

/// Fuses the dense layers of `g`, then its chains of elementwise ops, in place.
pub fn fuse(g: &mut Graph) {
    let (order, _) = g.topo_order();
    let readers = readers(g);
    for &id in &order {
        if !g.nodes[id].dead
            && let Some(d) = dense_at(g, id, &readers)
        {
            apply(g, id, d);
        }
    }
    let mut readers = self::readers(g);
    for id in order {
        if !g.nodes[id].dead {
            chain_at(g, id, &mut readers);
        }
    }
    g.prune();
}

/// The chain an elementwise op computes.
fn chain_of(op: &Op) -> Option<Chain> {
    let f = match op {
        Op::Unary(u) => MapFn::Unary(*u),
        Op::Binary(b) => MapFn::Binary(*b),
        Op::Compare(c) => MapFn::Compare(*c),
        Op::Select => MapFn::Select,
        Op::Chain(c) => return Some(c.clone()),
        _ => return None,
    };
    Some(Chain::single(f))
}

/// Joins into elementwise node `id` the elementwise nodes feeding it whose values only it
/// reads (once or more: a square `x · x` of a difference computes the difference once) and
/// which have its output's shape (so no value is computed more than once). The
/// nodes before it in topological order have been joined already, so one pass builds
/// whole trees.
fn chain_at(g: &mut Graph, id: NodeId, readers: &mut [Vec<NodeId>]) {
    let Some(mut chain) = chain_of(&g.nodes[id].op) else { return };
    let Some(&out) = g.nodes[id].outputs.first() else { return };
    let Some(mut inputs) = g.nodes[id].inputs.iter().copied().collect::<Option<Vec<TensorId>>>() else { return };
    let shape = g.tensors[out].fact.shape.clone();
    let mut joined = Vec::new();
    let mut k = 0;
    while k < inputs.len() {
        let t = inputs[k];
        let p = g.tensors[t].producer.0;
        let feeder_inputs = g.nodes[p].inputs.iter().copied().collect::<Option<Vec<TensorId>>>();
        let (feeder, feeder_inputs) = match (chain_of(&g.nodes[p].op), feeder_inputs) {
            (Some(c), Some(fi))
                if !g.nodes[p].dead
                    && !joined.contains(&p)
                    && readers[t][..] == [id]
                    && g.tensors[t].fact.shape == shape
                    && g.tensors[t].fact.value.is_none()
                    && matches!(g.tensors[t].fact.elem, Elem::F32 | Elem::Bool)
                    && chain.instrs.len() + c.instrs.len() <= MAX_CHAIN =>
            {
                (c, fi)
            }
            _ => {
                k += 1;
                continue;
            }
        };
        // The feeder's instructions go first; its inputs join the chain's (once each), and
        // input k becomes the feeder's last value.
        let map: Vec<usize> = feeder_inputs
            .iter()
            .map(|&u| {
                inputs.iter().position(|&v| v == u).unwrap_or_else(|| {
                    inputs.push(u);
                    inputs.len() - 1
                })
            })
            .collect();
        for &u in &feeder_inputs {
            readers[u].retain(|&r| r != p);
            if !readers[u].contains(&id) {
                readers[u].push(id);
            }
        }
        let shift = feeder.instrs.len();
        let mut instrs: Vec<Instr> = feeder
            .instrs
            .into_iter()
            .map(|i| Instr { f: i.f, args: i.args.into_iter().map(|a| remap(a, |j| Arg::Input(map[j]), 0)).collect() })
            .collect();
        instrs.extend(chain.instrs.into_iter().map(|i| {
            Instr {
                f: i.f,
                args: i
                    .args
                    .into_iter()
                    .map(|a| remap(a, |j| if inputs[j] == t { Arg::Temp(shift - 1) } else { Arg::Input(j) }, shift))
                    .collect(),
            }
        }));
        chain = Chain { instrs };
        joined.push(p);
        k += 1;
    }
    if joined.is_empty() {
        return;
    }
    // Only the inputs some instruction still reads stay, renumbered in order.
    let used: Vec<usize> =
        (0..inputs.len()).filter(|&j| chain.instrs.iter().any(|i| i.args.contains(&Arg::Input(j)))).collect();
    for i in &mut chain.instrs {
        for a in &mut i.args {
            *a = remap(*a, |j| Arg::Input(used.iter().position(|&u| u == j).unwrap_or(j)), 0);
        }
    }
    for p in joined {
        g.nodes[p].dead = true;
    }
    let n = &mut g.nodes[id];
    n.inputs = used.iter().map(|&j| Some(inputs[j])).collect();
    n.input_pos = vec![None; n.inputs.len()];
    n.op = Op::Chain(chain);
}

/// An argument with its input renumbered by `input` and its temporary moved by `shift`.
fn remap(a: Arg, input: impl Fn(usize) -> Arg, shift: usize) -> Arg {
    match a {
        Arg::Input(j) => input(j),
        Arg::Temp(j) => Arg::Temp(j + shift),
    }
}

/// For each tensor, the live nodes that read it.
pub(super) fn readers(g: &Graph) -> Vec<Vec<NodeId>> {
    let mut r = vec![Vec::new(); g.tensors.len()];
    for (id, n) in g.nodes.iter().enumerate().filter(|(_, n)| !n.dead) {
        for t in n.inputs.iter().flatten() {
            if !r[*t].contains(&id) {
                r[*t].push(id);
            }
        }
    }
    r
}

/// A dense layer found from a `MatMul`: what it absorbs.
struct Found {
    tb: bool,
    bias: Option<(NodeId, TensorId)>,
    /// The activation with its node, and a PReLU's slope.
    act: Option<(NodeId, DenseAct, Option<TensorId>)>,
    /// The windows the rows are, read in place: their node and its input.
    win: Option<(NodeId, crate::vocab::Windows, TensorId)>,
    /// The tensor the fused node gives.
    out: TensorId,
}

/// The node reading `t`, when it is the only one and `t` is used once by it.
fn only_reader(g: &Graph, readers: &[Vec<NodeId>], t: TensorId) -> Option<NodeId> {
    match readers[t][..] {
        [r] if g.nodes[r].inputs.iter().flatten().filter(|&&x| x == t).count() == 1 => Some(r),
        _ => None,
    }
}

fn dense_at(g: &Graph, id: NodeId, readers: &[Vec<NodeId>]) -> Option<Found> {
    let node = &g.nodes[id];
    let Op::MatMul { ta: false, tb } = node.op else { return None };
    let (x, w) = (node.inputs.first().copied().flatten()?, node.inputs.get(1).copied().flatten()?);
    let (fx, fw) = (&g.tensors[x].fact, &g.tensors[w].fact);
    let ws = fw.shape.as_deref()?;
    if fx.value.is_some() || fx.elem != Elem::F32 || !matches!(fw.value, Some(Data::Float(_))) || ws.len() != 2 {
        return None;
    }
    if fx.shape.as_ref().is_none_or(|s| s.is_empty()) {
        return None;
    }
    // Empty products stay MatMuls.
    if ws.iter().any(|d| d.value().is_none_or(|v| v <= 0)) {
        return None;
    }
    let n = ws[if tb { 0 } else { 1 }];
    let y = *node.outputs.first()?;
    let ys = g.tensors[y].fact.shape.clone()?;
    // Windows that only this product reads are read in place.
    let producer = g.tensors[x].producer.0;
    let win = match &g.nodes[producer].op {
        Op::Windows(w) if only_reader(g, readers, x) == Some(id) && !g.nodes[producer].dead => {
            g.nodes[producer].inputs.first().copied().flatten().map(|t| (producer, **w, t))
        }
        _ => None,
    };
    let mut found = Found { tb, bias: None, act: None, win, out: y };
    if let Some(r) = only_reader(g, readers, y)
        && let Op::Binary(Binary::Add) = g.nodes[r].op
        && let Some(b) = g.nodes[r].inputs.iter().flatten().copied().find(|&t| t != y)
        && is_bias(g, b, n, &ys)
        && let Some(&out) = g.nodes[r].outputs.first()
        && g.tensors[out].fact.shape.as_deref() == Some(&ys[..])
    {
        found.bias = Some((r, b));
        found.out = out;
    }
    if let Some(r) = only_reader(g, readers, found.out)
        && let Some(&out) = g.nodes[r].outputs.first()
        && g.tensors[out].fact.shape.as_deref() == Some(&ys[..])
    {
        let ins = &g.nodes[r].inputs;
        // A PReLU after the layer: the data first, a slope per output (or one for all).
        let slope = match ins[..] {
            [Some(x), Some(s)] if x == found.out && (is_bias(g, s, n, &ys) || is_one(g, s, ys.len())) => Some(s),
            _ => None,
        };
        found.act = match (&g.nodes[r].op, slope) {
            (Op::Unary(u), _) => Some((r, DenseAct::Unary(*u), None)),
            (Op::Binary(Binary::PRelu), Some(s)) => Some((r, DenseAct::PRelu, Some(s))),
            _ => return Some(found),
        };
        found.out = out;
    }
    Some(found)
}

/// Whether `b` is a constant of `n` values laid along the last axis of a tensor of shape
/// `ys` (so adding it broadcasts it over the rows only).
fn is_bias(g: &Graph, b: TensorId, n: Sym, ys: &[Sym]) -> bool {
    let f = &g.tensors[b].fact;
    let Some(bs) = f.shape.as_deref() else { return false };
    let (Some(n), Some(Data::Float(_))) = (n.value(), f.value.as_ref()) else { return false };
    f.elem == Elem::F32
        && bs.len() <= ys.len()
        && bs.split_last().is_some_and(|(last, rest)| {
            last.value() == Some(n) && rest.iter().all(|d| d.value() == Some(1)) && ys.last() == Some(last)
        })
}

/// Whether `s` is a constant float of one value, of rank at most `rank` (so that it
/// broadcasts as a scalar).
fn is_one(g: &Graph, s: TensorId, rank: usize) -> bool {
    let f = &g.tensors[s].fact;
    f.elem == Elem::F32
        && matches!(f.value, Some(Data::Float(_)))
        && f.shape.as_deref().is_some_and(|d| d.len() <= rank && d.iter().all(|d| d.value() == Some(1)))
}

/// Replaces the `MatMul` `id` and what it absorbs by one `Dense` node.
fn apply(g: &mut Graph, id: NodeId, d: Found) {
    let node = &g.nodes[id];
    let mut inputs = node.inputs[..2].to_vec();
    let slope = d.act.and_then(|(_, _, s)| s);
    if d.bias.is_some() || slope.is_some() {
        inputs.push(d.bias.map(|(_, b)| b));
    }
    inputs.extend(slope.map(Some));
    if let Some((_, _, x)) = d.win {
        inputs[0] = Some(x);
    }
    let origin = node.origin.clone();
    let op = Op::Dense {
        tb: d.tb,
        act: d.act.map(|(_, a, _)| a),
        win: d.win.as_ref().map(|(_, w, _)| Box::new(*w)),
        planar: false,
        groups: 1,
    };
    let dense = g.add(op, origin, inputs, 1);
    let t = g.nodes[dense].outputs[0];
    let producer = g.tensors[t].producer;
    g.tensors[t] = crate::graph::Tensor { producer, ..g.tensors[d.out].clone() };
    g.replace_uses(d.out, t);
    let absorbed = d.bias.map(|(r, _)| r).into_iter().chain(d.act.map(|(r, _, _)| r)).chain(d.win.map(|(r, _, _)| r));
    for r in std::iter::once(id).chain(absorbed) {
        g.nodes[r].dead = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Fact;
    use crate::ops::Unary;
    use crate::vocab::Origin;

    fn origin(name: &str) -> Origin {
        Origin { pos: None, name: name.into(), op: name.into() }
    }

    fn known(v: &[i64]) -> Vec<Sym> {
        v.iter().map(|&n| Sym::known(n)).collect()
    }

    fn param(g: &mut Graph, shape: &[i64]) -> TensorId {
        let op = Op::Parameter { elem: Elem::F32, shape: Vec::new() };
        let id = g.add(op, origin("x"), Vec::new(), 1);
        g.params.push(id);
        let t = g.nodes[id].outputs[0];
        g.tensors[t].fact = Fact::new(Elem::F32, known(shape));
        t
    }

    fn constant(g: &mut Graph, shape: &[i64]) -> TensorId {
        let id = g.add(Op::Const { src: None }, origin("c"), Vec::new(), 1);
        let t = g.nodes[id].outputs[0];
        let n = shape.iter().product::<i64>() as usize;
        g.tensors[t].fact = Fact::constant(Elem::F32, known(shape), Data::Float((0..n).map(|i| i as f64).collect()));
        t
    }

    fn apply(g: &mut Graph, op: Op, ins: &[TensorId]) -> TensorId {
        let facts: Vec<Option<&Fact>> = ins.iter().map(|&t| Some(&g.tensors[t].fact)).collect();
        let fact = crate::ops::infer(&op, &facts, 1).expect("valid").remove(0);
        let id = g.add(op, origin("op"), ins.iter().map(|&t| Some(t)).collect(), 1);
        let t = g.nodes[id].outputs[0];
        g.tensors[t].fact = fact;
        t
    }

    fn result(g: &mut Graph, t: TensorId) {
        let id = g.add(Op::Result, origin("r"), vec![Some(t)], 0);
        g.results.push(id);
        g.result_names.push(None);
    }

    /// The live ops, in order.
    fn ops(g: &Graph) -> Vec<Op> {
        g.nodes.iter().filter(|n| !n.dead).map(|n| n.op.clone()).collect()
    }

    fn dense_inputs(g: &Graph) -> usize {
        g.nodes.iter().find(|n| !n.dead && matches!(n.op, Op::Dense { .. })).map_or(0, |n| n.inputs.len())
    }

    #[test]
    fn a_product_its_bias_and_its_activation_become_one_dense_layer() {
        let mut g = Graph::new("t.xml", "t");
        let x = param(&mut g, &[2, 3]);
        let (w, b) = (constant(&mut g, &[3, 4]), constant(&mut g, &[1, 4]));
        let y = apply(&mut g, Op::MatMul { ta: false, tb: false }, &[x, w]);
        // The bias first, as exporters sometimes write it.
        let z = apply(&mut g, Op::Binary(Binary::Add), &[b, y]);
        let s = apply(&mut g, Op::Unary(Unary::Sigmoid), &[z]);
        result(&mut g, s);
        fuse(&mut g);
        let dense =
            Op::Dense { tb: false, act: Some(DenseAct::Unary(Unary::Sigmoid)), win: None, planar: false, groups: 1 };
        assert_eq!(ops(&g).iter().filter(|o| **o == dense).count(), 1, "{:?}", ops(&g));
        assert!(!ops(&g).iter().any(|o| matches!(o, Op::MatMul { .. } | Op::Binary(_) | Op::Unary(_))));
        assert_eq!(dense_inputs(&g), 3);
        let r = g.results[0];
        let t = g.nodes[r].inputs[0].expect("connected");
        assert!(matches!(g.nodes[g.tensors[t].producer.0].op, Op::Dense { .. }));
        assert_eq!(g.tensors[t].fact.shape, Some(known(&[2, 4])));
    }

    #[test]
    fn a_value_read_elsewhere_is_not_absorbed() {
        let mut g = Graph::new("t.xml", "t");
        let x = param(&mut g, &[2, 3]);
        let (w, b) = (constant(&mut g, &[4, 3]), constant(&mut g, &[4]));
        let y = apply(&mut g, Op::MatMul { ta: false, tb: true }, &[x, w]);
        let z = apply(&mut g, Op::Binary(Binary::Add), &[y, b]);
        result(&mut g, y);
        result(&mut g, z);
        fuse(&mut g);
        assert!(ops(&g).contains(&Op::Dense { tb: true, act: None, win: None, planar: false, groups: 1 }));
        assert!(ops(&g).contains(&Op::Binary(Binary::Add)), "the product is a Result too: its Add stays");
        assert_eq!(dense_inputs(&g), 2);
    }

    #[test]
    fn a_prelu_of_a_slope_per_output_or_one_for_all_is_the_layers_activation() {
        for (slope, bias) in [(&[4][..], true), (&[1, 1][..], false), (&[1, 4][..], false)] {
            let mut g = Graph::new("t.xml", "t");
            let x = param(&mut g, &[2, 3]);
            let (w, b, s) = (constant(&mut g, &[3, 4]), constant(&mut g, &[4]), constant(&mut g, slope));
            let mut y = apply(&mut g, Op::MatMul { ta: false, tb: false }, &[x, w]);
            if bias {
                y = apply(&mut g, Op::Binary(Binary::Add), &[y, b]);
            }
            let z = apply(&mut g, Op::Binary(Binary::PRelu), &[y, s]);
            result(&mut g, z);
            fuse(&mut g);
            let dense = Op::Dense { tb: false, act: Some(DenseAct::PRelu), win: None, planar: false, groups: 1 };
            assert_eq!(ops(&g).iter().filter(|o| **o == dense).count(), 1, "{slope:?}: {:?}", ops(&g));
            assert!(!ops(&g).iter().any(|o| matches!(o, Op::Binary(_))), "{:?}", ops(&g));
            let node = g.nodes.iter().find(|n| !n.dead && n.op == dense).expect("a dense layer");
            assert_eq!(node.inputs, vec![Some(x), Some(w), bias.then_some(b), Some(s)]);
        }
        // Its value, folded, is the product's, plus the bias, through the PReLU, op by op.
        let fact = |shape: &[i64], v: Vec<f64>| Fact::constant(Elem::F32, known(shape), Data::Float(v));
        let x = fact(&[2, 3], vec![1.0, -2.0, 0.5, -1.0, 3.0, 0.25]);
        let w = fact(&[3, 4], (0..12).map(|i| f64::from(i) * 0.5 - 2.5).collect());
        let b = fact(&[4], vec![0.5, -1.0, 2.0, -0.25]);
        let s = fact(&[4], vec![0.1, 0.2, -0.5, 3.0]);
        let infer = |op: Op, ins: &[&Fact]| {
            let ins: Vec<Option<&Fact>> = ins.iter().map(|&f| Some(f)).collect();
            crate::ops::infer(&op, &ins, 1).expect("valid").remove(0)
        };
        let p = infer(Op::MatMul { ta: false, tb: false }, &[&x, &w]);
        let a = infer(Op::Binary(Binary::Add), &[&p, &b]);
        let want = infer(Op::Binary(Binary::PRelu), &[&a, &s]);
        let got = infer(
            Op::Dense { tb: false, act: Some(DenseAct::PRelu), win: None, planar: false, groups: 1 },
            &[&x, &w, &b, &s],
        );
        assert_eq!(got.value, want.value);
        assert!(want.value.as_ref().and_then(Data::floats).is_some_and(|v| v.iter().any(|&v| v < 0.0)));
    }

    #[test]
    fn only_a_bias_along_the_columns_is_absorbed() {
        let mut g = Graph::new("t.xml", "t");
        let x = param(&mut g, &[2, 3]);
        let (w, b) = (constant(&mut g, &[3, 4]), constant(&mut g, &[2, 1]));
        let y = apply(&mut g, Op::MatMul { ta: false, tb: false }, &[x, w]);
        let z = apply(&mut g, Op::Binary(Binary::Add), &[y, b]);
        result(&mut g, z);
        fuse(&mut g);
        assert!(ops(&g).contains(&Op::Binary(Binary::Add)), "a value per row is not a bias");
        assert_eq!(dense_inputs(&g), 2);
    }

    #[test]
    fn elementwise_trees_become_one_chain_computing_the_same_values() {
        let mut g = Graph::new("t.xml", "t");
        let x = param(&mut g, &[2, 3]);
        let c = constant(&mut g, &[3]);
        // sqrt(|x| + c) · x − sigmoid(x), with |x| + c also a Result: two chains, |x| + c
        // and the rest, which reads it.
        let a = apply(&mut g, Op::Unary(Unary::Abs), &[x]);
        let b = apply(&mut g, Op::Binary(Binary::Add), &[a, c]);
        let r = apply(&mut g, Op::Unary(Unary::Sqrt), &[b]);
        let m = apply(&mut g, Op::Binary(Binary::Multiply), &[r, x]);
        let s = apply(&mut g, Op::Unary(Unary::Sigmoid), &[x]);
        let y = apply(&mut g, Op::Binary(Binary::Subtract), &[m, s]);
        result(&mut g, y);
        result(&mut g, b);
        let xs = [-1.5, 0.0, 2.0, 3.5, -0.25, 1.0];
        fuse(&mut g);
        let chains: Vec<(Chain, Vec<TensorId>)> = g
            .nodes
            .iter()
            .filter(|n| !n.dead)
            .filter_map(|n| match &n.op {
                Op::Chain(c) => Some((c.clone(), n.inputs.iter().map(|t| t.expect("connected")).collect())),
                _ => None,
            })
            .collect();
        assert_eq!(ops(&g).iter().filter(|o| matches!(o, Op::Unary(_) | Op::Binary(_))).count(), 0, "{:?}", ops(&g));
        let [(first, fi), (second, si)] = &chains[..] else { panic!("two chains: {:?}", ops(&g)) };
        assert_eq!((first.instrs.len(), fi.len()), (2, 2), "|x| + c over x and c: {first:?}");
        assert_eq!((second.instrs.len(), si.len()), (4, 2), "the rest over b and x: {second:?}");
        for (i, &v) in xs.iter().enumerate() {
            let cv = (i % 3) as f64;
            let bv = first.apply(&fi.iter().map(|&t| if t == x { v } else { cv }).collect::<Vec<_>>());
            assert_eq!(bv, v.abs() + cv);
            let got = second.apply(&si.iter().map(|&t| if t == x { v } else { bv }).collect::<Vec<_>>());
            let want = bv.sqrt() * v - 1.0 / (1.0 + (-v).exp());
            assert!((got - want).abs() < 1e-6, "element {i}: {got} against {want}");
        }
    }

    #[test]
    fn a_value_read_twice_by_one_op_is_computed_once_inside_its_chain() {
        let mut g = Graph::new("t.xml", "t");
        let (a, b, c, d) = (param(&mut g, &[4]), param(&mut g, &[4]), param(&mut g, &[4]), param(&mut g, &[4]));
        // (a − b)² + (c + d)², each square a product of a value by itself: one chain of
        // five instructions (the difference and the sum once each) over the four inputs.
        let re = apply(&mut g, Op::Binary(Binary::Subtract), &[a, b]);
        let im = apply(&mut g, Op::Binary(Binary::Add), &[c, d]);
        let re2 = apply(&mut g, Op::Binary(Binary::Multiply), &[re, re]);
        let im2 = apply(&mut g, Op::Binary(Binary::Multiply), &[im, im]);
        let y = apply(&mut g, Op::Binary(Binary::Add), &[re2, im2]);
        result(&mut g, y);
        fuse(&mut g);
        let live: Vec<&crate::graph::Node> =
            g.nodes.iter().filter(|n| !n.dead && matches!(n.op, Op::Chain(_))).collect();
        let [n] = &live[..] else { panic!("one chain: {:?}", ops(&g)) };
        let Op::Chain(chain) = &n.op else { unreachable!() };
        assert_eq!(chain.instrs.len(), 5, "{chain:?}");
        assert_eq!(ops(&g).iter().filter(|o| matches!(o, Op::Binary(_))).count(), 0, "{:?}", ops(&g));
        let ins: Vec<TensorId> = n.inputs.iter().map(|t| t.expect("connected")).collect();
        assert_eq!(ins.len(), 4);
        let (av, bv, cv, dv) = (1.5, -2.0, 0.25, 3.0);
        let got = chain.apply(
            &ins.iter()
                .map(|&t| [(a, av), (b, bv), (c, cv), (d, dv)].iter().find(|p| p.0 == t).expect("an input").1)
                .collect::<Vec<_>>(),
        );
        let want = (av - bv) * (av - bv) + (cv + dv) * (cv + dv);
        assert_eq!(got, want);
    }

    #[test]
    fn a_product_of_two_run_time_values_stays_a_matmul() {
        let mut g = Graph::new("t.xml", "t");
        let (x, w) = (param(&mut g, &[2, 3]), param(&mut g, &[3, 4]));
        let y = apply(&mut g, Op::MatMul { ta: false, tb: false }, &[x, w]);
        result(&mut g, y);
        fuse(&mut g);
        assert!(ops(&g).contains(&Op::MatMul { ta: false, tb: false }));
    }
}
