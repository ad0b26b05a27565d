//! The pair search on every core (feature `rayon`), with the same answer on any thread count.
//!
//! Each pair is reported by exactly one node (see `pairs`), so the node array is cut into
//! chunks of consecutive indices and each chunk searches on its own, into its own buffer.
//! The cuts depend on the tree alone (its nodes and their item counts), never on the thread
//! count, and the buffers are read in chunk order: the pairs come out exactly as the serial
//! [`Quadtree::for_each_pair`] reports them, whatever pool runs the search.

use std::convert::Infallible;
use std::ops::{ControlFlow, Range};

use rayon::prelude::*;

use super::{ItemRef, Quadtree};

/// The most chunks a search is cut into: enough for rayon to balance uneven chunks over a few
/// dozen threads, few enough that each chunk is worth a task.
const MAX_CHUNKS: usize = 64;

/// Items per chunk below which a tree is cut into fewer chunks: a task must outweigh its cost.
const MIN_CHUNK_ITEMS: usize = 1024;

/// One chunk of the search: its node range, its pairs and its rectangle-test count.
#[derive(Debug, Clone)]
struct Chunk<P> {
    nodes: Range<usize>,
    pairs: Vec<P>,
    tests: u64,
}

/// The reusable buffers of [`Quadtree::par_pairs`]: one buffer of results per chunk. Keep one,
/// [`clear`](Self::clear) it and pass it to every search: once the buffers have grown to the
/// largest answer, a search allocates nothing. A search appends its results, as every query's
/// `out` does.
///
/// The results read in chunk order ([`iter`](Self::iter), [`chunks`](Self::chunks)), which
/// is the order of [`Quadtree::for_each_pair`].
///
/// ```
/// use quadstress::{PairWorkspace, Quadtree, Rect};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 10.0, 10.0)).unwrap();
/// tree.insert(Rect::new(0.0, 0.0, 2.0, 2.0), 1u32).unwrap();
/// tree.insert(Rect::new(1.0, 1.0, 3.0, 3.0), 2u32).unwrap();
/// let mut pairs = PairWorkspace::new();
/// assert_eq!(tree.par_pairs(&mut pairs, |a, b| Some((*a.value, *b.value))), 1);
/// assert_eq!(pairs.iter().copied().collect::<Vec<_>>(), vec![(1, 2)]);
/// ```
#[derive(Debug, Clone)]
pub struct PairWorkspace<P> {
    chunks: Vec<Chunk<P>>,
    /// Chunks holding results, of every search since the last `clear` (the rest keep their
    /// buffers for later).
    used: usize,
}

impl<P> Default for PairWorkspace<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> PairWorkspace<P> {
    /// An empty workspace; its buffers grow on first use.
    pub fn new() -> Self {
        PairWorkspace {
            chunks: Vec::new(),
            used: 0,
        }
    }

    /// Results held: those of every search since the last [`clear`](Self::clear).
    pub fn len(&self) -> usize {
        self.chunks().map(<[P]>::len).sum()
    }

    /// Whether the workspace holds no results.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The results held, in order: search by search, each in the order of
    /// [`Quadtree::for_each_pair`].
    pub fn iter(&self) -> impl Iterator<Item = &P> + '_ {
        self.chunks().flatten()
    }

    /// The results held as consecutive slices, in order (one per chunk; a
    /// consumer can hand them to threads without copying them into one list).
    pub fn chunks(&self) -> impl Iterator<Item = &[P]> + '_ {
        self.chunks[..self.used].iter().map(|c| c.pairs.as_slice())
    }

    /// Rectangle pairs the searches since the last [`clear`](Self::clear) tested, as
    /// [`for_each_pair_counting`](Quadtree::for_each_pair_counting) counts them.
    pub fn tests(&self) -> u64 {
        self.chunks[..self.used].iter().map(|c| c.tests).sum()
    }

    /// Drops the results (keeping the buffers).
    pub fn clear(&mut self) {
        for c in &mut self.chunks[..self.used] {
            c.pairs.clear();
            c.tests = 0;
        }
        self.used = 0;
    }
}

impl<T: Sync> Quadtree<T> {
    /// Finds every intersecting pair, as [`for_each_pair`](Self::for_each_pair) does, on the
    /// current rayon pool (run it inside `pool.install` to choose the threads), and keeps
    /// `f(a, b)` for each pair where it returns `Some`. Returns how many results were kept;
    /// they are appended to `out` (as every query's `out`: [`PairWorkspace::clear`] it to
    /// reuse it) and read in the order `for_each_pair` reports the pairs, on every thread
    /// count.
    ///
    /// # Runtime
    /// The work of `for_each_pair`, cut into at most 64 chunks of consecutive nodes with
    /// about the same number of items each (fewer for small trees: at least 1,024 items a
    /// chunk), plus one pass over the nodes to place the cuts. Allocates only when a chunk's
    /// buffer must grow.
    ///
    /// ```
    /// use quadstress::{PairWorkspace, Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// for i in 0..5_000u32 {
    ///     let (x, y) = ((i % 71) as f32 * 1.4, (i / 71) as f32 * 1.4);
    ///     tree.insert(Rect::from_min_size(x, y, 1.5, 1.5), i).unwrap();
    /// }
    /// let mut serial = Vec::new();
    /// tree.for_each_pair(|a, b| serial.push((*a.value, *b.value)));
    /// let mut pairs = PairWorkspace::new();
    /// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// pool.install(|| tree.par_pairs(&mut pairs, |a, b| Some((*a.value, *b.value))));
    /// assert!(pairs.iter().copied().eq(serial.iter().copied()));
    ///
    /// // A second search appends: clear the workspace to start over.
    /// pool.install(|| tree.par_pairs(&mut pairs, |a, b| Some((*a.value, *b.value))));
    /// assert_eq!(pairs.len(), 2 * serial.len());
    /// pairs.clear();
    /// assert!(pairs.is_empty());
    /// ```
    pub fn par_pairs<'a, P, F>(&'a self, out: &mut PairWorkspace<P>, f: F) -> usize
    where
        P: Send,
        F: Fn(ItemRef<'a, T>, ItemRef<'a, T>) -> Option<P> + Sync,
    {
        let (first, before) = (out.used, out.len());
        self.cut_into_chunks(out);
        out.chunks[first..out.used]
            .par_iter_mut()
            .for_each(|chunk| {
                // The buffer and the count live on this task's stack while it searches: the
                // chunks sit side by side, and a neighbour's task writing its own length and count
                // on the same cache line would slow both.
                let mut pairs = std::mem::take(&mut chunk.pairs);
                let mut tests = 0;
                let _ = self.pairs_in_nodes(
                    chunk.nodes.clone(),
                    &mut |a, b| {
                        if let Some(p) = f(a, b) {
                            pairs.push(p);
                        }
                        ControlFlow::<Infallible>::Continue(())
                    },
                    &mut tests,
                );
                chunk.pairs = pairs;
                chunk.tests = tests;
            });
        out.len() - before
    }

    /// Cuts the node array into ranges of about the same number of items each, in the
    /// workspace's chunks after those it holds already: the count and the cuts follow from the
    /// tree only.
    fn cut_into_chunks<P>(&self, out: &mut PairWorkspace<P>) {
        let count = (self.len / MIN_CHUNK_ITEMS).clamp(1, MAX_CHUNKS);
        let first = out.used;
        if out.chunks.len() < first + count {
            out.chunks.resize_with(first + count, || Chunk {
                nodes: 0..0,
                pairs: Vec::new(),
                tests: 0,
            });
        }
        // Each node counts its items plus one, so that empty nodes still spread out.
        let total = self.len + self.nodes.len();
        let mut chunk = 0;
        let mut start = 0;
        let mut seen = 0;
        for (n, node) in self.nodes.iter().enumerate() {
            seen += node.items.len() + 1;
            // Cut after node `n` once this chunk holds its share of the total.
            if chunk + 1 < count && seen * count >= total * (chunk + 1) {
                out.chunks[first + chunk].nodes = start..n + 1;
                start = n + 1;
                chunk += 1;
            }
        }
        out.chunks[first + chunk].nodes = start..self.nodes.len();
        out.used = first + chunk + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{oracle, Config, Placement, Rect};

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// The same pairs in the same order as the serial search on 1, 2, 3 and 8 threads, the
    /// same set as brute force, for exact and loose trees, spread and crowded.
    #[test]
    fn same_pairs_in_same_order_on_any_thread_count() {
        for placement in [Placement::Exact, Placement::Loose] {
            for (n, side, seed) in [(8_000, 1.0f32, 1u64), (3_000, 4.0, 2), (300, 9.0, 3)] {
                let world = Rect::new(0.0, 0.0, 400.0, 400.0);
                let config = Config {
                    placement,
                    ..Config::default()
                };
                let mut tree = Quadtree::with_config(world, config).unwrap();
                let mut rng = quadstress_testkit::TestRng::new(seed);
                let mut keyed = Vec::new();
                for i in 0..n as u32 {
                    let (x, y) = (rng.range(0.0, 400.0), rng.range(0.0, 400.0));
                    let r = Rect::from_min_size(x, y, rng.range(0.1, side), side);
                    tree.insert(r, i).unwrap();
                    keyed.push((i, r));
                }
                let mut serial = Vec::new();
                let ((), serial_counts) =
                    tree.for_each_pair_counting(|a, b| serial.push((*a.value, *b.value)));
                let mut expected: Vec<_> =
                    serial.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
                expected.sort_unstable();
                assert_eq!(expected, oracle::query_pairs(&keyed), "{placement:?} {n}");
                let mut ws = PairWorkspace::new();
                for threads in [1, 2, 3, 8] {
                    ws.clear();
                    let found = pool(threads)
                        .install(|| tree.par_pairs(&mut ws, |a, b| Some((*a.value, *b.value))));
                    assert_eq!(found, serial.len());
                    assert!(
                        ws.iter().copied().eq(serial.iter().copied()),
                        "{threads} threads"
                    );
                    assert_eq!(ws.tests(), serial_counts.tests);
                }
            }
        }
    }
}
