//! Streams 100 blocks through the processor and prints a score every 20 blocks.
use example_streaming::{Processor, block};

fn main() {
    let mut p = Processor::new();
    for n in 0..100 {
        let score = p.process(&block(n));
        if n % 20 == 19 {
            println!("block {n:3}: score {score:+.5}");
        }
    }
}
