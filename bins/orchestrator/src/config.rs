//! Validation of raw arguments into the typed configuration of a comparison.
//! Every bad value dies here, before anything touches the network, with a
//! message naming the flag (exit 2).

use netlab_qdisc_model::{Arm, Tbf};
use netlab_run::SessionConfig;
use std::path::PathBuf;

use crate::cli::{CompareArgs, KernelFlag, RunArgs};

use netlab_experiment::Timeline;
/// The validated configuration of `orchestrator compare`: the shape
/// results.json version 1 recorded whole, so it lives with that version's
/// migration (the experiment it describes: `CompareConfig::experiment`).
pub(crate) use netlab_results::compare_flags::CompareConfig;

/// A usage error: the flag and what is wrong with its value.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The experiment file's word for a `--kernel` choice.
pub(crate) fn kernel_choice(k: KernelFlag) -> netlab_experiment::KernelChoice {
    match k {
        KernelFlag::Auto => netlab_experiment::KernelChoice::Auto,
        KernelFlag::Host => netlab_experiment::KernelChoice::Host,
        KernelFlag::Uml => netlab_experiment::KernelChoice::Uml,
    }
}

/// The `compare` configuration from its parsed flags, checked by
/// [`CompareConfig::check`] (what depends on several flags at once);
/// `now_utc_stamp` names the default results folder.
pub fn compare_config(a: &CompareArgs, now_utc_stamp: &str) -> Result<CompareConfig, UsageError> {
    let given = if a.arms.is_empty() {
        netlab_experiment::flags::default_arms()
    } else {
        a.arms.clone()
    };
    let (arm_words, arms): (Vec<String>, Vec<Arm>) =
        given.into_iter().map(|x| (x.words, x.arm)).unzip();
    let tbf = Tbf {
        rate: a.rate,
        burst: a.burst,
        limit: a.limit,
    };
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(now_utc_stamp));
    let cfg = CompareConfig {
        rounds: a.rounds,
        arms,
        arm_words,
        tbf,
        cc: a.cc.clone(),
        timeline: Timeline {
            baseline: a.baseline,
            warmup: a.warmup,
            measure: a.measure,
        },
        probe_interval: a.probe_interval,
        probe_timeout: a.probe_timeout,
        probe_max: a.probe_max,
        sample_interval: a.sample_interval,
        capture_frames: a.capture_frames,
        capture_deadline: a.capture_deadline,
        pcap: a.pcap,
        pcap_snap_len: a.pcap_snap_len,
        pcap_max_bytes: a.pcap_max_bytes,
        tcp_port: a.tcp_port,
        udp_port: a.udp_port,
        block_size: a.block_size as usize,
        iso_probe: a.iso_probe.0,
        offloads: a.offloads,
        mtu: a.mtu,
        kernel: kernel_choice(a.kernel),
        guest_mem: a.guest_mem.clone(),
        out,
        quiet: a.quiet,
        inside_guest: a.inside_guest,
    };
    cfg.check().map_err(|e| UsageError(e.0))?;
    Ok(cfg)
}

/// Validates `orchestrator run` arguments into the run's configuration:
/// the file is read and resolved (a refusal names its key), then
/// [`SessionConfig::of_file`] applies the flags.
pub fn run_config(a: &RunArgs, now_utc_stamp: &str) -> Result<SessionConfig, UsageError> {
    let exp = netlab_experiment::load(&a.experiment)
        .map_err(|e| UsageError(format!("{}: {e}", a.experiment.display())))?;
    let kernel = a.kernel.map(kernel_choice);
    let cfg = SessionConfig::of_file(exp, kernel, a.pcap, a.out.clone(), a.resume, now_utc_stamp)
        .map_err(UsageError)?;
    Ok(SessionConfig {
        guest_mem: a.guest_mem.clone(),
        quiet: a.quiet,
        inside_guest: a.inside_guest,
        shard: a.shard,
        ..cfg
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Parses a duration written like `3s`, `500ms`, `1.5s`, `250us` or `2m`
    /// (the experiment files' grammar), naming `flag` when it is refused.
    fn parse_duration(flag: &str, text: &str) -> Result<Duration, UsageError> {
        netlab_experiment::flags::duration(text)
            .map_err(|why| UsageError(format!("invalid value '{text}' for {flag}: {why}")))
    }

    /// Writes a duration so that [`parse_duration`] reads back exactly the same
    /// value (seconds, in the shortest text that round-trips the f64).
    fn duration_arg(d: Duration) -> String {
        format!("{}s", d.as_secs_f64())
    }

    use netlab_experiment::Experiment;

    fn parse_compare(argv: &[String]) -> CompareConfig {
        use clap::Parser as _;
        let cli = crate::cli::Cli::try_parse_from(
            std::iter::once("orchestrator".to_string()).chain(argv.iter().cloned()),
        )
        .expect("the guest argv parses");
        match cli.command {
            crate::cli::Command::Compare(a) => compare_config(&a, "never").unwrap(),
            other => panic!("not compare: {other:?}"),
        }
    }

    fn config_of(args: &[&str]) -> CompareConfig {
        let argv: Vec<String> = std::iter::once("compare")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        parse_compare(&argv)
    }

    /// The refusal of a compare command line: clap's (a flag's own value,
    /// rendered as the user sees it) or the configuration's (several flags).
    fn compare_err(args: &[&str]) -> String {
        use clap::Parser as _;
        let argv = ["orchestrator", "compare"].iter().chain(args);
        match crate::cli::Cli::try_parse_from(argv) {
            Err(e) => {
                assert_eq!(e.exit_code(), 2, "{e}");
                e.to_string()
            }
            Ok(cli) => {
                let crate::cli::Command::Compare(a) = cli.command else {
                    panic!("not compare")
                };
                compare_config(&a, "x")
                    .expect_err(&format!("{args:?} accepted"))
                    .0
            }
        }
    }

    /// Every compare flag set away from its default, with awkward values.
    fn awkward() -> CompareConfig {
        config_of(&[
            "--rounds",
            "7",
            "--arm",
            "pfifo limit 100",
            "--arm",
            "fq_codel limit 300 target 3ms interval 70ms ecn",
            "--rate",
            "12345kbit",
            "--burst",
            "20kb",
            "--limit",
            "100000",
            "--cc",
            "cubic",
            "--baseline",
            "1.5s",
            "--warmup",
            "250ms",
            "--measure",
            "7s",
            "--probe-interval",
            "33ms",
            "--probe-timeout",
            "1500ms",
            "--probe-max",
            "77",
            "--sample-interval",
            "15ms",
            "--capture-frames",
            "1234",
            "--capture-deadline",
            "31s",
            "--tcp-port",
            "40001",
            "--udp-port",
            "40002",
            "--block-size",
            "4096",
            "--iso-probe",
            "7ms",
            "--offloads",
            "off",
            "--mtu",
            "9000",
            "--kernel",
            "uml",
            "--guest-mem",
            "512M",
            "--out",
            "/tmp/some where/x",
            "--quiet",
        ])
    }

    /// `compare --print-experiment` prints a file that reads back to the
    /// very experiment the flags describe.
    #[test]
    fn the_printed_experiment_reads_back_to_the_flags_experiment() {
        for cfg in [awkward(), config_of(&["--out", "o"])] {
            let exp = cfg.experiment();
            let back = netlab_experiment::parse(&exp.to_toml()).unwrap();
            assert_eq!(back, exp);
        }
        // The defaults are the method's experiment exactly.
        assert_eq!(
            config_of(&["--out", "o"]).experiment(),
            Experiment::default()
        );
        let exp = awkward().experiment();
        assert_eq!(exp.rounds, 7);
        assert_eq!(exp.flows[0].cc, "cubic");
        assert_eq!(exp.flows[0].port, 40001);
        assert_eq!(exp.probes[0].port, 40002);
        assert_eq!(exp.probes[0].max_requests, Some(77));
        assert_eq!(exp.probes.len(), 2);
        assert_eq!(
            exp.probes[1].kind,
            netlab_experiment::ProbeKind::Isochronous
        );
        assert_eq!(exp.probes[1].interval, Duration::from_millis(7));
        assert_eq!(exp.probes[1].port, 46022);
        assert!(SessionConfig::of_compare(&awkward())
            .check_runnable()
            .is_ok());
        assert_eq!(exp.kernel, netlab_experiment::KernelChoice::Uml);
        assert_eq!(exp.path.up.unwrap().rate.to_string(), "12345kbit");
    }

    /// The guest's argument list: `run FILE` with the run-level options;
    /// parsed back (with the file) it gives the same run configuration.
    #[test]
    fn the_guest_argv_gives_the_same_run() {
        use clap::Parser as _;
        let mut cfg = SessionConfig::of_compare(&awkward());
        cfg.shard = Some(netlab_experiment::Shard { k: 2, n: 3 });
        cfg.resume = true;
        let dir = tempfile::Builder::new()
            .prefix("netlab-argv-")
            .tempdir()
            .unwrap();
        let file = dir.path().join(netlab_run::GUEST_EXPERIMENT_FILE);
        std::fs::write(&file, cfg.exp.to_toml()).unwrap();
        let argv = cfg.guest_argv(&file);
        let cli = crate::cli::Cli::try_parse_from(
            std::iter::once("orchestrator".to_string()).chain(argv.iter().cloned()),
        )
        .expect("the guest argv parses");
        let crate::cli::Command::Run(a) = cli.command else {
            panic!("not run")
        };
        let back = run_config(&a, "never").unwrap();
        assert!(back.inside_guest);
        assert_eq!(
            SessionConfig {
                inside_guest: true,
                ..cfg
            },
            back
        );
    }

    #[test]
    fn the_iso_probe_interval_is_at_least_1ms_and_off_the_other_ports() {
        use clap::Parser as _;
        let parse = |extra: &[&str]| {
            let argv = ["orchestrator", "compare"].iter().chain(extra);
            let cli = crate::cli::Cli::try_parse_from(argv).unwrap();
            let crate::cli::Command::Compare(a) = cli.command else {
                panic!("not compare")
            };
            compare_config(&a, "never")
        };
        // On by default, at the interval of the experiments' default.
        assert_eq!(
            parse(&[]).unwrap().iso_probe,
            Some(netlab_experiment::ProbeSpec::isochronous().interval)
        );
        assert_eq!(parse(&["--iso-probe", "off"]).unwrap().iso_probe, None);
        assert_eq!(
            parse(&["--iso-probe", "1ms"]).unwrap().iso_probe,
            Some(Duration::from_millis(1))
        );
        for bad in ["999us", "0ms", "20"] {
            let e = compare_err(&["--iso-probe", bad]);
            assert!(e.contains("--iso-probe"), "{e}");
        }
        let e = compare_err(&["--iso-probe", "20ms", "--tcp-port", "46022"]);
        assert!(e.contains("46022"), "{e}");
        // recorded in results only when set, and read back
        let cfg = parse(&["--iso-probe", "20ms"]).unwrap();
        let json = serde_json::to_string(&cfg).unwrap();
        assert!(json.contains("\"iso_probe\":0.02"), "{json}");
        assert_eq!(serde_json::from_str::<CompareConfig>(&json).unwrap(), cfg);
        let plain = serde_json::to_string(&parse(&["--iso-probe", "off"]).unwrap()).unwrap();
        assert!(!plain.contains("iso_probe"), "{plain}");
    }

    #[test]
    fn durations_round_trip_through_their_argument_text() {
        for text in [
            "1us",
            "3s",
            "200ms",
            "1.5s",
            "0.1s",
            "33ms",
            "86399.999999s",
            "2m",
            "1234567us",
        ] {
            let d = parse_duration("--x", text).unwrap();
            assert_eq!(
                parse_duration("--x", &duration_arg(d)).unwrap(),
                d,
                "{text}"
            );
        }
        for ns in (1_000u64..86_400_000_000_000).step_by(999_999_937) {
            let d = Duration::from_nanos(ns);
            assert_eq!(
                parse_duration("--x", &duration_arg(d)).unwrap(),
                d,
                "{ns} ns"
            );
        }
    }

    #[test]
    fn the_config_reads_back_what_it_writes() {
        let cfg = config_of(&[
            "--arm",
            "pfifo limit 256",
            "--measure",
            "2.5s",
            "--out",
            "o",
        ]);
        let text = serde_json::to_string(&cfg).unwrap();
        let back: CompareConfig = serde_json::from_str(&text).unwrap();
        assert_eq!(back, cfg);
    }

    #[test]
    fn pcap_flags_reach_the_experiment_and_bad_ones_name_the_flag() {
        let c = config_of(&[
            "--pcap",
            "--pcap-snap-len",
            "200",
            "--pcap-max-bytes",
            "65536",
        ]);
        let e = c.experiment();
        assert_eq!(e.capture.pcap, netlab_experiment::PcapMode::Headers);
        assert_eq!(e.capture.snap_len, 200);
        assert_eq!(e.capture.pcap_max_bytes, 65536);
        assert_eq!(
            config_of(&[]).experiment().capture.pcap,
            netlab_experiment::PcapMode::Off
        );
        for (flag, value) in [
            ("--pcap-snap-len", "93"),
            ("--pcap-snap-len", "70000"),
            ("--pcap-max-bytes", "0"),
            ("--pcap-max-bytes", "100"),
        ] {
            let e = compare_err(&[flag, value]);
            assert!(e.contains(flag), "{e:?}");
        }
    }

    #[test]
    fn offloads_and_mtu_flags_reach_the_experiment_and_bad_ones_name_the_flag() {
        let e = config_of(&["--offloads", "off", "--mtu", "9000"]).experiment();
        assert_eq!(e.path.offloads, netlab_experiment::Offloads::Off);
        assert_eq!(e.path.mtu, 9000);
        let d = config_of(&[]).experiment();
        assert_eq!(
            (d.path.offloads, d.path.mtu),
            (netlab_experiment::Offloads::Kernel, 1500)
        );
        for (args, why) in [
            (&["--offloads", "bogus"][..], "kernel or off"),
            (&["--mtu", "67"][..], "IPv4"),
            (&["--mtu", "65536"][..], "veth"),
            (&["--mtu", "1.5k"][..], "whole number"),
            // 16 kB of burst: a 9000-byte MTU fits, a 20000-byte one not.
            (&["--mtu", "20000"][..], "--burst"),
        ] {
            let e = compare_err(args);
            assert!(e.contains(args[0]) && e.contains(why), "{e:?}");
        }
        assert_eq!(config_of(&["--mtu", "20000", "--burst", "32kb"]).mtu, 20000);
    }

    #[test]
    fn durations_parse_with_units_and_refuse_zero() {
        assert_eq!(parse_duration("--x", "3s").unwrap(), Duration::from_secs(3));
        assert_eq!(
            parse_duration("--x", "500ms").unwrap(),
            Duration::from_millis(500)
        );
        assert_eq!(
            parse_duration("--x", "1.5s").unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(
            parse_duration("--x", "2m").unwrap(),
            Duration::from_secs(120)
        );
        for bad in ["0s", "-1s", "3", "abc", "3h", "", "1e400s"] {
            let e = parse_duration("--baseline", bad).unwrap_err();
            assert!(e.0.contains("--baseline"), "{bad}: {e}");
        }
    }

    /// Every flag's bad value is refused by netlab's own parser, whose
    /// reason is what the message ends with (clap only frames it with the
    /// flag's name); what passes clap but not its neighbours is refused by
    /// the configuration, naming the flag too.
    #[test]
    fn bad_values_name_their_flag() {
        for (args, reason) in [
            (&["--rounds", "0"][..], "0 is not in 1..=1000"),
            (&["--rounds", "1001"], "1001 is not in 1..=1000"),
            (&["--rounds", "three"], "invalid digit"),
            (&["--arm", "sfq perturb 10"], "unknown qdisc kind \"sfq\""),
            (
                &["--arm", "fq_codel target"],
                "option \"target\" needs a value",
            ),
            (&["--rate", "fast"], "bad rate \"fast\""),
            (&["--burst", "lots"], "bad size \"lots\""),
            (&["--limit", "1x"], "unknown unit \"x\""),
            (&["--cc", "new-reno"], "not a congestion control name"),
            (&["--baseline", "0s"], "must be positive"),
            (&["--warmup", "3"], "a unit is required"),
            (&["--probe-max", "0"], "0 is not in 1..=100000"),
            (&["--sample-interval", "5ms"], "must be at least 10ms"),
            (&["--capture-frames", "0"], "0 is not in 1..=10000000"),
            (&["--tcp-port", "0"], "0 is not in 1..=65535"),
            (&["--tcp-port", "65536"], "65536 is not in 1..=65535"),
            (&["--block-size", "0"], "0 is not in 1..=16777216"),
            (&["--guest-mem", "1T"], "expected e.g. 512M or 1G"),
        ] {
            let e = compare_err(args);
            let framed = format!("invalid value '{}' for '{} ", args[1], args[0]);
            let (_, ours) = e
                .split_once(&framed)
                .unwrap_or_else(|| panic!("{args:?}: not refused as {framed:?}: {e}"));
            let ours = ours.split_once(">': ").map_or(ours, |(_, r)| r);
            assert!(ours.contains(reason), "{args:?}: netlab's reason {ours:?}");
        }
        let e = compare_err(&["--tcp-port", "46021"]);
        assert!(e.contains("--udp-port") && e.contains("--tcp-port"), "{e}");
        let e = compare_err(&["--rate", "5mbit", "--burst", "1"]);
        assert!(e.contains("--burst"), "{e}");
    }
}
