//! `include_model!` expands to what the command line writes for the same model and the same
//! options: the items compile, and they compute what the library's own emission computes.
#![allow(missing_docs, dead_code, unreachable_pub)]
use std::path::Path;

mod vad {
    cellc_macros::include_model!("../examples/gru/model.xml", allow_outside_crate);
}

/// The GUIDE's streaming example (section 4) as a macro: a PyTorch export with dynamic
/// steps and batch, pinned to one frame, its state pair carried (its Result kept by the cut
/// to `output`).
mod stream {
    cellc_macros::include_model!(
        "../tests/models/pt_gru_dynamic_h0/model.xml",
        allow_outside_crate,
        input = ["input=[1,1,8]", "h0=[1,1,16]"],
        state = "h0=h_n",
        outputs = "output",
        name = "Stream",
        weight_type = "f32",
    );
}

/// The same export, all five steps in one call from a zero state.
mod whole {
    cellc_macros::include_model!(
        "../tests/models/pt_gru_dynamic_h0/model.xml",
        allow_outside_crate,
        input = "input=[1,5,8]",
        input = "h0=[1,1,16]",
        name = "Whole",
        weight_type = "f32",
        fast_activations = false,
        threads = 1,
    );
}

#[test]
fn the_included_model_runs() {
    use cellc_runtime::Model as _;
    let x = [0.5f32; vad::Gru::INPUT_SIZE];
    let h = [0.25f32; vad::Gru::HIDDEN_SIZE];
    let mut a = [0.0f32; vad::Gru::HIDDEN_SIZE];
    vad::Gru::new().step(&x, &h, &mut a);
    let mut b = [0.0f32; vad::Gru::HIDDEN_SIZE];
    vad::Vad::new().run(&[&x, &h], &mut [&mut b]).expect("lengths fit");
    assert_eq!(a, b);
    assert!(a.iter().any(|v| *v != 0.0));
}

#[test]
fn a_pinned_export_streams_frame_by_frame_as_it_runs_whole() {
    use cellc_runtime::Model as _;
    let frames: Vec<[f32; 8]> = (0..5).map(|t| core::array::from_fn(|i| ((t * 8 + i) as f32 * 0.37).sin())).collect();
    let (mut whole_out, mut whole_h) = ([0.0f32; 5 * 16], [0.0f32; 16]);
    let flat: Vec<f32> = frames.iter().flatten().copied().collect();
    whole::Whole::new().run(&[&flat, &[0.0; 16]], &mut [&mut whole_out, &mut whole_h]).expect("lengths fit");
    let mut net = stream::Stream::new();
    let mut out = [0.0f32; 16];
    for (t, frame) in frames.iter().enumerate() {
        // The state is the model's own: `run` takes the frame alone and fills `output`.
        net.run(&[frame], &mut [&mut out]).expect("lengths fit");
        for (a, b) in out.iter().zip(&whole_out[t * 16..(t + 1) * 16]) {
            assert!((a - b).abs() <= 1e-6, "step {t}: {a} streamed, {b} whole");
        }
    }
    assert_eq!(out[..], whole_h[..], "the last frame's output is the final state");
    assert!(out.iter().any(|v| *v != 0.0));
}

/// The expansion is the command line's code for the same options, read by cargo's tracking
/// of the model and its weights.
#[test]
fn the_macro_expands_what_the_command_line_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tokens = quote::quote! {
        "../tests/models/pt_gru_dynamic_h0/model.xml", allow_outside_crate,
        input = ["input=[1,1,8]", "h0=[1,1,16]"], state = "h0=h_n", outputs = "h_n,output", name = "Stream"
    };
    let expanded = cellc::expand::include_model(tokens, root).to_string();
    let model = root.join("../tests/models/pt_gru_dynamic_h0/model.xml");
    // The options `--input … --state … --outputs … --name …` stand for (`cellc/tests/integration/cli.rs`
    // checks the flags and the keys set the same options).
    let mut opts = cellc::Options::default();
    let keys = [("input", "input=[1,1,8]"), ("input", "h0=[1,1,16]"), ("state", "h0=h_n")];
    for (k, v) in keys.into_iter().chain([("outputs", "h_n,output"), ("name", "Stream")]) {
        opts.set(k, v).expect("a key");
    }
    let code: proc_macro2::TokenStream = cellc::compile_file(&model, &opts).expect("compiles").parse().expect("tokens");
    let code = code.to_string();
    assert!(expanded.ends_with(&code), "the expansion is not the command line's code");
    assert!(expanded.starts_with("const _ : & [u8] = include_bytes !"), "{}", &expanded[..80]);
    assert_eq!(expanded.matches("include_bytes !").count(), 2, "the model and its weights are tracked");
}
