cellc_macros::rnn_cell! {
    pub struct Rnn<input_size = 4, hidden_size = 8, clip = -1.5>;
}

fn main() {}
