#!/usr/bin/env python3
"""Fits the polynomial and rational coefficients in runtime/src/act.rs (numpy only).

Each fit is a minimax fit by Lawson's iteratively reweighted least squares on a dense
grid, in double precision; the f32 functions built from the printed coefficients are then
checked over every f32 input by runtime/tests/ulp.rs, which is what the docs quote.

    python3 runtime/scripts/fit_activations.py
"""
import numpy as np


def lawson(basis, target, scale, iters=3000):
    """Coefficients minimising max |basis @ c - target| * scale, and that maximum."""
    w = np.full(len(target), 1.0 / len(target))
    for _ in range(iters):
        sw = np.sqrt(w) * scale
        c, *_ = np.linalg.lstsq(basis * sw[:, None], target * sw, rcond=None)
        err = np.abs(basis @ c - target) * scale
        w = w * err
        w /= w.sum()
    return c, err.max()


def powers(x, n):
    return np.stack([x**k for k in range(n)], 1)


def expm1_small():
    """expm1(x) = x + x^2 P(x) on [-ln2/2, 0], relative error."""
    x = np.linspace(-np.log(2) / 2, -1e-6, 20000)
    g = (np.expm1(x) - x) / x**2
    c, _ = lawson(powers(x, 5), g, np.abs(x**2 / np.expm1(x)))
    return c


def log_atanh():
    """log(m) = 2s + s^3 P(s^2), s = (m-1)/(m+1), m in [sqrt(1/2), sqrt(2)], relative error."""
    smax = (np.sqrt(2) - 1) / (np.sqrt(2) + 1)
    s = np.linspace(1e-6, smax, 20000)
    t = s * s
    g = sum(2 * t ** (k - 1) / (2 * k + 1) for k in range(1, 40))  # (2 atanh(s) - 2s) / s^3
    c3, _ = lawson(powers(t, 3), g, s**3 / (2 * np.arctanh(s)))
    c2, _ = lawson(powers(t, 2), g, s**3 / (2 * np.arctanh(s)))
    return c3, c2


def exp_fast():
    """e^r = 1 + r + r^2 P(r) on [-ln2/2, ln2/2], relative error, P of degree 3."""
    r = np.linspace(-np.log(2) / 2, np.log(2) / 2, 20001)
    r = r[r != 0]
    g = (np.exp(r) - 1 - r) / r**2
    c, _ = lawson(powers(r, 4), g, r**2 / np.exp(r))
    return c


def tanh_rational(clamp=7.9, iters=800):
    """tanh(x) = x P(x^2) / Q(x^2) on (0, clamp], P of degree 3 and Q of degree 4 in x^2, Q(0) = 1,
    relative error; linearised (x P - tanh Q = 0), reweighted by the previous Q."""
    x = np.linspace(1e-4, clamp, 40000)
    f = np.tanh(x)
    x2 = x * x
    basis = np.concatenate([x[:, None] * powers(x2, 4), -f[:, None] * powers(x2, 5)[:, 1:]], 1)
    q = np.ones_like(x)
    w = np.full(len(x), 1.0 / len(x))
    for it in range(iters):
        scale = 1 / (f * q)
        sw = np.sqrt(w) * scale
        sol, *_ = np.linalg.lstsq(basis * sw[:, None], f * sw, rcond=None)
        a, b = sol[:4], np.concatenate([[1.0], sol[4:]])
        qn = powers(x2, 5) @ b
        err = np.abs(x * (powers(x2, 4) @ a) / qn - f) / f
        w = w * err
        w /= w.sum()
        if it % 20 == 19:
            q = qn
    return a, b, err.max()


def main():
    print("expm1 near 0 (elu):", [float(np.float32(v)) for v in expm1_small()])
    c3, c2 = log_atanh()
    print("log, 3 terms (softplus):", [float(np.float32(v)) for v in c3])
    print("log, 2 terms (fast softplus):", [float(np.float32(v)) for v in c2])
    print("exp, fast:", [float(np.float32(v)) for v in exp_fast()])
    a, b, e = tanh_rational()
    print(f"tanh, fast (relative error {e:.2e} in f64): P", [float(np.float32(v)) for v in a],
          "Q", [float(np.float32(v)) for v in b])


if __name__ == "__main__":
    main()
