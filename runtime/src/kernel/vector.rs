//! Vectors of f32 lanes at each level, for the kernels that hold a block of sums in
//! registers and broadcast a scalar to each: 16 lanes in an AVX-512 register, 8 in an AVX2
//! one, 8 in an array at any level (multiplied and added as the level does).
use crate::simd::Isa;

/// Vectors of lanes at one level: the few operations a block of sums needs.
pub(super) trait Vector: Copy {
    /// A vector.
    type V: Copy;
    /// A scalar in every lane (or as the level multiplies by it).
    type S: Copy;
    /// Lanes a vector holds (at most 16).
    const L: usize;
    /// The first `L` values of `x`, which holds at least as many.
    fn load(self, x: &[f32]) -> Self::V;
    /// `w` in every lane.
    fn splat(self, w: f32) -> Self::S;
    /// `w` in every lane, as a vector.
    fn fill(self, w: f32) -> Self::V;
    /// `a + x · w` in each lane.
    fn fma(self, a: Self::V, x: Self::V, w: Self::S) -> Self::V;
    /// The lanes of `v` that fit in `y` (all `L`, or as many as `y` holds).
    fn store(self, y: &mut [f32], v: Self::V);
    /// The first `min(L, x.len())` values of `x`, zero past them.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn load_part(self, x: &[f32]) -> Self::V {
        if x.len() >= Self::L {
            return self.load(x);
        }
        let mut t = [0.0f32; 16];
        for (t, &v) in t.iter_mut().zip(x) {
            *t = v;
        }
        self.load(&t)
    }
}

/// Any level: 8 lanes in an array, multiplied and added as the level does
/// ([`Isa::mul_add8`]).
#[derive(Clone, Copy)]
pub(super) struct Eight<I>(pub(super) I);

impl<I: Isa> Vector for Eight<I> {
    type V = [f32; 8];
    type S = f32;
    const L: usize = 8;
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn load(self, x: &[f32]) -> [f32; 8] {
        x.first_chunk::<8>().copied().unwrap_or([0.0; 8])
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn splat(self, w: f32) -> f32 {
        w
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn fill(self, w: f32) -> [f32; 8] {
        [w; 8]
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn fma(self, a: [f32; 8], x: [f32; 8], w: f32) -> [f32; 8] {
        self.0.mul_add8(a, x, w)
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn store(self, y: &mut [f32], v: [f32; 8]) {
        for (o, v) in y.iter_mut().zip(v) {
            *o = v;
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) mod reg;
