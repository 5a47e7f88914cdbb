//! Each vector level against the portable one, and the level a CELLC_SIMD setting picks.
use super::*;

#[test]
fn names_parse_back() {
    for l in Level::ALL {
        assert_eq!(Level::parse(l.name()), Some(l));
    }
    assert_eq!(Level::parse("sse"), None);
}

#[test]
fn the_compiled_token_proves_the_compiled_level() {
    fn level_of<I: Isa>(_: I) -> Level {
        I::LEVEL
    }
    assert_eq!(level_of(compiled()), Level::COMPILED);
    assert_eq!(crate::dispatch!(|L, isa| (L, level_of(isa))), (level(), level()));
}

/// Every token converts every f16 bit pattern the same way, and as `half` does
/// (NaNs stay NaNs).
#[test]
fn every_token_converts_f16_exactly() {
    let convert = |isa: &dyn Fn(&[u16; 8]) -> [f32; 8]| {
        for base in (0..=u16::MAX).step_by(8) {
            let h: [u16; 8] = core::array::from_fn(|j| base + j as u16);
            for (b, f) in h.iter().zip(isa(&h)) {
                let want = half::f16::from_bits(*b).to_f32();
                assert!(f.to_bits() == want.to_bits() || (f.is_nan() && want.is_nan()), "{b:#06x}");
            }
        }
    };
    convert(&|h| Portable.f16x8(h));
    convert(&|h| crate::dispatch!(|_L, isa| isa.f16x8(h)));
}

#[test]
fn the_level_is_at_least_the_compiled_one_and_stable() {
    let l = level();
    assert!(l >= Level::COMPILED);
    assert_eq!(level(), l);
    // `CELLC_SIMD` only caps: the level run is never above what the CPU has.
    assert!(l <= cpu_level());
}

/// Runs a vectorisable loop through every copy the macro makes; the copies compute the
/// same operations in the same order, so their results are bit-identical.
#[test]
fn every_copy_computes_the_same() {
    fn dot(a: &[f32; 64], b: &[f32; 64]) -> [f32; 8] {
        let mut acc = [0.0f32; 8];
        for (a, b) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
            for l in 0..8 {
                acc[l] += a[l] * b[l];
            }
        }
        acc
    }
    let a: [f32; 64] = core::array::from_fn(|k| (k % 7) as f32 * 0.37 - 1.0);
    let b: [f32; 64] = core::array::from_fn(|k| (k % 5) as f32 * -0.11 + 0.2);
    let want = dot(&a, &b);
    assert_eq!(crate::dispatch!(dot(&a, &b)), want);
    assert_eq!(crate::dispatch!(|L| (dot(&a, &b), L.feed_block(8))).0, want);
    #[cfg(target_arch = "x86_64")]
    {
        #[cfg(feature = "std")]
        let (v3, v4) = (std::is_x86_feature_detected!("avx2"), std::is_x86_feature_detected!("avx512f"));
        #[cfg(not(feature = "std"))]
        let (v3, v4) = (Level::COMPILED >= Level::Avx2, Level::COMPILED >= Level::Avx512);
        // SAFETY: each copy runs only where the CPU has its features.
        #[allow(unsafe_code)]
        unsafe {
            if v4 && level() == Level::Avx512 {
                assert_eq!(avx512(|| dot(&a, &b)), want);
            }
            if v3 && level() >= Level::Avx2 {
                assert_eq!(avx2(|| dot(&a, &b)), want);
            }
        }
    }
}
