//! Gathers by constant tables ([`Pick`]) absorb the transposes and reshapes before them
//! where that keeps their reads as local: a convolution's product comes out position by
//! position (channels last) and is transposed back to channels first, which the next
//! convolution's channels-last layout then gathers; that gather can read the product where
//! it is instead, in runs, so neither the transpose nor a value-by-value gather is made.
//! Runs after `lower`, whose gathers it rewrites; a gather is never merged into another
//! (that would undo the runs a channels-last layout gives the windows).
use crate::graph::{Graph, NodeId, Sym, TensorId};
use crate::ops::Op;
use crate::ops::pad::Pick;
use crate::ops::tensor::{strides, unflatten};

/// Rewrites each gather of `g` to read through the transposes and reshapes that only it
/// reads.
pub fn compose(g: &mut Graph) {
    let (order, _) = g.topo_order();
    let mut readers = super::fuse::readers(g);
    for id in order {
        // Each round moves the gather's input one node up the graph: as many rounds as
        // the chain of transposes and reshapes above it is long.
        while let Some((src, pick)) = through(g, &readers, id) {
            let Some(Some(t)) = g.nodes[id].inputs.first().copied() else { break };
            // The node that made `t` has no reader left.
            let (prod, _) = g.tensors[t].producer;
            g.nodes[prod].dead = true;
            readers[t].clear();
            readers[src].retain(|&r| r != prod);
            readers[src].push(id);
            g.nodes[id].op = Op::Pick(Box::new(pick));
            g.nodes[id].inputs[0] = Some(src);
        }
    }
    g.prune();
}

/// When node `id` is a gather whose input only it reads, made by a transpose (keeping the
/// gather's leading axes) or a reshape: that node's input and the gather reading it.
fn through(g: &Graph, readers: &[Vec<NodeId>], id: NodeId) -> Option<(TensorId, Pick)> {
    let Op::Pick(p) = &g.nodes[id].op else { return None };
    let t = (*g.nodes[id].inputs.first()?)?;
    if readers[t][..] != [id] || g.results.iter().any(|&r| g.nodes[r].inputs.contains(&Some(t))) {
        return None;
    }
    let (prod, _) = g.tensors[t].producer;
    let node = &g.nodes[prod];
    let src = (*node.inputs.first()?)?;
    let (outs, ins) = (g.tensors[t].fact.shape.as_deref()?, g.tensors[src].fact.shape.as_deref()?);
    let lead = p.lead;
    if outs.len() < lead
        || ins.len() < lead
        || outs[..lead] != ins[..lead]
        || g.tensors[src].fact.elem != g.tensors[t].fact.elem
    {
        return None;
    }
    let known = |s: &[Sym]| s.iter().map(|d| usize::try_from(d.value()?).ok()).collect::<Option<Vec<usize>>>();
    let (o_ext, i_ext) = (known(&outs[lead..])?, known(&ins[lead..])?);
    let map: Box<dyn Fn(usize) -> usize> = match node.op {
        Op::Reshape { .. } | Op::Squeeze | Op::Unsqueeze => Box::new(|i| i),
        Op::Transpose => {
            let perm = g.input_fact(prod, 1)?.value.as_ref()?.known_ints()?;
            // The leading axes stay where they are; the others' order, counted past them.
            let perm: Vec<usize> = perm.iter().map(|&a| usize::try_from(a).ok()).collect::<Option<_>>()?;
            if perm.len() != outs.len() || (0..lead).any(|a| perm[a] != a) {
                return None;
            }
            let perm: Vec<usize> = perm[lead..].iter().map(|&a| a - lead).collect();
            let in_strides = strides(&i_ext);
            let o_ext = o_ext.clone();
            Box::new(move |i| {
                let mut o = vec![0; o_ext.len()];
                unflatten(i, &o_ext, &mut o);
                o.iter().zip(&perm).map(|(&x, &a)| x * in_strides[a]).sum()
            })
        }
        _ => return None,
    };
    let entry: usize = i_ext.iter().product();
    if entry != p.entry || o_ext.iter().product::<usize>() != entry {
        return None;
    }
    let table: Vec<u32> = p.table.iter().map(|&i| if i == Pick::NONE { i } else { map(i as usize) as u32 }).collect();
    // Only where the gather reads at least as many adjacent values as before: a pool's
    // windows over channels-last values read one value a cache line, and measured slower
    // than the transpose and the gather it saves (AECMOS, 1.36 → 1.53 ms).
    (breaks(&table) <= breaks(&p.table)).then(|| (src, Pick { table, ..(**p).clone() }))
}

/// Places where a table does not go on to the next source value (or from fill to fill).
fn breaks(table: &[u32]) -> usize {
    table
        .windows(2)
        .filter(|w| !(w[0] == Pick::NONE && w[1] == Pick::NONE || w[0].checked_add(1) == Some(w[1])))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Data, Elem, Fact};
    use crate::vocab::Origin;

    fn node(g: &mut Graph, op: Op, ins: &[TensorId], fact: Fact) -> TensorId {
        let origin = Origin { pos: None, name: "n".into(), op: "Test".into() };
        let id = g.add(op, origin, ins.iter().map(|&t| Some(t)).collect(), 1);
        let t = g.nodes[id].outputs[0];
        g.tensors[t].fact = fact;
        t
    }

    /// `x [1, 6, 4]` transposed to `[1, 4, 6]`, then gathered by `table`; the gather's input
    /// and table after the pass.
    fn composed(table: Vec<u32>) -> (bool, Vec<u32>) {
        let k = |v: &[i64]| v.iter().map(|&d| Sym::known(d)).collect::<Vec<_>>();
        let mut g = Graph::new("t.xml", "t");
        let x = node(
            &mut g,
            Op::Parameter { elem: Elem::F32, shape: Vec::new() },
            &[],
            Fact::new(Elem::F32, k(&[1, 6, 4])),
        );
        g.params.push(g.tensors[x].producer.0);
        let perm = Fact::constant(Elem::I64, k(&[3]), Data::Int(k(&[0, 2, 1])));
        let p = node(&mut g, Op::Const { src: None }, &[], perm);
        let t = node(&mut g, Op::Transpose, &[x, p], Fact::new(Elem::F32, k(&[1, 4, 6])));
        let n = table.len() as i64;
        let pick = Pick { lead: 1, shape: vec![table.len()], entry: 24, table, fill: 0.0 };
        let y = node(&mut g, Op::Pick(Box::new(pick)), &[t], Fact::new(Elem::F32, k(&[1, n])));
        let origin = Origin { pos: None, name: "r".into(), op: "Result".into() };
        let r = g.add(Op::Result, origin, vec![Some(y)], 0);
        g.results.push(r);
        g.result_names.push(None);
        compose(&mut g);
        let gather = g.tensors[y].producer.0;
        let Op::Pick(p) = &g.nodes[gather].op else { panic!("a gather") };
        (g.nodes[gather].inputs[0] == Some(x), p.table.clone())
    }

    #[test]
    fn a_gather_reads_through_a_transpose_where_its_reads_stay_adjacent() {
        // Column 1 of the transposed [4, 6] (values 1, 7, 13, 19) is row 1 of x: adjacent
        // there, so the gather reads x (4..8) and the transpose is gone.
        assert_eq!(composed(vec![1, 7, 13, 19]), (true, vec![4, 5, 6, 7]));
        // Row 0 of the transposed tensor is adjacent there and strided in x: left as it is.
        assert_eq!(composed(vec![0, 1, 2, 3, 4, 5]), (false, vec![0, 1, 2, 3, 4, 5]));
    }
}
