//! The configuration block a version 1 results.json recorded
//! ([`ConfigV1`]): the validated flags of `orchestrator compare` as they
//! were then, and the experiment they describe ([`ConfigV1::experiment`],
//! the migration [`crate::v1`] runs). It is kept as version 1 wrote it and
//! read it, apart from today's `compare` (the binary's own configuration):
//! a flag `compare` gains or changes does not change what an old file
//! meant. Fields added while version 1 was written carry defaults.

use std::path::PathBuf;
use std::time::Duration;

use netlab_experiment::{
    ArmSpec, CaptureSpec, Direction, Experiment, FlowSpec, KernelChoice, Offloads, PathSpec,
    PcapMode, ProbeSpec, Timeline,
};
use netlab_os::secs;
use netlab_qdisc_model::{Arm, Tbf};
use serde::{Deserialize, Serialize};

/// An optional `Duration` as seconds (f64) or null.
mod opt_secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        d.map(|d| d.as_secs_f64()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let v = Option::<f64>::deserialize(d)?;
        v.map(|v| {
            Duration::try_from_secs_f64(v).map_err(|e| serde::de::Error::custom(e.to_string()))
        })
        .transpose()
    }
}

fn default_mtu() -> u32 {
    netlab_experiment::DEFAULT_MTU
}

fn default_snap_len() -> u32 {
    netlab_experiment::DEFAULT_PCAP_SNAP_LEN
}

fn default_pcap_max_bytes() -> u64 {
    netlab_experiment::DEFAULT_PCAP_MAX_BYTES
}

/// The validated flags of `orchestrator compare`, as a version 1
/// results.json recorded them whole as its configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigV1 {
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
    #[serde(with = "secs")]
    pub probe_interval: Duration,
    /// Probe timeout.
    #[serde(with = "secs")]
    pub probe_timeout: Duration,
    /// Probe request cap.
    pub probe_max: u32,
    /// TCP-state and qdisc sampling interval.
    #[serde(with = "secs")]
    pub sample_interval: Duration,
    /// Capture frame cap.
    pub capture_frames: u64,
    /// Capture deadline.
    #[serde(with = "secs")]
    pub capture_deadline: Duration,
    /// Every frame's headers to a pcapng file (`--pcap`).
    #[serde(default)]
    pub pcap: bool,
    /// Snap length of that file.
    #[serde(default = "default_snap_len")]
    pub pcap_snap_len: u32,
    /// Byte cap of that file.
    #[serde(default = "default_pcap_max_bytes")]
    pub pcap_max_bytes: u64,
    /// TCP port.
    pub tcp_port: u16,
    /// UDP probe port.
    pub udp_port: u16,
    /// Sender block size in bytes.
    pub block_size: usize,
    /// Interval of the isochronous probe, when `--iso-probe` asks for it.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_secs")]
    pub iso_probe: Option<Duration>,
    /// The veths' offloads (`--offloads`; version 1 files ran with the
    /// kernel's).
    #[serde(default)]
    pub offloads: Offloads,
    /// MTU of every link (`--mtu`; version 1 files ran with 1500).
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// Kernel choice as given (not recorded: `kernel` of the results says
    /// which kernel ran and why).
    #[serde(skip)]
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

impl ConfigV1 {
    /// The experiment these flags described: the method's experiment
    /// with the flags applied, as `compare` ran it.
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The version 1 fixture's configuration block reads, writes back as
    /// it read, and describes its run: one Reno upload behind the TBF.
    #[test]
    fn the_version_1_block_reads_back_what_it_writes() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator/schema_v1/results.json");
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let cfg: ConfigV1 = serde_json::from_value(file["config"].clone()).unwrap();
        let back: ConfigV1 = serde_json::from_str(&serde_json::to_string(&cfg).unwrap()).unwrap();
        assert_eq!(back, cfg);
        assert_eq!(cfg.iso_probe, None);
        assert!(!serde_json::to_string(&cfg).unwrap().contains("iso_probe"));
        let exp = cfg.experiment();
        assert_eq!(exp.flows.len(), 1);
        assert_eq!(exp.flows[0].cc, cfg.cc);
        assert_eq!(exp.path.up, Some(cfg.tbf));
    }
}
