// trybuild compiles this case in target/tests/trybuild/cellc-macros, the manifest
// directory paths are relative to.
cellc_macros::gru_cell! {
    pub struct Vad<input_size = 2, hidden_size = 3, weights = "../../../../cellc-macros/tests/ui/data/short.bin", allow_outside_crate = true>;
}

fn main() {}
