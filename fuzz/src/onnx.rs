//! Mutations of ONNX models at the protobuf level: decoded with the schema's types, changed
//! where a reader could go wrong, encoded again.

/// One to three mutations of an ONNX model at the protobuf level (op types, attributes and
/// their types, inputs and outputs, initializers' dims, types, data and external data, the
/// graph's input dimensions, the opset, nodes dropped, repeated, reordered or taken from
/// `other`), or a byte of the encoding flipped; the bytes as they are when `bytes` does not
/// decode.
pub(crate) fn mutate(rng: &mut fastrand::Rng, bytes: &[u8], other: &[u8]) -> Vec<u8> {
    use cellc::front::onnx::proto::ModelProto;
    use prost::Message as _;
    let (Ok(mut m), Ok(o)) = (ModelProto::decode(bytes), ModelProto::decode(other)) else { return bytes.to_vec() };
    if rng.u8(..16) == 0 {
        let mut b = bytes.to_vec();
        if !b.is_empty() {
            let at = rng.usize(..b.len());
            b[at] ^= 1 << rng.u8(..8);
        }
        return b;
    }
    for _ in 0..rng.usize(1..=3) {
        onnx_once(rng, &mut m, &o);
    }
    m.encode_to_vec()
}

fn some_int(rng: &mut fastrand::Rng, was: i64) -> i64 {
    [was.wrapping_add(1), was.wrapping_sub(1), 0, -1, 1, 2, 3, -3, 64, i64::from(i32::MAX), i64::MIN, i64::MAX, 1 << 40]
        [rng.usize(..13)]
}

fn onnx_once(
    rng: &mut fastrand::Rng,
    m: &mut cellc::front::onnx::proto::ModelProto,
    other: &cellc::front::onnx::proto::ModelProto,
) {
    use cellc::front::onnx::proto::{StringStringEntryProto, tensor_proto};
    let Some(g) = m.graph.as_mut() else { return };
    let og = other.graph.as_ref();
    let names: Vec<String> =
        g.node.iter().flat_map(|n| n.output.clone()).chain(g.input.iter().filter_map(|i| i.name.clone())).collect();
    match rng.u8(..14) {
        0 if !g.node.is_empty() => {
            let k = rng.usize(..g.node.len());
            let ops = [
                "GRU",
                "LSTM",
                "RNN",
                "Conv",
                "MatMul",
                "Gemm",
                "Relu",
                "Reshape",
                "Transpose",
                "Slice",
                "Concat",
                "Resize",
                "Pad",
                "MaxPool",
                "Softmax",
                "Squeeze",
                "Gather",
                "Split",
                "ReduceMean",
                "Add",
                "Clip",
                "LayerNormalization",
            ];
            g.node[k].op_type = Some(ops[rng.usize(..ops.len())].to_owned());
        }
        1 | 2 if !g.node.is_empty() => {
            let k = rng.usize(..g.node.len());
            let n = &mut g.node[k];
            if n.attribute.is_empty() {
                return;
            }
            let a = rng.usize(..n.attribute.len());
            let at = &mut n.attribute[a];
            match rng.u8(..7) {
                0 => at.i = Some(some_int(rng, at.i.unwrap_or(0))),
                1 => at.f = Some([0.0, -1.0, f32::NAN, f32::INFINITY, 1e-30, 3.5][rng.usize(..6)]),
                2 if !at.ints.is_empty() => {
                    let j = rng.usize(..at.ints.len());
                    at.ints[j] = some_int(rng, at.ints[j]);
                }
                3 => at.ints.push(some_int(rng, 0)),
                4 => {
                    at.ints.pop();
                }
                5 => at.r#type = Some(rng.i32(0..15)),
                _ => {
                    n.attribute.remove(a);
                }
            }
        }
        3 if !g.node.is_empty() => {
            let k = rng.usize(..g.node.len());
            let n = &mut g.node[k];
            match rng.u8(..4) {
                0 if n.input.len() >= 2 => {
                    let (a, b) = (rng.usize(..n.input.len()), rng.usize(..n.input.len()));
                    n.input.swap(a, b);
                }
                1 => {
                    n.input.pop();
                }
                2 if !n.input.is_empty() && !names.is_empty() => {
                    let j = rng.usize(..n.input.len());
                    n.input[j] = names[rng.usize(..names.len())].clone();
                }
                _ if !n.input.is_empty() => {
                    let j = rng.usize(..n.input.len());
                    n.input[j] = ["", "nothing"][rng.usize(..2)].to_owned();
                }
                _ => {}
            }
        }
        4 if !g.node.is_empty() && !names.is_empty() => {
            let k = rng.usize(..g.node.len());
            if let Some(o) = g.node[k].output.first_mut() {
                *o = names[rng.usize(..names.len())].clone();
            }
        }
        5 | 6 if !g.initializer.is_empty() => {
            let k = rng.usize(..g.initializer.len());
            let t = &mut g.initializer[k];
            match rng.u8(..6) {
                0 if !t.dims.is_empty() => {
                    let j = rng.usize(..t.dims.len());
                    t.dims[j] = some_int(rng, t.dims[j]);
                }
                1 => t.dims.push(rng.i64(0..4)),
                2 => t.data_type = Some(rng.i32(0..24)),
                3 => {
                    if let Some(r) = t.raw_data.as_mut() {
                        let keep = rng.usize(..=r.len());
                        r.truncate(keep);
                    }
                }
                4 => {
                    let e = |k: &str, v: String| StringStringEntryProto { key: Some(k.to_owned()), value: Some(v) };
                    t.raw_data = None;
                    t.data_location = Some(tensor_proto::DataLocation::External as i32);
                    let loc = ["w.bin", "../w.bin", "/etc/passwd", "missing.bin", "w.bin\0"][rng.usize(..5)];
                    t.external_data = vec![
                        e("location", loc.to_owned()),
                        e("offset", some_int(rng, 0).to_string()),
                        e("length", some_int(rng, 16).to_string()),
                    ];
                }
                _ => {
                    t.float_data = t
                        .raw_data
                        .take()
                        .map(|r| r.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
                        .unwrap_or_default();
                }
            }
        }
        7 if !g.input.is_empty() => {
            use cellc::front::onnx::proto::{tensor_shape_proto::dimension::Value, type_proto};
            let k = rng.usize(..g.input.len());
            if let Some(type_proto::Value::TensorType(t)) = g.input[k].r#type.as_mut().and_then(|t| t.value.as_mut())
                && let Some(s) = t.shape.as_mut()
                && !s.dim.is_empty()
            {
                let j = rng.usize(..s.dim.len());
                s.dim[j].value = match rng.u8(..3) {
                    0 => Some(Value::DimParam("n".to_owned())),
                    1 => None,
                    _ => Some(Value::DimValue(some_int(rng, 2))),
                };
            }
        }
        8 => {
            if let Some(o) = m.opset_import.first_mut() {
                o.version = Some(rng.i64(1..30));
            }
        }
        9 if !g.node.is_empty() => {
            g.node.remove(rng.usize(..g.node.len()));
        }
        10 if !g.node.is_empty() => {
            let (a, b) = (rng.usize(..g.node.len()), rng.usize(..g.node.len()));
            g.node.swap(a, b);
        }
        11 if !g.node.is_empty() => {
            let n = g.node[rng.usize(..g.node.len())].clone();
            let at = rng.usize(..=g.node.len());
            g.node.insert(at, n);
        }
        12 => {
            if let Some(og) = og
                && !og.node.is_empty()
                && !g.node.is_empty()
            {
                let n = og.node[rng.usize(..og.node.len())].clone();
                let at = rng.usize(..g.node.len());
                g.node[at].attribute = n.attribute;
                if rng.bool() {
                    g.node[at].op_type = n.op_type;
                }
            }
        }
        _ => {
            if !g.output.is_empty() && !names.is_empty() {
                let k = rng.usize(..g.output.len());
                g.output[k].name = Some(names[rng.usize(..names.len())].clone());
            }
        }
    }
}
