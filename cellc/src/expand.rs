//! What the procedural macros of `cellc-macros` expand to. They only hand their tokens and
//! the crate's manifest directory to these functions, so the macros, the command line and
//! build scripts share one pipeline, and the expansions can be tested as plain functions.
use crate::front::decl::{self, Declaration};
use crate::ir::raw::CellOp;
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
    let model = decl::check(&lowered.model, &lowered.spans)?;
    let code = crate::emit::rust::emit(&model, &lowered.options)
        .map_err(|diags| syn::Error::new(d.name.span(), diags.to_string()))?;
    let mut file = syn::parse_file(&code)
        .map_err(|e| syn::Error::new(d.name.span(), format!("internal error: generated code does not parse: {e}")))?;
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

/// `include_model!("model.xml")`: the whole IR model, as `cellc model.xml` emits it. The
/// path is relative to `root`; diagnostics name it as written.
///
/// The model must lie inside the crate, unless the call says `allow_outside_crate` after
/// the path.
pub fn include_model(input: TokenStream, root: &Path) -> TokenStream {
    let parse = |s: syn::parse::ParseStream<'_>| -> syn::Result<(syn::LitStr, bool)> {
        let lit: syn::LitStr = s.parse()?;
        if s.is_empty() {
            return Ok((lit, false));
        }
        s.parse::<syn::Token![,]>()?;
        let key: syn::Ident = s.parse()?;
        if key != "allow_outside_crate" || !s.is_empty() {
            return Err(syn::Error::new(key.span(), "expected `allow_outside_crate` after the model's path"));
        }
        Ok((lit, true))
    };
    let (lit, allowed) = match syn::parse::Parser::parse2(parse, input) {
        Ok(parsed) => parsed,
        Err(e) => return e.to_compile_error(),
    };
    let path = match crate::front::files::inside_crate(root, &lit, allowed) {
        Ok(path) => path,
        Err(e) => return e.to_compile_error(),
    };
    let fail = |msg: String| syn::Error::new(lit.span(), msg).to_compile_error();
    let code = match crate::compile_file(&path, &crate::Options::default()) {
        Ok(code) => code,
        Err(mut diags) => {
            // Name the file as the user wrote it, not as an absolute path.
            let (full, written) = (path.display().to_string(), lit.value());
            for d in &mut diags.0 {
                if let Some(rest) = d.file.strip_prefix(&full) {
                    d.file = format!("{written}{rest}");
                }
                d.message = d.message.replace(&full, &written);
            }
            return fail(diags.to_string());
        }
    };
    let items: TokenStream = match code.parse() {
        Ok(items) => items,
        Err(e) => return fail(format!("internal error: generated code does not tokenize: {e}")),
    };
    let bin = path.with_extension("bin");
    let files: Vec<PathBuf> = std::iter::once(path).chain(bin.exists().then_some(bin)).collect();
    let track = tracking(&files);
    quote! { #track #items }
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
