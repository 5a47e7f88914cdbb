//! Element types: of any tensor ([`Elem`]), and of the float weights generated code stores
//! ([`ElemType`]).
use std::fmt;

/// Element types a tensor may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Elem {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// Signed 8-bit.
    I8,
    /// Signed 32-bit.
    I32,
    /// Signed 64-bit.
    I64,
    /// Unsigned 8-bit.
    U8,
    /// Unsigned 32-bit.
    U32,
    /// Unsigned 64-bit.
    U64,
    /// `boolean`.
    Bool,
}

impl Elem {
    /// Parses an IR element type or port precision (`f32`, `FP32`, `i64`, `BOOL`, …).
    pub fn parse(s: &str) -> Option<Elem> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "f16" | "fp16" => Elem::F16,
            "bf16" => Elem::Bf16,
            "f32" | "fp32" => Elem::F32,
            "f64" | "fp64" => Elem::F64,
            "i8" => Elem::I8,
            "i32" => Elem::I32,
            "i64" => Elem::I64,
            "u8" => Elem::U8,
            "u32" => Elem::U32,
            "u64" => Elem::U64,
            "boolean" | "bool" => Elem::Bool,
            _ => return None,
        })
    }

    /// The IR name.
    pub fn name(self) -> &'static str {
        match self {
            Elem::F16 => "f16",
            Elem::Bf16 => "bf16",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
            Elem::I8 => "i8",
            Elem::I32 => "i32",
            Elem::I64 => "i64",
            Elem::U8 => "u8",
            Elem::U32 => "u32",
            Elem::U64 => "u64",
            Elem::Bool => "boolean",
        }
    }

    /// Whether it is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, Elem::F16 | Elem::Bf16 | Elem::F32 | Elem::F64)
    }

    /// How generated code holds values of this type, which it computes in f32: as they are
    /// (f32, and booleans as 0 and 1), rounded to f32 (f64), as whole numbers in f32 (exact
    /// up to 2²⁴ in magnitude), or not at all (f16 and bf16 round differently from f32).
    pub fn carried(self) -> Carried {
        match self {
            Elem::F32 | Elem::Bool => Carried::Exact,
            Elem::F64 => Carried::Rounded,
            Elem::I8 | Elem::I32 | Elem::I64 | Elem::U8 | Elem::U32 | Elem::U64 => Carried::Whole,
            Elem::F16 | Elem::Bf16 => Carried::No,
        }
    }

    /// Whether converting a value of type `from` to this type leaves the f32 generated code
    /// holds for it unchanged ([`Elem::carried`]): to a float type from any held type, to a
    /// signed integer type of 32 bits or more from any integer type or booleans (values past
    /// 2³¹ are past what f32 holds exactly anyway), to the same type.
    pub fn keeps_held(self, from: Elem) -> bool {
        if from.carried() == Carried::No || self.carried() == Carried::No {
            return false;
        }
        self == from
            || matches!(self, Elem::F32 | Elem::F64)
            || (matches!(self, Elem::I32 | Elem::I64) && !from.is_float())
    }

    /// Whether it is `i32` or `i64`.
    pub fn is_signed_wide(self) -> bool {
        matches!(self, Elem::I32 | Elem::I64)
    }

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            Elem::I8 | Elem::U8 | Elem::Bool => 1,
            Elem::F16 | Elem::Bf16 => 2,
            Elem::F32 | Elem::I32 | Elem::U32 => 4,
            Elem::F64 | Elem::I64 | Elem::U64 => 8,
        }
    }

    /// The float type of cellc's validated ir, for float types.
    pub fn float(self) -> Option<ElemType> {
        match self {
            Elem::F16 => Some(ElemType::F16),
            Elem::Bf16 => Some(ElemType::Bf16),
            Elem::F32 => Some(ElemType::F32),
            Elem::F64 => Some(ElemType::F64),
            _ => None,
        }
    }

    /// Rounds an exact value to this float type (identity for other types).
    pub fn round(self, v: f64) -> f64 {
        self.float().map_or(v, |t| t.round(v))
    }

    /// Brings a whole number into this integer type's range as a conversion to it does
    /// (wrapping, as C++'s static_cast does for the narrowing OpenVINO performs); `None`
    /// for a float type.
    pub fn wrap(self, v: i64) -> Option<i64> {
        Some(match self {
            Elem::I8 => v as i8 as i64,
            Elem::I32 => v as i32 as i64,
            Elem::I64 => v,
            Elem::U8 => v as u8 as i64,
            Elem::U32 => v as u32 as i64,
            // Values above i64::MAX are not represented; the rare u64 shape value stays as is.
            Elem::U64 => v,
            Elem::Bool => i64::from(v != 0),
            _ => return None,
        })
    }
}

/// How generated code, which computes in f32, holds a type's values ([`Elem::carried`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carried {
    /// As they are: f32, and booleans as 0 and 1.
    Exact,
    /// Rounded to f32: f64.
    Rounded,
    /// Whole numbers in f32, exact up to 2²⁴ in magnitude.
    Whole,
    /// Not held: f16 and bf16, whose rounding f32 does not reproduce.
    No,
}

/// Element types of constants and Parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// IEEE binary32.
    F32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE binary64.
    F64,
}

impl ElemType {
    /// Parses an IR `element_type` (`f32`, `f16`, `bf16`, `f64`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" | "fp32" => Some(ElemType::F32),
            "f16" | "fp16" => Some(ElemType::F16),
            "bf16" => Some(ElemType::Bf16),
            "f64" | "fp64" => Some(ElemType::F64),
            _ => None,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElemType::F32 => 4,
            ElemType::F16 | ElemType::Bf16 => 2,
            ElemType::F64 => 8,
        }
    }

    /// Rounds an exact value to this type, as a `Convert` to it does.
    pub fn round(self, v: f64) -> f64 {
        match self {
            ElemType::F32 => v as f32 as f64,
            ElemType::F16 => half::f16::from_f64(v).to_f64(),
            ElemType::Bf16 => half::bf16::from_f64(v).to_f64(),
            ElemType::F64 => v,
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ElemType::F32 => "f32",
            ElemType::F16 => "f16",
            ElemType::Bf16 => "bf16",
            ElemType::F64 => "f64",
        })
    }
}
