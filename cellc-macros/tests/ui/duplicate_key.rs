cellc_macros::rnn_cell! {
    pub struct Tiny<input_size = 2, hidden_size = 4, input_size = 3>;
}

fn main() {}
