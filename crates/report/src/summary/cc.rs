//! summary.md's table of congestion controls (method §16): when a run
//! has more than two of them (a zoo) or a DCTCP flow, each flow's
//! congestion control as asked, as the socket reported it
//! (`TCP_CONGESTION`) and as sock_diag's `INET_DIAG_CONG` reported it in
//! its tcp_info samples, beside its goodput and the probe's loaded
//! one-way delay.

use std::fmt::Write as _;

use netlab_analysis::summary::ScenarioFigures;

/// The section, when the run has more than two congestion controls or a
/// DCTCP flow.
pub fn cc_section(scenarios: &[ScenarioFigures]) -> Option<String> {
    let mut ccs: Vec<&str> = Vec::new();
    for f in scenarios.iter().flat_map(|s| &s.flows) {
        if !ccs.contains(&f.cc_requested.as_str()) {
            ccs.push(&f.cc_requested);
        }
    }
    if ccs.len() <= 2 && !ccs.contains(&"dctcp") {
        return None;
    }
    let mut out = format!(
        "Congestion controls ({} of them; method §16): each flow's as asked, as its socket \
         reported it (TCP_CONGESTION) and as sock_diag reported it in every tcp_info sample \
         (INET_DIAG_CONG), beside its goodput and the isochronous probe's loaded one-way delay \
         A→B.\n\n",
        ccs.len()
    );
    out.push_str("| Scenario | round | arm | point | flow | asked | TCP_CONGESTION | INET_DIAG_CONG | goodput Mbit/s | one-way p50/p95 ms (loaded) |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    let mut mismatched = 0;
    for s in scenarios {
        let one_way = s
            .iso
            .as_ref()
            .and_then(|i| i.loaded.as_ref())
            .and_then(|p| p.stats.up)
            .map_or("–".to_string(), |q| {
                format!("{} / {}", ms(q.p50_ms), ms(q.p95_ms))
            });
        for f in &s.flows {
            let diag = if f.cc_diag.is_empty() {
                "–".to_string()
            } else {
                f.cc_diag.join(", ")
            };
            let socket = f
                .cc_socket
                .clone()
                .unwrap_or_else(|| "– (flow failed)".to_string());
            if f.cc_socket.as_deref() != Some(f.cc_requested.as_str())
                || f.cc_diag.iter().any(|d| *d != f.cc_requested)
            {
                mismatched += 1;
            }
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {socket} | {diag} | {} | {one_way} |",
                s.index,
                s.round,
                s.arm,
                s.point_label,
                f.index + 1,
                f.cc_requested,
                f.goodput_mbps
                    .map_or("–".to_string(), |g| format!("{g:.2}")),
            );
        }
    }
    let _ = writeln!(
        out,
        "\n{}",
        if mismatched == 0 {
            "Every flow's congestion control read back as asked, from both.".to_string()
        } else {
            format!(
                "{mismatched} flow(s) did not read back as asked (or failed before their socket \
                 could say): see the table and the scenario's error."
            )
        }
    );
    Some(out)
}

fn ms(v: Option<f64>) -> String {
    v.map_or("–".to_string(), |m| format!("{m:.1}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_analysis::summary::FlowFigures;

    fn with(cc: &str, read: &str, diag: &[&str]) -> ScenarioFigures {
        let mut f = ScenarioFigures::of(&Default::default());
        f.flows = vec![FlowFigures {
            index: 0,
            direction: "up".into(),
            cc: read.into(),
            goodput_mbps: Some(4.5),
            cc_requested: cc.into(),
            cc_socket: Some(read.into()),
            cc_diag: diag.iter().map(|d| d.to_string()).collect(),
        }];
        f
    }

    #[test]
    fn a_zoo_gets_its_table_and_a_mismatch_is_counted() {
        assert!(
            cc_section(&[with("reno", "reno", &["reno"]), with("cubic", "cubic", &[])]).is_none()
        );
        let zoo = [
            with("reno", "reno", &["reno"]),
            with("cubic", "cubic", &["cubic"]),
            with("vegas", "vegas", &["vegas"]),
        ];
        let s = cc_section(&zoo).unwrap();
        assert!(s.contains("3 of them"), "{s}");
        assert!(s.contains("| vegas | vegas | vegas | 4.50 |"), "{s}");
        assert!(
            s.contains("Every flow's congestion control read back as asked"),
            "{s}"
        );
        let s = cc_section(&[with("dctcp", "dctcp", &["reno"])]).unwrap();
        assert!(s.contains("1 flow(s) did not read back as asked"), "{s}");
        let mut failed = with("dctcp", "dctcp", &[]);
        failed.flows[0].cc_socket = None;
        let s = cc_section(&[failed]).unwrap();
        assert!(s.contains("| dctcp | – (flow failed) | – |"), "{s}");
        assert!(s.contains("1 flow(s) did not read back"), "{s}");
    }
}
