//! The command line on bad input: each case exits non-zero, names the file, the position
//! and the layer, writes no output file and leaves an existing one untouched. The messages
//! are snapshots; a layer name that is not a Rust identifier must compile to safe code.
use std::path::{Path, PathBuf};
use std::process::Command;

const BASE: &str = "gru_act_sigmoid_tanh";
const SEQ: &str = "gru_seq_reverse";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(name)
}

/// A copy of the base fixture in a temporary directory, with its XML and weights edited.
struct Model {
    dir: tempfile::TempDir,
}

impl Model {
    fn new(edit_xml: impl Fn(String) -> String, edit_bin: impl Fn(Vec<u8>) -> Option<Vec<u8>>) -> Model {
        Model::of(BASE, edit_xml, edit_bin)
    }

    fn of(base: &str, edit_xml: impl Fn(String) -> String, edit_bin: impl Fn(Vec<u8>) -> Option<Vec<u8>>) -> Model {
        let dir = tempfile::tempdir().expect("temp dir");
        let xml = std::fs::read_to_string(fixture(base).join("model.xml")).expect("fixture xml");
        let bin = std::fs::read(fixture(base).join("model.bin")).expect("fixture bin");
        std::fs::write(dir.path().join("model.xml"), edit_xml(xml)).expect("write xml");
        if let Some(bin) = edit_bin(bin) {
            std::fs::write(dir.path().join("model.bin"), bin).expect("write bin");
        }
        Model { dir }
    }

    fn xml(edit: impl Fn(String) -> String) -> Model {
        Model::new(edit, Some)
    }

    /// Runs `cellc ARGS` in the directory.
    fn cellc(&self, args: &[&str]) -> std::process::Output {
        Command::new(env!("CARGO_BIN_EXE_cellc")).args(args).current_dir(self.dir.path()).output().expect("run cellc")
    }

    /// Runs `cellc model.xml -o out.rs` in the directory; returns (success, stderr, output
    /// file contents if any).
    fn compile(&self) -> (bool, String, Option<String>) {
        let out = self.cellc(&["model.xml", "-o", "out.rs"]);
        let written = std::fs::read_to_string(self.dir.path().join("out.rs")).ok();
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned(), written)
    }

    /// Asserts the run fails, writes nothing, and returns its stderr.
    fn fails(&self) -> String {
        let (ok, stderr, written) = self.compile();
        assert!(!ok, "cellc accepted a bad model:\n{stderr}");
        assert!(written.is_none(), "cellc wrote an output file for a bad model");
        let leftovers: Vec<_> = std::fs::read_dir(self.dir.path())
            .expect("list dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != "model.xml" && n != "model.bin")
            .collect();
        assert!(leftovers.is_empty(), "temporary files left behind: {leftovers:?}");
        stderr
    }
}

#[test]
fn malformed_xml() {
    let m = Model::xml(|x| x.replacen("</port>", "</prt>", 3));
    insta::assert_snapshot!(m.fails());
}

#[test]
fn truncated_xml() {
    let m = Model::xml(|x| x[..x.len() / 2].to_owned());
    insta::assert_snapshot!(m.fails());
}

#[test]
fn missing_bin() {
    let m = Model::new(|x| x, |_| None);
    insta::assert_snapshot!(m.fails());
}

#[test]
fn truncated_bin() {
    let m = Model::new(|x| x, |b| Some(b[..b.len() / 2].to_vec()));
    insta::assert_snapshot!(m.fails());
}

#[test]
fn offset_past_the_end() {
    let m = Model::xml(|x| x.replace(r#"offset="1248" size="128""#, r#"offset="99999" size="128""#));
    insta::assert_snapshot!(m.fails());
}

#[test]
fn unsupported_op_feeding_a_cell() {
    let m = Model::xml(|x| {
        x.replace(
            r#"<edge from-layer="0" from-port="0" to-layer="5" to-port="0" />"#,
            r#"<edge from-layer="0" from-port="0" to-layer="7" to-port="0" /><edge from-layer="7" from-port="1" to-layer="5" to-port="0" />"#,
        )
        .replace(
            "\t</layers>",
            r#"<layer id="7" name="pre" type="GRN" version="opset1"><input><port id="0"><dim>2</dim><dim>5</dim></port></input><output><port id="1" precision="FP32"><dim>2</dim><dim>5</dim></port></output></layer></layers>"#,
        )
    });
    insta::assert_snapshot!(m.fails());
}

#[test]
fn shape_mismatch() {
    let m = Model::xml(|x| x.replace(r#"hidden_size="8""#, r#"hidden_size="7""#));
    insta::assert_snapshot!(m.fails());
}

#[test]
fn unknown_activation() {
    let m = Model::xml(|x| x.replace(r#"activations="sigmoid, tanh""#, r#"activations="sigmoid, swish""#));
    insta::assert_snapshot!(m.fails());
}

#[test]
fn wrong_activation_count() {
    let m = Model::xml(|x| x.replace(r#"activations="sigmoid, tanh""#, r#"activations="sigmoid""#));
    insta::assert_snapshot!(m.fails());
}

#[test]
fn hidden_size_zero() {
    let m = Model::xml(|x| x.replace(r#"hidden_size="8""#, r#"hidden_size="0""#));
    insta::assert_snapshot!(m.fails());
}

#[test]
fn negative_clip() {
    let m = Model::xml(|x| x.replace(r#"clip="0""#, r#"clip="-1""#));
    insta::assert_snapshot!(m.fails());
}

#[test]
fn unknown_element_type() {
    let m = Model::xml(|x| x.replace(r#"element_type="f32" shape="32""#, r#"element_type="u4" shape="32""#));
    insta::assert_snapshot!(m.fails());
}

#[test]
fn failed_run_leaves_existing_output_untouched() {
    let m = Model::xml(|x| x.replace(r#"hidden_size="8""#, r#"hidden_size="0""#));
    std::fs::write(m.dir.path().join("out.rs"), "// previous output\n").expect("write");
    let (ok, _, written) = m.compile();
    assert!(!ok);
    assert_eq!(written.as_deref(), Some("// previous output\n"));
}

/// Counts `panic!`-like macro calls in generated code.
struct Macros(Vec<String>);

impl<'ast> syn::visit::Visit<'ast> for Macros {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.0.push(m.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::"));
        syn::visit::visit_macro(self, m);
    }
}

#[test]
fn hostile_names_become_identifiers_and_literals() {
    let hostile = "x&quot;); panic!(&quot;";
    let m = Model::xml(|x| {
        x.replace(r#"name="gru_act_sigmoid_tanh" type="GRUCell""#, &format!(r#"name="{hostile}" type="GRUCell""#))
            .replace(r#"name="X" type="Parameter""#, &format!(r#"name="{hostile}*/" type="Parameter""#))
            .replace(r#"names="X""#, "")
    });
    let (ok, stderr, written) = m.compile();
    assert!(ok, "{stderr}");
    let code = written.expect("output written");
    let file: syn::File = syn::parse_str(&code).expect("generated code parses");
    let mut v = Macros(Vec::new());
    syn::visit::visit_file(&mut v, &file);
    // The only macros generated code calls are the runtime's `dispatch!` (vector levels) and
    // `impl_zeroed!` (heap construction), and the one `core::assert!` and one `core::panic!`
    // of the runtime's version.
    let once = |name: &str| v.0.iter().filter(|m| *m == name).count() == 1;
    let allowed =
        ["cellc_runtime::__private::dispatch", "cellc_runtime::__private::impl_zeroed", "core::assert", "core::panic"];
    assert!(
        !v.0.is_empty()
            && once("core::assert")
            && once("core::panic")
            && v.0.iter().all(|m| allowed.contains(&m.as_str())),
        "generated code calls macros: {:?}",
        v.0
    );
    assert!(code.contains("pub struct XPanic;"), "cell type not named from the sanitised name");
    assert!(code.contains(r#"name: "x\"); panic!(\"*/""#), "Parameter name not an escaped literal");
}

#[test]
fn inspect_reports_cells() {
    let out = Command::new(env!("CARGO_BIN_EXE_cellc"))
        .args(["inspect".as_ref(), fixture("stacked_gru_rnn").join("model.xml").as_os_str()])
        .output()
        .expect("run cellc");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    insta::assert_snapshot!(text.replace(&fixture("stacked_gru_rnn").display().to_string(), "[DIR]"));
}

#[test]
fn inspect_names_a_products_batch() {
    // Products of two run-time operands: how many a step makes, and which side they share.
    let onnx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/onnx_run_time_products/model.onnx");
    let out = Command::new(env!("CARGO_BIN_EXE_cellc")).arg("inspect").arg(&onnx).output().expect("run cellc");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for step in [
        "a batch of 4 matrix products (25x40 by 40x50)",
        "a batch of 3 matrix products (13x7 by 7x33, the left one shared)",
        "a matrix product (6x9 by 9x1)",
    ] {
        assert!(text.contains(step), "no {step:?} in:\n{text}");
    }
}

#[test]
fn inspect_names_a_layers_groups_and_kernel() {
    // Grouped and depthwise convolutions: a layer's groups and the kernel that runs it.
    let onnx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/onnx_grouped_convolutions/model.onnx");
    let out = Command::new(env!("CARGO_BIN_EXE_cellc")).arg("inspect").arg(&onnx).output().expect("run cellc");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "9 inputs, 24 outputs a row, in 12 groups of 2 (each over its own channels)\n  runs by the planar kernel",
        "dense layer \"dense2\" (1386 rows, 60 to 6, in 3 groups, bias)",
    ] {
        assert!(text.contains(line), "no {line:?} in:\n{text}");
    }
}

#[test]
fn weights_flag_names_the_bin() {
    let m = Model::new(|x| x, |_| None);
    let bin = m.dir.path().join("elsewhere.bin");
    std::fs::copy(fixture(BASE).join("model.bin"), &bin).expect("copy bin");
    let out =
        m.cellc(&["model.xml", "--weights", "elsewhere.bin", "--name", "Net", "--strategy", "tiled", "-o", "out.rs"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let code = std::fs::read_to_string(m.dir.path().join("out.rs")).expect("output");
    assert!(code.contains("pub struct Net {") && code.contains("Kernel: tiled."));
}

#[test]
fn name_must_be_an_identifier() {
    let m = Model::xml(|x| x);
    let out = m.cellc(&["model.xml", "--name", "my model", "-o", "out.rs"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(r#"the model name "my model" is not a Rust identifier"#));
    assert!(!m.dir.path().join("out.rs").exists());
}

#[test]
fn mixed_batch() {
    let m = Model::xml(|x| {
        x.replacen(r#"<data shape="2,5" element_type="f32" />"#, r#"<data shape="?,5" element_type="f32" />"#, 1)
            .replacen("<dim>2</dim>\n\t\t\t\t\t<dim>5</dim>", "<dim>-1</dim>\n\t\t\t\t\t<dim>5</dim>", 2)
    });
    insta::assert_snapshot!(m.fails());
}

#[test]
fn unknown_direction() {
    let m = Model::of(SEQ, |x| x.replace(r#"direction="reverse""#, r#"direction="sideways""#), Some);
    insta::assert_snapshot!(m.fails());
}

#[test]
fn dynamic_steps() {
    // X of the sequence declared with a dynamic number of steps.
    let m = Model::of(
        SEQ,
        |x| x.replacen("<dim>10</dim>", "<dim>-1</dim>", 2).replace(r#"shape="3,10,8""#, r#"shape="3,?,8""#),
        Some,
    );
    insta::assert_snapshot!(m.fails());
}

#[test]
fn constant_lengths_past_the_steps() {
    // The constant lengths [3, 6] of a 6-step sequence, with the first made 11.
    let xml = std::fs::read_to_string(fixture("gru_seq_const_lengths").join("model.xml")).expect("fixture xml");
    let at = xml.find(r#"element_type="i32" shape="2" offset=""#).expect("the lengths constant");
    let rest = &xml[at + r#"element_type="i32" shape="2" offset=""#.len()..];
    let offset: usize = rest[..rest.find('"').expect("offset")].parse().expect("offset");
    let m = Model::of(
        "gru_seq_const_lengths",
        |x| x,
        |mut b| {
            b[offset..offset + 4].copy_from_slice(&11i32.to_le_bytes());
            Some(b)
        },
    );
    insta::assert_snapshot!(m.fails());
}

/// The binary prints what the library compiles with the options its flags parse to (the
/// macros' and the builder's tests compare their output with the library's).
#[test]
fn the_binary_prints_what_the_library_compiles() {
    let model = fixture(BASE).join("model.xml");
    let out = Command::new(env!("CARGO_BIN_EXE_cellc")).arg(&model).output().expect("run cellc");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let path = model.to_str().expect("a UTF-8 path");
    let opts = cellc::cli::options_from_args(&[path]).expect("parses");
    assert_eq!(String::from_utf8_lossy(&out.stdout), cellc::compile_file(&model, &opts).expect("compiles"));
}

/// `compile_file` returns one Rust file: asked for C (a source and a header) it refuses and
/// names the function that writes both, rather than returning Rust.
#[test]
fn compile_file_refuses_c() {
    let model = fixture(BASE).join("model.xml");
    let opts = cellc::Options::default().language(cellc::Language::C);
    let err = cellc::compile_file(&model, &opts).expect_err("C is not one file").to_string();
    assert!(err.contains("model.xml") && err.contains("use compile_to"), "{err}");
}

/// Every flag that changes the generated code has a builder method that says the same.
#[test]
fn the_command_line_and_the_builder_stay_in_step() {
    use cellc::{Builder, Strategy};
    let cases: [(&[&str], Builder); 17] = [
        (&["m.xml"], Builder::new()),
        (&["m.xml", "--name", "Net"], Builder::new().name("Net")),
        (&["m.xml", "--strategy", "unrolled"], Builder::new().strategy(Strategy::Unrolled)),
        (
            &["m.xml", "--strategy", "tiled", "--weights", "w.bin", "--name", "N"],
            Builder::new().strategy(Strategy::Tiled).weights("w.bin").name("N"),
        ),
        (&["m.xml", "--weights-mode", "runtime"], Builder::new().weights_mode(cellc::WeightsMode::Runtime)),
        (&["m.xml", "--lang", "c", "--name", "vad"], Builder::new().language(cellc::Language::C).name("vad")),
        (&["m.xml", "--simd", "build"], Builder::new().simd(cellc::Simd::Build)),
        (&["m.xml", "--weight-type", "bf16"], Builder::new().weight_type(cellc::WeightType::Bf16)),
        (&["m.xml", "--weight-type", "f16"], Builder::new().weight_type(cellc::WeightType::F16)),
        (&["m.xml", "--fast-activations"], Builder::new().fast_activations(true)),
        (&["m.xml", "--weight-tables", "binary"], Builder::new().weight_tables(cellc::WeightTables::Binary)),
        (&["m.xml", "--weight-tables", "source"], Builder::new().weight_tables(cellc::WeightTables::Source)),
        (&["m.xml", "--threads", "2"], Builder::new().threads(cellc::Threads::new(2).expect("valid"))),
        (
            &["m.xml", "--input", "x=[1,?,16]", "--input", "h=[-1]"],
            Builder::new().input("x", &[Some(1), None, Some(16)]).input("h", &[None]),
        ),
        (
            &["m.xml", "--inputs", "a,b", "--outputs", "y", "--outputs", "z"],
            Builder::new().inputs(&["a", "b"]).outputs(&["y", "z"]),
        ),
        (&["m.xml", "--state", "h0=hn", "--state", "c0=cn"], Builder::new().state("h0", "hn").state("c0", "cn")),
        (&["m.xml", "--state", "auto", "--state", "x=y"], Builder::new().state_auto().state("x", "y")),
    ];
    for (args, builder) in cases {
        assert_eq!(&cellc::cli::options_from_args(args).expect("parses"), builder.options(), "{args:?}");
    }
}

/// Every key of the one table of options (`include_model!`'s keys, `Builder::option`) is a
/// flag of the command line that sets the same options, and every field of the options
/// has a key: a value for each key, set three ways.
#[test]
fn every_key_is_a_flag_that_sets_the_same_options() {
    let values = |key: &str| -> &[&str] {
        match key {
            "name" => &["Net"],
            "lang" => &["c"],
            "weights" => &["w.bin"],
            "strategy" => &["tiled"],
            "weights_mode" => &["runtime"],
            "simd" => &["build"],
            "weight_type" => &["f16"],
            "fast_activations" => &["true"],
            "weight_tables" => &["binary"],
            "threads" => &["2"],
            "input" => &["x=[1,?,16]", "h=[-1]"],
            "inputs" => &["a,b", "c"],
            "outputs" => &["y", "z,w"],
            "state" => &["h0=hn", "c0=cn"],
            "cell_name" => &["gru0=Encoder", "/fc/MatMul=Head"],
            other => panic!("no test value for the key `{other}`: add one"),
        }
    };
    let mut all = cellc::Options::default();
    let mut all_args = vec!["m.xml".to_owned()];
    for key in cellc::options::KEYS {
        let mut opts = cellc::Options::default();
        let mut args = vec!["m.xml".to_owned()];
        let mut builder = cellc::Builder::new();
        for v in values(key.name) {
            opts.set(key.name, v).unwrap_or_else(|e| panic!("{e}"));
            all.set(key.name, v).unwrap_or_else(|e| panic!("{e}"));
            builder = builder.option(key.name, v);
            args.push(key.flag());
            if !key.is_switch() {
                args.push((*v).to_owned());
            }
        }
        assert!(opts != cellc::Options::default(), "`{}` changes nothing", key.name);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(cellc::cli::options_from_args(&args).expect("parses"), opts, "{args:?}");
        assert_eq!(builder.options(), &opts, "Builder::option({:?}, …)", key.name);
        all_args.extend(args[1..].iter().map(|a| (*a).to_owned()));
    }
    // Together, every field differs from its default; and the options say themselves back
    // as arguments.
    let all_args: Vec<&str> = all_args.iter().map(String::as_str).collect();
    assert_eq!(cellc::cli::options_from_args(&all_args).expect("parses"), all);
    let back: Vec<String> = std::iter::once("m.xml".to_owned()).chain(all.to_args()).collect();
    let back: Vec<&str> = back.iter().map(String::as_str).collect();
    assert_eq!(cellc::cli::options_from_args(&back).expect("parses"), all, "{back:?}");
    assert!(cellc::Options::default().to_args().is_empty());
    let d = cellc::Options::default();
    assert!(all.name != d.name && all.language != d.language && all.weights != d.weights);
    assert!(all.strategy != d.strategy && all.weights_mode != d.weights_mode && all.simd != d.simd);
    assert!(all.weight_type != d.weight_type && all.fast_activations != d.fast_activations);
    assert!(all.weight_tables != d.weight_tables);
    assert!(all.threads != d.threads && all.input_shapes.len() == 2 && all.cut_inputs.len() == 3);
    assert!(all.cut_outputs.len() == 3 && all.states.len() == 2 && all.cell_names.len() == 2);
    // And mistakes are named with the key and what it takes, as data and as text.
    use cellc::options::OptionError;
    let mut o = cellc::Options::default();
    let err = o.set("weight_type", "f8").expect_err("refused");
    assert!(
        matches!(&err, OptionError::Value { key: "weight_type", error, takes: "auto|f32|f16|bf16|i8" } if error.value == "f8"),
        "{err:?}"
    );
    assert!(err.to_string().contains("`weight_type`") && err.to_string().contains("auto|f32|f16|bf16|i8"), "{err}");
    let err = o.set("fast_activations", "yes").expect_err("refused");
    assert!(matches!(err, OptionError::Value { takes: "true or false", .. }), "{err:?}");
    let err = o.set("weight-type", "f16").expect_err("refused");
    assert!(
        matches!(&err, OptionError::UnknownKey { key, known } if key == "weight-type" && known.contains(&"weight_type"))
    );
    assert!(err.to_string().contains("no option is called `weight-type`"), "{err}");
}

#[cfg(unix)]
#[test]
fn devices_and_fifos_are_refused_not_read() {
    let m = Model::new(|x| x, |_| None);
    // A device as the weights file, and as the model: refused at once, not read forever.
    let out = m.cellc(&["model.xml", "--weights", "/dev/zero", "-o", "out.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("/dev/zero") && err.contains("not a regular file"), "{err}");
    let out = m.cellc(&["/dev/zero", "-o", "out.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("not a regular file"), "{err}");
    // A FIFO with no writer would block an open for reading forever.
    let fifo = m.dir.path().join("fifo.bin");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let out = m.cellc(&["model.xml", "--weights", "fifo.bin", "-o", "out.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("not a regular file"), "{err}");
    assert!(!m.dir.path().join("out.rs").exists());
}

#[test]
fn a_minified_model_is_read_in_linear_time() {
    // 60,000 layers on one line: counting each element's column from the start of its line
    // made reading quadratic in the line's length.
    let m = Model::new(|x| x, Some);
    let mut xml = std::fs::read_to_string(fixture(BASE).join("model.xml")).expect("fixture");
    let pad: String = (0..60_000)
        .map(|k| format!(r#"<layer id="{}" name="unused{k}" type="Relu" version="opset1"/>"#, 1000 + k))
        .collect();
    xml = xml.replace("\t</layers>", &format!("{pad}</layers>")).replace(['\n', '\t'], " ");
    std::fs::write(m.dir.path().join("model.xml"), &xml).expect("write");
    let (ok, stderr, _) = m.compile();
    assert!(ok, "{stderr}");
}

#[test]
fn one_run_names_every_unsupported_op() {
    // A 2-layer GRU as PyTorch exports it, its Squeezes and Concat replaced by ops cellc does
    // not compile (GRN, Bucketize) and its steps left dynamic: every unsupported op and the
    // dimension to pin are reported in one run, each at its layer.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/pt_gru_2_layers/f32");
    let xml = std::fs::read_to_string(dir.join("model.xml"))
        .expect("model")
        .replace(r#"type="Squeeze""#, r#"type="GRN""#)
        .replace(r#"type="Concat""#, r#"type="Bucketize""#);
    let tmp = tempfile::tempdir().expect("temp dir");
    std::fs::write(tmp.path().join("model.xml"), xml).expect("write model");
    std::fs::copy(dir.join("model.bin"), tmp.path().join("model.bin")).expect("copy weights");
    let out = Command::new(env!("CARGO_BIN_EXE_cellc"))
        .args([tmp.path().join("model.xml").as_os_str(), "-o".as_ref(), "/dev/null".as_ref()])
        .output()
        .expect("run cellc");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let headlines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error[") || l.starts_with("cellc:")).collect();
    insta::assert_snapshot!(headlines.join("\n"));
}

#[test]
fn a_flag_given_twice_is_named_with_both_values() {
    let m = Model::xml(|x| x);
    for (args, want) in [
        (
            &["--input", "X=[1,8]", "--input", "X=[2,8]"][..],
            "--input X=[2,8]: Parameter \"X\" is given twice (X=[1,8] and X=[2,8])",
        ),
        (&["--state", "H=a", "--state", "H=b"][..], "--state H=b: Parameter \"H\" is given twice (H=a and H=b)"),
    ] {
        let out = m.cellc(&[&["model.xml", "-o", "out.rs"][..], args].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(want), "{args:?}:\n{stderr}");
        assert!(!m.dir.path().join("out.rs").exists());
    }
}

/// `--weight-tables`: `auto` writes the tables as bytes beside an output file from 256 KiB
/// of them (silero-vad's 627,204 bytes), as literals below that (examples/gru's 224,256)
/// and on standard output; `binary` needs an output file and Rust, and says so.
#[test]
fn weight_tables_go_beside_a_file_when_large() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tempfile::tempdir().expect("temp dir");
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_cellc")).args(args).output().expect("run cellc");
    let out = |name: &str| dir.path().join(name).display().to_string();
    let silero = root.join("tests/models/silero_vad/model.xml").display().to_string();
    let gru = root.join("examples/gru/model.xml").display().to_string();

    let large = run(&[&silero, "-o", &out("vad.rs")]);
    assert!(large.status.success(), "{}", String::from_utf8_lossy(&large.stderr));
    let source = std::fs::read_to_string(out("vad.rs")).expect("the source");
    let bytes = std::fs::read(out("vad.weights.bin")).expect("the bytes beside it");
    assert!(source.contains("include_bytes!(\"vad.weights.bin\")") && !source.contains("= ::cellc_runtime::Aligned(["));
    assert!(bytes.len() >= 627_204 && bytes.len().is_multiple_of(64), "{}", bytes.len());
    // The second file is announced where the user looks, and in the source's header.
    let said = String::from_utf8_lossy(&large.stderr);
    assert!(said.contains("vad.weights.bin") && said.contains("keep the two together"), "{said}");
    assert!(
        source.lines().take(4).any(|l| l.starts_with("//") && l.contains("\"vad.weights.bin\" beside")),
        "{source:.400}"
    );
    let literal = run(&[&silero, "-o", &out("lit.rs"), "--weight-tables", "source"]);
    assert!(literal.status.success());
    assert!(std::fs::read_to_string(out("lit.rs")).expect("the source").contains("= ::cellc_runtime::Aligned(["));
    assert!(!dir.path().join("lit.weights.bin").exists());

    let small = run(&[&gru, "-o", &out("gru.rs")]);
    assert!(small.status.success() && small.stderr.is_empty(), "{}", String::from_utf8_lossy(&small.stderr));
    assert!(!dir.path().join("gru.weights.bin").exists(), "224 KiB of tables stay literals");
    let forced = run(&[&gru, "-o", &out("gru2.rs"), "--weight-tables", "binary"]);
    assert!(forced.status.success());
    assert!(dir.path().join("gru2.weights.bin").exists());

    let stdout = run(&[&silero]);
    assert!(stdout.status.success());
    assert!(!String::from_utf8_lossy(&stdout.stdout).contains("include_bytes!"), "standard output is one file");
    let refused = run(&[&gru, "--weight-tables", "binary"]);
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("weight_tables = binary") && err.contains("-o"), "{err}");
    let c = run(&[&gru, "--lang", "c", "-o", &out("m.c"), "--weight-tables", "binary"]);
    assert_eq!(c.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&c.stderr).contains("binary` is for Rust"));
    assert!(!dir.path().join("m.c").exists() && !dir.path().join("m.h").exists());
}

#[test]
fn an_onnx_file_compiles_as_exported_and_the_weights_given_as_the_model_say_what_to_give() {
    let m = Model::new(|x| x, Some);
    let onnx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/pt_gru_dynamic/model.onnx");
    std::fs::copy(onnx, m.dir.path().join("net.onnx")).expect("copy the ONNX file");
    let out = m.cellc(&["net.onnx", "-o", "out.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("--input input=[?,N,8]"), "the dynamic steps need a pin: {err}");
    let out = m.cellc(&["net.onnx", "--input", "input=[?,5,8]", "-o", "out.rs"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rs = std::fs::read_to_string(m.dir.path().join("out.rs")).expect("written");
    assert!(rs.contains("pub struct Net") && rs.contains("HIDDEN_SIZE"), "a model with its GRU: {rs:.400}");
    let out = m.cellc(&["inspect", "net.onnx"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"gru0\"") && text.contains("linear_before_reset true"), "{text}");
    let out = m.cellc(&["model.bin", "-o", "out2.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("not text") && err.contains("`.xml`"), "{err}");
    assert!(!m.dir.path().join("out2.rs").exists());
}

#[test]
fn a_dimension_left_dynamic_is_reported_at_its_parameter_not_at_each_op_it_reaches() {
    // PLCMOS's inputs are dynamic: its convolution cannot be compiled until they are pinned,
    // which the Parameters' problems say; the convolution's own "pin it" would repeat them.
    let plcmos = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/plcmos/model.xml");
    let err = cellc::load_graph(&plcmos, &cellc::Options::default()).expect_err("dynamic inputs").to_string();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(lines.iter().all(|l| l.contains("of Parameter") && l.contains("pin it with --input")), "{err}");
    assert!(lines[1].contains("--input degraded_audio=[?,1,N,257]"), "{err}");
}

#[test]
fn a_reader_that_stops_early_ends_the_run_quietly() {
    use std::io::Read as _;
    // The example's Rust (hundreds of KiB, more than a pipe holds) read only in part, as
    // `cellc model.xml | head -1` reads it.
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/gru/model.xml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cellc"))
        .arg(&model)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run cellc");
    let mut head = [0u8; 64];
    child.stdout.take().expect("its output").read_exact(&mut head).expect("the first bytes");
    let out = child.wait_with_output().expect("cellc ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.is_empty(), "{:?}: {err}", out.status);
    assert!(String::from_utf8_lossy(&head).contains("@generated"));
}

#[test]
fn an_output_in_a_folder_that_does_not_exist_says_so() {
    let m = Model::new(|x| x, Some);
    let out = m.cellc(&["model.xml", "-o", "nodir/x.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("cannot create a file in nodir: no such folder"), "{err}");
    assert!(!err.contains(".tmp"), "no temporary file is named: {err}");
}

/// OpenVINO's interval dimensions (`1..`, `2..10`), as `save_model` writes them for a
/// Parameter of shape `[?, 1.., 2..10, 4]` (its ports say `-1`): read as dynamic with their
/// bounds, shown by `inspect`, and a pin outside an interval refused.
#[test]
fn interval_dimensions_are_dynamic_within_their_bounds() {
    let port = "<port id=\"0\" precision=\"FP32\"><dim>-1</dim><dim>-1</dim><dim>-1</dim><dim>4</dim></port>";
    let out_port = port.replace("id=\"0\"", "id=\"1\"");
    let xml = format!(
        "<?xml version=\"1.0\"?>\n<net name=\"iv\" version=\"11\">\n<layers>\n\
         <layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\">\n\
         <data shape=\"?,1..,2..10,4\" element_type=\"f32\" />\n<output>{port}</output>\n</layer>\n\
         <layer id=\"1\" name=\"relu\" type=\"ReLU\" version=\"opset1\">\n<input>{port}</input><output>{out_port}</output>\n</layer>\n\
         <layer id=\"2\" name=\"y\" type=\"Result\" version=\"opset1\">\n<input>{port}</input>\n</layer>\n</layers>\n\
         <edges>\n<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\" />\n\
         <edge from-layer=\"1\" from-port=\"1\" to-layer=\"2\" to-port=\"0\" />\n</edges>\n</net>\n"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("iv.xml");
    std::fs::write(&model, xml).expect("write xml");
    std::fs::write(dir.path().join("iv.bin"), b"").expect("write bin");
    let model = model.display().to_string();
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_cellc")).args(args).output().expect("run cellc");

    let shown = run(&["inspect", &model]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("\"x\" [?, 1.., 2..10, 4]"), "{text}");
    let within = run(&[&model, "--input", "x=[1,3,10,4]"]);
    assert!(within.status.success(), "{}", String::from_utf8_lossy(&within.stderr));
    for (pin, dim, interval, size) in [("x=[1,3,11,4]", 2, "2..10", 11), ("x=[1,0,5,4]", 1, "1..", 0)] {
        let out = run(&[&model, "--input", pin]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        let want = format!("dimension {dim} is the interval {interval} in the model; {size} is outside it");
        assert!(err.contains(&want), "{pin}: {err}");
    }
}

/// A whole model (silero-vad, whose shape subgraphs read constants) with its weights file cut
/// in half, or missing: one error, the cause, and none of what follows from it (a Reshape
/// whose target shape was unread, a Squeeze whose axes were).
#[test]
fn a_short_or_missing_weights_file_is_one_error() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/silero_vad_stream");
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(model.join("model.xml"), dir.path().join("model.xml")).expect("copy xml");
    let bin = std::fs::read(model.join("model.bin")).expect("read bin");
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_cellc"))
            .args(["model.xml", "-o", "out.rs"])
            .current_dir(dir.path())
            .output()
            .expect("run cellc");
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    std::fs::write(dir.path().join("model.bin"), &bin[..bin.len() / 2]).expect("write bin");
    let short = run();
    assert_eq!(short.matches("error[").count(), 1, "{short}");
    assert!(short.contains("the file is truncated") && short.contains("more constants lie past its end"), "{short}");
    std::fs::remove_file(dir.path().join("model.bin")).expect("remove bin");
    let missing = run();
    assert_eq!(missing.matches("error[").count(), 1, "{missing}");
    assert!(missing.contains("cannot read the weights file model.bin"), "{missing}");
}

/// A model value past 1 MiB (swift-f0's 5.2 MiB of scratch) is said to be one, with how to
/// build it off the stack, in the generated file's header and by the command line.
#[test]
fn a_large_model_value_is_said_to_be_built_off_the_stack() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/swift_f0/model.onnx");
    let dir = tempfile::tempdir().expect("temp dir");
    for (out, said) in [("sf.rs", "The model value is"), ("sf.c", "The model struct is")] {
        let lang = if out.ends_with(".c") { "c" } else { "rust" };
        let run = Command::new(env!("CARGO_BIN_EXE_cellc"))
            .args([model.as_os_str(), "--input".as_ref(), "audio=[1,16000]".as_ref(), "--lang".as_ref(), lang.as_ref()])
            .args(["-o".as_ref(), dir.path().join(out).as_os_str()])
            .output()
            .expect("run cellc");
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains(&format!("cellc: note: {said}")), "{stderr}");
        let head = if lang == "c" { "sf.h" } else { out };
        let text = std::fs::read_to_string(dir.path().join(head)).expect("written");
        assert!(
            text.lines().take(8).any(|l| l.contains(said) && l.contains("MiB")),
            "{}",
            &text[..600.min(text.len())]
        );
    }
}
