//! BBR's share against a loss-based flow in the guest kernel (the model
//! is docs/models.md's model 4): experiments/bbr_share_quick.toml cut to
//! one CUBIC flow and the two ends of its buffer axis, X = 1 and 8 BDPs,
//! under pfifo and fq_codel, one round, its 15 s warm-up kept (BBR's first
//! ProbeRTT after CUBIC filled the buffer comes about 10 s in) and its
//! window cut from 15 s to 5 s. The model says BBRv1 takes most
//! of a shallow FIFO and less of a deep one, and half under flow
//! queueing whatever X; the test checks that the report's share, from
//! each flow's window goodput, falls on those sides, and that the model's
//! X is the limit read back. The only test in its file, so no other guest
//! shares the machine with its window.

use std::time::Duration;

use netlab_compare::sweep::SweepTable;
use netlab_experiment::file::TimelineFile;

mod support;

use support::*;

/// BBR's share at X = 1 must exceed its share at X = 8 under pfifo by
/// this much of the link: the quick run read 0.88 and 0.24, this test
/// 0.86 and 0.22 with a 15 s window after 15 s (BBR still converging at
/// X = 8, docs/models.md); this test's 5 s window read 0.90 and 0.28.
const FIFO_DROP: f64 = 0.2;

/// Under fq_codel BBR's share must lie this close to the fair 1/2 (it
/// read 0.516–0.518 at every X here).
const FAIR_WITHIN: f64 = 0.1;

/// Runs the four scenarios once; `Err` says what fell off.
fn run_once(attempt: u32) -> Result<(), String> {
    let out = OutDir::new(&format!("bbr-share{attempt}"));
    let mut f = experiment_file("bbr_share_quick");
    f.timeline = Some(TimelineFile {
        baseline: Some("1s".into()),
        warmup: Some("15s".into()),
        measure: Some("5s".into()),
    });
    let sweep = f.sweep.as_mut().unwrap();
    sweep.buffer_bdp = Some(vec![1.0, 8.0]);
    sweep.flows_by_cc = None;
    run_experiment(&out, &f, Duration::from_secs(400))?;
    let json = std::fs::read_to_string(out.0.join("sweep.json")).expect("sweep.json");
    let t: SweepTable = netlab_export::sweep_file::parse_table(&json).expect("sweep.json reads");
    assert_eq!(t.models, ["bbr_share"]);
    assert_eq!(t.rows.len(), 4);
    let mut share = std::collections::BTreeMap::new();
    for r in &t.rows {
        let x: f64 = r.axis_values[0].parse().unwrap();
        assert!(r.error.is_none(), "{} X = {x}: {:?}", r.arm, r.error);
        let m = r.model.as_ref().expect("model 4's columns");
        let goodput = r
            .metrics
            .goodput_up_mbit_s
            .map(|g| g.level())
            .unwrap_or(0.0);
        let s = r.metrics.bbr_share.expect("BBR's share").level();
        eprintln!(
            "{} X = {x}: BBR's share {s:.3}, model {:?}, X read back {:?}, goodput {goodput:.2} Mbit/s",
            r.arm, m.model_bbr_share, m.buffer_bdp
        );
        assert_eq!((m.bbr_flows, m.loss_based_flows), (Some(1), Some(1)));
        if goodput < 8.0 {
            return Err(format!(
                "{} X = {x}: goodput {goodput:.2} of 10 Mbit/s: the guest did not fill the link",
                r.arm
            ));
        }
        if r.arm == "pfifo" {
            let read_back = m.buffer_bdp.expect("X from pfifo's limit read back");
            assert!(
                (read_back - x).abs() < 0.02,
                "X {x} read back as {read_back}"
            );
        } else {
            assert_eq!(m.model_bbr_share, Some(0.5), "the fair share");
        }
        share.insert((r.arm.clone(), x as u32), s);
    }
    let (shallow, deep) = (share[&("pfifo".into(), 1)], share[&("pfifo".into(), 8)]);
    if shallow < deep + FIFO_DROP {
        return Err(format!(
            "pfifo: BBR's share {shallow:.3} at X = 1, {deep:.3} at X = 8"
        ));
    }
    for x in [1, 8] {
        let s = share[&("fq_codel".into(), x)];
        if (s - 0.5).abs() > FAIR_WITHIN {
            return Err(format!("fq_codel X = {x}: BBR's share {s:.3}"));
        }
    }
    let words = t.model_sentences();
    assert!(
        words.iter().any(|w| w.starts_with("bbr_share, fq_codel: ")),
        "{words:?}"
    );
    Ok(())
}

/// One attempt more when the first falls off: a guest starved of CPU
/// does not fill the link, and BBR paces by timers.
#[test]
fn guest_bbr_takes_a_shallow_fifo_and_half_under_flow_queueing() {
    guest_with_retry(
        "guest_bbr_takes_a_shallow_fifo_and_half_under_flow_queueing",
        &["veth", "sch_tbf", "sch_netem", "sch_fq_codel", "tcp_bbr"],
        run_once,
    );
}
