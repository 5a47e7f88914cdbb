//! Which vector instructions the kernels run with, and the dispatch that picks them.
//!
//! Generated kernels are loops over fixed-width lanes in a fixed order, so the compiler
//! turns them into whatever vector instructions the function is compiled for, and every
//! level computes the same operations in the same order. The products' multiply–adds go
//! through the level's [`Isa`] token: fused (one rounding, FMA) at the AVX2 and AVX-512
//! levels, which therefore give bit-identical results, and a multiply then an add at the
//! portable level, whose results differ from theirs by those roundings. What a level
//! changes otherwise is speed (a GRU step with H=128, I=16 runs about 1.8× faster with
//! AVX-512 than with the x86-64 baseline's SSE2).
//!
//! A generated entry point calls [`dispatch!`](crate::dispatch) around its body: on x86-64
//! the body is compiled three times, for AVX-512 (x86-64-v4), for AVX2 with FMA (x86-64-v3)
//! and for the build's own target, and each call runs the best copy the CPU supports. With
//! the `std` feature the CPU is asked once, at the first call; without it only the build's
//! target features count (`-C target-cpu=…` or `-C target-feature=…`). Elsewhere (aarch64,
//! where NEON is part of the baseline) there is one copy, for the build's target.
//!
//! With `std`, the environment variable `CELLC_SIMD` (`portable`, `avx2` or `avx512`), read
//! at the first call, caps the level: to compare levels, or to test each one on one machine.

/// A set of vector instructions the kernels can be compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The build's own target features and nothing more: the portable fallback.
    Portable,
    /// x86-64-v3: AVX2, FMA, F16C (256-bit vectors).
    Avx2,
    /// x86-64-v4: AVX-512 F, BW, CD, DQ, VL on top of x86-64-v3 (512-bit vectors).
    Avx512,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 3] = [Level::Portable, Level::Avx2, Level::Avx512];

    /// The level the build's target features give on their own.
    pub const COMPILED: Level = if cfg!(all(
        target_arch = "x86_64",
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512cd",
        target_feature = "avx512dq",
        target_feature = "avx512vl",
        target_feature = "avx2",
        target_feature = "fma",
        target_feature = "f16c"
    )) {
        Level::Avx512
    } else if cfg!(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma",
        target_feature = "f16c"
    )) {
        Level::Avx2
    } else {
        Level::Portable
    };

    /// The level's name, as `CELLC_SIMD` takes it.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// The level of a name ([`Level::name`]).
    pub fn parse(s: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == s)
    }

    /// Steps whose input projections a streaming `feed` computes together at this level,
    /// where the compiler's plan computes `block` together (the one number both languages
    /// it writes take). Blocks of rows pay off with 256-bit vectors and up (measured: 12%
    /// faster with AVX-512, 7% slower with the baseline's SSE2), so other targets take one
    /// row at a time, as the generated C does without `__AVX2__`.
    pub const fn feed_block(self, block: usize) -> usize {
        match self {
            Level::Portable if !cfg!(target_feature = "avx2") => 1,
            _ => block,
        }
    }

    /// Rows a batched step computes together at this level, each weight panel read once
    /// for all of them. With AVX2 and AVX-512 the products run in explicitly blocked
    /// registers, every lane of a tile for 2–8 rows (a batch of 64 GRU steps, H=512, I=512,
    /// with AVX-512: 107 GFLOP/s taking 8 rows at a time, 102 taking 16; with AVX2: 61 and
    /// 58 taking 8 and 4).
    pub const fn batch_rows(self) -> usize {
        match self {
            Level::Portable => 4,
            Level::Avx2 | Level::Avx512 => 8,
        }
    }

    /// Lanes of the register blocks of a batched step at the portable level (the AVX2 and
    /// AVX-512 ones take a whole tile). Larger blocks measured slower: with 8 rows × 16
    /// lanes the accumulators no longer stayed in registers (a batch of 64 GRU steps, H=128,
    /// I=16, compiled for AVX-512: 8 × 8 75 GFLOP/s, 4 × 8 64, 8 × 16 3).
    pub const fn batch_lanes(self) -> usize {
        8
    }
}

/// Proof that the CPU runs the instructions of a [`Level`], passed down to the kernels that
/// need an instruction no loop compiles to (the f16 conversion, for instance). A value
/// exists only where its level is safe to run: [`dispatch!`](crate::dispatch) makes the
/// token of the copy it calls, [`compiled`] the one of the build's target features.
pub trait Isa: Copy + Send + Sync + sealed::Sealed {
    /// The level it proves.
    const LEVEL: Level;

    /// Whether [`Isa::mul_add8`] and [`Isa::mul_add`] round once (a fused multiply–add):
    /// levels with FMA compute the same bits as each other, and round differently (more
    /// accurately) than the portable level.
    const FUSED: bool;

    /// Eight IEEE binary16 values (as bits) converted to f32, exactly.
    fn f16x8(self, h: &[u16; 8]) -> [f32; 8];

    /// Eight int8 values converted to f32, exactly.
    fn i8x8(self, q: &[i8; 8]) -> [f32; 8];

    /// `acc + w · v` in each of 8 lanes.
    fn mul_add8(self, acc: [f32; 8], w: [f32; 8], v: f32) -> [f32; 8];

    /// `acc + w · v`, rounded as [`Isa::mul_add8`] rounds each lane.
    fn mul_add(self, acc: f32, w: f32, v: f32) -> f32;

    /// Runs `f` compiled for this level. A step split across threads
    /// ([`team`](crate::__private::team)) runs each part in a closure, which is a function of its own,
    /// compiled for the build's target unless it is inlined into a function compiled for
    /// the level: pass an `#[inline(always)]` closure.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn within<R>(self, f: impl FnOnce() -> R) -> R {
        f()
    }

    /// The AVX-512 token, at that level: the proof that kernels written in explicit
    /// 512-bit instructions take.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn avx512(self) -> Option<Avx512> {
        None
    }

    /// The AVX2 token, at the AVX2 level only (kernels at the AVX-512 level take the wider
    /// registers of [`Isa::avx512`]).
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn avx2(self) -> Option<Avx2> {
        None
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Portable {}
    impl Sealed for super::Avx2 {}
    impl Sealed for super::Avx512 {}
}

/// The token of [`Level::Portable`]: plain Rust, any CPU.
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

/// The token of [`Level::Avx2`]; see [`Isa`].
#[derive(Clone, Copy, Debug)]
pub struct Avx2(());

/// The token of [`Level::Avx512`]; see [`Isa`].
#[derive(Clone, Copy, Debug)]
pub struct Avx512(());

impl Avx2 {
    /// The token.
    ///
    /// # Safety
    /// The CPU must have every feature of x86-64-v3 (see [`Level::Avx2`]).
    #[doc(hidden)]
    #[allow(unsafe_code)]
    pub const unsafe fn new_unchecked() -> Self {
        Avx2(())
    }
}

impl Avx512 {
    /// The token.
    ///
    /// # Safety
    /// The CPU must have every feature of x86-64-v4 (see [`Level::Avx512`]).
    #[doc(hidden)]
    #[allow(unsafe_code)]
    pub const unsafe fn new_unchecked() -> Self {
        Avx512(())
    }

    /// The AVX2 token: x86-64-v4 holds every feature of x86-64-v3, so a kernel written in
    /// 256-bit instructions runs at this level too.
    pub const fn avx2(self) -> Avx2 {
        Avx2(())
    }
}

/// Exact binary16 to binary32, for CPUs without a conversion instruction.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn f16x8_portable(h: &[u16; 8]) -> [f32; 8] {
    h.map(|b| half::f16::from_bits(b).to_f32())
}

impl Isa for Portable {
    const LEVEL: Level = Level::Portable;
    const FUSED: bool = false;
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn f16x8(self, h: &[u16; 8]) -> [f32; 8] {
        f16x8_portable(h)
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn i8x8(self, q: &[i8; 8]) -> [f32; 8] {
        q.map(f32::from)
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn mul_add8(self, acc: [f32; 8], w: [f32; 8], v: f32) -> [f32; 8] {
        core::array::from_fn(|l| acc[l] + w[l] * v)
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn mul_add(self, acc: f32, w: f32, v: f32) -> f32 {
        acc + w * v
    }
}

/// `vcvtph2ps` on 8 lanes: its 256-bit form, which on Zen 4 runs faster than the 512-bit
/// one (a GRU step's recurrent product, H=128: 1.7 µs against 4.1 µs).
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(unsafe_code)]
fn f16x8_f16c(h: &[u16; 8]) -> [f32; 8] {
    use core::arch::x86_64::{_mm_loadu_si128, _mm256_cvtph_ps, _mm256_storeu_ps};
    let mut out = [0.0f32; 8];
    // SAFETY: only reached through an `Avx2` or `Avx512` token, whose existence means the
    // CPU has F16C and AVX; the pointers cover 16 bytes read and 32 bytes written.
    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), _mm256_cvtph_ps(_mm_loadu_si128(h.as_ptr().cast()))) };
    out
}

/// `vpmovsxbd` and `vcvtdq2ps` on 8 lanes.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(unsafe_code)]
fn i8x8_avx2(q: &[i8; 8]) -> [f32; 8] {
    use core::arch::x86_64::{_mm_loadl_epi64, _mm256_cvtepi8_epi32, _mm256_cvtepi32_ps, _mm256_storeu_ps};
    let mut out = [0.0f32; 8];
    // SAFETY: only reached through an `Avx2` or `Avx512` token, whose existence means the
    // CPU has AVX2; the pointers cover 8 bytes read and 32 bytes written.
    unsafe {
        let x = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(q.as_ptr().cast())));
        _mm256_storeu_ps(out.as_mut_ptr(), x);
    }
    out
}

/// `vfmadd` on 8 lanes (256 bits: on Zen 4 as fast per lane as 512, and in registers that
/// AVX2 has too).
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(unsafe_code)]
fn mul_add8_fma(acc: [f32; 8], w: [f32; 8], v: f32) -> [f32; 8] {
    use core::arch::x86_64::{_mm256_fmadd_ps, _mm256_loadu_ps, _mm256_set1_ps, _mm256_storeu_ps};
    let mut out = [0.0f32; 8];
    // SAFETY: only reached through an `Avx2` or `Avx512` token, whose existence means the
    // CPU has FMA and AVX; each pointer covers the 32 bytes of an 8-lane array.
    unsafe {
        let r = _mm256_fmadd_ps(_mm256_loadu_ps(w.as_ptr()), _mm256_set1_ps(v), _mm256_loadu_ps(acc.as_ptr()));
        _mm256_storeu_ps(out.as_mut_ptr(), r);
    }
    out
}

/// `vfmadd` on one lane.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(unsafe_code)]
fn mul_add_fma(acc: f32, w: f32, v: f32) -> f32 {
    use core::arch::x86_64::{_mm_cvtss_f32, _mm_fmadd_ss, _mm_set_ss};
    // SAFETY: as for `mul_add8_fma`; no memory is touched.
    unsafe { _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(w), _mm_set_ss(v), _mm_set_ss(acc))) }
}

/// Tokens are only made on x86-64 (by `dispatch!`); elsewhere the arithmetic is portable.
#[cfg(not(target_arch = "x86_64"))]
use {
    f16x8_portable as f16x8_f16c, i8x8_portable as i8x8_avx2, portable_mul_add as mul_add_fma,
    portable_mul_add8 as mul_add8_fma,
};

#[cfg(not(target_arch = "x86_64"))]
fn i8x8_portable(q: &[i8; 8]) -> [f32; 8] {
    Portable.i8x8(q)
}

#[cfg(not(target_arch = "x86_64"))]
fn portable_mul_add8(acc: [f32; 8], w: [f32; 8], v: f32) -> [f32; 8] {
    Portable.mul_add8(acc, w, v)
}

#[cfg(not(target_arch = "x86_64"))]
fn portable_mul_add(acc: f32, w: f32, v: f32) -> f32 {
    Portable.mul_add(acc, w, v)
}

/// The x86-64 levels: both convert f16 with F16C and multiply–add with FMA.
macro_rules! x86_levels {
    ($($token:ident($within:ident) => |$p512:pat_param| $avx512:expr, |$p2:pat_param| $avx2:expr);*) => {
        $(
            impl Isa for $token {
                const LEVEL: Level = Level::$token;
                const FUSED: bool = cfg!(target_arch = "x86_64");
                #[cfg_attr(not(cellc_unoptimised), inline(always))]
                fn f16x8(self, h: &[u16; 8]) -> [f32; 8] {
                    f16x8_f16c(h)
                }
                #[cfg_attr(not(cellc_unoptimised), inline(always))]
                fn i8x8(self, q: &[i8; 8]) -> [f32; 8] {
                    i8x8_avx2(q)
                }
                #[cfg_attr(not(cellc_unoptimised), inline(always))]
                fn mul_add8(self, acc: [f32; 8], w: [f32; 8], v: f32) -> [f32; 8] {
                    mul_add8_fma(acc, w, v)
                }
                #[cfg_attr(not(cellc_unoptimised), inline(always))]
                fn mul_add(self, acc: f32, w: f32, v: f32) -> f32 {
                    mul_add_fma(acc, w, v)
                }
                #[cfg_attr(not(cellc_unoptimised), inline(always))]
                fn within<R>(self, f: impl FnOnce() -> R) -> R {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: the token exists only where the CPU runs its level.
                    #[allow(unsafe_code)]
                    unsafe {
                        $within(f)
                    }
                    #[cfg(not(target_arch = "x86_64"))]
                    f()
                }
                #[cfg_attr(not(cellc_unoptimised), inline(always))]
                fn avx512(self) -> Option<Avx512> {
                    let $p512 = self;
                    $avx512
                }
                #[cfg_attr(not(cellc_unoptimised), inline(always))]
                fn avx2(self) -> Option<Avx2> {
                    let $p2 = self;
                    $avx2
                }
            }
        )*
    };
}

x86_levels!(Avx2(avx2) => |_| None, |t| Some(t); Avx512(avx512) => |t| Some(t), |_| None);

/// Picks a level's token by the level's index in [`Level::ALL`]: how [`Compiled`] follows
/// [`Level::COMPILED`] without a second list of target features.
#[doc(hidden)]
pub struct Select<const N: usize>;

/// See [`Select`].
#[doc(hidden)]
#[allow(unsafe_code)]
pub trait Pick {
    /// The token.
    type Token: Isa;
    /// The token.
    ///
    /// # Safety
    /// The CPU must run the token's level.
    unsafe fn token() -> Self::Token;
}

impl Pick for Select<0> {
    type Token = Portable;
    #[allow(unsafe_code)]
    unsafe fn token() -> Portable {
        Portable
    }
}

impl Pick for Select<1> {
    type Token = Avx2;
    #[allow(unsafe_code)]
    unsafe fn token() -> Avx2 {
        // SAFETY: the caller's.
        unsafe { Avx2::new_unchecked() }
    }
}

impl Pick for Select<2> {
    type Token = Avx512;
    #[allow(unsafe_code)]
    unsafe fn token() -> Avx512 {
        // SAFETY: the caller's.
        unsafe { Avx512::new_unchecked() }
    }
}

/// The token of the build's own target features ([`Level::COMPILED`]).
pub type Compiled = <Select<{ Level::COMPILED as usize }> as Pick>::Token;

/// The token of [`Level::COMPILED`]: the build's target features are the CPU's by the
/// build's own choice.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(unsafe_code)]
pub fn compiled() -> Compiled {
    // SAFETY: the build enables every feature of this level, so the program requires a CPU
    // that has them.
    unsafe { <Select<{ Level::COMPILED as usize }> as Pick>::token() }
}

/// The level kernels run at on this CPU: the best one it supports (asked once, with the
/// `std` feature), capped by `CELLC_SIMD`; without `std`, [`Level::COMPILED`].
#[inline]
pub fn level() -> Level {
    detect::level()
}

/// The best level this CPU supports (asked each call), whatever `CELLC_SIMD` says: at least
/// [`Level::COMPILED`]. Without `std`, or off x86-64, the build's own level.
pub fn cpu_level() -> Level {
    detect::cpu().max(Level::COMPILED)
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod detect {
    use super::Level;
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0 until the first call; then the level's index in [`Level::ALL`] plus one.
    static LEVEL: AtomicU8 = AtomicU8::new(0);

    #[inline]
    pub(super) fn level() -> Level {
        match LEVEL.load(Ordering::Relaxed) {
            0 => init(),
            n => Level::ALL[usize::from(n - 1)],
        }
    }

    #[cold]
    fn init() -> Level {
        let cap = std::env::var("CELLC_SIMD").ok().and_then(|s| Level::parse(s.trim())).unwrap_or(Level::Avx512);
        let l = cpu().min(cap).max(Level::COMPILED);
        let n = Level::ALL.iter().position(|&x| x == l).unwrap_or(0);
        LEVEL.store(n as u8 + 1, Ordering::Relaxed);
        l
    }

    pub(super) fn cpu() -> Level {
        use std::is_x86_feature_detected as has;
        let v3 = has!("avx") && has!("avx2") && has!("fma") && has!("f16c") && has!("bmi1") && has!("bmi2");
        let v3 = v3 && has!("lzcnt") && has!("movbe");
        let v4 = has!("avx512f") && has!("avx512bw") && has!("avx512cd") && has!("avx512dq") && has!("avx512vl");
        match (v3, v4) {
            (true, true) => Level::Avx512,
            (true, false) => Level::Avx2,
            _ => Level::Portable,
        }
    }
}

#[cfg(not(all(feature = "std", target_arch = "x86_64")))]
mod detect {
    use super::Level;

    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    pub(super) const fn level() -> Level {
        Level::COMPILED
    }

    pub(super) const fn cpu() -> Level {
        Level::COMPILED
    }
}

/// Runs `f` compiled for x86-64-v4 (AVX-512). Called by [`dispatch!`](crate::dispatch),
/// which passes an `#[inline(always)]` closure used nowhere else, so the closure (and the
/// `#[inline(always)]` kernel in it) is inlined here and compiled with these features. (Left
/// to the inliner, a large kernel's closure stays a function of its own, compiled for the
/// build's target: an unrolled GRU step with H=128 then took 3.4 µs instead of 2.7.) In a
/// build at `opt-level = 0` the kernels are not forced inline (see the crate's `build.rs`):
/// there each is an ordinary function, compiled once for the build's target.
#[cfg(target_arch = "x86_64")]
#[doc(hidden)]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,f16c,fma,lzcnt,movbe,avx512f,avx512bw,avx512cd,avx512dq,avx512vl")]
#[inline]
pub fn avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Runs `f` compiled for x86-64-v3 (AVX2 and FMA); see [`avx512`].
#[cfg(target_arch = "x86_64")]
#[doc(hidden)]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,f16c,fma,lzcnt,movbe")]
#[inline]
pub fn avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Evaluates a kernel expression with the best [`Level`](crate::simd::Level) of
/// [`level`](crate::simd::level): on x86-64, one copy of the expression each for AVX-512,
/// AVX2 and the build's target. `dispatch!(|L| expr)` also binds the constant `L` to the
/// level of each copy, for sizes that depend on it, and `dispatch!(|L, isa| expr)` binds
/// `isa` to the copy's [`Isa`](crate::simd::Isa) token as well.
///
/// The expression should call only `#[inline(always)]` code, so that each copy is compiled
/// whole for its level.
#[doc(hidden)]
#[macro_export]
macro_rules! dispatch {
    (|$l:ident, $isa:ident| $e:expr) => {
        match $crate::__private::simd::level() {
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            $crate::__private::simd::Level::Avx512 => {
                #[allow(dead_code)]
                const $l: $crate::__private::simd::Level = $crate::__private::simd::Level::Avx512;
                // SAFETY: `level()` is Avx512 only when the CPU has every feature that
                // `avx512` enables (asked at run time), or the build enables them all.
                unsafe {
                    let $isa = $crate::__private::simd::Avx512::new_unchecked();
                    $crate::__private::simd::avx512(
                        #[inline(always)]
                        || $e,
                    )
                }
            }
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            $crate::__private::simd::Level::Avx2 => {
                #[allow(dead_code)]
                const $l: $crate::__private::simd::Level = $crate::__private::simd::Level::Avx2;
                // SAFETY: as above, for the features that `avx2` enables.
                unsafe {
                    let $isa = $crate::__private::simd::Avx2::new_unchecked();
                    $crate::__private::simd::avx2(
                        #[inline(always)]
                        || $e,
                    )
                }
            }
            _ => {
                #[allow(dead_code)]
                const $l: $crate::__private::simd::Level = $crate::__private::simd::Level::COMPILED;
                let $isa = $crate::__private::simd::compiled();
                $e
            }
        }
    };
    (|$l:ident| $e:expr) => {
        $crate::dispatch!(|$l, _isa| $e)
    };
    ($e:expr) => {
        $crate::dispatch!(|_L, _isa| $e)
    };
}

#[cfg(test)]
mod tests;
