#!/usr/bin/env bash
# One benchmark run, everything side by side: cellc's kernels and the naive baseline
# (cargo bench), OpenVINO on the same configurations (installed pinned in a virtual
# environment), the cost of the generated code (bench/cost.py), the whole real models
# against onnxruntime (its C API) and OpenVINO (its C++ API), both built against the pinned
# wheels' libraries (bench/models.py, bench/native_peers.py), then docs/PERFORMANCE.md,
# docs/perf/results-FAMILY.json and docs/perf/chart-FAMILY.svg (FAMILY: vendor and microarchitecture, e.g. amd-zen5).
# Arguments go to criterion (e.g. `--measurement-time 2`).
#
# RTNeural, the peer, is timed beside cellc in the same run (bench/benches/peer.rs, interleaved
# rounds) when RTNEURAL_DIR names a checkout of github.com/jatinchowdhury18/RTNeural with its
# xsimd submodule checked out (`git clone --recursive`; Eigen and json come with it). Nothing
# of it is committed here. Without it the report says the peer was not measured.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${RTNEURAL_DIR:-}" ]; then
    echo "peer: RTNeural from $RTNEURAL_DIR ($(git -C "$RTNEURAL_DIR" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))"
else
    echo "peer: RTNEURAL_DIR unset, RTNeural will not be measured"
fi
cargo bench -p cellc-bench -- "$@"
bench/openvino/run.sh target/openvino.json
python3 bench/cost.py target/cost.json
python3 bench/report.py target/criterion target/openvino.json target/cost.json target/peer.json
# Whole real models beside onnxruntime and OpenVINO (the venv bench/openvino/run.sh made),
# the ones not committed written first.
target/bench-venv/bin/python tests/scripts/gen_models.py target/real-models nsnet2 hey_mycroft openwakeword_front
target/bench-venv/bin/python bench/models.py target/models.json
