//! Each step in words and in floating-point operations: what `cellc inspect` lists and
//! what the generated code's `STEPS` table holds, so that a profile of a run names its
//! steps as the user reads them.
use super::Model;
use super::steps::{MapFn, Step};

impl Model {
    /// The inputs and outputs the file declares in a type other than f32, which generated
    /// code passes in f32, in words (`None` when there are none): what the generated code's
    /// documentation and the command line say.
    pub fn held_in_f32(&self) -> Option<String> {
        use crate::vocab::{Carried, Elem};
        let what = |name: &str, e: Elem| -> Option<String> {
            let how = match e.carried() {
                Carried::Exact if e == Elem::Bool => "booleans as 0 and 1",
                Carried::Exact | Carried::No => return None,
                Carried::Rounded => "computed in f32",
                Carried::Whole => "whole numbers, exact up to 2^24",
            };
            Some(format!("{name:?} ({}: {how})", e.name()))
        };
        let ins =
            self.params.iter().filter(|p| p.role == super::ParamRole::Data).filter_map(|p| what(&p.name, p.declared));
        let all: Vec<String> = ins.chain(self.outputs.iter().filter_map(|o| what(&o.name, o.declared))).collect();
        (!all.is_empty()).then(|| format!("passed in f32, though the model declares another type: {}", all.join(", ")))
    }

    /// What step `s` does, in a few words.
    pub fn step_text(&self, s: &Step) -> String {
        let values = |axes: &mut dyn Iterator<Item = usize>| axes.product::<usize>();
        match s {
            Step::Cell(c) => format!("cell {:?}", self.cells[c.cell].name),
            Step::Copy(c) => format!("a copy of {} values", values(&mut c.axes.iter().map(|a| a[0]))),
            Step::Rows(r) => format!("a row of {} values moved", r.outer * r.inner),
            Step::Pick(p) => format!("{} values gathered by a table", p.entries * p.table.len()),
            Step::TopK(t) => format!(
                "the {} {} of {} values, with their indices",
                t.k,
                if t.largest { "largest" } else { "smallest" },
                t.len
            ),
            Step::Take(t) => {
                format!("{} values gathered at indices computed at run time", values(&mut t.axes.iter().map(|a| a[0])))
            }
            Step::Pool(p) => {
                let w = &p.win;
                format!(
                    "a pool ({}) of {}x{} windows over {} channels at {} positions, read in place",
                    p.kind.name(),
                    w.kernel[0],
                    w.kernel[1],
                    w.channels,
                    p.entries.saturating_mul(w.positions())
                )
            }
            Step::Init(i) => format!("the first value of variable {:?}", self.states[i.state].name),
            Step::Map(x) => {
                let fs: Vec<String> = x.f.instrs.iter().map(|i| fn_name(i.f)).collect();
                let n = values(&mut x.axes.iter().map(|a| a[0]));
                if fs.len() == 1 {
                    format!("elementwise {} over {n} values", fs[0])
                } else {
                    format!("an elementwise chain over {n} values ({})", fs.join(", "))
                }
            }
            Step::MatMul(x) => {
                let shape = format!("{}x{} by {}x{}", x.m, x.k, x.k, x.n);
                let count = x.batch.iter().try_fold(1usize, |n, a| n.checked_mul(a[0]));
                match count {
                    Some(1) => format!("a matrix product ({shape})"),
                    Some(n) => {
                        // A side whose stride is 0 along every batch axis is shared.
                        let shared = |k: usize| x.batch.iter().all(|a| a[0] == 1 || a[k] == 0);
                        let side = match (shared(1), shared(2)) {
                            (true, false) => ", the left one shared",
                            (false, true) => ", the right one shared",
                            _ => "",
                        };
                        format!("a batch of {n} matrix products ({shape}{side})")
                    }
                    None => format!("a batch of matrix products ({shape})"),
                }
            }
            Step::Dense(x) => {
                let d = &self.denses[x.dense];
                let mut parts = vec![format!("{} rows, {} to {}", x.rows, d.k, d.n)];
                if d.groups > 1 {
                    parts.push(format!("in {} groups", d.groups));
                }
                if d.bias.is_some() {
                    parts.push("bias".to_owned());
                }
                match &d.act {
                    Some(crate::ir::DenseAct::Unary(a)) => parts.push(fn_name(MapFn::Unary(*a))),
                    Some(crate::ir::DenseAct::PRelu(_)) => parts.push("prelu".to_owned()),
                    None => {}
                }
                format!("dense layer {:?} ({})", d.name, parts.join(", "))
            }
            Step::Softmax(x) => format!("a {} over {} values", if x.log { "log-softmax" } else { "softmax" }, x.len),
            Step::Reduce(x) => {
                format!("a reduction ({:?}) of {} values", x.kind, values(&mut x.inner.iter().map(|a| a[0])))
                    .to_lowercase()
            }
        }
    }

    /// The floating-point operations of step `s` for one row of the model: two for each
    /// multiply–add of a matrix product (a dense layer's, a cell's, a `MatMul`'s), none for
    /// the steps that move, compare or map values.
    pub fn step_flops(&self, s: &Step) -> u64 {
        let two = |v: &[usize]| v.iter().try_fold(2u64, |n, &d| n.checked_mul(d as u64)).unwrap_or(u64::MAX);
        match s {
            Step::Dense(d) => self.denses.get(d.dense).map_or(0, |l| two(&[d.rows, l.k, l.n])),
            Step::MatMul(mm) => {
                let batch = mm.batch.iter().map(|a| a[0]).product::<usize>();
                two(&[batch, mm.m, mm.k, mm.n])
            }
            Step::Cell(c) => self.cells.get(c.cell).map_or(0, |cell| {
                let (dirs, steps) = cell.seq.as_ref().map_or((1, 1), |q| (q.direction.count(), q.steps));
                two(&[cell.spec.macs(), dirs, steps, c.rows])
            }),
            _ => 0,
        }
    }
}

/// The name of an elementwise function.
fn fn_name(f: MapFn) -> String {
    let s = match f {
        MapFn::Unary(u) => format!("{u:?}"),
        MapFn::Binary(b) => format!("{b:?}"),
        MapFn::Compare(c) => format!("{c:?}"),
        MapFn::Select => "Select".to_owned(),
    };
    s.split([' ', '{', '(']).next().unwrap_or_default().to_lowercase()
}
