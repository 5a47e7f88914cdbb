/* What the peers' timing programs (ort_main.c, ov_main.cpp) share: their arguments,
 *   MODEL CALLS [in NAME SHAPE FILE]… [out NAME SHAPE FILE]…
 * (SHAPE as 1,3,256, or f64:1,3,256 for a tensor of doubles; an input FILE raw f32 values,
 * an output FILE where the last call's values are written as f32), read into one list of
 * tensors. */
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
    int f64; /* doubles, not floats */
    void *data;
} peer_tensor;

/* Bytes of one element. */
static inline size_t peer_size(const peer_tensor *t) { return t->f64 ? sizeof(double) : sizeof(float); }

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
    t->f64 = strncmp(text, "f64:", 4) == 0;
    if (t->f64) text += 4;
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
        t->data = calloc(t->len ? t->len : 1, peer_size(t));
        if (input) {
            FILE *f = fopen(t->file, "rb");
            size_t i;
            float v;
            if (!f) peer_fail("cannot read", t->file);
            for (i = 0; i < t->len; i++) {
                if (fread(&v, sizeof v, 1, f) != 1) peer_fail("cannot read", t->file);
                if (t->f64) ((double *)t->data)[i] = v;
                else ((float *)t->data)[i] = v;
            }
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
        const peer_tensor *t = &a->outs[k];
        FILE *f = fopen(t->file, "wb");
        size_t i;
        if (!f) peer_fail("cannot write", t->file);
        for (i = 0; i < t->len; i++) {
            float v = t->f64 ? (float)((const double *)t->data)[i] : ((const float *)t->data)[i];
            if (fwrite(&v, sizeof v, 1, f) != 1) peer_fail("cannot write", t->file);
        }
        fclose(f);
    }
}

static inline int peer_cmp(const void *x, const void *y) {
    double p = *(const double *)x, q = *(const double *)y;
    return (p > q) - (p < q);
}
#endif
