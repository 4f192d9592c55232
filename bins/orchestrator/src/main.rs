//! netlab orchestrator (work in progress).
fn main() {}
