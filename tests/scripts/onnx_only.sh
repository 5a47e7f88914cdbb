#!/usr/bin/env bash
# From a PyTorch export to running Rust and C, with no OpenVINO anywhere: the ONNX file of
# tests/models/pt_gru_dynamic_h0 (a GRU as torch.onnx.export writes it) compiled by cellc
# with a PATH that holds no `ovc` and a python3 that cannot import openvino; a Rust program
# (a crate outside the workspace depending on cellc-runtime, warnings denied) and a C program
# run it on the case's inputs and compare with onnxruntime's outputs committed beside them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/scripts/app_crate.sh"
case_dir="$root/tests/models/pt_gru_dynamic_h0"
cargo build --quiet --release -p cellc --manifest-path "$root/Cargo.toml"
cellc="$root/target/release/cellc"

# No virtual environment's tools on the PATH.
PATH=$(echo "$PATH" | tr ':' '\n' | grep -v -e '-venv/' -e '/venv/' | paste -sd: -)
export PATH
if command -v ovc >/dev/null; then
    echo "onnx_only: ovc is on the PATH ($(command -v ovc)); this check needs a machine without it" >&2
    exit 1
fi
if python3 -c 'import openvino' 2>/dev/null; then
    echo "onnx_only: python3 imports openvino; this check needs a machine without it" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$case_dir"/model.onnx "$case_dir"/in_0.f32 "$case_dir"/in_1.f32 "$case_dir"/out_0.f32 "$case_dir"/out_1.f32 "$work"
cd "$work"
pins=(--input 'input=[2,5,8]' --input 'h0=[1,2,16]')
"$cellc" model.onnx "${pins[@]}" --name Net -o net.rs
"$cellc" model.onnx "${pins[@]}" --name net --lang c -o net.c
echo "onnx_only: compiled model.onnx to Rust and C without OpenVINO"

# The largest difference allowed from onnxruntime's outputs (the case's tolerance).
tol=1e-5

app_crate app onnx-only
cp net.rs app/src/net.rs
cat > app/src/main.rs <<'RUST'
mod net {
    include!("net.rs");
}
use cellc_runtime::Model as _;

fn floats(path: &str) -> Vec<f32> {
    let bytes = std::fs::read(path).expect("a data file");
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn main() {
    let tol: f32 = std::env::args().nth(1).expect("a tolerance").parse().expect("a number");
    let (x, h0) = (floats("in_0.f32"), floats("in_1.f32"));
    let (want_y, want_h) = (floats("out_0.f32"), floats("out_1.f32"));
    let mut model = net::Net::new();
    let (mut y, mut h) = (vec![0.0f32; want_y.len()], vec![0.0f32; want_h.len()]);
    model.run(&[&x, &h0], &mut [&mut y, &mut h]).expect("runs");
    let worst = y.iter().zip(&want_y).chain(h.iter().zip(&want_h)).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    println!("rust: max |cellc - onnxruntime| = {worst:e}");
    assert!(worst <= tol, "the Rust differs from onnxruntime by {worst}");
}
RUST
(cd app && RUSTFLAGS="-D warnings" CARGO_TARGET_DIR="$root/target/outside" cargo build --quiet)
"$root/target/outside/debug/onnx-only" "$tol"

cat > main.c <<'C'
#include "net.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static float *floats(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    float *v = malloc((size_t)bytes);
    *n = fread(v, sizeof(float), (size_t)bytes / sizeof(float), f);
    fclose(f);
    return v;
}

int main(int argc, char **argv) {
    float tol = strtof(argc > 1 ? argv[1] : "0", NULL);
    size_t nx, nh, ny, nhn;
    float *x = floats("in_0.f32", &nx), *h0 = floats("in_1.f32", &nh);
    float *want_y = floats("out_0.f32", &ny), *want_h = floats("out_1.f32", &nhn);
    float *y = calloc(ny, sizeof(float)), *hn = calloc(nhn, sizeof(float));
    const float *ins[] = {x, h0};
    size_t in_lens[] = {nx, nh};
    float *outs[] = {y, hn};
    size_t out_lens[] = {ny, nhn};
    net_model model = {0};
    int status = net_run(&model, ins, in_lens, 2, outs, out_lens, 2);
    if (status != NET_OK) { fprintf(stderr, "net_run: %s\n", net_status_name(status)); return 1; }
    float worst = 0;
    for (size_t i = 0; i < ny; i++) worst = fmaxf(worst, fabsf(y[i] - want_y[i]));
    for (size_t i = 0; i < nhn; i++) worst = fmaxf(worst, fabsf(hn[i] - want_h[i]));
    printf("c: max |cellc - onnxruntime| = %e\n", (double)worst);
    return worst <= tol ? 0 : 1;
}
C
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic main.c net.c -lm -o main
./main "$tol"
echo "onnx_only: the Rust and the C match onnxruntime within $tol"
