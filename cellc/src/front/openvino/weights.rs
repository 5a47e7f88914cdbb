//! Decoding of constants from the `.bin` weights file: little-endian f32, f16, bf16 or f64,
//! then each `Convert` of the folded chain applied in order, each rounding to its type as
//! OpenVINO's Convert does.
use crate::ir::ElemType;

fn value(elem: ElemType, b: &[u8]) -> f64 {
    match (elem, b) {
        (ElemType::F32, &[a, b, c, d]) => f32::from_le_bytes([a, b, c, d]) as f64,
        (ElemType::F16, &[a, b]) => half::f16::from_le_bytes([a, b]).to_f64(),
        (ElemType::Bf16, &[a, b]) => half::bf16::from_le_bytes([a, b]).to_f64(),
        (ElemType::F64, &[a, b, c, d, e, f, g, h]) => f64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => f64::NAN,
    }
}

/// Decodes `bytes` (a whole number of `elem` values, checked by the caller) and applies the
/// conversions in `chain`, whose last type is f32.
pub(crate) fn decode(elem: ElemType, chain: &[ElemType], bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(elem.size()).map(|b| chain.iter().fold(value(elem, b), |v, t| t.round(v)) as f32).collect()
}

/// Decodes little-endian integers of element type `elem` (`i32` or `i64`, as written in
/// IR); `None` for another type or a partial value.
pub(crate) fn decode_ints(elem: &str, bytes: &[u8]) -> Option<Vec<i64>> {
    match elem.trim().to_ascii_lowercase().as_str() {
        "i32" if bytes.len().is_multiple_of(4) => {
            Some(bytes.chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64).collect())
        }
        "i64" if bytes.len().is_multiple_of(8) => Some(
            bytes
                .chunks_exact(8)
                .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                .collect(),
        ),
        _ => None,
    }
}

/// Decodes a constant's little-endian bytes (a whole number of `elem` values, checked by
/// the caller) into a graph value.
pub(crate) fn decode_data(elem: crate::graph::Elem, bytes: &[u8]) -> crate::graph::Data {
    use crate::graph::{Data, Elem, Sym};
    if let Some(t) = elem.float() {
        return Data::Float(bytes.chunks_exact(t.size()).map(|b| value(t, b)).collect());
    }
    let n = elem.size() as usize;
    let int = |b: &[u8]| -> i64 {
        let mut x = [0u8; 8];
        x[..n].copy_from_slice(b);
        let u = u64::from_le_bytes(x);
        match elem {
            Elem::I8 => b[0] as i8 as i64,
            Elem::I32 => u as u32 as i32 as i64,
            Elem::Bool => i64::from(u != 0),
            _ => u as i64,
        }
    };
    Data::Int(bytes.chunks_exact(n).map(|b| Sym::known(int(b))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_each_type_exactly() {
        assert_eq!(decode(ElemType::F32, &[], &1.5f32.to_le_bytes()), [1.5]);
        assert_eq!(decode(ElemType::F16, &[ElemType::F32], &half::f16::from_f32(-0.125).to_le_bytes()), [-0.125]);
        assert_eq!(decode(ElemType::Bf16, &[ElemType::F32], &half::bf16::from_f32(3.0).to_le_bytes()), [3.0]);
        let tenth = 0.1f64.to_le_bytes();
        assert_eq!(decode(ElemType::F64, &[ElemType::F32], &tenth), [0.1f32]);
        // f64 -> f16 -> f32 rounds at f16 first.
        assert_eq!(decode(ElemType::F64, &[ElemType::F16, ElemType::F32], &tenth), [half::f16::from_f64(0.1).to_f32()]);
    }
}
