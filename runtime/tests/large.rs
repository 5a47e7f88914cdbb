//! A cell with weights given at run time holds them by value: H = I = 1024 is 25 MB, more
//! than any thread's stack. `cellc_runtime::boxed` builds it (and a model holding it) in
//! place on the heap, on a thread with a 1 MiB stack (a debug build's step takes a few hundred
//! KiB of it), in a debug build.
cellc_runtime::gru_cell! {
    pub struct Big<input_size = 1024, hidden_size = 1024, linear_before_reset = true>;
}

#[test]
fn a_large_runtime_weights_cell_is_built_on_the_heap() {
    let t = std::thread::Builder::new().stack_size(1 << 20).spawn(|| {
        let (i, h) = (Big::INPUT_SIZE, Big::HIDDEN_SIZE);
        let w = vec![0.01f32; 3 * h * i];
        let r = vec![-0.01f32; 3 * h * h];
        let b = vec![0.5f32; 4 * h];
        let mut cell = cellc_runtime::boxed::<Big>();
        cell.set_weights(&w, &r, &b).expect("lengths");
        let x = vec![[1.0f32; Big::INPUT_SIZE]; 1];
        let h0 = vec![[0.0f32; Big::HIDDEN_SIZE]; 1];
        let mut out = vec![[0.0f32; Big::HIDDEN_SIZE]; 1];
        cell.step_batch(&x, &h0, &mut out).expect("one row");
        let out = out.as_flattened();
        // Every lane sees the same weights: z = r = σ(10.24 + 1), n = tanh(10.24 + 0.5 + r·0.5).
        let z = 1.0 / (1.0 + (-(10.24f32 + 1.0)).exp());
        let n = (10.24f32 + 0.5 + z * 0.5).tanh();
        let want = (1.0 - z) * n;
        assert!(out.iter().all(|&o| (o - want).abs() < 1e-5), "{} vs {want}", out[0]);
        let _model = cellc_runtime::boxed::<BigModel>();
    });
    t.expect("spawn").join().expect("no stack overflow");
}
