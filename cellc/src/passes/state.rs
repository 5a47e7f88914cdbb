//! `--state IN=OUT`: a Parameter and a Result that carry a state between calls (a model
//! exported with its initial state as an input and its final state as an output) become a
//! variable, as OpenVINO's `MakeStateful` makes them: a `ReadValue` instead of the
//! Parameter, an `Assign` instead of the Result. The variable starts at zero and after each
//! run holds what the Result would have returned.
use crate::diag::{Diag, Fix, Message, Setting};
use crate::graph::{Graph, NodeId};
use crate::ops::Op;
use crate::vocab::{Dim, Origin};

/// Turns each `(Parameter, Result)` pair into a variable.
pub fn make_stateful(g: &mut Graph, pairs: &[(String, String)]) -> Vec<Diag> {
    let mut diags = Vec::new();
    for (input, output) in pairs {
        let about = Setting::new("state", format!("{input}={output}"));
        let (pi, ri) = match (g.param_named(input), g.result_named(output)) {
            (Ok(pi), Ok(ri)) => (pi, ri),
            (p, r) => {
                let errs = [p.err(), r.err()].into_iter().flatten();
                diags.extend(errs.map(|e| {
                    Diag::new(crate::diag::Code::Cut, &g.file, None, Message::new(e.to_string()).about(about.clone()))
                }));
                continue;
            }
        };
        let (p, r) = (g.params[pi], g.results[ri]);
        let pt = g.nodes[p].outputs[0];
        let Some(shape) = g.tensors[pt].fact.shape.clone().filter(|s| s.iter().all(|d| d.is_known())) else {
            let dims = |unknown: &str| -> String {
                let d = g.tensors[pt].fact.shape.iter().flatten();
                d.map(|d| d.value().map_or_else(|| unknown.to_owned(), |v| v.to_string())).collect::<Vec<_>>().join(",")
            };
            let msg = match g.tensors[pt].fact.shape {
                Some(_) => Message::new(format!(
                    "the Parameter's shape [{}] is not static, and a state's size is fixed at compile time",
                    dims("?")
                ))
                .fix(
                    Fix::new("pin it with", Setting::new("input", format!("{input}=[{}]", dims("N"))))
                        .then(" (each N a size; the batch as the other inputs' pins have it)"),
                ),
                None => Message::new("the Parameter's rank is not known")
                    .fix(Fix::new("pin its shape with", Setting::new("input", format!("{input}=[…]")))),
            };
            let msg = msg.about(about.clone());
            diags.push(Diag::new(crate::diag::Code::Cut, &g.file, g.nodes[p].origin.pos, msg));
            continue;
        };
        let dims = shape.iter().map(|d| Dim::Static(d.c as u64)).collect();
        let elem = g.tensors[pt].fact.elem;
        let origin = Origin { op: "ReadValue".into(), ..g.nodes[p].origin.clone() };
        let rv = g.add(
            Op::ReadValue { variable: input.clone(), shape: Some(dims), elem: Some(elem) },
            origin,
            Vec::new(),
            1,
        );
        let rt = g.nodes[rv].outputs[0];
        g.tensors[rt].names = g.tensors[pt].names.clone();
        g.tensors[rt].declared = g.tensors[pt].declared.clone();
        g.replace_uses(pt, rt);
        g.nodes[p].dead = true;
        g.params.remove(pi);
        let value = g.nodes[r].inputs.first().copied().flatten();
        let origin = Origin { op: "Assign".into(), ..g.nodes[r].origin.clone() };
        let a: NodeId = g.add(Op::Assign { variable: input.clone() }, origin, vec![value], 1);
        g.sinks.push(a);
        g.nodes[r].dead = true;
        g.results.remove(ri);
        if ri < g.result_names.len() {
            g.result_names.remove(ri);
        }
    }
    diags
}
