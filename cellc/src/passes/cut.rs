//! Cutting a model (`--inputs`, `--outputs`): the named tensors become the model's Results
//! and new Parameters, and only what lies between them is compiled, so a user can take the
//! recurrent core of a model whose other parts cellc does not compile yet.
use crate::diag::{Diag, Message, Setting};
use crate::graph::{Elem, Graph, NodeId, TensorId};
use crate::ops::Op;
use crate::vocab::{Dim, Origin};

/// The tensor a name stands for: a tensor name (a port's `names`), or a layer name (its
/// first output; for a Result, what it returns).
fn find(g: &Graph, name: &str) -> Option<TensorId> {
    let live = |t: &TensorId| !g.nodes[g.tensors[*t].producer.0].dead;
    if let Some(t) = (0..g.tensors.len()).filter(live).find(|&t| g.tensors[t].names.iter().any(|n| n == name)) {
        return Some(t);
    }
    let node = g.nodes.iter().position(|n| !n.dead && n.origin.name == name)?;
    match g.nodes[node].op {
        Op::Result => g.nodes[node].inputs.first().copied().flatten(),
        _ => g.nodes[node].outputs.first().copied(),
    }
}

/// A few names the model has, for messages.
fn some_names(g: &Graph) -> String {
    let mut names = tensor_names(g);
    names.sort_unstable();
    names.dedup();
    let shown: Vec<String> = names.iter().take(12).map(|n| format!("{n:?}")).collect();
    let more = if names.len() > 12 { format!(" and {} more", names.len() - 12) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// The name of a tensor or a layer that `given` most likely misspells.
fn close_name<'g>(g: &'g Graph, given: &str) -> Option<&'g str> {
    let layers = g.nodes.iter().filter(|n| !n.dead).map(|n| n.origin.name.as_str());
    crate::diag::did_you_mean(given, tensor_names(g).into_iter().chain(layers))
}

/// The names of the live tensors.
fn tensor_names(g: &Graph) -> Vec<&str> {
    g.tensors.iter().filter(|t| !g.nodes[t.producer.0].dead).flat_map(|t| t.names.iter().map(String::as_str)).collect()
}

/// Makes the tensors named by `outputs` the Results (in that order) and those named by
/// `inputs` Parameters (after the model's own that are still needed). Every unknown name is
/// reported.
pub fn cut(g: &mut Graph, inputs: &[String], outputs: &[String]) -> Vec<Diag> {
    let mut diags = Vec::new();
    let mut missing = |key: &'static str, name: &str, g: &Graph| {
        let words = match close_name(g, name) {
            Some(close) => format!("the model has no such tensor or layer (did you mean {close:?}?)"),
            None => format!("the model has no such tensor or layer; its tensors include {}", some_names(g)),
        };
        diags.push(Diag::new(
            crate::diag::Code::Cut,
            &g.file,
            None,
            Message::new(words).about(Setting::new(key, format!("{name:?}"))),
        ));
    };
    let ins: Vec<(String, Option<TensorId>)> = inputs.iter().map(|n| (n.clone(), find(g, n))).collect();
    let outs: Vec<(String, Option<TensorId>)> = outputs.iter().map(|n| (n.clone(), find(g, n))).collect();
    for (n, t) in &ins {
        if t.is_none() {
            missing("inputs", n, g);
        }
    }
    for (n, t) in &outs {
        if t.is_none() {
            missing("outputs", n, g);
        }
    }
    // An ONNX value declares no shape unless `value_info` gives one: an empty declared
    // shape is a scalar only when the value is known to be one.
    let onnx = crate::vocab::Format::of(std::path::Path::new(&g.file)) == crate::vocab::Format::Onnx;
    for (n, t) in &ins {
        let Some(t) = *t else { continue };
        if onnx && g.tensors[t].declared.is_empty() && g.tensors[t].fact.shape.is_none() {
            let msg = Message::new(
                "cellc does not know this value's shape while reading (an op it does not know gives it, and the model's value_info declares none); expected a value whose shape the model declares",
            )
            .about(Setting::new("inputs", format!("{n:?}")));
            diags.push(Diag::new(crate::diag::Code::Cut, &g.file, None, msg));
        }
    }
    if !diags.is_empty() {
        return diags;
    }
    if !outs.is_empty() {
        for &r in &g.results {
            g.nodes[r].dead = true;
        }
        g.results.clear();
        g.result_names.clear();
        for (name, t) in &outs {
            let origin =
                Origin { pos: g.tensors[t.unwrap_or_default()].pos, name: format!("{name}/cut"), op: "Result".into() };
            let r = g.add(Op::Result, origin, vec![*t], 0);
            g.results.push(r);
            g.result_names.push(Some(name.clone()));
        }
    }
    for (name, t) in &ins {
        let Some(t) = *t else { continue };
        let p = parameter(g, name, t);
        let pt = g.nodes[p].outputs[0];
        // Results keep reading the cut tensor's value through the new Parameter.
        g.replace_uses(t, pt);
    }
    // The model's own Parameters no Result needs any more are dropped with the rest.
    let params = std::mem::take(&mut g.params);
    g.prune();
    g.params = params.into_iter().filter(|&p| !g.nodes[p].dead).collect();
    g.cut = true;
    diags
}

/// In a cut model, drops the Parameters nothing reads once the passes have run: those the
/// cut part read only for their shape (a `ShapeOf`, folded to a constant), which the user
/// would otherwise have to pass without their values being read.
pub fn drop_unread(g: &mut Graph) {
    if !g.cut {
        return;
    }
    let mut read = vec![false; g.tensors.len()];
    for n in g.nodes.iter().filter(|n| !n.dead) {
        for &t in n.inputs.iter().flatten() {
            read[t] = true;
        }
    }
    let unread: Vec<NodeId> =
        g.params.iter().copied().filter(|&p| !g.nodes[p].outputs.iter().any(|&t| read[t])).collect();
    for &p in &unread {
        g.nodes[p].dead = true;
    }
    g.params.retain(|p| !unread.contains(p));
}

/// A new Parameter standing for tensor `t`, with the shape declared on its port (dynamic
/// dimensions becoming new symbols) and its element type.
fn parameter(g: &mut Graph, name: &str, t: TensorId) -> NodeId {
    let mut declared = g.tensors[t].declared.clone();
    if declared.is_empty()
        && let Some(shape) = &g.tensors[t].fact.shape
    {
        // A shape known while reading (an ONNX value's): its known extents, the rest dynamic.
        declared = shape.iter().copied().map(Dim::of_sym).collect();
    }
    let elem = g.tensors[t].fact.elem;
    let pos = g.tensors[t].pos;
    let origin = Origin { pos, name: name.to_owned(), op: "Parameter".into() };
    let p = g.add(Op::Parameter { elem, shape: declared.clone() }, origin, Vec::new(), 1);
    let pt = g.nodes[p].outputs[0];
    let shape = g.declare_shape(name, pos, &declared);
    let tensor = &mut g.tensors[pt];
    tensor.fact.elem = if elem == Elem::Bool { Elem::F32 } else { elem };
    tensor.fact.shape = Some(shape);
    tensor.names = vec![name.to_owned()];
    tensor.declared = declared;
    tensor.pos = pos;
    g.params.push(p);
    p
}
