cellc_macros::gru_cell! {
    pub struct Vad<input_size = 16, hidden_size = 1000000000, steps = 4611686018427387904, batch = 99999999999999999999999>;
}

fn main() {}
