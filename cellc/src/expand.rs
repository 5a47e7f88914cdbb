//! What the procedural macros of `cellc-macros` expand to. They only hand their tokens and
//! the crate's manifest directory to these functions, so the macros, the command line and
//! build scripts share one pipeline, and the expansions can be tested as plain functions.
use crate::door::Door;
use crate::front::decl::{self, Declaration};
use crate::vocab::CellOp;
use proc_macro2::TokenStream;
use quote::quote;
use std::path::{Path, PathBuf};

/// `gru_cell!`, `rnn_cell!` and `lstm_cell!`: the items of the declared cell (see
/// [`declaration`]), preceded by the reads that make cargo rebuild when a weights file
/// changes. Errors become `compile_error!`s at the offending tokens.
pub fn cell(op: CellOp, input: TokenStream, root: &Path) -> TokenStream {
    match declaration(op, input, root) {
        Ok((file, files)) => {
            let track = tracking(&files);
            quote! { #track #file }
        }
        Err(e) => e.to_compile_error(),
    }
}

/// A cell declaration compiled: the generated file, with the declared visibility on every
/// type and the declaration's doc comments on the cell's, and the files it read.
pub fn declaration(op: CellOp, input: TokenStream, root: &Path) -> syn::Result<(syn::File, Vec<PathBuf>)> {
    let d: Declaration = syn::parse2(input)?;
    let lowered = decl::lower(op, &d, root)?;
    let model = decl::check(lowered.graph, &lowered.spans)?;
    let code =
        crate::emit::rust::emit(&model, &lowered.options).map_err(|diags| compile_errors(d.name.span(), diags))?;
    let internal = |what: String| syn::Error::new(d.name.span(), format!("internal error: generated code {what}"));
    let mut file = syn::parse_file(&code).map_err(|e| internal(format!("does not parse: {e}")))?;
    // The items of the module a model's file opens, at the top level: the declaration's
    // visibility goes on them, and every name they define derives from the declared type's.
    let items = std::mem::take(&mut file.items).into_iter().find_map(|item| match item {
        syn::Item::Mod(m) => m.content.map(|(_, items)| items),
        _ => None,
    });
    file.items = items.ok_or_else(|| internal("opens no module".to_owned()))?;
    for item in &mut file.items {
        if let syn::Item::Struct(s) = item {
            s.vis = d.vis.clone();
            if s.ident == d.name && !d.docs.is_empty() {
                // The declaration's own words first, then what cellc says of the cell.
                let generated = std::mem::take(&mut s.attrs);
                s.attrs = d.docs.clone();
                s.attrs.push(syn::parse_quote! { #[doc = ""] });
                s.attrs.extend(generated);
            }
        }
    }
    Ok((file, lowered.files))
}

/// `include_model!("model.xml", KEY = VALUE, …)`: the whole model, as `cellc model.xml
/// --KEY VALUE …` emits it. The path is relative to `root`; diagnostics name it as written.
///
/// Every option of the command line and the builder ([`crate::options::KEYS`]) is a key,
/// with the same name (`_` for the flag's `-`) and the same checks: `input = "x=[1,?,40]"`,
/// `state = "h0=hn"`, `weight_type = "f16"`, `threads = 2`, `fast_activations`. A key that
/// repeats on the command line takes a list too (`input = ["x=[1,8,40]", "h=[1,64]"]`).
/// A macro expands to Rust and writes no file: `lang` is `rust`, and the weight tables are
/// literals (`weight_tables = "binary"` is refused). The model and the weights file must lie inside the crate, unless the call says
/// `allow_outside_crate`.
pub fn include_model(input: TokenStream, root: &Path) -> TokenStream {
    match included(input, root) {
        Ok(items) => items,
        Err(e) => e.to_compile_error(),
    }
}

/// A key of `include_model!` and its values, each with its span.
struct Given {
    key: syn::Ident,
    values: Vec<(String, proc_macro2::Span)>,
    /// Whether the values came as a list (`[…]`).
    list: bool,
}

/// One value: a string, an integer, a boolean.
fn value(s: syn::parse::ParseStream<'_>) -> syn::Result<(String, proc_macro2::Span)> {
    if !s.peek(syn::Lit) {
        return Err(s.error("expected a value: a string (`\"build\"`), an integer or `true`/`false`"));
    }
    let lit: syn::Lit = s.parse()?;
    let text = match &lit {
        syn::Lit::Str(v) => v.value(),
        syn::Lit::Int(v) => v.base10_digits().to_owned(),
        syn::Lit::Bool(v) => v.value.to_string(),
        _ => return Err(syn::Error::new(lit.span(), "expected a string, an integer or `true`/`false`")),
    };
    Ok((text, lit.span()))
}

/// The path and the keys after it.
fn parse_include(s: syn::parse::ParseStream<'_>) -> syn::Result<(syn::LitStr, Vec<Given>)> {
    let lit: syn::LitStr = s.parse()?;
    let mut keys = Vec::new();
    while !s.is_empty() {
        s.parse::<syn::Token![,]>()?;
        if s.is_empty() {
            break;
        }
        let key: syn::Ident = s.parse()?;
        let mut values = Vec::new();
        let mut list = false;
        if s.peek(syn::Token![=]) {
            s.parse::<syn::Token![=]>()?;
            if s.peek(syn::token::Bracket) {
                list = true;
                let list;
                syn::bracketed!(list in s);
                while !list.is_empty() {
                    values.push(value(&list)?);
                    if !list.is_empty() {
                        list.parse::<syn::Token![,]>()?;
                    }
                }
            } else {
                values.push(value(s)?);
            }
        } else {
            // A bare key is a switch turned on.
            values.push(("true".to_owned(), key.span()));
        }
        keys.push(Given { key, values, list });
    }
    Ok((lit, keys))
}

/// The options the keys say, whether files outside the crate are allowed, and the weights
/// file's literal (a path relative to the crate like the model's).
fn include_options(keys: &[Given]) -> syn::Result<(crate::Options, bool, Option<syn::LitStr>)> {
    let mut opts = crate::Options::default();
    let (mut allowed, mut weights) = (false, None);
    let mut seen: Vec<String> = Vec::new();
    for g in keys {
        let name = g.key.to_string();
        if seen.contains(&name) && !crate::options::KEYS.iter().any(|k| k.name == name && k.repeats) {
            return Err(syn::Error::new(g.key.span(), format!("`{name}` is given twice; it takes one value")));
        }
        seen.push(name.clone());
        let spec = crate::options::KEYS.iter().find(|k| k.name == name);
        if (spec.is_none() || spec.is_some_and(|k| !k.repeats)) && (g.list || g.values.len() != 1) {
            return Err(syn::Error::new(g.key.span(), format!("`{name}` takes one value, not a list")));
        }
        for (v, span) in &g.values {
            let err = |msg: String| syn::Error::new(*span, msg);
            match name.as_str() {
                "allow_outside_crate" => {
                    allowed = v.parse().map_err(|_| err("`allow_outside_crate` is `true` or `false`".into()))?;
                }
                "lang" if v != "rust" => {
                    return Err(err(format!(
                        "include_model! expands to Rust; `lang = {v:?}` is for the command line and the builder"
                    )));
                }
                "weight_tables" if v == "binary" => {
                    return Err(err(
                        "include_model! writes no file for the bytes of `weight_tables = \"binary\"`: its tables are \
                         literals; write the code to a file (a build script's `Builder`, or `cellc -o`) for tables \
                         as bytes"
                            .into(),
                    ));
                }
                "weights" => weights = Some(syn::LitStr::new(v, *span)),
                _ if spec.is_none() => {
                    let all: Vec<&str> = crate::options::KEYS.iter().map(|k| k.name).collect();
                    return Err(syn::Error::new(
                        g.key.span(),
                        format!(
                            "unknown key `{name}`{}; expected one of {}, allow_outside_crate",
                            crate::diag::suggestion(&name, all.iter().copied().chain(["allow_outside_crate"])),
                            all.join(", ")
                        ),
                    ));
                }
                _ => opts.set(&name, v).map_err(|e| err(e.to_string()))?,
            }
        }
    }
    Ok((opts, allowed, weights))
}

fn included(input: TokenStream, root: &Path) -> syn::Result<TokenStream> {
    let (lit, keys) = syn::parse::Parser::parse2(parse_include, input)?;
    let (mut opts, allowed, weights) = include_options(&keys)?;
    let path = crate::front::files::inside_crate(root, &lit, allowed)?;
    let mut files = vec![path.clone()];
    match &weights {
        Some(w) => {
            let w = crate::front::files::inside_crate(root, w, allowed)?;
            files.push(w.clone());
            opts.weights = Some(w);
        }
        None => files.extend(crate::front::side_files(&path, None)),
    }
    let fail = |msg: String| syn::Error::new(lit.span(), msg);
    let code = crate::pipeline::compile_file(&path, &opts).map_err(|mut diags| {
        // Name the files as the user wrote them, not as absolute paths.
        let mut written = vec![(path.display().to_string(), lit.value())];
        if let (Some(w), Some(lit)) = (&opts.weights, &weights) {
            written.push((w.display().to_string(), lit.value()));
        }
        for d in &mut diags.0 {
            for (full, written) in &written {
                if let Some(rest) = d.file.strip_prefix(full.as_str()) {
                    d.file = format!("{written}{rest}");
                }
                d.message = d.message.replace(full.as_str(), written);
            }
        }
        // A problem with a key's value is at that value; the others at the model's path.
        let at = |d: &crate::Diag| d.subject.as_deref().and_then(|s| span_of(&keys, s)).unwrap_or_else(|| lit.span());
        let spans: Vec<proc_macro2::Span> = diags.0.iter().map(at).collect();
        compile_errors_at(&spans, lit.span(), diags)
    })?;
    let items: TokenStream =
        code.parse().map_err(|e| fail(format!("internal error: generated code does not tokenize: {e}")))?;
    let track = tracking(&files);
    Ok(quote! { #track #items })
}

/// One compile error a problem, each at `span`, each saying where in the model it is (the
/// compiler says "error" itself), with the macro's advice (`input = "…"`).
fn compile_errors(span: proc_macro2::Span, diags: crate::Diagnostics) -> syn::Error {
    compile_errors_at(&[], span, diags)
}

/// [`compile_errors`], problem `k` at `spans[k]` where there is one, else at `span`.
fn compile_errors_at(spans: &[proc_macro2::Span], span: proc_macro2::Span, diags: crate::Diagnostics) -> syn::Error {
    let diags = Door::Macro.diagnostics(diags).0;
    let mut errors =
        diags.into_iter().enumerate().map(|(k, d)| syn::Error::new(spans.get(k).copied().unwrap_or(span), d.located()));
    let mut all = errors.next().unwrap_or_else(|| syn::Error::new(span, "the model was refused"));
    for e in errors {
        all.combine(e);
    }
    all
}

/// The span of the value of `keys` that `setting` names (the key's, when no value is the
/// same text), if the macro was given that key.
fn span_of(keys: &[Given], setting: &crate::diag::Setting) -> Option<proc_macro2::Span> {
    let given: Vec<&Given> = keys.iter().filter(|g| g.key == setting.key).collect();
    let same = |v: &str| setting.value.as_deref().is_some_and(|s| s.trim_matches('"') == v.replace(' ', ""));
    let value = given.iter().flat_map(|g| &g.values).find(|(v, _)| same(v)).map(|(_, span)| *span);
    value.or_else(|| given.first().map(|g| g.key.span()))
}

/// Reading a file through `include_bytes!` makes cargo rebuild the crate when it changes;
/// the bytes themselves are unused and do not reach the binary.
fn tracking(files: &[PathBuf]) -> TokenStream {
    files
        .iter()
        .map(|f| {
            let f = f.display().to_string();
            quote! { const _: &[u8] = include_bytes!(#f); }
        })
        .collect()
}
