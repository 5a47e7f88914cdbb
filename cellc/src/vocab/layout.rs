//! Gate layouts and bias conventions of the tools that store recurrent weights, and their
//! conversion, at compile time, to the one layout the kernels pack from (OpenVINO's: GRU
//! z, r, h; LSTM f, i, c, o; `B` the per-gate sums, `[4H]` for a GRU whose reset gate is
//! applied after the matrix product).
use super::cell::CellKind;
use std::fmt;

/// How a cell's `W`, `R` and `B` are laid out where they come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// OpenVINO: GRU z, r, h; LSTM f, i, c, o; `B` summed per gate (`[4H]` for a GRU with
    /// `linear_before_reset`: z and r summed, then `Wbh`, `Rbh`).
    #[default]
    OpenVino,
    /// ONNX: GRU z, r, h; LSTM i, o, f, c; `B` = `[Wb, Rb]`, `2·gates·H` values.
    Onnx,
    /// PyTorch: GRU r, z, n (its GRU applies the reset gate after the product); LSTM
    /// i, f, g, o; `B` = `[bias_ih, bias_hh]`, `2·gates·H` values.
    PyTorch,
    /// Apple BNNSGraph / Core ML GRU: r, n, z; `B` = `bias`, the per-gate sums (`3H`), followed
    /// by `inputBias` (`3H`) when the reset gate is applied after the product.
    Bnns,
}

impl Layout {
    /// The name used in declarations and messages.
    pub fn name(self) -> &'static str {
        match self {
            Layout::OpenVino => "openvino",
            Layout::Onnx => "onnx",
            Layout::PyTorch => "pytorch",
            Layout::Bnns => "bnns",
        }
    }

    /// Parses a layout name (case-insensitive).
    pub fn parse(s: &str) -> Option<Layout> {
        match s.to_ascii_lowercase().as_str() {
            "openvino" => Some(Layout::OpenVino),
            "onnx" => Some(Layout::Onnx),
            "pytorch" | "torch" => Some(Layout::PyTorch),
            "bnns" | "coreml" => Some(Layout::Bnns),
            _ => None,
        }
    }

    /// For each of the kernel's gates (OpenVINO order), the gate block it takes in this layout.
    pub fn gate_order(self, kind: CellKind) -> &'static [usize] {
        match (self, kind) {
            (_, CellKind::Rnn) => &[0],
            (Layout::OpenVino | Layout::Onnx, CellKind::Gru { .. }) => &[0, 1, 2],
            // z, r, n from r, z, n.
            (Layout::PyTorch, CellKind::Gru { .. }) => &[1, 0, 2],
            // z, r, n from r, n, z.
            (Layout::Bnns, CellKind::Gru { .. }) => &[2, 0, 1],
            (Layout::OpenVino | Layout::Bnns, CellKind::Lstm) => &[0, 1, 2, 3],
            // f, i, c, o from i, o, f, c.
            (Layout::Onnx, CellKind::Lstm) => &[2, 0, 3, 1],
            // f, i, c, o from i, f, g, o.
            (Layout::PyTorch, CellKind::Lstm) => &[1, 0, 2, 3],
        }
    }

    /// Values `B` holds in this layout, in units of `hidden_size`.
    pub fn bias_blocks(self, kind: CellKind) -> usize {
        match (self, kind) {
            (Layout::OpenVino, k) => k.bias_blocks(),
            (Layout::Onnx | Layout::PyTorch, k) => 2 * k.gates(),
            (Layout::Bnns, CellKind::Gru { linear_before_reset: true }) => 6,
            (Layout::Bnns, k) => k.gates(),
        }
    }

    /// Why a cell cannot be declared in this layout, if it cannot.
    pub fn refuses(self, kind: CellKind) -> Option<String> {
        match (self, kind) {
            (Layout::PyTorch, CellKind::Gru { linear_before_reset: false }) => Some(
                "PyTorch's GRU applies the reset gate after the matrix product: declare linear_before_reset = true"
                    .to_owned(),
            ),
            (Layout::Bnns, CellKind::Lstm | CellKind::Rnn) => {
                Some("the bnns layout describes BNNSGraph's GRU only".to_owned())
            }
            _ => None,
        }
    }

    /// `W` or `R` (one block of rows per gate) in the kernel's gate order.
    pub fn weights(self, kind: CellKind, m: &[f32]) -> Vec<f32> {
        let block = m.len() / kind.gates();
        self.gate_order(kind).iter().flat_map(|&g| m[g * block..(g + 1) * block].iter().copied()).collect()
    }

    /// How each `H`-long block of `B` in the kernel's convention (see [`Layout::OpenVino`])
    /// is made from the blocks of `B` in this layout: a sum of `(block, coefficient)` terms,
    /// as [`cellc_pack::fold_blocks`] reads them. One definition serves the compiler, which
    /// folds embedded biases, and generated code, which folds biases given at run time.
    pub fn bias_terms(self, kind: CellKind) -> Vec<Vec<(usize, f32)>> {
        let order = self.gate_order(kind);
        let gates = kind.gates();
        let lbr = matches!(kind, CellKind::Gru { linear_before_reset: true });
        // With the reset gate after the product, the kernel keeps the candidate gate's input
        // and recurrent biases apart (its last two blocks); every other gate takes their sum.
        let mut terms = Vec::with_capacity(kind.bias_blocks());
        for (k, &g) in order.iter().enumerate() {
            let candidate = lbr && k == 2;
            terms.extend(match self {
                Layout::OpenVino => vec![vec![(k, 1.0)]],
                // [input biases | recurrent biases], each in the layout's gate order.
                Layout::Onnx | Layout::PyTorch if candidate => vec![vec![(g, 1.0)], vec![(gates + g, 1.0)]],
                Layout::Onnx | Layout::PyTorch => vec![vec![(g, 1.0), (gates + g, 1.0)]],
                // `bias` holds the sums; `inputBias` after it the input side alone.
                Layout::Bnns if candidate => vec![vec![(gates + g, 1.0)], vec![(g, 1.0), (gates + g, -1.0)]],
                Layout::Bnns => vec![vec![(g, 1.0)]],
            });
        }
        if lbr && self == Layout::OpenVino {
            terms.push(vec![(3, 1.0)]);
        }
        terms
    }

    /// `B` in the kernel's convention (see [`Layout::OpenVino`]).
    pub fn bias(self, kind: CellKind, hidden: usize, b: &[f32]) -> Vec<f32> {
        let terms = self.bias_terms(kind);
        let refs: Vec<&[(usize, f32)]> = terms.iter().map(Vec::as_slice).collect();
        let mut out = vec![0.0; terms.len() * hidden];
        cellc_pack::fold_blocks(&mut out, b, hidden, &refs);
        out
    }
}

impl Layout {
    /// For each of the kernels' peephole blocks (an LSTM's f, i, o), the block of `P` it takes
    /// in this layout. ONNX stacks them i, o, f; no other layout carries peepholes (a file
    /// that does is read as ONNX), so they are taken in the kernels' order.
    pub fn peephole_order(self) -> [usize; 3] {
        match self {
            Layout::Onnx => [2, 0, 1],
            Layout::OpenVino | Layout::PyTorch | Layout::Bnns => [0, 1, 2],
        }
    }

    /// `P` (three blocks of `H`) in the kernels' order f, i, o.
    pub fn peepholes(self, p: &[f32]) -> Vec<f32> {
        let block = p.len() / 3;
        self.peephole_order().iter().flat_map(|&g| p[g * block..(g + 1) * block].iter().copied()).collect()
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Activation, Cell, CellSpec, WeightSrc};

    const H: usize = 3;
    const I: usize = 2;

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n).map(|k| (((k as u32).wrapping_mul(2654435761) ^ seed) % 1000) as f32 / 500.0 - 1.0).collect()
    }

    fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// Row `j` of gate block `g` (of `h` rows) of a row-major matrix with `cols` columns, times `v`.
    fn dot(m: &[f32], g: usize, j: usize, cols: usize, v: &[f64]) -> f64 {
        (0..cols).map(|k| m[(g * H + j) * cols + k] as f64 * v[k]).sum()
    }

    /// One step of the cell the reference interpreter computes from canonical weights.
    fn reference(
        kind: CellKind,
        acts: Vec<Activation>,
        [w, r, b]: [Vec<f32>; 3],
        [x, h, c]: [&[f64]; 3],
    ) -> Vec<Vec<f64>> {
        let emb = |values| WeightSrc::Embedded { values, stored: crate::ir::ElemType::F32 };
        let cell = Cell {
            name: "c".into(),
            spec: CellSpec { kind, hidden: H, input: I, activations: acts, clip: None },
            w: emb(w),
            r: emb(r),
            b: Some(emb(b)),
            p: None,
            seq: None,
            layout: Layout::OpenVino,
        };
        crate::reference::step_for_tests(&cell, x, h, c)
    }

    /// A linear-before-reset GRU with weights `wrb` in `layout`, run by the reference
    /// interpreter after conversion, gives `want`.
    fn assert_gru_in_layout(layout: Layout, [w, r, b]: [&[f32]; 3], [x, h]: [&[f64]; 2], want: &[f64]) {
        let kind = CellKind::Gru { linear_before_reset: true };
        let acts = vec![Activation::Sigmoid, Activation::Tanh];
        let weights = [layout.weights(kind, w), layout.weights(kind, r), layout.bias(kind, H, b)];
        let got = reference(kind, acts, weights, [x, h, &[]]);
        for (g, w) in got[0].iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{layout}: {got:?} vs {want:?}");
        }
    }

    #[test]
    fn pytorch_gru_matches_its_own_formula() {
        // PyTorch: r = σ(W_ir x + b_ir + W_hr h + b_hr), z = σ(W_iz x + b_iz + W_hz h + b_hz),
        // n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)), h' = (1 − z) ⊙ n + z ⊙ h,
        // rows stacked r, z, n; biases bias_ih then bias_hh.
        let (w, r, b) = (values(3 * H * I, 1), values(3 * H * H, 2), values(6 * H, 3));
        let x = [0.3, -0.7];
        let h = [0.1, -0.2, 0.5];
        let (bih, bhh) = b.split_at(3 * H);
        let want: Vec<f64> = (0..H)
            .map(|j| {
                let gate = |g: usize| {
                    dot(&w, g, j, I, &x) + bih[g * H + j] as f64 + dot(&r, g, j, H, &h) + bhh[g * H + j] as f64
                };
                let (rg, z) = (sigmoid(gate(0)), sigmoid(gate(1)));
                let n = (dot(&w, 2, j, I, &x)
                    + bih[2 * H + j] as f64
                    + rg * (dot(&r, 2, j, H, &h) + bhh[2 * H + j] as f64))
                    .tanh();
                (1.0 - z) * n + z * h[j]
            })
            .collect();
        assert_gru_in_layout(Layout::PyTorch, [&w, &r, &b], [&x, &h], &want);
    }

    #[test]
    fn bnns_gru_matches_its_own_formula() {
        // BNNS: rows r, n, z; `bias` the sums b_i* + b_h*, `inputBias` the b_i*; with the reset
        // gate after the product n = A(W_in x + b_in + r ⊙ (W_hn h + b_hn)).
        let (w, r, b) = (values(3 * H * I, 4), values(3 * H * H, 5), values(6 * H, 6));
        let x = [0.9, -0.1];
        let h = [-0.4, 0.2, 0.6];
        let (sums, input) = b.split_at(3 * H);
        let want: Vec<f64> = (0..H)
            .map(|j| {
                let rg = sigmoid(dot(&w, 0, j, I, &x) + dot(&r, 0, j, H, &h) + sums[j] as f64);
                let z = sigmoid(dot(&w, 2, j, I, &x) + dot(&r, 2, j, H, &h) + sums[2 * H + j] as f64);
                let b_in = input[H + j] as f64;
                let b_hn = sums[H + j] as f64 - b_in;
                let n = (dot(&w, 1, j, I, &x) + b_in + rg * (dot(&r, 1, j, H, &h) + b_hn)).tanh();
                (1.0 - z) * n + z * h[j]
            })
            .collect();
        assert_gru_in_layout(Layout::Bnns, [&w, &r, &b], [&x, &h], &want);
    }

    /// The same LSTM stored in OpenVINO's, ONNX's and PyTorch's layouts gives the same step.
    #[test]
    fn lstm_layouts_agree() {
        let kind = CellKind::Lstm;
        let (w, r, b) = (values(4 * H * I, 7), values(4 * H * H, 8), values(4 * H, 9));
        let acts = || vec![Activation::Sigmoid, Activation::Tanh, Activation::Tanh];
        let (x, h, c) = ([0.5, -0.5], [0.1, 0.2, -0.3], [0.4, -0.1, 0.0]);
        let want = reference(kind, acts(), [w.clone(), r.clone(), b.clone()], [&x, &h, &c]);
        // Restack f, i, c, o as each layout's order; split B as [Wb, Rb] with Rb = 0.25·B.
        for (layout, src_of) in [(Layout::Onnx, [1usize, 3, 0, 2]), (Layout::PyTorch, [1, 0, 2, 3])] {
            let restack = |m: &[f32]| -> Vec<f32> {
                let block = m.len() / 4;
                src_of.iter().flat_map(|&g| m[g * block..(g + 1) * block].to_vec()).collect()
            };
            let (wl, rl) = (restack(&w), restack(&r));
            let bl = restack(&b);
            let split: Vec<f32> = bl.iter().map(|v| v * 0.75).chain(bl.iter().map(|v| v * 0.25)).collect();
            let got = reference(
                kind,
                acts(),
                [layout.weights(kind, &wl), layout.weights(kind, &rl), layout.bias(kind, H, &split)],
                [&x, &h, &c],
            );
            for (g, w) in got.iter().flatten().zip(want.iter().flatten()) {
                assert!((g - w).abs() < 1e-6, "{layout}: {got:?} vs {want:?}");
            }
        }
    }

    #[test]
    fn onnx_gru_separate_biases_fold_as_openvino_expects() {
        let h = 1;
        let kind = CellKind::Gru { linear_before_reset: true };
        // Wb z r h = 1 2 3, Rb z r h = 10 20 30.
        assert_eq!(Layout::Onnx.bias(kind, h, &[1.0, 2.0, 3.0, 10.0, 20.0, 30.0]), [11.0, 22.0, 3.0, 30.0]);
        let kind = CellKind::Gru { linear_before_reset: false };
        assert_eq!(Layout::Onnx.bias(kind, h, &[1.0, 2.0, 3.0, 10.0, 20.0, 30.0]), [11.0, 22.0, 33.0]);
    }

    /// Every layout's terms fill the kernel's bias blocks from blocks its `B` has.
    #[test]
    fn bias_terms_fit_both_conventions() {
        let kinds = [
            CellKind::Gru { linear_before_reset: false },
            CellKind::Gru { linear_before_reset: true },
            CellKind::Rnn,
            CellKind::Lstm,
        ];
        for layout in [Layout::OpenVino, Layout::Onnx, Layout::PyTorch, Layout::Bnns] {
            for kind in kinds.into_iter().filter(|&k| layout.refuses(k).is_none()) {
                let terms = layout.bias_terms(kind);
                assert_eq!(terms.len(), kind.bias_blocks(), "{layout} {kind:?}");
                let used = terms.iter().flatten().map(|&(g, _)| g);
                assert!(used.clone().all(|g| g < layout.bias_blocks(kind)), "{layout} {kind:?}");
            }
        }
    }

    #[test]
    fn refusals_and_sizes() {
        assert!(Layout::PyTorch.refuses(CellKind::Gru { linear_before_reset: false }).is_some());
        assert!(Layout::Bnns.refuses(CellKind::Lstm).is_some());
        assert_eq!(Layout::PyTorch.bias_blocks(CellKind::Lstm), 8);
        assert_eq!(Layout::Bnns.bias_blocks(CellKind::Gru { linear_before_reset: true }), 6);
        assert_eq!(Layout::Bnns.bias_blocks(CellKind::Gru { linear_before_reset: false }), 3);
    }
}
