//! GRUCell kernels in C: the arithmetic of `emit::rust::gru` (see there for the formulas),
//! over the same packed panels.
use super::helpers::Helpers;
use super::kern::Kern;
use super::text::Code;
use crate::ir::CellKind;

/// `step_projected` of a GRU cell.
pub(super) fn step_projected(k: &Kern<'_>, c: &mut Code, hp: &mut Helpers) {
    let s = &k.cell.spec;
    let (h, t, tiles, pre) = (s.hidden, k.tile, k.tiles(), k.prefix.as_str());
    let (f, g) = (&s.activations[0], &s.activations[1]);
    let (t2, w) = (2 * t, k.width);
    if matches!(s.kind, CellKind::Gru { linear_before_reset: true }) {
        k.open_step_projected(
            c,
            "z, r and the candidate for each tile; the candidate's recurrent part is reset after R.h.",
        );
        let [hs, out] = k.pad_states(c, ["h", "out"], &["h"]);
        // Narrow tiles several at a time, as the Rust kernels take them (nsnet2's GRUs,
        // H = 400 in tiles of 48 lanes, AMD Zen 3: the C 1.04 -> 0.97 of its Rust).
        let (bias, stride) = k.tiles_of(&k.recurrent[1]);
        let init = |tile: &str| format!("{bias}[{tile} * {stride} + l]");
        let ax = |at: usize| if at == 0 { format!("p[t * {w} + l]") } else { format!("p[t * {w} + {at} + l]") };
        let lanes = [
            format!("const float z = {};", hp.act(pre, f, s.clip, &format!("{} + a[l]", ax(0)))),
            format!("const float rg = {};", hp.act(pre, f, s.clip, &format!("{} + a[{t} + l]", ax(t)))),
            format!("const float n = {};", hp.act(pre, g, s.clip, &format!("{} + rg * a[{t2} + l]", ax(t2)))),
            format!("{out}[j] = (1.0f - z) * n + z * {hs}[j];"),
        ];
        k.tile_products(c, ("r", &k.recurrent[0], w), &init, "h", &lanes);
        k.unpad_states(c, &["out"]);
        c.close("");
        c.line("");
        return;
    }
    k.open_step_projected(c, "First pass: z, r * h and the input part of the candidate, tile by tile; second pass: the candidate, which needs all of r * h.");
    let nt = tiles * t;
    c.line(format!("float z[{nt}], xn[{nt}];"));
    c.line(format!("float rh[{nt}];"));
    let [hs, out] = k.pad_states(c, ["h", "out"], &["h"]);
    k.open_tiles(c, "t", (0, tiles, 1));
    c.line(format!("const float *restrict ax = p + t * {w};"));
    k.bind(c, "rzr", &k.recurrent[0]);
    k.accumulate(c, ("ah", t2, "0.0f"), "rzr", h, "h");
    k.open_lanes(c);
    c.line(format!("z[t * {t} + l] = {};", hp.act(pre, f, s.clip, "ax[l] + ah[l]")));
    c.line(format!("rh[j] = {} * {hs}[j];", hp.act(pre, f, s.clip, &format!("ax[{t} + l] + ah[{t} + l]"))));
    c.line(format!("xn[t * {t} + l] = ax[{t2} + l];"));
    c.close("");
    c.close("");
    // Its product is one tile wide: narrow tiles are taken several at a time, so that GCC
    // keeps as many chains of sums in flight (AMD Zen 4, GCC 12, a GRU sequence with
    // H = I = 256, two programs alternated, medians: 12.7 → 11.9 µs a step).
    let init = |tile: &str| format!("xn[{tile} * {t} + l]");
    let lanes = [
        format!("const float n = {};", hp.act(pre, g, s.clip, "a[l]")),
        format!("{out}[j] = (1.0f - z[t * {t} + l]) * n + z[t * {t} + l] * {hs}[j];"),
    ];
    k.tile_products(c, ("rn", &k.recurrent[1], t), &init, "rh", &lanes);
    k.unpad_states(c, &["out"]);
    c.close("");
    c.line("");
}
