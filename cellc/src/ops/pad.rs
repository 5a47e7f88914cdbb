//! Padding and gathers by constant tables: `Pad` (opset 1 and 12) and [`Pick`], what
//! `passes::lower` makes of windows (convolutions, pools) and of padding.
use super::error::{OpError, refuse, unpinned};
use super::tensor::{extents, int_input, strides, unflatten};
use super::tensor::{input, input_shape};
use crate::limits::MAX_PICK_TABLE;
use crate::vocab::{Data, Fact, Sym};

/// `Pad`'s `pad_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// The pad value (input 3, 0 without it).
    Constant,
    /// The nearest edge value.
    Edge,
    /// Mirrored without the edge value.
    Reflect,
    /// Mirrored with the edge value.
    Symmetric,
}

impl PadMode {
    /// The name OpenVINO writes.
    pub fn name(self) -> &'static str {
        match self {
            PadMode::Constant => "constant",
            PadMode::Edge => "edge",
            PadMode::Reflect => "reflect",
            PadMode::Symmetric => "symmetric",
        }
    }

    /// For each output position of an axis of `len` values padded by `begin` and `end`
    /// (negative: cropped), the input position it takes, or `None` for the pad value.
    pub fn axis_map(self, len: usize, begin: i64, end: i64) -> Result<Vec<Option<usize>>, OpError> {
        let n = i64::try_from(len).map_err(|_| refuse!("axis too long"))?;
        let out = n.checked_add(begin).and_then(|x| x.checked_add(end)).ok_or_else(|| {
            refuse!("padding {begin} and {end} of an axis of {len} values overflows; expected an axis of at most {MAX_PICK_TABLE} values")
        })?;
        if out < 0 {
            return Err(refuse!("padding {begin} and {end} crops more than the {len} values of the axis"));
        }
        // The map is built before the padded tensor's size is checked: bound it first.
        if out as u64 > MAX_PICK_TABLE {
            return Err(refuse!("padding {begin} and {end} makes an axis of {out} values; at most {MAX_PICK_TABLE}"));
        }
        // Mirrored modes read at most the axis once over (OpenVINO's limits).
        let most = match self {
            PadMode::Reflect => n - 1,
            PadMode::Symmetric => n,
            PadMode::Constant | PadMode::Edge => i64::MAX,
        };
        if begin > most || end > most || (n == 0 && (begin > 0 || end > 0) && self != PadMode::Constant) {
            return Err(refuse!(
                "{} padding of {begin} and {end} on an axis of {len} values; expected at most {most} on each side",
                self.name()
            ));
        }
        Ok((0..out)
            .map(|i| {
                let j = i - begin;
                let k = if (0..n).contains(&j) {
                    j
                } else {
                    match self {
                        PadMode::Constant => return None,
                        PadMode::Edge => j.clamp(0, n - 1),
                        PadMode::Reflect if j < 0 => -j,
                        PadMode::Reflect => 2 * (n - 1) - j,
                        PadMode::Symmetric if j < 0 => -j - 1,
                        PadMode::Symmetric => 2 * n - 1 - j,
                    }
                };
                Some(k as usize)
            })
            .collect())
    }
}

/// A gather by a constant table (what windows and padding lower to): the output keeps the
/// first `lead` axes of the input (0 or 1) and, for each entry along them, takes value
/// `table[i]` of the entry's input values for its `i`-th value, or `fill` for
/// [`Pick::NONE`].
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    /// Leading axes kept (0 or 1).
    pub lead: usize,
    /// The output's other dimensions.
    pub shape: Vec<usize>,
    /// Values of an input entry.
    pub entry: usize,
    /// For each value of an output entry, the input value it takes.
    pub table: Vec<u32>,
    /// The value for [`Pick::NONE`].
    pub fill: f64,
}

impl Pick {
    /// A table entry that takes `fill`.
    pub const NONE: u32 = u32::MAX;
}

/// The table of a `Pad` of a tensor of `ext` by `begin` and `end` per axis, with the output
/// extents.
pub fn pad_table(mode: PadMode, ext: &[usize], begin: &[i64], end: &[i64]) -> Result<(Vec<u32>, Vec<usize>), OpError> {
    if begin.len() != ext.len() || end.len() != ext.len() {
        return Err(refuse!(
            "{} pads at the beginning and {} at the end for data of {} axes; expected one per axis",
            begin.len(),
            end.len(),
            ext.len()
        ));
    }
    let maps: Vec<Vec<Option<usize>>> =
        (0..ext.len()).map(|a| mode.axis_map(ext[a], begin[a], end[a])).collect::<Result<_, _>>()?;
    let out: Vec<usize> = maps.iter().map(Vec::len).collect();
    let n = crate::limits::product(out.iter().map(|&d| d as u64)).filter(|&n| n <= MAX_PICK_TABLE);
    let n = n.ok_or_else(|| refuse!("the padded tensor has more than {MAX_PICK_TABLE} values"))? as usize;
    let st = strides(ext);
    let mut idx = vec![0; ext.len()];
    let table = (0..n)
        .map(|i| {
            unflatten(i, &out, &mut idx);
            let at: Option<usize> = (0..ext.len()).map(|a| Some(maps[a][idx[a]]? * st[a])).sum();
            at.map_or(Pick::NONE, |v| v as u32)
        })
        .collect();
    Ok((table, out))
}

/// The pads of a `Pad` as `rank` numbers each.
fn pads(ins: &[Option<&Fact>], rank: usize) -> Result<(Vec<i64>, Vec<i64>), OpError> {
    let get = |i: usize, what: &str| -> Result<Vec<i64>, OpError> {
        let v = int_input(ins, i, what)?;
        if v.len() != rank {
            return Err(refuse!("{what} has {} values for data of rank {rank}", v.len()));
        }
        Ok(v)
    };
    Ok((get(1, "pads_begin")?, get(2, "pads_end")?))
}

/// The ops of this family, as [`infer`] takes them.
#[derive(Clone, Copy, Debug)]
pub(super) enum Gathering<'a> {
    /// `Pad` in this mode (pads as inputs 1 and 2, the value as input 3).
    Pad(PadMode),
    /// A gather by a constant table.
    Pick(&'a Pick),
    /// A convolution's windows, read in place.
    Windows(&'a crate::vocab::Windows),
}

pub(super) fn infer(op: Gathering<'_>, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let data = input(ins, 0, "data")?;
    let xs = input_shape(ins, 0, "data")?;
    match op {
        Gathering::Pad(mode) => {
            let (begin, end) = pads(ins, xs.len())?;
            let fill = match ins.get(3).copied().flatten() {
                Some(f) if mode == PadMode::Constant => {
                    if f.elem != data.elem {
                        return Err(refuse!("the pad value is {} for {} data", f.elem.name(), data.elem.name()));
                    }
                    Some(f.value.as_ref().and_then(Data::floats).filter(|v| v.len() == 1))
                }
                _ => None,
            };
            let mut out = Vec::with_capacity(xs.len());
            for (a, &d) in xs.iter().enumerate() {
                out.push(match d.value() {
                    Some(_) => begin[a]
                        .checked_add(end[a])
                        .and_then(|p| d.checked_add(Sym::known(p)))
                        .ok_or_else(|| refuse!("the padded size of axis {a} overflows"))?,
                    None if begin[a] == 0 && end[a] == 0 => d,
                    None => return Err(unpinned!("padding dynamic dimension {a} ({d})")),
                });
            }
            let value = (|| {
                let v = data.value.as_ref()?.floats()?;
                let ext = extents(xs)?;
                if xs.iter().any(|d| !d.is_known()) {
                    return None;
                }
                let (table, _) = pad_table(mode, &ext, &begin, &end).ok()?;
                let fill = fill.map_or(Some(0.0), |f| f.map(|f| f[0]))?;
                Some(Data::Float(table.iter().map(|&i| if i == Pick::NONE { fill } else { v[i as usize] }).collect()))
            })();
            // The mode's limits are checked even when nothing is known of the values.
            if xs.iter().all(|d| d.is_known()) {
                let ext: Vec<usize> = xs.iter().map(|d| d.c as usize).collect();
                pad_table(mode, &ext, &begin, &end)?;
            }
            Ok(vec![Fact { elem: data.elem, shape: Some(out), value }])
        }
        Gathering::Windows(w) => {
            let (shape, value) = windows(w, (false, 1), xs, data.value.as_ref())?;
            Ok(vec![Fact { elem: data.elem, shape: Some(shape), value }])
        }
        Gathering::Pick(p) => {
            let lead = xs.get(..p.lead).ok_or_else(|| refuse!("the data has fewer axes than the table keeps"))?;
            let per =
                crate::vocab::known_len(&xs[p.lead..]).ok_or_else(|| refuse!("the table's entry size is not known"))?;
            if per != p.entry || p.table.iter().any(|&i| i != Pick::NONE && i as usize >= per) {
                return Err(refuse!("the table reads {} values; the data's entries have {per}", p.entry));
            }
            let mut out = lead.to_vec();
            out.extend(p.shape.iter().map(|&d| Sym::known(d as i64)));
            let value = (|| {
                let v = data.value.as_ref()?.floats()?;
                let entries = v.len() / per.max(1);
                let vals = (0..entries)
                    .flat_map(|e| p.table.iter().map(move |&i| (e, i)))
                    .map(|(e, i)| if i == Pick::NONE { p.fill } else { v[e * per + i as usize] })
                    .collect();
                Some(Data::Float(vals))
            })();
            Ok(vec![Fact { elem: data.elem, shape: Some(out), value }])
        }
    }
}

/// The shape of the windows `w` over data of shape `xs` (`[N, spatial…, C]`, or
/// `[N, C, spatial…]` when `planar`, its entries of [`crate::vocab::Windows::input_len`]
/// values): `[N, positions, taps·C]`; and their values when the data's are known. With
/// `groups` (planar only) the data's channels are that many groups of `C`, and the windows
/// over each group's `[N, groups, positions, taps·C]`.
pub(super) fn windows(
    w: &crate::vocab::Windows,
    (planar, groups): (bool, usize),
    xs: &[Sym],
    data: Option<&Data>,
) -> Result<(Vec<Sym>, Option<Data>), OpError> {
    let per = xs.get(1..).and_then(crate::vocab::known_len);
    let channels = if planar { xs.get(1) } else { xs.last() };
    let whole = w.input_len().checked_mul(groups);
    let all = w.channels.checked_mul(groups).and_then(|c| i64::try_from(c).ok());
    if !w.valid()
        || groups == 0
        || (groups > 1 && !planar)
        || whole.is_none()
        || per != whole
        || channels.and_then(|d| d.value()) != all
    {
        return Err(refuse!(
            "windows over entries of {groups} group(s) of {} values, {} channels each; the data is {xs:?}",
            w.input_len(),
            w.channels
        ));
    }
    let mut shape = vec![xs[0], Sym::known(w.positions() as i64), Sym::known(w.k() as i64)];
    if groups > 1 {
        shape.insert(1, Sym::known(groups as i64));
    }
    let value = (|| {
        let v = data?.floats()?;
        let (entries, k, c) = (v.len() / w.input_len(), w.k(), w.channels);
        // Values past the tensor limit are left unknown rather than computed.
        let len = crate::limits::product([entries as u64, w.positions() as u64, k as u64])
            .filter(|&n| n <= crate::limits::MAX_TENSOR_ELEMENTS)?;
        let mut out = vec![0.0; len as usize];
        // Each group of each entry in turn: its own entry of `input_len` values.
        for (e, o) in out.chunks_exact_mut(w.positions() * k).enumerate() {
            let entry = &v[e * w.input_len()..][..w.input_len()];
            for (p, row) in o.chunks_exact_mut(k).enumerate() {
                for (t, run) in row.chunks_exact_mut(c).enumerate() {
                    let Some(at) = w.source(p, t) else { continue };
                    if planar {
                        // Channel `ch` of position `at / c` is `ch · area` on.
                        let area = w.input_len() / c;
                        for (ch, o) in run.iter_mut().enumerate() {
                            *o = entry[ch * area + at / c];
                        }
                    } else {
                        run.copy_from_slice(&entry[at..][..c]);
                    }
                }
            }
        }
        Some(Data::Float(out))
    })();
    Ok((shape, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_of_another_rank_are_refused_not_indexed() {
        // A Pad whose pads have fewer values than the data has axes (a fuzzed model):
        // an error, whichever side is short.
        for (begin, end) in [(&[1][..], &[1, 1][..]), (&[1, 1], &[1]), (&[], &[])] {
            let err = pad_table(PadMode::Reflect, &[4, 6], begin, end).expect_err("refused");
            assert!(err.to_string().contains("one per axis"), "{err}");
        }
        assert!(pad_table(PadMode::Reflect, &[4, 6], &[0, 2], &[0, 2]).is_ok());
    }

    #[test]
    fn pad_modes_mirror_as_their_definitions_say() {
        // Each mode read back through its definition: the value at output i is the input at
        // the position the mode maps i - begin to.
        for mode in [PadMode::Constant, PadMode::Edge, PadMode::Reflect, PadMode::Symmetric] {
            let map = mode.axis_map(4, 3, 2).expect("within limits");
            assert_eq!(map.len(), 9);
            for (i, m) in map.iter().enumerate() {
                let j = i as i64 - 3;
                if (0..4).contains(&j) {
                    assert_eq!(*m, Some(j as usize));
                } else if mode == PadMode::Constant {
                    assert_eq!(*m, None);
                } else {
                    let k = m.expect("a value") as i64;
                    // Edge repeats the end; reflect is symmetric about the end value;
                    // symmetric about the edge between the end value and the padding.
                    let mirror = match mode {
                        PadMode::Edge => j.clamp(0, 3),
                        PadMode::Reflect => 3 - (3 - j.abs()).abs(),
                        _ => {
                            if j < 0 {
                                -j - 1
                            } else {
                                7 - j
                            }
                        }
                    };
                    assert_eq!(k, mirror, "{mode:?} at {i}");
                }
            }
        }
        assert!(PadMode::Reflect.axis_map(3, 3, 0).is_err());
        assert!(PadMode::Symmetric.axis_map(3, 3, 0).is_ok());
        assert_eq!(PadMode::Constant.axis_map(5, -2, -1).expect("crops"), [Some(2), Some(3)]);
        assert!(PadMode::Constant.axis_map(2, -2, -1).is_err());
        // A padding past the limit is refused before anything of its size is built.
        assert!(PadMode::Constant.axis_map(2, 0, 1 << 40).is_err_and(|e| e.to_string().contains("at most")));
    }
}
