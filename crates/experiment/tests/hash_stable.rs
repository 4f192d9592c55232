//! The content hash of every committed experiment stays what it was: shard
//! folders written by an earlier netlab must still merge and resume with
//! the files they came from. The values were printed by `orchestrator plan
//! FILE` with the hand-written SHA-256 netlab used before the `sha2` crate
//! (commit 73faee1); the shard fixture's is the `experiment_hash` a real
//! run recorded in fixtures/orchestrator/shard/results.json.
//!
//! The presets that gained the isochronous probe beside the stop-and-wait
//! one (docs/method.md §10) have new hashes; without that probe (and, for
//! the seed, its old description) each still hashes to what it did, so the
//! computation itself is unchanged.

use std::path::Path;

const PINNED: &[(&str, &str)] = &[
    (
        "experiments/aqm_zoo.toml",
        "6a74ee9c14e6d5e6c203ccbce7afa96edb509d9bafc41ba190b0c0765d14a1a0",
    ),
    (
        "experiments/cc_mix.toml",
        "bb1862b5ad9133e99e5c8a478e5f441bfeb88dabc4748cecdb0144d69c644347",
    ),
    (
        "experiments/rrul_be.toml",
        "c0089a04d9f230f95a92196d15762e4b09d9c4bafb7a2dcba90a2685ee6e4552",
    ),
    (
        "experiments/rtt_sweep.toml",
        "8e0dc6389ba711f1c5d5c75f5fbbf903df2df47549c1b3cede7789c3ed48563d",
    ),
    (
        "experiments/seed.toml",
        "282bb327e13641c7a207566ef303e4a942bee29a6df98adc1f39ab946d1276b3",
    ),
    (
        "fixtures/orchestrator/shard/experiment.toml",
        "f06da96d1094d53a909728d7ccb7aac8a75ef4bebcca7787d063ffb801213dfe",
    ),
];

#[test]
fn committed_experiments_keep_their_hash() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (file, hash) in PINNED {
        let exp =
            netlab_experiment::load(&root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(&exp.content_hash(), hash, "{file}");
    }
}

/// The hashes the presets had before they named the isochronous probe.
const BEFORE_ISO: &[(&str, &str)] = &[
    (
        "experiments/aqm_zoo.toml",
        "28d8de4c10b98a7a33c0b5147ce5b4daed7b9bceedf92628d749bf84018f9128",
    ),
    (
        "experiments/cc_mix.toml",
        "3f437216590de14f90db37bb6af453d34eb0989c16d08bede06c894d36bdcc96",
    ),
    (
        "experiments/rtt_sweep.toml",
        "f0229ce3ae9a4a7fc3c63928a3c2202c5431bad3dc090c2be6f6e7d5c288048a",
    ),
    (
        "experiments/seed.toml",
        "bd89e7bdba1f4090326f6e0be4ba6c30b381cbf56363f0678ed59c299b2670c2",
    ),
];

#[test]
fn without_the_isochronous_probe_the_presets_hash_as_before() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (file, hash) in BEFORE_ISO {
        let mut exp =
            netlab_experiment::load(&root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        exp.probes
            .retain(|p| p.kind != netlab_experiment::ProbeKind::Isochronous);
        if exp.name == "seed" {
            exp.description = netlab_experiment::Experiment::seed_description(false);
        }
        assert_eq!(&exp.content_hash(), hash, "{file}");
    }
}
