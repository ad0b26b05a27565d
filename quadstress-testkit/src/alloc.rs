//! A global allocator that counts: calls, bytes asked for, and bytes live. A test file installs
//! it with `#[global_allocator] static GLOBAL: Counting = Counting;` and keeps to one test
//! function, so that no other test thread allocates while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The counting allocator: defers every call to the system allocator.
pub struct Counting;

/// Allocations and reallocations so far.
pub static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
/// Bytes asked for by allocations and reallocations so far.
pub static BYTES: AtomicUsize = AtomicUsize::new(0);
/// Bytes allocated and not yet freed.
pub static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Allocations so far.
pub fn allocations() -> usize {
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// Bytes asked for so far.
pub fn bytes() -> usize {
    BYTES.load(Ordering::Relaxed)
}

/// Bytes in use now.
pub fn live_bytes() -> usize {
    LIVE_BYTES.load(Ordering::Relaxed)
}

// SAFETY: defers to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(new_size, Ordering::Relaxed);
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
