//! The graph front-end and the fold and simplify passes on the whole models of
//! `tests/models` (IRs written by OpenVINO from ONNX files).
use cellc::graph::Graph;
use cellc::ops::Op;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn models() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).expect("tests/models").map(|e| e.expect("entry").path()).collect();
    v.sort();
    v
}

fn folded(xml: &Path) -> Graph {
    let mut g = cellc::front::openvino::read_graph(xml, None).expect("reads");
    let diags = cellc::passes::fold(&mut g);
    assert!(diags.is_empty(), "{}: {diags:?}", xml.display());
    cellc::passes::simplify(&mut g);
    g
}

/// The op types of the live nodes, apart from Parameters, constants and Results.
fn remaining(g: &Graph) -> BTreeSet<String> {
    g.nodes
        .iter()
        .filter(|n| !n.dead && !matches!(n.op, Op::Parameter { .. } | Op::Const { .. } | Op::Result))
        .map(|n| n.origin.op.clone())
        .collect()
}

#[test]
fn shape_subgraphs_and_constant_branches_fold_away() {
    for dir in models() {
        for xml in [dir.join("model.xml"), dir.join("f32/model.xml")] {
            if !xml.exists() {
                continue;
            }
            let g = folded(&xml);
            let left = remaining(&g);
            println!("{}: {left:?}", xml.display());
            for op in ["ShapeOf", "Broadcast", "If", "Convert"] {
                assert!(!left.contains(op), "{}: {op} is left: {left:?}", xml.display());
            }
        }
    }
}
