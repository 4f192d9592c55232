//! Each sweep row's model inputs and predictions (docs/models.md): the
//! scenario's inputs as read back ([`netlab_analysis::records::ModelReadbacks`])
//! and what each model the experiment names predicts from them
//! ([`RowModel`], sweep.csv's and sweep.json's `model_` columns). Pure:
//! a row's model is computed from its scenario alone, below the sweep's
//! table, which holds it; `sweep_model` sets it beside the measurement.
//!
//! Model 1 (`fifo_bound`) applies to the arms that read back a pfifo
//! limit; model 2 (`sparse_flow`) to fq_codel's arms, whose rule for an
//! emptied flow it follows (fq and CAKE have their own: docs/models.md).

use std::time::Duration;

use netlab_experiment::ModelKind;
use serde::{Deserialize, Serialize};

use netlab_analysis::records::Scenario;
use netlab_analysis::{fifo_delay_bound, BbrShare, MathisLaw, Regime, SparseFlow};

/// The new-flow share at and above which a point counts as sparse when
/// the measured boundary is located (between the model's 1 and ½).
pub(crate) const SPARSE_SHARE: f64 = 0.75;

/// One scenario's model inputs and predictions (None where a model does
/// not apply or an input was not read back).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RowModel {
    /// The upload TBF's rate read back, bit/s.
    pub rate_bps: Option<u64>,
    /// The arm's quantum read back, bytes.
    pub quantum_bytes: Option<u64>,
    /// The packet size the models use, bytes.
    pub packet_bytes: Option<u64>,
    /// Where it comes from: `maxpacket`, `one_frame` or `largest_skb`.
    pub packet_source: Option<String>,
    /// pfifo's limit read back, packets.
    pub fifo_limit_packets: Option<u64>,
    /// The point's base RTT, ms (added to the FIFO bound on the delay
    /// figures: the RTT carries all of it, a one-way delay half).
    pub base_rtt_ms: f64,
    /// The isochronous probe's interval T, ms.
    pub probe_interval_ms: Option<f64>,
    /// Its request on the wire, bytes (S).
    pub probe_frame_bytes: Option<u64>,
    /// Upload bulk flows (N).
    pub bulk_flows: Option<u32>,
    /// Model 1: limit · L · 8 / R, ms of queueing delay.
    pub fifo_bound_ms: Option<f64>,
    /// Model 2: N* = T · R / (8 · Q).
    pub sparse_boundary_n: Option<f64>,
    /// Model 2: one round W = (N · Q + S) · 8 / R, ms.
    pub sparse_round_ms: Option<f64>,
    /// Model 2's regime at N: `sparse`, `alternating` or `listed`.
    pub sparse_regime: Option<String>,
    /// Model 2's one-way delay p50, ms (alternating: the lower of the
    /// two levels the median may take).
    pub sparse_iso_up_p50_ms: Option<f64>,
    /// Model 2's upper p50 level, ms, where the median may take either
    /// level (alternating: about half the packets wait W − T); None
    /// elsewhere.
    pub sparse_iso_up_p50_upper_ms: Option<f64>,
    /// Model 2's one-way delay p99, ms.
    pub sparse_iso_up_p99_ms: Option<f64>,
    /// Model 2's share of probe packets that open a new flow.
    pub sparse_new_flows_per_probe_packet: Option<f64>,
    /// Model 3's RTT: the first flow's mean tcp_info RTT in the window, ms.
    #[serde(default)]
    pub flows_rtt_ms: Option<f64>,
    /// Model 3's packet on the link, a full frame (MTU + 14), bytes.
    #[serde(default)]
    pub law_packet_bytes: Option<u64>,
    /// Model 3: each flow's mean window W = R · RTT / (8 · N · L), packets.
    #[serde(default)]
    pub law_window_packets: Option<f64>,
    /// Model 3: p ≈ 1.5 / W² (None where W < 2, out of the law's range).
    #[serde(default)]
    pub law_signal_probability: Option<f64>,
    /// The arm's delay target read back, ms: the usual reading of an AQM
    /// (the queue held there whatever N), drawn beside the flows' delay.
    #[serde(default)]
    pub aqm_target_ms: Option<f64>,
    /// Model 4: BBR upload flows (N).
    #[serde(default)]
    pub bbr_flows: Option<u32>,
    /// Model 4: the other upload flows.
    #[serde(default)]
    pub loss_based_flows: Option<u32>,
    /// Model 4: the FIFO's limit read back in BDPs of the rate read back
    /// and the base RTT, X = q / (c · l).
    #[serde(default)]
    pub buffer_bdp: Option<f64>,
    /// Model 4: the loss-based flows' share, max(0, 1/2 − 1/(2X) − 4N/q)
    /// (a FIFO only).
    #[serde(default)]
    pub model_loss_based_share: Option<f64>,
    /// Model 4: BBR's share: (1 − p) · (1 − (q/c + 0.2 s + l)/10 s) in a
    /// FIFO of at least 1 BDP; under flow queueing (fq_codel, fq, CAKE) the
    /// fair share, BBR flows ÷ all flows.
    #[serde(default)]
    pub model_bbr_share: Option<f64>,
    /// Model 4's range: BBR's share of the upload bytes in the first and
    /// the second half of the measured window.
    #[serde(default)]
    pub bbr_share_halves: Option<[f64; 2]>,
    /// Model 4's range: whether the share had settled, the halves within
    /// `BBR_CONVERGED` of each other. The model is compared only where
    /// it had: Ware et al. describe the flows' steady state.
    #[serde(default)]
    pub bbr_converged: Option<bool>,
}

/// BBR's share in the two halves of the window within this of each other:
/// converged. In the committed quick run (15 s after 15 s of warm-up) the
/// settled points moved 0.003–0.019 between halves, the FIFO ones still
/// converging at 2–8 BDPs 0.086–0.16 (docs/models.md).
pub(crate) const BBR_CONVERGED: f64 = 0.05;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn regime_word(r: Regime) -> &'static str {
    match r {
        Regime::Sparse => "sparse",
        Regime::Alternating => "alternating",
        Regime::Listed => "listed",
    }
}

/// The inputs and predictions of `s` under `models` (None when the
/// experiment names no model).
pub(crate) fn of(s: &Scenario, models: &[ModelKind]) -> Option<RowModel> {
    if models.is_empty() {
        return None;
    }
    let r = &s.readbacks;
    let mut m = RowModel {
        rate_bps: r.rate_bps,
        quantum_bytes: r.quantum_bytes,
        packet_bytes: r.packet.map(|p| p.bytes),
        packet_source: r.packet.map(|p| p.source.as_str().to_string()),
        fifo_limit_packets: r.fifo_limit_packets,
        base_rtt_ms: r.base_rtt_s * 1e3,
        probe_interval_ms: r.iso_interval_s.map(|t| t * 1e3),
        probe_frame_bytes: r.iso_frame_bytes,
        bulk_flows: r.bulk_flows,
        ..RowModel::default()
    };
    if models.contains(&ModelKind::FifoBound) {
        if let (Some(limit), Some(p), Some(rate)) = (r.fifo_limit_packets, r.packet, r.rate_bps) {
            m.fifo_bound_ms = Some(ms(fifo_delay_bound(limit, p.bytes, rate)));
        }
    }
    if models.contains(&ModelKind::SparseFlow) && s.kind == "fq_codel" {
        if let (Some(q), Some(rate), Some(t), Some(size), Some(n)) = (
            r.quantum_bytes,
            r.rate_bps,
            r.iso_interval_s,
            r.iso_frame_bytes,
            r.bulk_flows,
        ) {
            // A bulk packet larger than the quantum (an aggregate) is sent
            // whole on its flow's turn: a round serves the larger of the two.
            let quantum = q.max(r.packet.map_or(0, |p| p.bytes));
            let model = SparseFlow {
                quantum,
                rate_bps: rate,
                probe_bytes: size,
                interval: Duration::from_secs_f64(t),
            };
            let at = model.at(n);
            let (p50, p99) = model.quantiles(n);
            let half_rtt = r.base_rtt_s * 1e3 / 2.0;
            m.sparse_boundary_n = Some(model.boundary());
            m.sparse_round_ms = Some(ms(at.round));
            m.sparse_regime = Some(regime_word(at.regime).into());
            m.sparse_iso_up_p50_ms = Some(ms(p50) + half_rtt);
            m.sparse_iso_up_p50_upper_ms =
                (at.regime == Regime::Alternating).then(|| ms(at.waiting_delay) + half_rtt);
            m.sparse_iso_up_p99_ms = Some(ms(p99) + half_rtt);
            m.sparse_new_flows_per_probe_packet = Some(at.new_flow_share);
        }
    }
    if models.contains(&ModelKind::AqmLaw) {
        let rtt_ms = s.flows_queue_delay_ms().map(|q| q + r.base_rtt_s * 1e3);
        // A full segment as the flows' tcp_info says, else one MTU frame.
        let frame = r
            .segment_bytes
            .or_else(|| r.mtu.map(|mtu| u64::from(mtu) + 14));
        if let (Some(rtt), Some(rate), Some(l), Some(n)) = (rtt_ms, r.rate_bps, frame, r.bulk_flows)
        {
            let law = MathisLaw {
                rate_bps: rate,
                packet_bytes: l,
                rtt: Duration::from_secs_f64(rtt.max(0.0) / 1e3),
            };
            m.flows_rtt_ms = Some(rtt);
            m.law_packet_bytes = Some(l);
            m.law_window_packets = Some(law.window(n));
            m.law_signal_probability = law.p(n);
        }
        m.aqm_target_ms = r.target_ms;
    }
    if models.contains(&ModelKind::BbrShare) {
        bbr_model(s, &mut m);
    }
    Some(m)
}

/// Kinds that serve each flow its own queue: model 4's fair share.
const FLOW_QUEUEING: [&str; 4] = ["fq_codel", "fq", "cake", "fq_pie"];

/// Model 4's inputs and shares for `s` (docs/models.md): the BBR and
/// other upload flows by their cc read back; in a FIFO, X from its limit
/// read back, the rate read back and the base RTT, in full segments as
/// the flows' tcp_info gives them (MTU + 14 without tcp_info).
fn bbr_model(s: &Scenario, m: &mut RowModel) {
    let up: Vec<_> = s
        .flow_records
        .iter()
        .filter(|f| f.direction == "up")
        .collect();
    let bbr = up.iter().filter(|f| f.cc == "bbr").count() as u32;
    let others = up.len() as u32 - bbr;
    if bbr == 0 || others == 0 {
        return;
    }
    m.bbr_flows = Some(bbr);
    m.loss_based_flows = Some(others);
    m.bbr_share_halves = s.bbr_share_halves();
    m.bbr_converged = m
        .bbr_share_halves
        .map(|[a, b]| (a - b).abs() <= BBR_CONVERGED);
    if FLOW_QUEUEING.contains(&s.kind.as_str()) {
        m.model_bbr_share = Some(f64::from(bbr) / f64::from(bbr + others));
        return;
    }
    let r = &s.readbacks;
    let frame = r
        .segment_bytes
        .or_else(|| r.mtu.map(|mtu| u64::from(mtu) + 14));
    let (Some(q), Some(rate), Some(frame)) = (r.fifo_limit_packets, r.rate_bps, frame) else {
        return;
    };
    let rate_pps = rate as f64 / (8.0 * frame as f64);
    let bdp = rate_pps * r.base_rtt_s;
    if bdp <= 0.0 {
        return;
    }
    let x = q as f64 / bdp;
    m.buffer_bdp = Some(x);
    // A buffer resolved to whole frames may fall half a frame short of a
    // whole number of BDPs (33 frames for 33.02 at 10 Mbit/s and 40 ms):
    // that is X = 1 for the model, not below its range.
    let x_model = if (x.round() - x).abs() * bdp <= 0.5 {
        x.round()
    } else {
        x
    };
    let model = BbrShare {
        bdp_multiple: x_model,
        buffer_packets: q as f64,
        rate_pps,
        base_rtt: Duration::from_secs_f64(r.base_rtt_s),
        bbr_flows: bbr,
    };
    if let Some(p) = model.predict() {
        m.model_loss_based_share = Some(p.loss_based);
        m.model_bbr_share = Some(p.bbr);
    }
}
