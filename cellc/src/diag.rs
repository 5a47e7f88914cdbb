//! Diagnostics: every problem cellc reports carries the file, the line and column, and the
//! layer it concerns, so a user can go straight to it.
use std::fmt;

/// A position in a source file, 1-based.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

/// The layer a diagnostic is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerRef {
    /// The layer's `name` attribute.
    pub name: String,
    /// The layer's `type` attribute (`GRUCell`, `Const`, …).
    pub op: String,
}

/// One problem found in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    /// The file the problem is in, as given by the user.
    pub file: String,
    /// Where in the file, when known.
    pub pos: Option<Pos>,
    /// The layer concerned, when there is one.
    pub layer: Option<LayerRef>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl Diag {
    /// A diagnostic at `pos` in `file`.
    pub fn new(file: &str, pos: Option<Pos>, message: impl Into<String>) -> Self {
        Diag { file: file.to_owned(), pos, layer: None, message: message.into() }
    }

    /// The same diagnostic, attributed to a layer.
    pub fn in_layer(mut self, name: &str, op: &str) -> Self {
        self.layer = Some(LayerRef { name: name.to_owned(), op: op.to_owned() });
        self
    }
}

impl Diag {
    /// The message with the layer it concerns, without the location.
    pub fn headline(&self) -> String {
        match &self.layer {
            Some(l) => format!("layer {:?} ({}): {}", l.name, l.op, self.message),
            None => self.message.clone(),
        }
    }
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(p) = self.pos {
            write!(f, ":{}:{}", p.line, p.col)?;
        }
        write!(f, ": error: {}", self.headline())
    }
}

/// Every problem found in one run, in the order of their position in the file. This is the
/// error type of the library: front-ends and checks collect all they find before failing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diag>);

impl Diagnostics {
    /// A single diagnostic.
    pub fn one(d: Diag) -> Self {
        Diagnostics(vec![d])
    }
}

impl From<Diag> for Diagnostics {
    fn from(d: Diag) -> Self {
        Diagnostics::one(d)
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// Maps byte offsets of a text to line and column, and back.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// The byte offset of a position, if it lies in `text`.
    pub fn offset(&self, text: &str, pos: Pos) -> Option<usize> {
        let start = *self.starts.get(pos.line.checked_sub(1)? as usize)?;
        let line = &text[start..];
        let col = (pos.col as usize).checked_sub(1)?;
        Some(start + line.char_indices().nth(col).map_or(line.len(), |(i, _)| i))
    }

    /// Indexes the line starts of `text`.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The position of a byte offset.
    pub fn pos(&self, text: &str, offset: usize) -> Pos {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let col = text.get(start..offset).map_or(offset - start, |s| s.chars().count()) + 1;
        Pos { line: line as u32 + 1, col: col as u32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_counts_from_one() {
        let t = "ab\ncd\n\nx";
        let ix = LineIndex::new(t);
        assert_eq!(ix.pos(t, 0), Pos { line: 1, col: 1 });
        assert_eq!(ix.pos(t, 4), Pos { line: 2, col: 2 });
        assert_eq!(ix.pos(t, 6), Pos { line: 3, col: 1 });
        assert_eq!(ix.pos(t, 7), Pos { line: 4, col: 1 });
    }
}
