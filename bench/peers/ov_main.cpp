// Times OpenVINO as a C++ program calls it: through its C++ API (the headers and library its
// wheel ships), the CPU plugin with one thread, one stream and f32 inference, the model
// reshaped to the inputs' shapes, every input and output tensor bound once to a buffer made
// here, the same request repeated. Prints the median call in ns and writes the last call's
// outputs. Arguments: see peer_args.h. Used by bench/models.py.
#include "peer_args.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <openvino/openvino.hpp>
#include <vector>

int main(int argc, char** argv) {
    peer_args a = peer_read_args(argc, argv);
    try {
        ov::Core core;
        auto model = core.read_model(a.model);
        std::map<std::string, ov::PartialShape> shapes;
        for (size_t k = 0; k < a.n_in; k++) {
            const peer_tensor& t = a.ins[k];
            shapes[t.name] = ov::PartialShape(std::vector<ov::Dimension>(t.shape, t.shape + t.rank));
        }
        model->reshape(shapes);
        auto compiled = core.compile_model(model, "CPU", ov::hint::inference_precision(ov::element::f32),
                                           ov::inference_num_threads(1), ov::num_streams(1));
        auto request = compiled.create_infer_request();
        for (size_t k = 0; k < a.n_in + a.n_out; k++) {
            const peer_tensor& t = k < a.n_in ? a.ins[k] : a.outs[k - a.n_in];
            ov::Shape shape(t.shape, t.shape + t.rank);
            request.set_tensor(t.name, ov::Tensor(t.f64 ? ov::element::f64 : ov::element::f32, shape, t.data));
        }
        for (size_t k = 0; k < a.calls / 4; k++) request.infer();
        std::vector<double> times(a.calls);
        for (size_t k = 0; k < a.calls; k++) {
            auto t0 = std::chrono::steady_clock::now();
            request.infer();
            times[k] = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
        }
        peer_write_outputs(&a);
        std::sort(times.begin(), times.end());
        printf("%.0f\n", times.empty() ? 0.0 : times[a.calls / 2]);
    } catch (const std::exception& e) {
        peer_fail(a.model, e.what());
    }
    return 0;
}
