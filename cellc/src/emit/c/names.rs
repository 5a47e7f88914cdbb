//! The one way names from a model become C identifiers: the words of the name (ASCII
//! letters and digits) in `snake_case` behind the file's prefix, so a name can never inject
//! code, start with an underscore or hold a double one. Every identifier a cell brings is
//! known up front, so two cells (or a cell and the model's own functions) never collide.
use super::text::{KERNEL_BASE, KERNEL_COPIES};
use crate::emit::rust::names::words;
use std::collections::BTreeSet;

/// What follows a cell's base name in the identifiers it brings (functions, its type).
const CELL_FUNCTIONS: &[&str] = &[
    "",
    "_step",
    "_step_batch",
    "_feed",
    "_set_weights",
    "_run",
    "_tap",
    "_prod",
    "_run_batch",
    "_project",
    "_project_rows",
    "_step_projected",
];

/// What follows a cell's upper-case base name in its macros and weight tables.
const CELL_MACROS: &[&str] = &[
    "_INPUT_SIZE",
    "_HIDDEN_SIZE",
    "_STEPS",
    "_DIRECTIONS",
    "_LENGTHS",
    "_W",
    "_BX",
    "_B",
    "_R",
    "_RZR",
    "_RN",
    "_BH",
    "_PEEP",
    "_S",
    "_Z",
    "_D",
];

/// What follows the prefix in the model's own identifiers (functions, types, tables and
/// the helpers of the `.c` file besides the activations, which `acts::order` lists).
const MODEL_NAMES: &[&str] = &[
    "_run",
    "_reset",
    "_set_weights",
    "_weights",
    "_model",
    "_tensor",
    "_inputs",
    "_outputs",
    "_status_name",
    "_pack_panels",
    "_pack_bias",
    "_fold_bias",
    "_f16",
    "_bf16_lo",
    "_bf16_hi",
    "_v4",
    "_v8",
    "_v16",
    "_i8_scale",
    "_product",
    "_transpose",
    "_lanes8",
    "_steps",
];

/// What follows the upper-case prefix in the model's macros.
const MODEL_MACROS: &[&str] = &[
    "_H_INCLUDED",
    "_OK",
    "_ERR_INPUT_COUNT",
    "_ERR_OUTPUT_COUNT",
    "_ERR_LENGTH",
    "_ERR_PARTIAL_ROW",
    "_ERR_SEQUENCE_LENGTH",
    "_ERR_NULL",
    "_ERR_ARGUMENT",
    "_ERR_WEIGHT_COUNT",
    "_ERR_WEIGHTS_NOT_SET",
    "_WEIGHT_COUNT",
    "_ALIGNED",
    "_FEED_BLOCK",
    "_LANES",
    "_UNLIKELY",
    "_INLINE",
    "_VECTORS",
    "_VECTORS_BASE",
    "_CONTRACT",
    "_DISPATCH",
    "_AVX512",
    "_AVX2",
    "_HAS_AVX512",
    "_HAS_AVX2",
    "_INPUT_COUNT",
    "_OUTPUT_COUNT",
    "_MAX_RANK",
    "_BATCH_MAJOR",
    "_TIME_MAJOR",
];

/// Words a cell's name must not become, as they are also the name of its field in the model
/// struct: the keywords of C99 to C23 and of C++ (the header is usable from both), and the
/// object-like macros of `<math.h>`.
const KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "asm",
    "auto",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "constexpr",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "math_errhandling",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "nullptr",
    "operator",
    "or",
    "private",
    "protected",
    "public",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "typeof",
    "typeof_unqual",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
    "xor",
];

/// A function's name and the names of its copies, should it be a kernel function (see
/// [`super::text::Code::kernel`]).
fn with_copies(name: String) -> impl Iterator<Item = String> {
    let suffixes = KERNEL_COPIES.iter().map(|(s, _, _)| *s).chain([KERNEL_BASE]);
    let copies: Vec<String> = suffixes.map(|s| format!("{name}{s}")).collect();
    std::iter::once(name).chain(copies)
}

/// Whether a cell's word and type name are usable: not a keyword, and no `_t` ending, which
/// POSIX reserves for the C library's types (`size_t`, `int8_t`, `float_t`, …).
fn usable(word: &str, base: &str) -> bool {
    !KEYWORDS.contains(&word) && !base.ends_with("_t")
}

/// `snake_case` of a name, `fallback` when nothing usable is left or it starts with a digit.
pub(super) fn snake(name: &str, fallback: &str) -> String {
    let s = words(name).iter().map(|w| w.to_ascii_lowercase()).collect::<Vec<_>>().join("_");
    if s.is_empty() {
        fallback.to_owned()
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{fallback}_{s}")
    } else {
        s
    }
}

/// Whether a prefix the user chose is usable as it is: a letter, then letters, digits and
/// single underscores.
pub(super) fn valid_prefix(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.contains("__")
        && !s.ends_with('_')
}

/// The names of one cell: `base` (a type and function prefix, `gru_layer`) and its upper
/// case (macros and tables, `GRU_LAYER`).
#[derive(Clone, Debug)]
pub(super) struct CellNames {
    pub(super) base: String,
    pub(super) upper: String,
}

impl CellNames {
    /// The function (or type, for `""`) `base + suffix`.
    pub(super) fn f(&self, suffix: &str) -> String {
        debug_assert!(CELL_FUNCTIONS.contains(&suffix), "{suffix} is not reserved for cells");
        format!("{}{suffix}", self.base)
    }

    /// The macro or table `UPPER + suffix`.
    pub(super) fn m(&self, suffix: &str) -> String {
        debug_assert!(CELL_MACROS.contains(&suffix), "{suffix} is not reserved for cells");
        format!("{}{suffix}", self.upper)
    }
}

/// Hands out the identifiers of one generated file.
pub(super) struct Names {
    prefix: String,
    used: BTreeSet<String>,
}

impl Names {
    /// The names of a file whose identifiers start with `prefix`; the model's own are taken.
    pub(super) fn new(prefix: &str) -> Names {
        let helpers = super::acts::order().map(|n| format!("{prefix}_{n}"));
        let own = MODEL_NAMES.iter().chain(MODEL_MACROS).map(|s| format!("{prefix}{s}"));
        let used = own.chain(helpers).flat_map(with_copies).map(|s| s.to_ascii_lowercase()).collect();
        Names { prefix: prefix.to_owned(), used }
    }

    /// The prefix in upper case, for the model's macros.
    pub(super) fn upper(&self) -> String {
        self.prefix.to_ascii_uppercase()
    }

    /// The prefix.
    pub(super) fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Unique names for a cell called `name`: none of its identifiers is taken (compared
    /// without case, so no macro and type differ by case alone).
    pub(super) fn cell(&mut self, name: &str) -> CellNames {
        let word = snake(name, "cell");
        let mut n = 1;
        loop {
            let base = if n == 1 { format!("{}_{word}", self.prefix) } else { format!("{}_{word}{n}", self.prefix) };
            let functions = CELL_FUNCTIONS.iter().flat_map(|s| with_copies(format!("{base}{s}")));
            let macros = CELL_MACROS.iter().map(|s| format!("{base}{s}"));
            let all: Vec<String> = functions.chain(macros).map(|s| s.to_ascii_lowercase()).collect();
            let word_n = &base[self.prefix.len() + 1..];
            if usable(word_n, &base) && all.iter().all(|s| !self.used.contains(s)) {
                self.used.extend(all);
                return CellNames { upper: base.to_ascii_uppercase(), base };
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_identifiers() {
        assert_eq!(snake("GRUCell/layer-1", "cell"), "grucell_layer_1");
        assert_eq!(snake("x\"); exit(1); /*", "cell"), "x_exit_1");
        assert_eq!(snake("123", "cell"), "cell_123");
        assert_eq!(snake("*/", "cell"), "cell");
        assert!(valid_prefix("vad_gru") && !valid_prefix("_x") && !valid_prefix("a__b") && !valid_prefix("9a"));
    }

    #[test]
    fn cells_never_collide() {
        let mut n = Names::new("m");
        assert_eq!(n.cell("gru").base, "m_gru");
        assert_eq!(n.cell("GRU").base, "m_gru2");
        // `m_gru_step` is a function of the first cell.
        assert_eq!(n.cell("gru step").base, "m_gru_step2");
        // `m_run` and `m_model` are the model's.
        assert_eq!(n.cell("model").base, "m_model2");
        assert_eq!(n.cell("run").upper, "M_RUN2");
        // Field names are never keywords, and no type is named like the C library's.
        assert_eq!(n.cell("float").base, "m_float2");
        let mut n = Names::new("int8");
        assert_eq!(n.cell("t").base, "int8_t2");
        assert_eq!(n.cell("size t").base, "int8_size_t2");
        // A kernel function's copies are the first cell's: `m_conv_run_v16`.
        let mut n = Names::new("m");
        assert_eq!(n.cell("conv").base, "m_conv");
        assert_eq!(n.cell("conv run v16").base, "m_conv_run_v162");
        assert_eq!(n.cell("product").base, "m_product2");
    }
}
