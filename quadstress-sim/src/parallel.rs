//! The worker threads of a simulation, and the one place where the simulation shares a slice
//! between threads for writing.
//!
//! Every parallel loop of the simulation runs over a fixed partition (chunks of a fixed size,
//! or stripes of the world), never over one sized by the thread count, and each task writes
//! only what it owns; sums are taken in partition order. A step therefore gives the same bits
//! on any number of threads. On wasm32 there are no threads: the same tasks run one after the
//! other on the caller's thread.
//!
//! Tasks that write get their own parts of the data as plain `&mut` slices, cut with
//! `split_at_mut` ([`Parts`], [`Workers::for_each_part`]): the compiler, not a comment,
//! checks that no two tasks write the same element.

use super::config::Setting;
use super::SimError;

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

    /// Runs `serial(data)` on the caller's thread when the work is [`serial`](Self::serial),
    /// else `parallel(data)` inside the pool: the one place that chooses between the serial
    /// and the parallel form of a sort, a tree build, a batch move or a pair search. The two
    /// forms must give the same answer, bit for bit (the tree's serial and parallel searches
    /// do); the serial one saves the pool's hand-offs on one thread.
    pub(super) fn serial_or_parallel<D: Send, R: Send>(
        &self,
        data: D,
        serial: impl FnOnce(D) -> R,
        parallel: impl FnOnce(D) -> R + Send,
    ) -> R {
        if self.serial() {
            serial(data)
        } else {
            self.in_pool(move || parallel(data))
        }
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

    /// Runs `task(k, part)` on parts `0..parts` of `data`, cut where `data` says
    /// ([`Parts::split_at_part`]). The parts are handed out by halving the part range, so the
    /// depth of the calls is the logarithm of `parts`, whatever the data.
    pub(super) fn for_each_part<D: Parts>(
        &self,
        data: D,
        parts: usize,
        task: impl Fn(usize, D) + Sync + Send,
    ) {
        if parts == 0 {
            return;
        }
        if parts == 1 || self.serial() {
            let mut rest = data;
            for k in 0..parts - 1 {
                let (part, tail) = rest.split_at_part(k + 1);
                task(k, part);
                rest = tail;
            }
            task(parts - 1, rest);
            return;
        }
        let task = &task;
        self.run(|| halves(data, 0, parts, task));
    }
}

/// Parts `lo..hi` of `data` (whose first part is `lo`), the two halves side by side.
fn halves<D: Parts>(data: D, lo: usize, hi: usize, task: &(impl Fn(usize, D) + Sync)) {
    if hi - lo == 1 {
        task(lo, data);
        return;
    }
    let mid = lo + (hi - lo) / 2;
    let (left, right) = data.split_at_part(mid);
    rayon::join(
        || halves(left, lo, mid, task),
        || halves(right, mid, hi, task),
    );
}

/// Data that splits into numbered parts: `split_at_part(k)` cuts it where part `k` starts,
/// into parts before `k` and parts from `k`.
pub(super) trait Parts: Sized + Send {
    fn split_at_part(self, k: usize) -> (Self, Self);
}

/// A slice cut into parts at `bound(k)`, the index in the whole slice where part `k` starts
/// (never decreasing in `k`; clamped to the slice).
pub(super) struct Cut<'a, T, B> {
    data: &'a mut [T],
    /// Where `data` starts in the whole slice.
    offset: usize,
    bound: B,
}

impl<'a, T, B: Fn(usize) -> usize> Cut<'a, T, B> {
    pub(super) fn new(data: &'a mut [T], bound: B) -> Self {
        Cut {
            data,
            offset: 0,
            bound,
        }
    }

    /// The part: its elements, and where it starts in the whole slice.
    pub(super) fn get(self) -> (&'a mut [T], usize) {
        (self.data, self.offset)
    }
}

impl<T: Send, B: Fn(usize) -> usize + Copy + Send> Parts for Cut<'_, T, B> {
    fn split_at_part(self, k: usize) -> (Self, Self) {
        let end = self.offset + self.data.len();
        let at = (self.bound)(k).clamp(self.offset, end) - self.offset;
        let (left, right) = self.data.split_at_mut(at);
        (
            Cut {
                data: left,
                offset: self.offset,
                bound: self.bound,
            },
            Cut {
                data: right,
                offset: self.offset + at,
                bound: self.bound,
            },
        )
    }
}

impl<A: Parts, B: Parts> Parts for (A, B) {
    fn split_at_part(self, k: usize) -> (Self, Self) {
        let (a0, a1) = self.0.split_at_part(k);
        let (b0, b1) = self.1.split_at_part(k);
        ((a0, b0), (a1, b1))
    }
}

impl<A: Parts, B: Parts, C: Parts> Parts for (A, B, C) {
    fn split_at_part(self, k: usize) -> (Self, Self) {
        let (a0, a1) = self.0.split_at_part(k);
        let ((b0, c0), (b1, c1)) = (self.1, self.2).split_at_part(k);
        ((a0, b0, c0), (a1, b1, c1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Every part is handed out once, with the elements between its bounds, on any thread
    /// count.
    #[test]
    fn parts_are_cut_at_their_bounds() {
        for threads in [1, 2, 3, 8] {
            let workers = Workers::new(threads).unwrap();
            for parts in 0..20usize {
                let mut data: Vec<usize> = (0..100).collect();
                let mut other: Vec<usize> = (0..50).collect();
                let bound = move |k: usize| (k * k * 3).min(100);
                let half = move |k: usize| k * 5;
                let seen = Mutex::new(Vec::new());
                workers.for_each_part(
                    (Cut::new(&mut data, bound), Cut::new(&mut other, half)),
                    parts,
                    |k, (a, b)| {
                        let ((a, start), (b, b_start)) = (a.get(), b.get());
                        let want_end = if k + 1 == parts { 100 } else { bound(k + 1) };
                        assert_eq!(start, if k == 0 { 0 } else { bound(k) });
                        assert_eq!(start + a.len(), want_end);
                        assert!(a.iter().enumerate().all(|(i, &v)| v == start + i));
                        assert!(b.iter().enumerate().all(|(i, &v)| v == b_start + i));
                        seen.lock().unwrap().push(k);
                    },
                );
                let mut seen = seen.into_inner().unwrap();
                seen.sort_unstable();
                assert_eq!(seen, (0..parts).collect::<Vec<_>>());
            }
        }
    }
}
