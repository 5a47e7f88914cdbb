//! Hostile models, built in process: each is refused with an error that names what is wrong,
//! or compiled to code that runs; none panics cellc, overflows its stack or is dropped
//! silently. (Command-line cases, which need files, are in `cli.rs`.)
use cellc::front::openvino::parse_graph;
use cellc::vocab::Weights;
use cellc::{Diagnostics, Language, Options};
use std::fmt::Write as _;
use std::path::Path;

fn fixture(name: &str) -> (String, Vec<u8>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(name);
    let xml = std::fs::read_to_string(dir.join("model.xml")).expect("fixture xml");
    let bin = std::fs::read(dir.join("model.bin")).expect("fixture bin");
    (xml, bin)
}

/// Reads, folds, checks and emits Rust and C in process.
fn compile(xml: &str, bin: Vec<u8>) -> Result<(String, String), Diagnostics> {
    compile_with(xml, Weights::whole("model.bin", bin))
}

fn compile_with(xml: &str, weights: Weights) -> Result<(String, String), Diagnostics> {
    let m = cellc::model_of(parse_graph("model.xml", xml, weights)?)?;
    let rust = cellc::emit::rust::emit(&m, &Options::default())?;
    let c = cellc::emit::c::emit(&m, &Options::default().language(Language::C), "model.h")?;
    Ok((rust, c.source))
}

/// Asserts the model is refused with an error containing each of `wanted`.
fn refused(xml: &str, bin: Vec<u8>, wanted: &[&str]) -> String {
    let text = match compile(xml, bin) {
        Ok(_) => panic!("accepted a bad model"),
        Err(d) => d.to_string(),
    };
    for w in wanted {
        assert!(text.contains(w), "the error does not say {w:?}:\n{text}");
    }
    text
}

/// A network of `layers` (XML text of each `<layer>`) and `edges` (from layer, from port, to
/// layer, to port).
fn net(layers: &str, edges: &[(u64, u64, u64, u64)]) -> String {
    let mut e = String::new();
    for (a, b, c, d) in edges {
        let _ = writeln!(e, r#"<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>"#);
    }
    format!(
        "<?xml version=\"1.0\"?>\n<net name=\"hostile\" version=\"11\">\n<layers>\n{layers}</layers>\n<edges>\n{e}</edges>\n</net>\n"
    )
}

fn port(id: u64, dims: &[u64]) -> String {
    let d: String = dims.iter().map(|n| format!("<dim>{n}</dim>")).collect();
    format!(r#"<port id="{id}" precision="FP32">{d}</port>"#)
}

fn parameter(id: u64, name: &str, dims: &[u64]) -> String {
    let shape: Vec<String> = dims.iter().map(u64::to_string).collect();
    format!(
        r#"<layer id="{id}" name="{name}" type="Parameter" version="opset1"><data shape="{}" element_type="f32"/><output>{}</output></layer>
"#,
        shape.join(","),
        port(0, dims)
    )
}

fn constant(id: u64, name: &str, dims: &[u64], offset: u64) -> String {
    let shape: Vec<String> = dims.iter().map(u64::to_string).collect();
    let size = dims.iter().product::<u64>() * 4;
    format!(
        r#"<layer id="{id}" name="{name}" type="Const" version="opset1"><data element_type="f32" shape="{}" offset="{offset}" size="{size}"/><output>{}</output></layer>
"#,
        shape.join(","),
        port(0, dims)
    )
}

fn result(id: u64, dims: &[u64]) -> String {
    format!(
        r#"<layer id="{id}" name="out{id}" type="Result" version="opset1"><input>{}</input></layer>
"#,
        port(0, dims)
    )
}

/// A GRUCell `id` (hidden size `h`, input size `i`, batch 1) without bias; its output port is 4.
fn gru(id: u64, name: &str, h: u64, i: u64) -> String {
    format!(
        r#"<layer id="{id}" name="{name}" type="GRUCell" version="opset3"><data hidden_size="{h}"/><input>{}{}{}{}</input><output>{}</output></layer>
"#,
        port(0, &[1, i]),
        port(1, &[1, h]),
        port(2, &[3 * h, i]),
        port(3, &[3 * h, h]),
        port(4, &[1, h])
    )
}

/// A GRUCell whose `W` is a Const through `n` Converts to f32.
fn convert_chain(n: u64) -> String {
    let (h, i) = (2u64, 2u64);
    let mut layers = parameter(0, "X", &[1, i]) + &parameter(1, "H", &[1, h]);
    layers += &constant(2, "W", &[3 * h, i], 0);
    layers += &constant(3, "R", &[3 * h, h], 48);
    let mut edges = vec![(0, 0, 4, 0), (1, 0, 4, 1), (3, 0, 4, 3), (4, 4, 5, 0)];
    layers += &gru(4, "gru", h, i);
    layers += &result(5, &[1, h]);
    let mut prev = (2, 0);
    for k in 0..n {
        let id = 10 + k;
        let _ = writeln!(
            layers,
            r#"<layer id="{id}" name="c{k}" type="Convert" version="opset1"><data destination_type="f32"/><input>{}</input><output>{}</output></layer>"#,
            port(0, &[3 * h, i]),
            port(1, &[3 * h, i])
        );
        edges.push((prev.0, prev.1, id, 0));
        prev = (id, 1);
    }
    edges.push((prev.0, prev.1, 4, 2));
    net(&layers, &edges)
}

#[test]
fn a_long_chain_of_converts_does_not_overflow_the_stack() {
    // The walks over 20,000 layers are iterative, and each Convert folds in turn.
    compile(&convert_chain(20_000), vec![0u8; 96]).expect("20,000 Converts to f32 fold");
}

/// `n` GRUCells, each reading the one before (H = I = 2, shared weights).
fn stacked(n: u64) -> String {
    let h = 2u64;
    let mut layers = parameter(0, "X", &[1, h]) + &parameter(1, "H", &[1, h]);
    layers += &constant(2, "W", &[3 * h, h], 0);
    layers += &constant(3, "R", &[3 * h, h], 48);
    let mut edges = Vec::new();
    let mut prev = (0, 0);
    for k in 0..n {
        let id = 10 + k;
        layers += &gru(id, &format!("g{k}"), h, h);
        edges.extend([(prev.0, prev.1, id, 0), (1, 0, id, 1), (2, 0, id, 2), (3, 0, id, 3)]);
        prev = (id, 4);
    }
    layers += &result(5, &[1, h]);
    edges.push((prev.0, prev.1, 5, 0));
    net(&layers, &edges)
}

#[test]
fn thousands_of_stacked_cells_are_refused_by_name_not_by_a_crash() {
    let n = cellc::limits::MAX_CELLS as u64 + 500;
    let msg = refused(&stacked(n), vec![0u8; 96], &["cells", &cellc::limits::MAX_CELLS.to_string()]);
    assert!(msg.lines().count() < 5, "one error, not one per cell:\n{msg}");
}

#[test]
fn a_deep_stack_of_cells_within_the_limit_compiles() {
    compile(&stacked(cellc::limits::MAX_CELLS as u64), vec![0u8; 96]).expect("stacked cells up to the limit compile");
}

#[test]
fn edges_from_ports_that_do_not_exist_are_refused() {
    // The LSTM's outputs are ports 6 (Ho) and 7 (Co): a Result meant to return Co from port
    // 99 must not silently read port 6.
    let (xml, bin) = fixture("lstm_cell");
    let bad = xml.replacen(r#"from-layer="6" from-port="7""#, r#"from-layer="6" from-port="99""#, 1);
    assert_ne!(bad, xml, "the fixture's edge from the cell");
    refused(&bad, bin.clone(), &["from-port=\"99\"", "no output port"]);
    let bad = xml.replacen(r#"to-layer="6" to-port="1""#, r#"to-layer="6" to-port="42""#, 1);
    assert_ne!(bad, xml, "the fixture's edge into the cell");
    refused(&bad, bin, &["to-port=\"42\"", "no input port"]);
}

#[test]
fn unreadable_sequence_lengths_are_reported() {
    let (xml, bin) = fixture("gru_seq_const_lengths");
    let bad = xml.replace(r#"shape="2" offset="0" size="8""#, r#"shape="2" offset="18446744073709551615" size="8""#);
    assert_ne!(bad, xml);
    refused(&bad, bin, &["gru_seq_const_lengths_lengths", "outside the weights file"]);
    // No weights file at all: every constant needs it, the lengths too.
    let err = compile_with(&xml, Weights { path: "model.bin".into(), data: Err("No such file".into()) })
        .expect_err("no weights");
    assert!(err.to_string().contains("cannot read the weights file"), "{err}");
}

#[test]
fn constant_sequence_lengths_must_give_one_length_per_row() {
    let (xml, bin) = fixture("gru_seq_const_lengths");
    // Batch 2, one length.
    let one = xml.replace(r#"shape="2" offset="0" size="8""#, r#"shape="1" offset="0" size="4""#).replacen(
        "<port id=\"0\" precision=\"I32\">\n\t\t\t\t\t<dim>2</dim>",
        "<port id=\"0\" precision=\"I32\">\n\t\t\t\t\t<dim>1</dim>",
        1,
    );
    assert_ne!(one, xml);
    refused(&one, bin.clone(), &["sequence_lengths", "1 value", "batch 2"]);
    // No length at all.
    let none = xml.replace(r#"shape="2" offset="0" size="8""#, r#"shape="0" offset="0" size="0""#);
    refused(&none, bin, &["sequence_lengths", "0 values", "batch 2"]);
}

#[test]
fn sizes_past_the_limits_are_refused_before_anything_is_allocated() {
    let (xml, bin) = fixture("gru_act_sigmoid_tanh");
    for h in ["4611686018427387904", "4294967296", "1000000000", "16385"] {
        let bad = xml.replace(r#"hidden_size="8""#, &format!(r#"hidden_size="{h}""#));
        refused(&bad, bin.clone(), &["hidden_size", &cellc::limits::MAX_CELL_SIZE.to_string()]);
    }
    // A constant whose element count overflows 64 bits.
    let bad = xml.replace(
        r#"shape="24, 5" offset="0" size="480""#,
        r#"shape="4294967296, 4294967296, 16" offset="0" size="480""#,
    );
    assert_ne!(bad, xml);
    refused(&bad, bin.clone(), &["gru_act_sigmoid_tanh_W"]);
    // A static batch past the limit.
    let big = "100000";
    let bad =
        xml.replace("<dim>2</dim>", &format!("<dim>{big}</dim>")).replace(r#"shape="2,"#, &format!(r#"shape="{big},"#));
    refused(&bad, bin, &["batch", &cellc::limits::MAX_BATCH.to_string()]);
}

#[test]
fn messages_cut_long_names() {
    let (xml, bin) = fixture("gru_act_sigmoid_tanh");
    let long = "n".repeat(1 << 20);
    let bad = xml
        .replace(r#"name="gru_act_sigmoid_tanh" type="GRUCell""#, &format!(r#"name="{long}" type="GRUCell""#))
        .replace(r#"activations="sigmoid, tanh""#, r#"activations="sigmoid, swish""#);
    let msg = refused(&bad, bin, &["swish"]);
    assert!(msg.len() < 2000, "the message repeats the whole name: {} bytes", msg.len());
}

#[test]
fn a_result_of_whole_numbers_is_returned_as_f32_saying_its_declared_type() {
    let (xml, bin) = fixture("gru_seq_forward");
    let echo = xml
        .replace(
            "\t</layers>",
            r#"<layer id="9" name="echo" type="Result" version="opset1"><input><port id="0" precision="I32"><dim>2</dim></port></input></layer></layers>"#,
        )
        .replace("\t</edges>", r#"<edge from-layer="2" from-port="0" to-layer="9" to-port="0"/></edges>"#);
    // The lengths are i32: the Result returns them as whole numbers in f32, and the model
    // says which type the file declares.
    let g = parse_graph("model.xml", &echo, Weights::whole("model.bin", bin.clone())).expect("reads");
    let m = cellc::model_of(g).expect("an i32 Result compiles");
    assert_eq!(m.outputs.last().expect("the echo output").declared, cellc::graph::Elem::I32);
    let size = |p: &cellc::ir::Param| -> usize {
        p.shape.iter().map(|d| if let cellc::ir::Dim::Static(n) = d { *n } else { 1 }).product()
    };
    let rows = m.params.iter().find(|p| p.role == cellc::ir::ParamRole::Lengths).map_or(0, size);
    let lengths: Vec<f64> = (0..rows).map(|k| (k % 2 + 1) as f64).collect();
    let inputs: Vec<Vec<f64>> = m
        .params
        .iter()
        .map(|p| if p.role == cellc::ir::ParamRole::Lengths { lengths.clone() } else { vec![0.25; size(p)] })
        .collect();
    let got = cellc::reference::run(&m, &inputs).expect("runs");
    assert_eq!(got.last().expect("echo"), &lengths, "the lengths come back as they went in");
    compile(&echo, bin).expect("Rust and C");
}

#[test]
fn names_too_long_for_a_c_string_literal_are_refused() {
    // Found by the fuzzer: a 4,471-character tensor name made a C string literal longer than
    // the 4,095 characters C99 compilers must take (`-pedantic -Werror` refused it).
    let (xml, bin) = fixture("gru_act_sigmoid_tanh");
    let long = "n".repeat(cellc::limits::MAX_NAME_BYTES + 1);
    let bad = xml.replace(r#"names="X""#, &format!(r#"names="{long}""#));
    assert_ne!(bad, xml);
    refused(&bad, bin.clone(), &["X", "bytes long", &cellc::limits::MAX_NAME_BYTES.to_string()]);
    let ok = xml.replace(r#"names="X""#, &format!(r#"names="{}""#, &long[1..]));
    compile(&ok, bin).expect("a name at the limit");
}

#[test]
fn the_bodies_of_an_if_are_its_own_graphs() {
    // Their layers reuse the ids of the net's (0, 1, 2 …): read as top-level layers they gave
    // a dozen wrong "ids must be unique" and port errors. With a constant condition the If
    // becomes the branch it takes; with one known only at run time it is the one op named.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/ov_if_constant");
    let xml = std::fs::read_to_string(dir.join("model.xml")).expect("model");
    let bin = std::fs::read(dir.join("model.bin")).expect("weights");
    compile(&xml, bin.clone()).expect("a constant If compiles");
    let cond = r#"<layer id="9" name="cond" type="Parameter" version="opset1"><data shape="" element_type="boolean"/><output><port id="0" precision="BOOL"/></output></layer></layers>"#;
    let dynamic = xml
        .replacen(
            "	</layers>
	<edges>",
            &format!(
                "{cond}
	<edges>"
            ),
            1,
        )
        .replace(
            r#"<edge from-layer="1" from-port="0" to-layer="2" to-port="0" />"#,
            r#"<edge from-layer="9" from-port="0" to-layer="2" to-port="0" />"#,
        );
    assert_ne!(dynamic, xml);
    let msg = refused(&dynamic, bin, &["If", "not known at compile time"]);
    assert_eq!(msg.lines().count(), 1, "{msg}");
}

#[test]
fn bodies_nested_past_the_limit_are_refused() {
    let mut xml = String::from(r#"<?xml version="1.0"?><net name="n" version="11"><layers>"#);
    for k in 0..40 {
        xml += &format!(r#"<layer id="{k}" name="if{k}" type="If" version="opset8"><then_body><layers>"#);
    }
    for _ in 0..40 {
        xml += "</layers></then_body></layer>";
    }
    xml += "</layers><edges/></net>";
    refused(&xml, Vec::new(), &["nested more than 16 deep"]);
}

#[test]
fn a_parameter_without_an_output_port_is_refused() {
    // Found by the fuzzer: every use of a Parameter took its first output for granted.
    let (xml, bin) = fixture("gru_act_sigmoid_tanh");
    let start = xml.find(r#"name="H" type="Parameter""#).expect("the H Parameter");
    let from = start + xml[start..].find("<output>").expect("its output");
    let to = from + xml[from..].find("</output>").expect("its end") + "</output>".len();
    let bad = format!("{}{}", &xml[..from], &xml[to..]);
    refused(&bad, bin, &["H", "0 output ports; expected one"]);
}

fn model(name: &str) -> (String, Vec<u8>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models").join(name);
    let xml = std::fs::read_to_string(dir.join("model.xml")).expect("model xml");
    let bin = std::fs::read(dir.join("model.bin")).expect("model bin");
    (xml, bin)
}

#[test]
fn gather_batch_dims_outside_what_opset_8_allows_are_refused_by_name() {
    // ov_gather_batch_dims computes batch_dims 1 and -1 (checked against OpenVINO by the
    // conformance runner); OpenVINO refuses a batch_dims past the axis or the indices' rank.
    let (xml, bin) = model("ov_gather_batch_dims");
    let gather = |id: &str, bd: &str| {
        let at = xml.find(&format!(r#"<layer id="{id}" name="Gather"#)).expect("the fixture's Gather");
        let (head, tail) = xml.split_at(at);
        let bad = format!("{head}{}", tail.replacen(r#"batch_dims="1""#, &format!(r#"batch_dims="{bd}""#), 1));
        assert_ne!(bad, xml);
        bad
    };
    refused(&gather("12", "2"), bin.clone(), &["Gather_5", "batch_dims 2 is greater than the axis 1"]);
    refused(&gather("12", "3"), bin.clone(), &["Gather_5", "batch_dims 3 is out of range", "rank 2"]);
    refused(&gather("12", "-3"), bin.clone(), &["Gather_5", "batch_dims -3 is out of range"]);
    refused(&gather("4", "2"), bin, &["Gather_11", "batch dimension 1 has 5 values in the data and 2 in the indices"]);
}

/// gru_dynamic_batch with a Parameter `P` of `shape` (its port declaring `port`) passed to a
/// Result beside the cell.
fn beside_dynamic_gru(shape: &str, port: &[u64]) -> (String, Vec<u8>) {
    let (xml, bin) = fixture("gru_dynamic_batch");
    let dims: String = port.iter().map(|n| format!("<dim>{n}</dim>")).collect();
    let layers = format!(
        r#"<layer id="7" name="P" type="Parameter" version="opset1"><data shape="{shape}" element_type="f32"/><output><port id="0" precision="FP32">{dims}</port></output></layer>
<layer id="8" name="PR" type="Result" version="opset1"><input><port id="0" precision="FP32">{dims}</port></input></layer>
</layers>"#
    );
    let xml = xml.replacen("</layers>", &layers, 1).replacen(
        "</edges>",
        r#"<edge from-layer="7" from-port="0" to-layer="8" to-port="0"/></edges>"#,
        1,
    );
    (xml, bin)
}

#[test]
fn a_parameter_whose_shape_and_port_disagree_is_refused() {
    let (xml, bin) = beside_dynamic_gru("?,4", &[0, 4]);
    refused(&xml, bin, &["\"P\"", "`shape` is [?, 4] but the output port declares [0, 4]"]);
    let (xml, bin) = beside_dynamic_gru("2,4", &[3, 4]);
    refused(&xml, bin, &["\"P\"", "`shape` is [2, 4] but the output port declares [3, 4]"]);
    let (xml, bin) = beside_dynamic_gru("3,4", &[3, 4]);
    compile(&xml, bin.clone()).expect("a Parameter whose shape and port agree");
    // Beside the dynamic batch, the static Parameter is the same for every row: it was read
    // and written one row's length further for each row (out of bounds from row 1 on).
    let m = cellc::model_of(parse_graph("model.xml", &xml, Weights::whole("model.bin", bin)).expect("reads"))
        .expect("compiles");
    m.verify(&[]).expect("every operand inside its home");
    let p: Vec<f64> = (0..12).map(f64::from).collect();
    let out = cellc::reference::run(&m, &[vec![0.5; 3 * 8], vec![0.0; 3 * 16], p.clone()]).expect("runs 3 rows");
    assert_eq!(out[1], p);
}

#[test]
fn a_tensor_without_values_is_refused_not_indexed_past() {
    // Generated code indexed one value past an empty input.
    let (xml, bin) = beside_dynamic_gru("0,4", &[0, 4]);
    let msg = refused(&xml, bin, &["\"P\"", "shape [0, 4], which holds no value"]);
    assert_eq!(msg.matches("error[").count(), 1, "one error, not one per reader:\n{msg}");
}

#[test]
fn variables_that_would_not_carry_a_state_are_refused() {
    let (xml, bin) = model("ov_gru_stateful");
    let assign = r#"<data variable_id="h0h_n" />"#;
    assert!(xml.contains(assign), "the fixture's Assign");
    // An Assign that no ReadValue reads would store a state nobody reads.
    let bad = xml.replacen(assign, r#"<data variable_id="h0h_x" />"#, 1);
    refused(&bad, bin.clone(), &["Assign_130", "\"h0h_x\", which no ReadValue reads"]);
    // Two Assigns to one variable: which one is kept would be a guess.
    let at = xml.find(r#"<layer id="20" name="Assign_130""#).expect("the Assign layer");
    let end = at + xml[at..].find("</layer>").expect("its end") + "</layer>".len();
    let twin = xml[at..end].replace(r#"id="20" name="Assign_130""#, r#"id="99" name="Assign_twin""#);
    let bad = format!("{}\n{twin}{}", &xml[..end], &xml[end..]).replacen(
        "</edges>",
        r#"<edge from-layer="17" from-port="2" to-layer="99" to-port="0" /></edges>"#,
        1,
    );
    refused(&bad, bin.clone(), &["Assign_twin", "a second time", "Assign_130"]);
    // The declared shape and type of the variable must be what is stored in it.
    let decl = r#"variable_type="f32" variable_shape="1,2,16""#;
    assert!(xml.contains(decl), "the fixture's ReadValue");
    let bad = xml.replacen(decl, r#"variable_type="f32" variable_shape="1,2,8""#, 1);
    refused(
        &bad,
        bin.clone(),
        &["Assign_130", "`variable_shape` is [1, 2, 8] but the value assigned has shape [1, 2, 16]"],
    );
    let bad = xml.replacen(decl, r#"variable_type="f16" variable_shape="1,2,16""#, 1);
    refused(&bad, bin, &["Assign_130", "`variable_type` is f16 but the value assigned is f32"]);
}

#[test]
fn a_variable_whose_initial_value_is_not_its_declared_shape_is_refused() {
    let (xml, bin) = model("ov_lstm_low_latency");
    let decl = r#"<data variable_id="LSTMSequence_111168/variable_1" variable_type="f32" variable_shape="2,1,16" />"#;
    assert!(xml.contains(decl), "the fixture's ReadValue");
    let bad = xml.replacen(decl, &decl.replace("2,1,16", "2,1,?,16"), 1);
    refused(&bad, bin, &["ReadValue_271", "`variable_shape` is [2, 1, ?, 16] but its initial value has shape"]);
}

/// An i64 constant of `values` stored at `offset` of `bin`.
fn int_constant(id: u64, values: &[i64], bin: &mut Vec<u8>) -> String {
    let offset = bin.len();
    bin.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    format!(
        r#"<layer id="{id}" name="c{id}" type="Const" version="opset1"><data element_type="i64" shape="{}" offset="{offset}" size="{}"/><output><port id="0" precision="I64"><dim>{}</dim></port></output></layer>
"#,
        values.len(),
        values.len() * 8,
        values.len()
    )
}

/// `X [dims] → op(X, i64 constant) → ReLU → Result`, the op's output port left undeclared.
fn through(dims: &[u64], op: &str, version: &str, data: &str, arg: &[i64]) -> (String, Vec<u8>) {
    let mut bin = Vec::new();
    let mut layers = parameter(0, "X", dims);
    layers += &int_constant(1, arg, &mut bin);
    layers += &format!(
        r#"<layer id="2" name="big" type="{op}" version="{version}">{data}<input>{}<port id="1" precision="I64"><dim>{}</dim></port></input><output><port id="2" precision="FP32"/></output></layer>
<layer id="3" name="act" type="ReLU" version="opset1"><input><port id="0" precision="FP32"/></input><output><port id="1" precision="FP32"/></output></layer>
<layer id="4" name="out" type="Result" version="opset1"><input><port id="0" precision="FP32"/></input></layer>
"#,
        port(0, dims),
        arg.len()
    );
    (net(&layers, &[(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0), (3, 1, 4, 0)]), bin)
}

#[test]
fn a_tensor_past_the_limits_inside_the_graph_is_refused_where_it_is_made() {
    // Neither a Result nor a Parameter: the op that makes it is named, and nothing of its
    // size is planned (this ended in an internal error).
    let (xml, bin) = through(&[1, 4], "Tile", "opset1", "", &[1 << 20, 1 << 10]);
    refused(&xml, bin, &["\"big\" (Tile)", "[1048576, 4096], more than 268435456 values"]);
    let (xml, bin) = through(&[1, 4], "Broadcast", "opset3", r#"<data mode="numpy"/>"#, &[1 << 16, 1 << 14, 4]);
    refused(&xml, bin, &["\"big\" (Broadcast)", "more than 268435456 values"]);
    // A ninth dimension.
    let (xml, bin) =
        through(&[2, 4], "Reshape", "opset1", r#"<data special_zero="false"/>"#, &[1, 1, 1, 1, 1, 1, 1, 2, 4]);
    refused(&xml, bin, &["\"big\" (Reshape)", "9 dimensions", "at most 8"]);
}

#[test]
fn a_parameter_or_constant_past_the_limits_is_refused_by_name() {
    let dims = [1, 1, 1, 1, 1, 1, 1, 1, 2];
    let layers = parameter(0, "X", &dims) + &result(1, &dims);
    refused(&net(&layers, &[(0, 0, 1, 0)]), Vec::new(), &["\"X\"", "9 dimensions"]);
    let layers = constant(0, "K", &dims, 0)
        + &parameter(1, "X", &dims)
        + r#"<layer id="2" name="sum" type="Add" version="opset1"><input><port id="0" precision="FP32"/><port id="1" precision="FP32"/></input><output><port id="2" precision="FP32"/></output></layer>
"# + &result(3, &dims);
    let xml = net(&layers, &[(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0)]);
    let msg = refused(&xml, vec![0; 8], &["9 dimensions"]);
    assert!(msg.contains("\"K\"") || msg.contains("\"X\""), "{msg}");
}

#[test]
fn versions_and_attributes_cellc_does_not_implement_are_refused_by_name() {
    let (xml, bin) = fixture("gru_clip");
    let layer = r#"name="gru_clip" type="GRUCell" version="opset3""#;
    assert!(xml.contains(layer) && xml.contains(r#" clip="0.5""#), "the fixture's GRUCell");
    // A misspelt clip compiled with no clip at all.
    let bad = xml.replacen(r#" clip="0.5""#, r#" clipp="0.5""#, 1);
    refused(
        &bad,
        bin.clone(),
        &["\"gru_clip\" (GRUCell)", "`clipp` is not an attribute cellc implements for GRUCell opset3", "clip"],
    );
    let bad = xml.replacen(layer, r#"name="gru_clip" type="GRUCell" version="opset99""#, 1);
    refused(
        &bad,
        bin.clone(),
        &["\"gru_clip\" (GRUCell)", "version \"opset99\" is not one cellc implements", "opset3"],
    );
    let bad = xml.replacen(layer, r#"name="gru_clip" type="GRUCell""#, 1);
    refused(&bad, bin.clone(), &["\"gru_clip\" (GRUCell)", "no `version` attribute"]);
    // Every op of the graph is held to its table: an attribute of a Parameter too.
    let bad = xml.replacen(r#"element_type="f32""#, r#"element_type="f32" layout="NC""#, 1);
    refused(&bad, bin, &["(Parameter)", "`layout` is not an attribute cellc implements for Parameter opset1"]);
    // What an op implements is what its reader reads: `linear_before_reset` is a GRU's, and
    // an LSTM that wrote it would have it ignored.
    let (xml, bin) = fixture("lstm_cell");
    let data = r#"<data hidden_size="32" "#;
    assert!(xml.contains(data), "the fixture's LSTMCell");
    let bad = xml.replacen(data, r#"<data hidden_size="32" linear_before_reset="true" "#, 1);
    let msg = refused(
        &bad,
        bin,
        &["`linear_before_reset` is not an attribute cellc implements for LSTMCell opset4", "it reads hidden_size"],
    );
    assert!(!msg.contains("it reads hidden_size, linear_before_reset"), "{msg}");
}

/// `X [1, 4] + (Reshape's target: a folded `a op b` on i64 constants)`, ending in a Result.
fn int_arith(op: &str, a: i64, b: i64) -> (String, Vec<u8>) {
    let mut bin = Vec::new();
    let mut layers = parameter(0, "X", &[1, 4]);
    layers += &int_constant(1, &[a], &mut bin);
    layers += &int_constant(2, &[b], &mut bin);
    layers += &format!(
        r#"<layer id="3" name="arith" type="{op}" version="opset1"><input><port id="0" precision="I64"><dim>1</dim></port><port id="1" precision="I64"><dim>1</dim></port></input><output><port id="2" precision="I64"><dim>1</dim></port></output></layer>
<layer id="4" name="shape" type="Concat" version="opset1"><data axis="0"/><input><port id="0" precision="I64"><dim>1</dim></port><port id="1" precision="I64"><dim>1</dim></port></input><output><port id="2" precision="I64"><dim>2</dim></port></output></layer>
<layer id="5" name="r" type="Reshape" version="opset1"><data special_zero="false"/><input>{}<port id="1" precision="I64"><dim>2</dim></port></input><output><port id="2" precision="FP32"/></output></layer>
<layer id="6" name="out" type="Result" version="opset1"><input><port id="0" precision="FP32"/></input></layer>
"#,
        port(0, &[1, 4])
    );
    let edges = [(1, 0, 3, 0), (2, 0, 3, 1), (3, 2, 4, 0), (2, 0, 4, 1), (0, 0, 5, 0), (4, 2, 5, 1), (5, 2, 6, 0)];
    (net(&layers, &edges), bin)
}

#[test]
fn invalid_attributes_and_impossible_constants_are_refused_as_what_they_are() {
    let (xml, bin) = int_arith("Divide", 4, 1);
    compile(&xml, bin).expect("4 / 1 folds to the shape [4, 1]");
    let (xml, bin) = int_arith("Divide", 4, 0);
    let msg = refused(&xml, bin, &["\"arith\" (Divide)", "divides 4 by zero in constant i64 values"]);
    assert!(!msg.contains("at run time"), "{msg}");
    let (xml, bin) = int_arith("Multiply", i64::MAX, 2);
    refused(&xml, bin, &["\"arith\" (Multiply)", "overflows on 9223372036854775807 and 2"]);
    // Clamp with min > max (OpenVINO refuses it).
    let layers = parameter(0, "X", &[1, 4])
        + r#"<layer id="1" name="cl" type="Clamp" version="opset1"><data min="2" max="1"/><input><port id="0" precision="FP32"/></input><output><port id="1" precision="FP32"/></output></layer>
"# + &result(2, &[1, 4]);
    refused(&net(&layers, &[(0, 0, 1, 0), (1, 1, 2, 0)]), Vec::new(), &["\"cl\" (Clamp)", "`min` is 2 and `max` 1"]);
}

#[test]
fn a_softmax_of_a_constant_holding_inf_or_nan_is_refused() {
    // OpenVINO's CPU plugin gives 0 where the formula gives NaN: a constant input is known
    // at compile time, so cellc says so rather than fold either.
    for bad in [f32::INFINITY, f32::NAN] {
        let layers = constant(0, "K", &[1, 4], 0)
            + &parameter(1, "X", &[1, 4])
            + r#"<layer id="2" name="sm" type="SoftMax" version="opset8"><data axis="1"/><input><port id="0" precision="FP32"/></input><output><port id="1" precision="FP32"/></output></layer>
<layer id="3" name="sum" type="Add" version="opset1"><input><port id="0" precision="FP32"/><port id="1" precision="FP32"/></input><output><port id="2" precision="FP32"/></output></layer>
"# + &result(4, &[1, 4]);
        let xml = net(&layers, &[(0, 0, 2, 0), (2, 1, 3, 0), (1, 0, 3, 1), (3, 2, 4, 0)]);
        let bin: Vec<u8> = [1.0, bad, 0.5, 2.0].iter().flat_map(|v: &f32| v.to_le_bytes()).collect();
        refused(&xml, bin, &["\"sm\" (SoftMax)", "holds +inf or NaN"]);
    }
}

#[test]
fn a_flag_that_names_two_parameters_is_refused_naming_both() {
    // Two Parameters whose tensors are both called "x": --input x cannot tell them apart;
    // each layer's own name can.
    let two = |l0: &str, l1: &str| {
        format!(
            r#"<layer id="0" name="{l0}" type="Parameter" version="opset1"><data shape="1,4" element_type="f32"/><output><port id="0" precision="FP32" names="x"><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="1" name="{l1}" type="Parameter" version="opset1"><data shape="1,4" element_type="f32"/><output><port id="0" precision="FP32" names="x"><dim>1</dim><dim>4</dim></port></output></layer>
"#
        ) + &result(2, &[1, 4])
            + &result(3, &[1, 4])
    };
    let edges = [(0, 0, 2, 0), (1, 0, 3, 0)];
    let g =
        parse_graph("model.xml", &net(&two("a", "b"), &edges), Weights::whole("model.bin", Vec::new())).expect("reads");
    use cellc::graph::lookup::{NameError, PortKind};
    let err = g.param_named("x").expect_err("ambiguous");
    let layers = vec!["\"a\"".to_owned(), "\"b\"".to_owned()];
    assert_eq!(err, NameError::Several { kind: PortKind::Parameter, layers });
    assert!(err.to_string().contains("2 Parameters are called so (layers \"a\" and \"b\"); name one by its layer"));
    assert_eq!(g.param_named("b"), Ok(1));
    let g =
        parse_graph("model.xml", &net(&two("a", "a"), &edges), Weights::whole("model.bin", Vec::new())).expect("reads");
    let err = g.param_named("a").expect_err("ambiguous");
    assert_eq!(err, NameError::SameLayers { kind: PortKind::Parameter, count: 2 });
    assert!(err.to_string().contains("2 Parameter layers are called so"), "{err}");
}

#[test]
fn an_if_whose_branch_gives_nothing_is_refused_for_that_reason() {
    // The edge into the then_body's Result removed: the branch gives no value for the If's
    // output (folding took the If apart and left its reader on nothing).
    let (xml, bin) = model("ov_if_constant");
    let edge = r#"<edge from-layer="1" from-port="1" to-layer="2" to-port="0" />"#;
    assert!(xml.contains(edge), "the then_body's edge into its Result");
    let text = refused(&xml.replacen(edge, "", 1), bin, &["(If)", "then_body, which reads nothing"]);
    assert_eq!(text.matches("error").count(), 1, "one error, the cause:\n{text}");
}

#[test]
fn a_cell_whose_weights_do_not_fit_its_sizes_fails_the_plan_check() {
    use cellc::ir::WeightSrc;
    let (xml, bin) = fixture("lstm_seq_forward");
    let m = cellc::model_of(parse_graph("model.xml", &xml, Weights::whole("model.bin", bin)).expect("reads"))
        .expect("compiles")
        .into_model();
    m.verify(&[]).expect("as checked, it holds together");
    let embedded = |n: usize| WeightSrc::Embedded { values: vec![0.5; n], stored: cellc::ir::ElemType::F32 };
    let (h, dirs) = (m.cells[0].spec.hidden, 1);
    // R one value short; then peepholes of the right size, then one short.
    let mut short = m.clone();
    if let WeightSrc::Embedded { values, .. } = &mut short.cells[0].r {
        values.pop();
    }
    let err = short.verify(&[]).expect_err("R short");
    assert!(err.iter().any(|f| f.to_string().contains("holds R of another size")), "{err:?}");
    let mut peep = m.clone();
    peep.cells[0].p = Some(embedded(dirs * 3 * h));
    peep.verify(&[]).expect("peepholes of 3·H values");
    peep.cells[0].p = Some(embedded(dirs * 3 * h - 1));
    let err = peep.verify(&[]).expect_err("P short");
    assert!(err.iter().any(|f| f.to_string().contains("holds P of another size")), "{err:?}");
    peep.cells[0].p = Some(WeightSrc::Runtime(0));
    assert!(peep.verify(&[]).is_err(), "peepholes are embedded only");
}
