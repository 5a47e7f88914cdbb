/* What the C timing programs share (bench/c_main.c, bench/c_profile.c): their arguments,
 * `CALLS OUT_LENS INPUT…` (the inputs raw f32 files, OUT_LENS the outputs' lengths separated
 * by commas), read into arrays, and a comparison for sorting times. */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    size_t calls, n_in, n_out;
    const float **ins;
    size_t *in_lens;
    float **outs;
    size_t *out_lens;
} bench_args;

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

static bench_args read_args(int argc, char **argv) {
    bench_args a;
    size_t k;
    char *c;
    a.calls = strtoul(argv[1], NULL, 10);
    a.n_in = (size_t)argc - 3;
    a.n_out = 1;
    for (c = argv[2]; *c; c++) a.n_out += *c == ',';
    a.out_lens = malloc(a.n_out * sizeof *a.out_lens);
    a.in_lens = malloc((a.n_in + 1) * sizeof *a.in_lens);
    a.outs = malloc(a.n_out * sizeof *a.outs);
    a.ins = malloc((a.n_in + 1) * sizeof *a.ins);
    a.n_out = 0;
    for (char *tok = argv[2]; *tok; ) {
        a.out_lens[a.n_out] = strtoul(tok, &tok, 10);
        a.outs[a.n_out] = calloc(a.out_lens[a.n_out], sizeof(float));
        a.n_out++;
        if (*tok == ',') tok++;
    }
    for (k = 0; k < a.n_in; k++) a.ins[k] = read_file(argv[3 + k], &a.in_lens[k]);
    return a;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
