"""The error that 16-bit weights add, per configuration of the step bench: the weights
`bench/build.rs` draws for A, A lbr, E and F (the same generator, seeds and scales), the
bench's input at every step, 100 steps from a zero state, computed in f64 once with the f32
weights and once with `W` and `R` rounded to f16 and to bf16 (to nearest, ties to even; the
biases stay f32, as `--weight-type` stores them). Prints the largest difference of the
state (and, for F, of the cell state) over the steps.

Usage: python3 bench/rounding.py
"""
import numpy as np

STEPS = 100
# name, kind, hidden, input, index in CONFIGS of bench/build.rs
CONFIGS = [
    ("A", "gru", 128, 16, 0),
    ("A lbr", "gru_lbr", 128, 16, 1),
    ("E", "rnn", 128, 16, 4),
    ("F", "lstm", 128, 16, 8),
]
GATES = {"gru": 3, "gru_lbr": 3, "rnn": 1, "lstm": 4}
BIAS_BLOCKS = {"gru": 3, "gru_lbr": 4, "rnn": 1, "lstm": 4}
MASK = (1 << 64) - 1


def values(seed, n, scale):
    """`values` of bench/build.rs: xorshift64, the top 24 bits to [-1, 1), times `scale`, in f32."""
    s, out = seed, np.empty(n, dtype=np.float32)
    for k in range(n):
        s ^= (s << 13) & MASK
        s ^= s >> 7
        s ^= (s << 17) & MASK
        u = np.float32(s >> 40) / np.float32(1 << 24)
        out[k] = (u * np.float32(2.0) - np.float32(1.0)) * np.float32(scale)
    return out


def bf16(v):
    """Rounds f32 values to bfloat16 (to nearest, ties to even), back as f32."""
    bits = v.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def run(kind, h, w, r, b, x):
    """The state after each step (and the cell state, for an LSTM), in f64."""
    w, r, b = w.astype(np.float64), r.astype(np.float64), b.astype(np.float64)
    state, cell, states = np.zeros(h), np.zeros(h), []
    for _ in range(STEPS):
        if kind == "rnn":
            state = np.tanh(w @ x + r @ state + b)
        elif kind == "lstm":
            a = w @ x + r @ state + b
            f, i, c, o = (a[k * h:(k + 1) * h] for k in range(4))
            cell = sigmoid(f) * cell + sigmoid(i) * np.tanh(c)
            state = sigmoid(o) * np.tanh(cell)
        else:
            ax, rz = w @ x, r[:2 * h] @ state
            z = sigmoid(ax[:h] + rz[:h] + b[:h])
            rg = sigmoid(ax[h:2 * h] + rz[h:2 * h] + b[h:2 * h])
            if kind == "gru":
                n = np.tanh(ax[2 * h:] + r[2 * h:] @ (rg * state) + b[2 * h:3 * h])
            else:
                n = np.tanh(ax[2 * h:] + b[2 * h:3 * h] + rg * (r[2 * h:] @ state + b[3 * h:4 * h]))
            state = (1.0 - z) * n + z * state
        states.append(np.concatenate([state, cell]))
    return np.array(states)


def main():
    print("config  f16 weights  bf16 weights   (largest |difference| of the state over 100 steps)")
    for name, kind, h, i, k in CONFIGS:
        g = GATES[kind] * h
        scale = 2.0 / np.sqrt(np.float32(h + i))
        w = values(11 + k, g * i, scale).reshape(g, i)
        r = values(23 + k, g * h, scale).reshape(g, h)
        b = values(37 + k, BIAS_BLOCKS[kind] * h, 0.5)
        # The step bench's input, the same at every step.
        x = np.array([((j * 7 % 11) - 5.0) * 0.1 for j in range(i)])
        exact = run(kind, h, w, r, b, x)
        errs = []
        for rounded in (lambda v: v.astype(np.float16).astype(np.float32), bf16):
            errs.append(np.abs(run(kind, h, rounded(w), rounded(r), b, x) - exact).max())
        print(f"{name:7s} {errs[0]:11.2e}  {errs[1]:12.2e}")


if __name__ == "__main__":
    main()
