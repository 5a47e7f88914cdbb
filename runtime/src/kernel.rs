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

/// [`panel_acc`] for `S` rows at once: `acc[s][l] += Σ_k panel[k][l] · v[s][k]`. Each panel
/// row is read once for all `S` rows, which is what makes the input projection of a whole
/// sequence cheaper than `S` single steps: the weights stream from memory once per block.
#[inline(always)]
pub fn panel_acc_rows<const K: usize, const W: usize, const S: usize>(
    acc: &mut [[f32; W]; S],
    panel: &[[f32; W]; K],
    v: &[[f32; K]; S],
) {
    let mut a = *acc;
    for (k, row) in panel.iter().enumerate() {
        for s in 0..S {
            let vk = v[s][k];
            for l in 0..W {
                a[s][l] += row[l] * vk;
            }
        }
    }
    *acc = a;
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
