//! The window and gather ops (convolutions, pools, Pad, the norms, Einsum, the scatters,
//! Interpolate) on inputs their definitions forbid or at the edges of their arithmetic:
//! each is refused with an error naming the layer and what was expected, and none panics
//! (these tests run with overflow checks on).
use cellc::front::openvino::parse_graph;
use cellc::vocab::Weights;
use std::fmt::Write as _;

/// A model under construction: its layers, edges and weights file.
#[derive(Default)]
struct Net {
    layers: String,
    edges: Vec<(u64, u64, u64, u64)>,
    bin: Vec<u8>,
}

/// `<port>` of `precision` with `dims`.
fn port(id: u64, precision: &str, dims: &[u64]) -> String {
    let d: String = dims.iter().map(|n| format!("<dim>{n}</dim>")).collect();
    format!(r#"<port id="{id}" precision="{precision}">{d}</port>"#)
}

impl Net {
    /// An f32 Parameter.
    fn parameter(&mut self, id: u64, dims: &[u64]) {
        let shape: Vec<String> = dims.iter().map(u64::to_string).collect();
        let _ = writeln!(
            self.layers,
            r#"<layer id="{id}" name="p{id}" type="Parameter" version="opset1"><data shape="{}" element_type="f32"/><output>{}</output></layer>"#,
            shape.join(","),
            port(0, "FP32", dims)
        );
    }

    /// A constant of `values` stored as `elem` (`f32` or `i64`).
    fn constant(&mut self, id: u64, elem: &str, dims: &[u64], values: &[f64]) {
        let offset = self.bin.len();
        for &v in values {
            match elem {
                "i64" => self.bin.extend((v as i64).to_le_bytes()),
                _ => self.bin.extend((v as f32).to_le_bytes()),
            }
        }
        let precision = if elem == "i64" { "I64" } else { "FP32" };
        let shape: Vec<String> = dims.iter().map(u64::to_string).collect();
        let _ = writeln!(
            self.layers,
            r#"<layer id="{id}" name="c{id}" type="Const" version="opset1"><data element_type="{elem}" shape="{}" offset="{offset}" size="{}"/><output>{}</output></layer>"#,
            shape.join(","),
            self.bin.len() - offset,
            port(0, precision, dims)
        );
    }

    /// Layer `id` named "op" of `ty` reading the output 0 of each of `from` (whose ports are
    /// `ins`), its output undeclared in shape, into a Result.
    fn op(&mut self, id: u64, ty: &str, version: &str, data: &str, from: &[u64], ins: &[(&str, &[u64])]) {
        let inputs: String = ins.iter().enumerate().map(|(k, (p, d))| port(k as u64, p, d)).collect();
        let out = ins.len() as u64;
        let _ = writeln!(
            self.layers,
            r#"<layer id="{id}" name="op" type="{ty}" version="{version}">{data}<input>{inputs}</input><output><port id="{out}" precision="FP32"/></output></layer>
<layer id="{}" name="out" type="Result" version="opset1"><input><port id="0" precision="FP32"/></input></layer>"#,
            id + 1
        );
        for (k, &f) in from.iter().enumerate() {
            self.edges.push((f, 0, id, k as u64));
        }
        self.edges.push((id, out, id + 1, 0));
    }

    /// The model's XML text.
    fn xml(&self) -> String {
        let mut e = String::new();
        for (a, b, c, d) in &self.edges {
            let _ = writeln!(e, r#"<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>"#);
        }
        format!(
            "<?xml version=\"1.0\"?>\n<net name=\"edges\" version=\"11\">\n<layers>\n{}</layers>\n<edges>\n{e}</edges>\n</net>\n",
            self.layers
        )
    }

    /// The model compiled; panics with the error if it is refused.
    fn compiled(self) -> cellc::ir::verify::Verified {
        let xml = self.xml();
        let g = parse_graph("model.xml", &xml, Weights::whole("model.bin", self.bin)).unwrap_or_else(|e| panic!("{e}"));
        cellc::model_of(g).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The error compiling it gives; panics if it compiles.
    fn refused(self) -> String {
        let xml = self.xml();
        let compiled = parse_graph("model.xml", &xml, Weights::whole("model.bin", self.bin))
            .and_then(|g| cellc::model_of(g).map(|_| ()));
        match compiled {
            Ok(()) => panic!("accepted:\n{xml}"),
            Err(d) => d.to_string(),
        }
    }
}

/// Asserts `text` says each of `wanted`.
fn says(text: &str, wanted: &[&str]) {
    for w in wanted {
        assert!(text.contains(w), "the error does not say {w:?}:\n{text}");
    }
}

/// `x [1, 2, len]` through a Convolution by weights `[co, 2, 3]` with `data`.
fn conv(len: u64, co: u64, data: &str) -> Net {
    let mut n = Net::default();
    n.parameter(0, &[1, 2, len]);
    let w = vec![0.5; (co * 6) as usize];
    n.constant(1, "f32", &[co, 2, 3], &w);
    n.op(2, "Convolution", "opset1", data, &[0, 1], &[("FP32", &[1, 2, len]), ("FP32", &[co, 2, 3])]);
    n
}

const EXPLICIT: &str = r#"<data strides="1" dilations="1" pads_begin="1" pads_end="1" auto_pad="explicit"/>"#;

#[test]
fn auto_pad_takes_only_the_values_openvino_reads() {
    let notset = EXPLICIT.replace("explicit", "notset");
    says(&conv(8, 3, &notset).refused(), &["\"op\" (Convolution)", "`auto_pad` is \"notset\"", "same_upper"]);
}

#[test]
fn a_convolution_without_output_channels_says_so() {
    let text = conv(8, 0, EXPLICIT).refused();
    says(&text, &["\"op\" (Convolution)", "no output channels"]);
    assert!(!text.contains("groups of"), "{text}");
}

#[test]
fn a_transposed_convolution_over_an_empty_axis_is_refused() {
    let mut n = Net::default();
    n.parameter(0, &[1, 2, 0]);
    n.constant(1, "f32", &[2, 3, 3], &[0.5; 18]);
    let data = r#"<data strides="2" dilations="1" pads_begin="0" pads_end="0" auto_pad="explicit"/>"#;
    n.op(2, "ConvolutionBackpropData", "opset1", data, &[0, 1], &[("FP32", &[1, 2, 0]), ("FP32", &[2, 3, 3])]);
    says(&n.refused(), &["\"op\" (ConvolutionBackpropData)"]);
}

#[test]
fn an_average_excluding_padding_over_a_window_of_padding_alone_is_refused() {
    let mut n = Net::default();
    n.parameter(0, &[1, 2, 6]);
    let data = r#"<data strides="1" pads_begin="2" pads_end="0" kernel="2" exclude-pad="true" rounding_type="floor" auto_pad="explicit"/>"#;
    n.op(1, "AvgPool", "opset1", data, &[0], &[("FP32", &[1, 2, 6])]);
    says(&n.refused(), &["\"op\" (AvgPool)", "exclude-pad", "wholly in its padding"]);
}

/// `x [1, 2, 5]` through a Pad by `pads_begin` and `pads_end` stored as `elem`.
fn pad(elem: &str, begin: [f64; 3], end: [f64; 3]) -> Net {
    let mut n = Net::default();
    n.parameter(0, &[1, 2, 5]);
    n.constant(1, elem, &[3], &begin);
    n.constant(2, elem, &[3], &end);
    let p = if elem == "i64" { "I64" } else { "FP32" };
    let ins: [(&str, &[u64]); 3] = [("FP32", &[1, 2, 5]), (p, &[3]), (p, &[3])];
    n.op(3, "Pad", "opset1", r#"<data pad_mode="edge"/>"#, &[0, 1, 2], &ins);
    n
}

#[test]
fn pads_indices_and_sizes_must_be_whole_number_types() {
    let text = pad("f32", [0.0, 0.0, 1.0], [0.0, 0.0, 2.0]).refused();
    says(&text, &["\"op\" (Pad)", "pads_begin is f32; expected an integer type"]);

    let mut n = Net::default();
    n.parameter(0, &[4, 3]);
    n.constant(1, "f32", &[1], &[2.0]);
    n.parameter(2, &[1, 3]);
    n.constant(3, "i64", &[], &[0.0]);
    let ins: [(&str, &[u64]); 4] = [("FP32", &[4, 3]), ("FP32", &[1]), ("FP32", &[1, 3]), ("I64", &[])];
    n.op(4, "ScatterUpdate", "opset3", "", &[0, 1, 2, 3], &ins);
    says(&n.refused(), &["\"op\" (ScatterUpdate)", "the indices is f32"]);

    let mut n = Net::default();
    n.parameter(0, &[1, 1, 4]);
    n.constant(1, "f32", &[1], &[8.0]);
    n.constant(2, "i64", &[1], &[2.0]);
    let data = r#"<data mode="nearest" shape_calculation_mode="sizes" coordinate_transformation_mode="asymmetric" nearest_mode="floor" antialias="false" pads_begin="0,0,0" pads_end="0,0,0" cube_coeff="-0.75"/>"#;
    let ins: [(&str, &[u64]); 3] = [("FP32", &[1, 1, 4]), ("FP32", &[1]), ("I64", &[1])];
    n.op(3, "Interpolate", "opset11", data, &[0, 1, 2], &ins);
    says(&n.refused(), &["\"op\" (Interpolate)", "the sizes are f32; expected an integer type"]);
}

#[test]
fn pads_past_the_integers_are_refused_not_wrapped() {
    let max = i64::MAX as f64;
    says(&pad("i64", [0.0, 0.0, max], [0.0, 0.0, max]).refused(), &["\"op\" (Pad)", "overflows"]);
}

#[test]
fn a_negative_batch_norm_epsilon_is_refused() {
    let mut n = Net::default();
    n.parameter(0, &[1, 2, 3]);
    for k in 1..=4 {
        n.constant(k, "f32", &[2], &[1.0, 0.5]);
    }
    let two: &[u64] = &[2];
    let ins = [("FP32", &[1u64, 2, 3][..]), ("FP32", two), ("FP32", two), ("FP32", two), ("FP32", two)];
    n.op(5, "BatchNormInference", "opset5", r#"<data epsilon="-0.001"/>"#, &[0, 1, 2, 3, 4], &ins);
    says(&n.refused(), &["\"op\" (BatchNormInference)", "`epsilon` is -0.001; expected 0 or more"]);
}

#[test]
fn an_absent_eps_mode_is_named_as_absent() {
    let mut n = Net::default();
    n.parameter(0, &[1, 2, 3]);
    n.constant(1, "i64", &[1], &[2.0]);
    let ins: [(&str, &[u64]); 2] = [("FP32", &[1, 2, 3]), ("I64", &[1])];
    n.op(2, "MVN", "opset6", r#"<data eps="0.001" normalize_variance="true"/>"#, &[0, 1], &ins);
    let text = n.refused();
    says(&text, &["\"op\" (MVN)", "no `eps_mode` attribute"]);
    assert!(!text.contains("Some("), "{text}");
}

#[test]
fn an_einsum_equation_with_spaces_is_refused() {
    let mut n = Net::default();
    n.parameter(0, &[2, 3]);
    n.constant(1, "f32", &[3, 4], &[0.25; 12]);
    let ins: [(&str, &[u64]); 2] = [("FP32", &[2, 3]), ("FP32", &[3, 4])];
    n.op(2, "Einsum", "opset7", r#"<data equation="ij, jk -> ik"/>"#, &[0, 1], &ins);
    says(&n.refused(), &["\"op\" (Einsum)", "whitespace"]);
}

#[test]
fn a_grouped_linear_einsum_is_a_dense_layer_per_group() {
    // `btgi,gih->btgh` by constant weights (DeepFilterNet's grouped linear layers): one dense
    // layer per group over its rows, not a batched product; the weights first works too.
    for (eq, from, ins) in [
        ("btgi,gih->btgh", [0, 1], [("FP32", &[1, 5, 4, 8][..]), ("FP32", &[4, 8, 6][..])]),
        ("gih,btgi->btgh", [1, 0], [("FP32", &[4, 8, 6][..]), ("FP32", &[1, 5, 4, 8][..])]),
    ] {
        let mut n = Net::default();
        n.parameter(0, &[1, 5, 4, 8]);
        let w: Vec<f64> = (0..192).map(|i| f64::from(i % 7) * 0.125 - 0.375).collect();
        n.constant(1, "f32", &[4, 8, 6], &w);
        n.op(2, "Einsum", "opset7", &format!(r#"<data equation="{eq}"/>"#), &from, &ins);
        let model = n.compiled();
        let m = model.model();
        assert!(!m.steps.iter().any(|s| matches!(s, cellc::ir::Step::MatMul(_))), "{eq}: {:?}", m.steps);
        let dense: Vec<_> = m.steps.iter().filter(|s| matches!(s, cellc::ir::Step::Dense(_))).collect();
        assert_eq!(dense.len(), 4, "{eq}");
    }
}

#[test]
fn a_large_convolution_reads_its_windows_in_place() {
    // 600 × 600 positions of 8 channels × 9 taps: 25,920,000 window values, past the limit
    // of a gather table, read in place by its dense layer: no table at all.
    let mut n = Net::default();
    n.parameter(0, &[1, 8, 600, 600]);
    n.constant(1, "f32", &[4, 8, 3, 3], &[0.125; 288]);
    let data = r#"<data strides="1,1" dilations="1,1" pads_begin="1,1" pads_end="1,1" auto_pad="explicit"/>"#;
    n.op(2, "Convolution", "opset1", data, &[0, 1], &[("FP32", &[1, 8, 600, 600]), ("FP32", &[4, 8, 3, 3])]);
    let model = n.compiled();
    let m = model.model();
    assert!(!m.steps.iter().any(|s| matches!(s, cellc::ir::Step::Pick(_))), "{:?}", m.steps);
    let w = m.denses.iter().find_map(|d| d.win.as_ref()).expect("a dense layer over windows");
    assert_eq!((w.positions(), w.k(), w.channels), (360_000, 72, 8));
}

#[test]
fn large_grouped_and_transposed_convolutions_read_their_windows_in_place() {
    // Two groups of 4 channels over 600 × 600 positions × 9 taps (25,920,000 window values,
    // past the limit of a gather table): one planar dense layer over windows in 2 groups (2
    // outputs each).
    let mut n = Net::default();
    n.parameter(0, &[1, 8, 600, 600]);
    n.constant(1, "f32", &[2, 2, 4, 3, 3], &[0.125; 144]);
    let data = r#"<data strides="1,1" dilations="1,1" pads_begin="1,1" pads_end="1,1" auto_pad="explicit"/>"#;
    n.op(2, "GroupConvolution", "opset1", data, &[0, 1], &[("FP32", &[1, 8, 600, 600]), ("FP32", &[2, 2, 4, 3, 3])]);
    let model = n.compiled();
    let m = model.model();
    assert!(!m.steps.iter().any(|s| matches!(s, cellc::ir::Step::Pick(_))), "{:?}", m.steps);
    let [d] = &m.denses[..] else { panic!("one dense layer: {:?}", m.denses) };
    let w = d.win.as_ref().expect("over windows");
    assert_eq!((w.positions(), w.k(), w.channels, d.groups, d.n, d.is_planar()), (360_000, 36, 4, 2, 4, true));
    // Transposed, stride 2 both ways, 4 × 4 taps: four phases of 2 × 2 taps each, stride 1,
    // each 301 × 301 positions (the first and last rows and columns cut off afterwards).
    let mut n = Net::default();
    n.parameter(0, &[1, 8, 300, 300]);
    n.constant(1, "f32", &[8, 3, 4, 4], &[0.125; 384]);
    let data = r#"<data strides="2,2" dilations="1,1" pads_begin="1,1" pads_end="1,1" auto_pad="explicit"/>"#;
    let ins: [(&str, &[u64]); 2] = [("FP32", &[1, 8, 300, 300]), ("FP32", &[8, 3, 4, 4])];
    n.op(2, "ConvolutionBackpropData", "opset1", data, &[0, 1], &ins);
    let model = n.compiled();
    let m = model.model();
    assert!(!m.steps.iter().any(|s| matches!(s, cellc::ir::Step::Pick(_))), "{:?}", m.steps);
    let wins: Vec<_> = m.denses.iter().filter_map(|d| d.win.as_ref()).collect();
    assert_eq!(wins.len(), 4);
    for w in wins {
        assert_eq!((w.output, w.kernel, w.strides, w.channels), ([301, 301], [2, 2], [1, 1], 8), "{w:?}");
    }
}

#[test]
fn a_convolution_past_the_window_table_limit_is_refused_for_that_reason() {
    // Over three spatial axes (not read in place): 100 × 100 × 100 positions × 8 channels ×
    // 27 taps, past the limit of a gather table; the weights are a plain constant, and the
    // message must not say otherwise.
    let mut n = Net::default();
    n.parameter(0, &[1, 8, 100, 100, 100]);
    n.constant(1, "f32", &[2, 8, 3, 3, 3], &[0.125; 432]);
    let data = r#"<data strides="1,1,1" dilations="1,1,1" pads_begin="1,1,1" pads_end="1,1,1" auto_pad="explicit"/>"#;
    n.op(2, "Convolution", "opset1", data, &[0, 1], &[("FP32", &[1, 8, 100, 100, 100]), ("FP32", &[2, 8, 3, 3, 3])]);
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("model.xml"), n.xml()).expect("model.xml");
    std::fs::write(dir.path().join("model.bin"), &n.bin).expect("model.bin");
    let text = n.refused();
    says(
        &text,
        &[
            "\"op\" (Convolution)",
            "its windows (1000000 positions × 216 values)",
            "table of 216000000 values",
            "more than the 4194304",
        ],
    );
    assert!(!text.contains("known at compile time"), "{text}");
    // `inspect` gives the same reason.
    let report = cellc::inspect::inspect(&dir.path().join("model.xml"), &cellc::Options::default()).expect("described");
    says(&report.text(), &["table of 216000000 values"]);
}

#[test]
fn a_max_pool_8_declaring_only_its_values_compiles() {
    // OpenVINO writes MaxPool-8 with two output ports; one that declares only the first is
    // the same op, its indices unreadable.
    let mut n = Net::default();
    n.parameter(0, &[1, 1, 6]);
    let data = r#"<data strides="2" dilations="1" pads_begin="0" pads_end="0" kernel="2" rounding_type="floor" auto_pad="explicit" index_element_type="i64" axis="0"/>"#;
    n.op(1, "MaxPool", "opset8", data, &[0], &[("FP32", &[1, 1, 6])]);
    let m = n.compiled();
    let x = [0.5, -1.0, 3.0, 2.0, -4.0, -5.0];
    let out = cellc::reference::run(&m, &[x.to_vec()]).expect("runs");
    assert_eq!(out, [vec![0.5, 3.0, -4.0]]);
}

#[test]
fn a_key_of_a_later_version_is_refused_naming_that_version() {
    // MaxPool-1 has no `dilations`: a layer that writes one is not the op it says it is.
    let mut n = Net::default();
    n.parameter(0, &[1, 1, 6]);
    let data = r#"<data strides="2" dilations="2" pads_begin="0" pads_end="0" kernel="2" rounding_type="floor" auto_pad="explicit"/>"#;
    n.op(1, "MaxPool", "opset1", data, &[0], &[("FP32", &[1, 1, 6])]);
    says(&n.refused(), &["\"op\" (MaxPool)", "`dilations`", "MaxPool-1", "MaxPool-8 (opset8)"]);

    // ScatterNDUpdate-3 and -4 have no `reduction`: only ScatterNDUpdate-15 reduces.
    for version in ["opset3", "opset4"] {
        let mut n = Net::default();
        n.parameter(0, &[4]);
        n.constant(1, "i64", &[1, 1], &[2.0]);
        n.constant(2, "f32", &[1], &[7.0]);
        let data = r#"<data reduction="sum"/>"#;
        let ins: [(&str, &[u64]); 3] = [("FP32", &[4]), ("I64", &[1, 1]), ("FP32", &[1])];
        n.op(3, "ScatterNDUpdate", version, data, &[0, 1, 2], &ins);
        says(&n.refused(), &["\"op\" (ScatterNDUpdate)", "`reduction`", version, "ScatterNDUpdate-15 (opset15)"]);
    }
}

#[test]
fn a_product_by_a_constant_on_its_left_is_a_dense_layer() {
    // `op(A)·op(B)` with `A` a constant [4, 6] (or [6, 4] transposed) and `B` a stack of
    // [6, 5] matrices (or [5, 6] transposed), or a vector of 6: a dense layer over `op(B)ᵀ`'s
    // rows, never the product's scalar loop; its values those of the product computed here.
    let a: Vec<f64> = (0..24).map(|i| f64::from((i * 7) % 11) * 0.125 - 0.5).collect();
    for (ta, tb, b_dims) in [
        (false, false, vec![2, 6, 5]),
        (true, false, vec![2, 6, 5]),
        (false, true, vec![2, 5, 6]),
        (true, true, vec![2, 5, 6]),
        (false, false, vec![6]),
        (true, false, vec![6]),
    ] {
        let a_dims: [u64; 2] = if ta { [6, 4] } else { [4, 6] };
        let mut n = Net::default();
        n.constant(0, "f32", &a_dims, &a);
        n.parameter(1, &b_dims);
        let data = format!(r#"<data transpose_a="{ta}" transpose_b="{tb}"/>"#);
        n.op(2, "MatMul", "opset1", &data, &[0, 1], &[("FP32", &a_dims[..]), ("FP32", &b_dims[..])]);
        let model = n.compiled();
        let m = model.model();
        let what = format!("ta {ta}, tb {tb}, B {b_dims:?}");
        assert!(!m.steps.iter().any(|s| matches!(s, cellc::ir::Step::MatMul(_))), "{what}: {:?}", m.steps);
        assert_eq!(m.steps.iter().filter(|s| matches!(s, cellc::ir::Step::Dense(_))).count(), 1, "{what}");
        let len: u64 = b_dims.iter().product();
        let b: Vec<f64> = (0..len).map(|i| ((i * 5) % 13) as f64 * 0.25 - 1.5).collect();
        let got = cellc::reference::run(m, std::slice::from_ref(&b)).expect("runs").remove(0);
        // op(A)[i][k] and op(B)[s][k][j], then the product, here.
        let a_at = |i: usize, k: usize| if ta { a[k * 4 + i] } else { a[i * 6 + k] };
        let (stacks, cols) = if b_dims.len() == 1 { (1, 1) } else { (2, 5) };
        let b_at = |s: usize, k: usize, j: usize| match (b_dims.len(), tb) {
            (1, _) => b[k],
            (_, false) => b[s * 30 + k * 5 + j],
            (_, true) => b[s * 30 + j * 6 + k],
        };
        let want: Vec<f64> = (0..stacks)
            .flat_map(|s| (0..4).flat_map(move |i| (0..cols).map(move |j| (s, i, j))))
            .map(|(s, i, j)| (0..6).map(|k| a_at(i, k) * b_at(s, k, j)).sum())
            .collect();
        assert_eq!(got.len(), want.len(), "{what}");
        let err = got.iter().zip(&want).map(|(g, w)| (g - w).abs()).fold(0.0, f64::max);
        assert!(err < 1e-5, "{what}: error {err}");
    }
}

#[test]
fn a_depthwise_transposed_convolution_of_stride_1_is_a_sum_over_its_taps() {
    // 16 channels, 3×3 taps dilated 2 along time (GTCRN's decoder): the shifted inputs
    // times each channel's weights, added, as for a depthwise convolution; no dense layer of
    // one output a group.
    let mut n = Net::default();
    n.parameter(0, &[1, 16, 6, 9]);
    let w: Vec<f64> = (0..144).map(|i| f64::from(i % 5) * 0.25 - 0.5).collect();
    n.constant(1, "f32", &[16, 1, 1, 3, 3], &w);
    let data = r#"<data strides="1,1" dilations="2,1" pads_begin="2,1" pads_end="2,1" output_padding="0,0" auto_pad="explicit"/>"#;
    let ins: [(&str, &[u64]); 2] = [("FP32", &[1, 16, 6, 9]), ("FP32", &[16, 1, 1, 3, 3])];
    n.op(2, "GroupConvolutionBackpropData", "opset1", data, &[0, 1], &ins);
    let model = n.compiled();
    let m = model.model();
    assert!(!m.steps.iter().any(|s| matches!(s, cellc::ir::Step::Dense(_))), "{:?}", m.steps);
    assert!(m.steps.iter().any(|s| matches!(s, cellc::ir::Step::Map(_))), "{:?}", m.steps);
}
