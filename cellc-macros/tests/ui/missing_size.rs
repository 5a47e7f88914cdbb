cellc_macros::gru_cell! {
    pub struct Vad<input_size = 16, linear_before_reset = true>;
}

fn main() {}
