//! The inner loop of the tiled kernels, generic over constant sizes so that each use in
//! generated code is monomorphised with its cell's sizes and the loops have fixed trip
//! counts the optimiser can unroll and vectorise.

/// `acc[l] += Σ_k panel[k][l] · v[k]`: one tile of a matrix–vector product over a packed
/// panel (see [`crate::pack`]). Written as a sum of scaled rows, so the `W` lanes are
/// independent accumulators rather than one serial chain of adds.
#[inline(always)]
pub fn panel_acc<const K: usize, const W: usize>(acc: &mut [f32; W], panel: &[[f32; W]; K], v: &[f32; K]) {
    let mut a = *acc;
    for (row, &vk) in panel.iter().zip(v) {
        for l in 0..W {
            a[l] += row[l] * vk;
        }
    }
    *acc = a;
}

/// The shape of the register blocks of [`panel_acc_rows_in`]: `R` rows × `V` lanes of
/// accumulators. Passed as a value so the sizes are inferred from it.
#[derive(Clone, Copy, Debug)]
pub struct Block<const R: usize, const V: usize>;

/// [`panel_acc`] for `S` rows at once: `acc[s][l] += Σ_k panel[k][l] · v[s][k]`, in register
/// blocks of 4 rows × 8 lanes (two SSE or one AVX register a row), so each weight it loads
/// serves 4 rows: what makes the input projection of a block of sequence steps cheaper than
/// the steps one by one. Each lane sums in the order of [`panel_acc`], so the results are
/// the same as row by row.
#[inline(always)]
pub fn panel_acc_rows<const K: usize, const W: usize, const S: usize>(
    acc: &mut [[f32; W]; S],
    panel: &[[f32; W]; K],
    v: &[[f32; K]; S],
) {
    panel_acc_rows_in(acc, panel, v, Block::<4, 8>);
}

/// [`panel_acc_rows`] in register blocks of `R` rows × `V` lanes: the shape that keeps a
/// level's vector registers busy (see `simd::Level::batch_rows`).
#[inline(always)]
pub fn panel_acc_rows_in<const K: usize, const W: usize, const S: usize, const R: usize, const V: usize>(
    acc: &mut [[f32; W]; S],
    panel: &[[f32; W]; K],
    v: &[[f32; K]; S],
    _: Block<R, V>,
) {
    // One row has no weight to share: the whole panel width is its accumulators, which
    // keeps more independent sums in flight than one block of V lanes at a time (a GRU
    // step, H=128, I=16, measured 4.28 µs in blocks of 8 lanes, 2.4 µs whole).
    if R == 1 {
        for (a, x) in acc.iter_mut().zip(v) {
            panel_acc(a, panel, x);
        }
        return;
    }
    let (acc_blocks, acc_rest) = acc.as_chunks_mut::<R>();
    let (v_blocks, v_rest) = v.as_chunks::<R>();
    for (a, x) in acc_blocks.iter_mut().zip(v_blocks) {
        block_rows::<K, W, R, V>(a, panel, x);
    }
    for (a, x) in acc_rest.iter_mut().zip(v_rest) {
        panel_acc(a, panel, x);
    }
}

/// [`panel_acc_rows_in`] for one block of `R` rows.
#[inline(always)]
fn block_rows<const K: usize, const W: usize, const R: usize, const V: usize>(
    acc: &mut [[f32; W]; R],
    panel: &[[f32; W]; K],
    v: &[[f32; K]; R],
) {
    let full = W / V * V;
    let mut lb = 0;
    while lb < full {
        let mut a = [[0.0f32; V]; R];
        for (a, acc) in a.iter_mut().zip(acc.iter()) {
            a.copy_from_slice(&acc[lb..lb + V]);
        }
        for (k, row) in panel.iter().enumerate() {
            let Some(w) = row[lb..].first_chunk::<V>() else { break };
            for (a, x) in a.iter_mut().zip(v) {
                let xk = x[k];
                for l in 0..V {
                    a[l] += w[l] * xk;
                }
            }
        }
        for (a, acc) in a.iter().zip(acc.iter_mut()) {
            acc[lb..lb + V].copy_from_slice(a);
        }
        lb += V;
    }
    for l in full..W {
        for (acc, x) in acc.iter_mut().zip(v) {
            let mut t = acc[l];
            for (row, &xk) in panel.iter().zip(x) {
                t += row[l] * xk;
            }
            acc[l] = t;
        }
    }
}

/// `acc[s][l] += col[l] · v[s][k]` for every row `s`: column `k` of a product over `S` rows,
/// the statement the unrolled kernels repeat once per input element.
#[inline(always)]
pub fn axpy_rows<const K: usize, const W: usize, const S: usize>(
    acc: &mut [[f32; W]; S],
    k: usize,
    v: &[[f32; K]; S],
    col: &[f32; W],
) {
    for (acc, v) in acc.iter_mut().zip(v) {
        axpy(acc, v[k], col);
    }
}

/// `acc[l] += col[l] · v`: one column of a matrix–vector product, the statement the
/// unrolled kernels repeat once per input element.
#[inline(always)]
pub fn axpy<const W: usize>(acc: &mut [f32; W], v: f32, col: &[f32; W]) {
    for l in 0..W {
        acc[l] += col[l] * v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panel_acc_rows_is_panel_acc_per_row() {
        let panel = [[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]];
        let v = [[1.0, 10.0], [-2.0, 0.25], [0.0, 3.0]];
        let mut acc = [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [-1.0, 5.0, 2.0]];
        let mut want = acc;
        for (a, x) in want.iter_mut().zip(&v) {
            panel_acc(a, &panel, x);
        }
        panel_acc_rows(&mut acc, &panel, &v);
        assert_eq!(acc, want);
    }

    #[test]
    fn axpy_adds_a_scaled_column() {
        let mut acc = [1.0, 2.0, 3.0];
        axpy(&mut acc, 2.0, &[10.0, 20.0, 30.0]);
        assert_eq!(acc, [21.0, 42.0, 63.0]);
    }

    #[test]
    fn panel_acc_is_a_matrix_vector_product() {
        let panel = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
        let mut acc = [10.0, 20.0];
        panel_acc(&mut acc, &panel, &[1.0, 10.0, 100.0]);
        assert_eq!(acc, [10.0 + 1.0 + 30.0 + 500.0, 20.0 + 2.0 + 40.0 + 600.0]);
    }
}
