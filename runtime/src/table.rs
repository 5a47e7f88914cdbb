//! Weight tables stored as bytes. Generated Rust holds large tables in a file written beside
//! it, read with `include_bytes!` into one aligned block of bytes, and each table is a view
//! of its part of the block: rustc reads bytes about 20 times faster than it parses the same
//! values as decimal literals.
use crate::Aligned;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for i8 {}
}

/// The element type of a weight table: one for which every bit pattern of its bytes is a
/// value (`f32`; `u16` holding f16 bits; `u32` holding pairs of bfloat16; `i8` holding int8
/// weights and their scales).
pub trait Element: sealed::Sealed + Copy {}
impl Element for f32 {}
impl Element for u16 {}
impl Element for u32 {}
impl Element for i8 {}

/// The table of `N` values of type `T` stored little-endian at byte `offset` of `bytes`.
///
/// Generated code calls it in a `static`'s initialiser, where it is evaluated at compile
/// time: an offset off the 64-byte grid, values past the end of the `B` bytes given (not
/// of their padded block), or a big-endian target is a compile error there.
#[allow(unsafe_code)]
pub const fn table<T: Element, const N: usize, const B: usize>(
    bytes: &'static Aligned<[u8; B]>,
    offset: usize,
) -> &'static Aligned<[T; N]> {
    // Not a `const` block: the crate builds for big-endian targets, where only this is refused.
    let little = cfg!(target_endian = "little");
    assert!(
        little,
        "weight tables stored as bytes are little-endian: generate this model with `weight_tables = source` for a big-endian target"
    );
    assert!(offset.is_multiple_of(align_of::<Aligned<[T; N]>>()), "a weight table's offset is not a multiple of 64");
    // The values lie within the bytes given, and the view (with its padding) within their
    // block.
    match (offset.checked_add(size_of::<[T; N]>()), offset.checked_add(size_of::<Aligned<[T; N]>>())) {
        (Some(values), Some(view)) if values <= B && view <= size_of::<Aligned<[u8; B]>>() => {}
        _ => panic!("a weight table ends past the bytes that hold it"),
    }
    let start = (bytes as *const Aligned<[u8; B]>).cast::<u8>();
    // SAFETY: `start` points at a 64-byte aligned block of `size_of::<Aligned<[u8; B]>>()`
    // bytes that lives for 'static and is never written (a shared reference to it). The
    // view starts `offset` bytes in, a multiple of 64 (so aligned for `Aligned<[T; N]>`),
    // and ends within the block (both checked above). Its `N` values lie within the `B`
    // bytes of `[u8; B]` (checked above), all initialised; what the view covers past them
    // is padding of `Aligned<[T; N]>`, never read as a value. `T` is `f32`, `u16`, `u32` or `i8`
    // (the sealed `Element`), for which any initialised bytes are a value.
    unsafe { &*start.add(offset).cast::<Aligned<[T; N]>>() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 128 bytes: 16 f32 values from 0.5 up, then 32 u16 values from 1 up.
    const fn block() -> Aligned<[u8; 128]> {
        let mut b = [0u8; 128];
        let mut i = 0;
        while i < 16 {
            let v = (0.5 + i as f32).to_le_bytes();
            let mut j = 0;
            while j < 4 {
                b[4 * i + j] = v[j];
                j += 1;
            }
            i += 1;
        }
        let mut i = 0;
        while i < 32 {
            let v = (1 + i as u16).to_le_bytes();
            b[64 + 2 * i] = v[0];
            b[64 + 2 * i + 1] = v[1];
            i += 1;
        }
        Aligned(b)
    }

    static BLOCK: Aligned<[u8; 128]> = block();
    // Evaluated at compile time, as generated code does.
    static FLOATS: &Aligned<[f32; 16]> = table(&BLOCK, 0);
    static WORDS: &Aligned<[u16; 32]> = table(&BLOCK, 64);

    #[test]
    fn views_read_the_values_written() {
        let floats: [f32; 16] = core::array::from_fn(|i| 0.5 + i as f32);
        assert_eq!(FLOATS.0, floats);
        let words: [u16; 32] = core::array::from_fn(|i| 1 + i as u16);
        assert_eq!(WORDS.0, words);
        // A table shorter than its 64-byte slot, viewed at run time.
        let pairs: &Aligned<[u32; 3]> = table(&BLOCK, 64);
        assert_eq!(pairs.0, [0x0002_0001, 0x0004_0003, 0x0006_0005]);
    }

    #[test]
    #[should_panic(expected = "not a multiple of 64")]
    fn an_offset_off_the_grid_is_refused() {
        let _: &Aligned<[f32; 4]> = table(&BLOCK, 4);
    }

    #[test]
    #[should_panic(expected = "past the bytes")]
    fn a_table_past_the_end_is_refused() {
        let _: &Aligned<[f32; 17]> = table(&BLOCK, 64);
    }

    /// 100 bytes given, in a block padded to 128.
    static SHORT: Aligned<[u8; 100]> = Aligned([7; 100]);

    #[test]
    #[should_panic(expected = "past the bytes")]
    fn values_past_the_bytes_given_are_refused_even_within_the_padding() {
        // 16 values at 64..128: within the padded block, past the 100 bytes given.
        let _: &Aligned<[f32; 16]> = table(&SHORT, 64);
    }

    #[test]
    fn values_within_the_bytes_given_are_read() {
        let t: &Aligned<[u32; 9]> = table(&SHORT, 64);
        assert_eq!(t.0, [0x0707_0707; 9]);
    }

    #[test]
    #[should_panic(expected = "past the bytes")]
    fn an_offset_past_the_end_is_refused() {
        let _: &Aligned<[f32; 1]> = table(&BLOCK, usize::MAX - 63);
    }
}
