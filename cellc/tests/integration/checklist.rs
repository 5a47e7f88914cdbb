//! The op checklist: every op of cellc (`ops::OpKind`) has its place everywhere an op needs
//! one. The compiler enforces most of it — `Op::kind`, each front-end's `checklist::sources`,
//! the lowering (`passes::lower`), the checker's step rules (`check::steps`) and the
//! evaluation (`ops::infer`) match every op with no wildcard arm — and this test checks
//! what it cannot: that each front-end's list names the types its reader reads (the IR's
//! table of types, every one of them; each ONNX op named, read by the ONNX front-end). The
//! random-graph generator's line is checked beside it (`cellc_conformance::graphs`). Both
//! directions are checked: a listed type the reader does not read, and a type it reads
//! (every IR type of its table; every standard ONNX op name, `onnx_ops.txt`) under no op.
use cellc::front::Sources;
use cellc::front::{onnx, openvino};
use cellc::ops::OpKind;
use std::collections::BTreeSet;

fn types(s: Sources) -> &'static [&'static str] {
    match s {
        Sources::Types(t) => t,
        Sources::Not(_) => &[],
    }
}

#[test]
fn the_ir_lists_name_every_type_the_reader_reads_and_nothing_else() {
    let listed: BTreeSet<&str> =
        OpKind::ALL.iter().flat_map(|&k| types(openvino::checklist::sources(k))).copied().collect();
    let read: BTreeSet<&str> = openvino::checklist::read_types().into_iter().collect();
    let unlisted: Vec<_> = read.difference(&listed).collect();
    let unread: Vec<_> = listed.difference(&read).collect();
    assert!(unlisted.is_empty(), "IR types read but under no op: {unlisted:?}");
    assert!(unread.is_empty(), "IR types listed but not read: {unread:?}");
}

/// Whether the ONNX front-end reads op `op` (a node of it with three inputs does not become
/// an unknown op; it may still be refused for what it lacks).
fn onnx_reads(op: &str) -> bool {
    use cellc::front::onnx::proto::{
        GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TypeProto, ValueInfoProto, tensor_proto,
        tensor_shape_proto::{Dimension, dimension::Value},
        type_proto,
    };
    use prost::Message as _;
    let value = |name: &str| {
        let shape = cellc::front::onnx::proto::TensorShapeProto {
            dim: [1, 4].iter().map(|&d| Dimension { value: Some(Value::DimValue(d)), denotation: None }).collect(),
        };
        let t = type_proto::Tensor { elem_type: Some(tensor_proto::DataType::Float as i32), shape: Some(shape) };
        ValueInfoProto {
            name: Some(name.to_owned()),
            r#type: Some(TypeProto { value: Some(type_proto::Value::TensorType(t)), denotation: None }),
            ..Default::default()
        }
    };
    let node = NodeProto {
        op_type: Some(op.to_owned()),
        name: Some("n".to_owned()),
        input: vec!["a".to_owned(), "b".to_owned(), "c".to_owned()],
        output: vec!["y".to_owned()],
        ..Default::default()
    };
    let graph = GraphProto {
        node: vec![node],
        input: vec![value("a"), value("b"), value("c")],
        output: vec![value("y")],
        name: Some("g".to_owned()),
        ..Default::default()
    };
    let m = ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(17) }],
        graph: Some(graph),
        ..Default::default()
    };
    match onnx::parse_graph("m.onnx", "m", std::path::Path::new("."), &m.encode_to_vec()) {
        Ok(g) => !g.nodes.iter().any(|n| n.op.kind() == OpKind::Unknown),
        // An unknown op is read as one, never refused while reading.
        Err(_) => true,
    }
}

#[test]
fn every_onnx_op_listed_is_one_the_onnx_reader_reads() {
    assert!(!onnx_reads("NotAnOnnxOp"), "the check tells an unknown op apart");
    let unread: Vec<&str> = OpKind::ALL
        .iter()
        .flat_map(|&k| types(onnx::checklist::sources(k)))
        .copied()
        .filter(|op| !onnx_reads(op))
        .collect();
    assert!(unread.is_empty(), "ONNX ops listed but not read: {unread:?}");
}

/// The standard-domain ONNX op names of the pinned onnx package (`onnx_ops.txt`, which
/// `tools/onnx-proto/gen.sh` writes and `.ci/run` checks current).
fn onnx_standard_ops() -> Vec<&'static str> {
    include_str!("onnx_ops.txt").lines().filter(|l| !l.starts_with('#') && !l.is_empty()).collect()
}

#[test]
fn every_onnx_op_the_reader_reads_is_listed() {
    let all = onnx_standard_ops();
    assert!(all.len() > 150 && all.contains(&"Gather"), "the op names file reads: {} names", all.len());
    let listed: BTreeSet<&str> =
        OpKind::ALL.iter().flat_map(|&k| types(onnx::checklist::sources(k))).copied().collect();
    let unlisted: Vec<&str> = all.into_iter().filter(|op| onnx_reads(op) && !listed.contains(op)).collect();
    assert!(unlisted.is_empty(), "ONNX ops read but under no op: {unlisted:?}");
}

#[test]
fn every_op_comes_from_a_format_or_says_what_makes_it() {
    for &k in OpKind::ALL {
        let (ir, onnx) = (openvino::checklist::sources(k), onnx::checklist::sources(k));
        if let (Sources::Not(a), Sources::Not(b)) = (ir, onnx) {
            assert!(!a.is_empty() && !b.is_empty(), "{k:?}: no format makes it, and no reason given");
        }
    }
}

/// The README's table of ONNX ops by what cellc does with them, written from the checklist:
/// each standard op computed at run time (and folded on constants), folded at compile time
/// only, or not read.
fn onnx_status_table() -> String {
    let (mut run, mut fold) = (BTreeSet::new(), BTreeSet::new());
    for &k in OpKind::ALL {
        let set = if k.at_run_time() { &mut run } else { &mut fold };
        set.extend(types(onnx::checklist::sources(k)).iter().copied());
    }
    let fold: BTreeSet<&str> = fold.difference(&run).copied().collect();
    let rest: BTreeSet<&str> =
        onnx_standard_ops().into_iter().filter(|op| !run.contains(op) && !fold.contains(op)).collect();
    let row = |what: &str, ops: &BTreeSet<&str>| {
        let names: Vec<String> = ops.iter().map(|o| format!("`{o}`")).collect();
        format!("| {what} ({}) | {} |\n", ops.len(), names.join(", "))
    };
    let mut t = String::from("| what cellc does | ONNX ops (standard domain) |\n|---|---|\n");
    t += &row("computed at run time, and folded where its inputs are constants", &run);
    t += &row("folded at compile time only: refused where an input is known only at run time", &fold);
    t += &row("not read: named at its node, and may be cut away", &rest);
    t
}

#[test]
fn the_readme_table_of_onnx_ops_is_the_checklist_s() {
    const BEGIN: &str = "<!-- onnx-ops: written by the checklist test; CELLC_UPDATE_README=1 rewrites it -->\n";
    const END: &str = "<!-- onnx-ops end -->";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).expect("README");
    let start = readme.find(BEGIN).expect("the README holds the table's markers") + BEGIN.len();
    let end = start + readme[start..].find(END).expect("the table's end marker");
    let table = onnx_status_table();
    if readme[start..end] != table {
        if std::env::var_os("CELLC_UPDATE_README").is_some() {
            std::fs::write(&path, format!("{}{table}{}", &readme[..start], &readme[end..])).expect("write README");
        } else {
            panic!("the README's table of ONNX ops is not the checklist's: run with CELLC_UPDATE_README=1\n{table}");
        }
    }
}
