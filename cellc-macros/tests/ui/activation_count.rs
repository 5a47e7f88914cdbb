cellc_macros::lstm_cell! {
    pub struct Lstm<input_size = 4, hidden_size = 8, activations = [sigmoid, tanh]>;
}

fn main() {}
