//! `cellc-onnx-proto ONNX_PROTO OUT_DIR`: compiles the ONNX schema (`onnx.proto`, as the
//! `onnx` Python package ships it) with protox, a protobuf compiler in Rust, and writes its
//! prost types to `OUT_DIR/onnx.rs` without the schema's comments. Run by `gen.sh`.
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [proto, out] = args.as_slice() else {
        return Err("usage: cellc-onnx-proto ONNX_PROTO OUT_DIR".into());
    };
    let proto = Path::new(proto);
    let dir = proto.parent().ok_or("the schema's folder")?;
    let name = proto.file_name().ok_or("the schema's file name")?;
    let descriptors = protox::compile([name], [dir])?;
    prost_build::Config::new().out_dir(out).disable_comments(["."]).compile_fds(descriptors)?;
    Ok(())
}
