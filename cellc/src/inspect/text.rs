//! The text `cellc inspect` prints: for a model cellc compiles, its description; for one it
//! refuses, what it read, the problems and what would make it compile.
use super::report::{CellInfo, Report, Size, TensorInfo};
use std::fmt::Write as _;

fn shape(s: &Option<Vec<Size>>) -> String {
    s.as_ref().map_or_else(
        || "[rank unknown]".to_owned(),
        |d| format!("[{}]", d.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
    )
}

/// An argument as a POSIX shell reads it: quoted when it holds more than safe characters.
fn shell(arg: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./:=,@%+".contains(c);
    if !arg.is_empty() && arg.chars().all(safe) { arg.to_owned() } else { format!("'{}'", arg.replace('\'', "'\\''")) }
}

fn tensors(s: &mut String, title: &str, ts: &[TensorInfo]) {
    let _ = writeln!(s, "{title}");
    for (i, t) in ts.iter().enumerate() {
        let _ = writeln!(s, "  {i} {:?} {} {}", t.name, shape(&t.shape), t.elem);
    }
}

/// What the model's format calls an op and the parts of a graph that are not layers: ONNX
/// has nodes, inputs, outputs and initializers; an IR layers, Parameters, Results and
/// constants.
fn words(file: &str) -> (&'static str, &'static str) {
    match crate::vocab::Format::of(std::path::Path::new(file)) {
        crate::vocab::Format::Onnx => ("node", "inputs, outputs and initializers"),
        crate::vocab::Format::OpenVino => ("layer", "Parameters, Results and constants"),
    }
}

fn cell(s: &mut String, c: &CellInfo, layer_word: &str) {
    let line = c.line.map(|l| format!(" (line {l})")).unwrap_or_default();
    let layer = if c.name == c.layer { String::new() } else { format!(" ({layer_word} {:?})", c.layer) };
    let _ = writeln!(s, "  {:?}{layer}{line}: {}", c.name, c.op);
    let mut attrs = vec![format!("hidden_size {}", c.hidden_size)];
    if let Some(i) = &c.input_size {
        attrs.push(format!("input size {i}"));
    }
    if let Some(d) = &c.direction {
        attrs.push(format!("direction {d}"));
    }
    let acts = if c.activations.is_empty() { "not resolved".to_owned() } else { c.activations.join(", ") };
    attrs.push(format!("activations {acts}"));
    attrs.push(match c.clip {
        0.0 => "no clip".to_owned(),
        c if c.is_nan() => "clip not valid".to_owned(),
        c => format!("clip {c}"),
    });
    if let Some(l) = c.linear_before_reset {
        attrs.push(format!("linear_before_reset {l}"));
    }
    let _ = writeln!(s, "    {}", attrs.join(", "));
    let ws: Vec<String> = c
        .weights
        .iter()
        .map(|w| match w.source.as_str() {
            "absent" => format!("{} absent", w.name),
            src => format!("{} {} {} {src}", w.name, shape(&w.shape), w.elem),
        })
        .collect();
    let _ = writeln!(s, "    {}", ws.join("; "));
}

/// The report as text.
pub(super) fn render(r: &Report) -> String {
    if let Some(c) = &r.compiled {
        return c.text.clone();
    }
    let mut s = String::new();
    let n = r.problems.len();
    let _ = writeln!(
        s,
        "model {:?} ({}): not compiled, {n} problem{} (below)",
        r.model,
        r.file,
        if n == 1 { "" } else { "s" }
    );
    tensors(&mut s, "inputs", &r.inputs);
    tensors(&mut s, "outputs", &r.outputs);
    let _ = writeln!(s, "recurrent cells ({})", r.cells.len());
    let (layer, besides) = words(&r.file);
    for c in &r.cells {
        cell(&mut s, c, layer);
    }
    let total: usize = r.layers.iter().map(|c| c.read).sum();
    let _ = writeln!(
        s,
        "{layer}s ({total}, besides {besides}), by type: how many run, how many the passes \
         computed at compile time, fused into another step or removed, and how many cellc does not compile"
    );
    let width = r.layers.iter().map(|c| c.op.len()).max().unwrap_or(0).max(4);
    let _ = writeln!(s, "  {:width$}  read   run  folded  NOT COMPILED", "type");
    for c in &r.layers {
        let bad = if c.unsupported > 0 { c.unsupported.to_string() } else { String::new() };
        let _ = writeln!(s, "  {:width$}  {:>4}  {:>4}  {:>6}  {bad}", c.op, c.read, c.run, c.folded);
        s.truncate(s.trim_end().len());
        s.push('\n');
    }
    let _ = writeln!(s, "problems");
    for p in &r.problems {
        let at = match (p.line, p.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", p.file),
            _ => p.file.clone(),
        };
        let layer = match (&p.layer, &p.op) {
            (Some(l), Some(o)) => format!("{layer} {} ({o}): ", crate::limits::shown(l)),
            _ => String::new(),
        };
        let _ = writeln!(s, "  {at}: [{}] {layer}{}", p.code, p.message);
    }
    if !r.advice.is_empty() {
        let _ = writeln!(s, "what would make it compile");
        for a in &r.advice {
            let _ = writeln!(s, "  {}:", a.text);
            let args: Vec<String> = a.args.iter().map(|x| shell(x)).collect();
            let _ = writeln!(s, "    cellc {} {}", shell(&r.file), args.join(" "));
        }
    }
    s
}
