//! Vectors in explicit registers (x86-64): 16 lanes a register with AVX-512, 8 with AVX2.
use super::Vector;
use crate::kernel::blocked::{Reg, Ymm, Zmm};

/// 512-bit registers.
#[derive(Clone, Copy)]
pub(in crate::kernel) struct Z(pub(in crate::kernel) Zmm);

/// 256-bit registers.
#[derive(Clone, Copy)]
pub(in crate::kernel) struct Y(pub(in crate::kernel) Ymm);

/// [`Vector`] over register type `$r` of `$n` lanes.
macro_rules! lanes {
    ($t:ident, $r:ty, $n:literal) => {
        impl Vector for $t {
            type V = <$r as Reg>::V;
            type S = <$r as Reg>::V;
            const L: usize = $n;
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            fn load(self, x: &[f32]) -> Self::V {
                match x.first_chunk::<$n>() {
                    Some(x) => self.0.load(x, 0),
                    None => self.0.splat(0.0),
                }
            }
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            fn splat(self, w: f32) -> Self::S {
                self.0.splat(w)
            }
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            fn fill(self, w: f32) -> Self::V {
                self.0.splat(w)
            }
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            fn fma(self, a: Self::V, x: Self::V, w: Self::S) -> Self::V {
                self.0.fma(a, x, w)
            }
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            fn store(self, y: &mut [f32], v: Self::V) {
                match y.first_chunk_mut::<$n>() {
                    Some(y) => self.0.store(y, 0, v),
                    None => {
                        let mut out = [0.0f32; $n];
                        self.0.store(&mut out, 0, v);
                        for (o, v) in y.iter_mut().zip(out) {
                            *o = v;
                        }
                    }
                }
            }
        }
    };
}

lanes!(Z, Zmm, 16);
lanes!(Y, Ymm, 8);
