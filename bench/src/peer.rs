//! RTNeural, the peer of the side-by-side bench: its GRU and LSTM layers (`bench/rtneural/
//! peer.cpp`, built by `build.rs` from `RTNEURAL_DIR` with its Eigen backend and with its
//! xsimd one) behind safe handles, and the weights of cellc's configurations in the layout
//! RTNeural takes (Keras's).
use core::ffi::c_void;
use core::ptr::NonNull;

/// An input row as RTNeural reads it: aligned for its widest vector loads.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Input<const I: usize>(pub [f32; I]);

/// A layer of RTNeural that carries its state from step to step.
pub trait Peer<const I: usize, const H: usize> {
    /// Zeroes the state.
    fn reset(&mut self);
    /// One step on `x`; returns the first output.
    fn forward(&mut self, x: &Input<I>) -> f32;
    /// The state after the last step.
    fn outputs(&self) -> [f32; H];
}

/// A GRU's weights, OpenVINO's layout with `linear_before_reset` (gates z, r, h; `w`
/// `[3H, I]`, `r` `[3H, H]`, `b` `[4H]`), as Keras's: the kernel `[I][3H]`, the recurrent
/// kernel `[H][3H]` and the biases `[2][3H]` (input, then recurrent: the summed z and r
/// biases on the input side, h's on each side).
pub fn keras_gru(h: usize, i: usize, w: &[f32], r: &[f32], b: &[f32]) -> [Vec<f32>; 3] {
    assert_eq!((w.len(), r.len(), b.len()), (3 * h * i, 3 * h * h, 4 * h), "a GRU with linear_before_reset");
    let kernel = (0..i).flat_map(|k| (0..3 * h).map(move |row| w[row * i + k])).collect();
    let recurrent = (0..h).flat_map(|k| (0..3 * h).map(move |row| r[row * h + k])).collect();
    let mut bias = vec![0.0; 6 * h];
    bias[..3 * h].copy_from_slice(&b[..3 * h]);
    bias[5 * h..].copy_from_slice(&b[3 * h..]);
    [kernel, recurrent, bias]
}

/// An LSTM's weights, OpenVINO's layout (gates f, i, c, o; `w` `[4H, I]`, `r` `[4H, H]`, `b`
/// `[4H]`), as Keras's (gates i, f, c, o): the kernel `[I][4H]`, the recurrent kernel
/// `[H][4H]` and the bias `[4H]`.
pub fn keras_lstm(h: usize, i: usize, w: &[f32], r: &[f32], b: &[f32]) -> [Vec<f32>; 3] {
    assert_eq!((w.len(), r.len(), b.len()), (4 * h * i, 4 * h * h, 4 * h), "an LSTM");
    // Keras's gate g is OpenVINO's gate ORDER[g].
    const ORDER: [usize; 4] = [1, 0, 2, 3];
    let row = move |col: usize| ORDER[col / h] * h + col % h;
    let kernel = (0..i).flat_map(|k| (0..4 * h).map(move |col| w[row(col) * i + k])).collect();
    let recurrent = (0..h).flat_map(|k| (0..4 * h).map(move |col| r[row(col) * h + k])).collect();
    let bias = (0..4 * h).map(|col| b[row(col)]).collect();
    [kernel, recurrent, bias]
}

/// A layer type of the peer: `$ty` for the C functions `$sym_…` of `peer.cpp` (declared in
/// the module `$c`), input `$i`, state `$h`, `$g` gate blocks.
macro_rules! peer_layer {
    ($ty:ident, $c:ident, $sym:literal, $i:literal, $h:literal, $g:literal) => {
        /// RTNeural's layer of these sizes and backend.
        pub struct $ty(NonNull<c_void>);

        #[allow(unsafe_code)]
        mod $c {
            use super::c_void;
            unsafe extern "C" {
                #[link_name = concat!($sym, "_new")]
                pub fn new(k: *const f32, r: *const f32, b: *const f32) -> *mut c_void;
                #[link_name = concat!($sym, "_reset")]
                pub fn reset(p: *mut c_void);
                #[link_name = concat!($sym, "_forward")]
                pub fn forward(p: *mut c_void, x: *const f32) -> f32;
                #[link_name = concat!($sym, "_outputs")]
                pub fn outputs(p: *mut c_void) -> *const f32;
                #[link_name = concat!($sym, "_free")]
                pub fn free(p: *mut c_void);
            }
        }

        #[allow(unsafe_code)]
        impl $ty {
            /// The layer with weights `[kernel, recurrent, bias]` in Keras's layout, its state zero.
            pub fn new([k, r, b]: &[Vec<f32>; 3]) -> Self {
                let bias = if $g == 3 { 6 * $h } else { 4 * $h };
                assert_eq!((k.len(), r.len(), b.len()), ($i * $g * $h, $h * $g * $h, bias), "weights of the sizes");
                // SAFETY: `new` reads I × G·H floats from `k`, H × G·H from `r` and the bias's
                // from `b` (the lengths just checked) and copies them; it keeps no pointer.
                let p = unsafe { $c::new(k.as_ptr(), r.as_ptr(), b.as_ptr()) };
                Self(NonNull::new(p).expect("RTNeural's layer allocated"))
            }
        }

        #[allow(unsafe_code)]
        impl Peer<$i, $h> for $ty {
            fn reset(&mut self) {
                // SAFETY: the pointer is the live layer `new` made, borrowed uniquely here.
                unsafe { $c::reset(self.0.as_ptr()) }
            }

            fn forward(&mut self, x: &Input<$i>) -> f32 {
                // SAFETY: the live layer, borrowed uniquely; `forward` reads I floats from `x`,
                // aligned to 64 bytes (its type's alignment) as RTNeural's aligned loads need.
                unsafe { $c::forward(self.0.as_ptr(), x.0.as_ptr()) }
            }

            fn outputs(&self) -> [f32; $h] {
                // SAFETY: the live layer; `outputs` points at its H floats of output, read here
                // before anything can step it again.
                let p = unsafe { $c::outputs(self.0.as_ptr()) };
                // SAFETY: `p` is valid for H floats (above), and RTNeural aligns them.
                unsafe { core::ptr::read(p.cast::<[f32; $h]>()) }
            }
        }

        #[allow(unsafe_code)]
        impl Drop for $ty {
            fn drop(&mut self) {
                // SAFETY: the layer `new` made, freed once, never used after.
                unsafe { $c::free(self.0.as_ptr()) }
            }
        }
    };
}

peer_layer!(EigenGruA, eigen_gru_16_128, "rtneural_eigen_gru_16_128", 16, 128, 3);
peer_layer!(XsimdGruA, xsimd_gru_16_128, "rtneural_xsimd_gru_16_128", 16, 128, 3);
peer_layer!(EigenGruB, eigen_gru_1_16, "rtneural_eigen_gru_1_16", 1, 16, 3);
peer_layer!(XsimdGruB, xsimd_gru_1_16, "rtneural_xsimd_gru_1_16", 1, 16, 3);
peer_layer!(EigenGruC, eigen_gru_256_256, "rtneural_eigen_gru_256_256", 256, 256, 3);
peer_layer!(XsimdGruC, xsimd_gru_256_256, "rtneural_xsimd_gru_256_256", 256, 256, 3);
peer_layer!(EigenLstmF, eigen_lstm_16_128, "rtneural_eigen_lstm_16_128", 16, 128, 4);
peer_layer!(XsimdLstmF, xsimd_lstm_16_128, "rtneural_xsimd_lstm_16_128", 16, 128, 4);
