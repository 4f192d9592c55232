# netlab tasks. `just` is optional: every recipe is one cargo command you can type.

# Run the whole comparison (auto picks the host kernel or the user-mode-linux guest).
compare *ARGS:
    cargo run --release -p orchestrator -- compare {{ARGS}}

# The README's test command (privileged and guest tests skip without root unless NETLAB_REQUIRE_PRIVILEGED=1).
test:
    cargo test --workspace

# What CI runs.
ci:
    bash .ci/run

lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# Public items per crate, from rustdoc's JSON (nightly); the rule is in the script.
public-items *CRATES:
    scripts/public-items.sh {{CRATES}}

# Benchmarks print figures and ratios against a baseline measured in the same run.
bench-topology:
    cargo bench -p netlab-topology --bench build_teardown

bench-guest:
    cargo bench -p netlab-guest --bench overhead

bench-kernels:
    cargo bench -p netlab-guest --bench kernels

bench-tcpload:
    cargo bench -p netlab-tcpload --bench throughput

bench-probe:
    cargo bench -p netlab-probe --bench schedule

bench-ecn:
    cargo bench -p netlab-ecn --bench capture

bench: bench-topology bench-guest bench-tcpload bench-probe bench-ecn bench-iso bench-rate-change

bench-rate-change:
    cargo bench -p netlab-qdisc --bench rate_change

bench-iso:
    cargo bench -p netlab-probe --bench iso

# Run an experiment file (presets in experiments/).
run FILE *ARGS:
    cargo run --release -p orchestrator -- run {{FILE}} {{ARGS}}

# Re-render a results folder's report.
report PATH:
    cargo run --release -p orchestrator -- report {{PATH}}

# netlab vs iperf3, irtt, tc and ss on the default path (10 rounds per arm, ~17 min).
crosscheck *ARGS:
    cargo build --release -p netlab-guest --bins
    cargo run --release -p netlab-crosscheck --example crosscheck -- {{ARGS}}

# The rate ladder (docs/scale.md): up to which rate this machine shapes
# truthfully, host (pfifo) and guest (pfifo, fq_codel), offloads kernel/off;
# a benchmark (~3 min host, ~8 min guest), then its table. Run it on a quiet
# machine: other load shows as CPU in the verdicts.
ladder *ARGS:
    #!/usr/bin/env bash
    set -euo pipefail
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    cargo build --release -p orchestrator -p netlab-guest --bins
    # A failed rung fails its run (exit 1) but keeps its row: the table says why.
    cargo run --release -p orchestrator -- run experiments/rate_ladder.toml --out results/ladder-host-$stamp {{ARGS}} || echo "ladder: the host run exited $?"
    cargo run --release -p orchestrator -- run experiments/rate_ladder_guest.toml --out results/ladder-guest-$stamp {{ARGS}} || echo "ladder: the guest run exited $?"
    cargo run --release -p netlab-report --example ladder -- results/ladder-host-$stamp results/ladder-guest-$stamp

# Every fuzz target briefly (nightly + cargo-fuzz).
fuzz-smoke:
    sh fuzz/smoke.sh
