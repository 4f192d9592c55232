//! The complete example of docs/usage.md's experiment-file reference is an
//! experiment this crate accepts, so the reference cannot drift from the
//! parser (every key it shows exists and its values pass the checks).

use std::path::Path;

#[test]
fn the_usage_reference_example_parses() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/usage.md");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text
        .find("A complete example")
        .expect("docs/usage.md has its complete example");
    let block = &text[start..];
    let open = block.find("```toml\n").expect("a toml block") + "```toml\n".len();
    let close = block[open..].find("```").expect("the block ends") + open;
    let exp = netlab_experiment::parse(&block[open..close])
        .unwrap_or_else(|e| panic!("docs/usage.md's example: {e}"));
    // It shows every probe key and probe axis.
    assert_eq!(exp.probes.len(), 2);
    let labels = exp.plan().points[0].label();
    assert!(
        labels.contains("stop_and_wait_interval=") && labels.contains("isochronous_size="),
        "{labels}"
    );
}
