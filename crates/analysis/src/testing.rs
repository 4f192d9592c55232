//! A small made-up run for tests of the crates that draw and check the
//! analysis (behind the `testing` feature): two arms over a few rounds
//! whose comparison is known in advance.

use netlab_results::fate;

use crate::records::{
    BacklogSample, FinalCounters, FlowSeries, KernelText, Logged, Phases, PointText, ProbeOutcome,
    ProbePhase, ProbeSample, Scenario,
};
use crate::ReportInput;

/// One scenario of [`input`]: its loaded probes' RTTs (None a timeout) and
/// the arm's drops.
pub fn scenario(index: u32, round: u32, arm: &str, rtts: &[Option<f64>], drops: u64) -> Scenario {
    Scenario {
        index,
        round,
        arm: arm.into(),
        kind: arm.into(),
        arm_words: arm.into(),
        cc: Some("reno".into()),
        t0_utc: None,
        phases: Phases {
            baseline: [0.0, 2.0],
            loaded: [4.0, 10.0],
            end_s: 10.0,
        },
        probe_timeout_s: 1.0,
        probes: rtts
            .iter()
            .enumerate()
            .map(|(i, r)| ProbeSample {
                seq: i as u32,
                send_s: 4.0 + i as f64 * 0.2,
                phase: ProbePhase::Loaded,
                outcome: match r {
                    Some(ms) => ProbeOutcome::Reply { rtt_ms: *ms },
                    None => ProbeOutcome::Timeout,
                },
                logged: match r {
                    Some(_) => Logged::Reply,
                    None => Logged::Timeout,
                },
                late_rtt_ms: None,
            })
            .collect(),
        flows: vec![FlowSeries {
            label: "flow 1".into(),
            direction: "up".into(),
            cc: "cubic".into(),
            bin_s: 0.2,
            bytes: vec![125_000; 50],
        }],
        flow_records: Vec::new(),
        measured_window: Some([4.0, 10.0]),
        tcp_info: vec![],
        // The arm's counters at the window's start: every drop is
        // inside the window.
        qdisc: vec![BacklogSample {
            t_s: 3.95,
            backlog_bytes: 0,
            backlog_packets: 0,
            drops: 0,
            ecn_marks: None,
            packets: 0,
        }],
        final_counters: FinalCounters {
            arm_drops: Some(drops),
            ..Default::default()
        },
        error: None,
        packet_files: Vec::new(),
        fates: None,
        echo_closed_s: None,
        ecn_flow: false,
        point: PointText::default(),
        directions: Vec::new(),
        iso: None,
        readbacks: Default::default(),
        link: None,
    }
}

/// A run of `rounds` rounds of two arms: pfifo, whose loaded probes
/// wait about 0.5 s and one in four times out, against fq_codel's few
/// milliseconds and no timeout; 5 Mbit/s, one flow each.
pub fn input(rounds: u32) -> ReportInput {
    let mut scenarios = Vec::new();
    for r in 1..=rounds {
        let slow: Vec<Option<f64>> = (0..10)
            .map(|i| {
                if i % 4 == 3 {
                    None
                } else {
                    Some(480.0 + i as f64 * 5.0 + r as f64)
                }
            })
            .collect();
        let fast: Vec<Option<f64>> = (0..20).map(|i| Some(3.0 + i as f64 * 0.2)).collect();
        scenarios.push(scenario(2 * r - 1, r, "pfifo", &slow, 100 + r as u64));
        scenarios.push(scenario(2 * r, r, "fq_codel", &fast, 4));
    }
    ReportInput {
        schema_version: 1,
        tool: "netlab test".into(),
        run_id: "x".into(),
        started_utc: String::new(),
        finished_utc: String::new(),
        kernel: KernelText::default(),
        config: vec![],
        bottleneck_bps: Some(5_000_000),
        scenarios,
        notes: vec![],
        caveats: vec![],
        scope: None,
        models: vec![],
        figures: Vec::new(),
        steps: Default::default(),
    }
}

/// A run's rounds with made-up probe fates (method §5.8), as the
/// committed 3-round guest run's timeouts were found to end: every
/// fq_codel timeout a request B never received, matched to a CoDel drop
/// in its sampling interval; every pfifo timeout a request that reached B
/// 1100 ms after its send.
pub fn with_fates(mut r: netlab_results::Results) -> netlab_results::Results {
    for s in &mut r.scenarios {
        let pfifo = s.arm == "pfifo";
        let Some(p) = s.probes.first_mut() else {
            continue;
        };
        let mut drops = Vec::new();
        let arrivals = p
            .requests
            .iter()
            .filter_map(|q| {
                let recv_s = match (&q.outcome, q.rtt_ms) {
                    (netlab_probe::RequestOutcome::Reply, Some(rtt)) => q.send_s + rtt / 2e3,
                    (netlab_probe::RequestOutcome::Timeout, _) if pfifo => q.send_s + 1.1,
                    (netlab_probe::RequestOutcome::Timeout, _) => {
                        drops.push(fate::DropInterval {
                            start_s: q.send_s - 0.1,
                            end_s: q.send_s + 0.1,
                            qdisc: "fq_codel".into(),
                            drops: 1,
                            reason: fate::DropReason::CodelDrop,
                        });
                        return None;
                    }
                    _ => return None,
                };
                Some(fate::EchoArrival { seq: q.seq, recv_s })
            })
            .collect();
        let arrivals = fate::EchoArrivals {
            shared_clock: true,
            arrivals,
            not_logged: 0,
            closed_s: None,
        };
        let inputs: Vec<fate::FateInput> =
            p.requests.iter().map(fate::FateInput::of_probe).collect();
        p.fates = Some(fate::ProbeFates::build(
            &inputs,
            &arrivals,
            p.config.timeout,
            Some(&mut fate::DropBudget::new(drops)),
        ));
    }
    r
}

/// One round's figures with only its uploads' host shares set: each flow
/// as (host, goodput Mbit/s, measured RTT ms), shares computed as
/// netlab-results computes them (docs/models.md, model 5).
pub fn host_figures(
    round: u32,
    arm: &str,
    flows: &[(&'static str, f64, Option<f64>)],
) -> crate::summary::ScenarioFigures {
    let s = netlab_results::ScenarioResult {
        index: round,
        round,
        arm: arm.into(),
        ..netlab_results::ScenarioResult::default()
    };
    let mut fig = crate::summary::ScenarioFigures::of(&s);
    let flows: Vec<netlab_results::shares::FlowGoodput<'_>> = flows
        .iter()
        .map(|&(host, g, rtt_ms)| netlab_results::shares::FlowGoodput {
            direction: "up",
            host,
            goodput_mbps: Some(g),
            rtt_ms,
        })
        .collect();
    fig.host_shares = netlab_results::shares::of_flows(&flows).directions;
    // A made-up round with drops in its window and no series to split
    // (so settled): every host-share model applies (docs/models.md, model 5).
    fig.host_conditions.window_signals = Some(10);
    fig
}

/// A committed run of `fixtures/report/<name>/results.json.gz`, parsed.
pub fn fixture_results(name: &str) -> netlab_results::Results {
    let path = format!(
        "{}/../../fixtures/report/{name}/results.json.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut json = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut json).unwrap();
    netlab_results::Results::parse(&json).unwrap()
}
