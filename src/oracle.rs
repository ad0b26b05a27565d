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
    intersecting_pairs(
        items,
        |(_, r)| r,
        |i, j| {
            let (a, b) = (items[i].0, items[j].0);
            out.push((a.min(b), a.max(b)));
        },
    );
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
    intersecting_pairs(rects, |r| r, |i, j| f(i as u32, j as u32));
}

/// The one n² loop: `f(i, j)` for every `i < j` whose rectangles intersect, in order of `i`
/// then `j`.
fn intersecting_pairs<E>(items: &[E], rect: impl Fn(&E) -> &Rect, mut f: impl FnMut(usize, usize)) {
    for (i, a) in items.iter().enumerate() {
        for (j, b) in items.iter().enumerate().skip(i + 1) {
            if rect(a).intersects(rect(b)) {
                f(i, j);
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
