//! The deterministic, position-dependent byte pattern of the TCP load and
//! its validator (pure).
//!
//! The byte at stream offset `o` is byte `o % 8` (little-endian) of
//! `splitmix64(o / 8)`. The sequence is not periodic with any small period,
//! is cheap (one mix per 8 bytes) and a byte shifted to another offset is
//! detected with probability 255/256.

use serde::{Deserialize, Serialize};

/// The SplitMix64 finaliser of `k` (the 64-bit word covering offsets
/// `8k..8k+8`).
#[inline]
pub fn word(k: u64) -> u64 {
    let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The pattern byte at stream offset `offset`.
#[inline]
pub fn byte_at(offset: u64) -> u8 {
    word(offset / 8).to_le_bytes()[(offset % 8) as usize]
}

/// Fills `buf` with the pattern bytes of offsets `offset..offset+buf.len()`.
pub fn fill(offset: u64, buf: &mut [u8]) {
    let mut o = offset;
    let mut rest = buf;
    // Unaligned head.
    while o % 8 != 0 && !rest.is_empty() {
        rest[0] = byte_at(o);
        rest = &mut rest[1..];
        o += 1;
    }
    let mut chunks = rest.chunks_exact_mut(8);
    for chunk in &mut chunks {
        chunk.copy_from_slice(&word(o / 8).to_le_bytes());
        o += 8;
    }
    for b in chunks.into_remainder() {
        *b = byte_at(o);
        o += 1;
    }
}

/// Result of validating a received stream (serializable).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationReport {
    /// Bytes compared with the pattern (= bytes received).
    pub bytes_checked: u64,
    /// Bytes that differed from the pattern at their stream offset
    /// (expected 0).
    pub failures: u64,
    /// Stream offset of the first differing byte, if any.
    pub first_bad_offset: Option<u64>,
}

/// Checks received bytes against the pattern by stream offset.
#[derive(Debug, Clone)]
pub struct Validator {
    report: ValidationReport,
    scratch: Vec<u8>,
}

const SCRATCH: usize = 64 * 1024;

impl Default for Validator {
    fn default() -> Self {
        Self::new()
    }
}

impl Validator {
    /// A validator expecting the stream to start at offset 0.
    pub fn new() -> Self {
        Self {
            report: ValidationReport::default(),
            scratch: vec![0; SCRATCH],
        }
    }

    /// Validates the next received bytes (they follow the previous ones in
    /// the stream).
    pub fn feed(&mut self, data: &[u8]) {
        for piece in data.chunks(SCRATCH) {
            let offset = self.report.bytes_checked;
            let expected = &mut self.scratch[..piece.len()];
            fill(offset, expected);
            if expected != piece {
                for (i, (got, want)) in piece.iter().zip(expected.iter()).enumerate() {
                    if got != want {
                        self.report.failures += 1;
                        if self.report.first_bad_offset.is_none() {
                            self.report.first_bad_offset = Some(offset + i as u64);
                        }
                    }
                }
            }
            self.report.bytes_checked += piece.len() as u64;
        }
    }

    /// The stream offset of the next expected byte.
    pub fn next_offset(&self) -> u64 {
        self.report.bytes_checked
    }

    /// Counters so far.
    pub fn report(&self) -> ValidationReport {
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fill_matches_byte_at_for_unaligned_ranges() {
        for start in 0..20u64 {
            for len in 0..40usize {
                let mut buf = vec![0u8; len];
                fill(start, &mut buf);
                for (i, b) in buf.iter().enumerate() {
                    assert_eq!(*b, byte_at(start + i as u64), "start {start} i {i}");
                }
            }
        }
    }

    #[test]
    fn pattern_has_no_small_period() {
        let mut buf = vec![0u8; 1 << 16];
        fill(0, &mut buf);
        for period in 1..=4096usize {
            let same = (0..4096).filter(|&i| buf[i] == buf[i + period]).count();
            // A random sequence matches itself shifted about 1/256 of the time.
            assert!(same < 100, "period {period}: {same} of 4096 equal");
        }
    }

    #[test]
    fn validator_accepts_the_pattern_in_any_split() {
        let mut buf = vec![0u8; 300_000];
        fill(0, &mut buf);
        let mut v = Validator::new();
        let mut pos = 0;
        for step in [1usize, 7, 8, 1000, 65_536, 70_000, 3].iter().cycle() {
            if pos >= buf.len() {
                break;
            }
            let end = (pos + step).min(buf.len());
            v.feed(&buf[pos..end]);
            pos = end;
        }
        assert_eq!(
            v.report(),
            ValidationReport {
                bytes_checked: 300_000,
                failures: 0,
                first_bad_offset: None
            }
        );
    }

    #[test]
    fn validator_counts_corruption_and_keeps_first_bad_offset() {
        let mut buf = vec![0u8; 100_000];
        fill(0, &mut buf);
        buf[70_001] ^= 0xff;
        buf[99_999] ^= 1;
        let mut v = Validator::new();
        v.feed(&buf[..50_000]);
        v.feed(&buf[50_000..]);
        let r = v.report();
        assert_eq!(r.failures, 2);
        assert_eq!(r.first_bad_offset, Some(70_001));
    }

    #[test]
    fn validator_detects_a_missing_segment() {
        let mut buf = vec![0u8; 10_000];
        fill(0, &mut buf);
        let mut v = Validator::new();
        v.feed(&buf[..4000]);
        v.feed(&buf[5448..]); // one 1448-byte segment lost
        let r = v.report();
        assert_eq!(r.first_bad_offset, Some(4000));
        assert!(
            r.failures > 4000,
            "shifted data must mostly mismatch: {}",
            r.failures
        );
    }

    proptest! {
        #[test]
        fn fill_is_consistent_across_splits(start in 0u64..1_000_000, a in 0usize..100, b in 0usize..100) {
            let mut whole = vec![0u8; a + b];
            fill(start, &mut whole);
            let mut left = vec![0u8; a];
            let mut right = vec![0u8; b];
            fill(start, &mut left);
            fill(start + a as u64, &mut right);
            left.extend_from_slice(&right);
            prop_assert_eq!(whole, left);
        }
    }
}
