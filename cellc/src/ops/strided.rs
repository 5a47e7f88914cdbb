//! `StridedSlice` (opset 1): a slice per axis with masks that ignore `begin` or `end`,
//! insert axes of length 1, drop an axis after taking one index of it, or stand for the
//! axes not named (an ellipsis). [`plan`] turns it into what each input axis keeps, which
//! serves its constant evaluation and its copy at run time alike.
use super::error::{OpError, refuse, unpinned};
use super::shape::slice_range;
use super::tensor::{count, extents, known_ints, strides, unflatten};
use super::tensor::{input, input_shape};
use crate::vocab::{Fact, Sym};

/// `StridedSlice`'s masks, one flag per entry of `begin`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Masks {
    /// `begin_mask`: the entry's `begin` is ignored (the slice starts at the first index
    /// its step reaches).
    pub begin: Vec<bool>,
    /// `end_mask`: the entry's `end` is ignored.
    pub end: Vec<bool>,
    /// `new_axis_mask`: the entry inserts an axis of length 1.
    pub new_axis: Vec<bool>,
    /// `shrink_axis_mask`: the entry takes index `begin` and drops the axis.
    pub shrink_axis: Vec<bool>,
    /// `ellipsis_mask`: the entry stands for every axis no other entry names.
    pub ellipsis: Vec<bool>,
}

/// What a `StridedSlice` does to an input of a given shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// For each input axis, the indices it keeps (`None`: all of them).
    pub picks: Vec<Option<Vec<i64>>>,
    /// The output shape.
    pub out: Vec<Sym>,
}

/// The plan of a `StridedSlice` of `begin`, `end` and `steps` over an input of `shape`.
pub fn plan(shape: &[Sym], begin: &[i64], end: &[i64], steps: Option<&[i64]>, m: &Masks) -> Result<Plan, OpError> {
    let n = begin.len();
    if end.len() != n || steps.is_some_and(|s| s.len() != n) {
        return Err(refuse!("begin has {n} values; end and strides must have as many"));
    }
    let flag = |v: &[bool], i: usize| v.get(i).copied().unwrap_or(false);
    if (0..n).filter(|&i| flag(&m.ellipsis, i)).count() > 1 {
        return Err(OpError::Rule("more than one ellipsis in `ellipsis_mask`".to_owned()));
    }
    let rank = shape.len();
    let named = (0..n).filter(|&i| !flag(&m.new_axis, i) && !flag(&m.ellipsis, i)).count();
    if named > rank {
        return Err(refuse!("{named} axes sliced, but the input has {rank}"));
    }
    let (mut picks, mut out, mut ax) = (vec![None; rank], Vec::new(), 0);
    for i in 0..n {
        if flag(&m.ellipsis, i) {
            for _ in 0..rank - named {
                out.push(shape[ax]);
                ax += 1;
            }
            continue;
        }
        if flag(&m.new_axis, i) {
            out.push(Sym::known(1));
            continue;
        }
        let step = steps.map_or(1, |s| s[i]);
        if step == 0 {
            return Err(refuse!("stride {i} is 0"));
        }
        let dim = shape[ax].value();
        if flag(&m.shrink_axis, i) {
            let dim =
                dim.ok_or_else(|| unpinned!("taking one index of dimension {ax} ({}) needs its size", shape[ax]))?;
            let at = if begin[i] < 0 { begin[i].saturating_add(dim) } else { begin[i] };
            if !(0..dim).contains(&at) {
                return Err(refuse!("index {} of dimension {ax}, which has {dim} values", begin[i]));
            }
            picks[ax] = Some(vec![at]);
            ax += 1;
            continue;
        }
        let start = match (flag(&m.begin, i), step > 0) {
            (true, true) => 0,
            (true, false) => i64::MAX,
            (false, _) => begin[i],
        };
        let stop = match (flag(&m.end, i), step > 0) {
            (true, true) => i64::MAX,
            (true, false) => i64::MIN,
            (false, _) => end[i],
        };
        match dim {
            Some(dim) => {
                let r = slice_range(dim, start, stop, step);
                out.push(Sym::known(r.len() as i64));
                picks[ax] = Some(r);
            }
            // The whole of a dynamic dimension.
            None if start == 0 && step == 1 && stop >= i64::MAX / 2 => out.push(shape[ax]),
            None => {
                return Err(unpinned!(
                    "slicing {start}:{stop}:{step} of dimension {ax} ({}) depends on its size",
                    shape[ax]
                ));
            }
        }
        ax += 1;
    }
    out.extend_from_slice(&shape[ax..]);
    Ok(Plan { picks, out })
}

/// The plan of a `StridedSlice` node from its inputs' facts.
pub fn plan_of(m: &Masks, ins: &[Option<&Fact>]) -> Result<Plan, OpError> {
    let shape = input_shape(ins, 0, "data")?;
    let val = |i: usize, what: &str| known_ints(ins.get(i).copied().flatten().and_then(|f| f.value.as_ref()), what);
    let (begin, end) = (val(1, "begin")?, val(2, "end")?);
    let steps = match ins.get(3).copied().flatten() {
        Some(_) => Some(val(3, "strides")?),
        None => None,
    };
    plan(shape, &begin, &end, steps.as_deref(), m)
}

pub(super) fn infer(m: &Masks, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let data = input(ins, 0, "data")?;
    let shape = input_shape(ins, 0, "data")?;
    let p = plan_of(m, ins)?;
    let value = (|| {
        let v = data.value.as_ref()?;
        let ext = extents(shape)?;
        // The kept indices of every input axis, in order: the output's values in order.
        let kept: Vec<Vec<i64>> = p
            .picks
            .iter()
            .zip(&ext)
            .map(|(pick, &d)| pick.clone().unwrap_or_else(|| (0..d as i64).collect()))
            .collect();
        let kext: Vec<usize> = kept.iter().map(Vec::len).collect();
        let st = strides(&ext);
        let mut idx = vec![0; ext.len()];
        let map: Vec<usize> = (0..count(&kext))
            .map(|i| {
                unflatten(i, &kext, &mut idx);
                (0..ext.len()).map(|k| kept[k][idx[k]] as usize * st[k]).sum()
            })
            .collect();
        Some(v.pick(&map))
    })();
    Ok(vec![Fact { elem: data.elem, shape: Some(p.out), value }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{Data, Elem};

    fn known(v: &[i64]) -> Vec<Sym> {
        v.iter().map(|&n| Sym::known(n)).collect()
    }

    fn run(shape: &[i64], begin: &[i64], end: &[i64], steps: &[i64], m: Masks) -> (Vec<Sym>, Vec<f64>) {
        let n: i64 = shape.iter().product();
        let x = Fact::constant(Elem::F32, known(shape), Data::Float((0..n).map(|v| v as f64).collect()));
        let ints = |v: &[i64]| Fact::constant(Elem::I64, known(&[v.len() as i64]), Data::Int(known(v)));
        let (b, e, s) = (ints(begin), ints(end), ints(steps));
        let f = infer(&m, &[Some(&x), Some(&b), Some(&e), Some(&s)]).expect("valid").remove(0);
        (f.shape.expect("shape"), f.value.and_then(|v| v.floats()).expect("values"))
    }

    fn flags(v: &[u8]) -> Vec<bool> {
        v.iter().map(|&b| b == 1).collect()
    }

    #[test]
    fn the_last_step_as_keras_takes_it() {
        // x[:, -1, :] on [2, 3, 2]: masks keep the first and last axes whole, the middle shrinks.
        let m = Masks {
            begin: flags(&[1, 0, 1]),
            end: flags(&[1, 0, 1]),
            shrink_axis: flags(&[0, 1, 0]),
            ..Masks::default()
        };
        let (shape, v) = run(&[2, 3, 2], &[0, -1, 0], &[0, 0, 0], &[1, 1, 1], m);
        assert_eq!(shape, known(&[2, 2]));
        assert_eq!(v, [4.0, 5.0, 10.0, 11.0]);
    }

    #[test]
    fn new_axes_ellipses_and_reversed_steps_follow_numpy() {
        // x[..., None, ::-2] on [2, 5]: [2, 1, 3], each row's 4th, 2nd and 0th values.
        let m = Masks {
            ellipsis: flags(&[1, 0, 0]),
            new_axis: flags(&[0, 1, 0]),
            begin: flags(&[0, 0, 1]),
            end: flags(&[0, 0, 1]),
            ..Masks::default()
        };
        let (shape, v) = run(&[2, 5], &[0, 0, 0], &[0, 0, 0], &[1, 1, -2], m);
        assert_eq!(shape, known(&[2, 1, 3]));
        assert_eq!(v, [4.0, 2.0, 0.0, 9.0, 7.0, 5.0]);
        // x[1:, 1:4:2]
        let (shape, v) = run(&[2, 5], &[1, 1], &[2, 4], &[1, 2], Masks::default());
        assert_eq!(shape, known(&[1, 2]));
        assert_eq!(v, [6.0, 8.0]);
    }

    #[test]
    fn bad_slices_are_refused() {
        let shape = known(&[2, 3]);
        let shrink = Masks { shrink_axis: flags(&[1]), ..Masks::default() };
        assert!(plan(&shape, &[5], &[0], None, &shrink).is_err(), "index past the dimension");
        assert!(plan(&shape, &[0], &[1], Some(&[0]), &Masks::default()).is_err(), "a zero stride");
        assert!(plan(&shape, &[0, 0, 0], &[1, 1, 1], None, &Masks::default()).is_err(), "more axes than the input");
        let two = Masks { ellipsis: flags(&[1, 1]), ..Masks::default() };
        assert!(plan(&shape, &[0, 0], &[1, 1], None, &two).is_err(), "two ellipses");
    }
}
