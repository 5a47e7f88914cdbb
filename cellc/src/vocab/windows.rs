//! The windows of a convolution or a pool over an input laid out channels last: which run
//! of input channels each tap of each output position reads, in place, without a table.
//! Shared by the graph ops that name them, the steps that read them and the oracle.

/// The windows of a convolution of one group over `[spatial…, C]` values (one or two
/// spatial axes; a 1-D convolution is held with a height of 1): output position `p`
/// (row-major over [`Windows::output`]) and tap `t` (row-major over [`Windows::kernel`])
/// read the `C` values at input position `p·stride + t·dilation − pad` along each axis, or
/// zeros where that position is in the padding.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Windows {
    /// The input's spatial extents (height, width).
    pub input: [usize; 2],
    /// The output's spatial extents.
    pub output: [usize; 2],
    /// The kernel's extents.
    pub kernel: [usize; 2],
    /// Strides.
    pub strides: [usize; 2],
    /// Dilations.
    pub dilations: [usize; 2],
    /// Padding before each axis.
    pub pads: [usize; 2],
    /// Channels: the values of one input position, read as one run.
    pub channels: usize,
}

impl Windows {
    /// Taps of a window.
    pub fn taps(&self) -> usize {
        self.kernel[0] * self.kernel[1]
    }

    /// Output positions.
    pub fn positions(&self) -> usize {
        self.output[0] * self.output[1]
    }

    /// Values of a window (`taps · channels`), in the order tap by tap, each tap's channels
    /// in order.
    pub fn k(&self) -> usize {
        self.taps() * self.channels
    }

    /// Values of one input entry (`height · width · channels`).
    pub fn input_len(&self) -> usize {
        self.input[0] * self.input[1] * self.channels
    }

    /// Where, in one entry's input, the run of channels that tap `t` of output position `p`
    /// reads starts; `None` in the padding.
    pub fn source(&self, p: usize, t: usize) -> Option<usize> {
        let (o, k) = ([p / self.output[1], p % self.output[1]], [t / self.kernel[1], t % self.kernel[1]]);
        let at = |a: usize| -> Option<usize> {
            let i = (o[a] * self.strides[a] + k[a] * self.dilations[a]).checked_sub(self.pads[a])?;
            (i < self.input[a]).then_some(i)
        };
        Some((at(0)? * self.input[1] + at(1)?) * self.channels)
    }

    /// Whether every size is positive and every product of sizes fits `usize`, so that the
    /// methods above cannot overflow.
    pub fn valid(&self) -> bool {
        let all = [self.input, self.output, self.kernel, self.strides, self.dilations];
        all.iter().all(|a| a.iter().all(|&v| v > 0))
            && self.channels > 0
            && self.input[0].checked_mul(self.input[1]).and_then(|v| v.checked_mul(self.channels)).is_some()
            && self.output[0].checked_mul(self.output[1]).is_some()
            && self.kernel[0].checked_mul(self.kernel[1]).and_then(|v| v.checked_mul(self.channels)).is_some()
            && (0..2).all(|a| {
                (self.output[a] - 1)
                    .checked_mul(self.strides[a])
                    .zip((self.kernel[a] - 1).checked_mul(self.dilations[a]))
                    .and_then(|(x, y)| x.checked_add(y))
                    .is_some()
            })
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tap_reads_its_position_or_the_padding() {
        // 3×4 input of 2 channels, 3×3 kernel, pad 1, stride 1: output 3×4.
        let w = Windows {
            input: [3, 4],
            output: [3, 4],
            kernel: [3, 3],
            strides: [1, 1],
            dilations: [1, 1],
            pads: [1, 1],
            channels: 2,
        };
        assert!(w.valid());
        assert_eq!((w.taps(), w.positions(), w.k(), w.input_len()), (9, 12, 18, 24));
        // Position (0, 0): its first row of taps and first column are padding.
        assert_eq!(w.source(0, 0), None);
        assert_eq!(w.source(0, 4), Some(0));
        assert_eq!(w.source(0, 8), Some((4 + 1) * 2));
        // Position (1, 3): tap (1, 2) is past the last column.
        assert_eq!(w.source(7, 5), None);
        assert_eq!(w.source(7, 3), Some((4 + 2) * 2));
        // Strided and dilated: position (0, 1) of stride 2, tap (0, 1) of dilation 2.
        let s = Windows { strides: [1, 2], dilations: [1, 2], pads: [0, 0], output: [1, 1], ..w };
        assert_eq!(s.source(0, 1), Some(2 * 2));
    }
}
