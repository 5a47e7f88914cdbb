//! `cellc inspect`: a plain-text account of what a model holds.
use crate::ir::{Batch, CellKind, Dim, Model, ParamRole, Value, WeightSrc};
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
        };
        let _ = writeln!(s, "  input {i} {:?} {} ({role})", p.name, dims(&p.shape, m.batch));
    }
    for (i, o) in m.outputs.iter().enumerate() {
        let from = match o.value {
            Value::Param(p) => format!("Parameter {:?}", m.params[p].name),
            Value::Cell(c, 0) => format!("cell {:?}", m.cells[c].name),
            Value::Cell(c, _) => format!("cell {:?} (cell state)", m.cells[c].name),
        };
        let _ = writeln!(s, "  output {i} {:?} {} from {from}", o.name, dims(&o.shape, m.batch));
    }
    for c in &m.cells {
        let sp = &c.spec;
        let _ = writeln!(s, "cell {:?}: {}", c.name, sp.kind.op());
        let _ = writeln!(s, "  hidden_size {}, input_size {}", sp.hidden, sp.input);
        let acts: Vec<String> = sp.activations.iter().map(ToString::to_string).collect();
        let _ = writeln!(s, "  activations {}", acts.join(", "));
        let _ = writeln!(s, "  clip {}", sp.clip.map_or("none".to_owned(), |c| c.to_string()));
        if let CellKind::Gru { linear_before_reset } = sp.kind {
            let _ = writeln!(s, "  linear_before_reset {linear_before_reset}");
        }
        let g = sp.kind.gates() * sp.hidden;
        let ws = [
            ("W", Some(&c.w), [g, sp.input]),
            ("R", Some(&c.r), [g, sp.hidden]),
            ("B", c.b.as_ref(), [sp.kind.bias_blocks() * sp.hidden, 1]),
        ];
        for (name, w, shape) in ws {
            let shape = if name == "B" { format!("[{}]", shape[0]) } else { format!("[{}, {}]", shape[0], shape[1]) };
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
        let _ =
            writeln!(s, "  FLOPs per step per row: {} (matrix products; {} multiply-adds)", 2 * sp.macs(), sp.macs());
    }
    s
}
