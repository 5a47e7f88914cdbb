//! Elementwise functions and chains of them: what one loop of the generated code computes
//! for each element. The fuse pass joins elementwise ops whose intermediate values nothing
//! else reads into one [`Op::Chain`], so the values stay in registers.
use super::tensor::{broadcast, broadcast_map, extents};
use super::{Binary, Compare, Op, Unary, input, input_shape};
use crate::graph::{Data, Fact};

/// An elementwise function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MapFn {
    /// Of one value.
    Unary(Unary),
    /// Of two.
    Binary(Binary),
    /// A comparison, giving 0 or 1.
    Compare(Compare),
    /// `a ≠ 0 ? b : c`.
    Select,
}

impl MapFn {
    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            MapFn::Unary(_) => 1,
            MapFn::Binary(_) | MapFn::Compare(_) => 2,
            MapFn::Select => 3,
        }
    }

    /// The function in f64 (the reference interpreter's arithmetic).
    pub fn apply(self, a: &[f64]) -> f64 {
        match self {
            MapFn::Unary(u) => u.apply(a[0]),
            MapFn::Binary(b) => b.apply(a[0], a[1]),
            MapFn::Compare(c) => c.apply(a[0], a[1]),
            MapFn::Select => {
                if a[0] != 0.0 {
                    a[1]
                } else {
                    a[2]
                }
            }
        }
    }
}

/// Where an instruction of a [`Chain`] takes an argument from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Input `k` of the chain.
    Input(usize),
    /// The value of instruction `j` (an earlier one).
    Temp(usize),
}

/// One function of a [`Chain`] and its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    /// The function.
    pub f: MapFn,
    /// Its arguments, `f.arity()` of them.
    pub args: Vec<Arg>,
}

/// Elementwise functions applied in order, each to inputs of the chain or values of earlier
/// ones; the last one's value is the result. Each value is an f32, as the ops it replaces
/// computed.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// The instructions, in order.
    pub instrs: Vec<Instr>,
}

impl Chain {
    /// One function of the inputs in order.
    pub fn single(f: MapFn) -> Chain {
        Chain { instrs: vec![Instr { f, args: (0..f.arity()).map(Arg::Input).collect() }] }
    }

    /// The chain's value for `inputs`, each function's value rounded to f32.
    pub fn apply(&self, inputs: &[f64]) -> f64 {
        let mut temps: Vec<f64> = Vec::with_capacity(self.instrs.len());
        for i in &self.instrs {
            let args: Vec<f64> = i
                .args
                .iter()
                .map(|a| match *a {
                    Arg::Input(k) => inputs.get(k).copied().unwrap_or(f64::NAN),
                    Arg::Temp(j) => temps.get(j).copied().unwrap_or(f64::NAN),
                })
                .collect();
            temps.push(i.f.apply(&args) as f32 as f64);
        }
        temps.last().copied().unwrap_or(f64::NAN)
    }

    /// The inputs the chain reads.
    pub fn inputs(&self) -> usize {
        let inputs = self.instrs.iter().flat_map(|i| &i.args).filter_map(|a| match a {
            Arg::Input(k) => Some(k + 1),
            Arg::Temp(_) => None,
        });
        inputs.max().unwrap_or(0)
    }
}

/// The facts of an [`Op::Chain`]: its inputs broadcast together, f32; its values when every
/// input is known.
pub(super) fn infer(op: &Op, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, String> {
    let Op::Chain(chain) = op else { return Err("not a chain".to_owned()) };
    let first = input(ins, 0, "a")?;
    let mut out = input_shape(ins, 0, "a")?.to_vec();
    for i in 1..ins.len() {
        out = broadcast(&out, input_shape(ins, i, "b")?)?;
    }
    let value = (|| {
        let ext = extents(&out)?;
        let vals: Vec<Vec<f64>> =
            ins.iter().map(|f| f.and_then(|f| f.value.as_ref()?.floats())).collect::<Option<_>>()?;
        let maps: Vec<Vec<usize>> = ins
            .iter()
            .map(|f| Some(broadcast_map(&extents(f.as_ref()?.shape.as_deref()?)?, &ext)))
            .collect::<Option<_>>()?;
        let n = maps.first().map_or(0, Vec::len);
        let out: Vec<f64> = (0..n)
            .map(|e| {
                let args: Vec<f64> = vals.iter().zip(&maps).map(|(v, m)| v[m[e]]).collect();
                chain.apply(&args)
            })
            .collect();
        Some(Data::Float(out))
    })();
    Ok(vec![Fact { elem: first.elem, shape: Some(out), value }])
}
