#!/usr/bin/env bash
# The generated C of a convolutional model (AECMOS, tests/models/aecmos_swish) built three
# ways and timed side by side in interleaved rounds: `-O2` without `-march` (what a user
# types; on x86-64 the SSE2 baseline, whose kernels run in the copy for the processor they
# find, AVX-512 or AVX2 with FMA), the same with `-DCELLC_PORTABLE` (plain loops), and
# `-O3 -march=native`. Fails when `-O2` is slower than the plain loops at the same flags
# (by more than 15 %, the noise of a shared machine) or more than 3× its own
# `-O3 -march=native` time (issue 65's target). Prints the medians and ratios.
#
# Usage: tests/scripts/c_speed.sh [CELLC]   (default: target/release/cellc, built if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cellc=${1:-$root/target/release/cellc}
[ -x "$cellc" ] || cargo build --release -p cellc --manifest-path "$root/Cargo.toml"
case_dir=$root/tests/models/aecmos_swish
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cellc" "$case_dir/f32/model.xml" --input 'input=[1,3,64,160]' --lang c --name net -o "$work/net.c"
declare -A flags=([O2]="-O2" [O2_loops]="-O2 -DCELLC_PORTABLE" [O3_native]="-O3 -march=native")
for name in O2 O2_loops O3_native; do
    # shellcheck disable=SC2086
    cc -std=c99 ${flags[$name]} -D_POSIX_C_SOURCE=199309L -I"$work" -o "$work/$name" \
        "$work/net.c" "$root/bench/c_main.c" -lm
done
for round in 1 2 3 4 5; do
    for name in O2 O2_loops O3_native; do
        echo "$name $("$work/$name" 24 4 "$case_dir/in_0.f32" "$case_dir/in_1.f32")" >> "$work/times"
    done
done
python3 - "$work/times" <<'EOF'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    name, ns = line.split()
    times.setdefault(name, []).append(float(ns))
med = {k: statistics.median(v) for k, v in times.items()}
for k, v in med.items():
    print(f"  {k:10} {v / 1e6:8.2f} ms a call (median of {len(times[k])} rounds)")
loops, native = med["O2"] / med["O2_loops"], med["O2"] / med["O3_native"]
print(f"  -O2 / plain loops at -O2: {loops:.2f} (at most 1.15); -O2 / -O3 -march=native: {native:.2f} (at most 3)")
if loops > 1.15 or native > 3:
    sys.exit("the C at -O2 is slower than it should be")
EOF
