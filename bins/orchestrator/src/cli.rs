//! Raw command-line arguments, exactly as typed. Validation into typed
//! configuration happens in [`crate::config`]; nothing here is checked beyond
//! what clap does itself.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// netlab: real, bounded, honest comparisons of Linux queue disciplines at a
/// shaped bottleneck.
#[derive(Debug, Parser)]
#[command(name = "orchestrator", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the whole comparison (method §1–§9) and write results.json and summary.md.
    Compare(Box<CompareArgs>),
    /// Run an experiment described in a TOML file (see experiments/).
    Run(RunArgs),
    /// Print an experiment's plan: plan index, sweep point, round, arm, seed, unit; its content hash and the netlab version (touches nothing).
    Plan(PlanArgs),
    /// Merge shard folders of one experiment into one results folder (results.json, summary.md, the report).
    Merge(MergeArgs),
    /// Re-render a results folder's report (plots, index.html, .flent.gz) and summary.md from its results.json.
    Report(ReportArgs),
    /// Remove what dead netlab runs still own (namespaces, children, guests), and nothing else.
    Cleanup(CleanupArgs),
    /// Run one program inside a pinned user-mode-linux kernel and return its exit status.
    Guest(GuestArgs),
    /// Standalone receiver: TCP sink with pattern validation plus the UDP echo, one poll loop.
    Sink(SinkArgs),
    /// Standalone TCP load sender.
    Load(LoadArgs),
    /// Standalone UDP echo probe client.
    Probe(ProbeArgs),
    /// Internal: init process inside the user-mode-linux guest.
    #[command(hide = true)]
    GuestInit(GuestInitArgs),
}

/// Which kernel runs the experiment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum KernelChoice {
    /// The host kernel if it has every requested qdisc, else the guest if installed.
    #[default]
    Auto,
    /// The running kernel.
    Host,
    /// The Debian user-mode-linux kernel, booted for this run.
    Uml,
}

/// `orchestrator compare`.
#[derive(Debug, Args, Clone)]
pub struct CompareArgs {
    /// Rounds; each round runs every arm once, in the order given.
    #[arg(long, default_value = "3")]
    pub rounds: String,
    /// An arm under test, in tc words (repeatable; default: the method's pfifo and fq_codel).
    #[arg(long = "arm", value_name = "QDISC WORDS")]
    pub arms: Vec<String>,
    /// TBF rate of the bottleneck.
    #[arg(long, default_value = "5mbit")]
    pub rate: String,
    /// TBF burst.
    #[arg(long, default_value = "16kb")]
    pub burst: String,
    /// TBF limit (not the effective queue bound once a child replaces TBF's inner bfifo).
    #[arg(long, default_value = "64kb")]
    pub limit: String,
    /// TCP congestion control of the sender.
    #[arg(long, default_value = "reno")]
    pub cc: String,
    /// The veths' segmentation and receive offloads: kernel (as the kernel leaves them: GSO, TSO, GRO on) or off (GSO, TSO, GRO, LRO and the UDP ones off on every veth end, so the queue holds packets, not aggregates).
    #[arg(long, value_name = "kernel|off", default_value = "kernel")]
    pub offloads: String,
    /// MTU of every link of A-R-B (68..=65535; a full-size frame, MTU + 14, must fit --burst).
    #[arg(long, default_value = "1500")]
    pub mtu: String,
    /// Probe-only baseline phase.
    #[arg(long, default_value = "3s")]
    pub baseline: String,
    /// Load warm-up, excluded from goodput.
    #[arg(long, default_value = "3s")]
    pub warmup: String,
    /// Measured load window.
    #[arg(long, default_value = "12s")]
    pub measure: String,
    /// Probe spacing from the previous send.
    #[arg(long, default_value = "200ms")]
    pub probe_interval: String,
    /// Probe reply timeout.
    #[arg(long, default_value = "1s")]
    pub probe_timeout: String,
    /// Probe request cap per scenario.
    #[arg(long, default_value = "100")]
    pub probe_max: String,
    /// TCP state and qdisc sampling interval.
    #[arg(long, default_value = "200ms")]
    pub sample_interval: String,
    /// Capture frame cap.
    #[arg(long, default_value = "50000")]
    pub capture_frames: String,
    /// Capture deadline.
    #[arg(long, default_value = "25s")]
    pub capture_deadline: String,
    /// Also write every frame B's capture reads (headers, cut to --pcap-snap-len) to a pcapng file per scenario.
    #[arg(long)]
    pub pcap: bool,
    /// Bytes kept per frame in the --pcap file (>= 94: Ethernet + IPv4 + TCP with options).
    #[arg(long, default_value = "128")]
    pub pcap_snap_len: String,
    /// Byte cap of each scenario's --pcap file.
    #[arg(long, default_value = "33554432")]
    pub pcap_max_bytes: String,
    /// TCP port of the load flow.
    #[arg(long, default_value = "46020")]
    pub tcp_port: String,
    /// UDP port of the echo probe.
    #[arg(long, default_value = "46021")]
    pub udp_port: String,
    /// Size of each block the sender writes.
    #[arg(long, default_value = "131072")]
    pub block_size: String,
    /// Also run the isochronous probe (issue 15) at this interval (>= 1ms, e.g. 20ms) on UDP port 46022: dense latency with exact one-way delays, in its own summary table.
    #[arg(long, value_name = "INTERVAL")]
    pub iso_probe: Option<String>,
    /// Which kernel runs the experiment.
    #[arg(long, value_enum, default_value = "auto")]
    pub kernel: KernelChoice,
    /// Guest memory for --kernel uml.
    #[arg(long, default_value = "1G")]
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

/// `orchestrator run`.
#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    /// The experiment file (TOML).
    pub experiment: PathBuf,
    /// Which kernel runs the experiment (default: the file's `kernel`, else auto).
    #[arg(long, value_enum)]
    pub kernel: Option<KernelChoice>,
    /// Guest memory for the user-mode-linux kernel.
    #[arg(long, default_value = "1G")]
    pub guest_mem: String,
    /// Results folder (default results/<name>-<UTC timestamp>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write every frame's headers to a pcapng file per scenario (the file's `[capture] pcap = "headers"`).
    #[arg(long)]
    pub pcap: bool,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
    /// Run only shard K of N: the units (a round at a sweep point, all its arms) u with u mod N = K-1 (`orchestrator plan` lists them).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Continue the run in --out: skip every scenario already complete there, re-run a partial one; refused for a folder of another experiment or netlab version.
    #[arg(long)]
    pub resume: bool,
    /// Internal: this process runs inside the guest kernel started by the host side.
    #[arg(long, hide = true)]
    pub inside_guest: bool,
}

/// `orchestrator plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The experiment file (TOML).
    pub experiment: PathBuf,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also say which shard of N runs each unit.
    #[arg(long, value_name = "N")]
    pub shards: Option<String>,
}

/// `orchestrator merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The merged results folder (must not hold a results.json yet).
    pub out: PathBuf,
    /// The shard folders (each with its results.json).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Merge what exists even when plan indices are missing (they are listed in summary.md and the report).
    #[arg(long)]
    pub allow_partial: bool,
}

/// `orchestrator report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A results folder, or its results.json.
    pub path: PathBuf,
}

/// `orchestrator cleanup`.
#[derive(Debug, Args)]
pub struct CleanupArgs {
    /// Where runs keep their state files.
    #[arg(long, default_value = "/run/netlab")]
    pub state_dir: PathBuf,
}

/// `orchestrator guest`.
#[derive(Debug, Args)]
pub struct GuestArgs {
    /// A kernel module to load in the guest (dependencies are resolved), repeatable.
    #[arg(long = "module")]
    pub modules: Vec<String>,
    /// Guest memory.
    #[arg(long, default_value = "1G")]
    pub mem: String,
    /// Hard deadline for the whole guest.
    #[arg(long, default_value = "60s")]
    pub deadline: String,
    /// The program and its arguments.
    #[arg(last = true, required = true)]
    pub program: Vec<String>,
}

/// `orchestrator sink`.
#[derive(Debug, Args)]
pub struct SinkArgs {
    /// TCP address to listen on.
    #[arg(long)]
    pub listen: String,
    /// UDP echo port (same address as --listen).
    #[arg(long)]
    pub udp_echo: String,
    /// Lifetime in seconds.
    #[arg(long = "for")]
    pub for_secs: String,
}

/// `orchestrator load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Receiver address.
    #[arg(long)]
    pub to: String,
    /// Congestion control.
    #[arg(long, default_value = "reno")]
    pub cc: String,
    /// Lifetime in seconds.
    #[arg(long = "for")]
    pub for_secs: String,
}

/// `orchestrator probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Echo responder address.
    #[arg(long)]
    pub to: String,
    /// End of the probe in seconds from its start (no new request in the last second).
    #[arg(long)]
    pub end: String,
}

/// `orchestrator guest-init` (hidden).
#[derive(Debug, Args)]
pub struct GuestInitArgs {
    /// Whatever the kernel passes to init.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}
