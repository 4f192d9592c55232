use std::time::Duration;

use super::*;
use crate::model::set_arm_word;
use crate::plan::points;
use netlab_stats::splitmix64;

fn preset(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn seed_preset_is_the_default_experiment() {
    assert_eq!(parse(&preset("seed.toml")).unwrap(), Experiment::default());
    // An empty file is the same experiment but for its probes: without
    // `[[probes]]` a file runs the stop-and-wait probe alone, as it always
    // has, so files written before the isochronous probe became the
    // method's keep their content hash (and their shard folders).
    assert_eq!(
        parse("").unwrap(),
        Experiment {
            probes: vec![crate::ProbeSpec::stop_and_wait()],
            ..Experiment::default()
        }
    );
}

#[test]
fn every_preset_parses_and_round_trips() {
    for name in [
        "seed.toml",
        "rrul_be.toml",
        "cc_mix.toml",
        "rtt_sweep.toml",
        "aqm_zoo.toml",
    ] {
        let exp = parse(&preset(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = exp.to_toml();
        let back = parse(&printed).unwrap_or_else(|e| panic!("{name} printed: {e}\n{printed}"));
        assert_eq!(back, exp, "{name}");
        // Printing is canonical: the printed form prints to itself.
        assert_eq!(back.to_toml(), printed, "{name}");
        assert!(!exp.plan().scenarios.is_empty(), "{name}");
    }
}

#[test]
fn presets_say_what_they_are() {
    let rrul = parse(&preset("rrul_be.toml")).unwrap();
    assert_eq!(rrul.flows.len(), 8);
    assert_eq!(
        rrul.flows
            .iter()
            .filter(|f| f.direction == Direction::Down)
            .count(),
        4
    );
    assert_eq!(rrul.path.base_rtt, Duration::from_millis(50));
    assert_eq!(rrul.path.down.unwrap().rate.bits_per_sec(), 20_000_000);
    assert_eq!(rrul.path.up.unwrap().rate.bits_per_sec(), 5_000_000);
    let ports: std::collections::BTreeSet<u16> = rrul.flows.iter().map(|f| f.port).collect();
    assert_eq!(ports.len(), 8, "every flow has its own port");

    let mix = parse(&preset("cc_mix.toml")).unwrap();
    let ccs: Vec<&str> = mix.flows.iter().map(|f| f.cc.as_str()).collect();
    assert_eq!(ccs, ["reno", "cubic", "bbr"]);
    assert_eq!(
        mix.requirements().ccs.into_iter().collect::<Vec<_>>(),
        ["bbr", "cubic", "reno"]
    );

    let sweep = parse(&preset("rtt_sweep.toml")).unwrap();
    let plan = sweep.plan();
    assert_eq!(plan.points.len(), 12);
    assert_eq!(plan.scenarios.len(), 12 * 3 * 2);

    let zoo = parse(&preset("aqm_zoo.toml")).unwrap();
    let kinds: Vec<&str> = zoo.arms.iter().map(|a| a.arm.kind()).collect();
    assert_eq!(
        kinds,
        ["pfifo", "codel", "fq_codel", "cake", "pie", "fq_pie"]
    );
    let req = zoo.requirements();
    for k in [
        "tbf", "netem", "pfifo", "codel", "fq_codel", "cake", "pie", "fq_pie",
    ] {
        assert!(req.qdiscs.contains(k), "{k}");
    }
}

#[test]
fn seed_requirements_need_no_netem() {
    let req = Experiment::default().requirements();
    assert_eq!(
        req.qdiscs.into_iter().collect::<Vec<_>>(),
        ["fq_codel", "pfifo", "tbf"]
    );
    assert_eq!(req.ccs.into_iter().collect::<Vec<_>>(), ["reno"]);
}

/// Bad files: each is refused, naming the key.
#[test]
fn bad_files_name_the_key() {
    let cases: &[(&str, &str, &str)] = &[
        ("colour = \"red\"", "colour", "unknown field"),
        ("[[flows]]\ncca = \"reno\"", "flows[0].cca", "unknown field"),
        ("rounds = \"three\"", "rounds", "invalid type"),
        ("rounds = 0", "rounds", "between 1"),
        (
            "[[flows]]\ncc = \"reno\"\n[[flows]]\ncc = \"reno\"\n[[flows]]\ncc = \"cubc\"",
            "flows[2].cc",
            "unknown congestion control \"cubc\"",
        ),
        ("[timeline]\nmeasure = \"0s\"", "timeline.measure", "positive"),
        ("[timeline]\nbaseline = \"3\"", "timeline.baseline", "unit is required"),
        ("[path.up]\nrate = \"5mbits\"", "path.up.rate", "unknown unit"),
        (
            "arms = [\"pfifo\", \"fq_codel tagret 5ms\"]",
            "arms[1]",
            "tagret",
        ),
        ("arms = []", "arms", "at least one"),
        ("[[flows]]\ndirection = \"sideways\"", "flows[0].direction", "up or down"),
        ("[[flows]]\nstart = \"15s\"", "flows[0].start", "inside the load phase"),
        (
            "[[flows]]\nstart = \"2s\"\nstop = \"1s\"",
            "flows[0].stop",
            "after start",
        ),
        (
            "[[flows]]\nport = 46021",
            "probes[0].port",
            "already used by flows[0].port",
        ),
        ("[[probes]]\nkind = \"icmp\"", "probes[0].kind", "stop-and-wait or isochronous"),
        (
            "[[probes]]\nkind = \"isochronous\"\ninterval = \"500us\"",
            "probes[0].interval",
            "at least 1ms",
        ),
        ("[path]\nloss_percent = 150.0", "path.loss_percent", "between 0 and 100"),
        ("[sweep]\nrate = []", "sweep.rate", "empty list"),
        (
            "arms = [\"pfifo\"]\n[[sweep.arm]]\nkind = \"fq_codel\"\nword = \"target\"\nvalues = [\"5ms\"]",
            "sweep.arm[0].kind",
            "no arm of kind",
        ),
        (
            "arms = [\"fq_codel\"]\n[[sweep.arm]]\nkind = \"fq_codel\"\nword = \"target\"\nvalues = [\"5ms\", \"soon\"]",
            "sweep.arm[0].values[1]",
            "soon",
        ),
        ("kernel = \"qemu\"", "kernel", "auto, host, uml or uml-6.12"),
        ("[capture]\ndeadline = \"10s\"", "capture.deadline", "shorter than the scenario"),
        ("[capture]\npcap = \"full\"", "capture.pcap", "unknown value"),
        ("[capture]\nsnap_len = 64", "capture.snap_len", "need 94 bytes"),
        ("[capture]\nsnap_len = 70000", "capture.snap_len", "outside 94..=65535"),
        ("[capture]\npcap_max_bytes = 0", "capture.pcap_max_bytes", "below 4096"),
        ("[[flows]]\nblock_size = 0", "flows[0].block_size", "between 1"),
        ("[path.down]\nshaped = false\nrate = \"5mbit\"", "path.down", "takes no rate"),
        ("[sweep]\ndown_rate = [\"5mbit\"]", "sweep.down_rate", "unshaped"),
        ("[sweep]\ncc = [\"bbr\", \"vegsa\"]", "sweep.cc[1]", "unknown congestion control"),
        ("rounds = 1\nrounds = 2", "(file)", "duplicate key"),
        ("[path]\nbase_rtt = \"50ms\"\njitter = \"60ms\"", "path.jitter", "must not exceed"),
        ("[[probes]]\n[[probes]]", "probes[1].kind", "a second stop-and-wait probe"),
        ("[sampling]\ninterval = \"1ms\"", "sampling.interval", "at least 10ms"),
        ("name = \"a b\"", "name", "letters"),
        (
            "rounds = 1000\n[sweep]\nrate = [\"1mbit\",\"2mbit\",\"3mbit\",\"4mbit\",\"5mbit\",\"6mbit\"]",
            "sweep",
            "at most",
        ),
        ("[[flows]]\nport = 70000", "flows[0].port", ""),
        (
            "[[flows]]\necn = true\n[[flows]]\ndirection = \"down\"\necn = false\n[[flows]]\necn = false",
            "flows[2].ecn",
            "tcp_ecn sysctl",
        ),
    ];
    assert!(cases.len() >= 15);
    for (text, key, needle) in cases {
        let e = parse(text).expect_err(text);
        assert_eq!(e.key(), *key, "{text:?} → {e}");
        assert!(e.to_string().contains(needle), "{text:?} → {e}");
        assert!(e.to_string().starts_with(key), "{text:?} → {e}");
    }
}

#[test]
fn plan_order_is_points_then_rounds_then_arms() {
    let exp = parse(
        r#"
        rounds = 2
        arms = ["pfifo", "fq_codel"]
        [sweep]
        base_rtt = ["0ms", "20ms"]
        rate = ["1mbit", "5mbit", "20mbit"]
        "#,
    )
    .unwrap();
    let plan = exp.plan();
    // Axes in fixed order: rate before base_rtt, the last varying fastest.
    let labels: Vec<String> = plan.points.iter().map(|p| p.label()).collect();
    assert_eq!(
        labels,
        [
            "rate=1mbit base_rtt=0s",
            "rate=1mbit base_rtt=20ms",
            "rate=5mbit base_rtt=0s",
            "rate=5mbit base_rtt=20ms",
            "rate=20mbit base_rtt=0s",
            "rate=20mbit base_rtt=20ms",
        ]
    );
    assert_eq!(plan.scenarios.len(), 6 * 2 * 2);
    let order: Vec<(u32, u32, &str)> = plan
        .scenarios
        .iter()
        .take(5)
        .map(|s| (s.point.index, s.round, s.arm.arm.kind()))
        .collect();
    assert_eq!(
        order,
        [
            (1, 1, "pfifo"),
            (1, 1, "fq_codel"),
            (1, 2, "pfifo"),
            (1, 2, "fq_codel"),
            (2, 1, "pfifo"),
        ]
    );
    for (i, s) in plan.scenarios.iter().enumerate() {
        assert_eq!(s.index as usize, i + 1);
    }
    let s = &plan.scenarios[5];
    assert_eq!(s.path.base_rtt, Duration::from_millis(20));
    assert_eq!(s.path.up.unwrap().rate.bits_per_sec(), 1_000_000);
    assert_eq!(
        plan.timeline_total(),
        Duration::from_secs(18) * plan.scenarios.len() as u32
    );
}

#[test]
fn seeds_are_recorded_and_deterministic() {
    let exp = parse("seed = 42\nrounds = 3").unwrap();
    let a = exp.plan();
    let b = exp.plan();
    assert_eq!(a, b);
    let seeds: Vec<u64> = a.scenarios.iter().map(|s| s.seed).collect();
    assert_eq!(seeds[0], splitmix64(42 ^ 1));
    let distinct: std::collections::BTreeSet<u64> = seeds.iter().copied().collect();
    assert_eq!(distinct.len(), seeds.len());
    // SplitMix64's published first output for state 0.
    assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
    let other = parse("seed = 43\nrounds = 3").unwrap().plan();
    assert_ne!(other.scenarios[0].seed, a.scenarios[0].seed);
}

#[test]
fn flow_copies_cc_and_arm_words_apply_per_point() {
    let exp = parse(
        r#"
        rounds = 1
        arms = ["pfifo limit 256", "fq_codel target 5ms ecn"]
        [[flows]]
        cc = "reno"
        [[flows]]
        direction = "down"
        [sweep]
        flows = [1, 3]
        cc = ["cubic"]
        [[sweep.arm]]
        kind = "fq_codel"
        word = "target"
        values = ["5ms", "20ms"]
        "#,
    )
    .unwrap();
    let plan = exp.plan();
    assert_eq!(plan.points.len(), 4);
    let last = plan.scenarios.last().unwrap();
    assert_eq!(last.point.label(), "flows=3 cc=cubic fq_codel.target=20ms");
    assert_eq!(last.flows.len(), 6);
    assert!(last.flows.iter().all(|f| f.cc == "cubic"));
    assert_eq!(
        last.flows
            .iter()
            .filter(|f| f.direction == Direction::Down)
            .count(),
        3
    );
    let ports: std::collections::BTreeSet<u16> = last.flows.iter().map(|f| f.port).collect();
    assert_eq!(ports.len(), 6);
    assert!(!ports.contains(&46021), "probe port stays free");
    assert_eq!(last.arm.words, "fq_codel target 20ms ecn");
    // pfifo arms are not touched by a fq_codel sweep.
    assert_eq!(
        plan.scenarios[plan.scenarios.len() - 2].arm.words,
        "pfifo limit 256"
    );
}

/// `buffer_bdp` sets the limit of every arm that has one from the
/// point's rate and base RTT (10 Mbit/s × 40 ms = 50,000 bytes = 33.0
/// frames of 1,514 bytes), and `flows_by_cc` copies one cc's flows only.
#[test]
fn buffer_bdp_and_flows_by_cc_apply_per_point() {
    let text = r#"
        rounds = 1
        arms = ["pfifo limit 256", "bfifo limit 100000", "fq_codel ecn", "cake"]
        [path]
        base_rtt = "40ms"
        [path.up]
        rate = "10mbit"
        [[flows]]
        cc = "bbr"
        [[flows]]
        cc = "cubic"
        [sweep]
        buffer_bdp = [1, 2.5]
        [sweep.flows_by_cc]
        cubic = [1, 4]
        "#;
    let exp = parse(text).unwrap();
    let plan = exp.plan();
    assert_eq!(plan.points.len(), 4);
    let words = |point: u32| -> Vec<String> {
        plan.scenarios
            .iter()
            .filter(|s| s.point.index == point)
            .map(|s| s.arm.words.clone())
            .collect()
    };
    assert_eq!(plan.points[0].label(), "cubic_flows=1 buffer_bdp=1");
    assert_eq!(
        words(1),
        [
            "pfifo limit 33",
            "bfifo limit 50000",
            "fq_codel ecn limit 33",
            "cake"
        ]
    );
    assert_eq!(plan.points[3].label(), "cubic_flows=4 buffer_bdp=2.5");
    assert_eq!(words(4)[0], "pfifo limit 83", "2.5 × 33.02 frames");
    assert_eq!(words(4)[1], "bfifo limit 125000");
    let last = plan.scenarios.last().unwrap();
    let ccs: Vec<&str> = last.flows.iter().map(|f| f.cc.as_str()).collect();
    assert_eq!(ccs, ["bbr", "cubic", "cubic", "cubic", "cubic"]);
    let ports: std::collections::BTreeSet<u16> = last.flows.iter().map(|f| f.port).collect();
    assert_eq!(ports.len(), 5);
    // Printed back, it reads as the same experiment.
    let again = parse(&exp.to_toml()).unwrap();
    assert_eq!(again.content_hash(), exp.content_hash());
    assert_eq!(again.plan().points.len(), 4);
    // A BDP needs a base RTT; a cc no flow uses is named.
    let e = parse(&text.replace("base_rtt = \"40ms\"", "")).unwrap_err();
    assert!(e.to_string().contains("sweep.buffer_bdp"), "{e}");
    let e = parse(&text.replace("cubic = [1, 4]", "reno = [1, 4]")).unwrap_err();
    assert!(e.to_string().contains("sweep.flows_by_cc.reno"), "{e}");
    let e = parse(&text.replace("buffer_bdp = [1, 2.5]", "buffer_bdp = [0]")).unwrap_err();
    assert!(e.to_string().contains("sweep.buffer_bdp[0]"), "{e}");
}

#[test]
fn set_arm_word_replaces_or_appends() {
    assert_eq!(
        set_arm_word("fq_codel target 5ms ecn", "target", "9ms"),
        "fq_codel target 9ms ecn"
    );
    assert_eq!(
        set_arm_word("fq_codel ecn", "target", "9ms"),
        "fq_codel ecn target 9ms"
    );
    assert_eq!(
        set_arm_word("fq_codel target", "target", "9ms"),
        "fq_codel target 9ms"
    );
}

#[test]
fn no_sweep_is_one_point() {
    let p = points(&Sweep::default());
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].label(), "default");
}

#[test]
fn unshaped_up_and_shaped_down() {
    let exp = parse("[path.up]\nshaped = false\n[path.down]\nrate = \"20mbit\"\n[[flows]]\ndirection = \"down\"").unwrap();
    assert!(exp.path.up.is_none());
    assert_eq!(exp.path.down.unwrap().rate.bits_per_sec(), 20_000_000);
    // Unspecified down burst/limit take the method's values.
    assert_eq!(exp.path.down.unwrap().burst.bytes(), 16384);
    assert_eq!(parse(&exp.to_toml()).unwrap(), exp);
}

#[test]
fn capture_pcap_keys_resolve_and_round_trip() {
    let e =
        parse("[capture]\npcap = \"headers\"\nsnap_len = 200\npcap_max_bytes = 1048576").unwrap();
    assert_eq!(e.capture.pcap, crate::PcapMode::Headers);
    assert_eq!(e.capture.snap_len, 200);
    assert_eq!(e.capture.pcap_max_bytes, 1 << 20);
    assert_eq!(parse(&e.to_toml()).unwrap(), e);
    let d = parse("").unwrap();
    assert_eq!(d.capture.pcap, crate::PcapMode::Off);
    assert_eq!(d.capture.snap_len, crate::DEFAULT_PCAP_SNAP_LEN);
    assert!(d.to_toml().contains("pcap = \"off\""), "{}", d.to_toml());
    // The smallest snap that holds the headers is accepted.
    assert!(parse("[capture]\nsnap_len = 94").is_ok());
}

#[test]
fn offloads_and_mtu_default_to_the_kernels_and_keep_the_hash() {
    let d = Experiment::default();
    assert_eq!(d.path.offloads, Offloads::Kernel);
    assert_eq!(d.path.mtu, 1500);
    // Left out of the canonical text when they are the defaults, so every
    // experiment written before they existed keeps its content hash.
    let printed = d.to_toml();
    assert!(
        !printed.contains("offloads") && !printed.contains("mtu"),
        "{printed}"
    );
    let spelled = parse("[path]\noffloads = \"kernel\"\nmtu = 1500\n").unwrap();
    let empty = parse("").unwrap();
    assert_eq!(spelled, empty);
    assert_eq!(spelled.content_hash(), empty.content_hash());
    let off = parse("[path]\noffloads = \"off\"\nmtu = 9000\n").unwrap();
    assert_eq!(off.path.offloads, Offloads::Off);
    assert_eq!(off.path.mtu, 9000);
    assert_ne!(off.content_hash(), d.content_hash());
    let text = off.to_toml();
    assert!(
        text.contains("offloads = \"off\"") && text.contains("mtu = 9000"),
        "{text}"
    );
    assert_eq!(parse(&text).unwrap(), off);
}

#[test]
fn bad_offloads_and_mtus_are_refused_naming_the_key() {
    let e = parse("[path]\noffloads = \"bogus\"\n").unwrap_err();
    assert_eq!(e.key(), "path.offloads");
    assert!(e.to_string().contains("\"bogus\""), "{e}");
    for (mtu, why) in [
        ("67", "IPv4"),
        ("0", "IPv4"),
        ("65536", "veth"),
        // 16 kB of burst passes at most a 16370-byte MTU.
        ("16371", "path.up.burst"),
    ] {
        let e = parse(&format!("[path]\nmtu = {mtu}\n")).unwrap_err();
        assert_eq!(e.key(), "path.mtu", "{mtu}");
        assert!(e.to_string().contains(why), "{mtu}: {e}");
    }
    assert_eq!(parse("[path]\nmtu = 16370\n").unwrap().path.mtu, 16370);
    // The bound follows the burst, of either direction.
    let unshaped = "[path]\nmtu = 65535\n[path.up]\nshaped = false\n";
    assert_eq!(parse(unshaped).unwrap().path.mtu, 65535);
    let e = parse("[path]\nmtu = 9000\n[path.down]\nburst = \"8kb\"\n").unwrap_err();
    assert!(e.to_string().contains("path.down.burst"), "{e}");
    let e = parse("[sweep]\noffloads = [\"off\", \"on\"]\n").unwrap_err();
    assert_eq!(e.key(), "sweep.offloads[1]");
    let e = parse("[sweep]\nmtu = [1500, 40]\n").unwrap_err();
    assert_eq!(e.key(), "sweep.mtu[1]");
    let e = parse("[sweep]\noffloads = []\n").unwrap_err();
    assert_eq!(e.key(), "sweep.offloads");
}

#[test]
fn offloads_and_mtu_sweep_like_the_other_path_values() {
    let exp = parse(
        "rounds = 1\narms = [\"pfifo\"]\n[sweep]\nrate = [\"5mbit\", \"10mbit\"]\n\
         offloads = [\"kernel\", \"off\"]\nmtu = [1500, 9000]\n",
    )
    .unwrap();
    let plan = exp.plan();
    assert_eq!(plan.points.len(), 8);
    let got: Vec<(String, Offloads, u32)> = plan
        .scenarios
        .iter()
        .map(|s| (s.point.label(), s.path.offloads, s.path.mtu))
        .collect();
    assert_eq!(
        got[..4],
        [
            (
                "rate=5mbit offloads=kernel mtu=1500".into(),
                Offloads::Kernel,
                1500
            ),
            (
                "rate=5mbit offloads=kernel mtu=9000".into(),
                Offloads::Kernel,
                9000
            ),
            (
                "rate=5mbit offloads=off mtu=1500".into(),
                Offloads::Off,
                1500
            ),
            (
                "rate=5mbit offloads=off mtu=9000".into(),
                Offloads::Off,
                9000
            ),
        ]
    );
    assert_eq!(got[7].0, "rate=10mbit offloads=off mtu=9000");
    // The sweep prints back and reads back to the same experiment.
    let text = exp.to_toml();
    assert_eq!(parse(&text).unwrap(), exp, "{text}");
    assert_eq!(parse(&text).unwrap().to_toml(), text);
}
