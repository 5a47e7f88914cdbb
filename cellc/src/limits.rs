//! The largest inputs cellc accepts. Each limit is checked before anything of that size is
//! allocated or generated, and refused with an error that names it; the README states them
//! with the time and memory a model at the limits takes.

/// Bytes of a model file (`model.xml`) read at most.
pub const MAX_MODEL_FILE_BYTES: u64 = 256 << 20;

/// Bytes of one constant read from a weights file at most (its `size`).
pub const MAX_CONSTANT_BYTES: u64 = 256 << 20;

/// The largest `hidden_size` and input size of a cell.
pub const MAX_CELL_SIZE: u64 = 1 << 14;

/// The most time steps a Sequence op takes (its `X`'s second dimension).
pub const MAX_STEPS: u64 = 1 << 16;

/// The largest static batch.
pub const MAX_BATCH: u64 = 1 << 16;

/// The most elements of any one tensor a model declares (a Parameter, a constant, an
/// output), with the batch counted as 1 when it is dynamic.
pub const MAX_TENSOR_ELEMENTS: u64 = 1 << 28;

/// The most threads a step may be split across (`--threads`): `cellc_runtime::__private::team`'s
/// `MAX_PARTS`.
pub const MAX_THREADS: usize = 16;

/// The most dimensions of a tensor.
pub const MAX_RANK: usize = 8;

/// How deep graphs inside nodes (an `If`'s branches) may nest, in either format.
pub const MAX_BODY_DEPTH: usize = 16;

/// The most weight values (`W`, `R` and `B` of every cell) that become tables in the
/// generated code: 64 MiB as f32.
pub const MAX_EMBEDDED_WEIGHTS: u64 = 1 << 24;

/// The most weight values the cells of one model hold, embedded or given at run time (a
/// cell holds runtime weights by value): 1 GiB as f32.
pub const MAX_MODEL_WEIGHTS: u64 = 1 << 28;

/// The most elements of a cell output that generated code keeps as a local array on the
/// stack (a sequence's `Y` no Result returns): 4 MiB as f32, below a thread's usual 8 MiB.
pub const MAX_LOCAL_ELEMENTS: u64 = 1 << 20;

/// The most values one tensor computed at compile time may hold (a folded constant): 128 MiB
/// as f64. A larger result is left to run time.
pub const MAX_FOLDED_ELEMENTS: u64 = 1 << 24;

/// The most values constant folding computes for one model, all tensors together: 512 MiB
/// as f64.
pub const MAX_FOLDED_TOTAL: u64 = 1 << 26;

/// The most cells in one model.
pub const MAX_CELLS: usize = 256;

/// The most `Convert`s folded into one constant (exporters write one or two).
pub const MAX_CONVERTS: usize = 8;

/// Bytes of the name of a Parameter or a Result (generated C holds it in a string literal,
/// and C99 compilers need only take 4,095 characters in one).
pub const MAX_NAME_BYTES: usize = 1024;

/// Characters of a name from the model shown in a message; a longer one is cut.
pub const MAX_NAME_CHARS: usize = 80;

/// A name from the model as a message shows it: quoted, cut to [`MAX_NAME_CHARS`].
pub fn shown(name: &str) -> String {
    match name.char_indices().nth(MAX_NAME_CHARS) {
        None => format!("{name:?}"),
        Some((cut, _)) => format!("{:?}… ({} more characters)", &name[..cut], name[cut..].chars().count()),
    }
}

/// A word from the model (an op type) as a message shows it: cut to [`MAX_NAME_CHARS`].
pub fn cut(word: &str) -> String {
    match word.char_indices().nth(MAX_NAME_CHARS) {
        None => word.to_owned(),
        Some((cut, _)) => format!("{}… ({} more characters)", &word[..cut], word[cut..].chars().count()),
    }
}

/// The product of `dims`, when it does not overflow.
pub fn product(dims: impl IntoIterator<Item = u64>) -> Option<u64> {
    dims.into_iter().try_fold(1u64, u64::checked_mul)
}

/// Strided copies a slice stepping backwards may take (one per index of the axes it reverses).
pub const MAX_BACKWARD_COPIES: usize = 1024;

/// Elementwise functions the fuse pass joins into one loop.
pub const MAX_CHAIN: usize = 32;

/// Values of one entry of a gather table (the windows of a convolution, a padded tensor):
/// the table is baked into the generated code.
pub const MAX_PICK_TABLE: u64 = 1 << 22;

/// Values a `TopK` computed at run time takes along its axis: the generated code keeps their
/// indices in an array on the stack while it writes them.
pub const MAX_TOP_K: usize = 4096;

/// Spatial axes of a convolution.
pub const MAX_SPATIAL_RANK: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut() {
        assert_eq!(shown("gru"), "\"gru\"");
        let long = "é".repeat(MAX_NAME_CHARS + 5);
        let s = shown(&long);
        assert!(s.ends_with("(5 more characters)"), "{s}");
        assert_eq!(s.chars().filter(|&c| c == 'é').count(), MAX_NAME_CHARS);
    }

    #[test]
    fn products_refuse_overflow() {
        assert_eq!(product([2, 3, 4]), Some(24));
        assert_eq!(product([1 << 32, 1 << 32]), None);
        assert_eq!(product([]), Some(1));
    }
}
