//! A conformance case: `model.xml` + `model.bin`, `case.json` naming the input and output
//! files in Parameter and Result order, and raw little-endian `.f32` / `.i32` data files.
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One tensor of `case.json`.
#[derive(Clone, Debug, Deserialize)]
pub struct TensorEntry {
    /// Name (inputs only; informative).
    #[serde(default)]
    pub name: Option<String>,
    /// Shape.
    pub shape: Vec<usize>,
    /// Data file, relative to the case directory.
    pub file: String,
}

#[derive(Debug, Deserialize)]
struct CaseJson {
    inputs: Vec<TensorEntry>,
    outputs: Vec<TensorEntry>,
    #[serde(default)]
    tolerance: Option<f64>,
    /// Outputs (by name) with a tolerance of their own: an output on another scale (a pitch
    /// in Hz), or declared f64 and computed in f32.
    #[serde(default)]
    output_tolerance: std::collections::BTreeMap<String, f64>,
    /// Also allowed: this many ULPs of the expected value (deep graphs with large outputs).
    #[serde(default)]
    ulps: Option<f64>,
    /// Parameter shapes to fix at compile time, as `--input` takes them.
    #[serde(default)]
    pin: Vec<String>,
    /// Where to cut the model, as `--inputs` and `--outputs` take them.
    #[serde(default)]
    cut_inputs: Vec<String>,
    #[serde(default)]
    cut_outputs: Vec<String>,
    /// Runs one after another on one model value (streaming): the inputs hold this many
    /// frames of their shape (a carried one: its first value), the outputs every frame's.
    #[serde(default)]
    frames: Option<usize>,
    /// `[output, input]` pairs: each run's output is the next run's input.
    #[serde(default)]
    carry: Vec<[usize; 2]>,
    /// What computed the expected outputs (`onnxruntime` on `model.onnx`, or OpenVINO).
    #[serde(default)]
    oracle: Option<String>,
    /// The weight type the case is compiled with, as `--weight-type` takes it, whatever the
    /// runner's: a model whose weights are int8 in its file, checked as `i8` against the
    /// oracle's outputs on that file.
    #[serde(default)]
    weight_type: Option<String>,
    /// States the case is compiled with, as `--state` takes them (`auto`, or `IN=OUT`): the
    /// model as a user ships it, its caches carried inside; the inputs and outputs are then
    /// the compiled model's.
    #[serde(default)]
    state: Vec<String>,
}

/// A loaded case.
#[derive(Clone, Debug)]
pub struct Case {
    /// Directory name.
    pub name: String,
    /// The directory.
    pub dir: PathBuf,
    /// Inputs in Parameter order.
    pub inputs: Vec<(TensorEntry, Vec<f32>)>,
    /// Expected outputs in Result order.
    pub outputs: Vec<(TensorEntry, Vec<f32>)>,
    /// Max abs error allowed (default 1e-5).
    pub tolerance: f64,
    /// Each output's own, where `case.json` gives one (`output_tolerance`), else `tolerance`.
    pub tolerances: Vec<f64>,
    /// Or this many ULPs of the expected value, when larger (default 0).
    pub ulps: f64,
    /// The model file.
    pub model: PathBuf,
    /// Parameter shapes fixed at compile time (`--input`).
    pub pins: Vec<cellc::InputShape>,
    /// Where the model is cut (`--inputs`, `--outputs`).
    pub cut: (Vec<String>, Vec<String>),
    /// Runs one after another on one model value (1: a single run).
    pub frames: usize,
    /// `(output, input)`: each run's output is the next run's input.
    pub carry: Vec<(usize, usize)>,
    /// The expected outputs are onnxruntime's on `model.onnx`.
    pub by_onnxruntime: bool,
    /// The weight type the case fixes (see `CaseJson::weight_type`).
    pub weight_type: Option<cellc::WeightType>,
    /// `--state` values the case is compiled with (see `CaseJson::state`).
    pub states: Vec<String>,
}

impl Case {
    /// The inputs of frame `f`: each input's part for it, a carried input's value as given
    /// (the first frame's; later frames take the carried output instead).
    pub fn frame_inputs(&self, f: usize) -> Vec<Vec<f64>> {
        self.inputs
            .iter()
            .enumerate()
            .map(|(k, (_, v))| {
                let per = if self.carried(k) { v.len() } else { v.len() / self.frames };
                let at = if self.carried(k) { 0 } else { f * per };
                v[at..at + per].iter().map(|&x| f64::from(x)).collect()
            })
            .collect()
    }

    /// Whether input `k` is carried from an output.
    pub fn carried(&self, k: usize) -> bool {
        self.carry.iter().any(|&(_, i)| i == k)
    }
}

/// Reads a raw little-endian data file: `.f32` as float32, `.i32` as int32 (converted).
pub fn read_data(path: &Path) -> Result<Vec<f32>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() % 4 != 0 {
        return Err(format!("{}: {} bytes is not a whole number of 4-byte values", path.display(), bytes.len()));
    }
    let words = bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
    match path.extension().and_then(|e| e.to_str()) {
        Some("f32") => Ok(words.map(f32::from_le_bytes).collect()),
        Some("i32") => Ok(words.map(|w| i32::from_le_bytes(w) as f32).collect()),
        _ => Err(format!("{}: expected a .f32 or .i32 file", path.display())),
    }
}

/// Writes float32 values as a raw little-endian file.
pub fn write_f32(path: &Path, values: &[f32]) -> Result<(), String> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

impl Case {
    /// The cases of `dir`: the case itself, or for a whole model converted both ways (an
    /// `f32/` IR beside the default f16-compressed one, and OpenVINO's outputs on the
    /// latter in `f16/`), one case per IR: `NAME/f32` against onnxruntime's outputs and
    /// `NAME/f16` against OpenVINO's on the compressed weights (with the inputs in `f16/` when
    /// it has its own: a model cut after layers whose weights were compressed too). A case
    /// whose expected outputs are onnxruntime's on the `model.onnx` beside it runs from that
    /// file too, as `NAME/onnx`; a case with only a `model.onnx` runs from it alone.
    pub fn variants(dir: &Path) -> Result<Vec<Case>, String> {
        let base = Case::load(dir)?;
        if !dir.join("model.xml").is_file() && dir.join("model.onnx").is_file() {
            // A model only its ONNX file holds (OpenVINO cannot convert it).
            return Ok(vec![Case { name: format!("{}/onnx", base.name), model: dir.join("model.onnx"), ..base }]);
        }
        let onnx = (base.by_onnxruntime && dir.join("model.onnx").is_file()).then(|| Case {
            name: format!("{}/onnx", base.name),
            model: dir.join("model.onnx"),
            ..base.clone()
        });
        if !(dir.join("f32/model.xml").is_file() && dir.join("f16").is_dir()) {
            return Ok(std::iter::once(base).chain(onnx).collect());
        }
        let f32 = Case { name: format!("{}/f32", base.name), model: dir.join("f32/model.xml"), ..base.clone() };
        let mut f16 = Case { name: format!("{}/f16", base.name), ..base };
        for (e, values) in &mut f16.inputs {
            let file = dir.join("f16").join(&e.file);
            if file.is_file() {
                *values = read_data(&file)?;
                e.file = format!("f16/{}", e.file);
            }
        }
        for (e, values) in &mut f16.outputs {
            let file = dir.join("f16").join(&e.file);
            *values = read_data(&file)?;
            if values.len() != e.shape.iter().product::<usize>() * f16.frames {
                return Err(format!("{}: {} values, but shape {:?}", file.display(), values.len(), e.shape));
            }
        }
        Ok([f32, f16].into_iter().chain(onnx).collect())
    }

    /// Loads the case in `dir`.
    pub fn load(dir: &Path) -> Result<Case, String> {
        let json_path = dir.join("case.json");
        let text = std::fs::read_to_string(&json_path).map_err(|e| format!("{}: {e}", json_path.display()))?;
        let cj: CaseJson = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json_path.display()))?;
        let frames = cj.frames.unwrap_or(1).max(1);
        let carried: Vec<usize> = cj.carry.iter().map(|c| c[1]).collect();
        let load = |entries: Vec<TensorEntry>, inputs: bool| -> Result<Vec<(TensorEntry, Vec<f32>)>, String> {
            entries
                .into_iter()
                .enumerate()
                .map(|(k, e)| {
                    let data = read_data(&dir.join(&e.file))?;
                    let once = inputs && carried.contains(&k);
                    let want: usize = e.shape.iter().product::<usize>() * if once { 1 } else { frames };
                    if data.len() != want {
                        return Err(format!("{}: {} values, but shape {:?} needs {want}", e.file, data.len(), e.shape));
                    }
                    Ok((e, data))
                })
                .collect()
        };
        let tolerance = cj.tolerance.unwrap_or(1e-5);
        let tolerances = cj
            .outputs
            .iter()
            .map(|o| o.name.as_ref().and_then(|n| cj.output_tolerance.get(n)).copied().unwrap_or(tolerance))
            .collect();
        Ok(Case {
            tolerances,
            name: dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned()),
            dir: dir.to_path_buf(),
            inputs: load(cj.inputs, true)?,
            outputs: load(cj.outputs, false)?,
            tolerance,
            ulps: cj.ulps.unwrap_or(0.0),
            model: dir.join("model.xml"),
            pins: cj
                .pin
                .iter()
                .map(|p| cellc::InputShape::parse(p).map_err(|e| format!("{}: pin: {e}", json_path.display())))
                .collect::<Result<_, _>>()?,
            cut: (cj.cut_inputs, cj.cut_outputs),
            frames,
            carry: cj.carry.iter().map(|c| (c[0], c[1])).collect(),
            by_onnxruntime: cj.oracle.as_deref().is_some_and(|o| o.starts_with("onnxruntime")),
            weight_type: cj
                .weight_type
                .as_deref()
                .map(|t| {
                    cellc::WeightType::parse(t)
                        .ok_or_else(|| format!("{}: weight_type: no weight type {t:?}", json_path.display()))
                })
                .transpose()?,
            states: cj.state,
        })
    }

    /// Case directories under `path`: itself if it holds `case.json`, else its
    /// subdirectories that do, sorted by name.
    pub fn discover(path: &Path) -> Result<Vec<PathBuf>, String> {
        if path.join("case.json").is_file() {
            return Ok(vec![path.to_path_buf()]);
        }
        let rd = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut dirs: Vec<PathBuf> =
            rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.join("case.json").is_file()).collect();
        dirs.sort();
        Ok(dirs)
    }
}
