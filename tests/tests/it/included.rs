//! Generated code builds without a warning (`-D warnings`) in a user's crate however it is
//! included and however little of it the program uses: in a private `mod`, at a binary's
//! root, from a build script's `OUT_DIR`, and as public modules of a library that denies
//! `missing_docs`; and three models side by side in one module, as a pipeline of models
//! (a front end, an embedding, a classifier) includes them. The models cover every kind of item cellc writes: a cell and a model, a
//! stateful sequence, a dense head, a bidirectional LSTM, weights given at run time, the
//! unrolled kernel, 16-bit weights, convolutions and pools read in place.
use cellc::{Options, Strategy, WeightType, WeightsMode};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The generated files: (module name, source).
fn sources() -> Vec<(String, String)> {
    let gru = root().join("examples/gru/model.xml");
    let model = |dir: &str| root().join("tests/models").join(dir).join("model.xml");
    let cases = [
        (gru.clone(), Options::default()),
        (gru.clone(), Options::default().weights_mode(WeightsMode::Runtime)),
        (gru, Options::default().strategy(Strategy::Unrolled).weight_type(WeightType::Bf16)),
        (model("ov_gru_stateful"), Options::default()),
        (model("pt_gru_frame_heads"), Options::default()),
        (model("pt_lstm_bidirectional"), Options::default()),
        (model("ov_convolutions"), Options::default()),
    ];
    cases
        .iter()
        .enumerate()
        .map(|(k, (path, opts))| {
            let code = cellc::compile_file(path, opts).unwrap_or_else(|d| panic!("{}: {d}", path.display()));
            (format!("net{k}"), code)
        })
        .collect()
}

/// Three whole models named as their files would name them, for one module: (file stem,
/// source). Two of them have a cell of the same name (`Gru0`).
fn side_by_side() -> Vec<(&'static str, String)> {
    let model = |dir: &str| root().join("tests/models").join(dir).join("model.xml");
    let models = [
        ("stateful", "Stateful", "ov_gru_stateful"),
        ("heads", "Heads", "pt_gru_frame_heads"),
        ("bidirectional", "Bidirectional", "pt_lstm_bidirectional"),
    ];
    models
        .into_iter()
        .map(|(name, ty, dir)| {
            let opts = Options::default().name(Some(ty.to_owned()));
            let code = cellc::compile_file(&model(dir), &opts).unwrap_or_else(|d| panic!("{dir}: {d}"));
            (name, code)
        })
        .collect()
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create a directory of the scratch crate");
    }
    // Unchanged files keep their times, so a second run rebuilds only what changed.
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).expect("write a file of the scratch crate");
    }
}

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn generated_code_is_warning_free_however_it_is_included() {
    let dir = root().join("target/cellc-scratch/included");
    let nets = sources();
    for (name, code) in &nets {
        write(&dir.join("gen").join(format!("{name}.rs")), code);
    }
    let runtime = root().join("runtime");
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"included\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\ncellc-runtime = {{ path = {:?}, default-features = false, features = [\"std\"] }}\n\n[workspace]\n",
            runtime.display().to_string()
        ),
    );
    // The build script puts the files into OUT_DIR, as `cellc::Builder` does.
    let mut build =
        String::from("fn main() {\n    let out = std::path::PathBuf::from(std::env::var(\"OUT_DIR\").unwrap());\n");
    let (mut in_mod, mut out_dir, mut lib) = (String::new(), String::new(), String::from("//! Generated models.\n"));
    for (name, _) in &nets {
        let _ = writeln!(
            build,
            "    std::fs::copy(\"gen/{name}.rs\", out.join(\"{name}.rs\")).unwrap();\n    println!(\"cargo:rerun-if-changed=gen/{name}.rs\");"
        );
        let _ = writeln!(in_mod, "mod {name} {{ include!(\"../../gen/{name}.rs\"); }}");
        let _ = writeln!(out_dir, "mod {name} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{name}.rs\")); }}");
        let _ = writeln!(lib, "/// A generated model.\npub mod {name} {{ include!(\"../gen/{name}.rs\"); }}");
    }
    build.push_str("}\n");
    write(&dir.join("build.rs"), &build);
    // Nothing used at all; one cell's `step` alone; the whole model alone.
    write(&dir.join("src/bin/in_mod.rs"), &format!("{in_mod}fn main() {{}}\n"));
    write(
        &dir.join("src/bin/out_dir.rs"),
        &format!(
            "{out_dir}fn main() {{\n    let (x, h, mut y) = ([0.5f32; 16], [0.0f32; 128], [0.0f32; 128]);\n    \
             net0::Gru::new().step(&x, &h, &mut y);\n    println!(\"{{}}\", y[0]);\n}}\n"
        ),
    );
    write(
        &dir.join("src/bin/top.rs"),
        "include!(\"../../gen/net0.rs\");\n\nfn main() {\n    use cellc_runtime::Model as _;\n    \
         let (x, h, mut y) = ([0.5f32; 16], [0.0f32; 128], [0.0f32; 128]);\n    \
         Vad::new().run(&[&x, &h], &mut [&mut y]).unwrap();\n    \
         let mut z = [0.0f32; 128];\n    Vad::new().run_arrays(&x, &h, &mut z).unwrap();\n    \
         assert_eq!(y, z);\n    println!(\"{}\", y[0]);\n}\n",
    );
    write(&dir.join("src/lib.rs"), &format!("#![deny(missing_docs)]\n{lib}"));
    // Each model's type by its name; a cell two models define, through its model's module.
    let mut both = String::new();
    for (name, code) in side_by_side() {
        write(&dir.join("gen").join(format!("{name}.rs")), &code);
        let _ = writeln!(both, "include!(\"../../gen/{name}.rs\");");
    }
    write(
        &dir.join("src/bin/side_by_side.rs"),
        &format!(
            "{both}\nfn main() {{\n    let _ = (Stateful::new(), Heads::new(), Bidirectional::new());\n    \
             let _ = (stateful::Gru0::default(), heads::Gru0::default(), Lstm0::default());\n    \
             let _ = Heads::new().run_arrays(&[0.0; 168], &mut [0.0; 840], &mut [0.0; 672]);\n}}\n"
        ),
    );
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        // Lints run in `check` as in `build`, without the code generation.
        .args(["check", "--quiet", "--message-format=short", "--lib", "--bins"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .expect("run cargo");
    assert!(out.status.success(), "the generated code warns or fails:\n{}", String::from_utf8_lossy(&out.stderr));
}
