// trybuild compiles this case in target/tests/trybuild/cellc-macros, the manifest
// directory paths are relative to.
cellc_macros::gru_cell! {
    pub struct Vad<input_size = 16, hidden_size = 64, weights = "../../../../examples/gru/model.xml", allow_outside_crate = true>;
}

fn main() {}
