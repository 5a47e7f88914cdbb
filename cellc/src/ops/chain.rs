//! Elementwise functions and chains of them: what one loop of the generated code computes
//! for each element. The fuse pass joins elementwise ops whose intermediate values nothing
//! else reads into one [`Op::Chain`](super::Op::Chain), so the values stay in registers.
use super::error::OpError;
use super::tensor::{broadcast, broadcast_map, extents};
pub use crate::vocab::{Arg, Chain, Instr, MapFn};

use super::tensor::{input, input_shape};
use crate::vocab::{Data, Fact};

/// The element type of a chain's value: each instruction's from its arguments' (a comparison
/// or a boolean function gives booleans, a select its branches' type, the rest their first
/// argument's).
fn elem_of(chain: &Chain, ins: &[Option<&Fact>]) -> Option<crate::vocab::Elem> {
    use crate::vocab::{Binary, Elem, Unary};
    let mut temps: Vec<Elem> = Vec::with_capacity(chain.instrs.len());
    for i in &chain.instrs {
        let arg = |k: usize| -> Option<Elem> {
            match *i.args.get(k)? {
                Arg::Input(j) => Some(ins.get(j).copied().flatten()?.elem),
                Arg::Temp(j) => temps.get(j).copied(),
            }
        };
        let e = match i.f {
            MapFn::Compare(_)
            | MapFn::Unary(Unary::LogicalNot)
            | MapFn::Binary(Binary::LogicalAnd | Binary::LogicalOr | Binary::LogicalXor) => Elem::Bool,
            MapFn::Select => arg(1)?,
            MapFn::Unary(_) | MapFn::Binary(_) => arg(0)?,
        };
        temps.push(e);
    }
    temps.last().copied()
}

/// The facts of an [`Op::Chain`]: its inputs broadcast together, of the type its last
/// function gives; its values when every input is known.
pub(super) fn infer(chain: &Chain, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
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
    let elem = elem_of(chain, ins).unwrap_or(first.elem);
    Ok(vec![Fact { elem, shape: Some(out), value }])
}
