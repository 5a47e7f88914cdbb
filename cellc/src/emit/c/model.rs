//! The model entry point in C: the Parameters' and Results' names and shapes, a struct for
//! what a run keeps (weights given at run time, scratch slots) and `run` over flat arrays in
//! Parameter and Result order. As the Rust entry point, it checks every count, length and
//! sequence length before writing anything, then performs the model's steps for each row.
use super::helpers::Helpers;
use super::names::CellNames;
use super::text::{Code, float, mul, quoted, refusal, string};
use crate::emit::runs::GatherForm;
use crate::ir::steps::CellStep;
use crate::ir::{Batch, Dim, Home, Lengths, Model, Operand, Step};
use std::collections::BTreeMap;

/// A generated cell, as the model refers to it.
pub(super) struct CellItem {
    pub(super) n: CellNames,
    /// Its field in the model struct (its name without the file's prefix).
    pub(super) field: String,
    /// The Parameters its runtime weights come from, in `set_weights` order.
    pub(super) runtime_args: Vec<usize>,
}

/// The model's part of the header and of the source.
pub(super) struct ModelEmitter<'a> {
    pub(super) m: &'a Model,
    pub(super) cells: &'a [CellItem],
    pub(super) prefix: &'a str,
    pub(super) upper: &'a str,
    /// Member names of the scratch slots.
    pub(super) slots: Vec<String>,
    /// Names of the constant arrays.
    pub(super) consts: Vec<String>,
    /// The functions of the dense layers.
    /// Each dense layer's function, and the work area it takes (F(2×2, 3×3)), if any.
    pub(super) denses: Vec<(String, Option<usize>)>,
    /// Member names of the variables of a stateful model.
    pub(super) states: Vec<String>,
    /// Each gather's form and the name of its table at file scope, if the form has one, by
    /// step (see `gather::form_and_table`).
    pub(super) gathers: BTreeMap<usize, (GatherForm, Option<String>)>,
}

/// Floats in one batch row of a tensor: its dimensions but the batch, wherever it is.
fn row_len(shape: &[Dim]) -> usize {
    Model::row_len(shape)
}

/// Whether a tensor's length depends on the batch of the call.
fn batched(shape: &[Dim]) -> bool {
    shape.contains(&Dim::Batch)
}

/// Bytes of scratch from which the header says to keep the model struct off a stack.
const SMALL_STACK: usize = 64 * 1024;

impl ModelEmitter<'_> {
    /// The struct's members: runtime weights, then scratch slots.
    fn members(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for c in self.cells.iter().filter(|c| !c.runtime_args.is_empty()) {
            out.push((c.n.f(""), c.field.clone()));
        }
        for (name, len) in self.slots.iter().zip(&self.m.slots) {
            out.push(("float".into(), format!("{name}[{len}]")));
        }
        for (name, st) in self.states.iter().zip(&self.m.states) {
            out.push(("float".into(), format!("{name}[{}]", st.len)));
        }
        if let Some(len) = self.work() {
            // The work area of the layers run by F(2×2, 3×3), one for all; a name no cell,
            // slot or variable can take (theirs are words).
            out.push(("float".into(), format!("work_[{len}]")));
        }
        if !self.m.states.is_empty() {
            // A member name no cell, slot or variable can take (theirs are words).
            out.push(("int".into(), "started_".into()));
        }
        if self.weights() > 0 {
            out.push(("int".into(), "weights_set_".into()));
        }
        out
    }

    /// The work area the dense layers take, in values: the largest one's.
    /// Values of the largest work area a dense layer takes.
    fn work(&self) -> Option<usize> {
        self.denses.iter().filter_map(|d| d.1).max()
    }

    fn tensor(&self, name: &str, shape: &[Dim]) -> String {
        let dims: Vec<String> = shape
            .iter()
            .map(|d| match (*d, self.m.batch) {
                (Dim::Static(n), _) | (Dim::Batch, Batch::Static(n)) => n.to_string(),
                (Dim::Batch, Batch::Dynamic) => "-1".into(),
            })
            .collect();
        // A scalar's dims are `{0}`: C99 has no empty initialiser, and its rank 0 says none is read.
        let dims = if dims.is_empty() { "0".to_owned() } else { dims.join(", ") };
        format!("{{{}, {}, {{{dims}}}}}", string(name), shape.len())
    }

    fn max_rank(&self) -> usize {
        self.m
            .params
            .iter()
            .map(|p| p.shape.len())
            .chain(self.m.outputs.iter().map(|o| o.shape.len()))
            .max()
            .unwrap_or(1)
            .max(1)
    }

    /// How many Parameters a run takes (data and sequence lengths).
    fn inputs(&self) -> usize {
        self.m.run_inputs().count()
    }

    /// How many weight tensors are given at run time, through `set_weights`.
    fn weights(&self) -> usize {
        self.m.run_weights().count()
    }

    fn set_weights_signature(&self) -> String {
        format!(
            "int {p}_set_weights({p}_model *model, const float *const *weights, const size_t *weight_lens, size_t n_weights)",
            p = self.prefix
        )
    }

    fn run_signature(&self) -> String {
        format!(
            "int {p}_run({p}_model *model, const float *const *inputs, const size_t *input_lens, size_t n_inputs, \
             float *const *outputs, const size_t *output_lens, size_t n_outputs)",
            p = self.prefix
        )
    }

    /// The header's part: counts, tensor tables, the model struct and `run`.
    pub(super) fn declare(&self, hd: &mut Code) {
        let (p, u, m) = (self.prefix, self.upper, self.m);
        let names = |v: Vec<&str>| v.into_iter().map(quoted).collect::<Vec<_>>().join(", ");
        hd.comment(&format!(
            "Model {}: Parameters {}; Results {}.",
            quoted(&m.name),
            names(m.params.iter().map(|p| p.name.as_str()).collect()),
            names(m.outputs.iter().map(|o| o.name.as_str()).collect())
        ));
        hd.line(format!("#define {u}_INPUT_COUNT {}", self.inputs()));
        if self.weights() > 0 {
            hd.line(format!("#define {u}_WEIGHT_COUNT {}", self.weights()));
        }
        hd.line(format!("#define {u}_OUTPUT_COUNT {}", m.outputs.len()));
        hd.line(format!("#define {u}_MAX_RANK {}", self.max_rank()));
        hd.line("");
        hd.comment(&format!(
            "A Parameter's or Result's name and shape, outermost dimension first; -1 stands for the batch, which each \
             call of {p}_run reads from the lengths it is given."
        ));
        hd.open(format!("typedef struct {p}_tensor"));
        hd.line("const char *name;");
        hd.line("size_t rank;");
        hd.line(format!("long shape[{u}_MAX_RANK];"));
        hd.close(&format!(" {p}_tensor;"));
        hd.line("");
        if self.inputs() > 0 {
            hd.comment(&format!("The Parameters {p}_run takes, in order."));
            hd.line(format!("extern const {p}_tensor {p}_inputs[{u}_INPUT_COUNT];"));
        }
        if self.weights() > 0 {
            hd.comment(&format!(
                "The Parameters that hold weights given at run time, in order: set once by {p}_set_weights."
            ));
            hd.line(format!("extern const {p}_tensor {p}_weights[{u}_WEIGHT_COUNT];"));
        }
        if !m.outputs.is_empty() {
            hd.comment("The model's Results, in order.");
            hd.line(format!("extern const {p}_tensor {p}_outputs[{u}_OUTPUT_COUNT];"));
        }
        hd.line("");
        let members = self.members();
        let weights = self.cells.iter().any(|c| !c.runtime_args.is_empty());
        let scratch = !self.m.slots.is_empty() || !self.m.states.is_empty() || self.work().is_some();
        let keeps = match (weights, scratch) {
            (false, false) => "nothing (the weights are embedded)",
            (true, false) => "the weights given at run time, packed",
            (false, true) => "scratch for the values between steps that no Result returns",
            (true, true) => {
                "the weights given at run time, packed, and scratch for the values between steps that no Result returns"
            }
        };
        if m.states.is_empty() {
            hd.comment(&format!(
                "What {p}_run keeps besides its arguments: {keeps}. It needs no initialisation; give each thread its own."
            ));
        } else {
            let names: Vec<String> = m.states.iter().map(|s| quoted(&s.name)).collect();
            hd.comment(&format!(
                "What {p}_run keeps besides its arguments: {keeps}, and the variables {} carried from one run to the \
                 next. Call {p}_reset before the first run (a zeroed struct is reset too), and to start a new stream; give each stream its own.",
                names.join(", ")
            ));
        }
        // Scratch alone can make the struct too large for a thread's stack: say its size.
        let scratch_bytes =
            self.m.slots.iter().chain(self.work().as_ref()).fold(0usize, |n, &k| n.saturating_add(k.saturating_mul(4)));
        if scratch_bytes >= SMALL_STACK {
            hd.comment(&format!(
                "Its scratch alone is {scratch_bytes} bytes ({} KiB): give it static storage or the heap, not a thread's stack.",
                scratch_bytes / 1024
            ));
        }
        hd.open(format!("typedef struct {p}_model"));
        if members.is_empty() {
            hd.line("char unused;");
        }
        for (ty, f) in &members {
            hd.line(format!("{ty} {f};"));
        }
        hd.close(&format!(" {p}_model;"));
        hd.line("");
        hd.comment(&format!(
            "Runs the model once. `inputs[k]` holds `input_lens[k]` floats of {p}_inputs[k] (flat, row-major; \
             sequence lengths as whole numbers), `outputs[k]` receives the `output_lens[k]` floats of Result k. \
             Checks every count and length before writing anything: returns {u}_OK, {u}_ERR_INPUT_COUNT, \
             {u}_ERR_OUTPUT_COUNT, {u}_ERR_LENGTH, {u}_ERR_PARTIAL_ROW, {u}_ERR_SEQUENCE_LENGTH{} or {u}_ERR_NULL.",
            if self.weights() > 0 { format!(", {u}_ERR_WEIGHTS_NOT_SET") } else { String::new() }
        ));
        hd.line(format!("{};", self.run_signature()));
        hd.line("");
        if self.weights() > 0 {
            hd.comment(&format!(
                "Packs the weights given at run time into the model, once: `weights[k]` holds `weight_lens[k]` floats \
                 of {p}_weights[k] (flat, row-major). Every later run reads the packed copy; {p}_run returns \
                 {u}_ERR_WEIGHTS_NOT_SET until this has succeeded. Checks every count and length first: returns \
                 {u}_OK, {u}_ERR_WEIGHT_COUNT, {u}_ERR_LENGTH or {u}_ERR_NULL."
            ));
            hd.line(format!("{};", self.set_weights_signature()));
            hd.line("");
        }
        if !m.states.is_empty() {
            hd.comment(
                "Sets the variables to their initial values (zero, or what the model gives them on its first run).",
            );
            hd.line(format!("void {p}_reset({p}_model *model);"));
            hd.line("");
        }
    }

    /// The source's part: tensor tables, constant sequence lengths and `run`.
    pub(super) fn define(&self, c: &mut Code, helpers: &mut Helpers) {
        let (p, u, m) = (self.prefix, self.upper, self.m);
        if self.inputs() > 0 {
            c.open(format!("const {p}_tensor {p}_inputs[{u}_INPUT_COUNT] ="));
            for (_, par) in m.run_inputs() {
                c.line(format!("{},", self.tensor(&par.name, &par.shape)));
            }
            c.close(";");
            c.line("");
        }
        if self.weights() > 0 {
            c.open(format!("const {p}_tensor {p}_weights[{u}_WEIGHT_COUNT] ="));
            for (_, par) in m.run_weights() {
                c.line(format!("{},", self.tensor(&par.name, &par.shape)));
            }
            c.close(";");
            c.line("");
        }
        if !m.outputs.is_empty() {
            c.open(format!("const {p}_tensor {p}_outputs[{u}_OUTPUT_COUNT] ="));
            for o in &m.outputs {
                c.line(format!("{},", self.tensor(&o.name, &o.shape)));
            }
            c.close(";");
            c.line("");
        }
        for (k, cell) in m.cells.iter().enumerate() {
            if let Some(crate::ir::Seq { lengths: Lengths::Const(v), .. }) = &cell.seq
                && v.len() > 1
            {
                let v: Vec<String> = v.iter().map(ToString::to_string).collect();
                c.line(format!(
                    "static const size_t {}[{}] = {{{}}};",
                    self.cells[k].n.m("_LENGTHS"),
                    v.len(),
                    v.join(", ")
                ));
                c.line("");
            }
        }
        for (name, v) in self.consts.iter().zip(&m.consts) {
            let v: Vec<String> = v.iter().map(|&x| float(x)).collect();
            c.line(format!("static const float {name}[{}] = {{{}}};", v.len(), v.join(", ")));
            c.line("");
        }
        if !m.states.is_empty() {
            c.function(&format!("void {p}_reset({p}_model *model)"));
            for (name, st) in self.states.iter().zip(&m.states) {
                c.line(format!("for (size_t j = 0; j < {}; ++j) model->{name}[j] = 0.0f;", st.len));
            }
            c.line("model->started_ = 0;");
            c.close("");
            c.line("");
        }
        self.gather_tables(c);
        self.define_set_weights(c);
        c.line("/* Called with its number as each step of a run ends (`cellc inspect` lists the steps);");
        c.line(format!(" * defined as, say, -D'{u}_STEP_DONE(k)=hook(k)', it times them. */"));
        c.line(format!("#ifndef {u}_STEP_DONE"));
        c.line(format!("#define {u}_STEP_DONE(k) ((void)0)"));
        c.line("#endif");
        self.define_steps(c, helpers);
        c.function(&self.run_signature());
        c.line("size_t batch;");
        c.refuse(u, &format!("n_inputs != {}", self.inputs()), "ERR_INPUT_COUNT");
        c.refuse(u, &format!("n_outputs != {}", m.outputs.len()), "ERR_OUTPUT_COUNT");
        c.refuse(
            u,
            "model == NULL || inputs == NULL || input_lens == NULL || outputs == NULL || output_lens == NULL",
            "ERR_NULL",
        );
        if self.weights() > 0 {
            c.refuse(u, "!model->weights_set_", "ERR_WEIGHTS_NOT_SET");
        }
        self.check_lengths(c);
        if m.steps.is_empty() {
            c.line("(void)batch;");
        } else {
            c.line(format!("{p}_steps(model, inputs, outputs, batch);"));
        }
        if !m.states.is_empty() {
            c.line("model->started_ = 1;");
        }
        c.line(format!("return {u}_OK;"));
        c.close("");
        c.line("");
    }

    /// `PREFIX_steps`, the steps of a run whose arguments were checked: a kernel function,
    /// copied for wider processors (see `Code::kernel`), where some step has loops of its
    /// own; its gathers' tables are at file scope, shared by the copies.
    fn define_steps(&self, c: &mut Code, helpers: &mut Helpers) {
        let (m, u, p) = (self.m, self.upper, self.prefix);
        if m.steps.is_empty() {
            return;
        }
        let params = format!("{p}_model *model, const float *const *inputs, float *const *outputs, size_t batch");
        // Steps that only call functions (cells, dense layers) have no loop of their own to
        // copy: one function calls the copies those pick.
        let loops = m.steps.iter().any(|s| !matches!(s, Step::Cell(_) | Step::Dense(_) | Step::Init(_)));
        if loops {
            // The kernel's macros (`UPPER_DISPATCH`, `UPPER_VECTORS`…) come with the vectors'.
            helpers.vectors = true;
            // Its arithmetic rounds as written, as the Rust's steps do: fused multiply–adds
            // would move a quantisation's `x / scale + zero point` across a rounding edge.
            c.kernel_unfused(u, &format!("{p}_steps"), &params);
        } else {
            c.function(&format!("static void {p}_steps({params})"));
        }
        c.line("(void)model;");
        c.line("(void)inputs;");
        c.line("(void)outputs;");
        {
            c.open("for (size_t n = 0; n < batch; ++n)");
            for (k, step) in m.steps.iter().enumerate() {
                c.open("");
                match step {
                    Step::Cell(s) => self.cell_step(c, s),
                    Step::Copy(s) => self.copy_step(c, s, helpers),
                    Step::Map(s) => self.map_step(c, s, helpers),
                    Step::MatMul(s) => self.matmul_step(c, s, helpers),
                    Step::Dense(s) => {
                        let (f, work) = &self.denses[s.dense];
                        let work = if work.is_some() { ", model->work_" } else { "" };
                        c.line(format!("{f}({}, {}, {}{work});", self.ptr(&s.x), self.ptr(&s.dst), s.rows));
                    }
                    Step::Softmax(s) => self.softmax_step(c, s, helpers),
                    Step::Reduce(s) => self.reduce_step(c, s),
                    Step::Rows(s) => self.rows_step(c, s),
                    // Every gather has its entry (`emit` makes one for each `Pick`).
                    Step::Pick(s) => {
                        if let Some(g) = self.gathers.get(&k) {
                            self.pick_step(c, s, g);
                        }
                    }
                    Step::Pool(s) => self.pool_step(c, s),
                    Step::Take(s) => self.take_step(c, s),
                    Step::TopK(s) => self.top_k_step(c, s),
                    Step::Init(s) => {
                        let len = m.states[s.state].len;
                        c.line(format!("const float *const src = {};", self.ptr(&s.src)));
                        c.line(format!(
                            "if (!model->started_) for (size_t j = 0; j < {len}; ++j) model->{}[j] = src[j];",
                            self.states[s.state]
                        ));
                    }
                }
                c.close("");
                c.line(format!("{u}_STEP_DONE({k});"));
            }
            c.close("");
        }
        c.close("");
        c.line("");
    }

    /// `set_weights`: the count, every pointer and length, then each cell's weights packed.
    fn define_set_weights(&self, c: &mut Code) {
        let (u, n) = (self.upper, self.weights());
        if n == 0 {
            return;
        }
        c.function(&self.set_weights_signature());
        c.refuse(u, &format!("n_weights != {n}"), "ERR_WEIGHT_COUNT");
        c.refuse(u, "model == NULL || weights == NULL || weight_lens == NULL", "ERR_NULL");
        c.line("model->weights_set_ = 0;");
        for (k, (_, par)) in self.m.run_weights().enumerate() {
            c.refuse(u, &format!("weight_lens[{k}] != {}", row_len(&par.shape)), "ERR_LENGTH");
        }
        c.line(format!("for (size_t k = 0; k < {n}; ++k) {}", refusal(u, "weights[k] == NULL", "ERR_NULL")));
        for cell in self.cells.iter().filter(|c| !c.runtime_args.is_empty()) {
            let args: Vec<String> = cell
                .runtime_args
                .iter()
                .map(|&a| {
                    let w = self.m.arg_index(a);
                    format!("weights[{w}], weight_lens[{w}]")
                })
                .collect();
            c.open("");
            c.line(format!(
                "const int status = {}(&model->{}, {});",
                cell.n.f("_set_weights"),
                cell.field,
                args.join(", ")
            ));
            c.line(format!("if (status != {u}_OK) return status;"));
            c.close("");
        }
        c.line("model->weights_set_ = 1;");
        c.line(format!("return {u}_OK;"));
        c.close("");
        c.line("");
    }

    /// The batch, then every length, null pointer and sequence length, as `check_io` and
    /// `check_lengths` of the runtime check them.
    fn check_lengths(&self, c: &mut Code) {
        let (u, m) = (self.upper, self.m);
        match m.batch {
            Batch::Static(n) => c.line(format!("batch = {n};")),
            Batch::Dynamic => {
                let mut first = true;
                for (k, par) in m.run_inputs().map(|(_, p)| p).enumerate().filter(|(_, p)| batched(&p.shape)) {
                    let row = row_len(&par.shape);
                    if row > 1 {
                        c.refuse(u, &format!("input_lens[{k}] % {row} != 0"), "ERR_PARTIAL_ROW");
                    }
                    if first {
                        let rows =
                            if row == 1 { format!("input_lens[{k}]") } else { format!("input_lens[{k}] / {row}") };
                        c.line(format!("batch = {rows};"));
                        first = false;
                    }
                }
                if first {
                    c.line("batch = 1;");
                }
            }
        }
        let expected = |shape: &[Dim]| {
            if batched(shape) { mul("batch", row_len(shape)) } else { row_len(shape).to_string() }
        };
        for (k, (_, par)) in m.run_inputs().enumerate() {
            c.refuse(u, &format!("input_lens[{k}] != {}", expected(&par.shape)), "ERR_LENGTH");
        }
        for (k, o) in m.outputs.iter().enumerate() {
            c.refuse(u, &format!("output_lens[{k}] != {}", expected(&o.shape)), "ERR_LENGTH");
        }
        if self.inputs() > 0 {
            c.line(format!(
                "for (size_t k = 0; k < {}; ++k) {}",
                self.inputs(),
                refusal(u, "inputs[k] == NULL && input_lens[k] > 0", "ERR_NULL")
            ));
        }
        if !m.outputs.is_empty() {
            c.line(format!(
                "for (size_t k = 0; k < {}; ++k) {}",
                m.outputs.len(),
                refusal(u, "outputs[k] == NULL && output_lens[k] > 0", "ERR_NULL")
            ));
        }
        for cell in &m.cells {
            if let Some(crate::ir::Seq { lengths: Lengths::Param(par), steps, .. }) = &cell.seq {
                let par = m.arg_index(*par);
                c.open(format!("for (size_t r = 0; r < input_lens[{par}]; ++r)"));
                c.line(format!("const float v = inputs[{par}][r];"));
                c.comment("A whole number from 0 to the steps (NaN fails every comparison).");
                c.refuse(
                    u,
                    &format!("!(v >= 0.0f && v <= {steps}.0f && v == (float)(size_t)v)"),
                    "ERR_SEQUENCE_LENGTH",
                );
                c.close("");
            }
        }
    }

    /// A pointer to an operand's values for row `n` (`const` when only read).
    pub(super) fn ptr(&self, o: &Operand) -> String {
        let base = match o.home {
            Home::Param(i) => format!("inputs[{}]", self.m.arg_index(i)),
            Home::Output(k) => format!("outputs[{k}]"),
            Home::Slot(s) => format!("model->{}", self.slots[s]),
            Home::Const(k) => self.consts[k].clone(),
            Home::State(k) => format!("model->{}", self.states[k]),
        };
        let at = match (o.offset, o.row_stride) {
            (0, 0) => return base,
            (off, 0) => off.to_string(),
            (0, rs) => mul("n", rs),
            (off, rs) => format!("{off} + {}", mul("n", rs)),
        };
        format!("({base} + {at})")
    }

    /// Binds `name` to an operand, read only or written.
    pub(super) fn bind(&self, c: &mut Code, name: &str, o: &Operand, write: bool) {
        let q = if write { "" } else { "const " };
        c.line(format!("{q}float *const {name} = {};", self.ptr(o)));
    }

    /// Binds `name` to the destination `o` of a step that reads `reads`: `restrict` when `o`
    /// is the model's own array and none of them is in it, so the compiler need not check
    /// at run time that the stores miss the loads (GCC gives up vectorising a loop past ten
    /// such checks; an elementwise chain over 10 inputs ran scalar, 5× its Rust).
    pub(super) fn bind_dst(&self, c: &mut Code, name: &str, o: &Operand, reads: &[Operand]) {
        let own = matches!(o.home, Home::Slot(_) | Home::State(_));
        let q = if own && reads.iter().all(|r| r.home != o.home) { "restrict " } else { "" };
        c.line(format!("float *{q}const {name} = {};", self.ptr(o)));
    }

    fn cell_step(&self, c: &mut Code, s: &CellStep) {
        let (cell, item) = (&self.m.cells[s.cell], &self.cells[s.cell]);
        let (h, i) = (cell.spec.hidden, cell.spec.input);
        let (xl, hl, outs): (usize, usize, Vec<usize>) = match &cell.seq {
            None => (i, h, vec![h; s.out.len()]),
            Some(q) => {
                let (d, l) = (q.direction.count(), q.steps);
                let mut o = vec![d * l * h];
                o.extend(std::iter::repeat_n(d * h, s.out.len() - 1));
                (l * i, d * h, o)
            }
        };
        self.bind(c, "x", &s.x, false);
        self.bind(c, "h", &s.h, false);
        if let Some(cs) = &s.c {
            self.bind(c, "cs", cs, false);
        }
        for (k, o) in s.out.iter().enumerate() {
            self.bind(c, &format!("o{k}"), o, true);
        }
        let me = if item.runtime_args.is_empty() { String::new() } else { format!("&model->{}, ", item.field) };
        let rows = s.rows;
        // One row of the cell: the operands themselves; more: row b of each.
        let at = |v: &str, len: usize| if rows == 1 { v.to_owned() } else { format!("{v} + {}", mul("b", len)) };
        if rows > 1 {
            c.open(format!("for (size_t b = 0; b < {rows}; ++b)"));
        }
        let mut args = vec![at("x", xl), at("h", hl)];
        if s.c.is_some() {
            args.push(at("cs", hl));
        }
        match &cell.seq {
            None => {
                args.extend(outs.iter().enumerate().map(|(k, &l)| at(&format!("o{k}"), l)));
                c.line(format!("{}({me}{});", item.n.f("_step"), args.join(", ")));
            }
            Some(q) => {
                let row = if rows == 1 { "n".to_owned() } else { format!("{} + b", mul("n", rows)) };
                args.push(match &q.lengths {
                    Lengths::Param(par) => format!("(size_t)inputs[{}][{row}]", self.m.arg_index(*par)),
                    Lengths::Const(v) if v.len() == 1 => v[0].to_string(),
                    Lengths::Const(_) => format!("{}[{row}]", item.n.m("_LENGTHS")),
                });
                args.extend(outs.iter().enumerate().map(|(k, &l)| at(&format!("o{k}"), l)));
                // The lengths were checked before the first step: this never fails.
                c.line(format!("(void){}({me}{});", item.n.f("_run"), args.join(", ")));
            }
        }
        if rows > 1 {
            c.close("");
        }
    }
}
