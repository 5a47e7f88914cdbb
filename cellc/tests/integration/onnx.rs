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
    assert_eq!(compile(&d.write("m.onnx", &add_relu(ext.clone()))).expect("external"), raw);
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
    let attr = AttributeProto {
        name: Some("alpha".to_owned()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(0.1),
        ..Default::default()
    };
    m.graph.as_mut().expect("graph").node[1].attribute.push(attr);
    let err = compile(&d.write("m.onnx", &m)).expect_err("unread attribute");
    assert!(err.contains("node 1") && err.contains("Relu_node") && err.contains("`alpha`"), "{err}");
    // An attribute of the wrong type.
    let mut m = model(vec![node("Concat", &["x", "x"], &["y"])], vec![], vec![value("x", &[1, 4])], &["y"]);
    let axis = AttributeProto {
        name: Some("axis".to_owned()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(1.0),
        ..Default::default()
    };
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
fn an_lstm_with_peepholes_or_coupled_gates_is_refused_by_name() {
    let d = Dir::new();
    let (i, h) = (2, 3);
    let inits = vec![
        floats("W", &[1, 4 * h, i], &vec![0.1; (4 * h * i) as usize]),
        floats("R", &[1, 4 * h, h], &vec![0.1; (4 * h * h) as usize]),
        floats("P", &[1, 3 * h], &vec![0.5; (3 * h) as usize]),
    ];
    let mut lstm = node("LSTM", &["x", "W", "R", "", "", "", "", "P"], &["y"]);
    let hidden = AttributeProto {
        name: Some("hidden_size".to_owned()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(h),
        ..Default::default()
    };
    lstm.attribute.push(hidden);
    let m = model(vec![lstm.clone()], inits.clone(), vec![value("x", &[5, 1, i])], &["y"]);
    let err = compile(&d.write("m.onnx", &m)).expect_err("peepholes");
    assert!(err.contains("LSTM_node") && err.contains("input 7 (P"), "{err}");
    lstm.input.truncate(3);
    let m = model(vec![lstm.clone()], inits[..2].to_vec(), vec![value("x", &[5, 1, i])], &["y"]);
    compile(&d.write("m.onnx", &m)).expect("without peepholes it compiles");
    lstm.attribute.push(AttributeProto {
        name: Some("input_forget".to_owned()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(1),
        ..Default::default()
    });
    let m = model(vec![lstm], inits[..2].to_vec(), vec![value("x", &[5, 1, i])], &["y"]);
    let err = compile(&d.write("m.onnx", &m)).expect_err("coupled");
    assert!(err.contains("`input_forget`"), "{err}");
}
