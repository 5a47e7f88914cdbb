//! The doors a compilation comes through, and how each says an option. A diagnostic keeps
//! the options it names apart from its words (the option it is about, the one that fixes
//! it: [`crate::diag::Setting`]); [`Door::diagnostics`] writes each the way that door takes
//! it (`--input x=[?,N,40]`, `.input("x", &[None, Some(N), Some(40)])`,
//! `input = "x=[?,N,40]"`), from the one table of options ([`crate::options::KEYS`]).
use crate::diag::{Diagnostics, Setting};
use crate::options::{KEYS, Key};

/// Where a compilation was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Door {
    /// A build script's `cellc::Builder`: `.option("input", "x=[1,?,40]")`.
    Builder,
    /// `include_model!`: keys (`input = "x=[1,?,40]"`).
    Macro,
}

impl Door {
    /// `setting` as this door takes it (`` `input = "x=[1,?]"` ``,
    /// `` `.input("x", &[Some(1), None])` ``), from the one table of options.
    pub(crate) fn setting(self, setting: &Setting) -> String {
        match KEYS.iter().find(|k| k.name == setting.key) {
            Some(key) => self.option(key, setting.value.as_deref()),
            None => setting.to_string(),
        }
    }

    /// `diags` as this door says them: each message's options written its way.
    pub(crate) fn diagnostics(self, mut diags: Diagnostics) -> Diagnostics {
        for d in &mut diags.0 {
            d.message = d.said(&|s| self.setting(s));
            d.subject = None;
            d.fix = None;
        }
        diags
    }

    /// Option `key`, with `value` when there is one, as this door takes it.
    fn option(self, key: &Key, value: Option<&str>) -> String {
        let quoted = |v: &str| if v.starts_with('"') { v.to_owned() } else { format!("\"{v}\"") };
        match (self, value) {
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
                        "…" => "…".to_owned(),
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
    use crate::diag::{Diag, Fix, Message};

    fn said(door: Door, m: Message) -> String {
        door.diagnostics(Diag::new(crate::diag::Code::Layer, "m.xml", None, m).into()).0[0].message.clone()
    }

    #[test]
    fn each_door_says_each_option_its_way() {
        let pin = || {
            Message::new("dimension 1 is dynamic")
                .fix(Fix::new("pin it with", Setting::new("input", "feats=[?,N,40]")).then(" (N its size)"))
        };
        assert_eq!(pin().to_string(), "dimension 1 is dynamic; pin it with --input feats=[?,N,40] (N its size)");
        assert_eq!(
            said(Door::Macro, pin()),
            "dimension 1 is dynamic; pin it with `input = \"feats=[?,N,40]\"` (N its size)"
        );
        assert_eq!(
            said(Door::Builder, pin()),
            "dimension 1 is dynamic; pin it with `.input(\"feats\", &[None, Some(N), Some(40)])` (N its size)"
        );
        // A bare key, choices, a quoted name as the subject, a pair, a number, a switch.
        let m = |fix: Fix| Message::new("m").fix(fix);
        assert_eq!(said(Door::Macro, m(Fix::pin_batch())), "m; pin the batch with `input`");
        let types = || {
            Fix::new("use", Setting::new("weight_type", "f32")).or(Setting::new("lang", "rust")).then(" (at run time)")
        };
        assert_eq!(m(types()).to_string(), "m; use --weight-type f32, or --lang rust (at run time)");
        assert_eq!(said(Door::Macro, m(types())), "m; use `weight_type = \"f32\"`, or `lang = \"rust\"` (at run time)");
        assert_eq!(
            said(Door::Builder, m(types())),
            "m; use `.option(\"weight_type\", \"f32\")`, or `.option(\"lang\", \"rust\")` (at run time)"
        );
        let about = |s: Setting| Message::new("no such tensor").about(s);
        assert_eq!(said(Door::Macro, about(Setting::new("inputs", "\"x\""))), "`inputs = \"x\"`: no such tensor");
        assert_eq!(
            said(Door::Builder, about(Setting::new("state", "h0=hn"))),
            "`.state(\"h0\", \"hn\")`: no such tensor"
        );
        assert_eq!(said(Door::Builder, about(Setting::key("input"))), "`.input(…)`: no such tensor");
        assert_eq!(said(Door::Builder, about(Setting::key("lang"))), "`.language(…)`: no such tensor");
        let value = || m(Fix::new("fix its value with", Setting::new("input", "sr=VALUE")));
        assert_eq!(said(Door::Builder, value()), "m; fix its value with `.input_value(\"sr\", VALUE)`");
        assert_eq!(said(Door::Macro, value()), "m; fix its value with `input = \"sr=VALUE\"`");
        assert_eq!(said(Door::Macro, about(Setting::new("threads", "2"))), "`threads = 2`: no such tensor");
        assert_eq!(
            said(Door::Macro, m(Fix::new("use", Setting::key("fast_activations")))),
            "m; use `fast_activations = true`"
        );
        assert_eq!(
            said(Door::Builder, m(Fix::new("pin it with", Setting::new("input", "x=[…]")))),
            "m; pin it with `.input(\"x\", &[…])`"
        );
    }

    #[test]
    fn every_setting_a_message_names_is_an_option() {
        // A key misspelt in a message would tell the user of an option that does not exist.
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut dirs = vec![src];
        let mut named = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("src reads") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("source reads");
                for call in ["Setting::new(\"", "Setting::key(\""] {
                    for (at, _) in text.match_indices(call) {
                        let key = text[at + call.len()..].split('"').next().unwrap_or_default();
                        assert!(KEYS.iter().any(|k| k.name == key), "{}: no option is called {key:?}", path.display());
                        named += 1;
                    }
                }
            }
        }
        assert!(named > 20, "the messages' settings were found ({named})");
    }
}
