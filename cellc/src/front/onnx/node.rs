//! What reading an ONNX graph keeps ([`Scope`]: the graph so far, the tensor of each value
//! name, the weights buffer in memory), and one node being read ([`Node`]), through which
//! [`super::ops`] and [`super::cells`] add the ops a node becomes.
use super::attrs::NodeAttrs;
use super::proto::{NodeProto, TensorProto, tensor_proto};
use crate::diag::Diag;
use crate::graph::{ConstSrc, Data, Elem, Fact, Graph, NodeId, Sym, TensorId};
use crate::limits::{MAX_CONSTANT_BYTES, MAX_MODEL_WEIGHTS, MAX_RANK, shown};
use crate::ops::Op;
use crate::vocab::{self, Origin};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// The graph being built, the tensor of each ONNX value name, and the weights buffer; while a
/// branch of an `If` is read, the graphs around it wait in `outer`.
pub(super) struct Scope {
    pub(super) file: String,
    dir: PathBuf,
    pub(super) g: Graph,
    values: HashMap<String, TensorId>,
    /// In a branch: the values of the graphs around it it reads, each a Parameter of the
    /// branch, in the order of the branch's Parameters.
    captures: Vec<String>,
    outer: Vec<Frame>,
    pub(super) weights: Vec<u8>,
    /// The version of the default operator set the model imports.
    pub(super) opset: i64,
    /// Problems found, each at its node.
    pub(super) diags: Vec<Diag>,
    /// The `If` node just added, whose branches are to be read.
    pub(super) pending_if: Option<NodeId>,
}

/// A graph whose reading waits while a branch inside one of its nodes is read.
struct Frame {
    g: Graph,
    values: HashMap<String, TensorId>,
    captures: Vec<String>,
}

/// The most values of a constant known while reading (see [`Scope::constant`]).
const MAX_VALUES_READ: u64 = 1 << 12;

/// Whether an external data `location` names a file in the model's folder or below it (a
/// relative path without `..`), the only files cellc reads for it.
pub(super) fn beside_model(rel: &Path) -> bool {
    rel.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// The element type of an ONNX `TensorProto.DataType`, when cellc has it.
pub(super) fn elem_of(t: i32) -> Option<Elem> {
    use tensor_proto::DataType as T;
    Some(match T::try_from(t).ok()? {
        T::Float => Elem::F32,
        T::Double => Elem::F64,
        T::Float16 => Elem::F16,
        T::Bfloat16 => Elem::Bf16,
        T::Int8 => Elem::I8,
        T::Uint8 => Elem::U8,
        T::Int32 => Elem::I32,
        T::Int64 => Elem::I64,
        T::Uint32 => Elem::U32,
        T::Uint64 => Elem::U64,
        T::Bool => Elem::Bool,
        _ => return None,
    })
}

/// The name of an ONNX data type, for messages.
pub(super) fn type_name(t: i32) -> String {
    tensor_proto::DataType::try_from(t).map_or_else(|_| format!("type {t}"), |d| d.as_str_name().to_owned())
}

impl Scope {
    pub(super) fn new(file: &str, dir: &Path, name: &str, opset: i64) -> Self {
        Scope {
            file: file.to_owned(),
            dir: dir.to_path_buf(),
            g: Graph::new(file, name),
            values: HashMap::new(),
            captures: Vec::new(),
            outer: Vec::new(),
            weights: Vec::new(),
            opset,
            diags: Vec::new(),
            pending_if: None,
        }
    }

    /// How many branches deep the reading is (0: the model's graph).
    pub(super) fn depth(&self) -> usize {
        self.outer.len()
    }

    /// Starts reading a branch: a graph of its own, whose constants go to the same weights
    /// buffer (so that they stay valid once the branch is inlined).
    pub(super) fn enter(&mut self) {
        let body = Graph::new(&self.file, &self.g.name);
        let g = std::mem::replace(&mut self.g, body);
        let values = std::mem::take(&mut self.values);
        let captures = std::mem::take(&mut self.captures);
        self.outer.push(Frame { g, values, captures });
    }

    /// Ends reading a branch: its graph and the names of the outer values its Parameters
    /// stand for, in order.
    pub(super) fn leave(&mut self) -> (Graph, Vec<String>) {
        let Some(f) = self.outer.pop() else { return (Graph::new(&self.file, &self.g.name), Vec::new()) };
        self.values = f.values;
        let captures = std::mem::replace(&mut self.captures, f.captures);
        (std::mem::replace(&mut self.g, f.g), captures)
    }

    /// Whether value `name` is given.
    pub(super) fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    pub(super) fn constant(&mut self, t: &TensorProto, origin: Origin) -> Result<TensorId, String> {
        let dt = t.data_type.unwrap_or(0);
        let elem = elem_of(dt).ok_or_else(|| format!("its data is of {}, which cellc does not take", type_name(dt)))?;
        if t.dims.len() > MAX_RANK {
            return Err(format!("it has {} dimensions; cellc takes at most {MAX_RANK}", t.dims.len()));
        }
        let shape: Vec<u64> = t
            .dims
            .iter()
            .map(|&d| u64::try_from(d).map_err(|_| format!("its dimensions {:?} include a negative one", t.dims)))
            .collect::<Result<_, _>>()?;
        let count = crate::limits::product(shape.iter().copied()).ok_or("its size overflows")?;
        let size = count.checked_mul(elem.size()).filter(|&n| n <= MAX_CONSTANT_BYTES).ok_or_else(|| {
            format!("{count} values are more than cellc reads for one constant ({MAX_CONSTANT_BYTES} bytes)")
        })?;
        let bytes = self.bytes_of(t, elem)?;
        if bytes.len() as u64 != size {
            return Err(format!(
                "it holds {} bytes of data; its {} shape {} needs {size}",
                bytes.len(),
                elem.name(),
                vocab::show_dims(&shape.iter().map(|&n| vocab::Dim::Static(n)).collect::<Vec<_>>())
            ));
        }
        let offset = self.weights.len() as u64;
        if offset.checked_add(size).is_none_or(|end| end > MAX_MODEL_WEIGHTS) {
            return Err(format!("the model's constants are more than cellc reads ({MAX_MODEL_WEIGHTS} bytes)"));
        }
        self.weights.extend_from_slice(&bytes);
        let src = ConstSrc { elem, shape: shape.clone(), offset, size, attr_pos: Vec::new() };
        let id = self.g.add(Op::Const { src: Some(Box::new(src)) }, origin, Vec::new(), 1);
        let out = self.g.nodes[id].outputs[0];
        let dims = shape.iter().map(|&n| Sym::known(i64::try_from(n).unwrap_or(i64::MAX))).collect();
        // A small constant's values are known while reading (the shapes, axes and bounds a
        // graph computes with), so the ops after it know their ranks; the fold pass loads
        // the rest.
        let value = (count <= MAX_VALUES_READ).then(|| crate::graph::decode_data(elem, &bytes));
        if value.is_some() {
            self.g.tensors[out].stored = Some(elem);
        }
        self.g.tensors[out].fact = Fact { elem, shape: Some(dims), value };
        if let Some(n) = &t.name {
            self.g.tensors[out].names = vec![n.clone()];
        }
        Ok(out)
    }

    /// The little-endian bytes of `t`'s values of `elem`: its `raw_data`, its external
    /// data, or its typed field.
    fn bytes_of(&mut self, t: &TensorProto, elem: Elem) -> Result<Vec<u8>, String> {
        if t.data_location == Some(tensor_proto::DataLocation::External as i32) {
            return self.external(t);
        }
        if let Some(raw) = &t.raw_data {
            return Ok(raw.clone());
        }
        let le = |v: u64, size: u64| v.to_le_bytes()[..size as usize].to_vec();
        let size = elem.size();
        let out: Vec<u8> = match elem {
            Elem::F32 => t.float_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Elem::F64 => t.double_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Elem::I64 => t.int64_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Elem::U32 | Elem::U64 => t.uint64_data.iter().flat_map(|&v| le(v, size)).collect(),
            // int32_data holds the smaller types' values, and f16/bf16 bit patterns.
            _ => t.int32_data.iter().flat_map(|&v| le(v as u32 as u64, size)).collect(),
        };
        // A typed field of another length is reported by the caller's length check.
        Ok(out)
    }

    /// The bytes of a tensor stored in an external file, of those only the range it names.
    fn external(&mut self, t: &TensorProto) -> Result<Vec<u8>, String> {
        let entry =
            |k: &str| t.external_data.iter().find(|e| e.key.as_deref() == Some(k)).and_then(|e| e.value.clone());
        let location = entry("location").ok_or("its data is external but names no `location`")?;
        let num = |k: &str| -> Result<Option<u64>, String> {
            entry(k)
                .map(|v| {
                    v.trim().parse::<u64>().map_err(|_| format!("its external `{k}` is {v:?}; expected a whole number"))
                })
                .transpose()
        };
        let offset = num("offset")?.unwrap_or(0);
        let rel = Path::new(&location);
        if !beside_model(rel) {
            return Err(format!(
                "its external data is in {location:?}; expected a file beside the model (a relative path without `..`)"
            ));
        }
        let path = self.dir.join(rel);
        let length = match num("length")? {
            Some(n) => n,
            None => {
                let len = std::fs::metadata(&path)
                    .map_err(|e| format!("cannot read its external data {}: {e}", path.display()))?
                    .len();
                len.checked_sub(offset)
                    .ok_or_else(|| format!("its external `offset` {offset} is past the end of {}", path.display()))?
            }
        };
        let data = super::super::files::read_ranges(&path, &[(offset, length)])
            .map_err(|e| format!("cannot read its external data {}: {e}", path.display()))?;
        data.get(offset, length).map(<[u8]>::to_vec).ok_or_else(|| {
            format!(
                "its external data is bytes {offset}..{} of {}, which holds {} bytes (or more than cellc reads for one constant)",
                offset.saturating_add(length),
                path.display(),
                data.len()
            )
        })
    }

    /// The tensor of value `name`, if some node, input or initializer gives it. In a branch,
    /// a value of a graph around it becomes a Parameter of the branch (of the value's fact),
    /// which the `If` feeds.
    pub(super) fn value(&mut self, name: &str) -> Option<TensorId> {
        if let Some(&t) = self.values.get(name) {
            return Some(t);
        }
        let fact = self.outer.iter().rev().find_map(|f| f.values.get(name).map(|&t| f.g.tensors[t].fact.clone()))?;
        let shape = fact.shape.as_ref().map_or_else(Vec::new, |s| s.iter().copied().map(vocab::Dim::of_sym).collect());
        let origin = Origin { pos: None, name: name.to_owned(), op: "Parameter".to_owned() };
        let id = self.g.add(Op::Parameter { elem: fact.elem, shape }, origin, Vec::new(), 1);
        let t = self.g.nodes[id].outputs[0];
        self.g.tensors[t].fact = fact;
        self.g.params.push(id);
        self.captures.push(name.to_owned());
        self.bind(name, t);
        Some(t)
    }

    /// The tensor value `name` names in the graph being read (no branch Parameter made).
    pub(super) fn bound(&self, name: &str) -> Option<TensorId> {
        self.values.get(name).copied()
    }

    /// Names tensor `t` as value `name` (an ONNX name names one value: a second is reported).
    pub(super) fn bind(&mut self, name: &str, t: TensorId) -> bool {
        if self.values.contains_key(name) {
            return false;
        }
        self.values.insert(name.to_owned(), t);
        self.g.tensors[t].names.push(name.to_owned());
        true
    }
}

/// One node being read: its inputs by position, its attributes, and what it adds.
pub(super) struct Node<'b, 'a> {
    pub(super) b: &'b mut Scope,
    pub(super) node: &'a NodeProto,
    pub(super) attrs: NodeAttrs<'a>,
    pub(super) origin: Origin,
    pub(super) errors: Vec<String>,
}

impl Node<'_, '_> {
    /// Reports a problem of this node.
    pub(super) fn err(&mut self, msg: impl Into<String>) {
        self.errors.push(msg.into());
    }

    /// The node's version of its op: the model's opset.
    pub(super) fn opset(&self) -> i64 {
        self.b.opset
    }

    /// Input `k`, `None` when absent (past the end or named ""); a name no value has is
    /// reported.
    pub(super) fn input(&mut self, k: usize) -> Option<TensorId> {
        let name = self.node.input.get(k).filter(|n| !n.is_empty())?;
        let t = self.b.value(name);
        if t.is_none() {
            let msg =
                format!("input {k} is {}, which no node, graph input or initializer before it gives", shown(name));
            self.err(msg);
        }
        t
    }

    /// Input `k`, which the op requires (its absence reported as `role`).
    pub(super) fn required(&mut self, k: usize, role: &str) -> Option<TensorId> {
        if self.node.input.get(k).is_none_or(|n| n.is_empty()) {
            self.err(format!("input {k} ({role}) is missing; the op requires it"));
            return None;
        }
        self.input(k)
    }

    /// Whether output `k` is named (used).
    pub(super) fn output_used(&self, k: usize) -> bool {
        self.node.output.get(k).is_some_and(|o| !o.is_empty())
    }

    /// Adds a node of `op` over `inputs` with `outputs` outputs, of this node's origin.
    /// Its outputs' facts are inferred where the op's rule can already (the fold pass infers
    /// them all again), so that later nodes of this reading know ranks they depend on.
    pub(super) fn add(&mut self, op: Op, inputs: &[Option<TensorId>], outputs: usize) -> Vec<TensorId> {
        let g = &self.b.g;
        let facts: Vec<Option<&Fact>> = inputs.iter().map(|t| t.map(|t| &g.tensors[t].fact)).collect();
        let inferred = crate::ops::infer(&op, &facts, outputs).ok();
        let id: NodeId = self.b.g.add(op, self.origin.clone(), inputs.to_vec(), outputs);
        let outs = self.b.g.nodes[id].outputs.clone();
        for (&t, f) in outs.iter().zip(inferred.into_iter().flatten()) {
            self.b.g.tensors[t].fact = f;
        }
        outs
    }

    /// Adds a node of `op` over `inputs` with one output; that output.
    pub(super) fn one(&mut self, op: Op, inputs: &[TensorId]) -> TensorId {
        let ins: Vec<Option<TensorId>> = inputs.iter().map(|&t| Some(t)).collect();
        self.add(op, &ins, 1)[0]
    }

    /// An i64 constant of shape `[v.len()]`.
    pub(super) fn ints(&mut self, v: &[i64]) -> TensorId {
        self.constant(Elem::I64, &[v.len()], Data::Int(v.iter().map(|&x| Sym::known(x)).collect()))
    }

    /// An i64 scalar constant.
    pub(super) fn int(&mut self, v: i64) -> TensorId {
        self.constant(Elem::I64, &[], Data::Int(vec![Sym::known(v)]))
    }

    /// A float scalar constant of `elem`.
    pub(super) fn float(&mut self, elem: Elem, v: f64) -> TensorId {
        self.constant(elem, &[], Data::Float(vec![v]))
    }

    fn constant(&mut self, elem: Elem, shape: &[usize], value: Data) -> TensorId {
        crate::graph::build::constant(&mut self.b.g, self.origin.clone(), elem, shape, value)
    }

    /// The rank of tensor `t` when known while reading (inputs and constants).
    pub(super) fn rank(&self, t: TensorId) -> Option<usize> {
        self.b.g.tensors[t].fact.shape.as_ref().map(Vec::len)
    }

    /// The number of values of tensor `t`, when its shape is known while reading.
    pub(super) fn known_len(&self, t: TensorId) -> Option<usize> {
        self.b.g.tensors[t].fact.known_len()
    }

    /// The element type of tensor `t` as far as known while reading.
    pub(super) fn elem(&self, t: TensorId) -> Elem {
        self.b.g.tensors[t].fact.elem
    }

    /// Gives output `k` of the node the tensor `t`.
    pub(super) fn bind(&mut self, k: usize, t: TensorId) {
        let Some(name) = self.node.output.get(k).filter(|n| !n.is_empty()).cloned() else { return };
        if !self.b.bind(&name, t) {
            self.err(format!(
                "output {k} is {}, which another node or input gives too; ONNX names each value once",
                shown(&name)
            ));
        }
    }

    /// Binds the node's outputs, in order, to `ts`.
    pub(super) fn bind_all(&mut self, ts: &[TensorId]) {
        for (k, &t) in ts.iter().enumerate() {
            self.bind(k, t);
        }
    }

    /// The node as an op cellc does not know: kept, so that it is named where the graph
    /// needs it (and can be cut away).
    pub(super) fn unknown(&mut self) {
        let ins: Vec<Option<TensorId>> = (0..self.node.input.len()).map(|k| self.input(k)).collect();
        let n = self.node.output.len();
        let outs = self.add(Op::Unknown, &ins, n);
        self.bind_all(&outs);
    }
}
