//! Streaming: feeding a sequence to a kernel's `feed` in pieces of any size gives exactly the
//! states and outputs of one `run` over the whole sequence (the same arithmetic in the same
//! order, whatever the block boundaries), for a GRU and an LSTM.
use cellc_conformance::scratch::Scratch;
use std::path::Path;

const MAIN: &str = r#"
#![allow(dead_code)]
mod gru { include!("gru.rs"); }
mod lstm { include!("lstm.rs"); }

fn input<const I: usize, const L: usize>() -> [[f32; I]; L] {
    core::array::from_fn(|t| core::array::from_fn(|k| (((t * 13 + k * 5) % 17) as f32 - 8.0) * 0.1))
}

fn main() {
    use gru::{GruSeqForward as G, GruSeqForwardForward as GK};
    let x = input::<{ G::INPUT_SIZE }, { G::STEPS }>();
    let h0 = [[0.25f32; G::HIDDEN_SIZE]; 1];
    let mut y = [[[0.0f32; G::HIDDEN_SIZE]; G::STEPS]; 1];
    let mut ho = [[0.0f32; G::HIDDEN_SIZE]; 1];
    G::new().run(&x, &h0, G::STEPS, &mut y, &mut ho);
    for chunk in 1..=G::STEPS {
        let mut h = h0[0];
        let mut ys = [[0.0f32; G::HIDDEN_SIZE]; G::STEPS];
        for (xc, yc) in x.chunks(chunk).zip(ys.chunks_mut(chunk)) {
            GK::new().feed(&mut h, xc, yc);
        }
        assert_eq!(ys, y[0], "GRU outputs, pieces of {chunk}");
        assert_eq!(h, ho[0], "GRU state, pieces of {chunk}");
    }

    use lstm::{LstmSeqForward as L, LstmSeqForwardForward as LK};
    let x = input::<{ L::INPUT_SIZE }, { L::STEPS }>();
    let (h0, c0) = ([[0.25f32; L::HIDDEN_SIZE]; 1], [[-0.5f32; L::HIDDEN_SIZE]; 1]);
    let mut y = [[[0.0f32; L::HIDDEN_SIZE]; L::STEPS]; 1];
    let (mut ho, mut co) = ([[0.0f32; L::HIDDEN_SIZE]; 1], [[0.0f32; L::HIDDEN_SIZE]; 1]);
    L::new().run(&x, &h0, &c0, L::STEPS, &mut y, &mut ho, &mut co);
    for chunk in 1..=L::STEPS {
        let (mut h, mut c) = (h0[0], c0[0]);
        let mut ys = [[0.0f32; L::HIDDEN_SIZE]; L::STEPS];
        for (xc, yc) in x.chunks(chunk).zip(ys.chunks_mut(chunk)) {
            LK::new().feed(&mut h, &mut c, xc, yc);
        }
        assert_eq!(ys, y[0], "LSTM outputs, pieces of {chunk}");
        assert_eq!((h, c), (ho[0], co[0]), "LSTM states, pieces of {chunk}");
    }
}
"#;

fn generated(case: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(case);
    cellc::compile_file(&dir.join("model.xml"), &cellc::Options::default()).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn feeding_in_pieces_equals_one_run() {
    let files = [
        ("gru.rs".to_owned(), generated("gru_seq_forward")),
        ("lstm.rs".to_owned(), generated("lstm_seq_forward")),
        ("main.rs".to_owned(), MAIN.to_owned()),
    ];
    let scratch = Scratch::new("streaming");
    let exe = scratch.build_program(&files).unwrap_or_else(|e| panic!("{e}"));
    let out = std::process::Command::new(exe).output().expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
