//! The deterministic, position-dependent byte pattern of the TCP load and
//! its validator (pure).
//!
//! The byte at stream offset `o` is `base[o % PERIOD] ^ lap_key(o / PERIOD)`:
//! `base` is a precomputed pseudo-random sequence of [`PERIOD`] = 2^20 + 7
//! bytes (byte `i % 8` of `splitmix64(i / 8)`), and each group of
//! [`LAPS_PER_KEY`] laps is XORed with its own key byte. So no window of the
//! stream shorter than ~1 MiB repeats, a byte moved to another offset by
//! less than a lap is detected with probability ~255/256 (so is a shift by
//! whole laps that crosses a key group), and checking is one read pass.
//! The sender ([`PatternSource`]) writes straight from a precomputed lap,
//! recomputed only when the key changes, so the load generator keeps up
//! with iperf3 on an unshaped path. The odd period never lines up with
//! power-of-two block, buffer or segment sizes.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

/// Length of the precomputed base sequence in bytes.
pub const PERIOD: u64 = (1 << 20) + 7;

/// The SplitMix64 finaliser of `k` (netlab-stats' one implementation).
#[inline]
pub fn word(k: u64) -> u64 {
    netlab_stats::splitmix64(k)
}

fn base() -> &'static [u8] {
    static BASE: OnceLock<Vec<u8>> = OnceLock::new();
    BASE.get_or_init(|| {
        (0..PERIOD)
            .map(|i| word(i / 8).to_le_bytes()[(i % 8) as usize])
            .collect()
    })
}

/// Computes the pattern's base lap now (once per process; later calls
/// return at once), so that neither a sender between its connect and its
/// first write nor a receiver at its first block computes it in a measured
/// phase. [`crate::sink::Sink`] calls it before it sets t0.
pub fn prepare() {
    base();
}

/// Consecutive laps sharing one XOR key (64 laps ≈ 64 MiB).
pub const LAPS_PER_KEY: u64 = 64;

/// The XOR key of lap `lap` (offsets `lap·PERIOD .. (lap+1)·PERIOD`).
#[inline]
pub fn lap_key(lap: u64) -> u8 {
    (word((lap / LAPS_PER_KEY) ^ 0x005E_ED0F_1AB0_7A11) & 0xff) as u8
}

/// The pattern byte at stream offset `offset`.
#[inline]
pub fn byte_at(offset: u64) -> u8 {
    base()[(offset % PERIOD) as usize] ^ lap_key(offset / PERIOD)
}

/// Fills `buf` with the pattern bytes of offsets `offset..offset+buf.len()`.
pub fn fill(offset: u64, buf: &mut [u8]) {
    let base = base();
    let mut o = offset;
    let mut rest = buf;
    while !rest.is_empty() {
        let at = (o % PERIOD) as usize;
        let n = rest.len().min(base.len() - at);
        let (head, tail) = rest.split_at_mut(n);
        head.copy_from_slice(&base[at..at + n]);
        xor_key(head, lap_key(o / PERIOD));
        rest = tail;
        o += n as u64;
    }
}

/// XORs every byte of `buf` with `key`, eight at a time (a lap is ~1 MiB,
/// and a sender fills one before its connect).
fn xor_key(buf: &mut [u8], key: u8) {
    let wide = u64::from_ne_bytes([key; 8]);
    let mut words = buf.chunks_exact_mut(8);
    for w in &mut words {
        let v = u64::from_ne_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]) ^ wide;
        w.copy_from_slice(&v.to_ne_bytes());
    }
    for b in words.into_remainder() {
        *b ^= key;
    }
}

/// Hands out pattern blocks without computing them per write: keeps the
/// stream bytes of one lap plus one block of the next, recomputed only when
/// the lap keys change (twice per [`LAPS_PER_KEY`] laps). A clone shares
/// those bytes until one of them moves to other keys, so the senders of
/// one scenario hold one lap, computed once, between them.
#[derive(Clone)]
pub struct PatternSource {
    block: usize,
    ext: Arc<Vec<u8>>,
    keys: Option<(u8, u8)>,
}

/// Without the ~1 MiB of pattern bytes.
impl std::fmt::Debug for PatternSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PatternSource")
            .field("block", &self.block)
            .field("keys", &self.keys)
            .finish_non_exhaustive()
    }
}

impl PatternSource {
    /// A source of `block`-byte blocks (`block` ≥ 1).
    pub fn new(block: usize) -> Self {
        let block = block.max(1);
        Self {
            block,
            ext: Arc::new(vec![0; PERIOD as usize + block]),
            keys: None,
        }
    }

    /// A source of `block`-byte blocks with its first lap computed now.
    pub fn prepared(block: usize) -> Self {
        let mut source = Self::new(block);
        source.block_at(0);
        source
    }

    /// [`PatternSource::prepared`], computed once per process and block
    /// size and shared from then on: a run's scenarios hold one first lap
    /// between them (computing it cost about 50 ms a scenario under
    /// user-mode Linux, method §3.5). A source that moves to later laps
    /// takes a copy of its own first, as any clone does.
    pub fn shared(block: usize) -> Self {
        static PREPARED: std::sync::Mutex<Vec<PatternSource>> = std::sync::Mutex::new(Vec::new());
        let block = block.max(1);
        let mut prepared = PREPARED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = prepared.iter().find(|p| p.block == block) {
            return p.clone();
        }
        let made = Self::prepared(block);
        prepared.push(made.clone());
        made
    }

    /// The block size it serves.
    pub fn block(&self) -> usize {
        self.block
    }

    /// The `block` pattern bytes at stream offsets `offset..offset+block`.
    pub fn block_at(&mut self, offset: u64) -> &[u8] {
        let lap = offset / PERIOD;
        let keys = (lap_key(lap), lap_key(lap + 1));
        if self.keys != Some(keys) {
            // Shared with a clone: this one takes a copy of its own first.
            let ext: &mut Vec<u8> = Arc::make_mut(&mut self.ext);
            fill(lap * PERIOD, ext);
            self.keys = Some(keys);
        }
        let at = (offset % PERIOD) as usize;
        &self.ext[at..at + self.block]
    }
}

/// Result of validating a received stream (serializable).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validation {
    /// Bytes compared with the pattern (= bytes received).
    pub bytes_checked: u64,
    /// Bytes that differed from the pattern at their stream offset
    /// (expected 0).
    pub failures: u64,
    /// Stream offset of the first differing byte, if any.
    pub first_bad_offset: Option<u64>,
}

/// Checks received bytes against the pattern by stream offset.
#[derive(Debug, Clone, Default)]
pub struct Validator {
    validation: Validation,
}

impl Validator {
    /// A validator expecting the stream to start at offset 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Validates the next received bytes (they follow the previous ones in
    /// the stream).
    pub fn feed(&mut self, data: &[u8]) {
        let base = base();
        let mut rest = data;
        while !rest.is_empty() {
            // One piece never crosses a lap boundary, so one key applies.
            let offset = self.validation.bytes_checked;
            let at = (offset % PERIOD) as usize;
            let n = rest.len().min(base.len() - at);
            let (piece, tail) = rest.split_at(n);
            let want = &base[at..at + n];
            let key = lap_key(offset / PERIOD);
            // Branch-free OR of differences (vectorizes); the exact count is
            // only computed when something differs.
            let diff = piece
                .iter()
                .zip(want)
                .fold(0u8, |acc, (got, w)| acc | (got ^ w ^ key));
            if diff != 0 {
                for (i, (got, w)) in piece.iter().zip(want).enumerate() {
                    if *got != w ^ key {
                        self.validation.failures += 1;
                        if self.validation.first_bad_offset.is_none() {
                            self.validation.first_bad_offset = Some(offset + i as u64);
                        }
                    }
                }
            }
            self.validation.bytes_checked += n as u64;
            rest = tail;
        }
    }

    /// The stream offset of the next expected byte.
    pub fn next_offset(&self) -> u64 {
        self.validation.bytes_checked
    }

    /// Counters so far.
    pub fn validation(&self) -> Validation {
        self.validation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_source_is_one_lap_per_block_size_and_serves_the_pattern() {
        let a = PatternSource::shared(1000);
        let b = PatternSource::shared(1000);
        assert!(Arc::ptr_eq(&a.ext, &b.ext));
        let c = PatternSource::shared(999);
        assert!(!Arc::ptr_eq(&a.ext, &c.ext));
        let mut fresh = PatternSource::new(1000);
        let mut b = b;
        for offset in [0, 1000, PERIOD - 5, PERIOD + 3, 3 * PERIOD] {
            assert_eq!(b.block_at(offset), fresh.block_at(offset), "at {offset}");
        }
        // Moving on took a copy: the shared first lap is unchanged.
        let mut again = PatternSource::shared(1000);
        assert_eq!(again.block_at(0), PatternSource::new(1000).block_at(0));
    }
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
    fn fill_crosses_lap_boundaries() {
        let start = PERIOD - 10;
        let mut buf = vec![0u8; 30];
        fill(start, &mut buf);
        for (i, b) in buf.iter().enumerate() {
            assert_eq!(*b, byte_at(start + i as u64));
        }
        // key groups differ, so a shift across a group boundary is visible
        assert_eq!(lap_key(0), lap_key(LAPS_PER_KEY - 1));
        assert_ne!(lap_key(0), lap_key(LAPS_PER_KEY));
        assert_ne!(byte_at(5), byte_at(5 + LAPS_PER_KEY * PERIOD));
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
            v.validation(),
            Validation {
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
        let r = v.validation();
        assert_eq!(r.failures, 2);
        assert_eq!(r.first_bad_offset, Some(70_001));
    }

    #[test]
    fn validator_across_a_lap_boundary() {
        let len = PERIOD as usize + 5000;
        let mut buf = vec![0u8; len];
        fill(0, &mut buf);
        let mut v = Validator::new();
        v.feed(&buf[..PERIOD as usize - 3]);
        v.feed(&buf[PERIOD as usize - 3..]);
        assert_eq!(v.validation().failures, 0);
        buf[PERIOD as usize + 1] ^= 0x10;
        let mut v = Validator::new();
        v.feed(&buf);
        assert_eq!(v.validation().failures, 1);
        assert_eq!(v.validation().first_bad_offset, Some(PERIOD + 1));
        // A whole key group skipped is still caught (different key).
        let mut v = Validator::new();
        v.feed(&buf[..100]);
        let mut next = vec![0u8; 100];
        fill(100 + LAPS_PER_KEY * PERIOD, &mut next);
        v.feed(&next);
        assert!(v.validation().failures > 90);
    }

    #[test]
    fn validator_detects_a_missing_segment() {
        let mut buf = vec![0u8; 10_000];
        fill(0, &mut buf);
        let mut v = Validator::new();
        v.feed(&buf[..4000]);
        v.feed(&buf[5448..]); // one 1448-byte segment lost
        let r = v.validation();
        assert_eq!(r.first_bad_offset, Some(4000));
        assert!(
            r.failures > 4000,
            "shifted data must mostly mismatch: {}",
            r.failures
        );
    }

    #[test]
    fn source_blocks_equal_fill_across_laps_and_key_groups() {
        let block = 4096;
        let mut src = PatternSource::new(block);
        let starts = [
            0,
            PERIOD - 100,
            PERIOD,
            LAPS_PER_KEY * PERIOD - 10,
            LAPS_PER_KEY * PERIOD + 3,
            7 * LAPS_PER_KEY * PERIOD - 4000,
        ];
        for start in starts {
            let mut want = vec![0u8; block];
            fill(start, &mut want);
            assert_eq!(src.block_at(start), &want[..], "start {start}");
        }
    }

    /// Clones share one lap until one moves to other keys; each still
    /// hands out the stream's own bytes, and the others' lap is untouched.
    #[test]
    fn clones_share_a_lap_until_one_moves_on() {
        let block = 4096;
        let first = PatternSource::prepared(block);
        let (mut a, mut b) = (first.clone(), first.clone());
        assert!(Arc::ptr_eq(&a.ext, &b.ext));
        let far = LAPS_PER_KEY * PERIOD + 3;
        let mut want = vec![0u8; block];
        fill(far, &mut want);
        assert_eq!(a.block_at(far), &want[..]);
        assert!(!Arc::ptr_eq(&a.ext, &b.ext));
        fill(5, &mut want);
        assert_eq!(b.block_at(5), &want[..]);
        assert!(Arc::ptr_eq(&first.ext, &b.ext));
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
