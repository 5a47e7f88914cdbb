cellc_macros::gru_cell! {
    pub struct Vad<input_size = 16, hidden_size = 8, weights = "weights/none.bin">;
}

fn main() {}
