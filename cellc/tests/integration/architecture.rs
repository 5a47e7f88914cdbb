//! The import rules of docs/ARCHITECTURE.md hold: every file of each top-level part of
//! `cellc/src` refers only to the parts its row of the imports table lists, every part has
//! a row, and the only import cycles between files are those the document lists.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn architecture() -> String {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ARCHITECTURE.md");
    std::fs::read_to_string(doc).expect("docs/ARCHITECTURE.md")
}

/// The text between `<!-- NAME:begin -->` and `<!-- NAME:end -->`.
fn block<'a>(text: &'a str, name: &str) -> &'a str {
    let start = text.find(&format!("<!-- {name}:begin -->")).expect("the block's start marker");
    let end = text.find(&format!("<!-- {name}:end -->")).expect("the block's end marker");
    &text[start..end]
}

/// The imports table: part → what it may import.
fn rules() -> BTreeMap<String, BTreeSet<String>> {
    let text = architecture();
    let mut rules = BTreeMap::new();
    for line in block(&text, "imports").lines().filter(|l| l.starts_with('|')) {
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

/// The files the document lists as in import cycles today (`- path` lines of the block).
fn known_cycles() -> BTreeSet<String> {
    let text = architecture();
    block(&text, "cycles")
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- `"))
        .map(|l| l.trim_end_matches('`').to_owned())
        .collect()
}

/// The source files of `cellc/src` but the crate roots, by path relative to it. A generated
/// file (the ONNX schema's types, `@generated` in its first line) refers only to itself, from
/// modules inside it, whose `super::` the scanner below would read as the file's parent: it
/// is checked to name nothing of cellc, and kept as a file that imports nothing.
fn sources() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![src()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let rel = path.strip_prefix(src()).expect("under src").to_string_lossy().replace('\\', "/");
            if rel.ends_with(".rs") && rel != "main.rs" {
                let code = std::fs::read_to_string(&path).expect("a source file");
                if code.lines().next().is_some_and(|l| l.contains("@generated")) {
                    assert!(!code.contains("crate::"), "{rel} is generated and names cellc");
                    out.insert(rel, String::new());
                    continue;
                }
                out.insert(rel, code);
            }
        }
    }
    out
}

/// A file's module path: `ops/pad.rs` is [ops, pad], `ops/mod.rs` is [ops], `lib.rs` [].
fn module_of(rel: &str) -> Vec<String> {
    let mut m: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
    if m.last().is_some_and(|s| s == "mod" || s == "lib") {
        m.pop();
    }
    m
}

/// A file's code without its tests module and without comments.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines().map(|l| l.split_once("//").map_or(l, |(code, _)| code)).collect::<Vec<_>>().join("\n")
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The identifiers of a path's segments from `at`: `a::b::C` → [a, b, C].
fn segments(bytes: &[u8], mut at: usize) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        let n = bytes[at..].iter().take_while(|b| is_ident(**b)).count();
        if n == 0 {
            break;
        }
        out.push(String::from_utf8_lossy(&bytes[at..at + n]).into_owned());
        at += n;
        if !bytes[at..].starts_with(b"::") {
            break;
        }
        at += 2;
    }
    out
}

/// The paths from the crate's root that `crate::…` and `super::…` paths of a file in module
/// `module` name, a group `{a::X, b}` giving one path per item (its leading segments).
fn paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == b':' || bytes[i - 1] == b'$');
        let base = if !boundary {
            None
        } else if bytes[i..].starts_with(b"crate::") {
            i += "crate::".len();
            Some(Vec::new())
        } else if bytes[i..].starts_with(b"super::") {
            let mut depth = 0;
            while bytes[i..].starts_with(b"super::") {
                depth += 1;
                i += "super::".len();
            }
            module.len().checked_sub(depth).map(|keep| module[..keep].to_vec())
        } else {
            None
        };
        let Some(base) = base else {
            i += 1;
            continue;
        };
        if bytes.get(i) == Some(&b'{') {
            // One level of a group: each item's path up to a nested group.
            let end = i + bytes[i..].iter().position(|&b| b == b'}').unwrap_or(bytes.len() - i);
            let mut at = i + 1;
            for item in code[i + 1..end].split(',') {
                let lead = item.len() - item.trim_start().len();
                let segs = segments(bytes, at + lead);
                if !segs.is_empty() && segs[0] != "self" {
                    out.push([base.clone(), segs].concat());
                }
                at += item.len() + 1;
            }
            i = end;
        } else {
            out.push([base, segments(bytes, i)].concat());
        }
    }
    out
}

/// The crate root's modules, and the module each name it re-exports comes from.
fn root(lib: &str) -> (BTreeSet<String>, BTreeMap<String, String>) {
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

/// The file of the deepest module a path from the root names.
fn file_of(segs: &[String], files: &BTreeMap<String, String>) -> String {
    let mut best = "lib.rs".to_owned();
    for k in 1..=segs.len() {
        let stem = segs[..k].join("/");
        if files.contains_key(&format!("{stem}.rs")) {
            best = format!("{stem}.rs");
        } else if files.contains_key(&format!("{stem}/mod.rs")) {
            best = format!("{stem}/mod.rs");
        } else {
            break;
        }
    }
    best
}

/// Every file's imports: the files its paths reach (a name the root re-exports reaching
/// the module it comes from), and its own child modules that it names.
fn file_imports(files: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let (_, reexports) = root(&files["lib.rs"]);
    let mut edges = BTreeMap::new();
    for (rel, text) in files {
        let module = module_of(rel);
        let code = code(text);
        let mut to = BTreeSet::new();
        for mut segs in paths(&code, &module) {
            if segs.len() == 1
                && let Some(m) = reexports.get(&segs[0])
            {
                segs.insert(0, m.clone());
            }
            to.insert(file_of(&segs, files));
        }
        // A parent naming a child module (`cell::items(…)`, `use cell::Ctx`).
        for line in text.lines() {
            let line = line.trim();
            let decl = line.strip_prefix("pub mod ").or_else(|| line.strip_prefix("mod "));
            let decl = decl.or_else(|| line.strip_prefix("pub(crate) mod "));
            let Some(child) = decl.and_then(|d| d.strip_suffix(';')) else { continue };
            let named = code
                .match_indices(&format!("{child}::"))
                .any(|(i, _)| i == 0 || !(is_ident(code.as_bytes()[i - 1]) || code.as_bytes()[i - 1] == b':'));
            if named {
                to.insert(file_of(&[module.clone(), vec![child.to_owned()]].concat(), files));
            }
        }
        to.remove(rel);
        edges.insert(rel.clone(), to);
    }
    edges
}

#[test]
fn every_part_imports_only_what_the_architecture_allows() {
    let rules = rules();
    let files = sources();
    assert!(files.len() > 50, "only {} files read", files.len());
    let (modules, reexports) = root(&files["lib.rs"]);
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in files.iter().filter(|(rel, _)| *rel != "lib.rs") {
        let module = module_of(rel);
        let part = module[0].clone();
        for segs in paths(&code(text), &module) {
            let name = &segs[0];
            let target = if modules.contains(name) {
                name.clone()
            } else if let Some(m) = reexports.get(name) {
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

/// The files in a cycle of imports with another file (strongly connected components of
/// more than one file), found by iterated reachability: a file is in one when a file it
/// imports reaches it back.
fn in_cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&String> = edges[from].iter().collect();
        while let Some(f) = todo.pop() {
            if seen.insert(f.clone())
                && let Some(next) = edges.get(f)
            {
                todo.extend(next);
            }
        }
        seen
    };
    edges.keys().filter(|f| reach(f).contains(*f)).cloned().collect()
}

#[test]
fn the_only_import_cycles_are_the_known_ones() {
    let files = sources();
    let cycles = in_cycles(&file_imports(&files));
    let known = known_cycles();
    let new: Vec<&String> = cycles.difference(&known).collect();
    assert!(new.is_empty(), "files in an import cycle that docs/ARCHITECTURE.md does not list: {new:?}");
    let gone: Vec<&String> = known.difference(&cycles).collect();
    assert!(gone.is_empty(), "files docs/ARCHITECTURE.md lists in a cycle that are no longer in one: {gone:?}");
}

/// The scanner sees both kinds of path and groups, `super` only where it leaves the file's
/// part, and cycles only where there is one.
#[test]
fn paths_and_cycles_are_read_as_written() {
    let module: Vec<String> = ["ops", "pad"].map(String::from).to_vec();
    let code = "use crate::graph::Graph; let x = super::super::ir::Model; super::tensor::f(); foo::crate::x;\n\
                use crate::{check, emit::plan::Store};";
    let got: Vec<String> = paths(code, &module).iter().map(|p| p.join("::")).collect();
    assert_eq!(got, ["graph::Graph", "ir::Model", "ops::tensor::f", "check", "emit::plan::Store"]);
    let edges: BTreeMap<String, BTreeSet<String>> = [("a", &["b"][..]), ("b", &["c"]), ("c", &["b"]), ("d", &["a"])]
        .into_iter()
        .map(|(f, to)| (f.to_owned(), to.iter().map(|t| (*t).to_owned()).collect()))
        .collect();
    assert_eq!(in_cycles(&edges), ["b", "c"].map(String::from).into_iter().collect());
}
