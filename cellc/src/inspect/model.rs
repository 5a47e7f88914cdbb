//! What `cellc inspect` says of a model cellc compiles: its cells with the bytes their
//! weights take as stored, its dense layers, and the steps a run performs.
use crate::emit::plan::{Plan, Store, StoreError};
use crate::ir::{Batch, Cell, CellKind, Dim, Home, Lengths, Model, ParamRole, Step, WeightSrc};
use crate::options::Options;
use std::fmt::Write as _;

/// The compiled model, as `inspect` reports it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Compiled {
    /// The batch: a size, or `dynamic` (rows run one at a time).
    pub batch: String,
    /// Per Result, what computes it.
    pub output_sources: Vec<String>,
    /// Per cell (a Sequence op is one cell), the bytes its weights take.
    pub cells: Vec<Stored>,
    /// Per dense layer, the bytes its weights take.
    pub dense_layers: Vec<Stored>,
    /// The steps a run performs, in order.
    pub steps: Vec<String>,
    /// Bytes of the scratch the steps share (inside the model value).
    pub scratch_bytes: usize,
    /// Bytes of all the weights embedded in the generated code, as stored.
    pub embedded_weight_bytes: usize,
    /// Bytes of the other tables embedded in the generated code: the constants the steps
    /// read and the index tables of gathers.
    pub constant_bytes: usize,
    /// Multiply-adds of the recurrent cells' matrix products per step, per batch row.
    pub cell_macs_per_step: usize,
    /// The description `cellc inspect` prints.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub text: String,
}

/// How a cell's or a dense layer's weights are stored in the generated code.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Stored {
    /// The layer.
    pub layer: String,
    /// How the matrices are stored (`f32`, `f16` or `bf16`; biases are f32).
    pub matrices: String,
    /// Bytes of the packed tables embedded in the generated code (padding included).
    pub embedded_bytes: usize,
    /// Bytes held in the generated value for weights given at run time.
    pub runtime_bytes: usize,
    /// How a dense layer runs (its kernel, as the emitters' plan chose it); `None` for a
    /// cell.
    pub kernel: Option<String>,
}

/// Bytes of one element of a packed array stored as `s` (bf16 lanes come in pairs, a `u32`
/// word each, which the array's length counts).
fn elem_bytes(s: Store) -> usize {
    match s {
        Store::F32 | Store::Bf16 => 4,
        Store::F16 => 2,
        Store::I8 => 1,
    }
}

/// The bytes `cell`'s packed arrays take with the options' strategy and weight type.
fn cell_stored(cell: &Cell, opts: &Options) -> Result<Stored, StoreError> {
    let store = crate::emit::plan::store(cell, opts.weight_type.in_language(opts.language))?;
    let dirs = cell.seq.as_ref().map_or(1, |q| q.direction.count());
    let (mut embedded, mut runtime) = (0usize, 0usize);
    for d in 0..dirs {
        let one = match &cell.seq {
            Some(q) => crate::emit::plan::direction_cell(cell, q, d),
            None => cell.clone(),
        };
        let plan = Plan::new(&one, opts.strategy.resolve(), store);
        for slot in plan.slots() {
            let bytes = plan.slot_len(slot).saturating_mul(elem_bytes(plan.slot_store(slot)));
            if plan.is_runtime(slot.tensor) {
                runtime = runtime.saturating_add(bytes);
            } else {
                embedded = embedded.saturating_add(bytes);
            }
        }
    }
    Ok(Stored {
        layer: cell.name.clone(),
        matrices: store.name().to_owned(),
        embedded_bytes: embedded,
        runtime_bytes: runtime,
        kernel: None,
    })
}

/// The bytes a dense layer's tables take in the language the options name (its emitters'
/// plan: see [`crate::emit::dense_plan::DensePlan`]).
fn dense_stored(d: &crate::ir::Dense, opts: &Options) -> Result<Stored, StoreError> {
    let plan = crate::emit::dense_plan::DensePlan::of(d, opts.weight_type.in_language(opts.language))?;
    let kernel = if plan.winograd {
        "by F(2×2, 3×3) (Winograd's minimal filtering)"
    } else if plan.planar {
        "by the planar kernel (channels first)"
    } else if d.win.is_some() {
        "by the direct sum over windows read in place (channels last)"
    } else {
        "by the packed product"
    };
    Ok(Stored {
        layer: d.name.clone(),
        matrices: plan.store.name().to_owned(),
        embedded_bytes: plan.table_bytes(d, opts.language),
        runtime_bytes: 0,
        kernel: Some(kernel.to_owned()),
    })
}

/// The report on a validated model, or why its weights cannot be stored as asked.
pub(crate) fn compiled(m: &Model, opts: &Options) -> Result<Compiled, StoreError> {
    let cells = m.cells.iter().map(|c| cell_stored(c, opts)).collect::<Result<Vec<_>, _>>()?;
    let dense_layers = m.denses.iter().map(|d| dense_stored(d, opts)).collect::<Result<Vec<_>, _>>()?;
    let embedded_weight_bytes = cells.iter().chain(&dense_layers).map(|s| s.embedded_bytes).sum();
    let scratch = crate::emit::scratch_bytes(m, opts.weight_type.in_language(opts.language))?;
    let cell_macs_per_step =
        m.cells.iter().map(|c| c.spec.macs() * c.seq.as_ref().map_or(1, |q| q.direction.count())).sum();
    Ok(Compiled {
        batch: match m.batch {
            Batch::Static(n) => n.to_string(),
            Batch::Dynamic => "dynamic".to_owned(),
        },
        output_sources: (0..m.outputs.len()).map(|i| source(m, Home::Output(i))).collect(),
        steps: m.steps.iter().map(|s| m.step_text(s)).collect(),
        scratch_bytes: scratch,
        text: describe_stored(m, Some((&cells, &dense_layers, scratch))),
        cells,
        dense_layers,
        embedded_weight_bytes,
        constant_bytes: constant_bytes(m),
        cell_macs_per_step,
    })
}

/// The bytes of the model's constants and of its gathers' index tables (or runs), as the
/// generated code holds them.
fn constant_bytes(m: &Model) -> usize {
    let values = m.consts.iter().map(Vec::len).chain(m.steps.iter().filter_map(|s| match s {
        crate::ir::Step::Pick(p) => Some(crate::emit::runs::GatherForm::of(&p.table).index_values(&p.table)),
        _ => None,
    }));
    values.fold(0usize, |n, v| n.saturating_add(v.saturating_mul(4)))
}

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

#[doc(hidden)]
/// [`describe_stored`] with the weights' bytes as f32: the fuzzer's way to inspect a model
/// it made (hidden, as the validated model it takes).
pub fn describe(m: &Model) -> String {
    describe_stored(m, None)
}

/// Describes a validated model: its inputs and outputs, and per cell its attributes,
/// shapes, FLOPs per step and weight bytes (as the generated code stores them, when
/// `stored` gives them; else as f32).
fn describe_stored(m: &Model, stored: Option<(&[Stored], &[Stored], usize)>) -> String {
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
    for st in &m.states {
        let _ = writeln!(
            s,
            "  state {:?}: {} values, carried from one run to the next (zero after a reset)",
            st.name, st.len
        );
    }
    for (k, c) in m.cells.iter().enumerate() {
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
        let mut ws: Vec<(&str, Option<&WeightSrc>, Vec<usize>)> = vec![
            ("W", Some(&c.w), vec![g, sp.input]),
            ("R", Some(&c.r), vec![g, sp.hidden]),
            ("B", c.b.as_ref(), vec![sp.kind.bias_blocks() * sp.hidden]),
        ];
        // Only an LSTM that has them shows its peepholes.
        if c.p.is_some() {
            ws.push(("P (peepholes, held f, i, o)", c.p.as_ref(), vec![3 * sp.hidden]));
        }
        for (name, w, shape) in ws {
            let dims: Vec<String> = dirs.iter().chain(&shape).map(ToString::to_string).collect();
            let shape = format!("[{}]", dims.join(", "));
            let what = match w {
                None => "absent (zero)".to_owned(),
                Some(WeightSrc::Embedded { values, stored }) => {
                    format!("embedded, {} values ({} in the model)", values.len(), stored)
                }
                Some(WeightSrc::Runtime(p)) => {
                    format!("runtime, from Parameter {:?}", m.params[*p].name)
                }
            };
            let _ = writeln!(s, "  {name} {shape}: {what}");
        }
        if let Some(st) = stored.and_then(|(cells, _, _)| cells.get(k)) {
            stored_line(&mut s, st);
        }
        let macs = sp.macs() * dirs.unwrap_or(1);
        let _ = writeln!(s, "  FLOPs per step per row: {} (matrix products; {macs} multiply-adds)", 2 * macs);
    }
    if let Some((_, denses, _)) = stored {
        for (d, st) in m.denses.iter().zip(denses) {
            let groups = match d.groups {
                1 => String::new(),
                g => format!(", in {g} groups of {} (each over its own channels)", d.group_outputs()),
            };
            let _ = writeln!(s, "dense layer {:?}: {} inputs, {} outputs a row{groups}", d.name, d.k, d.n);
            if let Some(k) = &st.kernel {
                let _ = writeln!(s, "  runs {k}");
            }
            stored_line(&mut s, st);
        }
    }
    steps(m, stored.map(|(_, _, scratch)| scratch), &mut s);
    s
}

fn stored_line(s: &mut String, st: &Stored) {
    let mut parts = vec![format!("{} bytes embedded", st.embedded_bytes)];
    if st.runtime_bytes > 0 {
        parts.push(format!("{} bytes held for weights given at run time", st.runtime_bytes));
    }
    let _ = writeln!(s, "  stored: matrices as {}, biases as f32; {} (packed tables)", st.matrices, parts.join(", "));
}

/// What writes a home last, for [`source`].
enum Writer {
    /// A copy from another home: follow it.
    Moved(Home),
    /// A step that computes it.
    Computed(String),
}

/// What the value in `home` comes from: a Parameter, a cell's output, or another step,
/// followed through the copies that move it — each time to the last step that wrote the
/// copy's source before the copy (scratch slots are shared by values live at other times),
/// and said moved when copies (a transpose, a slice…) brought it there.
fn source(m: &Model, mut home: Home) -> String {
    let mut before = m.steps.len();
    let mut moved = false;
    for _ in 0..=m.steps.len() {
        let writer = m.steps[..before].iter().enumerate().rev().find_map(|(k, s)| match s {
            Step::Cell(c) => c.out.iter().position(|o| o.home == home).map(|port| {
                let names: &[&str] = if m.cells[c.cell].seq.is_some() { &["Y", "Ho", "Co"] } else { &["Ho", "Co"] };
                let port = names.get(port).copied().unwrap_or("?");
                (k, Writer::Computed(format!("cell {:?} ({port})", m.cells[c.cell].name)))
            }),
            Step::Copy(c) if c.dst.home == home => Some((k, Writer::Moved(c.src.home))),
            Step::Rows(c) if c.dst.home == home => Some((k, Writer::Moved(c.src.home))),
            Step::Pick(c) if c.dst.home == home => Some((k, Writer::Moved(c.src.home))),
            Step::Init(_) | Step::Copy(_) | Step::Rows(_) | Step::Pick(_) => None,
            s if dst(s) == Some(home) => Some((k, Writer::Computed(m.step_text(s)))),
            _ => None,
        });
        let moved_by = if moved { ", moved by copies (a transpose, a slice or a gather)" } else { "" };
        match writer {
            Some((_, Writer::Moved(Home::Param(p)))) => return format!("Parameter {:?}{moved_by}", m.params[p].name),
            Some((_, Writer::Moved(Home::State(k)))) => return format!("variable {:?}{moved_by}", m.states[k].name),
            Some((k, Writer::Moved(from))) => {
                (home, before, moved) = (from, k, true);
            }
            Some((_, Writer::Computed(w))) => return format!("{w}{moved_by}"),
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
        Step::Pool(x) => Some(x.dst.home),
        Step::Take(x) => Some(x.dst.home),
        Step::TopK(x) => Some(x.values.home),
        Step::Cell(_) | Step::Copy(_) | Step::Rows(_) | Step::Init(_) | Step::Pick(_) => None,
    }
}

/// The steps a run performs, one line each, and the scratch memory they share.
fn steps(m: &Model, scratch: Option<usize>, s: &mut String) {
    let bytes = scratch.unwrap_or_else(|| m.slots.iter().sum::<usize>().saturating_mul(4));
    let _ = writeln!(s, "steps ({} per row; scratch: {} slots, {bytes} bytes)", m.steps.len(), m.slots.len());
    for (k, st) in m.steps.iter().enumerate() {
        let _ = writeln!(s, "  {k}: {}", m.step_text(st));
    }
}
