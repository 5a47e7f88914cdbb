#!/usr/bin/env bash
# Sourced: `app_crate DIR NAME` makes DIR a binary crate NAME outside the workspace (its
# `src/` empty but for what the caller puts there), depending on this repository's
# cellc-runtime, as a user's crate depends on it.
app_crate() {
    local root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    mkdir -p "$1/src"
    cat > "$1/Cargo.toml" <<TOML
[package]
name = "$2"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
cellc-runtime = { path = "$root/runtime" }

[workspace]
TOML
}
