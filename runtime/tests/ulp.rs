//! The error bounds stated in `cellc_runtime::act`, checked over every f32 input against
//! the correctly rounded result (the f64 function, rounded to f32), at the portable level
//! and at the best one the CPU has (fused multiply–adds). About two and a half minutes for
//! all five in release mode on two cores (each function with its fast form in one pass), so
//! ignored by default:
//!
//!     cargo test --release -p cellc-runtime --test ulp -- --ignored
//!
//! Each test also prints the worst input it found. `CELLC_ULP_SHARE=N` checks one block
//! of 1024 consecutive inputs in `N`, those whose index is `CELLC_ULP_OFFSET` modulo `N`:
//! `.ci/run` checks a quarter of the inputs, drawn by its seed, so that its runs together
//! cover every input.
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

/// The errors of `N` computations of one function over the f32 inputs whose bits are in
/// `bits` (`f` gives them all: an activation at the portable level and at `isa`'s, and its
/// fast form at both), each against `want`, which is evaluated once per input: the exact
/// function costs more than the activations. Inlined into the caller's vector level.
///
/// Blocks of inputs are computed column by column, and each column's largest errors over
/// the block found in loops without branches; only a block that holds a new worst is
/// walked again input by input to name it.
#[inline(always)]
fn scan<const N: usize>(bits: std::ops::Range<u64>, f: impl Fn(f32) -> [f32; N], want: fn(f64) -> f64) -> [Worst; N] {
    const B: u64 = 1024;
    let mut w = [Worst::default(); N];
    let (mut xs, mut exact) = ([0f32; B as usize], [0f64; B as usize]);
    let mut got = [[0f32; B as usize]; N];
    let (share, offset) = share();
    let mut start = bits.start;
    while start < bits.end {
        let n = (bits.end - start).min(B) as usize;
        if (start / B) % share != offset {
            start += n as u64;
            continue;
        }
        for (i, x) in xs[..n].iter_mut().enumerate() {
            *x = f32::from_bits((start + i as u64) as u32);
        }
        for (e, &x) in exact[..n].iter_mut().zip(&xs[..n]) {
            *e = want(x as f64);
        }
        for (i, &x) in xs[..n].iter().enumerate() {
            for (col, v) in got.iter_mut().zip(f(x)) {
                col[i] = v;
            }
        }
        for (w, col) in w.iter_mut().zip(&got) {
            let (ulp, abs, rel) = block_worst(&col[..n], &exact[..n]);
            if ulp > w.ulp.0 || abs > w.abs.0 || rel > w.rel.0 {
                for i in 0..n {
                    w.add(xs[i], col[i], exact[i]);
                }
            }
        }
        start += n as u64;
    }
    w
}

/// The share of the blocks of inputs checked (`CELLC_ULP_SHARE`, every block when unset)
/// and which of them (`CELLC_ULP_OFFSET`, taken modulo the share).
fn share() -> (u64, u64) {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse::<u64>().ok());
    let share = var("CELLC_ULP_SHARE").filter(|&n| n > 0).unwrap_or(1);
    (share, var("CELLC_ULP_OFFSET").unwrap_or(0) % share)
}

/// The largest of each error [`Worst::add`] keeps, over a block.
#[inline(always)]
fn block_worst(got: &[f32], exact: &[f64]) -> (u64, f64, f64) {
    let (mut ulp, mut abs, mut rel) = (0u64, 0f64, 0f64);
    for (&g, &e) in got.iter().zip(exact) {
        ulp = ulp.max(ulps(g, e as f32));
        let finite = g.is_finite() && e.is_finite();
        let d = if finite { (g as f64 - e).abs() } else { 0.0 };
        abs = abs.max(d / e.abs().max(1.0));
        rel = rel.max(if e.abs() >= f32::MIN_POSITIVE as f64 { d / e.abs() } else { 0.0 });
    }
    (ulp, abs, rel)
}

/// `scan_part` over every f32, split among the cores; the worst of each column.
fn worst<const N: usize>(scan_part: impl Fn(std::ops::Range<u64>) -> [Worst; N] + Send + Copy + 'static) -> [Worst; N] {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let span = (1u64 << 32).div_ceil(threads);
    let handles: Vec<_> =
        (0..threads).map(|t| std::thread::spawn(move || scan_part(t * span..((t + 1) * span).min(1 << 32)))).collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("worker"))
        .fold([Worst::default(); N], |a, b| core::array::from_fn(|k| a[k].merge(b[k])))
}

/// The errors of `act::…(isa, x…)` against `want` over every f32, at the portable level
/// and at the best level this CPU has (with FMA on x86-64 machines from the last decade):
/// `[portable, level]`. With a second expression (the fast form of the same function),
/// `[portable, level, fast portable, fast level]`, against one evaluation of `want`.
macro_rules! errors {
    (|$isa:ident, $x:ident| $e:expr, $want:expr) => {
        worst(move |bits| {
            cellc_runtime::__private::dispatch!(|L, isa| scan(
                bits,
                |$x| {
                    let portable = {
                        let $isa = cellc_runtime::__private::simd::Portable;
                        $e
                    };
                    let level = {
                        let $isa = isa;
                        $e
                    };
                    [portable, level]
                },
                $want
            ))
        })
    };
    (|$isa:ident, $x:ident| $e:expr, $fast:expr, $want:expr) => {
        worst(move |bits| {
            cellc_runtime::__private::dispatch!(|L, isa| scan(
                bits,
                |$x| {
                    let [p, pf] = {
                        let $isa = cellc_runtime::__private::simd::Portable;
                        [$e, $fast]
                    };
                    let [l, lf] = {
                        let $isa = isa;
                        [$e, $fast]
                    };
                    [p, l, pf, lf]
                },
                $want
            ))
        })
    };
}

/// Splits the errors of the two-expression form of [`errors!`]: the default function's,
/// then the fast one's.
fn pair(w: [Worst; 4]) -> ([Worst; 2], [Worst; 2]) {
    ([w[0], w[1]], [w[2], w[3]])
}

/// Prints the errors of both levels; returns them for the caller's bounds.
fn report(name: &str, w: [Worst; 2]) -> [Worst; 2] {
    let levels = ["portable".to_owned(), format!("{:?}", cellc_runtime::__private::simd::level())];
    for (w, level) in w.iter().zip(&levels) {
        println!(
            "{name} ({level}): at most {} ULP (at x = {:e}); absolute (relative above 1) {:.2e} (at x = {:e}); \
             relative {:.2e} (at x = {:e})",
            w.ulp.0, w.ulp.1, w.abs.0, w.abs.1, w.rel.0, w.rel.1
        );
    }
    w
}

/// At both levels, within `bound` ULP of the correctly rounded result.
fn check(name: &str, w: [Worst; 2], bound: u64) {
    for w in report(name, w) {
        assert!(w.ulp.0 <= bound, "{name}: {} ULP at x = {:e}, past the stated {bound}", w.ulp.0, w.ulp.1);
    }
}

/// A fast approximation, at both levels: within `abs` absolute error (relative above 1),
/// and within `rel` relative error where given; infinities and NaNs where the exact
/// function has them.
fn check_fast(name: &str, w: [Worst; 2], abs: f64, rel: Option<f64>) {
    for w in report(name, w) {
        assert!(w.abs.0 <= abs, "{name}: absolute error {:e} at x = {:e}, past the stated {abs:e}", w.abs.0, w.abs.1);
        if let Some(rel) = rel {
            assert!(
                w.rel.0 <= rel,
                "{name}: relative error {:e} at x = {:e}, past the stated {rel:e}",
                w.rel.0,
                w.rel.1
            );
        }
    }
}

fn sigmoid_f64(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
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
    check("exp", errors!(|isa, x| act::exp(isa, x), f64::exp), 1);
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn ln_is_within_1_ulp() {
    check("ln", errors!(|_isa, x| cellc_runtime::__private::math::ln(x), f64::ln), 1);
}

// Each function below is checked with its fast form in one pass over the inputs.

#[test]
#[ignore = "every f32 input: run in release mode"]
fn sigmoid_within_2_ulp_and_fast_sigmoid() {
    let (w, fast) = pair(errors!(|isa, x| act::sigmoid(isa, x), act::fast::sigmoid(isa, x), sigmoid_f64));
    check("sigmoid", w, 2);
    check_fast("fast::sigmoid", fast, 3e-7, None);
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn tanh_within_1_ulp_and_fast_tanh() {
    let (w, fast) = pair(errors!(|isa, x| act::tanh(isa, x), act::fast::tanh(isa, x), f64::tanh));
    check("tanh", w, 1);
    check_fast("fast::tanh", fast, 5e-7, Some(5e-7));
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn elu_within_2_ulp_and_fast_elu() {
    let (w, fast) = pair(errors!(|isa, x| act::elu(isa, x, 1.0), act::fast::elu(isa, x, 1.0), elu_f64));
    check("elu", w, 2);
    check_fast("fast::elu", fast, 1.5e-7, None);
}

#[test]
#[ignore = "every f32 input: run in release mode"]
fn softplus_within_3_ulp_and_fast_softplus() {
    let (w, fast) = pair(errors!(|isa, x| act::softplus(isa, x), act::fast::softplus(isa, x), softplus_f64));
    check("softplus", w, 3);
    check_fast("fast::softplus", fast, 2e-7, None);
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
