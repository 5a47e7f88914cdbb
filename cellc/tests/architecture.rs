//! The import rules of docs/ARCHITECTURE.md hold: every file of each top-level part of
//! `cellc/src` refers only to the parts its row of the table lists, and every part has a row.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The table between the markers: part → what it may import.
fn rules() -> BTreeMap<String, BTreeSet<String>> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ARCHITECTURE.md");
    let text = std::fs::read_to_string(&doc).expect("docs/ARCHITECTURE.md");
    let start = text.find("<!-- imports:begin -->").expect("the imports table's start marker");
    let end = text.find("<!-- imports:end -->").expect("the imports table's end marker");
    let mut rules = BTreeMap::new();
    for line in text[start..end].lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [part, allowed] = cells[..] else { panic!("a row of two cells: {line}") };
        if part == "part" || part.starts_with("---") {
            continue;
        }
        let allowed = allowed.split(',').map(str::trim).filter(|a| !a.is_empty()).map(str::to_owned).collect();
        assert!(rules.insert(part.to_owned(), allowed).is_none(), "two rows for `{part}`");
    }
    rules
}

/// The crate root's modules, and the module each name it re-exports comes from.
fn root() -> (BTreeSet<String>, BTreeMap<String, String>) {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs");
    let mut modules = BTreeSet::new();
    let mut reexports = BTreeMap::new();
    for line in lib.lines() {
        let line = line.trim();
        if let Some(m) = line.strip_prefix("pub mod ").or_else(|| line.strip_prefix("mod ")) {
            modules.insert(m.trim_end_matches(';').to_owned());
        }
        if let Some(rest) = line.strip_prefix("pub use ")
            && let Some((module, names)) = rest.split_once("::")
        {
            for name in names.trim_end_matches(';').trim_matches(['{', '}']).split(',') {
                reexports.insert(name.trim().to_owned(), module.to_owned());
            }
        }
    }
    (modules, reexports)
}

/// A file's code without its tests module and without comments.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines().map(|l| l.split_once("//").map_or(l, |(code, _)| code)).collect::<Vec<_>>().join("\n")
}

/// The identifiers a path starting at `at` in `code` names, `crate::` or `super::` removed
/// as far as the module path `module` (a file's modules from the crate root) allows: the
/// top-level item it reaches, or None for a path inside the file's own part.
fn reached(code: &str, module: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let ident = |i: usize| -> String {
        let n = bytes[i..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
        String::from_utf8_lossy(&bytes[i..i + n]).into_owned()
    };
    let mut i = 0;
    while i < bytes.len() {
        let boundary =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':');
        if boundary && bytes[i..].starts_with(b"crate::") {
            out.push(ident(i + "crate::".len()));
            i += "crate::".len();
            continue;
        }
        if boundary && bytes[i..].starts_with(b"super::") {
            let mut depth = 0;
            let mut j = i;
            while bytes[j..].starts_with(b"super::") {
                depth += 1;
                j += "super::".len();
            }
            // `super` from module path [a, b, c] (c the file's own module) is [a, b].
            if depth >= module.len() {
                out.push(ident(j));
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

#[test]
fn every_part_imports_only_what_the_architecture_allows() {
    let rules = rules();
    let (modules, reexports) = root();
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = vec![src()];
    let mut seen = 0;
    while let Some(dir) = files.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                files.push(path);
                continue;
            }
            let rel = path.strip_prefix(src()).expect("under src").to_string_lossy().replace('\\', "/");
            if !rel.ends_with(".rs") || rel == "lib.rs" || rel == "main.rs" {
                continue;
            }
            seen += 1;
            // The file's module path: `ops/pad.rs` is [ops, pad], `ops/mod.rs` is [ops].
            let mut module: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            let part = module[0].clone();
            let text = std::fs::read_to_string(&path).expect("a source file");
            for name in reached(&code(&text), &module) {
                let target = if modules.contains(&name) {
                    name
                } else if let Some(m) = reexports.get(&name) {
                    m.clone()
                } else {
                    "lib".to_owned()
                };
                if target != part {
                    found.entry(part.clone()).or_default().insert(format!("{target} ({rel})"));
                }
            }
            found.entry(part).or_default();
        }
    }
    assert!(seen > 50, "only {seen} files read");
    let mut wrong = Vec::new();
    for (part, imports) in &found {
        let Some(allowed) = rules.get(part) else {
            wrong.push(format!("`{part}` has no row in docs/ARCHITECTURE.md's imports table"));
            continue;
        };
        for i in imports {
            let target = i.split_once(' ').map_or(i.as_str(), |(t, _)| t);
            if !allowed.contains(target) {
                wrong.push(format!("`{part}` imports `{i}`, which its row does not allow"));
            }
        }
    }
    for part in rules.keys() {
        if !found.contains_key(part) {
            wrong.push(format!("docs/ARCHITECTURE.md has a row for `{part}`, which is not a part of cellc/src"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The scanner sees both kinds of path, and `super` only where it leaves the file's part.
#[test]
fn paths_are_read_through_crate_and_super() {
    let module: Vec<String> = ["ops", "pad"].map(String::from).to_vec();
    let code = "use crate::graph::Graph; let x = super::super::ir::Model; super::tensor::f(); foo::crate::x";
    assert_eq!(reached(code, &module), ["graph", "ir"]);
}
