//! RNNCell kernels in C: `h' = f(x.W^T + h.R^T + B)`, as `emit::rust::rnn`.
use super::helpers::Helpers;
use super::kern::Kern;
use super::text::Code;

/// `step_projected` of an RNN cell.
pub(super) fn step_projected(k: &Kern<'_>, c: &mut Code, hp: &mut Helpers) {
    let s = &k.cell.spec;
    let e = hp.act(&k.prefix, &s.activations[0], s.clip, "a[l]");
    k.open_step_projected(c, "The projection plus R.h, then the activation, tile by tile.");
    let out = k.pad_states(c, ["out"], &[]).concat();
    k.single_accumulator(c, &[format!("{out}[j] = {e};")]);
    k.unpad_states(c, &["out"]);
    c.close("");
    c.line("");
}
