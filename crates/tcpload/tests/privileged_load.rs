//! Privileged (root/CAP_NET_ADMIN): a shaped A–R–B (TBF 5mbit + pfifo 256 on
//! r1, set with `tc` as test setup), one compressed scenario:
//! the method §3 timeline: probe baseline 0–3 s, Reno load from 3 s (17 s
//! lifetime), measured window 6–18 s, receiver closes at 18 s; sampler on
//! the flow, `ss -tinm` as an independent check while the load runs.
//!
//! Why the full 18 s and not a shorter load: Reno through this queue (pfifo
//! counts GSO skbs, so it holds seconds of data) runs at RTTs of 1–2 s, and
//! goodput by post-recv timestamps moves out-of-order data held during a
//! 2 s hole repair across a window edge; a 6 s window then varies by ±0.5
//! Mbit/s between runs, a 12 s window much less.

mod support;

use std::time::{Duration, Instant};

use netlab_tcpload::sampler::DiagRecord;
use netlab_tcpload::{goodput, DiagSocket, GoodputWindow, TcpEnd, Termination};
use netlab_topology::testing::require_privileged;
use support::{in_netns, run_scenario, shape_r1, ss_field, topology, Timeline};

/// One ss reading bracketed by two sock_diag queries.
struct SsCheck {
    before: DiagRecord,
    ss: String,
    after: DiagRecord,
}

fn ss_rtt_ms(ss: &str) -> f64 {
    let v = ss_field(ss, "rtt:").expect("ss shows rtt");
    v.split('/').next().unwrap().parse().unwrap()
}

fn ss_u64(ss: &str, key: &str) -> u64 {
    ss_field(ss, key)
        .unwrap_or_else(|| panic!("ss shows {key}: {ss}"))
        .parse()
        .unwrap()
}

#[test]
fn privileged_shaped_reno_load_goodput_validation_probe_samples_and_ss() {
    if !require_privileged("privileged_shaped_reno_load_goodput_validation_probe_samples_and_ss") {
        return;
    }
    let topo = topology("tl_shaped");
    shape_r1(topo.r.name());
    let a_name = topo.a.name().to_owned();
    let tl = Timeline {
        sink_for: Duration::from_secs(18),
        sender_at: Duration::from_secs(3),
        sender_for: Duration::from_secs(17),
        probe_end: Some(Duration::from_secs(4)),
    };
    let mut checks: Vec<SsCheck> = Vec::new();
    let out = run_scenario(&topo, tl, |t0, flow| {
        let diag = topo.a.run(DiagSocket::open).unwrap().unwrap();
        let filter = format!("dport = :{}", flow.remote.port());
        // Three cross-checks during the load (after slow start).
        for at in [8.0f64, 11.0, 14.0] {
            let when = t0 + Duration::from_secs_f64(at);
            std::thread::sleep(when.saturating_duration_since(Instant::now()));
            let before = diag.query(flow).unwrap().expect("flow visible");
            let ss = in_netns(&a_name, &["ss", "-tinmH", "state", "established", &filter]);
            let after = diag.query(flow).unwrap().expect("flow visible");
            checks.push(SsCheck { before, ss, after });
        }
    });

    for x in out.samples.samples.iter().step_by(3) {
        let i = x.record.info.as_ref().unwrap();
        eprintln!(
            "t {:.2} rtt {}us cwnd {} ssthresh {} unacked {} lost {} retrans {}/{} acked {} ca {} snd_wnd {:?} rcv_wnd {:?} rwnd_lim {} sndbuf_lim {} busy {}",
            x.start_s, i.rtt_us, i.cwnd, i.ssthresh, i.unacked, i.lost, i.retrans, i.total_retrans,
            i.bytes_acked, i.ca_state, i.snd_wnd, i.rcv_wnd, i.rwnd_limited_us, i.sndbuf_limited_us, i.busy_time_us
        );
    }
    eprintln!(
        "sender: {} bytes accepted, stalls at {:?}",
        out.tx.bytes_accepted, out.tx.send_stalls_s
    );
    // Sender: reno readback, a termination kind, bytes accepted.
    assert_eq!(out.tx.cc_requested, "reno");
    assert_eq!(out.tx.cc_readback, "reno");
    // Connected at its start (3 s), not before; a few ms after it on a
    // quiet machine, so 0.5 s leaves room for a starved thread and still
    // tells a start taken from another clock (0 s, or a second late).
    assert!(
        out.tx.connect_s >= 3.0 && out.tx.connect_s < 3.5,
        "{}",
        out.tx.connect_s
    );
    // The receiver closes at 18 s while the sender (lifetime to 20 s) writes.
    assert!(
        matches!(
            out.tx.termination,
            Termination::BrokenPipe | Termination::ConnectionReset
        ),
        "{:?}",
        out.tx
    );
    assert!(out.tx.end_s < 19.0, "{}", out.tx.end_s);
    assert!(out.tx.bytes_accepted >= out.rx.bytes_total);

    // Receiver: data, zero validation failures, goodput within 10 % of 5 Mbit/s.
    assert!(out.rx.bytes_total > 2_000_000, "{}", out.rx.bytes_total);
    assert_eq!(out.rx.validation.failures, 0, "{:?}", out.rx.validation);
    assert_eq!(out.rx.validation.first_bad_offset, None);
    assert_eq!(out.rx.tcp_end, TcpEnd::ClosedAtEnd);
    let window = GoodputWindow::METHOD;
    let g = goodput(&out.rx.recvs, window);
    let mbit = g.mbit_per_s.unwrap();
    eprintln!(
        "goodput {mbit:.3} Mbit/s over 6–18 s ({} bytes, {} blocks)",
        g.bytes, g.blocks
    );
    assert!(
        (mbit - 5.0).abs() <= 0.5,
        "goodput {mbit} Mbit/s not within 10 % of 5"
    );
    assert_eq!(out.rx.extra_connections, 0);

    // Probe baseline: every request answered before the load, the idle
    // path's RTT well under a millisecond. The median is held to 2 ms and
    // each reply to 100 ms: a CI machine whose hypervisor steals the CPU
    // puts single replies at 5-10 ms (5.8 ms in one CI run), while the
    // loaded path's standing queue is 500 ms and more.
    let probe = out.probe.expect("probe ran");
    let baseline: Vec<_> = probe.requests.iter().filter(|r| r.send_s < 2.9).collect();
    assert!(baseline.len() >= 12, "{} baseline requests", baseline.len());
    let mut rtts: Vec<f64> = baseline
        .iter()
        .map(|r| {
            r.rtt_ms
                .unwrap_or_else(|| panic!("baseline request without reply: {r:?}"))
        })
        .collect();
    rtts.sort_by(f64::total_cmp);
    let median = rtts[rtts.len() / 2];
    assert!(median < 2.0, "baseline median rtt {median} ms: {rtts:?}");
    let max = rtts[rtts.len() - 1];
    assert!(max < 100.0, "baseline rtt {max} ms: {rtts:?}");
    let echo = out.rx.echo.expect("echo served");
    assert!(echo.echoed >= baseline.len() as u64);

    // Sampler: ~5/s, actual times kept, rising byte counters.
    let s = &out.samples.samples;
    let span = s.last().unwrap().start_s - s.first().unwrap().start_s;
    let rate = (s.len() - 1) as f64 / span;
    eprintln!(
        "{} samples over {span:.2} s = {rate:.2}/s; errors {:?}",
        s.len(),
        out.samples.errors
    );
    assert!((4.5..=5.5).contains(&rate), "sample rate {rate}/s");
    assert!(s.len() >= 70, "{} samples", s.len());
    assert!(out.samples.errors.is_empty(), "{:?}", out.samples.errors);
    for w in s.windows(2) {
        assert!(w[0].start_s <= w[0].end_s && w[0].end_s <= w[1].start_s);
        let (a, b) = (
            w[0].record.info.as_ref().unwrap(),
            w[1].record.info.as_ref().unwrap(),
        );
        assert!(b.bytes_acked >= a.bytes_acked && b.delivered >= a.delivered);
        assert!(b.bytes_sent >= a.bytes_sent);
    }
    let first = s.first().unwrap().record.info.as_ref().unwrap();
    let last = s.last().unwrap().record.info.as_ref().unwrap();
    assert!(last.bytes_acked > first.bytes_acked + 1_000_000);
    assert_eq!(s[0].record.congestion.as_deref(), Some("reno"));
    assert!(s.iter().all(|x| x.record.skmeminfo.is_some()));
    assert!(last.mss > 1000 && last.cwnd >= 2);

    // Cross-check with ss -tinm (independent reader), bracketed in time.
    for c in &checks {
        let (b, a) = (
            c.before.info.as_ref().unwrap(),
            c.after.info.as_ref().unwrap(),
        );
        let ss_rtt = ss_rtt_ms(&c.ss);
        let lo = (b.rtt_us.min(a.rtt_us) as f64 / 1000.0) * 0.8 - 1.0;
        let hi = (b.rtt_us.max(a.rtt_us) as f64 / 1000.0) * 1.2 + 1.0;
        eprintln!(
            "ss rtt {ss_rtt} ms, diag {}..{} µs; ss: {}",
            b.rtt_us,
            a.rtt_us,
            c.ss.trim()
        );
        assert!(
            (lo..=hi).contains(&ss_rtt),
            "ss rtt {ss_rtt} outside [{lo}, {hi}]"
        );
        let ss_cwnd = ss_u64(&c.ss, "cwnd:") as f64;
        let (clo, chi) = (b.cwnd.min(a.cwnd) as f64, b.cwnd.max(a.cwnd) as f64);
        assert!(
            ss_cwnd >= clo * 0.8 - 2.0 && ss_cwnd <= chi * 1.2 + 2.0,
            "ss cwnd {ss_cwnd} outside diag {clo}..{chi}"
        );
        assert_eq!(ss_u64(&c.ss, "mss:"), u64::from(a.mss));
        assert!(c.ss.contains("reno"), "{}", c.ss);
        assert!(c.ss.contains("skmem:("), "{}", c.ss);
    }
    assert_eq!(checks.len(), 3);
}

#[test]
fn privileged_unknown_cc_is_refused_and_receiver_close_is_a_termination() {
    if !require_privileged("privileged_unknown_cc_is_refused_and_receiver_close_is_a_termination") {
        return;
    }
    let topo = topology("tl_close");
    // A congestion control the kernel does not offer fails before connect.
    let err = topo
        .a
        .run(|| netlab_tcpload::new_sender_socket("nl-no-such-cc", support::b_tcp()))
        .unwrap()
        .unwrap_err();
    assert!(err.to_string().contains("nl-no-such-cc"), "{err}");

    // The receiver closes at its end while the sender still writes: the
    // sender records BrokenPipe/ConnectionReset, not an outage.
    let tl = Timeline {
        sink_for: Duration::from_secs(2),
        sender_at: Duration::from_millis(200),
        sender_for: Duration::from_secs(5),
        probe_end: None,
    };
    let out = run_scenario(&topo, tl, |_, _| {});
    assert_eq!(out.rx.tcp_end, TcpEnd::ClosedAtEnd);
    assert_eq!(out.rx.validation.failures, 0);
    assert!(
        matches!(
            out.tx.termination,
            Termination::BrokenPipe | Termination::ConnectionReset
        ),
        "{:?}",
        out.tx.termination
    );
    assert!(out.tx.end_s < 3.0, "sender ended at {}", out.tx.end_s);
}
