cellc_macros::lstm_cell! {
    pub struct Lstm<input_size = "16", hidden_size = 8, clip = true, layout = "onnx">;
}

fn main() {}
