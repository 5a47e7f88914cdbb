//! What a declaration says, typed ([`Spec`]), read from its keys, and the graph of its one
//! cell; and the check that turns the graph's diagnostics into errors at the tokens.
use super::syntax::{Declaration, Errors, Keys, Spans, Value, boolean, choice, name, number, positive, wrong_type};
use crate::diag::Pos;
use crate::graph::{ConstSrc, Elem, Fact, Graph, Sym, TensorId};
use crate::limits::{MAX_BATCH, MAX_CELL_SIZE, MAX_STEPS};
use crate::ops::{CellAttrs, Op};
use crate::vocab::{self, CellOp, Dim, Layout, Origin};
use proc_macro2::Span;

/// Checks a lowered model as every model is checked (the passes, then the check), turning
/// diagnostics into errors at the tokens they concern.
pub fn check(mut g: Graph, spans: &[Span]) -> syn::Result<crate::ir::verify::Verified> {
    let diags = crate::pipeline::run_passes(&mut g);
    crate::pipeline::check_passed(&g, diags).map_err(|diags| {
        let mut errors = Errors::default();
        for d in &diags.0 {
            let span = match d.pos {
                Some(Pos::Token(k)) => spans.get(k as usize).copied(),
                _ => None,
            };
            let span = span.unwrap_or(spans[0]);
            // The declaration is the layer: its name need not be repeated.
            errors.at(span, &d.message);
        }
        errors.0.unwrap_or_else(|| syn::Error::new(spans[0], "the declaration does not check"))
    })
}

/// What a declaration says, typed, with the positions of its tokens.
pub(super) struct Spec {
    pub(super) op: CellOp,
    name: String,
    input: u64,
    hidden: u64,
    lbr: bool,
    clip: f32,
    pub(super) layout: Layout,
    activations: Option<Vec<String>>,
    alpha: Vec<Option<f32>>,
    beta: Vec<Option<f32>>,
    steps: Option<u64>,
    direction: Option<String>,
    batch: Dim,
    bias: bool,
    attr_pos: Vec<(&'static str, Pos)>,
    input_pos: Option<Pos>,
    hidden_pos: Option<Pos>,
    steps_pos: Option<Pos>,
}

/// Where `W`, `R` and `B` come from.
pub(super) enum Tensors {
    /// Parameters: weights given at run time.
    Runtime,
    /// Constants of a weights file (`W`, `R`, then `B` when the cell has one), named at `pos`.
    File(Pos, Vec<ConstSrc>, vocab::Weights),
}

impl Spec {
    pub(super) fn kind(&self) -> crate::ir::CellKind {
        match self.op {
            CellOp::Gru => crate::ir::CellKind::Gru { linear_before_reset: self.lbr },
            CellOp::Rnn => crate::ir::CellKind::Rnn,
            CellOp::Lstm => crate::ir::CellKind::Lstm,
        }
    }

    pub(super) fn sequence(&self) -> bool {
        self.steps.is_some()
    }

    fn dirs(&self) -> u64 {
        if self.direction.as_deref() == Some("bidirectional") { 2 } else { 1 }
    }

    /// `rest`, after the direction axis of the Sequence forms.
    fn per_dir(&self, rest: &[u64]) -> Vec<u64> {
        let lead = self.sequence().then_some(self.dirs());
        lead.into_iter().chain(rest.iter().copied()).collect()
    }

    /// The tensors the cell takes (`B` only with a bias) and their shapes as declared.
    pub(super) fn tensors(&self) -> Vec<(&'static str, Vec<u64>)> {
        let (kind, h, g) = (self.kind(), self.hidden, self.kind().gates() as u64);
        let mut t = vec![("W", self.per_dir(&[g * h, self.input])), ("R", self.per_dir(&[g * h, h]))];
        if self.bias {
            t.push(("B", self.per_dir(&[self.layout.bias_blocks(kind) as u64 * h])));
        }
        t
    }

    /// The one-cell model as a graph, with Parameters and Results named as OpenVINO names
    /// the ports: `X`, `H` (and `C`), `sequence_lengths`, then `W`, `R` and `B` as
    /// Parameters (weights given at run time) or constants of the weights file; `Y`, `Ho`
    /// (and `Co`).
    pub(super) fn graph(&self, tensors: Tensors) -> Graph {
        let here = Some(Pos::Token(0));
        let mut g = Graph::new(&format!("declaration of `{}`", self.name), &self.name);
        let statics = |v: &[u64]| v.iter().map(|&n| Dim::Static(n)).collect::<Vec<_>>();
        let with_batch = |v: &[u64]| std::iter::once(self.batch).chain(statics(v)).collect::<Vec<_>>();
        let x_dims = match self.steps {
            Some(l) => with_batch(&[l, self.input]),
            None => with_batch(&[self.input]),
        };
        let state = with_batch(&self.per_dir(&[self.hidden]));
        let origin = |name: &str, op: &str| Origin { pos: here, name: name.to_owned(), op: op.to_owned() };
        let param = |g: &mut Graph, name: &str, elem: Elem, shape: Vec<Dim>| -> TensorId {
            let id = g.add(Op::Parameter { elem, shape: shape.clone() }, origin(name, "Parameter"), Vec::new(), 1);
            let t = g.nodes[id].outputs[0];
            let dims = g.declare_shape(name, here, &shape);
            let tensor = &mut g.tensors[t];
            tensor.names = vec![name.to_owned()];
            tensor.declared = shape;
            tensor.fact = Fact { elem, shape: Some(dims), value: None };
            g.params.push(id);
            t
        };
        let mut inputs = vec![param(&mut g, "X", Elem::F32, x_dims), param(&mut g, "H", Elem::F32, state.clone())];
        let mut input_pos = vec![self.input_pos, self.hidden_pos];
        let lstm = self.kind().has_cell_state();
        if lstm {
            inputs.push(param(&mut g, "C", Elem::F32, state));
            input_pos.push(self.hidden_pos);
        }
        if self.sequence() {
            inputs.push(param(&mut g, "sequence_lengths", Elem::I32, vec![self.batch]));
            input_pos.push(self.steps_pos);
        }
        match tensors {
            Tensors::Runtime => {
                for (t, shape) in self.tensors() {
                    inputs.push(param(&mut g, t, Elem::F32, statics(&shape)));
                    input_pos.push(here);
                }
            }
            Tensors::File(pos, consts, weights) => {
                g.weights = weights;
                for ((t, _), src) in self.tensors().into_iter().zip(consts) {
                    let elem = src.elem;
                    let shape = src.shape.iter().map(|&n| Sym::known(n as i64)).collect();
                    let at = Origin { pos: Some(pos), name: t.to_owned(), op: "Const".to_owned() };
                    let k = g.add(Op::Const { src: Some(Box::new(src)) }, at.clone(), Vec::new(), 1);
                    let mut out = g.nodes[k].outputs[0];
                    g.tensors[out].fact = Fact { elem, shape: Some(shape), value: None };
                    // Another type than f32 reaches the cell through a Convert, as in a model.
                    if elem != Elem::F32 {
                        let convert = Origin { op: "Convert".to_owned(), ..at };
                        let c = g.add(Op::Convert { to: Elem::F32 }, convert, vec![Some(out)], 1);
                        out = g.nodes[c].outputs[0];
                    }
                    inputs.push(out);
                    input_pos.push(Some(pos));
                }
            }
        }
        let attrs = CellAttrs {
            op: self.op,
            sequence: self.sequence(),
            direction: if self.sequence() {
                vocab::resolve_direction(Some(self.direction.as_deref().unwrap_or("forward")))
            } else {
                Ok(vocab::Direction::Forward)
            },
            hidden_size: self.hidden as i64,
            activations: vocab::resolve_activations(
                CellAttrs::kind_of(self.op, self.lbr),
                self.activations.as_deref(),
                &self.alpha,
                &self.beta,
            ),
            clip: vocab::resolve_clip(self.clip),
            linear_before_reset: self.lbr,
            layout: self.layout,
            attr_pos: self.attr_pos.clone(),
        };
        let mut outputs = Vec::new();
        if self.steps.is_some() {
            outputs.push("Y");
        }
        outputs.push("Ho");
        if lstm {
            outputs.push("Co");
        }
        let op = self.kind().op().replace("Cell", if self.sequence() { "Sequence" } else { "Cell" });
        let cell = g.add(
            Op::Cell(Box::new(attrs)),
            origin(&self.name, &op),
            inputs.into_iter().map(Some).collect(),
            outputs.len(),
        );
        g.nodes[cell].input_pos = input_pos;
        for (port, name) in outputs.into_iter().enumerate() {
            let t = g.nodes[cell].outputs[port];
            g.tensors[t].names = vec![name.to_owned()];
            g.tensors[t].pos = here;
            let r = g.add(Op::Result, origin(name, "Result"), vec![Some(t)], 0);
            g.results.push(r);
            g.result_names.push(Some(name.to_owned()));
        }
        g
    }
}

/// Reads the keys of a declaration into a [`Spec`]; `None` when a key is wrong (reported).
pub(super) fn spec(
    op: CellOp,
    d: &Declaration,
    keys: &Keys<'_>,
    spans: &mut Spans,
    errors: &mut Errors,
) -> Option<Spec> {
    let mut attr_pos = Vec::new();
    let size = |key: &str, errors: &mut Errors| match keys.get(key) {
        Some(e) => errors.ok(positive(e, if key == "steps" { MAX_STEPS } else { MAX_CELL_SIZE })),
        None => {
            errors.at(d.name.span(), format!("missing `{key} = …`: a cell declares its sizes"));
            None
        }
    };
    let input = size("input_size", errors);
    let hidden = size("hidden_size", errors);
    let steps = keys.get("steps").and_then(|_| size("steps", errors));
    let mut lbr = false;
    if let Some(e) = keys.get("linear_before_reset") {
        if op == CellOp::Gru {
            lbr = errors.ok(boolean(e)).unwrap_or(false);
        } else {
            errors.at(e.key.span(), "`linear_before_reset` applies to GRU cells only");
        }
    }
    let mut clip = 0.0;
    if let Some(e) = keys.get("clip") {
        attr_pos.push(("clip", spans.at(e.value.span())));
        clip = errors.ok(number(e)).unwrap_or(0.0);
    }
    let mut layout = Layout::OpenVino;
    if let Some(e) = keys.get("layout") {
        attr_pos.push(("layout", spans.at(e.value.span())));
        let names = ["openvino", "onnx", "pytorch", "bnns"];
        layout = errors.ok(choice(e, &names, Layout::parse)).unwrap_or(layout);
    }
    let (mut activations, mut alpha, mut beta) = (None, Vec::new(), Vec::new());
    if let Some(e) = keys.get("activations") {
        attr_pos.push(("activations", spans.at(e.value.span())));
        match &e.value {
            Value::List(calls, _) => {
                for (i, c) in calls.iter().enumerate() {
                    if let Some(key) = crate::ops::cells::ACTIVATION_KEYS.get(i) {
                        attr_pos.push((key, spans.at(c.name.span())));
                    }
                    let (mut a, mut b) = (None, None);
                    for arg in &c.args {
                        let slot = match arg.key.to_string().as_str() {
                            "alpha" => &mut a,
                            "beta" => &mut b,
                            k => {
                                errors.at(arg.key.span(), format!("unknown parameter `{k}`; expected alpha or beta"));
                                continue;
                            }
                        };
                        *slot = errors.ok(number(arg));
                    }
                    alpha.push(a);
                    beta.push(b);
                }
                activations = Some(calls.iter().map(|c| c.name.to_string()).collect());
            }
            _ => errors.push(wrong_type(e, "a list such as [sigmoid, tanh]")),
        }
    }
    let mut direction = None;
    if let Some(e) = keys.get("direction") {
        attr_pos.push(("direction", spans.at(e.value.span())));
        match name(e, &["forward", "reverse", "bidirectional"]) {
            Ok(dir) if keys.get("steps").is_none() => {
                errors.at(dir.span(), "a sequence needs its number of steps: add `steps = …`");
            }
            Ok(dir) => direction = Some(dir.to_string()),
            Err(e) => errors.push(e),
        }
    }
    let batch = match keys.get("batch") {
        None => Dim::Dynamic,
        Some(e) => match &e.value {
            Value::Ident(i) if i == "dynamic" => Dim::Dynamic,
            Value::Int(..) => errors.ok(positive(e, MAX_BATCH)).map_or(Dim::Dynamic, Dim::Static),
            _ => {
                errors.push(wrong_type(e, "a positive integer or `dynamic`"));
                Dim::Dynamic
            }
        },
    };
    let bias = keys.get("bias").is_none_or(|e| errors.ok(boolean(e)).unwrap_or(true));
    let name = d.name.to_string();
    if crate::emit::rust::names::is_reserved(&name) {
        errors.at(
            d.name.span(),
            "generated code needs this name for the prelude or a generic parameter: rename the struct",
        );
    } else if crate::emit::rust::names::type_name(&name, "") != name {
        errors.at(d.name.span(), "cellc names cell types in UpperCamelCase with no underscores: rename the struct");
    }
    let input_pos = keys.get("input_size").map(|e| spans.at(e.value.span()));
    let hidden_pos = keys.get("hidden_size").map(|e| spans.at(e.value.span()));
    attr_pos.extend(hidden_pos.map(|p| ("hidden_size", p)));
    let steps_pos = keys.get("steps").map(|e| spans.at(e.value.span()));
    Some(Spec {
        op,
        name,
        input: input?,
        hidden: hidden?,
        lbr,
        clip,
        layout,
        activations,
        alpha,
        beta,
        steps,
        direction,
        batch,
        bias,
        attr_pos,
        input_pos,
        hidden_pos,
        steps_pos,
    })
}
