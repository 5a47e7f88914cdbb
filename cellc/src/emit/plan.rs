//! What a cell's kernel reads, whatever language it is written in: the tile it works in,
//! the arrays of packed weights (which tensor, which gates or bias blocks) and how they
//! are packed. Both emitters build their kernels over one [`Plan`], so the Rust and the C
//! kernel of a cell read the same numbers in the same order.
use crate::ir::{Cell, CellKind, CellSpec, Seq, WeightSrc};
use crate::options::{Strategy, WeightType};

/// Widest tile, in outputs: one AVX-512 register, or a few narrower ones.
pub(crate) const MAX_TILE: usize = 16;

/// Steps whose input projections a streaming `feed` (and a sequence) computes together.
pub(crate) const FEED_BLOCK: usize = 8;

/// Bytes of weights (both matrices) above which a cell projects a long block of steps
/// before their recurrence ([`Plan::long_block`]): the same half of the smallest L2 as
/// [`SNAKE_BYTES`], past which the input matrix, read once a block, evicts the recurrent one
/// that every step reads.
pub(crate) const LONG_BLOCK_WEIGHTS: usize = 256 << 10;

/// Bytes of projections a long block holds (`p`, an array on the stack of `feed`): NSNet2's
/// 20 steps of 400 units (96 KB) in one block.
pub(crate) const LONG_BLOCK_BYTES: usize = 128 << 10;

/// Bytes of recurrent weights above which a block of steps alternates the order of the tiles
/// ([`Plan::snake`]): half the smallest second-level cache of the machines measured (AMD Zen
/// 3, 512 KiB a core), since a step reads its projection, state and outputs beside the weights.
/// The order paid where the weights sit at the L2's edge (NSNet2's GRU, 1.92 MB, on an Intel
/// Xeon with 2 MiB: 1,150 → 1,030 µs for 20 steps) and measured nothing on AMD Zen 3, whose
/// steps are not bound by the L2's misses (docs/PERFORMANCE.md).
pub(crate) const SNAKE_BYTES: usize = 256 << 10;

/// How a tiled product's multiply–adds are arranged, decided here once for both languages:
/// the Rust passes it to the runtime's kernels (`cellc_runtime::__private::kernel::Schedule`), the C
/// spells its loops out from it, so a lane sums in the same order in both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Schedule {
    /// Partial sums each lane's sum is split into, over alternate inputs (1, 2 or 4).
    pub(crate) split: usize,
    /// Tiles one row computes side by side, their multiply–adds interleaved (1, 2 or 4).
    pub(crate) interleave: usize,
}

/// A rule that decides a product's schedule from its tiles, their width and its inputs.
type Rule = fn(usize, usize, usize) -> Schedule;

#[cfg(test)]
thread_local! {
    /// A rule the plans made on this thread take instead of [`Schedule::of`].
    pub(crate) static RULE: std::cell::Cell<Option<Rule>> = const { std::cell::Cell::new(None) };
}

/// The rule plans take: [`Schedule::of`] (or, in unit tests, the one a test put in).
fn rule() -> Rule {
    #[cfg(test)]
    if let Some(r) = RULE.with(std::cell::Cell::get) {
        return r;
    }
    Schedule::of
}

impl Schedule {
    /// One sum per lane, one tile at a time: the unrolled kernels' (each a single tile).
    pub(crate) const ONE: Schedule = Schedule { split: 1, interleave: 1 };

    /// The schedule of a product of `tiles` tiles of `width` lanes each over `cols` inputs.
    ///
    /// A product so narrow that all its lanes fit in 4 AVX-512 registers (a GRU with H=16:
    /// the whole step waits on it) is a short chain of dependent multiply–adds per lane
    /// with little else to overlap it, so each lane's sum is split, into 4 up to 32 lanes,
    /// into 2 up to 64, and never into parts of fewer than 2 inputs. Wider products keep
    /// about 12 independent 8-lane sums in flight by running narrow tiles side by side: 4
    /// of up to 16 lanes, 2 of up to 48.
    ///
    /// Measured on a GRU with H=16, I=1 (AMD EPYC Zen 5, `cargo bench --bench step`,
    /// medians of interleaved rounds): the Rust step 102 ns with 4 partial sums against
    /// 156 with 2; the C (GCC 12) 168 ns with 4 against 154 with 2, and no better with the
    /// partial sums as scalars of a loop over the lanes (170). 4 is kept for both: the
    /// C's narrow step has larger costs of its own.
    pub(crate) fn of(tiles: usize, width: usize, cols: usize) -> Schedule {
        let lanes = tiles.saturating_mul(width);
        let split = match lanes {
            0..=32 => 4,
            33..=64 => 2,
            _ => 1,
        };
        let split = match cols {
            0..=3 => 1,
            4..=7 => split.min(2),
            _ => split,
        };
        Schedule::split_in(split, tiles, width)
    }

    /// [`Schedule::of`] with one sum per lane: the schedule of a product whose kernel sums
    /// each lane in one chain at every level (a dense layer over many rows, whose AVX-512
    /// kernel shares each weight between rows instead of splitting sums), so that every
    /// level adds the same terms in the same order.
    pub(crate) fn unsplit(tiles: usize, width: usize) -> Schedule {
        Schedule::split_in(1, tiles, width)
    }

    /// Each lane's sum split in `split`, the tiles interleaved as [`Schedule::of`] says.
    fn split_in(split: usize, tiles: usize, width: usize) -> Schedule {
        let interleave = match width {
            _ if split > 1 || tiles < 2 => 1,
            0..=16 => 4,
            17..=48 => 2,
            _ => 1,
        };
        Schedule { split, interleave }
    }
}

/// How the matrices of a cell are stored: [`WeightType`] resolved for one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Store {
    F32,
    /// IEEE binary16 bits, one `u16` a lane.
    F16,
    /// bfloat16 pairs, two lanes a `u32` word (see `cellc_pack::panels_bf16`).
    Bf16,
    /// int8 lanes after their row's scale (see `cellc_pack::int8`).
    I8,
}

impl Store {
    /// Bytes of one stored weight.
    pub(crate) fn bytes(self) -> usize {
        match self {
            Store::F32 => 4,
            Store::F16 | Store::Bf16 => 2,
            Store::I8 => 1,
        }
    }

    /// The name of the type, as `--weight-type` takes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Store::F32 => "f32",
            Store::F16 => "f16",
            Store::Bf16 => "bf16",
            Store::I8 => "i8",
        }
    }
}

/// The storage of `cell`'s `W` and `R` that `wt` asks for. `Auto` takes the narrowest form
/// that holds every embedded value exactly (f32 when some are given at run time); a value
/// too large for an explicit 16-bit type is an error naming it.
pub(crate) fn store(cell: &Cell, wt: WeightType) -> Result<Store, StoreError> {
    fn embedded(w: &WeightSrc) -> Option<&[f32]> {
        match w {
            WeightSrc::Embedded { values, .. } => Some(values.as_slice()),
            WeightSrc::Runtime(_) => None,
        }
    }
    store_of(&format!("cell {:?}", cell.name), &[("W", embedded(&cell.w)), ("R", embedded(&cell.r))], wt)
}

/// [`store`] for the matrices `mats` of `owner` (`None`: given at run time).
pub(crate) fn store_of(owner: &str, mats: &[(&str, Option<&[f32]>)], wt: WeightType) -> Result<Store, StoreError> {
    let embedded: Vec<(&str, &[f32])> = mats.iter().filter_map(|(n, w)| Some((*n, (*w)?))).collect();
    let exact = |round: fn(f32) -> f32| {
        embedded.len() == mats.len()
            && embedded.iter().all(|(_, v)| v.iter().all(|&x| round(x).to_bits() == x.to_bits() || x.is_nan()))
    };
    let fits = |store: Store, overflow: fn(&[f32]) -> Option<usize>| {
        for (n, v) in &embedded {
            if let Some(i) = overflow(v) {
                return Err(StoreError {
                    owner: owner.to_owned(),
                    matrix: (*n).to_owned(),
                    index: i,
                    value: v[i],
                    store,
                });
            }
        }
        Ok(store)
    };
    match wt {
        WeightType::F32 => Ok(Store::F32),
        WeightType::F16 => fits(Store::F16, cellc_pack::f16_overflow),
        WeightType::Bf16 => fits(Store::Bf16, cellc_pack::bf16_overflow),
        WeightType::I8 => fits(Store::I8, cellc_pack::int8::i8_unfit),
        WeightType::Auto if exact(|x| half::bf16::from_f32(x).to_f32()) => Ok(Store::Bf16),
        WeightType::Auto if exact(|x| half::f16::from_f32(x).to_f32()) => Ok(Store::F16),
        WeightType::Auto => Ok(Store::F32),
    }
}

/// A weight the narrow type asked for cannot hold: too large for a 16-bit type, not
/// finite for int8.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StoreError {
    /// The layer, as messages name it (`cell "gru"`).
    pub owner: String,
    /// The matrix (`W`, `R`).
    pub matrix: String,
    /// The position of the value in it.
    pub index: usize,
    /// The value.
    pub value: f32,
    /// The type it does not fit.
    pub store: Store,
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", crate::diag::Message::from(self.clone()))
    }
}

impl From<StoreError> for crate::diag::Message {
    /// The value that does not fit, and the weight types it fits.
    fn from(e: StoreError) -> Self {
        use crate::diag::{Fix, Message, Setting};
        let StoreError { owner, matrix, index, value, store } = e;
        let mut fix = Fix::new("use", Setting::new("weight_type", "f32"));
        if store == Store::F16 {
            fix = fix.or(Setting::new("weight_type", "bf16"));
        }
        let why = match store {
            Store::I8 => "is not finite, which int8 weights cannot hold".to_owned(),
            Store::F32 | Store::F16 | Store::Bf16 => format!("is too large for {} weights", store.name()),
        };
        Message::new(format!("{owner}: {matrix}[{index}] = {value} {why}")).fix(fix).code(crate::diag::Code::Conflict)
    }
}

impl std::error::Error for StoreError {}

/// An array packed at compile time, in its stored form.
pub(crate) enum Packed {
    F32(Vec<f32>),
    F16(Vec<u16>),
    Bf16(Vec<u32>),
    I8(Vec<i8>),
}

/// Which input of the cell a weight array comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tensor {
    W,
    R,
    B,
    /// An LSTM's peepholes (always embedded).
    P,
}

impl Tensor {
    /// The tensor's argument name in generated setters (`w`, `r`, `b`).
    pub(crate) fn arg(self) -> &'static str {
        match self {
            Tensor::W => "w",
            Tensor::R => "r",
            Tensor::B => "b",
            Tensor::P => "p",
        }
    }
}

/// How an array the kernel reads is made from its tensor.
#[derive(Clone, Debug)]
pub(crate) enum Pack {
    /// Panels of the gates `sel` (see `cellc_pack::panels`): `[tiles][cols][gates × tile]`.
    Panels { sel: Vec<usize>, cols: usize },
    /// Bias panels: for each segment, the `H`-long block of `B` it takes, or zero:
    /// `[tiles][segments × tile]`.
    Bias { segs: Vec<Option<usize>> },
}

/// One array the kernel reads.
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    pub(crate) field: &'static str,
    pub(crate) tensor: Tensor,
    pub(crate) pack: Pack,
}

impl Slot {
    fn panels(field: &'static str, tensor: Tensor, sel: Vec<usize>, cols: usize) -> Slot {
        Slot { field, tensor, pack: Pack::Panels { sel, cols } }
    }

    fn bias(field: &'static str, segs: Vec<Option<usize>>) -> Slot {
        Slot { field, tensor: Tensor::B, pack: Pack::Bias { segs } }
    }

    /// An LSTM's peepholes, read as a bias is: `[tiles][f, i, o × tile]`.
    fn peepholes() -> Slot {
        Slot { field: "peep", tensor: Tensor::P, pack: Pack::Bias { segs: vec![Some(0), Some(1), Some(2)] } }
    }

    /// Lanes of one tile of this array: gates (or segments) × tile width.
    pub(crate) fn width(&self, tile: usize) -> usize {
        match &self.pack {
            Pack::Panels { sel, .. } => sel.len() * tile,
            Pack::Bias { segs } => segs.len() * tile,
        }
    }

    /// A line saying what the array holds, for the comment above its table.
    pub(crate) fn describe(&self) -> String {
        let t = self.tensor.arg().to_ascii_uppercase();
        match &self.pack {
            Pack::Panels { sel, .. } => format!("{t} (gates {sel:?})"),
            Pack::Bias { segs } => format!("{t} (blocks {segs:?})"),
        }
    }
}

/// The kernel of one cell (one direction of a sequence): its tile and the arrays it reads.
///
/// `input` are the arrays of the input projection (`W` and the input-side bias), which a
/// sequence computes for several steps at once; `recurrent` those of the recurrence. For a
/// GRU without `linear_before_reset`, `R` is split into the z|r panel (`rzr`) and the
/// candidate's (`rn`), because the candidate needs all of `r ⊙ h` first.
pub(crate) struct Plan<'a> {
    pub(crate) cell: &'a Cell,
    pub(crate) strategy: Strategy,
    /// How the panels of `W` and `R` are stored (biases are f32).
    pub(crate) store: Store,
    pub(crate) tile: usize,
    pub(crate) input: [Slot; 2],
    pub(crate) recurrent: Vec<Slot>,
    /// Lanes of one tile's input projection (gates × tile).
    pub(crate) width: usize,
    /// How products are scheduled ([`Schedule::of`], or another rule a test puts in to
    /// see both languages follow it).
    rule: Rule,
}

impl<'a> Plan<'a> {
    /// The plan of `cell` compiled with `strategy`, its matrices stored as `store`.
    pub(crate) fn new(cell: &'a Cell, strategy: Strategy, store: Store) -> Plan<'a> {
        let s = &cell.spec;
        let strategy = strategy.resolve();
        let tile = match strategy {
            // Unrolled kernels take the whole state as one tile.
            Strategy::Unrolled => s.hidden,
            Strategy::Tiled | Strategy::Auto => MAX_TILE.min(s.hidden.next_power_of_two()),
        };
        let (h, i, gates) = (s.hidden, s.input, s.kind.gates());
        let all: Vec<usize> = (0..gates).collect();
        let (bias, mut recurrent) = match s.kind {
            CellKind::Gru { linear_before_reset: true } => (
                Slot::bias("bx", vec![Some(0), Some(1), Some(2)]),
                vec![Slot::panels("r", Tensor::R, all.clone(), h), Slot::bias("bh", vec![None, None, Some(3)])],
            ),
            CellKind::Gru { linear_before_reset: false } => (
                Slot::bias("bx", vec![Some(0), Some(1), Some(2)]),
                vec![Slot::panels("rzr", Tensor::R, vec![0, 1], h), Slot::panels("rn", Tensor::R, vec![2], h)],
            ),
            CellKind::Rnn | CellKind::Lstm => (
                Slot::bias("b", all.iter().map(|&g| Some(g)).collect()),
                vec![Slot::panels("r", Tensor::R, all.clone(), h)],
            ),
        };
        if cell.p.is_some() {
            recurrent.push(Slot::peepholes());
        }
        let input = [Slot::panels("w", Tensor::W, all, i), bias];
        Plan { cell, strategy, store, tile, input, recurrent, width: gates * tile, rule: rule() }
    }

    /// How the tiled product of a panel of `width` lanes over `cols` inputs is arranged: for
    /// the whole product, whichever part of it one call computes.
    pub(crate) fn schedule(&self, width: usize, cols: usize) -> Schedule {
        match self.strategy {
            Strategy::Unrolled => Schedule::ONE,
            Strategy::Tiled | Strategy::Auto => (self.rule)(self.tiles(), width, cols),
        }
    }

    /// Bytes of the recurrent matrices' panels, in their stored form.
    pub(crate) fn recurrent_bytes(&self) -> usize {
        self.recurrent
            .iter()
            .filter(|s| matches!(s.pack, Pack::Panels { .. }))
            .fold(0usize, |n, s| n.saturating_add(self.slot_len(s).saturating_mul(self.slot_store(s).bytes())))
    }

    /// Whether a block of steps reads the recurrent tiles in alternate orders, one step from
    /// the first tile and the next from the last (`cellc_runtime`'s `tiles_acc_rows_in_order`),
    /// so that each step starts on what the step before read last: weights of more
    /// than [`SNAKE_BYTES`], which the caches nearest the core do not hold whole.
    pub(crate) fn snake(&self) -> bool {
        self.strategy != Strategy::Unrolled && self.tiles() > 1 && self.recurrent_bytes() > SNAKE_BYTES
    }

    /// Bytes of the input matrix's panels, in their stored form.
    pub(crate) fn input_bytes(&self) -> usize {
        let s = &self.input[0];
        self.slot_len(s).saturating_mul(self.slot_store(s).bytes())
    }

    /// Steps whose input projections a cell of large weights computes together before
    /// their recurrence, at every vector level, for a sequence of `steps` (`None`: a `feed`
    /// of any length): as many as [`LONG_BLOCK_BYTES`] of projections hold, the sequence cut
    /// into blocks of equal length. Each block reads the input matrix once, and its steps
    /// then find the recurrent one where the step before left it; in blocks of
    /// [`FEED_BLOCK`], NSNet2's GRUs (1.92 MB each matrix) read `W` three times in 20 steps,
    /// and every block's first steps missed the L2 (Intel Xeon, 2 MiB of L2: 20 steps in one
    /// block took the model's Rust 0.81× the time). `None` where both matrices fit
    /// [`LONG_BLOCK_WEIGHTS`] (blocks of [`FEED_BLOCK`] where the level takes them).
    pub(crate) fn long_block(&self, steps: Option<usize>) -> Option<usize> {
        let weights = self.input_bytes().saturating_add(self.recurrent_bytes());
        if self.strategy == Strategy::Unrolled || weights <= LONG_BLOCK_WEIGHTS {
            return None;
        }
        let row = self.tiles().saturating_mul(self.width).saturating_mul(4).max(1);
        let most = (LONG_BLOCK_BYTES / row).max(FEED_BLOCK);
        Some(match steps {
            Some(n) => n.div_ceil(n.div_ceil(most).max(1)).max(1),
            None => most,
        })
    }

    /// The array of an LSTM's peepholes, when it has them.
    pub(crate) fn peepholes(&self) -> Option<&Slot> {
        self.recurrent.iter().find(|s| s.tensor == Tensor::P)
    }

    /// Tiles the state is cut into.
    pub(crate) fn tiles(&self) -> usize {
        cellc_pack::tiles(self.cell.spec.hidden, self.tile)
    }

    /// Every array the kernel reads, input ones first.
    pub(crate) fn slots(&self) -> impl Iterator<Item = &Slot> {
        self.input.iter().chain(&self.recurrent)
    }

    /// The source of a tensor, `None` for an absent bias or peepholes.
    pub(crate) fn src(&self, t: Tensor) -> Option<&WeightSrc> {
        match t {
            Tensor::W => Some(&self.cell.w),
            Tensor::R => Some(&self.cell.r),
            Tensor::B => self.cell.b.as_ref(),
            Tensor::P => self.cell.p.as_ref(),
        }
    }

    /// Whether a tensor is given at run time.
    pub(crate) fn is_runtime(&self, t: Tensor) -> bool {
        matches!(self.src(t), Some(WeightSrc::Runtime(_)))
    }

    /// The tensors given at run time, in argument order.
    pub(crate) fn runtime_tensors(&self) -> Vec<Tensor> {
        runtime_tensors(self.cell)
    }

    /// Length of the tensor in the kernel's layout (OpenVINO's).
    pub(crate) fn raw_len(&self, t: Tensor) -> usize {
        let s = &self.cell.spec;
        let g = s.kind.gates() * s.hidden;
        match t {
            Tensor::W => g * s.input,
            Tensor::R => g * s.hidden,
            Tensor::B => s.kind.bias_blocks() * s.hidden,
            Tensor::P => 3 * s.hidden,
        }
    }

    /// Length of a tensor given at run time, in the layout the cell was declared in.
    pub(crate) fn declared_len(&self, t: Tensor) -> usize {
        let s = &self.cell.spec;
        match t {
            Tensor::B => self.cell.layout.bias_blocks(s.kind) * s.hidden,
            Tensor::W | Tensor::R | Tensor::P => self.raw_len(t),
        }
    }

    /// Whether a bias given at run time must be folded into the kernel's convention first.
    pub(crate) fn folds_bias(&self) -> bool {
        self.is_runtime(Tensor::B) && self.cell.layout != crate::vocab::Layout::OpenVino
    }

    /// For each bias block of the kernel, the blocks of the declared bias it sums, with
    /// their coefficients (see [`crate::vocab::Layout::bias_terms`]).
    pub(crate) fn bias_terms(&self) -> Vec<Vec<(usize, f32)>> {
        self.cell.layout.bias_terms(self.cell.spec.kind)
    }

    /// The gates of a runtime tensor to pack into a panel: the kernel's gates (OpenVINO's
    /// order) mapped to where the declared layout stacks them.
    pub(crate) fn runtime_sel(&self, sel: &[usize]) -> Vec<usize> {
        let order = self.cell.layout.gate_order(self.cell.spec.kind);
        sel.iter().map(|&g| order[g]).collect()
    }

    /// How an array is stored: panels as the plan's matrices, biases as f32.
    pub(crate) fn slot_store(&self, slot: &Slot) -> Store {
        match slot.pack {
            Pack::Panels { .. } => self.store,
            Pack::Bias { .. } => Store::F32,
        }
    }

    /// Elements of one row of lanes of an array, in its stored form.
    pub(crate) fn row_len(&self, slot: &Slot) -> usize {
        let w = slot.width(self.tile);
        match self.slot_store(slot) {
            Store::F32 | Store::F16 => w,
            Store::Bf16 => cellc_pack::bf16_words(w),
            Store::I8 => cellc_pack::int8::row_len(w),
        }
    }

    /// Elements in the packed array, in its stored form.
    pub(crate) fn slot_len(&self, slot: &Slot) -> usize {
        match &slot.pack {
            Pack::Panels { cols, .. } => self.tiles() * cols * self.row_len(slot),
            Pack::Bias { segs } => self.tiles() * segs.len() * self.tile,
        }
    }

    /// Packs embedded (or absent, hence zero) weights at compile time, in the stored form.
    pub(crate) fn pack_now(&self, slot: &Slot) -> Packed {
        let (h, tile, len) = (self.cell.spec.hidden, self.tile, self.slot_len(slot));
        let zeros;
        let values: &[f32] = match self.src(slot.tensor) {
            Some(WeightSrc::Embedded { values, .. }) => values,
            _ => {
                zeros = vec![0.0; self.raw_len(slot.tensor)];
                &zeros
            }
        };
        match (&slot.pack, self.slot_store(slot)) {
            (Pack::Panels { sel, cols }, Store::F32) => {
                let mut out = vec![0.0; len];
                cellc_pack::panels(&mut out, values, h, *cols, sel, tile);
                Packed::F32(out)
            }
            (Pack::Panels { sel, cols }, Store::F16) => {
                let mut out = vec![0; len];
                cellc_pack::panels_f16(&mut out, values, h, *cols, sel, tile);
                Packed::F16(out)
            }
            (Pack::Panels { sel, cols }, Store::Bf16) => {
                let mut out = vec![0; len];
                cellc_pack::panels_bf16(&mut out, values, h, *cols, sel, tile);
                Packed::Bf16(out)
            }
            (Pack::Panels { sel, cols }, Store::I8) => {
                let mut out = vec![0; len];
                cellc_pack::int8::panels_i8(&mut out, values, h, *cols, sel, tile);
                Packed::I8(out)
            }
            (Pack::Bias { segs }, _) => {
                let mut out = vec![0.0; len];
                let segs: Vec<Option<&[f32]>> = segs.iter().map(|s| s.map(|k| &values[k * h..(k + 1) * h])).collect();
                cellc_pack::bias_panels(&mut out, &segs, h, tile);
                Packed::F32(out)
            }
        }
    }

    /// Whether every tile holds real rows only (`H` a multiple of the tile).
    pub(crate) fn full_tiles(&self) -> bool {
        self.cell.spec.hidden.is_multiple_of(self.tile)
    }
}

/// The tensors of `cell` given at run time, in argument order (`W`, `R`, `B`).
pub(crate) fn runtime_tensors(cell: &Cell) -> Vec<Tensor> {
    [(Tensor::W, Some(&cell.w)), (Tensor::R, Some(&cell.r)), (Tensor::B, cell.b.as_ref())]
        .into_iter()
        .filter_map(|(t, w)| matches!(w, Some(WeightSrc::Runtime(_))).then_some(t))
        .collect()
}

/// The Parameters the runtime tensors of `cell` come from, in argument order.
pub(crate) fn runtime_params(cell: &Cell) -> Vec<usize> {
    [Some(&cell.w), Some(&cell.r), cell.b.as_ref()]
        .into_iter()
        .flatten()
        .filter_map(|w| match w {
            WeightSrc::Runtime(p) => Some(*p),
            WeightSrc::Embedded { .. } => None,
        })
        .collect()
}

/// The op a cell comes from, for the comment above its code: `GRUCell`, or
/// `GRUSequence (reverse, 10 steps)`.
pub(crate) fn op_name(c: &Cell) -> String {
    let op = c.spec.kind.op();
    match &c.seq {
        Some(q) => format!("{} ({}, {} steps)", op.replace("Cell", "Sequence"), q.direction.name(), q.steps),
        None => op.to_owned(),
    }
}

/// A cell's attributes in words, for the comment above its code: "hidden size 16, input
/// size 4, activations sigmoid, tanh, linear_before_reset = false, no clip".
pub(crate) fn attributes(s: &CellSpec) -> String {
    let acts: Vec<String> = s.activations.iter().map(ToString::to_string).collect();
    let mut doc = format!("hidden size {}, input size {}, activations {}", s.hidden, s.input, acts.join(", "));
    if let CellKind::Gru { linear_before_reset } = s.kind {
        doc.push_str(&format!(", linear_before_reset = {linear_before_reset}"));
    }
    match s.clip {
        Some(cl) => doc.push_str(&format!(", clip = {cl}")),
        None => doc.push_str(", no clip"),
    }
    doc
}

/// The cell of direction `d`: same arithmetic, its own block of embedded weights (runtime
/// weights are sliced by the wrapper's `set_weights`).
pub(crate) fn direction_cell(cell: &Cell, q: &Seq, d: usize) -> Cell {
    let dirs = q.direction.count();
    let slice = |w: &WeightSrc| match w {
        WeightSrc::Embedded { values, stored } => {
            let n = values.len() / dirs;
            WeightSrc::Embedded { values: values[d * n..(d + 1) * n].to_vec(), stored: *stored }
        }
        WeightSrc::Runtime(p) => WeightSrc::Runtime(*p),
    };
    Cell {
        name: format!("{}_{}", cell.name, if q.direction.reversed(d) { "reverse" } else { "forward" }),
        spec: cell.spec.clone(),
        w: slice(&cell.w),
        r: slice(&cell.r),
        b: cell.b.as_ref().map(slice),
        p: cell.p.as_ref().map(slice),
        seq: None,
        layout: cell.layout,
    }
}

/// The Rust and the C a cell compiles to take their products' arrangement from the one
/// schedule of the plan: a test that puts in another rule sees both outputs follow it.
#[cfg(test)]
mod tests {
    use super::{RULE, Schedule};
    use crate::options::{Options, Strategy};
    use crate::vocab::CellOp;

    /// An RNN of 40 units over 12 inputs (3 tiles of 16 lanes), its weights given at run time,
    /// compiled to Rust and to C (the source) under `rule`.
    fn both(rule: super::Rule) -> (String, String) {
        let text = "struct Cell<input_size = 12, hidden_size = 40>;";
        let m = crate::front::decl::model_of_text(CellOp::Rnn, text, std::path::Path::new("."))
            .unwrap_or_else(|e| panic!("the declaration compiles: {e}"));
        let opts = Options { strategy: Strategy::Tiled, ..Options::default() };
        RULE.with(|r| r.set(Some(rule)));
        let rust = crate::emit::rust::emit(&m, &opts).map_err(|d| d.to_string());
        let c = crate::emit::c::emit(&m, &opts, "net.h").map_err(|d| d.to_string());
        RULE.with(|r| r.set(None));
        (rust.unwrap_or_else(|e| panic!("{e}")), c.unwrap_or_else(|e| panic!("{e}")).source)
    }

    #[test]
    fn both_languages_follow_a_changed_schedule() {
        // The rule the plans take: 48 lanes over 3 tiles of 16, neither split nor interleaved
        // by more than it says.
        let (rust, c) = both(Schedule::of);
        let s = Schedule::of(3, 16, 40);
        assert!(rust.contains(&format!("Schedule::<{}, {}>", s.split, s.interleave)), "{rust}");
        // Each sum split in 4, one tile at a time: the products are 4 partial sums added
        // pairwise, in both.
        let (rust, c4) = both(|_, _, _| Schedule { split: 4, interleave: 1 });
        assert!(rust.contains("Schedule::<4, 1>") && !rust.contains("Schedule::<1,"), "{rust}");
        assert!(c4.contains("(a[l] + a_2[l]) + (a_1[l] + a_3[l])"), "{c4}");
        assert!(!c4.contains("t0 += 2") && !c4.contains("t0 += 4"), "no tiles side by side: {c4}");
        // One sum, tiles 2 side by side: no partial sums, a loop over pairs of tiles.
        let (rust, c2) = both(|_, _, _| Schedule { split: 1, interleave: 2 });
        assert!(rust.contains("Schedule::<1, 2>") && !rust.contains("Schedule::<4,"), "{rust}");
        assert!(c2.contains("t0 += 2") && !c2.contains("a_1["), "{c2}");
        // And back: the outputs differ as the schedules do.
        assert!(c != c4 && c != c2 && c4 != c2);
    }

    #[test]
    fn long_blocks_take_large_cells_and_cut_a_sequence_evenly() {
        let gru = |h: usize| {
            let text = format!("struct Cell<input_size = {h}, hidden_size = {h}>;");
            crate::front::decl::model_of_text(CellOp::Gru, &text, std::path::Path::new("."))
                .unwrap_or_else(|e| panic!("the declaration compiles: {e}"))
        };
        // NSNet2's GRU: 400 units, 3.84 MB of f32 weights, 4,800 bytes of projections a step.
        let big = gru(400);
        let plan = super::Plan::new(&big.cells[0], Strategy::Tiled, super::Store::F32);
        let most = super::LONG_BLOCK_BYTES / (25 * 48 * 4);
        assert_eq!(plan.long_block(None), Some(most));
        assert_eq!(plan.long_block(Some(20)), Some(20));
        // Past one block, blocks of equal length (41 steps: 21 and 20, not 27 and 14).
        assert_eq!(plan.long_block(Some(41)), Some(21));
        assert_eq!(plan.long_block(Some(3 * most)), Some(most));
        assert_eq!(plan.long_block(Some(0)), Some(1));
        // 16-bit weights halve the bytes, not the projections.
        let half = super::Plan::new(&big.cells[0], Strategy::Tiled, super::Store::F16);
        assert_eq!(half.long_block(Some(20)), Some(20));
        // A cell whose weights fit beside each other keeps the level's feed blocks, and so
        // does an unrolled one.
        let small = gru(64);
        assert_eq!(super::Plan::new(&small.cells[0], Strategy::Tiled, super::Store::F32).long_block(Some(20)), None);
        assert_eq!(super::Plan::new(&big.cells[0], Strategy::Unrolled, super::Store::F32).long_block(None), None);
    }
}
