//! The C emitter: a validated model in, a C99 header and source out, with the entry points
//! of the Rust output — per cell a step on fixed-size arrays, a batched step and a
//! streaming `feed`; per sequence a `run` over one row and a `run_batch`; per model a `run`
//! over flat arrays in Parameter and Result order. Every function that takes lengths checks
//! them and returns a status code. The source needs only `<math.h>`, `<stdint.h>` and `<stddef.h>`
//! (and the compiler's `<immintrin.h>` for rows of square roots, where it has one), allocates nothing and prints nothing; kernels read the same packed panels as the Rust
//! ones (see `emit::plan`).
mod acts;
mod cell;
mod dense;
mod gather;
mod gru;
mod helpers;
mod kern;
mod lstm;
mod model;
mod names;
mod planar;
mod product;
mod rnn;
mod seq;
mod steps;
mod text;
mod transpose;
mod winograd;

use crate::diag::{Diag, Diagnostics, Fix, Message, Setting};
use crate::emit::plan::{FEED_BLOCK, Plan, Store, attributes, direction_cell, op_name, runtime_params, store};
use crate::ir::verify::Verified;
use crate::ir::{Cell, CellKind, Model, Step};
use crate::options::{Options, Strategy};
use helpers::Helpers;
use kern::Kern;
use names::{CellNames, Names};
use text::{Code, quoted};

/// The two files of a model compiled to C.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CFiles {
    /// The header: macros, types and documented prototypes.
    pub header: String,
    /// The source, which includes the header by the name given to [`emit`].
    pub source: String,
}

/// Emits C for a validated model. `header` is the header's file name as the source
/// includes it (`gru.h`). Identifiers start with `opts.name` (a C identifier), by default
/// the model's name in `snake_case`.
pub fn emit(m: &Verified, opts: &Options, header: &str) -> Result<CFiles, Diagnostics> {
    let m = &*crate::emit::in_weights_mode(m, opts.weights_mode)?;
    let weight_type = opts.weight_type.in_language(crate::options::Language::C);
    if header.is_empty() || !header.chars().all(|c| c.is_ascii_alphanumeric() || "._-+".contains(c)) {
        let msg = format!("the header name {header:?} cannot be #included: use letters, digits, `.`, `_`, `-` and `+`");
        return Err(Diag::new(crate::diag::Code::Name, &m.file, None, msg).into());
    }
    if opts.threads.get() > 1 {
        let msg = Message::new(
            "the generated Rust splits steps between threads (through cellc_runtime::__private::team); the generated C runs each \
             step on the caller's thread",
        )
        .about(Setting::new("threads", opts.threads.get().to_string()))
        .fix(Fix::new("for C, use", Setting::new("threads", "1")).or(Setting::new("lang", "rust")));
        return Err(Diag::new(crate::diag::Code::Conflict, &m.file, None, msg).into());
    }
    let prefix = match &opts.name {
        Some(n) if !names::valid_prefix(n) => {
            let msg = format!(
                "the name {n:?} is not usable as the prefix of C identifiers: expected a letter, then letters, digits \
                 and single underscores, not ending in one"
            );
            return Err(Diag::new(crate::diag::Code::Name, &m.file, None, msg).into());
        }
        Some(n) => n.clone(),
        None => names::snake(&m.name, "model"),
    };
    let mut e = Emitter {
        names: Names::new(&prefix),
        strategy: opts.strategy.resolve(),
        hd: Code::default(),
        tables: Code::default(),
        body: Code::default(),
        helpers: Helpers::new(opts.fast_activations),
        has_seq: false,
        large: crate::emit::large_value_note(m, weight_type, ""),
    };
    let mut items = Vec::new();
    for cell in &m.cells {
        let n = e.names.cell(&cell.name);
        let store = store(cell, weight_type).map_err(|e| Diag::new(crate::diag::Code::Conflict, &m.file, None, e))?;
        if store != Store::F32 && !runtime_params(cell).is_empty() {
            let msg = Message::new(format!(
                "cell {}: the C back-end packs weights given at run time as f32 only",
                quoted(&cell.name)
            ))
            .fix(
                Fix::new("use", Setting::new("weight_type", "f32"))
                    .or(Setting::new("weight_type", "auto"))
                    .or(Setting::new("lang", "rust"))
                    .then(format!(" (for {} weights given at run time)", store.name())),
            );
            return Err(Diag::new(crate::diag::Code::Conflict, &m.file, None, msg).into());
        }
        e.helpers.f16 |= store == Store::F16;
        e.helpers.bf16 |= store == Store::Bf16;
        e.helpers.i8 |= store == Store::I8;
        match &cell.seq {
            None => e.kernel(cell, n.clone(), &doc(cell), store),
            Some(q) => {
                e.has_seq = true;
                let mut dirs = Vec::new();
                for d in 0..q.direction.count() {
                    let dc = direction_cell(cell, q, d);
                    let dn = e.names.cell(&dc.name);
                    let reversed = q.direction.reversed(d);
                    let plan = Plan::new(&dc, e.strategy, store);
                    let nw = plan.tiles() * plan.width;
                    e.kernel(&dc, dn.clone(), &doc(&dc), store);
                    let (snake, long) = (plan.snake(), plan.long_block(Some(q.steps)));
                    dirs.push(seq::Dir {
                        n: dn,
                        field: if reversed { "reverse" } else { "forward" },
                        reversed,
                        nw,
                        snake,
                        long,
                    });
                }
                let upper = e.names.upper();
                let w = seq::Wrapper { cell, q, n: &n, dirs, runtime: !runtime_params(cell).is_empty(), upper: &upper };
                w.declare(&mut e.hd, &doc(cell));
                w.define(&mut e.body);
            }
        }
        let field = n.base[prefix.len() + 1..].to_owned();
        items.push(model::CellItem { n, field, runtime_args: runtime_params(cell) });
    }
    let mut denses = Vec::new();
    for (i, d) in m.denses.iter().enumerate() {
        let n = e.names.cell(&d.name);
        let plan = crate::emit::dense_plan::DensePlan::of(d, weight_type)
            .map_err(|e| Diag::new(crate::diag::Code::Conflict, &m.file, None, e.to_string()))?;
        match d.win.as_ref() {
            Some(w) if plan.planar => {
                planar::emit((d, w, &plan), &n, &prefix, &mut e.tables, &mut e.body, &mut e.helpers)
            }
            Some(w) if plan.winograd => winograd::emit((d, w), &n, &prefix, &mut e.tables, &mut e.body, &mut e.helpers),
            _ => {
                let rows = crate::emit::dense::call_rows(m, i);
                dense::emit((d, rows), &n, &prefix, plan.store, &mut e.tables, &mut e.body, &mut e.helpers);
            }
        }
        denses.push((n.f("_run"), plan.work(d)));
    }
    let upper = e.names.upper();
    // Slots and constants take names as cells do, so none collides with a cell's.
    let slots =
        (0..m.slots.len()).map(|s| e.names.cell(&format!("slot{s}")).base[prefix.len() + 1..].to_owned()).collect();
    let consts = (0..m.consts.len()).map(|k| e.names.cell(&format!("const{k}")).upper).collect();
    let states =
        (0..m.states.len()).map(|k| e.names.cell(&format!("state{k}")).base[prefix.len() + 1..].to_owned()).collect();
    let gathers = (m.steps.iter().enumerate())
        .filter_map(|(k, s)| match s {
            Step::Pick(p) => Some((k, gather::form_and_table(p, || e.names.cell(&format!("gather{k}")).upper))),
            _ => None,
        })
        .collect();
    let me = model::ModelEmitter {
        m,
        cells: &items,
        prefix: &prefix,
        upper: &upper,
        slots,
        consts,
        denses,
        states,
        gathers,
    };
    me.declare(&mut e.hd);
    me.define(&mut e.body, &mut e.helpers);
    Ok(e.finish(m, header))
}

/// The comment above a cell's declarations.
fn doc(c: &Cell) -> String {
    format!("{} {}: {}.", op_name(c), quoted(&c.name), attributes(&c.spec))
}

/// The parts of the two files, filled cell by cell.
struct Emitter {
    names: Names,
    strategy: Strategy,
    /// The header's declarations.
    hd: Code,
    tables: Code,
    /// The source's functions.
    body: Code,
    helpers: Helpers,
    has_seq: bool,
    /// What the header says of a large model struct.
    large: Option<String>,
}

impl Emitter {
    /// Emits the kernel of a cell (one step, one direction).
    fn kernel(&mut self, cell: &Cell, n: CellNames, doc: &str, store: Store) {
        let k = Kern {
            plan: Plan::new(cell, self.strategy, store),
            n,
            prefix: self.names.prefix().to_owned(),
            upper: self.names.upper(),
            fused: std::cell::Cell::new(false),
        };
        k.declare(&mut self.hd, &format!("{doc} Kernel: {}.", k.strategy.name()));
        k.tables(&mut self.tables);
        let body: fn(&Kern<'_>, &mut Code, &mut Helpers) = match cell.spec.kind {
            CellKind::Gru { .. } => gru::step_projected,
            CellKind::Rnn => rnn::step_projected,
            CellKind::Lstm => lstm::step_projected,
        };
        k.define(&mut self.body, &mut self.helpers, body);
        if k.fused.get() {
            self.helpers.fma();
        }
    }

    fn finish(self, m: &Model, header: &str) -> CFiles {
        let (p, u) = (self.names.prefix().to_owned(), self.names.upper());
        let file = std::path::Path::new(&m.file)
            .file_name()
            .map_or_else(|| m.file.clone(), |f| f.to_string_lossy().into_owned());
        let banner = format!(
            "/* @generated by cellc {} from {}. Do not edit: regenerate instead. */\n",
            env!("CARGO_PKG_VERSION"),
            quoted(&file)
        );
        let mut hd = Code::default();
        hd.raw(&banner);
        hd.comment(
            "C99; the definitions are in the source beside this header. Link with the math library (-lm). For speed, \
             build the source for the CPU that runs it (-O3 -march=native, or the target's -march): without -march, \
             x86-64 compilers take SSE2 alone (4 lanes, no fused multiply-add).",
        );
        if let Some(h) = m.held_in_f32() {
            hd.comment(&format!("Values {h}."));
        }
        if let Some(note) = &self.large {
            // One line, as the command line repeats it.
            hd.line(format!("/* {note} */"));
        }
        hd.line(format!("#ifndef {u}_H_INCLUDED"));
        hd.line(format!("#define {u}_H_INCLUDED"));
        hd.line("");
        hd.line("#include <stddef.h>");
        hd.line("");
        hd.line("#ifdef __cplusplus");
        hd.line("extern \"C\" {");
        hd.line("#endif");
        hd.line("");
        hd.comment("Status codes of the functions that check their arguments.");
        hd.open("enum");
        for (name, v, what) in STATUS {
            hd.line(format!("{u}_{name} = {v}{} /* {what} */", if v + 1 < STATUS.len() { "," } else { "" }));
        }
        hd.close(";");
        hd.line("");
        hd.comment("The name of a status code (\"..._ERR_LENGTH\"), for messages.");
        hd.line(format!("const char *{p}_status_name(int status);"));
        hd.line("");
        if self.has_seq {
            hd.comment("The order of a sequence's batch arrays, for the `_run_batch` functions.");
            hd.line(format!("enum {{ {u}_BATCH_MAJOR = 0, {u}_TIME_MAJOR = 1 }};"));
            hd.line("");
        }
        hd.comment(
            "Aligns weight tables and the fields of weights given at run time to 64 bytes where the compiler can.",
        );
        hd.define_by(
            &format!("{u}_ALIGNED"),
            &[
                ("defined(__GNUC__) || defined(__clang__)", "__attribute__((aligned(64)))"),
                ("defined(_MSC_VER)", "__declspec(align(64))"),
            ],
            "",
        );
        hd.raw(&self.hd.finish());
        hd.line("#ifdef __cplusplus");
        hd.line("}");
        hd.line("#endif");
        hd.line("");
        hd.line(format!("#endif /* {u}_H_INCLUDED */"));

        let mut c = Code::default();
        c.raw(&banner);
        c.line(format!("#include \"{header}\""));
        c.line("");
        c.line("#include <math.h>");
        c.line("#include <stdint.h>");
        c.line("");
        c.comment(
            "GCC at -O3 unrolls short loops completely before vectorising them: the lanes of a tile become \
             scalars, and the loop over the columns is vectorised with shuffles instead, 3.4x slower (measured on \
             an RNN with H = 128). Loops over up to 16 lanes stay rolled, and become vector instructions.",
        );
        c.define_by(
            &format!("{u}_LANES"),
            &[("defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8", "_Pragma(\"GCC unroll 1\")")],
            "",
        );
        c.comment(
            "The checks of the arguments fail only by mistake: told so, GCC keeps the computation after them \
             hot (vectorised and unrolled).",
        );
        c.define_by(&format!("{u}_UNLIKELY(x)"), &[("defined(__GNUC__)", "__builtin_expect(!!(x), 0)")], "(x)");
        c.comment(
            "The helpers (activations, conversions) are inlined into the loops over lanes that call them, or those \
             loops stay scalar: GCC at -O2 with FMA declined to inline tanh into a GRU's step (15.5 against 6.7 us).",
        );
        c.define_by(
            &format!("{u}_INLINE"),
            &[("defined(__GNUC__)", "static inline __attribute__((always_inline))")],
            "static inline",
        );
        c.comment(
            "Steps whose input projections `feed` and a reverse sequence compute together: blocks of rows pay off \
             with 256-bit vectors and up; other targets take one row at a time and keep one row of projections on \
             the stack.",
        );
        c.define_by(&format!("{u}_FEED_BLOCK"), &[("defined(__AVX2__)", &FEED_BLOCK.to_string())], "1");
        if self.helpers.vectors {
            c.raw(&VECTORS.replace("PREFIX", &p).replace("UPPER", &u));
        }
        c.raw(&self.helpers.definitions(&p));
        c.function(&format!("const char *{p}_status_name(int status)"));
        c.line("switch (status) {");
        for (name, _, _) in STATUS {
            c.line(format!("case {u}_{name}: return \"{u}_{name}\";"));
        }
        c.line("default: return \"unknown status\";");
        c.line("}");
        c.close("");
        c.line("");
        c.raw(&self.tables.finish());
        c.raw(&self.body.finish());
        CFiles { header: hd.finish(), source: c.finish() }
    }
}

/// The vector types of the dense layers and projections, how their functions compile, and
/// the copies of them made for the processors a baseline x86-64 build may run on.
const VECTORS: &str = "\
/* Dense layers and the projections of blocks of steps sum in vectors of GCC's vector
 * extensions no wider than the target's registers (UPPER_VECTORS lanes: 16 with AVX-512, 8
 * with AVX, 4 with SSE2 or NEON; wider types would be emulated in halves through memory,
 * ten times slower than loops). The products of dense layers and cells are fused where the
 * target has fused multiply-adds, as the runtime fuses them (`fp-contract=fast` on those
 * functions alone), and their loops unrolled at -O2 as at -O3 (a GRU of 16: 6.5 against
 * 2.7 us a call). Other compilers or targets, or CELLC_PORTABLE defined, take plain loops
 * over lanes. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(CELLC_PORTABLE) && \\
    (defined(__AVX__) || defined(__SSE2__) || defined(__ARM_NEON))
#if defined(__AVX512F__)
#define UPPER_VECTORS_BASE 16
#elif defined(__AVX__)
#define UPPER_VECTORS_BASE 8
#else
#define UPPER_VECTORS_BASE 4
#endif
#define UPPER_CONTRACT __attribute__((optimize(\"fp-contract=fast\", \"unroll-loops\")))
typedef float PREFIX_v4 __attribute__((vector_size(16)));
typedef float PREFIX_v8 __attribute__((vector_size(32)));
typedef float PREFIX_v16 __attribute__((vector_size(64)));
/* A weight vector loaded once for the rows of a block is kept in a register: tuned for AMD
 * Zen 3 (-march=native there), GCC folded it into each row's multiply-add as a memory
 * operand, one load a row (AECMOS at -O3 -march=native: 2.47 against 1.99 ms). */
#if defined(__x86_64__) || defined(__i386__)
#define UPPER_KEEP(v) __asm__(\"\" : \"+v\"(v))
#else
#define UPPER_KEEP(v) ((void)0)
#endif
#else
#define UPPER_VECTORS_BASE 0
#define UPPER_CONTRACT
#endif
#define UPPER_VECTORS UPPER_VECTORS_BASE

/* Built for x86-64 without AVX2 (-O2 without -march: SSE2, 4 lanes and no fused
 * multiply-adds), each of those functions is also compiled for AVX-512 and for AVX2 with FMA,
 * and the processor that runs the model picks its copy (GCC's __builtin_cpu_supports, which
 * also asks whether the system saves the wider registers; libgcc reads the processor before
 * main, and a call from an earlier constructor takes the baseline). CELLC_NO_DISPATCH defined keeps
 * the baseline alone (a freestanding build without libgcc's processor model);
 * CELLC_DISPATCH_LIMIT 8 or 4 takes no copy wider than that many lanes. */
#if UPPER_VECTORS_BASE > 0 && defined(__x86_64__) && !defined(__AVX2__) && __GNUC__ >= 8 && \\
    !defined(CELLC_NO_DISPATCH)
#define UPPER_DISPATCH 1
#define UPPER_AVX512 __attribute__((target(\"avx2,fma,avx512f,avx512vl,avx512bw,avx512dq\")))
#define UPPER_AVX2 __attribute__((target(\"avx2,fma\")))
#if defined(CELLC_DISPATCH_LIMIT) && CELLC_DISPATCH_LIMIT < 16
#define UPPER_HAS_AVX512 0
#else
#define UPPER_HAS_AVX512 (__builtin_cpu_supports(\"avx512f\") && __builtin_cpu_supports(\"avx512vl\") && \\
    __builtin_cpu_supports(\"avx512bw\") && __builtin_cpu_supports(\"avx512dq\"))
#endif
#if defined(CELLC_DISPATCH_LIMIT) && CELLC_DISPATCH_LIMIT < 8
#define UPPER_HAS_AVX2 0
#else
#define UPPER_HAS_AVX2 (__builtin_cpu_supports(\"avx2\") && __builtin_cpu_supports(\"fma\"))
#endif
#else
#define UPPER_DISPATCH 0
#endif

";

/// The status codes: name after the prefix, value, meaning.
const STATUS: [(&str, usize, &str); 10] = [
    ("OK", 0, "success"),
    ("ERR_INPUT_COUNT", 1, "not as many inputs as the model has Parameters"),
    ("ERR_OUTPUT_COUNT", 2, "not as many outputs as the model has Results"),
    ("ERR_LENGTH", 3, "an array's length is not what its shape requires"),
    ("ERR_PARTIAL_ROW", 4, "an array's length is not a whole number of rows"),
    ("ERR_SEQUENCE_LENGTH", 5, "a sequence length is not a whole number from 0 to the steps"),
    ("ERR_NULL", 6, "a null pointer where an array or a handle is required"),
    ("ERR_ARGUMENT", 7, "an argument outside its range (the order of a sequence's arrays)"),
    ("ERR_WEIGHT_COUNT", 8, "not as many weight arrays as the model takes at run time"),
    ("ERR_WEIGHTS_NOT_SET", 9, "a run before the weights given at run time were set"),
];
