//! ONNX models (`.onnx`): the file decoded with prost into the schema's types ([`proto`],
//! generated from the ONNX package's `onnx.proto` by `tools/onnx-proto/gen.sh`), then built
//! into the same graph the IR reader builds ([`read_graph`]); [`describe`] says what a model
//! holds (its opset and its ops).
use crate::diag::{Diag, Diagnostics};
use std::collections::BTreeMap;
use std::path::Path;

mod attrs;
mod build;
mod cells;
pub mod checklist;
mod composed;
mod control;
mod foreign;
mod node;
mod ops;
mod pure;
mod quant;
mod spatial;

/// The versions of the default operator set cellc reads.
pub const OPSETS: std::ops::RangeInclusive<i64> = 7..=24;

#[allow(missing_docs, unreachable_pub, clippy::all, clippy::pedantic, clippy::unwrap_used)]
pub mod proto;

use prost::Message as _;

/// Op types [`describe`] names; it counts the others.
const MAX_LISTED: usize = 30;

/// Reads and decodes the ONNX model `path` (at most
/// [`crate::limits::MAX_MODEL_FILE_BYTES`]; prost bounds how deep its messages nest).
pub fn read_model(path: &Path) -> Result<proto::ModelProto, Diagnostics> {
    let file = path.display().to_string();
    let bytes = super::files::read_bytes(path).map_err(|e| {
        Diagnostics::one(Diag::new(crate::diag::Code::Read, &file, None, format!("cannot read the model: {e}")))
    })?;
    decode(&file, &bytes)
}

fn decode(file: &str, bytes: &[u8]) -> Result<proto::ModelProto, Diagnostics> {
    proto::ModelProto::decode(bytes).map_err(|e| {
        let msg = format!("cannot read the model: it is not an ONNX model (a protobuf `ModelProto`): {e}");
        Diagnostics::one(Diag::new(crate::diag::Code::Read, file, None, msg))
    })
}

/// Reads the ONNX model `path` as a graph: its initializers (and the external data files
/// beside it they name) become constants, its inputs Parameters, its nodes cellc's ops.
pub fn read_graph(path: &Path) -> Result<crate::graph::Graph, Diagnostics> {
    let file = path.display().to_string();
    let bytes = super::files::read_bytes(path).map_err(|e| {
        Diagnostics::one(Diag::new(crate::diag::Code::Read, &file, None, format!("cannot read the model: {e}")))
    })?;
    let name = path.file_stem().map_or_else(|| "model".to_owned(), |s| s.to_string_lossy().into_owned());
    parse_graph(&file, &name, path.parent().unwrap_or(Path::new(".")), &bytes)
}

/// Builds the graph of the ONNX model held in `bytes` (shown as `file`, named `name`), its
/// external data files read from folder `dir`.
pub fn parse_graph(file: &str, name: &str, dir: &Path, bytes: &[u8]) -> Result<crate::graph::Graph, Diagnostics> {
    let m = decode(file, bytes)?;
    let opset = m
        .opset_import
        .iter()
        .find(|o| o.domain.as_deref().is_none_or(|d| d.is_empty() || d == "ai.onnx"))
        .and_then(|o| o.version);
    let opset = match opset {
        Some(v) if OPSETS.contains(&v) => v,
        other => {
            let found =
                other.map_or_else(|| "imports no default operator set".to_owned(), |v| format!("uses opset {v}"));
            let msg = format!(
                "the model {found}; cellc reads opsets {} to {} (convert it with onnx.version_converter)",
                OPSETS.start(),
                OPSETS.end()
            );
            return Err(Diagnostics::one(Diag::new(crate::diag::Code::Unsupported, file, None, msg)));
        }
    };
    let Some(gp) = m.graph.as_ref() else {
        return Err(Diagnostics::one(Diag::new(crate::diag::Code::Malformed, file, None, "the model has no graph")));
    };
    let mut b = build::Builder::new(file, dir, name, opset);
    b.graph(gp);
    b.finish().map_err(Diagnostics)
}

/// The external data files the ONNX model `path` names (its graphs' initializers', those
/// inside its `If`s' branches too), which exist beside it, each once, in the order named; none
/// for a file that cannot be read as a model (reading it says why).
pub fn external_files(path: &Path) -> Vec<std::path::PathBuf> {
    let Ok(m) = read_model(path) else { return Vec::new() };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut out: Vec<std::path::PathBuf> = Vec::new();
    for g in graphs(&m) {
        for t in &g.initializer {
            let location = t.external_data.iter().find(|e| e.key.as_deref() == Some("location"));
            let Some(rel) = location.and_then(|e| e.value.as_deref()).map(Path::new) else { continue };
            let file = dir.join(rel);
            if node::beside_model(rel) && file.is_file() && !out.contains(&file) {
                out.push(file);
            }
        }
    }
    out
}

/// The model's graph and the graphs inside its nodes (an `If`'s branches), walked without
/// recursion.
fn graphs(m: &proto::ModelProto) -> Vec<&proto::GraphProto> {
    let mut out = Vec::new();
    let mut stack: Vec<&proto::GraphProto> = m.graph.iter().collect();
    while let Some(g) = stack.pop() {
        out.push(g);
        for a in g.node.iter().flat_map(|n| &n.attribute) {
            stack.extend(a.g.iter());
            stack.extend(a.graphs.iter());
        }
    }
    out
}

/// What `m` holds, in words: the version of the default operator set it imports, and each op
/// type of its graph and of the graphs inside its nodes with how many nodes have it, the
/// most common first.
pub fn describe(m: &proto::ModelProto) -> String {
    let opset = m
        .opset_import
        .iter()
        .find(|o| o.domain.as_deref().is_none_or(|d| d.is_empty() || d == "ai.onnx"))
        .and_then(|o| o.version);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut nodes = 0usize;
    for n in graphs(m).into_iter().flat_map(|g| &g.node) {
        nodes += 1;
        let op = n.op_type.as_deref().unwrap_or("?");
        let op = match n.domain.as_deref() {
            Some(d) if !d.is_empty() && d != "ai.onnx" => format!("{}.{op}", crate::limits::cut(d)),
            _ => op.to_owned(),
        };
        *counts.entry(crate::limits::cut(&op).to_string()).or_default() += 1;
    }
    let mut ops: Vec<(String, usize)> = counts.into_iter().collect();
    ops.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut listed: Vec<String> =
        ops.iter().take(MAX_LISTED).map(|(op, n)| if *n == 1 { op.clone() } else { format!("{op} ×{n}") }).collect();
    if ops.len() > MAX_LISTED {
        listed.push(format!("and {} other types", ops.len() - MAX_LISTED));
    }
    let opset = opset.map_or_else(|| "no default opset".to_owned(), |v| format!("opset {v}"));
    format!("{opset}, {nodes} nodes: {}", if listed.is_empty() { "none".to_owned() } else { listed.join(", ") })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// Any bytes decode to a model or to an error, never a panic, and a model decoded from
        /// them is described.
        #[test]
        fn any_bytes_decode_or_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Ok(m) = proto::ModelProto::decode(bytes.as_slice()) {
                prop_assert!(describe(&m).contains("nodes"));
            }
        }
    }

    #[test]
    fn a_model_is_described_by_its_opset_and_ops_inside_its_branches_too() {
        let node = |op: &str| proto::NodeProto { op_type: Some(op.to_owned()), ..Default::default() };
        let branch = proto::GraphProto { node: vec![node("Relu"), node("Relu")], ..Default::default() };
        let mut cond = node("If");
        cond.attribute.push(proto::AttributeProto { g: Some(branch), ..Default::default() });
        let graph = proto::GraphProto { node: vec![node("GRU"), cond, node("Relu")], ..Default::default() };
        let opset = proto::OperatorSetIdProto { domain: Some(String::new()), version: Some(17) };
        let m = proto::ModelProto { graph: Some(graph), opset_import: vec![opset], ..Default::default() };
        let bytes = m.encode_to_vec();
        let back = proto::ModelProto::decode(bytes.as_slice()).expect("decodes");
        assert_eq!(describe(&back), "opset 17, 5 nodes: Relu ×3, GRU, If");
    }
}
