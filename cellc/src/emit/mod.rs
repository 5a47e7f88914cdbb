//! Code emitters. Each takes only a validated [`crate::ir::Model`].
pub mod c;
pub(crate) mod plan;
pub mod rust;

use crate::ir::Model;
use crate::options::WeightsMode;
use std::borrow::Cow;

/// The model as `mode` has it emitted: as it is, or with every constant weight turned into
/// a Parameter (see [`Model::with_runtime_weights`]).
pub(crate) fn in_weights_mode(m: &Model, mode: WeightsMode) -> Cow<'_, Model> {
    match mode {
        WeightsMode::Embedded => Cow::Borrowed(m),
        WeightsMode::Runtime => Cow::Owned(m.with_runtime_weights().0),
    }
}
