// A model whose inputs and outputs all have one length takes them as arrays through
// `run_arrays`: a buffer of the wrong length is a compile error, not an `Error::Length`.
cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate);

fn main() {
    let (x, h, mut y) = ([0.0f32; 15], [0.0f32; 128], [0.0f32; 128]);
    let _ = Vad::new().run_arrays(&x, &h, &mut y);
}
