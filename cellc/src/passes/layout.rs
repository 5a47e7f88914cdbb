//! After lowering, the layout glue it leaves: a convolution or pool reads its input laid
//! out channels last and gives its result back channels first, so two in a row meet as a
//! transpose to channels first and one straight back. Transposes sink below the elementwise
//! ops that read them (a `PRelu` between a convolution and a pool), their constants laid
//! out to match, until they meet the next transpose; two in a row merge, and a pair that
//! cancels disappears. Values stay channels last from one such layer to the next.
use super::edit::{add, constant, replace};
use crate::graph::{Graph, NodeId, Sym, TensorId};
use crate::ops::Op;
use crate::vocab::{Data, Elem, Fact};

/// Sinks and merges the transposes of `g`.
pub fn cancel_transposes(g: &mut Graph) {
    let (order, _) = g.topo_order();
    for id in order {
        if g.nodes[id].dead {
            continue;
        }
        super::simplify::merge_transposes(g, id);
        // Each round moves the transpose below one elementwise op: as many rounds as the
        // chain of them is long.
        let mut t = id;
        while let Some(next) = sink(g, t) {
            t = next;
        }
    }
    g.prune();
}

/// When node `id` is a transpose whose output only an elementwise op reads (its other
/// operands constant, its result of the transpose's shape): that op computed on the
/// transpose's input instead, its constants laid out to match, and the transpose moved
/// after it. Returns the moved transpose.
fn sink(g: &mut Graph, id: NodeId) -> Option<NodeId> {
    if g.nodes[id].dead || g.nodes[id].op != Op::Transpose {
        return None;
    }
    let perm = g.transpose_perm(id)?;
    let (x, t) = ((*g.nodes[id].inputs.first()?)?, *g.nodes[id].outputs.first()?);
    let readers: Vec<NodeId> =
        (0..g.nodes.len()).filter(|&r| !g.nodes[r].dead && g.nodes[r].inputs.contains(&Some(t))).collect();
    let [e] = readers[..] else { return None };
    if g.results.iter().any(|&r| g.nodes[r].inputs.contains(&Some(t))) {
        return None;
    }
    if !matches!(g.nodes[e].op, Op::Unary(_) | Op::Binary(_)) {
        return None;
    }
    let y = *g.nodes[e].outputs.first()?;
    let shape = g.tensors[t].fact.shape.clone()?;
    if g.tensors[y].fact.shape.as_ref() != Some(&shape) {
        return None;
    }
    // The inverse order: the constants, laid out like `t`, are laid out like `x` by it.
    let mut back = vec![0; perm.len()];
    for (i, &a) in perm.iter().enumerate() {
        back[a] = i;
    }
    let mut inputs = Vec::new();
    for i in g.nodes[e].inputs.clone() {
        let i = i?;
        inputs.push(if i == t { x } else { laid_like(g, e, i, &back)? });
    }
    let op = g.nodes[e].op.clone();
    let moved = add(g, e, op, &inputs).ok()?;
    let order =
        constant(g, id, Elem::I64, &[perm.len()], Data::Int(perm.iter().map(|&a| Sym::known(a as i64)).collect()));
    let out = add(g, id, Op::Transpose, &[moved, order]).ok()?;
    if g.tensors[out].fact.shape != g.tensors[y].fact.shape {
        return None;
    }
    replace(g, y, out, &[e, id]);
    Some(g.tensors[out].producer.0)
}

/// The constant `c`, which broadcasts against a tensor of `back.len()` axes, transposed by
/// `back` (its missing leading axes first made of one value each); `None` when it is not
/// a constant of known shape.
fn laid_like(g: &mut Graph, like: NodeId, c: TensorId, back: &[usize]) -> Option<TensorId> {
    let fact = &g.tensors[c].fact;
    let (value, shape) = (fact.value.clone()?, fact.shape.clone()?);
    let lead = back.len().checked_sub(shape.len())?;
    let full: Vec<Sym> = std::iter::repeat_n(Sym::known(1), lead).chain(shape).collect();
    let dims: Vec<usize> = full.iter().map(|d| usize::try_from(d.value()?).ok()).collect::<Option<_>>()?;
    let elem = fact.elem;
    let order = Fact::constant(
        Elem::I64,
        vec![Sym::known(back.len() as i64)],
        Data::Int(back.iter().map(|&a| Sym::known(a as i64)).collect()),
    );
    let data = Fact::constant(elem, full, value);
    let moved = crate::ops::infer(&Op::Transpose, &[Some(&data), Some(&order)], 1).ok()?;
    let value = moved.into_iter().next()?.value?;
    let laid: Vec<usize> = back.iter().map(|&a| dims[a]).collect();
    Some(constant(g, like, elem, &laid, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Binary;
    use crate::vocab::Origin;

    fn node(g: &mut Graph, op: Op, ins: &[TensorId], fact: Fact) -> TensorId {
        let origin = Origin { pos: None, name: "n".into(), op: "Test".into() };
        let id = g.add(op, origin, ins.iter().map(|&t| Some(t)).collect(), 1);
        let t = g.nodes[id].outputs[0];
        g.tensors[t].fact = fact;
        t
    }

    #[test]
    fn a_transpose_sinks_below_a_prelu_and_cancels_the_next() {
        // x [1, 2, 3] laid out [1, 3, 2], a PRelu of one slope per channel (the last axis),
        // and back to [1, 2, 3]: the PRelu reads x, its slope laid out [1, 2, 1].
        let k = |v: &[i64]| v.iter().map(|&d| Sym::known(d)).collect::<Vec<_>>();
        let mut g = Graph::new("t.xml", "t");
        let param = Op::Parameter { elem: Elem::F32, shape: Vec::new() };
        let x = node(&mut g, param, &[], Fact::new(Elem::F32, k(&[1, 2, 3])));
        g.params.push(g.tensors[x].producer.0);
        let perm = || Fact::constant(Elem::I64, k(&[3]), Data::Int(k(&[0, 2, 1])));
        let p = node(&mut g, Op::Const { src: None }, &[], perm());
        let t = node(&mut g, Op::Transpose, &[x, p], Fact::new(Elem::F32, k(&[1, 3, 2])));
        let slope = Fact::constant(Elem::F32, k(&[2]), Data::Float(vec![0.5, 0.25]));
        let s = node(&mut g, Op::Const { src: None }, &[], slope);
        let e = node(&mut g, Op::Binary(Binary::PRelu), &[t, s], Fact::new(Elem::F32, k(&[1, 3, 2])));
        let q = node(&mut g, Op::Const { src: None }, &[], perm());
        let y = node(&mut g, Op::Transpose, &[e, q], Fact::new(Elem::F32, k(&[1, 2, 3])));
        let origin = Origin { pos: None, name: "r".into(), op: "Result".into() };
        let r = g.add(Op::Result, origin, vec![Some(y)], 0);
        g.results.push(r);
        g.result_names.push(None);
        cancel_transposes(&mut g);
        assert!(g.verify().is_ok());
        assert!(!g.nodes.iter().any(|n| !n.dead && n.op == Op::Transpose), "every transpose gone");
        let Some(Some(out)) = g.nodes[r].inputs.first().copied() else { panic!("a result") };
        let prelu = &g.nodes[g.tensors[out].producer.0];
        assert_eq!(prelu.op, Op::Binary(Binary::PRelu));
        assert_eq!(prelu.inputs[0], Some(x));
        let laid = &g.tensors[prelu.inputs[1].expect("a slope")].fact;
        assert_eq!(laid.shape.as_deref(), Some(&k(&[1, 2, 1])[..]));
        assert_eq!(laid.value, Some(Data::Float(vec![0.5, 0.25])));
    }

    #[test]
    fn a_constant_of_every_axis_is_transposed_with_it() {
        // x [2, 3] laid out [3, 2] and multiplied by a [3, 2] constant: the product reads
        // x and that constant transposed, then is transposed itself (nothing follows).
        let k = |v: &[i64]| v.iter().map(|&d| Sym::known(d)).collect::<Vec<_>>();
        let mut g = Graph::new("t.xml", "t");
        let param = Op::Parameter { elem: Elem::F32, shape: Vec::new() };
        let x = node(&mut g, param, &[], Fact::new(Elem::F32, k(&[2, 3])));
        g.params.push(g.tensors[x].producer.0);
        let perm = Fact::constant(Elem::I64, k(&[2]), Data::Int(k(&[1, 0])));
        let p = node(&mut g, Op::Const { src: None }, &[], perm);
        let t = node(&mut g, Op::Transpose, &[x, p], Fact::new(Elem::F32, k(&[3, 2])));
        let c = Fact::constant(Elem::F32, k(&[3, 2]), Data::Float(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
        let c = node(&mut g, Op::Const { src: None }, &[], c);
        let y = node(&mut g, Op::Binary(Binary::Multiply), &[c, t], Fact::new(Elem::F32, k(&[3, 2])));
        let origin = Origin { pos: None, name: "r".into(), op: "Result".into() };
        let r = g.add(Op::Result, origin, vec![Some(y)], 0);
        g.results.push(r);
        g.result_names.push(None);
        cancel_transposes(&mut g);
        assert!(g.verify().is_ok());
        let Some(Some(out)) = g.nodes[r].inputs.first().copied() else { panic!("a result") };
        let last = &g.nodes[g.tensors[out].producer.0];
        assert_eq!(last.op, Op::Transpose);
        let Some(Some(prod)) = last.inputs.first().copied() else { panic!("an input") };
        let mul = &g.nodes[g.tensors[prod].producer.0];
        assert_eq!(mul.inputs[1], Some(x));
        let laid = &g.tensors[mul.inputs[0].expect("a constant")].fact;
        assert_eq!(laid.shape.as_deref(), Some(&k(&[2, 3])[..]));
        assert_eq!(laid.value, Some(Data::Float(vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.0])));
    }
}
