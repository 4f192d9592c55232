//! The command line. Each flag's value is parsed into its type by clap,
//! through the value parsers of `netlab_experiment::flags`, [`crate::args`] or clap's own ranged
//! integers, so a bad value is clap's error naming the flag (exit 2); what
//! depends on several flags at once is checked in [`crate::config`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{value_parser, Args, Parser, Subcommand, ValueEnum};
use netlab_experiment::{Offloads, Shard};
use netlab_qdisc_model::{Rate, Size};
use netlab_report::diff::ChangeGate;

use netlab_experiment::flags::{self as args, ArmArg};

use crate::args::addr;

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
    /// What changed between two runs: the setup item by item, and each arm's metrics over A's rounds against B's (touches nothing).
    Diff(DiffArgs),
    /// Run the experiment a results folder records again (its seeds, order and kernel), then diff the new run against it.
    Rerun(RerunArgs),
    /// Remove what dead netlab runs still own (namespaces, children, guests), and nothing else.
    Cleanup(CleanupArgs),
    /// Run one program inside a pinned user-mode-linux kernel and return its exit status.
    Guest(GuestArgs),
    /// Build (`kernel build uml-6.12`) or list the guest kernels netlab builds from Debian's source packages.
    Kernel(KernelArgs),
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
pub enum KernelFlag {
    /// The host kernel if it has every requested qdisc, else the guest if installed.
    #[default]
    Auto,
    /// The running kernel.
    Host,
    /// The Debian user-mode-linux kernel, booted for this run.
    Uml,
    /// The user-mode-linux 6.12 kernel netlab builds (`orchestrator kernel build uml-6.12`), booted for this run.
    #[value(name = "uml-6.12")]
    Uml612,
}

/// `orchestrator compare`.
#[derive(Debug, Args, Clone)]
pub struct CompareArgs {
    /// Rounds; each round runs every arm once, in the order given.
    #[arg(long, default_value = "3", value_parser = value_parser!(u32).range(1..=1000))]
    pub rounds: u32,
    /// An arm under test, in tc words (repeatable; default: the method's pfifo and fq_codel).
    #[arg(long = "arm", value_name = "QDISC WORDS", value_parser = args::arm)]
    pub arms: Vec<ArmArg>,
    /// TBF rate of the bottleneck.
    #[arg(long, default_value = "5mbit", value_parser = args::rate)]
    pub rate: Rate,
    /// TBF burst.
    #[arg(long, default_value = "16kb", value_parser = args::size)]
    pub burst: Size,
    /// TBF limit (not the effective queue bound once a child replaces TBF's inner bfifo).
    #[arg(long, default_value = "64kb", value_parser = args::size)]
    pub limit: Size,
    /// TCP congestion control of the sender.
    #[arg(long, default_value = "reno", value_parser = args::cc)]
    pub cc: String,
    /// The veths' segmentation and receive offloads: kernel (as the kernel leaves them: GSO, TSO, GRO on) or off (GSO, TSO, GRO, LRO and the UDP ones off on every veth end, so the queue holds packets, not aggregates).
    #[arg(long, value_name = "kernel|off", default_value = "kernel", value_parser = args::offloads)]
    pub offloads: Offloads,
    /// MTU of every link of A-R-B (68..=65535; a full-size frame, MTU + 14, must fit --burst).
    #[arg(long, default_value = "1500", value_parser = args::mtu)]
    pub mtu: u32,
    /// Probe-only baseline phase.
    #[arg(long, default_value = "3s", value_parser = args::duration)]
    pub baseline: Duration,
    /// Load warm-up, excluded from goodput.
    #[arg(long, default_value = "3s", value_parser = args::duration)]
    pub warmup: Duration,
    /// Measured load window.
    #[arg(long, default_value = "12s", value_parser = args::duration)]
    pub measure: Duration,
    /// Probe spacing from the previous send.
    #[arg(long, default_value = "200ms", value_parser = args::duration)]
    pub probe_interval: Duration,
    /// Probe reply timeout.
    #[arg(long, default_value = "1s", value_parser = args::duration)]
    pub probe_timeout: Duration,
    /// Probe request cap per scenario.
    #[arg(long, default_value = "100", value_parser = value_parser!(u32).range(1..=100_000))]
    pub probe_max: u32,
    /// TCP state and qdisc sampling interval.
    #[arg(long, default_value = "200ms", value_parser = args::sample_interval)]
    pub sample_interval: Duration,
    /// Capture frame cap.
    #[arg(long, default_value = "50000", value_parser = value_parser!(u64).range(1..=10_000_000))]
    pub capture_frames: u64,
    /// Capture deadline.
    #[arg(long, default_value = "25s", value_parser = args::duration)]
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
    #[arg(long, default_value = "46020", value_parser = value_parser!(u16).range(1..))]
    pub tcp_port: u16,
    /// UDP port of the echo probe.
    #[arg(long, default_value = "46021", value_parser = value_parser!(u16).range(1..))]
    pub udp_port: u16,
    /// Size of each block the sender writes.
    #[arg(long, default_value = "131072", value_parser = value_parser!(u64).range(1..=16 << 20))]
    pub block_size: u64,
    /// The isochronous probe beside the stop-and-wait one, on its own UDP port: a request every INTERVAL (>= 1ms) whatever is outstanding, so its one-way delays sample the window uniformly in time and give the headline's delay (method §10); `off` leaves it out.
    #[arg(long, value_name = "INTERVAL|off", default_value_t = args::IsoProbeArg::method(), value_parser = args::iso_probe)]
    pub iso_probe: args::IsoProbeArg,
    /// Which kernel runs the experiment.
    #[arg(long, value_enum, default_value = "auto")]
    pub kernel: KernelFlag,
    /// Guest memory for --kernel uml.
    #[arg(long, default_value = "1G", value_parser = args::guest_mem)]
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
    pub kernel: Option<KernelFlag>,
    /// Guest memory for the user-mode-linux kernel.
    #[arg(long, default_value = "1G", value_parser = args::guest_mem)]
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
    #[arg(long, value_name = "K/N", value_parser = args::shard)]
    pub shard: Option<Shard>,
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
    #[arg(long, value_name = "N", value_parser = args::shards)]
    pub shards: Option<u32>,
}

/// `orchestrator merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The merged results folder (must not hold a results.json yet, unless --update).
    pub out: PathBuf,
    /// The shard folders (each with its results.json).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Merge what exists even when plan indices are missing (they are listed in summary.md and the report).
    #[arg(long)]
    pub allow_partial: bool,
    /// OUT may already hold a merge: nothing is written when it holds this one (the same runs, every scenario's bytes); otherwise it is replaced in one step and its former result kept as OUT.previous.
    #[arg(long)]
    pub update: bool,
}

/// `orchestrator report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A results folder, or its results.json.
    pub path: PathBuf,
    /// A model to draw beside the measurement (`fifo_bound`, `sparse_flow`, `aqm_law`, `bbr_share`; repeat for more) for a run whose results.json records none (written before `[report] models` existed): results.json records it (`experiment.report.models`, every other byte kept), so the next `report` draws it too. A run that records models keeps its own.
    #[arg(long = "models", value_name = "MODEL")]
    pub models: Vec<String>,
}

/// `orchestrator diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Run A (the reference): a results folder, or its results.json.
    pub a: PathBuf,
    /// Run B.
    pub b: PathBuf,
    /// Where diff.md, diff.html and diff.json go (created; default: not written, the headline only).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Pair arms whose words differ: 'A-WORDS=B-WORDS' (repeatable).
    #[arg(long, value_parser = args::arm_pair)]
    pub pair: Vec<(String, String)>,
    /// Exit 1 when a change in METRIC (p50, p95, loss, goodput, drops) is claimed beyond THRESHOLD (its unit; default 0).
    #[arg(long, value_name = "METRIC[:THRESHOLD]", value_parser = ChangeGate::parse)]
    pub fail_on_change: Vec<ChangeGate>,
}

/// `orchestrator rerun`.
#[derive(Debug, Args)]
pub struct RerunArgs {
    /// The results folder (or its results.json) whose experiment runs again.
    pub results: PathBuf,
    /// Results folder of the new run (default results/<name>-rerun-<UTC timestamp>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Rounds, instead of the recorded count.
    #[arg(long, value_parser = value_parser!(u32).range(1..))]
    pub rounds: Option<u32>,
    /// The kernel to run on, instead of the recorded one (the diff then names it).
    #[arg(long, value_enum)]
    pub kernel: Option<KernelFlag>,
    /// Rerun only shard K of N of the recorded experiment (a merged run reruns as one experiment otherwise); the diff compares its rounds with all of the original's at the same arms and points.
    #[arg(long, value_name = "K/N", value_parser = args::shard)]
    pub shard: Option<Shard>,
    /// Guest memory for the user-mode-linux kernel.
    #[arg(long, default_value = "1G", value_parser = args::guest_mem)]
    pub guest_mem: String,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
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
    #[arg(long, default_value = "1G", value_parser = args::guest_mem)]
    pub mem: String,
    /// Hard deadline for the whole guest.
    #[arg(long, default_value = "60s", value_parser = args::duration)]
    pub deadline: Duration,
    /// The guest kernel: uml (Debian's user-mode-linux) or uml-6.12 (`orchestrator kernel build uml-6.12`).
    #[arg(long, default_value = "uml")]
    pub kernel: String,
    /// The program and its arguments.
    #[arg(last = true, required = true)]
    pub program: Vec<String>,
}

/// `orchestrator kernel build NAME` or `orchestrator kernel list` (netlab_guest::kernels::command).
#[derive(Debug, Args)]
pub struct KernelArgs {
    /// build: build the kernel NAME from its Debian source into the cache, then boot it once (nothing to do when it is there); list: the guest kernels, whether each is there, and where.
    pub action: KernelAction,
    /// The kernel to build: uml-6.12 (or 6.12).
    #[arg(required_if_eq("action", "build"))]
    pub name: Option<String>,
    /// Parallel make jobs (default: every CPU).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Bound of the whole build (default 180m).
    #[arg(long, value_parser = args::duration)]
    pub timeout: Option<Duration>,
    /// The cache (default $NETLAB_KERNEL_CACHE, else /var/cache/netlab/kernels as root).
    #[arg(long)]
    pub cache: Option<PathBuf>,
}

/// What `orchestrator kernel` does.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KernelAction {
    /// Build a kernel.
    Build,
    /// List the kernels.
    List,
}

/// `orchestrator sink`.
#[derive(Debug, Args)]
pub struct SinkArgs {
    /// TCP address to listen on.
    #[arg(long, value_parser = addr)]
    pub listen: SocketAddr,
    /// UDP echo port (same address as --listen).
    #[arg(long, value_parser = value_parser!(u16).range(1..))]
    pub udp_echo: u16,
    /// Lifetime in seconds.
    #[arg(long = "for", value_parser = args::seconds)]
    pub for_secs: Duration,
}

/// `orchestrator load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Receiver address.
    #[arg(long, value_parser = addr)]
    pub to: SocketAddr,
    /// Congestion control.
    #[arg(long, default_value = "reno", value_parser = args::cc)]
    pub cc: String,
    /// Lifetime in seconds.
    #[arg(long = "for", value_parser = args::seconds)]
    pub for_secs: Duration,
}

/// `orchestrator probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Echo responder address.
    #[arg(long, value_parser = addr)]
    pub to: SocketAddr,
    /// End of the probe in seconds from its start (no new request in the last second).
    #[arg(long, value_parser = args::seconds)]
    pub end: Duration,
}

/// `orchestrator guest-init` (hidden).
#[derive(Debug, Args)]
pub struct GuestInitArgs {
    /// Whatever the kernel passes to init.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}
