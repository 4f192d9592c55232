#!/bin/sh
# CI smoke run of every fuzz target: builds them once, then runs each for a
# short fixed time (NETLAB_FUZZ_SECONDS, default 10) on a scratch copy of
# its committed corpus, one target at a time (single job). Fails on any
# crash, printing the reproducer's path. Prints each target's executions
# and the total time.
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz
# --locked`). When either is missing it prints a loud banner and exits 1,
# or 0 if NETLAB_FUZZ_OPTIONAL=1.
#
#   sh fuzz/smoke.sh                      # all targets, 10 s each
#   NETLAB_FUZZ_SECONDS=3 sh fuzz/smoke.sh qdisc_rate ecn_frames
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${NETLAB_FUZZ_SECONDS:-10}
# Same flags as fuzz/README.md: no sanitizer (the crates are safe Rust;
# panics are what we look for), debug assertions + overflow checks on.
flags="-s none -a"

skip() {
    echo "################################################################"
    echo "## FUZZ SMOKE SKIPPED: $1"
    echo "################################################################"
    if [ "${NETLAB_FUZZ_OPTIONAL:-0}" = 1 ]; then
        echo "NETLAB_FUZZ_OPTIONAL=1: not failing" >&2
        exit 0
    fi
    echo "set NETLAB_FUZZ_OPTIONAL=1 to allow this skip" >&2
    exit 1
}

command -v cargo >/dev/null 2>&1 || skip "cargo not found"
cargo +nightly --version >/dev/null 2>&1 ||
    skip "no nightly toolchain (rustup toolchain install nightly)"
cargo +nightly fuzz --version >/dev/null 2>&1 ||
    skip "cargo-fuzz not installed (cargo install cargo-fuzz --locked)"

cd "$root" || exit 1
if [ $# -gt 0 ]; then
    targets="$*"
else
    targets=$(cargo +nightly fuzz list) || exit 1
fi
t0=$(date +%s)
echo "fuzz smoke: building all targets ($flags)"
cargo +nightly fuzz build $flags || exit 1

scratch=$(mktemp -d "${TMPDIR:-/tmp}/netlab-fuzz-smoke.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT INT TERM
failed=""
report=""
for t in $targets; do
    mkdir -p "$scratch/corpus/$t" "$scratch/artifacts/$t"
    log="$scratch/$t.log"
    # First corpus dir takes new inputs (scratch); the committed one is read only.
    timeout $((secs + 120)) cargo +nightly fuzz run $flags "$t" \
        "$scratch/corpus/$t" "fuzz/corpus/$t" -- \
        -max_total_time="$secs" -artifact_prefix="$scratch/artifacts/$t/" \
        -print_final_stats=1 >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    line=$(printf '%-20s %10s execs  rc=%s' "$t" "${runs:-?}" "$rc")
    echo "$line"
    report="$report$line
"
    if [ "$rc" -ne 0 ]; then
        failed="$failed $t"
        tail -40 "$log"
        for a in "$scratch/artifacts/$t"/*; do
            [ -e "$a" ] || continue
            keep="$root/fuzz/artifacts/$t"
            mkdir -p "$keep" && cp "$a" "$keep/"
            echo "reproducer: $keep/$(basename "$a")"
        done
    fi
done
t1=$(date +%s)
echo "---- fuzz smoke summary (${secs}s per target, total $((t1 - t0))s incl. build)"
printf '%s' "$report"
if [ -n "$failed" ]; then
    echo "FUZZ SMOKE FAILED:$failed"
    exit 1
fi
echo "fuzz smoke: all targets ran without a crash"
