//! Shape inference and constant folding: walks the graph in dependency order giving each
//! tensor its element type and shape, and a value when it is computable at compile time
//! (constants read from the weights file, the `ShapeOf → Gather → Concat → Broadcast`
//! family, `Convert`s, constant initial states). An `If` whose condition becomes known is
//! replaced by the branch it takes.
use crate::diag::Diag;
use crate::graph::{ConstSrc, Data, Elem, Fact, Graph, NodeId, Sym};
use crate::ops::{self, Op};
use std::collections::HashMap;

/// Folds `g` in place; returns the problems found (ops whose inputs do not fit them,
/// constants that cannot be read, declared shapes that contradict the inferred ones).
pub fn fold(g: &mut Graph) -> Vec<Diag> {
    let mut diags = Vec::new();
    let mut reported = vec![false; g.nodes.len()];
    let mut budget = Budget { left: crate::limits::MAX_FOLDED_TOTAL, said: false, dynamic: Vec::new() };
    let mut unread = Unread::default();
    loop {
        reported.resize(g.nodes.len(), false);
        unread.tensors.resize(g.tensors.len(), false);
        g.prune();
        let (order, cyclic) = g.topo_order();
        for &id in &cyclic {
            report(
                g,
                &mut diags,
                &mut reported,
                id,
                "the layer depends on its own output (a cycle in <edges>)".to_owned(),
            );
        }
        let mut inlined = false;
        for id in order {
            match &g.nodes[id].op {
                Op::Result => {}
                Op::Parameter { .. } => limits(g, &mut diags, &mut reported, id),
                // An op cellc does not know keeps the shapes its ports declare, when they are
                // static, so what only depends on them (a ShapeOf) still folds.
                Op::Unknown => declared_shapes(g, id),
                Op::Const { src } => {
                    if let Some(src) = src.clone() {
                        load(g, &mut diags, &mut reported, &mut unread, (id, &src));
                    }
                    limits(g, &mut diags, &mut reported, id);
                }
                Op::If => {
                    match if_node(g, id) {
                        Ok(done) => inlined |= done,
                        Err(msg) => report(g, &mut diags, &mut reported, id, msg),
                    }
                    reported.resize(g.nodes.len(), false);
                    unread.tensors.resize(g.tensors.len(), false);
                }
                op => {
                    let op = op.clone();
                    let before = diags.len();
                    infer_node(g, &mut diags, &mut reported, id, &op, &mut budget);
                    if budget.said {
                        // Past the budget nothing more is folded, and the model is refused.
                        return unread.said(diags);
                    }
                    unread.follow(g, &mut diags, before, id);
                }
            }
        }
        if !inlined && !unify(g) {
            break;
        }
    }
    g.prune();
    unread.said(diags)
}

/// The values the weights file could not give, and what follows from them: a layer whose
/// problem is an input left without its value by an unreadable constant is not reported
/// (the constant is: the first error is the cause), and its outputs are unread too. The
/// constants past the end of a short file are said once, at the first.
#[derive(Default)]
struct Unread {
    /// Per tensor: its value is missing because a constant could not be read.
    tensors: Vec<bool>,
    /// The diagnostic of the first constant past the file's end, how many more there are,
    /// and where the last one ends.
    past_end: Option<(usize, usize, u64)>,
    /// Whether the weights file's being unreadable is said.
    file_said: bool,
}

impl Unread {
    /// After layer `id` was inferred (its problems are `diags[before..]`): when an input of
    /// it is unread, its problems follow from that and are dropped, and its outputs
    /// without a value are unread too.
    fn follow(&mut self, g: &Graph, diags: &mut Vec<Diag>, before: usize, id: NodeId) {
        let node = &g.nodes[id];
        if !node.inputs.iter().flatten().any(|&t| self.tensors.get(t).copied().unwrap_or(false)) {
            return;
        }
        diags.truncate(before);
        for &t in &node.outputs {
            if g.tensors[t].fact.value.is_none()
                && let Some(u) = self.tensors.get_mut(t)
            {
                *u = true;
            }
        }
    }

    /// The problems, the first constant past the file's end saying how many follow it.
    fn said(self, mut diags: Vec<Diag>) -> Vec<Diag> {
        if let Some((k, more, end)) = self.past_end
            && more > 0
            && let Some(d) = diags.get_mut(k)
        {
            let (s, lie) = if more == 1 { ("", "lies") } else { ("s", "lie") };
            d.message.push_str(&format!(" ({more} more constant{s} {lie} past its end, up to byte {end})"));
        }
        diags
    }
}

/// Reports a Parameter or a constant past the limits of one tensor.
fn limits(g: &Graph, diags: &mut Vec<Diag>, reported: &mut [bool], id: NodeId) {
    let Some(&t) = g.nodes[id].outputs.first() else { return };
    if let Err(msg) = ops::within_limits(g.tensors[t].fact.shape.as_deref().unwrap_or_default()) {
        report(g, diags, reported, id, msg);
    }
}

fn declared_shapes(g: &mut Graph, id: NodeId) {
    for t in g.nodes[id].outputs.clone() {
        let tensor = &mut g.tensors[t];
        if tensor.fact.shape.is_none() && !tensor.declared.is_empty() {
            tensor.fact.shape = tensor
                .declared
                .iter()
                .map(|d| match d {
                    crate::vocab::Dim::Static(n) => i64::try_from(*n).ok().map(Sym::known),
                    crate::vocab::Dim::Dynamic | crate::vocab::Dim::Interval { .. } => None,
                })
                .collect();
        }
    }
}

/// Whether a dimension is a symbol itself (not a multiple or an offset of one).
fn pure(d: &Sym) -> bool {
    !d.is_known() && d.c == 0 && d.k == 1
}

/// The pairs of symbols an op requires to be equal: the dimensions its inputs broadcast or
/// concatenate along, a cell's batch across `X` and its states.
fn equalities(g: &Graph, id: NodeId) -> Vec<(u32, u32)> {
    let node = &g.nodes[id];
    let shapes: Vec<&[Sym]> =
        node.inputs.iter().map(|t| t.and_then(|t| g.tensors[t].fact.shape.as_deref()).unwrap_or(&[])).collect();
    let mut out = Vec::new();
    let mut pair = |a: &Sym, b: &Sym| {
        if pure(a) && pure(b) && a.s != b.s {
            out.push((a.s, b.s));
        }
    };
    match &node.op {
        Op::Binary(_) | Op::Compare(_) | Op::Select => {
            let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
            for k in 0..rank {
                let dims: Vec<&Sym> = shapes.iter().filter_map(|s| s.get((k + s.len()).checked_sub(rank)?)).collect();
                for w in dims.windows(2) {
                    pair(w[0], w[1]);
                }
            }
        }
        Op::Concat { .. } => {
            for w in shapes.windows(2) {
                for (a, b) in w[0].iter().zip(w[1]) {
                    pair(a, b);
                }
            }
        }
        Op::Cell(c) => {
            let states = if c.op == crate::vocab::CellOp::Lstm { 3 } else { 2 };
            let ports = states + usize::from(c.sequence);
            let firsts: Vec<&Sym> = shapes.iter().take(ports).filter_map(|s| s.first()).collect();
            for w in firsts.windows(2) {
                pair(w[0], w[1]);
            }
        }
        _ => {}
    }
    out
}

/// Gives every group of symbols the graph requires to be equal one symbol, in the
/// Parameters' shapes; `true` when it changed any (the graph is then folded again).
fn unify(g: &mut Graph) -> bool {
    let mut rep: Vec<u32> = (0..g.symbols.len() as u32).collect();
    fn find(rep: &mut [u32], s: u32) -> u32 {
        let mut r = s;
        while rep[r as usize] != r {
            r = rep[r as usize];
        }
        rep[s as usize] = r;
        r
    }
    let mut changed = false;
    let (order, _) = g.topo_order();
    for id in order {
        for (a, b) in equalities(g, id) {
            if (a as usize) >= rep.len() || (b as usize) >= rep.len() {
                continue;
            }
            let (ra, rb) = (find(&mut rep, a), find(&mut rep, b));
            if ra != rb {
                rep[ra.max(rb) as usize] = ra.min(rb);
                changed = true;
            }
        }
    }
    if changed {
        for &p in &g.params.clone() {
            let t = g.nodes[p].outputs[0];
            if let Some(shape) = g.tensors[t].fact.shape.as_mut() {
                for d in shape.iter_mut().filter(|d| !d.is_known()) {
                    d.s = find(&mut rep, d.s);
                }
            }
        }
    }
    changed
}

fn report(g: &Graph, diags: &mut Vec<Diag>, reported: &mut [bool], id: NodeId, msg: impl Into<crate::diag::Message>) {
    if std::mem::replace(&mut reported[id], true) {
        return;
    }
    let o = &g.nodes[id].origin;
    diags.push(Diag::new(crate::diag::Code::Layer, &g.file, o.pos, msg).in_layer(&o.name, &o.op));
}

/// A fact as far as it can decide an output's shape: the values of whole numbers in short
/// lists (shapes, axes, repeats) kept, the rest dropped.
fn shape_deciding(f: &Fact) -> Fact {
    let keep = matches!(&f.value, Some(Data::Int(v)) if v.len() <= SHAPE_VALUES);
    Fact { elem: f.elem, shape: f.shape.clone(), value: if keep { f.value.clone() } else { None } }
}

/// The longest list of whole numbers taken to decide a shape.
const SHAPE_VALUES: usize = 4096;

/// What constant folding may still compute, in values.
struct Budget {
    left: u64,
    said: bool,
    /// The dynamic dimensions already reported as why values are unknown at compile time
    /// (what follows from one is not reported again).
    dynamic: Vec<u32>,
}

fn infer_node(g: &mut Graph, diags: &mut Vec<Diag>, reported: &mut [bool], id: NodeId, op: &Op, budget: &mut Budget) {
    let node = &g.nodes[id];
    let ins: Vec<Option<&Fact>> = node.inputs.iter().map(|t| t.map(|t| &g.tensors[t].fact)).collect();
    // An input whose shape is unknown comes from an op that is reported already.
    if ins.iter().flatten().any(|f| f.shape.is_none()) {
        return;
    }
    // Values already folded in an earlier pass are not counted again.
    let before: u64 =
        node.outputs.iter().filter_map(|&t| g.tensors[t].fact.value.as_ref()).map(|v| v.len() as u64).sum();
    let inputs_known = ins.iter().flatten().all(|f| f.value.is_some()) && !ins.is_empty();
    // What folding would make is known from the shapes before anything is computed: the
    // rule is first run without the values that cannot decide a shape (floats, long lists).
    // A rule that needs more than the probe holds is judged by what it makes below.
    let would: u64 = if inputs_known {
        let probe: Vec<Option<Fact>> = ins.iter().map(|f| f.map(shape_deciding)).collect();
        let probe: Vec<Option<&Fact>> = probe.iter().map(Option::as_ref).collect();
        ops::infer(op, &probe, node.outputs.len()).map_or(0, |facts| {
            facts.iter().map(|f| f.shape.as_deref().and_then(crate::graph::known_len).unwrap_or(0) as u64).sum()
        })
    } else {
        0
    };
    let over = |n: u64, left: u64| n > before && n - before > left;
    let past = |g: &Graph, diags: &mut Vec<Diag>, reported: &mut [bool], budget: &mut Budget| {
        budget.said = true;
        let msg = format!(
            "folding this layer's constant output would take constant folding past {} values in all; cellc refuses a model whose constants need more",
            crate::limits::MAX_FOLDED_TOTAL
        );
        report(g, diags, reported, id, msg);
    };
    if over(would, budget.left) {
        return past(g, diags, reported, budget);
    }
    let facts = match ops::infer(op, &ins, node.outputs.len()) {
        Ok(f) => f,
        // Values left unknown by a dynamic dimension: said once, at the first layer they
        // reach, with the pin to write.
        Err(e @ (ops::OpError::NotConstant { .. } | ops::OpError::Dynamic { .. } | ops::OpError::Unpinned(_))) => {
            let Some(s) = super::cause::dynamic_cause(g, id) else { return report(g, diags, reported, id, e) };
            if budget.dynamic.contains(&s) {
                reported[id] = true;
                return;
            }
            budget.dynamic.push(s);
            let msg = super::cause::pinned_message(g, e.into(), s);
            return report(g, diags, reported, id, msg);
        }
        Err(msg) => return report(g, diags, reported, id, msg),
    };
    let made: u64 = facts.iter().filter_map(|f| f.value.as_ref()).map(|v| v.len() as u64).sum();
    if over(made, budget.left) {
        return past(g, diags, reported, budget);
    }
    budget.left -= made.saturating_sub(before);
    let stored = stored(g, id, op);
    let outputs = g.nodes[id].outputs.clone();
    for (t, f) in outputs.into_iter().zip(facts) {
        if let Some(msg) = contradiction(&g.tensors[t].declared, f.shape.as_deref()) {
            report(g, diags, reported, id, msg);
        }
        let has_value = f.value.is_some();
        g.tensors[t].fact = f;
        g.tensors[t].stored = if has_value { stored } else { None };
    }
}

/// The stored type of what a data-moving op makes of constants read from the weights file:
/// theirs, when all of them share it.
fn stored(g: &Graph, id: NodeId, op: &Op) -> Option<Elem> {
    if !op.moves_data() {
        return None;
    }
    let node = &g.nodes[id];
    let data: Vec<usize> = match op {
        Op::Concat { .. } => node.inputs.iter().flatten().copied().collect(),
        _ => node.inputs.first().copied().flatten().into_iter().collect(),
    };
    let first = g.tensors[*data.first()?].stored?;
    data.iter().all(|&t| g.tensors[t].stored == Some(first)).then_some(first)
}

/// A message when declared dimensions contradict inferred ones.
fn contradiction(declared: &[crate::vocab::Dim], inferred: Option<&[Sym]>) -> Option<String> {
    let inferred = inferred?;
    if declared.is_empty() {
        return None;
    }
    let differs = declared.len() != inferred.len()
        || declared.iter().zip(inferred).any(|(d, i)| i.value().is_some_and(|v| !d.allows(v)));
    differs.then(|| {
        format!(
            "an output port is declared {}, but the op gives {} for these inputs",
            crate::vocab::show_dims(declared),
            crate::ops::tensor::show(inferred)
        )
    })
}

/// Reads a constant's value from the weights file.
fn load(
    g: &mut Graph,
    diags: &mut Vec<Diag>,
    reported: &mut [bool],
    unread: &mut Unread,
    (id, src): (NodeId, &ConstSrc),
) {
    let Some(&t) = g.nodes[id].outputs.first() else { return };
    if g.tensors[t].fact.value.is_some() {
        return;
    }
    match const_value(g, src) {
        Ok(v) => {
            g.tensors[t].fact.value = Some(v);
            g.tensors[t].stored = Some(src.elem);
        }
        Err(e) => {
            if let Some(u) = unread.tensors.get_mut(t) {
                *u = true;
            }
            if std::mem::replace(&mut reported[id], true) {
                return;
            }
            let (key, msg) = match e {
                // An unreadable file is said once, at the first constant that needs it.
                Unreadable::File(_) if unread.file_said => return,
                Unreadable::File(msg) => {
                    unread.file_said = true;
                    ("offset", msg)
                }
                Unreadable::PastEnd { end, msg } => match &mut unread.past_end {
                    Some((_, more, last)) => {
                        *more += 1;
                        *last = (*last).max(end);
                        return;
                    }
                    None => {
                        unread.past_end = Some((diags.len(), 0, end));
                        ("offset", msg)
                    }
                },
                Unreadable::Attr(key, msg) => (key, msg),
            };
            let o = &g.nodes[id].origin;
            let pos = src.attr_pos.iter().find(|(k, _)| *k == key).map(|(_, p)| *p).or(o.pos);
            diags.push(Diag::new(crate::diag::Code::Weights, &g.file, pos, msg).in_layer(&o.name, &o.op));
        }
    }
}

/// Why a constant could not be read.
enum Unreadable {
    /// Its attribute (`size`, `offset`) is wrong, as the message says.
    Attr(&'static str, String),
    /// The weights file could not be read.
    File(String),
    /// Its bytes lie past the end of the file; the last ends at `end`.
    PastEnd { end: u64, msg: String },
}

fn const_value(g: &Graph, src: &ConstSrc) -> Result<Data, Unreadable> {
    let count = crate::limits::product(src.shape.iter().copied()).ok_or_else(|| {
        Unreadable::Attr("size", format!("shape {:?} has more elements than cellc can count", src.shape))
    })?;
    let want = count.checked_mul(src.elem.size());
    // OpenVINO's serializer gives a constant of no values one byte, which holds nothing.
    if count == 0 && src.size <= 1 {
        return Ok(match src.elem.is_float() {
            true => Data::Float(Vec::new()),
            false => Data::Int(Vec::new()),
        });
    }
    if want != Some(src.size) {
        let want = want.map_or_else(|| "more than 2^64".to_owned(), |w| w.to_string());
        let elem = src.elem.name();
        return Err(Unreadable::Attr(
            "size",
            format!("`size` is {} bytes; expected {want} ({count} {elem} elements of shape {:?})", src.size, src.shape),
        ));
    }
    let data = g
        .weights
        .data
        .as_ref()
        .map_err(|e| Unreadable::File(format!("cannot read the weights file {}: {e}", g.weights.path)))?;
    let bytes = data.get(src.offset, src.size).ok_or_else(|| {
        let end = src.offset.checked_add(src.size);
        if end.is_some_and(|e| e <= data.len()) && src.size > crate::limits::MAX_CONSTANT_BYTES {
            let max = crate::limits::MAX_CONSTANT_BYTES;
            return Unreadable::Attr("size", format!("the constant holds {} bytes; cellc reads constants of at most {max} bytes", src.size));
        }
        let msg = format!(
            "bytes {}..{} lie outside the weights file {} ({} bytes); the file is truncated or does not belong to this model",
            src.offset,
            end.map_or_else(|| "(past 2^64)".to_owned(), |e| e.to_string()),
            g.weights.path,
            data.len()
        );
        Unreadable::PastEnd { end: end.unwrap_or(u64::MAX), msg }
    })?;
    Ok(crate::graph::decode_data(src.elem, bytes))
}

/// Replaces an `If` whose condition is known by the branch it takes; `true` when it did.
/// A branch that cannot give one of the outputs (its Result reads nothing) is an error,
/// and the `If` stays.
fn if_node(g: &mut Graph, id: NodeId) -> Result<bool, String> {
    let Some(cond) = g.input_fact(id, 0).and_then(|f| f.value.as_ref()).and_then(Data::floats) else {
        return Ok(false);
    };
    let [c] = cond[..] else {
        return Err(format!("the condition holds {} values; expected one", cond.len()));
    };
    let role = if c != 0.0 { "then_body" } else { "else_body" };
    let Some(body) = g.nodes[id].bodies.iter().find(|b| b.role == role).cloned() else {
        return Err(format!("the condition chooses the {role}, which the layer does not have"));
    };
    let bg = &body.graph;
    for &(o, r) in &body.outputs {
        let connected = bg.results.get(r).and_then(|&rn| bg.nodes[rn].inputs.first().copied().flatten());
        if connected.is_none() || g.nodes[id].outputs.get(o).is_none() {
            return Err(format!(
                "output {o} of the If comes from Result {r} of its {role}, which reads nothing; expected a Result connected to a layer of the body"
            ));
        }
    }
    let mut tmap: HashMap<usize, usize> = HashMap::new();
    for &(p, o) in &body.inputs {
        let (Some(&pn), Some(Some(outer))) = (bg.params.get(p), g.nodes[id].inputs.get(o)) else { continue };
        tmap.insert(bg.nodes[pn].outputs[0], *outer);
    }
    let mut copied = Vec::new();
    for (bid, node) in bg.nodes.iter().enumerate() {
        if node.dead || matches!(node.op, Op::Parameter { .. } | Op::Result) {
            continue;
        }
        let new = g.add(node.op.clone(), node.origin.clone(), Vec::new(), node.outputs.len());
        g.nodes[new].bodies = node.bodies.clone();
        g.nodes[new].input_pos = node.input_pos.clone();
        for (k, &bt) in node.outputs.iter().enumerate() {
            let nt = g.nodes[new].outputs[k];
            let (producer, src) = (g.tensors[nt].producer, &bg.tensors[bt]);
            g.tensors[nt] = crate::graph::Tensor { producer, ..src.clone() };
            tmap.insert(bt, nt);
        }
        copied.push((bid, new));
    }
    for (bid, new) in copied {
        g.nodes[new].inputs = bg.nodes[bid].inputs.iter().map(|t| t.and_then(|t| tmap.get(&t).copied())).collect();
    }
    for &(o, r) in &body.outputs {
        let Some(&rn) = bg.results.get(r) else { continue };
        let Some(Some(inner)) = bg.nodes[rn].inputs.first() else { continue };
        let (Some(&mapped), Some(&old)) = (tmap.get(inner), g.nodes[id].outputs.get(o)) else { continue };
        let names = g.tensors[old].names.clone();
        g.tensors[mapped].names.extend(names);
        g.replace_uses(old, mapped);
    }
    g.nodes[id].dead = true;
    Ok(true)
}
