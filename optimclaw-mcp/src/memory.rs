//! Giving the memory of ended sessions back to the operating system.
//!
//! Thousands of sessions ending leave their memory free inside the
//! allocator, which keeps it resident for reuse: the process's RSS stays at
//! its peak long after a flood has expired. glibc's `malloc_trim` returns
//! the free pages of every arena (the top of each heap, and with
//! `MADV_DONTNEED` the free pages inside it); no crate wraps it, so it is
//! called through `libc`. Elsewhere this does nothing: other allocators
//! (musl's, jemalloc, mimalloc) return memory on their own terms.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Sessions that must have ended since the last trim before the next one:
/// trimming walks every arena, so it waits for a drop worth it.
const ENDED_BEFORE_TRIM: usize = 64;

/// Trims after many sessions ended: fed the live count every few seconds,
/// and told of sessions closed to make room (which leave the live count
/// where it was).
#[derive(Default)]
pub(super) struct Trimmer {
    /// The most sessions seen live since the last trim.
    peak: AtomicUsize,
    /// Sessions evicted since the last trim.
    evicted: AtomicUsize,
}

impl Trimmer {
    /// One session was closed for a newcomer.
    pub(super) fn evicted(&self) {
        self.evicted.fetch_add(1, Ordering::SeqCst);
    }

    /// Notes `live` sessions; `true` when enough have ended since the last
    /// trim that the caller should [`trim`] now.
    pub(super) fn should_trim(&self, live: usize) -> bool {
        let peak = self.peak.fetch_max(live, Ordering::SeqCst).max(live);
        let ended = peak - live + self.evicted.load(Ordering::SeqCst);
        if ended >= ENDED_BEFORE_TRIM {
            self.peak.store(live, Ordering::SeqCst);
            self.evicted.store(0, Ordering::SeqCst);
            true
        } else {
            false
        }
    }
}

/// Returns the allocator's free memory to the system (glibc only).
pub(super) fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: `malloc_trim` only releases memory the allocator holds free;
    // it takes no pointers and is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_once_enough_sessions_ended() {
        let t = Trimmer::default();
        assert!(!t.should_trim(1_000));
        assert!(!t.should_trim(960), "40 ended: too few");
        assert!(t.should_trim(700), "300 ended since the peak");
        assert!(!t.should_trim(650), "50 ended since the last trim: too few");
        assert!(t.should_trim(630), "70 ended since the last trim");
        assert!(!t.should_trim(2_000));
        assert!(t.should_trim(0));
        // Evictions leave the live count at the cap, and count as ended.
        assert!(!t.should_trim(100));
        for _ in 0..64 {
            t.evicted();
        }
        assert!(t.should_trim(100));
        assert!(!t.should_trim(100), "counted from the last trim");
        trim();
    }
}
