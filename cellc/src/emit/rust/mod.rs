//! The Rust emitter: a validated model in, one formatted, self-contained Rust source file
//! out. Per cell a type with a `step` on fixed-size arrays and a batched step; per model a
//! type implementing `cellc_runtime::Model`. Code is formatted by prettyplease; weight
//! tables follow it, eight values a line.
mod cell;
mod ctx;
pub(crate) mod dense;
mod exprs;
mod fields;
mod gru;
mod lit;
mod lstm;
mod model;
pub(crate) mod names;
mod planar;
mod product;
mod rnn;
mod seq;
mod split;
mod steps;

use crate::diag::{Diag, Diagnostics};
use crate::emit::plan::Store;
use crate::ir::verify::Verified;
use crate::ir::{Cell, CellKind, Model};
use crate::options::{Options, Simd, Strategy, WeightTables};
use ctx::Ctx;
use model::CellItem;
use names::{Names, ident};

/// Generated Rust: the source, and the bytes of its weight tables when they are written
/// beside it (`--weight-tables`).
#[derive(Debug)]
pub struct Rust {
    /// The Rust source.
    pub source: String,
    /// The bytes the source reads with `include_bytes!` from the file name given to
    /// [`emit_files`], when its tables are written as bytes.
    pub weights: Option<Vec<u8>>,
}

/// Emits Rust source for a validated model, its weight tables as literals: one file, for
/// standard output or a macro. `opts.weight_tables` set to binary is an error here (there
/// is no file to write the bytes to).
pub fn emit(m: &Verified, opts: &Options) -> Result<String, Diagnostics> {
    Ok(emit_files(m, opts, None)?.source)
}

/// Emits Rust for a validated model whose source is written to a file and may read its
/// weight tables from `weights_file` beside it (a file name, as `include_bytes!` reads it
/// relative to the source), as `opts.weight_tables` says: `Auto` writes them as bytes from
/// [`WeightTables::BINARY_FROM`] bytes of tables when there is such a file.
///
/// A model's items live in a module the file opens, named after the model (`vad` for a
/// model type `Vad`), and its public items are re-exported beside it: two generated models
/// included in one module define nothing twice (a cell type both define is ambiguous only
/// where it is named without its module).
pub fn emit_files(m: &Verified, opts: &Options, weights_file: Option<&str>) -> Result<Rust, Diagnostics> {
    if opts.weight_tables == WeightTables::Binary && weights_file.is_none() {
        let msg = "weight tables as bytes (`weight_tables = binary`) are read from a file beside the generated \
                   source, and this code goes to no file (standard output, or a macro's expansion): write it \
                   to a file (`-o`, or a build script's `Builder`), or keep the tables as literals \
                   (`weight_tables = source`)";
        return Err(Diag::new(crate::diag::Code::Conflict, &m.file, None, msg).into());
    }
    let m = &*crate::emit::in_weights_mode(m, opts.weights_mode)?;
    let mut names = Names::default();
    // A name the user chose is kept as it is, so it is taken first; it must be an identifier.
    let chosen = match &opts.name {
        Some(n) => {
            Some(names.reserve(n).map_err(|e| Diag::new(crate::diag::Code::Name, &m.file, None, e.to_string()))?)
        }
        None => None,
    };
    let mut tokens = runtime_check();
    let mut tables = Vec::new();
    let mut items = Vec::new();
    let strategy = opts.strategy.resolve();
    for cell in &m.cells {
        let ty = names.unique(&cell.name, "Cell");
        let store = crate::emit::plan::store(cell, opts.weight_type)
            .map_err(|e| Diag::new(crate::diag::Code::Conflict, &m.file, None, e))?;
        let kopts = (strategy, opts.simd, store, opts.fast_activations, opts.threads.get());
        match &cell.seq {
            None => kernel(cell, &ty, kopts, &mut tokens, &mut tables),
            Some(q) => {
                let mut dirs = Vec::new();
                let mut long = None;
                for d in 0..q.direction.count() {
                    let dc = seq::direction_cell(cell, q, d);
                    let dty = names.unique(&dc.name, "Cell");
                    long = crate::emit::plan::Plan::new(&dc, strategy, store).long_block(Some(q.steps));
                    kernel(&dc, &dty, kopts, &mut tokens, &mut tables);
                    dirs.push((ident(if q.direction.reversed(d) { "reverse" } else { "forward" }), ident(&dty)));
                }
                tokens.extend(seq::wrapper(
                    cell,
                    q,
                    (&ident(&ty), &dirs),
                    &cell_doc(cell, strategy, opts.fast_activations),
                    (opts.simd, long),
                ));
            }
        }
        let runtime_args = crate::emit::plan::runtime_params(cell);
        items.push(CellItem { field: names::field_name(&ty), ty, runtime_args });
    }
    let mut denses = Vec::new();
    for (i, d) in m.denses.iter().enumerate() {
        let ty = names.unique(&d.name, "Dense");
        let plan = crate::emit::dense_plan::DensePlan::of(d, opts.weight_type)
            .map_err(|e| Diag::new(crate::diag::Code::Conflict, &m.file, None, e))?;
        match d.win.as_ref().filter(|_| plan.planar) {
            Some(w) => tokens.extend(planar::item(d, w, &ty, &plan, opts.simd, &mut tables)),
            None => {
                let kernel = (plan.store, crate::emit::dense::wide(m, i), plan.winograd);
                tokens.extend(dense::item(d, &ty, kernel, opts.simd, &mut tables));
            }
        }
        denses.push((ty, plan.work(d)));
    }
    // Otherwise cells are named first, after their layers, and the model after the model's
    // name, with `Model` appended if a cell took it.
    let model_ty = match chosen {
        Some(n) => n,
        None if names.is_free(&m.name, "Model") => names.unique(&m.name, "Model"),
        None => names.unique(&format!("{}Model", names::type_name(&m.name, "")), "Model"),
    };
    tokens.extend(model::items(m, &model_ty, (&items, &denses), &mut names, &mut tables, opts.simd));
    let mut file: syn::File = syn::parse2(unsuffix(tokens)).map_err(|e| {
        Diagnostics::one(Diag::new(
            crate::diag::Code::Internal,
            &m.file,
            None,
            format!("internal error: generated code does not parse: {e}"),
        ))
    })?;
    allow_unused(&mut file);
    let mut out = tidy_dispatch(&prettyplease::unparse(&file));
    let table_bytes = tables.iter().fold(0usize, |n, t| n.saturating_add(t.byte_len()));
    let file = match (opts.weight_tables, weights_file) {
        (WeightTables::Binary, Some(f)) => Some(f),
        (WeightTables::Auto, Some(f)) if table_bytes >= WeightTables::BINARY_FROM => Some(f),
        _ => None,
    };
    let side_file = file.filter(|_| !tables.is_empty());
    let weights = match side_file {
        Some(f) => {
            let (text, bytes) = lit::binary(
                &tables,
                &names::field_name(&names.unique("WeightBytes", "WeightBytes")).to_ascii_uppercase(),
                f,
            );
            out.push('\n');
            out.push_str(&text);
            Some(bytes)
        }
        _ => {
            for t in &tables {
                out.push('\n');
                out.push_str(&t.source());
            }
            None
        }
    };
    let large = crate::emit::large_value_note(m, opts.weight_type, &model_ty);
    let mut source = header(m, side_file, large.as_deref());
    source.push_str(&in_module(&model_ty, &m.name, &out));
    Ok(Rust { source, weights })
}

/// The code `body` of model type `model_ty` (of the model named `model`) inside a module
/// named after it, its public items re-exported beside the module.
fn in_module(model_ty: &str, model: &str, body: &str) -> String {
    let mut module = names::field_name(model_ty);
    if module == model_ty {
        module.push_str("_model");
    }
    let mut out = format!(
        "#[allow(unused_imports, ambiguous_glob_reexports)]\n\
         pub use self::{module}::*;\n\n\
         /// Model {model:?}: its cells, layers and weight tables. Its public items are re-exported\n\
         /// beside this module; name them through it where two models' items share a name.\n\
         // A model's constants are its data: one that equals 1/√2 or π is no approximation.\n\
         #[allow(clippy::module_inception, clippy::approx_constant)]\n\
         pub mod {module} {{\n"
    );
    for line in body.lines() {
        if !line.is_empty() {
            out.push_str("    ");
            out.push_str(line);
        }
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

/// Emits the kernel type `ty` of a cell (one step, one direction) and its weight tables.
fn kernel(
    cell: &Cell,
    ty: &str,
    (strategy, simd, store, fast, threads): (Strategy, Simd, Store, bool, usize),
    tokens: &mut proc_macro2::TokenStream,
    tables: &mut Vec<lit::Table>,
) {
    let mut ctx = Ctx {
        simd,
        fast,
        plan: crate::emit::plan::Plan::new(cell, strategy, store),
        ty: ident(ty),
        prefix: names::field_name(ty).to_ascii_uppercase(),
        spans: Vec::new(),
    };
    ctx.spans = split::spans(&ctx, threads);
    let k = match cell.spec.kind {
        CellKind::Gru { .. } => gru::kernel(&ctx),
        CellKind::Rnn => rnn::kernel(&ctx, ctx.whole()),
        CellKind::Lstm => lstm::kernel(&ctx, ctx.whole()),
    };
    tokens.extend(ctx.items(&k, &cell_doc(cell, strategy, fast)));
    tables.extend(ctx.tables());
}

/// A program uses some of what a generated file defines (a model's `run`, or one cell's
/// `feed`), and the file may be included anywhere (a private `mod`, a binary's root, from
/// `OUT_DIR`), where rustc would warn of every item left unused: each item says it may be.
fn allow_unused(file: &mut syn::File) {
    for item in &mut file.items {
        let attrs = match item {
            syn::Item::Struct(s) => &mut s.attrs,
            syn::Item::Impl(i) if i.trait_.is_none() => &mut i.attrs,
            syn::Item::Const(c) => &mut c.attrs,
            syn::Item::Static(s) => &mut s.attrs,
            syn::Item::Fn(f) => &mut f.attrs,
            syn::Item::Enum(e) => &mut e.attrs,
            syn::Item::Type(t) => &mut t.attrs,
            _ => continue,
        };
        attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    }
}

/// prettyplease prints a macro's tokens as they come (`| L |`, `:: < { … } > (`, broken
/// across lines anywhere); the calls of `dispatch!` are ours, one closure each, so their
/// spacing is put right here: one line, spaced as rustfmt would.
fn tidy_dispatch(code: &str) -> String {
    const OPEN: &str = "::cellc_runtime::__private::dispatch!(";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find(OPEN) {
        let body_start = at + OPEN.len();
        out.push_str(&rest[..body_start]);
        // Only our calls: the text in a comment or a string literal (a model's name) is left
        // alone. Neither spans lines in prettyplease's output, so the line tells.
        let line = &rest[rest[..at].rfind('\n').map_or(0, |i| i + 1)..at];
        if line.contains("//") || line.contains('"') {
            rest = &rest[body_start..];
            continue;
        }
        // The invocation's closing parenthesis: the first at depth zero.
        let mut depth = 0usize;
        let close = rest[body_start..].char_indices().find_map(|(i, c)| {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth == 0 => return Some(i),
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
            None
        });
        let Some(close) = close else { break };
        let body = rest[body_start..body_start + close].split_whitespace().collect::<Vec<_>>().join(" ");
        out.push_str(
            &body
                .replace("| L, isa |", "|L, isa|")
                .replace("| _L, _isa |", "|_L, _isa|")
                .replace(":: < ", "::<")
                .replace("::< ", "::<")
                .replace(" > (", ">(")
                .replace("( ", "(")
                .replace(" )", ")")
                .replace(", )", ")"),
        );
        rest = &rest[body_start + close..];
    }
    out.push_str(rest);
    out
}

/// Drops the `usize` suffix that `quote` gives integers, for readable sizes.
fn unsuffix(ts: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::{Group, Literal, TokenTree};
    ts.into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), unsuffix(g.stream()));
                ng.set_span(g.span());
                TokenTree::Group(ng)
            }
            TokenTree::Literal(l) => match l.to_string().strip_suffix("usize").map(str::parse::<usize>) {
                Some(Ok(n)) => TokenTree::Literal(Literal::usize_unsuffixed(n)),
                _ => TokenTree::Literal(l),
            },
            tt => tt,
        })
        .collect()
}

/// The assertion that the runtime the code builds against runs it (the same release line,
/// no older than this generator): otherwise two compile errors, one naming the runtime the
/// code needs, the other the runtime found.
fn runtime_check() -> proc_macro2::TokenStream {
    let part = |s: &str| s.parse::<u32>().unwrap_or(0);
    let (major, minor, patch) = (
        part(env!("CARGO_PKG_VERSION_MAJOR")),
        part(env!("CARGO_PKG_VERSION_MINOR")),
        part(env!("CARGO_PKG_VERSION_PATCH")),
    );
    let line = if major == 0 { format!("0.{minor}") } else { major.to_string() };
    let msg = format!(
        "this code was generated by cellc {}: it needs cellc-runtime {} or a later {line}.x release (regenerate it with the cellc of your runtime's version)",
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_PKG_VERSION"),
    );
    quote::quote! {
        const _: () = ::core::assert!(::cellc_runtime::runs_code_of(#major, #minor, #patch), #msg);
        const _: () = if !::cellc_runtime::runs_code_of(#major, #minor, #patch) {
            ::core::panic!("{}", ::cellc_runtime::FOUND)
        };
    }
}

/// The file's opening comment: what made it, from what, and what it needs beside it.
fn header(m: &Model, weights_file: Option<&str>, large: Option<&str>) -> String {
    let file =
        std::path::Path::new(&m.file).file_name().map_or_else(|| m.file.clone(), |f| f.to_string_lossy().into_owned());
    let side = match weights_file {
        Some(w) => format!("\n// Reads its weight tables from {w:?} beside this file: keep the two together."),
        None => String::new(),
    };
    let side = match large {
        Some(note) => format!("{side}\n// {note}"),
        None => side,
    };
    format!(
        "// @generated by cellc {} from {:?}. Do not edit: regenerate instead.\n// Requires the crate `cellc-runtime`.{side}\n\n",
        env!("CARGO_PKG_VERSION"),
        file
    )
}

fn cell_doc(c: &Cell, strategy: Strategy, fast: bool) -> String {
    let (op, attributes) = (crate::emit::plan::op_name(c), crate::emit::plan::attributes(&c.spec));
    let acts = if fast { "; fast activations (`cellc_runtime::act::fast`)" } else { "" };
    format!(" {op} {:?}: {attributes}. Kernel: {}{acts}.", c.name, strategy.name())
}
