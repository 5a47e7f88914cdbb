//! The one table of options ([`KEYS`]): each key as every door spells it, with its parser,
//! and the options said back as command-line arguments.
use super::choices::{
    InputShape, Language, Simd, StateArg, Strategy, Threads, WeightTables, WeightType, WeightsMode, parse_rename,
    parse_state_arg,
};
use super::error::{BadValue, OptionError};
use super::fields::Options;
use crate::diag::{Message, Setting};
use std::path::PathBuf;

/// One option of a compilation, as every door spells it: the command line as `--KEY` (with
/// `-` for `_`), the macros as `KEY = "VALUE"`, the builder as [`Builder::option`] (and a
/// typed method of the same name). The table [`KEYS`] is the one list of them.
///
/// [`Builder::option`]: crate::Builder::option
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The key (`weight_type`).
    pub name: &'static str,
    /// What its value looks like (`auto|f32|f16|bf16`); empty for a switch.
    pub value: &'static str,
    /// Whether it may be given several times, each adding to the ones before.
    pub repeats: bool,
    /// Sets it in the options from its text.
    set: fn(&mut Options, &str) -> Result<(), BadValue>,
}

impl Key {
    /// The command line's flag (`--weight-type`).
    pub fn flag(&self) -> String {
        format!("--{}", self.name.replace('_', "-"))
    }

    /// Whether the key is a switch (`--fast-activations`): its value is `true` or `false`.
    pub fn is_switch(&self) -> bool {
        self.value.is_empty()
    }
}

/// A value among named choices; the error lists them (a switch's are `true` and `false`).
fn pick<T>(v: &str, parse: fn(&str) -> Option<T>) -> Result<T, BadValue> {
    parse(v.trim()).ok_or_else(|| BadValue::new(v, "a value it takes"))
}

/// Names separated by commas (`--inputs a,b`).
fn names(v: &str) -> Result<Vec<String>, BadValue> {
    let names: Vec<String> = v.split(',').map(|n| n.trim().to_owned()).collect();
    if names.iter().any(String::is_empty) {
        return Err(BadValue::new(v, "a list of names separated by commas"));
    }
    Ok(names)
}

/// Every option of a compilation, in the order `--help` lists them.
pub const KEYS: &[Key] = &[
    Key {
        name: "name",
        value: "NAME",
        repeats: false,
        set: |o, v| {
            o.name = Some(v.to_owned());
            Ok(())
        },
    },
    Key {
        name: "lang",
        value: "rust|c",
        repeats: false,
        set: |o, v| {
            o.language = pick(v, Language::parse)?;
            Ok(())
        },
    },
    Key {
        name: "weights",
        value: "PATH",
        repeats: false,
        set: |o, v| {
            o.weights = Some(PathBuf::from(v));
            Ok(())
        },
    },
    Key {
        name: "strategy",
        value: "auto|unrolled|tiled",
        repeats: false,
        set: |o, v| {
            o.strategy = pick(v, Strategy::parse)?;
            Ok(())
        },
    },
    Key {
        name: "weights_mode",
        value: "embedded|runtime",
        repeats: false,
        set: |o, v| {
            o.weights_mode = pick(v, WeightsMode::parse)?;
            Ok(())
        },
    },
    Key {
        name: "simd",
        value: "dispatch|build",
        repeats: false,
        set: |o, v| {
            o.simd = pick(v, Simd::parse)?;
            Ok(())
        },
    },
    Key {
        name: "weight_type",
        value: "auto|f32|f16|bf16|i8",
        repeats: false,
        set: |o, v| {
            o.weight_type = pick(v, WeightType::parse)?;
            Ok(())
        },
    },
    Key {
        name: "weight_tables",
        value: "auto|source|binary",
        repeats: false,
        set: |o, v| {
            o.weight_tables = pick(v, WeightTables::parse)?;
            Ok(())
        },
    },
    Key {
        name: "fast_activations",
        value: "",
        repeats: false,
        set: |o, v| {
            o.fast_activations = pick(v, |b| b.parse().ok())?;
            Ok(())
        },
    },
    Key {
        name: "threads",
        value: "N",
        repeats: false,
        set: |o, v| {
            o.threads = Threads::parse(v)?;
            Ok(())
        },
    },
    Key {
        name: "input",
        value: "NAME=[DIMS]|NAME=VALUE",
        repeats: true,
        set: |o, v| {
            o.input_shapes.push(InputShape::parse(v)?);
            Ok(())
        },
    },
    Key {
        name: "inputs",
        value: "NAMES",
        repeats: true,
        set: |o, v| {
            o.cut_inputs.extend(names(v)?);
            Ok(())
        },
    },
    Key {
        name: "outputs",
        value: "NAMES",
        repeats: true,
        set: |o, v| {
            o.cut_outputs.extend(names(v)?);
            Ok(())
        },
    },
    Key {
        name: "cell_name",
        value: "FROM=TO",
        repeats: true,
        set: |o, v| {
            o.cell_names.push(parse_rename(v)?);
            Ok(())
        },
    },
    Key {
        name: "state",
        value: "IN=OUT|auto",
        repeats: true,
        set: |o, v| {
            match parse_state_arg(v)? {
                StateArg::Pair(i, out) => o.states.push((i, out)),
                StateArg::Auto => o.state_auto = true,
            }
            Ok(())
        },
    },
];

impl Options {
    /// Sets option `key` (one of [`KEYS`]) from its text, as the command line reads it
    /// (`weight_type`, `"f16"`); a repeating key adds to what it holds.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), OptionError> {
        let k = KEYS.iter().find(|k| k.name == key).ok_or_else(|| OptionError::UnknownKey {
            key: key.to_owned(),
            known: KEYS.iter().map(|k| k.name).collect(),
        })?;
        (k.set)(self, value).map_err(|error| OptionError::Value {
            key: k.name,
            error,
            takes: if k.is_switch() { "true or false" } else { k.value },
        })
    }

    /// The command-line arguments that say these options (after the model's path), each
    /// option that differs from its default as its flag and value: `options_from_args` of
    /// them gives these options back.
    pub fn to_args(&self) -> Vec<String> {
        let Options {
            name,
            language,
            strategy,
            weights,
            weights_mode,
            simd,
            weight_type,
            fast_activations,
            weight_tables,
            threads,
            input_shapes,
            cut_inputs,
            cut_outputs,
            cell_names,
            states,
            state_auto,
        } = self;
        let d = Options::default();
        let mut out: Vec<(&str, String)> = Vec::new();
        out.extend(name.iter().map(|n| ("name", n.clone())));
        out.extend((*language != d.language).then(|| ("lang", language.name().to_owned())));
        out.extend(weights.iter().map(|w| ("weights", w.display().to_string())));
        out.extend((*strategy != d.strategy).then(|| ("strategy", strategy.name().to_owned())));
        out.extend((*weights_mode != d.weights_mode).then(|| ("weights_mode", weights_mode.name().to_owned())));
        out.extend((*simd != d.simd).then(|| ("simd", simd.name().to_owned())));
        out.extend((*weight_type != d.weight_type).then(|| ("weight_type", weight_type.name().to_owned())));
        out.extend((*weight_tables != d.weight_tables).then(|| ("weight_tables", weight_tables.name().to_owned())));
        out.extend(fast_activations.then(|| ("fast_activations", String::new())));
        out.extend((*threads != d.threads).then(|| ("threads", threads.get().to_string())));
        out.extend(input_shapes.iter().map(|s| ("input", s.to_string())));
        out.extend((!cut_inputs.is_empty()).then(|| ("inputs", cut_inputs.join(","))));
        out.extend((!cut_outputs.is_empty()).then(|| ("outputs", cut_outputs.join(","))));
        out.extend(cell_names.iter().map(|(f, t)| ("cell_name", format!("{f}={t}"))));
        out.extend(states.iter().map(|(i, o)| ("state", format!("{i}={o}"))));
        out.extend(state_auto.then(|| ("state", "auto".to_owned())));
        let mut args = Vec::new();
        for (key, value) in out {
            args.push(format!("--{}", key.replace('_', "-")));
            if !value.is_empty() {
                args.push(value);
            }
        }
        args
    }

    /// What the options name twice: a Parameter given two shapes, a Parameter or a Result in
    /// two states, a cut tensor listed twice. Each message names the option and both values.
    pub fn repeated(&self) -> Vec<Message> {
        let mut out = Vec::new();
        for (k, s) in self.input_shapes.iter().enumerate() {
            if let Some(first) = self.input_shapes[..k].iter().find(|f| f.name == s.name) {
                out.push(
                    Message::new(format!(
                        "Parameter {:?} is given twice ({first} and {s}); give each Parameter's shape or value once",
                        s.name
                    ))
                    .about(Setting::new("input", s.to_string())),
                );
            }
        }
        for (k, (i, o)) in self.states.iter().enumerate() {
            let earlier = &self.states[..k];
            let words = if let Some((fi, fo)) = earlier.iter().find(|(fi, _)| fi == i) {
                format!("Parameter {i:?} is given twice ({fi}={fo} and {i}={o}); a Parameter carries one state")
            } else if let Some((fi, fo)) = earlier.iter().find(|(_, fo)| fo == o) {
                format!("Result {o:?} is given twice ({fi}={fo} and {i}={o}); a Result stores one state")
            } else {
                continue;
            };
            out.push(Message::new(words).about(Setting::new("state", format!("{i}={o}"))));
        }
        for (key, names) in [("inputs", &self.cut_inputs), ("outputs", &self.cut_outputs)] {
            for (k, n) in names.iter().enumerate() {
                if names[..k].contains(n) {
                    out.push(
                        Message::new(format!("{n:?} is named twice; name each tensor once")).about(Setting::key(key)),
                    );
                }
            }
        }
        out
    }
}
