cellc_macros::gru_cell! {
    pub struct Vad<input_size = 16, hidden_size = 8, weights = "/etc/hostname">;
}

cellc_macros::include_model!("../../../../examples/gru/model.xml");

fn main() {}
