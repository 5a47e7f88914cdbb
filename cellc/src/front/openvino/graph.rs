//! The IR's layers and edges as a [`Graph`]: every layer becomes a node (unknown op types
//! included, so they can be named in errors), every output port a tensor, every edge an
//! input. The bodies of an `If` become graphs inside its node, with their port maps.
use super::ops::Attrs;
use super::xml::{Layer, Net};
use crate::diag::{Diag, Pos};
use crate::graph::{Body, ConstSrc, Elem, Fact, Graph, NodeId, Sym, TensorId};
use crate::limits::shown;
use crate::ops::Op;
use crate::vocab::{self, Origin};
use std::collections::{BTreeMap, HashMap};

fn origin(l: &Layer) -> Origin {
    Origin { pos: l.pos, name: l.name.clone(), op: l.op.clone() }
}

fn names(p: Option<&String>) -> Vec<String> {
    p.map(|n| n.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()).unwrap_or_default()
}

/// Builds the graph of a parsed net (its bodies, at most as deep as the XML reader allows,
/// included). The weights are left empty, for the caller to read what the constants name.
pub(super) fn build(file: &str, net: &Net) -> Result<Graph, Vec<Diag>> {
    let mut diags = Vec::new();
    let g = build_net(file, net, &mut diags, true);
    if diags.is_empty() { Ok(g) } else { Err(diags) }
}

fn build_net(file: &str, net: &Net, diags: &mut Vec<Diag>, top: bool) -> Graph {
    let mut g = Graph::new(file, &net.name);
    let mut node_of: HashMap<u64, NodeId> = HashMap::new();
    for l in &net.layers {
        let id = add_layer(file, &mut g, l, diags);
        if node_of.insert(l.id, id).is_some() {
            let msg = format!("layer id {} is used by another layer too; ids must be unique", l.id);
            diags.push(Diag::new(crate::diag::Code::Malformed, file, l.pos, msg).in_layer(&l.name, &l.op));
        }
    }
    connect(file, &mut g, net, &node_of, diags);
    for (l, id) in net.layers.iter().zip(0..) {
        ports_of_op(&mut g, l, id);
    }
    // Parameters and Results in layer-id order, which is the order OpenVINO gives them.
    let by_id: BTreeMap<u64, NodeId> = node_of.iter().map(|(&k, &v)| (k, v)).collect();
    g.params = by_id.values().copied().filter(|&n| matches!(g.nodes[n].op, Op::Parameter { .. })).collect();
    g.results = by_id.values().copied().filter(|&n| g.nodes[n].op == Op::Result).collect();
    g.sinks = by_id.values().copied().filter(|&n| matches!(g.nodes[n].op, Op::Assign { .. })).collect();
    g.result_names = g
        .results
        .iter()
        .map(|&r| g.nodes[r].inputs.first().copied().flatten().and_then(|t| g.tensors[t].names.first().cloned()))
        .collect();
    if top {
        for p in g.params.clone() {
            let t = g.nodes[p].outputs[0];
            // The layer's `shape` has the bounds of an interval its port writes as `-1`.
            let dims = match &g.nodes[p].op {
                Op::Parameter { shape, .. } if shape.len() == g.tensors[t].declared.len() => shape.clone(),
                _ => g.tensors[t].declared.clone(),
            };
            let name = g.tensors[t].names.first().cloned().unwrap_or_else(|| g.nodes[p].origin.name.clone());
            let pos = g.nodes[p].origin.pos;
            let shape = g.declare_shape(&name, pos, &dims);
            g.tensors[t].fact.shape = Some(shape);
        }
        if g.results.is_empty() && g.sinks.is_empty() {
            diags.push(Diag::new(
                crate::diag::Code::Malformed,
                file,
                None,
                "the model has no Result layer; expected at least one",
            ));
        }
    }
    for (l, id) in net.layers.iter().zip(0..) {
        for (role, body) in &l.bodies {
            let inner = build_net(file, body, diags, false);
            let b = port_map(file, l, role, inner, diags);
            g.nodes[id].bodies.push(b);
        }
    }
    g
}

fn add_layer(file: &str, g: &mut Graph, l: &Layer, diags: &mut Vec<Diag>) -> NodeId {
    // Only a type cellc reads, in a version it implements, is read at all (another stays
    // unknown, named where the graph needs it); its `<data>` is then checked against what its
    // reader asked for, unless reading found a problem (a reader that stops at one leaves
    // the rest unasked).
    let op = if super::known::check(file, l, diags) {
        let before = diags.len();
        let op = read_op(file, l, diags);
        if diags.len() == before && !matches!(op, Op::Unknown) {
            super::known::refuse_unread(file, l, diags);
        }
        op
    } else {
        Op::Unknown
    };
    add_op(file, g, l, op, diags)
}

/// The op of a layer whose type and version cellc reads.
fn read_op(file: &str, l: &Layer, diags: &mut Vec<Diag>) -> Op {
    let mut attrs = Attrs { file, layer: l, diags };
    match l.op.as_str() {
        "Parameter" => {
            let elem = attrs.elem("element_type", Some(Elem::F32));
            let port = l.outputs.first();
            let declared = l.attr("shape").map(|s| shape_attr(file, l, s, diags));
            // A port writes an interval of the `shape` attribute as `-1`: the attribute has
            // its bounds.
            let agree = |p: &[vocab::Dim], d: &[vocab::Dim]| {
                p.len() == d.len()
                    && p.iter()
                        .zip(d)
                        .all(|(p, d)| p == d || (*p == vocab::Dim::Dynamic && matches!(d, vocab::Dim::Interval { .. })))
            };
            let shape = match (port, declared) {
                (Some(p), Some(d)) if !p.dims.is_empty() && !d.is_empty() && agree(&p.dims, &d) => d,
                (Some(p), Some(d)) if !p.dims.is_empty() && !d.is_empty() => {
                    let msg = format!(
                        "`shape` is {} but the output port declares {}; expected the two to agree",
                        vocab::show_dims(&d),
                        vocab::show_dims(&p.dims)
                    );
                    diags.push(
                        Diag::new(crate::diag::Code::Layer, file, l.attr_pos("shape"), msg).in_layer(&l.name, &l.op),
                    );
                    p.dims.clone()
                }
                (Some(p), _) if !p.dims.is_empty() => p.dims.clone(),
                (_, Some(d)) => d,
                _ => Vec::new(),
            };
            Op::Parameter { elem, shape }
        }
        "Const" => {
            let elem = attrs.elem("element_type", None);
            let shape = shape_attr(file, l, l.attr("shape").unwrap_or(""), diags)
                .into_iter()
                .map(|d| match d {
                    vocab::Dim::Static(n) => n,
                    vocab::Dim::Dynamic | vocab::Dim::Interval { .. } => 0,
                })
                .collect();
            let mut attrs = Attrs { file, layer: l, diags };
            let (offset, size) = (attrs.u64("offset"), attrs.u64("size"));
            let attr_pos =
                ["element_type", "offset", "size"].into_iter().filter_map(|k| Some((k, l.attr_pos(k)?))).collect();
            Op::Const { src: Some(Box::new(ConstSrc { elem, shape, offset, size, attr_pos })) }
        }
        _ => attrs.op(),
    }
}

/// Adds the node of layer `l`, of op `op`, with its ports.
fn add_op(file: &str, g: &mut Graph, l: &Layer, op: Op, diags: &mut Vec<Diag>) -> NodeId {
    // A Parameter or a constant is its one output: it has it even when the layer declares
    // no port (which is reported), so every later use of it finds it.
    let outputs = match op {
        Op::Result => 0,
        Op::Parameter { .. } | Op::Const { .. } => {
            if l.outputs.len() != 1 {
                let msg = format!("the layer has {} output ports; expected one", l.outputs.len());
                diags.push(Diag::new(crate::diag::Code::Malformed, file, l.pos, msg).in_layer(&l.name, &l.op));
            }
            1
        }
        _ => l.outputs.len(),
    };
    let id = g.add(op, origin(l), vec![None; l.inputs.len()], outputs);
    g.nodes[id].input_pos = l.inputs.iter().map(|p| p.pos).collect();
    for (k, p) in l.outputs.iter().enumerate().take(outputs) {
        let t: TensorId = g.nodes[id].outputs[k];
        let tensor = &mut g.tensors[t];
        tensor.names = names(p.names.as_ref());
        tensor.declared = p.dims.clone();
        tensor.pos = p.pos;
        tensor.fact.elem = p.precision.as_deref().and_then(Elem::parse).unwrap_or(Elem::F32);
    }
    match &g.nodes[id].op {
        Op::Parameter { elem, shape } => {
            let shape = shape.clone();
            let elem = *elem;
            if let Some(&t) = g.nodes[id].outputs.first() {
                g.tensors[t].fact = Fact { elem, shape: None, value: None };
                if g.tensors[t].declared.is_empty() {
                    g.tensors[t].declared = shape;
                }
            }
        }
        Op::Const { src: Some(src) } => {
            let fact = Fact {
                elem: src.elem,
                shape: Some(src.shape.iter().map(|&n| Sym::known(i64::try_from(n).unwrap_or(i64::MAX))).collect()),
                value: None,
            };
            if let Some(&t) = g.nodes[id].outputs.first() {
                g.tensors[t].fact = fact;
            }
        }
        _ => {}
    }
    id
}

fn shape_attr(file: &str, l: &Layer, s: &str, diags: &mut Vec<Diag>) -> Vec<vocab::Dim> {
    let s = s.trim().trim_start_matches('[').trim_end_matches(']');
    if s.trim().is_empty() {
        return Vec::new();
    }
    let mut dims = Vec::new();
    for part in s.split(',') {
        match super::xml::parse_dim(part) {
            Some(d) => dims.push(d),
            None => {
                let msg = format!("`shape` holds {s:?}; expected sizes separated by commas");
                diags
                    .push(Diag::new(crate::diag::Code::Layer, file, l.attr_pos("shape"), msg).in_layer(&l.name, &l.op));
                return Vec::new();
            }
        }
    }
    dims
}

/// Gives node `id` of layer `l` the input ports of its op, where the layer's differ:
/// `Interpolate`-4 has a port for the sizes and one for the scales, of which its
/// `shape_calculation_mode` reads one; the op has one port for what it reads.
fn ports_of_op(g: &mut Graph, l: &Layer, id: NodeId) {
    use crate::ops::interpolate::{AXES, DATA, TARGET};
    let node = &mut g.nodes[id];
    let Op::Interpolate(it) = &node.op else { return };
    if l.version.as_deref() != Some("opset4") {
        return;
    }
    // Layer ports: data 0, sizes 1, scales 2, axes 3.
    let from = |k: usize| {
        if k == TARGET && !it.by_sizes {
            2
        } else if k == AXES {
            3
        } else {
            k
        }
    };
    let ports = [DATA, TARGET, AXES].map(from);
    let inputs = ports.iter().map(|&k| node.inputs.get(k).copied().flatten()).collect();
    let pos = ports.iter().map(|&k| node.input_pos.get(k).copied().flatten()).collect();
    node.inputs = inputs;
    node.input_pos = pos;
}

/// Connects each input port to the output port its edge comes from, checking that edges
/// name existing layers and ports and that no port has two.
fn connect(file: &str, g: &mut Graph, net: &Net, node_of: &HashMap<u64, NodeId>, diags: &mut Vec<Diag>) {
    let layer: HashMap<u64, &Layer> = net.layers.iter().map(|l| (l.id, l)).collect();
    let mut taken: HashMap<(u64, u64), Option<Pos>> = HashMap::new();
    for e in &net.edges {
        let (Some(&from), Some(&to)) = (layer.get(&e.from.0), layer.get(&e.to.0)) else {
            for (lid, what) in [(e.from.0, "from-layer"), (e.to.0, "to-layer")] {
                if !layer.contains_key(&lid) {
                    diags.push(Diag::new(
                        crate::diag::Code::Malformed,
                        file,
                        e.pos,
                        format!("<edge> {what}=\"{lid}\" names no layer"),
                    ));
                }
            }
            continue;
        };
        let out = from.outputs.iter().position(|p| p.id == e.from.1);
        let inp = to.inputs.iter().position(|p| p.id == e.to.1);
        for (found, l, pid, side, what) in
            [(out.is_some(), from, e.from.1, "output", "from"), (inp.is_some(), to, e.to.1, "input", "to")]
        {
            if !found {
                diags.push(Diag::new(
                    crate::diag::Code::Malformed,
                    file,
                    e.pos,
                    format!(
                        "<edge> {what}-port=\"{pid}\" names no {side} port of layer {} (id {}); expected the id of one of its <{side}> ports",
                        shown(&l.name),
                        l.id
                    ),
                ));
            }
        }
        let (Some(out), Some(inp)) = (out, inp) else { continue };
        if taken.insert(e.to, e.pos).is_some() {
            let msg = format!("port {} of layer id {} has two incoming edges", e.to.1, e.to.0);
            diags.push(Diag::new(crate::diag::Code::Malformed, file, e.pos, msg));
            continue;
        }
        let (Some(&fnode), Some(&tnode)) = (node_of.get(&e.from.0), node_of.get(&e.to.0)) else { continue };
        let Some(&t) = g.nodes[fnode].outputs.get(out) else { continue };
        g.nodes[tnode].inputs[inp] = Some(t);
    }
}

/// The body `role` of layer `l` with its port map (`then_body` ↔ `then_port_map`).
fn port_map(file: &str, l: &Layer, role: &str, graph: Graph, diags: &mut Vec<Diag>) -> Body {
    let map_name = match role {
        "then_body" => "then_port_map",
        "else_body" => "else_port_map",
        _ => "port_map",
    };
    let entries = l.port_maps.iter().find(|(n, _)| n == map_name).map(|(_, m)| &m[..]).unwrap_or(&[]);
    let mut body = Body { role: role.to_owned(), graph, inputs: Vec::new(), outputs: Vec::new() };
    // Body layer ids → nodes: bodies are built in layer order, so node k is layer k.
    let ids: Vec<u64> = l
        .bodies
        .iter()
        .find(|(r, _)| r == role)
        .map(|(_, n)| n.layers.iter().map(|x| x.id).collect())
        .unwrap_or_default();
    for m in entries {
        let node = ids.iter().position(|&i| i == m.internal_layer);
        let ok = if m.input {
            let outer = l.inputs.iter().position(|p| p.id == m.external_port);
            match (node.and_then(|n| body.graph.params.iter().position(|&p| p == n)), outer) {
                (Some(p), Some(o)) => {
                    body.inputs.push((p, o));
                    true
                }
                _ => false,
            }
        } else {
            let outer = l.outputs.iter().position(|p| p.id == m.external_port);
            match (node.and_then(|n| body.graph.results.iter().position(|&r| r == n)), outer) {
                (Some(r), Some(o)) => {
                    body.outputs.push((o, r));
                    true
                }
                _ => false,
            }
        };
        if !ok {
            let what = if m.input { "input port and a Parameter" } else { "output port and a Result" };
            let msg = format!(
                "<{map_name}> maps port {} to body layer {}; expected the ids of an {what} of the body",
                m.external_port, m.internal_layer
            );
            diags.push(Diag::new(crate::diag::Code::Malformed, file, m.pos, msg).in_layer(&l.name, &l.op));
        }
    }
    body
}
