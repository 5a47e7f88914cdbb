//! Diagnostics: every problem cellc reports carries the file, the line and column, and the
//! layer it concerns, so a user can go straight to it.
use std::fmt;

mod code;
pub use code::Code;

/// The one of `known` that `given` most likely misspells, as rustc suggests a name: the same
/// letters in another case, or the fewest edits, at most a third of its length (at least
/// one). `None` when nothing is that close.
pub fn did_you_mean<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = given.to_lowercase();
    let most = (given.chars().count() / 3).max(1);
    known
        .into_iter()
        .filter(|k| *k != given)
        .map(|k| (if k.to_lowercase() == lower { 0 } else { strsim::levenshtein(&lower, &k.to_lowercase()) }, k))
        .filter(|&(d, _)| d <= most)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// `" (did you mean `X`?)"` when one of `known` is close to `given`, else nothing.
pub fn suggestion<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(given, known).map_or_else(String::new, |k| format!(" (did you mean `{k}`?)"))
}

/// Where a problem is written: a line and column of a model file written as text (an IR's
/// XML), a node of a model file that is a graph of nodes (an ONNX file: the node's index in
/// its graph; the diagnostic's layer names it), or a token of a macro's declaration, which
/// the macro turns back into the token's span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pos {
    /// A line and a column (in characters) of a file, each from 1.
    At {
        /// Line, from 1.
        line: u32,
        /// Column in characters, from 1.
        col: u32,
    },
    /// The token a declaration recorded with this index (`front::decl` keeps the spans).
    Token(u32),
    /// The node of this index in the file's graph (an ONNX model's `graph.node`, from 0).
    Node(u32),
}

impl Pos {
    /// Line `line`, column `col`, each from 1.
    pub fn at(line: u32, col: u32) -> Pos {
        Pos::At { line, col }
    }

    /// The line, in a file.
    pub fn line(self) -> Option<u32> {
        match self {
            Pos::At { line, .. } => Some(line),
            Pos::Token(_) | Pos::Node(_) => None,
        }
    }

    /// The column, in a file.
    pub fn col(self) -> Option<u32> {
        match self {
            Pos::At { col, .. } => Some(col),
            Pos::Token(_) | Pos::Node(_) => None,
        }
    }
}

/// The layer a diagnostic is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerRef {
    /// The layer's `name` attribute.
    pub name: String,
    /// The layer's `type` attribute (`GRUCell`, `Const`, …).
    pub op: String,
}

/// An option a diagnostic names (the one a problem is in, or one that fixes it), which each
/// door writes as it takes options: `--input x=[1,?]` on the command line,
/// `input = "x=[1,?]"` in `include_model!`, `.input("x", &[Some(1), None])` in a builder.
/// Its `Display` is the command line's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The option's key, as the library's options name it (`input`, `weight_type`).
    pub key: &'static str,
    /// Its value as the command line writes it (`x=[1,?]`, `f32`), if the setting has one.
    pub value: Option<String>,
}

impl Setting {
    /// Option `key` set to `value`.
    pub fn new(key: &'static str, value: impl Into<String>) -> Self {
        Setting { key, value: Some(value.into()) }
    }

    /// Option `key`, its value left to the user (or a switch turned on).
    pub fn key(key: &'static str) -> Self {
        Setting { key, value: None }
    }
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--{}", self.key.replace('_', "-"))?;
        match &self.value {
            Some(v) => write!(f, " {v}"),
            None => Ok(()),
        }
    }
}

/// What fixes a problem, said after it: `verb`, one of `settings`, and `then`
/// (`pin it with --input x=[1,N] (N its size)`, `use --weight-type f32, or --lang rust`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What to do with the setting (`pin it with`).
    pub verb: String,
    /// The settings that fix it, any one of them.
    pub settings: Vec<Setting>,
    /// Words after the settings (` (N its size)`), if any.
    pub then: String,
}

impl Fix {
    /// `verb` `setting`.
    pub fn new(verb: impl Into<String>, setting: Setting) -> Self {
        Fix { verb: verb.into(), settings: vec![setting], then: String::new() }
    }

    /// The same fix with another setting that does it as well.
    pub fn or(mut self, setting: Setting) -> Self {
        self.settings.push(setting);
        self
    }

    /// The same fix with `then` said after its settings.
    pub fn then(mut self, then: impl Into<String>) -> Self {
        self.then = then.into();
        self
    }

    /// "pin it with --input": the fix of values needed at compile time that hang on a
    /// dynamic dimension of the model's inputs.
    pub fn pin() -> Self {
        Fix::new("pin it with", Setting::key("input"))
    }

    /// "pin the batch with --input": the fix of an op that would mix a dynamic batch's rows.
    pub fn pin_batch() -> Self {
        Fix::new("pin the batch with", Setting::key("input"))
    }

    /// Whether the fix is to pin a Parameter's shape or value.
    pub fn is_pin(&self) -> bool {
        self.settings.iter().any(|s| s.key == "input")
    }

    /// The fix in words, each setting written by `setting`.
    pub fn words(&self, setting: &dyn Fn(&Setting) -> String) -> String {
        let settings: Vec<String> = self.settings.iter().map(setting).collect();
        format!("{} {}{}", self.verb, settings.join(", or "), self.then)
    }
}

/// What a diagnostic says: its words, the option it is about (said before them) and what
/// fixes it (said after them), the options kept apart from the words so that each door
/// writes them its own way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The option the problem is in (`--state h0=hn`), when the user gave one.
    pub subject: Option<Box<Setting>>,
    /// What is wrong and what was expected.
    pub words: String,
    /// What fixes it, when an option does.
    pub fix: Option<Box<Fix>>,
    /// The kind of problem, when the message knows it better than where it is reported
    /// (an op's error that a pin fixes is [`Code::Dynamic`] wherever it is found).
    pub code: Option<Code>,
}

impl Message {
    /// `words`, about no option.
    pub fn new(words: impl Into<String>) -> Self {
        Message { subject: None, words: words.into(), fix: None, code: None }
    }

    /// The same message, of the kind `code`.
    pub fn code(mut self, code: Code) -> Self {
        self.code = Some(code);
        self
    }

    /// The same message, about option `subject`.
    pub fn about(mut self, subject: Setting) -> Self {
        self.subject = Some(Box::new(subject));
        self
    }

    /// The same message, fixed by `fix`.
    pub fn fix(mut self, fix: Fix) -> Self {
        self.fix = Some(Box::new(fix));
        self
    }
}

impl From<String> for Message {
    fn from(words: String) -> Self {
        Message::new(words)
    }
}

impl From<&str> for Message {
    fn from(words: &str) -> Self {
        Message::new(words)
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&said(self.subject.as_deref(), &self.words, self.fix.as_deref(), &|s| s.to_string()))
    }
}

/// `SUBJECT: WORDS; FIX`, each setting written by `setting`.
fn said(subject: Option<&Setting>, words: &str, fix: Option<&Fix>, setting: &dyn Fn(&Setting) -> String) -> String {
    let mut out = String::new();
    if let Some(s) = subject {
        out.push_str(&setting(s));
        out.push_str(": ");
    }
    out.push_str(words);
    if let Some(fix) = fix {
        out.push_str("; ");
        out.push_str(&fix.words(setting));
    }
    out
}

/// One problem found in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diag {
    /// The kind of problem.
    pub code: Code,
    /// The file the problem is in, as given by the user.
    pub file: String,
    /// Where in the file, when known.
    pub pos: Option<Pos>,
    /// The layer concerned, when there is one.
    pub layer: Option<LayerRef>,
    /// The option the problem is in, when the user gave one (said before the message).
    pub subject: Option<Box<Setting>>,
    /// What is wrong and what was expected.
    pub message: String,
    /// What fixes it, when an option does (said after the message).
    pub fix: Option<Box<Fix>>,
}

impl Diag {
    /// A diagnostic of the kind `code` at `pos` in `file`; the message's own code, when it
    /// has one, is the more precise and wins, and a message fixed by pinning an input is
    /// [`Code::Dynamic`]. Every quoted text in the message longer than
    /// [`crate::limits::MAX_NAME_CHARS`] is cut, so a model's megabyte-long name or
    /// attribute does not flood the terminal.
    pub fn new(code: Code, file: &str, pos: Option<Pos>, message: impl Into<Message>) -> Self {
        let Message { subject, words, fix, code: own } = message.into();
        // A problem that pinning an input fixes is one of a dynamic dimension.
        let pinned = fix.as_ref().is_some_and(|f| f.is_pin()).then_some(Code::Dynamic);
        let code = own.or(pinned).unwrap_or(code);
        Diag { code, file: file.to_owned(), pos, layer: None, subject, message: cut_quoted(&words), fix }
    }

    /// What the diagnostic says, its options written by `setting` (each door's way).
    pub fn said(&self, setting: &dyn Fn(&Setting) -> String) -> String {
        said(self.subject.as_deref(), &self.message, self.fix.as_deref(), setting)
    }

    /// The same diagnostic, attributed to a layer.
    pub fn in_layer(mut self, name: &str, op: &str) -> Self {
        self.layer = Some(LayerRef { name: name.to_owned(), op: op.to_owned() });
        self
    }
}

/// `message` with each `"…"` run (as `{:?}` writes names and values) of more than
/// [`crate::limits::MAX_NAME_CHARS`] characters cut.
fn cut_quoted(message: &str) -> String {
    let max = crate::limits::MAX_NAME_CHARS;
    let mut out = String::with_capacity(message.len().min(4096));
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c != '"' {
            continue;
        }
        // Inside a quoted run: keep `max` characters, skip to the closing quote.
        let (mut kept, mut skipped, mut escaped) = (0usize, 0usize, false);
        for c in chars.by_ref() {
            let closing = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            if closing {
                break;
            }
            if kept < max {
                out.push(c);
                kept += 1;
            } else {
                skipped += 1;
            }
        }
        out.push('"');
        if skipped > 0 {
            out.push_str(&format!("… ({skipped} more characters)"));
        }
    }
    out
}

impl Diag {
    /// The message with the layer (an ONNX graph's node) it concerns, without the location.
    pub fn headline(&self) -> String {
        // ONNX calls its ops nodes (a node inside an `If`'s branch has no index of the
        // model's graph, but is a node all the same).
        let onnx = matches!(self.pos, Some(Pos::Node(_))) || self.file.to_ascii_lowercase().ends_with(".onnx");
        let what = if onnx { "node" } else { "layer" };
        let said = self.said(&|s| s.to_string());
        match &self.layer {
            Some(l) => format!("{what} {} ({}): {said}", crate::limits::shown(&l.name), crate::limits::cut(&l.op)),
            None => said,
        }
    }
}

impl Diag {
    /// `FILE:LINE:COL: [CODE] MESSAGE` (or `FILE: node N: …`), for a reader that says
    /// "error" itself (a compile error a macro gives).
    pub fn located(&self) -> String {
        format!("{}: [{}] {}", self.location(), self.code, self.headline())
    }

    fn location(&self) -> String {
        match self.pos {
            Some(Pos::At { line, col }) => format!("{}:{line}:{col}", self.file),
            Some(Pos::Node(n)) => format!("{}: node {n}", self.file),
            Some(Pos::Token(_)) | None => self.file.clone(),
        }
    }
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error[{}]: {}", self.location(), self.code, self.headline())
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

/// Maps byte offsets of a text to line and column, and back, in time independent of the
/// text's length: line starts, and character counts at every 256 bytes, are
/// indexed once, so a minified model (one long line) costs no more than a formatted one.
pub struct LineIndex {
    starts: Vec<usize>,
    /// `chars[k]`: the characters in the first `k * STRIDE` bytes.
    chars: Vec<usize>,
    len: usize,
}

/// Whether a byte starts a UTF-8 character (is not a continuation byte).
fn starts_char(b: u8) -> bool {
    (b as i8) >= -0x40
}

impl LineIndex {
    /// Bytes between two character-count checkpoints.
    const STRIDE: usize = 256;

    /// Indexes the line starts and character counts of `text`.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let mut chars = vec![0];
        let mut n = 0;
        for block in text.as_bytes().chunks(Self::STRIDE) {
            n += block.iter().filter(|&&b| starts_char(b)).count();
            chars.push(n);
        }
        LineIndex { starts, chars, len: text.len() }
    }

    /// The characters in `text[..offset]`.
    fn chars_before(&self, text: &str, offset: usize) -> usize {
        let k = offset / Self::STRIDE;
        let from = k * Self::STRIDE;
        self.chars[k] + text.as_bytes()[from..offset].iter().filter(|&&b| starts_char(b)).count()
    }

    /// The byte offset of character number `n` (from 0) of `text`, or its length.
    fn offset_of_char(&self, text: &str, n: usize) -> usize {
        let k = self.chars.partition_point(|&c| c <= n).saturating_sub(1);
        let mut seen = self.chars[k];
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate().skip(k * Self::STRIDE) {
            if starts_char(b) {
                if seen == n {
                    return i;
                }
                seen += 1;
            }
        }
        bytes.len()
    }

    /// The byte offset of a position, if it lies in `text`; a column past the end of its line
    /// runs on into the next.
    pub fn offset(&self, text: &str, pos: Pos) -> Option<usize> {
        if text.len() != self.len {
            return None;
        }
        let Pos::At { line, col } = pos else { return None };
        let start = *self.starts.get(line.checked_sub(1)? as usize)?;
        let col = (col as usize).checked_sub(1)?;
        Some(self.offset_of_char(text, self.chars_before(text, start) + col))
    }

    /// The position of a byte offset (clamped to the text).
    pub fn pos(&self, text: &str, offset: usize) -> Pos {
        let mut offset = offset.min(text.len()).min(self.len);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let col = self.chars_before(text, offset) - self.chars_before(text, self.starts[line]) + 1;
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Pos::at(clamp(line + 1), clamp(col))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_is_a_line_and_column_or_a_node_of_a_graph() {
        let at = Diag::new(Code::Layer, "m.xml", Some(Pos::at(3, 7)), "bad").in_layer("gru", "GRUSequence");
        assert_eq!(at.to_string(), "m.xml:3:7: error[C0202]: layer \"gru\" (GRUSequence): bad");
        assert_eq!(at.located(), "m.xml:3:7: [C0202] layer \"gru\" (GRUSequence): bad");
        let node = Diag::new(Code::Unsupported, "m.onnx", Some(Pos::Node(12)), "bad").in_layer("/rnn/GRU", "GRU");
        assert_eq!(node.to_string(), "m.onnx: node 12: error[C0201]: node \"/rnn/GRU\" (GRU): bad");
        assert_eq!((Pos::Node(12).line(), Pos::Node(12).col()), (None, None));
        let text = "<net/>";
        assert_eq!(LineIndex::new(text).offset(text, Pos::Node(0)), None, "a node is no place in a text");
    }

    #[test]
    fn the_message_knows_its_kind_better_than_where_it_is_reported() {
        let own = Message::new("x").code(Code::Limit);
        assert_eq!(Diag::new(Code::Layer, "f", None, own).code, Code::Limit);
        let pin = Message::new("x").fix(Fix::pin());
        assert_eq!(Diag::new(Code::Layer, "f", None, pin).code, Code::Dynamic);
        let explicit = Message::new("x").fix(Fix::pin()).code(Code::Pin);
        assert_eq!(Diag::new(Code::Layer, "f", None, explicit).code, Code::Pin);
        assert_eq!(Diag::new(Code::Layer, "f", None, "x").code, Code::Layer);
    }

    #[test]
    fn line_index_counts_from_one() {
        let t = "ab\ncd\n\nx";
        let ix = LineIndex::new(t);
        assert_eq!(ix.pos(t, 0), Pos::at(1, 1));
        assert_eq!(ix.pos(t, 4), Pos::at(2, 2));
        assert_eq!(ix.pos(t, 6), Pos::at(3, 1));
        assert_eq!(ix.pos(t, 7), Pos::at(4, 1));
    }

    #[test]
    fn long_quoted_runs_are_cut() {
        let long = format!("{:?}", "x".repeat(1000));
        let d = Diag::new(Code::Layer, "f", None, format!("a {long} b \"short\\\"q\" c"));
        assert!(d.message.starts_with(&format!("a \"{}\"… (920 more characters) b", "x".repeat(80))), "{}", d.message);
        assert!(d.message.ends_with(" b \"short\\\"q\" c"), "{}", d.message);
    }

    #[test]
    fn columns_count_characters_on_long_lines() {
        // Multi-byte characters on both sides of several checkpoints.
        let line: String = (0..2000).map(|i| if i % 3 == 0 { 'é' } else { 'a' }).collect();
        let t = format!("x\n{line}\n{line}");
        let ix = LineIndex::new(&t);
        for (offset, _) in t.char_indices() {
            let before = &t[..offset];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let pos = ix.pos(&t, offset);
            assert_eq!(pos, Pos::at(line as u32, col as u32), "at byte {offset}");
            assert_eq!(ix.offset(&t, pos), Some(offset), "back from {pos:?}");
        }
    }
}

#[cfg(test)]
mod suggestion_tests {
    use super::did_you_mean;

    #[test]
    fn a_close_name_is_suggested_and_a_far_one_is_not() {
        let keys = ["weight_type", "weights_mode", "input", "outputs", "state"];
        assert_eq!(did_you_mean("wieght_type", keys), Some("weight_type"));
        assert_eq!(did_you_mean("ouputs", keys), Some("outputs"));
        assert_eq!(did_you_mean("INPUT", keys), Some("input"));
        assert_eq!(did_you_mean("threads", keys), None);
        assert_eq!(did_you_mean("input", keys), None, "the name itself is not a suggestion");
        assert_eq!(did_you_mean("x", ["h", "X"]), Some("X"), "the same letter in another case first");
    }
}
