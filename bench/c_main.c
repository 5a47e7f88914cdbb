/* Times a generated C model "net": `main CALLS OUT_LENS INPUT…` runs it CALLS times (after
 * CALLS / 4 warm-up calls) on the inputs (raw f32 files) and prints the median call in ns.
 * Used by bench/models.py and tests/scripts/c_speed.sh. */
#include "net.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
    size_t calls = strtoul(argv[1], NULL, 10), n_out = 1, n_in = (size_t)argc - 3, k;
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
    double *times = malloc(calls * sizeof(double));
    for (k = 0; k < calls / 4; k++) net_run(&model, ins, in_lens, n_in, outs, out_lens, n_out);
    for (k = 0; k < calls; k++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (net_run(&model, ins, in_lens, n_in, outs, out_lens, n_out) != 0) { fprintf(stderr, "run failed\n"); return 1; }
        clock_gettime(CLOCK_MONOTONIC, &b);
        times[k] = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    }
    qsort(times, calls, sizeof(double), cmp);
    printf("%.0f\n", times[calls / 2]);
    return 0;
}
