//! openWakeWord's "hey mycroft" detector, streamed 80 ms at a time through the three models
//! cellc compiled from the ONNX files of the openwakeword 0.4.0 wheel: the mel spectrogram
//! of the chunk and 480 samples before it (8 frames, scaled x/10 + 2), the embedding of the
//! last 76 frames, and the classifier over the last 16 embeddings. Compared with what
//! onnxruntime gives for each chunk; the time of each chunk measured.
use cellc_runtime::Model as _;
use std::time::Instant;

mod mel {
    include!("mel.rs");
}
mod emb {
    include!("emb.rs");
}
mod ww {
    include!("ww.rs");
}

const CHUNK: usize = 1280;
const CTX: usize = 480;

fn f32s(path: &str) -> Vec<f32> {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn main() {
    let dir = std::env::args().nth(1).expect("the folder of audio.s16 and onnxruntime's outputs");
    let audio: Vec<f32> = std::fs::read(format!("{dir}/audio.s16"))
        .expect("audio")
        .chunks_exact(2)
        .map(|c| f32::from(i16::from_le_bytes([c[0], c[1]])))
        .collect();
    let (want_scores, want_mels, want_embs) =
        (f32s(&format!("{dir}/scores.f32")), f32s(&format!("{dir}/mels.f32")), f32s(&format!("{dir}/embeddings.f32")));
    let mut mel = Box::new(mel::Mel::new());
    let mut emb = Box::new(emb::Embedding::new());
    let mut ww = Box::new(ww::Mycroft::new());
    let mut raw = vec![0.0f32; CHUNK + CTX];
    let mut mels = vec![1.0f32; 76 * 32];
    let mut feats = vec![0.0f32; 16 * 96];
    let (mut m, mut e, mut s) = (vec![0.0f32; 8 * 32], vec![0.0f32; 96], [0.0f32; 1]);
    let (mut err_mel, mut err_emb, mut err_score) = (0.0f32, 0.0f32, 0.0f32);
    let mut times = Vec::new();
    let mut parts: [Vec<f64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let mut flagged = Vec::new();
    // Five passes over the stream (each from the same start), every chunk timed; the
    // comparison is of the first.
    for pass in 0..5 {
        raw.fill(0.0);
        mels.fill(1.0);
        feats.fill(0.0);
        for (k, chunk) in audio.chunks_exact(CHUNK).enumerate() {
            let t0 = Instant::now();
            raw.copy_within(CHUNK.., 0);
            raw[CTX..].copy_from_slice(chunk);
            mel.run(&[&raw], &mut [&mut m]).expect("mel runs");
            let t1 = Instant::now();
            for v in &mut m {
                *v = *v / 10.0 + 2.0;
            }
            mels.copy_within(8 * 32.., 0);
            mels[68 * 32..].copy_from_slice(&m);
            emb.run(&[&mels], &mut [&mut e]).expect("embedding runs");
            let t2 = Instant::now();
            feats.copy_within(96.., 0);
            feats[15 * 96..].copy_from_slice(&e);
            ww.run(&[&feats], &mut [&mut s]).expect("classifier runs");
            let t3 = Instant::now();
            times.push((t3 - t0).as_secs_f64() * 1e6);
            for (part, (a, b)) in parts.iter_mut().zip([(t0, t1), (t1, t2), (t2, t3)]) {
                part.push((b - a).as_secs_f64() * 1e6);
            }
            if pass > 0 {
                continue;
            }
            let diff = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
            err_mel = err_mel.max(diff(&m, &want_mels[k * 256..(k + 1) * 256]));
            err_emb = err_emb.max(diff(&e, &want_embs[k * 96..(k + 1) * 96]));
            err_score = err_score.max((s[0] - want_scores[k]).abs());
            if (s[0] > 0.5) != (want_scores[k] > 0.5) {
                panic!("chunk {k}: cellc {} and onnxruntime {} disagree on the detection", s[0], want_scores[k]);
            }
            if s[0] > 0.5 {
                flagged.push(k);
            }
        }
    }
    let n = times.len();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    println!("{} chunks of 80 ms; chunks over 0.5 (both): {flagged:?}", n / 5);
    println!("largest difference from onnxruntime: mel {err_mel:.2e}, embedding {err_emb:.2e}, score {err_score:.2e}");
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let [mel_t, emb_t, ww_t] = &mut parts;
    println!(
        "cellc: median per chunk of each model: mel {:.1} µs, embedding {:.1} µs, classifier {:.1} µs",
        median(mel_t),
        median(emb_t),
        median(ww_t)
    );
    println!(
        "cellc: time per chunk (mel + embedding + classifier, {n} chunks timed): median {:.1} µs, min {:.1} µs, 90th percentile {:.1} µs",
        sorted[n / 2],
        sorted[0],
        sorted[n * 9 / 10]
    );
}
