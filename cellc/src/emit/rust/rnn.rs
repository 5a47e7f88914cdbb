//! RNNCell kernels: `h' = f(x·Wᵀ + h·Rᵀ + B)`, with f applied to its input clamped to
//! `[-clip, clip]` when `clip` is set.
use super::cell::{Ctx, Kernel, Pack, Slot, Tensor};
use super::exprs::act;
use quote::{format_ident, quote};

/// The arrays the kernel reads and its `step_projected` body, which starts from `p`, the
/// input projection `x·Wᵀ + B`, one panel per tile.
pub(super) fn kernel(ctx: &Ctx<'_>) -> Kernel {
    let s = &ctx.cell.spec;
    let (h, i, t) = (s.hidden, s.input, ctx.tile);
    let tiles = cellc_pack::tiles(h, t);
    let input = [
        Slot { field: "w", tensor: Tensor::W, pack: Pack::Panels { sel: vec![0], cols: i } },
        Slot { field: "b", tensor: Tensor::B, pack: Pack::Bias { segs: vec![Some(0)] } },
    ];
    let recurrent = vec![Slot { field: "r", tensor: Tensor::R, pack: Pack::Panels { sel: vec![0], cols: h } }];
    let binds = ctx.binds(&recurrent);
    let a = format_ident!("a");
    let rh = ctx.matvec(&a, "r", h, quote!(h), &format_ident!("h"));
    let lanes = ctx.lanes();
    let j = ctx.row_index();
    let e = act(&s.activations[0], s.clip, quote! { a[l] });
    let body = quote! {
        #binds
        for t in 0..#tiles {
            let mut a = p[t];
            #rh
            for l in 0..#lanes {
                out[#j] = #e;
            }
        }
    };
    Kernel { input, recurrent, width: t, body }
}
