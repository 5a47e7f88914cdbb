//! Float literals and weight tables. Every f32 is written so that it parses back to the
//! same bits: the shortest round-trip decimal for finite values, `from_bits` otherwise.
use crate::emit::plan::Packed;
use proc_macro2::TokenStream;
use std::fmt::Write as _;
use std::str::FromStr;

/// Source text of an f32 value that reads back bit-exactly.
pub(crate) fn f32_text(v: f32) -> String {
    if v.is_finite() { format!("{v:?}") } else { format!("f32::from_bits(0x{:08x})", v.to_bits()) }
}

/// An f32 value as tokens (a literal, possibly negated).
pub(crate) fn f32_tokens(v: f32) -> TokenStream {
    // The text is a float literal or a path call, both valid token streams.
    TokenStream::from_str(&f32_text(v)).unwrap_or_default()
}

/// A `static` table of packed weights, aligned to 64 bytes: f32 values eight a line, 16-bit
/// forms as hexadecimal words.
pub(crate) fn table(name: &str, doc: &str, values: &Packed) -> String {
    let (ty, texts): (&str, Vec<String>) = match values {
        Packed::F32(v) => ("f32", v.iter().map(|&x| f32_text(x)).collect()),
        Packed::F16(v) => ("u16", v.iter().map(|x| format!("0x{x:04x}")).collect()),
        Packed::Bf16(v) => ("u32", v.iter().map(|x| format!("0x{x:08x}")).collect()),
    };
    let per_line = if matches!(values, Packed::F16(_)) { 12 } else { 8 };
    let mut s = String::new();
    let _ = writeln!(s, "/// {doc}");
    // Read by the kernels of its cell, which a program may not call (see `allow_unused`).
    s.push_str("#[allow(dead_code)]\n");
    let _ =
        writeln!(s, "static {name}: ::cellc_runtime::Aligned<[{ty}; {}]> = ::cellc_runtime::Aligned([", texts.len());
    for line in texts.chunks(per_line) {
        let _ = writeln!(s, "    {},", line.join(", "));
    }
    s.push_str("]);\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_round_trip_bit_exactly() {
        let samples = [
            0.1f32,
            -0.0,
            1.0,
            f32::MIN_POSITIVE,
            1e-45,
            f32::MAX,
            -3.4028235e38,
            0.333_333_34,
            f32::from_bits(0x3f80_0001),
        ];
        for v in samples {
            let t = f32_text(v);
            assert_eq!(t.parse::<f32>().map(f32::to_bits), Ok(v.to_bits()), "{t}");
        }
        assert_eq!(f32_text(f32::INFINITY), "f32::from_bits(0x7f800000)");
        assert_eq!(f32_text(f32::from_bits(0x7fc0_0001)), "f32::from_bits(0x7fc00001)");
    }
}
