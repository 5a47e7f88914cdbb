//! cellc beside RTNeural, the C++ library most audio plug-ins use for recurrent layers, in
//! one run: configurations A lbr (GRU H=128 I=16), B lbr (GRU H=16 I=1), C lbr (a GRU
//! sequence, H=256 I=256, 1000 steps; RTNeural steps it 1000 times) and F (LSTM H=128 I=16),
//! each GRU with `linear_before_reset` (Keras's `reset_after`, the only GRU RTNeural has).
//! Both take the same weights and the same inputs, drawn as RTNeural's benchmark draws them
//! (uniform in [-1, 1], a new row each step); each kernel is first checked against the naive
//! Rust cell. The kernels are timed in interleaved rounds (each round times every kernel once,
//! over the same number of steps), and the median of the rounds is reported; the ratios
//! compare medians of the same run. Writes `target/peer.json` for `bench/report.py`.
//!
//! RTNeural is built from the checkout `RTNEURAL_DIR` names (see `bench/run.sh`); without it
//! this bench says the peer was not measured and writes so.
use cellc_bench::rounds::{ROUNDS, Row};

fn main() {
    // `cargo bench` passes `--bench`; a `cargo test` of the bench targets passes nothing.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/peer.json");
    let rows = measure();
    let json = match &rows {
        None => {
            println!("peer: RTNeural not measured (RTNEURAL_DIR was not set when the bench was built)");
            "{\"measured\": false}\n".to_owned()
        }
        Some(rows) => {
            println!("{:<8} {:<34} {:>12}", "config", "kernel", "median");
            for r in rows {
                println!("{:<8} {:<34} {:>9.1} ns", r.config, r.kernel, r.median());
            }
            let items: Vec<String> = rows.iter().map(Row::json).collect();
            format!("{{\"measured\": true, \"rounds\": {ROUNDS}, \"rows\": [\n{}\n]}}\n", items.join(",\n"))
        }
    };
    std::fs::write(&out, json).expect("write target/peer.json");
    println!("peer: wrote {}", out.display());
}

#[cfg(not(rtneural))]
fn measure() -> Option<Vec<Row>> {
    None
}

#[cfg(rtneural)]
fn measure() -> Option<Vec<Row>> {
    let mut rows = Vec::new();
    rows.extend(side::gru_a());
    rows.extend(side::gru_b());
    rows.extend(side::lstm_f());
    rows.extend(side::gru_c());
    Some(rows)
}

#[cfg(rtneural)]
mod side {
    use cellc_bench::peer::{self, Input, Peer};
    use cellc_bench::rounds::{Kernel, Row, interleaved};
    use cellc_bench::*;
    use std::hint::black_box;

    /// A step of a GRU-like cell: `(x, h, out)`.
    type Step<const H: usize, const I: usize> = fn(&[f32; I], &[f32; H], &mut [f32; H]);
    /// Any step of an LSTM: `(x, h, c, out, out_c)`.
    type LstmStep<'a, const H: usize, const I: usize> =
        &'a dyn Fn(&[f32; I], &[f32; H], &[f32; H], &mut [f32; H], &mut [f32; H]);

    /// Rows of the input signal the steps cycle through.
    const SIGNAL: usize = 1024;

    /// Inputs as RTNeural's benchmark draws them: uniform in [-1, 1], a new row each step.
    fn signal<const I: usize>(seed: u64) -> Vec<Input<I>> {
        let mut s = seed;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        (0..SIGNAL).map(|_| Input(core::array::from_fn(|_| next()))).collect()
    }

    fn max_diff(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
    }

    /// The state after `steps` steps of a GRU-like step from zero on the signal.
    fn gru_run<const H: usize, const I: usize>(
        xs: &[Input<I>],
        steps: usize,
        f: impl Fn(&[f32; I], &[f32; H], &mut [f32; H]),
    ) -> [f32; H] {
        let (mut h, mut out) = ([0.0; H], [0.0; H]);
        for k in 0..steps {
            f(&xs[k % xs.len()].0, &h, &mut out);
            std::mem::swap(&mut h, &mut out);
        }
        h
    }

    /// The state after `steps` steps of a peer from zero on the signal.
    fn peer_run<const I: usize, const H: usize>(p: &mut impl Peer<I, H>, xs: &[Input<I>], steps: usize) -> [f32; H] {
        p.reset();
        for k in 0..steps {
            p.forward(&xs[k % xs.len()]);
        }
        p.outputs()
    }

    /// A stateless step `f` as a kernel carrying its state over the signal.
    fn stepping<'a, const H: usize, const I: usize>(
        label: &'static str,
        xs: &'a [Input<I>],
        f: fn(&[f32; I], &[f32; H], &mut [f32; H]),
    ) -> Kernel<'a> {
        let (mut h, mut out, mut k) = ([0.0f32; H], [0.0f32; H], 0usize);
        let run = move |n: usize| {
            for _ in 0..n {
                f(black_box(&xs[k % SIGNAL].0), &h, &mut out);
                std::mem::swap(&mut h, &mut out);
                k = k.wrapping_add(1);
            }
            black_box(&h);
        };
        Kernel { label, run: Box::new(run), steps_per_call: 1 }
    }

    /// A peer layer as a kernel over the signal.
    fn peering<'a, const I: usize, const H: usize>(
        label: &'static str,
        xs: &'a [Input<I>],
        mut p: impl Peer<I, H> + 'a,
    ) -> Kernel<'a> {
        let mut k = 0usize;
        let run = move |n: usize| {
            let mut acc = 0.0;
            for _ in 0..n {
                acc += p.forward(black_box(&xs[k % SIGNAL]));
                k = k.wrapping_add(1);
            }
            black_box(acc);
        };
        Kernel { label, run: Box::new(run), steps_per_call: 1 }
    }

    /// A GRU configuration with `linear_before_reset` (weights `name`, inputs drawn from
    /// `seed`): cellc's `checked` steps and RTNeural's two builds checked against the naive
    /// cell on 50 steps, then timed with the `unchecked` ones (fast activations, outside the
    /// naive cell's tolerance) beside them.
    fn gru_cell<const H: usize, const I: usize, E: Peer<I, H>, X: Peer<I, H>>(
        config: &'static str,
        name: &str,
        seed: u64,
        peers: fn(&[Vec<f32>; 3]) -> (E, X),
        checked: &[(&'static str, Step<H, I>)],
        unchecked: &[(&'static str, Step<H, I>)],
    ) -> Vec<Row> {
        let wt = weights(name);
        let (mut eigen, mut xsimd) = peers(&peer::keras_gru(H, I, &wt.w, &wt.r, &wt.b));
        let xs = signal::<I>(seed);
        let naive = NaiveGru::<H, I> { wt, lbr: true };
        let want = gru_run(&xs, 50, |x, h, o| naive.step(x, h, o));
        let mut got: Vec<(&str, [f32; H])> = checked.iter().map(|&(label, f)| (label, gru_run(&xs, 50, f))).collect();
        got.push(("RTNeural Eigen", peer_run(&mut eigen, &xs, 50)));
        got.push(("RTNeural xsimd", peer_run(&mut xsimd, &xs, 50)));
        for (label, state) in got {
            let d = max_diff(&state, &want);
            assert!(d < 1e-4, "{config}/{label}: {d} from the naive cell");
        }
        let mut kernels: Vec<Kernel<'_>> =
            checked.iter().chain(unchecked).map(|&(label, f)| stepping(label, &xs, f)).collect();
        kernels.push(peering("RTNeural Eigen", &xs, eigen));
        kernels.push(peering("RTNeural xsimd", &xs, xsimd));
        interleaved(config, kernels)
    }

    pub(super) fn gru_a() -> Vec<Row> {
        gru_cell(
            "A lbr",
            "gru_lbr_h128_i16",
            1,
            |k| (peer::EigenGruA::new(k), peer::XsimdGruA::new(k)),
            &[("cellc Rust, tiled", gru_lbr_h128_i16::tiled), ("cellc C, tiled", gru_lbr_h128_i16::c_tiled)],
            &[],
        )
    }

    pub(super) fn gru_b() -> Vec<Row> {
        gru_cell(
            "B lbr",
            "gru_lbr_h16_i1",
            2,
            |k| (peer::EigenGruB::new(k), peer::XsimdGruB::new(k)),
            &[
                ("cellc Rust, tiled", gru_lbr_h16_i1::tiled),
                ("cellc Rust, unrolled", gru_lbr_h16_i1::unrolled),
                ("cellc C, unrolled", gru_lbr_h16_i1::c_unrolled),
            ],
            &[("cellc Rust, unrolled, fast act.", fast_activations::gru_lbr_h16_i1::unrolled)],
        )
    }

    pub(super) fn lstm_f() -> Vec<Row> {
        use lstm_h128_i16::{H, I};
        let wt = weights("lstm_h128_i16");
        let keras = peer::keras_lstm(H, I, &wt.w, &wt.r, &wt.b);
        let (mut eigen, mut xsimd) = (peer::EigenLstmF::new(&keras), peer::XsimdLstmF::new(&keras));
        let xs = signal::<16>(3);
        let naive = NaiveLstm::<H, I> { wt };
        // An LSTM carries two states, h and c.
        let lstm = |steps: usize, f: LstmStep<'_, H, I>| {
            let (mut h, mut c, mut oh, mut oc) = ([0.0; H], [0.0; H], [0.0; H], [0.0; H]);
            for k in 0..steps {
                f(&xs[k % xs.len()].0, &h, &c, &mut oh, &mut oc);
                std::mem::swap(&mut h, &mut oh);
                std::mem::swap(&mut c, &mut oc);
            }
            h
        };
        let want = lstm(50, &|x, h, c, o, oc| naive.step(x, h, c, o, oc));
        let kernels: [(&'static str, lstm_h128_i16::Step); 2] =
            [("cellc Rust, tiled", lstm_h128_i16::tiled), ("cellc C, tiled", lstm_h128_i16::c_tiled)];
        for (label, f) in kernels {
            let d = max_diff(&lstm(50, &f), &want);
            assert!(d < 1e-4, "F/{label}: {d} from the naive cell");
        }
        for (label, got) in
            [("RTNeural Eigen", peer_run(&mut eigen, &xs, 50)), ("RTNeural xsimd", peer_run(&mut xsimd, &xs, 50))]
        {
            let d = max_diff(&got, &want);
            assert!(d < 1e-4, "F/{label}: {d} from the naive cell");
        }
        let timed = |label: &'static str, f: lstm_h128_i16::Step| {
            let (mut h, mut c, mut oh, mut oc, mut k) = ([0.0f32; H], [0.0f32; H], [0.0f32; H], [0.0f32; H], 0usize);
            let xs = &xs;
            let run = move |n: usize| {
                for _ in 0..n {
                    f(black_box(&xs[k % SIGNAL].0), &h, &c, &mut oh, &mut oc);
                    std::mem::swap(&mut h, &mut oh);
                    std::mem::swap(&mut c, &mut oc);
                    k = k.wrapping_add(1);
                }
                black_box(&h);
            };
            Kernel { label, run: Box::new(run), steps_per_call: 1 }
        };
        let mut all = vec![timed(kernels[0].0, kernels[0].1), timed(kernels[1].0, kernels[1].1)];
        all.push(peering("RTNeural Eigen", &xs, eigen));
        all.push(peering("RTNeural xsimd", &xs, xsimd));
        interleaved("F", all)
    }

    pub(super) fn gru_c() -> Vec<Row> {
        use gru_lbr_seq_h256_i256::Seq;
        const H: usize = Seq::HIDDEN_SIZE;
        const I: usize = Seq::INPUT_SIZE;
        const L: usize = Seq::STEPS;
        let wt = weights("gru_lbr_seq_h256_i256");
        let keras = peer::keras_gru(H, I, &wt.w, &wt.r, &wt.b);
        let (mut eigen, mut xsimd) = (peer::EigenGruC::new(&keras), peer::XsimdGruC::new(&keras));
        let xs = signal::<I>(4);
        let naive = NaiveGru::<H, I> { wt, lbr: true };
        let seq = Seq::new();
        let mut x: Box<[[f32; I]; L]> = vec![[0.0f32; I]; L].into_boxed_slice().try_into().expect("L rows");
        for (k, row) in x.iter_mut().enumerate() {
            *row = xs[k % xs.len()].0;
        }
        let mut y: Box<[[[f32; H]; L]; 1]> = vec![[[0.0f32; H]; L]; 1].into_boxed_slice().try_into().expect("one row");
        let mut ho = [[0.0f32; H]; 1];
        let mut run = move || {
            seq.run(black_box(&x), &[[0.0; H]; 1], L, &mut y, &mut ho).expect("all the steps");
            ho[0]
        };
        let want = gru_run(&xs, L, |x, h, o| naive.step(x, h, o));
        let tolerance = 1e-3;
        for (label, got) in [
            ("cellc Rust, run", run()),
            ("RTNeural Eigen", peer_run(&mut eigen, &xs, L)),
            ("RTNeural xsimd", peer_run(&mut xsimd, &xs, L)),
        ] {
            let d = max_diff(&got, &want);
            assert!(d < tolerance, "C lbr/{label}: {d} from the naive cell after {L} steps");
        }
        let rust = Kernel {
            label: "cellc Rust, run (projection hoisted)",
            run: Box::new(move |n: usize| {
                for _ in 0..n {
                    black_box(run());
                }
            }),
            steps_per_call: L,
        };
        interleaved("C lbr", vec![rust, peering("RTNeural Eigen", &xs, eigen), peering("RTNeural xsimd", &xs, xsimd)])
    }
}
