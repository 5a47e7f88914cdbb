//! What a validated model runs: steps in order, each reading and writing operands at
//! offsets fixed at compile time. A run loops over the model's rows (one pass when the
//! batch is static and the shapes are whole tensors); an operand's values for row `n` start
//! at `offset + n·row_stride` of its home.
pub use crate::vocab::{Arg, Chain, Instr, MapFn};

/// Where values live while a model runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Home {
    /// Input `i` of `run` (read only).
    Param(usize),
    /// Output `k` of `run`.
    Output(usize),
    /// Scratch slot `s`: an array in the model value, shared by values never live together.
    Slot(usize),
    /// Constant `k` of [`super::Model::consts`], baked into the code.
    Const(usize),
    /// Variable `k` of [`super::Model::states`], kept in the model value between runs.
    State(usize),
}

/// A variable a stateful model keeps between runs (zero after a reset, unless an
/// [`Init`] step sets it on the first run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Its name (`variable_id`).
    pub name: String,
    /// Its values.
    pub len: usize,
}

/// On the first run after a reset, a variable takes the values of `src`.
#[derive(Clone, Debug, PartialEq)]
pub struct Init {
    /// The variable.
    pub state: usize,
    /// Its initial values.
    pub src: Operand,
}

/// A tensor as a step sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    /// Where it lives.
    pub home: Home,
    /// Where its values start in the home, for row 0.
    pub offset: usize,
    /// How far its values move for each row (0: the same values for every row).
    pub row_stride: usize,
    /// How many values a step may touch from its start.
    pub len: usize,
}

impl Operand {
    /// The whole of a home of `len` values, the same for every row.
    pub fn whole(home: Home, len: usize) -> Operand {
        Operand { home, offset: 0, row_stride: 0, len }
    }

    /// Row `n`'s `len` values of a row-major batched tensor.
    pub fn rows(home: Home, len: usize) -> Operand {
        Operand { home, offset: 0, row_stride: len, len }
    }
}

/// A recurrent cell run over `rows` consecutive rows of its operands.
#[derive(Clone, Debug, PartialEq)]
pub struct CellStep {
    /// Index in [`super::Model::cells`].
    pub cell: usize,
    /// Rows of the cell's batch within one row of the model (1 when the model's rows are
    /// the cell's).
    pub rows: usize,
    /// `X`, `rows` rows of `[steps, I]` (or `[I]`).
    pub x: Operand,
    /// The initial hidden state, `rows` rows of `[dirs, H]` (or `[H]`).
    pub h: Operand,
    /// An LSTM's initial cell state.
    pub c: Option<Operand>,
    /// The outputs in port order: `Y`, `Ho` (and `Co`) for a sequence; `Ho` (and `Co`) for
    /// a cell.
    pub out: Vec<Operand>,
}

/// Axes `[count, stride…]` (outermost first, each `width` long) with the axes of one
/// element dropped and neighbours that step as one merged, so loops are as few and as long
/// as can be; one axis of one element when nothing is left (a scalar).
pub fn simplify_axes(axes: Vec<Vec<usize>>, width: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for a in axes.into_iter().filter(|a| a[0] != 1) {
        if let Some(prev) = out.last_mut()
            && (1..width).all(|j| prev[j] == a[0] * a[j])
        {
            prev[0] *= a[0];
            prev[1..].copy_from_slice(&a[1..]);
            continue;
        }
        out.push(a);
    }
    if out.is_empty() {
        let mut one = vec![0; width];
        one[0] = 1;
        out.push(one);
    }
    out
}

/// Copies values: `dst[Σ iₖ·dₖ] = src[Σ iₖ·sₖ]` over every index of the axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Copy {
    /// Source.
    pub src: Operand,
    /// Destination.
    pub dst: Operand,
    /// Axes, outermost first: `[count, source stride, destination stride]`.
    pub axes: Vec<[usize; 3]>,
}

impl Copy {
    /// A copy over `axes`, simplified.
    pub fn new(src: Operand, dst: Operand, axes: Vec<[usize; 3]>) -> Copy {
        let axes = simplify_axes(axes.into_iter().map(|a| a.to_vec()).collect(), 3);
        Copy { src, dst, axes: axes.into_iter().map(|a| [a[0], a[1], a[2]]).collect() }
    }

    /// The copy as a transpose, where it is one: an axis contiguous in the destination and
    /// strided in the source, another contiguous in the source and strided in the
    /// destination (a layout change between channels first and channels last). Run by a
    /// kernel that reads it in tiles, each cache line used whole: in plain loop order one
    /// of the two walks a line per value (a 32 × 32,382 transpose, PLCMOS's: 3.6 ms in C
    /// at `-O3 -march=native` in loops, 0.4 ms in tiles, AMD Zen 3).
    pub fn transposed(&self) -> Option<Transposed> {
        let i = self.axes.iter().position(|a| a[2] == 1 && a[1] != 1 && a[0] > 1)?;
        let j = self.axes.iter().position(|a| a[1] == 1 && a[2] != 1 && a[0] > 1)?;
        let ([m, ss, _], [n, _, ds]) = (self.axes[i], self.axes[j]);
        // Rows that overlap are no transpose the kernel takes (a copy that reads a value twice).
        if ss < n || ds < m {
            return None;
        }
        let outer = self.axes.iter().enumerate().filter(|&(k, _)| k != i && k != j).map(|(_, &a)| a).collect();
        Some(Transposed { outer, m, n, ss, ds })
    }
}

/// A copy that is a transpose ([`Copy::transposed`]): for each index of the outer axes
/// (offsets `o_s`, `o_d`), `dst[o_d + j·ds + i] = src[o_s + i·ss + j]` for `i < m`, `j < n`.
#[derive(Clone, Debug, PartialEq)]
pub struct Transposed {
    /// The other axes, outermost first: `[count, source stride, destination stride]`.
    pub outer: Vec<[usize; 3]>,
    /// The source's rows (the destination's contiguous axis).
    pub m: usize,
    /// The source's contiguous axis (the destination's rows).
    pub n: usize,
    /// The distance between the source's rows.
    pub ss: usize,
    /// The distance between the destination's rows.
    pub ds: usize,
}

/// `dst[Σ iₖ·dₖ] = f(arg₀[Σ iₖ·s₀ₖ], …)` over every index of the axes (broadcasting is a
/// stride of 0), `f` a chain of elementwise functions computed in one loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Map {
    /// The functions.
    pub f: Chain,
    /// Destination.
    pub dst: Operand,
    /// Arguments.
    pub args: Vec<Operand>,
    /// Axes, outermost first: the count, the destination's stride, then each argument's.
    pub axes: Vec<Vec<usize>>,
}

/// Matrix products: for each index of the batch axes,
/// `dst[i, j] = Σₖ a[i, k]·b[k, j]` (with an optional bias added along `j`).
#[derive(Clone, Debug, PartialEq)]
pub struct MatMul {
    /// Left side.
    pub a: Operand,
    /// Right side.
    pub b: Operand,
    /// Destination.
    pub dst: Operand,
    /// Batch axes, outermost first: `[count, a stride, b stride, dst stride]`.
    pub batch: Vec<[usize; 4]>,
    /// Rows of the product.
    pub m: usize,
    /// Contraction length.
    pub k: usize,
    /// Columns of the product.
    pub n: usize,
    /// Strides of `a` along i and k.
    pub a_strides: [usize; 2],
    /// Strides of `b` along k and j.
    pub b_strides: [usize; 2],
    /// Stride of `dst` along i (along j it is 1).
    pub dst_row: usize,
}

impl MatMul {
    /// Whether the product kernel reads `b` (its columns one apart, or a single one); a `b`
    /// transposed at run time is summed output by output.
    pub fn by_kernel(&self) -> bool {
        self.b_strides[1] == 1 || self.n == 1
    }
}

/// A dense layer ([`super::Dense`]) over `rows` consecutive rows of `K` values of `x`,
/// writing `rows` rows of `N` values of `dst`.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseStep {
    /// Index in [`super::Model::denses`].
    pub dense: usize,
    /// Input rows.
    pub x: Operand,
    /// Output rows.
    pub dst: Operand,
    /// Rows within one row of the model.
    pub rows: usize,
}

/// `dst = softmax(src)` (or its log) along one axis, for each index of the outer axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Softmax {
    /// Source.
    pub src: Operand,
    /// Destination (same layout as the source).
    pub dst: Operand,
    /// Outer axes: `[count, stride]`.
    pub outer: Vec<[usize; 2]>,
    /// Length of the softmax axis.
    pub len: usize,
    /// Its stride.
    pub stride: usize,
    /// `LogSoftmax`.
    pub log: bool,
}

/// `dst[o] = reduce(src[o, i] for every inner index i)` for every outer index `o`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduce {
    /// Which reduction.
    pub kind: crate::vocab::ReduceKind,
    /// Source.
    pub src: Operand,
    /// Destination.
    pub dst: Operand,
    /// Kept axes, outermost first: `[count, source stride, destination stride]`.
    pub outer: Vec<[usize; 3]>,
    /// Reduced axes: `[count, source stride]`.
    pub inner: Vec<[usize; 2]>,
}

impl Reduce {
    /// The count of the innermost kept axis when the reduction runs across rows of it: that
    /// axis contiguous in both tensors and no reduced axis contiguous (a mean over time of
    /// `[time, channels]` values). The outputs of such a row are then reduced side by side,
    /// each over its values in the same order as alone (the same bits), a vector of them at
    /// a time, where one at a time each output's sum is a chain of dependent additions over
    /// values a row apart (SwiftF0's mean of 62 outputs over 384 rows: 17 µs). The
    /// arg-reductions, which count positions, are left one at a time.
    pub fn across_rows(&self) -> Option<usize> {
        let &[n, 1, 1] = self.outer.last()? else { return None };
        let contiguous = self.inner.iter().any(|a| a[0] > 1 && a[1] == 1);
        (n > 1 && !contiguous && !matches!(self.kind, crate::vocab::ReduceKind::Arg { .. })).then_some(n)
    }
}

/// A gather by a constant table: for each of `entries` entries,
/// `dst[e·dst_stride + i] = src[e·src_stride + table[i]]`, or `fill` where the table holds
/// [`Pick::NONE`] (the windows of a convolution, a padded tensor).
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    /// Source.
    pub src: Operand,
    /// Destination.
    pub dst: Operand,
    /// The table: one source index per destination value of an entry.
    pub table: Vec<u32>,
    /// Entries.
    pub entries: usize,
    /// Distance between the source's entries.
    pub src_stride: usize,
    /// Distance between the destination's entries.
    pub dst_stride: usize,
    /// The value of a [`Pick::NONE`] entry.
    pub fill: f32,
}

impl Pick {
    /// A table entry that takes `fill`.
    pub const NONE: u32 = u32::MAX;

    /// The values of the source an entry reads (1 past the largest index).
    pub fn src_reach(&self) -> usize {
        self.table.iter().filter(|&&i| i != Self::NONE).map(|&i| i as usize + 1).max().unwrap_or(0)
    }

    /// Whether some value takes `fill`.
    pub fn fills(&self) -> bool {
        self.table.contains(&Self::NONE)
    }
}

/// A pool over windows read in place: for each of `entries` entries of `src` (its
/// [`crate::vocab::Windows::input_len`] values laid out channels last), each output
/// position `p` and channel `c`, `dst[(e·positions + p)·C + c]` is `kind` over the values
/// of channel `c` under window `p`, tap by tap in order; the padding takes no part.
#[derive(Clone, Debug, PartialEq)]
pub struct Pool {
    /// What each window's values become.
    pub kind: crate::vocab::Pooling,
    /// The windows.
    pub win: crate::vocab::Windows,
    /// Source.
    pub src: Operand,
    /// Destination.
    pub dst: Operand,
    /// Entries in one row of the model.
    pub entries: usize,
}

/// Moves row `n` of a batched Parameter into a row buffer, or a row buffer into row `n` of
/// a batched Result, when the batch is not the tensor's first dimension: the row is `outer`
/// runs of `inner` values, `batch·inner` apart in the whole tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct RowCopy {
    /// Source: the whole Parameter, or the row buffer.
    pub src: Operand,
    /// Destination: the row buffer, or the whole Result.
    pub dst: Operand,
    /// Runs in a row.
    pub outer: usize,
    /// Values in a run.
    pub inner: usize,
    /// From a Parameter into a row (else from a row into a Result).
    pub into_row: bool,
}

/// A gather by indices computed at run time: `dst[Σ oₖ·dₖ] = src[Σ oₖ·sₖ + i·stride]` for
/// every index `o` of the axes, `i` the whole number at `idx[Σ oₖ·xₖ]`, counted from the end
/// when negative. An index outside `[−len, len)` (or NaN), which onnxruntime refuses at run
/// time, is clamped to the nearest end: never a read outside `src`.
#[derive(Clone, Debug, PartialEq)]
pub struct Take {
    /// What is gathered from.
    pub src: Operand,
    /// The indices, whole numbers in f32.
    pub idx: Operand,
    /// Destination.
    pub dst: Operand,
    /// Axes, outermost first: `[count, source stride, index stride, destination stride]`.
    pub axes: Vec<[usize; 4]>,
    /// How many values the indexed axis holds (at least 1).
    pub len: usize,
    /// Its stride in the source.
    pub stride: usize,
}

impl Take {
    /// The source position index `i` (as held) reads along the axis: counted from the end
    /// when negative, clamped into `[0, len)`. Both emitters and the reference compute it
    /// so.
    pub fn position(&self, i: f64) -> usize {
        let n = self.len as f64;
        let i = if i < 0.0 { i + n } else { i };
        if i.is_nan() || i < 0.0 {
            0
        } else if i >= n {
            self.len - 1
        } else {
            i as usize
        }
    }
}

/// The `k` largest (or smallest) values along one axis and their indices, in order:
/// `values[o, t]` and `indices[o, t]` (a whole number) for `t < k`, for every index `o` of
/// the other axes. The order is [`TopK::before`]'s: numbers first (the larger first, or the
/// smaller), equal ones by index, NaN last by index. Found by `k` passes over the axis,
/// each taking the first value after the one before in that order: no scratch.
#[derive(Clone, Debug, PartialEq)]
pub struct TopK {
    /// Source.
    pub src: Operand,
    /// The values taken.
    pub values: Operand,
    /// Their indices along the axis.
    pub indices: Operand,
    /// The other axes, outermost first: `[count, source stride, destination stride]` (the
    /// values and the indices share their layout).
    pub outer: Vec<[usize; 3]>,
    /// The axis: its length and stride in the source.
    pub len: usize,
    /// The source's stride along the axis.
    pub stride: usize,
    /// How many values are taken (at most `len`), and the destinations' stride along the axis.
    pub k: usize,
    /// The destinations' stride along the axis.
    pub dst_stride: usize,
    /// The largest values (else the smallest).
    pub largest: bool,
}

impl TopK {
    /// Whether value `a` at index `ai` comes before value `b` at index `bi` in the output:
    /// both emitters and the reference decide so.
    pub fn before(largest: bool, a: (f64, usize), b: (f64, usize)) -> bool {
        cellc_pack::top_k_before(largest, a, b)
    }
}

/// One step of a run.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A cell.
    Cell(CellStep),
    /// A copy.
    Copy(Copy),
    /// An elementwise function.
    Map(Map),
    /// Matrix products.
    MatMul(MatMul),
    /// A dense layer.
    Dense(DenseStep),
    /// A softmax.
    Softmax(Softmax),
    /// A reduction.
    Reduce(Reduce),
    /// A row in or out of a tensor whose batch is not its first dimension.
    Rows(RowCopy),
    /// A variable's initial value.
    Init(Init),
    /// A gather by a constant table.
    Pick(Pick),
    /// A pool over windows read in place.
    Pool(Pool),
    /// A gather by indices computed at run time.
    Take(Take),
    /// The `k` extreme values along an axis and their indices.
    TopK(TopK),
}

impl Step {
    /// Every operand the step reads or writes (the variable an `Init` sets is not an
    /// operand: it is named by its number).
    pub fn operands_mut(&mut self) -> Vec<&mut Operand> {
        match self {
            Step::Cell(CellStep { x, h, c, out, .. }) => {
                let mut v = vec![x, h];
                v.extend(c.as_mut());
                v.extend(out.iter_mut());
                v
            }
            Step::Map(Map { dst, args, .. }) => {
                let mut v = vec![dst];
                v.extend(args.iter_mut());
                v
            }
            Step::MatMul(MatMul { a, b, dst, .. }) => vec![a, b, dst],
            Step::Dense(DenseStep { x, dst, .. }) => vec![x, dst],
            Step::Init(Init { src, .. }) => vec![src],
            Step::Take(Take { src, idx, dst, .. }) => vec![src, idx, dst],
            Step::TopK(TopK { src, values, indices, .. }) => vec![src, values, indices],
            Step::Copy(Copy { src, dst, .. })
            | Step::Softmax(Softmax { src, dst, .. })
            | Step::Reduce(Reduce { src, dst, .. })
            | Step::Rows(RowCopy { src, dst, .. })
            | Step::Pick(Pick { src, dst, .. })
            | Step::Pool(Pool { src, dst, .. }) => vec![src, dst],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (source, destination) pair a copy's axes visit, sorted.
    fn pairs(axes: &[[usize; 3]]) -> Vec<(usize, usize)> {
        let mut out = vec![(0, 0)];
        for &[n, s, d] in axes {
            out = out.iter().flat_map(|&(a, b)| (0..n).map(move |i| (a + i * s, b + i * d))).collect();
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn a_transpose_is_found_whatever_its_axes_order_and_copies_the_same_values() {
        let op = Operand::whole(Home::Slot(0), 64_000);
        // Channels first to channels last, one entry and two.
        let t = Copy { src: op, dst: op, axes: vec![[32, 1, 1000], [1000, 32, 1]] };
        assert_eq!(t.transposed(), Some(Transposed { outer: vec![], m: 1000, n: 32, ss: 32, ds: 1000 }));
        let t = Copy { src: op, dst: op, axes: vec![[2, 32_000, 32_000], [1000, 32, 1], [32, 1, 1000]] };
        let found = t.transposed().expect("a transpose");
        assert_eq!(found, Transposed { outer: vec![[2, 32_000, 32_000]], m: 1000, n: 32, ss: 32, ds: 1000 });
        // The kernel's pairs are the copy's.
        let mut kernel = Vec::new();
        for e in 0..2 {
            for i in 0..found.m {
                for j in 0..found.n {
                    kernel.push((e * 32_000 + i * found.ss + j, e * 32_000 + j * found.ds + i));
                }
            }
        }
        kernel.sort_unstable();
        assert_eq!(kernel, pairs(&t.axes));
        // A plain copy, a copy that reads values twice (overlapping rows) and one axis of
        // one value are no transposes.
        let plain = Copy { src: op, dst: op, axes: vec![[100, 200, 100], [100, 1, 1]] };
        assert_eq!(plain.transposed(), None);
        let twice = Copy { src: op, dst: op, axes: vec![[10, 2, 1], [4, 1, 10]] };
        assert_eq!(twice.transposed(), None);
        let single = Copy { src: op, dst: op, axes: vec![[1, 5, 1], [4, 1, 10]] };
        assert_eq!(single.transposed(), None);
    }
}
