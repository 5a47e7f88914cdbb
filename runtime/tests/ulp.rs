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

/// The largest errors of a function against the correctly rounded result, each with an
/// input where it occurs.
#[derive(Clone, Copy, Default)]
struct Worst {
    ulp: (u64, f32),
    /// Absolute where the exact value is below 1 in magnitude, relative above.
    abs: (f64, f32),
    /// Relative to the exact value, over exact values of magnitude at least 2^-126.
    rel: (f64, f32),
}

impl Worst {
    fn add(&mut self, x: f32, got: f32, exact: f64) {
        let e = ulps(got, exact as f32);
        if e > self.ulp.0 {
            self.ulp = (e, x);
        }
        if got.is_finite() && exact.is_finite() {
            let d = (got as f64 - exact).abs();
            if d / exact.abs().max(1.0) > self.abs.0 {
                self.abs = (d / exact.abs().max(1.0), x);
            }
            if exact.abs() >= f32::MIN_POSITIVE as f64 && d / exact.abs() > self.rel.0 {
                self.rel = (d / exact.abs(), x);
            }
        }
    }

    fn merge(self, o: Worst) -> Worst {
        Worst {
            ulp: if o.ulp.0 > self.ulp.0 { o.ulp } else { self.ulp },
            abs: if o.abs.0 > self.abs.0 { o.abs } else { self.abs },
            rel: if o.rel.0 > self.rel.0 { o.rel } else { self.rel },
        }
    }
}

/// The largest errors of `f` against `want` over every f32 (non-finite results must match
/// exactly: they count as `u64::MAX` ULP otherwise), on all cores.
fn worst(f: fn(f32) -> f32, want: fn(f64) -> f64) -> Worst {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let span = (1u64 << 32).div_ceil(threads);
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            std::thread::spawn(move || {
                let mut w = Worst::default();
                for bits in t * span..((t + 1) * span).min(1 << 32) {
                    let x = f32::from_bits(bits as u32);
                    w.add(x, f(x), want(x as f64));
                }
                w
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().expect("worker")).fold(Worst::default(), Worst::merge)
}

/// Measures `f` and prints its errors; returns them for the caller's bound.
fn measure(name: &str, f: fn(f32) -> f32, want: fn(f64) -> f64) -> Worst {
    let w = worst(f, want);
    println!(
        "{name}: at most {} ULP (at x = {:e}); absolute (relative above 1) {:.2e} (at x = {:e}); relative {:.2e} (at x = {:e})",
        w.ulp.0, w.ulp.1, w.abs.0, w.abs.1, w.rel.0, w.rel.1
    );
    w
}

fn check(name: &str, f: fn(f32) -> f32, want: fn(f64) -> f64, bound: u64) {
    let w = measure(name, f, want);
    assert!(w.ulp.0 <= bound, "{name}: {} ULP at x = {:e}, past the stated {bound}", w.ulp.0, w.ulp.1);
}

/// A fast approximation: within `abs` absolute error everywhere, and within `rel` relative
/// error where given; infinities and NaNs where the exact function has them.
fn check_fast(name: &str, f: fn(f32) -> f32, want: fn(f64) -> f64, abs: f64, rel: Option<f64>) {
    let w = measure(name, f, want);
    assert!(w.abs.0 <= abs, "{name}: absolute error {:e} at x = {:e}, past the stated {abs:e}", w.abs.0, w.abs.1);
    if let Some(rel) = rel {
        assert!(w.rel.0 <= rel, "{name}: relative error {:e} at x = {:e}, past the stated {rel:e}", w.rel.0, w.rel.1);
    }
}

fn softplus_f64(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

fn elu_f64(x: f64) -> f64 {
    if x >= 0.0 { x } else { x.exp_m1() }
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
#[ignore = "every f32 input: run in release mode"]
fn elu_is_within_1_ulp() {
    check("elu", |x| act::elu(x, 1.0), elu_f64, 1);
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn softplus_is_within_3_ulp() {
    check("softplus", act::softplus, softplus_f64, 3);
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn fast_tanh_errors() {
    check_fast("fast::tanh", act::fast::tanh, f64::tanh, 5e-7, Some(5e-7));
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn fast_sigmoid_errors() {
    check_fast("fast::sigmoid", act::fast::sigmoid, |x| 1.0 / (1.0 + (-x).exp()), 3e-7, None);
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn fast_elu_errors() {
    check_fast("fast::elu", |x| act::fast::elu(x, 1.0), elu_f64, 1.5e-7, None);
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn fast_softplus_errors() {
    check_fast("fast::softplus", act::fast::softplus, softplus_f64, 2e-7, None);
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
