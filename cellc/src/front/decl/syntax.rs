//! A declaration's syntax: `#[doc]`s, visibility, `struct Name<key = value, …>;`, parsed
//! with syn; its keys, each given once; typed readers of their values; errors collected;
//! and the tokens diagnostics point at.
use crate::diag::Pos;
use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Token};

/// A parsed declaration: `#[doc]`s, visibility, `struct Name<key = value, …>;`.
pub struct Declaration {
    /// Its doc comments.
    pub docs: Vec<syn::Attribute>,
    /// Its visibility, given to every generated type.
    pub vis: syn::Visibility,
    /// The cell type's name.
    pub name: Ident,
    entries: Vec<Entry>,
}

pub(super) struct Entry {
    pub(super) key: Ident,
    pub(super) value: Value,
}

/// A value as written; typed when its key is interpreted.
pub(super) enum Value {
    Int(syn::LitInt, bool),
    Float(syn::LitFloat, bool),
    Bool(syn::LitBool),
    Str(LitStr),
    Ident(Ident),
    List(Vec<Call>, Span),
}

/// One element of a list: `name` or `name(key = value, …)`.
pub(super) struct Call {
    pub(super) name: Ident,
    pub(super) args: Vec<Entry>,
}

impl Value {
    pub(super) fn span(&self) -> Span {
        match self {
            Value::Int(l, _) => l.span(),
            Value::Float(l, _) => l.span(),
            Value::Bool(l) => l.span,
            Value::Str(l) => l.span(),
            Value::Ident(i) => i.span(),
            Value::List(_, s) => *s,
        }
    }

    pub(super) fn kind(&self) -> &'static str {
        match self {
            Value::Int(..) => "an integer",
            Value::Float(..) => "a number",
            Value::Bool(_) => "a boolean",
            Value::Str(_) => "a string",
            Value::Ident(_) => "a name",
            Value::List(..) => "a list",
        }
    }
}

impl Parse for Value {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let negative = input.peek(Token![-]);
        if negative {
            input.parse::<Token![-]>()?;
        }
        let la = input.lookahead1();
        if la.peek(syn::LitInt) {
            Ok(Value::Int(input.parse()?, negative))
        } else if la.peek(syn::LitFloat) {
            Ok(Value::Float(input.parse()?, negative))
        } else if negative {
            Err(la.error())
        } else if la.peek(syn::LitBool) {
            Ok(Value::Bool(input.parse()?))
        } else if la.peek(LitStr) {
            Ok(Value::Str(input.parse()?))
        } else if la.peek(Ident) {
            Ok(Value::Ident(input.parse()?))
        } else if la.peek(syn::token::Bracket) {
            let content;
            let bracket = syn::bracketed!(content in input);
            let calls = content.parse_terminated(Call::parse, Token![,])?;
            Ok(Value::List(calls.into_iter().collect(), bracket.span.join()))
        } else {
            Err(la.error())
        }
    }
}

impl Parse for Call {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        let mut args = Vec::new();
        if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            while !content.is_empty() {
                args.push(Entry::parse(&content)?);
                if content.is_empty() {
                    break;
                }
                content.parse::<Token![,]>()?;
            }
        }
        Ok(Call { name, args })
    }
}

impl Parse for Entry {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        Ok(Entry { key, value: input.parse()? })
    }
}

impl Parse for Declaration {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        if let Some(a) = attrs.iter().find(|a| !a.path().is_ident("doc")) {
            return Err(syn::Error::new(a.span(), "only doc comments may be written on a cell declaration"));
        }
        let vis = input.parse()?;
        input.parse::<Token![struct]>()?;
        let name: Ident = input.parse()?;
        input.parse::<Token![<]>()?;
        let mut entries = Vec::new();
        while !input.peek(Token![>]) {
            entries.push(input.parse()?);
            if input.peek(Token![>]) {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        input.parse::<Token![>]>()?;
        input.parse::<Token![;]>()?;
        if !input.is_empty() {
            return Err(input.error("expected one cell declaration; write each in its own macro call"));
        }
        Ok(Declaration { docs: attrs, vis, name, entries })
    }
}

/// The keys a declaration may give.
pub const KEYS: &[&str] = &[
    "input_size",
    "hidden_size",
    "activations",
    "clip",
    "linear_before_reset",
    "layout",
    "direction",
    "steps",
    "batch",
    "bias",
    "weights",
    "layer",
    "strategy",
    "simd",
    "weight_type",
    "fast_activations",
    "threads",
    "allow_outside_crate",
];

/// Collects errors instead of stopping at the first.
#[derive(Default)]
pub(super) struct Errors(pub(super) Option<syn::Error>);

impl Errors {
    pub(super) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub(super) fn at(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.push(syn::Error::new(span, msg));
    }

    /// The value, or `None` with its error kept.
    pub(super) fn ok<T>(&mut self, r: syn::Result<T>) -> Option<T> {
        r.map_err(|e| self.push(e)).ok()
    }
}

/// The entries of a declaration by key, once each.
pub(super) struct Keys<'a> {
    entries: Vec<&'a Entry>,
}

impl<'a> Keys<'a> {
    pub(super) fn new(d: &'a Declaration, errors: &mut Errors) -> Self {
        let mut entries: Vec<&Entry> = Vec::new();
        for e in &d.entries {
            let key = e.key.to_string();
            if !KEYS.contains(&key.as_str()) {
                let hint = crate::diag::suggestion(&key, KEYS.iter().copied());
                errors.at(e.key.span(), format!("unknown key `{key}`{hint}; expected one of {}", KEYS.join(", ")));
            } else if entries.iter().any(|f| f.key == e.key) {
                errors.at(e.key.span(), format!("`{key}` is given twice"));
            } else {
                entries.push(e);
            }
        }
        Keys { entries }
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a Entry> {
        self.entries.iter().copied().find(|e| e.key == key)
    }
}

pub(super) fn wrong_type(e: &Entry, want: &str) -> syn::Error {
    syn::Error::new(e.value.span(), format!("`{}` takes {want}; found {}", e.key, e.value.kind()))
}

/// A positive integer of at most `max`.
pub(super) fn positive(e: &Entry, max: u64) -> syn::Result<u64> {
    match &e.value {
        Value::Int(l, false) => match l.base10_parse::<u64>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(syn::Error::new(l.span(), format!("`{}` is {l}; expected 1 to {max}", e.key))),
        },
        _ => Err(wrong_type(e, "a positive integer")),
    }
}

pub(super) fn number(e: &Entry) -> syn::Result<f32> {
    let (v, neg) = match &e.value {
        Value::Int(l, neg) => (l.base10_parse::<f32>()?, *neg),
        Value::Float(l, neg) => (l.base10_parse::<f32>()?, *neg),
        _ => return Err(wrong_type(e, "a number")),
    };
    Ok(if neg { -v } else { v })
}

pub(super) fn boolean(e: &Entry) -> syn::Result<bool> {
    match &e.value {
        Value::Bool(b) => Ok(b.value),
        _ => Err(wrong_type(e, "`true` or `false`")),
    }
}

pub(super) fn name(e: &Entry, choices: &[&str]) -> syn::Result<Ident> {
    match &e.value {
        Value::Ident(i) => Ok(i.clone()),
        _ => Err(wrong_type(e, &format!("one of {}", choices.join(", ")))),
    }
}

/// The value of a key that names one of `choices`, read by `parse`.
pub(super) fn choice<T>(e: &Entry, choices: &[&str], parse: impl Fn(&str) -> Option<T>) -> syn::Result<T> {
    let i = name(e, choices)?;
    parse(&i.to_string()).ok_or_else(|| {
        let hint = crate::diag::suggestion(&i.to_string(), choices.iter().copied());
        syn::Error::new(i.span(), format!("unknown {} `{i}`{hint}; expected one of {}", e.key, choices.join(", ")))
    })
}

pub(super) fn string(e: &Entry) -> syn::Result<LitStr> {
    match &e.value {
        Value::Str(s) => Ok(s.clone()),
        _ => Err(wrong_type(e, "a path in a string")),
    }
}

/// The tokens diagnostics point at: [`Pos::Token`] `k` is the `k`-th; the first is the
/// struct's name.
pub(super) struct Spans(pub(super) Vec<Span>);

impl Spans {
    /// The position of `span`, recorded.
    pub(super) fn at(&mut self, span: Span) -> Pos {
        self.0.push(span);
        Pos::Token(u32::try_from(self.0.len() - 1).unwrap_or(u32::MAX))
    }
}
