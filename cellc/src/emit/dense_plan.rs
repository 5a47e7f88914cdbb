//! How each dense layer is emitted, decided once for both languages and `inspect`: its
//! kernel (the direct sum, F(2×2, 3×3) or the planar kernel), its matrix's storage, its
//! tables and work area.
use crate::emit::dense::{Tiling, packed_weights};
use crate::emit::plan::{Packed, Store};
use crate::ir::{Dense, DenseAct};
/// How a dense layer is emitted, decided once from the layer and the options, and read by
/// both emitters and `inspect`: whether it runs by F(2×2, 3×3), how its matrix is stored,
/// the tables its code holds and the work area it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DensePlan {
    /// Run by F(2×2, 3×3) ([`crate::emit::winograd::applies`]).
    pub(crate) winograd: bool,
    /// Run by the planar kernel: its windows over its input laid out channels first
    /// ([`crate::ir::Dense::planar`]).
    pub(crate) planar: bool,
    /// How the matrix is stored: f32 when transformed, whatever the layer's weights; by the
    /// planar kernel, f32 holding the values this type rounds them to.
    pub(crate) store: Store,
    /// The tiles of its outputs.
    pub(crate) tiling: Tiling,
}

impl DensePlan {
    /// The plan of dense layer `d` with the weight type `wt` asks for, or why its weights
    /// cannot be stored so.
    pub(crate) fn of(d: &Dense, wt: crate::options::WeightType) -> Result<DensePlan, crate::emit::plan::StoreError> {
        let owner = format!("dense layer {:?}", d.name);
        let store = crate::emit::plan::store_of(&owner, &[("W", Some(&d.w))], wt)?;
        let planar = d.is_planar();
        let winograd = !planar && crate::emit::winograd::applies(d, wt);
        let store = if winograd { Store::F32 } else { store };
        Ok(DensePlan { winograd, planar, store, tiling: Tiling::of(d.n) })
    }

    /// The bytes of the tables the layer's code holds in `lang`: its packed (or
    /// transformed) matrix, its bias in tiles, a PReLU's slopes (one per output in the Rust,
    /// padded to the tiles in the C), and by F(2×2, 3×3) its weights as the model holds
    /// them for the direct sum (and in the C the zero bias of its 16 products); by the
    /// planar kernel, its weights and bias in its groups and a PReLU's slopes.
    pub(crate) fn table_bytes(&self, d: &Dense, lang: crate::options::Language) -> usize {
        use crate::options::Language;
        if self.planar {
            // Its weights and bias in panels, a PReLU's slopes one per output, in both.
            let (nb, per) = crate::emit::dense::planar_blocks(d);
            let slope = if matches!(d.act, Some(DenseAct::PRelu(_))) { d.n } else { 0 };
            return (d.groups * per * nb * (d.k + 1) + slope) * 4;
        }
        let t = self.tiling;
        let padded = t.tiles * t.tile;
        let matrix = if self.winograd {
            crate::emit::winograd::packed_len(d) * 4
        } else if self.planar {
            crate::emit::dense::planar_weights(d, self.store).len() * 4
        } else {
            match packed_weights(d, t, self.store) {
                Packed::F32(v) => v.len() * 4,
                Packed::F16(v) => v.len() * 2,
                Packed::Bf16(v) => v.len() * 4,
                Packed::I8(v) => v.len(),
            }
        };
        let slope = match (&d.act, lang) {
            (Some(DenseAct::PRelu(s)), Language::Rust) => s.len() * 4,
            (Some(DenseAct::PRelu(_)), Language::C) => padded * 4,
            (Some(DenseAct::Unary(_)) | None, _) => 0,
        };
        let winograd = match (self.winograd, lang) {
            (false, _) => 0,
            (true, Language::Rust) => crate::emit::winograd::direct(d).len() * 4,
            (true, Language::C) => (crate::emit::winograd::direct(d).len() + padded) * 4,
        };
        matrix + padded * 4 + slope + winograd
    }

    /// The values of the work area the layer takes (F(2×2, 3×3) and the planar kernel).
    pub(crate) fn work(&self, d: &Dense) -> Option<usize> {
        if self.planar {
            return d.win.as_ref().and_then(cellc_pack::Planar::of).and_then(|p| p.work());
        }
        self.winograd.then(|| crate::emit::winograd::work(d))
    }
}
