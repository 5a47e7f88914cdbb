#!/usr/bin/env bash
# Installs the pinned OpenVINO (requirements.txt) into a virtual environment under
# target/ and times it on the benchmark configurations: bench/openvino/run.sh OUT.json
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/target/bench-venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet -r "$here/requirements.txt"
"$venv/bin/python" "$here/bench_openvino.py" "${1:-$root/target/openvino.json}"
