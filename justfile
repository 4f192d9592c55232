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

# Benchmarks print figures and ratios against a baseline measured in the same run.
bench-topology:
    cargo bench -p netlab-topology --bench build_teardown

bench-guest:
    cargo bench -p netlab-guest --bench overhead

bench-tcpload:
    cargo bench -p netlab-tcpload --bench throughput

bench-probe:
    cargo bench -p netlab-probe --bench schedule

bench-ecn:
    cargo bench -p netlab-ecn --bench capture

bench: bench-topology bench-guest bench-tcpload bench-probe bench-ecn
