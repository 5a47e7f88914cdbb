//! `--state auto`: the Parameters and Results that carry a state between calls, found by the
//! names exporters give the two ends of one (`h0`/`hn`, `x`/`next_x`, `cache_k`/
//! `new_cache_k`, `state`/`stateN`, `past_k`/`present_k`…) and their equal shapes. A
//! Parameter two Results could continue, or a Result two Parameters could feed, is refused
//! as ambiguous, naming them, rather than guessed.
use crate::diag::{Code, Diag, Fix, Message, Setting};
use crate::graph::Graph;

/// The names an exporter gives the Result that carries Parameter `name`'s next value.
fn successors(name: &str) -> Vec<String> {
    let mut v: Vec<String> = ["next_", "new_", "out_", "updated_"].iter().map(|p| format!("{p}{name}")).collect();
    v.extend(["_out", "_next", "_new", "N", "n", "_n", "_updated"].iter().map(|s| format!("{name}{s}")));
    if let Some(stem) = name.strip_suffix('0') {
        v.extend(["n", "N"].iter().map(|s| format!("{stem}{s}")));
    }
    let swaps = [("_in", "_out", false), ("in_", "out_", true), ("past_", "present_", true), ("prev_", "next_", true)];
    for (from, to, prefix) in swaps {
        let swapped = if prefix {
            name.strip_prefix(from).map(|r| format!("{to}{r}"))
        } else {
            name.strip_suffix(from).map(|r| format!("{r}{to}"))
        };
        v.extend(swapped);
    }
    v
}

/// A Parameter's names: the tensor's, then the layer's.
fn param_names(g: &Graph, k: usize) -> Vec<String> {
    let p = g.params[k];
    let mut v = g.tensors[g.nodes[p].outputs[0]].names.clone();
    v.push(g.nodes[p].origin.name.clone());
    v
}

/// A Result's name as the model gives it (else its layer's).
fn result_name(g: &Graph, k: usize) -> String {
    g.result_names.get(k).cloned().flatten().unwrap_or_else(|| g.nodes[g.results[k]].origin.name.clone())
}

/// Whether a Parameter and a Result can be one state: their shapes agree where both are
/// known (a dimension known on one side only, or symbolic, agrees).
fn same_shape(g: &Graph, p: usize, r: usize) -> bool {
    let pt = g.nodes[g.params[p]].outputs[0];
    let Some(Some(rt)) = g.nodes[g.results[r]].inputs.first().copied() else { return false };
    match (&g.tensors[pt].fact.shape, &g.tensors[rt].fact.shape) {
        (Some(a), Some(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.value().zip(y.value()).is_none_or(|(x, y)| x == y))
        }
        _ => true,
    }
}

/// The state pairs `--state auto` finds among the Parameters and Results that `given` (the
/// pairs named explicitly) leaves; an error for a name two ways ambiguous, or for no pair.
pub fn state_pairs(g: &Graph, given: &[(String, String)]) -> Result<Vec<(String, String)>, Vec<Diag>> {
    let about = || Setting::new("state", "auto");
    let taken_in = |names: &[String]| given.iter().any(|(i, _)| names.contains(i));
    let results: Vec<String> = (0..g.results.len()).map(|k| result_name(g, k)).collect();
    let mut found: Vec<(String, String)> = Vec::new();
    let mut diags = Vec::new();
    for p in 0..g.params.len() {
        let names = param_names(g, p);
        if taken_in(&names) {
            continue;
        }
        let wanted: Vec<String> = names.iter().flat_map(|n| successors(n)).collect();
        let hits: Vec<usize> = (0..results.len())
            .filter(|&r| wanted.contains(&results[r]) && !given.iter().any(|(_, o)| *o == results[r]))
            .filter(|&r| same_shape(g, p, r))
            .collect();
        match hits.as_slice() {
            [] => {}
            [r] => found.push((names[0].clone(), results[*r].clone())),
            many => {
                let shown: Vec<String> = many.iter().map(|&r| format!("{:?}", results[r])).collect();
                let msg = Message::new(format!(
                    "Parameter {:?} could carry its state to any of the Results {}: cellc does not guess",
                    names[0],
                    shown.join(", ")
                ))
                .fix(Fix::new(
                    "name the pair with",
                    Setting::new("state", format!("{}={}", names[0], results[many[0]])),
                ))
                .about(about());
                diags.push(Diag::new(Code::Cut, &g.file, g.nodes[g.params[p]].origin.pos, msg));
            }
        }
    }
    for (k, (i, o)) in found.iter().enumerate() {
        if let Some((first, _)) = found[..k].iter().find(|(_, fo)| fo == o) {
            let msg = Message::new(format!(
                "Result {o:?} could carry the state of Parameter {first:?} or of {i:?}: cellc does not guess"
            ))
            .fix(Fix::new("name the pair with", Setting::new("state", format!("{first}={o}"))))
            .about(about());
            diags.push(Diag::new(Code::Cut, &g.file, None, msg));
        }
    }
    if found.is_empty() && diags.is_empty() {
        let msg = Message::new(
            "found no Parameter and Result named as a state's two ends (h0 and hn, x and next_x, cache and new_cache, state and stateN…) with equal shapes",
        )
        .fix(Fix::new("name each pair with", Setting::new("state", "IN=OUT")))
        .about(about());
        diags.push(Diag::new(Code::Cut, &g.file, None, msg));
    }
    if diags.is_empty() { Ok(found) } else { Err(diags) }
}

#[cfg(test)]
mod tests {
    use super::successors;

    #[test]
    fn the_exporters_names_for_a_state_s_two_ends() {
        for (input, output) in [
            ("h0", "hn"),
            ("h", "hn"),
            ("state", "stateN"),
            ("cache_k", "new_cache_k"),
            ("recurrent", "next_recurrent"),
            ("x", "x_out"),
            ("h_in", "h_out"),
            ("past_key", "present_key"),
        ] {
            assert!(successors(input).contains(&output.to_owned()), "{input} → {output}");
        }
        assert!(!successors("x").contains(&"y".to_owned()));
    }
}
