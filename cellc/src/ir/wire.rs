//! Models whose cells read the Parameters and each other directly, row by row (a macro's
//! cell, an IR model made of cells only): [`Wired`] describes them as they are declared and
//! [`Wired::into_model`] plans their steps. Each cell output lives in the first Result that
//! returns it, else in a slot of its own.
use super::steps::{CellStep, Copy, Home, Operand, Step};
use super::{Batch, Cell, Model, Output, Param};

/// A value a cell reads or a Result returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Parameter by index.
    Param(usize),
    /// Output `port` of the cell with this index: 0 for the hidden state (a sequence's
    /// `Y`), then the final states.
    Cell(usize, usize),
}

/// What a cell reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellIo {
    /// `X`.
    pub x: Value,
    /// The initial hidden state.
    pub h: Value,
    /// An LSTM's initial cell state.
    pub c: Option<Value>,
}

/// A model of cells wired to each other and to the Parameters, batch row by batch row.
#[derive(Clone, Debug, PartialEq)]
pub struct Wired {
    /// The source file.
    pub file: String,
    /// The model's name.
    pub name: String,
    /// The batch shared by its cells.
    pub batch: Batch,
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// Cells, each after the cells it reads, with what they read.
    pub cells: Vec<(Cell, CellIo)>,
    /// Results, in order, with what they return.
    pub outputs: Vec<(Output, Value)>,
}

/// Values in one row of output `port` of a cell.
pub fn port_len(cell: &Cell, port: usize) -> usize {
    let h = cell.spec.hidden;
    match &cell.seq {
        None => h,
        Some(q) if port == 0 => q.direction.count() * q.steps * h,
        Some(q) => q.direction.count() * h,
    }
}

/// How many outputs a cell has.
pub fn ports(cell: &Cell) -> usize {
    usize::from(cell.seq.is_some()) + if cell.spec.kind.has_cell_state() { 2 } else { 1 }
}

impl Wired {
    /// The model with its steps: each cell in order, then the copies into Results that are
    /// not where their value was written. A static batch runs in one pass over whole
    /// tensors (each cell over its rows), as the graph's planner plans it; a dynamic one row
    /// by row.
    pub fn into_model(self) -> Model {
        let Wired { file, name, batch, mut params, cells, mut outputs } = self;
        let rows = match batch {
            Batch::Static(n) => n,
            Batch::Dynamic => 1,
        };
        let whole = |shape: &mut Vec<super::Dim>| {
            for d in shape.iter_mut().filter(|d| **d == super::Dim::Batch) {
                *d = super::Dim::Static(rows);
            }
        };
        if let Batch::Static(_) = batch {
            params.iter_mut().filter(|p| p.role != super::ParamRole::Weights).for_each(|p| whole(&mut p.shape));
            outputs.iter_mut().for_each(|(o, _)| whole(&mut o.shape));
        }
        let operand = |home: Home, len: usize| match batch {
            Batch::Static(_) => Operand::whole(home, len),
            Batch::Dynamic => Operand::rows(home, len),
        };
        let mut slots = Vec::new();
        let mut homes: Vec<Vec<Operand>> = Vec::new();
        for (k, (cell, _)) in cells.iter().enumerate() {
            let ops = (0..ports(cell))
                .map(|port| {
                    let len = rows * port_len(cell, port);
                    match outputs.iter().position(|(_, v)| *v == Value::Cell(k, port)) {
                        Some(j) => operand(Home::Output(j), len),
                        None => {
                            slots.push(len);
                            Operand::whole(Home::Slot(slots.len() - 1), len)
                        }
                    }
                })
                .collect();
            homes.push(ops);
        }
        let value = |v: Value| match v {
            Value::Param(p) => operand(Home::Param(p), Model::row_len(&params[p].shape)),
            Value::Cell(k, port) => homes[k][port],
        };
        let mut steps: Vec<Step> = cells
            .iter()
            .enumerate()
            .map(|(k, (_, io))| {
                Step::Cell(CellStep {
                    cell: k,
                    rows,
                    x: value(io.x),
                    h: value(io.h),
                    c: io.c.map(value),
                    out: homes[k].clone(),
                })
            })
            .collect();
        for (j, (o, v)) in outputs.iter().enumerate() {
            let src = value(*v);
            if src.home != Home::Output(j) {
                let len = Model::row_len(&o.shape);
                let dst = operand(Home::Output(j), len);
                steps.push(Step::Copy(Copy { src, dst, axes: vec![[len, 1, 1]] }));
            }
        }
        Model {
            file,
            name,
            batch: if let Batch::Static(_) = batch { Batch::Static(1) } else { batch },
            params,
            cells: cells.into_iter().map(|(c, _)| c).collect(),
            denses: Vec::new(),
            outputs: outputs.into_iter().map(|(o, _)| o).collect(),
            consts: Vec::new(),
            slots,
            steps,
            states: Vec::new(),
        }
    }
}
