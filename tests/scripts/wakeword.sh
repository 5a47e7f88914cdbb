#!/usr/bin/env bash
# A wake-word detector from openWakeWord's three ONNX models (mel spectrogram, convolutional
# embedding, "hey mycroft" classifier; the openwakeword 0.4.0 wheel ships them, under a
# licence that keeps them out of this repository), compiled by the release `cellc` straight
# from the ONNX files and streamed 80 ms at a time over speech espeak-ng says, against
# onnxruntime chunk by chunk: the same chunks flagged, the largest differences, and the
# time of a chunk in each. Needs Python 3, PyPI and espeak-ng (apt-get install espeak-ng);
# the packages go into target/models-venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/scripts/app_crate.sh"
. "$root/tests/scripts/models_venv.sh"
venv=$(models_venv)
command -v espeak-ng > /dev/null || { echo "wakeword.sh needs espeak-ng (apt-get install espeak-ng)" >&2; exit 1; }
cargo build --quiet --release --locked -p cellc --manifest-path "$root/Cargo.toml"
cellc="$root/target/release/cellc"

work="$root/target/wakeword"
rm -rf "$work" && mkdir -p "$work"
cd "$work"
app_crate app wakeword
"$venv/bin/pip" download --quiet --no-deps openwakeword==0.4.0 -d wheel
"$venv/bin/python" -m zipfile -e wheel/openwakeword-0.4.0-py3-none-any.whl wheel
models="$work/wheel/openwakeword/resources/models"

# The three models as one program includes them: three modules side by side.
"$cellc" "$models/melspectrogram.onnx" --input "input=[1,1760]" --name Mel -o app/src/mel.rs
"$cellc" "$models/embedding_model.onnx" --input "input_1=[1,76,32,1]" --name Embedding -o app/src/emb.rs
"$cellc" "$models/hey_mycroft_v0.1.onnx" --input "input_1=[1,16,96]" --name Mycroft -o app/src/ww.rs

espeak-ng -v en-us+f2 -s 140 -w speech.wav \
    "Good morning. Hey Mycroft. What is the weather like today? ... Hey Mycroft, play some music."
"$venv/bin/python" "$root/tests/wakeword/make_audio.py" speech.wav audio.s16
"$venv/bin/python" "$root/tests/wakeword/reference.py" "$models" audio.s16 .

cp "$root/tests/wakeword/main.rs" app/src/main.rs
(cd app && RUSTFLAGS="-D warnings" cargo run --quiet --release -- "$work")
