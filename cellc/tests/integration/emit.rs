//! Snapshots of generated Rust and C, one per branch of the emitters: GRU with and without
//! `linear_before_reset`, RNN with clip, runtime weights, each unrolled and tiled. Every
//! change to these files is read before it is accepted.
use cellc::{Options, Strategy};
use std::path::Path;

fn emit(case: &str, strategy: Strategy) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(case);
    let m = cellc::load_ir(&dir.join("model.xml"), None).expect("fixture loads");
    cellc::emit::rust::emit(&m, &Options::default().strategy(strategy)).expect("fixture emits")
}

macro_rules! snap {
    ($name:ident, $case:literal, $strategy:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(emit($case, $strategy));
        }
    };
}

snap!(gru_unrolled, "gru_h1_i1", Strategy::Unrolled);
snap!(gru_tiled, "gru_h1_i1", Strategy::Tiled);
snap!(gru_lbr_unrolled, "gru_h1_i1_lbr", Strategy::Unrolled);
snap!(gru_lbr_tiled, "gru_h1_i1_lbr", Strategy::Tiled);
snap!(rnn_clip_unrolled, "rnn_tiny_clip", Strategy::Unrolled);
snap!(rnn_clip_tiled, "rnn_tiny_clip", Strategy::Tiled);
snap!(gru_runtime_weights_unrolled, "gru_tiny_runtime", Strategy::Unrolled);
snap!(gru_runtime_weights_tiled, "gru_tiny_runtime", Strategy::Tiled);
snap!(lstm_unrolled, "lstm_h1_i1", Strategy::Unrolled);
snap!(lstm_tiled, "lstm_h1_i1", Strategy::Tiled);

#[test]
fn output_is_byte_identical_across_runs() {
    for s in [Strategy::Unrolled, Strategy::Tiled] {
        assert_eq!(emit("stacked_gru_rnn", s), emit("stacked_gru_rnn", s));
    }
}

#[test]
fn auto_picks_the_tiled_kernel() {
    assert!(emit("gru_h1_i1", Strategy::Auto).contains("Kernel: tiled."));
    assert!(emit("gru_spec_example", Strategy::Auto).contains("Kernel: tiled."));
}

#[test]
fn embedded_weights_are_bit_exact() {
    // Every weight of the model appears as a literal that parses back to the same bits.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/gru_odd_sizes");
    let m = cellc::load_ir(&dir.join("model.xml"), None).expect("fixture loads");
    let code = emit("gru_odd_sizes", Strategy::Unrolled);
    let literals: std::collections::HashSet<u32> = code
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .filter_map(|t| t.parse::<f32>().ok())
        .map(f32::to_bits)
        .collect();
    let cellc::ir::WeightSrc::Embedded { values, .. } = &m.cells[0].r else { panic!("R is embedded") };
    for v in values {
        assert!(literals.contains(&v.to_bits()), "{v:?} is not in the generated code bit-exactly");
    }
}

/// The C files of a fixture, header then source, as one text.
fn emit_c(case: &str, strategy: Strategy, weights_mode: cellc::WeightsMode) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(case);
    let m = cellc::load_ir(&dir.join("model.xml"), None).expect("fixture loads");
    let opts = Options::default().strategy(strategy).weights_mode(weights_mode).name(Some("net".into()));
    let files = cellc::emit::c::emit(&m, &opts, "net.h").expect("fixture emits");
    format!("==> net.h <==\n{}\n==> net.c <==\n{}", files.header, files.source)
}

macro_rules! snap_c {
    ($name:ident, $case:literal, $strategy:expr, $mode:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(emit_c($case, $strategy, $mode));
        }
    };
}

use cellc::WeightsMode::{Embedded, Runtime};
snap_c!(c_gru_unrolled, "gru_h1_i1", Strategy::Unrolled, Embedded);
snap_c!(c_gru_tiled, "gru_h1_i1", Strategy::Tiled, Embedded);
snap_c!(c_gru_lbr_tiled, "gru_h1_i1_lbr", Strategy::Tiled, Embedded);
snap_c!(c_rnn_clip_unrolled, "rnn_tiny_clip", Strategy::Unrolled, Embedded);
snap_c!(c_lstm_tiled, "lstm_h1_i1", Strategy::Tiled, Embedded);
snap_c!(c_gru_runtime_weights_tiled, "gru_tiny_runtime", Strategy::Tiled, Embedded);
snap_c!(c_rnn_seq_bidirectional_runtime, "rnn_seq_bidirectional", Strategy::Tiled, Runtime);
snap_c!(c_gru_seq_const_lengths, "gru_seq_const_lengths", Strategy::Unrolled, Embedded);
snap_c!(c_rnn_sums_split, "rnn_tanh", Strategy::Tiled, Runtime);
snap_c!(c_gru_tiles_interleaved, "gru_lbr_off", Strategy::Tiled, Runtime);

#[test]
fn c_output_is_byte_identical_across_runs() {
    for s in [Strategy::Unrolled, Strategy::Tiled] {
        assert_eq!(emit_c("stacked_lstm_gru", s, Embedded), emit_c("stacked_lstm_gru", s, Embedded));
    }
}

/// A fixture's model, compiled with `opts` to Rust (or to C, header then source).
fn emit_with(case: &str, opts: &Options) -> Result<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(case);
    let m = cellc::load_ir(&dir.join("model.xml"), None).expect("fixture loads");
    match opts.language {
        cellc::Language::Rust => cellc::emit::rust::emit(&m, opts).map_err(|d| d.to_string()),
        cellc::Language::C => cellc::emit::c::emit(&m, opts, "net.h")
            .map(|f| format!("==> net.h <==\n{}\n==> net.c <==\n{}", f.header, f.source))
            .map_err(|d| d.to_string()),
    }
}

fn weights(strategy: Strategy, weight_type: cellc::WeightType, language: cellc::Language) -> Options {
    Options::default().strategy(strategy).weight_type(weight_type).language(language).name(Some("net".into()))
}

macro_rules! snap_16 {
    ($name:ident, $case:literal, $strategy:expr, $wt:ident, $lang:ident) => {
        #[test]
        fn $name() {
            let opts = weights($strategy, cellc::WeightType::$wt, cellc::Language::$lang);
            insta::assert_snapshot!(emit_with($case, &opts).expect("fixture emits"));
        }
    };
}

// A GRU with H = 1: rows of 3 and 1 lanes, so the bfloat16 pairs have a lone low half.
snap_16!(gru_bf16_tiled, "gru_h1_i1", Strategy::Tiled, Bf16, Rust);
snap_16!(gru_f16_unrolled, "gru_h1_i1", Strategy::Unrolled, F16, Rust);
snap_16!(gru_runtime_weights_bf16, "gru_tiny_runtime", Strategy::Tiled, Bf16, Rust);
snap_16!(c_gru_bf16_tiled, "gru_h1_i1", Strategy::Tiled, Bf16, C);
snap_16!(c_gru_f16_unrolled, "gru_h1_i1", Strategy::Unrolled, F16, C);
// int8 rows: each its column's scale, then its lanes; quantised at run time too.
snap_16!(gru_i8_tiled, "gru_h1_i1", Strategy::Tiled, I8, Rust);
snap_16!(gru_runtime_weights_i8, "gru_tiny_runtime", Strategy::Tiled, I8, Rust);
snap_16!(c_gru_i8_unrolled, "gru_h1_i1", Strategy::Unrolled, I8, C);

#[test]
fn auto_keeps_16_bit_weights_16_bit_in_the_rust_and_f32_in_the_c() {
    let with = |case, wt, lang| emit_with(case, &weights(Strategy::Tiled, wt, lang)).expect("emits");
    let auto = |case, lang| with(case, cellc::WeightType::Auto, lang);
    use cellc::Language::{C, Rust};
    assert!(auto("gru_f16_weights", Rust).contains("Aligned<[u16;"));
    assert!(auto("gru_bf16_weights", Rust).contains("Aligned<[u32;"));
    assert!(!auto("gru_spec_example", Rust).contains("Aligned<[u"));
    // The C's kernels read 16-bit weights lane by lane: f32 unless asked for by name.
    for case in ["gru_f16_weights", "gru_bf16_weights"] {
        let c = auto(case, C);
        assert!(!c.contains("static const uint16_t") && !c.contains("static const uint32_t"), "{case}");
        assert_eq!(c, with(case, cellc::WeightType::F32, C), "{case}");
    }
    assert!(with("gru_f16_weights", cellc::WeightType::F16, C).contains("static const uint16_t"));
    assert!(with("gru_bf16_weights", cellc::WeightType::Bf16, C).contains("static const uint32_t"));
    // Weights given at run time are unknown when compiling: f32.
    assert!(!auto("gru_runtime_weights", Rust).contains("Aligned<[u"));
}

#[test]
fn weights_too_large_for_f16_are_refused_by_name() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/gru_h1_i1");
    let mut m = cellc::load_ir(&dir.join("model.xml"), None).expect("fixture loads").into_model();
    let cellc::ir::WeightSrc::Embedded { values, .. } = &mut m.cells[0].r else { panic!("R is embedded") };
    values[2] = 1.0e5;
    let m = cellc::ir::verify::Verified::new(m, &[]).expect("the same plan");
    let opts = weights(Strategy::Tiled, cellc::WeightType::F16, cellc::Language::Rust);
    let err = cellc::emit::rust::emit(&m, &opts).expect_err("f16 cannot hold 1e5").to_string();
    assert!(err.contains("R[2] = 100000 is too large for f16 weights"), "{err}");
    let c_opts = opts.clone().language(cellc::Language::C);
    let err = cellc::emit::c::emit(&m, &c_opts, "net.h").expect_err("f16 cannot hold 1e5").to_string();
    assert!(err.contains("R[2] = 100000 is too large for f16 weights"), "{err}");
    // bf16 has f32's range.
    let bf16 = opts.weight_type(cellc::WeightType::Bf16);
    assert!(cellc::emit::rust::emit(&m, &bf16).is_ok());
}

/// The int8 GRU of the conformance set (whose expected values cannot tell int8 weights from
/// f32 ones holding the same values) is compiled to int8 tables, in both languages.
#[test]
fn a_file_s_int8_gru_is_stored_as_int8() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/onnx_int8_gru/model.onnx");
    let m = cellc::load_graph(&path, &Options::default()).expect("compiles");
    let rust = cellc::emit::rust::emit(&m, &weights(Strategy::Auto, cellc::WeightType::I8, cellc::Language::Rust));
    assert_eq!(rust.expect("emits").matches("Aligned<[i8;").count(), 2, "W and R");
    let c = cellc::emit::c::emit(&m, &weights(Strategy::Auto, cellc::WeightType::I8, cellc::Language::C), "net.h");
    assert_eq!(c.expect("emits").source.matches("static const int8_t").count(), 2, "W and R");
}

#[test]
fn weights_int8_cannot_hold_are_refused_by_name() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/gru_h1_i1");
    let mut m = cellc::load_ir(&dir.join("model.xml"), None).expect("fixture loads").into_model();
    let cellc::ir::WeightSrc::Embedded { values, .. } = &mut m.cells[0].w else { panic!("W is embedded") };
    values[1] = f32::INFINITY;
    let m = cellc::ir::verify::Verified::new(m, &[]).expect("the same plan");
    for lang in [cellc::Language::Rust, cellc::Language::C] {
        let opts = weights(Strategy::Tiled, cellc::WeightType::I8, lang);
        let err = match lang {
            cellc::Language::Rust => cellc::emit::rust::emit(&m, &opts).map(|_| ()),
            cellc::Language::C => cellc::emit::c::emit(&m, &opts, "net.h").map(|_| ()),
        };
        let err = err.expect_err("int8 cannot hold infinity").to_string();
        assert!(err.contains("W[1] = inf is not finite, which int8 weights cannot hold"), "{err}");
    }
}

#[test]
fn c_refuses_16_bit_weights_given_at_run_time() {
    let opts = weights(Strategy::Tiled, cellc::WeightType::Bf16, cellc::Language::C);
    let err = emit_with("gru_runtime_weights", &opts).expect_err("refused");
    assert!(err.contains("packs weights given at run time as f32 only"), "{err}");
}

fn fast(strategy: Strategy, language: cellc::Language) -> Options {
    Options::default().strategy(strategy).language(language).fast_activations(true).name(Some("net".into()))
}

// Sigmoid and tanh from `act::fast`; in C, the fast helpers in place of the exact ones.
#[test]
fn lstm_fast_activations() {
    insta::assert_snapshot!(emit_with("lstm_h1_i1", &fast(Strategy::Tiled, cellc::Language::Rust)).expect("emits"));
}

#[test]
fn c_lstm_fast_activations() {
    insta::assert_snapshot!(emit_with("lstm_h1_i1", &fast(Strategy::Tiled, cellc::Language::C)).expect("emits"));
}

#[test]
fn fast_activations_replace_every_transcendental_helper() {
    use cellc::Language::{C, Rust};
    for case in ["gru_act_elu", "gru_act_softplus", "gru_act_scaledtanh", "lstm_acts"] {
        let exact = emit_with(case, &Options::default().name(Some("net".into()))).expect("emits");
        let rust = emit_with(case, &fast(Strategy::Tiled, Rust)).expect("emits");
        assert!(!exact.contains("act::fast::"), "{case}");
        assert!(rust.contains("act::fast::"), "{case}");
        let c = emit_with(case, &fast(Strategy::Tiled, C)).expect("emits");
        for exact_helper in ["net_exp(", "net_tanh(", "net_sigmoid(", "net_elu(", "net_softplus(", "net_scaledtanh("] {
            assert!(!c.contains(exact_helper), "{case}: {exact_helper} with fast activations");
        }
        assert!(c.contains("net_fast_"), "{case}");
    }
}

/// A fixture compiled to Rust with its step split across `threads` threads, weights given
/// at run time (no tables).
fn emit_split(case: &str, threads: usize) -> Result<String, String> {
    let threads = cellc::Threads::new(threads).expect("a valid count");
    emit_with(case, &Options::default().threads(threads).weights_mode(Runtime).name(Some("Net".into())))
}

// A GRU with H = 128 in two parts: blocks of steps as jobs of two stages a step, the second
// reading all of r ⊙ h; lone steps stay on one thread.
#[test]
fn gru_split_in_two() {
    insta::assert_snapshot!(emit_split("gru_lbr_off", 2).expect("fixture emits"));
}

// An LSTM with H = 128 (256 KiB of f32 weights) in two parts: lone steps are jobs too, each
// part projecting its own tiles' inputs (`step`) or taking them from the caller's
// (`step_projected`).
#[test]
fn lstm_split_in_two() {
    insta::assert_snapshot!(emit_split("lstm_f16_weights", 2).expect("fixture emits"));
}

#[test]
fn only_large_tiled_cells_are_split() {
    // Jobs: `feed_block`'s, and `step_at`'s and `step_projected`'s when a lone step gains.
    let jobs = |case, threads| {
        emit_split(case, threads).expect("fixture emits").matches("::cellc_runtime::__private::team::run").count()
    };
    assert_eq!(jobs("rnn_clip", 2), 1, "an RNN with H = 128: blocks of steps only");
    assert_eq!(jobs("lstm_f16_weights", 2), 3, "an LSTM with H = 128, 128 KiB: lone steps too");
    assert_eq!(jobs("rnn_clip", 1), 0, "one thread");
    assert_eq!(jobs("gru_h1_i1", 2), 0, "a cell of one tile");
    assert_eq!(jobs("gru_lbr_off", 2), 1, "a GRU with H = 128 in two stages of 96 KiB: blocks of steps only");
    let f16 = Options::default().threads(cellc::Threads::new(2).expect("valid")).weight_type(cellc::WeightType::F16);
    let f16_jobs =
        emit_with("gru_lbr_off", &f16).expect("emits").matches("::cellc_runtime::__private::team::run").count();
    assert_eq!(f16_jobs, 0, "the same GRU with 16-bit weights: two stages of 48 KiB stay on one thread");
    let unrolled = Options::default().threads(cellc::Threads::new(2).expect("valid")).strategy(Strategy::Unrolled);
    assert!(!emit_with("rnn_clip", &unrolled).expect("emits").contains("team::run"), "an unrolled cell");
}

#[test]
fn c_refuses_threads() {
    let opts = Options::default().threads(cellc::Threads::new(2).expect("valid")).language(cellc::Language::C);
    let err = emit_with("rnn_clip", &opts).expect_err("C runs on one thread");
    assert!(err.contains("--threads 2: ") && err.contains("use --threads 1, or --lang rust"), "{err}");
}

/// The functions of a generated file, each with the number of calls into
/// `cellc_runtime::__private::pack` its body makes, and the names of the methods and functions it calls.
#[derive(Default)]
struct Calls {
    current: Vec<String>,
    packs: std::collections::BTreeMap<String, usize>,
    callees: std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
}

impl Calls {
    fn enter(&mut self, name: String) {
        self.packs.entry(name.clone()).or_default();
        self.callees.entry(name.clone()).or_default();
        self.current.push(name);
    }
    fn called(&mut self, callee: String) {
        if let Some(callees) = self.current.last().and_then(|f| self.callees.get_mut(f)) {
            callees.insert(callee);
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for Calls {
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.enter(f.sig.ident.to_string());
        syn::visit::visit_impl_item_fn(self, f);
        self.current.pop();
    }
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.enter(f.sig.ident.to_string());
        syn::visit::visit_item_fn(self, f);
        self.current.pop();
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if segs.iter().any(|s| s == "pack")
                && let Some(f) = self.current.last()
            {
                *self.packs.entry(f.clone()).or_default() += 1;
            }
            if let Some(last) = segs.last() {
                self.called(last.clone());
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
    fn visit_expr_method_call(&mut self, c: &'ast syn::ExprMethodCall) {
        self.called(c.method.to_string());
        syn::visit::visit_expr_method_call(self, c);
    }
}

/// Weights given at run time are packed by `set_weights` (and `new`, which calls it) alone:
/// counted over the generated code of cells, sequences and a model, no function that a
/// run, a step or a feed reaches makes a call into `cellc_runtime::__private::pack`.
#[test]
fn runtime_weights_are_packed_only_when_set() {
    for case in ["gru_tiny_runtime", "gru_seq_bidirectional", "lstm_h1_i1", "rnn_tiny_clip"] {
        for strategy in [Strategy::Tiled, Strategy::Unrolled] {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(case);
            let m = cellc::load_ir(&dir.join("model.xml"), None).expect("fixture loads");
            let opts = Options::default().strategy(strategy).weights_mode(cellc::WeightsMode::Runtime);
            let code = cellc::emit::rust::emit(&m, &opts).expect("fixture emits");
            let file = syn::parse_file(&code).expect("generated Rust parses");
            let mut calls = Calls::default();
            syn::visit::Visit::visit_file(&mut calls, &file);
            let packing: Vec<&String> = calls.packs.iter().filter(|(_, n)| **n > 0).map(|(f, _)| f).collect();
            assert!(!packing.is_empty(), "{case}: no packing found: the test would not see any");
            assert!(packing.iter().all(|f| *f == "set_weights"), "{case} {strategy:?}: packing in {packing:?}");
            // What a run reaches, through the generated functions' names.
            let mut reached = std::collections::BTreeSet::new();
            let mut todo: Vec<String> = ["run", "step", "feed", "step_batch", "run_batch"].map(String::from).to_vec();
            while let Some(f) = todo.pop() {
                if calls.callees.contains_key(&f) && reached.insert(f.clone()) {
                    todo.extend(calls.callees[&f].iter().cloned());
                }
            }
            assert!(reached.contains("step") || reached.contains("run"), "{case}: {reached:?}");
            assert!(!reached.contains("set_weights") && !reached.contains("new"), "{case} {strategy:?}: {reached:?}");
        }
    }
}

/// The C of a whole model of `tests/models` (its f32 IR, or its only one).
fn emit_c_model(case: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models").join(case);
    let path = [dir.join("f32/model.xml"), dir.join("model.xml")].into_iter().find(|p| p.is_file()).expect("an IR");
    let m = cellc::load_ir(&path, None).expect("model loads");
    let opts = Options::default().name(Some("net".into()));
    undispatched(&cellc::emit::c::emit(&m, &opts, "net.h").expect("model emits").source)
}

/// The C a build without `PREFIX_DISPATCH` compiles: each kernel function once, as it is
/// written for the target the file is built for (the copies for wider targets, and the
/// dispatcher among them, left out).
fn undispatched(source: &str) -> String {
    // Per open `#if`: whether it is a dispatch block, and whether its lines are kept.
    let mut frames: Vec<(bool, bool)> = Vec::new();
    let mut out = String::new();
    for line in source.lines() {
        let keep = frames.iter().all(|&(_, k)| k);
        let dispatch = line.starts_with("#if ") && line.ends_with("_DISPATCH");
        if line.starts_with("#if") {
            frames.push((dispatch, !dispatch));
            if dispatch {
                continue;
            }
        } else if line == "#else" && frames.last().is_some_and(|f| f.0) {
            frames.last_mut().expect("an open #if").1 = true;
            continue;
        } else if line == "#endif" && frames.pop().is_some_and(|f| f.0) {
            continue;
        }
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The C of `case` from the first line starting with `head` to the end of the function.
fn c_function(case: &str, head: &str) -> String {
    let source = emit_c_model(case);
    let start = source.find(head).expect("the function");
    let end = start + source[start..].find("\n}\n").expect("its end") + 3;
    source[start..end].to_owned()
}

#[test]
fn c_dense_layer() {
    // A GRU's last state through a 16 → 1 dense layer and a sigmoid: blocks of rows, each
    // row's sums in arrays of their own, then the rows left one by one.
    insta::assert_snapshot!(c_function("pt_gru_linear_sigmoid", "/* Dense layer ("));
}

#[test]
fn c_dense_layer_in_vectors() {
    // A 24 → 8 dense layer with a bias and a relu: under GCC, each row's sums in a vector of
    // its own; elsewhere the loops over lanes. Its rows are the windows of a convolution
    // (1×4 taps of 6 channels, rows of 7 positions: too short for the planar kernel), read
    // in place: each row's run found once a tap.
    insta::assert_snapshot!(c_layer("ov_convolutions", ": 24 inputs, 8 outputs, plus a bias, then relu)"));
}

/// The C of the layer of `case` whose comment holds `what`, from its comment to the end of
/// its function.
fn c_layer(case: &str, what: &str) -> String {
    item(&emit_c_model(case), what, "/* Dense layer (", "\n}\n")
}

/// The text of `source` from the last `head` before `what` to the end of the first `end`
/// after it.
fn item(source: &str, what: &str, head: &str, end: &str) -> String {
    let at = source.find(what).expect("the layer");
    let start = source[..at].rfind(head).expect("its comment");
    let end = at + source[at..].find(end).expect("its end") + end.len();
    source[start..end].to_owned()
}

#[test]
fn c_planar_layer() {
    // A 1×1 convolution of 7 outputs over a row of 17 positions (6 channels): each entry
    // copied into the work area; blocks of the 7 outputs × vectors of positions, each weight
    // broadcast.
    insta::assert_snapshot!(c_layer("ov_convolutions", "6 inputs, 7 outputs) over the windows"));
}

#[test]
fn c_planar_grouped_layer() {
    // A channel multiplier of 2 (3×3, stride 2, over 21 rows of 33 positions): 12 groups of
    // one channel and two outputs, each group's channel copied (its width split by the
    // stride's phase) and run in turn; rows of 17 outputs, one vector of positions in each of
    // a block of rows (the last block's rows past the output not stored).
    insta::assert_snapshot!(c_layer("onnx_grouped_convolutions", "in 12 groups of 1 channel(s)"));
}

#[test]
fn c_transpose() {
    // A layout change between channels first and channels last: the shared transpose
    // function (tiles of 8 × 8 in bands of 64 source rows, each tile through eight vectors
    // by three stages of shuffles, the edges value by value) and a step's call of it.
    insta::assert_snapshot!(c_function("ov_einsums", "static void net_transpose("));
    insta::assert_snapshot!("c_transpose_call", c_step_holding("ov_einsums", "net_transpose(src"));
}

#[test]
fn c_short_sums_written_out() {
    // A product whose run-time `b` is transposed (a Gemm's), 7 terms: the sum written out
    // term by term, in order.
    insta::assert_snapshot!(c_step_holding("onnx_run_time_products", "acc += ar[0] * br[0]; acc += ar[1] * br[1];"));
}

#[test]
fn c_run_time_product() {
    // A product of two run-time operands: the shared function (strips of 2 vectors of
    // columns, then 1, then vectors of 4, blocks of rows in named vectors) and a batch's
    // calls of it.
    insta::assert_snapshot!(c_function("onnx_run_time_products", "static void net_product("));
    insta::assert_snapshot!("c_run_time_product_call", c_step_holding("ov_einsums", "net_product(a + i0"));
}

/// The block of the step of `case`'s C that holds `text`.
fn c_step_holding(case: &str, text: &str) -> String {
    let source = emit_c_model(case);
    let at = source.find(text).unwrap_or_else(|| panic!("{case}: no {text:?}"));
    let start = source[..at].rfind("\n        {\n").expect("its block") + 1;
    let end = at + source[at..].find("\n        }\n").expect("its end") + 11;
    source[start..end].to_owned()
}

#[test]
fn c_elementwise_chain_reads_per_channel_values_once() {
    // A depthwise convolution's taps over rows too short for the planar kernel (shifted
    // inputs times a weight per channel, added): each channel's weights read before the loop
    // along its positions, which GCC then vectorises (read inside it, as constants it knows,
    // they kept it scalar); the destination `restrict` where it is the model's own array and
    // no operand is in it.
    insta::assert_snapshot!(c_step_holding("onnx_grouped_convolutions", "const float v1 = a1[i0];"));
}

#[test]
fn c_gathers_mostly_fill_write_the_fill_first() {
    // A transposed convolution not read in place (stride 2 and dilation 2: half its phases
    // have no tap): its strided inputs the fill over each entry, then the values taken by
    // (destination, source) pairs, instead of a choice per value.
    let source = emit_c_model("ov_convolutions");
    let lines: Vec<&str> = source
        .lines()
        .filter(|l| l.contains("][2] =") || l.contains("[j][0]") || (l.contains("dst[e * ") && !l.contains("src")))
        .map(str::trim)
        .collect();
    assert!(lines.iter().any(|l| l.contains("[j][0]")), "a gather by pairs");
    insta::assert_snapshot!(lines.join("\n"));
}

/// The Rust of `case`, as `emit_c_model` gives its C.
fn emit_rust_model(case: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models").join(case);
    let path = [dir.join("f32/model.xml"), dir.join("model.xml")].into_iter().find(|p| p.is_file()).expect("an IR");
    let m = cellc::load_ir(&path, None).expect("model loads");
    let opts = Options::default().name(Some("net".into()));
    cellc::emit::rust::emit(&m, &opts).expect("model emits")
}

#[test]
fn both_languages_write_each_gather_in_the_plans_form() {
    // The same forms, gather by gather: each of a few runs its own copy (C: a loop of known
    // length; Rust: a slice copy of constant ranges), the fill then pairs, a table of runs.
    for case in ["ov_convolutions", "ov_edge_ops", "ov_interpolates"] {
        let (c, rust) = (emit_c_model(case), emit_rust_model(case));
        let count = |text: &str, what: &str| text.matches(what).count();
        // C: `for (size_t i = 0; i < LEN; ++i) dst[e * STRIDE + START + i] = …;`.
        let c_inline = c
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with("for (size_t i = 0; i < "))
            .filter_map(|l| l.split("; ++i) dst[e * ").nth(1)?.split(']').next())
            .filter(|index| index.matches(" + ").count() == 2 && index.ends_with(" + i"))
            .count();
        // Rust: `dst[START..END].copy_from_slice(&src[FROM..TO]);` or `dst[START..END].fill(…);`.
        let rust_inline = rust
            .lines()
            .map(str::trim_start)
            .filter_map(|l| l.strip_prefix("dst["))
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .filter(|l| l.contains("].copy_from_slice(&src[") || l.contains("].fill("))
            .count();
        // C: the tables at file scope, `static const uint32_t NET_GATHERk[N][2]` (pairs) or
        // `[N][3]` (runs).
        let tables = |width: &str| {
            c.lines().filter(|l| l.starts_with("static const uint32_t NET_GATHER") && l.ends_with(width)).count()
        };
        let c_pairs = tables("][2] = {");
        let rust_pairs = count(&rust, "for &[d, s] in ");
        let c_runs = tables("][3] = {");
        let rust_runs = count(&rust, "for &[d, s, len] in ");
        assert_eq!(c_pairs, rust_pairs, "{case}: gathers by pairs");
        assert_eq!(c_runs, rust_runs, "{case}: gathers by tables of runs");
        assert_eq!(rust_inline, c_inline, "{case}: runs written out");
        assert!(c_inline + c_pairs + c_runs > 0, "{case}: a gather");
    }
}

#[test]
fn c_conditional_maps_evaluate_both_sides() {
    // Hard-swish and a clamp: both sides of each choice evaluated, chosen through the bits.
    let source = emit_c_model("pt_gru_frame_heads");
    let lines: Vec<&str> =
        source.lines().filter(|l| l.contains("net_select(") && l.trim_start().starts_with("const float")).collect();
    assert!(!lines.is_empty(), "the model's maps choose");
    assert!(!lines.iter().any(|l| l.contains(" ? ")), "no conditional expression left in a map: {lines:#?}");
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn lstm_peepholes_in_both_languages() {
    // An ONNX LSTM's peepholes, packed f, i, o per tile: f and i read the old cell state, o
    // the new one, each inside the clip. The lines that read them, in Rust then in C.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/onnx_lstm_peepholes/model.onnx");
    let m = cellc::load_ir(&path, None).expect("model loads");
    let opts = Options::default().name(Some("net".into()));
    let rust = cellc::emit::rust::emit(&m, &opts).expect("emits Rust");
    let c = undispatched(&cellc::emit::c::emit(&m, &opts, "net.h").expect("emits C").source);
    let lines: Vec<&str> = [rust.as_str(), c.as_str()]
        .into_iter()
        .flat_map(|s| s.lines().filter(|l| l.contains("peep") || l.contains("PEEP")).map(str::trim))
        .filter(|l| !l.starts_with("0x") && !l.starts_with(|ch: char| ch == '-' || ch.is_ascii_digit()))
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}

/// A copy that repeats one run of a broadcast operand (OpenVINO's `Gather` with batch
/// dimensions over a row of 4) reads it as `..4`: clippy refuses the range `0..0 + 4`, and
/// generated code passes `clippy -D warnings`.
#[test]
fn a_repeated_run_from_the_start_is_read_without_adding_zero() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/ov_gather_batch_dims");
    let m = cellc::load_ir(&dir.join("model.xml"), None).expect("model loads");
    let rust = cellc::emit::rust::emit(&m, &Options::default()).expect("model emits");
    assert!(rust.contains("copy_from_slice(&src[..4])"), "the run read from the start");
    assert!(!rust.contains("[0..0 +"), "no range adds zero");
}

#[test]
fn rust_windows_layer_with_an_activation() {
    // The 24 → 8 dense layer over a convolution's windows (1×4 taps of 6 channels) with a
    // relu: the kernel maps each run of outputs through a closure inlined by force (out of
    // line, it is compiled without the dispatched level's target features).
    // It ends with its `impl`, where the next item's comment starts.
    let item = item(
        &emit_rust_model("ov_convolutions"),
        ": 24 inputs, 8 outputs, plus a bias, then relu)",
        "/// Dense layer (",
        "\n    }\n    /// ",
    );
    let item = item.strip_suffix("    /// ").expect("the next item");
    assert!(item.contains("#[inline(always)]\n                |y: &mut [f32]|"), "{item}");
    insta::assert_snapshot!(item);
}
