//! The one way names from a model become Rust identifiers: anything that is not a letter,
//! digit or underscore is dropped at a word boundary, so a name can never inject code.
use proc_macro2::{Ident, Span};
use std::collections::BTreeSet;

/// The words of a name: runs of ASCII letters and digits, split where a lower-case letter
/// or digit meets an upper-case one. Everything else separates words.
pub(crate) fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            if ch.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
            cur.push(ch);
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `UpperCamelCase` type name for a model name, `fallback` when nothing usable is left.
pub(crate) fn type_name(name: &str, fallback: &str) -> String {
    let mut s: String = words(name)
        .iter()
        .map(|w| {
            let mut c = w.chars();
            let first = c.next().map(|f| f.to_ascii_uppercase()).unwrap_or_default();
            std::iter::once(first).chain(c).collect::<String>()
        })
        .collect();
    if s.is_empty() {
        s = fallback.to_owned();
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        s = format!("{fallback}{s}");
    }
    if syn::parse_str::<syn::Ident>(&s).is_err() {
        s.push('_');
    }
    s
}

/// `snake_case` field name for a type name.
pub(crate) fn field_name(type_name: &str) -> String {
    let mut s = words(type_name).iter().map(|w| w.to_ascii_lowercase()).collect::<Vec<_>>().join("_");
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s = format!("c_{s}");
    }
    if syn::parse_str::<syn::Ident>(&s).is_err() {
        s.push('_');
    }
    s
}

/// Type names generated code refers to without a path: the prelude's types, traits and
/// variants, and the generic parameters of the kernels (every single capital letter). A
/// model's names never become one of them.
const RESERVED: &[&str] = &[
    "Self",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Box",
    "Vec",
    "String",
    "ToString",
    "ToOwned",
    "Copy",
    "Clone",
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "AsyncFn",
    "AsyncFnMut",
    "AsyncFnOnce",
    "PartialEq",
    "PartialOrd",
    "Eq",
    "Ord",
    "AsRef",
    "AsMut",
    "Into",
    "From",
    "TryFrom",
    "TryInto",
    "Default",
    "Debug",
    "Hash",
    "Iterator",
    "IntoIterator",
    "Extend",
    "FromIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "Future",
    "IntoFuture",
];

/// The letters generated code names its generic parameters with: `I` (the instruction set,
/// a type) and the constants it passes as bare generic arguments (`::<S, V, I>`), which a
/// type of the same name would take the place of. A test reads the emitters for others.
const GENERIC_PARAMS: [&str; 8] = ["B", "H", "I", "Q", "R", "S", "V", "Y"];

/// Whether generated code needs `name` (compared without case) for the prelude or a generic
/// parameter (or a local variable: a lower-case letter).
pub(crate) fn is_reserved(name: &str) -> bool {
    let letter = name.len() == 1 && !name.bytes().all(|b| b.is_ascii_uppercase());
    letter || GENERIC_PARAMS.contains(&name) || RESERVED.iter().any(|r| r.eq_ignore_ascii_case(name))
}

/// Hands out names unique within one generated file.
pub(crate) struct Names {
    used: BTreeSet<String>,
}

impl Default for Names {
    fn default() -> Self {
        Names { used: RESERVED.iter().chain(&GENERIC_PARAMS).map(|s| s.to_ascii_lowercase()).collect() }
    }
}

/// Why a model name (`--name`) cannot name the generated type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NameRefused {
    /// It is not a Rust identifier, or it is a raw one.
    NotIdent(String),
    /// Generated code uses it (or a name differing only in case).
    Taken(String),
}

impl std::fmt::Display for NameRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NameRefused::NotIdent(name) => {
                write!(f, "the model name {name:?} is not a Rust identifier (nor may it be a raw one)")
            }
            NameRefused::Taken(name) => write!(
                f,
                "the model name {name:?} is taken: generated code uses it (or a name differing only in case) for the prelude or a generic parameter"
            ),
        }
    }
}

impl Names {
    /// Takes `name` exactly as it is (the first name taken), unless generated code needs it
    /// for something else.
    pub(crate) fn reserve(&mut self, name: &str) -> Result<String, NameRefused> {
        if name.starts_with("r#") || syn::parse_str::<syn::Ident>(name).is_err() {
            return Err(NameRefused::NotIdent(name.to_owned()));
        }
        if !self.used.insert(name.to_ascii_lowercase()) {
            return Err(NameRefused::Taken(name.to_owned()));
        }
        Ok(name.to_owned())
    }

    /// Whether the type name derived from `name` is still free.
    pub(crate) fn is_free(&self, name: &str, fallback: &str) -> bool {
        !self.used.contains(&type_name(name, fallback).to_ascii_lowercase())
    }

    /// A unique type name derived from `name`.
    pub(crate) fn unique(&mut self, name: &str, fallback: &str) -> String {
        let base = type_name(name, fallback);
        let mut s = base.clone();
        let mut n = 2;
        while !self.used.insert(s.to_ascii_lowercase()) {
            s = format!("{base}{n}");
            n += 1;
        }
        s
    }
}

/// An identifier token.
pub(crate) fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_identifiers() {
        assert_eq!(type_name("gru", "Cell"), "Gru");
        assert_eq!(type_name("lstm/cell_1", "Cell"), "LstmCell1");
        assert_eq!(type_name("x\"); panic!(\"", "Cell"), "XPanic");
        assert_eq!(type_name("123", "Cell"), "Cell123");
        assert_eq!(type_name("\"\"", "Cell"), "Cell");
        assert_eq!(type_name("self", "Cell"), "Self_");
        assert_eq!(field_name("GruLayer"), "gru_layer");
        assert_eq!(field_name("Loop"), "loop_");
        let mut n = Names::default();
        assert_eq!(n.unique("gru", "Cell"), "Gru");
        assert_eq!(n.unique("GRU", "Cell"), "GRU2");
        // The prelude and the kernels' generic parameters are never a model's.
        for taken in ["Ok", "err", "Some", "S", "v", "B", "Option"] {
            assert_ne!(n.unique(taken, "Cell").to_ascii_lowercase(), taken.to_ascii_lowercase());
            assert!(n.reserve(taken).is_err(), "{taken}");
        }
        assert!(n.reserve("r#type").is_err() && n.reserve("type").is_err());
        assert_eq!(n.reserve("Vad"), Ok("Vad".to_owned()));
        // A letter no generic parameter takes is a name like another.
        assert_eq!(n.reserve("L"), Ok("L".to_owned()));
        assert!(!is_reserved("L") && is_reserved("I") && is_reserved("x"));
    }

    #[test]
    fn every_letter_the_emitters_give_a_generic_parameter_is_reserved() {
        // `<I: Isa>`, `<const S: usize>`, `::<B, I>`: a letter alone in a list of generic
        // parameters or arguments.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/emit/rust");
        let mut seen = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(&dir).expect("emit/rust reads") {
            let text = std::fs::read_to_string(entry.expect("entry").path()).expect("reads");
            // Code, not comments.
            let code: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
            let code = code.join("\n");
            let b = code.as_bytes();
            for (k, &c) in b.iter().enumerate().skip(1) {
                let before = b[..k].trim_ascii_end();
                let before = before.strip_suffix(b"const").unwrap_or(before).trim_ascii_end();
                let opens = before.ends_with(b"<") || before.ends_with(b",");
                let after = b.get(k + 1).copied().unwrap_or(b' ');
                if c.is_ascii_uppercase() && opens && matches!(after, b':' | b',' | b'>') {
                    seen.insert((c as char).to_string());
                }
            }
        }
        assert!(seen.contains("I") && seen.contains("S"), "the scan finds them: {seen:?}");
        for letter in &seen {
            assert!(is_reserved(letter), "generated code names a generic parameter {letter}, which a model may name");
        }
    }
}
