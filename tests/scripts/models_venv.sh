#!/usr/bin/env bash
# Sourced: `models_venv` makes target/models-venv (the packages of
# tests/scripts/requirements-models.txt: OpenVINO, onnx, onnxruntime, the models' wheels'
# needs) and prints its folder.
models_venv() {
    local root venv
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    venv="$root/target/models-venv"
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv" >&2
    fi
    "$venv/bin/pip" install --quiet -r "$root/tests/scripts/requirements-models.txt" >&2
    echo "$venv"
}
