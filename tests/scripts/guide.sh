#!/usr/bin/env bash
# Runs docs/GUIDE.md as a user would: every command of its `sh` blocks, in order, in an empty
# directory holding the guide's model (the ONNX file of tests/models/pt_gru_dynamic_h0) and
# silero-vad's IR and a model cellc refuses, with the release `cellc` and OpenVINO's `ovc` (installed from PyPI into
# target/guide-venv) on the PATH; then each of its Rust programs, in a crate of its own
# depending on cellc-runtime, with warnings denied. A command whose comment says "exits with 1" must fail
# with 1; every other one must succeed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/scripts/app_crate.sh"
guide="$root/docs/GUIDE.md"

venv="$root/target/guide-venv"
if [ ! -x "$venv/bin/ovc" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet -r "$root/tests/scripts/requirements-guide.txt"
fi
cargo build --quiet --release -p cellc --manifest-path "$root/Cargo.toml"
export PATH="$root/target/release:$venv/bin:$PATH"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/tests/models/pt_gru_dynamic_h0/model.onnx" "$work/model.onnx"
cp "$root/tests/models/silero_vad/model.xml" "$work/silero.xml"
cp "$root/tests/models/silero_vad/model.bin" "$work/silero.bin"
cp "$root/tests/refused/spectral_lstm/model.xml" "$work/spectral.xml"
cp "$root/tests/refused/spectral_lstm/model.bin" "$work/spectral.bin"
cd "$work"

# The lines of the fenced blocks of one language, in order (with a number, of that block
# alone, from 1).
block_lines() {
    awk -v lang="$1" -v want="${2:-0}" '
        /^```/ { if (inside) { inside = 0 } else if ($0 == "```" lang) { inside = 1; n++ }; next }
        inside && (want == 0 || n == want)' "$guide"
}

ran=0
while IFS= read -r line; do
    [ -z "$line" ] && continue
    echo "\$ $line"
    status=0
    bash -c "$line" > out.txt 2>&1 || status=$?
    want=0
    case "$line" in *"# exits with 1"*) want=1 ;; esac
    if [ "$status" != "$want" ]; then
        cat out.txt
        echo "guide: \`$line\` exited with $status, not $want" >&2
        exit 1
    fi
    ran=$((ran + 1))
done < <(block_lines sh)

# Each Rust program of the guide, in a crate outside the workspace, beside the files the
# commands above generated.
blocks=$(grep -c '^```rust$' "$guide")
for k in $(seq 1 "$blocks"); do
    rm -rf app
    app_crate app guide-app
    for f in ./*.rs ./*.weights.bin; do
        if [ -e "$f" ]; then cp "$f" app/src/; fi
    done
    block_lines rust "$k" > app/src/main.rs
    echo "\$ cargo run (the guide's Rust program $k of $blocks)"
    (cd app && RUSTFLAGS="-D warnings" CARGO_TARGET_DIR="$root/target/outside" cargo run --quiet)
    ran=$((ran + 1))
done
echo "guide: $ran passed, 0 failed"
