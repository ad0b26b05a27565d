//! The worker threads of a simulation, and the one place where the simulation shares a slice
//! between threads for writing.
//!
//! Every parallel loop of the simulation runs over a fixed partition (chunks of a fixed size,
//! or stripes of the world), never over one sized by the thread count, and each task writes
//! only what it owns; sums are taken in partition order. A step therefore gives the same bits
//! on any number of threads. On wasm32 there are no threads: the same tasks run one after the
//! other on the caller's thread.
// The stripe solver writes particles from several threads: `SharedSlice` below.
#![allow(unsafe_code)]

use super::config::Setting;
use super::SimError;
use std::marker::PhantomData;

/// The most worker threads a simulation accepts.
pub const MAX_THREADS: usize = 256;

/// The thread count a new simulation uses: every core the system reports (1 on wasm32).
pub fn default_threads() -> usize {
    if cfg!(target_arch = "wasm32") {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))
    }
}

/// A pool of worker threads, built on first use, or none for one thread. A clone shares the
/// pool.
#[derive(Clone, Debug)]
pub(super) struct Workers {
    threads: usize,
    #[cfg(not(target_arch = "wasm32"))]
    pool: std::sync::Arc<std::sync::OnceLock<Option<rayon::ThreadPool>>>,
}

impl Workers {
    pub(super) fn new(threads: usize) -> Result<Self, SimError> {
        if !(1..=MAX_THREADS).contains(&threads) {
            return Err(SimError::BadSetting {
                setting: Setting::Threads,
                requirement: "must be between 1 and 256",
            });
        }
        Ok(Workers {
            threads,
            #[cfg(not(target_arch = "wasm32"))]
            pool: std::sync::Arc::new(std::sync::OnceLock::new()),
        })
    }

    pub(super) fn threads(&self) -> usize {
        self.threads
    }

    /// Whether the work runs on the caller's thread alone (one thread, or wasm32): the
    /// simulation then calls the tree's serial searches, which give the same answers.
    pub(super) fn serial(&self) -> bool {
        self.threads == 1 || cfg!(target_arch = "wasm32")
    }

    /// Runs `f` inside the pool, where rayon's parallel iterators (and the tree's parallel
    /// searches) use its threads; on the caller's thread when [`serial`](Self::serial) (or
    /// where the system refused to start the pool: the results are the same, bit for bit).
    pub(super) fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        if self.serial() {
            return f();
        }
        self.in_pool(f)
    }

    /// Runs `f` inside the pool, built on first use (so that nothing spills onto rayon's
    /// global pool). Each call passes one job through rayon's queue.
    fn in_pool<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let pool = self.pool.get_or_init(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(self.threads)
                    .thread_name(|i| format!("quadstress-sim-{i}"))
                    .build()
                    .ok()
            });
            if let Some(pool) = pool {
                return pool.install(f);
            }
        }
        f()
    }

    /// Runs `task(i)` for every `i` in `0..n`; the tasks must not depend on each other.
    pub(super) fn for_each(&self, n: usize, task: impl Fn(usize) + Sync + Send) {
        use rayon::prelude::*;
        if n == 1 || self.serial() {
            (0..n).for_each(task);
            return;
        }
        self.run(|| (0..n).into_par_iter().for_each(&task));
    }

    /// Runs `task(k, chunk)` on the consecutive chunks of `chunk_len` items of `data` (the
    /// last may be shorter); `k` numbers the chunks.
    pub(super) fn for_each_chunk<T: Send>(
        &self,
        data: &mut [T],
        chunk_len: usize,
        task: impl Fn(usize, &mut [T]) + Sync + Send,
    ) {
        use rayon::prelude::*;
        let chunk_len = chunk_len.max(1);
        if data.len() <= chunk_len || self.serial() {
            data.chunks_mut(chunk_len)
                .enumerate()
                .for_each(|(k, c)| task(k, c));
            return;
        }
        self.run(|| {
            data.par_chunks_mut(chunk_len)
                .enumerate()
                .for_each(|(k, c)| task(k, c))
        });
    }
}

/// A slice that tasks running at the same time write through, each at indices no other task
/// touches during that parallel loop. The simulation's stripe solver guarantees this: a
/// contact belongs to the stripe of its left particle, and its other particle lies in the same
/// stripe or the next, so the even stripes (then the odd ones) write disjoint particles.
pub(super) struct SharedSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a `SharedSlice` is a `&mut [T]` whose users promise disjoint indices (see `get`);
// sending it, or sharing it, between threads is then as safe as sending disjoint `&mut T`.
unsafe impl<T: Send> Send for SharedSlice<'_, T> {}
unsafe impl<T: Send> Sync for SharedSlice<'_, T> {}

impl<'a, T> SharedSlice<'a, T> {
    pub(super) fn new(slice: &'a mut [T]) -> Self {
        SharedSlice {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }

    /// The element at `i`.
    ///
    /// # Safety
    /// While the returned reference lives, no other task may read or write index `i`.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub(super) unsafe fn get(&self, i: usize) -> &mut T {
        assert!(i < self.len, "index {i} out of {}", self.len);
        // SAFETY: in bounds (checked above); exclusive by the caller's promise.
        unsafe { &mut *self.ptr.add(i) }
    }

    /// The element at `i`, unchecked: for the solver's passes over the contacts, whose
    /// indices were checked once when the contacts were sorted.
    ///
    /// # Safety
    /// `i` is in bounds, and while the returned reference lives, no other task may read or
    /// write index `i`.
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    pub(super) unsafe fn get_unchecked(&self, i: usize) -> &mut T {
        debug_assert!(i < self.len, "index {i} out of {}", self.len);
        // SAFETY: in bounds and exclusive by the caller's promise.
        unsafe { &mut *self.ptr.add(i) }
    }

    /// The elements in `range`.
    ///
    /// # Safety
    /// While the returned slice lives, no other task may read or write an index in `range`.
    #[allow(clippy::mut_from_ref)]
    pub(super) unsafe fn range(&self, range: std::ops::Range<usize>) -> &mut [T] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "range {range:?} out of {}",
            self.len
        );
        // SAFETY: in bounds (checked above); exclusive by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }
}
