/* A voice-activity GRU in a C program: the README's model (examples/gru, a GRUCell with
 * hidden size 128 and input size 16) compiled by `cellc --lang c --name vad`, run on 60
 * feature frames that arrive in blocks, as they would from an audio callback.
 *
 * It checks itself: every hidden state against OpenVINO's (data/expected.f32, from
 * tests/scripts/gen_fixtures.py), feeding in blocks against stepping one frame at a time
 * through the model entry point, and a wrong length against the status it must return.
 *
 * Usage: vad-demo data/input.f32 data/expected.f32 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "vad.h"

#define STEPS 60
#define I VAD_GRU_INPUT_SIZE
#define H VAD_GRU_HIDDEN_SIZE

/* Reads exactly n little-endian floats (this program assumes a little-endian host). */
static int read_floats(const char *path, float *out, size_t n)
{
    FILE *f = fopen(path, "rb");
    size_t got;
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", path);
        return 0;
    }
    got = fread(out, sizeof(float), n, f);
    fclose(f);
    if (got != n) {
        fprintf(stderr, "%s: expected %zu floats, read %zu\n", path, n, got);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    static float xs[STEPS * I], expected[STEPS * H], ys[STEPS * H], stepped[STEPS * H];
    static const float zero[H];
    float h[H] = {0.0f};
    const size_t blocks[] = {8, 1, 20, 31};
    size_t t = 0, k, j;
    double worst = 0.0, apart = 0.0;
    vad_model model;
    int status;

    if (argc != 3 || !read_floats(argv[1], xs, STEPS * I) || !read_floats(argv[2], expected, STEPS * H)) {
        fprintf(stderr, "usage: %s input.f32 expected.f32\n", argv[0]);
        return 2;
    }

    /* Streaming: the state lives in `h`, frames come in blocks of any size. */
    for (k = 0; k < sizeof blocks / sizeof blocks[0]; ++k) {
        vad_gru_feed(h, xs + t * I, ys + t * H, blocks[k]);
        t += blocks[k];
    }

    /* The model entry point, one frame at a time: Parameters X and H in, Result out. */
    for (t = 0; t < STEPS; ++t) {
        const float *inputs[2];
        float *outputs[1];
        const size_t input_lens[2] = {I, H};
        const size_t output_lens[1] = {H};
        inputs[0] = xs + t * I;
        inputs[1] = t == 0 ? zero : stepped + (t - 1) * H;
        outputs[0] = stepped + t * H;
        status = vad_run(&model, inputs, input_lens, 2, outputs, output_lens, 1);
        if (status != VAD_OK) {
            fprintf(stderr, "vad_run: %s\n", vad_status_name(status));
            return 1;
        }
    }

    for (j = 0; j < STEPS * H; ++j) {
        const double e = fabs((double)ys[j] - (double)expected[j]);
        const double d = fabs((double)ys[j] - (double)stepped[j]);
        worst = e > worst ? e : worst;
        apart = d > apart ? d : apart;
    }
    printf("%d frames in blocks of 8, 1, 20, 31: max |error| against OpenVINO %.3g\n", STEPS, worst);
    printf("feed in blocks vs vad_run frame by frame: max |difference| %.3g\n", apart);

    /* A wrong length is refused with a status, and nothing is written. */
    {
        const float *inputs[2];
        float *outputs[1];
        const size_t input_lens[2] = {I - 1, H};
        const size_t output_lens[1] = {H};
        inputs[0] = xs;
        inputs[1] = h;
        outputs[0] = stepped;
        status = vad_run(&model, inputs, input_lens, 2, outputs, output_lens, 1);
        printf("a 15-float X: %s\n", vad_status_name(status));
        if (status != VAD_ERR_LENGTH) return 1;
    }
    return worst <= 1e-5 && apart <= 1e-6 ? 0 : 1;
}
