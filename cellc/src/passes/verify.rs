//! A check of a graph against itself, which debug builds run after every pass
//! ([`crate::pipeline::run_passes`]): every tensor is its producer's output, nothing live
//! reads a tensor of a dead node or one that does not exist, the model's Parameters, Results
//! and sinks are live nodes, and each live op's element types and shapes are what its own
//! rule infers from its inputs. A pass that breaks one of these is a bug, found where it
//! happens rather than as wrong code later.
use crate::graph::{Graph, NodeId};
use crate::ops::Op;

impl Graph {
    /// Every problem of the graph's structure and facts, each naming the node.
    pub fn verify(&self) -> Result<(), Vec<String>> {
        let mut problems = Vec::new();
        for (t, tensor) in self.tensors.iter().enumerate() {
            let (n, k) = tensor.producer;
            if self.nodes.get(n).and_then(|node| node.outputs.get(k)) != Some(&t) {
                problems.push(format!("tensor {t} names output {k} of node {n} as its producer, which is not it"));
            }
        }
        let live = |id: NodeId| self.nodes.get(id).is_some_and(|n| !n.dead);
        for (what, ids) in [("Parameter", &self.params), ("Result", &self.results), ("sink", &self.sinks)] {
            for &id in ids {
                if !live(id) {
                    problems.push(format!("{what} node {id} is not a live node"));
                }
            }
        }
        for (id, node) in self.nodes.iter().enumerate().filter(|(_, n)| !n.dead) {
            let name = &node.origin.name;
            for &t in node.inputs.iter().flatten() {
                match self.tensors.get(t) {
                    None => problems.push(format!("node {id} ({name:?}) reads tensor {t}, which does not exist")),
                    Some(x) if !live(x.producer.0) => problems
                        .push(format!("node {id} ({name:?}) reads tensor {t} of node {}, which is dead", x.producer.0)),
                    Some(_) => {}
                }
            }
            self.facts_agree(id, &mut problems);
        }
        if problems.is_empty() { Ok(()) } else { Err(problems) }
    }

    /// Whether node `id`'s outputs have the element types and shapes its op infers from its
    /// inputs (when it infers: an op whose rule failed was reported by folding).
    fn facts_agree(&self, id: NodeId, problems: &mut Vec<String>) {
        let node = &self.nodes[id];
        if matches!(node.op, Op::Parameter { .. } | Op::Const { .. } | Op::Result | Op::If | Op::Unknown)
            || !node.bodies.is_empty()
        {
            return;
        }
        let ins: Vec<Option<&crate::graph::Fact>> =
            node.inputs.iter().map(|t| t.and_then(|t| self.tensors.get(t)).map(|x| &x.fact)).collect();
        let Ok(inferred) = crate::ops::infer(&node.op, &ins, node.outputs.len()) else { return };
        for (k, (&t, want)) in node.outputs.iter().zip(&inferred).enumerate() {
            // An output of unknown shape was not inferred: folding stops below a node whose
            // rule failed (reported there), and its declared type stays.
            let Some(have) = self.tensors.get(t).map(|x| &x.fact).filter(|f| f.shape.is_some()) else { continue };
            if have.elem != want.elem || (want.shape.is_some() && have.shape != want.shape) {
                problems.push(format!(
                    "node {id} ({:?}, {}) output {k} is {} {:?}; its rule gives {} {:?}",
                    node.origin.name,
                    node.origin.op,
                    have.elem.name(),
                    have.shape,
                    want.elem.name(),
                    want.shape
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::graph::{Elem, Fact, Graph, Sym};
    use crate::ops::{Op, Unary};
    use crate::vocab::Origin;

    fn origin() -> Origin {
        Origin { pos: None, name: "n".into(), op: "Relu".into() }
    }

    #[test]
    fn dangling_reads_and_wrong_facts_are_found() {
        let mut g = Graph::new("t.xml", "t");
        let p = g.add(Op::Parameter { elem: Elem::F32, shape: Vec::new() }, origin(), Vec::new(), 1);
        let x = g.nodes[p].outputs[0];
        g.tensors[x].fact = Fact::new(Elem::F32, vec![Sym::known(2), Sym::known(3)]);
        g.params.push(p);
        let r = g.add(Op::Unary(Unary::Relu), origin(), vec![Some(x)], 1);
        let y = g.nodes[r].outputs[0];
        g.tensors[y].fact = Fact::new(Elem::F32, vec![Sym::known(2), Sym::known(3)]);
        assert_eq!(g.verify(), Ok(()));
        // A shape its rule does not give.
        g.tensors[y].fact = Fact::new(Elem::F32, vec![Sym::known(6)]);
        let err = g.verify().expect_err("a wrong shape").join("\n");
        assert!(err.contains("output 0 is f32") && err.contains("its rule gives"), "{err}");
        // Not inferred (folding stopped above it): its declared type stands, no problem.
        g.tensors[y].fact = Fact { elem: Elem::F16, shape: None, value: None };
        assert_eq!(g.verify(), Ok(()));
        g.tensors[y].fact = Fact::new(Elem::F32, vec![Sym::known(2), Sym::known(3)]);
        // A read of a dead node's tensor, and a dead Parameter.
        g.nodes[p].dead = true;
        let err = g.verify().expect_err("dangling").join("\n");
        assert!(err.contains("which is dead") && err.contains("Parameter node 0 is not a live node"), "{err}");
    }
}
