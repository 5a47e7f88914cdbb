#!/usr/bin/env bash
# The embedded example (examples/embedded): the shipped GRU compiled by cellc into firmware
# for a Cortex-M4F (thumbv7em-none-eabihf, no_std, no allocator), checked with rustfmt and
# clippy, its size reported, and run on QEMU's mps2-an386 board (a Cortex-M4 with its FPU),
# where it compares every hidden state with OpenVINO's. Installs the target's standard
# library (rustup) and qemu-system-arm (Debian) when missing.
set -euo pipefail
cd "$(dirname "$0")/../../examples/embedded"
triple=thumbv7em-none-eabihf

rustup target list --installed | grep -qx "$triple" || rustup target add "$triple"
if ! command -v qemu-system-arm >/dev/null; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq qemu-system-arm >/dev/null
fi

cargo fmt -- --check
cargo clippy --locked --release -- -D warnings
cargo build --locked --release
elf="target/$triple/release/example-embedded"

echo "firmware size (bytes), by section:"
size -A "$elf" | awk '$1 ~ /^\.(vector_table|text|rodata|data|bss)$/ { printf "  %-14s %8d\n", $1, $2 }'
# The model's own tables: the statics the generated file defines (module `vad`).
tables=$(nm -S -C --radix=d "$elf" | awk '$4 ~ /^example_embedded::vad::/ { sum += $2 } END { print sum + 0 }')
echo "  of .rodata, the generated model's weight tables: $tables"

timeout 300 cargo run --locked --release
