//! A `MatMul` of two operands the model computes, in C, as the runtime's product kernel
//! computes it (`cellc_runtime::__private::kernel::product`): one function the model's
//! products share, `b` read in place a row at a time, blocks of rows × vectors of columns
//! summed in named vectors of GCC's extensions (so they stay in registers at `-O2`), each
//! entry of `a` broadcast; plain loops where the target has no vectors.
use super::text::Code;

/// The vector variants: the condition, lanes a vector, rows a block takes (their sums, 2
/// vectors each, within AVX-512's 32 registers, AVX's 16 and SSE2's 16 with the loaded
/// row, the broadcast entry and, under SSE2, a product's copy).
const VARIANTS: [(&str, usize, usize); 3] =
    [("UPPER_VECTORS >= 16", 16, 12), ("UPPER_VECTORS >= 8", 8, 6), ("UPPER_VECTORS == 4", 4, 4)];

/// The definition of `PREFIX_product`: `dst[i·dr + j] = Σ_q a[i·a0 + q·a1] · b[q·kb + j]`
/// for `i < m`, `j < n`, `q < k`, each sum from zero over `q` in order.
pub(super) fn definition(prefix: &str) -> String {
    let upper = prefix.to_ascii_uppercase();
    let mut c = Code::default();
    c.comment(
        "The product of a (m x k, strides a0 and a1) by b (k x n, rows kb apart) into dst (rows dr apart): each output summed from zero over k in order, blocks of rows x vectors of columns in registers.",
    );
    c.kernel(
        &upper,
        &format!("{prefix}_product"),
        "const float *restrict a, const float *restrict b, float *restrict dst, size_t m, size_t k, size_t n, size_t a0, size_t a1, size_t kb, size_t dr",
    );
    c.line("size_t j = 0;");
    for (i, (cond, lanes, rows)) in VARIANTS.iter().enumerate() {
        let cond = cond.replace("UPPER", &upper);
        c.line(if i == 0 { format!("#if {cond}") } else { format!("#elif {cond}") });
        let v = |lanes: usize| format!("{prefix}_v{lanes}");
        strip(&mut c, &v(*lanes), *lanes, *rows, 2);
        strip(&mut c, &v(*lanes), *lanes, *rows, 1);
        // The last columns, fewer than a vector: in vectors of 4 while they fit.
        if *lanes > 4 {
            strip(&mut c, &v(4), 4, *rows, 1);
        }
    }
    c.line("#endif");
    // Plain loops over what is left (every column without vectors): a row of outputs
    // summed along q, its columns innermost.
    c.open("for (size_t i = 0; j < n && i < m; ++i)");
    c.line("float *restrict d = dst + i * dr;");
    c.line("for (size_t c = j; c < n; ++c) d[c] = 0.0f;");
    c.open("for (size_t q = 0; q < k; ++q)");
    c.line("const float w = a[i * a0 + q * a1];");
    c.line("const float *restrict bq = b + q * kb;");
    c.line("for (size_t c = j; c < n; ++c) d[c] += w * bq[c];");
    c.close("");
    c.close("");
    c.close("");
    c.line("");
    c.finish()
}

/// Strips of `per` whole vectors of columns while they fit (bounds computed before the
/// loop, so no index can wrap).
fn strip(c: &mut Code, v: &str, lanes: usize, rows: usize, per: usize) {
    let width = per * lanes;
    c.open("");
    c.line(format!("const size_t end = j + (n - j) / {width} * {width};"));
    c.open(format!("for (; j < end; j += {width})"));
    rows_of(c, v, lanes, rows, per);
    c.close("");
    c.close("");
}

/// Every row of the strip from column `j`: blocks of `rows`, then of 4, then single rows.
fn rows_of(c: &mut Code, v: &str, lanes: usize, rows: usize, per: usize) {
    c.line("size_t i = 0;");
    let mut sizes = vec![rows];
    if rows > 4 {
        sizes.push(4);
    }
    if rows > 1 {
        sizes.push(1);
    }
    for r in sizes {
        if r == 1 {
            c.open("for (; i < m; ++i)");
        } else {
            c.open("");
            c.line(format!("const size_t last = i + (m - i) / {r} * {r};"));
            c.open(format!("for (; i < last; i += {r})"));
        }
        block(c, v, lanes, r, per);
        c.close("");
        if r != 1 {
            c.close("");
        }
    }
}

/// Rows `i..i + r` × `per` vectors of columns from `j`.
fn block(c: &mut Code, v: &str, lanes: usize, r: usize, per: usize) {
    let sums: Vec<String> = (0..r).flat_map(|i| (0..per).map(move |p| format!("s{i}_{p} = {{0}}"))).collect();
    c.line(format!("{v} {};", sums.join(", ")));
    c.open("for (size_t q = 0; q < k; ++q)");
    c.line("const float *restrict bq = b + q * kb + j;");
    let xs: Vec<String> = (0..per).map(|p| format!("x{p}")).collect();
    c.line(format!("{v} {};", xs.join(", ")));
    for p in 0..per {
        c.line(format!("__builtin_memcpy(&x{p}, bq + {}, sizeof x{p});", p * lanes));
    }
    for i in 0..r {
        let row = if i == 0 { "i".to_owned() } else { format!("(i + {i})") };
        c.line(format!("const float w{i} = a[{row} * a0 + q * a1];"));
        let line: Vec<String> = (0..per).map(|p| format!("s{i}_{p} += x{p} * w{i};")).collect();
        c.line(line.join(" "));
    }
    c.close("");
    for i in 0..r {
        let row = if i == 0 { "i".to_owned() } else { format!("(i + {i})") };
        let stores: Vec<String> = (0..per)
            .map(|p| format!("__builtin_memcpy(dst + {row} * dr + j + {}, &s{i}_{p}, sizeof s{i}_{p});", p * lanes))
            .collect();
        c.line(stores.join(" "));
    }
}
