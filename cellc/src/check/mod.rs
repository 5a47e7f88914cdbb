//! Every semantic check, in one place. Takes the raw model a front-end read, collects every
//! problem it finds (not just the first), and produces the validated [`ir::Model`] that
//! the emitters and the reference interpreter take.
use crate::diag::{Diag, Diagnostics, Pos};
use crate::ir::raw::{self, CellOp, Origin, Source};
mod consts;
pub mod graph;

use crate::ir::wire::{CellIo, Value, Wired};
use crate::ir::{self, Activation, Batch, CellKind, CellSpec, Dim, Direction, ElemType, Lengths, ParamRole, Seq};
use crate::limits::{
    MAX_BATCH, MAX_CELL_SIZE, MAX_CELLS, MAX_LOCAL_ELEMENTS, MAX_NAME_BYTES, MAX_RANK, MAX_STEPS, MAX_TENSOR_ELEMENTS,
    shown,
};

/// The inputs of a cell op, in port order.
fn input_names(c: &raw::Cell) -> &'static [&'static str] {
    match (c.op, c.sequence) {
        (CellOp::Gru | CellOp::Rnn, false) => &["X", "initial_hidden_state", "W", "R", "B"],
        (CellOp::Lstm, false) => &["X", "initial_hidden_state", "initial_cell_state", "W", "R", "B"],
        (CellOp::Gru | CellOp::Rnn, true) => &["X", "initial_hidden_state", "sequence_lengths", "W", "R", "B"],
        (CellOp::Lstm, true) => &["X", "initial_hidden_state", "initial_cell_state", "sequence_lengths", "W", "R", "B"],
    }
}

/// `input {port} ({name})`, for messages.
fn input_label(c: &raw::Cell, port: usize) -> String {
    format!("input {port} ({})", input_names(c).get(port).copied().unwrap_or("extra"))
}

struct Checker<'a> {
    m: &'a raw::Model,
    diags: Vec<Diag>,
    roles: Vec<Option<ParamRole>>,
    weights_unreadable_reported: bool,
    /// Batch dimension seen so far, and where.
    batch: Option<(raw::Dim, String)>,
    /// Layers of unsupported ops already named where a cell or a Result uses them.
    named: Vec<Origin>,
}

/// Checks a raw model and returns the validated model, or every problem found.
pub fn check(m: &raw::Model) -> Result<ir::Model, Diagnostics> {
    let mut c = Checker {
        m,
        diags: Vec::new(),
        roles: vec![None; m.params.len()],
        weights_unreadable_reported: false,
        batch: None,
        named: Vec::new(),
    };
    if m.cells.len() > MAX_CELLS {
        let msg = format!("the model has {} recurrent cells; cellc compiles at most {MAX_CELLS}", m.cells.len());
        return Err(Diag::new(&m.file, None, msg).into());
    }
    let cells: Vec<Option<(ir::Cell, CellIo)>> = m.cells.iter().map(|cell| c.cell(cell)).collect();
    let outputs: Vec<Option<(ir::Output, Value)>> = m.outputs.iter().map(|o| c.output(o, &cells)).collect();
    let batch = c.batch();
    let params: Vec<Option<ir::Param>> = m.params.iter().enumerate().map(|(i, p)| c.param(i, p)).collect();
    c.whole_model(&cells, &outputs, batch);
    c.unsupported_ops();
    let dropped = cells.iter().any(Option::is_none) || outputs.iter().any(Option::is_none);
    if c.diags.is_empty() && (dropped || params.iter().any(Option::is_none)) {
        // Every refusal reports why; a part dropped silently would compile to code that
        // computes nothing.
        c.diags.push(Diag::new(
            &m.file,
            None,
            "internal error: a layer was refused without a reason; please report it",
        ));
    }
    let mut diags = c.diags;
    if !diags.is_empty() {
        diags.sort_by_key(|d| d.pos);
        return Err(Diagnostics(diags));
    }
    let wired = Wired {
        file: m.file.clone(),
        name: m.name.clone(),
        batch,
        params: params.into_iter().flatten().collect(),
        cells: cells.into_iter().flatten().collect(),
        outputs: outputs.into_iter().flatten().collect(),
    };
    Ok(wired.into_model())
}

/// A cell's activations: the names given (or the op's defaults) resolved with their
/// parameters. The error gives the position of the name at fault (`None`: the count).
pub(crate) fn resolve_activations(
    kind: CellKind,
    names: Option<&[String]>,
    alpha: &[Option<f32>],
    beta: &[Option<f32>],
) -> Result<Vec<Activation>, (Option<usize>, String)> {
    let defaults = kind.default_activations();
    let names: Vec<String> =
        names.map_or_else(|| defaults.iter().map(|s| (*s).to_owned()).collect(), <[String]>::to_vec);
    let want = kind.activation_count();
    if names.len() != want {
        let msg = format!(
            "`activations` lists {} function(s) ({}); {} takes exactly {want} ({})",
            names.len(),
            names.join(", "),
            kind.op(),
            defaults.join(", ")
        );
        return Err((None, msg));
    }
    let mut out = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let (a, b) = (alpha.get(i).copied().flatten(), beta.get(i).copied().flatten());
        let Some(act) = Activation::from_name(n, a, b) else {
            let msg = format!(
                "unknown activation {n:?} at position {i} of `activations`; expected one of {}",
                Activation::NAMES.join(", ")
            );
            return Err((Some(i), msg));
        };
        out.push(act);
    }
    Ok(out)
}

/// A Sequence op's `direction`.
pub(crate) fn resolve_direction(d: Option<&str>) -> Result<Direction, String> {
    match d.map(str::to_ascii_lowercase).as_deref() {
        Some("forward") => Ok(Direction::Forward),
        Some("reverse") => Ok(Direction::Reverse),
        Some("bidirectional") => Ok(Direction::Bidirectional),
        Some(d) => Err(format!("`direction` is {d:?}; expected forward, reverse or bidirectional")),
        None => Err("no `direction` attribute; expected forward, reverse or bidirectional".to_owned()),
    }
}

/// `clip`: `None` for 0 (or infinity), which clip nothing.
pub(crate) fn resolve_clip(clip: f32) -> Result<Option<f32>, String> {
    if clip.is_nan() || clip < 0.0 {
        Err(format!("`clip` is {clip}; expected 0 (no clipping) or a positive number"))
    } else if clip == 0.0 || clip.is_infinite() {
        Ok(None)
    } else {
        Ok(Some(clip))
    }
}

impl<'a> Checker<'a> {
    /// The model's batch, from the first cell or Result that fixes it.
    fn batch(&mut self) -> Batch {
        match self.batch.clone() {
            Some((raw::Dim::Dynamic, _)) => Batch::Dynamic,
            Some((raw::Dim::Static(n), first)) => match usize::try_from(n) {
                Ok(n) if (1..=MAX_BATCH).contains(&(n as u64)) => Batch::Static(n),
                _ => {
                    let msg = format!("the batch ({first}) is {n}; expected 1 to {MAX_BATCH}");
                    self.diags.push(Diag::new(&self.m.file, None, msg));
                    Batch::Static(1)
                }
            },
            None => Batch::Static(1),
        }
    }

    /// What holds only once every cell and Result is known: constant sequence lengths give
    /// one length per row, and the outputs generated code keeps on the stack stay small.
    fn whole_model(
        &mut self,
        cells: &[Option<(ir::Cell, CellIo)>],
        outputs: &[Option<(ir::Output, Value)>],
        batch: Batch,
    ) {
        let returned = |k: usize, port: usize| outputs.iter().flatten().any(|(_, v)| *v == Value::Cell(k, port));
        for (k, (rc, cell)) in self.m.cells.iter().zip(cells).enumerate() {
            let Some((cell, io)) = cell else { continue };
            let Some(q) = &cell.seq else { continue };
            if let Lengths::Const(v) = &q.lengths {
                let sp = if io.c.is_some() { 3 } else { 2 };
                let why = match batch {
                    Batch::Static(n) if n == v.len() => None,
                    Batch::Static(n) => Some(format!("batch {n}")),
                    Batch::Dynamic => {
                        Some("a dynamic batch: give the lengths as a Parameter, or a static batch".to_owned())
                    }
                };
                if let Some(why) = why {
                    let s = if v.len() == 1 { "" } else { "s" };
                    let msg = format!(
                        "{} holds {} value{s}; expected one length per row of the model's {why}",
                        input_label(rc, sp),
                        v.len()
                    );
                    self.err(rc.inputs[sp].pos, &rc.origin, msg);
                }
            }
            let (h, dirs) = (cell.spec.hidden as u64, q.direction.count() as u64);
            let ports = if io.c.is_some() { 3 } else { 2 };
            for port in (0..ports).filter(|&p| !returned(k, p)) {
                let n = if port == 0 { dirs * q.steps as u64 * h } else { dirs * h };
                if n > MAX_LOCAL_ELEMENTS {
                    let msg = format!(
                        "output {port} ({n} values a row) is returned by no Result, so generated code would hold it on the stack; cellc keeps at most {MAX_LOCAL_ELEMENTS} values there: return it from a Result"
                    );
                    self.err(rc.output_pos.get(port).copied().flatten(), &rc.origin, msg);
                }
            }
        }
    }

    /// The name a Parameter or a Result is known by in generated code (a string literal): its
    /// tensor's, else its layer's; at most [`MAX_NAME_BYTES`].
    fn tensor_name(&mut self, tensor: &Option<String>, origin: &Origin) -> Option<String> {
        let name = tensor.clone().unwrap_or_else(|| origin.name.clone());
        if name.len() > MAX_NAME_BYTES {
            let msg = format!(
                "the name {} is {} bytes long; cellc takes names of at most {MAX_NAME_BYTES} bytes (generated C holds them in string literals)",
                shown(&name),
                name.len()
            );
            self.err(None, origin, msg);
            return None;
        }
        Some(name)
    }

    fn err(&mut self, pos: Option<Pos>, o: &Origin, msg: impl Into<String>) {
        self.diags.push(Diag::new(&self.m.file, pos.or(o.pos), msg).in_layer(&o.name, &o.op));
    }

    fn param(&mut self, i: usize, p: &raw::Param) -> Option<ir::Param> {
        let int = matches!(p.elem.trim().to_ascii_lowercase().as_str(), "i32" | "i64");
        if self.roles[i] == Some(ParamRole::Lengths) {
            if !(int || ElemType::parse(&p.elem) == Some(ElemType::F32)) {
                let msg = format!(
                    "element type {:?} is not supported for sequence lengths; expected i32, i64 or f32",
                    p.elem
                );
                self.err(None, &p.origin, msg);
                return None;
            }
        } else if ElemType::parse(&p.elem) != Some(ElemType::F32) {
            self.err(
                None,
                &p.origin,
                format!(
                    "element type {:?} is not supported; cellc generates f32 kernels and expects f32 Parameters",
                    p.elem
                ),
            );
            return None;
        }
        let elements = crate::limits::product(p.shape.iter().map(|d| match d {
            raw::Dim::Static(n) => *n,
            raw::Dim::Dynamic => 1,
        }));
        if p.shape.len() > MAX_RANK || elements.is_none_or(|n| n > MAX_TENSOR_ELEMENTS) {
            let msg = format!(
                "shape {} is too large; cellc takes tensors of at most {MAX_RANK} dimensions and {MAX_TENSOR_ELEMENTS} elements",
                raw::show_dims(&p.shape)
            );
            self.err(None, &p.origin, msg);
            return None;
        }
        let role = self.roles[i].unwrap_or(ParamRole::Data);
        let used_as_data = matches!(self.roles[i], Some(ParamRole::Data | ParamRole::Lengths));
        let mut shape = Vec::new();
        for (k, d) in p.shape.iter().enumerate() {
            shape.push(match d {
                _ if k == 0 && used_as_data => Dim::Batch,
                raw::Dim::Static(n) => Dim::Static(*n as usize),
                raw::Dim::Dynamic if k == 0 && role != ParamRole::Weights => Dim::Batch,
                raw::Dim::Dynamic => {
                    self.err(None, &p.origin, format!("shape {} has a dynamic dimension at position {k}; only the batch (first) dimension of data may be dynamic", raw::show_dims(&p.shape)));
                    return None;
                }
            });
        }
        let name = self.tensor_name(&p.tensor_name, &p.origin)?;
        Some(ir::Param { name, shape, role })
    }

    fn use_param(&mut self, i: usize, role: ParamRole, user: &Origin, input: &str) {
        match self.roles[i] {
            Some(r) if r != role => {
                let what = |r| match r {
                    ParamRole::Data => "data (X, a state or a Result)",
                    ParamRole::Weights => "weights (W, R or B)",
                    ParamRole::Lengths => "sequence lengths",
                };
                let msg = format!(
                    "{input} is Parameter {}, which is also used as {}; a Parameter has one use: data, weights or sequence lengths",
                    shown(&self.m.params[i].origin.name),
                    what(r)
                );
                self.err(None, user, msg);
            }
            _ => self.roles[i] = Some(role),
        }
    }

    fn note_batch(&mut self, d: raw::Dim, cell: &Origin, pos: Option<Pos>, what: &str) {
        match &self.batch {
            None => self.batch = Some((d, format!("{what} of layer {:?}", cell.name))),
            Some((b, _)) if *b == d => {}
            Some((b, first)) => {
                let text = |d: &raw::Dim| match d {
                    raw::Dim::Static(n) => n.to_string(),
                    raw::Dim::Dynamic => "dynamic".to_owned(),
                };
                let msg = format!(
                    "the batch of {what} is {}, but {first} has batch {}; every cell of a model must share one batch, all static and equal or all dynamic",
                    text(&d),
                    text(b),
                );
                self.err(pos, cell, msg);
            }
        }
    }

    fn activations(&mut self, c: &raw::Cell, kind: CellKind) -> Option<Vec<Activation>> {
        match resolve_activations(kind, c.activations.as_deref(), &c.alpha, &c.beta) {
            Ok(a) => Some(a),
            Err((at, msg)) => {
                let pos = match at {
                    Some(i) => c.activation_pos(i),
                    None => c.attr_pos("activations"),
                };
                self.err(pos, &c.origin, msg);
                None
            }
        }
    }

    fn cell(&mut self, c: &raw::Cell) -> Option<(ir::Cell, CellIo)> {
        let o = &c.origin;
        let kind = match c.op {
            CellOp::Gru => CellKind::Gru { linear_before_reset: c.linear_before_reset },
            CellOp::Rnn => CellKind::Rnn,
            CellOp::Lstm => CellKind::Lstm,
        };
        if let Some(why) = c.layout.refuses(kind) {
            self.err(c.attr_pos("layout"), o, format!("the {} layout: {why}", c.layout));
            return None;
        }
        // Ports: X, H (and C for an LSTM), sequence_lengths (Sequence forms), then W, R and B.
        let sp = if kind.has_cell_state() { 3 } else { 2 };
        let wp = sp + usize::from(c.sequence);
        let mut ok = true;
        if let Some(p) = c.precision.as_ref().filter(|p| ElemType::parse(p) != Some(ElemType::F32)) {
            let msg = format!("the cell computes in {p}; cellc generates f32 kernels and compiles only f32 cells");
            self.err(None, o, msg);
            ok = false;
        }
        let clip = match resolve_clip(c.clip) {
            Ok(clip) => clip,
            Err(msg) => {
                self.err(c.attr_pos("clip"), o, msg);
                ok = false;
                None
            }
        };
        let direction = if c.sequence { self.direction(c) } else { Some(Direction::Forward) };
        let activations = self.activations(c, kind);
        if c.hidden_size <= 0 || c.hidden_size as u64 > MAX_CELL_SIZE {
            // Every shape check derives from hidden_size: reporting them would only repeat this.
            let msg = format!("`hidden_size` is {}; expected 1 to {MAX_CELL_SIZE}", c.hidden_size);
            self.err(c.attr_pos("hidden_size"), o, msg);
            return None;
        }
        if !(wp + 2..=wp + 3).contains(&c.inputs.len()) {
            let names = input_names(c);
            let msg = format!(
                "has {} inputs; expected {} ({}) or {} (with B)",
                c.inputs.len(),
                wp + 2,
                names[..wp + 2].join(", "),
                wp + 3
            );
            self.err(None, o, msg);
            return None;
        }
        let h = c.hidden_size as u64;
        let g = kind.gates() as u64;
        let dirs = direction.map_or(1, Direction::count) as u64;
        use raw::Dim::{Dynamic as D, Static as S};
        // Input size (and steps) from X's port, which every later shape is checked against.
        let size_ok = |i: u64| (1..=MAX_CELL_SIZE).contains(&i);
        let (steps, input_size) = match (c.sequence, c.inputs[0].dims.as_slice()) {
            (false, [_, S(i)]) if size_ok(*i) => (None, Some(*i)),
            (true, [_, S(l), S(i)]) if size_ok(*i) && (1..=MAX_STEPS).contains(l) => (Some(*l), Some(*i)),
            (seq, d) => {
                let want = if seq {
                    format!(
                        "[batch, steps, input_size] with static steps of 1 to {MAX_STEPS} and an input_size of 1 to {MAX_CELL_SIZE}"
                    )
                } else {
                    format!("[batch, input_size] with a static input_size of 1 to {MAX_CELL_SIZE}")
                };
                self.err(c.inputs[0].pos, o, format!("input 0 (X) has shape {}; expected {want}", raw::show_dims(d)));
                (None, None)
            }
        };
        let i = input_size.unwrap_or(0);
        // The batch dimension (written `?` in `want`) is checked across cells separately.
        let expect = |this: &mut Self, port: usize, want: &[raw::Dim]| {
            let got = &c.inputs[port].dims;
            let matches = got.len() == want.len()
                && got.iter().zip(want).all(|(a, b)| a == b || *b == raw::Dim::Dynamic && port < wp);
            if !matches {
                let want = raw::show_dims(want).replacen("[?", "[batch", 1);
                let msg = format!("{} has shape {}; expected {want}", input_label(c, port), raw::show_dims(got));
                this.err(c.inputs[port].pos, o, msg);
            }
            matches
        };
        // Per-direction blocks lead the weights and states of the Sequence forms.
        let per_dir = |rest: &[raw::Dim]| -> Vec<raw::Dim> {
            if c.sequence { std::iter::once(S(dirs)).chain(rest.iter().copied()).collect() } else { rest.to_vec() }
        };
        for port in 1..sp {
            let mut want = vec![D];
            want.extend(per_dir(&[S(h)]));
            ok &= expect(self, port, &want);
        }
        if c.sequence {
            ok &= expect(self, sp, &[D]);
        }
        if input_size.is_some() {
            ok &= expect(self, wp, &per_dir(&[S(g * h), S(i)]));
        } else {
            ok = false;
        }
        ok &= expect(self, wp + 1, &per_dir(&[S(g * h), S(h)]));
        if c.inputs.len() == wp + 3 {
            ok &= expect(self, wp + 2, &per_dir(&[S(c.layout.bias_blocks(kind) as u64 * h)]));
        }
        let n_out = if kind.has_cell_state() { 2 } else { 1 } + usize::from(c.sequence);
        // Without a valid X the output shapes cannot be known: its error says it all.
        let outputs_known = input_size.is_some();
        for k in (0..n_out).filter(|_| outputs_known) {
            let mut want = vec![D];
            if c.sequence {
                want.push(S(dirs));
                if k == 0 {
                    want.push(S(steps.unwrap_or(0)));
                }
            }
            want.push(S(h));
            let dims = c.output_dims.get(k).map_or(&[][..], Vec::as_slice);
            let matches = dims.len() == want.len() && dims.iter().zip(&want).skip(1).all(|(a, b)| a == b);
            if !matches {
                let msg = format!(
                    "output {k} has shape {}; expected {}",
                    raw::show_dims(dims),
                    raw::show_dims(&want).replacen("[?", "[batch", 1)
                );
                self.err(c.output_pos.get(k).copied().flatten(), o, msg);
                ok = false;
            }
        }
        for port in 0..wp {
            if let Some(&d) = c.inputs[port].dims.first() {
                self.note_batch(d, o, c.inputs[port].pos, &input_label(c, port));
            }
        }
        let x = self.data_source(c, 0);
        let hs = self.data_source(c, 1);
        let cs = if kind.has_cell_state() { Some(self.data_source(c, 2)) } else { None };
        let lengths = if c.sequence { Some(self.lengths(c, sp, steps.unwrap_or(0))) } else { None };
        let w = self.weight_source(c, wp);
        let r = self.weight_source(c, wp + 1);
        let b = if c.inputs.len() == wp + 3 { Some(self.weight_source(c, wp + 2)) } else { None };
        let spec = CellSpec { kind, hidden: h as usize, input: i as usize, activations: activations?, clip };
        let direction = direction?;
        if !ok {
            return None;
        }
        // Weights in another tool's layout become the kernels' layout here, once, now that
        // their shapes are known to fit it.
        let (w, r, b) = (
            w.and_then(|w| self.relayout(c, kind, w, false, dirs as usize)),
            r.and_then(|r| self.relayout(c, kind, r, false, dirs as usize)),
            b.map(|b| b.and_then(|b| self.relayout(c, kind, b, true, dirs as usize))),
        );
        let b = b.map_or(Some(None), |b| b.map(Some))?;
        let cs = cs.map_or(Some(None), |c| c.map(Some))?;
        let seq = match lengths {
            Some(l) => Some(Seq { direction, steps: steps? as usize, lengths: l? }),
            None => None,
        };
        let io = CellIo { x: x?, h: hs?, c: cs };
        Some((ir::Cell { name: o.name.clone(), spec, w: w?, r: r?, b, seq, layout: c.layout }, io))
    }

    fn direction(&mut self, c: &raw::Cell) -> Option<Direction> {
        match resolve_direction(c.direction.as_deref()) {
            Ok(d) => Some(d),
            Err(msg) => {
                self.err(c.attr_pos("direction"), &c.origin, msg);
                None
            }
        }
    }

    /// Every op cellc does not compile that a cell or a Result depends on, each at its layer
    /// (those feeding a cell or a Result directly are named there).
    fn unsupported_ops(&mut self) {
        for u in &self.m.unsupported {
            if !self.named.contains(u) {
                let msg = format!(
                    "cellc does not compile {} layers yet, and a cell or a Result depends on this one",
                    crate::limits::cut(&u.op)
                );
                self.err(None, u, msg);
            }
        }
    }

    fn unsupported(&mut self, c: &raw::Cell, port: usize, what: &str) {
        let label = input_label(c, port);
        if let Source::Unsupported(u) = &c.inputs[port].source {
            self.named.push(u.clone());
        }
        let msg = match &c.inputs[port].source {
            Source::Missing => format!("{label} is not connected; expected {what}"),
            Source::Unsupported(u) => {
                format!(
                    "{label} is fed by layer {:?} ({}), which cellc does not compile; expected {what}",
                    u.name, u.op
                )
            }
            Source::Const(_) => format!("{label} is a constant; expected {what}"),
            Source::Cell(..) => format!("{label} is the output of a cell; expected {what}"),
            Source::Param(_) => format!("{label} is a Parameter; expected {what}"),
        };
        self.err(c.inputs[port].pos, &c.origin, msg);
    }

    fn data_source(&mut self, c: &raw::Cell, port: usize) -> Option<Value> {
        let label = input_label(c, port);
        let (value, declared, what) = match c.inputs[port].source {
            Source::Param(p) => {
                self.use_param(p, ParamRole::Data, &c.origin, &label);
                let what = format!("Parameter {:?} has shape", self.m.params[p].origin.name);
                (Value::Param(p), &self.m.params[p].shape, what)
            }
            Source::Cell(k, out) => {
                let what = format!("cell {:?} outputs", self.m.cells[k].origin.name);
                (Value::Cell(k, out), self.m.cells[k].output_dims.get(out)?, what)
            }
            _ => {
                self.unsupported(c, port, "a Parameter or the output of another cell");
                return None;
            }
        };
        if *declared != c.inputs[port].dims {
            let msg = format!(
                "{label} is declared {} but {what} {}",
                raw::show_dims(&c.inputs[port].dims),
                raw::show_dims(declared)
            );
            self.err(c.inputs[port].pos, &c.origin, msg);
            return None;
        }
        Some(value)
    }

    fn output(&mut self, o: &raw::Output, cells: &[Option<(ir::Cell, CellIo)>]) -> Option<(ir::Output, Value)> {
        let name = self.tensor_name(&o.tensor_name, &o.origin)?;
        let (value, shape) = match &o.source {
            Source::Param(p) => {
                self.use_param(*p, ParamRole::Data, &o.origin, "the Result's input");
                if let Some(&d) = self.m.params[*p].shape.first() {
                    self.note_batch(d, &o.origin, None, "the Result");
                }
                let shape = self.m.params[*p].shape.iter().enumerate().map(|(k, d)| match d {
                    raw::Dim::Static(n) if k > 0 => Dim::Static(*n as usize),
                    _ => Dim::Batch,
                });
                (Value::Param(*p), shape.collect())
            }
            Source::Cell(c, port) => {
                let cell = cells[*c].as_ref().map(|(c, _)| c);
                let h = Dim::Static(cell.map_or(0, |c| c.spec.hidden));
                let shape = match cell.and_then(|c| c.seq.as_ref()) {
                    None => vec![Dim::Batch, h],
                    Some(q) if *port == 0 => {
                        vec![Dim::Batch, Dim::Static(q.direction.count()), Dim::Static(q.steps), h]
                    }
                    Some(q) => vec![Dim::Batch, Dim::Static(q.direction.count()), h],
                };
                (Value::Cell(*c, *port), shape)
            }
            Source::Unsupported(u) => {
                self.named.push(u.clone());
                let msg = format!(
                    "is fed by layer {:?} ({}), which cellc does not compile; expected a cell or a Parameter",
                    u.name, u.op
                );
                self.err(None, &o.origin, msg);
                return None;
            }
            Source::Missing | Source::Const(_) => {
                self.err(None, &o.origin, "expected the output of a cell or a Parameter as input");
                return None;
            }
        };
        Some((ir::Output { name, shape }, value))
    }
}
