//! The kernels the benchmarks time: cellc's generated code for each configuration and
//! strategy (built by `build.rs`), and a naive Rust implementation of the same cells with
//! the same weights, written the obvious way: one dot product per output row.
#![allow(missing_docs, unreachable_pub)]

/// For configuration `$name`, the module `$name` with the generated code of each strategy
/// and a function `unrolled` / `tiled` stepping it.
macro_rules! configs {
    ($($name:ident),* $(,)?) => {$(
        pub mod $name {
            macro_rules! strategy {
                ($s:ident, $code:ident, $file:literal) => {
                    pub mod $code {
                        include!(concat!(env!("OUT_DIR"), "/", stringify!($name), $file));
                    }
                    pub fn $s(x: &[f32; $code::Cell::INPUT_SIZE], h: &[f32; $code::Cell::HIDDEN_SIZE], out: &mut [f32; $code::Cell::HIDDEN_SIZE]) {
                        $code::Cell.step(x, h, out)
                    }
                };
            }
            strategy!(unrolled, unrolled_code, "_unrolled.rs");
            strategy!(tiled, tiled_code, "_tiled.rs");
        }
    )*};
}

configs!(gru_h128_i16, gru_lbr_h128_i16, gru_h16_i1, gru_h8_i4, gru_h12_i2, gru_h4_i2, rnn_h128_i16);

/// A GRU sequence, H=256, I=256, 1000 steps (`Seq` runs it, `SeqForward` is its kernel).
pub mod gru_seq_h256_i256 {
    include!(concat!(env!("OUT_DIR"), "/gru_seq_h256_i256.rs"));
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
        "gru_h8_i4" => weights!("gru_h8_i4"),
        "gru_h12_i2" => weights!("gru_h12_i2"),
        "gru_h4_i2" => weights!("gru_h4_i2"),
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
