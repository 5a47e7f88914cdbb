//! Why an option was refused, as data: each door (the command line, the builder, the
//! macros) says it in its own terms.
use std::fmt;

/// A value an option does not take: the text given, and what the option expected of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadValue {
    /// The text given.
    pub value: String,
    /// What a value of the option looks like (`IN=OUT (a Parameter's name, …)`).
    pub expected: String,
}

impl BadValue {
    /// `value` refused, the option expecting `expected`.
    pub fn new(value: &str, expected: impl Into<String>) -> BadValue {
        BadValue { value: value.to_owned(), expected: expected.into() }
    }
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not {}", self.value, self.expected)
    }
}

impl std::error::Error for BadValue {}

/// An option set by its key and text ([`crate::Options::set`]) and refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// No option has this key.
    UnknownKey {
        /// The key given.
        key: String,
        /// Every key there is.
        known: Vec<&'static str>,
    },
    /// The option does not take the value.
    Value {
        /// The option's key.
        key: &'static str,
        /// Why.
        error: BadValue,
        /// What its values look like (`auto|f32|f16|bf16`, `true or false`).
        takes: &'static str,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::UnknownKey { key, known } => {
                let hint = crate::diag::suggestion(key, known.iter().copied());
                write!(f, "no option is called `{key}`{hint}; expected one of {}", known.join(", "))
            }
            OptionError::Value { key, error, takes } => write!(f, "`{key}`: {error}; it takes {takes}"),
        }
    }
}

impl std::error::Error for OptionError {}
