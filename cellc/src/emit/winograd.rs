//! Which convolutions run by Winograd's minimal filtering, F(2×2, 3×3), and their weights
//! as that kernel reads them: decided here once for both languages.
//!
//! The transforms, the tiles' grid and the packing of the transformed weights are
//! `cellc_pack::winograd`'s, which the runtime's kernel reads too; this module decides
//! which layers take it and sizes their tables and work area.
use crate::emit::dense::Tiling;
use crate::ir::Dense;
use crate::options::WeightType;
use cellc_pack::winograd as wg;

/// Tiles (2×2 blocks of outputs) transformed and multiplied together: the rows of each of
/// the 16 products. Measured on 3×3 layers of 32 and 64 channels (AMD EPYC Zen 4, AVX-512):
/// the products run at 110 GFLOP/s over 24 rows against 91 over 16 and 103 over 32.
pub(crate) const TILES: usize = 24;

/// The fewest input channels and outputs a layer needs for F(2×2, 3×3): under them the 16
/// products are too short to run near the peak (a first layer of 1–3 channels would be
/// slower than its direct sum).
const MIN_CHANNELS: usize = 16;
const MIN_OUTPUTS: usize = 16;

/// Transformed weights a layer may hold, in values (16 per input channel and output).
const MAX_VALUES: usize = 1 << 22;

/// The most outputs of a layer, padded to whole tiles: the C transforms a tile's products
/// back through an array of 4 of them on the stack (16 KiB).
const MAX_OUTPUTS: usize = 1024;

/// Whether dense layer `d` runs by F(2×2, 3×3) when `weights` is what `--weight-type` says:
/// the windows of a 3×3 convolution of stride 1 (any dilation) with at least two outputs
/// along each axis, enough channels and outputs. Its transformed weights are f32 (they are
/// not 16-bit values even where the layer's are): with `auto`, which would store exact
/// 16-bit weights narrow for their size (an IR compressed to f16), the speed is taken; a
/// 16-bit type asked for by name keeps the direct sum, its weights as asked.
pub(crate) fn applies(d: &Dense, weights: WeightType) -> bool {
    let Some(w) = &d.win else { return false };
    let t = Tiling::of(d.n);
    w.kernel == [3, 3]
        && w.strides == [1, 1]
        && w.output[0] >= 2
        && w.output[1] >= 2
        && matches!(weights, WeightType::Auto | WeightType::F32)
        && w.channels >= MIN_CHANNELS
        && d.n >= MIN_OUTPUTS
        && d.k == 9 * w.channels
        && t.tiles * t.tile <= MAX_OUTPUTS
        && wg::packed_len(d.n, w.channels, t.tile).is_some_and(|v| v <= MAX_VALUES)
        && wg::work(TILES, w.channels, t.tiles * t.tile).is_some()
        && transforms_finite(d)
}

/// Whether every transformed weight is a finite f32: weights up to `f32::MAX / 2.25`
/// (about 1.5e38, [`wg::WEIGHT_GROWTH`]) are transformed without overflow; a layer with a
/// larger (or an infinite, or a NaN) weight keeps the direct sum.
fn transforms_finite(d: &Dense) -> bool {
    d.w.iter().all(|w| f64::from(w.abs()) <= f64::from(f32::MAX) / wg::WEIGHT_GROWTH)
}

/// The layer's weights as the model holds them (`[n][9][C]`: output, tap, channel), which
/// the kernel's direct sum reads for the tiles whose transforms overflow.
pub(crate) fn direct(d: &Dense) -> &[f32] {
    &d.w
}

/// The work area of a layer that [`applies`], in f32 values (`cellc_pack::winograd::work`
/// for [`TILES`] tiles at a time).
pub(crate) fn work(d: &Dense) -> usize {
    let t = Tiling::of(d.n);
    wg::work(TILES, d.k / 9, t.tiles * t.tile).unwrap_or(0)
}

/// The values [`packed`] gives for `d`: 16 layers of `tiles · C · tile`.
pub(crate) fn packed_len(d: &Dense) -> usize {
    wg::packed_len(d.n, d.k / 9, Tiling::of(d.n).tile).unwrap_or(0)
}

/// The transformed weights of `d`, packed as 16 dense layers of `C` inputs (component
/// `ξ = 4·row + column` first), each `[tiles][C][tile]`, zero past `n`.
pub(crate) fn packed(d: &Dense) -> Vec<f32> {
    let mut v = vec![0.0f32; packed_len(d)];
    wg::pack(&mut v, &d.w, d.n, d.k / 9, Tiling::of(d.n).tile);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Windows;

    fn layer(channels: usize, n: usize, kernel: [usize; 2], strides: [usize; 2]) -> Dense {
        dilated(channels, n, kernel, strides, [1, 1])
    }

    fn dilated(channels: usize, n: usize, kernel: [usize; 2], strides: [usize; 2], dilations: [usize; 2]) -> Dense {
        let k = kernel[0] * kernel[1] * channels;
        Dense {
            name: "conv".into(),
            k,
            n,
            w: (0..n * k).map(|i| ((i as f32) * 0.37).sin()).collect(),
            bias: None,
            act: None,
            win: Some(Windows { input: [8, 8], output: [8, 8], kernel, strides, dilations, pads: [1, 1], channels }),
            planar: false,
            groups: 1,
        }
    }

    #[test]
    fn only_wide_three_by_three_layers_of_stride_one_in_f32_apply() {
        assert!(applies(&layer(32, 64, [3, 3], [1, 1]), WeightType::F32));
        assert!(applies(&layer(32, 64, [3, 3], [1, 1]), WeightType::Auto));
        assert!(!applies(&layer(32, 64, [3, 3], [1, 1]), WeightType::F16));
        assert!(!applies(&layer(32, 64, [3, 3], [1, 1]), WeightType::Bf16));
        assert!(!applies(&layer(3, 64, [3, 3], [1, 1]), WeightType::F32));
        assert!(!applies(&layer(32, 8, [3, 3], [1, 1]), WeightType::F32));
        assert!(!applies(&layer(32, 64, [3, 3], [2, 1]), WeightType::F32));
        assert!(applies(&dilated(32, 64, [3, 3], [1, 1], [2, 1]), WeightType::F32));
        assert!(!applies(&layer(32, 64, [5, 5], [1, 1]), WeightType::F32));
        assert!(!applies(&Dense { win: None, ..layer(32, 64, [3, 3], [1, 1]) }, WeightType::F32));
    }

    #[test]
    fn the_transformed_weights_give_back_the_kernel() {
        // Component (a, b) of `G·g·Gᵀ` for each output and channel, checked by the inverse
        // relation on the corner components: U[0][0] = g[0][0], U[0][3] = g[0][2],
        // U[3][0] = g[2][0], U[3][3] = g[2][2], and the middle's sum of all nine taps / 4
        // at U[1][1].
        let d = layer(16, 20, [3, 3], [1, 1]);
        let v = packed(&d);
        let t = Tiling::of(d.n);
        let layer_len = t.tiles * 16 * t.tile;
        for o in [0, 7, 19] {
            for ch in [0, 5, 15] {
                let u = |xi: usize| v[xi * layer_len + ((o / t.tile) * 16 + ch) * t.tile + o % t.tile];
                let g = |kh: usize, kw: usize| d.w[o * d.k + (kh * 3 + kw) * 16 + ch];
                assert_eq!(u(0), g(0, 0));
                assert_eq!(u(3), g(0, 2));
                assert_eq!(u(12), g(2, 0));
                assert_eq!(u(15), g(2, 2));
                let all: f64 = (0..9).map(|k| f64::from(g(k / 3, k % 3))).sum();
                assert!((f64::from(u(5)) - all / 4.0).abs() < 1e-6);
            }
        }
        // The lanes past the 20 outputs (the second tile's last 12) stay zero.
        assert_eq!((t.tiles, t.tile), (2, 16));
        for xi in 0..16 {
            for ch in 0..16 {
                let at = xi * layer_len + (16 + ch) * 16;
                assert!(v[at + 4..at + 16].iter().all(|&x| x == 0.0));
                assert!(v[at..at + 4].iter().any(|&x| x != 0.0));
            }
        }
    }
}
