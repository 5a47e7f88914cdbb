//! Timing in interleaved rounds, for comparisons that must not drift with the machine's
//! load: each round times every kernel once, over a number of steps fixed beforehand, and a
//! kernel's figure is the median of its rounds.
use std::time::Instant;

/// Rounds of the interleaved timing.
pub const ROUNDS: usize = 9;
/// Wall time a kernel's timing of one round aims at.
const ROUND_SECONDS: f64 = 0.05;

/// One kernel's times per step, one per round.
pub struct Row {
    /// The configuration.
    pub config: &'static str,
    /// The kernel.
    pub kernel: &'static str,
    /// Its ns per step in each round.
    pub ns: Vec<f64>,
}

impl Row {
    /// The median of the rounds.
    pub fn median(&self) -> f64 {
        let mut v = self.ns.clone();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    /// The row as a JSON object.
    pub fn json(&self) -> String {
        let ns: Vec<String> = self.ns.iter().map(|x| format!("{x:.3}")).collect();
        format!(
            "  {{\"config\": \"{}\", \"kernel\": \"{}\", \"median_ns\": {:.3}, \"rounds_ns\": [{}]}}",
            self.config,
            self.kernel,
            self.median(),
            ns.join(", ")
        )
    }
}

/// A kernel to time: `run(n)` takes `n` steps, its state carried.
pub struct Kernel<'a> {
    /// Its name in the results.
    pub label: &'static str,
    /// Runs it `n` times.
    pub run: Box<dyn FnMut(usize) + 'a>,
    /// Steps one run takes.
    pub steps_per_call: usize,
}

/// Times `kernels` in interleaved rounds; returns each one's ns per step in each round.
pub fn interleaved(config: &'static str, mut kernels: Vec<Kernel<'_>>) -> Vec<Row> {
    // Calls per round for each kernel, so that a round of it takes about ROUND_SECONDS.
    let calls: Vec<usize> = kernels
        .iter_mut()
        .map(|k| {
            let mut n = 1;
            loop {
                let t = Instant::now();
                (k.run)(n);
                let s = t.elapsed().as_secs_f64();
                if s > ROUND_SECONDS / 4.0 || n > 1 << 30 {
                    break ((n as f64 * ROUND_SECONDS / s.max(1e-9)) as usize).max(1);
                }
                n *= 2;
            }
        })
        .collect();
    let mut ns = vec![Vec::new(); kernels.len()];
    for _ in 0..ROUNDS {
        for ((k, &n), out) in kernels.iter_mut().zip(&calls).zip(&mut ns) {
            let t = Instant::now();
            (k.run)(n);
            out.push(t.elapsed().as_secs_f64() * 1e9 / (n * k.steps_per_call) as f64);
        }
    }
    kernels.iter().zip(ns).map(|(k, ns)| Row { config, kernel: k.label, ns }).collect()
}
