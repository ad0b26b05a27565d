//! Brute-force answers to every query: the ground truth of the crate's tests.
//!
//! The crate's own tests check every [`Quadtree`](crate::Quadtree) query against these
//! functions on random data, and they are public so that a user can check their own use of
//! the tree the same way (as an oracle in a property test, or to cross-check a count in a
//! debug build). They are O(n) per query and O(n²) for pairs: slow by design, obviously right.
//!
//! Every function takes the items as `(key, rect)` pairs and answers with keys in ascending
//! order, so results compare with `==` after sorting the tree's answer. They use the same
//! closed-rectangle predicates as the tree ([`Rect::intersects`], [`Rect::contains_point`],
//! [`Rect::intersects_circle`], [`Rect::distance`]).
//!
//! ```
//! use quadstress::{oracle, Quadtree, Rect};
//! let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
//! let mut items = Vec::new();
//! for i in 0..200 {
//!     let (x, y) = ((i * 37 % 95) as f32, (i * 61 % 95) as f32);
//!     let r = Rect::from_min_size(x, y, 5.0, 5.0);
//!     items.push((tree.insert(r, ()).unwrap(), r));
//! }
//! let q = Rect::new(20.0, 20.0, 40.0, 30.0);
//! let mut got = Vec::new();
//! tree.query_in_rect(&q, &mut got).unwrap();
//! got.sort();
//! assert_eq!(got, oracle::query_in_rect(&items, &q));
//! ```

use crate::Rect;

/// Keys of the items whose rectangle intersects `query` (closed: touching counts), ascending.
pub fn query_in_rect<K: Copy + Ord>(items: &[(K, Rect)], query: &Rect) -> Vec<K> {
    sorted_keys(items, |r| r.intersects(query))
}

/// Keys of the items whose rectangle contains the point `(x, y)` (edges included), ascending.
pub fn query_at_point<K: Copy + Ord>(items: &[(K, Rect)], x: f32, y: f32) -> Vec<K> {
    sorted_keys(items, |r| r.contains_point(x, y))
}

/// Keys of the items whose rectangle meets the closed disc at `(x, y)` of radius `r`, ascending.
pub fn query_in_circle<K: Copy + Ord>(items: &[(K, Rect)], x: f32, y: f32, r: f32) -> Vec<K> {
    sorted_keys(items, |rect| rect.intersects_circle(x, y, r))
}

/// Keys of the items other than `key` whose rectangle intersects `key`'s, ascending; empty if
/// `key` is not among the items.
pub fn query_colliding_with<K: Copy + Ord>(items: &[(K, Rect)], key: K) -> Vec<K> {
    let Some(&(_, of)) = items.iter().find(|(k, _)| *k == key) else {
        return Vec::new();
    };
    let mut keys: Vec<K> = items
        .iter()
        .filter(|(k, r)| *k != key && r.intersects(&of))
        .map(|(k, _)| *k)
        .collect();
    keys.sort_unstable();
    keys
}

/// The distances from `(x, y)` to the `k` nearest rectangles (zero inside one), ascending.
/// Ties make the keys of the k nearest ambiguous, so compare distances, then check each
/// reported key's own distance.
pub fn nearest_distances<K>(items: &[(K, Rect)], x: f32, y: f32, k: usize) -> Vec<f32> {
    let mut all: Vec<f32> = items.iter().map(|(_, r)| r.distance(x, y)).collect();
    all.sort_by(f32::total_cmp);
    all.truncate(k);
    all
}

/// Every unordered pair of intersecting rectangles once, as `(smaller key, larger key)`, in
/// ascending order.
///
/// ```
/// use quadstress::{oracle, Rect};
/// let items = [
///     ('a', Rect::new(0.0, 0.0, 1.0, 1.0)),
///     ('b', Rect::new(1.0, 1.0, 2.0, 2.0)),
///     ('c', Rect::new(5.0, 5.0, 6.0, 6.0)),
/// ];
/// assert_eq!(oracle::query_pairs(&items), vec![('a', 'b')]);
/// ```
pub fn query_pairs<K: Copy + Ord>(items: &[(K, Rect)]) -> Vec<(K, K)> {
    let mut out = Vec::new();
    for (i, (a, ra)) in items.iter().enumerate() {
        for (b, rb) in &items[i + 1..] {
            if ra.intersects(rb) {
                out.push((*a.min(b), *a.max(b)));
            }
        }
    }
    out.sort_unstable();
    out
}

/// Calls `f(i, j)` with `i < j` for every intersecting pair of `rects`, by index: O(n²), no
/// allocation. The simulation's brute-force broad phase, and the baseline the benchmarks
/// compare the tree's pair search with.
///
/// ```
/// use quadstress::{oracle, Rect};
/// let rects = [Rect::new(0.0, 0.0, 1.0, 1.0), Rect::new(1.0, 1.0, 2.0, 2.0), Rect::new(5.0, 5.0, 6.0, 6.0)];
/// let mut found = Vec::new();
/// oracle::brute_force_pairs(&rects, |a, b| found.push((a, b)));
/// assert_eq!(found, vec![(0, 1)]);
/// ```
pub fn brute_force_pairs(rects: &[Rect], mut f: impl FnMut(u32, u32)) {
    for (i, a) in rects.iter().enumerate() {
        for (j, b) in rects.iter().enumerate().skip(i + 1) {
            if a.intersects(b) {
                f(i as u32, j as u32);
            }
        }
    }
}

fn sorted_keys<K: Copy + Ord>(items: &[(K, Rect)], keep: impl Fn(&Rect) -> bool) -> Vec<K> {
    let mut keys: Vec<K> = items
        .iter()
        .filter(|(_, r)| keep(r))
        .map(|(k, _)| *k)
        .collect();
    keys.sort_unstable();
    keys
}

/// A small seeded pseudo-random generator (xorshift64*) for tests and benchmarks: the same
/// seed gives the same sequence on every platform, and it needs no dependency. Not for
/// anything that needs unpredictability.
///
/// Test support for this crate's own tests, benches and fuzz targets, hidden from the docs:
/// not part of the API's promise, it may change or go in any release.
///
/// ```
/// use quadstress::oracle::TestRng;
/// let (mut a, mut b) = (TestRng::new(1), TestRng::new(1));
/// assert_eq!(a.next_u64(), b.next_u64());
/// let x = a.range(-5.0, 5.0);
/// assert!((-5.0..=5.0).contains(&x));
/// // Coarse grids make exact touches along edges common.
/// let g = a.grid(10.0, 4);
/// assert!([0.0, 2.5, 5.0, 7.5].contains(&g));
/// ```
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct TestRng(u64);

impl TestRng {
    /// A generator started at `seed` (any value; zero is remapped).
    pub fn new(seed: u64) -> Self {
        TestRng(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A value in `[0, 1)` with 24 random bits.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32
    }

    /// A value between `lo` and `hi`: `lo + (hi - lo) * unit()`, so `hi` itself only through
    /// rounding.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// One of `steps` evenly spaced values in `[0, range)`.
    pub fn grid(&mut self, range: f32, steps: u64) -> f32 {
        self.below(steps) as f32 / steps as f32 * range
    }
}
