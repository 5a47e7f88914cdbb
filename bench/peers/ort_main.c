/* Times onnxruntime as a C program calls it: through the C API of the shared library its
 * wheel ships (libonnxruntime.so), one thread, every input and output bound once to a
 * buffer made here, the same call repeated. Prints the median call in ns and writes the
 * last call's outputs. Arguments: see peer_args.h. Used by bench/models.py.
 *
 * The wheel ships no header, so the few entries of the OrtApi table used are declared here
 * by their place in it (the table only grows at its end, so these places hold for every
 * version from API 22 on). */
#define _POSIX_C_SOURCE 199309L
#include "peer_args.h"
#include <time.h>

typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtValue OrtValue;
typedef void (*ort_fn)(void);
typedef struct {
    const ort_fn *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} OrtApiBase;
const OrtApiBase *OrtGetApiBase(void);

enum { API_VERSION = 22, LOG_ERROR = 3, ALLOC_ARENA = 1, MEM_DEFAULT = 0, TYPE_FLOAT = 1, TYPE_DOUBLE = 11 };
/* Places in the OrtApi table. */
enum {
    GET_ERROR_MESSAGE = 2, CREATE_ENV = 3, CREATE_SESSION = 7, RUN = 9, CREATE_SESSION_OPTIONS = 10,
    SET_INTRA_OP_THREADS = 24, SET_INTER_OP_THREADS = 25, CREATE_TENSOR_WITH_DATA = 49, CREATE_CPU_MEMORY_INFO = 69
};

static const ort_fn *api;

static void check(OrtStatus *s, const char *what) {
    if (s) {
        const char *(*message)(const OrtStatus *) = (const char *(*)(const OrtStatus *))api[GET_ERROR_MESSAGE];
        peer_fail(what, message(s));
    }
}

int main(int argc, char **argv) {
    peer_args a = peer_read_args(argc, argv);
    OrtEnv *env;
    OrtSessionOptions *opts;
    OrtSession *session;
    OrtMemoryInfo *cpu;
    OrtValue **ins, **outs;
    const char **in_names, **out_names;
    double *times = malloc((a.calls ? a.calls : 1) * sizeof(double));
    size_t k;
    api = OrtGetApiBase()->GetApi(API_VERSION);
    if (!api) peer_fail("onnxruntime", "API version 22 not supported");
    check(((OrtStatus * (*)(int, const char *, OrtEnv **)) api[CREATE_ENV])(LOG_ERROR, "bench", &env), "CreateEnv");
    check(((OrtStatus * (*)(OrtSessionOptions **)) api[CREATE_SESSION_OPTIONS])(&opts), "CreateSessionOptions");
    check(((OrtStatus * (*)(OrtSessionOptions *, int)) api[SET_INTRA_OP_THREADS])(opts, 1), "SetIntraOpNumThreads");
    check(((OrtStatus * (*)(OrtSessionOptions *, int)) api[SET_INTER_OP_THREADS])(opts, 1), "SetInterOpNumThreads");
    check(((OrtStatus * (*)(const OrtEnv *, const char *, const OrtSessionOptions *, OrtSession **)) api[CREATE_SESSION])(
              env, a.model, opts, &session),
          a.model);
    check(((OrtStatus * (*)(int, int, OrtMemoryInfo **)) api[CREATE_CPU_MEMORY_INFO])(ALLOC_ARENA, MEM_DEFAULT, &cpu),
          "CreateCpuMemoryInfo");
    ins = calloc(a.n_in + 1, sizeof *ins);
    outs = calloc(a.n_out + 1, sizeof *outs);
    in_names = calloc(a.n_in + 1, sizeof *in_names);
    out_names = calloc(a.n_out + 1, sizeof *out_names);
    for (k = 0; k < a.n_in + a.n_out; k++) {
        peer_tensor *t = k < a.n_in ? &a.ins[k] : &a.outs[k - a.n_in];
        OrtValue **v = k < a.n_in ? &ins[k] : &outs[k - a.n_in];
        check(((OrtStatus * (*)(const OrtMemoryInfo *, void *, size_t, const int64_t *, size_t, int, OrtValue **))
                   api[CREATE_TENSOR_WITH_DATA])(cpu, t->data, t->len * peer_size(t), t->shape, t->rank, t->f64 ? TYPE_DOUBLE : TYPE_FLOAT, v),
              t->name);
        if (k < a.n_in) in_names[k] = t->name;
        else out_names[k - a.n_in] = t->name;
    }
    {
        OrtStatus *(*run)(OrtSession *, const void *, const char *const *, const OrtValue *const *, size_t,
                          const char *const *, size_t, OrtValue **) =
            (OrtStatus * (*)(OrtSession *, const void *, const char *const *, const OrtValue *const *, size_t,
                             const char *const *, size_t, OrtValue **)) api[RUN];
        for (k = 0; k < a.calls / 4; k++)
            check(run(session, NULL, in_names, (const OrtValue *const *)ins, a.n_in, out_names, a.n_out, outs), "Run");
        for (k = 0; k < a.calls; k++) {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            check(run(session, NULL, in_names, (const OrtValue *const *)ins, a.n_in, out_names, a.n_out, outs), "Run");
            clock_gettime(CLOCK_MONOTONIC, &t1);
            times[k] = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
        }
    }
    peer_write_outputs(&a);
    qsort(times, a.calls, sizeof(double), peer_cmp);
    printf("%.0f\n", a.calls ? times[a.calls / 2] : 0.0);
    return 0;
}
