//! Firmware for a Cortex-M4F that runs the shipped voice-activity GRU (hidden size 128,
//! input size 16) over 60 feature frames, fed in blocks as an audio loop would: `no_std`,
//! no allocator, the weights in flash as `static` tables, the state in a local array.
//!
//! It checks itself: every hidden state against OpenVINO's (the data of `examples/c`), and
//! reports the largest difference through semihosting, exiting with failure past 1e-5.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use panic_semihosting as _;

mod vad {
    include!(concat!(env!("OUT_DIR"), "/vad.rs"));
}

use vad::Gru;

/// 60 frames of 16 features, and OpenVINO's 60 hidden states of 128 (little-endian f32).
static INPUT: &[u8] = include_bytes!("../../c/data/input.f32");
static EXPECTED: &[u8] = include_bytes!("../../c/data/expected.f32");

const FRAMES: usize = 60;
/// Frames a call of `feed` takes, as an audio callback hands them over.
const BLOCK: usize = 4;

fn value(bytes: &[u8], k: usize) -> f32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[4 * k..4 * k + 4]);
    f32::from_le_bytes(word)
}

#[entry]
fn main() -> ! {
    let cell = Gru::new();
    let mut h = [0.0f32; Gru::HIDDEN_SIZE];
    let mut xs = [[0.0f32; Gru::INPUT_SIZE]; BLOCK];
    let mut ys = [[0.0f32; Gru::HIDDEN_SIZE]; BLOCK];
    let mut worst = 0.0f32;
    for block in 0..FRAMES / BLOCK {
        for (j, x) in xs.iter_mut().enumerate() {
            for (i, v) in x.iter_mut().enumerate() {
                *v = value(INPUT, (block * BLOCK + j) * Gru::INPUT_SIZE + i);
            }
        }
        // `xs` and `ys` hold BLOCK rows each: the lengths agree by their types.
        if cell.feed(&mut h, &xs, &mut ys).is_err() {
            worst = f32::INFINITY;
        }
        for (j, y) in ys.iter().enumerate() {
            for (i, &v) in y.iter().enumerate() {
                let want = value(EXPECTED, (block * BLOCK + j) * Gru::HIDDEN_SIZE + i);
                worst = worst.max((v - want).abs());
            }
        }
    }
    hprintln!("{FRAMES} frames through GRU 128/16 on a Cortex-M4F: max |error| against OpenVINO {worst:e}");
    debug::exit(if worst <= 1e-5 { debug::EXIT_SUCCESS } else { debug::EXIT_FAILURE });
    // Off QEMU, where nothing ends the program: sleep until an interrupt.
    loop {
        cortex_m::asm::wfi();
    }
}
