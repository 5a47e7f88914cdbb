"""openWakeWord's streaming pipeline (mel -> embedding -> hey_mycroft) run chunk by chunk with
onnxruntime on the ONNX files of the openwakeword 0.4.0 wheel: writes the audio and, per
80 ms chunk, the score, the 8 new mel frames and the new embedding (little-endian f32).
Its times are of onnxruntime's Python API as openWakeWord calls it (Python's cost per call
included): what this stream costs there, not a measure of onnxruntime itself (bench/ calls
it through its C API)."""
import sys, time, numpy as np, onnxruntime as ort
models, audio_path, out = sys.argv[1], sys.argv[2], sys.argv[3]
so = ort.SessionOptions(); so.intra_op_num_threads = 1
mel = ort.InferenceSession(f"{models}/melspectrogram.onnx", so, providers=["CPUExecutionProvider"])
emb = ort.InferenceSession(f"{models}/embedding_model.onnx", so, providers=["CPUExecutionProvider"])
ww = ort.InferenceSession(f"{models}/hey_mycroft_v0.1.onnx", so, providers=["CPUExecutionProvider"])
audio = np.fromfile(audio_path, dtype=np.int16).astype(np.float32)
CHUNK, CTX = 1280, 480
times, parts = [], [[], [], []]
for _ in range(5):  # five passes, every chunk timed; the outputs are the last pass's
    raw = np.zeros(CHUNK + CTX, np.float32)
    mels = np.ones((76, 32), np.float32)
    feats = np.zeros((16, 96), np.float32)
    scores, mel_out, emb_out = [], [], []
    for k in range(len(audio) // CHUNK):
        t0 = time.perf_counter()
        raw = np.concatenate([raw, audio[k * CHUNK:(k + 1) * CHUNK]])[-(CHUNK + CTX):]
        m = mel.run(None, {"input": raw[None, :]})[0].reshape(8, 32) / 10 + 2
        t1 = time.perf_counter()
        mels = np.vstack([mels, m])[-76:]
        e = emb.run(None, {"input_1": mels[None, :, :, None]})[0].reshape(96)
        t2 = time.perf_counter()
        feats = np.vstack([feats, e])[-16:]
        s = ww.run(None, {"input_1": feats[None]})[0].reshape(1)
        t3 = time.perf_counter()
        times.append(t3 - t0)
        for part, d in zip(parts, (t1 - t0, t2 - t1, t3 - t2)):
            part.append(d)
        scores.append(s); mel_out.append(m.ravel()); emb_out.append(e)
np.concatenate(scores).astype("<f4").tofile(f"{out}/scores.f32")
np.concatenate(mel_out).astype("<f4").tofile(f"{out}/mels.f32")
np.concatenate(emb_out).astype("<f4").tofile(f"{out}/embeddings.f32")
t = sorted(times)
med = [sorted(p)[len(p) // 2] * 1e6 for p in parts]
print(f"onnxruntime: median per chunk of each model: mel {med[0]:.1f} µs, embedding {med[1]:.1f} µs, classifier {med[2]:.1f} µs")
print(f"onnxruntime (Python, one thread): time per chunk ({len(t)} chunks timed): median {t[len(t) // 2] * 1e6:.1f} µs, "
      f"min {t[0] * 1e6:.1f} µs, 90th percentile {t[len(t) * 9 // 10] * 1e6:.1f} µs")
print(f"{len(scores)} chunks; max score {max(float(s[0]) for s in scores):.4f}; chunks over 0.5: "
      f"{[k for k, s in enumerate(scores) if s[0] > 0.5]}")
