#!/usr/bin/env bash
# One benchmark run, everything side by side: cellc's kernels and the naive baseline
# (cargo bench), OpenVINO on the same configurations (installed pinned in a virtual
# environment), the cost of the generated code (bench/cost.py), the whole real models
# against onnxruntime and OpenVINO (bench/models.py), then docs/PERFORMANCE.md,
# docs/perf/results-FAMILY.json and docs/perf/chart-FAMILY.svg (FAMILY: vendor and microarchitecture, e.g. amd-zen5).
# Arguments go to criterion (e.g. `--measurement-time 2`).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench -p cellc-bench -- "$@"
bench/openvino/run.sh target/openvino.json
python3 bench/cost.py target/cost.json
python3 bench/report.py target/criterion target/openvino.json target/cost.json
# Whole real models beside onnxruntime and OpenVINO (the venv bench/openvino/run.sh made),
# the ones not committed written first.
target/bench-venv/bin/python tests/scripts/gen_models.py target/real-models nsnet2 hey_mycroft
target/bench-venv/bin/python bench/models.py target/models.json
