use std::time::{Duration, Instant};

use netlab_os::cpu::USER_HZ;
use netlab_os::proc::CpuTicks;
use netlab_qdisc_model::{FqCodelXstats, Handle, QdiscXstats, ARM_HANDLE};

use super::*;
use crate::judge::judge_in;
use crate::{DirectionResult, QdiscResult, QdiscSample, SampledQdisc, ScenarioResult};

fn evidence(rate: Option<f64>, goodput: f64, samples: usize, queued: usize) -> DirectionBottleneck {
    DirectionBottleneck {
        direction: "up".into(),
        verdict: Verdict::ShaperBound,
        rate_mbps: rate,
        goodput_mbps: Some(goodput),
        tbf_sent_mbps: None,
        tbf_samples: samples,
        tbf_samples_queued: queued,
        tbf_backlog_max_bytes: None,
        tbf_overlimits: None,
        tbf_requeues: None,
        arm_signals: Some(0),
    }
}

fn cpu(busy: &[f64]) -> CpuUse {
    CpuUse {
        span_s: 10.0,
        netlab_user_s: 1.0,
        netlab_system_s: 2.0,
        cpu_busy: busy.to_vec(),
    }
}

/// The rule on hand-made evidence, one case per branch.
#[test]
fn the_rule_on_hand_made_evidence() {
    let idle_cpu = cpu(&[0.30, 0.20]);
    let busy_cpu = cpu(&[0.96, 0.40]);
    // 5 Mbit/s delivered at 4.7 with a standing queue: the shaper.
    let e = evidence(Some(5.0), 4.7, 60, 58);
    assert_eq!(verdict(&e, Some(&idle_cpu)), Verdict::ShaperBound);
    // ... on a saturated machine: still the shaper (the rate was
    // delivered), but the comparison is flagged.
    assert_eq!(verdict(&e, Some(&busy_cpu)), Verdict::ShaperBound);
    // 10 Gbit/s, 3.1 delivered, the TBF never held 1 ms: not the shaper;
    // which, by the CPU.
    let e = evidence(Some(10_000.0), 3100.0, 60, 0);
    assert_eq!(verdict(&e, Some(&idle_cpu)), Verdict::OtherThanShaper);
    assert_eq!(verdict(&e, Some(&busy_cpu)), Verdict::Cpu);
    assert_eq!(verdict(&e, None), Verdict::OtherThanShaper);
    // Short of the rate but the shaper queued in 6 of 60 samples (10 %)
    // on an idle machine: the senders answered its queue (a loss-based
    // CC under-filling, an AQM dropping).
    let e = evidence(Some(100.0), 70.0, 60, 6);
    assert_eq!(verdict(&e, Some(&idle_cpu)), Verdict::ShaperBound);
    let e = evidence(Some(100.0), 70.0, 60, 5);
    assert_eq!(verdict(&e, Some(&idle_cpu)), Verdict::OtherThanShaper);
    // ... or its arm dropped or marked in the window.
    let mut e = evidence(Some(100.0), 70.0, 60, 0);
    e.arm_signals = Some(3);
    assert_eq!(verdict(&e, Some(&idle_cpu)), Verdict::ShaperBound);
    // Short on a saturated machine although the shaper queued and
    // dropped: the queue is the CPU's (the guest at 1 Gbit/s: 9 % of the
    // rate, its vCPU 100 % busy, fq_codel dropping).
    assert_eq!(verdict(&e, Some(&busy_cpu)), Verdict::Cpu);
    // ... unless the TBF itself sent the rate: a 5 Mbit/s pfifo run
    // beside parallel builds, goodput 57 % in a 3 s window (bytes held
    // in B's out-of-order queue), the wire at 99 %.
    let mut e = evidence(Some(5.0), 2.84, 15, 15);
    e.tbf_sent_mbps = Some(4.95);
    assert_eq!(verdict(&e, Some(&busy_cpu)), Verdict::ShaperBound);
    e.tbf_sent_mbps = Some(4.4);
    assert_eq!(verdict(&e, Some(&busy_cpu)), Verdict::Cpu);
    // Exactly 90 % is delivered.
    let e = evidence(Some(10.0), 9.0, 60, 0);
    assert_eq!(verdict(&e, Some(&idle_cpu)), Verdict::ShaperBound);
    // No goodput at all counts as short.
    let mut e = evidence(Some(10.0), 0.0, 60, 0);
    e.goodput_mbps = None;
    assert_eq!(verdict(&e, None), Verdict::OtherThanShaper);
    // No shaper.
    assert_eq!(
        verdict(&evidence(None, 900.0, 0, 0), None),
        Verdict::Unshaped
    );
}

#[test]
fn flags_follow_the_verdicts_and_the_cpu() {
    let b = |v: Verdict, c: Option<CpuUse>| Bottleneck {
        directions: vec![DirectionBottleneck {
            verdict: v,
            ..evidence(Some(5.0), 5.0, 1, 1)
        }],
        cpu: c,
    };
    assert!(!b(Verdict::ShaperBound, None).flags_comparison());
    assert!(!b(Verdict::ShaperBound, Some(cpu(&[0.94]))).flags_comparison());
    assert!(b(Verdict::ShaperBound, Some(cpu(&[0.95]))).flags_comparison());
    assert!(b(Verdict::Cpu, None).flags_comparison());
    assert!(b(Verdict::OtherThanShaper, None).flags_comparison());
    assert!(!b(Verdict::Unshaped, None).flags_comparison());
}

/// Two snapshots 10 s apart: 250 + 50 ticks of netlab (3 s), CPU 0
/// 950 of 1000 ticks busy (95 %), CPU 1 100 of 1000 (10 %).
#[test]
fn cpu_use_between_two_snapshots() {
    let t = Instant::now();
    let snap = |at: Instant, u, s, c0: (u64, u64), c1: (u64, u64)| CpuSnapshot {
        at,
        process_user: u,
        process_system: s,
        cpus: vec![
            CpuTicks {
                busy: c0.0,
                idle: c0.1,
            },
            CpuTicks {
                busy: c1.0,
                idle: c1.1,
            },
        ],
        ticks_per_s: USER_HZ,
    };
    let a = snap(t, 1000, 500, (10_000, 50_000), (8000, 60_000));
    let b = snap(
        t + Duration::from_secs(10),
        1250,
        550,
        (10_950, 50_050),
        (8100, 60_900),
    );
    let c = CpuUse::between(&a, &b);
    assert_eq!(c.span_s, 10.0);
    assert!((c.netlab_user_s - 2.5).abs() < 1e-12);
    assert!((c.netlab_system_s - 0.5).abs() < 1e-12);
    assert!((c.netlab_cpus() - 0.3).abs() < 1e-12);
    assert_eq!(c.cpu_busy, vec![0.95, 0.1]);
    assert!(c.saturated());
}

fn tbf_and_arm(t: f64, backlog: u32, overlimits: u32, arm_drops: u32, ecn: u32) -> QdiscSample {
    // The TBF sends 562,500 B/s (4.5 Mbit/s).
    let sent = (t * 562_500.0) as u64;
    let stats = |b, o, d| {
        Some(netlab_qdisc_model::QdiscStats {
            bytes: sent,
            backlog_bytes: b,
            qlen: u32::from(b > 0),
            overlimits: o,
            drops: d,
            ..Default::default()
        })
    };
    QdiscSample {
        t_s: Some(t),
        records: vec![
            SampledQdisc {
                kind: "tbf".into(),
                handle: Handle::new(1, 0),
                parent: Handle::ROOT,
                stats: stats(backlog, overlimits, arm_drops),
                xstats: None,
            },
            SampledQdisc {
                kind: "fq_codel".into(),
                handle: ARM_HANDLE,
                parent: Handle::new(1, 1),
                stats: stats(backlog, 0, arm_drops),
                xstats: Some(QdiscXstats::FqCodel(FqCodelXstats {
                    ecn_mark: ecn,
                    ..Default::default()
                })),
            },
        ],
    }
}

fn scenario(samples: Vec<QdiscSample>, rate: f64, goodput: f64) -> ScenarioResult {
    ScenarioResult {
        arm: "fq_codel".into(),
        qdiscs: vec![QdiscResult {
            direction: "up".into(),
            samples,
            ..QdiscResult::default()
        }],
        directions: vec![DirectionResult {
            direction: "up".into(),
            flows: 1,
            rate_mbps: Some(rate),
            goodput_mbps: Some(goodput),
            fairness: Some(1.0),
        }],
        ..ScenarioResult::default()
    }
}

/// The evidence from recorded samples, worked by hand: at 5 Mbit/s, 1 ms
/// is 625 bytes; window [4, 8] holds samples at 4, 6, 8 (backlogs 0,
/// 3028, 700: two held ≥ 625 B); overlimits 100 → 190 (90); the arm's
/// drops + marks 2+10 → 3+14 (5). The sample at 9 s is outside.
#[test]
fn evidence_from_recorded_samples() {
    let s = scenario(
        vec![
            tbf_and_arm(2.0, 90_000, 0, 0, 0),
            tbf_and_arm(4.0, 0, 100, 2, 10),
            tbf_and_arm(6.0, 3028, 150, 2, 12),
            tbf_and_arm(8.0, 700, 190, 3, 14),
            tbf_and_arm(9.0, 90_000, 999, 50, 50),
        ],
        5.0,
        4.8,
    );
    let b = judge_in(&s, Some([4.0, 8.0]), None);
    let d = &b.directions[0];
    assert_eq!(d.tbf_samples, 3);
    assert_eq!(d.tbf_samples_queued, 2);
    assert_eq!(d.tbf_backlog_max_bytes, Some(3028));
    assert_eq!(d.tbf_overlimits, Some(90));
    assert!((d.tbf_sent_mbps.unwrap() - 4.5).abs() < 1e-9, "{d:?}");
    assert_eq!(d.tbf_requeues, Some(0));
    assert_eq!(d.arm_signals, Some(5));
    assert_eq!(d.verdict, Verdict::ShaperBound);
    assert!(!b.flags_comparison());
    // At 10 Gbit/s the same backlogs are microseconds, no drop or mark:
    // goodput 2 Gbit/s is the path's, not the shaper's.
    let s = scenario(
        vec![
            tbf_and_arm(4.0, 0, 100, 0, 0),
            tbf_and_arm(6.0, 60_000, 150, 0, 0),
            tbf_and_arm(8.0, 0, 190, 0, 0),
        ],
        10_000.0,
        2000.0,
    );
    let b = judge_in(&s, Some([4.0, 8.0]), Some(cpu(&[0.5])));
    assert_eq!(b.directions[0].tbf_samples_queued, 0);
    assert_eq!(b.directions[0].verdict, Verdict::OtherThanShaper);
    assert!(b.flags_comparison());
    // Its JSON reads back.
    let json = serde_json::to_string(&b).unwrap();
    assert!(json.contains("\"verdict\":\"other_than_shaper\""), "{json}");
    assert_eq!(serde_json::from_str::<Bottleneck>(&json).unwrap(), b);
}
