//! Gate layouts through the checks: a model declared in another tool's layout has its
//! weights converted once, and a wrong layout is caught where the shapes allow.
use cellc::graph::Graph;
use cellc::ops::{CellAttrs, Op};
use cellc::vocab::CellOp;
use cellc::vocab::Layout;
use std::path::Path;

/// The graph of a declaration taking the weights of a fixture's cell.
fn declared(op: CellOp, declaration: &str) -> Graph {
    let d: cellc::front::decl::Declaration = syn::parse_str(declaration).expect("a declaration");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    cellc::front::decl::lower(op, &d, root).unwrap_or_else(|e| panic!("{e}")).graph
}

/// The declared cell's node: its attributes and its inputs.
fn cell(g: &mut Graph) -> (&mut CellAttrs, &mut Vec<Option<usize>>) {
    let n = g.nodes.iter_mut().find(|n| matches!(n.op, Op::Cell(_))).expect("a cell");
    let Op::Cell(a) = &mut n.op else { unreachable!() };
    (a, &mut n.inputs)
}

/// The GRU of fixture `gru_spec_example`: I = 16, H = 128, B of 4H.
fn gru_spec_example() -> Graph {
    let weights = "../tests/fixtures/gru_spec_example/model.xml";
    declared(
        CellOp::Gru,
        &format!(
            "struct Gru<input_size = 16, hidden_size = 128, linear_before_reset = true, weights = {weights:?}, allow_outside_crate = true>;"
        ),
    )
}

/// The LSTM of fixture `lstm_cell`: I = 12, H = 32.
fn lstm_cell() -> Graph {
    let weights = "../tests/fixtures/lstm_cell/model.xml";
    declared(
        CellOp::Lstm,
        &format!("struct Lstm<input_size = 12, hidden_size = 32, weights = {weights:?}, allow_outside_crate = true>;"),
    )
}

#[test]
fn a_wrong_layout_is_caught_by_the_bias_shape() {
    // An OpenVINO GRU with linear_before_reset has B of 4H; PyTorch's layout needs 6H.
    let mut g = gru_spec_example();
    cell(&mut g).0.layout = Layout::PyTorch;
    let err = cellc::model_of(g).expect_err("the bias does not fit the PyTorch layout");
    assert!(err.to_string().contains("input B has shape [512]; expected [768]"), "{err}");
}

#[test]
fn a_layout_that_cannot_hold_the_cell_is_refused() {
    let mut g = lstm_cell();
    cell(&mut g).0.layout = Layout::Bnns;
    let err = cellc::model_of(g).expect_err("BNNS has no LSTM");
    assert!(err.to_string().contains("the bnns layout describes BNNSGraph's GRU only"), "{err}");
}

#[test]
fn weights_in_another_layout_are_reordered_at_compile_time() {
    // The same fixture read as ONNX's LSTM layout (i, o, f, c): the checked weights are its
    // gate blocks restacked as f, i, c, o. The bias blocks only fit when B holds [Wb, Rb],
    // which an OpenVINO file does not, so the weights alone are compared here.
    let mut g = lstm_cell();
    let ov = cellc::model_of(g.clone()).expect("checks");
    cell(&mut g).0.layout = Layout::Onnx;
    // B of 4H is too short for ONNX's 8H: caught, as it should be.
    assert!(cellc::model_of(g.clone()).is_err());
    // Drop B (it is optional) and compare W.
    cell(&mut g).1.pop();
    let onnx = cellc::model_of(g).expect("checks without B");
    let (cellc::ir::WeightSrc::Embedded { values: a, .. }, cellc::ir::WeightSrc::Embedded { values: b, .. }) =
        (&ov.cells[0].w, &onnx.cells[0].w)
    else {
        panic!("embedded weights")
    };
    let block = a.len() / 4;
    // Kernel gate f comes from ONNX block 2, i from 0, c from 3, o from 1.
    for (k, src) in [2usize, 0, 3, 1].into_iter().enumerate() {
        assert_eq!(&b[k * block..(k + 1) * block], &a[src * block..(src + 1) * block]);
    }
}
