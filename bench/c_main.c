/* Times a generated C model "net": `main CALLS OUT_LENS INPUT…` runs it CALLS times (after
 * CALLS / 4 warm-up calls) on the inputs (raw f32 files) and prints the median call in ns.
 * Used by bench/models.py and tests/scripts/c_speed.sh. */
#include "net.h"
#include "c_bench.h"
#include <time.h>

int main(int argc, char **argv) {
    bench_args a = read_args(argc, argv);
    size_t calls = a.calls, k;
    static net_model model;
    double *times = malloc(calls * sizeof(double));
    for (k = 0; k < calls / 4; k++) net_run(&model, a.ins, a.in_lens, a.n_in, a.outs, a.out_lens, a.n_out);
    for (k = 0; k < calls; k++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (net_run(&model, a.ins, a.in_lens, a.n_in, a.outs, a.out_lens, a.n_out) != 0) {
            fprintf(stderr, "run failed\n");
            return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        times[k] = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    }
    qsort(times, calls, sizeof(double), cmp);
    printf("%.0f\n", times[calls / 2]);
    return 0;
}
