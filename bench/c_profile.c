/* Times each step of a generated C model "net": `main CALLS OUT_LENS INPUT…` runs it CALLS
 * times (after CALLS / 4 warm-up calls) on the inputs (raw f32 files), the model's source
 * built with -D'NET_STEP_DONE(k)=net_step_done(k)' and this file's hook declared
 * (bench/c_profile.h), and prints one line per step: its number and its median time in ns.
 * Used by bench/profile.py. */
#include "net.h"
#include "c_profile.h"
#include "c_bench.h"
#include <time.h>

#define MAX_STEPS 4096

static double spans[MAX_STEPS];
static size_t steps_seen;

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double last_ns;

void net_step_done(size_t k) {
    double t = now_ns();
    if (k < MAX_STEPS) {
        spans[k] += t - last_ns;
        if (k + 1 > steps_seen) steps_seen = k + 1;
    }
    last_ns = now_ns();
}

int main(int argc, char **argv) {
    bench_args a = read_args(argc, argv);
    size_t calls = a.calls, k, s;
    static net_model model;
    double *times = malloc(calls * MAX_STEPS * sizeof(double));
    for (k = 0; k < calls + calls / 4; k++) {
        for (s = 0; s < MAX_STEPS; s++) spans[s] = 0.0;
        last_ns = now_ns();
        if (net_run(&model, a.ins, a.in_lens, a.n_in, a.outs, a.out_lens, a.n_out) != 0) { fprintf(stderr, "run failed\n"); return 1; }
        if (k >= calls / 4)
            for (s = 0; s < steps_seen; s++) times[s * calls + (k - calls / 4)] = spans[s];
    }
    for (s = 0; s < steps_seen; s++) {
        qsort(times + s * calls, calls, sizeof(double), cmp);
        printf("%zu\t%.0f\n", s, times[s * calls + calls / 2]);
    }
    return 0;
}
