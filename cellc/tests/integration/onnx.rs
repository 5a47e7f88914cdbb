//! The ONNX front-end on models built here with the schema's types: what it reads
//! (initializers in each of their forms, external data, an initializer that is also an
//! input) and what it refuses, each refusal naming the node and what was expected.
use cellc::front::onnx::proto::{
    self, AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, StringStringEntryProto, TensorProto,
    TypeProto, ValueInfoProto, attribute_proto::AttributeType, tensor_proto,
};
use prost::Message as _;
use std::path::{Path, PathBuf};

fn value(name: &str, dims: &[i64]) -> ValueInfoProto {
    use proto::tensor_shape_proto::{Dimension, dimension::Value};
    let shape = proto::TensorShapeProto {
        dim: dims.iter().map(|&d| Dimension { value: Some(Value::DimValue(d)), denotation: None }).collect(),
    };
    let t = proto::type_proto::Tensor { elem_type: Some(tensor_proto::DataType::Float as i32), shape: Some(shape) };
    ValueInfoProto {
        name: Some(name.to_owned()),
        r#type: Some(TypeProto { value: Some(proto::type_proto::Value::TensorType(t)), denotation: None }),
        ..Default::default()
    }
}

fn node(op: &str, ins: &[&str], outs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: Some(op.to_owned()),
        name: Some(format!("{op}_node")),
        input: ins.iter().map(|s| (*s).to_owned()).collect(),
        output: outs.iter().map(|s| (*s).to_owned()).collect(),
        ..Default::default()
    }
}

fn attr(name: &str, t: AttributeType) -> AttributeProto {
    AttributeProto { name: Some(name.to_owned()), r#type: Some(t as i32), ..Default::default() }
}

fn int_attr(name: &str, i: i64) -> AttributeProto {
    AttributeProto { i: Some(i), ..attr(name, AttributeType::Int) }
}

fn float_attr(name: &str, f: f32) -> AttributeProto {
    AttributeProto { f: Some(f), ..attr(name, AttributeType::Float) }
}

fn floats(name: &str, dims: &[i64], v: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.to_owned()),
        dims: dims.to_vec(),
        data_type: Some(tensor_proto::DataType::Float as i32),
        raw_data: Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        ..Default::default()
    }
}

fn model(nodes: Vec<NodeProto>, inits: Vec<TensorProto>, inputs: Vec<ValueInfoProto>, outputs: &[&str]) -> ModelProto {
    let graph = GraphProto {
        node: nodes,
        initializer: inits,
        input: inputs,
        output: outputs.iter().map(|o| value(o, &[])).collect(),
        name: Some("g".to_owned()),
        ..Default::default()
    };
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(17) }],
        graph: Some(graph),
        ..Default::default()
    }
}

/// `y = relu(x + c)` over `x: [1, 4]`.
fn add_relu(c: TensorProto) -> ModelProto {
    model(
        vec![node("Add", &["x", "c"], &["s"]), node("Relu", &["s"], &["y"])],
        vec![c],
        vec![value("x", &[1, 4])],
        &["y"],
    )
}

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Self {
        Dir(tempfile::tempdir().expect("a temporary folder"))
    }

    fn write(&self, name: &str, m: &ModelProto) -> PathBuf {
        let p = self.0.path().join(name);
        std::fs::write(&p, m.encode_to_vec()).expect("written");
        p
    }
}

fn compile(path: &Path) -> Result<String, String> {
    cellc::compile_file(path, &cellc::Options::default()).map_err(|e| e.to_string())
}

#[test]
fn initializers_in_raw_bytes_typed_fields_and_external_data_compile_alike() {
    let d = Dir::new();
    let c = [0.5f32, -1.0, 2.0, 0.25];
    let raw = compile(&d.write("m.onnx", &add_relu(floats("c", &[4], &c)))).expect("raw_data");
    let mut typed = floats("c", &[4], &[]);
    typed.raw_data = None;
    typed.float_data = c.to_vec();
    assert_eq!(compile(&d.write("m.onnx", &add_relu(typed))).expect("float_data"), raw);
    // External: the bytes 8.. of a file beside the model.
    let mut bytes = vec![0xAAu8; 8];
    bytes.extend(c.iter().flat_map(|x| x.to_le_bytes()));
    std::fs::write(d.0.path().join("w.data"), &bytes).expect("data");
    let entry = |k: &str, v: &str| StringStringEntryProto { key: Some(k.to_owned()), value: Some(v.to_owned()) };
    let mut ext = floats("c", &[4], &[]);
    ext.raw_data = None;
    ext.data_location = Some(tensor_proto::DataLocation::External as i32);
    ext.external_data = vec![entry("location", "w.data"), entry("offset", "8"), entry("length", "16")];
    let path = d.write("m.onnx", &add_relu(ext.clone()));
    assert_eq!(compile(&path).expect("external"), raw);
    // A build script and the macro watch the data file with the model.
    assert_eq!(cellc::front::side_files(&path, None), [d.0.path().join("w.data")]);
    // A range past the file's end, and a file outside the model's folder, are refused.
    ext.external_data[1] = entry("offset", "12");
    let err = compile(&d.write("m.onnx", &add_relu(ext.clone()))).expect_err("past the end");
    assert!(err.contains("initializer \"c\"") && err.contains("bytes 12..28") && err.contains("24 bytes"), "{err}");
    ext.external_data = vec![entry("location", "../w.data")];
    let err = compile(&d.write("m.onnx", &add_relu(ext))).expect_err("outside");
    assert!(err.contains("\"../w.data\"") && err.contains("without `..`"), "{err}");
    // Data of the wrong length.
    let err = compile(&d.write("m.onnx", &add_relu(floats("c", &[4], &c[..3])))).expect_err("short");
    assert!(err.contains("12 bytes") && err.contains("needs 16"), "{err}");
}

#[test]
fn an_initializer_that_is_also_an_input_is_a_constant() {
    let d = Dir::new();
    let mut m = add_relu(floats("c", &[4], &[1.0; 4]));
    m.graph.as_mut().expect("graph").input.push(value("c", &[4]));
    let rs = compile(&d.write("m.onnx", &m)).expect("compiles");
    let r = cellc::inspect::inspect(&d.0.path().join("m.onnx"), &cellc::Options::default()).expect("described");
    assert_eq!(r.inputs.len(), 1, "only x is an input: {:?}", r.inputs);
    assert!(rs.contains("@generated"));
}

#[test]
fn what_cannot_be_honoured_is_refused_at_its_node() {
    let d = Dir::new();
    // An attribute Relu does not have.
    let mut m = add_relu(floats("c", &[4], &[1.0; 4]));
    let attr = float_attr("alpha", 0.1);
    m.graph.as_mut().expect("graph").node[1].attribute.push(attr);
    let err = compile(&d.write("m.onnx", &m)).expect_err("unread attribute");
    assert!(err.contains("node 1") && err.contains("Relu_node") && err.contains("`alpha`"), "{err}");
    // An attribute of the wrong type.
    let mut m = model(vec![node("Concat", &["x", "x"], &["y"])], vec![], vec![value("x", &[1, 4])], &["y"]);
    let axis = float_attr("axis", 1.0);
    m.graph.as_mut().expect("graph").node[0].attribute.push(axis);
    let err = compile(&d.write("m.onnx", &m)).expect_err("wrong type");
    assert!(err.contains("`axis` is of type FLOAT; expected INT"), "{err}");
    // An op cellc does not know, named at its node.
    let m = model(vec![node("Hardmax", &["x"], &["y"])], vec![], vec![value("x", &[1, 4])], &["y"]);
    let err = compile(&d.write("m.onnx", &m)).expect_err("unknown op");
    assert!(err.contains("node 0") && err.contains("Hardmax"), "{err}");
    // An opset outside those read.
    let mut m = add_relu(floats("c", &[4], &[1.0; 4]));
    m.opset_import[0].version = Some(5);
    let err = compile(&d.write("m.onnx", &m)).expect_err("old opset");
    assert!(err.contains("opset 5") && err.contains("opsets 7 to"), "{err}");
    // A value named by two nodes; an input no node gives.
    let m = model(
        vec![node("Relu", &["x"], &["y"]), node("Relu", &["x"], &["y"]), node("Relu", &["nothing"], &["z"])],
        vec![],
        vec![value("x", &[1, 4])],
        &["y"],
    );
    let err = compile(&d.write("m.onnx", &m)).expect_err("named twice");
    assert!(err.contains("node 1") && err.contains("ONNX names each value once"), "{err}");
    assert!(err.contains("node 2") && err.contains("\"nothing\""), "{err}");
}

#[test]
fn lstm_peepholes_are_constants_of_their_shape_and_coupled_gates_are_refused() {
    let d = Dir::new();
    let (i, h) = (2, 3);
    let inits = vec![
        floats("W", &[1, 4 * h, i], &vec![0.1; (4 * h * i) as usize]),
        floats("R", &[1, 4 * h, h], &vec![0.1; (4 * h * h) as usize]),
        floats("P", &[1, 3 * h], &vec![0.5; (3 * h) as usize]),
    ];
    let mut lstm = node("LSTM", &["x", "W", "R", "", "", "", "", "P"], &["y"]);
    let hidden = int_attr("hidden_size", h);
    lstm.attribute.push(hidden);
    let x = || value("x", &[5, 1, i]);
    // Constant peepholes (its bias absent) compile; their values reach the code.
    let m = model(vec![lstm.clone()], inits.clone(), vec![x()], &["y"]);
    let code = compile(&d.write("m.onnx", &m)).expect("constant peepholes compile");
    assert!(code.contains("peep"), "{code}");
    // Peepholes given at run time are refused, naming the port.
    let m = model(vec![lstm.clone()], inits[..2].to_vec(), vec![x(), value("P", &[1, 3 * h])], &["y"]);
    let err = compile(&d.write("m.onnx", &m)).expect_err("runtime peepholes");
    assert!(err.contains("LSTM_node") && err.contains("input P is a Parameter"), "{err}");
    // Peepholes of another shape.
    let short = vec![inits[0].clone(), inits[1].clone(), floats("P", &[1, 2 * h], &vec![0.5; (2 * h) as usize])];
    let m = model(vec![lstm.clone()], short, vec![x()], &["y"]);
    let err = compile(&d.write("m.onnx", &m)).expect_err("short peepholes");
    assert!(err.contains("input P has shape [1, 6]; expected [1, 9]"), "{err}");
    lstm.input.truncate(3);
    lstm.attribute.push(int_attr("input_forget", 1));
    let m = model(vec![lstm], inits[..2].to_vec(), vec![x()], &["y"]);
    let err = compile(&d.write("m.onnx", &m)).expect_err("coupled");
    assert!(err.contains("`input_forget`"), "{err}");
}

fn typed_value(name: &str, dims: &[i64], elem: tensor_proto::DataType) -> ValueInfoProto {
    let mut v = value(name, dims);
    if let Some(TypeProto { value: Some(proto::type_proto::Value::TensorType(t)), .. }) = v.r#type.as_mut() {
        t.elem_type = Some(elem as i32);
    }
    v
}

fn branches(mut n: NodeProto, then: GraphProto, otherwise: GraphProto) -> NodeProto {
    for (key, g) in [("then_branch", then), ("else_branch", otherwise)] {
        n.attribute.push(AttributeProto { g: Some(g), ..attr(key, AttributeType::Graph) });
    }
    n
}

fn branch(nodes: Vec<NodeProto>, output: &str) -> GraphProto {
    GraphProto { node: nodes, output: vec![value(output, &[])], ..Default::default() }
}

/// `y = mode == 16000 ? (yes ? (x + a) * b : -(x + a)) : x - a`: branches that read values
/// of the graphs around them (`b` two levels up), one `If` inside another.
fn nested_ifs() -> ModelProto {
    let inner = branches(
        node("If", &["yes"], &["t2"]),
        branch(vec![node("Mul", &["t", "b"], &["m"])], "m"),
        branch(vec![node("Neg", &["t"], &["n"])], "n"),
    );
    let outer = branches(
        node("If", &["is16k"], &["y"]),
        branch(vec![node("Add", &["x", "a"], &["t"]), inner], "t2"),
        branch(vec![node("Sub", &["x", "a"], &["d"])], "d"),
    );
    let mut k16000 = floats("k16000", &[], &[]);
    k16000.raw_data = None;
    k16000.data_type = Some(tensor_proto::DataType::Int64 as i32);
    k16000.int64_data = vec![16000];
    let mut yes = floats("yes", &[], &[]);
    yes.raw_data = None;
    yes.data_type = Some(tensor_proto::DataType::Bool as i32);
    yes.int32_data = vec![1];
    model(
        vec![node("Equal", &["mode", "k16000"], &["is16k"]), outer],
        vec![floats("a", &[4], &[1.0, 2.0, 3.0, 4.0]), floats("b", &[], &[2.0]), k16000, yes],
        vec![value("x", &[1, 4]), typed_value("mode", &[], tensor_proto::DataType::Int64)],
        &["y"],
    )
}

#[test]
fn an_if_takes_the_branch_a_fixed_input_chooses_and_reads_the_values_around_it() {
    let d = Dir::new();
    let path = d.write("m.onnx", &nested_ifs());
    let x = [0.5, -1.0, 2.0, 0.0];
    for (mode, want) in [("16000", [3.0, 2.0, 10.0, 8.0]), ("8000", [-0.5, -3.0, -1.0, -4.0])] {
        let mut o = cellc::Options::default();
        o.input_shapes.push(cellc::InputShape::parse(&format!("mode={mode}")).expect("a value"));
        let v = cellc::load_graph(&path, &o).expect("compiles");
        let m = v.model();
        assert_eq!(m.params.len(), 1, "mode is no longer an input");
        let got = cellc::reference::run(m, &[x.to_vec()]).expect("runs");
        assert_eq!(got, [want.to_vec()], "mode={mode}");
    }
    // Unfixed, the condition is refused, naming the Parameter and the fix.
    let err = compile(&path).expect_err("unknown condition");
    assert!(err.contains("depends on Parameter \"mode\"") && err.contains("--input mode=VALUE"), "{err}");
    // A value no i64 holds, and a value for an input of more than one.
    let mut o = cellc::Options::default();
    o.input_shapes.push(cellc::InputShape::parse("mode=0.5").expect("a value"));
    o.input_shapes.push(cellc::InputShape::parse("x=1").expect("a value"));
    let err = cellc::compile_file(&path, &o).expect_err("refused").to_string();
    assert!(
        err.contains("--input mode=0.5: Parameter \"mode\" is of type i64, which cannot hold 0.5")
            && err.contains("--input x=1: Parameter \"x\" is of shape [1, 4]"),
        "{err}"
    );
}

#[test]
fn a_branch_that_reads_a_value_no_graph_gives_is_refused_at_its_node() {
    let d = Dir::new();
    let mut m = nested_ifs();
    let g = m.graph.as_mut().expect("graph");
    g.node[1].attribute[1].g.as_mut().expect("else").node[0].input[1] = "nowhere".to_owned();
    let err = compile(&d.write("m.onnx", &m)).expect_err("refused");
    assert!(err.contains("node \"Sub_node\" (Sub): input 1 is \"nowhere\", which no node"), "{err}");
    assert_eq!(err.lines().filter(|l| l.contains("error[")).count(), 1, "one error, the cause: {err}");
}

fn int64s(name: &str, v: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.to_owned()),
        dims: vec![v.len() as i64],
        data_type: Some(tensor_proto::DataType::Int64 as i32),
        int64_data: v.to_vec(),
        ..Default::default()
    }
}

#[test]
fn small_constants_are_known_while_reading_so_ranks_after_a_slice_are_too() {
    // LayerNormalization's positive axis needs the rank of the Slice's output, which
    // depends on the values of its constant inputs.
    let d = Dir::new();
    let mut ln = node("LayerNormalization", &["s", "scale", "bias"], &["y"]);
    ln.attribute.push(int_attr("axis", 2));
    let m = model(
        vec![node("Slice", &["x", "starts", "ends", "axes"], &["s"]), ln],
        vec![
            int64s("starts", &[0]),
            int64s("ends", &[2]),
            int64s("axes", &[2]),
            floats("scale", &[2], &[1.0, 2.0]),
            floats("bias", &[2], &[0.0, 0.5]),
        ],
        vec![value("x", &[2, 3, 4])],
        &["y"],
    );
    compile(&d.write("m.onnx", &m)).expect("compiles");
}

#[test]
fn the_nodes_after_a_refused_one_are_not_refused_for_its_absence() {
    let d = Dir::new();
    let mut bad = node("Relu", &["x"], &["r"]);
    bad.attribute.push(float_attr("alpha", 0.1));
    let m = model(
        vec![bad, node("Sigmoid", &["r"], &["s"]), node("Tanh", &["s"], &["y"])],
        vec![],
        vec![value("x", &[1, 4])],
        &["y"],
    );
    let err = compile(&d.write("m.onnx", &m)).expect_err("refused");
    assert_eq!(err.lines().filter(|l| l.contains("error[")).count(), 1, "one error, the cause: {err}");
    assert!(err.contains("`alpha`"), "{err}");
}

#[test]
fn gelu_compiles_in_both_forms_and_an_unknown_form_is_refused_by_name() {
    let d = Dir::new();
    let mut m = model(vec![node("Gelu", &["x"], &["y"])], vec![], vec![value("x", &[1, 4])], &["y"]);
    m.opset_import[0].version = Some(20);
    let exact = compile(&d.write("m.onnx", &m)).expect("the erf form");
    assert!(exact.contains("math::gelu("), "{exact}");
    let form =
        |s: &str| AttributeProto { s: Some(s.as_bytes().to_vec()), ..attr("approximate", AttributeType::String) };
    m.graph.as_mut().expect("graph").node[0].attribute.push(form("tanh"));
    let tanh = compile(&d.write("m.onnx", &m)).expect("the tanh form");
    assert!(tanh.contains("math::gelu_tanh("), "{tanh}");
    m.graph.as_mut().expect("graph").node[0].attribute[0] = form("sigmoid");
    let err = compile(&d.write("m.onnx", &m)).expect_err("no such form");
    assert!(err.contains("Gelu_node") && err.contains("`approximate` is \"sigmoid\""), "{err}");
}

#[test]
fn a_value_an_unknown_op_gives_keeps_its_declared_shape_for_a_cut_after_it() {
    let d = Dir::new();
    let mut m = model(
        vec![node("RandomNormalLike", &["x"], &["h"]), node("Relu", &["h"], &["y"])],
        vec![],
        vec![value("x", &[1, 4])],
        &["y"],
    );
    let path = d.write("m.onnx", &m);
    let cut = cellc::Options::default().cut_inputs(vec!["h".to_owned()]);
    // Without a declared shape the cut is refused (it once became a scalar input).
    let err = cellc::compile_file(&path, &cut).expect_err("no shape for h").to_string();
    assert!(err.contains("--inputs \"h\": cellc does not know this value's shape"), "{err}");
    m.graph.as_mut().expect("graph").value_info.push(value("h", &[1, 4]));
    let path = d.write("m.onnx", &m);
    let rs = cellc::compile_file(&path, &cut).expect("h's declared shape");
    assert!(
        rs.contains(
            "name: \"h\",\n                shape: &[::cellc_runtime::Dim::Static(1), ::cellc_runtime::Dim::Static(4)]"
        ),
        "{rs}"
    );
    // A cut at a value whose shape is known while reading takes that shape.
    let cut = cellc::Options::default().cut_inputs(vec!["x".to_owned()]);
    let m = model(
        vec![node("Relu", &["x"], &["r"]), node("Tanh", &["r"], &["y"])],
        vec![],
        vec![value("x", &[1, 4])],
        &["y"],
    );
    let cut_r = cut.cut_inputs(vec!["r".to_owned()]);
    let rs = cellc::compile_file(&d.write("m.onnx", &m), &cut_r).expect("r's inferred shape");
    assert!(
        rs.contains(
            "name: \"r\",\n                shape: &[::cellc_runtime::Dim::Static(1), ::cellc_runtime::Dim::Static(4)]"
        ),
        "{rs}"
    );
}

#[test]
fn a_reduction_of_every_axis_of_an_input_whose_rank_is_known_only_when_folding_reduces_them_all() {
    // A convolution over a dynamic length has no rank while reading, so neither has the
    // ReduceMax's input (openWakeWord's mel spectrogram reduces so): its axes are 0..rank
    // once the pin makes shapes known.
    use proto::tensor_shape_proto::{Dimension, dimension::Value};
    let d = Dir::new();
    let mut x = value("x", &[1, 1, 0]);
    if let Some(proto::type_proto::Value::TensorType(t)) = x.r#type.as_mut().and_then(|t| t.value.as_mut()) {
        t.shape.as_mut().expect("shape").dim[2] =
            Dimension { value: Some(Value::DimParam("n".into())), denotation: None };
    }
    let m = model(
        vec![node("Conv", &["x", "w"], &["c"]), node("ReduceMax", &["c"], &["y"])],
        vec![floats("w", &[1, 1, 2], &[1.0, -1.0])],
        vec![x],
        &["y"],
    );
    let path = d.write("m.onnx", &m);
    let mut opts = cellc::Options::default();
    opts.input_shapes.push(cellc::InputShape::parse("x=[1,1,4]").expect("a pin"));
    let model = cellc::load_graph(&path, &opts).unwrap_or_else(|e| panic!("{e}"));
    let y = cellc::reference::run(&model, &[vec![0.5, -2.0, 7.25, 1.0]]).expect("runs");
    assert_eq!(y, vec![vec![6.25]], "the largest of 2.5, -9.25 and 6.25");
    assert_eq!(model.outputs[0].shape.len(), 3, "keepdims: {:?}", model.outputs[0].shape);
}

fn ints_attr(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto { ints: v.to_vec(), ..attr(name, AttributeType::Ints) }
}

#[test]
fn a_conv_transpose_output_shape_it_cannot_give_is_refused_at_its_node() {
    // `x [1, 1, 3]` by a kernel of 3 at stride 2: the full output has 7 values.
    let conv = |shape: &[i64]| {
        let mut n = node("ConvTranspose", &["x", "w"], &["y"]);
        n.attribute = vec![ints_attr("strides", &[2]), ints_attr("output_shape", shape)];
        model(vec![n], vec![floats("w", &[1, 1, 3], &[1.0, 2.0, 3.0])], vec![value("x", &[1, 1, 3])], &["y"])
    };
    let d = Dir::new();
    let err = compile(&d.write("m.onnx", &conv(&[8]))).expect_err("longer than the full output");
    assert!(
        err.contains("ConvTranspose_node") && err.contains("`output_shape` asks for 8") && err.contains("1 to 7"),
        "{err}"
    );
    let err = compile(&d.write("m.onnx", &conv(&[1, 1, 6]))).expect_err("the whole shape");
    assert!(err.contains("`output_shape` has 3 values; expected 1"), "{err}");
    assert!(compile(&d.write("m.onnx", &conv(&[6]))).is_ok());
}

#[test]
fn a_convolution_over_a_batch_known_only_at_run_time_reads_its_windows_in_place() {
    use proto::tensor_shape_proto::{Dimension, dimension::Value};
    // A 1-D Conv 128 → 64, kernel 3, over one second of 16 kHz audio, batch `N`: a table of
    // its windows would hold 6.1 million values, past the limit of 2^22.
    let mut x = value("x", &[0, 128, 16000]);
    if let Some(proto::type_proto::Value::TensorType(t)) = x.r#type.as_mut().and_then(|t| t.value.as_mut()) {
        let shape = t.shape.as_mut().expect("shape");
        shape.dim[0] = Dimension { value: Some(Value::DimParam("N".to_owned())), denotation: None };
    }
    let mut conv = node("Conv", &["x", "w"], &["y"]);
    conv.attribute = vec![ints_attr("pads", &[1, 1])];
    let w: Vec<f32> = (0..64 * 128 * 3).map(|i| ((i % 7) as f32 - 3.0) * 0.01).collect();
    let m = model(vec![conv], vec![floats("w", &[64, 128, 3], &w)], vec![x], &["y"]);
    let d = Dir::new();
    let path = d.write("m.onnx", &m);
    let report = cellc::inspect::inspect(&path, &cellc::Options::default()).expect("described").text();
    assert!(report.contains("dense layer") && !report.contains("gathered by a table"), "{report}");
    let opts = cellc::Options::default().language(cellc::Language::C);
    let files = cellc::compile_to(&path, &opts, &d.0.path().join("net.c")).expect("compiles");
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    // The weights' text and the code, not a table of windows (10.7 MB of C through one).
    assert!(bytes < 2 << 20, "{bytes} bytes of C");
}

#[test]
fn convolutions_by_weights_given_at_run_time_compile_where_they_can_and_say_why_elsewhere() {
    let d = Dir::new();
    let conv = |op: &str, x: &[i64], w: &[i64]| {
        model(vec![node(op, &["x", "w"], &["y"])], vec![], vec![value("x", x), value("w", w)], &["y"])
    };
    assert!(compile(&d.write("m.onnx", &conv("Conv", &[1, 2, 8], &[3, 2, 3]))).is_ok());
    let err = compile(&d.write("m.onnx", &conv("ConvTranspose", &[1, 2, 8], &[2, 3, 3]))).expect_err("transposed");
    assert!(err.contains("ConvTranspose_node") && err.contains("weights known at compile time"), "{err}");
    let err = compile(&d.write("m.onnx", &conv("Conv", &[1, 2, 4, 4, 4], &[3, 2, 2, 2, 2]))).expect_err("3-D");
    assert!(
        err.contains("weights known only at run time over 1 or 2 spatial axes") && err.contains("3 spatial axes"),
        "{err}"
    );
}

#[test]
fn an_op_computed_at_compile_time_only_is_refused_where_it_runs_naming_the_input() {
    let d = Dir::new();
    // On a constant, CumSum is folded; on the graph's input, it would run: refused at its
    // node, naming the input known only at run time.
    let folded = model(
        vec![node("CumSum", &["c", "a"], &["i"]), node("Cast", &["i"], &["f"]), node("Add", &["x", "f"], &["y"])],
        vec![floats("c", &[2, 3], &[0.5, 2.0, -1.0, 3.0, 3.0, 1.0]), int64s("a", &[0])],
        vec![value("x", &[2, 3])],
        &["y"],
    );
    let mut folded = folded;
    let to = AttributeProto { i: Some(1), ..attr("to", AttributeType::Int) };
    folded.graph.as_mut().expect("graph").node[1].attribute.push(to.clone());
    compile(&d.write("m.onnx", &folded)).expect("folded");
    let mut run_time = model(
        vec![node("CumSum", &["x", "a"], &["i"]), node("Cast", &["i"], &["y"])],
        vec![int64s("a", &[0])],
        vec![value("x", &[2, 3])],
        &["y"],
    );
    run_time.graph.as_mut().expect("graph").node[1].attribute.push(to);
    let err = compile(&d.write("m.onnx", &run_time)).expect_err("run time");
    assert_eq!(err.lines().filter(|l| l.contains("error[")).count(), 1, "one error, at the ArgMax: {err}");
    assert!(
        err.contains("cellc computes CumSum at compile time only")
            && err.contains("its input 0 (\"x\", from Parameter \"x\") is known only at run time"),
        "{err}"
    );
}

#[test]
fn onnxruntime_s_own_ops_are_refused_saying_what_they_are() {
    let d = Dir::new();
    for (op, says) in [
        ("DynamicQuantizeLSTM", "onnxruntime's LSTM with int8 weights"),
        ("QLinearConv", "quantise to QDQ instead"),
        ("FusedConv", "compile the model as exported, before those optimisations"),
        ("Inverse", "an op only onnxruntime defines"),
    ] {
        let mut n = node(op, &["x"], &["y"]);
        n.domain = Some("com.microsoft".to_owned());
        let mut m = model(vec![n], vec![], vec![value("x", &[1, 4])], &["y"]);
        m.opset_import.push(OperatorSetIdProto { domain: Some("com.microsoft".to_owned()), version: Some(1) });
        let err = compile(&d.write("m.onnx", &m)).expect_err("refused");
        assert!(err.contains(&format!("com.microsoft.{op} is")) && err.contains(says), "{err}");
    }
}

#[test]
fn a_block_size_whose_square_overflows_is_refused() {
    let d = Dir::new();
    for op in ["DepthToSpace", "SpaceToDepth"] {
        let mut n = node(op, &["x"], &["y"]);
        n.attribute.push(int_attr("blocksize", 1 << 40));
        let m = model(vec![n], vec![], vec![value("x", &[1, 4, 2, 2])], &["y"]);
        let err = compile(&d.write("m.onnx", &m)).expect_err("refused");
        assert!(err.contains("`blocksize` is 1099511627776, which does not divide"), "{err}");
    }
}
