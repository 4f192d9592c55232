//! The merge of a sharded run's folders, on its own (the orchestrator's
//! `merge` tests add the summary and report): scenarios byte for byte in
//! plan order, the merge record, and the refusals, each before anything is
//! written.

use netlab_os::testing::Scratch;
use netlab_results::merge::{check_folders, read_source, MergeError};
use netlab_results::testing::{elements, golden_study, shard_folder};
use netlab_results::{Results, SCHEMA_VERSION};

#[test]
fn two_shards_become_one_results_folder_byte_for_byte() {
    let dir = Scratch::new("results-merge");
    let (header, sc) = golden_study(2);
    let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
    let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
    let out = dir.0.join("merged");
    let mut said = Vec::new();
    let checked =
        check_folders(&out, &[b.clone(), a.clone()], false, &mut |m| said.push(m)).unwrap();
    assert!(!out.exists(), "the first pass writes nothing");
    assert!(checked.missing().is_empty());
    let merged = checked.write(&mut |m| said.push(m)).unwrap();
    assert!(said.is_empty(), "{said:?}");
    assert_eq!(merged.files.len(), 4);
    let mut from_shards = elements(&a.join("results.json"));
    from_shards.extend(elements(&b.join("results.json")));
    assert_eq!(elements(&out.join("results.json")), from_shards);
    let r = Results::read(&out.join("results.json")).unwrap();
    assert_eq!(r.scenarios, sc);
    let rec = r.merged.unwrap();
    assert_eq!((rec.planned, rec.missing.len()), (4, 0));
    assert_eq!(rec.sources[0].plan_indices, [3, 4]);
    assert_eq!(rec.sources[1].shard.as_deref(), Some("1/2"));
    assert_eq!(read_source(&a).unwrap().in_results, [1, 2].into());
    merged.files.remove_files().unwrap();
}

#[test]
fn a_missing_or_repeated_share_is_refused_before_anything_is_written() {
    let dir = Scratch::new("results-merge-bad");
    let (header, sc) = golden_study(2);
    let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
    let out = dir.0.join("merged");
    let mut quiet = |_: String| {};
    let e = check_folders(&out, std::slice::from_ref(&a), false, &mut quiet).unwrap_err();
    assert!(
        matches!(&e, MergeError::Data(m) if m.contains("plan indices 3, 4")),
        "{e}"
    );
    // A shard folder that holds nothing (its task died in its first
    // scenario, or never ran) counts as missing: its shard and the folder
    // are named, unless --allow-partial.
    let b = dir.0.join("b-never-ran");
    std::fs::create_dir_all(&b).unwrap();
    let e = check_folders(&out, &[a.clone(), b.clone()], false, &mut quiet).unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("plan indices 3, 4; missing shards: 2 of 2; no results.json in ")
            && m.contains("b-never-ran"),
        "{m}"
    );
    let e = check_folders(&out, &[a.clone(), a.clone()], false, &mut quiet).unwrap_err();
    assert!(
        matches!(&e, MergeError::Usage(m) if m.contains("given twice")),
        "{e}"
    );
    // Partial: allowed, and what is missing is recorded.
    let checked = check_folders(&out, std::slice::from_ref(&a), true, &mut quiet).unwrap();
    assert_eq!(checked.missing(), [3, 4]);
    assert!(!out.exists());
    let merged = checked.write(&mut quiet).unwrap();
    assert_eq!(merged.header.merged.as_ref().unwrap().missing, [3, 4]);
    merged.files.remove_files().unwrap();
}

/// Version 2 folders (same shape, later versions only add optional
/// fields) merge into a version 2 result; a version 2 and a current
/// version folder do not merge.
#[test]
fn folders_of_one_older_version_merge_as_that_version_and_mixed_ones_are_refused() {
    let dir = Scratch::new("results-merge-v2");
    let (mut header, sc) = golden_study(2);
    let b3 = shard_folder(&dir.0, "b3", &header, &sc[2..], 2);
    header.schema_version = 2;
    let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
    let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
    let mut quiet = |_: String| {};
    let out = dir.0.join("merged");
    let merged = check_folders(&out, &[a.clone(), b], false, &mut quiet)
        .unwrap()
        .write(&mut quiet)
        .unwrap();
    let r = Results::read(&out.join("results.json")).unwrap();
    assert_eq!(r.schema_version, 2);
    assert_eq!(r.scenarios, sc);
    merged.files.remove_files().unwrap();
    let out = dir.0.join("mixed");
    let e = check_folders(&out, &[a, b3], false, &mut quiet).unwrap_err();
    assert!(
        e.to_string()
            .contains(&format!("is results.json version {SCHEMA_VERSION}, but"))
            && e.to_string()
                .contains("is version 2: only folders of one version merge"),
        "{e}"
    );
    assert!(!out.exists());
}
