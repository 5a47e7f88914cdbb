cellc_macros::gru_cell! {
    #[derive(PartialEq)]
    pub struct Vad<input_size = 16, hidden_size = 8>;
}

fn main() {}
