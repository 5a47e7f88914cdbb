//! Mutations of a model that keep most of its structure, so most mutants get past the XML
//! reader and reach the checks and the emitters: an attribute or a dimension replaced by an
//! edge value, a layer or edge duplicated, dropped or spliced in from another model, ports
//! rewired, raw bytes cut or copied, and the weights file cut, grown or overwritten; and
//! mutations that know the graph: a layer's version, an attribute cellc does not know, the
//! values the whole-model ops read (axes, `batch_dims`, masks, variable ids, the shapes of
//! constants).

/// Values at the edges of what cellc accepts, or past them.
const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "4",
    "7",
    "8",
    "16",
    "255",
    "256",
    "16384",
    "16385",
    "65536",
    "65537",
    "4294967295",
    "4294967296",
    "4611686018427387904",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "1e9",
    "1e39",
    "nan",
    "inf",
    "-inf",
    "-0",
    "0.5",
    "?",
    "",
    " ",
    "1,2",
    "2,?,4",
    "f16",
    "bf16",
    "f64",
    "i32",
    "i64",
    "u8",
    "f32",
    "FP32",
    "boolean",
    "forward",
    "reverse",
    "bidirectional",
    "sigmoid",
    "tanh",
    "relu",
    "swish",
    "hardsigmoid,relu",
    "sigmoid,tanh,tanh",
    "true",
    "false",
    "Ok",
    "Err",
    "Some",
    "S",
    "V",
    "B",
    "Self",
    "float",
    "size_t",
    "int8_t",
    "r#type",
    "::cellc_runtime::__private::dispatch!(((((",
    "x&quot;); panic!(&quot;",
    "*/ exit(1); /*",
    "??=",
    "é",
    "GRUCell",
    "LSTMCell",
    "RNNCell",
    "GRUSequence",
    "LSTMSequence",
    "RNNSequence",
    "Convert",
    "Relu",
    "Parameter",
    "Const",
    "Result",
];

/// Values of the attributes the graph's ops read: versions, masks, axes, variable ids.
const GRAPH_VALUES: &[&str] = &[
    "opset1",
    "opset3",
    "opset4",
    "opset5",
    "opset6",
    "opset7",
    "opset8",
    "opset15",
    "opset99",
    "extension",
    "0,1",
    "1,0,1",
    "1,1,1,1",
    "0,0,0,0,0,0,0,0,0",
    "-1",
    "-2",
    "-3",
    "2",
    "3",
    "9",
    "h0h_x",
    "v",
    "numpy",
    "bidirectional",
    "explicit",
    "pdpd",
    "true",
    "0",
    "2,0",
    "1,1,1,1,1,1,1,1,2",
    "65536,65536",
    // The window ops': padding modes (one OpenVINO does not take), windows reaching into
    // or past the padding, reductions, equations (diagonals, spaces), element types that
    // make an index or a size a float.
    "same_upper",
    "same_lower",
    "valid",
    "notset",
    "ceil",
    "ceil_torch",
    "floor",
    "reflect",
    "symmetric",
    "edge",
    "sum",
    "prod",
    "max",
    "inside_sqrt",
    "outside_sqrt",
    "add",
    "-0.001",
    "3,3",
    "2,0",
    "0,2",
    "9223372036854775807",
    "ii->i",
    "bii->b",
    "ij, jk",
    "iij",
    "f64",
    "f32",
    "i32",
];

/// Keys the graph's ops read, and keys nobody reads.
const GRAPH_KEYS: &[&str] = &[
    "batch_dims",
    "axis",
    "begin_mask",
    "end_mask",
    "shrink_axis_mask",
    "new_axis_mask",
    "ellipsis_mask",
    "variable_id",
    "variable_shape",
    "variable_type",
    "special_zero",
    "keep_dims",
    "mode",
    "min",
    "max",
    "clipp",
    "layout",
    "auto_pad",
    "pads_begin",
    "pads_end",
    "kernel",
    "strides",
    "dilations",
    "output_padding",
    "exclude-pad",
    "rounding_type",
    "reduction",
    "eps_mode",
    "epsilon",
    "equation",
    "pad_mode",
    "element_type",
    "zzz",
];

/// A mutation that knows the graph: a layer's version replaced, an attribute added to a
/// `<data>` (known to another op, or to none), or a value the graph's ops read replaced.
fn graph(rng: &mut fastrand::Rng, t: &str) -> String {
    match rng.u8(..3) {
        0 => {
            let versions: Vec<(usize, usize)> = spans(t, "version=\"", "\"")
                .into_iter()
                .filter(|&(a, _)| t[..a].rfind('<').is_some_and(|lt| t[lt..].starts_with("<layer")))
                .map(|(a, b)| (a + 9, b - 1))
                .collect();
            match pick(rng, &versions) {
                Some((a, b)) => splice(t, a, b, pick(rng, GRAPH_VALUES).unwrap_or("opset99")),
                None => t.to_owned(),
            }
        }
        1 => {
            let datas: Vec<(usize, usize)> = spans(t, "<data", " ").into_iter().collect();
            match pick(rng, &datas) {
                Some((_, b)) => {
                    let key = pick(rng, GRAPH_KEYS).unwrap_or("zzz");
                    let v = pick(rng, GRAPH_VALUES).unwrap_or("1");
                    splice(t, b, b, &format!("{key}=\"{v}\" "))
                }
                None => t.to_owned(),
            }
        }
        _ => {
            let read: Vec<(usize, usize)> = values(t)
                .into_iter()
                .filter(|&(a, _)| {
                    GRAPH_KEYS.iter().any(|k| t[..a].ends_with(&format!(" {k}=\""))) || t[..a].ends_with(" shape=\"")
                })
                .collect();
            match pick(rng, &read) {
                Some((a, b)) => splice(t, a, b, pick(rng, GRAPH_VALUES).unwrap_or("0")),
                None => t.to_owned(),
            }
        }
    }
}

/// Byte ranges of every match of `open` … `close` in `text` (both included).
fn spans(text: &str, open: &str, close: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(a) = text[from..].find(open).map(|i| from + i) {
        let Some(b) = text[a + open.len()..].find(close).map(|i| a + open.len() + i + close.len()) else { break };
        out.push((a, b));
        from = b;
    }
    out
}

/// Byte ranges of attribute values (between `="` and `"`) and `<dim>` contents.
fn values(text: &str) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = spans(text, "=\"", "\"").into_iter().map(|(a, b)| (a + 2, b - 1)).collect();
    out.extend(spans(text, "<dim>", "</dim>").into_iter().map(|(a, b)| (a + 5, b - 6)));
    out
}

/// A layer (`<layer …>…</layer>` or a self-closing one) or an edge.
fn elements(text: &str) -> Vec<(usize, usize)> {
    let mut out = spans(text, "<layer ", "</layer>");
    out.extend(spans(text, "<edge ", "/>"));
    out
}

fn pick<T: Copy>(rng: &mut fastrand::Rng, v: &[T]) -> Option<T> {
    if v.is_empty() { None } else { Some(v[rng.usize(..v.len())]) }
}

/// How many of [`VALUES`], from the start, are numbers.
const NUMBERS: usize = 29;

/// A value to put in an attribute: mostly an edge value of its kind (a number for a
/// number), else any edge value, a long run, or one nudged from `old`.
fn value(rng: &mut fastrand::Rng, old: &str) -> String {
    let numeric = !old.is_empty() && old.split(',').all(|p| p.trim().parse::<f64>().is_ok());
    match rng.u8(..10) {
        0 => "n".repeat(rng.usize(100..5000)),
        1 => old.parse::<i64>().map_or_else(|_| old.repeat(2), |n| n.wrapping_add(rng.i64(-2..=2)).to_string()),
        2..=6 if numeric => VALUES[rng.usize(..NUMBERS)].to_owned(),
        _ => VALUES[rng.usize(..VALUES.len())].replace('"', "&quot;"),
    }
}

/// `s[..a] + new + s[b..]`, at the nearest character boundaries.
fn splice(s: &str, a: usize, b: usize, new: &str) -> String {
    let fix = |mut i: usize| {
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (a, b) = (fix(a.min(s.len())), fix(b.min(s.len())));
    let (a, b) = (a.min(b), a.max(b));
    format!("{}{new}{}", &s[..a], &s[b..])
}

/// One to four mutations of a model's text, `other` being another model to splice from.
pub(crate) fn xml(rng: &mut fastrand::Rng, text: &str, other: &str) -> String {
    let mut t = text.to_owned();
    for _ in 0..rng.usize(1..=4) {
        t = match rng.u8(..12) {
            10 | 11 => graph(rng, &t),
            0..=3 => {
                // Half the time a value that decides semantics: a `<data>` attribute or a `<dim>`.
                let all = values(&t);
                let data: Vec<(usize, usize)> = all
                    .iter()
                    .copied()
                    .filter(|&(a, _)| {
                        t[..a].rfind('<').is_some_and(|lt| t[lt..].starts_with("<data") || t[lt..].starts_with("<dim"))
                    })
                    .collect();
                let semantic = rng.bool() && !data.is_empty();
                match pick(rng, if semantic { &data } else { &all }) {
                    Some((a, b)) => {
                        let new = value(rng, &t[a..b]);
                        splice(&t, a, b, &new)
                    }
                    None => t,
                }
            }
            4 => match pick(rng, &elements(&t)) {
                Some((a, b)) => splice(&t, a, b, ""),
                None => t,
            },
            5 => match pick(rng, &elements(&t)) {
                Some((a, b)) => {
                    let copy = t[a..b].to_owned();
                    splice(&t, b, b, &copy)
                }
                None => t,
            },
            6 => match (pick(rng, &elements(other)), pick(rng, &elements(&t))) {
                (Some((a, b)), Some((_, at))) => splice(&t, at, at, &other[a..b]),
                _ => t,
            },
            7 => {
                // Rewire an edge or a port: a number after `port="` or `layer="`.
                let ends: Vec<(usize, usize)> = values(&t)
                    .into_iter()
                    .filter(|&(a, _)| {
                        t[..a].ends_with("port=\"") || t[..a].ends_with("layer=\"") || t[..a].ends_with("id=\"")
                    })
                    .collect();
                match pick(rng, &ends) {
                    Some((a, b)) => splice(&t, a, b, &rng.u64(..12).to_string()),
                    None => t,
                }
            }
            8 => {
                let a = rng.usize(..=t.len());
                let b = a + rng.usize(..64);
                splice(&t, a, b, "")
            }
            _ => {
                let (a, b) = (rng.usize(..=t.len()), rng.usize(..=t.len()));
                let piece = t[a.min(b)..a.max(b)].chars().take(256).collect::<String>();
                let at = rng.usize(..=t.len());
                splice(&t, at, at, &piece)
            }
        };
    }
    t
}

/// A mutation of a weights file, or the file as it is.
pub(crate) fn bin(rng: &mut fastrand::Rng, bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    match rng.u8(..8) {
        0 => b.truncate(rng.usize(..=b.len())),
        1 => b.extend((0..rng.usize(1..64)).map(|_| rng.u8(..))),
        2 => b.clear(),
        3 if b.len() >= 4 => {
            let specials = [f32::NAN, f32::INFINITY, -f32::INFINITY, 65504.0, 1e30, -0.0, f32::MIN_POSITIVE / 2.0];
            let at = rng.usize(..=b.len() - 4) & !3;
            b[at..at + 4].copy_from_slice(&specials[rng.usize(..specials.len())].to_le_bytes());
        }
        4 if !b.is_empty() => {
            let at = rng.usize(..b.len());
            b[at] ^= 1 << rng.u8(..8);
        }
        _ => {}
    }
    b
}

/// One to three mutations of a macro declaration's text.
pub(crate) fn declaration(rng: &mut fastrand::Rng, text: &str) -> String {
    // Besides the keys a declaration takes, values of theirs and mistakes.
    const WORDS: &[&str] = &[
        "dynamic",
        "bidirectional",
        "reverse",
        "pytorch",
        "onnx",
        "bnns",
        "unrolled",
        "tiled",
        "f16",
        "bf16",
        "Ok",
        "S",
        "r#type",
        "[sigmoid, tanh]",
        "[relu(alpha = 2.0)]",
        "\"w.bin\"",
        "\"/dev/zero\"",
        "\"../x.bin\"",
        "-1",
        "0",
        "1.5e39",
    ];
    let keys = cellc::front::decl::KEYS;
    let mut t = text.to_owned();
    for _ in 0..rng.usize(1..=3) {
        // Numbers and words are the tokens worth replacing; any char range may go too.
        let tokens: Vec<(usize, usize)> = {
            let mut v = Vec::new();
            let mut start = None;
            for (i, c) in t.char_indices().chain(std::iter::once((t.len(), ' '))) {
                match (start, c.is_alphanumeric() || c == '_' || c == '.') {
                    (None, true) => start = Some(i),
                    (Some(s), false) => {
                        v.push((s, i));
                        start = None;
                    }
                    _ => {}
                }
            }
            v
        };
        t = match rng.u8(..4) {
            0 | 1 => match pick(rng, &tokens) {
                Some((a, b)) => {
                    let new = match rng.u8(..3) {
                        0 => VALUES[rng.usize(..VALUES.len())],
                        1 => WORDS[rng.usize(..WORDS.len())],
                        _ => keys[rng.usize(..keys.len())],
                    };
                    splice(&t, a, b, new)
                }
                None => t,
            },
            2 => {
                let a = rng.usize(..=t.len());
                splice(&t, a, a + rng.usize(..8), "")
            }
            _ => {
                let at = t.rfind('>').unwrap_or(t.len());
                let key = keys[rng.usize(..keys.len())];
                let val = VALUES[rng.usize(..VALUES.len())];
                splice(&t, at, at, &format!(", {key} = {val}"))
            }
        };
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutants_stay_text_and_differ() {
        let text = r#"<net version="11"><layers><layer id="0" name="x" type="Parameter"><data shape="1,2"/></layer></layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"#;
        let mut rng = fastrand::Rng::with_seed(7);
        let changed = (0..200).filter(|_| xml(&mut rng, text, text) != text).count();
        assert!(changed > 150, "only {changed} of 200 mutants differ");
        assert_eq!(values(text).len(), 9);
        assert_eq!(VALUES[NUMBERS - 1], "0.5");
        assert_eq!(VALUES[NUMBERS], "?");
        assert_eq!(elements(text).len(), 2);
        let d = "pub struct Vad<input_size = 16, hidden_size = 8>;";
        assert!((0..50).any(|_| declaration(&mut rng, d) != d));
    }
}
