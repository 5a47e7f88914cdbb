// RTNeural's recurrent layers behind a C interface, for the side-by-side benchmark
// (bench/benches/peer.rs). Built by bench/build.rs only when RTNEURAL_DIR names a checkout,
// twice: once with the Eigen backend and once with xsimd. Each build gives RTNeural's
// namespace a name of its own (RTNEURAL_NAMESPACE), so that the two backends' templates
// never meet at link time, and prefixes its C functions (PEER_PREFIX).
//
// Each layer is a ModelT holding one GRULayerT or LSTMLayerT with its sizes as template
// arguments, stepped with ModelT::forward, as RTNeural's own benchmark steps it. Weights come
// in Keras's layout, as RTNeural's setters take them: the kernel [I][G*H], the recurrent
// kernel [H][G*H], and the bias ([2][3*H] for a GRU, input then recurrent; [4*H] for an LSTM).
#include <RTNeural/RTNeural.h>

#include <cstddef>
#include <vector>

#define PEER_CAT2(a, b) a##b
#define PEER_CAT(a, b) PEER_CAT2(a, b)
#define PEER_FN(name) PEER_CAT(PEER_PREFIX, name)

namespace
{
std::vector<std::vector<float>> rows(const float* v, std::size_t n, std::size_t m)
{
    std::vector<std::vector<float>> out(n, std::vector<float>(m));
    for(std::size_t i = 0; i < n; ++i)
        for(std::size_t j = 0; j < m; ++j)
            out[i][j] = v[i * m + j];
    return out;
}

template <int I, int H>
struct Gru
{
    RTNEURAL_NAMESPACE::ModelT<float, I, H, RTNEURAL_NAMESPACE::GRULayerT<float, I, H>> model;

    Gru(const float* kernel, const float* recurrent, const float* bias)
    {
        auto& layer = model.template get<0>();
        layer.setWVals(rows(kernel, I, 3 * H));
        layer.setUVals(rows(recurrent, H, 3 * H));
        layer.setBVals(rows(bias, 2, 3 * H));
        model.reset();
    }
};

template <int I, int H>
struct Lstm
{
    RTNEURAL_NAMESPACE::ModelT<float, I, H, RTNEURAL_NAMESPACE::LSTMLayerT<float, I, H>> model;

    Lstm(const float* kernel, const float* recurrent, const float* bias)
    {
        auto& layer = model.template get<0>();
        layer.setWVals(rows(kernel, I, 4 * H));
        layer.setUVals(rows(recurrent, H, 4 * H));
        layer.setBVals(std::vector<float>(bias, bias + 4 * H));
        model.reset();
    }
};
} // namespace

// One set of functions per layer and size: `new` (weights as above), `reset`, `forward`
// (one step on `x`, aligned to 64 bytes; returns the first output), `outputs` (the state
// after the last step) and `free`.
#define PEER_LAYER(Kind, kind, I, H)                                                                  \
    extern "C" void* PEER_FN(kind##_##I##_##H##_new)(const float* k, const float* r, const float* b) \
    {                                                                                                 \
        return new Kind<I, H>(k, r, b);                                                               \
    }                                                                                                 \
    extern "C" void PEER_FN(kind##_##I##_##H##_reset)(void* p)                                        \
    {                                                                                                 \
        static_cast<Kind<I, H>*>(p)->model.reset();                                                   \
    }                                                                                                 \
    extern "C" float PEER_FN(kind##_##I##_##H##_forward)(void* p, const float* x)                     \
    {                                                                                                 \
        return static_cast<Kind<I, H>*>(p)->model.forward(x);                                         \
    }                                                                                                 \
    extern "C" const float* PEER_FN(kind##_##I##_##H##_outputs)(void* p)                              \
    {                                                                                                 \
        return static_cast<Kind<I, H>*>(p)->model.getOutputs();                                       \
    }                                                                                                 \
    extern "C" void PEER_FN(kind##_##I##_##H##_free)(void* p)                                         \
    {                                                                                                 \
        delete static_cast<Kind<I, H>*>(p);                                                           \
    }

PEER_LAYER(Gru, gru, 16, 128)
PEER_LAYER(Gru, gru, 1, 16)
PEER_LAYER(Gru, gru, 256, 256)
PEER_LAYER(Lstm, lstm, 16, 128)
