//! Two cells declared with cellc's macros, their weights loaded from files at run time: a
//! GRU as PyTorch stores it (`torch.nn.GRU`: gates r, z, n; `bias_ih` then `bias_hh`)
//! feeding an LSTM as ONNX stores it (gates i, o, f, c; `B = [Wb, Rb]`). Each type takes
//! its weights in its declared layout and packs them once, at construction; the step
//! allocates nothing. The program runs a 50-step sequence through both and checks the
//! result against OpenVINO's for the same pair (`data/expected.f32`, written by
//! `tests/scripts/gen_fixtures.py`).
use std::error::Error;
use std::path::Path;

cellc_runtime::gru_cell! {
    /// The front GRU, with `torch.nn.GRU(8, 16)`'s weights.
    pub struct Front<input_size = 8, hidden_size = 16, linear_before_reset = true, layout = pytorch>;
}

cellc_runtime::lstm_cell! {
    /// The LSTM on top, with an ONNX LSTM's weights.
    pub struct Tracker<input_size = 16, hidden_size = 12, layout = onnx>;
}

/// A file of little-endian f32 values.
fn floats(path: &Path) -> Result<Vec<f32>, Box<dyn Error>> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes.as_chunks::<4>().0.iter().map(|b| f32::from_le_bytes(*b)).collect())
}

/// `W`, `R` and `B` stored one after the other, given the lengths of `W` and `R`.
fn split(v: &[f32], w: usize, r: usize) -> Result<[&[f32]; 3], String> {
    if v.len() < w + r {
        return Err(format!("{} values; expected at least {}", v.len(), w + r));
    }
    let (w, rest) = v.split_at(w);
    let (r, b) = rest.split_at(r);
    Ok([w, r, b])
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (i, h1, h2) = (Front::INPUT_SIZE, Front::HIDDEN_SIZE, Tracker::HIDDEN_SIZE);
    let g = floats(&dir.join("weights/gru.bin"))?;
    let [w, r, b] = split(&g, 3 * h1 * i, 3 * h1 * h1)?;
    // The constructors check every length: a file of the wrong size is an error, not a panic.
    let front = Front::new(w, r, b)?;
    let l = floats(&dir.join("weights/lstm.bin"))?;
    let [w, r, b] = split(&l, 4 * h2 * h1, 4 * h2 * h2)?;
    let tracker = Tracker::new(w, r, b)?;

    let input = floats(&dir.join("data/input.f32"))?;
    let xs: Vec<[f32; 8]> = input.as_chunks::<8>().0.to_vec();
    let mut hidden = vec![[0.0f32; 16]; xs.len()];
    let mut out = vec![[0.0f32; 12]; xs.len()];
    let mut h = [0.0f32; 16];
    front.feed(&mut h, &xs, &mut hidden)?;
    let (mut h, mut c) = ([0.0f32; 12], [0.0f32; 12]);
    tracker.feed(&mut h, &mut c, &hidden, &mut out)?;

    let expected = floats(&dir.join("data/expected.f32"))?;
    let err = out.as_flattened().iter().zip(&expected).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    println!("{} steps through Front (GRU, PyTorch layout) and Tracker (LSTM, ONNX layout)", xs.len());
    println!("final LSTM state: {:?}", &h[..4]);
    println!("max |error| against OpenVINO: {err:.2e}");
    if expected.len() != out.as_flattened().len() || err > 1e-5 {
        return Err(format!("the outputs differ from OpenVINO's by {err:.2e}").into());
    }
    Ok(())
}
