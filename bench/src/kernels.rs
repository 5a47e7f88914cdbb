//! The generated kernels (`build.rs`, with the `kernels` feature) and the naive cells.
#![allow(missing_docs, unreachable_pub)]

/// A safe function `$f` calling the generated C step `$sym` of a cell with sizes `$h`, `$i`.
macro_rules! c_step {
    ($f:ident, $sym:expr, $h:expr, $i:expr) => {
        #[allow(unsafe_code)]
        pub fn $f(x: &[f32; $i], h: &[f32; $h], out: &mut [f32; $h]) {
            unsafe extern "C" {
                #[link_name = $sym]
                fn step(x: *const f32, h: *const f32, out: *mut f32);
            }
            // SAFETY: the C step reads INPUT_SIZE floats from `x` and HIDDEN_SIZE from `h` and
            // writes HIDDEN_SIZE to `out` (the bounds of its prototype, the sizes of these
            // arrays: both come from the same cell); `out` is borrowed uniquely, so it
            // overlaps neither input, as the C function requires. It keeps no pointer.
            unsafe { step(x.as_ptr(), h.as_ptr(), out.as_mut_ptr()) }
        }
    };
}

/// The generated Rust file `$name$file` as the module `$code`, and `$s`, a function stepping
/// its cell.
macro_rules! generated_step {
    ($name:ident, $s:ident, $code:ident, $file:literal) => {
        pub mod $code {
            include!(concat!(env!("OUT_DIR"), "/", stringify!($name), $file));
        }
        pub fn $s(
            x: &[f32; $code::Cell::INPUT_SIZE],
            h: &[f32; $code::Cell::HIDDEN_SIZE],
            out: &mut [f32; $code::Cell::HIDDEN_SIZE],
        ) {
            $code::Cell.step(x, h, out)
        }
    };
}

/// For configuration `$name`, the module `$name` with the generated code of each strategy
/// and a function `unrolled` / `tiled` stepping it, and `c_unrolled` / `c_tiled` stepping
/// the generated C.
macro_rules! configs {
    ($($name:ident),* $(,)?) => {$(
        pub mod $name {
            generated_step!($name, unrolled, unrolled_code, "_unrolled.rs");
            generated_step!($name, tiled, tiled_code, "_tiled.rs");
            const H: usize = tiled_code::Cell::HIDDEN_SIZE;
            const I: usize = tiled_code::Cell::INPUT_SIZE;
            c_step!(c_unrolled, concat!(stringify!($name), "_c_unrolled_cell_step"), H, I);
            c_step!(c_tiled, concat!(stringify!($name), "_c_tiled_cell_step"), H, I);
        }
    )*};
}

configs!(gru_h128_i16, gru_lbr_h128_i16, gru_h16_i1, gru_lbr_h16_i1, gru_h8_i4, gru_h12_i2, gru_h4_i2, rnn_h128_i16);

/// For configuration `$name`, the tiled kernel with `W` and `R` stored as f16
/// (`tiled_f16`) and as bfloat16 (`tiled_bf16`).
macro_rules! sixteen_bit {
    ($($name:ident),*) => {$(
        pub mod $name {
            generated_step!($name, tiled_f16, f16_code, "_tiled_f16.rs");
            generated_step!($name, tiled_bf16, bf16_code, "_tiled_bf16.rs");
        }
    )*};
}

/// For configuration `$name`, the tiled kernel with fast activations (`tiled`), and with
/// `unrolled`, the unrolled one too.
macro_rules! fast {
    ($($name:ident $(, $unrolled:ident)?);* $(;)?) => {$(
        pub mod $name {
            generated_step!($name, tiled, tiled_code, "_tiled_fast.rs");
            $(generated_step!($name, $unrolled, unrolled_code, "_unrolled_fast.rs");)?
        }
    )*};
}

/// Configuration F's generated file `$file` as the module `tiled_code`, and `tiled`, a
/// function stepping its cell (for modules two levels below the crate's root).
macro_rules! lstm_tiled {
    ($file:literal) => {
        pub mod tiled_code {
            include!(concat!(env!("OUT_DIR"), $file));
        }
        use super::super::lstm_h128_i16::{H, I};
        pub fn tiled(x: &[f32; I], h: &[f32; H], c: &[f32; H], out: &mut [f32; H], out_c: &mut [f32; H]) {
            tiled_code::Cell.step(x, h, c, out, out_c)
        }
    };
}

/// Each configuration's kernels with fast activations (`cellc_runtime::act::fast`).
pub mod fast_activations {
    fast! {
        gru_h128_i16;
        gru_lbr_h128_i16;
        gru_h16_i1, unrolled;
        gru_lbr_h16_i1, unrolled;
        gru_h8_i4, unrolled;
        gru_h12_i2, unrolled;
        gru_h4_i2, unrolled;
        rnn_h128_i16;
    }

    /// Configuration F's tiled kernel with fast activations.
    pub mod lstm_h128_i16 {
        lstm_tiled!("/lstm_h128_i16_tiled_fast.rs");
    }
}

/// The kernels split across two threads (`--threads 2`): the tiled ones of A lbr and F,
/// whose lone steps split (A's and E's read too few weights a stage and stay on one thread),
/// and C's sequence.
pub mod two_threads {
    pub mod gru_lbr_h128_i16 {
        generated_step!(gru_lbr_h128_i16, tiled, tiled_code, "_tiled_threads2.rs");
    }
    pub mod lstm_h128_i16 {
        lstm_tiled!("/lstm_h128_i16_tiled_threads2.rs");
    }
    pub mod gru_seq_h256_i256 {
        include!(concat!(env!("OUT_DIR"), "/gru_seq_h256_i256_threads2.rs"));
    }
}

/// Configuration A's kernels with 16-bit weights (beside its f32 ones in `gru_h128_i16`).
pub mod half_weights {
    sixteen_bit!(gru_h128_i16, gru_lbr_h128_i16);
}

impl Weights {
    /// The weights with `W` and `R` rounded to nearest through `round` (as a 16-bit type).
    pub fn rounded(mut self, round: fn(f32) -> f32) -> Weights {
        for v in self.w.iter_mut().chain(self.r.iter_mut()) {
            *v = round(*v);
        }
        self
    }
}

/// Configuration F: an LSTM cell, H=128, I=16, whose step also carries the cell state.
pub mod lstm_h128_i16 {
    pub mod unrolled_code {
        include!(concat!(env!("OUT_DIR"), "/lstm_h128_i16_unrolled.rs"));
    }
    pub mod tiled_code {
        include!(concat!(env!("OUT_DIR"), "/lstm_h128_i16_tiled.rs"));
    }
    pub const H: usize = 128;
    pub const I: usize = 16;
    /// One step: `(x, h, c, out, out_c)`.
    pub type Step = fn(&[f32; I], &[f32; H], &[f32; H], &mut [f32; H], &mut [f32; H]);

    pub fn unrolled(x: &[f32; I], h: &[f32; H], c: &[f32; H], out: &mut [f32; H], out_c: &mut [f32; H]) {
        unrolled_code::Cell.step(x, h, c, out, out_c)
    }

    pub fn tiled(x: &[f32; I], h: &[f32; H], c: &[f32; H], out: &mut [f32; H], out_c: &mut [f32; H]) {
        tiled_code::Cell.step(x, h, c, out, out_c)
    }

    macro_rules! c_lstm_step {
        ($f:ident, $sym:literal) => {
            #[allow(unsafe_code)]
            pub fn $f(x: &[f32; I], h: &[f32; H], c: &[f32; H], out: &mut [f32; H], out_c: &mut [f32; H]) {
                unsafe extern "C" {
                    #[link_name = $sym]
                    fn step(x: *const f32, h: *const f32, c: *const f32, out: *mut f32, out_c: *mut f32);
                }
                // SAFETY: the C step reads I floats from `x` and H from `h` and `c`, and writes
                // H to `out` and `out_c` (its prototype's bounds, these arrays' sizes); the
                // outputs are borrowed uniquely, so they overlap nothing. It keeps no pointer.
                unsafe { step(x.as_ptr(), h.as_ptr(), c.as_ptr(), out.as_mut_ptr(), out_c.as_mut_ptr()) }
            }
        };
    }
    c_lstm_step!(c_unrolled, "lstm_h128_i16_c_unrolled_cell_step");
    c_lstm_step!(c_tiled, "lstm_h128_i16_c_tiled_cell_step");
}

/// A GRU sequence, H=256, I=256, 1000 steps (`Seq` runs it, `SeqForward` is its kernel;
/// `c_run` runs its C).
pub mod gru_seq_h256_i256 {
    include!(concat!(env!("OUT_DIR"), "/gru_seq_h256_i256.rs"));

    /// The generated C sequence's `run` for one row from a zero state: `y` receives every
    /// step's hidden state.
    #[allow(unsafe_code)]
    pub fn c_run(x: &[[f32; Seq::INPUT_SIZE]; Seq::STEPS], y: &mut [[[f32; Seq::HIDDEN_SIZE]; Seq::STEPS]; 1]) {
        unsafe extern "C" {
            fn gru_seq_h256_i256_c_seq_run(x: *const f32, h0: *const f32, len: usize, y: *mut f32, ho: *mut f32)
            -> i32;
        }
        let h0 = [0.0f32; Seq::HIDDEN_SIZE];
        let mut ho = [0.0f32; Seq::HIDDEN_SIZE];
        // SAFETY: `run` reads STEPS × INPUT_SIZE floats from `x` and HIDDEN_SIZE from `h0`
        // and writes STEPS × HIDDEN_SIZE to `y` and HIDDEN_SIZE to `ho` (one direction): the
        // sizes of these arrays, which are contiguous; outputs are borrowed uniquely, so
        // they overlap nothing. `len` is STEPS. It keeps no pointer.
        let status = unsafe {
            gru_seq_h256_i256_c_seq_run(
                x.as_ptr().cast(),
                h0.as_ptr(),
                Seq::STEPS,
                y.as_mut_ptr().cast(),
                ho.as_mut_ptr(),
            )
        };
        assert_eq!(status, 0, "a length within the steps");
    }
}

/// Configuration C with `linear_before_reset` (as RTNeural computes a GRU), for the
/// side-by-side bench (`Seq` runs it).
pub mod gru_lbr_seq_h256_i256 {
    include!(concat!(env!("OUT_DIR"), "/gru_lbr_seq_h256_i256.rs"));
}

/// Configuration D: a GRU sequence, H=512, I=512, 100 steps, any batch, weights given at
/// run time.
pub mod gru_seq_h512_i512 {
    include!(concat!(env!("OUT_DIR"), "/gru_seq_h512_i512.rs"));
}

/// Weights of a configuration as written by `build.rs`.
pub struct Weights {
    pub w: Vec<f32>,
    pub r: Vec<f32>,
    pub b: Vec<f32>,
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

macro_rules! weights {
    ($name:literal) => {
        Weights {
            w: floats(include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".w"))),
            r: floats(include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".r"))),
            b: floats(include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".b"))),
        }
    };
}

pub fn weights(name: &str) -> Weights {
    match name {
        "gru_h128_i16" => weights!("gru_h128_i16"),
        "gru_lbr_h128_i16" => weights!("gru_lbr_h128_i16"),
        "gru_h16_i1" => weights!("gru_h16_i1"),
        "gru_lbr_h16_i1" => weights!("gru_lbr_h16_i1"),
        "gru_lbr_seq_h256_i256" => weights!("gru_lbr_seq_h256_i256"),
        "gru_h8_i4" => weights!("gru_h8_i4"),
        "gru_h12_i2" => weights!("gru_h12_i2"),
        "gru_h4_i2" => weights!("gru_h4_i2"),
        "lstm_h128_i16" => weights!("lstm_h128_i16"),
        _ => weights!("rnn_h128_i16"),
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn dot(row: &[f32], v: &[f32]) -> f32 {
    row.iter().zip(v).map(|(a, b)| a * b).sum()
}

/// A GRU cell with const sizes, computed row by row.
pub struct NaiveGru<const H: usize, const I: usize> {
    pub wt: Weights,
    pub lbr: bool,
}

impl<const H: usize, const I: usize> NaiveGru<H, I> {
    pub fn step(&self, x: &[f32; I], h: &[f32; H], out: &mut [f32; H]) {
        let (w, r, b) = (&self.wt.w[..3 * H * I], &self.wt.r[..3 * H * H], &self.wt.b);
        let mut z = [0.0f32; H];
        let mut rg = [0.0f32; H];
        for j in 0..H {
            z[j] = sigmoid(dot(&w[j * I..][..I], x) + dot(&r[j * H..][..H], h) + b[j]);
            rg[j] = sigmoid(dot(&w[(H + j) * I..][..I], x) + dot(&r[(H + j) * H..][..H], h) + b[H + j]);
        }
        let mut rh = [0.0f32; H];
        for k in 0..H {
            rh[k] = rg[k] * h[k];
        }
        for j in 0..H {
            let xw = dot(&w[(2 * H + j) * I..][..I], x);
            let n = if self.lbr {
                (xw + b[2 * H + j] + rg[j] * (dot(&r[(2 * H + j) * H..][..H], h) + b[3 * H + j])).tanh()
            } else {
                (xw + dot(&r[(2 * H + j) * H..][..H], &rh) + b[2 * H + j]).tanh()
            };
            out[j] = (1.0 - z[j]) * n + z[j] * h[j];
        }
    }
}

/// An LSTM cell with const sizes (gates f, i, c, o as in OpenVINO, summed bias), computed
/// row by row.
pub struct NaiveLstm<const H: usize, const I: usize> {
    pub wt: Weights,
}

impl<const H: usize, const I: usize> NaiveLstm<H, I> {
    pub fn step(&self, x: &[f32; I], h: &[f32; H], c: &[f32; H], out: &mut [f32; H], out_c: &mut [f32; H]) {
        let (w, r, b) = (&self.wt.w[..4 * H * I], &self.wt.r[..4 * H * H], &self.wt.b[..4 * H]);
        for j in 0..H {
            let gate =
                |g: usize| dot(&w[(g * H + j) * I..][..I], x) + dot(&r[(g * H + j) * H..][..H], h) + b[g * H + j];
            let (f, i, cc, o) = (sigmoid(gate(0)), sigmoid(gate(1)), gate(2).tanh(), sigmoid(gate(3)));
            out_c[j] = f * c[j] + i * cc;
            out[j] = o * out_c[j].tanh();
        }
    }
}

/// An RNN cell with const sizes and tanh, computed row by row.
pub struct NaiveRnn<const H: usize, const I: usize> {
    pub wt: Weights,
}

impl<const H: usize, const I: usize> NaiveRnn<H, I> {
    pub fn step(&self, x: &[f32; I], h: &[f32; H], out: &mut [f32; H]) {
        let (w, r, b) = (&self.wt.w[..H * I], &self.wt.r[..H * H], &self.wt.b[..H]);
        for j in 0..H {
            out[j] = (dot(&w[j * I..][..I], x) + dot(&r[j * H..][..H], h) + b[j]).tanh();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs 20 steps of a kernel from a zero state.
    fn run<const H: usize, const I: usize>(f: impl Fn(&[f32; I], &[f32; H], &mut [f32; H])) -> [f32; H] {
        let x: [f32; I] = core::array::from_fn(|k| (k as f32 * 0.37).sin());
        let (mut h, mut out) = ([0.0f32; H], [0.0f32; H]);
        for _ in 0..20 {
            f(&x, &h, &mut out);
            h = out;
        }
        h
    }

    fn max_diff(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(p, q)| (p - q).abs()).fold(0.0, f32::max)
    }

    #[test]
    fn c_kernels_compute_what_the_rust_ones_do() {
        let want = run(gru_lbr_h128_i16::tiled);
        assert!(max_diff(&run(gru_lbr_h128_i16::c_tiled), &want) < 1e-5);
        assert!(max_diff(&run(gru_lbr_h128_i16::c_unrolled), &want) < 1e-5);
        let want = run(gru_h4_i2::unrolled);
        assert!(max_diff(&run(gru_h4_i2::c_tiled), &want) < 1e-5);
        let want = run(rnn_h128_i16::tiled);
        assert!(max_diff(&run(rnn_h128_i16::c_unrolled), &want) < 1e-5);
    }

    #[test]
    fn c_sequence_computes_what_the_rust_one_does() {
        use gru_seq_h256_i256::Seq;
        let x: Vec<[f32; Seq::INPUT_SIZE]> =
            (0..Seq::STEPS).map(|t| core::array::from_fn(|k| ((t * 3 + k) as f32 * 0.01).cos())).collect();
        let x: Box<[[f32; Seq::INPUT_SIZE]; Seq::STEPS]> = x.into_boxed_slice().try_into().expect("STEPS rows");
        let zeros = || -> Box<[[[f32; Seq::HIDDEN_SIZE]; Seq::STEPS]; 1]> {
            vec![[[0.0f32; Seq::HIDDEN_SIZE]; Seq::STEPS]].into_boxed_slice().try_into().expect("one direction")
        };
        let (mut rust, mut c) = (zeros(), zeros());
        let mut ho = [[0.0f32; Seq::HIDDEN_SIZE]; 1];
        Seq::new().run(&x, &[[0.0; Seq::HIDDEN_SIZE]; 1], Seq::STEPS, &mut rust, &mut ho).expect("all the steps");
        gru_seq_h256_i256::c_run(&x, &mut c);
        assert!(max_diff(rust[0].as_flattened(), c[0].as_flattened()) < 1e-5);
    }
}

/// A dense head: the generated model (`act(x · W + b)`, fused into one dense layer) and a
/// naive one with the same weights, one dot product per output.
macro_rules! dense {
    ($($name:ident: $rows:expr, $k:expr, $n:expr, $act:expr;)*) => {$(
        pub mod $name {
            pub mod code {
                include!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".rs"));
            }
            pub const ROWS: usize = $rows;
            pub const K: usize = $k;
            pub const N: usize = $n;
            /// `W` (`[K, N]`) and `b`.
            pub fn weights() -> (Vec<f32>, Vec<f32>) {
                (
                    crate::kernels::floats(include_bytes!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".w"))),
                    crate::kernels::floats(include_bytes!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".b"))),
                )
            }
            /// The layer written the obvious way over `W` as stored (`[K, N]`): each row of
            /// `W` scaled by its input and added to the outputs, which the compiler
            /// vectorises along `N`.
            pub fn naive(w: &[f32], b: &[f32], x: &[f32], y: &mut [f32]) {
                let act: fn(f32) -> f32 = $act;
                for (xr, yr) in x.chunks_exact(K).zip(y.chunks_exact_mut(N)) {
                    yr.copy_from_slice(b);
                    for (&xq, wq) in xr.iter().zip(w.chunks_exact(N)) {
                        for (yj, &wj) in yr.iter_mut().zip(wq) {
                            *yj += xq * wj;
                        }
                    }
                    for yj in yr.iter_mut() {
                        *yj = act(*yj);
                    }
                }
            }
        }
    )*};
}

dense! {
    dense_r1_k128_n1: 1, 128, 1, |v| 1.0 / (1.0 + (-v).exp());
    dense_r1_k256_n256: 1, 256, 256, f32::tanh;
    dense_r21_k32_n600: 21, 32, 600, |v| v.max(0.0);
    dense_r21_k600_n40: 21, 600, 40, |v| v.max(0.0);
}
