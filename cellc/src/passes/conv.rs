//! The lowering of a convolution. Over one or two spatial axes (the batch known at compile
//! time or only at run time), each group's windows are read in place from the input laid
//! out channels last ([`Op::Windows`]) by a matrix product with the group's weights as a `[C_out, K·C_in]`
//! matrix, which the fuse pass makes a dense layer over weights packed at compile time. A
//! transposed convolution is computed the same way, one phase of its stride at a time: the
//! outputs at `m·stride + φ` take only the taps `k` with `k·dilation ≡ φ (mod stride)`, which
//! make an ordinary convolution of stride 1 over the input, so no zero is inserted or
//! multiplied; the phases are then interleaved by copies. The bias, a batch normalisation
//! and the activation that follow the convolution go onto each product. What cannot be read
//! in place (three spatial axes, more than 256 groups) is gathered through a [`Pick`] table
//! of its windows. Weights known only at run time are laid out at run time for the product
//! ([`run_time_weights`]).
use super::edit::{
    Decline, Lowered, OrDecline, add, back_to_channels_first, constant, ints, node_input, table_too_large, take_over,
    to_channels_last,
};
use crate::graph::{Data, Graph, NodeId, Sym, TensorId};
use crate::ops::conv::{ConvAttrs, ConvGeometry};
use crate::ops::norm::{Norm, batch_scale_shift};
use crate::ops::pad::Pick;
use crate::ops::{Binary, Op, Unary};
use crate::vocab::Windows;

pub(super) mod planar;

/// Groups of a convolution read in place, each its own product; past this, the table.
const MAX_GROUPS_IN_PLACE: usize = 256;

/// Lowers convolution `id` (attributes `a`; `readers` of every tensor, to find what follows).
pub(super) fn conv(g: &mut Graph, id: NodeId, a: &ConvAttrs, readers: &[Vec<NodeId>]) -> Lowered {
    let node = &g.nodes[id];
    let op = node.origin.op.clone();
    let (Some(Some(x)), Some(Some(w)), Some(&y)) = (node.inputs.first(), node.inputs.get(1), node.outputs.first())
    else {
        return Err(Decline::Reported);
    };
    let (x, w) = (*x, *w);
    let (fx, fw) = (&g.tensors[x].fact, &g.tensors[w].fact);
    let (xs, ws) = (fx.shape.clone().or_reported()?, fw.shape.clone().or_reported()?);
    let wv = fw.value.as_ref().and_then(Data::floats);
    let out_shape = match node.inputs.get(2).copied().flatten() {
        Some(t) => Some(
            g.tensors[t]
                .fact
                .value
                .as_ref()
                .and_then(Data::known_ints)
                .or_user(|| format!("cellc compiles {op} layers with an output shape known at compile time"))?,
        ),
        None => None,
    };
    let geo = a.geometry(&xs, &ws, out_shape.as_deref()).map_err(|_| Decline::Reported)?;
    let Some(wv) = wv else { return run_time_weights(g, id, &geo, (x, w, y)) };
    let ep = Epilogue::find(g, readers, id, y, geo.groups * geo.co);
    let stored = if ep.scale.is_none() { g.tensors[w].stored } else { None };
    let lay = Weights { geo: &geo, w: &wv, scale: ep.scale.as_deref(), stored };
    let plan = in_place(&geo);
    // The planar kernel reads any number of groups in place (a depthwise layer's too); a
    // depthwise layer it does not take is a sum of shifted copies, other groups each their
    // own product up to a limit, past it the table.
    let out = match plan {
        Some(plan) if plan.planar(geo.groups, geo.co, geo.ci, geo.transposed) => {
            plan.lower_planar(g, id, x, &lay, &ep)?
        }
        _ if super::depthwise::depthwise(g, id, &geo, &wv, (x, y))? => return Ok(()),
        Some(plan) if geo.groups <= MAX_GROUPS_IN_PLACE => plan.lower(g, id, x, &lay, &ep)?,
        _ => through_table(g, id, &geo, x, &lay, &ep)?,
    };
    take_over(g, ep.last, out, &ep.gone)
}

/// A convolution whose weights are known only at run time (a graph input): each group's
/// windows read in place, multiplied by its weights laid out at run time as the windows
/// read them (`[C_out, K·C_in]`, a tap's channels adjacent); what follows stays as it is.
fn run_time_weights(
    g: &mut Graph,
    id: NodeId,
    geo: &ConvGeometry,
    (x, w, y): (TensorId, TensorId, TensorId),
) -> Lowered {
    let op = g.nodes[id].origin.op.clone();
    if geo.transposed {
        return Err(Decline::User(format!("cellc compiles {op} layers with weights known at compile time").into()));
    }
    let Some(plan) = in_place(geo) else {
        let why = format!(
            "cellc compiles {op} layers with weights known only at run time over 1 or 2 spatial axes and at most \
             {MAX_GROUPS_IN_PLACE} groups; this one has {} spatial axes and {} groups",
            geo.input.len(),
            geo.groups
        );
        return Err(Decline::User(why.into()));
    };
    let (ci, co, taps) = (geo.ci, geo.co, geo.kernel.iter().product::<usize>());
    let laid = to_channels_last(g, id, x, geo.input.len() + 2)?;
    let (win, _) = &plan.wins[0];
    let mut parts = vec![];
    for grp in 0..geo.groups {
        let src = if geo.groups == 1 { laid } else { channels(g, id, laid, grp * ci, ci)? };
        let cols = add(g, id, Op::Windows(Box::new(*win)), &[src])?;
        // The group's weights `[C_out, C_in, K…]` (of grouped weights, the group's slice of
        // the leading axis) as `[C_out, K·C_in]`.
        let own = if g.tensors[w].fact.shape.as_ref().is_some_and(|s| s.len() == geo.input.len() + 3) {
            let (f, e) = (ints(g, id, &[grp as i64]), ints(g, id, &[grp as i64 + 1]));
            let (st, ax) = (ints(g, id, &[1]), ints(g, id, &[0]));
            add(g, id, Op::Slice, &[w, f, e, st, ax])?
        } else {
            w
        };
        let s = ints(g, id, &[co as i64, ci as i64, taps as i64]);
        let wg = add(g, id, Op::Reshape { special_zero: false }, &[own, s])?;
        let p = ints(g, id, &[0, 2, 1]);
        let wt = add(g, id, Op::Transpose, &[wg, p])?;
        let s = ints(g, id, &[co as i64, (taps * ci) as i64]);
        let wt = add(g, id, Op::Reshape { special_zero: false }, &[wt, s])?;
        parts.push(add(g, id, Op::MatMul { ta: false, tb: true }, &[cols, wt])?);
    }
    let out = if geo.groups == 1 { parts[0] } else { add(g, id, Op::Concat { axis: 2 }, &parts)? };
    let out = back_to_channels_first(g, id, out, (&geo.output, geo.groups * co))?;
    take_over(g, y, out, &[id])
}

/// Channels `from..from + n` of `t`, sliced off its last axis.
fn channels(g: &mut Graph, id: NodeId, t: TensorId, from: usize, n: usize) -> Result<TensorId, Decline> {
    let (f, e) = (from as i64, (from + n) as i64);
    let (s, e, st, ax) = (ints(g, id, &[f]), ints(g, id, &[e]), ints(g, id, &[1]), ints(g, id, &[-1]));
    add(g, id, Op::Slice, &[t, s, e, st, ax])
}

/// The weights of a convolution as its products read them.
struct Weights<'a> {
    geo: &'a ConvGeometry,
    /// As the model holds them.
    w: &'a [f64],
    /// A batch normalisation's scale per output channel, folded in.
    scale: Option<&'a [f64]>,
    /// The element type the model stores them in, when they are its own values.
    stored: Option<crate::graph::Elem>,
}

impl Weights<'_> {
    /// Output channel `o` of group `grp`, input channel `c` of the group, tap `tap` (flat,
    /// row-major over the kernel).
    fn at(&self, grp: usize, o: usize, c: usize, tap: usize) -> f64 {
        let v = self.w[self.geo.weight(grp, o, c, tap)];
        self.scale.map_or(v, |s| v * s[grp * self.geo.co + o])
    }

    /// Adds the weights of groups `groups` as their windows read them,
    /// `[groups · C_out, taps·C_in]` (the taps `th × tw` of the kernel, each tap's channels
    /// together, group after group), as a constant.
    fn windows(
        &self,
        g: &mut Graph,
        id: NodeId,
        elem: crate::graph::Elem,
        groups: std::ops::Range<usize>,
        (win, [th, tw]): (&Windows, [&[usize]; 2]),
    ) -> TensorId {
        let (ci, co, kw) = (self.geo.ci, self.geo.co, self.geo.kernel.last().copied().unwrap_or(1));
        let first = groups.start;
        self.constant(g, id, elem, [groups.len() * co, win.k()], |o, q| {
            let (tap, c) = (q / ci, q % ci);
            let (kh, kwi) = (th[tap / tw.len()], tw[tap % tw.len()]);
            self.at(first + o / co, o % co, c, kh * kw + kwi)
        })
    }

    /// Adds `[rows, len]` weights, `value(o, q)` each, as a constant.
    fn constant(
        &self,
        g: &mut Graph,
        id: NodeId,
        elem: crate::graph::Elem,
        [rows, len]: [usize; 2],
        value: impl Fn(usize, usize) -> f64,
    ) -> TensorId {
        let v = (0..rows * len).map(|i| value(i / len, i % len)).collect();
        let t = constant(g, id, elem, &[rows, len], Data::Float(v));
        g.tensors[t].stored = self.stored;
        t
    }
}

/// An activation after a convolution's bias.
enum Act {
    Unary(Unary),
    /// A PReLU of one slope per output channel.
    PRelu(Vec<f64>),
}

/// What follows a convolution and goes onto its products: a batch normalisation of
/// constant parameters (its scale folded into the weights, its shift a bias), or a bias of
/// one value per channel, then an activation.
struct Epilogue {
    scale: Option<Vec<f64>>,
    /// The bias per output channel, with the node it comes from.
    bias: Option<(NodeId, Vec<f64>)>,
    /// The activation after the bias, with its node.
    act: Option<(NodeId, Act)>,
    /// The tensor the lowering's result stands for.
    last: TensorId,
    /// The nodes the lowering replaces.
    gone: Vec<NodeId>,
}

impl Epilogue {
    /// What follows convolution `id` (output `y`, `c` channels in all).
    fn find(g: &Graph, readers: &[Vec<NodeId>], id: NodeId, y: TensorId, c: usize) -> Self {
        let mut ep = Epilogue { scale: None, bias: None, act: None, last: y, gone: vec![id] };
        // A batch normalisation right after the convolution, or after its bias (`s·(x + b) +
        // t` is `s·x + (s·b + t)`), or a bias alone.
        let bias = match batch_norm(g, readers, y, c) {
            Some((node, scale, shift)) => {
                ep.scale = Some(scale);
                g.nodes[node].outputs.first().map(|&out| (node, shift, out))
            }
            None => match channel_bias(g, readers, y, c) {
                Some((add, b, out)) => match batch_norm(g, readers, out, c) {
                    Some((node, scale, shift)) => {
                        let shift = b.iter().zip(&scale).zip(&shift).map(|((b, s), t)| s * b + t).collect();
                        ep.scale = Some(scale);
                        ep.gone.push(add);
                        g.nodes[node].outputs.first().map(|&out| (node, shift, out))
                    }
                    None => Some((add, b, out)),
                },
                None => None,
            },
        };
        let Some((node, bias, out)) = bias else { return ep };
        (ep.bias, ep.last) = (Some((node, bias)), out);
        ep.gone.push(node);
        let Some(r) = only_reader(g, readers, out) else { return ep };
        let act = match g.nodes[r].op {
            Op::Unary(u) => Act::Unary(u),
            Op::Binary(Binary::PRelu) if g.nodes[r].inputs.first() == Some(&Some(out)) => {
                match channel_values(g, g.nodes[r].inputs.get(1).copied().flatten(), out, c) {
                    Some(s) => Act::PRelu(s),
                    None => return ep,
                }
            }
            _ => return ep,
        };
        if let Some(&last) = g.nodes[r].outputs.first()
            && g.tensors[last].fact.shape == g.tensors[out].fact.shape
        {
            (ep.act, ep.last) = (Some((r, act)), last);
            ep.gone.push(r);
        }
        ep
    }

    /// `prod`, whose last axis holds the output channels `first..` (as many as `shape`
    /// holds, the bias shaped `shape` against it), with the bias and activation applied.
    fn apply(&self, g: &mut Graph, prod: TensorId, first: usize, shape: &[usize]) -> Result<TensorId, Decline> {
        let mut t = prod;
        let Some((node, bias)) = &self.bias else { return Ok(t) };
        let elem = g.tensors[prod].fact.elem;
        let n: usize = shape.iter().product();
        let b = constant(g, *node, elem, shape, Data::Float(bias[first..first + n].to_vec()));
        t = add(g, *node, Op::Binary(Binary::Add), &[t, b])?;
        match &self.act {
            Some((r, Act::Unary(u))) => t = add(g, *r, Op::Unary(*u), &[t])?,
            Some((r, Act::PRelu(s))) => {
                let s = constant(g, *r, elem, shape, Data::Float(s[first..first + n].to_vec()));
                t = add(g, *r, Op::Binary(Binary::PRelu), &[t, s])?;
            }
            None => {}
        }
        Ok(t)
    }
}

/// One axis of a convolution read in place (a 1-D convolution has a height of 1).
#[derive(Clone, Copy)]
struct Axis {
    input: usize,
    output: usize,
    kernel: usize,
    stride: usize,
    dilation: usize,
    pad: usize,
}

impl Axis {
    /// The phases of a transposed convolution along this axis: for each `φ < stride`, its
    /// taps in the order the windows read them and the windows' padding before and
    /// dilation; `None` when a phase has no tap. Every phase has `self.phase_len()` outputs.
    fn phases(&self) -> Option<Vec<(Vec<usize>, usize, usize)>> {
        let (s, d) = (self.stride, self.dilation);
        let step = d / gcd(s, d);
        (0..s)
            .map(|phi| {
                let mut taps: Vec<usize> = (0..self.kernel).filter(|&k| (k * d) % s == phi).collect();
                let last = *taps.last()?;
                taps.reverse();
                Some((taps, (last * d - phi) / s, step))
            })
            .collect()
    }

    /// Outputs of each phase: enough that the phases interleaved cover `pad + output`.
    fn phase_len(&self) -> usize {
        (self.pad + self.output).div_ceil(self.stride)
    }
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// How a convolution is read in place: its axes (height, width), and each product's
/// windows with the taps they read along each axis ([`InPlace::windows`]).
struct InPlace {
    axes: [Axis; 2],
    wins: Vec<(Windows, [Vec<usize>; 2])>,
}

/// The in-place reading of a convolution of geometry `geo`, when it has one.
fn in_place(geo: &ConvGeometry) -> Option<InPlace> {
    let r = geo.input.len();
    if !(1..=2).contains(&r) {
        return None;
    }
    let axis = |a: usize| Axis {
        input: geo.input[a],
        output: geo.output[a],
        kernel: geo.kernel[a],
        stride: geo.strides[a],
        dilation: geo.dilations[a],
        pad: geo.pads_begin[a],
    };
    let one = Axis { input: 1, output: 1, kernel: 1, stride: 1, dilation: 1, pad: 0 };
    let axes = if r == 2 { [axis(0), axis(1)] } else { [one, axis(0)] };
    // Every size the phases and their interleaving compute fits (`i64` for the slice).
    let fits = |a: &Axis| {
        let end = a.pad.checked_add(a.output)?.checked_add(a.stride)?;
        a.kernel.checked_mul(a.dilation)?;
        i64::try_from(end).ok()
    };
    if axes.iter().any(|a| fits(a).is_none()) {
        return None;
    }
    // A phase without taps, or windows past the sizes the kernels count in, are not read
    // in place.
    let wins = InPlace::windows(axes, geo);
    (!wins.is_empty()).then_some(InPlace { axes, wins })
}

impl InPlace {
    /// Each product's windows: one, or for a transposed convolution one per phase (height
    /// phase major), with the taps each reads along each axis; empty when one is not
    /// valid.
    fn windows(axes: [Axis; 2], geo: &ConvGeometry) -> Vec<(Windows, [Vec<usize>; 2])> {
        let [h, w] = axes;
        let all = |a: Axis| (0..a.kernel).collect::<Vec<_>>();
        let out: Vec<_> = if !geo.transposed {
            let win = Windows {
                input: [h.input, w.input],
                output: [h.output, w.output],
                kernel: [h.kernel, w.kernel],
                strides: [h.stride, w.stride],
                dilations: [h.dilation, w.dilation],
                pads: [h.pad, w.pad],
                channels: geo.ci,
            };
            vec![(win, [all(h), all(w)])]
        } else {
            let (Some(ph), Some(pw)) = (h.phases(), w.phases()) else { return vec![] };
            let mut out = vec![];
            for (th, padh, dh) in &ph {
                for (tw, padw, dw) in &pw {
                    let win = Windows {
                        input: [h.input, w.input],
                        output: [h.phase_len(), w.phase_len()],
                        kernel: [th.len(), tw.len()],
                        strides: [1, 1],
                        dilations: [*dh, *dw],
                        pads: [*padh, *padw],
                        channels: geo.ci,
                    };
                    out.push((win, [th.clone(), tw.clone()]));
                }
            }
            out
        };
        if out.iter().all(|(w, _)| w.valid()) { out } else { vec![] }
    }

    /// The lowered convolution: `[N, C_out, output…]`.
    fn lower(
        &self,
        g: &mut Graph,
        id: NodeId,
        x: TensorId,
        lay: &Weights<'_>,
        ep: &Epilogue,
    ) -> Result<TensorId, Decline> {
        let geo = lay.geo;
        let (ci, co, groups) = (geo.ci, geo.co, geo.groups);
        let laid = to_channels_last(g, id, x, geo.input.len() + 2)?;
        let mut parts = vec![];
        for grp in 0..groups {
            // A group's channels, sliced off the last axis.
            let src = if groups == 1 { laid } else { channels(g, id, laid, grp * ci, ci)? };
            let mut phases = vec![];
            for (win, [th, tw]) in &self.wins {
                let cols = add(g, id, Op::Windows(Box::new(*win)), &[src])?;
                let elem = g.tensors[src].fact.elem;
                let wt = lay.windows(g, id, elem, grp..grp + 1, (win, [th, tw]));
                let prod = add(g, id, Op::MatMul { ta: false, tb: true }, &[cols, wt])?;
                phases.push(ep.apply(g, prod, grp * co, &[co])?);
            }
            parts.push(if geo.transposed { self.interleave(g, id, &phases, co)? } else { phases[0] });
        }
        let out = if groups == 1 { parts[0] } else { add(g, id, Op::Concat { axis: 2 }, &parts)? };
        back_to_channels_first(g, id, out, (&geo.output, groups * co))
    }

    /// The phases of a transposed convolution (`[N, positions of a phase, co]` each, height
    /// phase major) interleaved into its output, `[N, positions, co]`.
    fn interleave(&self, g: &mut Graph, id: NodeId, phases: &[TensorId], co: usize) -> Result<TensorId, Decline> {
        let [h, w] = self.axes;
        let (mh, mw) = (h.phase_len(), w.phase_len());
        let shape = |g: &mut Graph, dims: &[usize]| {
            let v: Vec<Sym> = [0].iter().chain(dims).map(|&d| Sym::known(d as i64)).collect();
            constant(g, id, crate::graph::Elem::I64, &[v.len()], Data::Int(v))
        };
        let reshape = Op::Reshape { special_zero: true };
        let mut rows = vec![];
        for row in phases.chunks(w.stride) {
            let mut cols = vec![];
            for &p in row {
                let s = shape(g, &[mh, 1, mw, 1, co]);
                cols.push(add(g, id, reshape.clone(), &[p, s])?);
            }
            rows.push(if cols.len() == 1 { cols[0] } else { add(g, id, Op::Concat { axis: 4 }, &cols)? });
        }
        let t = if rows.len() == 1 { rows[0] } else { add(g, id, Op::Concat { axis: 2 }, &rows)? };
        let s = shape(g, &[mh * h.stride, mw * w.stride, co]);
        let mut t = add(g, id, reshape.clone(), &[t, s])?;
        if h.pad > 0 || w.pad > 0 || mh * h.stride != h.output || mw * w.stride != w.output {
            let from = ints(g, id, &[h.pad as i64, w.pad as i64]);
            let to = ints(g, id, &[(h.pad + h.output) as i64, (w.pad + w.output) as i64]);
            let (step, axes) = (ints(g, id, &[1, 1]), ints(g, id, &[1, 2]));
            t = add(g, id, Op::Slice, &[t, from, to, step, axes])?;
        }
        let s = shape(g, &[h.output * w.output, co]);
        add(g, id, reshape, &[t, s])
    }
}

/// A convolution through a table of its windows (`[G, positions, C_in·K]` for one batch
/// entry, padding included), or from its input laid out channels last with its padding
/// where a tap's channels are runs: `[N, C_out, output…]`.
fn through_table(
    g: &mut Graph,
    id: NodeId,
    geo: &ConvGeometry,
    x: TensorId,
    lay: &Weights<'_>,
    ep: &Epilogue,
) -> Result<TensorId, Decline> {
    let elem = g.tensors[x].fact.elem;
    let (groups, taps, positions) = (geo.groups, geo.kernel.iter().product::<usize>(), geo.output.iter().product());
    let k = geo.ci * taps;
    let shape = if groups == 1 { vec![positions, k] } else { vec![groups, positions, k] };
    let table_len = crate::limits::product([groups as u64, positions as u64, k as u64]);
    if table_len.is_none_or(|n| n > crate::limits::MAX_PICK_TABLE) {
        let groups = if groups == 1 { String::new() } else { format!("{groups} groups × ") };
        return Err(table_too_large(&format!("its windows ({groups}{positions} positions × {k} values)"), table_len));
    }
    let entry = groups * geo.ci * geo.input.iter().product::<usize>();
    // A plain convolution reads its windows from the input laid out channels last with its
    // padding (one gather of the input's size), where a tap's channels, and the taps along
    // an undilated last axis, are runs of adjacent values: the windows are then copied run
    // by run.
    let last = crate::limits::product(geo.channels_last_shape().iter().map(|&d| d as u64));
    let channels_last = groups == 1 && !geo.transposed && last.is_some_and(|n| n <= crate::limits::MAX_PICK_TABLE);
    let cols = if channels_last {
        let layout = geo.channels_last_shape();
        let pick = Pick { lead: 1, shape: layout, entry, table: geo.channels_last(), fill: 0.0 };
        let laid = add(g, id, Op::Pick(Box::new(pick)), &[x])?;
        let entry = last.map_or(0, |n| n as usize);
        let pick = Pick { lead: 1, shape, entry, table: geo.windows_channels_last(), fill: 0.0 };
        add(g, id, Op::Pick(Box::new(pick)), &[laid])?
    } else {
        let pick = Pick { lead: 1, shape, entry, table: geo.windows(), fill: 0.0 };
        add(g, id, Op::Pick(Box::new(pick)), &[x])?
    };
    // The weights as the product reads them: `[G·C_out, C_in/G·K]`, a row's columns
    // `(channel, tap)`, or `(tap, channel)` over the channels-last windows.
    let ci = geo.ci;
    let taps_of = |q: usize| if channels_last { (q % ci, q / ci) } else { (q / taps, q % taps) };
    let wv: Vec<f64> = (0..groups * geo.co * k)
        .map(|i| {
            let (gc, q) = (i / k, i % k);
            let (c, tap) = taps_of(q);
            lay.at(gc / geo.co, gc % geo.co, c, tap)
        })
        .collect();
    let wshape = if groups == 1 { vec![geo.co, k] } else { vec![groups, geo.co, k] };
    let wt = constant(g, id, elem, &wshape, Data::Float(wv));
    g.tensors[wt].stored = lay.stored;
    let prod = add(g, id, Op::MatMul { ta: false, tb: true }, &[cols, wt])?;
    if groups == 1 {
        let prod = ep.apply(g, prod, 0, &[geo.co])?;
        return back_to_channels_first(g, id, prod, (&geo.output, geo.co));
    }
    // `[N, G, positions, C_out/G]`: the bias shaped `[G, 1, C_out/G]` against it.
    let prod = ep.apply(g, prod, 0, &[groups, 1, geo.co])?;
    let p = ints(g, id, &[0, 1, 3, 2]);
    let out = add(g, id, Op::Transpose, &[prod, p])?;
    let dims: Vec<Sym> =
        [0, (groups * geo.co) as i64].into_iter().chain(geo.output.iter().map(|&d| d as i64)).map(Sym::known).collect();
    let s = constant(g, id, crate::graph::Elem::I64, &[dims.len()], Data::Int(dims));
    add(g, id, Op::Reshape { special_zero: true }, &[out, s])
}

/// The windows of a convolution of one group, not transposed, or of a pool, over one or two
/// spatial axes (1-D as a height of 1), read in place by the dense layer of its product or
/// by the pool.
pub(super) fn windows_of(geo: &ConvGeometry) -> Option<Windows> {
    if geo.groups != 1 || geo.transposed || !(1..=2).contains(&geo.input.len()) {
        return None;
    }
    let two = |v: &[usize], one: usize| -> [usize; 2] { if v.len() == 2 { [v[0], v[1]] } else { [one, v[0]] } };
    let w = Windows {
        input: two(&geo.input, 1),
        output: two(&geo.output, 1),
        kernel: two(&geo.kernel, 1),
        strides: two(&geo.strides, 1),
        dilations: two(&geo.dilations, 1),
        pads: two(&geo.pads_begin, 0),
        channels: geo.ci,
    };
    w.valid().then_some(w)
}

/// The node reading `t`, when it is the only one and reads it once.
fn only_reader(g: &Graph, readers: &[Vec<NodeId>], t: TensorId) -> Option<NodeId> {
    match readers[t][..] {
        [r] if !g.nodes[r].dead && g.nodes[r].inputs.iter().flatten().filter(|&&x| x == t).count() == 1 => Some(r),
        _ => None,
    }
}

/// When `y` (`[N, C, spatial…]`) is read only by a `BatchNormInference` of constant
/// parameters: that node and its per-channel scale and shift.
fn batch_norm(g: &Graph, readers: &[Vec<NodeId>], y: TensorId, c: usize) -> Option<(NodeId, Vec<f64>, Vec<f64>)> {
    let r = only_reader(g, readers, y)?;
    let Op::Norm(Norm::Batch { eps }) = g.nodes[r].op else { return None };
    if node_input(g, r, 0) != Some(y) {
        return None;
    }
    let p: Vec<Vec<f64>> =
        (1..5).map(|i| g.input_fact(r, i).and_then(|f| f.value.as_ref()?.floats())).collect::<Option<_>>()?;
    if p.iter().any(|v| v.len() != c) {
        return None;
    }
    let (scale, shift) = batch_scale_shift(eps, &p[0], &p[1], &p[2], &p[3]);
    Some((r, scale, shift))
}

/// When `y` (`[N, C, spatial…]`) is read only by an `Add` of a constant holding one value
/// per channel: that node, the `c` values and its output.
fn channel_bias(g: &Graph, readers: &[Vec<NodeId>], y: TensorId, c: usize) -> Option<(NodeId, Vec<f64>, TensorId)> {
    let r = only_reader(g, readers, y)?;
    if g.nodes[r].op != Op::Binary(Binary::Add) {
        return None;
    }
    let b = g.nodes[r].inputs.iter().flatten().copied().find(|&t| t != y);
    let out = *g.nodes[r].outputs.first()?;
    if g.tensors[out].fact.shape != g.tensors[y].fact.shape {
        return None;
    }
    Some((r, channel_values(g, b, y, c)?, out))
}

/// The `c` values of constant `b` when it holds one per channel of `y` (channels first,
/// broadcast by numpy's rules), or one for all.
fn channel_values(g: &Graph, b: Option<TensorId>, y: TensorId, c: usize) -> Option<Vec<f64>> {
    let (fb, ys) = (&g.tensors[b?].fact, g.tensors[y].fact.shape.as_deref()?);
    let bs = fb.shape.as_deref()?;
    if fb.elem != g.tensors[y].fact.elem || bs.len() > ys.len() {
        return None;
    }
    let v = fb.value.as_ref()?.floats()?;
    if bs.iter().all(|d| d.value() == Some(1)) && v.len() == 1 {
        return Some(vec![v[0]; c]);
    }
    // Aligned right against `y`: the channel axis is `rank - 1 - 1` from the end.
    let at = bs.len().checked_sub(ys.len() - 1)?;
    let per_channel = bs.iter().enumerate().all(|(k, d)| d.value() == Some(if k == at { c as i64 } else { 1 }));
    (per_channel && v.len() == c).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phases_of_a_transposed_convolution_take_every_tap_once() {
        // For each output `o`: the (input, tap) pairs with `o = i·s + k·d − p`, directly and
        // through the phases' windows (output `m` of phase `φ` is `o = m·s + φ − p`; its tap
        // `j` reads input `m − pad + j·dilation` through kernel tap `taps[j]`).
        for s in 1..5 {
            for d in 1..4 {
                for kernel in 1..6 {
                    for pad in 0..kernel * d {
                        let (input, output) = (7, (7 - 1) * s + (kernel - 1) * d + 1 - pad.min(3));
                        let a = Axis { input, output, kernel, stride: s, dilation: d, pad };
                        let Some(phases) = a.phases() else {
                            // Only multiples of gcd(s, d) are reached, and no more than
                            // `kernel` residues.
                            assert!(gcd(s, d) > 1 || kernel < s, "a phase without taps: s {s} d {d} k {kernel}");
                            continue;
                        };
                        assert_eq!(phases.len(), s);
                        for o in 0..output {
                            let mut want: Vec<(usize, usize)> = (0..input)
                                .flat_map(|i| (0..kernel).map(move |k| (i, k)))
                                .filter(|&(i, k)| i * s + k * d == o + pad)
                                .collect();
                            let (m, phi) = ((o + pad) / s, (o + pad) % s);
                            assert!(m < a.phase_len());
                            let (taps, before, step) = &phases[phi];
                            let mut got: Vec<(usize, usize)> = taps
                                .iter()
                                .enumerate()
                                .filter_map(|(j, &k)| Some(((m + j * step).checked_sub(*before)?, k)))
                                .filter(|&(i, _)| i < input)
                                .collect();
                            want.sort_unstable();
                            got.sort_unstable();
                            assert_eq!(got, want, "s {s} d {d} k {kernel} pad {pad} o {o}");
                        }
                    }
                }
            }
        }
    }
}
