//! What the machine can do at best, measured in the same run as the kernels so that each
//! figure of `docs/PERFORMANCE.md` has a floor beside it: the peak rate of fused
//! multiply–adds (with 512-bit and with 256-bit vectors) and the rate at which one core
//! reads a buffer that sits in L1, L2, L3 or memory. A kernel that reads its weights once a
//! step cannot be faster than their bytes divided by the read rate of the cache they sit in.
//!
//! The loops are written with the vector intrinsics of each width, so that what is timed
//! is exactly the instructions named: independent accumulators, enough of them to cover
//! the latency of an FMA or an add on any x86-64 core seen so far.
#![allow(unsafe_code)]

/// Independent accumulators of the FMA loops: 12 covers a 4-cycle FMA latency on two ports
/// with room to spare.
pub const FMA_CHAINS: usize = 12;

/// Vector instruction sets this CPU has, for the loops of each width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// 512-bit vectors (AVX-512 F).
    Zmm,
    /// 256-bit vectors with FMA (AVX2, FMA).
    Ymm,
}

impl Width {
    /// f32 lanes in one vector.
    pub const fn lanes(self) -> usize {
        match self {
            Width::Zmm => 16,
            Width::Ymm => 8,
        }
    }

    /// Whether this CPU runs the loops of this width.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Width::Zmm => std::is_x86_feature_detected!("avx512f"),
                Width::Ymm => std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Floating-point operations of one call of [`fma_loop`] with `iters` iterations.
    pub const fn fma_flops(self, iters: usize) -> usize {
        iters * FMA_CHAINS * self.lanes() * 2
    }
}

/// `iters` rounds of [`FMA_CHAINS`] independent vector FMAs (`a = a · m + c`) of this
/// width; returns the sum of the accumulators (so nothing is left unused). `None` when the
/// CPU lacks the width.
pub fn fma_loop(width: Width, iters: usize, m: f32, c: f32) -> Option<f32> {
    if !width.available() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `available` checked that the CPU has the features these functions are
        // compiled for; they take and return plain values.
        Some(unsafe {
            match width {
                Width::Zmm => x86::fma_zmm(iters, m, c),
                Width::Ymm => x86::fma_ymm(iters, m, c),
            }
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (iters, m, c);
        None
    }
}

/// The sum of `buf`, read with vector loads of this width into 8 independent accumulators
/// (lanes in a fixed order, so the result is the same every call); `None` when the CPU
/// lacks the width. `buf`'s length need not be a multiple of anything.
pub fn read_sum(width: Width, buf: &[f32]) -> Option<f32> {
    if !width.available() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `available` checked that the CPU has the features these functions are
        // compiled for; they read `buf` only within its length.
        Some(unsafe {
            match width {
                Width::Zmm => x86::sum_zmm(buf),
                Width::Ymm => x86::sum_ymm(buf),
            }
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = buf;
        None
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::FMA_CHAINS;
    use core::arch::x86_64::*;

    /// Vector loads of 8 vectors per round: the accumulators of [`sum_zmm`] and [`sum_ymm`].
    const READ_CHAINS: usize = 8;

    #[target_feature(enable = "avx512f")]
    pub(super) fn fma_zmm(iters: usize, m: f32, c: f32) -> f32 {
        let (mv, cv) = (_mm512_set1_ps(m), _mm512_set1_ps(c));
        let mut acc = [_mm512_set1_ps(1.0); FMA_CHAINS];
        for _ in 0..iters {
            for a in &mut acc {
                *a = _mm512_fmadd_ps(*a, mv, cv);
            }
        }
        let mut s = _mm512_setzero_ps();
        for a in acc {
            s = _mm512_add_ps(s, a);
        }
        _mm512_reduce_add_ps(s)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn fma_ymm(iters: usize, m: f32, c: f32) -> f32 {
        let (mv, cv) = (_mm256_set1_ps(m), _mm256_set1_ps(c));
        let mut acc = [_mm256_set1_ps(1.0); FMA_CHAINS];
        for _ in 0..iters {
            for a in &mut acc {
                *a = _mm256_fmadd_ps(*a, mv, cv);
            }
        }
        let mut s = _mm256_setzero_ps();
        for a in acc {
            s = _mm256_add_ps(s, a);
        }
        let mut lanes = [0.0f32; 8];
        // SAFETY: `lanes` holds 8 floats, what one unaligned 256-bit store writes.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), s) };
        lanes.iter().sum()
    }

    #[target_feature(enable = "avx512f")]
    pub(super) fn sum_zmm(buf: &[f32]) -> f32 {
        let (rounds, rest) = buf.as_chunks::<{ 16 * READ_CHAINS }>();
        let mut acc = [_mm512_setzero_ps(); READ_CHAINS];
        for r in rounds {
            for (j, a) in acc.iter_mut().enumerate() {
                // SAFETY: lanes 16j..16j + 16 of a round of 16·READ_CHAINS floats.
                *a = _mm512_add_ps(*a, unsafe { _mm512_loadu_ps(r.as_ptr().add(16 * j)) });
            }
        }
        let mut s = _mm512_setzero_ps();
        for a in acc {
            s = _mm512_add_ps(s, a);
        }
        _mm512_reduce_add_ps(s) + rest.iter().sum::<f32>()
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn sum_ymm(buf: &[f32]) -> f32 {
        let (rounds, rest) = buf.as_chunks::<{ 8 * READ_CHAINS }>();
        let mut acc = [_mm256_setzero_ps(); READ_CHAINS];
        for r in rounds {
            for (j, a) in acc.iter_mut().enumerate() {
                // SAFETY: lanes 8j..8j + 8 of a round of 8·READ_CHAINS floats.
                *a = _mm256_add_ps(*a, unsafe { _mm256_loadu_ps(r.as_ptr().add(8 * j)) });
            }
        }
        let mut s = _mm256_setzero_ps();
        for a in acc {
            s = _mm256_add_ps(s, a);
        }
        let mut lanes = [0.0f32; 8];
        // SAFETY: `lanes` holds 8 floats, what one unaligned 256-bit store writes.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), s) };
        lanes.iter().sum::<f32>() + rest.iter().sum::<f32>()
    }
}

/// The size in bytes of each data cache level this CPU reports (`/sys`, Linux), L1 first:
/// the sizes one core sees (an L3 shared by several cores counts whole).
pub fn cache_sizes() -> Vec<(u32, usize)> {
    let mut out = Vec::new();
    for index in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).map(|s| s.trim().to_owned());
        let (Ok(level), Ok(kind), Ok(size)) = (read("level"), read("type"), read("size")) else { break };
        if kind == "Instruction" {
            continue;
        }
        let (Ok(level), Some(size)) = (level.parse::<u32>(), parse_size(&size)) else { continue };
        out.push((level, size));
    }
    out.sort_unstable();
    out
}

/// `48K`, `1024K`, `32M` or a plain number of bytes.
fn parse_size(s: &str) -> Option<usize> {
    let (digits, mult) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(mult)
}

/// The buffers the read rates are measured on, in bytes: half of each cache level (so that
/// it stays there while it is read again and again), and 256 MiB for memory.
pub fn read_sizes() -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> =
        cache_sizes().into_iter().map(|(level, size)| (format!("l{level}"), (size / 2).max(4096))).collect();
    out.push(("memory".into(), 256 << 20));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loops_compute_what_they_say() {
        for width in [Width::Zmm, Width::Ymm] {
            if !width.available() {
                continue;
            }
            // a ← a·1 + 0.5 three times from 1: 2.5 in every lane of every chain.
            let want = 2.5 * (FMA_CHAINS * width.lanes()) as f32;
            assert_eq!(fma_loop(width, 3, 1.0, 0.5), Some(want));
            // Small whole numbers sum exactly in any order; 1000 is not a multiple of a round.
            let buf: Vec<f32> = (0..1000).map(|k| (k % 7) as f32).collect();
            assert_eq!(read_sum(width, &buf), Some(buf.iter().sum::<f32>()));
        }
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("48K"), Some(48 << 10));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("K"), None);
    }
}
