//! A copy that is a transpose, in C, as the runtime's kernel reads it
//! (`cellc_runtime::__private::kernel::transpose`): one function the model's transposes
//! share, tiles of 8 × 8 values in bands of 64 source rows, so each cache line read and
//! written is used whole; with vectors of 8 lanes each tile goes through eight of them
//! (GCC's `__builtin_shuffle`: the interleaves, pairs and halves of the runtime's), else
//! value by value in the same order.
use super::text::Code;

/// One shuffle: its output, its two inputs, and the lanes it takes (GCC's two-operand
/// `__builtin_shuffle`, lanes 8–15 the second input's).
type Shuffle = (&'static str, &'static str, &'static str, [usize; 8]);

/// The 24 shuffles of an 8 × 8 tile, in three stages.
const STAGES: [[Shuffle; 8]; 3] = {
    const LO: [usize; 8] = [0, 8, 1, 9, 4, 12, 5, 13];
    const HI: [usize; 8] = [2, 10, 3, 11, 6, 14, 7, 15];
    const PLO: [usize; 8] = [0, 1, 8, 9, 4, 5, 12, 13];
    const PHI: [usize; 8] = [2, 3, 10, 11, 6, 7, 14, 15];
    const HLO: [usize; 8] = [0, 1, 2, 3, 8, 9, 10, 11];
    const HHI: [usize; 8] = [4, 5, 6, 7, 12, 13, 14, 15];
    [
        [
            ("t0", "r0", "r1", LO),
            ("t1", "r0", "r1", HI),
            ("t2", "r2", "r3", LO),
            ("t3", "r2", "r3", HI),
            ("t4", "r4", "r5", LO),
            ("t5", "r4", "r5", HI),
            ("t6", "r6", "r7", LO),
            ("t7", "r6", "r7", HI),
        ],
        [
            ("s0", "t0", "t2", PLO),
            ("s1", "t0", "t2", PHI),
            ("s2", "t1", "t3", PLO),
            ("s3", "t1", "t3", PHI),
            ("s4", "t4", "t6", PLO),
            ("s5", "t4", "t6", PHI),
            ("s6", "t5", "t7", PLO),
            ("s7", "t5", "t7", PHI),
        ],
        [
            ("o0", "s0", "s4", HLO),
            ("o1", "s1", "s5", HLO),
            ("o2", "s2", "s6", HLO),
            ("o3", "s3", "s7", HLO),
            ("o4", "s0", "s4", HHI),
            ("o5", "s1", "s5", HHI),
            ("o6", "s2", "s6", HHI),
            ("o7", "s3", "s7", HHI),
        ],
    ]
};

/// The definition of `PREFIX_transpose`: `dst[j·ds + i] = src[i·ss + j]` for `i < m`, `j < n`.
pub(super) fn definition(prefix: &str) -> String {
    let upper = prefix.to_ascii_uppercase();
    let mut c = Code::default();
    c.comment(
        "dst[j * ds + i] = src[i * ss + j] for i < m, j < n: tiles of 8 x 8 values in bands of 64 source rows, so each cache line read and written is used whole; the edges value by value.",
    );
    c.kernel(
        &upper,
        &format!("{prefix}_transpose"),
        "const float *restrict src, float *restrict dst, size_t m, size_t n, size_t ss, size_t ds",
    );
    c.line("const size_t mt = m - m % 8, nt = n - n % 8;");
    c.open("for (size_t b = 0; b < mt; b += 64)");
    c.line("const size_t e = mt - b > 64 ? b + 64 : mt;");
    c.open("for (size_t j = 0; j < nt; j += 8)");
    c.open("for (size_t i = b; i < e; i += 8)");
    c.line("const float *restrict s = src + i * ss + j;");
    c.line("float *restrict d = dst + j * ds + i;");
    c.line(format!("#if {upper}_VECTORS >= 8"));
    c.line(format!("typedef int {prefix}_lanes8 __attribute__((vector_size(32)));"));
    let v = format!("{prefix}_v8");
    c.line(format!("{v} r0, r1, r2, r3, r4, r5, r6, r7;"));
    for k in 0..8 {
        let at = if k == 0 { "s".to_owned() } else { format!("s + {k} * ss") };
        c.line(format!("__builtin_memcpy(&r{k}, {at}, sizeof r{k});"));
    }
    for stage in STAGES {
        for (out, a, b, lanes) in stage {
            let l: Vec<String> = lanes.iter().map(usize::to_string).collect();
            c.line(format!("const {v} {out} = __builtin_shuffle({a}, {b}, ({prefix}_lanes8){{{}}});", l.join(", ")));
        }
    }
    for k in 0..8 {
        let at = if k == 0 { "d".to_owned() } else { format!("d + {k} * ds") };
        c.line(format!("__builtin_memcpy({at}, &o{k}, sizeof o{k});"));
    }
    c.line("#else");
    c.line("for (size_t q = 0; q < 8; ++q)");
    c.line("    for (size_t r = 0; r < 8; ++r) d[q * ds + r] = s[r * ss + q];");
    c.line("#endif");
    c.close("");
    c.close("");
    c.close("");
    c.line("for (size_t i = 0; i < mt; ++i)");
    c.line("    for (size_t j = nt; j < n; ++j) dst[j * ds + i] = src[i * ss + j];");
    c.line("for (size_t i = mt; i < m; ++i)");
    c.line("    for (size_t j = 0; j < n; ++j) dst[j * ds + i] = src[i * ss + j];");
    c.close("");
    c.line("");
    c.finish()
}
