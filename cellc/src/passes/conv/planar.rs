//! A convolution read where the model holds it, channels first, by the planar kernel
//! (`ir::Dense::planar`): one dense layer over its windows that writes its outputs
//! channels first too, so that a chain of such layers, and the elementwise ops between
//! them, need no transpose. Chosen by the layer's shape, for the layers the kernels over
//! channels-last windows run far from the peak: few outputs (a vector of outputs per
//! register leaves lanes empty), over rows of positions long enough to fill vectors; a layer
//! of few input channels and many outputs stays channels last (see [`FEW_CHANNELS`]).
//! A grouped layer's shape is a group's (a depthwise one: one channel and one output a
//! group), the kernel copying and running one group at a time.
use super::{Act, Epilogue, InPlace, Weights};
use crate::graph::{Data, Graph, NodeId, Sym, TensorId};
use crate::ops::{DenseAct, Op};
use crate::passes::edit::{Decline, add, constant};

/// The fewest output positions along a row: a row shorter than AVX-512's vector of 16 leaves
/// most of its lanes empty.
const MIN_ROW: usize = 16;

/// Outputs up to which a layer is planar: groups of up to 12 fill the registers, where the
/// kernels over channels last hold 16 outputs a vector (measured with `bench/sweep.py`,
/// Intel Xeon with AVX-512: 16 → 16 channels 3×3 over 64×64 2.1× faster planar in Rust, 1-D
/// 16 → 16 kernel 5 over 400 2.6×).
const FEW_OUTPUTS: usize = 16;

/// Outputs up to which a two-dimensional layer of stride 1 is planar: there the rows of
/// positions fill the vectors as well as the outputs would (32 → 32 channels, 3×3 over 32×64
/// 1.2× faster planar, 1×7 1.9×, 1×1 1.8×); strided ones (3×3 stride 2: 0.8×), 1-D ones
/// (64 → 64: 0.7–0.9×) and 64 outputs (3×3, by Winograd channels last: 0.8×) stay
/// channels last.
const FEW_OUTPUTS_2D: usize = 32;

/// The fewest output positions along a row of a grouped layer: the other ways to run one
/// (a product a group, a depthwise layer's shifted copies) cost more than a vector's empty
/// lanes (`bench/sweep.py`, Intel Xeon with AVX-512, depthwise 3×3 in Rust: 128 channels over
/// 12×12 6.9× faster planar than by shifted copies, 256 over 6×6 2.8×).
const MIN_ROW_GROUPED: usize = 4;

/// Input channels under which a layer of more than [`FEW_OUTPUTS`] outputs stays channels
/// last: its output is large beside its input (a model's first layer, over a spectrogram),
/// the planar kernel's blocks of few taps' channels keep it far from the peak too, and the
/// next layer reads it channels last after a transpose as large as the output (AMD Zen 3,
/// AVX2: PLCMOS's 1 → 32 channels over 126×257 1,134 µs channels last against 1,998 µs
/// planar in `cargo bench --bench conv`, the whole model in C at `-O2` 5.19 against 7.21 ms;
/// AECMOS's 3 → 32 over 64×160 664 against 824 µs, the model 1.44 against 1.61 ms).
const FEW_CHANNELS: usize = 4;

/// Outputs and input channels up to which a pointwise layer (1×1, stride 1, no padding) is
/// planar, over rows of [`MIN_ROW`] positions or more: read channels first it needs no
/// transposes around it, and the planar kernel's copy of its input is a plain one. AMD Zen 4
/// (AVX-512), `bench/profile.py`, planar against channels last with its transposes, Rust and
/// C at `-O3 -march=native`: 32 → 32 over 62 entries of 32 positions 0.72 and 0.92, 64 → 64
/// 0.85 and 0.95, 32 → 32 over 64 positions 0.72 and 1.04, 16 → 64 over 1000 0.84 and 1.07,
/// 64 → 64 over 400 0.95 and 0.81; past them channels last stays (64 → 128 over 32: 0.97
/// and 1.10; 256 → 256 over 100: 1.29 and 0.93).
const POINTWISE_OUTPUTS: usize = 64;

/// See [`POINTWISE_OUTPUTS`].
const POINTWISE_CHANNELS: usize = 128;

/// Whether a pointwise layer of `co` outputs and `ci` input channels over rows of `row`
/// positions is planar (see [`POINTWISE_OUTPUTS`]).
pub(crate) fn pointwise_planar(co: usize, ci: usize, row: usize) -> bool {
    row >= MIN_ROW && co <= POINTWISE_OUTPUTS && ci <= POINTWISE_CHANNELS
}

impl InPlace {
    /// Whether the convolution is read by the planar kernel: not transposed, rows of
    /// enough positions, and few outputs a group (`co`, `ci` of each of `groups`; see the
    /// module).
    pub(super) fn planar(&self, groups: usize, co: usize, ci: usize, transposed: bool) -> bool {
        let [(win, _)] = &self.wins[..] else { return false };
        let pointwise = win.kernel == [1, 1] && win.strides == [1, 1] && win.pads == [0, 0] && win.input == win.output;
        !transposed
            && win.output[1] >= if groups == 1 { MIN_ROW } else { MIN_ROW_GROUPED }
            && (co <= FEW_OUTPUTS
                || (co <= FEW_OUTPUTS_2D && ci >= FEW_CHANNELS && win.input[0] > 1 && win.strides == [1, 1])
                || (pointwise && groups == 1 && pointwise_planar(co, ci, win.output[1])))
            && cellc_pack::Planar::of(win).is_some()
    }

    /// The lowered convolution, `[N, C_out, output…]`, by the planar kernel.
    pub(super) fn lower_planar(
        &self,
        g: &mut Graph,
        id: NodeId,
        x: TensorId,
        lay: &Weights<'_>,
        ep: &Epilogue,
    ) -> Result<TensorId, Decline> {
        let geo = lay.geo;
        let [(win, [th, tw])] = &self.wins[..] else {
            return Err(Decline::Internal("a planar layer of phases".into()));
        };
        let (co, groups) = (geo.co * geo.groups, geo.groups);
        let elem = g.tensors[x].fact.elem;
        let wt = lay.windows(g, id, elem, 0..groups, (win, [th, tw]));
        let mut inputs = vec![x, wt];
        let mut act = None;
        if let Some((node, bias)) = &ep.bias {
            inputs.push(constant(g, *node, elem, &[co], Data::Float(bias[..co].to_vec())));
            match &ep.act {
                Some((_, Act::Unary(u))) => act = Some(DenseAct::Unary(*u)),
                Some((r, Act::PRelu(s))) => {
                    inputs.push(constant(g, *r, elem, &[co], Data::Float(s[..co].to_vec())));
                    act = Some(DenseAct::PRelu);
                }
                None => {}
            }
        }
        let op = Op::Dense { tb: true, act, win: Some(Box::new(*win)), planar: true, groups };
        let out = add(g, id, op, &inputs)?;
        if geo.output.len() < 2 {
            return Ok(out);
        }
        // `[N, C_out, positions]` as `[N, C_out, height, width]`, the batch as it is.
        let dims: Vec<Sym> = [0, co].iter().chain(&geo.output).map(|&d| Sym::known(d as i64)).collect();
        let s = constant(g, id, crate::graph::Elem::I64, &[dims.len()], Data::Int(dims));
        add(g, id, Op::Reshape { special_zero: true }, &[out, s])
    }
}
