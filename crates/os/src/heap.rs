//! The heap of a long run stays flat (glibc's malloc tuned through
//! `mallopt` and `malloc_trim`; the crate's only `unsafe`, two blocks).
//!
//! glibc gives threads their own arenas, raises its mmap and trim
//! thresholds each time a large block is freed (up to 32 MB and 64 MB), and
//! then keeps the freed top of each thread arena for reuse. Every scenario
//! starts a dozen threads (receivers, senders, samplers, probe, capture)
//! whose buffers grow past those thresholds, so with glibc's defaults a
//! run's resident memory grew by 0.35 MB per scenario although the run
//! holds no scenario data and nothing leaks: the soak example measured
//! 22.5 MB after scenario 2 and 29.5 MB after scenario 19. With the two
//! thresholds fixed at 128 KiB (glibc's initial values, no longer raised),
//! large blocks are mapped and unmapped on their own and arenas return
//! their free top, and it stays within 0.6 MB over the same run.

/// glibc's initial mmap and trim thresholds, kept fixed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const THRESHOLD: nix::libc::c_int = 128 * 1024;

/// Fixes glibc's mmap and trim thresholds (call first thing in `main`,
/// before any thread exists; `orchestrator` does); true if both were set.
/// A no-op off glibc.
pub fn keep_heap_flat() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use nix::libc::{mallopt, M_MMAP_THRESHOLD, M_TRIM_THRESHOLD};
        // SAFETY: mallopt takes two integers and only changes glibc's own
        // malloc parameters; no pointer is involved.
        #[allow(unsafe_code)]
        let set = unsafe {
            mallopt(M_MMAP_THRESHOLD, THRESHOLD) == 1 && mallopt(M_TRIM_THRESHOLD, THRESHOLD) == 1
        };
        set
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// Returns the free memory of every malloc arena to the system
/// (`malloc_trim(0)`; `orchestrator` calls it after each scenario is
/// written); true if some was released. A no-op off glibc.
pub fn release_free_heap() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim takes no pointer; it walks glibc's own arenas
        // under their locks and may be called at any time from any thread.
        #[allow(unsafe_code)]
        let released = unsafe { nix::libc::malloc_trim(0) };
        released == 1
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

// glibc only: elsewhere both functions are documented no-ops.
#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// Both thresholds are accepted, and a megabyte freed in the middle of
    /// the heap (below the mmap threshold, held there by a live block
    /// above it, so glibc cannot give it back by trimming the top) is
    /// released by the trim: the call reports it.
    #[test]
    fn the_thresholds_are_accepted_and_a_freed_middle_is_released() {
        assert!(keep_heap_flat());
        let below_threshold = THRESHOLD as usize / 2;
        let middle: Vec<Vec<u8>> = (0..16).map(|_| vec![1u8; below_threshold]).collect();
        let above = vec![2u8; 64];
        drop(middle);
        assert!(release_free_heap(), "1 MiB free in the heap's middle");
        assert_eq!(above[0], 2);
    }
}
