/* What the peers' timing programs (ort_main.c, ov_main.cpp) share: their arguments,
 *   MODEL CALLS [in NAME SHAPE FILE]… [out NAME SHAPE FILE]…
 * (SHAPE as 1,3,256; an input FILE raw f32 values, an output FILE where the last call's
 * values are written), read into one list of tensors. */
#ifndef PEER_ARGS_H
#define PEER_ARGS_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name, *file;
    int64_t shape[8];
    size_t rank, len;
    float *data;
} peer_tensor;

typedef struct {
    const char *model;
    size_t calls, n_in, n_out;
    peer_tensor *ins, *outs;
} peer_args;

static inline void peer_fail(const char *what, const char *detail) {
    fprintf(stderr, "%s: %s\n", what, detail);
    exit(1);
}

static inline void peer_shape(peer_tensor *t, const char *text) {
    char *end;
    t->rank = 0;
    t->len = 1;
    while (*text) {
        if (t->rank == 8) peer_fail("more than 8 dimensions", text);
        t->shape[t->rank] = strtoll(text, &end, 10);
        if (end == text || t->shape[t->rank] < 0) peer_fail("not a shape", text);
        t->len *= (size_t)t->shape[t->rank++];
        text = *end == ',' ? end + 1 : end;
    }
}

static inline peer_args peer_read_args(int argc, char **argv) {
    peer_args a;
    int k;
    if (argc < 3) peer_fail("usage", "MODEL CALLS [in NAME SHAPE FILE]... [out NAME SHAPE FILE]...");
    a.model = argv[1];
    a.calls = strtoul(argv[2], NULL, 10);
    a.n_in = a.n_out = 0;
    a.ins = (peer_tensor *)calloc((size_t)argc, sizeof(peer_tensor));
    a.outs = (peer_tensor *)calloc((size_t)argc, sizeof(peer_tensor));
    for (k = 3; k + 3 < argc; k += 4) {
        int input = strcmp(argv[k], "in") == 0;
        peer_tensor *t;
        if (!input && strcmp(argv[k], "out") != 0) peer_fail("expected in or out, found", argv[k]);
        t = input ? &a.ins[a.n_in++] : &a.outs[a.n_out++];
        t->name = argv[k + 1];
        t->file = argv[k + 3];
        peer_shape(t, argv[k + 2]);
        t->data = (float *)calloc(t->len ? t->len : 1, sizeof(float));
        if (input) {
            FILE *f = fopen(t->file, "rb");
            if (!f || fread(t->data, sizeof(float), t->len, f) != t->len) peer_fail("cannot read", t->file);
            fclose(f);
        }
    }
    if (k != argc) peer_fail("a tensor needs NAME SHAPE FILE after", argv[k]);
    return a;
}

/* Writes each output's values to its file. */
static inline void peer_write_outputs(const peer_args *a) {
    size_t k;
    for (k = 0; k < a->n_out; k++) {
        FILE *f = fopen(a->outs[k].file, "wb");
        if (!f || fwrite(a->outs[k].data, sizeof(float), a->outs[k].len, f) != a->outs[k].len) peer_fail("cannot write", a->outs[k].file);
        fclose(f);
    }
}

static inline int peer_cmp(const void *x, const void *y) {
    double p = *(const double *)x, q = *(const double *)y;
    return (p > q) - (p < q);
}
#endif
