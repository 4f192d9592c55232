//! Validation of raw arguments into the typed configuration of a comparison.
//! Every bad value dies here, before anything touches the network, with a
//! message naming the flag (exit 2).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use netlab_experiment::{PcapMode, Shard};
use netlab_qdisc::{Arm, Rate, Size, Tbf};
use netlab_run::SessionConfig;

use crate::cli::{CompareArgs, KernelChoice, RunArgs};

/// The validated configuration of `orchestrator compare`: the shape
/// results.json version 1 recorded whole, so it lives with that version's
/// migration (the experiment it describes: `CompareConfig::experiment`).
pub use netlab_results::v1::{CompareConfig, Timeline};

/// A usage error: the flag and what is wrong with its value.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn usage(flag: &str, value: &str, why: impl std::fmt::Display) -> UsageError {
    UsageError(format!("invalid value '{value}' for {flag}: {why}"))
}

/// Parses a duration written like `3s`, `500ms`, `1.5s`, `250us` or `2m`.
/// Zero, negative and unit-less values are refused.
pub fn parse_duration(flag: &str, text: &str) -> Result<Duration, UsageError> {
    // One duration grammar for flags and experiment files.
    netlab_experiment::units::parse_duration(text, false)
        .map_err(|why| UsageError(format!("invalid value for {flag}: {why}")))
}

/// Parses a plain positive number of seconds (`--for 10`, `--end 2.5`); a unit
/// suffix is accepted too.
pub fn parse_seconds(flag: &str, text: &str) -> Result<Duration, UsageError> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => Ok(Duration::from_secs_f64(v)),
        Ok(_) => Err(usage(flag, text, "must be a positive number of seconds")),
        Err(_) => parse_duration(flag, text),
    }
}

/// Parses a positive integer within `[1, max]`.
pub fn parse_count(flag: &str, text: &str, max: u64) -> Result<u64, UsageError> {
    let v: u64 = text
        .trim()
        .parse()
        .map_err(|_| usage(flag, text, "not a positive integer"))?;
    if v == 0 || v > max {
        return Err(usage(flag, text, format!("must be between 1 and {max}")));
    }
    Ok(v)
}

/// Parses `ADDR:PORT`.
pub fn parse_addr(flag: &str, text: &str) -> Result<SocketAddr, UsageError> {
    text.trim()
        .parse()
        .map_err(|e| usage(flag, text, format!("{e} (expected ADDR:PORT)")))
}

/// The method §2 arms, used when no `--arm` is given.
pub const DEFAULT_ARMS: [&str; 2] = [
    "pfifo limit 256",
    "fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn",
];

/// The experiment file's word for a `--kernel` choice.
fn kernel_choice(k: KernelChoice) -> netlab_experiment::KernelChoice {
    match k {
        KernelChoice::Auto => netlab_experiment::KernelChoice::Auto,
        KernelChoice::Host => netlab_experiment::KernelChoice::Host,
        KernelChoice::Uml => netlab_experiment::KernelChoice::Uml,
    }
}

/// Validates raw `compare` arguments; `now_utc_stamp` names the default
/// results folder.
// Long: each flag parsed and checked in turn, a line or two each, so that a
// usage error names the first bad flag.
pub fn compare_config(a: &CompareArgs, now_utc_stamp: &str) -> Result<CompareConfig, UsageError> {
    let rounds = parse_count("--rounds", &a.rounds, 1000)? as u32;
    let arm_words: Vec<String> = if a.arms.is_empty() {
        DEFAULT_ARMS.iter().map(|s| s.to_string()).collect()
    } else {
        a.arms.clone()
    };
    let arms = arm_words
        .iter()
        .map(|w| Arm::parse(w).map_err(|e| usage("--arm", w, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let rate = Rate::parse(&a.rate).map_err(|e| usage("--rate", &a.rate, e))?;
    let burst = Size::parse(&a.burst).map_err(|e| usage("--burst", &a.burst, e))?;
    let limit = Size::parse(&a.limit).map_err(|e| usage("--limit", &a.limit, e))?;
    let tbf = Tbf { rate, burst, limit };
    tbf.validate()
        .map_err(|e| UsageError(format!("invalid TBF (--rate/--burst/--limit): {e}")))?;
    let offloads = netlab_experiment::Offloads::from_file_word(a.offloads.trim())
        .ok_or_else(|| usage("--offloads", &a.offloads, "expected kernel or off"))?;
    let mtu = parse_mtu(&a.mtu, &tbf)?;
    let cc = a.cc.trim().to_string();
    if cc.is_empty() || cc.len() > 15 || !cc.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(usage("--cc", &a.cc, "not a congestion control name"));
    }
    let timeline = Timeline {
        baseline: parse_duration("--baseline", &a.baseline)?,
        warmup: parse_duration("--warmup", &a.warmup)?,
        measure: parse_duration("--measure", &a.measure)?,
    };
    let probe_interval = parse_duration("--probe-interval", &a.probe_interval)?;
    let probe_timeout = parse_duration("--probe-timeout", &a.probe_timeout)?;
    let probe_max = parse_count("--probe-max", &a.probe_max, 100_000)? as u32;
    let sample_interval = parse_duration("--sample-interval", &a.sample_interval)?;
    if sample_interval < Duration::from_millis(10) {
        return Err(usage(
            "--sample-interval",
            &a.sample_interval,
            "must be at least 10ms",
        ));
    }
    let capture_frames = parse_count("--capture-frames", &a.capture_frames, 10_000_000)?;
    let capture_deadline = parse_duration("--capture-deadline", &a.capture_deadline)?;
    let pcap_snap_len = parse_count(
        "--pcap-snap-len",
        &a.pcap_snap_len,
        u64::from(netlab_experiment::MAX_PCAP_SNAP_LEN),
    )? as u32;
    if pcap_snap_len < netlab_experiment::MIN_PCAP_SNAP_LEN {
        return Err(usage(
            "--pcap-snap-len",
            &a.pcap_snap_len,
            format!(
                "below the {} bytes Ethernet + IPv4 + TCP with options need",
                netlab_experiment::MIN_PCAP_SNAP_LEN
            ),
        ));
    }
    let pcap_max_bytes = parse_count("--pcap-max-bytes", &a.pcap_max_bytes, u64::MAX)?;
    if pcap_max_bytes < netlab_experiment::MIN_PCAP_MAX_BYTES {
        return Err(usage(
            "--pcap-max-bytes",
            &a.pcap_max_bytes,
            format!(
                "below {} bytes (the file's own blocks and one frame)",
                netlab_experiment::MIN_PCAP_MAX_BYTES
            ),
        ));
    }
    let tcp_port = parse_count("--tcp-port", &a.tcp_port, 65535)? as u16;
    let udp_port = parse_count("--udp-port", &a.udp_port, 65535)? as u16;
    if tcp_port == udp_port {
        // Different protocols could share a number, but keeping them apart
        // keeps the capture's "other" count honest and readable.
        return Err(usage(
            "--udp-port",
            &a.udp_port,
            "must differ from --tcp-port",
        ));
    }
    let block_size = parse_count("--block-size", &a.block_size, 16 << 20)? as usize;
    let iso_probe = match &a.iso_probe {
        None => None,
        Some(text) => {
            let d = parse_duration("--iso-probe", text)?;
            if d < netlab_probe::iso::MIN_INTERVAL {
                return Err(usage("--iso-probe", text, "must be at least 1ms"));
            }
            let port = netlab_experiment::ProbeSpec::isochronous().port;
            if tcp_port == port || udp_port == port {
                return Err(usage(
                    "--iso-probe",
                    text,
                    format!("its echo uses UDP port {port}: keep --tcp-port and --udp-port off it"),
                ));
            }
            Some(d)
        }
    };
    let guest_mem = parse_guest_mem(&a.guest_mem)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(now_utc_stamp));
    Ok(CompareConfig {
        rounds,
        arms,
        arm_words,
        tbf,
        cc,
        timeline,
        probe_interval,
        probe_timeout,
        probe_max,
        sample_interval,
        capture_frames,
        capture_deadline,
        pcap: a.pcap,
        pcap_snap_len,
        pcap_max_bytes,
        tcp_port,
        udp_port,
        block_size,
        iso_probe,
        offloads,
        mtu,
        kernel: kernel_choice(a.kernel),
        guest_mem,
        out,
        quiet: a.quiet,
        inside_guest: a.inside_guest,
    })
}

/// Validates `orchestrator run` arguments into the run's configuration:
/// the file is read and resolved (a refusal names its key), `--kernel`
/// overrides the file's.
pub fn run_config(a: &RunArgs, now_utc_stamp: &str) -> Result<SessionConfig, UsageError> {
    let mut exp = netlab_experiment::load(&a.experiment)
        .map_err(|e| UsageError(format!("{}: {e}", a.experiment.display())))?;
    if let Some(k) = a.kernel {
        exp.kernel = kernel_choice(k);
    }
    if a.pcap {
        exp.capture.pcap = PcapMode::Headers;
    }
    let guest_mem = parse_guest_mem(&a.guest_mem)?;
    let shard = a
        .shard
        .as_deref()
        .map(|t| Shard::parse(t).map_err(|e| UsageError(format!("--shard {e}"))))
        .transpose()?;
    if a.resume && a.out.is_none() {
        return Err(UsageError(
            "--resume needs --out: the results folder to continue".into(),
        ));
    }
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(format!("{}-{now_utc_stamp}", exp.name)));
    Ok(SessionConfig {
        exp,
        guest_mem,
        out,
        quiet: a.quiet,
        inside_guest: a.inside_guest,
        shard,
        resume: a.resume,
    })
}

/// `--mtu`: a veth's MTU whose full-size frame (MTU + 14) fits the TBF's
/// burst (TBF drops a longer packet it cannot split).
fn parse_mtu(text: &str, tbf: &Tbf) -> Result<u32, UsageError> {
    let mtu = text
        .trim()
        .parse::<u32>()
        .map_err(|_| usage("--mtu", text, "not a whole number of bytes"))?;
    netlab_experiment::check_mtu(mtu).map_err(|why| usage("--mtu", text, why))?;
    let frame = u64::from(mtu) + u64::from(netlab_experiment::LINK_HEADER);
    if frame > tbf.burst.0 {
        return Err(usage(
            "--mtu",
            text,
            format!(
                "a full-size frame of {frame} bytes (MTU + 14) exceeds --burst {}: \
                 TBF would drop every such packet",
                tbf.burst
            ),
        ));
    }
    Ok(mtu)
}

fn parse_guest_mem(text: &str) -> Result<String, UsageError> {
    let guest_mem = text.trim().to_string();
    if !guest_mem.ends_with(['M', 'G'])
        || guest_mem[..guest_mem.len() - 1]
            .parse::<u32>()
            .map_or(true, |v| v == 0)
    {
        return Err(usage("--guest-mem", text, "expected e.g. 512M or 1G"));
    }
    Ok(guest_mem)
}

#[cfg(test)]
/// Writes a duration so that [`parse_duration`] reads back exactly the same
/// value (seconds, in the shortest text that round-trips the f64).
pub fn duration_arg(d: Duration) -> String {
    format!("{}s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
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
        cfg.shard = Some(Shard { k: 2, n: 3 });
        cfg.resume = true;
        let dir = std::env::temp_dir().join(format!("netlab-argv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(netlab_run::GUEST_EXPERIMENT_FILE);
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
        let _ = std::fs::remove_dir_all(&dir);
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
        assert_eq!(parse(&[]).unwrap().iso_probe, None);
        assert_eq!(
            parse(&["--iso-probe", "1ms"]).unwrap().iso_probe,
            Some(Duration::from_millis(1))
        );
        for bad in ["999us", "0ms", "20"] {
            let e = parse(&["--iso-probe", bad]).unwrap_err().0;
            assert!(e.contains("--iso-probe"), "{e}");
        }
        let e = parse(&["--iso-probe", "20ms", "--tcp-port", "46022"])
            .unwrap_err()
            .0;
        assert!(e.contains("46022"), "{e}");
        // recorded in results only when set, and read back
        let cfg = parse(&["--iso-probe", "20ms"]).unwrap();
        let json = serde_json::to_string(&cfg).unwrap();
        assert!(json.contains("\"iso_probe\":0.02"), "{json}");
        assert_eq!(serde_json::from_str::<CompareConfig>(&json).unwrap(), cfg);
        let plain = serde_json::to_string(&parse(&[]).unwrap()).unwrap();
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
        assert_eq!(e.capture.pcap, PcapMode::Headers);
        assert_eq!(e.capture.snap_len, 200);
        assert_eq!(e.capture.pcap_max_bytes, 65536);
        assert_eq!(config_of(&[]).experiment().capture.pcap, PcapMode::Off);
        for (flag, value) in [
            ("--pcap-snap-len", "93"),
            ("--pcap-snap-len", "70000"),
            ("--pcap-max-bytes", "0"),
            ("--pcap-max-bytes", "100"),
        ] {
            use clap::Parser as _;
            let cli =
                crate::cli::Cli::try_parse_from(["orchestrator", "compare", flag, value]).unwrap();
            let crate::cli::Command::Compare(a) = cli.command else {
                panic!("not compare")
            };
            let e = compare_config(&a, "x").expect_err(value);
            assert!(e.0.contains(flag), "{e:?}");
        }
        // The experiment crate's and the capture crate's floors agree.
        assert_eq!(
            netlab_experiment::MIN_PCAP_SNAP_LEN,
            netlab_ecn::pcap::MIN_PCAP_SNAP_LEN
        );
        assert_eq!(
            netlab_experiment::DEFAULT_PCAP_SNAP_LEN,
            netlab_ecn::pcap::DEFAULT_PCAP_SNAP_LEN
        );
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
            use clap::Parser as _;
            let argv = ["orchestrator", "compare"].iter().chain(args);
            let cli = crate::cli::Cli::try_parse_from(argv).unwrap();
            let crate::cli::Command::Compare(a) = cli.command else {
                panic!("not compare")
            };
            let e = compare_config(&a, "x").expect_err(args[1]);
            assert!(e.0.contains(args[0]) && e.0.contains(why), "{e:?}");
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

    #[test]
    fn seconds_and_counts() {
        assert_eq!(
            parse_seconds("--for", "10").unwrap(),
            Duration::from_secs(10)
        );
        assert_eq!(
            parse_seconds("--for", "250ms").unwrap(),
            Duration::from_millis(250)
        );
        assert!(parse_seconds("--end", "0").is_err());
        assert!(parse_seconds("--end", "-2").is_err());
        assert!(parse_count("--rounds", "0", 10).is_err());
        assert!(parse_count("--rounds", "11", 10).is_err());
        assert_eq!(parse_count("--rounds", "3", 10).unwrap(), 3);
        assert!(parse_addr("--to", "10.20.2.2").is_err());
        assert!(parse_addr("--to", "10.20.2.2:46020").is_ok());
    }
}
