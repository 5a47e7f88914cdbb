//! What both languages' dense layers share: how a layer's outputs are cut into tiles and
//! groups of tiles, and its weights and bias packed into them.
use crate::emit::plan::{MAX_TILE, Packed, Schedule, Store};
use crate::ir::steps::Step;
use crate::ir::{Dense, DenseAct, Model};

/// Rows a call of a dense layer must hold for its kernel to take blocks of rows × tiles
/// (a block of the widest kind holds 6 rows; with fewer, the row-by-row kernels, which
/// split each sum across partial sums, finish sooner).
const WIDE_ROWS: usize = 6;

/// Whether dense layer `dense` of `m` runs over enough rows a call, in every step that
/// calls it, for the kernel of blocks of rows × tiles.
pub(crate) fn wide(m: &Model, dense: usize) -> bool {
    let mut rows = m.steps.iter().filter_map(|s| match s {
        Step::Dense(d) if d.dense == dense => Some(d.rows),
        _ => None,
    });
    rows.clone().next().is_some() && rows.all(|r| r >= WIDE_ROWS)
}

/// The rows every call of dense layer `dense` of `m` holds, where all its calls hold as many
/// (`None` where it has no call or calls of different sizes).
pub(crate) fn call_rows(m: &Model, dense: usize) -> Option<usize> {
    let mut rows = m.steps.iter().filter_map(|s| match s {
        Step::Dense(d) if d.dense == dense => Some(d.rows),
        _ => None,
    });
    let first = rows.next()?;
    rows.all(|r| r == first).then_some(first)
}

/// Accumulators a group of tiles may take, in f32 values, for the widest row block (8).
const MAX_GROUP_VALUES: usize = 4096;

/// How a dense layer is cut: outputs per tile, tiles, tiles per group (the tiles padded to
/// a whole number of groups).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tiling {
    pub(crate) tile: usize,
    pub(crate) tiles: usize,
    pub(crate) group: usize,
}

impl Tiling {
    /// The tiling of a layer with `n` outputs.
    pub(crate) fn of(n: usize) -> Tiling {
        let tile = MAX_TILE.min(n.next_power_of_two());
        let tiles = n.div_ceil(tile);
        let most = (MAX_GROUP_VALUES / (8 * tile)).max(1);
        let group = if tiles <= most {
            tiles
        } else {
            // A divisor of the tiles when one is close to the most, else padding.
            (most / 4..=most).rev().find(|d| tiles.is_multiple_of(*d)).unwrap_or(most)
        };
        Tiling { tile, tiles: tiles.div_ceil(group) * group, group }
    }

    /// How the product of one group is arranged (the kernel's call computes a group) over
    /// `k` inputs. A `wide` layer (see [`wide`]) keeps one sum per lane: its AVX-512 kernel
    /// shares each weight between rows instead of splitting sums, and the other levels must
    /// add the same terms in the same order.
    pub(crate) fn schedule(self, k: usize, wide: bool) -> Schedule {
        if wide { Schedule::unsplit(self.group, self.tile) } else { Schedule::of(self.group, self.tile, k) }
    }
}

/// The weights of `d`, packed: `[tiles][K][tile]` (zero past `n`), as `store` says.
pub(crate) fn packed_weights(d: &Dense, t: Tiling, store: Store) -> Packed {
    let len = t.tiles * d.k * t.tile;
    // `panels` packs `ceil(n / tile)` tiles; the padding tiles stay zero.
    let used = cellc_pack::panel_len(d.n, d.k, 1, t.tile);
    match store {
        Store::F32 => {
            let mut v = vec![0.0f32; len];
            cellc_pack::panels(&mut v[..used], &d.w, d.n, d.k, &[0], t.tile);
            Packed::F32(v)
        }
        Store::F16 => {
            let mut v = vec![0u16; len];
            cellc_pack::panels_f16(&mut v[..used], &d.w, d.n, d.k, &[0], t.tile);
            Packed::F16(v)
        }
        Store::Bf16 => {
            let words = cellc_pack::bf16_words(t.tile);
            let mut v = vec![0u32; t.tiles * d.k * words];
            cellc_pack::panels_bf16(&mut v[..d.n.div_ceil(t.tile) * d.k * words], &d.w, d.n, d.k, &[0], t.tile);
            Packed::Bf16(v)
        }
        Store::I8 => {
            let row = cellc_pack::int8::row_len(t.tile);
            let mut v = vec![0i8; t.tiles * d.k * row];
            cellc_pack::int8::panels_i8(&mut v[..d.n.div_ceil(t.tile) * d.k * row], &d.w, d.n, d.k, &[0], t.tile);
            Packed::I8(v)
        }
    }
}

/// The bias of `d` in tiles (`[tiles][tile]`, zero past `n` and without a bias).
pub(crate) fn packed_bias(d: &Dense, t: Tiling) -> Vec<f32> {
    (0..t.tiles * t.tile).map(|j| d.bias.as_ref().and_then(|b| b.get(j).copied()).unwrap_or(0.0)).collect()
}

/// The slopes of `d`'s PReLU in tiles (`[tiles][tile]`, zero past `n`), when it has one.
pub(crate) fn packed_slope(d: &Dense, t: Tiling) -> Option<Vec<f32>> {
    match &d.act {
        Some(DenseAct::PRelu(s)) => Some((0..t.tiles * t.tile).map(|j| s.get(j).copied().unwrap_or(0.0)).collect()),
        Some(DenseAct::Unary(_)) | None => None,
    }
}

/// A line saying what the layer computes.
pub(crate) fn describe(d: &Dense, t: Tiling, store: Store) -> String {
    let mut parts = vec![format!("MatMul {:?}: {} inputs, {} outputs", d.name, d.k, d.n)];
    if d.bias.is_some() {
        parts.push("plus a bias".to_owned());
    }
    if let Some(a) = &d.act {
        parts.push(format!("then {}", a.name()));
    }
    let over = match &d.win {
        Some(w) => format!(
            " over the windows of a convolution read in place ({}×{} taps of {} channels, stride {}×{}, dilation {}×{}, padding {}×{} before, over {}×{} values laid out channels {})",
            w.kernel[0],
            w.kernel[1],
            w.channels,
            w.strides[0],
            w.strides[1],
            w.dilations[0],
            w.dilations[1],
            w.pads[0],
            w.pads[1],
            w.input[0],
            w.input[1],
            if d.planar { "first" } else { "last" }
        ),
        None => String::new(),
    };
    if d.is_planar() {
        // The planar kernel reads f32: a narrower type's values, held as f32.
        let (nb, per) = planar_blocks(d);
        let held = match store {
            Store::F32 => "f32".to_owned(),
            other => format!("{} values held as f32", other.name()),
        };
        let groups = match d.groups {
            1 => String::new(),
            g => format!(
                " in {g} groups of {} channel(s) and {} output(s) each",
                d.win.as_ref().map_or(0, |w| w.channels),
                d.group_outputs()
            ),
        };
        return format!(
            "Dense layer ({}){over}{groups}; weights in {per} panel(s) of {nb} outputs{} ({held}).",
            parts.join(", "),
            if d.groups == 1 { "" } else { " a group" }
        );
    }
    format!(
        "Dense layer ({}){over}; weights packed in {} tiles of {} outputs ({}).",
        parts.join(", "),
        t.tiles,
        t.tile,
        store.name()
    )
}

/// Outputs the planar kernel takes together at most: with two vectors of positions each, 24
/// accumulators of AVX-512's 32 registers (12 of AVX2's 16 with one).
const MAX_PLANAR_PANEL: usize = 12;

/// How the planar kernel cuts each group of `d`'s outputs (all of them, with one group):
/// outputs a panel (as even as the panels go, at most [`MAX_PLANAR_PANEL`]) and panels a
/// group.
pub(crate) fn planar_blocks(d: &Dense) -> (usize, usize) {
    let m = d.group_outputs();
    let per = m.div_ceil(MAX_PLANAR_PANEL).max(1);
    (m.div_ceil(per), per)
}

/// The weights of `d` for the planar kernel: `[groups][panels][K][panel]` (zero past each
/// group's outputs), each value as `store` rounds it (the kernel reads f32: a 16-bit value
/// exactly, an int8 one as its integer times its column's scale, the values the other
/// kernels compute with).
pub(crate) fn planar_weights(d: &Dense, store: Store) -> Vec<f32> {
    let scales: Vec<f32> = match store {
        Store::I8 => (0..d.k).map(|k| cellc_pack::int8::column_scale(&d.w, d.k, k)).collect(),
        Store::F32 | Store::F16 | Store::Bf16 => vec![],
    };
    let stored = |j: usize, k: usize| {
        let v = d.w[j * d.k + k];
        match store {
            Store::F32 => v,
            Store::F16 => half::f16::from_f32(v).to_f32(),
            Store::Bf16 => half::bf16::from_f32(v).to_f32(),
            Store::I8 => f32::from(cellc_pack::int8::quantise(v, scales[k])) * scales[k],
        }
    };
    let (nb, per) = planar_blocks(d);
    let mut out = vec![0.0f32; d.groups * per * d.k * nb];
    for (i, o) in out.iter_mut().enumerate() {
        let (panel, k, l) = (i / (d.k * nb), i / nb % d.k, i % nb);
        if let Some(j) = planar_output(d, panel, l) {
            *o = stored(j, k);
        }
    }
    out
}

/// The bias of `d` in the planar kernel's panels (`[groups][panels][panel]`, zero past each
/// group's outputs).
pub(crate) fn planar_bias(d: &Dense) -> Vec<f32> {
    let (nb, per) = planar_blocks(d);
    (0..d.groups * per * nb)
        .map(|i| planar_output(d, i / nb, i % nb).and_then(|j| d.bias.as_ref().map(|b| b[j])).unwrap_or(0.0))
        .collect()
}

/// The output of `d` that value `l` of panel `panel` (counted over every group's panels)
/// holds, if any: output `l` of the group's panel, past the group's outputs none.
fn planar_output(d: &Dense, panel: usize, l: usize) -> Option<usize> {
    let (nb, per) = planar_blocks(d);
    let m = d.group_outputs();
    let within = panel % per * nb + l;
    (within < m).then_some(panel / per * m + within)
}
