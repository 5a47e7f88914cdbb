//! Runs the GRU compiled by `build.rs` over a short sequence, one block at a time, as a
//! streaming caller would, then once more through the model entry point.
use cellc_runtime::Model as _;

// Generated code is included whole; this program uses part of it.
#[allow(missing_docs, dead_code, unreachable_pub)]
mod vad {
    include!(concat!(env!("OUT_DIR"), "/vad.rs"));
}

fn main() -> Result<(), cellc_runtime::Error> {
    let cell = vad::Gru::new();
    // 64 steps of a slow sine on every input, fed in blocks of 16.
    let xs: Vec<[f32; vad::Gru::INPUT_SIZE]> =
        (0..64).map(|t| core::array::from_fn(|k| ((t as f32) * 0.1 + k as f32).sin())).collect();
    let mut h = [0.0f32; vad::Gru::HIDDEN_SIZE];
    let mut ys = vec![[0.0f32; vad::Gru::HIDDEN_SIZE]; xs.len()];
    for (x, y) in xs.chunks(16).zip(ys.chunks_mut(16)) {
        cell.feed(&mut h, x, y).expect("as many outputs as steps");
    }
    let energy: f32 = h.iter().map(|v| v * v).sum();
    println!("after {} steps: |h|² = {energy:.6}", xs.len());

    // The same last step through the model's entry point: Parameters X and H in, H' out.
    let mut out = [0.0f32; vad::Gru::HIDDEN_SIZE];
    let before = ys[ys.len() - 2];
    vad::Vad::new().run(&[&xs[xs.len() - 1], &before], &mut [&mut out])?;
    assert_eq!(out, h, "the model entry point and the cell agree");
    println!("model entry point agrees with the streamed state");
    Ok(())
}
