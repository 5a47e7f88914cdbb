//! A cell's attributes as a front-end reads them, resolved into their types: the
//! activations with their parameters, the direction and the clip. Each front-end resolves
//! what it reads through these, so every format means the same by them; what does not
//! resolve travels to the check as the error, to be reported with every other problem.
use super::cell::{Activation, CellKind, Direction};

/// Why a cell's `activations` cannot be resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActivationError {
    /// Not as many names as the op takes.
    Count {
        /// The names given.
        given: Vec<String>,
        /// The cell's kind.
        kind: CellKind,
    },
    /// A bidirectional cell listing a different set for each direction.
    PerDirection {
        /// The names given.
        given: Vec<String>,
    },
    /// A name that is not an activation.
    Unknown {
        /// Its position in the list.
        at: usize,
        /// The name.
        name: String,
    },
}

impl ActivationError {
    /// The position of the name at fault (`None`: the count).
    pub fn at(&self) -> Option<usize> {
        match self {
            ActivationError::Count { .. } | ActivationError::PerDirection { .. } => None,
            ActivationError::Unknown { at, .. } => Some(*at),
        }
    }
}

impl std::fmt::Display for ActivationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ActivationError::Count { given, kind } => write!(
                f,
                "`activations` lists {} function(s) ({}); {} takes exactly {} ({})",
                given.len(),
                given.join(", "),
                kind.op(),
                kind.activation_count(),
                kind.default_activations().join(", ")
            ),
            ActivationError::PerDirection { given } => write!(
                f,
                "`activations` lists a different set for each direction ({}); cellc runs both directions of a cell with one set",
                given.join(", ")
            ),
            ActivationError::Unknown { at, name } => write!(
                f,
                "unknown activation {name:?} at position {at} of `activations`; expected one of {}",
                Activation::NAMES.join(", ")
            ),
        }
    }
}

/// A cell's activations: the names given (or the op's defaults) resolved with their
/// parameters.
pub fn resolve_activations(
    kind: CellKind,
    names: Option<&[String]>,
    alpha: &[Option<f32>],
    beta: &[Option<f32>],
) -> Result<Vec<Activation>, ActivationError> {
    let defaults = kind.default_activations();
    let names: Vec<String> =
        names.map_or_else(|| defaults.iter().map(|s| (*s).to_owned()).collect(), <[String]>::to_vec);
    let want = kind.activation_count();
    if names.len() != want {
        return Err(ActivationError::Count { given: names, kind });
    }
    let mut out = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let (a, b) = (alpha.get(i).copied().flatten(), beta.get(i).copied().flatten());
        let Some(act) = Activation::from_name(n, a, b) else {
            return Err(ActivationError::Unknown { at: i, name: n.clone() });
        };
        out.push(act);
    }
    Ok(out)
}

/// [`resolve_activations`] for a cell running `dirs` directions: a bidirectional cell may
/// list one set per direction (as ONNX writes them, and OpenVINO's converter after it),
/// each with its parameters by position, taken as one set when both are the same.
pub fn resolve_activations_of(
    kind: CellKind,
    dirs: usize,
    names: Option<&[String]>,
    alpha: &[Option<f32>],
    beta: &[Option<f32>],
) -> Result<Vec<Activation>, ActivationError> {
    let per = kind.activation_count();
    let Some(names) = names.filter(|n| dirs == 2 && n.len() == 2 * per) else {
        return resolve_activations(kind, names, alpha, beta);
    };
    let half = |v: &[Option<f32>], k: usize| -> Vec<Option<f32>> {
        (k * per..(k + 1) * per).map(|i| v.get(i).copied().flatten()).collect()
    };
    let one = resolve_activations(kind, Some(&names[..per]), &half(alpha, 0), &half(beta, 0))?;
    let two = resolve_activations(kind, Some(&names[per..]), &half(alpha, 1), &half(beta, 1))
        .map_err(|_| ActivationError::PerDirection { given: names.to_vec() })?;
    if one == two { Ok(one) } else { Err(ActivationError::PerDirection { given: names.to_vec() }) }
}

/// A Sequence op's `direction`.
pub fn resolve_direction(d: Option<&str>) -> Result<Direction, AttrError> {
    const EXPECTED: &str = "forward, reverse or bidirectional";
    match d.map(str::to_ascii_lowercase).as_deref() {
        Some("forward") => Ok(Direction::Forward),
        Some("reverse") => Ok(Direction::Reverse),
        Some("bidirectional") => Ok(Direction::Bidirectional),
        Some(d) => Err(AttrError { attr: "direction", found: Some(format!("{d:?}")), expected: EXPECTED }),
        None => Err(AttrError { attr: "direction", found: None, expected: EXPECTED }),
    }
}

/// A cell attribute that is absent or holds a value cellc does not take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttrError {
    /// The attribute.
    pub attr: &'static str,
    /// Its value as written in messages, or `None` when it is absent.
    pub found: Option<String>,
    /// What it may hold.
    pub expected: &'static str,
}

impl std::fmt::Display for AttrError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let AttrError { attr, found, expected } = self;
        match found {
            Some(v) => write!(f, "`{attr}` is {v}; expected {expected}"),
            None => write!(f, "no `{attr}` attribute; expected {expected}"),
        }
    }
}

/// `clip`: `None` for 0 (or infinity), which clip nothing.
pub fn resolve_clip(clip: f32) -> Result<Option<f32>, AttrError> {
    if clip.is_nan() || clip < 0.0 {
        let expected = "0 (no clipping) or a positive number";
        Err(AttrError { attr: "clip", found: Some(clip.to_string()), expected })
    } else if clip == 0.0 || clip.is_infinite() {
        Ok(None)
    } else {
        Ok(Some(clip))
    }
}
