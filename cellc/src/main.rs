//! The `cellc` program; everything it does lives in the library.
fn main() -> std::process::ExitCode {
    cellc::cli::main()
}
