//! The doors a compilation comes through, and how each says an option. Messages name the
//! options as the command line spells them (`pin it with --input x=[?,N,40]`); before a
//! message reaches a user of the builder or of a macro, [`Door::say`] writes each option
//! the way that door takes it (`.option("input", "x=[?,N,40]")`, `input = "x=[?,N,40]"`),
//! from the one table of options ([`crate::options::KEYS`]).
use crate::diag::Diagnostics;
use crate::options::{KEYS, Key};

/// Where a compilation was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Door {
    /// The `cellc` command line: flags (`--input x=[1,?,40]`).
    Cli,
    /// A build script's `cellc::Builder`: `.option("input", "x=[1,?,40]")`.
    Builder,
    /// `include_model!`: keys (`input = "x=[1,?,40]"`).
    Macro,
}

/// The value written after a flag at the start of `rest`, if it is one the key takes: a
/// choice of a key with choices, a quoted name, a number of a key that takes one, or text
/// holding `=` (`x=[1,?,40]`, `h0=hn`) of a key that takes such pairs. Trailing
/// punctuation of the sentence is not part of it.
fn value<'a>(key: &Key, rest: &'a str) -> Option<&'a str> {
    let rest = rest.strip_prefix(' ')?;
    let token = rest.split(char::is_whitespace).next()?;
    let token = token.trim_end_matches([',', ';', ':', '.', ')']);
    let token = if token.ends_with(']') && token.matches('[').count() < token.matches(']').count() {
        &token[..token.len() - 1]
    } else {
        token
    };
    let ok = if key.is_switch() || token.is_empty() {
        false
    } else if key.value.contains('=') {
        // A pair (`x=[1,?,40]`, `sr=16000`, `h0=hn`), whichever of its forms.
        token.contains('=') || (token.len() > 1 && token.starts_with('"') && token.ends_with('"'))
    } else if key.value.contains('|') {
        key.value.split('|').any(|c| c == token)
    } else if key.value == "N" {
        token.bytes().all(|b| b.is_ascii_digit())
    } else if token.starts_with('"') {
        token.len() > 1 && token.ends_with('"')
    } else {
        false
    };
    ok.then_some(token)
}

impl Door {
    /// `text` with every option it names written as this door takes it.
    pub(crate) fn say(self, text: &str) -> String {
        if self == Door::Cli {
            return text.to_owned();
        }
        // Longest flags first: `--inputs` is not `--input` followed by `s`.
        let mut keys: Vec<&Key> = KEYS.iter().collect();
        keys.sort_by_key(|k| std::cmp::Reverse(k.name.len()));
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        'scan: while let Some(at) = rest.find("--") {
            out.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            for key in &keys {
                let flag = key.name.replace('_', "-");
                let Some(tail) = after.strip_prefix(flag.as_str()) else { continue };
                if tail.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                    continue;
                }
                let v = value(key, tail);
                out.push_str(&self.option(key, v));
                rest = match v {
                    Some(v) => &tail[1 + v.len()..],
                    None => tail,
                };
                continue 'scan;
            }
            out.push_str("--");
            rest = after;
        }
        out.push_str(rest);
        out
    }

    /// `diags` with their messages as this door says them ([`Door::say`]).
    pub(crate) fn diagnostics(self, mut diags: Diagnostics) -> Diagnostics {
        for d in &mut diags.0 {
            d.message = self.say(&d.message);
        }
        diags
    }

    /// Option `key`, with `value` when there is one, as this door takes it.
    fn option(self, key: &Key, value: Option<&str>) -> String {
        let quoted = |v: &str| if v.starts_with('"') { v.to_owned() } else { format!("\"{v}\"") };
        match (self, value) {
            (Door::Cli, Some(v)) => format!("{} {v}", key.flag()),
            (Door::Cli, None) => key.flag(),
            (Door::Macro, Some(v)) if v.bytes().all(|b| b.is_ascii_digit()) => format!("`{} = {v}`", key.name),
            (Door::Macro, Some(v)) => format!("`{} = {}`", key.name, quoted(v)),
            (Door::Macro, None) if key.is_switch() => format!("`{} = true`", key.name),
            (Door::Macro, None) => format!("`{}`", key.name),
            (Door::Builder, Some(v)) => match builder_call(key.name, v.trim_matches('"')) {
                Some(call) => format!("`{call}`"),
                None => format!("`.option(\"{}\", {})`", key.name, quoted(v)),
            },
            (Door::Builder, None) if key.is_switch() => format!("`.option(\"{}\", \"true\")`", key.name),
            // The builder has a method of each option's name (`lang`'s is `language`).
            (Door::Builder, None) if key.name == "lang" => "`.language(…)`".to_owned(),
            (Door::Builder, None) => format!("`.{}(…)`", key.name),
        }
    }
}

/// The builder's own method for option `key` with `value`, where it has one that takes the
/// value as written: a pin (`x=[?,N,40]`: `.input("x", &[None, Some(N), Some(40)])`), a
/// Parameter's value (`sr=VALUE`: `.input_value("sr", VALUE)`), a state pair
/// (`h0=hn`: `.state("h0", "hn")`).
fn builder_call(key: &str, value: &str) -> Option<String> {
    let (name, rest) = value.split_once('=')?;
    match key {
        "input" => match rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            Some(dims) => {
                let dims: Vec<String> = dims
                    .split(',')
                    .map(|d| match d.trim() {
                        "?" | "-1" => "None".to_owned(),
                        d => format!("Some({d})"),
                    })
                    .collect();
                Some(format!(".input({name:?}, &[{}])", dims.join(", ")))
            }
            None => Some(format!(".input_value({name:?}, {rest})")),
        },
        "state" => Some(format!(".state({name:?}, {rest:?})")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_door_says_each_option_its_way() {
        let pin = "dimension 1 is dynamic; pin it with --input feats=[?,N,40] (N its size)";
        assert_eq!(Door::Cli.say(pin), pin);
        assert_eq!(
            Door::Macro.say(pin),
            "dimension 1 is dynamic; pin it with `input = \"feats=[?,N,40]\"` (N its size)"
        );
        assert_eq!(
            Door::Builder.say(pin),
            "dimension 1 is dynamic; pin it with `.input(\"feats\", &[None, Some(N), Some(40)])` (N its size)"
        );
        // A bare flag, a choice, a flag that begins another, a quoted name, a pair at the
        // start, a number, and what is no option.
        assert_eq!(Door::Macro.say("pin the batch with --input"), "pin the batch with `input`");
        assert_eq!(
            Door::Macro.say("use --weight-type f32 (or auto) with --lang c, or --lang rust"),
            "use `weight_type = \"f32\"` (or auto) with `lang = \"c\"`, or `lang = \"rust\"`"
        );
        assert_eq!(Door::Macro.say("--inputs \"x\": no such tensor"), "`inputs = \"x\"`: no such tensor");
        assert_eq!(
            Door::Builder.say("--state h0=hn: no such Parameter"),
            "`.state(\"h0\", \"hn\")`: no such Parameter"
        );
        assert_eq!(Door::Builder.say("fix it with --input sr=VALUE"), "fix it with `.input_value(\"sr\", VALUE)`");
        assert_eq!(Door::Builder.say("--weight-type f32"), "`.option(\"weight_type\", \"f32\")`");
        assert_eq!(
            Door::Builder.say("the pin of \"x\" (--input): no such Parameter"),
            "the pin of \"x\" (`.input(…)`): no such Parameter"
        );
        assert_eq!(Door::Macro.say("fix its value with --input sr=VALUE"), "fix its value with `input = \"sr=VALUE\"`");
        assert_eq!(Door::Macro.say("leave --threads at 1"), "leave `threads` at 1");
        assert_eq!(Door::Macro.say("--threads 2 splits"), "`threads = 2` splits");
        assert_eq!(Door::Macro.say("use --fast-activations."), "use `fast_activations = true`.");
        assert_eq!(Door::Macro.say("a -- b --nope --input-ish"), "a -- b --nope --input-ish");
        // The pin ends before a bracket that closes the sentence's own.
        assert_eq!(Door::Macro.say("(pin it with --input x=[1,N])"), "(pin it with `input = \"x=[1,N]\"`)");
    }
}
