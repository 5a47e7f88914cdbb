#!/usr/bin/env bash
# The README's way in, as a new user takes it from a clone: install the `cellc` command with
# `cargo install --locked --path`, compile the example model with it, make a new crate outside the
# workspace, depend on cellc-runtime with `cargo add --path`, paste the README's usage
# snippet as its main.rs, and build (warnings denied) and run it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "\$ cargo install --locked --path cellc"
# The workspace's target directory, so that a release build already made is reused.
cargo install --quiet --locked --path "$root/cellc" --root "$work/install" --target-dir "$root/target"
cellc="$work/install/bin/cellc"
"$cellc" --version

cd "$work"
cargo new --quiet --bin app
cd app
cargo add --quiet cellc-runtime --path "$root/runtime"
"$cellc" "$root/examples/gru/model.xml" -o src/gru.rs
# The README's usage snippet: the rust block that includes the generated `gru.rs`.
awk '/^```rust,ignore$/ { getline first; if (first ~ /^include!\("gru.rs"\)/) { print first; inside = 1 }; next }
     /^```/ { inside = 0 } inside' "$root/README.md" > src/main.rs
grep -q 'fn main' src/main.rs
RUSTFLAGS="-D warnings" CARGO_TARGET_DIR="$root/target/outside" cargo run --quiet
# Generated code needs the runtime alone: none of the compiler is built for it.
built=$(cargo tree --quiet --prefix none --edges normal | sed 's/ .*//' | sort -u)
for heavy in syn quick-xml cellc cellc-macros proc-macro2; do
    if grep -qx "$heavy" <<< "$built"; then
        echo "fresh user: the crate builds $heavy, which generated code does not need" >&2
        exit 1
    fi
done
echo "fresh user: its dependencies: $(tr '\n' ' ' <<< "$built")"
echo "fresh user: 1 passed, 0 failed"
