//! Streaming: feeding a sequence to a kernel's `feed` in pieces of any size gives exactly the
//! states and outputs of one `run` over the whole sequence (the same arithmetic in the same
//! order, whatever the block boundaries), for a GRU and an LSTM. And the whole-batch API,
//! batch-major and time-major, with and without all-steps output, gives exactly what `run`
//! gives row by row, for a bidirectional GRU and a reverse LSTM with unequal lengths.
use cellc_conformance::scratch::Scratch;
use std::path::Path;

const MAIN: &str = r#"
#![allow(dead_code)]
mod gru { include!("gru.rs"); }
mod lstm { include!("lstm.rs"); }
mod bigru { include!("bigru.rs"); }
mod revlstm { include!("revlstm.rs"); }
mod biggru { include!("biggru.rs"); }

fn batch_api() {
    use cellc_runtime::Major;
    use bigru::GruSeqBidirectionalLbr as G;
    const N: usize = 3;
    let lens = [G::STEPS, 4, 0];
    let xs: Vec<[[f32; G::INPUT_SIZE]; G::STEPS]> = (0..N).map(|r| core::array::from_fn(|t| core::array::from_fn(|k| (((r * 7 + t * 3 + k) % 11) as f32 - 5.0) * 0.1))).collect();
    let h0: Vec<[[f32; G::HIDDEN_SIZE]; G::DIRECTIONS]> = (0..N).map(|r| [[0.1 * r as f32; G::HIDDEN_SIZE]; G::DIRECTIONS]).collect();
    let mut y_ref = vec![[[[0.0f32; G::HIDDEN_SIZE]; G::STEPS]; G::DIRECTIONS]; N];
    let mut ho_ref = vec![[[0.0f32; G::HIDDEN_SIZE]; G::DIRECTIONS]; N];
    for r in 0..N {
        G::new().run(&xs[r], &h0[r], lens[r], &mut y_ref[r], &mut ho_ref[r]).expect("a length within the steps");
    }
    // A length past the steps is an error, and nothing is computed.
    let (mut y, mut ho) = (y_ref[0], ho_ref[0]);
    assert!(G::new().run(&xs[0], &h0[0], G::STEPS + 1, &mut y, &mut ho).is_err());
    assert_eq!((y, ho), (y_ref[0], ho_ref[0]), "untouched after an error");
    // Every slice is rows: of INPUT_SIZE for `x`, of HIDDEN_SIZE for the states and `y`.
    let want_y: Vec<[f32; G::HIDDEN_SIZE]> = y_ref.iter().flatten().flatten().copied().collect();
    let want_h: Vec<[f32; G::HIDDEN_SIZE]> = ho_ref.iter().flatten().copied().collect();
    let h_init: Vec<[f32; G::HIDDEN_SIZE]> = h0.iter().flatten().copied().collect();
    // Batch-major.
    let xb: Vec<[f32; G::INPUT_SIZE]> = xs.iter().flatten().copied().collect();
    let (mut h, mut y) = (h_init.clone(), vec![[0.0f32; G::HIDDEN_SIZE]; want_y.len()]);
    G::new().run_batch(Major::Batch, &xb, &mut h, Some(&lens), Some(&mut y)).expect("lengths fit");
    assert_eq!((&y, &h), (&want_y, &want_h), "batch-major");
    // Time-major: [steps, batch] rows in, [steps, batch, dirs] rows out.
    let xt: Vec<[f32; G::INPUT_SIZE]> = (0..G::STEPS).flat_map(|t| xs.iter().map(move |x| x[t])).collect();
    let (mut h, mut y) = (h_init.clone(), vec![[0.0f32; G::HIDDEN_SIZE]; want_y.len()]);
    G::new().run_batch(Major::Time, &xt, &mut h, Some(&lens), Some(&mut y)).expect("lengths fit");
    assert_eq!(h, want_h, "time-major states");
    for t in 0..G::STEPS {
        for r in 0..N {
            for d in 0..G::DIRECTIONS {
                assert_eq!(y[(t * N + r) * G::DIRECTIONS + d], y_ref[r][d][t], "time-major step {t} row {r} dir {d}");
            }
        }
    }
    // Last state only, and a length past the steps refused before anything is written.
    let mut h = h_init.clone();
    G::new().run_batch(Major::Time, &xt, &mut h, Some(&lens), None).expect("lengths fit");
    assert_eq!(h, want_h, "final states only");
    let mut h = h_init.clone();
    assert!(G::new().run_batch(Major::Batch, &xb, &mut h, Some(&[1, G::STEPS + 1, 0]), None).is_err());
    assert_eq!(h, h_init, "untouched after an error");
    // Rows of another count than the batch's: an error.
    let mut y = vec![[0.0f32; G::HIDDEN_SIZE]; want_y.len() - 1];
    assert!(G::new().run_batch(Major::Batch, &xb, &mut h, None, Some(&mut y)).is_err());
    assert!(G::new().run_batch(Major::Batch, &xb[1..], &mut h, None, None).is_err());

    use revlstm::LstmSeqReverse as L;
    let lens = [3, L::STEPS];
    let xs: Vec<[[f32; L::INPUT_SIZE]; L::STEPS]> = (0..2).map(|r| core::array::from_fn(|t| core::array::from_fn(|k| (((r * 5 + t * 7 + k) % 13) as f32 - 6.0) * 0.1))).collect();
    let (h0, c0) = ([[0.2f32; L::HIDDEN_SIZE]; 1], [[-0.3f32; L::HIDDEN_SIZE]; 1]);
    let mut y_ref = vec![[[[0.0f32; L::HIDDEN_SIZE]; L::STEPS]; 1]; 2];
    let (mut ho_ref, mut co_ref) = (vec![[[0.0f32; L::HIDDEN_SIZE]; 1]; 2], vec![[[0.0f32; L::HIDDEN_SIZE]; 1]; 2]);
    for r in 0..2 {
        L::new().run(&xs[r], &h0, &c0, lens[r], &mut y_ref[r], &mut ho_ref[r], &mut co_ref[r]).expect("a length within the steps");
    }
    let xb: Vec<[f32; L::INPUT_SIZE]> = xs.iter().flatten().copied().collect();
    let (mut h, mut c) = (vec![h0[0]; 2], vec![c0[0]; 2]);
    let mut y = vec![[0.0f32; L::HIDDEN_SIZE]; 2 * L::STEPS];
    L::new().run_batch(Major::Batch, &xb, &mut h, &mut c, Some(&lens), Some(&mut y)).expect("lengths fit");
    assert_eq!(y, y_ref.iter().flatten().flatten().copied().collect::<Vec<_>>(), "LSTM outputs");
    assert_eq!(h, ho_ref.iter().flatten().copied().collect::<Vec<_>>(), "LSTM hidden states");
    assert_eq!(c, co_ref.iter().flatten().copied().collect::<Vec<_>>(), "LSTM cell states");
}

fn input<const I: usize, const L: usize>() -> [[f32; I]; L] {
    core::array::from_fn(|t| core::array::from_fn(|k| (((t * 13 + k * 5) % 17) as f32 - 8.0) * 0.1))
}

/// A bidirectional GRU whose weights take long blocks (70 steps: a `run` in two blocks of 35,
/// a `feed` in blocks of up to 68): each direction's `feed` in pieces of any size, the
/// reverse one over the steps backwards, gives exactly what `run` gives.
fn long_blocks() {
    use biggru::{Gru0 as G, Gru0Forward as F, Gru0Reverse as R};
    const H: usize = G::HIDDEN_SIZE;
    let x = input::<{ G::INPUT_SIZE }, { G::STEPS }>();
    let h0 = [[0.25f32; H], [-0.125f32; H]];
    let mut y = [[[0.0f32; H]; G::STEPS]; 2];
    let mut ho = [[0.0f32; H]; 2];
    G::new().run(&x, &h0, G::STEPS, &mut y, &mut ho).expect("all the steps");
    let mut back = x;
    back.reverse();
    for chunk in [1, 2, 5, 8, 9, 34, 35, 36, 67, 68, 69, 70] {
        let (mut h, mut ys) = (h0[0], [[0.0f32; H]; G::STEPS]);
        for (xc, yc) in x.chunks(chunk).zip(ys.chunks_mut(chunk)) {
            F::new().feed(&mut h, xc, yc).expect("as many outputs as steps");
        }
        assert_eq!((ys, h), (y[0], ho[0]), "forward, pieces of {chunk}");
        let (mut h, mut ys) = (h0[1], [[0.0f32; H]; G::STEPS]);
        for (xc, yc) in back.chunks(chunk).zip(ys.chunks_mut(chunk)) {
            R::new().feed(&mut h, xc, yc).expect("as many outputs as steps");
        }
        ys.reverse();
        assert_eq!((ys, h), (y[1], ho[1]), "reverse, pieces of {chunk}");
    }
}

fn main() {
    batch_api();
    long_blocks();
    use gru::{GruSeqForward as G, GruSeqForwardForward as GK};
    let x = input::<{ G::INPUT_SIZE }, { G::STEPS }>();
    let h0 = [[0.25f32; G::HIDDEN_SIZE]; 1];
    let mut y = [[[0.0f32; G::HIDDEN_SIZE]; G::STEPS]; 1];
    let mut ho = [[0.0f32; G::HIDDEN_SIZE]; 1];
    G::new().run(&x, &h0, G::STEPS, &mut y, &mut ho).expect("all the steps");
    for chunk in 1..=G::STEPS {
        let mut h = h0[0];
        let mut ys = [[0.0f32; G::HIDDEN_SIZE]; G::STEPS];
        for (xc, yc) in x.chunks(chunk).zip(ys.chunks_mut(chunk)) {
            GK::new().feed(&mut h, xc, yc).expect("as many outputs as steps");
        }
        assert_eq!(ys, y[0], "GRU outputs, pieces of {chunk}");
        assert_eq!(h, ho[0], "GRU state, pieces of {chunk}");
    }
    // Outputs for another number of steps than the inputs: an error, and nothing computed.
    let (mut h, mut ys) = (h0[0], [[0.0f32; G::HIDDEN_SIZE]; G::STEPS]);
    let err = GK::new().feed(&mut h, &x[..2], &mut ys[..3]).expect_err("one output row per input row");
    assert_eq!(err, cellc_runtime::Error::Length { name: "ys", expected: 2, got: 3 });
    assert_eq!(h, h0[0], "the state did not move");

    use lstm::{LstmSeqForward as L, LstmSeqForwardForward as LK};
    let x = input::<{ L::INPUT_SIZE }, { L::STEPS }>();
    let (h0, c0) = ([[0.25f32; L::HIDDEN_SIZE]; 1], [[-0.5f32; L::HIDDEN_SIZE]; 1]);
    let mut y = [[[0.0f32; L::HIDDEN_SIZE]; L::STEPS]; 1];
    let (mut ho, mut co) = ([[0.0f32; L::HIDDEN_SIZE]; 1], [[0.0f32; L::HIDDEN_SIZE]; 1]);
    L::new().run(&x, &h0, &c0, L::STEPS, &mut y, &mut ho, &mut co).expect("all the steps");
    for chunk in 1..=L::STEPS {
        let (mut h, mut c) = (h0[0], c0[0]);
        let mut ys = [[0.0f32; L::HIDDEN_SIZE]; L::STEPS];
        for (xc, yc) in x.chunks(chunk).zip(ys.chunks_mut(chunk)) {
            LK::new().feed(&mut h, &mut c, xc, yc).expect("as many outputs as steps");
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

/// A bidirectional GRU of 160 units over 70 steps (340 KB of weights a direction), from
/// its ONNX file.
fn long_blocks_model() -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/pt_gru_bidirectional_long_blocks/model.onnx");
    cellc::compile_file(&file, &cellc::Options::default()).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn feeding_in_pieces_and_whole_batches_equal_one_run() {
    let files = [
        ("gru.rs".to_owned(), generated("gru_seq_forward")),
        ("lstm.rs".to_owned(), generated("lstm_seq_forward")),
        ("bigru.rs".to_owned(), generated("gru_seq_bidirectional_lbr")),
        ("revlstm.rs".to_owned(), generated("lstm_seq_reverse")),
        ("biggru.rs".to_owned(), long_blocks_model()),
        ("main.rs".to_owned(), MAIN.to_owned()),
    ];
    let scratch = Scratch::new("streaming");
    let exe = scratch.build_program(&files).unwrap_or_else(|e| panic!("{e}"));
    let out = std::process::Command::new(exe).output().expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

const WEIGHTS_MAIN: &str = r#"
mod embedded { include!("embedded.rs"); }
mod runtime { include!("runtime.rs"); }
mod weights { include!("weights.rs"); }
use cellc_runtime::{Error, Model};

fn main() {
    let (mut e, mut r) = (embedded::Vad::new(), runtime::Vad::new());
    assert_eq!(runtime::Vad::INPUTS, embedded::Vad::INPUTS, "run takes the data Parameters only");
    assert_eq!(runtime::Vad::WEIGHTS.len(), weights::ALL.len());
    assert!(embedded::Vad::WEIGHTS.is_empty());
    let x: Vec<f32> = (0..16).map(|k| (k as f32 * 0.37).sin()).collect();
    let mut h = vec![0.0f32; 128];
    let (mut ye, mut yr) = (vec![0.0f32; 128], vec![0.0f32; 128]);
    assert_eq!(r.run(&[&x, &h], &mut [&mut yr]), Err(Error::WeightsNotSet));
    assert!(matches!(r.set_weights(&weights::ALL[..2]), Err(Error::WeightCount { expected: 3, got: 2 })));
    let short = &weights::ALL[0][1..];
    assert!(matches!(r.set_weights(&[short, weights::ALL[1], weights::ALL[2]]), Err(Error::Length { .. })));
    assert_eq!(r.run(&[&x, &h], &mut [&mut yr]), Err(Error::WeightsNotSet), "a failed set leaves none set");
    {
        // Weights owned only while they are set: the runs after read the packed copy alone.
        let owned: Vec<Vec<f32>> = weights::ALL.iter().map(|w| w.to_vec()).collect();
        let slices: Vec<&[f32]> = owned.iter().map(Vec::as_slice).collect();
        r.set_weights(&slices).expect("the weights' lengths");
    }
    for frame in 0..4 {
        e.run(&[&x, &h], &mut [&mut ye]).expect("lengths");
        r.run(&[&x, &h], &mut [&mut yr]).expect("lengths");
        assert_eq!(ye, yr, "frame {frame}: weights given at run time compute what embedded ones do");
        h.copy_from_slice(&yr);
    }
}
"#;

/// A model with weights given at run time takes them once (`set_weights`, checked), runs
/// on data alone from then on, and computes to the bit what the same model with the
/// weights embedded computes; before its weights are set it refuses to run.
#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn weights_given_at_run_time_are_set_once_and_run_alone() {
    use std::fmt::Write as _;
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/gru/model.xml");
    let compile = |mode| {
        let opts = cellc::Options::default().weights_mode(mode).name(Some("Vad".into()));
        cellc::compile_file(&model, &opts).unwrap_or_else(|d| panic!("{d}"))
    };
    let loaded = cellc::load_graph(&model, &cellc::Options::default()).unwrap_or_else(|d| panic!("{d}"));
    let (_, values) = loaded.with_runtime_weights();
    let mut weights = String::new();
    for (k, v) in values.iter().enumerate() {
        let list: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
        let _ = writeln!(weights, "pub static W{k}: [f32; {}] = [{}];", v.len(), list.join(", "));
    }
    let all: Vec<String> = (0..values.len()).map(|k| format!("&W{k}")).collect();
    let _ = writeln!(weights, "pub static ALL: [&[f32]; {}] = [{}];", values.len(), all.join(", "));
    let files = [
        ("embedded.rs".to_owned(), compile(cellc::WeightsMode::Embedded)),
        ("runtime.rs".to_owned(), compile(cellc::WeightsMode::Runtime)),
        ("weights.rs".to_owned(), weights),
        ("main.rs".to_owned(), WEIGHTS_MAIN.to_owned()),
    ];
    let scratch = Scratch::new("runtime_weights");
    let exe = scratch.build_program(&files).unwrap_or_else(|e| panic!("{e}"));
    let out = std::process::Command::new(exe).output().expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
