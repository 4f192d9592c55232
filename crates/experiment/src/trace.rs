//! Recorded link traces in the packet-delivery-opportunity format
//! (Mahimahi's and Pantheon's): one line per chance for one full-size
//! packet to leave the bottleneck, each line a whole number of
//! milliseconds from the trace's start; a timestamp repeated means
//! several packets in that millisecond; the trace repeats when it ends,
//! its period being its last timestamp (docs/method.md §15.2).
//!
//! [`Trace::parse`] refuses what cannot be such a trace, naming the line;
//! [`Trace::bins`] turns it into a rate per bin of one period, an outage
//! where a bin holds no opportunity.

use std::time::Duration;

use netlab_qdisc_model::Rate;

/// Bytes one delivery opportunity passes: a 1,500-byte IP packet and its
/// 14-byte Ethernet header, the length TBF counts (`qdisc_pkt_len`), so
/// the TBF passes as many full-size packets per bin as the trace offers.
pub const OPPORTUNITY_BYTES: u64 = 1514;

/// The shortest bin a trace is turned into rates over.
pub const MIN_TRACE_BIN: Duration = Duration::from_millis(10);

/// Why a trace was refused: the line (1-based; 0 for the whole file) and
/// what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{reason}", if *.line == 0 { String::new() } else { format!("line {}: ", .line) })]
pub struct TraceError {
    /// The offending line, 1-based; 0 when the file as a whole is wrong.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// A parsed trace: its delivery opportunities in milliseconds from its
/// start, in file order (never decreasing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// One entry per line.
    pub opportunities_ms: Vec<u64>,
}

/// One bin of a trace's period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceBin {
    /// Start, from the period's start.
    pub start: Duration,
    /// Length (the last bin of a period may be shorter).
    pub len: Duration,
    /// Opportunities in it.
    pub opportunities: u64,
    /// Their rate over the bin; `None`: none at all (an outage).
    pub rate: Option<Rate>,
}

impl Trace {
    /// Parses the text of a trace file. Refused: an empty file, a line that
    /// is not a whole number of milliseconds (an empty line included), a
    /// timestamp smaller than the line before, a trace whose last
    /// timestamp is 0 (a period of no time).
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        let mut opportunities_ms = Vec::new();
        let mut previous: Option<u64> = None;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let word = line.trim();
            let value: u64 = if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
                word.parse().map_err(|_| TraceError {
                    line: n,
                    reason: format!("{word:?} is too large a number of milliseconds"),
                })?
            } else {
                return Err(TraceError {
                    line: n,
                    reason: format!(
                        "{line:?} is not a whole number of milliseconds (one timestamp per line)"
                    ),
                });
            };
            if let Some(p) = previous {
                if value < p {
                    return Err(TraceError {
                        line: n,
                        reason: format!(
                            "timestamp {value} goes backwards (line {} was {p})",
                            n - 1
                        ),
                    });
                }
            }
            previous = Some(value);
            opportunities_ms.push(value);
        }
        match previous {
            None => Err(TraceError {
                line: 0,
                reason: "the trace is empty: it needs one timestamp per line".to_string(),
            }),
            Some(0) => Err(TraceError {
                line: opportunities_ms.len(),
                reason: "the last timestamp is 0: the trace's period (its last timestamp) \
                         must be at least 1 ms"
                    .to_string(),
            }),
            Some(_) => Ok(Trace { opportunities_ms }),
        }
    }

    /// The period after which the trace repeats: its last timestamp, as
    /// Mahimahi repeats it (the opportunity at the last timestamp of one
    /// repetition is at time 0 of the next).
    pub fn period(&self) -> Duration {
        Duration::from_millis(*self.opportunities_ms.last().unwrap_or(&0))
    }

    /// One period cut into bins of `bin` (the last one shorter when `bin`
    /// does not divide the period), each with its opportunities counted at
    /// their time modulo the period and turned into a rate of
    /// [`OPPORTUNITY_BYTES`] each.
    pub fn bins(&self, bin: Duration) -> Vec<TraceBin> {
        let period_ms = self.period().as_millis() as u64;
        let bin_ms = (bin.as_millis() as u64).max(1);
        let n = period_ms.div_ceil(bin_ms) as usize;
        let mut counts = vec![0u64; n];
        for &t in &self.opportunities_ms {
            counts[((t % period_ms) / bin_ms) as usize] += 1;
        }
        counts
            .into_iter()
            .enumerate()
            .map(|(k, opportunities)| {
                let start_ms = k as u64 * bin_ms;
                let len_ms = bin_ms.min(period_ms - start_ms);
                TraceBin {
                    start: Duration::from_millis(start_ms),
                    len: Duration::from_millis(len_ms),
                    opportunities,
                    rate: (opportunities > 0).then(|| {
                        let bits = opportunities as u128 * OPPORTUNITY_BYTES as u128 * 8 * 1000;
                        Rate(((bits + len_ms as u128 / 2) / len_ms as u128) as u64)
                    }),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_parses_with_repeats_and_trailing_newline() {
        let t = Trace::parse("0\n5\n5\n5\n120\n").unwrap();
        assert_eq!(t.opportunities_ms, vec![0, 5, 5, 5, 120]);
        assert_eq!(t.period(), Duration::from_millis(120));
        // Windows line ends and spaces around a number are read too.
        assert_eq!(
            Trace::parse("3\r\n 7 \r\n").unwrap().opportunities_ms,
            [3, 7]
        );
    }

    #[test]
    fn malformed_traces_are_refused_naming_the_line() {
        let e = Trace::parse("0\n10\n9\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert_eq!(
            e.to_string(),
            "line 3: timestamp 9 goes backwards (line 2 was 10)"
        );
        let e = Trace::parse("0\n1.5\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.to_string().contains("\"1.5\" is not a whole number"),
            "{e}"
        );
        for bad in ["-3\n", "abc\n", "1 2\n", "1e3\n"] {
            assert_eq!(Trace::parse(bad).unwrap_err().line, 1, "{bad:?}");
        }
        // An empty line inside the file is not a timestamp.
        assert_eq!(Trace::parse("1\n\n2\n").unwrap_err().line, 2);
        let e = Trace::parse("").unwrap_err();
        assert_eq!(
            (e.line, e.to_string().starts_with("the trace is empty")),
            (0, true)
        );
        assert_eq!(Trace::parse("\n").unwrap_err().line, 1);
        let e = Trace::parse("0\n0\n").unwrap_err();
        assert!(e.to_string().contains("period"), "{e}");
        assert!(Trace::parse("99999999999999999999999\n").is_err());
    }

    #[test]
    fn bins_count_opportunities_and_turn_them_into_rates() {
        // 100 ms bins over a 250 ms period: 3 bins, the last 50 ms long.
        let t = Trace::parse("0\n10\n10\n99\n100\n230\n250\n").unwrap();
        let b = t.bins(Duration::from_millis(100));
        assert_eq!(b.len(), 3);
        // 250 is the next repetition's 0: it counts in bin 0.
        assert_eq!(b[0].opportunities, 5);
        assert_eq!(b[1].opportunities, 1);
        assert_eq!(b[2].opportunities, 1);
        assert_eq!(b[2].len, Duration::from_millis(50));
        // 5 × 1514 bytes in 100 ms = 605.6 kbit/s.
        assert_eq!(b[0].rate, Some(Rate(605_600)));
        assert_eq!(b[1].rate, Some(Rate(121_120)));
        // One packet in a 50 ms bin is twice the rate of one in 100 ms.
        assert_eq!(b[2].rate, Some(Rate(242_240)));
        // Every opportunity of the period is counted once.
        let total: u64 = b.iter().map(|x| x.opportunities).sum();
        assert_eq!(total, t.opportunities_ms.len() as u64);
    }

    #[test]
    fn a_bin_with_no_opportunity_is_an_outage() {
        // 1 s of nothing between 100 and 1100 ms.
        let t = Trace::parse("0\n50\n1100\n1150\n1200\n").unwrap();
        let b = t.bins(Duration::from_millis(100));
        assert_eq!(b.len(), 12);
        assert!(b[0].rate.is_some());
        assert!(b[1..11]
            .iter()
            .all(|x| x.rate.is_none() && x.opportunities == 0));
        assert!(b[11].rate.is_some());
    }
}
