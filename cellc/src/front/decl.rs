//! The declaration front-end: `gru_cell! { … }`, `rnn_cell!` and `lstm_cell!` parsed with
//! syn into a graph of one cell node, with the same Parameters, constants and Results an IR
//! model of that cell has, so the passes, `check` and the emitters treat it exactly as
//! they treat IR.
//!
//! ```text
//! /// Doc comments.
//! pub struct VadGru<input_size = 16, hidden_size = 128, activations = [sigmoid, tanh]>;
//! ```
//!
//! Syntax errors (unknown or duplicate keys, values of the wrong type, unreadable weights
//! files) are `syn::Error`s at the offending token. Semantic errors come from the check as
//! diagnostics whose positions are indices into [`Lowered::spans`]: line 1, column `k + 1`
//! for span `k`, so that they can be turned back into errors at the token.
use crate::diag::Pos;
use crate::graph::{ConstSrc, Elem, Fact, Graph, Sym, TensorId};
use crate::limits::{MAX_BATCH, MAX_CELL_SIZE, MAX_STEPS};
use crate::ops::{CellAttrs, Op};
use crate::options::{Options, Simd, Strategy, WeightType};
use crate::vocab::Layout;
use crate::vocab::{self, CellOp, Dim, Origin};
use proc_macro2::Span;
use std::path::{Path, PathBuf};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Token};
use weights::WeightsFile;

mod weights;

/// A parsed declaration: `#[doc]`s, visibility, `struct Name<key = value, …>;`.
pub struct Declaration {
    /// Its doc comments.
    pub docs: Vec<syn::Attribute>,
    /// Its visibility, given to every generated type.
    pub vis: syn::Visibility,
    /// The cell type's name.
    pub name: Ident,
    entries: Vec<Entry>,
}

struct Entry {
    key: Ident,
    value: Value,
}

/// A value as written; typed when its key is interpreted.
enum Value {
    Int(syn::LitInt, bool),
    Float(syn::LitFloat, bool),
    Bool(syn::LitBool),
    Str(LitStr),
    Ident(Ident),
    List(Vec<Call>, Span),
}

/// One element of a list: `name` or `name(key = value, …)`.
struct Call {
    name: Ident,
    args: Vec<Entry>,
}

impl Value {
    fn span(&self) -> Span {
        match self {
            Value::Int(l, _) => l.span(),
            Value::Float(l, _) => l.span(),
            Value::Bool(l) => l.span,
            Value::Str(l) => l.span(),
            Value::Ident(i) => i.span(),
            Value::List(_, s) => *s,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Value::Int(..) => "an integer",
            Value::Float(..) => "a number",
            Value::Bool(_) => "a boolean",
            Value::Str(_) => "a string",
            Value::Ident(_) => "a name",
            Value::List(..) => "a list",
        }
    }
}

impl Parse for Value {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let negative = input.peek(Token![-]);
        if negative {
            input.parse::<Token![-]>()?;
        }
        let la = input.lookahead1();
        if la.peek(syn::LitInt) {
            Ok(Value::Int(input.parse()?, negative))
        } else if la.peek(syn::LitFloat) {
            Ok(Value::Float(input.parse()?, negative))
        } else if negative {
            Err(la.error())
        } else if la.peek(syn::LitBool) {
            Ok(Value::Bool(input.parse()?))
        } else if la.peek(LitStr) {
            Ok(Value::Str(input.parse()?))
        } else if la.peek(Ident) {
            Ok(Value::Ident(input.parse()?))
        } else if la.peek(syn::token::Bracket) {
            let content;
            let bracket = syn::bracketed!(content in input);
            let calls = content.parse_terminated(Call::parse, Token![,])?;
            Ok(Value::List(calls.into_iter().collect(), bracket.span.join()))
        } else {
            Err(la.error())
        }
    }
}

impl Parse for Call {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        let mut args = Vec::new();
        if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            while !content.is_empty() {
                args.push(Entry::parse(&content)?);
                if content.is_empty() {
                    break;
                }
                content.parse::<Token![,]>()?;
            }
        }
        Ok(Call { name, args })
    }
}

impl Parse for Entry {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        Ok(Entry { key, value: input.parse()? })
    }
}

impl Parse for Declaration {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        if let Some(a) = attrs.iter().find(|a| !a.path().is_ident("doc")) {
            return Err(syn::Error::new(a.span(), "only doc comments may be written on a cell declaration"));
        }
        let vis = input.parse()?;
        input.parse::<Token![struct]>()?;
        let name: Ident = input.parse()?;
        input.parse::<Token![<]>()?;
        let mut entries = Vec::new();
        while !input.peek(Token![>]) {
            entries.push(input.parse()?);
            if input.peek(Token![>]) {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        input.parse::<Token![>]>()?;
        input.parse::<Token![;]>()?;
        if !input.is_empty() {
            return Err(input.error("expected one cell declaration; write each in its own macro call"));
        }
        Ok(Declaration { docs: attrs, vis, name, entries })
    }
}

/// The keys a declaration may give.
pub const KEYS: &[&str] = &[
    "input_size",
    "hidden_size",
    "activations",
    "clip",
    "linear_before_reset",
    "layout",
    "direction",
    "steps",
    "batch",
    "bias",
    "weights",
    "layer",
    "strategy",
    "simd",
    "weight_type",
    "fast_activations",
    "threads",
    "allow_outside_crate",
];

/// A declaration lowered to the raw ir, with what the expansion needs besides.
pub struct Lowered {
    /// The one-cell model, as a graph.
    pub graph: Graph,
    /// The options it compiles with (strategy, simd, weight type; the model type's name).
    pub options: Options,
    /// The tokens positions refer to (see the module documentation).
    pub spans: Vec<Span>,
    /// Files read, whose change must rebuild the crate.
    pub files: Vec<PathBuf>,
}

/// Collects errors instead of stopping at the first.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    fn at(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.push(syn::Error::new(span, msg));
    }

    /// The value, or `None` with its error kept.
    fn ok<T>(&mut self, r: syn::Result<T>) -> Option<T> {
        r.map_err(|e| self.push(e)).ok()
    }
}

/// The entries of a declaration by key, once each.
struct Keys<'a> {
    entries: Vec<&'a Entry>,
}

impl<'a> Keys<'a> {
    fn new(d: &'a Declaration, errors: &mut Errors) -> Self {
        let mut entries: Vec<&Entry> = Vec::new();
        for e in &d.entries {
            let key = e.key.to_string();
            if !KEYS.contains(&key.as_str()) {
                errors.at(e.key.span(), format!("unknown key `{key}`; expected one of {}", KEYS.join(", ")));
            } else if entries.iter().any(|f| f.key == e.key) {
                errors.at(e.key.span(), format!("`{key}` is given twice"));
            } else {
                entries.push(e);
            }
        }
        Keys { entries }
    }

    fn get(&self, key: &str) -> Option<&'a Entry> {
        self.entries.iter().copied().find(|e| e.key == key)
    }
}

fn wrong_type(e: &Entry, want: &str) -> syn::Error {
    syn::Error::new(e.value.span(), format!("`{}` takes {want}; found {}", e.key, e.value.kind()))
}

/// A positive integer of at most `max`.
fn positive(e: &Entry, max: u64) -> syn::Result<u64> {
    match &e.value {
        Value::Int(l, false) => match l.base10_parse::<u64>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(syn::Error::new(l.span(), format!("`{}` is {l}; expected 1 to {max}", e.key))),
        },
        _ => Err(wrong_type(e, "a positive integer")),
    }
}

fn number(e: &Entry) -> syn::Result<f32> {
    let (v, neg) = match &e.value {
        Value::Int(l, neg) => (l.base10_parse::<f32>()?, *neg),
        Value::Float(l, neg) => (l.base10_parse::<f32>()?, *neg),
        _ => return Err(wrong_type(e, "a number")),
    };
    Ok(if neg { -v } else { v })
}

fn boolean(e: &Entry) -> syn::Result<bool> {
    match &e.value {
        Value::Bool(b) => Ok(b.value),
        _ => Err(wrong_type(e, "`true` or `false`")),
    }
}

fn name(e: &Entry, choices: &[&str]) -> syn::Result<Ident> {
    match &e.value {
        Value::Ident(i) => Ok(i.clone()),
        _ => Err(wrong_type(e, &format!("one of {}", choices.join(", ")))),
    }
}

/// The value of a key that names one of `choices`, read by `parse`.
fn choice<T>(e: &Entry, choices: &[&str], parse: impl Fn(&str) -> Option<T>) -> syn::Result<T> {
    let i = name(e, choices)?;
    parse(&i.to_string()).ok_or_else(|| {
        syn::Error::new(i.span(), format!("unknown {} `{i}`; expected one of {}", e.key, choices.join(", ")))
    })
}

fn string(e: &Entry) -> syn::Result<LitStr> {
    match &e.value {
        Value::Str(s) => Ok(s.clone()),
        _ => Err(wrong_type(e, "a path in a string")),
    }
}

/// The tokens diagnostics point at: a position in a declaration is line 1, column `k + 1`
/// for the `k`-th span; the first is the struct's name.
struct Spans(Vec<Span>);

impl Spans {
    fn at(&mut self, span: Span) -> Pos {
        self.0.push(span);
        Pos { line: 1, col: self.0.len() as u32 }
    }
}

/// Checks a lowered model as every model is checked (the passes, then the check), turning
/// diagnostics into errors at the tokens they concern.
pub fn check(mut g: Graph, spans: &[Span]) -> syn::Result<crate::ir::Model> {
    let diags = crate::pipeline::run_passes(&mut g);
    crate::pipeline::check_passed(&g, diags).map_err(|diags| {
        let mut errors = Errors::default();
        for d in &diags.0 {
            let span = d.pos.and_then(|p| spans.get(p.col.checked_sub(1)? as usize)).copied().unwrap_or(spans[0]);
            // The declaration is the layer: its name need not be repeated.
            errors.at(span, &d.message);
        }
        errors.0.unwrap_or_else(|| syn::Error::new(spans[0], "the declaration does not check"))
    })
}

/// What a declaration says, typed, with the positions of its tokens.
struct Spec {
    op: CellOp,
    name: String,
    input: u64,
    hidden: u64,
    lbr: bool,
    clip: f32,
    layout: Layout,
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
enum Tensors {
    /// Parameters: weights given at run time.
    Runtime,
    /// Constants of a weights file (`W`, `R`, then `B` when the cell has one), named at `pos`.
    File(Pos, Vec<ConstSrc>, vocab::Weights),
}

impl Spec {
    fn kind(&self) -> crate::ir::CellKind {
        match self.op {
            CellOp::Gru => crate::ir::CellKind::Gru { linear_before_reset: self.lbr },
            CellOp::Rnn => crate::ir::CellKind::Rnn,
            CellOp::Lstm => crate::ir::CellKind::Lstm,
        }
    }

    fn sequence(&self) -> bool {
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
    fn tensors(&self) -> Vec<(&'static str, Vec<u64>)> {
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
    fn graph(&self, tensors: Tensors) -> Graph {
        let here = Some(Pos { line: 1, col: 1 });
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
            direction: self.sequence().then(|| self.direction.clone().unwrap_or_else(|| "forward".to_owned())),
            hidden_size: self.hidden as i64,
            activations: self.activations.clone(),
            alpha: self.alpha.clone(),
            beta: self.beta.clone(),
            clip: self.clip,
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
fn spec(op: CellOp, d: &Declaration, keys: &Keys<'_>, spans: &mut Spans, errors: &mut Errors) -> Option<Spec> {
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

/// Lowers a declaration of a cell of kind `op`. Paths are relative to `root` (the crate's
/// manifest directory).
pub fn lower(op: CellOp, d: &Declaration, root: &Path) -> syn::Result<Lowered> {
    let mut errors = Errors::default();
    let keys = Keys::new(d, &mut errors);
    let mut spans = Spans(vec![d.name.span()]);
    let spec = spec(op, d, &keys, &mut spans, &mut errors);
    let options = Options {
        name: Some(format!("{}Model", d.name)),
        strategy: keys
            .get("strategy")
            .and_then(|e| errors.ok(choice(e, &Strategy::ALL.map(Strategy::name), Strategy::parse)))
            .unwrap_or_default(),
        simd: keys
            .get("simd")
            .and_then(|e| errors.ok(choice(e, &Simd::ALL.map(Simd::name), Simd::parse)))
            .unwrap_or_default(),
        weight_type: keys
            .get("weight_type")
            .and_then(|e| errors.ok(choice(e, &WeightType::ALL.map(WeightType::name), WeightType::parse)))
            .unwrap_or_default(),
        fast_activations: keys.get("fast_activations").and_then(|e| errors.ok(boolean(e))).unwrap_or(false),
        threads: keys
            .get("threads")
            .and_then(|e| errors.ok(positive(e, crate::limits::MAX_THREADS as u64)))
            .and_then(|n| crate::Threads::new(usize::try_from(n).ok()?))
            .unwrap_or_default(),
        ..Options::default()
    };
    let layer = keys.get("layer");
    let mut files = Vec::new();
    let tensors = match (keys.get("weights"), &spec) {
        (None, _) => {
            if let Some(e) = layer {
                errors.at(e.key.span(), "`layer` picks a cell of the IR model given by `weights`; there is none");
            }
            Some(Tensors::Runtime)
        }
        (Some(e), Some(spec)) => match string(e) {
            Err(e) => {
                errors.push(e);
                None
            }
            Ok(lit) => {
                let allowed = keys.get("allow_outside_crate").and_then(|e| errors.ok(boolean(e))).unwrap_or(false);
                match crate::front::files::inside_crate(root, &lit, allowed) {
                    Err(e) => {
                        errors.push(e);
                        None
                    }
                    Ok(path) => {
                        let file = WeightsFile { pos: spans.at(lit.span()), lit: &lit, path: &path };
                        let found = if path.extension().is_some_and(|x| x == "xml") {
                            let layer = errors.ok(layer.map(string).transpose()).flatten();
                            file.read_ir(spec, &keys, layer.as_ref(), &spans.0, &mut files)
                        } else {
                            if let Some(e) = layer {
                                errors
                                    .at(e.key.span(), "`layer` picks a cell of an IR model; this weights file is raw");
                            }
                            file.read_raw(spec, &mut files)
                        };
                        errors.ok(found)
                    }
                }
            }
        },
        (Some(_), None) => None,
    };
    match (errors.0, spec, tensors) {
        (None, Some(spec), Some(t)) => Ok(Lowered { graph: spec.graph(t), options, spans: spans.0, files }),
        (Some(e), ..) => Err(e),
        _ => Err(syn::Error::new(d.name.span(), "the declaration is incomplete")),
    }
}

/// A declaration written as text (what a macro call holds between its braces), compiled to
/// the validated model as the macro compiles it: for tests and tools that declare cells.
/// Paths are relative to `root`.
pub fn model_of_text(op: CellOp, text: &str, root: &Path) -> syn::Result<crate::ir::Model> {
    let d: Declaration = syn::parse_str(text)?;
    let lowered = lower(op, &d, root)?;
    check(lowered.graph, &lowered.spans)
}
