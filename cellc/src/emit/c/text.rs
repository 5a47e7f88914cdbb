//! Writing C text: an indenting line writer, and the one way anything from a model reaches
//! C as text — float literals that read back bit-exactly, string literals and comments in
//! which a name cannot end the literal or the comment, and nothing but ASCII.
use std::fmt::Write as _;

/// The statement [`Code::refuse`] writes, to follow a loop's head.
pub(super) fn refusal(upper: &str, cond: &str, status: &str) -> String {
    format!("if ({upper}_UNLIKELY({cond})) return {upper}_{status};")
}

/// C source being written, a line at a time, indented by blocks.
#[derive(Default)]
pub(super) struct Code {
    out: String,
    depth: usize,
    /// The kernel function being written, if any (see [`Code::kernel`]).
    kernel: Option<Kernel>,
}

/// A kernel function whose body is being written: where its body starts in the text, the
/// depth it closes at, and its head.
struct Kernel {
    start: usize,
    depth: usize,
    upper: String,
    name: String,
    params: String,
    /// Whether its products fuse (`UPPER_CONTRACT`).
    contract: bool,
}

/// The copies of a kernel function beside its baseline: the suffix of its name, the lanes
/// its vectors take, and the macro naming its target.
pub(super) const KERNEL_COPIES: [(&str, usize, &str); 2] = [("_v16", 16, "AVX512"), ("_v8", 8, "AVX2")];

/// The suffix of a kernel function's baseline copy, where copies are made.
pub(super) const KERNEL_BASE: &str = "_base";

impl Code {
    /// One line at the current depth (an empty `s` gives an empty line; a preprocessor
    /// directive starts in the first column).
    pub(super) fn line(&mut self, s: impl AsRef<str>) {
        let s = s.as_ref();
        if !s.is_empty() && !s.starts_with('#') {
            for _ in 0..self.depth {
                self.out.push_str("    ");
            }
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// `head {`, then one level deeper.
    pub(super) fn open(&mut self, head: impl AsRef<str>) {
        let head = head.as_ref();
        self.line(if head.is_empty() { "{".to_owned() } else { format!("{head} {{") });
        self.depth += 1;
    }

    /// `}` followed by `tail` (`;`, `else {`…), one level up; the end of a kernel function
    /// (see [`Code::kernel`]) where it closes one.
    pub(super) fn close(&mut self, tail: &str) {
        self.depth = self.depth.saturating_sub(1);
        match self.kernel.take() {
            Some(k) if k.depth == self.depth => self.end_kernel(&k),
            other => {
                self.kernel = other;
                self.line(format!("}}{tail}"));
            }
        }
    }

    /// Opens `static void name(params)`, a function whose loops sum in GCC's vectors
    /// (`UPPER_VECTORS` lanes) with fused multiply–adds (`UPPER_CONTRACT`). Where the file
    /// is built for x86-64 without AVX2 (`-O2` without `-march`: SSE2), `UPPER_DISPATCH`
    /// makes one copy of it for each of AVX-512 and AVX2 with FMA, the same text under
    /// `UPPER_VECTORS` redefined, and `name` calls the one the processor runs (a baseline
    /// build would otherwise run 4-lane vectors without fused multiply–adds on every
    /// machine: 4–9× the native build). Its body closes with [`Code::close`].
    pub(super) fn kernel(&mut self, upper: &str, name: &str, params: &str) {
        self.open_kernel(upper, (name, params), true);
    }

    /// As [`Code::kernel`], a function whose products round as written (no fused
    /// multiply–adds the source does not call for): Winograd's transforms.
    pub(super) fn kernel_unfused(&mut self, upper: &str, name: &str, params: &str) {
        self.open_kernel(upper, (name, params), false);
    }

    fn open_kernel(&mut self, upper: &str, (name, params): (&str, &str), contract: bool) {
        debug_assert!(self.kernel.is_none(), "kernel functions do not nest");
        self.kernel = Some(Kernel {
            start: self.out.len(),
            depth: self.depth,
            upper: upper.to_owned(),
            name: name.to_owned(),
            params: params.to_owned(),
            contract,
        });
        self.depth += 1;
    }

    /// Writes the kernel function whose body is the text after `k.start`: its copies, its
    /// baseline and its dispatcher.
    fn end_kernel(&mut self, k: &Kernel) {
        let body = self.out.split_off(k.start);
        let (u, name, params) = (&k.upper, &k.name, &k.params);
        let contract = if k.contract { format!("{u}_CONTRACT ") } else { String::new() };
        let define = |c: &mut Code, lanes: &str| {
            c.line(format!("#undef {u}_VECTORS"));
            c.line(format!("#define {u}_VECTORS {lanes}"));
        };
        self.line(format!("#if {u}_DISPATCH"));
        for (suffix, lanes, target) in KERNEL_COPIES {
            define(self, &lanes.to_string());
            self.line(format!("{contract}{u}_{target}"));
            self.function(&format!("static void {name}{suffix}({params})"));
            self.raw(&body);
            self.depth -= 1;
            self.line("}");
            self.line("");
        }
        define(self, &format!("{u}_VECTORS_BASE"));
        self.line(format!("{contract}static void {name}{KERNEL_BASE}({params})"));
        self.line("#else");
        self.line(format!("{contract}static void {name}({params})"));
        self.line("#endif");
        self.line("{");
        self.raw(&body);
        self.line("}");
        self.line(format!("#if {u}_DISPATCH"));
        let args = arguments(params);
        self.function(&format!("static void {name}({params})"));
        for (i, (suffix, _, target)) in KERNEL_COPIES.iter().enumerate() {
            let cond = format!("{u}_HAS_{target}");
            if i == 0 {
                self.open(format!("if ({cond})"));
            } else {
                self.depth -= 1;
                self.line(format!("}} else if ({cond}) {{"));
                self.depth += 1;
            }
            self.line(format!("{name}{suffix}({args});"));
        }
        self.otherwise();
        self.line(format!("{name}{KERNEL_BASE}({args});"));
        self.close("");
        self.depth -= 1;
        self.line("}");
        self.line("#endif");
    }

    /// `} else {`: the block closes and the next opens at the same depth.
    pub(super) fn otherwise(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.line("} else {");
        self.depth += 1;
    }

    /// A function definition's head and opening brace on lines of their own.
    pub(super) fn function(&mut self, signature: &str) {
        self.line(signature);
        self.line("{");
        self.depth += 1;
    }

    /// A block comment, wrapped at about 96 columns, each line of `text` a paragraph line.
    pub(super) fn comment(&mut self, text: &str) {
        // Names from the model may hold what would end the comment, open a nested one, or
        // form a trigraph.
        let text = text.replace("*/", "* /").replace("/*", "/ *").replace("??", "? ?");
        let text = text.as_str();
        let width = 96usize.saturating_sub(4 * self.depth + 3).max(40);
        let mut lines = Vec::new();
        for para in text.lines() {
            let mut cur = String::new();
            for word in para.split(' ') {
                if !cur.is_empty() && cur.len() + 1 + word.len() > width {
                    lines.push(std::mem::take(&mut cur));
                }
                if !cur.is_empty() {
                    cur.push(' ');
                }
                cur.push_str(word);
            }
            lines.push(cur);
        }
        match lines.as_slice() {
            [one] if one.len() + 6 <= width => self.line(format!("/* {one} */")),
            _ => {
                for (k, l) in lines.iter().enumerate() {
                    let lead = if k == 0 { "/* " } else { " * " };
                    let tail = if k + 1 == lines.len() { " */" } else { "" };
                    self.line(format!("{lead}{l}{tail}").trim_end());
                }
            }
        }
    }

    /// `if (cond) return status;` for a check that only a caller's mistake fails (`upper`
    /// the model's macro prefix, `status` a status code after it), marked unlikely: GCC
    /// gives each early return a fair chance, so that after a model's thirty checks it takes
    /// the computation for cold code, which it neither vectorises nor unrolls (a model of
    /// gathers and products, AMD Zen 3: 7.2 against 5.5 µs).
    pub(super) fn refuse(&mut self, upper: &str, cond: &str, status: &str) {
        self.line(refusal(upper, cond, status));
    }

    /// `#define name` as `then` where `cond` holds, else as `otherwise` (each of `cases`
    /// tried in turn: `(condition, value)`), then an empty line.
    pub(super) fn define_by(&mut self, name: &str, cases: &[(&str, &str)], otherwise: &str) {
        for (k, (cond, value)) in cases.iter().enumerate() {
            self.line(format!("#{} {cond}", if k == 0 { "if" } else { "elif" }));
            self.line(format!("#define {name} {value}").trim_end());
        }
        self.line("#else");
        self.line(format!("#define {name} {otherwise}").trim_end());
        self.line("#endif");
        self.line("");
    }

    /// Appends text written elsewhere, as it is.
    pub(super) fn raw(&mut self, text: &str) {
        self.out.push_str(text);
    }

    /// The text written.
    pub(super) fn finish(self) -> String {
        self.out
    }
}

/// The arguments that pass a function's parameters on: the last word of each.
fn arguments(params: &str) -> String {
    let names = params.split(',').map(|p| p.trim().rsplit([' ', '*']).next().unwrap_or_default());
    names.collect::<Vec<_>>().join(", ")
}

/// `v * k` as a reader would write it: `v` for `k = 1`, `0` for `k = 0`.
pub(super) fn mul(v: &str, k: usize) -> String {
    match k {
        0 => "0".into(),
        1 => v.into(),
        k => format!("{v} * {k}"),
    }
}

/// A C `float` constant that reads back to the same bits: the shortest round-trip decimal
/// with an `f` suffix (C99 requires correct rounding of such constants). A NaN reads back as
/// a NaN of the same sign, not its payload, which C99 cannot spell in a constant.
pub(super) fn float(v: f32) -> String {
    if v.is_finite() {
        let s = format!("{v:?}");
        // `1e-7` is a valid constant; `1` alone would be an int.
        if s.contains(['.', 'e']) { format!("{s}f") } else { format!("{s}.0f") }
    } else if v.is_nan() {
        if v.is_sign_negative() { "(-NAN)".into() } else { "NAN".into() }
    } else if v > 0.0 {
        "INFINITY".into()
    } else {
        "(-INFINITY)".into()
    }
}

/// A C string literal holding `s`: printable ASCII as it is, except `"`, `\` and `?` (which
/// could start a trigraph), escaped; every other byte as a three-digit octal escape, which
/// cannot run into the next character.
pub(super) fn string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' | b'\\' | b'?' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// A model's name for a comment: the string literal of [`string`], with `/` and `*` also
/// escaped, so that neither `*/` nor `/*` can appear.
pub(super) fn quoted(s: &str) -> String {
    string(s).replace('/', "\\/").replace('*', "\\*")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_has_a_copy_per_level_and_a_dispatcher_where_the_build_dispatches() {
        let mut c = Code::default();
        c.kernel("M", "m_k", "const float *restrict x, float *y, size_t n");
        c.open("for (size_t i = 0; i < n; ++i)");
        c.line("y[i] = x[i];");
        c.close("");
        c.close("");
        c.line("int after;");
        let text = c.finish();
        let body = "    for (size_t i = 0; i < n; ++i) {\n        y[i] = x[i];\n    }\n";
        // The body once for each copy, the baseline and the build without dispatch (which
        // shares the baseline's text).
        assert_eq!(text.matches(body).count(), 3, "{text}");
        for head in [
            "M_CONTRACT M_AVX512\nstatic void m_k_v16(const float *restrict x, float *y, size_t n)\n{\n",
            "M_CONTRACT M_AVX2\nstatic void m_k_v8(const float *restrict x, float *y, size_t n)\n{\n",
            "#define M_VECTORS M_VECTORS_BASE\nM_CONTRACT static void m_k_base(",
            "#else\nM_CONTRACT static void m_k(const float *restrict x, float *y, size_t n)\n#endif\n{\n",
            "if (M_HAS_AVX512) {\n        m_k_v16(x, y, n);\n    } else if (M_HAS_AVX2) {\n        m_k_v8(x, y, n);\n    } else {\n        m_k_base(x, y, n);\n    }\n}\n#endif\n",
        ] {
            assert!(text.contains(head), "{head} in {text}");
        }
        // Each copy's lanes set before it, and the file's own restored after them.
        let defines: Vec<&str> = text.lines().filter(|l| l.starts_with("#define M_VECTORS")).collect();
        assert_eq!(defines, ["#define M_VECTORS 16", "#define M_VECTORS 8", "#define M_VECTORS M_VECTORS_BASE"]);
        // What follows is written at the depth the kernel opened at.
        assert!(text.ends_with("#endif\nint after;\n"), "{text}");
        let mut c = Code::default();
        c.kernel_unfused("M", "m_s", "int a");
        c.close("");
        assert!(!c.finish().contains("M_CONTRACT"));
    }

    #[test]
    fn floats_read_back_bit_exactly() {
        for v in [0.1f32, -0.0, 1.0, 1e-45, f32::MAX, 0.333_333_34, f32::from_bits(0x3f80_0001), 3.0e10] {
            let t = float(v);
            let body = t.strip_suffix('f').expect("suffix");
            assert_eq!(body.parse::<f32>().map(f32::to_bits), Ok(v.to_bits()), "{t}");
        }
        assert_eq!(float(2.0), "2.0f");
        assert_eq!(float(f32::NEG_INFINITY), "(-INFINITY)");
        assert_eq!(float(f32::NAN), "NAN");
    }

    #[test]
    fn names_cannot_break_literals_or_comments() {
        assert_eq!(string("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(string("??="), "\"\\?\\?=\"");
        assert_eq!(string("é\n"), "\"\\303\\251\\012\"");
        let q = quoted("x*/ y /* z");
        assert!(!q.contains("*/") && !q.contains("/*"), "{q}");
    }

    #[test]
    fn a_comment_holds_no_terminator_nested_opening_or_trigraph() {
        let mut c = Code::default();
        c.comment("layer \"*/ exit(1); /*\" ??/ done");
        let text = c.finish();
        assert_eq!(text.matches("*/").count(), 1, "{text}");
        assert_eq!(text.matches("/*").count(), 1, "{text}");
        assert!(!text.contains("??"), "{text}");
    }

    #[test]
    fn comments_wrap_and_close() {
        let mut c = Code::default();
        c.open("if (x)");
        c.comment(&"word ".repeat(40));
        c.close("");
        let text = c.finish();
        assert!(text.lines().all(|l| l.len() <= 100), "{text}");
        assert!(text.contains("    /* word") && text.trim_end().ends_with('}'), "{text}");
    }
}
