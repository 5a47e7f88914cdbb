//! A real-time style processor around a generated GRU: it takes fixed-size blocks of input
//! frames, carries the hidden state from block to block, and allocates nothing per block.

/// The GRU compiled by `build.rs`.
#[allow(clippy::all)]
pub mod vad {
    include!(concat!(env!("OUT_DIR"), "/vad.rs"));
}

use vad::Gru;

/// Frames per block, as an audio callback would deliver them.
pub const BLOCK: usize = 32;

/// One input frame.
pub type Frame = [f32; Gru::INPUT_SIZE];

/// Runs the GRU over blocks of frames, keeping its state between blocks.
#[derive(Clone, Debug)]
pub struct Processor {
    cell: Gru,
    h: [f32; Gru::HIDDEN_SIZE],
    out: [[f32; Gru::HIDDEN_SIZE]; BLOCK],
}

impl Default for Processor {
    fn default() -> Self {
        Processor::new()
    }
}

impl Processor {
    /// A processor in the zero state.
    pub fn new() -> Self {
        Processor { cell: Gru::new(), h: [0.0; Gru::HIDDEN_SIZE], out: [[0.0; Gru::HIDDEN_SIZE]; BLOCK] }
    }

    /// Processes one block and returns the mean of the last frame's hidden state, a stand-in
    /// for a detector's score.
    pub fn process(&mut self, block: &[Frame; BLOCK]) -> f32 {
        // A block and its outputs have the same number of frames by their types.
        self.cell.feed(&mut self.h, block, &mut self.out).expect("as many outputs as frames");
        self.h.iter().sum::<f32>() / Gru::HIDDEN_SIZE as f32
    }

    /// The hidden state carried to the next block.
    pub fn state(&self) -> &[f32; Gru::HIDDEN_SIZE] {
        &self.h
    }

    /// Back to the zero state, as at a new stream.
    pub fn reset(&mut self) {
        self.h = [0.0; Gru::HIDDEN_SIZE];
    }
}

/// Block `n` of a test signal: a chirp on every input.
pub fn block(n: usize) -> [Frame; BLOCK] {
    core::array::from_fn(|t| {
        let time = (n * BLOCK + t) as f32 / 1000.0;
        core::array::from_fn(|k| (time * (1.0 + k as f32) * 6.0 * time).sin())
    })
}
