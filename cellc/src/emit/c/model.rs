//! The model entry point in C: the Parameters' and Results' names and shapes, a struct for
//! what a run keeps (weights given at run time, outputs of sequences no Result returns) and
//! `run` over flat arrays in Parameter and Result order. As the Rust entry point, it checks
//! every count, length and sequence length before writing anything, then runs the cells
//! row by row.
use super::names::CellNames;
use super::text::{Code, mul, quoted, string};
use crate::ir::{Batch, Dim, Lengths, Model, Value};

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
}

/// Floats in one batch row of a tensor: its dimensions after the first.
fn row_len(shape: &[Dim]) -> usize {
    shape
        .iter()
        .skip(1)
        .map(|d| match d {
            Dim::Static(n) => *n,
            Dim::Batch => 1,
        })
        .product()
}

/// Whether a tensor's length depends on the batch of the call.
fn batched(shape: &[Dim]) -> bool {
    shape.contains(&Dim::Batch)
}

/// Floats in a tensor without a dynamic batch.
fn static_len(shape: &[Dim]) -> usize {
    shape
        .iter()
        .map(|d| match d {
            Dim::Static(n) => *n,
            Dim::Batch => 1,
        })
        .product()
}

impl ModelEmitter<'_> {
    /// Scratch in the model struct for output `port` of sequence cell `k` that no Result
    /// returns: its field name and size.
    fn scratch(&self, k: usize, port: usize) -> Option<(String, usize)> {
        let c = &self.m.cells[k];
        let q = c.seq.as_ref()?;
        if self.home(k, port).is_some() {
            return None;
        }
        let (h, nd) = (c.spec.hidden, q.direction.count());
        let (suffix, n) = match port {
            0 => ("y", nd * q.steps * h),
            1 => ("ho", nd * h),
            _ => ("co", nd * h),
        };
        Some((format!("{}_{suffix}", self.cells[k].field), n))
    }

    /// The first Result returning output `port` of cell `c`.
    fn home(&self, c: usize, port: usize) -> Option<usize> {
        self.m.outputs.iter().position(|o| o.value == Value::Cell(c, port))
    }

    fn ports(&self, k: usize) -> usize {
        let c = &self.m.cells[k];
        match (&c.seq, c.spec.kind.has_cell_state()) {
            (Some(_), true) => 3,
            (Some(_), false) | (None, true) => 2,
            (None, false) => 1,
        }
    }

    /// The struct's members: runtime weights, then sequence scratch.
    fn members(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for c in self.cells.iter().filter(|c| !c.runtime_args.is_empty()) {
            out.push((c.n.f(""), c.field.clone()));
        }
        for k in 0..self.cells.len() {
            for port in 0..self.ports(k) {
                if let Some((f, n)) = self.scratch(k, port) {
                    out.push(("float".into(), format!("{f}[{n}]")));
                }
            }
        }
        out
    }

    fn tensor(&self, name: &str, shape: &[Dim]) -> String {
        let dims: Vec<String> = shape
            .iter()
            .map(|d| match (*d, self.m.batch) {
                (Dim::Static(n), _) | (Dim::Batch, Batch::Static(n)) => n.to_string(),
                (Dim::Batch, Batch::Dynamic) => "-1".into(),
            })
            .collect();
        format!("{{{}, {}, {{{}}}}}", string(name), shape.len(), dims.join(", "))
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
        hd.line(format!("#define {u}_INPUT_COUNT {}", m.params.len()));
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
        if !m.params.is_empty() {
            hd.comment("The model's Parameters, in order.");
            hd.line(format!("extern const {p}_tensor {p}_inputs[{u}_INPUT_COUNT];"));
        }
        if !m.outputs.is_empty() {
            hd.comment("The model's Results, in order.");
            hd.line(format!("extern const {p}_tensor {p}_outputs[{u}_OUTPUT_COUNT];"));
        }
        hd.line("");
        let members = self.members();
        let weights = self.cells.iter().any(|c| !c.runtime_args.is_empty());
        let scratch = members.len() > self.cells.iter().filter(|c| !c.runtime_args.is_empty()).count();
        let keeps = match (weights, scratch) {
            (false, false) => "nothing (the weights are embedded)",
            (true, false) => "the weights given at run time, packed",
            (false, true) => "the outputs of sequences that no Result returns",
            (true, true) => {
                "the weights given at run time, packed, and the outputs of sequences that no Result returns"
            }
        };
        hd.comment(&format!(
            "What {p}_run keeps besides its arguments: {keeps}. It needs no initialisation; give each thread its own."
        ));
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
            "Runs the model once. `inputs[k]` holds `input_lens[k]` floats of Parameter k (flat, row-major; sequence \
             lengths as whole numbers), `outputs[k]` receives the `output_lens[k]` floats of Result k. Checks every \
             count and length before writing anything: returns {u}_OK, {u}_ERR_INPUT_COUNT, {u}_ERR_OUTPUT_COUNT, \
             {u}_ERR_LENGTH, {u}_ERR_PARTIAL_ROW, {u}_ERR_SEQUENCE_LENGTH or {u}_ERR_NULL."
        ));
        hd.line(format!("{};", self.run_signature()));
        hd.line("");
    }

    /// The source's part: tensor tables, constant sequence lengths and `run`.
    pub(super) fn define(&self, c: &mut Code) {
        let (p, u, m) = (self.prefix, self.upper, self.m);
        if !m.params.is_empty() {
            c.open(format!("const {p}_tensor {p}_inputs[{u}_INPUT_COUNT] ="));
            for par in &m.params {
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
            if let Some(crate::ir::Seq { lengths: Lengths::Const(v), .. }) = &cell.seq {
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
        c.function(&self.run_signature());
        c.line("size_t batch;");
        c.line(format!("if (n_inputs != {}) return {u}_ERR_INPUT_COUNT;", m.params.len()));
        c.line(format!("if (n_outputs != {}) return {u}_ERR_OUTPUT_COUNT;", m.outputs.len()));
        c.line(format!(
            "if (model == NULL || inputs == NULL || input_lens == NULL || outputs == NULL || output_lens == NULL) return {u}_ERR_NULL;"
        ));
        self.check_lengths(c);
        for cell in self.cells.iter().filter(|c| !c.runtime_args.is_empty()) {
            let args: Vec<String> = cell.runtime_args.iter().map(|a| format!("inputs[{a}], input_lens[{a}]")).collect();
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
        if !m.cells.is_empty() {
            c.open("for (size_t n = 0; n < batch; ++n)");
            for k in 0..m.cells.len() {
                self.step(c, k);
            }
            self.writes(c);
            c.close("");
        } else {
            c.line("(void)batch;");
        }
        for (k, o) in m.outputs.iter().enumerate() {
            if let Value::Param(par) = o.value {
                c.line(format!("for (size_t j = 0; j < output_lens[{k}]; ++j) outputs[{k}][j] = inputs[{par}][j];"));
            }
        }
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
                for (k, par) in m.params.iter().enumerate().filter(|(_, p)| batched(&p.shape)) {
                    let row = row_len(&par.shape);
                    if row > 1 {
                        c.line(format!("if (input_lens[{k}] % {row} != 0) return {u}_ERR_PARTIAL_ROW;"));
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
            if batched(shape) { mul("batch", row_len(shape)) } else { static_len(shape).to_string() }
        };
        for (k, par) in m.params.iter().enumerate() {
            c.line(format!("if (input_lens[{k}] != {}) return {u}_ERR_LENGTH;", expected(&par.shape)));
        }
        for (k, o) in m.outputs.iter().enumerate() {
            c.line(format!("if (output_lens[{k}] != {}) return {u}_ERR_LENGTH;", expected(&o.shape)));
        }
        if !m.params.is_empty() {
            c.line(format!(
                "for (size_t k = 0; k < {}; ++k) if (inputs[k] == NULL && input_lens[k] > 0) return {u}_ERR_NULL;",
                m.params.len()
            ));
        }
        if !m.outputs.is_empty() {
            c.line(format!(
                "for (size_t k = 0; k < {}; ++k) if (outputs[k] == NULL && output_lens[k] > 0) return {u}_ERR_NULL;",
                m.outputs.len()
            ));
        }
        for cell in &m.cells {
            if let Some(crate::ir::Seq { lengths: Lengths::Param(par), steps, .. }) = &cell.seq {
                c.open(format!("for (size_t r = 0; r < input_lens[{par}]; ++r)"));
                c.line(format!("const float v = inputs[{par}][r];"));
                c.comment("A whole number from 0 to the steps (NaN fails every comparison).");
                c.line(format!(
                    "if (!(v >= 0.0f && v <= {steps}.0f && v == (float)(size_t)v)) return {u}_ERR_SEQUENCE_LENGTH;"
                ));
                c.close("");
            }
        }
    }

    /// Where a value lives for row `n`.
    fn value(&self, v: Value) -> String {
        match v {
            Value::Param(par) => format!("inputs[{par}] + {}", mul("n", row_len(&self.m.params[par].shape))),
            Value::Cell(k, port) => self.dest(k, port),
        }
    }

    /// Where output `port` of cell `k` is written for row `n`: a sequence writes into its
    /// Result (or the model's scratch); a single cell into a local.
    fn dest(&self, k: usize, port: usize) -> String {
        match (&self.m.cells[k].seq, self.home(k, port)) {
            (Some(_), Some(j)) => format!("outputs[{j}] + {}", mul("n", row_len(&self.m.outputs[j].shape))),
            (Some(_), None) => match self.scratch(k, port) {
                Some((f, _)) => format!("model->{f}"),
                None => format!("c{k}_{port}"),
            },
            (None, _) => format!("c{k}_{port}"),
        }
    }

    fn step(&self, c: &mut Code, k: usize) {
        let (cell, item) = (&self.m.cells[k], &self.cells[k]);
        let h = cell.spec.hidden;
        let me = if item.runtime_args.is_empty() { String::new() } else { format!("&model->{}, ", item.field) };
        let mut args = vec![self.value(cell.x), self.value(cell.h)];
        args.extend(cell.c.map(|v| self.value(v)));
        match &cell.seq {
            None => {
                for port in 0..self.ports(k) {
                    c.line(format!("float c{k}_{port}[{h}];"));
                    args.push(format!("c{k}_{port}"));
                }
                c.line(format!("{}({me}{});", item.n.f("_step"), args.join(", ")));
            }
            Some(q) => {
                let len = match &q.lengths {
                    Lengths::Param(par) => format!("(size_t)inputs[{par}][n]"),
                    Lengths::Const(_) => format!("{}[n]", item.n.m("_LENGTHS")),
                };
                args.push(len);
                args.extend((0..self.ports(k)).map(|port| self.dest(k, port)));
                c.line(format!("{}({me}{});", item.n.f("_run"), args.join(", ")));
            }
        }
    }

    /// Results that are not where their value was written copy it from there.
    fn writes(&self, c: &mut Code) {
        for (k, o) in self.m.outputs.iter().enumerate() {
            let Value::Cell(cell, port) = o.value else { continue };
            let row = row_len(&o.shape);
            let src = match (&self.m.cells[cell].seq, self.home(cell, port)) {
                (None, _) => format!("c{cell}_{port}"),
                (Some(_), Some(j)) if j != k => format!("(outputs[{j}] + {})", mul("n", row)),
                _ => continue,
            };
            c.line(format!("for (size_t j = 0; j < {row}; ++j) outputs[{k}][{} + j] = {src}[j];", mul("n", row)));
        }
    }
}
