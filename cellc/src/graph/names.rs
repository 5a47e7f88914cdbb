//! The names generated code gives a model, its cells and its dense layers: names that
//! survive converting the same model again, and the user's renames (`--cell-name`).
use super::{Graph, NodeId};
use crate::ops::Op;

/// The name of a layer where a re-export keeps it (a PyTorch module path such as
/// `/encoder/gru/GRU`, a name given in the model), else, for a converter's auto-numbered
/// name (`GRUSequence_65`, `GRUSequence29893`: the layer's type and a counter that changes
/// with every conversion; or PyTorch's `/MatMul_17` for an op outside any module), `family` and the layer's position among the model's layers of
/// its family kind (`gru0`, `lstm1`, `dense2`).
pub fn stable_name(name: &str, op: &str, family: &str, position: usize) -> String {
    // PyTorch's exporter names an op outside any module `/MatMul_17`.
    let bare = name.strip_prefix('/').unwrap_or(name);
    let stem = bare.trim_end_matches(|c: char| c.is_ascii_digit());
    let numbered = stem.len() < bare.len() && stem.trim_end_matches('_').eq_ignore_ascii_case(op);
    if numbered || name.is_empty() { format!("{family}{position}") } else { name.to_owned() }
}

/// The name generated code gives a model: its own, unless it is a converter's default
/// (`onnx_Frontend_IR`, `Model0`), which every model converted the same way shares; then
/// the stem of its file (`vad.xml`: `vad`).
pub fn model_name(name: &str, file: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let counter = lower.strip_prefix("model").map(|r| r.trim_start_matches('_'));
    let default = lower.is_empty()
        || lower.ends_with("_frontend_ir")
        || counter.is_some_and(|r| r.bytes().all(|b| b.is_ascii_digit()));
    match std::path::Path::new(file).file_stem().and_then(|s| s.to_str()) {
        Some(stem) if default && !stem.is_empty() => stem.to_owned(),
        _ => name.to_owned(),
    }
}

/// The family a node's generated type is named in, if it gets one, and the word of its
/// kind: recurrent cells are counted together (`gru0`, `lstm1`), dense layers apart.
fn family(op: &Op) -> Option<(bool, &'static str)> {
    use crate::vocab::CellOp;
    match op {
        Op::Cell(a) => Some((
            true,
            match a.op {
                CellOp::Gru => "gru",
                CellOp::Rnn => "rnn",
                CellOp::Lstm => "lstm",
            },
        )),
        Op::Dense { .. } => Some((false, "dense")),
        _ => None,
    }
}

impl Graph {
    /// The live cells and dense layers, each with its stable name ([`stable_name`]:
    /// positions count the live nodes of its family in the model's order).
    fn named(&self) -> Vec<(NodeId, String)> {
        let mut counts = [0usize; 2];
        let mut out = Vec::new();
        for (id, node) in self.nodes.iter().enumerate() {
            let Some((cell, kind)) = family(&node.op).filter(|_| !node.dead) else { continue };
            let position = &mut counts[usize::from(cell)];
            out.push((id, stable_name(&node.origin.name, &node.origin.op, kind, *position)));
            *position += 1;
        }
        out
    }

    /// The name generated code gives node `id` (a cell or a dense layer; another node's is
    /// its layer name): its stable name, or what `--cell-name` renamed it to.
    pub fn code_name(&self, id: NodeId) -> String {
        let layer = &self.nodes[id].origin.name;
        let stable = self.named().into_iter().find(|&(n, _)| n == id).map_or_else(|| layer.clone(), |(_, s)| s);
        match self.renames.iter().find(|(from, _)| *from == stable || from == layer) {
            Some((_, to)) => to.clone(),
            None => stable,
        }
    }

    /// The name generated code gives the model ([`model_name`]).
    pub fn code_model_name(&self) -> String {
        model_name(&self.name, &self.file)
    }

    /// A message for each rename that names no live cell or dense layer, listing those there are.
    pub fn unmatched_renames(&self) -> Vec<crate::diag::Message> {
        let named: Vec<(String, &str)> =
            self.named().into_iter().map(|(n, s)| (s, self.nodes[n].origin.name.as_str())).collect();
        let known: Vec<String> =
            named.iter().map(|(s, l)| if s == l { format!("{s:?}") } else { format!("{s:?} (layer {l:?})") }).collect();
        let there = if known.is_empty() {
            "the model has no cells or dense layers".to_owned()
        } else {
            format!("they are {}", known.join(", "))
        };
        self.renames
            .iter()
            .filter(|(from, _)| !named.iter().any(|(s, l)| s == from || l == from))
            .map(|(from, to)| {
                crate::diag::Message::new(format!("no cell or dense layer is called {from:?}; {there}"))
                    .about(crate::diag::Setting::new("cell_name", format!("{from}={to}")))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converter_counters_give_way_to_positions() {
        assert_eq!(stable_name("GRUSequence_65", "GRUSequence", "gru", 0), "gru0");
        assert_eq!(stable_name("GRUSequence29893", "GRUSequence", "gru", 2), "gru2");
        assert_eq!(stable_name("LSTMCell_253", "LSTMCell", "lstm", 1), "lstm1");
        // A name of the model's own stays, digits and all.
        assert_eq!(stable_name("/encoder/gru/GRU", "GRUSequence", "gru", 0), "/encoder/gru/GRU");
        assert_eq!(stable_name("gru_2", "GRUSequence", "gru", 0), "gru_2");
        assert_eq!(stable_name("Gemm_21/WithoutBiases", "MatMul", "dense", 0), "Gemm_21/WithoutBiases");
        assert_eq!(stable_name("MatMul_7", "MatMul", "dense", 3), "dense3");
        assert_eq!(stable_name("/MatMul_17", "MatMul", "dense", 1), "dense1");
        assert_eq!(stable_name("/fc/MatMul", "MatMul", "dense", 1), "/fc/MatMul");
        assert_eq!(stable_name("", "MatMul", "dense", 1), "dense1");
        assert_eq!(stable_name("GRUSequence", "GRUSequence", "gru", 0), "GRUSequence");
    }

    #[test]
    fn converter_model_names_give_way_to_the_file() {
        assert_eq!(model_name("onnx_Frontend_IR", "dir/kws.xml"), "kws");
        assert_eq!(model_name("TensorFlow_Frontend_IR", "vad.xml"), "vad");
        assert_eq!(model_name("Model0", "a/denoise.xml"), "denoise");
        assert_eq!(model_name("Model_12", "a/denoise.xml"), "denoise");
        assert_eq!(model_name("Vad", "model.xml"), "Vad");
        assert_eq!(model_name("ModelZoo", "model.xml"), "ModelZoo");
    }
}
