//! Float literals and weight tables. Every f32 is written so that it parses back to the
//! same bits: the shortest round-trip decimal for finite values, `from_bits` otherwise.
use crate::emit::plan::Packed;
use proc_macro2::TokenStream;
use quote::quote;
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

/// A `static` table, aligned to 64 bytes, as the emitter collects them (packed weights,
/// a model's constants, a gather's indices): written after the code, as literals
/// ([`Table::source`]) or as bytes in a file beside it ([`binary`]), so that neither the
/// formatter nor rustc's parser reads them value by value as code.
pub(crate) struct Table {
    name: String,
    doc: String,
    values: Values,
}

/// The values of a table.
pub(crate) enum Values {
    /// Weights as the kernels read them.
    Packed(Packed),
    /// Indices (a gather's table or runs), written in decimal.
    Index(Vec<u32>),
}

impl From<Packed> for Values {
    fn from(p: Packed) -> Values {
        Values::Packed(p)
    }
}

/// The table `name` of `values`, documented by `doc`.
pub(crate) fn table(name: &str, doc: &str, values: impl Into<Values>) -> Table {
    Table { name: name.to_owned(), doc: doc.to_owned(), values: values.into() }
}

impl Table {
    /// The element type and the number of values.
    fn ty(&self) -> (&'static str, usize) {
        match &self.values {
            Values::Packed(Packed::F32(v)) => ("f32", v.len()),
            Values::Packed(Packed::F16(v)) => ("u16", v.len()),
            Values::Packed(Packed::Bf16(v)) | Values::Index(v) => ("u32", v.len()),
            Values::Packed(Packed::I8(v)) => ("i8", v.len()),
        }
    }

    /// The bytes of the values, little-endian.
    fn bytes(&self) -> Vec<u8> {
        match &self.values {
            Values::Packed(Packed::F32(v)) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Values::Packed(Packed::F16(v)) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Values::Packed(Packed::Bf16(v)) | Values::Index(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Values::Packed(Packed::I8(v)) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    /// The table's bytes, as stored.
    pub(crate) fn byte_len(&self) -> usize {
        let (ty, n) = self.ty();
        n.saturating_mul(match ty {
            "i8" => 1,
            "u16" => 2,
            _ => 4,
        })
    }

    fn head(&self, s: &mut String) {
        let _ = writeln!(s, "/// {}", self.doc);
        // Read by the kernels of its cell, which a program may not call (see `allow_unused`).
        s.push_str("#[allow(dead_code)]\n");
    }

    /// The table as literals: f32 values eight a line, 16-bit forms as hexadecimal words,
    /// indices in decimal twelve a line, int8 values in decimal sixteen a line.
    pub(crate) fn source(&self) -> String {
        let (ty, n) = self.ty();
        let texts: Vec<String> = match &self.values {
            Values::Packed(Packed::F32(v)) => v.iter().map(|&x| f32_text(x)).collect(),
            Values::Packed(Packed::F16(v)) => v.iter().map(|x| format!("0x{x:04x}")).collect(),
            Values::Packed(Packed::Bf16(v)) => v.iter().map(|x| format!("0x{x:08x}")).collect(),
            Values::Packed(Packed::I8(v)) => v.iter().map(i8::to_string).collect(),
            Values::Index(v) => v.iter().map(u32::to_string).collect(),
        };
        let per_line = match (ty, &self.values) {
            ("i8", _) => 16,
            ("u16", _) | (_, Values::Index(_)) => 12,
            _ => 8,
        };
        let mut s = String::new();
        self.head(&mut s);
        let _ = writeln!(s, "static {}: ::cellc_runtime::Aligned<[{ty}; {n}]> = ::cellc_runtime::Aligned([", self.name);
        for line in texts.chunks(per_line) {
            let _ = writeln!(s, "    {},", line.join(", "));
        }
        s.push_str("]);\n");
        s
    }
}

/// Every table as a view of one block of bytes, `blob` (the name of a static), read with
/// `include_bytes!` from `file` (a path relative to the generated file): the source that
/// declares them, and the bytes to write to `file`, each table starting on a multiple of
/// 64 bytes, the block a whole number of 64-byte lines.
pub(crate) fn binary(tables: &[Table], blob: &str, file: &str) -> (String, Vec<u8>) {
    let mut bytes = Vec::new();
    let mut views = String::new();
    for t in tables {
        let (ty, n) = t.ty();
        let offset = bytes.len();
        bytes.extend(t.bytes());
        bytes.resize(bytes.len().next_multiple_of(64), 0);
        views.push('\n');
        t.head(&mut views);
        let _ = writeln!(
            views,
            "static {}: &::cellc_runtime::Aligned<[{ty}; {n}]> = ::cellc_runtime::__private::table::table(&{blob}, {offset});",
            t.name
        );
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "/// The bytes of every table below, little-endian, each table on a 64-byte line:\n\
         /// the file cellc wrote beside this one, which must be kept with it."
    );
    let _ = writeln!(
        s,
        "static {blob}: ::cellc_runtime::Aligned<[u8; {}]> = ::cellc_runtime::Aligned(*include_bytes!({file:?}));",
        bytes.len()
    );
    s.push_str(&views);
    (s, bytes)
}

/// `w` as the runtime's `kernel::Windows` (its channels also the kernels' const parameter).
pub(super) fn windows_value(w: &crate::vocab::Windows) -> TokenStream {
    let two = |v: [usize; 2]| {
        let [a, b] = v;
        quote! { [#a, #b] }
    };
    let (input, output, kernel) = (two(w.input), two(w.output), two(w.kernel));
    let (strides, dilations, pads) = (two(w.strides), two(w.dilations), two(w.pads));
    let channels = w.channels;
    quote! {
        ::cellc_runtime::__private::kernel::Windows {
            input: #input,
            output: #output,
            kernel: #kernel,
            strides: #strides,
            dilations: #dilations,
            pads: #pads,
            channels: #channels,
        }
    }
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
