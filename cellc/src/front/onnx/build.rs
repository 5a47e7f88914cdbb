//! An ONNX graph as a [`Graph`]: initializers become constants (their bytes gathered into
//! one weights buffer in memory, external data read by the ranges they name), graph inputs
//! that are not initializers Parameters, each node the ops that compute it in cellc's terms
//! ([`super::ops`]), graph outputs Results. Positions are nodes (their index in the graph).
use super::attrs::NodeAttrs;
use super::control;
use super::node::{Node, Scope, elem_of, type_name};
use super::proto::{GraphProto, NodeProto, ValueInfoProto, type_proto};
use crate::diag::{Diag, Fix, Message, Pos, Setting};
use crate::graph::{Fact, Graph, NodeId};
use crate::limits::{MAX_RANK, shown};
use crate::ops::Op;
use crate::vocab::{self, Origin};
use std::path::Path;

/// The graph being built (with the problems found).
pub(super) struct Builder {
    pub(super) s: Scope,
}

impl Builder {
    pub(super) fn new(file: &str, dir: &Path, name: &str, opset: i64) -> Self {
        Builder { s: Scope::new(file, dir, name, opset) }
    }

    /// The graph built, or the problems found.
    pub(super) fn finish(self) -> Result<Graph, Vec<Diag>> {
        if self.s.diags.is_empty() { Ok(self.s.g) } else { Err(self.s.diags) }
    }

    fn err(&mut self, msg: impl Into<Message>) {
        self.s.diags.push(Diag::new(crate::diag::Code::Malformed, &self.s.file, None, msg));
    }

    pub(super) fn graph(&mut self, gp: &GraphProto) {
        initializers(&mut self.s, gp);
        for v in &gp.input {
            let name = v.name.clone().unwrap_or_default();
            // An initializer that is also an input is a default the caller may override
            // (onnxruntime's rule); cellc compiles it as the constant it is.
            if !self.s.has(&name) {
                self.input(v);
            }
        }
        nodes(&mut self.s, gp, true);
        // The shapes the file declares for the values of ops cellc does not know
        // (`value_info`, the outputs) are what they keep, so that what depends on them alone
        // still folds and a cut around them knows its shapes. (Elsewhere cellc infers them
        // as onnxruntime does, which does not fail on a declaration it contradicts.)
        for v in gp.value_info.iter().chain(&gp.output) {
            let name = v.name.as_deref().unwrap_or_default();
            if let (Some(t), Some(dims)) = (self.s.bound(name), declared_dims(v)) {
                let unknown = self.s.g.nodes[self.s.g.tensors[t].producer.0].op == Op::Unknown;
                let tensor = &mut self.s.g.tensors[t];
                if unknown && tensor.declared.is_empty() && dims.len() <= MAX_RANK {
                    tensor.declared = dims;
                }
            }
        }
        for name in outputs(&mut self.s, gp, 0) {
            self.err(format!("the graph's output {} is computed by no node", shown(&name)));
        }
        if gp.output.is_empty() {
            self.err("the graph has no outputs; expected at least one".to_owned());
        }
        let bytes = std::mem::take(&mut self.s.weights);
        self.s.g.weights = vocab::Weights::whole(&self.s.file, bytes);
    }

    /// A graph input: a Parameter of its declared type and shape.
    fn input(&mut self, v: &ValueInfoProto) {
        let name = v.name.clone().unwrap_or_default();
        let tensor = match v.r#type.as_ref().and_then(|t| t.value.as_ref()) {
            Some(type_proto::Value::TensorType(t)) => t,
            _ => {
                self.err(format!("the graph's input {} is not a tensor; cellc takes tensors only", shown(&name)));
                return;
            }
        };
        let Some(elem) = tensor.elem_type.and_then(elem_of) else {
            let t = type_name(tensor.elem_type.unwrap_or(0));
            self.err(format!("the graph's input {} is of {t}, which cellc does not take", shown(&name)));
            return;
        };
        let Some(shape) = tensor.shape.as_ref() else {
            let msg =
                Message::new(format!("the graph's input {} declares no shape; cellc needs its rank", shown(&name)))
                    .fix(Fix::new(
                        "export it with a shape, or give it with",
                        Setting::new("input", format!("{name}=[…]")),
                    ));
            self.err(msg);
            return;
        };
        let dims = dims_of(shape);
        if dims.len() > MAX_RANK {
            self.err(format!(
                "the graph's input {} has {} dimensions; cellc takes at most {MAX_RANK}",
                shown(&name),
                dims.len()
            ));
            return;
        }
        let origin = Origin { pos: None, name: name.clone(), op: "Parameter".to_owned() };
        let id = self.s.g.add(Op::Parameter { elem, shape: dims.clone() }, origin, Vec::new(), 1);
        let t = self.s.g.nodes[id].outputs[0];
        let syms = self.s.g.declare_shape(&name, None, &dims);
        let tensor = &mut self.s.g.tensors[t];
        tensor.names = vec![name.clone()];
        tensor.declared = dims;
        tensor.fact = Fact { elem, shape: Some(syms), value: None };
        self.s.g.params.push(id);
        self.s.bind(&name, t);
    }
}

/// The dimensions of an ONNX shape: a size, or dynamic (a symbol, or nothing written).
fn dims_of(shape: &super::proto::TensorShapeProto) -> Vec<vocab::Dim> {
    use super::proto::tensor_shape_proto::dimension::Value;
    shape
        .dim
        .iter()
        .map(|d| match d.value {
            Some(Value::DimValue(n)) if n >= 0 => vocab::Dim::Static(n as u64),
            _ => vocab::Dim::Dynamic,
        })
        .collect()
}

/// The dimensions a value's type declares, when it declares a tensor's shape.
fn declared_dims(v: &ValueInfoProto) -> Option<Vec<vocab::Dim>> {
    match v.r#type.as_ref()?.value.as_ref()? {
        type_proto::Value::TensorType(t) => t.shape.as_ref().map(dims_of),
        _ => None,
    }
}

/// The initializers of `gp`: constants whose bytes are appended to the weights buffer.
pub(super) fn initializers(s: &mut Scope, gp: &GraphProto) {
    for t in &gp.initializer {
        let name = t.name.clone().unwrap_or_default();
        let origin = Origin { pos: None, name: name.clone(), op: "initializer".to_owned() };
        match s.constant(t, origin) {
            Ok(id) => {
                s.bind(&name, id);
            }
            Err(e) => s.diags.push(Diag::new(
                crate::diag::Code::Weights,
                &s.file,
                None,
                format!("initializer {}: {e}", shown(&name)),
            )),
        }
    }
    if !gp.sparse_initializer.is_empty() {
        s.diags.push(Diag::new(
            crate::diag::Code::Unsupported,
            &s.file,
            None,
            "the graph has sparse initializers; cellc reads dense ones only",
        ));
    }
}

/// The nodes of `gp` (the model's graph when `top`, else a branch), read in order; an `If`'s
/// branches read right after it, so that they see the values before it and no other.
pub(super) fn nodes(s: &mut Scope, gp: &GraphProto, top: bool) {
    for (k, n) in gp.node.iter().enumerate() {
        let at = top.then(|| u32::try_from(k).unwrap_or(u32::MAX));
        if let Some(id) = node(s, at, n) {
            branches(s, id, n);
        }
    }
}

/// Reads the branches of `If` node `n` (added as node `id`) and gives them to it.
fn branches(s: &mut Scope, id: NodeId, n: &NodeProto) {
    let mut read = Vec::new();
    for (role, key) in control::BRANCHES {
        let Some(gp) = n.attribute.iter().find(|a| a.name.as_deref() == Some(key)).and_then(|a| a.g.as_ref()) else {
            continue;
        };
        s.enter();
        let before = s.diags.len();
        initializers(s, gp);
        nodes(s, gp, false);
        let missing = outputs(s, gp, before);
        let (graph, captures) = s.leave();
        for name in missing {
            control::report(s, id, format!("its `{key}`'s output {} is computed by no node", shown(&name)));
        }
        read.push((role, key, graph, captures));
    }
    control::give(s, id, read);
}

/// The outputs of graph `gp` as Results of the graph being read; the names no node gives,
/// unless a problem was found since `diags[before]` (then their absence followed from it).
fn outputs(s: &mut Scope, gp: &GraphProto, before: usize) -> Vec<String> {
    let mut missing = Vec::new();
    for v in &gp.output {
        let name = v.name.clone().unwrap_or_default();
        match s.value(&name) {
            Some(t) => {
                crate::graph::build::result(&mut s.g, t, Some(&name));
            }
            None => missing.push(name),
        }
    }
    if s.diags.len() > before { Vec::new() } else { missing }
}

/// Node `n` (the model graph's node `at`; `None` inside a branch), read into ops; its
/// problems reported at it. An `If` node is returned, for its branches to be read.
fn node(s: &mut Scope, at: Option<u32>, n: &NodeProto) -> Option<NodeId> {
    let op_type = n.op_type.clone().unwrap_or_default();
    let domain = n.domain.as_deref().filter(|d| !d.is_empty() && *d != "ai.onnx");
    let name = match n.name.as_deref() {
        Some(name) if !name.is_empty() => name.to_owned(),
        _ => n.output.iter().find(|o| !o.is_empty()).cloned().unwrap_or_else(|| match at {
            Some(at) => format!("node {at}"),
            None => format!("a {op_type} node"),
        }),
    };
    let op = match domain {
        Some(d) => format!("{d}.{op_type}"),
        None => op_type.clone(),
    };
    let pos = at.map(Pos::Node);
    let origin = Origin { pos, name, op };
    let mut cx = Node { b: s, node: n, attrs: NodeAttrs::new(n), origin, errors: Vec::new() };
    let known = domain.is_none()
        && (super::ops::translate(&mut cx, &op_type)
            || super::composed::translate(&mut cx, &op_type)
            || super::pure::translate(&mut cx, &op_type)
            || super::quant::translate(&mut cx, &op_type));
    let pending = cx.b.pending_if.take();
    if !known {
        cx.unknown();
        if let (Some(d), Some(t)) = (domain, cx.b.g.nodes.len().checked_sub(1))
            && let Some(why) = super::foreign::refusal(d, &op_type)
        {
            cx.b.g.nodes[t].declined = Some(why);
        }
    } else if cx.errors.is_empty() && cx.attrs.errors.is_empty() {
        for key in cx.attrs.unread() {
            cx.errors.push(format!(
                "attribute `{key}` is not one cellc reads for {op_type} (opset {}); it cannot honour it",
                cx.b.opset
            ));
        }
    }
    let errors: Vec<String> = cx.attrs.errors.drain(..).chain(cx.errors.drain(..)).collect();
    if !errors.is_empty() {
        // The outputs a refused node leaves unnamed stand for what it would give, so that
        // the nodes reading them do not report their absence too (the model is refused).
        let missing: Vec<String> = n.output.iter().filter(|o| !o.is_empty() && !cx.b.has(o)).cloned().collect();
        let stand_in = cx.add(Op::Unknown, &[], missing.len());
        for (name, t) in missing.iter().zip(stand_in) {
            cx.b.bind(name, t);
        }
    }
    let (name, op) = (cx.origin.name.clone(), cx.origin.op.clone());
    for e in errors {
        s.diags.push(Diag::new(crate::diag::Code::Layer, &s.file, pos, e).in_layer(&name, &op));
    }
    pending
}
