//! netlab-stats: the statistics netlab's report and its cross-checks share,
//! as pure functions of numbers (no I/O, no dependency).
//!
//! - [`km`]: the Kaplan–Meier estimator with right-censoring (a probe
//!   timeout is "≥ the timeout", not a loss), with a weight per
//!   observation when samples stand for unequal stretches of time
//!   ([`weighted_kaplan_meier`]), and [`CensoredQuantile`]s that say when
//!   they fall on the censored mass;
//! - [`bootstrap`]: [`SplitMix64`], a small seeded generator (the same seed
//!   gives the same resamples on every machine), its resamples, differences
//!   of censored quantiles ([`Bounded`]) and [`percentile_interval`];
//! - [`rank`]: [`shift_interval`], the exact distribution-free interval
//!   for the shift between two arms' per-round values (Mann–Whitney
//!   inverted), with the level the round counts allow;
//! - [`rounds`]: how an arm's rounds are summarised ([`summarise`]: the
//!   mean of fewer than three, shown with each round; the median with the
//!   range from three on) and the Hodges–Lehmann estimate that belongs to
//!   the shift interval ([`hodges_lehmann`]);
//! - [`describe`]: [`median`], [`lower_median`], [`jain_index`] and the
//!   compact number format [`fmt_num`].
//!
//! netlab-analysis and netlab-report compute their statistics here; the
//! method is described in docs/report.md.
//!
//! ```
//! use netlab_stats::{censored_quantile, CensoredQuantile, Observation, SplitMix64};
//! use Observation::{AtLeast, Exact};
//!
//! // Three replies and two timeouts at 1000 ms: the median is a number,
//! // the p95 falls on the censored mass and is only a bound.
//! let obs = [Exact(500.0), AtLeast(1000.0), Exact(600.0), AtLeast(1000.0), Exact(800.0)];
//! assert_eq!(censored_quantile(&obs, 0.5), CensoredQuantile::Value(800.0));
//! assert_eq!(censored_quantile(&obs, 0.95).text("ms"), "≥ 1000 ms");
//!
//! // One bootstrap resample, the same for the same seed.
//! let again = SplitMix64::new(13).resample(&obs);
//! assert_eq!(SplitMix64::new(13).resample(&obs), again);
//! ```

#![forbid(unsafe_code)]

pub mod bootstrap;
pub mod describe;
pub mod km;
pub mod rank;
pub mod rounds;

pub use bootstrap::{percentile_interval, quantile_difference, splitmix64, Bounded, SplitMix64};
pub use describe::{fmt_num, jain_index, lower_median, median};
pub use km::{
    censored_quantile, kaplan_meier, km_quantile, weighted_censored_quantile,
    weighted_kaplan_meier, CensoredQuantile, KaplanMeier, KmStep, Observation,
};
pub use rank::{mann_whitney_cdf, shift_interval, ShiftInterval};
pub use rounds::{hodges_lehmann, summarise, RoundsSummary, Summary};
