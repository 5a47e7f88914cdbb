//! The elementwise functions and reductions generated code computes, each with its f64
//! definition, which constant folding and the reference interpreter share; and chains of
//! them, what one loop of generated code computes for each element.
use super::sym::Sym;

/// Functions of one value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unary {
    /// `max(0, x)`.
    Relu,
    /// `1 / (1 + e^-x)`.
    Sigmoid,
    /// `tanh(x)`.
    Tanh,
    /// `e^x`.
    Exp,
    /// `ln x`.
    Log,
    /// `|x|`.
    Abs,
    /// `√x`.
    Sqrt,
    /// `−x`.
    Negative,
    /// `⌊x⌋`.
    Floor,
    /// `⌈x⌉`.
    Ceiling,
    /// `min(max(x, min), max)`.
    Clamp {
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
    },
    /// `x` if `x > 0`, else `alpha·(e^x − 1)`.
    Elu {
        /// Scale below zero.
        alpha: f64,
    },
    /// `ln(1 + e^x)`.
    SoftPlus,
    /// `x / (1 + |x|)`.
    SoftSign,
    /// `min(max(x + 3, 0), 6) / 6`.
    HSigmoid,
    /// `x · min(max(x + 3, 0), 6) / 6`.
    HSwish,
    /// `x · sigmoid(β·x)` (`Swish`).
    Swish {
        /// `beta` (1 when the layer has no second input).
        beta: f64,
    },
    /// `max(0, min(1, α·x + β))` (`HardSigmoid`).
    HardSigmoid {
        /// `alpha`.
        alpha: f64,
        /// `beta`.
        beta: f64,
    },
    /// `λ·x` if `x > 0`, else `λ·α·(e^x − 1)` (`Selu`).
    Selu {
        /// `alpha`.
        alpha: f64,
        /// `lambda`.
        lambda: f64,
    },
    /// `x · tanh(softplus(x))`.
    Mish,
    /// −1, 0 or 1.
    Sign,
    /// Boolean not.
    LogicalNot,
    /// A function of C's `<math.h>` (trigonometric, hyperbolic, `erf`).
    Math(MathFn),
    /// The whole number towards zero (what a cast to an integer type does).
    Trunc,
    /// `x·Φ(x)` = `x/2·(1 + erf(x/√2))`, or with `tanh(√(2/π)·(x + 0.044715·x³))` in place
    /// of the `erf` (`tanh`).
    Gelu {
        /// The tanh approximation.
        tanh: bool,
    },
    /// The nearest whole number: a half to the even one (`even`, ONNX's `Round`), or away
    /// from zero.
    Round {
        /// Halves go to the even neighbour.
        even: bool,
    },
}

/// The functions of one value that C's `<math.h>` and the libm crate both name (the generated
/// C calls `sinf`…, the generated Rust `cellc_runtime`'s wrappers of libm's): each within
/// an ULP or two of the exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MathFn {
    /// `sin x`.
    Sin,
    /// `cos x`.
    Cos,
    /// `tan x`.
    Tan,
    /// `asin x`.
    Asin,
    /// `acos x`.
    Acos,
    /// `atan x`.
    Atan,
    /// `sinh x`.
    Sinh,
    /// `cosh x`.
    Cosh,
    /// `asinh x`.
    Asinh,
    /// `acosh x`.
    Acosh,
    /// `atanh x`.
    Atanh,
    /// The error function, `2/√π ∫₀ˣ e^(−t²) dt`.
    Erf,
}

impl MathFn {
    /// Every function, in order.
    pub const ALL: [MathFn; 12] = [
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Asinh,
        MathFn::Acosh,
        MathFn::Atanh,
        MathFn::Erf,
    ];

    /// Its name in lower case: the runtime's function, and C's with an `f` after it.
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Asinh => "asinh",
            MathFn::Acosh => "acosh",
            MathFn::Atanh => "atanh",
            MathFn::Erf => "erf",
        }
    }

    /// The function whose ONNX op (and OpenVINO op) has this name (`Sin`, `Asinh`, `Erf`…).
    pub fn of_op(op: &str) -> Option<MathFn> {
        MathFn::ALL.into_iter().find(|f| {
            let n = f.name();
            op.len() == n.len() && op.starts_with(|c: char| c.is_ascii_uppercase()) && op.eq_ignore_ascii_case(n)
        })
    }

    /// The function in f64.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Tan => x.tan(),
            MathFn::Asin => x.asin(),
            MathFn::Acos => x.acos(),
            MathFn::Atan => x.atan(),
            MathFn::Sinh => x.sinh(),
            MathFn::Cosh => x.cosh(),
            MathFn::Asinh => x.asinh(),
            MathFn::Acosh => x.acosh(),
            MathFn::Atanh => x.atanh(),
            MathFn::Erf => libm::erf(x),
        }
    }
}

impl Unary {
    /// The function in f64.
    pub fn apply(self, x: f64) -> f64 {
        let softplus = |x: f64| x.max(0.0) + (-x.abs()).exp().ln_1p();
        let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
        match self {
            Unary::Relu => x.max(0.0),
            Unary::Sigmoid => sigmoid(x),
            Unary::Tanh => x.tanh(),
            Unary::Exp => x.exp(),
            Unary::Log => x.ln(),
            Unary::Abs => x.abs(),
            Unary::Sqrt => x.sqrt(),
            Unary::Negative => -x,
            Unary::Floor => x.floor(),
            Unary::Ceiling => x.ceil(),
            Unary::Clamp { min, max } => x.max(min).min(max),
            Unary::Elu { alpha } => {
                if x > 0.0 {
                    x
                } else {
                    alpha * x.exp_m1()
                }
            }
            Unary::SoftPlus => softplus(x),
            Unary::SoftSign => x / (1.0 + x.abs()),
            Unary::HSigmoid => (x + 3.0).clamp(0.0, 6.0) / 6.0,
            Unary::HSwish => x * (x + 3.0).clamp(0.0, 6.0) / 6.0,
            Unary::Swish { beta } => x * sigmoid(beta * x),
            Unary::HardSigmoid { alpha, beta } => (alpha * x + beta).clamp(0.0, 1.0),
            Unary::Selu { alpha, lambda } => {
                if x > 0.0 {
                    lambda * x
                } else {
                    lambda * alpha * x.exp_m1()
                }
            }
            Unary::Mish => x * softplus(x).tanh(),
            Unary::Sign => {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            }
            Unary::LogicalNot => f64::from(x == 0.0),
            Unary::Math(f) => f.apply(x),
            Unary::Trunc => x.trunc(),
            Unary::Gelu { tanh: false } => 0.5 * x * (1.0 + libm::erf(x * core::f64::consts::FRAC_1_SQRT_2)),
            Unary::Gelu { tanh: true } => {
                let k = (2.0 / core::f64::consts::PI).sqrt();
                0.5 * x * (1.0 + (k * (x + 0.044_715 * x * x * x)).tanh())
            }
            Unary::Round { even: true } => x.round_ties_even(),
            Unary::Round { even: false } => x.round(),
        }
    }

    /// Whether it is defined on whole numbers with a whole result.
    pub fn on_ints(self) -> bool {
        matches!(
            self,
            Unary::Abs
                | Unary::Negative
                | Unary::Relu
                | Unary::Sign
                | Unary::LogicalNot
                | Unary::Clamp { .. }
                | Unary::Round { .. }
                | Unary::Floor
                | Unary::Ceiling
                | Unary::Trunc
        )
    }
}

/// Functions of two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// `a + b`.
    Add,
    /// `a − b`.
    Subtract,
    /// `a · b`.
    Multiply,
    /// `a / b` (on whole numbers, rounded down when `python` is set, else towards zero).
    Divide {
        /// `m_pythondiv`.
        python: bool,
    },
    /// `a^b`.
    Power,
    /// `max(a, b)`.
    Maximum,
    /// `min(a, b)`.
    Minimum,
    /// `(a − b)²`.
    SquaredDifference,
    /// `a` if `a ≥ 0`, else `b·a` (`PRelu`; `b` is the slope).
    PRelu,
    /// Boolean and.
    LogicalAnd,
    /// Boolean or.
    LogicalOr,
    /// Boolean xor.
    LogicalXor,
    /// The remainder of `a / b`: of the quotient truncated (`fmod`, C's `fmod`, the
    /// dividend's sign), or rounded down (the divisor's sign, Python's `%`).
    Mod {
        /// Truncated: C's `fmod`.
        fmod: bool,
    },
}

/// `a mod b` with the divisor's sign (Python's `%`): C's `fmod`, moved by `b` when the two
/// signs differ.
fn floor_mod(a: f64, b: f64) -> f64 {
    let m = a % b;
    if m != 0.0 && (m < 0.0) != (b < 0.0) { m + b } else { m }
}

impl Binary {
    /// The function in f64.
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Binary::Add => a + b,
            Binary::Subtract => a - b,
            Binary::Multiply => a * b,
            Binary::Divide { .. } => a / b,
            Binary::Power => a.powf(b),
            Binary::Maximum => a.max(b),
            Binary::Minimum => a.min(b),
            Binary::SquaredDifference => (a - b) * (a - b),
            Binary::PRelu => {
                if a >= 0.0 {
                    a
                } else {
                    a * b
                }
            }
            Binary::LogicalAnd => f64::from(a != 0.0 && b != 0.0),
            Binary::LogicalOr => f64::from(a != 0.0 || b != 0.0),
            Binary::LogicalXor => f64::from((a != 0.0) != (b != 0.0)),
            Binary::Mod { fmod: true } => a % b,
            Binary::Mod { fmod: false } => floor_mod(a, b),
        }
    }

    /// The function on whole numbers that may depend on a symbol, when expressible.
    pub fn apply_sym(self, a: Sym, b: Sym) -> Option<Sym> {
        match self {
            Binary::Add => a.checked_add(b),
            Binary::Subtract => a.checked_sub(b),
            Binary::Multiply => a.checked_mul(b),
            Binary::Divide { python: true } => a.floor_div(b),
            Binary::Divide { python: false } => a.trunc_div(b),
            Binary::Mod { fmod } => {
                let (x, y) = (a.value()?, b.value().filter(|&y| y != 0)?);
                let m = x.checked_rem(y)?;
                Some(Sym::known(if !fmod && m != 0 && (m < 0) != (y < 0) { m + y } else { m }))
            }
            Binary::Maximum | Binary::Minimum => {
                let less = a.less(b)?;
                Some(if less == (self == Binary::Minimum) { a } else { b })
            }
            _ => {
                let (x, y) = (a.value()?, b.value()?);
                let v = self.apply(x as f64, y as f64);
                (v.fract() == 0.0 && v.abs() < 9.0e15).then(|| Sym::known(v as i64))
            }
        }
    }
}

/// Comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// `a == b`.
    Equal,
    /// `a != b`.
    NotEqual,
    /// `a < b`.
    Less,
    /// `a <= b`.
    LessEqual,
    /// `a > b`.
    Greater,
    /// `a >= b`.
    GreaterEqual,
}

impl Compare {
    /// The comparison in f64, as 0 or 1.
    pub fn apply(self, a: f64, b: f64) -> f64 {
        f64::from(match self {
            Compare::Equal => a == b,
            Compare::NotEqual => a != b,
            Compare::Less => a < b,
            Compare::LessEqual => a <= b,
            Compare::Greater => a > b,
            Compare::GreaterEqual => a >= b,
        })
    }

    pub fn apply_sym(self, a: Sym, b: Sym) -> Option<Sym> {
        let r = match self {
            Compare::Equal => a.equals(b)?,
            Compare::NotEqual => !a.equals(b)?,
            Compare::Less => a.less(b)?,
            Compare::LessEqual => !b.less(a)?,
            Compare::Greater => b.less(a)?,
            Compare::GreaterEqual => !a.less(b)?,
        };
        Some(Sym::known(i64::from(r)))
    }
}

/// An elementwise function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MapFn {
    /// Of one value.
    Unary(Unary),
    /// Of two.
    Binary(Binary),
    /// A comparison, giving 0 or 1.
    Compare(Compare),
    /// `a ≠ 0 ? b : c`.
    Select,
}

impl MapFn {
    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            MapFn::Unary(_) => 1,
            MapFn::Binary(_) | MapFn::Compare(_) => 2,
            MapFn::Select => 3,
        }
    }

    /// The function in f64 (the reference interpreter's arithmetic).
    pub fn apply(self, a: &[f64]) -> f64 {
        match self {
            MapFn::Unary(u) => u.apply(a[0]),
            MapFn::Binary(b) => b.apply(a[0], a[1]),
            MapFn::Compare(c) => c.apply(a[0], a[1]),
            MapFn::Select => {
                if a[0] != 0.0 {
                    a[1]
                } else {
                    a[2]
                }
            }
        }
    }
}

/// Where an instruction of a [`Chain`] takes an argument from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Input `k` of the chain.
    Input(usize),
    /// The value of instruction `j` (an earlier one).
    Temp(usize),
}

/// One function of a [`Chain`] and its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    /// The function.
    pub f: MapFn,
    /// Its arguments, `f.arity()` of them.
    pub args: Vec<Arg>,
}

/// Elementwise functions applied in order, each to inputs of the chain or values of earlier
/// ones; the last one's value is the result. Each value is an f32, as the ops it replaces
/// computed.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// The instructions, in order.
    pub instrs: Vec<Instr>,
}

impl Chain {
    /// One function of the inputs in order.
    pub fn single(f: MapFn) -> Chain {
        Chain { instrs: vec![Instr { f, args: (0..f.arity()).map(Arg::Input).collect() }] }
    }

    /// `g(f(inputs…))`: `g` of one value.
    pub fn then(f: MapFn, g: MapFn) -> Chain {
        let first = Chain::single(f);
        let mut instrs = first.instrs;
        instrs.push(Instr { f: g, args: vec![Arg::Temp(0)] });
        Chain { instrs }
    }

    /// The chain's value for `inputs`, each function's value rounded to f32.
    pub fn apply(&self, inputs: &[f64]) -> f64 {
        let mut temps: Vec<f64> = Vec::with_capacity(self.instrs.len());
        for i in &self.instrs {
            let args: Vec<f64> = i
                .args
                .iter()
                .map(|a| match *a {
                    Arg::Input(k) => inputs.get(k).copied().unwrap_or(f64::NAN),
                    Arg::Temp(j) => temps.get(j).copied().unwrap_or(f64::NAN),
                })
                .collect();
            temps.push(i.f.apply(&args) as f32 as f64);
        }
        temps.last().copied().unwrap_or(f64::NAN)
    }

    /// The inputs the chain reads.
    pub fn inputs(&self) -> usize {
        let inputs = self.instrs.iter().flat_map(|i| &i.args).filter_map(|a| match a {
            Arg::Input(k) => Some(k + 1),
            Arg::Temp(_) => None,
        });
        inputs.max().unwrap_or(0)
    }
}

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    /// `ReduceSum`.
    Sum,
    /// `ReduceMean`.
    Mean,
    /// `ReduceProd`.
    Prod,
    /// `ReduceMax`.
    Max,
    /// `ReduceMin`.
    Min,
    /// `ReduceL1`: `Σ|x|`.
    L1,
    /// `ReduceL2`: `√Σx²`.
    L2,
    /// `ArgMax` (`max`) or `ArgMin` along one axis: the index of the first extreme value,
    /// or of the `last`, a whole number (NaN is never an extreme).
    Arg {
        /// The largest value's index.
        max: bool,
        /// The last of equal extremes.
        last: bool,
    },
}

impl ReduceKind {
    /// The reduction of an op type (`ReduceSum`, …: the same names in OpenVINO and ONNX).
    pub fn of_op(op: &str) -> Option<ReduceKind> {
        Some(match op {
            "ReduceSum" => ReduceKind::Sum,
            "ReduceMean" => ReduceKind::Mean,
            "ReduceProd" => ReduceKind::Prod,
            "ReduceMax" => ReduceKind::Max,
            "ReduceMin" => ReduceKind::Min,
            "ReduceL1" => ReduceKind::L1,
            "ReduceL2" => ReduceKind::L2,
            _ => return None,
        })
    }

    /// Reduces values in f64. Over no values it gives what OpenVINO gives: 0 for the sum,
    /// the mean and the L1 and L2 norms, 1 for the product, the lowest f32 for the maximum and
    /// +inf for the minimum.
    pub fn apply(self, xs: &[f64]) -> f64 {
        match self {
            ReduceKind::Sum => xs.iter().sum(),
            ReduceKind::Mean if xs.is_empty() => 0.0,
            ReduceKind::Mean => xs.iter().sum::<f64>() / xs.len() as f64,
            ReduceKind::Prod => xs.iter().product(),
            ReduceKind::Max if xs.is_empty() => f64::from(f32::MIN),
            ReduceKind::Max => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ReduceKind::Min => xs.iter().copied().fold(f64::INFINITY, f64::min),
            ReduceKind::L1 => xs.iter().map(|x| x.abs()).sum(),
            ReduceKind::L2 => xs.iter().map(|x| x * x).sum::<f64>().sqrt(),
            ReduceKind::Arg { max, last } => {
                let mut best = 0;
                for (i, &v) in xs.iter().enumerate().skip(1) {
                    let b = xs[best];
                    if (if max { v > b } else { v < b }) || (last && v == b) {
                        best = i;
                    }
                }
                best as f64
            }
        }
    }
}
