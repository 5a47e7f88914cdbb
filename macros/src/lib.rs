//! Procedural macros of cellc. They only translate tokens to and from the `cellc` library,
//! which does all the work; the same pipeline serves the command line and build scripts.
//! Use them through `cellc-runtime`, which re-exports them.
use proc_macro::TokenStream;
use std::path::PathBuf;

/// Compiles an OpenVINO IR model (`model.xml` with `model.bin` beside it) at build time,
/// exactly as `cellc model.xml` would, and expands to the generated items. The path is
/// relative to the crate's manifest directory; editing the model or its weights rebuilds
/// the crate. A model cellc cannot compile is a compile error at the path, carrying
/// cellc's diagnostics.
///
/// ```ignore
/// cellc_runtime::include_model!("models/vad.xml");
/// ```
#[proc_macro]
pub fn include_model(input: TokenStream) -> TokenStream {
    let lit: syn::LitStr = match syn::parse2(input.into()) {
        Ok(lit) => lit,
        Err(e) => return e.to_compile_error().into(),
    };
    let root = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(PathBuf::new, PathBuf::from);
    let path = root.join(lit.value());
    let fail = |msg: String| syn::Error::new(lit.span(), msg).to_compile_error().into();
    let code = match cellc::compile_file(&path, &cellc::Options::default()) {
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
    let items: proc_macro2::TokenStream = match code.parse() {
        Ok(items) => items,
        Err(e) => return fail(format!("internal error: generated code does not tokenize: {e}")),
    };
    // Reading the files through include_bytes! makes cargo rebuild when they change; the
    // bytes themselves are unused and do not reach the binary.
    let (xml, bin) = (path.display().to_string(), path.with_extension("bin").display().to_string());
    let track_bin =
        path.with_extension("bin").exists().then(|| quote::quote! { const _: &[u8] = include_bytes!(#bin); });
    quote::quote! {
        const _: &[u8] = include_bytes!(#xml);
        #track_bin
        #items
    }
    .into()
}
