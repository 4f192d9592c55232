//! Checks experiment files and prints their plan: `cargo run -p
//! netlab-experiment --example check_experiment -- experiments/*.toml`.

fn main() {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        match netlab_experiment::load(std::path::Path::new(&path)) {
            Ok(exp) => {
                let plan = exp.plan();
                println!(
                    "{path}: {} points, {} scenarios, timelines {:?}",
                    plan.points.len(),
                    plan.scenarios.len(),
                    plan.timeline_total()
                );
            }
            Err(e) => {
                failed = true;
                println!("{path}: {e}");
            }
        }
    }
    std::process::exit(i32::from(failed));
}
