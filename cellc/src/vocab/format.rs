//! The formats of the model files cellc reads, told by the file's extension.
use std::path::Path;

/// The formats of model files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// OpenVINO IR: an `.xml` file and its `.bin` weights.
    OpenVino,
    /// An ONNX file (`.onnx`).
    Onnx,
}

impl Format {
    /// The format of the model file `path`, by its extension: `.onnx` (in any case) is ONNX;
    /// any other file is read as an OpenVINO IR's XML.
    pub fn of(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("onnx") => Format::Onnx,
            _ => Format::OpenVino,
        }
    }
}
