//! What the checking of a graph model shares: the [`Checker`] that collects diagnostics
//! (and marks what an unsupported op taints), the run's [`Mode`], and the helpers its
//! parts use to name and measure tensors in messages.
use crate::diag::{Code, Diag, Diagnostics, Fix, Message, Pos, Setting};
use crate::graph::{Graph, NodeId, Sym, TensorId};
use crate::ir::{Batch, ParamRole};
use crate::limits::{MAX_NAME_BYTES, shown};
use crate::ops::Op;

/// How a run covers the batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Once, over whole tensors.
    Whole,
    /// Once per row of the batch, which is this symbol.
    Rows(u32),
}

/// Collects diagnostics.
pub(super) struct Checker<'g> {
    pub(super) g: &'g Graph,
    pub(super) diags: Vec<Diag>,
    /// Nodes that read, directly or not, an op reported as unsupported: what is wrong with
    /// them follows from it, and is not reported again.
    pub(super) tainted: Vec<bool>,
    /// Whether the passes before reported problems.
    pub(super) reported: bool,
}

impl Checker<'_> {
    /// Reports a problem of kind `code` (unless the message knows its own) with node `id`.
    pub(super) fn err(&mut self, code: Code, id: NodeId, pos: Option<Pos>, msg: impl Into<crate::diag::Message>) {
        let o = &self.g.nodes[id].origin;
        self.diags.push(Diag::new(code, &self.g.file, pos.or(o.pos), msg).in_layer(&o.name, &o.op));
    }

    pub(super) fn finish(mut self) -> Diagnostics {
        self.diags.sort_by_key(|d| d.pos);
        self.diags.dedup();
        Diagnostics(self.diags)
    }

    /// Reports every live op cellc cannot compile.
    pub(super) fn unsupported(&mut self, order: &[NodeId]) {
        for &id in order {
            let node = &self.g.nodes[id];
            let why = match &node.op {
                // The front-end may know what the op is (another runtime's own op).
                Op::Unknown => Some(node.declined.clone().unwrap_or_else(|| {
                    format!("cellc does not compile {} layers yet", crate::limits::cut(&node.origin.op)).into()
                })),
                // With its condition known, folding took the branch or said why not.
                Op::If if self.g.input_fact(id, 0).is_some_and(|f| f.value.is_some()) => None,
                Op::If => Some(unknown_condition(self.g, id)),
                Op::Parametric(p) => Some(
                    format!(
                        "the {} of this {} layer are known only at run time; cellc compiles it with constant ones",
                        p.params(),
                        node.origin.op
                    )
                    .into(),
                ),
                _ => None,
            };
            let upstream = node.inputs.iter().flatten().any(|&t| self.tainted[g_producer(self.g, t)]);
            if let Some(why) = why {
                self.err(Code::Unsupported, id, None, why);
                self.tainted[id] = true;
            }
            self.tainted[id] |= upstream;
        }
    }

    /// Reports every tensor computed at run time that holds no value (a dimension of 0):
    /// generated code would index past it.
    pub(super) fn empty(&mut self, order: &[NodeId]) {
        for &id in order {
            let g = self.g;
            if self.tainted[id] || g.nodes[id].inputs.iter().flatten().any(|&t| self.tainted[g_producer(g, t)]) {
                self.tainted[id] = true;
                continue;
            }
            let empty = g.nodes[id].outputs.iter().map(|&t| &g.tensors[t].fact).find(|f| {
                f.value.is_none() && f.shape.as_ref().is_some_and(|s| s.iter().any(|d| d.value() == Some(0)))
            });
            if let Some(f) = empty {
                let msg = format!(
                    "makes a tensor of shape {}, which holds no value; cellc compiles tensors of at least one value",
                    dims_text(f.shape.as_deref().unwrap_or_default())
                );
                self.err(Code::Declined, id, None, msg);
                self.tainted[id] = true;
            }
        }
    }

    /// Reports variables that would not carry a state as written: an `Assign` that no
    /// `ReadValue` reads, two `Assign`s to one variable, and a stored value whose shape or
    /// type is not the variable's (OpenVINO refuses each).
    pub(super) fn variables(&mut self, order: &[NodeId]) {
        let g = self.g;
        let mut assigned: Vec<(&str, NodeId)> = Vec::new();
        for &id in order {
            let Op::Assign { variable } = &g.nodes[id].op else { continue };
            let reads: Vec<NodeId> = order
                .iter()
                .copied()
                .filter(|&r| matches!(&g.nodes[r].op, Op::ReadValue { variable: v, .. } if v == variable))
                .collect();
            if let Some(&(_, first)) = assigned.iter().find(|(v, _)| v == variable) {
                let msg = format!(
                    "assigns variable {} a second time (layer {} assigns it too); expected one Assign per variable",
                    shown(variable),
                    shown(&g.nodes[first].origin.name)
                );
                self.err(Code::Layer, id, None, msg);
                continue;
            }
            assigned.push((variable, id));
            let Some(&r) = reads.first() else {
                let msg = format!(
                    "assigns variable {}, which no ReadValue reads; expected a ReadValue with the same variable_id",
                    shown(variable)
                );
                self.err(Code::Layer, id, None, msg);
                continue;
            };
            let (Some(value), Op::ReadValue { shape, elem, .. }) = (g.input_fact(id, 0), &g.nodes[r].op) else {
                continue;
            };
            let read = g.nodes[r].outputs.first().map(|&t| &g.tensors[t].fact);
            let check =
                crate::ops::variable_agrees(shape.as_deref(), *elem, value, "the value assigned").and_then(|()| {
                    match read {
                        Some(read)
                            if read.elem != value.elem
                                || shapes_differ(read.shape.as_deref(), value.shape.as_deref()) =>
                        {
                            Err(crate::ops::refuse!(
                                "the ReadValue gives {} of shape {} but the value assigned is {} of shape {}",
                                read.elem.name(),
                                dims_text(read.shape.as_deref().unwrap_or_default()),
                                value.elem.name(),
                                dims_text(value.shape.as_deref().unwrap_or_default())
                            ))
                        }
                        _ => Ok(()),
                    }
                });
            if let Err(why) = check {
                let msg =
                    format!("variable {} (read by layer {}): {why}", shown(variable), shown(&g.nodes[r].origin.name));
                self.err(Code::Layer, id, None, msg);
            }
        }
    }

    /// The run's mode: the batch symbol, if a dimension is dynamic, and the other symbols
    /// taken as the batch too (the first dimension of a Parameter that no op relates to
    /// the batch: every call has one batch); every other dynamic dimension reported as one
    /// to pin.
    pub(super) fn mode(&mut self, order: &[NodeId]) -> Option<(Mode, Vec<u32>)> {
        let g = self.g;
        let live_tensors = || {
            order
                .iter()
                .flat_map(|&id| g.nodes[id].outputs.iter().copied())
                .filter(|&t| g.tensors[t].fact.value.is_none())
        };
        let mut symbols: Vec<u32> = live_tensors()
            .flat_map(|t| {
                g.tensors[t].fact.shape.iter().flatten().filter(|d| !d.is_known()).map(|d| d.s).collect::<Vec<_>>()
            })
            .collect();
        symbols.sort_unstable();
        symbols.dedup();
        if symbols.is_empty() {
            return Some((Mode::Whole, Vec::new()));
        }
        // The batch is what the cells take as theirs; without cells, the only symbol.
        let mut batch: Vec<u32> = order
            .iter()
            .filter(|&&id| matches!(g.nodes[id].op, Op::Cell(_)))
            .filter_map(|&id| g.input_fact(id, 0)?.shape.as_ref()?.first().copied())
            .filter(|d| !d.is_known())
            .map(|d| d.s)
            .collect();
        batch.sort_unstable();
        batch.dedup();
        let has_cells = order.iter().any(|&id| matches!(g.nodes[id].op, Op::Cell(_)));
        let chosen = match (batch.as_slice(), symbols.as_slice()) {
            ([b], _) => Some(*b),
            // Without cells, the one dynamic dimension is the batch.
            ([], [s]) if !has_cells => Some(*s),
            _ => None,
        };
        let also: Vec<u32> = symbols
            .iter()
            .copied()
            .filter(|&s| {
                chosen.is_some() && Some(s) != chosen && !batch.contains(&s) && g.symbols[s as usize].axis == 0
            })
            .collect();
        let mut ok = true;
        for &s in symbols.iter().filter(|&&s| Some(s) != chosen && !also.contains(&s)) {
            ok = false;
            let sym = &g.symbols[s as usize];
            let what = if batch.len() > 1 && batch.contains(&s) {
                "is the batch of some cells while another dimension is the batch of others, and cellc takes one dynamic batch"
            } else if chosen.is_none() && sym.axis == 0 && symbols.len() > 1 {
                // With other dimensions dynamic, where the cells' batch is cannot be told.
                "is dynamic: it may stay so, as the batch, once the model's other dynamic dimensions are fixed, or be fixed too"
            } else {
                "is dynamic and is not the batch, so cellc needs it fixed"
            };
            let hint = g.symbol_param(s).map_or_else(Fix::pin, |p| g.pin_fix(p, sym.axis));
            let msg =
                Message::new(format!("dimension {} of Parameter {} {what}", sym.axis, shown(&sym.param))).fix(hint);
            self.diags.push(Diag::new(crate::diag::Code::Dynamic, &g.file, sym.pos, msg));
        }
        if ok { chosen.map(|s| (Mode::Rows(s), also)) } else { None }
    }
    /// Reports scratch that would make the model value too large.
    pub(super) fn scratch_size(&mut self, m: &crate::ir::Model) {
        let total: u64 = m.slots.iter().map(|&n| n as u64).sum();
        if total > crate::limits::MAX_TENSOR_ELEMENTS
            && let Some(&r) = self.g.results.first()
        {
            let msg = format!(
                "the model needs {total} values of scratch between its steps; cellc keeps at most {}",
                crate::limits::MAX_TENSOR_ELEMENTS
            );
            self.err(Code::Limit, r, None, msg);
        }
    }
}

/// Whether two shapes differ in rank or in a dimension known in both.
pub(super) fn shapes_differ(a: Option<&[Sym]>, b: Option<&[Sym]>) -> bool {
    let (Some(a), Some(b)) = (a, b) else { return false };
    a.len() != b.len() || a.iter().zip(b).any(|(x, y)| x.equals(*y) == Some(false))
}

pub(super) fn g_producer(g: &Graph, t: TensorId) -> NodeId {
    g.tensors[t].producer.0
}

/// The name a Parameter is known by: its tensor's, else its layer's.
pub(super) fn param_name(g: &Graph, p: NodeId) -> String {
    let t = g.nodes[p].outputs[0];
    g.tensors[t].names.first().cloned().unwrap_or_else(|| g.nodes[p].origin.name.clone())
}

/// Whether a name fits generated code (C string literals).
pub(super) fn name_fits(c: &mut Checker<'_>, id: NodeId, name: &str) -> bool {
    if name.len() > MAX_NAME_BYTES {
        let msg = format!(
            "the name {} is {} bytes long; cellc takes names of at most {MAX_NAME_BYTES} bytes (generated C holds them in string literals)",
            shown(name),
            name.len()
        );
        c.err(Code::Limit, id, None, msg);
        return false;
    }
    true
}

/// A dimension for messages.
pub(super) fn dims_text(shape: &[Sym]) -> String {
    crate::ops::tensor::show(shape)
}

/// The role a Parameter plays.
pub(super) fn role_text(r: ParamRole) -> &'static str {
    match r {
        ParamRole::Data => "data",
        ParamRole::Weights => "weights (W, R or B)",
        ParamRole::Lengths => "sequence lengths",
    }
}

/// The model's static batch, for the validated model: 1 in whole mode (one pass).
pub(super) fn batch_of(mode: Mode) -> Batch {
    match mode {
        Mode::Whole => Batch::Static(1),
        Mode::Rows(_) => Batch::Dynamic,
    }
}

/// The tensor feeding input `i` of a node.
pub(super) fn input_tensor(g: &Graph, id: NodeId, i: usize) -> Option<TensorId> {
    g.nodes[id].inputs.get(i).copied().flatten()
}

/// Why the condition of `If` node `id` is not known: the Parameters it depends on, each of
/// which a value pin would fix.
fn unknown_condition(g: &Graph, id: NodeId) -> Message {
    let base = "the condition of this If is not known at compile time; cellc compiles an If only when it can choose the branch";
    let name = |p: NodeId| {
        g.tensors[g.nodes[p].outputs[0]].names.first().cloned().unwrap_or_else(|| g.nodes[p].origin.name.clone())
    };
    let cond = g.nodes[id].inputs.first().copied().flatten();
    let params: Vec<String> = cond.map_or_else(Vec::new, |c| g.params_reaching(c).into_iter().map(name).collect());
    match params.as_slice() {
        [] => base.into(),
        [p] => Message::new(format!("{base}: it depends on Parameter {}", shown(p)))
            .fix(Fix::new("fix its value with", Setting::new("input", format!("{p}=VALUE")))),
        ps => Message::new(format!(
            "{base}: it depends on Parameters {}",
            ps.iter().map(|p| shown(p)).collect::<Vec<_>>().join(", ")
        ))
        .fix(Fix::new("fix their values with", Setting::new("input", "NAME=VALUE"))),
    }
}
