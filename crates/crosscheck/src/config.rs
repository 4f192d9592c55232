//! What a cross-check runs: arms, loads, timeline, rounds.

use std::time::Duration;

use netlab_qdisc_model::{Arm, BottleneckSpec, Tbf};
use netlab_topology::{Offloads, ReceiveBuffer};
use serde::{Deserialize, Serialize};

use crate::CrosscheckError;

/// One scenario's timeline as the cross-check's configuration writes it
/// (seconds, and the load's whole length where netlab's
/// `netlab_experiment::Timeline` has the measured window; `run_timeline`
/// converts), relative to t0 (B's receiver start), as in method §3:
/// probe-only baseline, then the load from `baseline` for `load`; the
/// measured window is `[baseline + warmup, baseline + load)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CrosscheckTimeline {
    /// Probe-only phase (3 s).
    pub baseline_s: f64,
    /// Start-up not measured (3 s).
    pub warmup_s: f64,
    /// Load duration from its start to the end of the window (15 s).
    pub load_s: f64,
}

impl CrosscheckTimeline {
    /// method §3: 0–3 s baseline, load from 3 s, window 6–18 s.
    pub const METHOD: CrosscheckTimeline = CrosscheckTimeline {
        baseline_s: 3.0,
        warmup_s: 3.0,
        load_s: 15.0,
    };

    /// A short timeline for CI: 1 s baseline, load 1–7 s, window 3–7 s.
    pub const SHORT: CrosscheckTimeline = CrosscheckTimeline {
        baseline_s: 1.0,
        warmup_s: 2.0,
        load_s: 6.0,
    };

    /// When the load starts.
    pub fn load_start(&self) -> Duration {
        Duration::from_secs_f64(self.baseline_s)
    }
    /// Start of the measured window.
    pub fn window_start(&self) -> Duration {
        Duration::from_secs_f64(self.baseline_s + self.warmup_s)
    }
    /// End of the scenario (end of the window; the receiver closes).
    pub fn end(&self) -> Duration {
        Duration::from_secs_f64(self.baseline_s + self.load_s)
    }
    /// When the mid-load readback cross-check (pairing 3) is taken: 2/3 into
    /// the window.
    pub fn readback_at(&self) -> Duration {
        let w = self.baseline_s + self.warmup_s;
        Duration::from_secs_f64(w + (self.baseline_s + self.load_s - w) * 2.0 / 3.0)
    }

    fn validate(&self) -> Result<(), CrosscheckError> {
        let ok =
            self.baseline_s >= 0.5 && self.warmup_s >= 0.0 && self.load_s > self.warmup_s + 1.0;
        if ok && self.baseline_s + self.load_s <= 120.0 {
            Ok(())
        } else {
            Err(CrosscheckError::Config(format!(
                "timeline {self:?}: need baseline ≥ 0.5 s, load > warm-up + 1 s, end ≤ 120 s"
            )))
        }
    }
}

/// netlab's own load: tcpload's sender in A, its receiver in B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetlabLoad {
    /// Bytes per sender write (`SenderConfig::block_size`).
    pub block_size: usize,
    /// Bytes per receiver recv (`SinkConfig::recv_buf`).
    pub recv_buf: usize,
    /// Pause between connect and the first write, ms
    /// (`SenderConfig::start_delay`).
    #[serde(default)]
    pub start_delay_ms: u64,
    /// Bytes written before that pause (`SenderConfig::prime_bytes`).
    #[serde(default)]
    pub prime_bytes: usize,
    /// A receive-buffer start for this load's scenarios other than the
    /// cross-check's [`CrosscheckConfig::receive_buffer`].
    #[serde(default)]
    pub receive_buffer: Option<ReceiveBuffer>,
}

impl Default for NetlabLoad {
    /// tcpload's own defaults (`SenderConfig::new`, `SinkConfig::new`).
    fn default() -> Self {
        let to = "127.0.0.1:9".parse().expect("literal address");
        NetlabLoad {
            block_size: netlab_tcpload::SenderConfig::new(to).block_size,
            recv_buf: netlab_tcpload::SinkConfig::new(to).recv_buf,
            start_delay_ms: netlab_tcpload::SenderConfig::new(to)
                .start_delay
                .as_millis() as u64,
            prime_bytes: netlab_tcpload::SenderConfig::new(to).prime_bytes,
            receive_buffer: None,
        }
    }
}

/// Debian's iperf3 as the load: server in B, client in A.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Iperf3Load {
    /// `-l`: bytes per write/read; `None` keeps iperf3's default (128 KiB).
    pub length: Option<usize>,
    /// As [`NetlabLoad::receive_buffer`].
    #[serde(default)]
    pub receive_buffer: Option<ReceiveBuffer>,
}

/// Which program runs one end of an [`OrdinaryLoad`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// netlab's own (tcpload's sender in A, its receive loop in B).
    Netlab,
    /// The plain application in `ordinary.py`: blocking `sendall` of
    /// 128 KiB blocks right after `connect`, blocking `recv(131072)`.
    Ordinary,
}

/// A plain bulk transfer (method §13): both ends ordinary, or one end
/// swapped for netlab's, to see which half moves a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrdinaryLoad {
    /// Who sends, in A.
    pub sender: End,
    /// Who receives, in B.
    pub receiver: End,
    /// As [`NetlabLoad::receive_buffer`].
    #[serde(default)]
    pub receive_buffer: Option<ReceiveBuffer>,
}

impl Default for OrdinaryLoad {
    /// Both ends ordinary.
    fn default() -> Self {
        OrdinaryLoad {
            sender: End::Ordinary,
            receiver: End::Ordinary,
            receive_buffer: None,
        }
    }
}

/// Which load a scenario runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "snake_case")]
pub enum Load {
    /// netlab's sender and receiver.
    Netlab(NetlabLoad),
    /// `iperf3 -C <cc>`.
    Iperf3(Iperf3Load),
    /// A plain application's bulk transfer (`ordinary.py`), or a swap of
    /// one of its ends for netlab's.
    Ordinary(OrdinaryLoad),
}

impl Load {
    /// A short label for tables: "netlab", "iperf3", or with the non-default
    /// settings, e.g. "netlab block 16384".
    pub fn label(&self) -> String {
        match self {
            Load::Netlab(n) => {
                let d = NetlabLoad::default();
                let mut s = "netlab".to_string();
                if n.block_size != d.block_size {
                    s += &format!(" block {}", n.block_size);
                }
                if n.recv_buf != d.recv_buf {
                    s += &format!(" recv {}", n.recv_buf);
                }
                if n.start_delay_ms != d.start_delay_ms {
                    s += &format!(" delay {} ms", n.start_delay_ms);
                }
                if n.prime_bytes != d.prime_bytes {
                    s += &format!(" prime {} B", n.prime_bytes);
                }
                s + &rbuf_label(n.receive_buffer)
            }
            Load::Iperf3(i) => {
                let s = match i.length {
                    Some(l) => format!("iperf3 -l {l}"),
                    None => "iperf3".into(),
                };
                s + &rbuf_label(i.receive_buffer)
            }
            Load::Ordinary(o) => {
                let s = match (o.sender, o.receiver) {
                    (End::Ordinary, End::Ordinary) => "ordinary",
                    (End::Netlab, End::Ordinary) => "netlab sender → ordinary receiver",
                    (End::Ordinary, End::Netlab) => "ordinary sender → netlab receiver",
                    (End::Netlab, End::Netlab) => "netlab (via ordinary)",
                };
                s.to_owned() + &rbuf_label(o.receive_buffer)
            }
        }
    }

    /// This load's own receive-buffer start, if it overrides the config's.
    pub fn receive_buffer(&self) -> Option<ReceiveBuffer> {
        match self {
            Load::Netlab(n) => n.receive_buffer,
            Load::Iperf3(i) => i.receive_buffer,
            Load::Ordinary(o) => o.receive_buffer,
        }
    }
}

fn rbuf_label(rbuf: Option<ReceiveBuffer>) -> String {
    match rbuf {
        None => String::new(),
        Some(ReceiveBuffer::Kernel) => " kernel rmem".into(),
        Some(ReceiveBuffer::StartAtMax) => " rmem at max".into(),
    }
}

/// A whole cross-check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrosscheckConfig {
    /// Rounds; in each round every arm runs every load, in an order that
    /// alternates between rounds (≥ 10 for a headline figure).
    pub rounds: u32,
    /// The arms, as tc words (`pfifo limit 256`, `fq_codel … ecn`).
    pub arms: Vec<String>,
    /// The TBF, as tc words (`rate 5mbit burst 16kb limit 64kb`).
    pub tbf: String,
    /// The loads compared (pairing 1); the first is the reference netlab.
    pub loads: Vec<Load>,
    /// Congestion control of both loads.
    pub cc: String,
    /// Timeline of every scenario.
    pub timeline: CrosscheckTimeline,
    /// Probe spacing of both probes (200 ms).
    pub probe_interval_s: f64,
    /// netlab probe timeout = censoring bound for both probes (1 s).
    pub probe_timeout_s: f64,
    /// Run `irtt client` next to netlab's probe (pairing 2).
    pub irtt: bool,
    /// Take the mid-load readback check against `tc` and `ss` (pairing 3).
    pub readback_check: bool,
    /// Also run netlab's isochronous probe at the same spacing,
    /// on its own echo port, next to irtt (pairing 2b); off by default.
    #[serde(default)]
    pub iso_probe: bool,
    /// tcp_info sampling interval of both ends, ms (200; a few ms to see
    /// the first round trips of a flow).
    #[serde(default = "default_tcp_sample_ms")]
    pub tcp_sample_ms: u64,
    /// How A and B start their receive buffers (the method's: the
    /// kernel's); a load may override it. Runs recorded before this field
    /// existed used the kernel's.
    #[serde(default = "kernel_receive_buffer")]
    pub receive_buffer: ReceiveBuffer,
    /// The veths' segmentation and receive offloads on every end of A, R
    /// and B (method §1.6): the kernel's (the method's path) or off, so the
    /// arm queues packets instead of aggregates. Runs recorded before this
    /// field existed used the kernel's.
    #[serde(default)]
    pub offloads: Offloads,
}

fn kernel_receive_buffer() -> ReceiveBuffer {
    ReceiveBuffer::Kernel
}

fn default_tcp_sample_ms() -> u64 {
    200
}

impl CrosscheckConfig {
    /// The default comparison's path and arms (pfifo and fq_codel), netlab
    /// vs iperf3 vs the ordinary pair, method's timeline, with irtt and the
    /// readback check.
    pub fn new(rounds: u32) -> Self {
        CrosscheckConfig {
            rounds,
            arms: vec![
                "pfifo limit 256".into(),
                "fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn".into(),
            ],
            tbf: "rate 5mbit burst 16kb limit 64kb".into(),
            loads: vec![
                Load::Netlab(NetlabLoad::default()),
                Load::Iperf3(Iperf3Load::default()),
                Load::Ordinary(OrdinaryLoad::default()),
            ],
            cc: "reno".into(),
            timeline: CrosscheckTimeline::METHOD,
            probe_interval_s: 0.2,
            probe_timeout_s: 1.0,
            irtt: true,
            readback_check: true,
            iso_probe: false,
            tcp_sample_ms: default_tcp_sample_ms(),
            receive_buffer: ReceiveBuffer::default(),
            offloads: Offloads::Kernel,
        }
    }

    /// The parsed bottlenecks, one per arm, or an error naming the bad words.
    pub fn bottlenecks(&self) -> Result<Vec<BottleneckSpec>, CrosscheckError> {
        let tbf = Tbf::parse(&self.tbf)
            .map_err(|e| CrosscheckError::Config(format!("TBF {:?}: {e}", self.tbf)))?;
        self.arms
            .iter()
            .map(|w| {
                Arm::parse(w)
                    .map(|arm| BottleneckSpec { tbf, arm })
                    .map_err(|e| CrosscheckError::Config(format!("arm {w:?}: {e}")))
            })
            .collect()
    }

    /// Checks every field; errors name the field.
    pub fn validate(&self) -> Result<(), CrosscheckError> {
        if self.rounds == 0 || self.rounds > 1000 {
            return Err(CrosscheckError::Config("rounds must be 1..=1000".into()));
        }
        if self.arms.is_empty() || self.loads.is_empty() {
            return Err(CrosscheckError::Config(
                "need at least one arm and one load".into(),
            ));
        }
        self.bottlenecks()?;
        self.timeline.validate()?;
        if !(0.01..=5.0).contains(&self.probe_interval_s)
            || !(0.05..=10.0).contains(&self.probe_timeout_s)
        {
            return Err(CrosscheckError::Config(
                "probe_interval_s must be 0.01..5 and probe_timeout_s 0.05..10".into(),
            ));
        }
        if !(1..=1000).contains(&self.tcp_sample_ms) {
            return Err(CrosscheckError::Config(
                "tcp_sample_ms must be 1..=1000".into(),
            ));
        }
        for l in &self.loads {
            if let Load::Netlab(n) = l {
                if n.prime_bytes >= n.block_size {
                    return Err(CrosscheckError::Config(
                        "netlab load: prime_bytes must be below block_size".into(),
                    ));
                }
                if n.block_size == 0 || n.recv_buf == 0 {
                    return Err(CrosscheckError::Config(
                        "netlab load: block_size and recv_buf must be > 0".into(),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The scenarios in run order: (round, arm index, load index). Arms
    /// alternate inside a round (as `compare` does); the load order flips
    /// every round so neither tool always runs first.
    pub fn schedule(&self) -> Vec<(u32, usize, usize)> {
        let mut out = Vec::new();
        for round in 1..=self.rounds {
            for arm in 0..self.arms.len() {
                let mut loads: Vec<usize> = (0..self.loads.len()).collect();
                if (round + arm as u32).is_multiple_of(2) {
                    loads.reverse();
                }
                out.extend(loads.into_iter().map(|l| (round, arm, l)));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_valid_and_alternates() {
        let c = CrosscheckConfig::new(2);
        c.validate().unwrap();
        assert_eq!(c.bottlenecks().unwrap().len(), 2);
        assert_eq!(
            c.schedule(),
            vec![
                (1, 0, 0),
                (1, 0, 1),
                (1, 0, 2),
                (1, 1, 2),
                (1, 1, 1),
                (1, 1, 0),
                (2, 0, 2),
                (2, 0, 1),
                (2, 0, 0),
                (2, 1, 0),
                (2, 1, 1),
                (2, 1, 2)
            ]
        );
    }

    #[test]
    fn bad_values_are_named() {
        let mut c = CrosscheckConfig::new(1);
        c.arms = vec!["nosuch 1".into()];
        let e = c.validate().unwrap_err();
        assert!(
            matches!(&e, CrosscheckError::Config(m) if m.starts_with("arm \"nosuch 1\": ")),
            "{e:?}"
        );
        let mut c = CrosscheckConfig::new(0);
        let e = c.validate().unwrap_err();
        assert!(
            matches!(&e, CrosscheckError::Config(m) if m == "rounds must be 1..=1000"),
            "{e:?}"
        );
        c.rounds = 1;
        c.timeline.load_s = 1.0;
        let want = format!(
            "timeline {:?}: need baseline ≥ 0.5 s, load > warm-up + 1 s, end ≤ 120 s",
            c.timeline
        );
        let e = c.validate().unwrap_err();
        assert!(
            matches!(&e, CrosscheckError::Config(m) if *m == want),
            "{e:?}"
        );
    }

    #[test]
    fn labels_show_non_default_settings() {
        assert_eq!(Load::Netlab(NetlabLoad::default()).label(), "netlab");
        let n = NetlabLoad {
            block_size: 1000,
            ..NetlabLoad::default()
        };
        assert_eq!(Load::Netlab(n).label(), "netlab block 1000");
        assert_eq!(
            Load::Iperf3(Iperf3Load {
                length: Some(16384),
                receive_buffer: None,
            })
            .label(),
            "iperf3 -l 16384"
        );
        let kernel = Load::Iperf3(Iperf3Load {
            length: None,
            receive_buffer: Some(ReceiveBuffer::Kernel),
        });
        assert_eq!(kernel.label(), "iperf3 kernel rmem");
        assert_eq!(kernel.receive_buffer(), Some(ReceiveBuffer::Kernel));
        let primed = NetlabLoad {
            start_delay_ms: 50,
            prime_bytes: 37,
            ..NetlabLoad::default()
        };
        assert_eq!(
            Load::Netlab(primed).label(),
            "netlab delay 50 ms prime 37 B"
        );
        // The cross-check's own default is the method's path: the kernel's.
        assert_eq!(
            CrosscheckConfig::new(1).receive_buffer,
            ReceiveBuffer::Kernel
        );
        let mut bad = CrosscheckConfig::new(1);
        bad.loads = vec![Load::Netlab(NetlabLoad {
            prime_bytes: 1 << 20,
            ..NetlabLoad::default()
        })];
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .contains("prime_bytes"));
        bad.loads = vec![Load::Netlab(NetlabLoad::default())];
        bad.tcp_sample_ms = 0;
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .contains("tcp_sample_ms"));
    }

    #[test]
    fn timeline_marks() {
        let t = CrosscheckTimeline::METHOD;
        assert_eq!(t.window_start(), Duration::from_secs(6));
        assert_eq!(t.end(), Duration::from_secs(18));
        assert_eq!(t.readback_at(), Duration::from_secs(14));
    }
}
