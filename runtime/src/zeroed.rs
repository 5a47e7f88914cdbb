//! Values built zeroed in place on the heap. A cell whose weights are given at run time holds
//! them by value (a GRU with H = I = 1024: 25 MB), more than a thread's stack: `Cell::new`
//! builds it on the stack before moving it, and overflows. [`boxed`] allocates it zeroed
//! where it will live instead; `set_weights` then fills it. In `no_std`, a generated type's
//! `const fn zeroed()` puts it in a `static`, in the zero-initialised data of the program.
use crate::Aligned;

/// A type whose all-zero bytes are a valid value.
///
/// # Safety
///
/// Every bit pattern of all zeros must be a valid value of the type: it holds only `f32`s,
/// `u16`s, `u32`s, arrays and [`Aligned`] wrappers of them, and types that are themselves `Zeroed`.
/// Generated types implement it through [`impl_zeroed!`](crate::impl_zeroed), which checks
/// that field by field.
#[allow(unsafe_code)]
pub unsafe trait Zeroed: Sized {}

// SAFETY: all-zero bits are 0.0.
#[allow(unsafe_code)]
unsafe impl Zeroed for f32 {}
// SAFETY: all-zero bits are 0 (an f16 or bf16 zero, as stored weights).
#[allow(unsafe_code)]
unsafe impl Zeroed for u16 {}
// SAFETY: all-zero bits are 0 (two bfloat16 zeros, as stored weights).
#[allow(unsafe_code)]
unsafe impl Zeroed for u32 {}
// SAFETY: the all-zero byte is 0 (an int8 weight, or a byte of a zero scale).
#[allow(unsafe_code)]
unsafe impl Zeroed for i8 {}
// SAFETY: the all-zero byte is `false` (a stateful model's flag: no run since a reset).
#[allow(unsafe_code)]
unsafe impl Zeroed for bool {}
// SAFETY: an array of zero-valid values is zero-valid.
#[allow(unsafe_code)]
unsafe impl<T: Zeroed, const N: usize> Zeroed for [T; N] {}
// SAFETY: a `repr(C)` wrapper of one zero-valid field (its padding is never read).
#[allow(unsafe_code)]
unsafe impl<T: Zeroed> Zeroed for Aligned<T> {}

/// Compiles only for a [`Zeroed`] value: [`impl_zeroed!`](crate::impl_zeroed)'s check.
#[doc(hidden)]
pub fn assert_zeroed<T: Zeroed>(_: &T) {}

/// Implements [`Zeroed`] for a struct of generated code after checking, at compile time,
/// that the fields listed are all of its fields (a struct pattern without `..` must name
/// every one) and that each is `Zeroed`.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_zeroed {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        const _: () = {
            #[allow(dead_code)]
            fn every_field_is_zeroed(value: &$ty) {
                let $ty { $($field),* } = value;
                $($crate::__private::assert_zeroed($field);)*
            }
        };
        // SAFETY: the pattern above names every field of the struct, each `Zeroed`.
        #[allow(unsafe_code)]
        unsafe impl $crate::Zeroed for $ty {}
    };
}

/// A `T` of all-zero bytes, allocated on the heap without passing through the stack: for a
/// generated cell with weights given at run time, `boxed::<Cell>()` then `set_weights`; for a
/// generated model, `boxed::<Model>()`.
#[cfg(feature = "std")]
#[allow(unsafe_code)]
pub fn boxed<T: Zeroed>() -> std::boxed::Box<T> {
    let layout = core::alloc::Layout::new::<T>();
    if layout.size() == 0 {
        // SAFETY: a dangling, aligned pointer is a valid `Box` of a zero-sized type, and
        // `T: Zeroed` makes its (empty) zero bytes a valid value.
        return unsafe { std::boxed::Box::from_raw(core::ptr::NonNull::<T>::dangling().as_ptr()) };
    }
    // SAFETY: the layout's size is not zero; the pointer, when not null, is allocated by the
    // global allocator with `T`'s layout, as `Box` requires, and its zero bytes are a valid
    // `T` because `T: Zeroed`.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout).cast::<T>();
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        std::boxed::Box::from_raw(p)
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    struct Big {
        w: Aligned<[f32; 1 << 20]>,
        r: [u16; 3],
        started: bool,
    }
    crate::impl_zeroed!(Big { w, r, started });

    struct Unit;
    crate::impl_zeroed!(Unit {});

    #[test]
    fn boxed_values_are_zero_and_never_touch_the_stack() {
        // 4 MiB built on a thread with a 256 KiB stack.
        let t = std::thread::Builder::new().stack_size(256 << 10).spawn(|| {
            let b = boxed::<Big>();
            assert!(b.w.0.iter().all(|&v| v == 0.0) && b.r == [0; 3] && !b.started);
            assert_eq!(b.w.0.as_ptr() as usize % 64, 0, "alignment kept");
            let _u: std::boxed::Box<Unit> = boxed();
        });
        t.expect("spawn").join().expect("no overflow");
    }
}
