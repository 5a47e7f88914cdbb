//! The trait through which any caller drives any generated model: Parameters in, Results
//! out, as flat row-major slices.
use crate::Error;

/// One dimension of a model's input or output tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// A size fixed when the model was compiled.
    Static(usize),
    /// The batch, fixed per call by the lengths of the slices passed.
    Batch,
}

/// Name and shape of a Parameter or Result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    /// The name the model gives the tensor.
    pub name: &'static str,
    /// Its shape, outermost dimension first.
    pub shape: &'static [Dim],
}

impl TensorInfo {
    /// Elements in one batch row: the product of the static dimensions.
    pub const fn row_len(&self) -> usize {
        let mut n = 1;
        let mut i = 0;
        while i < self.shape.len() {
            if let Dim::Static(d) = self.shape[i] {
                n *= d;
            }
            i += 1;
        }
        n
    }

    /// Whether one of the dimensions is the dynamic batch.
    pub const fn has_batch(&self) -> bool {
        let mut i = 0;
        while i < self.shape.len() {
            if let Dim::Batch = self.shape[i] {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Elements the tensor holds for a batch of `batch` rows.
    pub const fn len(&self, batch: usize) -> usize {
        if self.has_batch() { self.row_len() * batch } else { self.row_len() }
    }
}

/// A compiled model: the entry point generated for a whole OpenVINO IR model.
///
/// `inputs` are the model's Parameters in order and `outputs` its Results in order, each a
/// flat row-major slice. The batch, when dynamic, is read from the input lengths.
pub trait Model {
    /// The model's Parameters, in order.
    const INPUTS: &'static [TensorInfo];
    /// The model's Results, in order.
    const OUTPUTS: &'static [TensorInfo];

    /// The Parameters that hold weights given at run time, in order: a model compiled with
    /// its weights embedded has none. They are set once with [`Model::set_weights`], not
    /// passed to each run.
    const WEIGHTS: &'static [TensorInfo] = &[];

    /// Packs the weights given at run time (one slice per [`Model::WEIGHTS`] entry, flat,
    /// row-major) into the model, once; every later run reads the packed copy. Checks the
    /// count and every length first. A model with such weights errs in `run` until this has
    /// succeeded.
    fn set_weights(&mut self, weights: &[&[f32]]) -> Result<(), Error> {
        check_weights(Self::WEIGHTS, weights)
    }

    /// The steps of a run in order, as `cellc inspect` lists them, each with its
    /// floating-point operations for one row of the model (a multiply–add counts two;
    /// steps that move, compare or map values count none).
    const RUN_STEPS: &'static [(&'static str, u64)] = &[];

    /// Runs the model once. Checks every count and length before writing anything.
    fn run(&mut self, inputs: &[&[f32]], outputs: &mut [&mut [f32]]) -> Result<(), Error>;

    /// [`Model::run`], calling `observe(k)` as each step `k` of [`Model::RUN_STEPS`] ends
    /// (for each row of the model, in order): a way to time the steps. A generated model's
    /// `run` is this with an observer that does nothing, which compiles to nothing; a model
    /// without steps to name runs without calling `observe`.
    fn run_observed(
        &mut self,
        inputs: &[&[f32]],
        outputs: &mut [&mut [f32]],
        observe: impl FnMut(usize),
    ) -> Result<(), Error> {
        let _ = observe;
        self.run(inputs, outputs)
    }

    /// Sets a stateful model's variables back to their initial values (a model without
    /// variables has nothing to reset).
    fn reset(&mut self) {}
}

/// Checks the count and the length of weights given at run time (their shapes have no
/// batch) against a model's weight tensors.
pub fn check_weights(infos: &[TensorInfo], weights: &[&[f32]]) -> Result<(), Error> {
    if weights.len() != infos.len() {
        return Err(Error::WeightCount { expected: infos.len(), got: weights.len() });
    }
    for (info, w) in infos.iter().zip(weights) {
        crate::error::check_len(info.name, info.len(1), w.len())?;
    }
    Ok(())
}

/// Checks input and output counts and lengths against a model's tensors and returns the
/// batch. Generated `run` functions call this first, so they never index out of bounds.
pub fn check_io(
    inputs_info: &[TensorInfo],
    outputs_info: &[TensorInfo],
    static_batch: Option<usize>,
    inputs: &[&[f32]],
    outputs: &[&mut [f32]],
) -> Result<usize, Error> {
    if inputs.len() != inputs_info.len() {
        return Err(Error::InputCount { expected: inputs_info.len(), got: inputs.len() });
    }
    if outputs.len() != outputs_info.len() {
        return Err(Error::OutputCount { expected: outputs_info.len(), got: outputs.len() });
    }
    let mut batch = static_batch;
    for (info, input) in inputs_info.iter().zip(inputs) {
        if info.has_batch() {
            let rows = crate::error::rows_of(info.name, info.row_len(), input.len())?;
            match batch {
                None => batch = Some(rows),
                Some(b) => crate::error::check_len(info.name, b * info.row_len(), input.len())?,
            }
        }
    }
    let batch = batch.unwrap_or(1);
    for (info, input) in inputs_info.iter().zip(inputs) {
        crate::error::check_len(info.name, info.len(batch), input.len())?;
    }
    for (info, output) in outputs_info.iter().zip(outputs) {
        crate::error::check_len(info.name, info.len(batch), output.len())?;
    }
    Ok(batch)
}

#[cfg(test)]
mod tests {
    use super::*;

    const INPUTS: &[TensorInfo] = &[
        TensorInfo { name: "X", shape: &[Dim::Batch, Dim::Static(3)] },
        TensorInfo { name: "W", shape: &[Dim::Static(2), Dim::Static(3)] },
    ];
    const OUTPUTS: &[TensorInfo] = &[TensorInfo { name: "Y", shape: &[Dim::Batch, Dim::Static(2)] }];

    #[test]
    fn check_io_reads_the_batch_and_checks_every_length() {
        let (x, w) = ([0.0; 6], [0.0; 6]);
        let mut y = [0.0; 4];
        assert_eq!(check_io(INPUTS, OUTPUTS, None, &[&x, &w], &[&mut y]), Ok(2));
        assert_eq!(
            check_io(INPUTS, OUTPUTS, None, &[&x[..5], &w], &[&mut y]),
            Err(Error::PartialRow { name: "X", row: 3, got: 5 })
        );
        assert_eq!(
            check_io(INPUTS, OUTPUTS, None, &[&x, &w[..5]], &[&mut y]),
            Err(Error::Length { name: "W", expected: 6, got: 5 })
        );
        assert_eq!(
            check_io(INPUTS, OUTPUTS, None, &[&x, &w], &[&mut y[..2]]),
            Err(Error::Length { name: "Y", expected: 4, got: 2 })
        );
        assert_eq!(check_io(INPUTS, OUTPUTS, None, &[&x], &[&mut y]), Err(Error::InputCount { expected: 2, got: 1 }));
        assert_eq!(check_io(INPUTS, OUTPUTS, None, &[&x, &w], &[]), Err(Error::OutputCount { expected: 1, got: 0 }));
    }

    #[test]
    fn check_weights_counts_and_measures_every_slice() {
        let w = [0.0; 6];
        assert_eq!(check_weights(&INPUTS[1..], &[&w]), Ok(()));
        assert_eq!(check_weights(&INPUTS[1..], &[]), Err(Error::WeightCount { expected: 1, got: 0 }));
        assert_eq!(check_weights(&INPUTS[1..], &[&w[..4]]), Err(Error::Length { name: "W", expected: 6, got: 4 }));
        assert_eq!(check_weights(&[], &[]), Ok(()));
    }

    #[test]
    fn static_shapes_count_every_dimension() {
        const S: TensorInfo = TensorInfo { name: "H", shape: &[Dim::Static(4), Dim::Static(8)] };
        assert_eq!(S.len(7), 32);
        assert!(!S.has_batch());
    }
}
