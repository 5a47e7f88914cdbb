//! Why a name given by the user (a pin's, a cut's, a state pair's) names no Parameter or
//! Result of the model, or more than one, and why a pin does not fit its Parameter: as
//! data, so that each door says which of its options it was.
use std::fmt;

/// The ports a name is looked up among.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortKind {
    /// The model's inputs.
    Parameter,
    /// The model's outputs.
    Result,
}

impl PortKind {
    fn name(self) -> &'static str {
        match self {
            PortKind::Parameter => "Parameter",
            PortKind::Result => "Result",
        }
    }
}

/// A name that names no port of a kind, or more than one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameError {
    /// No port answers to the name.
    NoSuch {
        /// Among which ports.
        kind: PortKind,
        /// The names they answer to, quoted.
        known: Vec<String>,
        /// The one the name given most likely misspells, quoted.
        close: Option<String>,
    },
    /// Several ports are called so (by their tensors, or the model's names for them).
    Several {
        /// Among which ports.
        kind: PortKind,
        /// The layers of those ports, quoted.
        layers: Vec<String>,
    },
    /// Several ports' layers have the name: nothing tells them apart.
    SameLayers {
        /// Among which ports.
        kind: PortKind,
        /// How many.
        count: usize,
    },
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameError::NoSuch { kind, known, close } => {
                let k = kind.name();
                let hint = close.as_ref().map_or_else(String::new, |c| format!(" (did you mean {c}?)"));
                write!(f, "the model has no such {k}{hint}; its {k}s are {}", known.join(", "))
            }
            NameError::Several { kind, layers } => write!(
                f,
                "{} {}s are called so (layers {}); name one by its layer",
                layers.len(),
                kind.name(),
                layers.join(" and ")
            ),
            NameError::SameLayers { kind, count } => write!(
                f,
                "{count} {} layers are called so; cellc cannot tell them apart: rename one in the model",
                kind.name()
            ),
        }
    }
}

impl std::error::Error for NameError {}

/// A pin (`--input NAME=[…]`) that does not fit the Parameter it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinError {
    /// The name the pin gives.
    pub name: String,
    /// What is wrong.
    pub problem: PinProblem,
}

/// What is wrong with a pin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PinProblem {
    /// The name names no Parameter, or several.
    Name(NameError),
    /// The pin gives `given` dimensions to a Parameter of rank `rank`, of this shape.
    Rank {
        /// Dimensions given.
        given: usize,
        /// The Parameter's rank.
        rank: usize,
        /// Its shape, as shown.
        shape: String,
    },
    /// Dimension `dim` is past what a size can hold.
    TooLarge {
        /// The dimension.
        dim: usize,
    },
    /// Dimension `dim` is `have` in the model, and a pin cannot change it.
    Fixed {
        /// The dimension.
        dim: usize,
        /// Its size in the model.
        have: i64,
        /// The size pinned.
        want: u64,
    },
    /// Dimension `dim` is an interval in the model (`allowed`, as OpenVINO writes it) that
    /// the size pinned is outside.
    OutOfInterval {
        /// The dimension.
        dim: usize,
        /// The sizes it allows.
        allowed: String,
        /// The size pinned.
        want: u64,
    },
    /// A value is given (`NAME=VALUE`) to a Parameter that holds more than one, of this
    /// shape.
    NotOne {
        /// Its shape, as shown.
        shape: String,
    },
    /// A value that the Parameter's element type cannot hold.
    NotOfType {
        /// The value, as given.
        value: String,
        /// The element type.
        elem: &'static str,
    },
}

impl fmt::Display for PinError {
    /// The problem, the pin itself left to the message that names it (a diagnostic's subject).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            PinProblem::Name(e) => write!(f, "{e}"),
            PinProblem::Rank { given, rank, shape } => {
                write!(f, "the pin gives {given} dimensions; the Parameter has {rank} ({shape})")
            }
            PinProblem::TooLarge { dim } => write!(f, "dimension {dim} is too large"),
            PinProblem::Fixed { dim, have, want } => {
                write!(f, "dimension {dim} is {have} in the model; it cannot be changed to {want}")
            }
            PinProblem::OutOfInterval { dim, allowed, want } => {
                write!(f, "dimension {dim} is the interval {allowed} in the model; {want} is outside it")
            }
            PinProblem::NotOne { shape } => write!(
                f,
                "Parameter {:?} is of shape {shape}, and a value fixes a Parameter of one value (give its shape with {}=[…] instead)",
                self.name, self.name
            ),
            PinProblem::NotOfType { value, elem } => {
                write!(f, "Parameter {:?} is of type {elem}, which cannot hold {value}", self.name)
            }
        }
    }
}

impl std::error::Error for PinError {}
