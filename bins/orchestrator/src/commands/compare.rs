//! `orchestrator compare`: its flags ([`CompareArgs`]), validated into
//! its configuration ([`CompareConfig`], whose [`CompareConfig::check`]
//! refuses what depends on several flags at once), the method's
//! experiment with them applied ([`CompareConfig::experiment`]), and the
//! run: a [`SessionConfig`] run by [`super::execute`] (kernel choice, every
//! scenario here or inside the guest, results.json, summary.md, the
//! report and the table), its exit code.

use std::path::PathBuf;
use std::time::Duration;

use clap::{value_parser, Args};
use netlab_experiment::{
    ArmSpec, CaptureSpec, Direction, Experiment, FlowSpec, KernelChoice, Offloads, PathSpec,
    PcapMode, ProbeSpec, Timeline,
};
use netlab_path_settings::{DEFAULT_PROBE_PORT, DEFAULT_TCP_PORT};
use netlab_qdisc_model::{Arm, Rate, Size, Tbf};
use netlab_run::SessionConfig;

use super::kernel_flag::{kernel_choice, KernelFlag};
use super::{execute, utc_stamp, UsageError};
use crate::flags::{self, ArmArg};

/// `orchestrator compare`.
#[derive(Debug, Args, Clone)]
pub struct CompareArgs {
    /// Rounds; each round runs every arm once, in the order given.
    #[arg(long, default_value = "3", value_parser = value_parser!(u32).range(1..=1000))]
    pub rounds: u32,
    /// An arm under test, in tc words (repeatable; default: the method's pfifo and fq_codel).
    #[arg(long = "arm", value_name = "QDISC WORDS", value_parser = flags::arm)]
    pub arms: Vec<ArmArg>,
    /// TBF rate of the bottleneck.
    #[arg(long, default_value = "5mbit", value_parser = flags::rate)]
    pub rate: Rate,
    /// TBF burst.
    #[arg(long, default_value = "16kb", value_parser = flags::size)]
    pub burst: Size,
    /// TBF limit (not the effective queue bound once a child replaces TBF's inner bfifo).
    #[arg(long, default_value = "64kb", value_parser = flags::size)]
    pub limit: Size,
    /// TCP congestion control of the sender.
    #[arg(long, default_value = "reno", value_parser = flags::cc)]
    pub cc: String,
    /// The veths' segmentation and receive offloads: kernel (as the kernel leaves them: GSO, TSO, GRO on) or off (GSO, TSO, GRO, LRO and the UDP ones off on every veth end, so the queue holds packets, not aggregates).
    #[arg(long, value_name = "kernel|off", default_value = "kernel", value_parser = flags::offloads)]
    pub offloads: Offloads,
    /// MTU of every link of A-R-B (68..=65535; a full-size frame, MTU + 14, must fit --burst).
    #[arg(long, default_value = "1500", value_parser = flags::mtu)]
    pub mtu: u32,
    /// Probe-only baseline phase.
    #[arg(long, default_value = "3s", value_parser = flags::duration)]
    pub baseline: Duration,
    /// Load warm-up, excluded from goodput.
    #[arg(long, default_value = "3s", value_parser = flags::duration)]
    pub warmup: Duration,
    /// Measured load window.
    #[arg(long, default_value = "12s", value_parser = flags::duration)]
    pub measure: Duration,
    /// Probe spacing from the previous send.
    #[arg(long, default_value = "200ms", value_parser = flags::duration)]
    pub probe_interval: Duration,
    /// Probe reply timeout.
    #[arg(long, default_value = "1s", value_parser = flags::duration)]
    pub probe_timeout: Duration,
    /// Probe request cap per scenario.
    #[arg(long, default_value = "100", value_parser = value_parser!(u32).range(1..=100_000))]
    pub probe_max: u32,
    /// TCP state and qdisc sampling interval.
    #[arg(long, default_value = "200ms", value_parser = flags::sample_interval)]
    pub sample_interval: Duration,
    /// Capture frame cap.
    #[arg(long, default_value = "50000", value_parser = value_parser!(u64).range(1..=10_000_000))]
    pub capture_frames: u64,
    /// Capture deadline.
    #[arg(long, default_value = "25s", value_parser = flags::duration)]
    pub capture_deadline: Duration,
    /// Also write every frame B's capture reads (headers, cut to --pcap-snap-len) to a pcapng file per scenario.
    #[arg(long)]
    pub pcap: bool,
    /// Bytes kept per frame in the --pcap file (>= 94: Ethernet + IPv4 + TCP with options).
    #[arg(
        long,
        default_value = "128",
        value_parser = value_parser!(u32).range(
            i64::from(netlab_experiment::MIN_PCAP_SNAP_LEN)..=i64::from(netlab_experiment::MAX_PCAP_SNAP_LEN)
        )
    )]
    pub pcap_snap_len: u32,
    /// Byte cap of each scenario's --pcap file.
    #[arg(
        long,
        default_value = "33554432",
        value_parser = value_parser!(u64).range(netlab_experiment::MIN_PCAP_MAX_BYTES..)
    )]
    pub pcap_max_bytes: u64,
    /// TCP port of the load flow.
    #[arg(long, default_value_t = DEFAULT_TCP_PORT, value_parser = value_parser!(u16).range(1..))]
    pub tcp_port: u16,
    /// UDP port of the echo probe.
    #[arg(long, default_value_t = DEFAULT_PROBE_PORT, value_parser = value_parser!(u16).range(1..))]
    pub udp_port: u16,
    /// Size of each block the sender writes.
    #[arg(long, default_value = "131072", value_parser = value_parser!(u64).range(1..=16 << 20))]
    pub block_size: u64,
    /// The isochronous probe beside the stop-and-wait one, on its own UDP port: a request every INTERVAL (>= 1ms) whatever is outstanding, so its one-way delays sample the window uniformly in time and give the headline's delay (method §10); `off` leaves it out.
    #[arg(long, value_name = "INTERVAL|off", default_value_t = flags::IsoProbeArg::method(), value_parser = flags::iso_probe)]
    pub iso_probe: flags::IsoProbeArg,
    /// Which kernel runs the experiment.
    #[arg(long, value_enum, default_value = "auto")]
    pub kernel: KernelFlag,
    /// Guest memory for --kernel uml.
    #[arg(long, default_value = "1G", value_parser = flags::guest_mem)]
    pub guest_mem: String,
    /// Results folder (default results/<UTC timestamp>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
    /// Print the equivalent experiment file (TOML, every default spelled out) and exit.
    #[arg(long)]
    pub print_experiment: bool,
    /// Internal: this process runs inside the guest kernel started by the host side.
    #[arg(long, hide = true)]
    pub inside_guest: bool,
}

/// `orchestrator compare`: the method's experiment with the flags applied.
pub fn main(a: &CompareArgs) -> u8 {
    let cfg = match compare_config(a, &utc_stamp()) {
        Ok(c) => c,
        Err(UsageError(m)) => {
            eprintln!("orchestrator: {m}");
            return 2;
        }
    };
    if a.print_experiment {
        print!("{}", cfg.experiment().to_toml());
        return 0;
    }
    execute("compare", cfg.session())
}

/// The flags of `orchestrator compare`, validated: what `compare` runs
/// ([`CompareConfig::experiment`]). (A version 1 results.json recorded
/// the same block; its migration keeps its own copy,
/// `netlab_results::v1::ConfigV1`, so an old file means what it meant.)
#[derive(Debug, Clone, PartialEq)]
pub struct CompareConfig {
    /// Rounds.
    pub rounds: u32,
    /// Arms, in the order they run within a round.
    pub arms: Vec<Arm>,
    /// The arms as the words the user typed (or the method defaults).
    pub arm_words: Vec<String>,
    /// Root TBF of the bottleneck.
    pub tbf: Tbf,
    /// Congestion control requested for the sender.
    pub cc: String,
    /// Phases.
    pub timeline: Timeline,
    /// Probe spacing.
    pub probe_interval: Duration,
    /// Probe timeout.
    pub probe_timeout: Duration,
    /// Probe request cap.
    pub probe_max: u32,
    /// TCP-state and qdisc sampling interval.
    pub sample_interval: Duration,
    /// Capture frame cap.
    pub capture_frames: u64,
    /// Capture deadline.
    pub capture_deadline: Duration,
    /// Every frame's headers to a pcapng file (`--pcap`).
    pub pcap: bool,
    /// Snap length of that file.
    pub pcap_snap_len: u32,
    /// Byte cap of that file.
    pub pcap_max_bytes: u64,
    /// TCP port.
    pub tcp_port: u16,
    /// UDP probe port.
    pub udp_port: u16,
    /// Sender block size in bytes.
    pub block_size: usize,
    /// Interval of the isochronous probe, when `--iso-probe` asks for it.
    pub iso_probe: Option<Duration>,
    /// The veths' offloads (`--offloads`; version 1 files ran with the
    /// kernel's).
    pub offloads: Offloads,
    /// MTU of every link (`--mtu`; version 1 files ran with 1500).
    pub mtu: u32,
    /// Kernel choice as given.
    pub kernel: KernelChoice,
    /// Guest memory, as passed to the kernel (`1G`).
    pub guest_mem: String,
    /// Results folder.
    pub out: PathBuf,
    /// No progress display.
    pub quiet: bool,
    /// Running inside the guest.
    pub inside_guest: bool,
}

fn usage(flag: &str, value: &str, why: impl std::fmt::Display) -> UsageError {
    UsageError(format!("invalid value '{value}' for {flag}: {why}"))
}

impl CompareConfig {
    /// Checks what depends on several flags at once (each flag's own value
    /// was checked as it was parsed): the TBF's rate, burst and limit
    /// together, a full-size frame of the MTU against the burst
    /// ([`netlab_experiment::frame_over_burst`]), the TCP and UDP ports
    /// apart, and the isochronous probe's echo port off both.
    pub fn check(&self) -> Result<(), UsageError> {
        self.tbf
            .validate()
            .map_err(|e| UsageError(format!("invalid TBF (--rate/--burst/--limit): {e}")))?;
        if let Some(frame) = netlab_experiment::frame_over_burst(self.mtu, self.tbf.burst) {
            return Err(usage(
                "--mtu",
                &self.mtu.to_string(),
                format!(
                    "a full-size frame of {frame} bytes (MTU + 14) exceeds --burst {}: \
                     TBF would drop every such packet",
                    self.tbf.burst
                ),
            ));
        }
        if self.tcp_port == self.udp_port {
            // Different protocols could share a number, but keeping them apart
            // keeps the capture's "other" count honest and readable.
            return Err(usage(
                "--udp-port",
                &self.udp_port.to_string(),
                "must differ from --tcp-port",
            ));
        }
        if let Some(d) = self.iso_probe {
            let port = ProbeSpec::isochronous().port;
            if self.tcp_port == port || self.udp_port == port {
                return Err(usage(
                    "--iso-probe",
                    &format!("{d:?}"),
                    format!("its echo uses UDP port {port}: keep --tcp-port and --udp-port off it"),
                ));
            }
        }
        Ok(())
    }

    /// The experiment these flags describe: the method's experiment with
    /// the flags applied (what `compare` runs, and what
    /// `--print-experiment` prints).
    pub fn experiment(&self) -> Experiment {
        let d = Experiment::default();
        Experiment {
            description: Experiment::seed_description(self.iso_probe.is_some()),
            rounds: self.rounds,
            kernel: self.kernel,
            arms: self
                .arm_words
                .iter()
                .zip(&self.arms)
                .map(|(w, a)| ArmSpec {
                    words: w.split_whitespace().collect::<Vec<_>>().join(" "),
                    arm: a.clone(),
                })
                .collect(),
            timeline: self.timeline,
            path: PathSpec {
                up: Some(self.tbf),
                offloads: self.offloads,
                mtu: self.mtu,
                ..d.path.clone()
            },
            flows: vec![FlowSpec {
                direction: Direction::Up,
                cc: self.cc.clone(),
                ecn: true,
                start: Duration::ZERO,
                stop: None,
                port: self.tcp_port,
                block_size: self.block_size as u32,
                host: 0,
            }],
            probes: std::iter::once(ProbeSpec {
                port: self.udp_port,
                interval: self.probe_interval,
                timeout: self.probe_timeout,
                max_requests: Some(self.probe_max),
                ..ProbeSpec::stop_and_wait()
            })
            .chain(self.iso_probe.map(|interval| ProbeSpec {
                interval,
                ..ProbeSpec::isochronous()
            }))
            .collect(),
            sample_interval: self.sample_interval,
            capture: CaptureSpec {
                frames: self.capture_frames,
                deadline: self.capture_deadline,
                pcap: if self.pcap {
                    PcapMode::Headers
                } else {
                    PcapMode::Off
                },
                snap_len: self.pcap_snap_len,
                pcap_max_bytes: self.pcap_max_bytes,
            },
            ..d
        }
    }

    /// The run these flags ask for: the experiment, its folder and the
    /// run-level options.
    pub fn session(&self) -> SessionConfig {
        SessionConfig {
            guest_mem: self.guest_mem.clone(),
            quiet: self.quiet,
            inside_guest: self.inside_guest,
            ..SessionConfig::new(self.experiment(), self.out.clone())
        }
    }
}

/// The `compare` configuration from its parsed flags, checked by
/// [`CompareConfig::check`] (what depends on several flags at once);
/// `now_utc_stamp` names the default results folder.
pub fn compare_config(a: &CompareArgs, now_utc_stamp: &str) -> Result<CompareConfig, UsageError> {
    let given = if a.arms.is_empty() {
        crate::flags::default_arms()
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
    cfg.check()?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Parses a duration written like `3s`, `500ms`, `1.5s`, `250us` or `2m`
    /// (the experiment files' grammar), naming `flag` when it is refused.
    fn parse_duration(flag: &str, text: &str) -> Result<Duration, UsageError> {
        crate::flags::duration(text)
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
        assert!(awkward().session().check_runnable().is_ok());
        assert_eq!(exp.kernel, netlab_experiment::KernelChoice::Uml);
        assert_eq!(exp.path.up.unwrap().rate.to_string(), "12345kbit");
    }

    /// The guest's argument list: `run FILE` with the run-level options;
    /// parsed back (with the file) it gives the same run configuration.
    #[test]
    fn the_guest_argv_gives_the_same_run() {
        use clap::Parser as _;
        let mut cfg = awkward().session();
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
        let back = super::super::run::run_config(&a, "never").unwrap();
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
        // the interval reaches the experiment's isochronous probe; off, none
        let cfg = parse(&["--iso-probe", "20ms"]).unwrap();
        assert_eq!(cfg.iso_probe, Some(Duration::from_millis(20)));
        assert!(parse(&["--iso-probe", "off"]).unwrap().iso_probe.is_none());
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
