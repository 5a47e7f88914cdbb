//! Procedural macros of cellc. They only hand their tokens to the `cellc` library
//! (`cellc::expand`), which does all the work with the same pipeline as the command line
//! and build scripts. Use them through `cellc-runtime`, which re-exports them.
use proc_macro::TokenStream;
use std::path::PathBuf;

/// The crate's manifest directory, which paths in the macros are relative to.
fn root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(PathBuf::new, PathBuf::from)
}

/// Compiles an OpenVINO IR model (`model.xml` with `model.bin` beside it) at build time,
/// exactly as `cellc model.xml` would, and expands to the generated items. The path is
/// relative to the crate's manifest directory and must lie inside the crate, unless the call
/// says `allow_outside_crate` after the path; editing the model or its weights rebuilds
/// the crate. A model cellc cannot compile is a compile error at the path, carrying
/// cellc's diagnostics.
///
/// ```
/// mod vad {
///     // A path relative to this crate's Cargo.toml.
///     cellc_macros::include_model!("../examples/gru/model.xml", allow_outside_crate);
/// }
/// let mut h = [0.0f32; vad::Gru::HIDDEN_SIZE];
/// let x = [0.5f32; vad::Gru::INPUT_SIZE];
/// let mut next = [0.0f32; vad::Gru::HIDDEN_SIZE];
/// vad::Gru::new().step(&x, &h, &mut next);
/// h = next;
/// # assert!(h.iter().any(|v| *v != 0.0));
/// ```
#[proc_macro]
pub fn include_model(input: TokenStream) -> TokenStream {
    cellc::expand::include_model(input.into(), &root()).into()
}

/// Declares a GRU cell (GRUCell-3; GRUSequence-5 with `steps`): a struct whose hidden size,
/// input size, activations, clip, gate layout and, optionally, weights are constants of the
/// generated code, exactly as `cellc` compiles the same cell from an OpenVINO IR model.
///
/// ```text
/// gru_cell! {
///     /// Doc comments (the only attributes allowed).
///     pub struct Name<key = value, …>;
/// }
/// ```
///
/// | key | value | default |
/// |---|---|---|
/// | `input_size`, `hidden_size` | positive integers | required |
/// | `activations` | `[f, g]` (`[f]` for an RNN, `[f, g, h]` for an LSTM), each a name or `name(alpha = …, beta = …)`: relu, sigmoid, tanh, hardsigmoid, affine, leakyrelu, thresholdedrelu, scaledtanh, elu, softsign, softplus | OpenVINO's: `[sigmoid, tanh]`, `[tanh]`, `[sigmoid, tanh, tanh]` |
/// | `clip` | clamp every activation's input to `[-clip, clip]`; `0` for none | `0` |
/// | `linear_before_reset` | GRU only: apply the reset gate after the recurrent product | `false` |
/// | `layout` | how `W`, `R` and `B` are stored: `openvino`, `onnx`, `pytorch`, `bnns` | `openvino` |
/// | `steps` | the Sequence form over this many steps (`run`, `run_batch`) | a cell |
/// | `direction` | with `steps`: `forward`, `reverse`, `bidirectional` | `forward` |
/// | `batch` | rows per call of the model entry point, or `dynamic` | `dynamic` |
/// | `bias` | whether the cell has `B` | `true` |
/// | `weights` | `"file.xml"`: embed the weights of the IR model's cell of this kind (`layer = "…"` picks one), which must be the cell declared; `"file.bin"`: embed `W`, `R`, `B` stored back to back as little-endian f32 in the declared layout | none: weights given at run time |
/// | `strategy` | kernel: `auto`, `unrolled`, `tiled` | `auto` |
/// | `simd` | `dispatch`: copies for AVX-512, AVX2+FMA and the build's target, the best the CPU has picked at run time; `build`: one copy for the build's target features | `dispatch` |
/// | `allow_outside_crate` | `true`: `weights` may name a file outside the crate's directory | `false`: refused, so that a macro reads nothing else on the machine |
/// | `fast_activations` | `true`: sigmoid, tanh, scaledtanh, elu and softplus use `cellc_runtime::act::fast` (error at most 4.6e-7) | `false` |
/// | `threads` | split each step across this many threads (the runtime's helper threads, `cellc_runtime::threads`; needs its `std` feature), each computing its share of the state from its share of the weights, when the cell is tiled and large enough to gain | `1` |
/// | `weight_type` | storage of `W` and `R`: `auto` (the narrowest of bf16, f16, f32 holding every embedded value exactly; f32 for weights given at run time, and in the C), `f32`, `f16`, `bf16` (rounded to nearest; half the bytes a step reads) | `auto` |
///
/// Paths are relative to the crate's `Cargo.toml`, and a change to a weights file rebuilds
/// the crate. Without `weights`, the struct holds its weights: `Name::new(w, r, b)` takes
/// them in the declared layout, checks their lengths and packs them once. The declared
/// struct has `INPUT_SIZE`, `HIDDEN_SIZE`, `step` on arrays, `step_batch` on slices and
/// `feed` for streaming (a sequence: `STEPS`, `run` and `run_batch`); `NameModel` beside
/// it implements `cellc_runtime::Model` over the Parameters `X`, `H` (`C`),
/// (`sequence_lengths`), (`W`, `R`, `B`) and the Results (`Y`), `Ho` (`Co`), as an IR model
/// of the cell would. Every mistake is a compile error at the offending token.
///
/// ```
/// cellc_macros::gru_cell! {
///     /// A GRU with its weights as `torch.nn.GRU(4, 8)` stores them, given at run time.
///     pub struct Denoise<input_size = 4, hidden_size = 8, linear_before_reset = true, layout = pytorch>;
/// }
/// // weight_ih_l0, weight_hh_l0, then bias_ih_l0 and bias_hh_l0 together.
/// let (w, r, b) = (vec![0.1f32; 3 * 8 * 4], vec![0.05f32; 3 * 8 * 8], vec![0.0f32; 6 * 8]);
/// let cell = Denoise::new(&w, &r, &b)?;
/// let (mut h, mut next) = ([0.0f32; 8], [0.0f32; 8]);
/// cell.step(&[1.0, 0.5, 0.0, -0.5], &h, &mut next);
/// h = next;
/// # assert!(h.iter().all(|v| *v != 0.0));
/// assert!(Denoise::new(&w[1..], &r, &b).is_err());
/// # Ok::<(), cellc_runtime::Error>(())
/// ```
#[proc_macro]
pub fn gru_cell(input: TokenStream) -> TokenStream {
    cellc::expand::cell(cellc::vocab::CellOp::Gru, input.into(), &root()).into()
}

/// Declares a plain RNN cell (RNNCell-3; RNNSequence-5 with `steps`), with the keys of
/// [`gru_cell!`] except `linear_before_reset`.
///
/// ```
/// cellc_macros::rnn_cell! {
///     /// Runs backwards over 10 steps, relu clipped at 4.
///     pub struct Smoother<input_size = 2, hidden_size = 6, activations = [relu], clip = 4.0,
///                         steps = 10, direction = reverse>;
/// }
/// let cell = Smoother::new(&[0.1; 6 * 2], &[0.01; 6 * 6], &[0.0; 6])?;
/// let xs = [[1.0f32, -1.0]; Smoother::STEPS];
/// let (mut y, mut ho) = ([[[0.0f32; 6]; 10]; 1], [[0.0f32; 6]; 1]);
/// cell.run(&xs, &[[0.0; 6]], 7, &mut y, &mut ho);
/// assert_eq!(y[0][9], [0.0; 6]); // past the row's 7 steps
/// # Ok::<(), cellc_runtime::Error>(())
/// ```
#[proc_macro]
pub fn rnn_cell(input: TokenStream) -> TokenStream {
    cellc::expand::cell(cellc::vocab::CellOp::Rnn, input.into(), &root()).into()
}

/// Declares an LSTM cell (LSTMCell-4; LSTMSequence-5 with `steps`), with the keys of
/// [`gru_cell!`] except `linear_before_reset`.
///
/// ```
/// cellc_macros::lstm_cell! {
///     /// Gates as ONNX stores them (i, o, f, c), input and recurrent biases apart.
///     pub struct Tracker<input_size = 3, hidden_size = 4, layout = onnx, clip = 10.0>;
/// }
/// let tracker = Tracker::new(&[0.2; 16 * 3], &[0.1; 16 * 4], &[0.0; 2 * 16])?;
/// let (mut h, mut c) = ([0.0f32; 4], [0.0f32; 4]);
/// let mut ys = [[0.0f32; 4]; 5];
/// tracker.feed(&mut h, &mut c, &[[1.0, 0.0, -1.0]; 5], &mut ys)?;
/// assert_eq!(ys[4], h);
/// # Ok::<(), cellc_runtime::Error>(())
/// ```
#[proc_macro]
pub fn lstm_cell(input: TokenStream) -> TokenStream {
    cellc::expand::cell(cellc::vocab::CellOp::Lstm, input.into(), &root()).into()
}
