"""Speech from espeak-ng (22050 Hz) resampled to 16 kHz int16, a second of silence on each
side and a little noise: the audio the demo streams."""
import sys, wave, numpy as np
w = wave.open(sys.argv[1]); sr = w.getframerate()
x = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float64)
n = int(len(x) * 16000 / sr)
y = np.interp(np.arange(n) * sr / 16000, np.arange(len(x)), x)
y = np.concatenate([np.zeros(16000), y, np.zeros(16000)])
y = y + np.random.default_rng(7).normal(0, 30, len(y))
np.clip(y, -32768, 32767).astype("<i2").tofile(sys.argv[2])
print(f"{len(y) / 16000:.2f} s of audio")
