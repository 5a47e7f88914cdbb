//! Compiles the GRU shipped in `examples/gru` into `OUT_DIR/vad.rs`.
fn main() {
    cellc::Builder::new().model("../gru/model.xml").file_name("vad.rs").generate_or_exit();
}
