//! The planning pass: the lowering gives every value it keeps in scratch a slot of its own;
//! here the values share slots. A value holds its slot from the first step that touches it
//! to the last, and the values a step starts never share a slot with those it ends (the
//! kernels do not work in place).
use crate::ir::verify::Touch;
use crate::ir::{self, Home, Operand};

/// Gives the scratch values of `m` (slot `v` for value `v`, as lowered) the slots they
/// share, rewriting the steps' operands and the trace's.
pub(super) fn share(m: &mut ir::Model, trace: &mut [Touch]) {
    let n = m.slots.len();
    let (mut first, mut last) = (vec![usize::MAX; n], vec![0; n]);
    for (i, step) in m.steps.iter_mut().enumerate() {
        for o in step.operands_mut() {
            if let Home::Slot(v) = o.home {
                first[v] = first[v].min(i);
                last[v] = i;
            }
        }
    }
    let mut starts = vec![Vec::new(); m.steps.len()];
    let mut ends = vec![Vec::new(); m.steps.len()];
    for v in (0..n).filter(|&v| first[v] != usize::MAX) {
        starts[first[v]].push(v);
        ends[last[v]].push(v);
    }
    let mut shared = Shared::default();
    let mut real = vec![None; n];
    for (starting, ending) in starts.iter().zip(&ends) {
        for &v in starting {
            real[v] = Some(shared.take(m.slots[v]));
        }
        shared.free.extend(ending.iter().filter_map(|&v| real[v]));
    }
    let moved = |o: &mut Operand| match o.home {
        Home::Slot(v) => match real[v] {
            Some(s) => {
                o.home = Home::Slot(s);
                true
            }
            None => false,
        },
        _ => true,
    };
    for step in &mut m.steps {
        for o in step.operands_mut() {
            moved(o);
        }
    }
    // A value no step touches (none is lowered so) has no slot: nothing to check of it.
    for t in trace.iter_mut() {
        t.reads.retain_mut(|(_, o)| moved(o));
        t.writes.retain_mut(|(_, o)| moved(o));
    }
    m.slots = shared.slots;
}

/// The slots handed out so far, and those free again.
#[derive(Default)]
struct Shared {
    slots: Vec<usize>,
    free: Vec<usize>,
}

impl Shared {
    /// A slot of at least `len` values, free until given back: the smallest free slot that
    /// fits, else the largest free one (grown), else a new one.
    fn take(&mut self, len: usize) -> usize {
        let fit = self.free.iter().copied().filter(|&s| self.slots[s] >= len).min_by_key(|&s| self.slots[s]);
        let pick = fit.or_else(|| self.free.iter().copied().max_by_key(|&s| self.slots[s]));
        match pick {
            Some(s) => {
                self.free.retain(|&f| f != s);
                self.slots[s] = self.slots[s].max(len);
                s
            }
            None => {
                self.slots.push(len);
                self.slots.len() - 1
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::steps::{Copy, Step};

    fn copy(src: Operand, dst: Operand) -> Step {
        Step::Copy(Copy::new(src, dst, vec![[src.len, 1, 1]]))
    }

    #[test]
    fn a_slot_is_shared_once_its_value_is_last_touched_and_never_within_a_step() {
        let slot = |v: usize, len: usize| Operand::whole(Home::Slot(v), len);
        let x = Operand::whole(Home::Param(0), 4);
        let y = Operand::whole(Home::Output(0), 4);
        // 0 ← x; 1 ← 0; 2 ← 1; y ← 2: value 2 may take value 0's slot, never value 1's.
        let mut m = ir::Model {
            file: String::new(),
            name: "m".to_owned(),
            batch: ir::Batch::Static(1),
            params: Vec::new(),
            cells: Vec::new(),
            outputs: Vec::new(),
            denses: Vec::new(),
            consts: Vec::new(),
            slots: vec![4, 4, 2],
            steps: vec![
                copy(x, slot(0, 4)),
                copy(slot(0, 4), slot(1, 4)),
                copy(slot(1, 2), slot(2, 2)),
                copy(slot(2, 2), y),
            ],
            states: Vec::new(),
        };
        let mut trace =
            vec![Touch { steps: (2, 3), node: None, reads: vec![(1, slot(1, 2))], writes: vec![(2, slot(2, 2))] }];
        share(&mut m, &mut trace);
        assert_eq!(m.slots, vec![4, 4]);
        let homes: Vec<Vec<Home>> =
            m.steps.iter_mut().map(|s| s.operands_mut().into_iter().map(|o| o.home).collect()).collect();
        assert_eq!(homes[1], [Home::Slot(0), Home::Slot(1)]);
        assert_eq!(homes[2], [Home::Slot(1), Home::Slot(0)]);
        assert_eq!(trace[0].writes[0].1.home, Home::Slot(0));
    }
}
