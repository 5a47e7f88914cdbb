//! The coefficients of the activations' polynomials (from `runtime/scripts/fit_activations.py`),
//! highest degree first: `cellc_runtime::act` evaluates them and the C emitter writes them
//! out, so both compute the same bits from one table. Each is evaluated by Horner's rule
//! (`p = c₀; p = p·x + cᵢ`), but [`EXP`], which is evaluated in Estrin's form.

/// ln 2 with its low 9 bits zero, so `n·LN2_HI` is exact for the `n` of `exp`.
pub const LN2_HI: f32 = 0.693_145_75;
/// `ln 2 − LN2_HI`.
pub const LN2_LO: f32 = 1.428_606_8e-6;

/// `e^r = 1 + r + r²·P(r)` for `|r| ≤ ln 2 / 2` (relative error 3e-9 on its own), `P` of
/// degree 4, evaluated as `(c₀·r² + (c₁·r + c₂))·r² + (c₃·r + c₄)`.
pub const EXP: [f32; 5] = [0.001_381_461_2, 0.008_368_71, 0.041_668_39, 0.166_665_21, 0.499_999_94];

/// `tanh(a) = a + a³·P(a²)` below [`TANH_SMALL_BELOW`] (relative error 1e-9 on its own).
pub const TANH_SMALL: [f32; 5] = [-0.006_274_242_4, 0.021_071_682, -0.053_852_312, 0.133_325_86, -0.333_333_16];
/// Where `tanh` leaves its polynomial for `1 − 2 / (e^2a + 1)`.
pub const TANH_SMALL_BELOW: f32 = 0.55;

/// `e^x − 1 = x + x²·P(x)` for `x` in (−ln 2 / 2, 0].
pub const EXPM1_NEG: [f32; 5] = [0.001_200_641, 0.008_263_202, 0.041_654_62, 0.166_665_76, 0.499_999_97];
/// −ln 2 / 2, below which `e^x − 1` is computed as it reads.
pub const EXPM1_NEG_ABOVE: f32 = -0.346_573_6;

/// `ln m = 2s + s³·P(s²)` with `s = (m − 1) / (m + 1)`, for `m` in [1/√2, √2].
pub const LN_ATANH: [f32; 3] = [0.298_709_45, 0.399_775_74, 0.666_667_76];

/// The fast `tanh`: `x·P(x²) / Q(x²)` on `|x| ≤` [`FAST_TANH_CLAMP`].
pub const FAST_TANH_P: [f32; 4] = [1.153_179_1e-5, 0.002_960_469_3, 0.129_344_14, 0.999_999_9];
/// The denominator of the fast `tanh`.
pub const FAST_TANH_Q: [f32; 5] = [2.492_531_3e-7, 0.000_240_011_46, 0.023_854_068, 0.462_676_4, 1.0];
/// Where the fast `tanh` clamps its input.
pub const FAST_TANH_CLAMP: f32 = 7.9;

/// The fast `e^x` for `x ≤ 0`: `1 + r + r²·P(r)`.
pub const FAST_EXP_NEG: [f32; 4] = [0.008_312_526, 0.041_890_115, 0.166_671_14, 0.499_992_3];

/// The fast softplus's shorter logarithm: `ln m = 2s + s³·P(s²)`.
pub const FAST_LN_ATANH: [f32; 2] = [0.412_020_06, 0.666_556_24];
