/* Times each step of a generated C model "net": `main CALLS OUT_LENS INPUT…` runs it CALLS
 * times (after CALLS / 4 warm-up calls) on the inputs (raw f32 files), the model's source
 * built with -D'NET_STEP_DONE(k)=net_step_done(k)' and this file's hook declared
 * (bench/c_profile.h), and prints one line per step: its number and its median time in ns.
 * Used by bench/profile.py. */
#include "net.h"
#include "c_profile.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_STEPS 4096

static double spans[MAX_STEPS];
static size_t steps_seen;
static struct timespec last;

static double now_ns(void) {
    clock_gettime(CLOCK_MONOTONIC, &last);
    return (double)last.tv_sec * 1e9 + (double)last.tv_nsec;
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

static float *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    float *v = malloc((size_t)n);
    if (fread(v, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(1); }
    fclose(f);
    *len = (size_t)n / sizeof(float);
    return v;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    size_t calls = strtoul(argv[1], NULL, 10), n_out = 1, n_in = (size_t)argc - 3, k, s;
    char *lens = argv[2], *c;
    for (c = lens; *c; c++) n_out += *c == ',';
    size_t *out_lens = malloc(n_out * sizeof *out_lens), *in_lens = malloc((n_in + 1) * sizeof *in_lens);
    float **outs = malloc(n_out * sizeof *outs);
    const float **ins = malloc((n_in + 1) * sizeof *ins);
    n_out = 0;
    for (char *tok = lens; *tok; ) {
        out_lens[n_out] = strtoul(tok, &tok, 10);
        outs[n_out] = calloc(out_lens[n_out], sizeof(float));
        n_out++;
        if (*tok == ',') tok++;
    }
    for (k = 0; k < n_in; k++) ins[k] = read_file(argv[3 + k], &in_lens[k]);
    static net_model model;
    double *times = malloc(calls * MAX_STEPS * sizeof(double));
    for (k = 0; k < calls + calls / 4; k++) {
        for (s = 0; s < MAX_STEPS; s++) spans[s] = 0.0;
        last_ns = now_ns();
        if (net_run(&model, ins, in_lens, n_in, outs, out_lens, n_out) != 0) { fprintf(stderr, "run failed\n"); return 1; }
        if (k >= calls / 4)
            for (s = 0; s < steps_seen; s++) times[s * calls + (k - calls / 4)] = spans[s];
    }
    for (s = 0; s < steps_seen; s++) {
        qsort(times + s * calls, calls, sizeof(double), cmp);
        printf("%zu\t%.0f\n", s, times[s * calls + calls / 2]);
    }
    return 0;
}
