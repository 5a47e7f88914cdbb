//! Compiles the voice-activity GRU shipped in `examples/gru` into `OUT_DIR/vad.rs`, and puts
//! the chip's memory map where cortex-m-rt's linker script looks for it.
use std::path::PathBuf;

fn main() {
    cellc::Builder::new().model("../gru/model.xml").file_name("vad.rs").generate_or_exit();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::copy("memory.x", out.join("memory.x")).expect("copy memory.x into OUT_DIR");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
}
