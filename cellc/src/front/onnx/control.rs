//! `If`: the node with its condition ([`if_node`]); each branch, read by the builder into a
//! graph of its own (its constants in the model's weights buffer), the values of the graphs
//! around it it reads becoming its Parameters, fed by the `If`'s inputs after the condition
//! ([`give`]). The fold pass takes the branch the condition chooses once it is known.
use super::node::{Node, Scope};
use crate::diag::Diag;
use crate::graph::{Body, Graph, NodeId};
use crate::limits::{MAX_BODY_DEPTH, shown};
use crate::ops::Op;

/// Each branch's role in cellc's graph and its attribute.
pub(super) const BRANCHES: [(&str, &str); 2] = [("then_body", "then_branch"), ("else_body", "else_branch")];

/// An `If` node over its condition, its branches to be read next (when they can be).
pub(super) fn if_node(cx: &mut Node<'_, '_>) {
    let cond = cx.required(0, "cond");
    let mut ok = true;
    for (_, key) in BRANCHES {
        match cx.attrs.graph(key) {
            None => {
                cx.err(format!("attribute `{key}` (a graph) is missing; the op requires it"));
                ok = false;
            }
            Some(g) if !g.input.is_empty() => {
                cx.err(format!("its `{key}` declares {} inputs; an If's branches take none", g.input.len()));
                ok = false;
            }
            Some(g) if g.output.len() != cx.node.output.len() => {
                let (b, n) = (g.output.len(), cx.node.output.len());
                cx.err(format!("its `{key}` has {b} outputs; the If has {n}"));
                ok = false;
            }
            Some(_) => {}
        }
    }
    if cx.b.depth() >= MAX_BODY_DEPTH {
        cx.err(format!("is inside {MAX_BODY_DEPTH} other If branches; cellc reads branches nested up to that depth"));
        ok = false;
    }
    let outs = cx.add(Op::If, &[cond], cx.node.output.len());
    if ok && let Some(&first) = outs.first() {
        cx.b.pending_if = Some(cx.b.g.tensors[first].producer.0);
    }
    cx.bind_all(&outs);
}

/// Gives `If` node `id` its branches as read (role, attribute, graph, the outer values its
/// Parameters stand for): each outer value becomes an input of the node, once.
pub(super) fn give(s: &mut Scope, id: NodeId, read: Vec<(&str, &str, Graph, Vec<String>)>) {
    let mut names: Vec<String> = Vec::new();
    for (role, key, graph, captures) in read {
        let n_out = s.g.nodes[id].outputs.len();
        let mut body =
            Body { role: role.to_owned(), graph, inputs: Vec::new(), outputs: (0..n_out).map(|k| (k, k)).collect() };
        for (p, name) in captures.iter().enumerate() {
            let k = match names.iter().position(|n| n == name) {
                Some(k) => k,
                None => {
                    let t = s.value(name);
                    if t.is_none() {
                        let msg = format!(
                            "its `{key}` reads {}, which no node, graph input or initializer before the If gives",
                            shown(name)
                        );
                        report(s, id, msg);
                    }
                    names.push(name.clone());
                    s.g.nodes[id].inputs.push(t);
                    s.g.nodes[id].input_pos.push(None);
                    names.len() - 1
                }
            };
            body.inputs.push((p, k + 1));
        }
        s.g.nodes[id].bodies.push(body);
    }
}

/// Reports a problem of `If` node `id`.
pub(super) fn report(s: &mut Scope, id: NodeId, msg: String) {
    let o = &s.g.nodes[id].origin;
    let d = Diag::new(crate::diag::Code::Layer, &s.file, o.pos, msg).in_layer(&o.name, &o.op);
    s.diags.push(d);
}
