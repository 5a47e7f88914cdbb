//! The conformance runner's command line, and how it draws a share of the cases and keeps
//! a case's panic as that case's problem.
use cellc::{Language, Simd, Strategy, WeightType, WeightsMode};
use std::path::PathBuf;

const USAGE: &str = "usage: cellc-conformance [--lang rust|c]... [--strategy auto|unrolled|tiled]... \
                     [--weights-mode embedded|runtime] [--simd dispatch|build] [--simd-level portable|avx2|avx512]... \
                     [--weight-type auto|f32|f16|bf16|i8] [--fast-activations] [--sample PERCENT [--seed N]] DIR...";

/// What the runner is asked to do.
#[derive(Debug)]
pub struct Args {
    /// The languages to build each case in (`--lang`; Rust when none is given).
    pub languages: Vec<Language>,
    /// The kernel strategies (`--strategy`; auto when none is given).
    pub strategies: Vec<Strategy>,
    /// Where the weights live (`--weights-mode`).
    pub weights_mode: WeightsMode,
    /// The vector levels the Rust runs at, forced (`--simd-level`).
    pub levels: Vec<String>,
    /// Kernels for every level, or for the build's target only (`--simd`).
    pub simd: Simd,
    /// How `W` and `R` are stored (`--weight-type`).
    pub weight_type: WeightType,
    /// Whether the models use the fast activations (`--fast-activations`).
    pub fast_activations: bool,
    /// The share of the cases run (percent), and the seed that draws them.
    pub sample: Option<(u64, Option<u64>)>,
    /// The directories of cases.
    pub dirs: Vec<PathBuf>,
}

impl Args {
    /// The arguments, as the command line gives them (without the program's name).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
        let mut mode = WeightsMode::Embedded;
        let mut strategies = Vec::new();
        let mut languages = Vec::new();
        let mut dirs = Vec::new();
        let mut levels = Vec::new();
        let mut simd = Simd::Dispatch;
        let mut weight_type = WeightType::Auto;
        let mut fast_activations = false;
        let (mut percent, mut seed) = (None, None);
        let mut args = args.into_iter();
        while let Some(a) = args.next() {
            match a.as_str() {
                "--strategy" => {
                    let s = args.next().ok_or("--strategy needs a value")?;
                    let k = Strategy::parse(&s)
                        .ok_or(format!("unknown strategy {s:?}; expected auto, unrolled or tiled"))?;
                    strategies.push(k);
                }
                "--lang" => {
                    let l = args.next().ok_or("--lang needs a value")?;
                    languages.push(Language::parse(&l).ok_or(format!("unknown language {l:?}; expected rust or c"))?);
                }
                "--weights-mode" => {
                    mode = args
                        .next()
                        .and_then(|m| WeightsMode::parse(&m))
                        .ok_or("--weights-mode takes embedded or runtime")?;
                }
                "--simd" => {
                    simd = args.next().and_then(|m| Simd::parse(&m)).ok_or("--simd takes dispatch or build")?;
                }
                "--simd-level" => {
                    let l = args.next().ok_or("--simd-level needs a value")?;
                    if cellc_runtime::__private::simd::Level::parse(&l).is_none() {
                        return Err(format!("unknown level {l:?}; expected portable, avx2 or avx512"));
                    }
                    levels.push(l);
                }
                "--weight-type" => {
                    weight_type = args
                        .next()
                        .and_then(|m| WeightType::parse(&m))
                        .ok_or("--weight-type takes auto, f32, f16 or bf16")?;
                }
                "--fast-activations" => fast_activations = true,
                "--sample" => {
                    let p = args.next().and_then(|p| p.parse::<u64>().ok()).filter(|p| (1..=100).contains(p));
                    percent = Some(p.ok_or("--sample takes a percentage, 1 to 100")?);
                }
                "--seed" => {
                    seed = Some(args.next().and_then(|s| s.parse::<u64>().ok()).ok_or("--seed takes a number")?)
                }
                "-h" | "--help" => return Err(USAGE.into()),
                _ => dirs.push(PathBuf::from(a)),
            }
        }
        if dirs.is_empty() {
            return Err(USAGE.into());
        }
        if strategies.is_empty() {
            strategies.push(Strategy::Auto);
        }
        if languages.is_empty() {
            languages.push(Language::Rust);
        }
        let sample = percent.map(|p| (p, seed));
        Ok(Args {
            languages,
            strategies,
            weights_mode: mode,
            levels,
            simd,
            weight_type,
            fast_activations,
            sample,
            dirs,
        })
    }
}

/// A seed no earlier run used: the clock's nanoseconds and the process id.
pub fn fresh_seed() -> u64 {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    t ^ u64::from(std::process::id()).rotate_left(32)
}

/// A number drawn from `seed` and a case's name (FNV-1a through a SplitMix64 finish).
pub fn draw(seed: u64, name: &str) -> u64 {
    let mut h =
        name.bytes().fold(0xcbf2_9ce4_8422_2325_u64 ^ seed, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// What cellc (or its reference) did when it panicked on a case, as a problem of that case.
pub fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p.downcast_ref::<&str>().map(|s| (*s).to_owned()).or_else(|| p.downcast_ref::<String>().cloned());
        format!("{what} panicked: {}", msg.unwrap_or_default())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_case_s_problem() {
        assert_eq!(guarded("cellc", || 7), Ok(7));
        let err = guarded("cellc", || -> u8 { panic!("boom {}", 1) }).expect_err("panicked");
        assert_eq!(err, "cellc panicked: boom 1");
    }

    #[test]
    fn draws_depend_on_the_seed_and_the_name() {
        assert_eq!(draw(7, "gru_clip"), draw(7, "gru_clip"));
        assert_ne!(draw(7, "gru_clip"), draw(8, "gru_clip"));
        let kept = (0..1000).filter(|k| draw(42, &format!("case{k}")) % 100 < 30).count();
        assert!((240..360).contains(&kept), "{kept} of 1000 at 30%");
    }

    #[test]
    fn arguments_parse_and_mistakes_are_named() {
        let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        let a = Args::parse(words("--lang c --strategy tiled --sample 30 --seed 9 tests/fixtures")).expect("parses");
        assert_eq!((a.languages, a.strategies), (vec![Language::C], vec![Strategy::Tiled]));
        assert_eq!(a.sample, Some((30, Some(9))));
        assert_eq!(a.dirs, vec![PathBuf::from("tests/fixtures")]);
        let a = Args::parse(words("dir")).expect("parses");
        assert_eq!((a.languages, a.strategies), (vec![Language::Rust], vec![Strategy::Auto]));
        assert!(Args::parse(words("--strategy fast dir")).expect_err("refused").contains("\"fast\""));
        assert!(Args::parse(words("--sample 0 dir")).expect_err("refused").contains("1 to 100"));
        assert!(Args::parse(words("--lang c")).expect_err("refused").starts_with("usage:"));
    }
}
