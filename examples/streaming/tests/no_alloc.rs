//! The processing loop allocates nothing: counted with a global allocator that records
//! every allocation made on this thread while the loop runs.
use example_streaming::{BLOCK, Processor, block};

#[test]
fn processing_blocks_does_not_allocate() {
    let blocks: Vec<_> = (0..50).map(block).collect();
    let mut p = Processor::new();
    let mut score = 0.0;
    let info = allocation_counter::measure(|| {
        for b in &blocks {
            score += p.process(b);
        }
        p.reset();
    });
    assert_eq!(info.count_total, 0, "the loop allocated {} times", info.count_total);
    assert!(score.is_finite());
    // The counter does see allocations (so a zero above means something).
    let seen = allocation_counter::measure(|| {
        std::hint::black_box(vec![0.0f32; BLOCK]);
    });
    assert!(seen.count_total > 0);
}

#[test]
fn blocks_carry_the_state() {
    // Two blocks in one processor differ from the second block alone.
    let (mut a, mut b) = (Processor::new(), Processor::new());
    a.process(&block(0));
    a.process(&block(1));
    b.process(&block(1));
    assert_ne!(a.state(), b.state());
}
