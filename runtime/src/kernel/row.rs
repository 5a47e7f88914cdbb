//! The stored forms of a panel row (f32 lanes, binary16 bits, bfloat16 pairs, int8 values
//! with their scale) and how a kernel reads each as f32 lanes.
use crate::simd::Isa;

/// A row of `W` packed weights, in one of the stored forms: how a kernel reads it as f32.
pub trait Row<const W: usize>: Copy {
    /// `acc[l] += lane l · v` for every lane, with the level's [`Isa::mul_add8`].
    fn axpy<I: Isa>(&self, isa: I, acc: &mut [f32; W], v: f32);
    /// Lanes `lb..lb + V` (within the row).
    fn block<I: Isa, const V: usize>(&self, isa: I, lb: usize) -> [f32; V];
    /// Lane `l`.
    fn lane(&self, l: usize) -> f32;
    /// The factor of the row's input: every kernel multiplies a row's lanes by its input
    /// times this (an int8 row's scale; 1, which the optimiser folds away, for the others).
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn scale(&self) -> f32 {
        1.0
    }
    /// How the lanes are stored, for kernels that load them into registers themselves.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn lanes(&self) -> Lanes<'_, W> {
        Lanes::Other
    }
}

/// The storage of a [`Row`]'s lanes, as [`Row::lanes`] tells it.
#[derive(Clone, Copy, Debug)]
pub enum Lanes<'a, const W: usize> {
    /// f32 values.
    F32(&'a [f32; W]),
    /// IEEE binary16 values, as bits.
    F16(&'a [u16; W]),
    /// int8 values (their row's [`Row::scale`] multiplies its input, see
    /// [`cellc_pack::int8`]).
    I8(&'a [i8; W]),
    /// Another form: read lane by lane ([`Row::lane`]).
    Other,
}

/// `acc[l] += w(l) · v` over the lanes of `acc`, 8 at a time through `isa`, where `w8(c)`
/// gives lanes `8c..8c + 8` and `w(l)` lane `l` of the rest. Callers mark their closures
/// `#[inline(always)]`: one kept out of line is compiled without the dispatched level's
/// target features, and its intrinsics (the f16 conversion) would be calls (see `array!`).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub(super) fn axpy_by<I: Isa>(
    isa: I,
    acc: &mut [f32],
    v: f32,
    w8: impl Fn(usize) -> [f32; 8],
    w: impl Fn(usize) -> f32,
) {
    let (chunks, rest) = acc.as_chunks_mut::<8>();
    let done = chunks.len() * 8;
    for (c, a) in chunks.iter_mut().enumerate() {
        *a = isa.mul_add8(*a, w8(c), v);
    }
    for (j, a) in rest.iter_mut().enumerate() {
        *a = isa.mul_add(*a, w(done + j), v);
    }
}

impl<const W: usize> Row<W> for [f32; W] {
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn axpy<I: Isa>(&self, isa: I, acc: &mut [f32; W], v: f32) {
        let (chunks, _) = self.as_chunks::<8>();
        axpy_by(isa, acc, v, |c| chunks[c], |l| self[l]);
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn block<I: Isa, const V: usize>(&self, _: I, lb: usize) -> [f32; V] {
        core::array::from_fn(|j| self[lb + j])
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn lane(&self, l: usize) -> f32 {
        self[l]
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn lanes(&self) -> Lanes<'_, W> {
        Lanes::F32(self)
    }
}

/// IEEE binary16 weights, as bits.
impl<const W: usize> Row<W> for [u16; W] {
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn axpy<I: Isa>(&self, isa: I, acc: &mut [f32; W], v: f32) {
        let (chunks, _) = self.as_chunks::<8>();
        axpy_by(
            isa,
            acc,
            v,
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            |c| isa.f16x8(&chunks[c]),
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            |l| Row::<W>::lane(self, l),
        );
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn block<I: Isa, const V: usize>(&self, isa: I, lb: usize) -> [f32; V] {
        let mut out = [0.0f32; V];
        if V == 8
            && let (Some(c), Some(o)) = (self[lb..].first_chunk::<8>(), out.first_chunk_mut::<8>())
        {
            *o = isa.f16x8(c);
            return out;
        }
        for (j, o) in out.iter_mut().enumerate() {
            *o = Row::<W>::lane(self, lb + j);
        }
        out
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn lane(&self, l: usize) -> f32 {
        half::f16::from_bits(self[l]).to_f32()
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn lanes(&self) -> Lanes<'_, W> {
        Lanes::F16(self)
    }
}

/// bfloat16 pairs: word `j` holds lane `j` in its low half and lane `j + HW` in its high
/// half, so each half becomes an f32 with one shift or one mask.
impl<const W: usize, const HW: usize> Row<W> for [u32; HW] {
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn axpy<I: Isa>(&self, isa: I, acc: &mut [f32; W], v: f32) {
        const { assert!(HW == W.div_ceil(2), "a row of W bfloat16 lanes is ceil(W / 2) words") };
        let (lo, hi) = acc.split_at_mut(HW);
        let (words, _) = self.as_chunks::<8>();
        let low = |w: u32| f32::from_bits(w << 16);
        let high = |w: u32| f32::from_bits(w & 0xffff_0000);
        axpy_by(isa, lo, v, |c| words[c].map(low), |j| low(self[j]));
        axpy_by(isa, hi, v, |c| words[c].map(high), |j| high(self[j]));
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn block<I: Isa, const V: usize>(&self, _: I, lb: usize) -> [f32; V] {
        core::array::from_fn(|j| Row::<W>::lane(self, lb + j))
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn lane(&self, l: usize) -> f32 {
        if l < HW { f32::from_bits(self[l] << 16) } else { f32::from_bits(self[l - HW] & 0xffff_0000) }
    }
}

/// int8 values with their scale (see [`cellc_pack::int8`]): the row's first
/// [`cellc_pack::int8::SCALE_BYTES`] values hold the scale, lane `l` is value
/// `SCALE_BYTES + l`, exactly an f32; the scale multiplies the row's input once
/// ([`Row::scale`]), so a product over the row is `Σ q[l] · (scale · input)`.
impl<const W: usize, const RW: usize> Row<W> for [i8; RW] {
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn axpy<I: Isa>(&self, isa: I, acc: &mut [f32; W], v: f32) {
        const { assert!(RW == W + cellc_pack::int8::SCALE_BYTES, "a row of W int8 lanes is W + 4 values") };
        let (chunks, _) = self[cellc_pack::int8::SCALE_BYTES..].as_chunks::<8>();
        let v = v * Row::<W>::scale(self);
        axpy_by(
            isa,
            acc,
            v,
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            |c| isa.i8x8(&chunks[c]),
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            |l| Row::<W>::lane(self, l),
        );
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn block<I: Isa, const V: usize>(&self, isa: I, lb: usize) -> [f32; V] {
        let at = cellc_pack::int8::SCALE_BYTES + lb;
        let mut out = [0.0f32; V];
        if V == 8
            && let (Some(c), Some(o)) = (self[at..].first_chunk::<8>(), out.first_chunk_mut::<8>())
        {
            *o = isa.i8x8(c);
            return out;
        }
        for (j, o) in out.iter_mut().enumerate() {
            *o = f32::from(self[at + j]);
        }
        out
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn lane(&self, l: usize) -> f32 {
        f32::from(self[cellc_pack::int8::SCALE_BYTES + l])
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn scale(&self) -> f32 {
        cellc_pack::int8::row_scale(self)
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn lanes(&self) -> Lanes<'_, W> {
        match self[cellc_pack::int8::SCALE_BYTES..].first_chunk::<W>() {
            Some(q) => Lanes::I8(q),
            None => Lanes::Other,
        }
    }
}
