//! The values options take: the language, kernel strategy, weights mode, vector
//! instructions, weight storage and tables, thread count, pinned shapes, and the parsers of
//! the pairs `--cell-name` and `--state` take.
use super::error::BadValue;

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

/// How the weight matrices (a cell's `W` and `R`, a dense layer's or convolution's
/// weights) are stored in generated code (biases stay f32). The kernels turn 16-bit and int8
/// weights into f32 in registers and compute in f32, so a narrower form changes the bytes a
/// step reads (half, or a quarter), not the arithmetic on the values it holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightType {
    /// In the Rust, the narrowest form that holds every value of the cell's embedded `W`
    /// and `R` exactly: bfloat16, else IEEE f16 (a model saved with compressed weights, as
    /// OpenVINO's `save_model` writes by default), else f32. Weights given at run time: f32.
    /// In the C, f32 (see [`WeightType::in_language`]).
    #[default]
    Auto,
    /// IEEE binary32.
    F32,
    /// IEEE binary16, rounded to nearest (ties to even); magnitudes above 65504 are refused.
    F16,
    /// bfloat16, rounded to nearest (ties to even): f32's range with 8 bits of precision.
    Bf16,
    /// int8 with one f32 scale per input of each matrix (a column: a feature of `W`, a state
    /// unit of `R`, an input of a dense layer), `max |column| / 127`: each weight becomes the
    /// nearest multiple of its column's scale (ties to even), an error of at most half the
    /// scale, `max |column| / 254`. A quarter of the f32 bytes (plus 4 bytes of scale per
    /// packed row), for models whose weights are read from outside the cache every step;
    /// lossy, so never chosen by `auto`. The kernels multiply each input by its column's
    /// scale and the integers by that. Weights given at run time are quantised when set,
    /// in Rust (the C refuses them); a value that is not finite is refused.
    I8,
}

impl WeightType {
    /// Every choice, in the order the command line lists them.
    pub const ALL: [WeightType; 5] =
        [WeightType::Auto, WeightType::F32, WeightType::F16, WeightType::Bf16, WeightType::I8];

    /// The choice of a name ([`WeightType::name`]).
    pub fn parse(s: &str) -> Option<WeightType> {
        WeightType::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The choice `self` makes in `lang`: `Auto` is f32 in the C, whose kernels read
    /// 16-bit weights lane by lane where they read f32 ones in vectors (the Rust's convert
    /// them in vectors, `vcvtph2ps`, at the f32 speed): the C of four models saved by
    /// OpenVINO with compressed (f16) weights took 4.6–25× the time of the same models in
    /// f32 (`-O2`, AMD Zen 3), the values being the same. The others are what they say.
    pub fn in_language(self, lang: Language) -> WeightType {
        match (self, lang) {
            (WeightType::Auto, Language::C) => WeightType::F32,
            (wt, _) => wt,
        }
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            WeightType::Auto => "auto",
            WeightType::F32 => "f32",
            WeightType::F16 => "f16",
            WeightType::Bf16 => "bf16",
            WeightType::I8 => "i8",
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
/// helpers of `cellc_runtime::__private::team`, each computing its share of the state's tiles from
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
    pub fn parse(s: &str) -> Result<Threads, BadValue> {
        s.trim()
            .parse()
            .ok()
            .and_then(Threads::new)
            .ok_or_else(|| BadValue::new(s, format!("a thread count: expected 1 to {}", crate::limits::MAX_THREADS)))
    }
}

/// A Parameter's shape fixed at compile time (`--input NAME=[1,?,16]`): `None` leaves a
/// dimension as the model has it. Or (`--input NAME=VALUE`) a Parameter of one value fixed
/// to that value: it becomes a constant, no longer an input of the generated code (what a
/// model's `sr` or `mode` input is for, when it chooses a branch).
#[derive(Clone, Debug, PartialEq)]
pub struct InputShape {
    /// The Parameter's tensor or layer name.
    pub name: String,
    /// Each dimension: a size, or `None` (`?` or `-1`) to keep it. Empty for a value.
    pub dims: Vec<Option<u64>>,
    /// The value the Parameter is fixed to, when it is.
    pub value: Option<f64>,
}

impl InputShape {
    /// Parses `NAME=[d0,d1,…]`, each `d` a size, `?` or `-1`; or `NAME=VALUE`, a number.
    pub fn parse(s: &str) -> Result<InputShape, BadValue> {
        let bad = || BadValue::new(s, "NAME=[d0,d1,...] (each d a size, `?` or -1) or NAME=VALUE (a number)");
        let (name, dims) = s.rsplit_once('=').ok_or_else(bad)?;
        if name.trim().is_empty() {
            return Err(bad());
        }
        let name = name.trim().to_owned();
        let Some(dims) = dims.trim().strip_prefix('[').and_then(|d| d.strip_suffix(']')) else {
            let value = dims.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(bad)?;
            return Ok(InputShape { name, dims: Vec::new(), value: Some(value) });
        };
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
        Ok(InputShape { name, dims, value: None })
    }
}

impl std::fmt::Display for InputShape {
    /// As `--input` takes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(v) = self.value {
            return write!(f, "{}={v}", self.name);
        }
        let dims: Vec<String> = self.dims.iter().map(|d| d.map_or_else(|| "?".to_owned(), |n| n.to_string())).collect();
        write!(f, "{}=[{}]", self.name, dims.join(","))
    }
}

/// Parses `FROM=TO` (a `--cell-name` rename): TO must be a Rust type name and a C identifier.
pub fn parse_rename(s: &str) -> Result<(String, String), BadValue> {
    let bad = || BadValue::new(s, "FROM=TO (a cell's or dense layer's name, `=`, an identifier)");
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
/// A `--state` value: a pair, or `auto` (pairs found by their names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateArg {
    /// `IN=OUT`.
    Pair(String, String),
    /// `auto`.
    Auto,
}

/// Parses a `--state` value: `auto`, or `IN=OUT` as [`parse_state`] reads it.
pub fn parse_state_arg(s: &str) -> Result<StateArg, BadValue> {
    if s.trim() == "auto" {
        return Ok(StateArg::Auto);
    }
    parse_state(s).map(|(a, b)| StateArg::Pair(a, b)).map_err(|_| {
        BadValue::new(s, "IN=OUT (a Parameter's name, `=`, a Result's name), or auto (pairs found by their names)")
    })
}

/// Parses `IN=OUT`.
pub fn parse_state(s: &str) -> Result<(String, String), BadValue> {
    match s.split_once('=') {
        Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => Ok((a.trim().to_owned(), b.trim().to_owned())),
        _ => Err(BadValue::new(s, "IN=OUT (a Parameter's name, `=`, a Result's name)")),
    }
}
