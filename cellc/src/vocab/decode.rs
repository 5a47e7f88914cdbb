//! Decoding of constants from the weights file: little-endian values of their element
//! type, as graph values.
use super::elem::{Elem, ElemType};
use super::fact::Data;
use super::sym::Sym;

fn value(elem: ElemType, b: &[u8]) -> f64 {
    match (elem, b) {
        (ElemType::F32, &[a, b, c, d]) => f32::from_le_bytes([a, b, c, d]) as f64,
        (ElemType::F16, &[a, b]) => half::f16::from_le_bytes([a, b]).to_f64(),
        (ElemType::Bf16, &[a, b]) => half::bf16::from_le_bytes([a, b]).to_f64(),
        (ElemType::F64, &[a, b, c, d, e, f, g, h]) => f64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => f64::NAN,
    }
}

/// Decodes a constant's little-endian bytes (a whole number of `elem` values, checked by
/// the caller) into a graph value.
pub fn decode_data(elem: Elem, bytes: &[u8]) -> Data {
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
        let floats = |elem, bytes: &[u8]| decode_data(elem, bytes).floats().expect("floats");
        assert_eq!(floats(Elem::F32, &1.5f32.to_le_bytes()), [1.5]);
        assert_eq!(floats(Elem::F16, &half::f16::from_f32(-0.125).to_le_bytes()), [-0.125]);
        assert_eq!(floats(Elem::Bf16, &half::bf16::from_f32(3.0).to_le_bytes()), [3.0]);
        assert_eq!(floats(Elem::F64, &0.1f64.to_le_bytes()), [0.1]);
        let ints = |elem, bytes: &[u8]| decode_data(elem, bytes);
        assert_eq!(ints(Elem::I32, &(-7i32).to_le_bytes()), Data::Int(vec![Sym::known(-7)]));
        assert_eq!(ints(Elem::I8, &[0xff]), Data::Int(vec![Sym::known(-1)]));
        assert_eq!(ints(Elem::U8, &[0xff]), Data::Int(vec![Sym::known(255)]));
        assert_eq!(ints(Elem::Bool, &[0, 2]), Data::Int(vec![Sym::known(0), Sym::known(1)]));
    }
}
