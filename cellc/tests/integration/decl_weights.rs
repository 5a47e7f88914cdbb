//! A declaration takes the weights of one cell of an IR model read as every model is read
//! (the graph, its passes and its check): a model as PyTorch exports it, glue and all.
use cellc::ir::WeightSrc;
use cellc::vocab::CellOp;
use std::path::Path;

fn lower(declaration: &str) -> Result<cellc::ir::verify::Verified, String> {
    let d: cellc::front::decl::Declaration = syn::parse_str(declaration).expect("a declaration");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lowered = cellc::front::decl::lower(CellOp::Gru, &d, root).map_err(|e| e.to_string())?;
    cellc::model_of(lowered.graph).map_err(|d| d.to_string())
}

#[test]
fn a_cell_of_an_exported_model_lends_its_weights() {
    let path = "../tests/models/pt_gru_2_layers/model.xml";
    let whole = cellc::load_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path), &cellc::Options::default())
        .expect("the model compiles");
    for (k, layer) in ["GRUSequence_54665", "GRUSequence_54716"].into_iter().enumerate() {
        let input = [8, 16][k];
        let declared = lower(&format!(
            "struct Enc<input_size = {input}, hidden_size = 16, steps = 5, linear_before_reset = true, \
             weights = {path:?}, layer = {layer:?}, allow_outside_crate = true>;"
        ))
        .unwrap_or_else(|e| panic!("{layer}: {e}"));
        let (mine, theirs) = (&declared.cells[0], &whole.cells[k]);
        for (a, b) in [(&mine.w, &theirs.w), (&mine.r, &theirs.r)] {
            let (WeightSrc::Embedded { values: a, stored: sa }, WeightSrc::Embedded { values: b, stored: sb }) = (a, b)
            else {
                panic!("embedded weights")
            };
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(a), bits(b), "{layer}");
            assert_eq!(sa, sb, "{layer}: the element type the model stores is kept");
        }
    }
    // A declaration that is not the layer's cell is refused, naming what differs.
    let err = lower(&format!(
        "struct Enc<input_size = 8, hidden_size = 32, steps = 5, linear_before_reset = true, \
         weights = {path:?}, layer = \"GRUSequence_54665\", allow_outside_crate = true>;"
    ))
    .expect_err("another hidden size");
    assert!(err.contains("hidden_size 32") && err.contains("has 16"), "{err}");
}

/// A declaration of a cell whose weights file holds sequences says which layers it holds and
/// what to declare to take one of them.
#[test]
fn a_model_without_the_declared_kind_says_what_it_holds() {
    let path = "../tests/models/pt_gru_2_layers/model.xml";
    let err = lower(&format!(
        "struct Enc<input_size = 8, hidden_size = 16, linear_before_reset = true, weights = {path:?}, \
         allow_outside_crate = true>;"
    ))
    .expect_err("a GRUCell declared, GRUSequences held");
    assert!(err.contains("has no GRUCell layer"), "{err}");
    assert!(err.contains("\"GRUSequence_54665\" (GRUSequence)") && err.contains("declare its `steps`"), "{err}");
}
