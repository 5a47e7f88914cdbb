//! The windows of a convolution or a pool over an input laid out channels last (their
//! geometry is `cellc_pack`'s, which the runtime's kernels read too) and what a pool makes
//! of them. Shared by the graph ops that name them, the steps that read them and the oracle.

pub use cellc_pack::Windows;

/// What a pool over windows read in place makes of each channel's values under a window;
/// the padding takes no part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pooling {
    /// The largest value, starting from the lowest finite float (OpenVINO's `MaxPool`: a
    /// window of padding alone, or of `-inf` alone, gives that).
    Max,
    /// The sum, starting from zero (an average pool divides it afterwards).
    Sum,
}

impl Pooling {
    /// The value before the first tap.
    pub fn start(self) -> f64 {
        match self {
            Pooling::Max => f64::from(f32::MIN),
            Pooling::Sum => 0.0,
        }
    }

    /// `acc` after one more value (a NaN leaves a maximum as it was).
    pub fn add(self, acc: f64, v: f64) -> f64 {
        match self {
            Pooling::Max if v > acc => v,
            Pooling::Max => acc,
            Pooling::Sum => acc + v,
        }
    }

    /// Its name in descriptions.
    pub fn name(self) -> &'static str {
        match self {
            Pooling::Max => "max",
            Pooling::Sum => "sum",
        }
    }
}
