//! Cells declared with `gru_cell!`, `rnn_cell!` and `lstm_cell!` compile with the declared
//! visibility and keys, and a struct holding its weights checks their lengths. (What they
//! compute is checked by `equivalence.rs` and `examples/macro`.)
#![allow(missing_docs, dead_code, unreachable_pub)]

cellc_macros::gru_cell! {
    /// A small GRU with its weights given at run time, in PyTorch's layout.
    pub struct TorchGru<input_size = 3, hidden_size = 5, linear_before_reset = true, layout = pytorch>;
}

cellc_macros::lstm_cell! {
    pub(crate) struct ClippedLstm<input_size = 2, hidden_size = 4, clip = 0.5,
        activations = [hardsigmoid(alpha = 0.3), tanh, softsign]>;
}

// A one-letter name that no generic parameter of the generated code takes.
cellc_macros::lstm_cell! {
    pub struct L<input_size = 2, hidden_size = 3>;
}

cellc_macros::rnn_cell! {
    struct Reverse<input_size = 2, hidden_size = 3, steps = 4, direction = reverse, batch = 2>;
}

#[test]
fn declared_cells_run() {
    let w: Vec<f32> = (0..45).map(|k| (k as f32 * 0.37).sin()).collect();
    let r: Vec<f32> = (0..75).map(|k| (k as f32 * 0.11).cos() * 0.5).collect();
    let b: Vec<f32> = (0..30).map(|k| k as f32 * 0.01).collect();
    let gru = TorchGru::new(&w, &r, &b).expect("lengths fit");
    let mut out = [0.0; 5];
    gru.step(&[0.1, 0.2, 0.3], &[0.0; 5], &mut out);
    assert!(out.iter().any(|v| *v != 0.0));
    assert!(TorchGru::new(&w[1..], &r, &b).is_err());
    let (w, r, b) = (vec![0.1; 24], vec![0.2; 36], vec![0.0; 12]);
    let l = L::new(&w, &r, &b).expect("lengths fit");
    let (mut h, mut c) = ([0.0; 3], [0.0; 3]);
    l.step(&[1.0, 0.5], &[0.0; 3], &[0.0; 3], &mut h, &mut c);
    assert!(h.iter().all(|v| *v != 0.0) && c.iter().all(|v| *v != 0.0), "{h:?} {c:?}");
}
