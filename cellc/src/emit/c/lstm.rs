//! LSTMCell kernels in C: gates f, i, c, o as in OpenVINO, the arithmetic of
//! `emit::rust::lstm` (see there for the formulas).
use super::helpers::Helpers;
use super::kern::Kern;
use super::text::Code;

/// `step_projected` of an LSTM cell.
pub(super) fn step_projected(k: &Kern<'_>, c: &mut Code, hp: &mut Helpers) {
    let s = &k.cell.spec;
    let (t, pre) = (k.tile, k.prefix.as_str());
    let (f, g, hh) = (&s.activations[0], &s.activations[1], &s.activations[2]);
    k.open_step_projected(
        c,
        "The projection plus R.h for the four gates, then the new cell and hidden states, tile by tile.",
    );
    let [cs, out, out_c] = k.pad_states(c, ["c", "out", "out_c"], &["c"]);
    // The peepholes' tile holds f, i, o side by side.
    let [pf, pi, po] = match k.peepholes() {
        Some(slot) => {
            let (peep, stride) = k.tiles_of(slot);
            let at = |gate: usize, v: &str| match gate * t {
                0 => format!(" + {peep}[t * {stride} + l] * {v}"),
                off => format!(" + {peep}[t * {stride} + {off} + l] * {v}"),
            };
            [at(0, &format!("{cs}[j]")), at(1, &format!("{cs}[j]")), at(2, "ct")]
        }
        None => Default::default(),
    };
    let fg = hp.act(pre, f, s.clip, &format!("a[l]{pf}"));
    let ig = hp.act(pre, f, s.clip, &format!("a[{t} + l]{pi}"));
    let cg = hp.act(pre, g, s.clip, &format!("a[{} + l]", 2 * t));
    let og = hp.act(pre, f, s.clip, &format!("a[{} + l]{po}", 3 * t));
    let hc = hp.act(pre, hh, None, "ct");
    k.single_accumulator(
        c,
        &[
            format!("const float ct = {fg} * {cs}[j] + {ig} * {cg};"),
            format!("{out_c}[j] = ct;"),
            format!("{out}[j] = {og} * {hc};"),
        ],
    );
    k.unpad_states(c, &["out", "out_c"]);
    c.close("");
    c.line("");
}
