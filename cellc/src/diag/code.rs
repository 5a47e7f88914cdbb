//! The stable code of each kind of problem (`C0201`): what a script or a search can hold on
//! to while the words of a message change. `docs/DIAGNOSTICS.md` lists every code with what
//! it means and what to do; a test keeps the list and this table the same.
use std::fmt;

/// What kind of problem a diagnostic reports. A code, once given, keeps its meaning: a new
/// kind of problem gets a new code, and a retired code is not reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Code {
    /// `C0101`: a file cannot be read (missing, unreadable, or not the kind of file named).
    Read,
    /// `C0102`: the file is not a well-formed model of its format.
    Malformed,
    /// `C0103`: weight data missing, too short, or out of the range of the weights file.
    Weights,
    /// `C0201`: an op, or a version of one, that cellc does not compile.
    Unsupported,
    /// `C0202`: a layer's attributes or inputs are not what its op takes, or ask for what
    /// cellc does not honour.
    Layer,
    /// `C0203`: a model that is valid but that the code generator does not write in this
    /// form (with these options), each time with the reason.
    Declined,
    /// `C0301`: values cellc needs at compile time depend on a dynamic dimension: pin the
    /// inputs.
    Dynamic,
    /// `C0302`: a pin of an input's shape that names nothing or disagrees with the model.
    Pin,
    /// `C0303`: beyond one of cellc's limits (rank, tensor size, weights, scratch).
    Limit,
    /// `C0401`: an option cellc does not know, or a value it does not take.
    Option,
    /// `C0402`: options that the model, or each other, cannot take together.
    Conflict,
    /// `C0403`: a cut or a carried state (`inputs`, `outputs`, `state`) that names no tensor
    /// or does not cut the graph as asked.
    Cut,
    /// `C0404`: a name chosen for generated items that is not usable as one.
    Name,
    /// `C0501`: the output cannot be written.
    Write,
    /// `C0901`: an internal error (a plan that fails its own check): cellc writes no code,
    /// and the problem is cellc's, to report.
    Internal,
}

impl Code {
    /// Every code, in the order the docs list them.
    pub const ALL: &'static [Code] = &[
        Code::Read,
        Code::Malformed,
        Code::Weights,
        Code::Unsupported,
        Code::Layer,
        Code::Declined,
        Code::Dynamic,
        Code::Pin,
        Code::Limit,
        Code::Option,
        Code::Conflict,
        Code::Cut,
        Code::Name,
        Code::Write,
        Code::Internal,
    ];

    /// The code as printed: `C` and four digits, the first two the stage (01 reading, 02
    /// ops, 03 dimensions and limits, 04 options, 05 output, 09 cellc itself).
    pub fn id(self) -> &'static str {
        match self {
            Code::Read => "C0101",
            Code::Malformed => "C0102",
            Code::Weights => "C0103",
            Code::Unsupported => "C0201",
            Code::Layer => "C0202",
            Code::Declined => "C0203",
            Code::Dynamic => "C0301",
            Code::Pin => "C0302",
            Code::Limit => "C0303",
            Code::Option => "C0401",
            Code::Conflict => "C0402",
            Code::Cut => "C0403",
            Code::Name => "C0404",
            Code::Write => "C0501",
            Code::Internal => "C0901",
        }
    }

    /// The code of an id (`C0201`, in either case).
    pub fn of_id(id: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.id().eq_ignore_ascii_case(id))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::Code;

    #[test]
    fn ids_are_distinct_and_read_back() {
        for (i, a) in Code::ALL.iter().enumerate() {
            assert_eq!(Code::of_id(a.id()), Some(*a));
            assert!(a.id().len() == 5 && a.id().starts_with('C'), "{}", a.id());
            for b in &Code::ALL[i + 1..] {
                assert_ne!(a.id(), b.id());
            }
        }
        assert_eq!(Code::of_id("C9999"), None);
    }
}
