//! Test builds only: a global allocator that counts, per thread, the heap
//! bytes allocated minus freed, so a test can show that a piece of code
//! holds no data after it returns without reading the whole
//! process's RSS, which other tests running in parallel move. A test
//! binary installs it with `#[global_allocator]`.

// A global allocator is an unsafe trait; test builds only.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// [`System`], counting this thread's live bytes and their peak.
pub struct CountingAlloc;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn add(delta: i64) {
    let _ = LIVE.try_with(|l| {
        let now = l.get() + delta;
        l.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

// SAFETY: every call is passed to `System` unchanged; the counting touches
// only const-initialised thread locals, which never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is System's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as i64);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as i64));
        // SAFETY: the caller's contract is System's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is System's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size() as i64);
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is System's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

/// Heap bytes this thread has allocated and not freed.
pub fn live_bytes() -> i64 {
    LIVE.with(Cell::get)
}

/// Starts a new peak at the current live bytes.
pub fn reset_peak() {
    let now = live_bytes();
    PEAK.with(|p| p.set(now));
}

/// The highest live bytes of this thread since [`reset_peak`].
pub fn peak_bytes_since_reset() -> i64 {
    PEAK.with(Cell::get)
}
