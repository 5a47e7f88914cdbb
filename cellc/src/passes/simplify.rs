//! Simplification after folding: every op whose outputs are all known becomes a constant;
//! ops that leave their input as it is (a `Reshape` to the same shape, an `Identity`, a
//! `Convert` to the same type, a `Slice` of steps 1 that takes every value, a `Transpose` that moves only axes of length 1 in a way that
//! keeps the order of the others) disappear; two `Transpose`s in a row become one;
//! elementwise ops with constant parameters become plain functions of their input; a
//! `PRelu`'s per-channel slope becomes one that broadcasts by numpy's rules; a float raised
//! to the constant power 2 becomes its product with itself, `x·sigmoid(x)` a swish, `min(max(x, lo), hi)`
//! one clamp; a `Squeeze` of a `Transpose`
//! squeezes first, so that the transpose can meet the next one (the layout glue around a
//! recurrent cell read from ONNX: its output moved to ONNX's layout, squeezed, moved back).
use crate::graph::{Data, Elem, Fact, Graph, NodeId, Sym, TensorId};
use crate::ops::Op;
use crate::vocab::Origin;

/// Simplifies `g` in place.
pub fn simplify(g: &mut Graph) {
    let (order, _) = g.topo_order();
    let readers = super::fuse::readers(g);
    for id in order {
        if g.nodes[id].dead {
            continue;
        }
        if materialize(g, id, &readers) {
            continue;
        }
        resolve_parameters(g, id);
        channel_slope(g, id);
        square(g, id);
        swish(g, id);
        clamp(g, id, &readers);
        select_of_bool(g, id);
        if let Some(input) = passthrough(g, id) {
            bypass(g, id, input);
            continue;
        }
        squeeze_first(g, id, &readers);
        merge_transposes(g, id);
        merge_slices(g, id, &readers);
    }
    g.prune();
}

/// Turns an op whose outputs are all constant, but for outputs nothing reads (`readers`,
/// as [`super::fuse::readers`] finds them: a `MaxPool`'s indices), into a constant node
/// per known output.
fn materialize(g: &mut Graph, id: NodeId, readers: &[Vec<NodeId>]) -> bool {
    let node = &g.nodes[id];
    if matches!(node.op, Op::Const { .. } | Op::Parameter { .. } | Op::Result) || node.outputs.is_empty() {
        return false;
    }
    let known = |t: TensorId| g.tensors[t].fact.value.is_some();
    let unread = |t: TensorId| readers.get(t).is_none_or(Vec::is_empty);
    if !node.outputs.iter().all(|&t| known(t) || unread(t)) || !node.outputs.iter().any(|&t| known(t)) {
        return false;
    }
    if let [_] = node.outputs[..] {
        let n = &mut g.nodes[id];
        n.op = Op::Const { src: None };
        n.inputs.clear();
        n.input_pos.clear();
        n.bodies.clear();
        return true;
    }
    // Several outputs (a Split): one constant node takes each known one.
    let outputs: Vec<TensorId> = node.outputs.iter().copied().filter(|&t| known(t)).collect();
    let origin = node.origin.clone();
    for t in outputs {
        let c = g.add(Op::Const { src: None }, origin.clone(), Vec::new(), 1);
        let ct = g.nodes[c].outputs[0];
        let producer = g.tensors[ct].producer;
        g.tensors[ct] = crate::graph::Tensor { producer, ..g.tensors[t].clone() };
        g.replace_uses(t, ct);
    }
    g.nodes[id].dead = true;
    true
}

/// Turns an elementwise op whose parameters are inputs into its [`Op::Unary`] once they
/// are known.
fn resolve_parameters(g: &mut Graph, id: NodeId) {
    let Op::Parametric(p) = g.nodes[id].op else { return };
    let ins: Vec<Option<&Fact>> = (0..g.nodes[id].inputs.len()).map(|i| g.input_fact(id, i)).collect();
    if let Some(u) = crate::ops::elementwise::parameters(&ins).and_then(|v| p.with(&v)) {
        let n = &mut g.nodes[id];
        n.op = Op::Unary(u);
        n.inputs.truncate(1);
        n.input_pos.truncate(1);
    }
}

/// Gives a `PRelu` whose slope applies per channel (see [`crate::ops::elementwise`]: a
/// 1-D slope as long as axis 1 of data of rank 3 or more) the slope shaped `[C, 1, …, 1]`,
/// which numpy's rules broadcast the same way, so that the kernels, which broadcast by
/// those rules alone, read it per channel.
fn channel_slope(g: &mut Graph, id: NodeId) {
    if g.nodes[id].op != Op::Binary(crate::ops::Binary::PRelu) {
        return;
    }
    let (Some(Some(data)), Some(Some(slope))) =
        (g.nodes[id].inputs.first().copied(), g.nodes[id].inputs.get(1).copied())
    else {
        return;
    };
    let (Some(ds), Some(ss)) = (g.tensors[data].fact.shape.as_deref(), g.tensors[slope].fact.shape.as_deref()) else {
        return;
    };
    let Some(shape) = crate::ops::elementwise::prelu_slope(ds, ss) else { return };
    let Some(dims) = shape.iter().map(|d| d.size().and_then(|v| usize::try_from(v).ok())).collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let fact = &g.tensors[slope].fact;
    let reshaped = match &fact.value {
        Some(v) => Some(super::edit::constant(g, id, fact.elem, &dims, v.clone())),
        None => {
            let to = dims.iter().map(|&d| Sym::known(d as i64)).collect();
            let target = super::edit::constant(g, id, Elem::I64, &[dims.len()], Data::Int(to));
            super::edit::add(g, id, Op::Reshape { special_zero: false }, &[slope, target]).ok()
        }
    };
    match reshaped {
        Some(t) => g.nodes[id].inputs[1] = Some(t),
        None => debug_assert!(false, "a slope of known shape reshapes to [C, 1, …, 1]"),
    }
}

/// The two inputs of node `id` when it is the binary op `f` with both connected.
fn binary_inputs(g: &Graph, id: NodeId, f: crate::ops::Binary) -> Option<(TensorId, TensorId)> {
    let n = &g.nodes[id];
    if n.op != Op::Binary(f) {
        return None;
    }
    Some(((*n.inputs.first()?)?, (*n.inputs.get(1)?)?))
}

/// Turns `x^2` (a `Power` whose exponent is one constant 2, `x` floats of the output's
/// shape) into `x·x`: the same value (the square, rounded once), without the general power
/// function (a `powf` call a value in the Rust, 4 times the time of the rest of an STFT's
/// magnitude in silero-vad).
fn square(g: &mut Graph, id: NodeId) {
    let Some((x, e)) = binary_inputs(g, id, crate::ops::Binary::Power) else { return };
    let two = g.tensors[e].fact.value.as_ref().and_then(Data::floats).is_some_and(|v| v == [2.0]);
    let Some(&out) = g.nodes[id].outputs.first() else { return };
    let (xf, of) = (&g.tensors[x].fact, &g.tensors[out].fact);
    if two && xf.elem.is_float() && xf.shape.is_some() && xf.shape == of.shape {
        g.nodes[id].op = Op::Binary(crate::ops::Binary::Multiply);
        g.nodes[id].inputs[1] = Some(x);
    }
}

/// Turns `x·sigmoid(x)` (how ONNX exporters write SiLU) into `Swish(x)` with β 1, the
/// op OpenVINO's converter makes of it, so that it joins a dense layer's epilogue the same
/// way; the sigmoid goes when nothing else reads it.
fn swish(g: &mut Graph, id: NodeId) {
    let Some((a, b)) = binary_inputs(g, id, crate::ops::Binary::Multiply) else { return };
    let sigmoid_of = |t: TensorId| {
        let p = &g.nodes[g.tensors[t].producer.0];
        (p.op == Op::Unary(crate::ops::Unary::Sigmoid)).then(|| p.inputs.first().copied().flatten()).flatten()
    };
    let x = match (sigmoid_of(a), sigmoid_of(b)) {
        (_, Some(x)) if x == a => a,
        (Some(x), _) if x == b => b,
        _ => return,
    };
    let Some(&out) = g.nodes[id].outputs.first() else { return };
    if g.tensors[x].fact.shape.is_none() || g.tensors[x].fact.shape != g.tensors[out].fact.shape {
        return;
    }
    let n = &mut g.nodes[id];
    n.op = Op::Unary(crate::ops::Unary::Swish { beta: 1.0 });
    n.inputs = vec![Some(x)];
    n.input_pos.truncate(1);
}

/// Turns `min(max(x, lo), hi)` with one constant `lo ≤ hi` each (how ONNX's `Clip` reads
/// since opset 11, its bounds inputs) into one `Clamp`, the op OpenVINO's converter makes of
/// it: the same values (`Clamp` computes exactly this), one function of the chain instead of
/// two. The `max` goes when nothing else reads it.
fn clamp(g: &mut Graph, id: NodeId, readers: &[Vec<NodeId>]) {
    use crate::ops::Binary;
    let one = |t: TensorId| match g.tensors[t].fact.value.as_ref().and_then(Data::floats).as_deref() {
        Some(&[v]) => Some(v),
        _ => None,
    };
    let Some((m, b)) = binary_inputs(g, id, Binary::Minimum) else { return };
    let (inner, hi) = match (one(m), one(b)) {
        (None, Some(hi)) => (m, hi),
        (Some(hi), None) => (b, hi),
        _ => return,
    };
    let max = g.tensors[inner].producer.0;
    if readers.get(inner).is_none_or(|r| r.len() != 1) {
        return;
    }
    let Some((x, lo)) = binary_inputs(g, max, Binary::Maximum).and_then(|(a, c)| match (one(a), one(c)) {
        (None, Some(lo)) => Some((a, lo)),
        (Some(lo), None) => Some((c, lo)),
        _ => None,
    }) else {
        return;
    };
    let Some(&out) = g.nodes[id].outputs.first() else { return };
    let (xf, of) = (&g.tensors[x].fact, &g.tensors[out].fact);
    if lo > hi || !xf.elem.is_float() || xf.elem != of.elem || xf.shape.is_none() || xf.shape != of.shape {
        return;
    }
    let n = &mut g.nodes[id];
    n.op = Op::Unary(crate::ops::Unary::Clamp { min: lo, max: hi });
    n.inputs = vec![Some(x)];
    n.input_pos.truncate(1);
}

/// A `Convert` of booleans computed at run time to a float type (how OpenVINO writes a
/// mask, `ThresholdedRelu` among others) becomes a `Select` of 1 and 0, which cellc
/// compiles.
fn select_of_bool(g: &mut Graph, id: NodeId) {
    let Op::Convert { to } = g.nodes[id].op else { return };
    let Some(Some(c)) = g.nodes[id].inputs.first().copied() else { return };
    let f = &g.tensors[c].fact;
    if !to.is_float() || f.elem != Elem::Bool || f.value.is_some() {
        return;
    }
    let origin = g.nodes[id].origin.clone();
    let one = crate::graph::build::constant(g, origin.clone(), to, &[], Data::Float(vec![1.0]));
    let zero = crate::graph::build::constant(g, origin, to, &[], Data::Float(vec![0.0]));
    let n = &mut g.nodes[id];
    n.op = Op::Select;
    n.inputs = vec![Some(c), Some(one), Some(zero)];
    n.input_pos.resize(3, None);
}

/// The input an op hands on unchanged, when it does.
fn passthrough(g: &Graph, id: NodeId) -> Option<TensorId> {
    let node = &g.nodes[id];
    let x = (*node.inputs.first()?)?;
    let out = *node.outputs.first()?;
    let (fi, fo) = (&g.tensors[x].fact, &g.tensors[out].fact);
    let same = fi.shape.is_some() && fi.shape == fo.shape && fi.elem == fo.elem;
    match &node.op {
        Op::Identity => Some(x),
        Op::Reshape { .. } | Op::Squeeze | Op::Unsqueeze | Op::Convert { .. } | Op::ConvertLike if same => Some(x),
        Op::Transpose if same && keeps_order(g, id) => Some(x),
        // A slice of steps 1 that keeps every extent starts at 0 and takes it all (PyTorch
        // writes `x[:, :n]` as a Slice over axis 0 from 0 to i64::MAX, then one over axis 1).
        Op::Slice if same && unit_steps(g, id) => Some(x),
        _ => None,
    }
}

/// Turns a `Slice` of a `Slice` over other axes (nothing else reading the inner one) into
/// one `Slice` over the axes of both, as OpenVINO's converter does with PyTorch's `x[:n, 1:]`
/// (written as a Slice per axis): one copy instead of two. Each slice clamps its starts and
/// stops to the extents of its own axes, which the other leaves as they are, so the values
/// are the same.
fn merge_slices(g: &mut Graph, id: NodeId, readers: &[Vec<NodeId>]) {
    let params = |g: &Graph, n: NodeId| -> Option<[Vec<i64>; 4]> {
        if g.nodes[n].op != Op::Slice {
            return None;
        }
        let v = |k: usize| -> Option<Vec<i64>> {
            let d = g.input_fact(n, k)?.value.as_ref()?;
            match d {
                Data::Int(v) => v.iter().map(|s| s.value()).collect(),
                Data::Float(_) => None,
            }
        };
        Some([v(1)?, v(2)?, v(3)?, v(4)?])
    };
    let Some(Some(inner)) = g.nodes[id].inputs.first().copied() else { return };
    let first = g.tensors[inner].producer.0;
    if readers.get(inner).is_none_or(|r| r.len() != 1) {
        return;
    }
    let (Some(outer), Some(under)) = (params(g, id), params(g, first)) else { return };
    let Some(Some(x)) = g.nodes[first].inputs.first().copied() else { return };
    let Some(rank) = g.tensors[x].fact.shape.as_ref().map(|s| s.len() as i64) else { return };
    let norm = |a: &[i64]| -> Option<Vec<i64>> { a.iter().map(|&a| Some(if a < 0 { a + rank } else { a })).collect() };
    let (Some(ao), Some(au)) = (norm(&outer[3]), norm(&under[3])) else { return };
    let lengths_agree = |p: &[Vec<i64>; 4]| p.iter().all(|v| v.len() == p[3].len());
    if !lengths_agree(&outer) || !lengths_agree(&under) || ao.iter().any(|a| au.contains(a)) {
        return;
    }
    let joined = |k: usize| -> Vec<i64> { under[k].iter().chain(&outer[k]).copied().collect() };
    let axes: Vec<i64> = au.iter().chain(&ao).copied().collect();
    let n = axes.len();
    let mut ins = vec![x];
    for v in [joined(0), joined(1), joined(2), axes] {
        ins.push(super::edit::constant(g, id, Elem::I64, &[n], Data::Int(v.into_iter().map(Sym::known).collect())));
    }
    let node = &mut g.nodes[id];
    node.inputs = ins.into_iter().map(Some).collect();
    node.input_pos = vec![None; 5];
}

/// Whether every step of a `Slice` (input 3) is a known 1.
fn unit_steps(g: &Graph, id: NodeId) -> bool {
    g.input_fact(id, 3)
        .and_then(|f| f.value.as_ref())
        .and_then(Data::floats)
        .is_some_and(|v| v.iter().all(|&s| s == 1.0))
}

/// Whether a `Transpose` keeps the relative order of the axes longer than 1 (so the values
/// stay where they are).
fn keeps_order(g: &Graph, id: NodeId) -> bool {
    let (Some(p), Some(shape)) = (g.transpose_perm(id), g.input_fact(id, 0).and_then(|f| f.shape.clone())) else {
        return false;
    };
    let moved: Vec<usize> = p.into_iter().filter(|&a| shape[a] != Sym::known(1)).collect();
    moved.windows(2).all(|w| w[0] < w[1])
}

/// Makes the readers of `id`'s output read `input`, which takes over the output's names.
fn bypass(g: &mut Graph, id: NodeId, input: TensorId) {
    let out = g.nodes[id].outputs[0];
    let names = g.tensors[out].names.clone();
    for n in names {
        if !g.tensors[input].names.contains(&n) {
            g.tensors[input].names.push(n);
        }
    }
    g.replace_uses(out, input);
    g.nodes[id].dead = true;
}

/// `Squeeze(Transpose(x, p), axes)` → `Transpose(Squeeze(x, axes'), p')` when the squeeze
/// alone reads the transpose: the two nodes swap ops in place (the squeeze's output keeps its
/// tensor), and the transpose, now last, can merge with one that follows.
fn squeeze_first(g: &mut Graph, id: NodeId, readers: &[Vec<NodeId>]) {
    if g.nodes[id].op != Op::Squeeze {
        return;
    }
    let (Some(Some(t)), Some(Some(axes))) = (g.nodes[id].inputs.first().copied(), g.nodes[id].inputs.get(1).copied())
    else {
        return;
    };
    let inner = g.tensors[t].producer.0;
    if g.nodes[inner].op != Op::Transpose || readers.get(t).is_none_or(|r| r.len() != 1) {
        return;
    }
    let (Some(p), Some(Some(x))) = (g.transpose_perm(inner), g.nodes[inner].inputs.first().copied()) else { return };
    let Some(xs) = g.tensors[x].fact.shape.clone() else { return };
    let rank = p.len();
    let Some(squeezed) = g.tensors[axes].fact.value.as_ref().and_then(Data::known_ints) else { return };
    let Some(squeezed) =
        squeezed.iter().map(|&a| crate::ops::tensor::axis(a, rank).ok()).collect::<Option<Vec<usize>>>()
    else {
        return;
    };
    // Output axis j is input axis p[j]: the same axes squeezed on the input, the others kept
    // in the transposed order, renumbered past the squeezed ones.
    let gone: Vec<usize> = squeezed.iter().map(|&j| p[j]).collect();
    if gone.iter().any(|&a| xs[a] != Sym::known(1)) {
        return;
    }
    let kept: Vec<usize> = (0..rank).filter(|j| !squeezed.contains(j)).map(|j| p[j]).collect();
    let order: Vec<i64> = kept.iter().map(|&a| gone.iter().filter(|&&g| g < a).count()).map(|n| n as i64).collect();
    let order: Vec<i64> = kept.iter().zip(order).map(|(&a, n)| a as i64 - n).collect();
    let in_axes: Vec<i64> = gone.iter().map(|&a| a as i64).collect();
    let axes_t = super::edit::constant(
        g,
        id,
        Elem::I64,
        &[in_axes.len()],
        Data::Int(in_axes.iter().map(|&a| Sym::known(a)).collect()),
    );
    let order_t = super::edit::constant(
        g,
        id,
        Elem::I64,
        &[order.len()],
        Data::Int(order.iter().map(|&a| Sym::known(a)).collect()),
    );
    let shape: Vec<Sym> = (0..rank).filter(|a| !gone.contains(a)).map(|a| xs[a]).collect();
    let elem = g.tensors[t].fact.elem;
    g.tensors[t].fact = Fact::new(elem, shape);
    let n = &mut g.nodes[inner];
    n.op = Op::Squeeze;
    n.inputs = vec![Some(x), Some(axes_t)];
    n.input_pos = vec![None, None];
    let n = &mut g.nodes[id];
    n.op = Op::Transpose;
    n.inputs = vec![Some(t), Some(order_t)];
    n.input_pos = vec![None, None];
}

/// `Transpose(Transpose(x, p), q)` → `Transpose(x, p∘q)`; an identity result disappears.
pub(super) fn merge_transposes(g: &mut Graph, id: NodeId) {
    if g.nodes[id].op != Op::Transpose {
        return;
    }
    let Some(Some(mid)) = g.nodes[id].inputs.first().copied() else { return };
    let inner = g.tensors[mid].producer.0;
    if g.nodes[inner].op != Op::Transpose {
        return;
    }
    let (Some(q), Some(p), Some(Some(x))) =
        (g.transpose_perm(id), g.transpose_perm(inner), g.nodes[inner].inputs.first().copied())
    else {
        return;
    };
    let composed: Vec<usize> = q.iter().map(|&a| p[a]).collect();
    if composed.iter().enumerate().all(|(i, &a)| i == a) {
        bypass(g, id, x);
        return;
    }
    let values = Data::Int(composed.iter().map(|&a| Sym::known(a as i64)).collect());
    let fact = Fact::constant(Elem::I64, vec![Sym::known(composed.len() as i64)], values);
    let origin = Origin { name: format!("{}/order", g.nodes[id].origin.name), ..g.nodes[id].origin.clone() };
    let c = g.add(Op::Const { src: None }, origin, Vec::new(), 1);
    let ct = g.nodes[c].outputs[0];
    g.tensors[ct].fact = fact;
    g.nodes[id].inputs = vec![Some(x), Some(ct)];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Binary;
    use crate::vocab::Origin;

    /// `x^e` of x `[2, 3]` (f32), simplified: the op the power became and its inputs.
    fn power(e: Fact) -> (Op, Vec<Option<TensorId>>, TensorId) {
        let k = |v: &[i64]| v.iter().map(|&d| Sym::known(d)).collect::<Vec<_>>();
        let mut g = Graph::new("t.xml", "t");
        let node = |g: &mut Graph, op: Op, ins: &[TensorId], fact: Fact| {
            let origin = Origin { pos: None, name: "n".into(), op: "Test".into() };
            let id = g.add(op, origin, ins.iter().map(|&t| Some(t)).collect(), 1);
            let t = g.nodes[id].outputs[0];
            g.tensors[t].fact = fact;
            t
        };
        let param = Op::Parameter { elem: Elem::F32, shape: Vec::new() };
        let x = node(&mut g, param, &[], Fact::new(Elem::F32, k(&[2, 3])));
        g.params.push(g.tensors[x].producer.0);
        let e = node(&mut g, Op::Const { src: None }, &[], e);
        let y = node(&mut g, Op::Binary(Binary::Power), &[x, e], Fact::new(Elem::F32, k(&[2, 3])));
        let origin = Origin { pos: None, name: "r".into(), op: "Result".into() };
        let r = g.add(Op::Result, origin, vec![Some(y)], 0);
        g.results.push(r);
        g.result_names.push(None);
        simplify(&mut g);
        assert!(g.verify().is_ok());
        let p = &g.nodes[g.tensors[y].producer.0];
        (p.op.clone(), p.inputs.clone(), x)
    }

    #[test]
    fn a_square_is_a_product() {
        let scalar = |v: f64| Fact::constant(Elem::F32, Vec::new(), Data::Float(vec![v]));
        let (op, ins, x) = power(scalar(2.0));
        assert_eq!((op, ins), (Op::Binary(Binary::Multiply), vec![Some(x), Some(x)]));
        // Other exponents, and exponents of more than one value, stay powers.
        assert_eq!(power(scalar(3.0)).0, Op::Binary(Binary::Power));
        assert_eq!(power(scalar(0.5)).0, Op::Binary(Binary::Power));
        let twos = Fact::constant(Elem::F32, vec![Sym::known(2), Sym::known(1)], Data::Float(vec![2.0, 2.0]));
        assert_eq!(power(twos).0, Op::Binary(Binary::Power));
    }

    /// `y = f(x)` over a Parameter `x` of `shape`, as `make` builds it, simplified: the node
    /// giving `y`, and `x`.
    fn simplified(shape: &[usize], make: impl Fn(&mut Graph, TensorId) -> TensorId) -> (crate::graph::Node, TensorId) {
        use crate::graph::build;
        let mut g = Graph::new("t.onnx", "t");
        let x = build::parameter(&mut g, "x", Elem::F32, shape);
        let y = make(&mut g, x);
        build::result(&mut g, y, Some("y"));
        simplify(&mut g);
        assert!(g.verify().is_ok());
        (g.nodes[g.tensors[y].producer.0].clone(), x)
    }

    #[test]
    fn a_max_then_min_of_constant_bounds_is_a_clamp_unless_they_cross() {
        use crate::graph::build;
        for (lo, hi) in [(-0.5, 0.5), (0.5, -0.5)] {
            let (node, x) = simplified(&[2, 3], |g, x| {
                let c = |g: &mut Graph, v: f64| {
                    build::constant(g, build::origin("c", "Const"), Elem::F32, &[], Data::Float(vec![v]))
                };
                let (l, h) = (c(g, lo), c(g, hi));
                let m = build::apply(g, build::origin("m", "Max"), Op::Binary(Binary::Maximum), &[x, l]).expect("max");
                build::apply(g, build::origin("n", "Min"), Op::Binary(Binary::Minimum), &[m, h]).expect("min")
            });
            if lo <= hi {
                assert_eq!(
                    (node.op, node.inputs),
                    (Op::Unary(crate::ops::Unary::Clamp { min: lo, max: hi }), vec![Some(x)])
                );
            } else {
                assert_eq!(node.op, Op::Binary(Binary::Minimum));
            }
        }
    }

    #[test]
    fn a_slice_of_a_slice_over_other_axes_is_one_and_over_the_same_axis_two() {
        use crate::graph::build;
        for (second_axis, merged) in [(1, true), (0, false)] {
            let (node, x) = simplified(&[4, 6], |g, x| {
                let slice = |g: &mut Graph, t: TensorId, start: i64, stop: i64, axis: i64| {
                    let ins = [
                        t,
                        build::ints(g, &[start]),
                        build::ints(g, &[stop]),
                        build::ints(g, &[1]),
                        build::ints(g, &[axis]),
                    ];
                    build::apply(g, build::origin("s", "Slice"), Op::Slice, &ins).expect("slice")
                };
                let inner = slice(g, x, 0, 2, 0);
                slice(g, inner, 1, 3, second_axis)
            });
            assert_eq!(node.op, Op::Slice);
            assert_eq!(node.inputs[0] == Some(x), merged, "second slice over axis {second_axis}");
        }
    }
}
