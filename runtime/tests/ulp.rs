//! The error bounds stated in `cellc_runtime::act`, checked over every f32 input against
//! the correctly rounded result (the f64 function, rounded to f32). About a minute per
//! function in release mode on two cores, so ignored by default:
//!
//!     cargo test --release -p cellc-runtime --test ulp -- --ignored
//!
//! (`.ci/run` runs it.) Each test also prints the worst input it found.
use cellc_runtime::act;

/// Distance in units in the last place between two f32 values: the number of floats
/// between them (0 for two NaNs, and between +0 and -0).
fn ulps(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() { 0 } else { u64::MAX };
    }
    // Floats ordered as integers: negative ones mirrored below zero.
    let key = |v: f32| {
        let bits = v.to_bits() as i64;
        if bits & 0x8000_0000 != 0 { -(bits & 0x7fff_ffff) } else { bits }
    };
    key(a).abs_diff(key(b))
}

/// The largest error of `f` against `want` over every f32, and an input where it occurs,
/// on all cores.
fn worst(f: fn(f32) -> f32, want: fn(f64) -> f64) -> (u64, f32) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let span = (1u64 << 32).div_ceil(threads);
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            std::thread::spawn(move || {
                let mut worst = (0u64, 0.0f32);
                for bits in t * span..((t + 1) * span).min(1 << 32) {
                    let x = f32::from_bits(bits as u32);
                    let e = ulps(f(x), want(x as f64) as f32);
                    if e > worst.0 {
                        worst = (e, x);
                    }
                }
                worst
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().expect("worker")).fold((0, 0.0), |a, b| if b.0 > a.0 { b } else { a })
}

fn check(name: &str, f: fn(f32) -> f32, want: fn(f64) -> f64, bound: u64) {
    let (e, x) = worst(f, want);
    println!("{name}: at most {e} ULP (at x = {x:e}, bits {:#010x})", x.to_bits());
    assert!(e <= bound, "{name}: {e} ULP at x = {x:e}, past the stated {bound}");
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn exp_is_within_1_ulp() {
    check("exp", act::exp, f64::exp, 1);
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn sigmoid_is_within_2_ulp() {
    check("sigmoid", act::sigmoid, |x| 1.0 / (1.0 + (-x).exp()), 2);
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn tanh_is_within_1_ulp() {
    check("tanh", act::tanh, f64::tanh, 1);
}

#[test]
fn ulps_counts_floats_between() {
    assert_eq!(ulps(1.0, 1.0), 0);
    assert_eq!(ulps(1.0, f32::from_bits(1.0f32.to_bits() + 3)), 3);
    assert_eq!(ulps(0.0, -0.0), 0);
    assert_eq!(ulps(f32::from_bits(1), -f32::from_bits(1)), 2);
    assert_eq!(ulps(f32::NAN, f32::NAN), 0);
    assert_eq!(ulps(f32::NAN, 1.0), u64::MAX);
}
