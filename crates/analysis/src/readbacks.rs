//! What the models of docs/models.md take from one scenario of
//! results.json, each as the scenario read it back ([`ModelReadbacks`]):
//! the upload TBF's rate, the arm's quantum (fq_codel's and fq's option,
//! CAKE's per-tin `flow_quantum`) and pfifo's limit from the readback
//! after configuration; the packet size the queue held (the arm's own
//! `maxpacket`, else one frame with offloads off, else the largest skb
//! backlog ÷ qlen showed); the isochronous probe's interval and request
//! size from its log; fq_codel's `new_flow_count` across the measured
//! window from the qdisc samples and the readback at the window's end.

use netlab_probe::IsoOutcome;
use netlab_qdisc_model::{QdiscOptions, QdiscRecord, QdiscXstats, ARM_HANDLE};
use netlab_results::queue_seen::{queue_seen_in, LINK_HEADER};
use netlab_results::{IsoProbeResult, QdiscResult, ScenarioResult};

use crate::records::{ModelReadbacks, NewFlows, PacketSize, PacketSource};

/// UDP and IPv4 headers in front of the probe's payload.
const UDP_IPV4_HEADERS: u64 = netlab_experiment::IPV4_UDP_HEADERS as u64;

/// The readbacks of `s`; `base_rtt_s` is the experiment's base RTT (a
/// point's `base_rtt=` value overrides it).
pub(crate) fn of(s: &ScenarioResult, base_rtt_s: f64) -> ModelReadbacks {
    let up = s.qdisc_of("up");
    let after = up.map(|q| q.after_config.as_slice()).unwrap_or_default();
    let arm = after.iter().find(|r| r.handle == ARM_HANDLE);
    let window = netlab_results::queue_seen::measured_window(s);
    ModelReadbacks {
        rate_bps: after.iter().find_map(|r| match &r.options {
            QdiscOptions::Tbf(t) => Some(t.rate.bits_per_sec()),
            _ => None,
        }),
        quantum_bytes: quantum(arm, up),
        fifo_limit_packets: arm.and_then(|r| match &r.options {
            QdiscOptions::Pfifo { limit_packets } => Some(u64::from(*limit_packets)),
            _ => None,
        }),
        packet: packet(s, window),
        mtu: s.topology.as_ref().map(|t| t.spec.mtu),
        base_rtt_s: netem_base_rtt_s(s).unwrap_or_else(|| {
            s.point
                .values
                .iter()
                .find_map(|v| v.strip_prefix("base_rtt="))
                .and_then(|t| netlab_experiment::units::parse_duration(t, true).ok())
                .map_or(base_rtt_s, |d| d.as_secs_f64())
        }),
        iso_interval_s: s
            .iso_probe
            .as_ref()
            .map(|i| i.log.config.interval.as_secs_f64()),
        iso_frame_bytes: s
            .iso_probe
            .as_ref()
            .map(|i| i.log.config.size as u64 + UDP_IPV4_HEADERS + u64::from(LINK_HEADER)),
        bulk_flows: s
            .directions
            .iter()
            .find(|d| d.direction == "up")
            .map(|d| d.flows as u32),
        new_flows: match (up, &s.iso_probe, window) {
            (Some(q), Some(iso), Some(w)) => new_flows(q, iso, w),
            _ => None,
        },
        target_ms: arm
            .and_then(|r| match &r.options {
                QdiscOptions::Codel(o) => o.target_us,
                QdiscOptions::FqCodel(o) => o.target_us,
                QdiscOptions::Pie(o) => o.target_us,
                _ => None,
            })
            .map(|us| f64::from(us) / 1e3),
        segment_bytes: window.and_then(|w| segment_bytes(s, w)),
    }
}

/// `TCPI_OPT_TIMESTAMPS` in `tcpi_options`.
const TCPI_OPT_TIMESTAMPS: u8 = 1;

/// TCP and IPv4 headers without options, bytes.
const TCP_IPV4_HEADERS: u64 = 40;

/// The TCP timestamp option as sent (10 bytes padded to 12).
const TCP_TIMESTAMP_OPTION: u64 = 12;

/// A full upload segment on the link as the senders' tcp_info gives it
/// over the window `w`: the lower median of every sample's `snd_mss`,
/// plus the timestamp option if the samples say it is on, TCP/IPv4 and
/// Ethernet headers. `None` without a sample in the window.
fn segment_bytes(s: &ScenarioResult, w: [f64; 2]) -> Option<u64> {
    let infos: Vec<_> = s
        .flows
        .iter()
        .filter(|f| f.direction == "up")
        .flat_map(|f| f.tcp_info.iter())
        .filter(|t| t.start_s >= w[0] && t.start_s <= w[1])
        .filter_map(|t| t.record.info.as_ref())
        .filter(|i| i.mss > 0)
        .collect();
    let mut mss: Vec<f64> = infos.iter().map(|i| f64::from(i.mss)).collect();
    let mss = netlab_stats::lower_median(&mut mss)? as u64;
    let timestamps = infos
        .iter()
        .filter(|i| i.options & TCPI_OPT_TIMESTAMPS != 0)
        .count()
        * 2
        > infos.len();
    let option = if timestamps { TCP_TIMESTAMP_OPTION } else { 0 };
    Some(mss + option + TCP_IPV4_HEADERS + u64::from(LINK_HEADER))
}

/// The base RTT as the kernel read it back: the delay of the netem at the
/// root of R's egress in each direction (its `TCA_NETEM_LATENCY64`, kept
/// raw in results.json), summed over both. `None` unless both directions
/// have one that decodes: the configured base RTT is used then.
pub fn netem_base_rtt_s(s: &ScenarioResult) -> Option<f64> {
    let delay = |dir: &str| netlab_results::hosts::root_netem_delay_s(s.qdisc_of(dir)?);
    Some(delay("up")? + delay("down")?)
}

/// The arm's quantum as read back: fq_codel's and fq's option after
/// configuration; CAKE's per-tin `flow_quantum` (stats, so the readback at
/// the window's end), the largest over its tins.
fn quantum(arm: Option<&QdiscRecord>, up: Option<&QdiscResult>) -> Option<u64> {
    match arm.map(|r| &r.options) {
        Some(QdiscOptions::FqCodel(o)) => o.quantum.map(u64::from),
        Some(QdiscOptions::Fq(o)) => o.quantum.map(u64::from),
        Some(QdiscOptions::Cake(_)) => up
            .and_then(|q| q.at_window_end.iter().find(|r| r.handle == ARM_HANDLE))
            .and_then(|r| match &r.xstats {
                Some(QdiscXstats::Cake(x)) => x.tins.iter().map(|t| t.flow_quantum).max(),
                _ => None,
            })
            .map(u64::from),
        _ => None,
    }
}

/// The largest packet the upload queue held over the measured window,
/// with its source (see the module's note).
fn packet(s: &ScenarioResult, window: Option<[f64; 2]>) -> Option<PacketSize> {
    let topo = s.topology.as_ref().map(|t| &t.spec);
    let mtu = topo.map_or(netlab_results::queue_seen::DEFAULT_MTU, |t| t.mtu);
    let frame = u64::from(mtu + LINK_HEADER);
    let offloads_off = topo.is_some_and(|t| t.offloads == netlab_topology::spec::Offloads::Off);
    let seen = queue_seen_in(s, window)
        .into_iter()
        .find(|q| q.direction == "up");
    if let Some(m) = seen.as_ref().and_then(|q| q.max_packet_bytes) {
        return Some(PacketSize {
            bytes: u64::from(m),
            source: PacketSource::MaxPacket,
        });
    }
    if offloads_off {
        return Some(PacketSize {
            bytes: frame,
            source: PacketSource::OneFrame,
        });
    }
    let skb = seen.and_then(|q| q.aggregate_max_bytes)?;
    Some(PacketSize {
        bytes: (skb.ceil() as u64).max(frame),
        source: PacketSource::LargestSkb,
    })
}

/// fq_codel's or fq_pie's `new_flow_count`.
fn new_flow_count(x: Option<&QdiscXstats>) -> Option<u64> {
    match x? {
        QdiscXstats::FqCodel(x) => Some(u64::from(x.new_flow_count)),
        QdiscXstats::FqPie(x) => Some(u64::from(x.new_flow_count)),
        _ => None,
    }
}

/// The counter's rise from the last sample at or before the window's start
/// to the readback at its end, beside the probe requests sent between the
/// two readbacks.
fn new_flows(q: &QdiscResult, iso: &IsoProbeResult, window: [f64; 2]) -> Option<NewFlows> {
    let (t0, c0) = q
        .samples
        .iter()
        .filter_map(|s| {
            let t = s.t_s.filter(|t| *t <= window[0])?;
            let r = s.records.iter().find(|r| r.handle == ARM_HANDLE)?;
            Some((t, new_flow_count(r.xstats.as_ref())?))
        })
        .next_back()?;
    let t1 = q.final_taken_s?;
    let c1 = q
        .at_window_end
        .iter()
        .find(|r| r.handle == ARM_HANDLE)
        .and_then(|r| new_flow_count(r.xstats.as_ref()))?;
    let sent = iso
        .log
        .requests
        .iter()
        .filter(|r| r.due_s > t0 && r.due_s <= t1)
        .filter(|r| !matches!(r.outcome, IsoOutcome::Missed | IsoOutcome::SendError { .. }))
        .count();
    Some(NewFlows {
        new_flows: c1.checked_sub(c0)?,
        probe_packets: sent as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_results::Results;

    fn fixture(name: &str) -> Results {
        crate::testing::fixture_results(name)
    }

    /// The committed aqm_law run's Reno flows read `tcpi_snd_mss` 1448 with
    /// timestamps on (`tcpi_options` 15): 1448 + 12 + 40 + 14 = 1514, one
    /// full frame at MTU 1500. Without a sample in the window there is no
    /// segment, and a flow without timestamps adds no option.
    #[test]
    fn a_full_segment_from_the_flows_tcp_info() {
        let r = fixture("run-uml-aqm-law-quick");
        let s = &r.scenarios[0];
        let w = netlab_results::queue_seen::measured_window(s).unwrap();
        assert_eq!(segment_bytes(s, w), Some(1514));
        assert_eq!(segment_bytes(s, [1e6, 1e6 + 1.0]), None);
        let mut plain = s.clone();
        for f in &mut plain.flows {
            for t in &mut f.tcp_info {
                if let Some(i) = t.record.info.as_mut() {
                    i.options &= !TCPI_OPT_TIMESTAMPS;
                }
            }
        }
        assert_eq!(segment_bytes(&plain, w), Some(1448 + 40 + 14));
    }
}
