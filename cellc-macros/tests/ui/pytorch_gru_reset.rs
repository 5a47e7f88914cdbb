cellc_macros::gru_cell! {
    pub struct TorchGru<input_size = 4, hidden_size = 8, layout = pytorch>;
}

fn main() {}
