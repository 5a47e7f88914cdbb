//! `cellc inspect`: a plain-text account of what a model holds.
use crate::ir::{Batch, CellKind, Dim, Home, Lengths, Model, ParamRole, Step, WeightSrc};
use std::fmt::Write as _;

fn dims(shape: &[Dim], batch: Batch) -> String {
    let parts: Vec<String> = shape
        .iter()
        .map(|d| match (*d, batch) {
            (Dim::Static(n), _) | (Dim::Batch, Batch::Static(n)) => n.to_string(),
            (Dim::Batch, Batch::Dynamic) => "batch".to_owned(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// The kernels' gate order, in which the weights are held.
fn gate_names(kind: CellKind) -> &'static str {
    match kind {
        CellKind::Gru { .. } => "z, r, h",
        CellKind::Rnn => "one",
        CellKind::Lstm => "f, i, c, o",
    }
}

/// Describes a validated model: its inputs and outputs, and per cell its attributes,
/// shapes, FLOPs per step and weight bytes.
pub fn describe(m: &Model) -> String {
    let mut s = String::new();
    let batch = match m.batch {
        Batch::Static(n) => n.to_string(),
        Batch::Dynamic => "dynamic".to_owned(),
    };
    let _ = writeln!(s, "model {:?} ({}), batch {batch}", m.name, m.file);
    for (i, p) in m.params.iter().enumerate() {
        let role = match p.role {
            ParamRole::Data => "data",
            ParamRole::Weights => "runtime weights",
            ParamRole::Lengths => "sequence lengths",
        };
        let _ = writeln!(s, "  input {i} {:?} {} ({role})", p.name, dims(&p.shape, m.batch));
    }
    for (i, o) in m.outputs.iter().enumerate() {
        let from = source(m, Home::Output(i));
        let _ = writeln!(s, "  output {i} {:?} {} from {from}", o.name, dims(&o.shape, m.batch));
    }
    for c in &m.cells {
        let sp = &c.spec;
        match &c.seq {
            None => {
                let _ = writeln!(s, "cell {:?}: {}", c.name, sp.kind.op());
            }
            Some(q) => {
                let op = sp.kind.op().replace("Cell", "Sequence");
                let lengths = match &q.lengths {
                    Lengths::Param(p) => format!("from Parameter {:?}", m.params[*p].name),
                    Lengths::Const(v) => format!("constant {v:?}"),
                };
                let _ = writeln!(s, "cell {:?}: {op}", c.name);
                let _ =
                    writeln!(s, "  direction {}, {} steps, sequence lengths {lengths}", q.direction.name(), q.steps);
            }
        }
        let _ = writeln!(s, "  hidden_size {}, input_size {}", sp.hidden, sp.input);
        let _ = writeln!(s, "  gate layout {} (held as {})", c.layout, gate_names(sp.kind));
        let acts: Vec<String> = sp.activations.iter().map(ToString::to_string).collect();
        let _ = writeln!(s, "  activations {}", acts.join(", "));
        let _ = writeln!(s, "  clip {}", sp.clip.map_or("none".to_owned(), |c| c.to_string()));
        if let CellKind::Gru { linear_before_reset } = sp.kind {
            let _ = writeln!(s, "  linear_before_reset {linear_before_reset}");
        }
        let g = sp.kind.gates() * sp.hidden;
        let dirs = c.seq.as_ref().map(|q| q.direction.count());
        let ws: [(&str, Option<&WeightSrc>, &[usize]); 3] = [
            ("W", Some(&c.w), &[g, sp.input]),
            ("R", Some(&c.r), &[g, sp.hidden]),
            ("B", c.b.as_ref(), &[sp.kind.bias_blocks() * sp.hidden]),
        ];
        for (name, w, shape) in ws {
            let dims: Vec<String> = dirs.iter().chain(shape).map(ToString::to_string).collect();
            let shape = format!("[{}]", dims.join(", "));
            let what = match w {
                None => "absent (zero)".to_owned(),
                Some(WeightSrc::Embedded { values, stored }) => {
                    format!("embedded, {} bytes as f32 ({} in the model)", values.len() * 4, stored)
                }
                Some(WeightSrc::Runtime(p)) => {
                    format!("runtime, from Parameter {:?}", m.params[*p].name)
                }
            };
            let _ = writeln!(s, "  {name} {shape}: {what}");
        }
        let macs = sp.macs() * dirs.unwrap_or(1);
        let _ = writeln!(s, "  FLOPs per step per row: {} (matrix products; {macs} multiply-adds)", 2 * macs);
    }
    steps(m, &mut s);
    s
}

/// What writes a home last, for [`source`].
enum Writer {
    /// A copy from another home: follow it.
    Moved(Home),
    /// A step that computes it.
    Computed(String),
}

/// What the value in `home` comes from: a Parameter, a cell's output, or another step,
/// followed through the copies that move it.
fn source(m: &Model, mut home: Home) -> String {
    for _ in 0..=m.steps.len() {
        let writer = m.steps.iter().rev().find_map(|s| match s {
            Step::Cell(c) => c.out.iter().position(|o| o.home == home).map(|port| {
                let names: &[&str] = if m.cells[c.cell].seq.is_some() { &["Y", "Ho", "Co"] } else { &["Ho", "Co"] };
                let port = names.get(port).copied().unwrap_or("?");
                Writer::Computed(format!("cell {:?} ({port})", m.cells[c.cell].name))
            }),
            Step::Copy(c) if c.dst.home == home => Some(Writer::Moved(c.src.home)),
            Step::Rows(c) if c.dst.home == home => Some(Writer::Moved(c.src.home)),
            Step::Init(_) | Step::Copy(_) | Step::Rows(_) => None,
            s if dst(s) == Some(home) => Some(Writer::Computed(what(m, s))),
            _ => None,
        });
        match writer {
            Some(Writer::Moved(Home::Param(p))) => return format!("Parameter {:?}", m.params[p].name),
            Some(Writer::Moved(Home::State(k))) => return format!("variable {:?}", m.states[k].name),
            Some(Writer::Moved(from)) => home = from,
            Some(Writer::Computed(w)) => return w,
            None => break,
        }
    }
    "a constant".to_owned()
}

/// Where a computing step writes.
fn dst(s: &Step) -> Option<Home> {
    match s {
        Step::Map(x) => Some(x.dst.home),
        Step::MatMul(x) => Some(x.dst.home),
        Step::Dense(x) => Some(x.dst.home),
        Step::Softmax(x) => Some(x.dst.home),
        Step::Reduce(x) => Some(x.dst.home),
        Step::Cell(_) | Step::Copy(_) | Step::Rows(_) | Step::Init(_) => None,
    }
}

/// What a step does, in a few words.
fn what(m: &Model, s: &Step) -> String {
    let values = |axes: &mut dyn Iterator<Item = usize>| axes.product::<usize>();
    match s {
        Step::Cell(c) => format!("cell {:?}", m.cells[c.cell].name),
        Step::Copy(c) => format!("a copy of {} values", values(&mut c.axes.iter().map(|a| a[0]))),
        Step::Rows(r) => format!("a row of {} values moved", r.outer * r.inner),
        Step::Init(i) => format!("the first value of variable {:?}", m.states[i.state].name),
        Step::Map(x) => {
            let fs: Vec<String> = x.f.instrs.iter().map(|i| fn_name(i.f)).collect();
            let n = values(&mut x.axes.iter().map(|a| a[0]));
            if fs.len() == 1 {
                format!("elementwise {} over {n} values", fs[0])
            } else {
                format!("an elementwise chain over {n} values ({})", fs.join(", "))
            }
        }
        Step::MatMul(x) => format!("a matrix product ({}x{} by {}x{})", x.m, x.k, x.k, x.n),
        Step::Dense(x) => {
            let d = &m.denses[x.dense];
            let mut parts = vec![format!("{} rows, {} to {}", x.rows, d.k, d.n)];
            if d.bias.is_some() {
                parts.push("bias".to_owned());
            }
            if let Some(a) = d.act {
                parts.push(fn_name(crate::ir::steps::MapFn::Unary(a)));
            }
            format!("dense layer {:?} ({})", d.name, parts.join(", "))
        }
        Step::Softmax(x) => format!("a {} over {} values", if x.log { "log-softmax" } else { "softmax" }, x.len),
        Step::Reduce(x) => {
            format!("a reduction ({:?}) of {} values", x.kind, values(&mut x.inner.iter().map(|a| a[0]))).to_lowercase()
        }
    }
}

/// The name of an elementwise function.
fn fn_name(f: crate::ir::steps::MapFn) -> String {
    use crate::ir::steps::MapFn;
    let s = match f {
        MapFn::Unary(u) => format!("{u:?}"),
        MapFn::Binary(b) => format!("{b:?}"),
        MapFn::Compare(c) => format!("{c:?}"),
        MapFn::Select => "Select".to_owned(),
    };
    s.split([' ', '{', '(']).next().unwrap_or_default().to_lowercase()
}

/// The steps a run performs, one line each, and the scratch memory they share.
fn steps(m: &Model, s: &mut String) {
    let floats: usize = m.slots.iter().sum();
    let _ = writeln!(s, "steps ({} per row; scratch: {} slots, {} bytes)", m.steps.len(), m.slots.len(), floats * 4);
    for (k, st) in m.steps.iter().enumerate() {
        let _ = writeln!(s, "  {k}: {}", what(m, st));
    }
}
