//! The options of one compilation, as one value.
use super::choices::{InputShape, Language, Simd, Strategy, Threads, WeightTables, WeightType, WeightsMode};
use std::path::PathBuf;

/// Options of one compilation. New options may come in a minor release, so a crate outside
/// cellc starts from [`Options::default()`] and sets what it needs, field by field or
/// through the methods named after them:
/// `Options::default().name(Some("vad".into())).language(Language::C)`.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// Name of the generated model type (in C, the prefix of every identifier); by default
    /// derived from the model's name.
    pub name: Option<String>,
    /// The language of the generated code.
    pub language: Language,
    /// Kernel strategy.
    pub strategy: Strategy,
    /// The weights file, when it is not the model's path with the extension `.bin`.
    pub weights: Option<PathBuf>,
    /// Whether constant weights are embedded or given at run time.
    pub weights_mode: WeightsMode,
    /// Which vector instructions Rust kernels are compiled for (the C is compiled for the C
    /// compiler's target flags).
    pub simd: Simd,
    /// How the weight matrices (cells' `W` and `R`, dense layers') are stored.
    pub weight_type: WeightType,
    /// Whether sigmoid, tanh, scaledtanh, elu and softplus use the cheaper approximations of
    /// `cellc_runtime::act::fast` (error at most 4.6e-7, measured over every f32
    /// input) instead of the default ones (within 1 to 3 ULP of the correctly rounded result).
    pub fast_activations: bool,
    /// How generated Rust holds its embedded weight tables: literals, or bytes in a file
    /// beside it.
    pub weight_tables: WeightTables,
    /// How many threads a step of a large cell is split across (Rust only).
    pub threads: Threads,
    /// Parameter shapes fixed at compile time.
    pub input_shapes: Vec<InputShape>,
    /// Tensors (or layers) that become the model's Parameters: only what lies after them is
    /// compiled (`--inputs`).
    pub cut_inputs: Vec<String>,
    /// Tensors (or layers) that become the model's Results, in this order: only what they
    /// need is compiled (`--outputs`). The Results of `states` stay too, after them.
    pub cut_outputs: Vec<String>,
    /// Names for generated cell and dense-layer types (`--cell-name FROM=TO`): FROM is the
    /// name `inspect` shows (`gru0`) or the layer's name in the model.
    pub cell_names: Vec<(String, String)>,
    /// Parameter and Result pairs that carry a state between runs (`--state IN=OUT`): each
    /// becomes a variable of the generated model, zero after `reset()`.
    pub states: Vec<(String, String)>,
    /// Pair the other Parameters and Results that carry a state by the names exporters give
    /// them (`--state auto`: `h0`/`hn`, `x`/`next_x`, `cache`/`new_cache`…) and equal shapes.
    pub state_auto: bool,
}

/// One method per field, each giving the same options with that field set, so that options
/// chain from [`Options::default()`].
macro_rules! setters {
    ($($field:ident: $ty:ty),* $(,)?) => {
        impl Options {
            $(
                #[doc = concat!("The same options with [`Options::", stringify!($field), "`] set.")]
                #[must_use]
                pub fn $field(mut self, $field: $ty) -> Self {
                    self.$field = $field;
                    self
                }
            )*
        }
    };
}

setters! {
    name: Option<String>,
    language: Language,
    strategy: Strategy,
    weights: Option<PathBuf>,
    weights_mode: WeightsMode,
    simd: Simd,
    weight_type: WeightType,
    fast_activations: bool,
    weight_tables: WeightTables,
    threads: Threads,
    input_shapes: Vec<InputShape>,
    cut_inputs: Vec<String>,
    cut_outputs: Vec<String>,
    cell_names: Vec<(String, String)>,
    states: Vec<(String, String)>,
    state_auto: bool,
}
