//! Lowering of the IR graph to the raw ir: follows edges back from each Result, folds
//! `Convert` chains into the constants they decompress, and orders cells so that each comes
//! after the cells it reads. Ops other than those cellc compiles become
//! [`Source::Unsupported`], for `check` to report where they are used.
use super::xml::{Layer, Net, parse_dim};
use crate::diag::{Diag, Diagnostics, Pos};
use crate::ir::raw::{self, CellOp, Dim, Origin, Source};
use crate::limits::{MAX_CONVERTS, shown};
use std::collections::{BTreeMap, HashMap, HashSet};

struct Lower<'a> {
    file: &'a str,
    net: &'a Net,
    by_id: HashMap<u64, &'a Layer>,
    incoming: HashMap<(u64, u64), (u64, u64)>,
    memo: HashMap<u64, Source>,
    /// Layers whose inputs are being resolved: a layer found here again closes a cycle.
    visiting: HashSet<u64>,
    params: HashMap<u64, usize>,
    model: raw::Model,
    diags: Vec<Diag>,
}

fn origin(l: &Layer) -> Origin {
    Origin { pos: l.pos, name: l.name.clone(), op: l.op.clone() }
}

fn first_name(names: Option<&String>) -> Option<String> {
    names.and_then(|n| n.split(',').next()).map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

/// The cell an op type is, in its Cell or Sequence form.
fn cell_op(op: &str) -> Option<CellOp> {
    match op {
        "GRUCell" | "GRUSequence" => Some(CellOp::Gru),
        "RNNCell" | "RNNSequence" => Some(CellOp::Rnn),
        "LSTMCell" | "LSTMSequence" => Some(CellOp::Lstm),
        _ => None,
    }
}

/// Lowers a parsed net to the raw ir.
/// The weights file is left empty, for the caller to read what the constants name.
pub(super) fn lower(file: &str, net: Net) -> Result<raw::Model, Diagnostics> {
    let weights = raw::Weights { path: String::new(), data: Ok(raw::WeightData::default()) };
    let model = raw::Model {
        file: file.to_owned(),
        name: net.name.clone(),
        params: Vec::new(),
        consts: Vec::new(),
        cells: Vec::new(),
        outputs: Vec::new(),
        weights,
        unsupported: Vec::new(),
    };
    let mut lw = Lower {
        file,
        net: &net,
        by_id: HashMap::new(),
        incoming: HashMap::new(),
        memo: HashMap::new(),
        visiting: HashSet::new(),
        params: HashMap::new(),
        model,
        diags: Vec::new(),
    };
    lw.index();
    if !lw.diags.is_empty() {
        return Err(Diagnostics(lw.diags));
    }
    // Parameters and Results in layer-id order, which is the order OpenVINO gives them.
    let ordered: BTreeMap<u64, &Layer> = lw.by_id.iter().map(|(&id, &l)| (id, l)).collect();
    for l in ordered.values().filter(|l| l.op == "Parameter") {
        lw.param(l);
    }
    for l in ordered.values().filter(|l| l.op == "Result") {
        let source = lw.input_source(l, 0);
        // OpenVINO names a Result's tensor after the port that feeds it.
        let tensor_name = lw
            .incoming
            .get(&(l.id, l.inputs.first().map_or(0, |p| p.id)))
            .and_then(|&(fl, fp)| lw.by_id.get(&fl)?.outputs.iter().find(|p| p.id == fp))
            .and_then(|p| first_name(p.names.as_ref()));
        lw.model.outputs.push(raw::Output { origin: origin(l), tensor_name, source });
    }
    if lw.model.outputs.is_empty() {
        lw.diags.push(Diag::new(file, None, "the model has no Result layer; expected at least one"));
    }
    if lw.diags.is_empty() { Ok(lw.model) } else { Err(Diagnostics(lw.diags)) }
}

impl<'a> Lower<'a> {
    fn err(&mut self, pos: Option<Pos>, l: &Layer, msg: impl Into<String>) {
        self.diags.push(Diag::new(self.file, pos, msg).in_layer(&l.name, &l.op));
    }

    fn index(&mut self) {
        for l in &self.net.layers {
            if self.by_id.insert(l.id, l).is_some() {
                self.err(l.pos, l, format!("layer id {} is used by another layer too; ids must be unique", l.id));
            }
        }
        for e in &self.net.edges {
            for (lid, what) in [(e.from.0, "from-layer"), (e.to.0, "to-layer")] {
                if !self.by_id.contains_key(&lid) {
                    self.diags.push(Diag::new(self.file, e.pos, format!("<edge> {what}=\"{lid}\" names no layer")));
                }
            }
            let has_port = |lid: u64, pid: u64, output: bool| {
                self.by_id
                    .get(&lid)
                    .is_none_or(|l| if output { &l.outputs } else { &l.inputs }.iter().any(|p| p.id == pid))
            };
            for (end, output, what) in [(e.from, true, "from"), (e.to, false, "to")] {
                if !has_port(end.0, end.1, output) {
                    let side = if output { "output" } else { "input" };
                    let name = self.by_id.get(&end.0).map_or_else(String::new, |l| shown(&l.name));
                    self.diags.push(Diag::new(
                        self.file,
                        e.pos,
                        format!(
                            "<edge> {what}-port=\"{}\" names no {side} port of layer {name} (id {}); expected the id of one of its <{side}> ports",
                            end.1, end.0
                        ),
                    ));
                }
            }
            if self.incoming.insert(e.to, e.from).is_some() {
                self.diags.push(Diag::new(
                    self.file,
                    e.pos,
                    format!("port {} of layer id {} has two incoming edges", e.to.1, e.to.0),
                ));
            }
        }
    }

    fn param(&mut self, l: &Layer) {
        let port = l.outputs.first();
        // The port's dims, else the `shape` attribute (a scalar has neither).
        let shape = match (port, l.attr("shape")) {
            (Some(p), _) if !p.dims.is_empty() => p.dims.clone(),
            (_, Some(s)) => self.shape_attr(l, s),
            _ => Vec::new(),
        };
        let idx = self.model.params.len();
        self.model.params.push(raw::Param {
            origin: origin(l),
            tensor_name: first_name(port.and_then(|p| p.names.as_ref())),
            elem: l.attr("element_type").unwrap_or("f32").to_owned(),
            shape,
        });
        self.params.insert(l.id, idx);
    }

    fn shape_attr(&mut self, l: &Layer, s: &str) -> Vec<Dim> {
        let s = s.trim().trim_start_matches('[').trim_end_matches(']');
        if s.trim().is_empty() {
            return Vec::new();
        }
        let mut dims = Vec::new();
        for part in s.split(',') {
            match parse_dim(part) {
                Some(d) => dims.push(d),
                None => {
                    self.err(
                        l.attr_pos("shape"),
                        l,
                        format!("`shape` holds {:?}; expected sizes separated by commas", s),
                    );
                    return Vec::new();
                }
            }
        }
        dims
    }

    fn u64_attr(&mut self, l: &Layer, key: &str) -> u64 {
        match l.attr(key).map(|v| v.trim().parse::<u64>()) {
            Some(Ok(v)) => v,
            Some(Err(_)) => {
                let v = l.attr(key).unwrap_or_default().to_owned();
                self.err(l.attr_pos(key), l, format!("`{key}` is {v:?}; expected a non-negative integer"));
                0
            }
            None => {
                self.err(l.data_pos.or(l.pos), l, format!("no `{key}` attribute in <data>"));
                0
            }
        }
    }

    /// What feeds input port number `index` (in document order) of `l`.
    fn input_source(&mut self, l: &'a Layer, index: usize) -> Source {
        let Some(port) = l.inputs.get(index) else {
            return Source::Missing;
        };
        let Some((from, from_port)) = self.incoming.get(&(l.id, port.id)).copied() else {
            return Source::Missing;
        };
        self.resolve(from);
        match self.memo.get(&from).cloned().unwrap_or(Source::Missing) {
            // Which output of the cell: the position of the port among its outputs (`index`
            // has checked that it has one with this id).
            Source::Cell(c, _) => {
                let index = self.by_id.get(&from).and_then(|f| f.outputs.iter().position(|p| p.id == from_port));
                index.map_or(Source::Missing, |i| Source::Cell(c, i))
            }
            s => s,
        }
    }

    /// The layers whose outputs `l`'s value is made of; for an op cellc does not compile,
    /// those that may be unsupported ops too (not its constants), so that one run finds
    /// every unsupported op between the Parameters and the Results.
    fn dependencies(&self, l: &Layer) -> Vec<u64> {
        let known = matches!(l.op.as_str(), "Parameter" | "Const" | "Result");
        let reads = l.op == "Convert" || cell_op(&l.op).is_some();
        let ports = if reads || !known { &l.inputs[..] } else { &[] };
        let from = ports.iter().filter_map(|p| self.incoming.get(&(l.id, p.id)).map(|&(from, _)| from));
        from.filter(|f| reads || self.by_id.get(f).is_none_or(|d| d.op != "Const")).collect()
    }

    /// Computes the value of layer `root` after every layer it depends on, with an explicit
    /// stack (a chain of layers as long as the model's is no deeper here), and memoizes it.
    fn resolve(&mut self, root: u64) {
        if self.memo.contains_key(&root) || self.visiting.contains(&root) {
            return;
        }
        let mut stack = vec![(root, false)];
        while let Some((id, ready)) = stack.pop() {
            if self.memo.contains_key(&id) {
                continue;
            }
            let Some(&l) = self.by_id.get(&id) else {
                self.memo.insert(id, Source::Missing);
                continue;
            };
            if ready {
                self.visiting.remove(&id);
                let s = self.value(l);
                self.memo.insert(id, s);
                continue;
            }
            if !self.visiting.insert(id) {
                continue;
            }
            stack.push((id, true));
            for dep in self.dependencies(l) {
                if self.memo.contains_key(&dep) {
                    continue;
                }
                if self.visiting.contains(&dep) {
                    if let Some(&d) = self.by_id.get(&dep) {
                        self.err(d.pos, d, "the layer depends on its own output (a cycle in <edges>)");
                    }
                    self.memo.insert(dep, Source::Missing);
                    continue;
                }
                stack.push((dep, false));
            }
        }
    }

    /// The value of `l`, whose dependencies are resolved.
    fn value(&mut self, l: &'a Layer) -> Source {
        let id = l.id;
        match (l.op.as_str(), cell_op(&l.op)) {
            (_, Some(op)) => self.cell(l, op),
            ("Parameter", _) => self.params.get(&id).map_or(Source::Missing, |&i| Source::Param(i)),
            ("Const", _) => self.constant(l),
            ("Convert", _) => self.convert(l),
            _ => {
                self.model.unsupported.push(origin(l));
                Source::Unsupported(origin(l))
            }
        }
    }

    fn constant(&mut self, l: &Layer) -> Source {
        let shape = self
            .shape_attr(l, l.attr("shape").unwrap_or(""))
            .into_iter()
            .map(|d| match d {
                Dim::Static(n) => n,
                Dim::Dynamic => 0,
            })
            .collect();
        let c = raw::Const {
            origin: origin(l),
            elem: l.attr("element_type").unwrap_or("").to_owned(),
            shape,
            offset: self.u64_attr(l, "offset"),
            size: self.u64_attr(l, "size"),
            converts: Vec::new(),
            attr_pos: ["element_type", "offset", "size"]
                .into_iter()
                .filter_map(|k| Some((k, l.attr_pos(k)?)))
                .collect(),
        };
        self.model.consts.push(c);
        Source::Const(self.model.consts.len() - 1)
    }

    fn convert(&mut self, l: &'a Layer) -> Source {
        match self.input_source(l, 0) {
            Source::Const(c) if self.model.consts[c].converts.len() >= MAX_CONVERTS => {
                let msg = format!(
                    "a chain of more than {MAX_CONVERTS} Converts; cellc folds at most {MAX_CONVERTS} into a constant"
                );
                self.err(l.pos, l, msg);
                Source::Unsupported(origin(l))
            }
            Source::Const(c) => {
                let mut folded = self.model.consts[c].clone();
                let dest = l.attr("destination_type").unwrap_or("").to_owned();
                folded.converts.push((dest, origin(l)));
                self.model.consts.push(folded);
                Source::Const(self.model.consts.len() - 1)
            }
            _ => {
                self.model.unsupported.push(origin(l));
                Source::Unsupported(origin(l))
            }
        }
    }

    fn cell(&mut self, l: &'a Layer, op: CellOp) -> Source {
        let hidden_size = match l.attr("hidden_size").map(|v| v.trim().parse::<i64>()) {
            Some(Ok(v)) => v,
            Some(Err(_)) => {
                let v = l.attr("hidden_size").unwrap_or_default().to_owned();
                self.err(l.attr_pos("hidden_size"), l, format!("`hidden_size` is {v:?}; expected a positive integer"));
                1
            }
            None => {
                self.err(l.data_pos.or(l.pos), l, "no `hidden_size` attribute; it is required");
                1
            }
        };
        let activations = l
            .attr("activations")
            .map(|s| s.split(',').map(|a| a.trim().to_owned()).filter(|a| !a.is_empty()).collect());
        let alpha = self.floats(l, "activations_alpha").into_iter().map(Some).collect();
        let beta = self.floats(l, "activations_beta").into_iter().map(Some).collect();
        let clip = self.floats(l, "clip").first().copied().unwrap_or(0.0);
        let linear_before_reset = match l.attr("linear_before_reset").map(|s| s.trim().to_ascii_lowercase()) {
            None => false,
            Some(s) if s == "true" || s == "1" => true,
            Some(s) if s == "false" || s == "0" => false,
            Some(s) => {
                self.err(
                    l.attr_pos("linear_before_reset"),
                    l,
                    format!("`linear_before_reset` is {s:?}; expected true or false"),
                );
                false
            }
        };
        let inputs = (0..l.inputs.len())
            .map(|i| raw::Input {
                source: self.input_source(l, i),
                dims: l.inputs[i].dims.clone(),
                pos: l.inputs[i].pos,
            })
            .collect();
        let out = l.outputs.first();
        self.model.cells.push(raw::Cell {
            origin: origin(l),
            op,
            sequence: l.op.ends_with("Sequence"),
            direction: l.attr("direction").map(|d| d.trim().to_owned()),
            attr_pos: ["hidden_size", "activations", "clip", "direction"]
                .into_iter()
                .filter_map(|k| Some((k, l.attr_pos(k)?)))
                .collect(),
            hidden_size,
            activations,
            alpha,
            beta,
            clip,
            linear_before_reset,
            layout: crate::layout::Layout::OpenVino,
            inputs,
            output_dims: l.outputs.iter().map(|p| p.dims.clone()).collect(),
            output_pos: l.outputs.iter().map(|p| p.pos).collect(),
            precision: out.and_then(|p| p.precision.clone()),
        });
        Source::Cell(self.model.cells.len() - 1, 0)
    }

    fn floats(&mut self, l: &Layer, key: &str) -> Vec<f32> {
        let Some(s) = l.attr(key) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.parse::<f32>() {
                Ok(v) => out.push(v),
                Err(_) => {
                    self.err(
                        l.attr_pos(key),
                        l,
                        format!("`{key}` holds {part:?}; expected numbers separated by commas"),
                    );
                }
            }
        }
        out
    }
}
