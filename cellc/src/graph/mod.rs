//! The graph a front-end reads and the passes rewrite: nodes, each an [`Op`] with its
//! attributes, over tensors that carry an element type, a shape whose dimensions may be
//! symbolic ([`Sym`]), and, once the fold pass has computed it, a constant value.
//! Nodes are never removed from the vectors (ids stay valid); a pass that replaces one marks
//! it dead and points its consumers elsewhere.
pub mod build;
pub mod lookup;
pub mod names;

pub use crate::vocab::{ConstSrc, Data, Elem, Fact, Sym, decode_data, known_len};

use crate::diag::Pos;
use crate::ops::Op;
use crate::vocab::{self, Origin};
use lookup::{NameError, PinError, PinProblem, PortKind};

/// Index of a node in [`Graph::nodes`].
pub type NodeId = usize;
/// Index of a tensor in [`Graph::tensors`].
pub type TensorId = usize;

/// A tensor: an output port of a node.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// What is known of it.
    pub fact: Fact,
    /// The node and output index producing it.
    pub producer: (NodeId, usize),
    /// Its names (the port's `names`), for `--inputs`/`--outputs` and messages.
    pub names: Vec<String>,
    /// Dimensions declared on the port, as written.
    pub declared: Vec<vocab::Dim>,
    /// Where the port is written.
    pub pos: Option<Pos>,
    /// For a constant read from the weights file (possibly through `Convert`s): the element
    /// type stored there, which decides how the generated code may store it.
    pub stored: Option<Elem>,
}

/// A node: an op applied to tensors.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The op with its attributes.
    pub op: Op,
    /// Where it was read from.
    pub origin: Origin,
    /// Input tensors in port order (`None`: nothing connected).
    pub inputs: Vec<Option<TensorId>>,
    /// Where each input port is written.
    pub input_pos: Vec<Option<Pos>>,
    /// Output tensors in port order.
    pub outputs: Vec<TensorId>,
    /// Graphs inside the node (an `If`'s branches), with their port maps.
    pub bodies: Vec<Body>,
    /// Replaced by a pass: nothing reads it any more.
    pub dead: bool,
    /// Why the lowering left it as it is (`passes::lower`), in the words the checker reports.
    pub declined: Option<crate::diag::Message>,
}

/// A graph inside a node, and how the node's ports map to its Parameters and Results.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// `then_body`, `else_body` or `body`.
    pub role: String,
    /// The graph.
    pub graph: Graph,
    /// For each of the body's Parameters (by index in `graph.params`), the node's input
    /// index feeding it.
    pub inputs: Vec<(usize, usize)>,
    /// For each of the node's outputs (by index), the body's Result (index in
    /// `graph.results`) giving it.
    pub outputs: Vec<(usize, usize)>,
}

/// Where a symbol comes from: a dynamic dimension of a Parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The Parameter's name.
    pub param: String,
    /// The axis.
    pub axis: usize,
    /// Where the Parameter is written.
    pub pos: Option<Pos>,
    /// The sizes the model allows (`Dim::Dynamic`: any; an interval, OpenVINO's `1..10`).
    pub allowed: vocab::Dim,
}

/// A model as a graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// The source file, as shown to the user.
    pub file: String,
    /// The model's name.
    pub name: String,
    /// Nodes, in the order read.
    pub nodes: Vec<Node>,
    /// Tensors.
    pub tensors: Vec<Tensor>,
    /// Parameter nodes, in the model's order.
    pub params: Vec<NodeId>,
    /// Result nodes, in the model's order.
    pub results: Vec<NodeId>,
    /// The name of each Result as read (OpenVINO names a Result after the tensor feeding
    /// it), kept apart because passes rename and replace tensors.
    pub result_names: Vec<Option<String>>,
    /// Nodes that keep a value for the next run (`Assign`): roots, as Results are.
    pub sinks: Vec<NodeId>,
    /// The symbols dynamic dimensions stand for.
    pub symbols: Vec<Symbol>,
    /// The weights file the constants are read from.
    pub weights: vocab::Weights,
    /// Names the user gives cells and dense layers (`--cell-name FROM=TO`, FROM a stable
    /// name or a layer name): see [`Graph::code_name`].
    pub renames: Vec<(String, String)>,
    /// Whether the model was cut (`--inputs`, `--outputs`): then the Parameters nothing
    /// reads after folding are dropped.
    pub cut: bool,
}

impl Graph {
    /// An empty graph.
    pub fn new(file: &str, name: &str) -> Graph {
        Graph {
            file: file.to_owned(),
            name: name.to_owned(),
            nodes: Vec::new(),
            tensors: Vec::new(),
            params: Vec::new(),
            results: Vec::new(),
            result_names: Vec::new(),
            sinks: Vec::new(),
            symbols: Vec::new(),
            weights: vocab::Weights { path: String::new(), data: Ok(vocab::WeightData::default()) },
            renames: Vec::new(),
            cut: false,
        }
    }

    /// Adds a node with `outputs` fresh tensors of unknown f32 facts; returns its id.
    pub fn add(&mut self, op: Op, origin: Origin, inputs: Vec<Option<TensorId>>, outputs: usize) -> NodeId {
        let id = self.nodes.len();
        let outs = (0..outputs)
            .map(|i| {
                self.tensors.push(Tensor {
                    fact: Fact { elem: Elem::F32, shape: None, value: None },
                    producer: (id, i),
                    names: Vec::new(),
                    declared: Vec::new(),
                    pos: None,
                    stored: None,
                });
                self.tensors.len() - 1
            })
            .collect();
        let input_pos = vec![None; inputs.len()];
        self.nodes.push(Node {
            op,
            origin,
            inputs,
            input_pos,
            outputs: outs,
            bodies: Vec::new(),
            dead: false,
            declined: None,
        });
        id
    }

    /// The fact of an input of a node, when connected.
    pub fn input_fact(&self, node: NodeId, i: usize) -> Option<&Fact> {
        let t = (*self.nodes[node].inputs.get(i)?)?;
        Some(&self.tensors[t].fact)
    }

    /// Makes every reader of tensor `old` read `new` instead (Results included).
    pub fn replace_uses(&mut self, old: TensorId, new: TensorId) {
        for n in &mut self.nodes {
            for t in n.inputs.iter_mut().flatten() {
                if *t == old {
                    *t = new;
                }
            }
        }
    }

    /// Live nodes in an order where each comes after the nodes it reads (Kahn's algorithm;
    /// nodes on a cycle are left out and returned second).
    pub fn topo_order(&self) -> (Vec<NodeId>, Vec<NodeId>) {
        let n = self.nodes.len();
        let mut indegree = vec![0usize; n];
        let mut readers: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for (id, node) in self.nodes.iter().enumerate().filter(|(_, x)| !x.dead) {
            for &t in node.inputs.iter().flatten() {
                let (p, _) = self.tensors[t].producer;
                indegree[id] += 1;
                readers[p].push(id);
            }
        }
        let mut ready: std::collections::VecDeque<NodeId> =
            (0..n).filter(|&i| !self.nodes[i].dead && indegree[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(id) = ready.pop_front() {
            order.push(id);
            for &r in &readers[id] {
                indegree[r] -= 1;
                if indegree[r] == 0 {
                    ready.push_back(r);
                }
            }
        }
        let cyclic = (0..n).filter(|&i| !self.nodes[i].dead && indegree[i] > 0).collect();
        (order, cyclic)
    }

    /// The axes a `Transpose` node takes, when its order is a constant (an empty order
    /// reverses them).
    pub fn transpose_perm(&self, id: NodeId) -> Option<Vec<usize>> {
        let rank = self.input_fact(id, 0)?.shape.as_ref()?.len();
        let order = self.input_fact(id, 1)?.value.as_ref()?.known_ints()?;
        if order.is_empty() {
            return Some((0..rank).rev().collect());
        }
        order.iter().map(|&a| crate::ops::tensor::axis(a, rank).ok()).collect()
    }

    /// A Parameter's shape from its declared dimensions: each dynamic one a new symbol, which
    /// messages name by the Parameter and the axis.
    pub fn declare_shape(&mut self, param: &str, pos: Option<Pos>, dims: &[vocab::Dim]) -> Vec<Sym> {
        dims.iter()
            .enumerate()
            .map(|(axis, d)| match d {
                vocab::Dim::Static(n) => Sym::known(i64::try_from(*n).unwrap_or(i64::MAX)),
                vocab::Dim::Dynamic | vocab::Dim::Interval { .. } => {
                    self.symbols.push(Symbol { param: param.to_owned(), axis, pos, allowed: *d });
                    Sym::symbol(self.symbols.len() as u32 - 1)
                }
            })
            .collect()
    }

    /// Fixes dimensions of a Parameter (named by its tensor or its layer) before folding;
    /// `None` keeps a dimension. A dimension the model fixes can only be given its own size.
    pub fn pin(&mut self, name: &str, dims: &[Option<u64>]) -> Result<(), PinError> {
        let refuse = |problem| PinError { name: name.to_owned(), problem };
        let p = self.params[self.param_named(name).map_err(|e| refuse(PinProblem::Name(e)))?];
        let t = self.nodes[p].outputs[0];
        let Some(shape) = self.tensors[t].fact.shape.clone() else { return Ok(()) };
        if shape.len() != dims.len() {
            let shown = crate::ops::tensor::show(&shape);
            return Err(refuse(PinProblem::Rank { given: dims.len(), rank: shape.len(), shape: shown }));
        }
        let mut out = shape.clone();
        for (k, (d, pin)) in shape.iter().zip(dims).enumerate() {
            let Some(n) = *pin else { continue };
            let v = i64::try_from(n).map_err(|_| refuse(PinProblem::TooLarge { dim: k }))?;
            let allowed = (d.c == 0 && d.k == 1).then(|| self.symbols.get(d.s as usize)).flatten().map(|s| s.allowed);
            match (d.value(), allowed) {
                (Some(have), _) if have != v => return Err(refuse(PinProblem::Fixed { dim: k, have, want: n })),
                (None, Some(a)) if !a.allows(v) => {
                    return Err(refuse(PinProblem::OutOfInterval { dim: k, allowed: a.to_string(), want: n }));
                }
                _ => out[k] = Sym::known(v),
            }
        }
        self.tensors[t].fact.shape = Some(out);
        Ok(())
    }

    /// The Parameters whose values tensor `t` depends on, in the model's order (walked
    /// without recursion).
    pub fn params_reaching(&self, t: TensorId) -> Vec<NodeId> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![self.tensors[t].producer.0];
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n], true) {
                continue;
            }
            stack.extend(self.nodes[n].inputs.iter().flatten().map(|&i| self.tensors[i].producer.0));
        }
        self.params.iter().copied().filter(|&p| seen[p]).collect()
    }

    /// Fixes a Parameter of one value (named by its tensor or its layer) to `value` before
    /// folding: it becomes a constant, and the model no longer takes it. A Parameter with
    /// a dynamic dimension is refused (a value fixes what holds one value).
    pub fn freeze(&mut self, name: &str, value: f64) -> Result<(), PinError> {
        let refuse = |problem| PinError { name: name.to_owned(), problem };
        let k = self.param_named(name).map_err(|e| refuse(PinProblem::Name(e)))?;
        let p = self.params[k];
        let t = self.nodes[p].outputs[0];
        let fact = &self.tensors[t].fact;
        let shape = fact.shape.clone().unwrap_or_default();
        if fact.shape.is_none() || shape.iter().any(|d| d.value() != Some(1)) {
            return Err(refuse(PinProblem::NotOne { shape: crate::ops::tensor::show(&shape) }));
        }
        let elem = fact.elem;
        let data = if elem.is_float() {
            Data::Float(vec![elem.round(value)])
        } else {
            // A whole number the type holds as it is (no wrapping: the user meant this value).
            let whole = (value.fract() == 0.0 && value.abs() < 9.0e15).then_some(value as i64);
            match whole.filter(|&v| elem.wrap(v) == Some(v) && (elem != Elem::U64 || v >= 0)) {
                Some(v) => Data::Int(vec![Sym::known(v)]),
                None => return Err(refuse(PinProblem::NotOfType { value: value.to_string(), elem: elem.name() })),
            }
        };
        self.nodes[p].op = Op::Const { src: None };
        self.tensors[t].fact = Fact::constant(elem, shape, data);
        self.params.remove(k);
        Ok(())
    }

    /// The Parameter whose dynamic dimension symbol `s` stands for.
    pub fn symbol_param(&self, s: u32) -> Option<NodeId> {
        let sym = self.symbols.get(s as usize)?;
        self.params.iter().copied().find(|&p| {
            self.nodes[p].origin.name == sym.param
                || self.tensors[self.nodes[p].outputs[0]].names.first() == Some(&sym.param)
        })
    }

    /// The pin that fixes dimension `axis` of Parameter `p`, in the model's names: its
    /// known sizes, `N` for that one, `?` for other dynamic ones.
    pub fn pin_fix(&self, p: NodeId, axis: usize) -> crate::diag::Fix {
        let t = self.nodes[p].outputs[0];
        let name = self.tensors[t].names.first().cloned().unwrap_or_else(|| self.nodes[p].origin.name.clone());
        let dims: Vec<String> = self.tensors[t]
            .fact
            .shape
            .iter()
            .flatten()
            .enumerate()
            .map(|(k, d)| match d.value() {
                Some(v) => v.to_string(),
                None if k == axis => "N".to_owned(),
                None => "?".to_owned(),
            })
            .collect();
        crate::diag::Fix::new("pin it with", crate::diag::Setting::new("input", format!("{name}=[{}]", dims.join(","))))
            .then(" (N its size)")
    }

    /// The position in [`Graph::params`] of the Parameter called `name`: the one whose layer
    /// has that name, else the one whose tensor has it.
    pub fn param_named(&self, name: &str) -> Result<usize, NameError> {
        let tensor = |k: usize| &self.tensors[self.nodes[self.params[k]].outputs[0]];
        let by_layer: Vec<usize> =
            (0..self.params.len()).filter(|&k| self.nodes[self.params[k]].origin.name == name).collect();
        let by_tensor: Vec<usize> =
            (0..self.params.len()).filter(|&k| tensor(k).names.iter().any(|n| n == name)).collect();
        let shown =
            |k: usize| format!("{:?}", tensor(k).names.first().unwrap_or(&self.nodes[self.params[k]].origin.name));
        let kind = PortKind::Parameter;
        match (by_layer.as_slice(), by_tensor.as_slice()) {
            ([k], _) | ([], [k]) => Ok(*k),
            ([], []) => Err(no_such(kind, name, (0..self.params.len()).map(shown).collect())),
            ([], ks) => Err(NameError::Several {
                kind,
                layers: ks.iter().map(|&k| format!("{:?}", self.nodes[self.params[k]].origin.name)).collect(),
            }),
            (ks, _) => Err(NameError::SameLayers { kind, count: ks.len() }),
        }
    }

    /// The position in [`Graph::results`] of the Result called `name`: the one the model
    /// names so, else the one whose layer has that name (see [`Graph::param_named`]).
    pub fn result_named(&self, name: &str) -> Result<usize, NameError> {
        let n = self.results.len();
        let given: Vec<usize> =
            (0..n).filter(|&k| self.result_names.get(k).cloned().flatten().as_deref() == Some(name)).collect();
        let by_layer: Vec<usize> = (0..n).filter(|&k| self.nodes[self.results[k]].origin.name == name).collect();
        let shown = |k: usize| {
            format!(
                "{:?}",
                self.result_names
                    .get(k)
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| self.nodes[self.results[k]].origin.name.clone())
            )
        };
        let kind = PortKind::Result;
        match (given.as_slice(), by_layer.as_slice()) {
            ([k], _) | ([], [k]) => Ok(*k),
            ([], []) => Err(no_such(kind, name, (0..n).map(shown).collect())),
            (ks, _) if ks.len() > 1 => Err(NameError::Several {
                kind,
                layers: ks.iter().map(|&k| format!("{:?}", self.nodes[self.results[k]].origin.name)).collect(),
            }),
            _ => Err(NameError::SameLayers { kind, count: by_layer.len() }),
        }
    }

    /// Marks dead every node no Result depends on.
    pub fn prune(&mut self) {
        let mut live = vec![false; self.nodes.len()];
        let mut stack: Vec<NodeId> = self.results.clone();
        stack.extend(self.params.iter().copied());
        stack.extend(self.sinks.iter().copied());
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut live[id], true) {
                continue;
            }
            for &t in self.nodes[id].inputs.iter().flatten() {
                stack.push(self.tensors[t].producer.0);
            }
        }
        for (node, live) in self.nodes.iter_mut().zip(live) {
            node.dead |= !live;
        }
    }
}

/// That no port of `kind` answers to `name`, among `known` (quoted), with the one it most
/// likely misspells.
fn no_such(kind: PortKind, name: &str, known: Vec<String>) -> NameError {
    let unquoted = |k: &String| k.trim_matches('"').to_owned();
    let names: Vec<String> = known.iter().map(unquoted).collect();
    let close = crate::diag::did_you_mean(name, names.iter().map(String::as_str)).map(|c| format!("{c:?}"));
    NameError::NoSuch { kind, known, close }
}
