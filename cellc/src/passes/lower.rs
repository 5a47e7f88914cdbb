//! Lowering of the window ops onto the kernels the planner has: a convolution by constant
//! weights onto dense layers over its windows (`passes/conv.rs`), a pool onto reductions of
//! its windows read in place (or gathered through a [`Pick`] table), a `Pad` onto a
//! [`Pick`], a normalisation onto reductions and elementwise ops, an `Einsum` onto one
//! matrix product, a scatter onto a gather, a product by a constant on its left onto one by
//! it on the right (`passes/products.rs`). Runs after folding, so what is constant has
//! been computed already.
use super::edit::{
    Decline, Lowered, OrDecline, add, back_to_channels_first, constant, declined, ints, node_input, table_too_large,
    take_over, to_channels_last,
};
use crate::diag::{Fix, Message};
use crate::graph::{Data, Elem, Fact, Graph, NodeId, Sym, TensorId};
use crate::ops::norm::{EpsMode, Norm, batch_scale_shift};
use crate::ops::pad::{PadMode, Pick, pad_table};
use crate::ops::pool::{PoolAttrs, PoolKind};
use crate::ops::{Binary, Op, ReduceKind};

/// Lowers the convolutions and pads of `g` in place. A node left as it is (weights known
/// only at run time, a table past the limits) holds why (`Node::declined`), which the
/// checker reports.
pub fn lower(g: &mut Graph) {
    let (order, _) = g.topo_order();
    let readers = super::fuse::readers(g);
    for id in order {
        // A node whose values are known is folded; one whose shape is not failed its own
        // rule, which folding reported.
        let outputs = &g.nodes[id].outputs;
        if g.nodes[id].dead
            || outputs.iter().any(|&t| g.tensors[t].fact.value.is_some())
            || outputs.first().is_some_and(|&t| g.tensors[t].fact.shape.is_none())
        {
            continue;
        }
        let lowered = match g.nodes[id].op.clone() {
            Op::Conv(a) => super::conv::conv(g, id, &a, &readers),
            Op::Pad(mode) => pad(g, id, mode),
            Op::Pool(a) => pool(g, id, &a, &readers),
            Op::Norm(n) => norm(g, id, n),
            Op::Einsum(eq) => einsum(g, id, &eq),
            Op::Scatter(kind) => scatter(g, id, kind),
            Op::Interpolate(it) => super::resize::interpolate(g, id, &it),
            // Ops the checker's step rules compile as they are (or plan with the cells).
            Op::Parameter { .. }
            | Op::Const { .. }
            | Op::Result
            | Op::Convert { .. }
            | Op::ConvertLike
            | Op::Identity
            | Op::ShapeOf { .. }
            | Op::Reshape { .. }
            | Op::Squeeze
            | Op::Unsqueeze
            | Op::Transpose
            | Op::Concat { .. }
            | Op::Gather { .. }
            | Op::Slice
            | Op::StridedSlice(_)
            | Op::Split { .. }
            | Op::VariadicSplit
            | Op::Broadcast { .. }
            | Op::Tile
            | Op::Unary(_)
            | Op::Parametric(_)
            | Op::Binary(_)
            | Op::Chain(_)
            | Op::Compare(_)
            | Op::Select
            | Op::MatMul { .. }
            | Op::Dense { .. }
            | Op::Pick(_)
            | Op::Windows(_)
            | Op::PoolWindows { .. }
            | Op::Softmax { .. }
            | Op::Reduce { .. }
            | Op::Range { .. }
            | Op::Pure(_)
            | Op::If
            | Op::ReadValue { .. }
            | Op::Assign { .. }
            | Op::Cell(_)
            | Op::Unknown => Ok(()),
        };
        if let Err(why) = lowered {
            declined(g, id, why);
        }
    }
    super::products::left_constants(g);
    g.prune();
}

/// A pool: its windows gathered (`[N, C, positions…, taps]`), reduced over the taps, and
/// for an average divided by each position's count. A `MaxPool` whose indices are read is
/// left for the checker to refuse.
fn pool(g: &mut Graph, id: NodeId, a: &PoolAttrs, readers: &[Vec<NodeId>]) -> Lowered {
    let node = &g.nodes[id];
    let (Some(Some(x)), Some(&y)) = (node.inputs.first(), node.outputs.first()) else { return Err(Decline::Reported) };
    if node.outputs.get(1).is_some_and(|&t| readers[t].iter().any(|&r| !g.nodes[r].dead)) {
        let op = &node.origin.op;
        return Err(Decline::User(format!("cellc compiles {op} layers with indices that nothing reads").into()));
    }
    let x = *x;
    let xs = g.tensors[x].fact.shape.clone().or_reported()?;
    let geo = a.geometry(&xs).map_err(|_| Decline::Reported)?;
    if let Some(w) = super::conv::windows_of(&geo) {
        return pool_in_place(g, id, (x, y), a.kind, (&geo, w));
    }
    let taps: usize = geo.kernel.iter().product();
    let positions = geo.output.iter().product::<usize>();
    let table_len = crate::limits::product([geo.ci as u64, positions as u64, taps as u64]);
    if table_len.is_none_or(|n| n > crate::limits::MAX_PICK_TABLE) {
        return Err(table_too_large(
            &format!("its windows ({} channels × {positions} positions × {taps} taps)", geo.ci),
            table_len,
        ));
    }
    let mut shape = vec![geo.ci];
    shape.extend(&geo.output);
    shape.push(taps);
    let (reduce, fill) = match a.kind {
        // OpenVINO starts a maximum from the lowest float: a window of padding alone gives it.
        PoolKind::Max => (ReduceKind::Max, f64::from(f32::MIN)),
        PoolKind::Avg { .. } => (ReduceKind::Sum, 0.0),
    };
    let entry = geo.ci * geo.input.iter().product::<usize>();
    let pick = Pick { lead: 1, shape, entry, table: geo.pool_windows(), fill };
    let windows = add(g, id, Op::Pick(Box::new(pick)), &[x])?;
    let last = constant(g, id, Elem::I64, &[1], Data::Int(vec![Sym::known(-1)]));
    let mut out = add(g, id, Op::Reduce { kind: reduce, keep_dims: false }, &[windows, last])?;
    if a.kind == PoolKind::Max {
        // OpenVINO's maximum starts from the lowest float, so a window of -inf (padding or
        // not) gives the lowest float too, as folding computes it: the reduction starts
        // from -inf, then the lowest float is the floor.
        let elem = g.tensors[x].fact.elem;
        let lowest = constant(g, id, elem, &[], Data::Float(vec![f64::from(f32::MIN)]));
        out = add(g, id, Op::Binary(Binary::Maximum), &[out, lowest])?;
    }
    if let PoolKind::Avg { exclude_pad } = a.kind {
        let elem = g.tensors[x].fact.elem;
        let counts = constant(g, id, elem, &geo.output, Data::Float(geo.divisors(exclude_pad)));
        out = add(g, id, Op::Binary(Binary::Divide { python: false }), &[out, counts])?;
    }
    take_over(g, y, out, &[id])
}

/// A pool over one or two spatial axes, its windows read in place: the input laid out
/// channels last, each channel reduced over its window alone (an average then divided by
/// each position's count), and the result laid out channels first again. The transposes
/// cancel against a neighbouring convolution's or pool's once lowering is done.
fn pool_in_place(
    g: &mut Graph,
    id: NodeId,
    (x, y): (TensorId, TensorId),
    kind: PoolKind,
    (geo, w): (&crate::ops::conv::ConvGeometry, crate::vocab::Windows),
) -> Lowered {
    let laid = to_channels_last(g, id, x, geo.input.len() + 2)?;
    let pooling = match kind {
        PoolKind::Max => crate::vocab::Pooling::Max,
        PoolKind::Avg { .. } => crate::vocab::Pooling::Sum,
    };
    let positions = w.positions();
    let mut out = add(g, id, Op::PoolWindows { win: Box::new(w), kind: pooling }, &[laid])?;
    if let PoolKind::Avg { exclude_pad } = kind {
        let elem = g.tensors[x].fact.elem;
        let counts = constant(g, id, elem, &[positions, 1], Data::Float(geo.divisors(exclude_pad)));
        out = add(g, id, Op::Binary(Binary::Divide { python: false }), &[out, counts])?;
    }
    out = back_to_channels_first(g, id, out, (&geo.output, geo.ci))?;
    take_over(g, y, out, &[id])
}

/// A normalisation as reductions and elementwise ops (which the fuse pass joins into
/// chains): `MVN` and `NormalizeL2` over their axes; `BatchNormInference` as a per-channel
/// scale and shift computed at compile time.
fn norm(g: &mut Graph, id: NodeId, n: Norm) -> Lowered {
    let node = &g.nodes[id];
    let op = node.origin.op.clone();
    let (Some(Some(x)), Some(&y)) = (node.inputs.first(), node.outputs.first()) else { return Err(Decline::Reported) };
    let x = *x;
    let elem = g.tensors[x].fact.elem;
    let rank = g.tensors[x].fact.shape.as_ref().map(Vec::len).or_reported()?;
    let axes_at = |g: &Graph| {
        node_input(g, id, 1)
            .filter(|&t| g.tensors[t].fact.value.is_some())
            .or_user(|| format!("cellc compiles {op} layers with axes known at compile time"))
    };
    let scalar = |g: &mut Graph, v: f64| constant(g, id, elem, &[], Data::Float(vec![elem.round(v)]));
    let bin = |g: &mut Graph, b: Binary, l: TensorId, r: TensorId| add(g, id, Op::Binary(b), &[l, r]);
    let out = (|| match n {
        Norm::Mvn(a) => {
            let axes = axes_at(g)?;
            let mean = add(g, id, Op::Reduce { kind: ReduceKind::Mean, keep_dims: true }, &[x, axes])?;
            let d = bin(g, Binary::Subtract, x, mean)?;
            if !a.normalize_variance {
                return Ok(d);
            }
            let sq = bin(g, Binary::Multiply, d, d)?;
            let var = add(g, id, Op::Reduce { kind: ReduceKind::Mean, keep_dims: true }, &[sq, axes])?;
            let eps = scalar(g, a.eps);
            let s = if a.inside {
                let v = bin(g, Binary::Add, var, eps)?;
                add(g, id, Op::Unary(crate::ops::Unary::Sqrt), &[v])?
            } else {
                let r = add(g, id, Op::Unary(crate::ops::Unary::Sqrt), &[var])?;
                bin(g, Binary::Add, r, eps)?
            };
            bin(g, Binary::Divide { python: false }, d, s)
        }
        Norm::L2 { eps, mode } => {
            let axes = axes_at(g)?;
            let sq = bin(g, Binary::Multiply, x, x)?;
            let ss = add(g, id, Op::Reduce { kind: ReduceKind::Sum, keep_dims: true }, &[sq, axes])?;
            let e = scalar(g, eps);
            let t = bin(g, if mode == EpsMode::Max { Binary::Maximum } else { Binary::Add }, ss, e)?;
            let s = add(g, id, Op::Unary(crate::ops::Unary::Sqrt), &[t])?;
            bin(g, Binary::Divide { python: false }, x, s)
        }
        Norm::Batch { eps } => {
            let p: Vec<Vec<f64>> = (1..5)
                .map(|i| g.input_fact(id, i).and_then(|f| f.value.as_ref()?.floats()))
                .collect::<Option<_>>()
                .or_user(|| {
                    format!("cellc compiles {op} layers with gamma, beta, mean and variance known at compile time")
                })?;
            let (scale, shift) = batch_scale_shift(eps, &p[0], &p[1], &p[2], &p[3]);
            let mut shape = vec![scale.len()];
            shape.resize(rank.checked_sub(1).or_reported()?, 1);
            let round = |v: Vec<f64>| Data::Float(v.into_iter().map(|x| elem.round(x)).collect());
            let (sc, sh) = (constant(g, id, elem, &shape, round(scale)), constant(g, id, elem, &shape, round(shift)));
            let m = bin(g, Binary::Multiply, x, sc)?;
            bin(g, Binary::Add, m, sh)
        }
    })()?;
    take_over(g, y, out, &[id])
}

/// `t` (subscripts `have`) with the subscripts in `drop` summed out and the rest put in the
/// order of `want`; returns the tensor and its subscripts.
fn arrange(
    g: &mut Graph,
    id: NodeId,
    t: TensorId,
    have: &[char],
    drop: &[char],
    want: &[char],
) -> Result<TensorId, Decline> {
    let mut t = t;
    let kept: Vec<char> = have.iter().copied().filter(|c| !drop.contains(c)).collect();
    if kept.len() < have.len() {
        let axes: Vec<i64> = (0..have.len()).filter(|&k| drop.contains(&have[k])).map(|k| k as i64).collect();
        let a = ints(g, id, &axes);
        t = add(g, id, Op::Reduce { kind: ReduceKind::Sum, keep_dims: false }, &[t, a])?;
    }
    let perm: Vec<i64> = want
        .iter()
        .map(|c| kept.iter().position(|k| k == c).map(|p| p as i64))
        .collect::<Option<_>>()
        .or_internal("a subscript of the output is in no operand")?;
    if perm.iter().enumerate().any(|(k, &p)| p != k as i64) {
        let p = ints(g, id, &perm);
        t = add(g, id, Op::Transpose, &[t, p])?;
    }
    Ok(t)
}

/// An `Einsum` as sums, transposes, reshapes and one matrix product: the subscripts shared
/// by both operands and the output are the product's batch, those shared by the operands
/// alone its contraction; a subscript of one operand alone is summed out first.
fn einsum(g: &mut Graph, id: NodeId, eq: &crate::ops::einsum::Equation) -> Lowered {
    let node = &g.nodes[id];
    let op = node.origin.op.clone();
    let &y = node.outputs.first().or_reported()?;
    let ins = node.inputs.iter().copied().collect::<Option<Vec<TensorId>>>().or_reported()?;
    let out = &eq.output;
    // An operand that repeats a subscript (a diagonal, or with the letter summed out, a
    // trace) is read along its diagonal first: then every operand names each letter once.
    let (mut ins, mut subs) = (ins, eq.inputs.clone());
    for (t, s) in ins.iter_mut().zip(&mut subs) {
        (*t, *s) = diagonal(g, id, *t, s, &op)?;
    }
    let result = (|| {
        if let ([a], [t]) = (&subs[..], &ins[..]) {
            let drop: Vec<char> = a.iter().copied().filter(|c| !out.contains(c)).collect();
            return arrange(g, id, *t, a, &drop, out);
        }
        let ([a, b], [ta, tb]) = (&subs[..], &ins[..]) else { return Err(Decline::Reported) };
        let sizes = {
            let shapes: Vec<&[Sym]> =
                [*ta, *tb].iter().map(|&t| g.tensors[t].fact.shape.as_deref()).collect::<Option<_>>().or_reported()?;
            eq.sizes(&shapes).map_err(|_| Decline::Reported)?
        };
        // Constant weights go second, where the product of each group is a dense layer.
        let known = |t: &TensorId| g.tensors[*t].fact.value.is_some();
        let ((a, b), (ta, tb)) = if known(ta) && !known(tb) { ((b, a), (tb, ta)) } else { ((a, b), (ta, tb)) };
        let in_a = |c: &char| a.contains(c);
        let in_b = |c: &char| b.contains(c);
        let batch: Vec<char> = out.iter().copied().filter(|c| in_a(c) && in_b(c)).collect();
        let contract: Vec<char> = a.iter().copied().filter(|c| in_b(c) && !out.contains(c)).collect();
        let a_free: Vec<char> = out.iter().copied().filter(|c| in_a(c) && !in_b(c)).collect();
        let b_free: Vec<char> = out.iter().copied().filter(|c| in_b(c) && !in_a(c)).collect();
        let a_sum: Vec<char> = a.iter().copied().filter(|c| !in_b(c) && !out.contains(c)).collect();
        let b_sum: Vec<char> = b.iter().copied().filter(|c| !in_a(c) && !out.contains(c)).collect();
        let size = |c: &char| sizes.iter().find(|(l, _)| l == c).map(|(_, s)| *s);
        let known = |cs: &[char]| cs.iter().try_fold(1i64, |acc, c| acc.checked_mul(size(c)?.value()?));
        let unknown = || {
            Message::new(format!(
                "cellc compiles {op} layers with the sizes of every subscript but the batch's known at compile time"
            ))
            .fix(Fix::pin())
        };
        let (m, k, n) =
            (known(&a_free).or_user(unknown)?, known(&contract).or_user(unknown)?, known(&b_free).or_user(unknown)?);
        let order_a: Vec<char> = [&batch[..], &a_free, &contract].concat();
        let order_b: Vec<char> = [&batch[..], &contract, &b_free].concat();
        let xa = arrange(g, id, *ta, a, &a_sum, &order_a)?;
        let xb = arrange(g, id, *tb, b, &b_sum, &order_b)?;
        // Batch axes kept by position (0 copies the dimension, a dynamic one included).
        let lead: Vec<i64> = vec![0; batch.len()];
        let sa = ints(g, id, &[&lead[..], &[m, k]].concat());
        let sb = ints(g, id, &[&lead[..], &[k, n]].concat());
        let ra = add(g, id, Op::Reshape { special_zero: true }, &[xa, sa])?;
        let rb = add(g, id, Op::Reshape { special_zero: true }, &[xb, sb])?;
        let groups: Option<Vec<usize>> = batch.iter().map(|c| usize::try_from(size(c)?.size()?).ok()).collect();
        let p = match groups {
            Some(lead) if !lead.is_empty() && g.tensors[rb].fact.value.is_some() => {
                grouped_product(g, id, (ra, rb), &lead, (m, k, n), g.tensors[*tb].stored)?
            }
            _ => add(g, id, Op::MatMul { ta: false, tb: false }, &[ra, rb])?,
        };
        let free: Vec<i64> =
            a_free.iter().chain(&b_free).map(|c| size(c)?.value()).collect::<Option<_>>().or_user(unknown)?;
        let so = ints(g, id, &[&lead[..], &free].concat());
        let r = add(g, id, Op::Reshape { special_zero: true }, &[p, so])?;
        let have: Vec<char> = [&batch[..], &a_free, &b_free].concat();
        arrange(g, id, r, &have, &[], out)
    })()?;
    take_over(g, y, result, &[id])
}

/// The product of `a` (`[G…, m, k]`) by constant weights `b` (`[G…, k, n]`; `lead` holds
/// the group axes `G…`, stored as `stored`) as one matrix product per group, which the fuse
/// pass makes a dense layer over weights packed at compile time: each group's rows sliced
/// off, its products joined again, `[G…, m, n]`. Past [`MAX_GROUPS`] groups, one batched
/// product.
fn grouped_product(
    g: &mut Graph,
    id: NodeId,
    (a, b): (TensorId, TensorId),
    lead: &[usize],
    (m, k, n): (i64, i64, i64),
    stored: Option<Elem>,
) -> Result<TensorId, Decline> {
    let groups = lead.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).filter(|&gs| gs <= MAX_GROUPS);
    let (Some(groups), Some(w)) = (groups, g.tensors[b].fact.value.as_ref().and_then(Data::floats)) else {
        return add(g, id, Op::MatMul { ta: false, tb: false }, &[a, b]);
    };
    let elem = g.tensors[b].fact.elem;
    let (ku, nu) = (k as usize, n as usize);
    let s = ints(g, id, &[groups as i64, m, k]);
    let flat = add(g, id, Op::Reshape { special_zero: false }, &[a, s])?;
    let mut parts = Vec::with_capacity(groups);
    for gi in 0..groups {
        let from = gi as i64;
        let (s, e, st, ax) = (ints(g, id, &[from]), ints(g, id, &[from + 1]), ints(g, id, &[1]), ints(g, id, &[0]));
        let rows = add(g, id, Op::Slice, &[flat, s, e, st, ax])?;
        let s = ints(g, id, &[m, k]);
        let rows = add(g, id, Op::Reshape { special_zero: false }, &[rows, s])?;
        let wg = w.get(gi * ku * nu..(gi + 1) * ku * nu).or_internal("the weights of a group")?.to_vec();
        let wt = constant(g, id, elem, &[ku, nu], Data::Float(wg));
        g.tensors[wt].stored = stored;
        let p = add(g, id, Op::MatMul { ta: false, tb: false }, &[rows, wt])?;
        let s = ints(g, id, &[1, m, n]);
        parts.push(add(g, id, Op::Reshape { special_zero: false }, &[p, s])?);
    }
    let joined = if parts.len() == 1 { parts[0] } else { add(g, id, Op::Concat { axis: 0 }, &parts)? };
    let dims: Vec<i64> = lead.iter().map(|&d| d as i64).chain([m, n]).collect();
    let s = ints(g, id, &dims);
    add(g, id, Op::Reshape { special_zero: false }, &[joined, s])
}

/// Groups of a product by constant weights made one dense layer each; past this, one
/// batched product.
const MAX_GROUPS: usize = 256;

/// Operand `t` of an `Einsum` (subscripts `subs`) with each repeated subscript read once,
/// where the axes it names have the same index: a gather by a table fixed at compile time
/// (a strided read of the diagonal); the letters in the order they first appear.
fn diagonal(g: &mut Graph, id: NodeId, t: TensorId, subs: &[char], op: &str) -> Result<(TensorId, Vec<char>), Decline> {
    let mut unique: Vec<char> = Vec::new();
    for &c in subs {
        if !unique.contains(&c) {
            unique.push(c);
        }
    }
    if unique.len() == subs.len() {
        return Ok((t, subs.to_vec()));
    }
    let dims = g.tensors[t]
        .fact
        .shape
        .as_ref()
        .and_then(|s| s.iter().map(|d| usize::try_from(d.value()?).ok()).collect::<Option<Vec<usize>>>())
        .or_user(|| {
            Message::new(format!(
                "cellc reads the diagonal of an {op} operand whose dimensions are known at compile time"
            ))
            .fix(Fix::pin())
        })?;
    let at = |c: char| subs.iter().position(|&x| x == c).unwrap_or(0);
    let kept: Vec<usize> = unique.iter().map(|&c| dims[at(c)]).collect();
    let n = crate::limits::product(kept.iter().map(|&d| d as u64));
    if n.is_none_or(|n| n > crate::limits::MAX_PICK_TABLE) {
        return Err(table_too_large(&format!("the diagonal of an operand ({kept:?})"), n));
    }
    let st = crate::ops::tensor::strides(&dims);
    let letter: Vec<usize> = subs.iter().map(|c| unique.iter().position(|u| u == c).unwrap_or(0)).collect();
    let mut idx = vec![0; kept.len()];
    let table = (0..n.unwrap_or_default() as usize)
        .map(|i| {
            crate::ops::tensor::unflatten(i, &kept, &mut idx);
            letter.iter().zip(&st).map(|(&l, &s)| idx[l] * s).sum::<usize>() as u32
        })
        .collect();
    let pick = Pick { lead: 0, shape: kept, entry: dims.iter().product(), table, fill: 0.0 };
    Ok((add(g, id, Op::Pick(Box::new(pick)), &[t])?, unique))
}

/// A scatter by constant indices: the data and the updates, flattened and joined, then
/// gathered by a table saying which of them each output value is.
fn scatter(g: &mut Graph, id: NodeId, kind: crate::ops::scatter::Scatter) -> Lowered {
    let node = &g.nodes[id];
    let &y = node.outputs.first().or_reported()?;
    let (d, u) = (node_input(g, id, 0).or_reported()?, node_input(g, id, 2).or_reported()?);
    let from = {
        let ins: Vec<Option<&Fact>> = (0..node.inputs.len()).map(|i| g.input_fact(id, i)).collect();
        crate::ops::scatter::sources(kind, &ins).map_err(|_| Decline::Reported)?
    };
    let dims = g.tensors[d]
        .fact
        .shape
        .as_ref()
        .and_then(|s| s.iter().map(|x| usize::try_from(x.value()?).ok()).collect::<Option<Vec<usize>>>())
        .or_reported()?;
    let ld = from.len();
    let lu = g.tensors[u].fact.known_len().or_reported()?;
    let n = (ld as u64).saturating_add(lu as u64);
    if n > crate::limits::MAX_PICK_TABLE {
        return Err(table_too_large(&format!("its data and updates ({ld} and {lu} values)"), Some(n)));
    }
    if let Some(r) = kind.reduction() {
        let ins: Vec<Option<&Fact>> = (0..g.nodes[id].inputs.len()).map(|i| g.input_fact(id, i)).collect();
        let (_, writes) = crate::ops::scatter::writes(kind, &ins).map_err(|_| Decline::Reported)?;
        return scatter_reduce(g, id, r, (d, u, y), (&dims, lu), &writes);
    }
    let out = (|| {
        let flat = ints(g, id, &[-1]);
        let fd = add(g, id, Op::Reshape { special_zero: false }, &[d, flat])?;
        let fu = add(g, id, Op::Reshape { special_zero: false }, &[u, flat])?;
        let both = add(g, id, Op::Concat { axis: 0 }, &[fd, fu])?;
        let table = from
            .iter()
            .map(|f| match *f {
                Ok(i) => i as u32,
                Err(j) => (ld + j) as u32,
            })
            .collect();
        let pick = Pick { lead: 0, shape: dims, entry: ld + lu, table, fill: 0.0 };
        add(g, id, Op::Pick(Box::new(pick)), &[both])
    })()?;
    take_over(g, y, out, &[id])
}

/// A scatter that combines each update with the value at its position (`writes`, in the
/// order they apply, over data `d` of extents `dims` and `lu` updates `u`, into `y`): in
/// rounds, the `k`-th update of every position gathered at once by a table, combined with
/// the values, and kept where the position has a `k`-th update (elsewhere the values stay
/// as they are, bit for bit).
fn scatter_reduce(
    g: &mut Graph,
    id: NodeId,
    r: crate::ops::scatter::Reduction,
    (d, u, y): (TensorId, TensorId, TensorId),
    (dims, lu): (&[usize], usize),
    writes: &[(usize, usize)],
) -> Lowered {
    let len: usize = dims.iter().product();
    let mut rounds: Vec<Vec<u32>> = Vec::new();
    let mut seen = vec![0usize; len];
    for &(at, j) in writes {
        if rounds.len() == seen[at] {
            rounds.push(vec![Pick::NONE; len]);
        }
        rounds[seen[at]][at] = j as u32;
        seen[at] += 1;
    }
    let total = (rounds.len() as u64).saturating_mul(len as u64);
    if total > crate::limits::MAX_PICK_TABLE {
        let what = format!("its {} rounds of updates over {len} values", rounds.len());
        return Err(table_too_large(&what, Some(total)));
    }
    let elem = g.tensors[d].fact.elem;
    let flat = ints(g, id, &[-1]);
    let fu = add(g, id, Op::Reshape { special_zero: false }, &[u, flat])?;
    let mut out = d;
    for table in rounds {
        let mask: Vec<f64> = table.iter().map(|&t| if t == Pick::NONE { 0.0 } else { 1.0 }).collect();
        let pick = Pick { lead: 0, shape: dims.to_vec(), entry: lu, table, fill: 0.0 };
        let picked = add(g, id, Op::Pick(Box::new(pick)), &[fu])?;
        let combined = add(g, id, Op::Binary(r.binary()), &[out, picked])?;
        let m = constant(g, id, elem, dims, Data::Float(mask));
        out = add(g, id, Op::Select, &[m, combined, out])?;
    }
    take_over(g, y, out, &[id])
}

fn pad(g: &mut Graph, id: NodeId, mode: PadMode) -> Lowered {
    let node = &g.nodes[id];
    let op = node.origin.op.clone();
    let (Some(Some(x)), Some(&y)) = (node.inputs.first(), node.outputs.first()) else { return Err(Decline::Reported) };
    let x = *x;
    let value = |i: usize| g.input_fact(id, i).and_then(|f| f.value.as_ref()?.known_ints());
    let pads = || format!("cellc compiles {op} layers with pads known at compile time");
    let (begin, end) = (value(1).or_user(pads)?, value(2).or_user(pads)?);
    let fill = match node.inputs.get(3).copied().flatten() {
        Some(t) if mode == PadMode::Constant => match g.tensors[t].fact.value.as_ref().and_then(Data::floats) {
            Some(v) if v.len() == 1 => v[0],
            Some(v) => {
                return Err(Decline::User(format!("the pad value holds {} values; expected one", v.len()).into()));
            }
            None => {
                return Err(Decline::User(
                    format!("cellc compiles {op} layers with a pad value known at compile time").into(),
                ));
            }
        },
        _ => 0.0,
    };
    let xs = g.tensors[x].fact.shape.clone().or_reported()?;
    if begin.len() != xs.len() || end.len() != xs.len() {
        return Err(Decline::Reported);
    }
    // The first axis (the batch) is kept when it is not padded, so that a dynamic batch runs.
    let lead = usize::from(!xs.is_empty() && begin[0] == 0 && end[0] == 0);
    let ext =
        xs[lead..].iter().map(|d| usize::try_from(d.value()?).ok()).collect::<Option<Vec<usize>>>().or_user(|| {
            Message::new(format!("cellc pads the batch axis of {op} layers only where it is known")).fix(Fix::pin())
        })?;
    let (table, shape) = pad_table(mode, &ext, &begin[lead..], &end[lead..]).map_err(|e| Decline::User(e.into()))?;
    let pick = Pick { lead, shape, entry: ext.iter().product(), table, fill };
    let out = add(g, id, Op::Pick(Box::new(pick)), &[x])?;
    take_over(g, y, out, &[id])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Unary;
    use crate::ops::conv::AutoPad;
    use crate::vocab::Origin;

    fn origin() -> Origin {
        Origin { pos: None, name: "conv".into(), op: "Convolution".into() }
    }

    fn node(g: &mut Graph, op: Op, ins: &[TensorId], fact: Fact) -> TensorId {
        let id = g.add(op, origin(), ins.iter().map(|&t| Some(t)).collect(), 1);
        let t = g.nodes[id].outputs[0];
        g.tensors[t].fact = fact;
        t
    }

    fn apply(g: &mut Graph, op: Op, ins: &[TensorId]) -> TensorId {
        let fact = {
            let facts: Vec<Option<&Fact>> = ins.iter().map(|&t| Some(&g.tensors[t].fact)).collect();
            crate::ops::infer(&op, &facts, 1).expect("valid").remove(0)
        };
        node(g, op, ins, fact)
    }

    #[test]
    fn a_convolution_over_a_dynamic_batch_its_bias_and_activation_become_a_dense_layer_over_its_windows() {
        let k = |v: &[i64]| v.iter().map(|&d| Sym::known(d)).collect::<Vec<_>>();
        let mut g = Graph::new("t.xml", "t");
        let x = node(
            &mut g,
            Op::Parameter { elem: Elem::F32, shape: Vec::new() },
            &[],
            Fact::new(Elem::F32, vec![Sym::symbol(0), Sym::known(3), Sym::known(8)]),
        );
        g.params.push(g.tensors[x].producer.0);
        let w = node(
            &mut g,
            Op::Const { src: None },
            &[],
            Fact::constant(Elem::F32, k(&[4, 3, 3]), Data::Float(vec![0.5; 36])),
        );
        let b = node(
            &mut g,
            Op::Const { src: None },
            &[],
            Fact::constant(Elem::F32, k(&[1, 4, 1]), Data::Float(vec![0.25; 4])),
        );
        let window = crate::ops::conv::Window {
            strides: vec![1],
            dilations: vec![1],
            pads_begin: vec![1],
            pads_end: vec![1],
            auto_pad: AutoPad::Explicit,
            rounding: crate::ops::conv::WindowRounding::Floor,
        };
        let a = crate::ops::conv::ConvAttrs {
            window,
            grouped: false,
            transposed: false,
            output_padding: Vec::new(),
            crop: None,
        };
        let c = apply(&mut g, Op::Conv(Box::new(a)), &[x, w]);
        let y = apply(&mut g, Op::Binary(Binary::Add), &[c, b]);
        let z = apply(&mut g, Op::Unary(Unary::Relu), &[y]);
        let r = g.add(Op::Result, origin(), vec![Some(z)], 0);
        g.results.push(r);
        g.result_names.push(None);
        lower(&mut g);
        crate::passes::fuse(&mut g);
        let live: Vec<&Op> = g.nodes.iter().filter(|n| !n.dead).map(|n| &n.op).collect();
        // The windows are read in place whatever the batch: no table.
        assert!(!live.iter().any(|o| matches!(o, Op::Pick(_))), "{live:?}");
        let relu = Some(crate::ops::DenseAct::Unary(Unary::Relu));
        assert!(
            live.iter().any(|o| matches!(o, Op::Dense { tb: true, act, win: Some(_), .. } if *act == relu)),
            "{live:?}"
        );
        assert!(!live.iter().any(|o| matches!(o, Op::Conv(_) | Op::Binary(_) | Op::Unary(_))), "{live:?}");
        let out = g.nodes[r].inputs[0].expect("connected");
        assert_eq!(g.tensors[out].fact.shape, Some(vec![Sym::symbol(0), Sym::known(4), Sym::known(8)]));
    }
}
