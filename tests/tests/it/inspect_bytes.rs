//! `cellc inspect` says what the generated code holds: for every committed fixture and
//! model, the bytes of weights and constants it reports equal the bytes of the tables the
//! generated Rust and C declare, and the scratch it reports the model value's work arrays.
use cellc::{Language, Options};
use cellc_conformance::case::Case;
use std::path::Path;

/// The bytes of one value of a table's element type, as the generated code names it.
fn elem_bytes(ty: &str) -> usize {
    match ty {
        "f32" | "u32" | "i32" | "float" | "uint32_t" | "int32_t" => 4,
        "u16" | "uint16_t" => 2,
        "u8" | "uint8_t" => 1,
        other => panic!("a table of {other}"),
    }
}

/// The bytes of the tables a generated Rust file declares (`static NAME:
/// ::cellc_runtime::Aligned<[TY; N]>`).
fn rust_table_bytes(src: &str) -> usize {
    src.lines()
        .filter(|l| l.trim_start().starts_with("static "))
        .filter_map(|l| l.split_once("::cellc_runtime::Aligned<[").map(|(_, rest)| rest))
        .filter_map(|rest| {
            let (ty, n) = rest.split_once("; ")?;
            let n: usize = n.split(']').next()?.parse().ok()?;
            Some(n * elem_bytes(ty))
        })
        .sum()
}

/// The bytes of the model's tables a generated C file declares (`static const TY NAME[N]`;
/// the zeros a window's helper reads in the padding, `…_zeros`, are not the model's).
fn c_table_bytes(src: &str) -> usize {
    src.lines()
        .filter_map(|l| l.split_once("static const ").map(|(_, rest)| rest))
        .filter_map(|rest| {
            let (ty, rest) = rest.split_once(' ')?;
            let (name, n) = rest.split_once('[')?;
            // A sequence's row lengths (`size_t`) are its shape, not a table of values.
            if name.ends_with("_zeros") || ty == "size_t" {
                return None;
            }
            // Every dimension (`pairs[10][2]`), up to the initialiser.
            let dims = n.split('=').next()?;
            let n: usize = dims
                .split(['[', ']'])
                .filter(|d| !d.trim().is_empty())
                .map(|d| d.trim().parse::<usize>().ok())
                .product::<Option<usize>>()?;
            Some(n * elem_bytes(ty))
        })
        .sum()
}

/// The bytes of the scratch arrays a model value declares: its buffers (`slotK`) and its
/// work area (`work`), `NAME: ::cellc_runtime::Aligned<[f32; N]>` in the Rust (each on a
/// cache line of its own), `float NAME[N];` in the C's header.
fn scratch_bytes(src: &str, lang: Language) -> usize {
    src.lines()
        .map(str::trim)
        .filter_map(|l| match lang {
            Language::Rust => {
                let (name, rest) = l.split_once(": ::cellc_runtime::Aligned<[f32; ")?;
                let n = rest.strip_suffix("]>,")?;
                (name.starts_with("slot") || name.starts_with("work")).then_some(n)
            }
            Language::C => {
                let rest = l.strip_prefix("float slot").or_else(|| l.strip_prefix("float work_"))?;
                rest.split_once('[')?.1.strip_suffix("];")
            }
        })
        .map(|n| n.parse::<usize>().expect("a length") * 4)
        .sum()
}

#[test]
#[ignore = "long: compiles every fixture and model in both languages; .ci/run runs it"]
fn inspect_reports_the_bytes_the_generated_code_holds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    let mut checked = 0;
    for dir in ["fixtures", "models"] {
        for case_dir in Case::discover(&root.join(dir)).expect("cases") {
            for case in Case::variants(&case_dir).expect("case") {
                for lang in [Language::Rust, Language::C] {
                    // The tables as literals, each declared once (not as views of one block).
                    let opts = Options::default()
                        .language(lang)
                        .weight_tables(cellc::WeightTables::Source)
                        .input_shapes(case.pins.clone())
                        .cut_inputs(case.cut.0.clone())
                        .cut_outputs(case.cut.1.clone());
                    let report = cellc::inspect::inspect(&case.model, &opts).expect("inspected");
                    let Some(c) = report.compiled else { continue };
                    let tmp = tempfile::tempdir().expect("a folder");
                    let out = tmp.path().join(if lang == Language::C { "net.c" } else { "net.rs" });
                    let files = cellc::compile_to(&case.model, &opts, &out).expect("compiles");
                    let text = |ext: &str| {
                        files
                            .iter()
                            .find(|(p, _)| p.extension().is_some_and(|e| e == ext))
                            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
                            .unwrap_or_default()
                    };
                    let held = match lang {
                        Language::Rust => rust_table_bytes(&text("rs")),
                        Language::C => c_table_bytes(&text("c")),
                    };
                    let said = c.embedded_weight_bytes + c.constant_bytes;
                    let scratch = match lang {
                        Language::Rust => scratch_bytes(&text("rs"), lang),
                        Language::C => scratch_bytes(&text("h"), lang),
                    };
                    if scratch != c.scratch_bytes {
                        problems.push(format!(
                            "{} [{}]: inspect says {} bytes of scratch, the model value holds {scratch}",
                            case.name,
                            lang.name(),
                            c.scratch_bytes
                        ));
                    }
                    if held != said {
                        problems.push(format!(
                            "{} [{}]: inspect says {said} bytes of tables ({} of weights, {} of constants), the code holds {held}",
                            case.name,
                            lang.name(),
                            c.embedded_weight_bytes,
                            c.constant_bytes
                        ));
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} compiled");
    assert!(problems.is_empty(), "{} of {checked}:\n{}", problems.len(), problems.join("\n"));
}
