cellc_macros::gru_cell! {
    pub struct Vad<input_size = 16, hiden_size = 128>;
}

fn main() {}
