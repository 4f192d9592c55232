//! What a scenario's record says of its measured window at a glance: the
//! window itself, the goodput of each bin inside it and the round's one
//! goodput every output quotes (method §4.3).

use crate::records::Scenario;

impl Scenario {
    /// The measured window, s from t0 (the loaded phase when results.json
    /// records no window).
    pub fn window(&self) -> [f64; 2] {
        self.measured_window.unwrap_or(self.phases.loaded)
    }
}

impl Scenario {
    /// Goodput of each bin that lies wholly inside the measured window, Mbit/s.
    pub fn goodput_bins(&self) -> Vec<f64> {
        let s = self;
        let (Some([w0, w1]), Some(bin)) = (s.measured_window, s.bin_s()) else {
            return Vec::new();
        };
        s.aggregate_bytes()
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let t = *i as f64 * bin;
                t >= w0 - 1e-9 && t + bin <= w1 + 1e-9
            })
            .map(|(_, b)| *b as f64 * 8.0 / bin / 1e6)
            .collect()
    }

    /// A round's goodput, Mbit/s: its first direction's aggregate goodput as
    /// results.json gives it (method §4.3: each flow's bytes delivered inside
    /// the measured window over the window, summed over the direction's
    /// flows), the one goodput every output quotes; for input without it, the
    /// mean of the whole 200 ms bins inside the window.
    pub fn window_goodput(&self) -> Option<f64> {
        let s = self;
        if let Some(g) = s.directions.first().and_then(|d| d.goodput_mbps) {
            return Some(g);
        }
        let b = s.goodput_bins();
        (!b.is_empty()).then(|| b.iter().sum::<f64>() / b.len() as f64)
    }
}
