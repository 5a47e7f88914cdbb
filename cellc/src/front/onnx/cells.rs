//! ONNX's GRU, LSTM and RNN as cellc's Sequence cell: its weights read in ONNX's gate order
//! ([`vocab::Layout::Onnx`]), its data moved between ONNX's layouts and the cell's
//! (`[batch, steps, input]` in, `[batch, directions, steps, hidden]` out), and its optional
//! inputs given their defaults: zero initial states (no lengths: every row runs every step).
use super::node::Node;
use crate::graph::{Elem, TensorId};
use crate::ops::{BroadcastMode, CellAttrs, Op};
use crate::vocab::{self, CellOp, Direction};

/// Which activations take `activation_alpha` and `activation_beta`: onnxruntime gives each
/// activation that takes them the next values of those lists.
fn takes(name: &str) -> (bool, bool) {
    match name.to_ascii_lowercase().as_str() {
        "affine" | "scaledtanh" | "hardsigmoid" => (true, true),
        "leakyrelu" | "thresholdedrelu" | "elu" => (true, false),
        _ => (false, false),
    }
}

/// The activations of the cell: ONNX lists one set per direction, which cellc runs with one
/// set; a bidirectional cell whose two sets differ is refused by the count.
fn activations(
    cx: &mut Node<'_, '_>,
    kind: vocab::CellKind,
    dirs: usize,
) -> Result<Vec<vocab::Activation>, vocab::ActivationError> {
    let names = cx.attrs.strings("activations");
    let alphas = cx.attrs.floats("activation_alpha").unwrap_or_default();
    let betas = cx.attrs.floats("activation_beta").unwrap_or_default();
    let Some(names) = names else { return vocab::resolve_activations(kind, None, &[], &[]) };
    let (mut ai, mut bi) = (alphas.iter(), betas.iter());
    let mut alpha = Vec::new();
    let mut beta = Vec::new();
    for n in &names {
        let (a, b) = takes(n);
        alpha.push(if a { ai.next().copied() } else { None });
        beta.push(if b { bi.next().copied() } else { None });
    }
    vocab::resolve_activations_of(kind, dirs, Some(&names), &alpha, &beta)
}

/// A GRU, LSTM or RNN node.
pub(super) fn cell(cx: &mut Node<'_, '_>, op: &str) {
    let cop = match op {
        "GRU" => CellOp::Gru,
        "LSTM" => CellOp::Lstm,
        _ => CellOp::Rnn,
    };
    let lbr = cop == CellOp::Gru && cx.attrs.int("linear_before_reset").unwrap_or(0) != 0;
    let kind = CellAttrs::kind_of(cop, lbr);
    let direction =
        vocab::resolve_direction(Some(&cx.attrs.string("direction").unwrap_or_else(|| "forward".to_owned())));
    let dirs = if direction == Ok(Direction::Bidirectional) { 2 } else { 1 };
    let activations = activations(cx, kind, dirs);
    let clip = match cx.attrs.float("clip") {
        // ONNX's clip has no "none" value; its absence is none.
        Some(0.0) => Err(vocab::AttrError {
            attr: "clip",
            found: Some("0".to_owned()),
            expected: "a positive number (no `clip` for none)",
        }),
        Some(c) => vocab::resolve_clip(c),
        None => Ok(None),
    };
    let batch_first = cx.attrs.int("layout").unwrap_or(0) != 0;
    let hidden_size = cx.attrs.int("hidden_size");
    if cop == CellOp::Lstm && cx.attrs.int("input_forget").unwrap_or(0) != 0 {
        cx.err("`input_forget` is set (input and forget gates coupled); cellc computes LSTMs with separate gates");
        return;
    }
    let Some(hidden_size) = hidden_size else {
        cx.err("has no `hidden_size` attribute; expected the number of hidden units");
        return;
    };
    let lstm = cop == CellOp::Lstm;
    let (Some(x), Some(w), Some(r)) = (cx.required(0, "X"), cx.required(1, "W"), cx.required(2, "R")) else { return };
    let (b, lens, h0) = (cx.input(3), cx.input(4), cx.input(5));
    let p = if lstm { cx.input(7) } else { None };
    let c0 = if lstm { cx.input(6) } else { None };
    let swap = |cx: &mut Node<'_, '_>, t: TensorId| {
        let p = cx.ints(&[1, 0, 2]);
        cx.one(Op::Transpose, &[t, p])
    };
    // The cell reads [batch, steps, input] and states [batch, directions, hidden].
    let xb = if batch_first { x } else { swap(cx, x) };
    let state = |cx: &mut Node<'_, '_>, s: Option<TensorId>| match s {
        Some(s) if batch_first => s,
        Some(s) => swap(cx, s),
        None => zeros(cx, xb, dirs, hidden_size),
    };
    let h0 = state(cx, h0);
    let c0 = lstm.then(|| state(cx, c0));
    let attrs = CellAttrs {
        op: cop,
        sequence: true,
        direction,
        hidden_size,
        activations,
        clip,
        linear_before_reset: lbr,
        layout: vocab::Layout::Onnx,
        attr_pos: Vec::new(),
    };
    let ins: Vec<Option<TensorId>> = [Some(xb), Some(h0)]
        .into_iter()
        .chain(c0.map(Some))
        .chain([lens, Some(w), Some(r)])
        .chain(match p {
            // B may then be absent (zero): its port stays unconnected.
            Some(_) => vec![b, p],
            None => b.map(Some).into_iter().collect(),
        })
        .collect();
    let outs = cx.add(Op::Cell(Box::new(attrs)), &ins, if lstm { 3 } else { 2 });
    // Y: [batch, dirs, steps, hidden] → [steps, dirs, batch, hidden] or [batch, steps, dirs, hidden].
    if cx.output_used(0) {
        let p = cx.ints(if batch_first { &[0, 2, 1, 3] } else { &[2, 1, 0, 3] });
        let y = cx.one(Op::Transpose, &[outs[0], p]);
        cx.bind(0, y);
    }
    for (k, &o) in outs.iter().enumerate().skip(1) {
        if cx.output_used(k) {
            let s = if batch_first { o } else { swap(cx, o) };
            cx.bind(k, s);
        }
    }
}

/// Zeros of shape `[batch of x, dirs, hidden]`.
fn zeros(cx: &mut Node<'_, '_>, x: TensorId, dirs: usize, hidden: i64) -> TensorId {
    let s = cx.one(Op::ShapeOf { out: Elem::I64 }, &[x]);
    let (at, axis) = (cx.ints(&[0]), cx.int(0));
    let batch = cx.one(Op::Gather { batch_dims: 0 }, &[s, at, axis]);
    let rest = cx.ints(&[dirs as i64, hidden]);
    let shape = cx.one(Op::Concat { axis: 0 }, &[batch, rest]);
    let zero = cx.float(Elem::F32, 0.0);
    cx.one(Op::Broadcast { mode: BroadcastMode::Numpy }, &[zero, shape])
}
