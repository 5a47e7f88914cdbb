//! Edits of the graph that the lowering passes share: a node added with its fact inferred,
//! a constant added, a tensor replaced by another; why a lowering declined a node.
use crate::diag::{Fix, Message, Setting};
use crate::graph::build;
use crate::graph::{Data, Elem, Graph, NodeId, Sym, TensorId};
use crate::ops::Op;

/// Why a lowering leaves a node as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Decline {
    /// What the user can change, in the words the checker then reports for the node.
    User(crate::diag::Message),
    /// Reported already: the node's own rule failed when folding (its outputs unknown), or
    /// an input is unknown for a reason reported where it is made.
    Reported,
    /// A step of the lowering itself failed (an op it made does not infer, a shape it made
    /// is not the node's): a bug, which debug builds stop at.
    Internal(String),
}

/// An `Option` turned into a [`Decline`] of each kind.
pub(super) trait OrDecline<T> {
    /// `None` is [`Decline::Reported`].
    fn or_reported(self) -> Result<T, Decline>;
    /// `None` is [`Decline::User`] with `why`.
    fn or_user<M: Into<crate::diag::Message>>(self, why: impl FnOnce() -> M) -> Result<T, Decline>;
    /// `None` is [`Decline::Internal`] with `what`.
    fn or_internal(self, what: &str) -> Result<T, Decline>;
}

impl<T> OrDecline<T> for Option<T> {
    fn or_reported(self) -> Result<T, Decline> {
        self.ok_or(Decline::Reported)
    }
    fn or_user<M: Into<crate::diag::Message>>(self, why: impl FnOnce() -> M) -> Result<T, Decline> {
        self.ok_or_else(|| Decline::User(why().into()))
    }
    fn or_internal(self, what: &str) -> Result<T, Decline> {
        self.ok_or_else(|| Decline::Internal(what.to_owned()))
    }
}

/// Adds a node of one output computed by `op` from `inputs`, with its fact inferred; an op
/// that does not infer is an internal [`Decline`] (the pass made it from facts that did).
pub(super) fn add(g: &mut Graph, like: NodeId, op: Op, inputs: &[TensorId]) -> Result<TensorId, Decline> {
    // (The op's name only on failure: a `Pick`'s Debug prints its whole table.)
    let fact = build::infer_one(g, &op, inputs)
        .map_err(|e| Decline::Internal(format!("a {} it made does not infer: {e}", op_name(&op))))?;
    let origin = g.nodes[like].origin.clone();
    Ok(build::add_inferred(g, origin, op, inputs, fact))
}

/// The kind of `op`, for messages (a `Pick`'s table is not printed).
fn op_name(op: &Op) -> String {
    let s = format!("{op:?}");
    s.split(['(', ' ', '{']).next().unwrap_or_default().to_owned()
}

/// What a lowering gives: the node replaced, or why not.
pub(super) type Lowered = Result<(), Decline>;

/// Makes `out` the tensor `y` was when their shapes agree (else the lowering made something
/// else than the node: a bug).
pub(super) fn take_over(g: &mut Graph, y: TensorId, out: TensorId, gone: &[NodeId]) -> Lowered {
    if g.tensors[out].fact.shape != g.tensors[y].fact.shape {
        return Err(Decline::Internal(format!(
            "its lowering gives shape {:?} for {:?}",
            g.tensors[out].fact.shape, g.tensors[y].fact.shape
        )));
    }
    replace(g, y, out, gone);
    Ok(())
}

/// Why a gather table of `n` values (or more, `None`) is not made.
pub(super) fn table_too_large(what: &str, n: Option<u64>) -> Decline {
    let n = n.map_or_else(|| "more than 2^64".to_owned(), |n| n.to_string());
    let words = format!(
        "{what} would be gathered through a table of {n} values, more than the {} cellc builds at compile time",
        crate::limits::MAX_PICK_TABLE
    );
    let fix =
        Fix::new("cut the model before this layer with", Setting::key("outputs")).then(", or make its input smaller");
    Decline::User(Message::new(words).fix(fix))
}

/// Records why the lowering of node `id` declined, for the checker to report: a user's
/// reason word for word; an internal one as an internal error (debug builds stop there).
pub(super) fn declined(g: &mut Graph, id: NodeId, why: Decline) {
    match why {
        Decline::User(m) => g.nodes[id].declined = Some(m),
        Decline::Reported => {}
        Decline::Internal(what) => {
            debug_assert!(false, "the lowering of layer {:?} failed: {what}", g.nodes[id].origin.name);
            let msg = format!("internal error: cellc could not lower this layer ({what}); please report it");
            g.nodes[id].declined = Some(crate::diag::Message::new(msg).code(crate::diag::Code::Internal));
        }
    }
}

/// Adds a constant.
pub(super) fn constant(g: &mut Graph, like: NodeId, elem: Elem, shape: &[usize], value: Data) -> TensorId {
    let origin = g.nodes[like].origin.clone();
    build::constant(g, origin, elem, shape, value)
}

/// Makes `new` the tensor `old` was: its readers, names and Results move to it; the nodes
/// `gone` are dead.
pub(super) fn replace(g: &mut Graph, old: TensorId, new: TensorId, gone: &[NodeId]) {
    let producer = g.tensors[new].producer;
    g.tensors[new] = crate::graph::Tensor { producer, fact: g.tensors[new].fact.clone(), ..g.tensors[old].clone() };
    g.replace_uses(old, new);
    for &n in gone {
        g.nodes[n].dead = true;
    }
}

/// Integers as a constant of one axis.
pub(super) fn ints(g: &mut Graph, id: NodeId, v: &[i64]) -> TensorId {
    constant(g, id, Elem::I64, &[v.len()], Data::Int(v.iter().map(|&x| Sym::known(x)).collect()))
}

/// Input `i` of node `id`, when connected.
pub(super) fn node_input(g: &Graph, id: NodeId, i: usize) -> Option<TensorId> {
    g.nodes[id].inputs.get(i).copied().flatten()
}

/// `x` (`[N, C, spatial…]`, of `rank` axes) laid out `[N, spatial…, C]`: one transpose.
pub(super) fn to_channels_last(g: &mut Graph, id: NodeId, x: TensorId, rank: usize) -> Result<TensorId, Decline> {
    let perm: Vec<i64> = [0].into_iter().chain(2..rank as i64).chain([1]).collect();
    let p = ints(g, id, &perm);
    add(g, id, Op::Transpose, &[x, p])
}

/// `[N, positions, C]` (channels last, the positions row-major over `output`) laid out
/// `[N, C, output…]`: a reshape to `[N, output…, C]`, then one transpose, which cancels
/// against the next layer's transpose to channels last.
pub(super) fn back_to_channels_first(
    g: &mut Graph,
    id: NodeId,
    t: TensorId,
    (output, c): (&[usize], usize),
) -> Result<TensorId, Decline> {
    let rank = output.len() + 2;
    let mut t = t;
    if output.len() > 1 {
        // The batch as it is (`special_zero`).
        let dims: Vec<Sym> =
            [0].into_iter().chain(output.iter().copied()).chain([c]).map(|d| Sym::known(d as i64)).collect();
        let s = constant(g, id, Elem::I64, &[dims.len()], Data::Int(dims));
        t = add(g, id, Op::Reshape { special_zero: true }, &[t, s])?;
    }
    let first: Vec<i64> = [0, rank as i64 - 1].into_iter().chain(1..rank as i64 - 1).collect();
    let p = ints(g, id, &first);
    add(g, id, Op::Transpose, &[t, p])
}
