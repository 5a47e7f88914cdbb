//! The options of one compilation: one set for the command line, the build-script builder
//! and the macros, so the three cannot drift apart.
use std::path::PathBuf;

/// How the matrix products of a cell are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// The kernel measured fastest for the cell. Today that is the tiled kernel at every
    /// size: `cargo bench -p cellc-bench` measures it 3–40% faster than the unrolled one for
    /// GRUs from H=4, I=2 (72 multiply–adds per step) to H=128, I=16 (55 296), because
    /// both compute the same lanes and the tile loop compiles to tighter code.
    #[default]
    Auto,
    /// Straight-line code: the whole state is one tile and each input element's column is
    /// one statement, with no loop over the inputs. The easiest kernel to read, meant for
    /// tiny cells: its machine code grows with `H·(H+I)` (measured: a GRU with H=16, I=1
    /// builds in 7 s to 108 KiB; with H=128, I=16 in minutes, to 3 MiB).
    Unrolled,
    /// Loops over weights pre-packed into panels, one tile of 16 outputs at a time.
    Tiled,
}

impl Strategy {
    /// Every strategy, in the order the command line lists them.
    pub const ALL: [Strategy; 3] = [Strategy::Auto, Strategy::Unrolled, Strategy::Tiled];

    /// The strategy of a name ([`Strategy::name`]).
    pub fn parse(s: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|k| k.name() == s)
    }

    /// The strategy a cell is compiled with.
    pub fn resolve(self) -> Strategy {
        match self {
            Strategy::Auto => Strategy::Tiled,
            s => s,
        }
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Auto => "auto",
            Strategy::Unrolled => "unrolled",
            Strategy::Tiled => "tiled",
        }
    }
}

/// Where a model's constant weights live in the generated code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightsMode {
    /// In tables of the generated code, packed at compile time.
    #[default]
    Embedded,
    /// Given at run time: every constant `W`, `R` and `B` becomes a Parameter of the model
    /// (after its own, in OpenVINO's layout), and each cell type takes its weights in `new`
    /// and `set_weights`. One compiled kernel then serves several weight sets, and the
    /// generated file stays small.
    Runtime,
}

impl WeightsMode {
    /// The mode of a name ([`WeightsMode::name`]).
    pub fn parse(s: &str) -> Option<WeightsMode> {
        [WeightsMode::Embedded, WeightsMode::Runtime].into_iter().find(|m| m.name() == s)
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            WeightsMode::Embedded => "embedded",
            WeightsMode::Runtime => "runtime",
        }
    }
}

/// The language of the generated code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Language {
    /// One Rust file, `no_std`, using the crate `cellc-runtime`.
    #[default]
    Rust,
    /// C99: a `.c` file and a `.h` header beside it, needing only `<math.h>` and `<stddef.h>`.
    C,
}

impl Language {
    /// The language of a name ([`Language::name`]).
    pub fn parse(s: &str) -> Option<Language> {
        [Language::Rust, Language::C].into_iter().find(|l| l.name() == s)
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::C => "c",
        }
    }
}

/// Which vector instructions generated Rust kernels are compiled for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Simd {
    /// On x86-64, each entry point (`step`, `feed`, a sequence's `run`) has copies for
    /// AVX-512, for AVX2 with FMA and for the build's own target, and runs the best one the
    /// CPU has, asked once at run time (with `cellc-runtime`'s default `std` feature; without
    /// it, the build's target features choose). The AVX2 and AVX-512 copies multiply–add
    /// with FMA and give bit-identical results; the build's own copy does too if its
    /// target has FMA, else it rounds each product and each sum (about 1 ULP apart).
    #[default]
    Dispatch,
    /// One copy, for the build's target features (`-C target-cpu=…`, `-C target-feature=…`):
    /// smaller code, and no `unsafe` call into a copy (built for the x86-64 baseline, a GRU
    /// step with H=128, I=16 takes about 1.8× as long as with AVX-512).
    Build,
}

impl Simd {
    /// Both choices, in the order the command line lists them.
    pub const ALL: [Simd; 2] = [Simd::Dispatch, Simd::Build];

    /// The choice of a name ([`Simd::name`]).
    pub fn parse(s: &str) -> Option<Simd> {
        Simd::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Simd::Dispatch => "dispatch",
            Simd::Build => "build",
        }
    }
}

/// How the matrices `W` and `R` are stored in generated code (biases stay f32). The
/// kernels turn 16-bit weights into f32 in registers and compute in f32, so a 16-bit form
/// changes the bytes a step reads (half), not the arithmetic on the values it holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightType {
    /// The narrowest form that holds every value of the cell's embedded `W` and `R`
    /// exactly: bfloat16, else IEEE f16 (a model saved with compressed weights, as OpenVINO's
    /// `save_model` writes by default), else f32. Weights given at run time: f32.
    #[default]
    Auto,
    /// IEEE binary32.
    F32,
    /// IEEE binary16, rounded to nearest (ties to even); magnitudes above 65504 are refused.
    F16,
    /// bfloat16, rounded to nearest (ties to even): f32's range with 8 bits of precision.
    Bf16,
}

impl WeightType {
    /// Every choice, in the order the command line lists them.
    pub const ALL: [WeightType; 4] = [WeightType::Auto, WeightType::F32, WeightType::F16, WeightType::Bf16];

    /// The choice of a name ([`WeightType::name`]).
    pub fn parse(s: &str) -> Option<WeightType> {
        WeightType::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            WeightType::Auto => "auto",
            WeightType::F32 => "f32",
            WeightType::F16 => "f16",
            WeightType::Bf16 => "bf16",
        }
    }
}

/// How generated Rust holds its embedded weight tables (`--weight-tables`). The C always
/// writes them as literals. Measured with `python3 bench/tables.py` (a GRU cell with
/// 6.3 M f32 weights): as literals rustc takes 38.6 s and 3.5 GB to build the file, as
/// bytes 1.9 s and 0.5 GB; either way the tables hold the same bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightTables {
    /// As bytes ([`WeightTables::Binary`]) when the tables hold at least
    /// [`WeightTables::BINARY_FROM`] bytes and the code goes to a file, else as literals.
    #[default]
    Auto,
    /// As literals in the source: one file, readable (rustc takes about 6 µs and 0.5 KB
    /// of memory per weight).
    Source,
    /// As bytes in a file written beside the source (its name with the extension
    /// `.weights.bin`, to be kept with it), which the source reads with `include_bytes!`.
    /// Needs an output file; little-endian targets only (a big-endian one is a compile
    /// error naming `source`).
    Binary,
}

impl WeightTables {
    /// Every choice, in the order the command line lists them.
    pub const ALL: [WeightTables; 3] = [WeightTables::Auto, WeightTables::Source, WeightTables::Binary];

    /// From how many bytes of tables `Auto` writes them as bytes (64 Ki f32 weights, about
    /// 0.4 s of rustc's time as literals, and more than anyone reads).
    pub const BINARY_FROM: usize = 256 << 10;

    /// The choice of a name ([`WeightTables::name`]).
    pub fn parse(s: &str) -> Option<WeightTables> {
        WeightTables::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            WeightTables::Auto => "auto",
            WeightTables::Source => "source",
            WeightTables::Binary => "binary",
        }
    }
}

/// How many threads a step of a large cell is split across (`--threads`): the caller's and
/// helpers of `cellc_runtime::team`, each computing its share of the state's tiles from
/// its share of the weights. One (the default) runs every step on the caller's thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threads(usize);

impl Default for Threads {
    fn default() -> Self {
        Threads(1)
    }
}

impl Threads {
    /// `n` threads, if `1 <= n <= MAX_THREADS`.
    pub fn new(n: usize) -> Option<Threads> {
        (1..=crate::limits::MAX_THREADS).contains(&n).then_some(Threads(n))
    }

    /// The count.
    pub fn get(self) -> usize {
        self.0
    }

    /// Parses a count (`--threads 2`).
    pub fn parse(s: &str) -> Result<Threads, String> {
        s.trim()
            .parse()
            .ok()
            .and_then(Threads::new)
            .ok_or_else(|| format!("{s:?} is not a thread count: expected 1 to {}", crate::limits::MAX_THREADS))
    }
}

/// A Parameter's shape fixed at compile time (`--input NAME=[1,?,16]`): `None` leaves a
/// dimension as the model has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputShape {
    /// The Parameter's tensor or layer name.
    pub name: String,
    /// Each dimension: a size, or `None` (`?` or `-1`) to keep it.
    pub dims: Vec<Option<u64>>,
}

impl InputShape {
    /// Parses `NAME=[d0,d1,…]`, each `d` a size, `?` or `-1`.
    pub fn parse(s: &str) -> Result<InputShape, String> {
        let bad = || format!("{s:?} is not NAME=[d0,d1,...] (each d a size, `?` or -1)");
        let (name, dims) = s.rsplit_once('=').ok_or_else(bad)?;
        let dims = dims.trim().strip_prefix('[').and_then(|d| d.strip_suffix(']')).ok_or_else(bad)?;
        let dims = if dims.trim().is_empty() {
            Vec::new()
        } else {
            dims.split(',')
                .map(|d| match d.trim() {
                    "?" | "-1" => Ok(None),
                    n => n.parse::<u64>().map(Some).map_err(|_| bad()),
                })
                .collect::<Result<_, _>>()?
        };
        if name.trim().is_empty() {
            return Err(bad());
        }
        Ok(InputShape { name: name.trim().to_owned(), dims })
    }
}

/// Parses `FROM=TO` (a `--cell-name` rename): TO must be a Rust type name and a C identifier.
pub fn parse_rename(s: &str) -> Result<(String, String), String> {
    let bad = || format!("{s:?} is not FROM=TO (a cell's or dense layer's name, `=`, an identifier)");
    let (from, to) = s.rsplit_once('=').ok_or_else(bad)?;
    let (from, to) = (from.trim(), to.trim());
    let ident =
        to.starts_with(|c: char| c.is_ascii_alphabetic()) && to.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if from.is_empty() || !ident {
        return Err(bad());
    }
    Ok((from.to_owned(), to.to_owned()))
}

/// Parses `IN=OUT` (a `--state` pair).
pub fn parse_state(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => Ok((a.trim().to_owned(), b.trim().to_owned())),
        _ => Err(format!("{s:?} is not IN=OUT (a Parameter's name, `=`, a Result's name)")),
    }
}

/// Options of one compilation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Name of the generated model type (in C, the prefix of every identifier); by default
    /// derived from the model's name.
    pub name: Option<String>,
    /// The language of the generated code.
    pub language: Language,
    /// Kernel strategy.
    pub strategy: Strategy,
    /// The weights file, when it is not the model's path with the extension `.bin`.
    pub weights: Option<PathBuf>,
    /// Whether constant weights are embedded or given at run time.
    pub weights_mode: WeightsMode,
    /// Which vector instructions Rust kernels are compiled for (the C is compiled for the C
    /// compiler's target flags).
    pub simd: Simd,
    /// How the matrices `W` and `R` are stored.
    pub weight_type: WeightType,
    /// Whether sigmoid, tanh, scaledtanh, elu and softplus use the cheaper approximations of
    /// `cellc_runtime::act::fast` (error at most 4.6e-7, measured over every f32
    /// input) instead of the default ones (within 1 to 3 ULP of the correctly rounded result).
    pub fast_activations: bool,
    /// How generated Rust holds its embedded weight tables: literals, or bytes in a file
    /// beside it.
    pub weight_tables: WeightTables,
    /// How many threads a step of a large cell is split across (Rust only).
    pub threads: Threads,
    /// Parameter shapes fixed at compile time.
    pub input_shapes: Vec<InputShape>,
    /// Tensors (or layers) that become the model's Parameters: only what lies after them is
    /// compiled (`--inputs`).
    pub cut_inputs: Vec<String>,
    /// Tensors (or layers) that become the model's Results, in this order: only what they
    /// need is compiled (`--outputs`). The Results of `states` stay too, after them.
    pub cut_outputs: Vec<String>,
    /// Names for generated cell and dense-layer types (`--cell-name FROM=TO`): FROM is the
    /// name `inspect` shows (`gru0`) or the layer's name in the model.
    pub cell_names: Vec<(String, String)>,
    /// Parameter and Result pairs that carry a state between runs (`--state IN=OUT`): each
    /// becomes a variable of the generated model, zero after `reset()`.
    pub states: Vec<(String, String)>,
}

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
    set: fn(&mut Options, &str) -> Result<(), String>,
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
fn pick<T>(v: &str, parse: fn(&str) -> Option<T>) -> Result<T, String> {
    parse(v.trim()).ok_or_else(|| format!("{v:?} is not a value it takes"))
}

/// Names separated by commas (`--inputs a,b`).
fn names(v: &str) -> Result<Vec<String>, String> {
    let names: Vec<String> = v.split(',').map(|n| n.trim().to_owned()).collect();
    if names.iter().any(String::is_empty) {
        return Err(format!("{v:?} is not a list of names separated by commas"));
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
        value: "auto|f32|f16|bf16",
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
        value: "NAME=[DIMS]",
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
        value: "IN=OUT",
        repeats: true,
        set: |o, v| {
            o.states.push(parse_state(v)?);
            Ok(())
        },
    },
];

impl Options {
    /// Sets option `key` (one of [`KEYS`]) from its text, as the command line reads it
    /// (`weight_type`, `"f16"`); a repeating key adds to what it holds.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let k = KEYS.iter().find(|k| k.name == key).ok_or_else(|| {
            let all: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
            format!("no option is called `{key}`; expected one of {}", all.join(", "))
        })?;
        (k.set)(self, value).map_err(|e| {
            let takes = if k.is_switch() { "true or false" } else { k.value };
            format!("`{key}`: {e}; it takes {takes}")
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
        for s in input_shapes {
            let dims: Vec<String> =
                s.dims.iter().map(|d| d.map_or_else(|| "?".to_owned(), |n| n.to_string())).collect();
            out.push(("input", format!("{}=[{}]", s.name, dims.join(","))));
        }
        out.extend((!cut_inputs.is_empty()).then(|| ("inputs", cut_inputs.join(","))));
        out.extend((!cut_outputs.is_empty()).then(|| ("outputs", cut_outputs.join(","))));
        out.extend(cell_names.iter().map(|(f, t)| ("cell_name", format!("{f}={t}"))));
        out.extend(states.iter().map(|(i, o)| ("state", format!("{i}={o}"))));
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
    /// two states, a cut tensor listed twice. Each message names the flag and both values.
    pub fn repeated(&self) -> Vec<String> {
        let mut out = Vec::new();
        let shape = |s: &InputShape| {
            let d: Vec<String> = s.dims.iter().map(|d| d.map_or_else(|| "?".to_owned(), |n| n.to_string())).collect();
            format!("{}=[{}]", s.name, d.join(","))
        };
        for (k, s) in self.input_shapes.iter().enumerate() {
            if let Some(first) = self.input_shapes[..k].iter().find(|f| f.name == s.name) {
                out.push(format!(
                    "--input {:?} is given twice ({} and {}); give each Parameter's shape once",
                    s.name,
                    shape(first),
                    shape(s)
                ));
            }
        }
        for (k, (i, o)) in self.states.iter().enumerate() {
            let earlier = &self.states[..k];
            if let Some((fi, fo)) = earlier.iter().find(|(fi, _)| fi == i) {
                out.push(format!(
                    "--state: Parameter {i:?} is given twice ({fi}={fo} and {i}={o}); a Parameter carries one state"
                ));
            } else if let Some((fi, fo)) = earlier.iter().find(|(_, fo)| fo == o) {
                out.push(format!(
                    "--state: Result {o:?} is given twice ({fi}={fo} and {i}={o}); a Result stores one state"
                ));
            }
        }
        for (flag, names) in [("--inputs", &self.cut_inputs), ("--outputs", &self.cut_outputs)] {
            for (k, n) in names.iter().enumerate() {
                if names[..k].contains(n) {
                    out.push(format!("{flag} names {n:?} twice; name each tensor once"));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_flags_are_named_with_both_values() {
        let opts = Options {
            input_shapes: vec![InputShape::parse("x=[1,2]").expect("x"), InputShape::parse("x=[1,?]").expect("x")],
            states: vec![("h".into(), "a".into()), ("h".into(), "b".into()), ("g".into(), "a".into())],
            cut_outputs: vec!["y".into(), "y".into()],
            ..Options::default()
        };
        let r = opts.repeated();
        assert_eq!(r.len(), 4, "{r:?}");
        assert!(r[0].contains("--input \"x\" is given twice (x=[1,2] and x=[1,?])"), "{}", r[0]);
        assert!(r[1].contains("Parameter \"h\" is given twice (h=a and h=b)"), "{}", r[1]);
        assert!(r[2].contains("Result \"a\" is given twice (h=a and g=a)"), "{}", r[2]);
        assert!(r[3].contains("--outputs names \"y\" twice"), "{}", r[3]);
        assert!(Options::default().repeated().is_empty());
    }

    #[test]
    fn names_parse_back() {
        for s in Strategy::ALL {
            assert_eq!(Strategy::parse(s.name()), Some(s));
        }
        for m in [WeightsMode::Embedded, WeightsMode::Runtime] {
            assert_eq!(WeightsMode::parse(m.name()), Some(m));
        }
        for s in Simd::ALL {
            assert_eq!(Simd::parse(s.name()), Some(s));
        }
        for t in WeightType::ALL {
            assert_eq!(WeightType::parse(t.name()), Some(t));
        }
        for l in [Language::Rust, Language::C] {
            assert_eq!(Language::parse(l.name()), Some(l));
        }
        assert_eq!(Strategy::parse("fast"), None);
        assert_eq!(Threads::parse(" 2"), Ok(Threads(2)));
        for bad in ["0", "17", "-1", "two"] {
            assert!(Threads::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn input_shapes_parse() {
        let s = InputShape::parse("x:0=[1, ?,16,-1]").expect("parses");
        assert_eq!(s, InputShape { name: "x:0".into(), dims: vec![Some(1), None, Some(16), None] });
        assert_eq!(InputShape::parse("s=[]").expect("scalar").dims, Vec::new());
        for bad in ["x", "x=1,2", "=[1]", "x=[1,a]", "x=[-2]"] {
            assert!(InputShape::parse(bad).is_err(), "{bad}");
        }
    }
}
