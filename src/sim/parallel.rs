//! The worker threads of a simulation, and the one place where the simulation shares a slice
//! between threads for writing.
//!
//! Every parallel loop of the simulation runs over a fixed partition (chunks of a fixed size,
//! or stripes of the world), never over one sized by the thread count, and each task writes
//! only what it owns; sums are taken in partition order. A step therefore gives the same bits
//! on any number of threads. On wasm32 there are no threads: the same tasks run one after the
//! other on the caller's thread.
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

/// A pool of worker threads, built on first use, or none for one thread.
#[derive(Debug)]
pub(super) struct Workers {
    threads: usize,
    #[cfg(not(target_arch = "wasm32"))]
    pool: std::sync::OnceLock<Option<rayon::ThreadPool>>,
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
            pool: std::sync::OnceLock::new(),
        })
    }

    pub(super) fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `f` inside the pool, where rayon's parallel iterators use its threads; or on
    /// this thread when there is one thread (or the pool could not be started: the results
    /// are the same, only slower).
    #[cfg(not(target_arch = "wasm32"))]
    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> Option<R> {
        if self.threads == 1 {
            return None;
        }
        let pool = self.pool.get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(self.threads)
                .thread_name(|i| format!("quadstress-sim-{i}"))
                .build()
                .ok()
        });
        pool.as_ref().map(|p| p.install(f))
    }

    /// Runs `task(k, chunk)` on the consecutive chunks of `chunk_len` items of `data` (the
    /// last may be shorter); `k` numbers the chunks.
    pub(super) fn for_each_chunk<T: Send>(
        &self,
        data: &mut [T],
        chunk_len: usize,
        task: impl Fn(usize, &mut [T]) + Sync + Send,
    ) {
        let chunk_len = chunk_len.max(1);
        #[cfg(not(target_arch = "wasm32"))]
        if data.len() > chunk_len {
            use rayon::prelude::*;
            let mut data = Some(&mut *data);
            let run = || {
                data.take()
                    .expect("runs once")
                    .par_chunks_mut(chunk_len)
                    .enumerate()
                    .for_each(|(k, c)| task(k, c))
            };
            if self.install(run).is_some() {
                return;
            }
            // No pool: fall through with the slice untouched.
            let data = data.expect("the pool did not run");
            data.chunks_mut(chunk_len)
                .enumerate()
                .for_each(|(k, c)| task(k, c));
            return;
        }
        data.chunks_mut(chunk_len)
            .enumerate()
            .for_each(|(k, c)| task(k, c));
    }
}
