//! Snapshots of generated Rust and C, one per branch of the emitters: GRU with and without
//! `linear_before_reset`, RNN with clip, runtime weights, each unrolled and tiled. Every
//! change to these files is read before it is accepted.
use cellc::{Options, Strategy};
use std::path::Path;

fn emit(case: &str, strategy: Strategy) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(case);
    let m = cellc::load_ir(&dir.join("model.xml"), None).expect("fixture loads");
    cellc::emit::rust::emit(&m, &Options { strategy, ..Options::default() }).expect("fixture emits")
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
    let opts = Options { strategy, weights_mode, name: Some("net".into()), ..Options::default() };
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

#[test]
fn c_output_is_byte_identical_across_runs() {
    for s in [Strategy::Unrolled, Strategy::Tiled] {
        assert_eq!(emit_c("stacked_lstm_gru", s, Embedded), emit_c("stacked_lstm_gru", s, Embedded));
    }
}
