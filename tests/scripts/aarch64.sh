#!/usr/bin/env bash
# aarch64, where NEON is part of the baseline and the kernels have one copy, for the build's
# target: the runtime's unit tests and the conformance suite's generated Rust, cross-built
# and run under qemu-user. Installs what it needs (the target's standard library with
# rustup; Debian's cross gcc, for linking, and qemu-user) when missing; if those cannot be
# had, it fails: the registries provide them, so a run that could not test aarch64 is not a
# pass. Arguments go to the conformance runner.
set -euo pipefail
cd "$(dirname "$0")/../.."
triple=aarch64-unknown-linux-gnu
sysroot=/usr/aarch64-linux-gnu

install() {
    rustup target list --installed | grep -qx "$triple" || rustup target add "$triple" || return 1
    if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
        command -v apt-get >/dev/null || return 1
        sudo=""
        [ "$(id -u)" = 0 ] || sudo="sudo"
        $sudo apt-get update -qq && $sudo apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user ||
            return 1
    fi
}

if ! install; then
    echo "FAILED: the aarch64 target (rustup), its cross linker or qemu-user (Debian's gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user) could not be installed" >&2
    exit 1
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L $sysroot"
cargo test --target "$triple" -p cellc-runtime --lib
CELLC_SCRATCH_TARGET="$triple" CELLC_SCRATCH_RUNNER="qemu-aarch64 -L $sysroot" \
    cargo run -p cellc-conformance --release -- --lang rust "$@" tests/fixtures
