//! Region queries (rectangle, point, circle, colliding-with) and nearest neighbours, built on
//! the walks of `traverse`. No query allocates, apart from what a caller's `out` grows by.

use std::cmp::Ordering;
use std::ops::ControlFlow;

use super::geom::{f32_at_or_above, f32_at_or_below};
use super::items::Lanes;
use super::simd::Avx;
use super::{
    traverse::NodeStack, CellRange, ItemId, ItemList, ItemRef, NodeInfo, Quadtree, QuadtreeError,
    Rect,
};

/// The work a rectangle query did, from
/// [`for_each_in_rect_counting`](Quadtree::for_each_in_rect_counting).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryCounts {
    /// Nodes the walk entered, the root included.
    pub nodes_visited: usize,
    /// Items tested against the query: every item stored in a visited node.
    pub items_tested: usize,
}

fn check_point(x: f32, y: f32) -> Result<(), QuadtreeError> {
    if x.is_finite() && y.is_finite() {
        Ok(())
    } else {
        Err(QuadtreeError::NonFinite)
    }
}

impl<T> Quadtree<T> {
    /// Calls `f` for every item whose rectangle intersects `query` (closed: touching counts),
    /// until `f` returns `Break`. Allocates nothing.
    ///
    /// The [`ItemRef`] lends the payload for as long as the tree is borrowed, so `f` can keep
    /// it (`Vec<&T>`). `f` stops the walk by returning `Break(value)`, and the value comes
    /// back as `Ok(Break(value))`; a walk that ran to the end returns `Ok(Continue(()))`.
    /// When `f` never breaks, name the break type: `ControlFlow::<()>::Continue(())`. The
    /// same query as an iterator is [`iter_rect`](Self::iter_rect), with payloads mutable
    /// [`for_each_in_rect_mut`](Self::for_each_in_rect_mut).
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] or [`QuadtreeError::Inverted`] for a bad `query`.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// for i in 0..10 {
    ///     tree.insert(Rect::from_min_size(i as f32 * 10.0, 0.0, 5.0, 5.0), i).unwrap();
    /// }
    /// // Keep what the walk finds: the references live as long as the borrow of `tree`.
    /// let mut found: Vec<&i32> = Vec::new();
    /// tree.for_each_in_rect(&Rect::new(0.0, 0.0, 30.0, 5.0), |item| {
    ///     found.push(item.value);
    ///     ControlFlow::<()>::Continue(())
    /// }).unwrap();
    /// found.sort();
    /// assert_eq!(found, [&0, &1, &2, &3]); // the box at x = 30 touches the query's edge
    ///
    /// // Stop at the first payload above 6 and bring it back.
    /// let first_big = tree.for_each_in_rect(&Rect::new(0.0, 0.0, 100.0, 100.0), |item| {
    ///     if *item.value > 6 { ControlFlow::Break(item.value) } else { ControlFlow::Continue(()) }
    /// });
    /// assert!(matches!(first_big, Ok(ControlFlow::Break(&v)) if v > 6));
    /// ```
    pub fn for_each_in_rect<'a, B, F>(
        &'a self,
        query: &Rect,
        f: F,
    ) -> Result<ControlFlow<B>, QuadtreeError>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        query.check()?;
        Ok(self.walk_rect_hits(query, f))
    }

    /// As [`for_each_in_rect`](Self::for_each_in_rect), and also shows the work done: `visit`
    /// sees every node the walk entered, and the returned [`QueryCounts`] say how many nodes
    /// that was and how many items were tested against `query`. Compare them with
    /// [`stats`](Self::stats)' `nodes` and [`len`](Self::len) to see what the tree saved over
    /// a scan of every item; a visualiser can shade the visited nodes. Allocates nothing.
    ///
    /// # Errors
    /// As [`for_each_in_rect`](Self::for_each_in_rect).
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use quadstress::{Config, Quadtree, Rect};
    /// let config = Config { leaf_capacity: 4, ..Config::default() };
    /// let mut tree = Quadtree::with_config(Rect::new(0.0, 0.0, 1000.0, 1000.0), config).unwrap();
    /// for i in 0..1000 {
    ///     let (x, y) = ((i % 40) as f32 * 25.0, (i / 40) as f32 * 40.0);
    ///     tree.insert(Rect::from_min_size(x, y, 2.0, 2.0), i).unwrap();
    /// }
    /// let mut hits = 0;
    /// let mut visited = Vec::new();
    /// let (_, counts) = tree
    ///     .for_each_in_rect_counting(
    ///         &Rect::new(10.0, 10.0, 60.0, 60.0),
    ///         |node| visited.push(node.rect),
    ///         |_| {
    ///             hits += 1;
    ///             ControlFlow::<()>::Continue(())
    ///         },
    ///     )
    ///     .unwrap();
    /// assert_eq!(hits, 2); // (25, 40) and (50, 40)
    /// assert_eq!(counts.nodes_visited, visited.len());
    /// assert!(counts.nodes_visited < tree.stats().nodes / 10);
    /// assert!(counts.items_tested >= hits && counts.items_tested < 1000 / 10);
    /// ```
    pub fn for_each_in_rect_counting<'a, B, V, F>(
        &'a self,
        query: &Rect,
        mut visit: V,
        mut f: F,
    ) -> Result<(ControlFlow<B>, QueryCounts), QuadtreeError>
    where
        V: FnMut(&NodeInfo),
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        query.check()?;
        let range = self.cell_range(query);
        let mut counts = QueryCounts::default();
        // The walk of `walk_rect_hits`, spelled out to see each node's index and list.
        let mut stack = NodeStack::new(0);
        let mut batch = None;
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            counts.nodes_visited += 1;
            counts.items_tested += node.items.len();
            visit(&self.node_info(n, node));
            if let ControlFlow::Break(b) =
                node.items.for_each_hit_windowed(query, &mut batch, &mut f)
            {
                return Ok((ControlFlow::Break(b), counts));
            }
            self.push_children(&mut stack, node, range);
        }
        Ok((ControlFlow::Continue(()), counts))
    }

    /// Appends to `out` the handle of every item intersecting `query` (closed) and returns how
    /// many were appended. Reuse `out` across calls to avoid allocating.
    ///
    /// # Errors
    /// As [`for_each_in_rect`](Self::for_each_in_rect).
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let a = tree.insert(Rect::new(10.0, 10.0, 20.0, 20.0), ()).unwrap();
    /// tree.insert(Rect::new(50.0, 50.0, 60.0, 60.0), ()).unwrap();
    /// let mut out = Vec::new();
    /// assert_eq!(tree.query_rect(&Rect::new(0.0, 0.0, 10.0, 10.0), &mut out).unwrap(), 1);
    /// assert_eq!(out, vec![a]);
    /// ```
    pub fn query_rect(&self, query: &Rect, out: &mut Vec<ItemId>) -> Result<usize, QuadtreeError> {
        query.check()?;
        let before = out.len();
        // Not through `for_each_in_rect`: appending handles needs no per-hit callback, so the
        // hits go straight from the block test into `out`. With AVX, a list with blocks to test
        // is scanned by one call into an AVX-compiled scan that inlines the test; a list whose
        // bands the query misses costs one band test, and the walk between the scans stays
        // small (compiling the whole walk for AVX made it spill more than the calls cost).
        let range = self.cell_range(query);
        let mut batch = None;
        if let Some(avx) = Avx::detect() {
            self.gather_in_range(range, out, |items, out| {
                if !items.misses(query) {
                    items.gather_hits_avx(query, out, &mut batch, avx);
                }
            });
        } else {
            self.gather_in_range(range, out, |items, out| {
                items.gather_hits(query, out, &mut batch, Lanes::hits)
            });
        }
        Ok(out.len() - before)
    }

    /// The walk of [`query_rect`](Self::query_rect), `scan` appending each node's hits.
    #[inline(always)]
    fn gather_in_range<S>(&self, range: CellRange, out: &mut Vec<ItemId>, mut scan: S)
    where
        S: FnMut(&ItemList<T>, &mut Vec<ItemId>),
    {
        if self.table_walk_fits(range) {
            let _ = self.walk_table(range, |node| {
                scan(&node.items, out);
                ControlFlow::<()>::Continue(())
            });
        } else {
            let _ = self.walk_nodes(0, range, |node| {
                scan(&node.items, out);
                ControlFlow::<()>::Continue(())
            });
        }
    }

    /// Calls `f` for every item whose rectangle contains the point (edges included), until `f`
    /// returns `Break`. Allocates nothing.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] for a NaN or infinite coordinate.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), "a").unwrap();
    /// tree.insert(Rect::new(5.0, 5.0, 15.0, 15.0), "b").unwrap();
    /// let mut n = 0;
    /// tree.for_each_at_point(10.0, 10.0, |_| { n += 1; ControlFlow::<()>::Continue(()) }).unwrap();
    /// assert_eq!(n, 2);
    /// ```
    pub fn for_each_at_point<'a, B, F>(
        &'a self,
        x: f32,
        y: f32,
        f: F,
    ) -> Result<ControlFlow<B>, QuadtreeError>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        check_point(x, y)?;
        // A closed rectangle contains a point exactly when it intersects the point's
        // zero-size rectangle, so the block test serves.
        Ok(self.walk_rect_hits(&Rect::new(x, y, x, y), f))
    }

    /// Appends to `out` every item whose rectangle contains the point; returns how many.
    ///
    /// # Errors
    /// As [`for_each_at_point`](Self::for_each_at_point).
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let a = tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), ()).unwrap();
    /// let mut out = Vec::new();
    /// tree.query_point(3.0, 4.0, &mut out).unwrap();
    /// assert_eq!(out, vec![a]);
    /// ```
    pub fn query_point(
        &self,
        x: f32,
        y: f32,
        out: &mut Vec<ItemId>,
    ) -> Result<usize, QuadtreeError> {
        let before = out.len();
        let _ = self.for_each_at_point(x, y, |item| {
            out.push(item.id);
            ControlFlow::<()>::Continue(())
        })?;
        Ok(out.len() - before)
    }

    /// Calls `f` for every item whose rectangle meets the closed disc of centre `(x, y)` and
    /// radius `r`, until `f` returns `Break`. Allocates nothing.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] for a non-finite centre or radius,
    /// [`QuadtreeError::NegativeRadius`] for `r < 0`.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// tree.insert(Rect::new(10.0, 0.0, 11.0, 1.0), ()).unwrap();
    /// tree.insert(Rect::new(8.0, 8.0, 9.0, 9.0), ()).unwrap(); // corner at distance sqrt(128) > 10
    /// let mut n = 0;
    /// tree.for_each_in_circle(0.0, 0.0, 10.0, |_| { n += 1; ControlFlow::<()>::Continue(()) }).unwrap();
    /// assert_eq!(n, 1);
    /// ```
    pub fn for_each_in_circle<'a, B, F>(
        &'a self,
        x: f32,
        y: f32,
        r: f32,
        mut f: F,
    ) -> Result<ControlFlow<B>, QuadtreeError>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        check_point(x, y)?;
        if !r.is_finite() {
            return Err(QuadtreeError::NonFinite);
        }
        if r < 0.0 {
            return Err(QuadtreeError::NegativeRadius);
        }
        // The disc's bounding box filters with the block test first. It is computed in `f64`
        // and rounded outwards, so it covers every item the test below accepts; edges beyond
        // `f32`'s range stop at `±f32::MAX`, past which no stored item reaches. That test
        // rounds each `f64` difference once, which can bring an item a hair (2^-53 of the
        // radius) inside: the box reaches 2^-50 of the radius further to keep such items.
        let (xd, yd) = (x as f64, y as f64);
        let reach = r as f64 * (1.0 + f64::EPSILON * 8.0);
        let bounds = Rect::new(
            f32_at_or_below(xd - reach),
            f32_at_or_below(yd - reach),
            f32_at_or_above(xd + reach),
            f32_at_or_above(yd + reach),
        );
        Ok(self.walk_rect_hits(&bounds, |item| {
            if item.rect.intersects_circle(x, y, r) {
                f(item)
            } else {
                ControlFlow::Continue(())
            }
        }))
    }

    /// Appends to `out` every item meeting the disc; returns how many.
    ///
    /// # Errors
    /// As [`for_each_in_circle`](Self::for_each_in_circle).
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let near = tree.insert(Rect::new(3.0, 4.0, 3.0, 4.0), ()).unwrap(); // a point at distance 5
    /// tree.insert(Rect::new(30.0, 40.0, 31.0, 41.0), ()).unwrap();
    /// let mut out = Vec::new();
    /// tree.query_circle(0.0, 0.0, 5.0, &mut out).unwrap();
    /// assert_eq!(out, vec![near]);
    /// ```
    pub fn query_circle(
        &self,
        x: f32,
        y: f32,
        r: f32,
        out: &mut Vec<ItemId>,
    ) -> Result<usize, QuadtreeError> {
        let before = out.len();
        let _ = self.for_each_in_circle(x, y, r, |item| {
            out.push(item.id);
            ControlFlow::<()>::Continue(())
        })?;
        Ok(out.len() - before)
    }

    /// Calls `f` for every *other* item whose rectangle intersects the rectangle of item `id`:
    /// everything colliding with it. Allocates nothing.
    ///
    /// # Errors
    /// [`QuadtreeError::StaleId`] if `id` is stale.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let player = tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), "player").unwrap();
    /// tree.insert(Rect::new(5.0, 5.0, 6.0, 6.0), "coin").unwrap();
    /// tree.insert(Rect::new(9.0, 9.0, 12.0, 12.0), "wall").unwrap();
    /// tree.insert(Rect::new(50.0, 50.0, 60.0, 60.0), "far").unwrap();
    /// let mut hits = Vec::new();
    /// tree.for_each_colliding_with(player, |item| { hits.push(*item.value); ControlFlow::<()>::Continue(()) }).unwrap();
    /// hits.sort();
    /// assert_eq!(hits, vec!["coin", "wall"]);
    /// ```
    pub fn for_each_colliding_with<'a, B, F>(
        &'a self,
        id: ItemId,
        mut f: F,
    ) -> Result<ControlFlow<B>, QuadtreeError>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        let rect = self.rect(id).ok_or(QuadtreeError::StaleId)?;
        Ok(self.walk_rect_hits(&rect, |e| {
            if e.id == id {
                ControlFlow::Continue(())
            } else {
                f(e)
            }
        }))
    }

    /// The `k` items nearest to the point, nearest first, as `(handle, distance)` pairs in
    /// `out` (appended, like every query's `out`). The distance is from the point to the
    /// nearest point of the item's rectangle, 0 inside it, as [`Rect::distance`] gives it:
    /// computed in `f64` and rounded once to `f32`, so it is exact as far as `f32` allows in
    /// any world. Ties (equal `f32` distances) are broken arbitrarily. Allocates nothing once
    /// `out` holds `k` entries' worth of capacity.
    ///
    /// # Runtime
    /// Depth-first, nearest child first, skipping any node farther than the current k-th
    /// candidate: about O(D + k) node visits on evenly spread data.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] for a non-finite point.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// for i in 0..10 {
    ///     tree.insert(Rect::from_min_size(i as f32 * 10.0, 0.0, 1.0, 1.0), i).unwrap();
    /// }
    /// let mut out = Vec::new();
    /// tree.nearest(42.0, 0.0, 3, &mut out).unwrap();
    /// let found: Vec<i32> = out.iter().map(|(id, _)| *tree.get(*id).unwrap()).collect();
    /// assert_eq!(found, vec![4, 5, 3]); // distances 1, 8, 11
    /// assert_eq!(out[0].1, 1.0);
    ///
    /// // Like every query, `nearest` appends: clear `out` to reuse it.
    /// tree.nearest(0.0, 0.0, 1, &mut out).unwrap();
    /// assert_eq!(out.len(), 4);
    /// assert_eq!(out[3].1, 0.0);
    /// ```
    pub fn nearest(
        &self,
        x: f32,
        y: f32,
        k: usize,
        out: &mut Vec<(ItemId, f32)>,
    ) -> Result<usize, QuadtreeError> {
        check_point(x, y)?;
        if k == 0 || self.len == 0 {
            return Ok(0);
        }
        // Node cells in f32 can be a rounding step off the cells items were mapped into;
        // widening each cell by `slack` keeps the distance bound a true lower bound.
        let w = &self.world;
        let magnitude = w
            .min_x
            .abs()
            .max(w.max_x.abs())
            .max(w.min_y.abs())
            .max(w.max_y.abs()) as f64;
        let slack = (magnitude + w.width().max(w.height()) as f64) * 1e-5;
        // The best candidates so far, a max-heap on distance kept in `out`'s tail: O(log k)
        // per candidate whatever k is, and no allocation beyond `out`'s growth. Distances are
        // computed in f64 and kept as the f32 that `nearest` reports; rounding is monotone,
        // so the order is the exact order up to ties between equal f32 distances.
        let mut best = KBest::new(out, k.min(self.len));
        let mut stack = NodeStack::new(0);
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            if best.is_full() && self.node_distance(n, x, y, slack) > best.worst() {
                continue;
            }
            node.items.for_each_distance(x, y, |d2, e| {
                // Most candidates lose to the k-th best: a comparison of squares sorts them
                // out before any square root.
                if d2 <= best.bar {
                    best.offer(Candidate(d2.sqrt() as f32, e.id.handle(self.tree)));
                }
            });
            if node.is_leaf() {
                continue;
            }
            // Push the farthest child first so the nearest is searched first.
            let mut order = [(0u32, 0f32); 4];
            for (q, slot) in order.iter_mut().enumerate() {
                let c = node.first_child + q as u32;
                *slot = (c, self.node_distance(c, x, y, slack));
            }
            order.sort_unstable_by(|a, b| b.1.total_cmp(&a.1));
            for (c, d) in order {
                if self.nodes[c as usize].subtree_len > 0 && (!best.is_full() || d <= best.worst())
                {
                    stack.push(c);
                }
            }
        }
        Ok(best.finish())
    }

    /// Distance from the point to node `n`'s cell widened by `slack`, computed in f64 and
    /// rounded to f32 like item distances (never above the distance of an item the node holds);
    /// 0 for the root, which also holds everything outside the world.
    fn node_distance(&self, n: u32, x: f32, y: f32, slack: f64) -> f32 {
        if n == 0 {
            return 0.0;
        }
        let r = self.node_rect(n);
        // Under loose placement items reach up to half a cell beyond their node's cell.
        let (mx, my) = if self.loose_mask != 0 {
            (r.width() as f64 / 2.0, r.height() as f64 / 2.0)
        } else {
            (0.0, 0.0)
        };
        let (x, y) = (x as f64, y as f64);
        let dx = (r.min_x as f64 - mx - slack - x)
            .max(0.0)
            .max(x - (r.max_x as f64 + mx + slack));
        let dy = (r.min_y as f64 - my - slack - y)
            .max(0.0)
            .max(y - (r.max_y as f64 + my + slack));
        (dx * dx + dy * dy).sqrt() as f32
    }
}

/// A nearest-neighbour candidate, ordered by distance (then handle, so ties are stable).
#[derive(Clone, Copy, Debug)]
struct Candidate(f32, ItemId);

/// The `k` best candidates so far: a binary max-heap (worst on top) in the tail of the
/// caller's `out`, past the entries it already held, stored as `(handle, distance)`.
struct KBest<'a> {
    out: &'a mut Vec<(ItemId, f32)>,
    start: usize,
    k: usize,
    /// A squared distance beyond which a candidate cannot enter: the square of the `f32`
    /// just above the worst kept distance (whatever is farther rounds to at least that).
    bar: f64,
}

impl<'a> KBest<'a> {
    fn new(out: &'a mut Vec<(ItemId, f32)>, k: usize) -> Self {
        out.reserve(k);
        let start = out.len();
        KBest {
            out,
            start,
            k,
            bar: f64::INFINITY,
        }
    }

    fn at(&self, i: usize) -> Candidate {
        let (id, d) = self.out[self.start + i];
        Candidate(d, id)
    }

    fn len(&self) -> usize {
        self.out.len() - self.start
    }

    fn is_full(&self) -> bool {
        self.len() == self.k
    }

    /// Distance of the worst kept candidate; infinite while fewer than `k` are kept.
    fn worst(&self) -> f32 {
        if self.is_full() {
            self.at(0).0
        } else {
            f32::INFINITY
        }
    }

    fn offer(&mut self, c: Candidate) {
        self.insert(c);
        if self.is_full() {
            let worst = self.at(0).0;
            let above = if worst.is_finite() {
                f32::from_bits(worst.to_bits() + 1) as f64
            } else {
                f64::INFINITY
            };
            self.bar = above * above;
        }
    }

    fn insert(&mut self, c: Candidate) {
        if !self.is_full() {
            // Sift up from the new last entry.
            self.out.push((c.1, c.0));
            let mut i = self.len() - 1;
            while i > 0 {
                let parent = (i - 1) / 2;
                if self.at(parent) >= c {
                    break;
                }
                self.out.swap(self.start + i, self.start + parent);
                i = parent;
            }
        } else if c < self.at(0) {
            // Replace the worst and sift down.
            let mut i = 0;
            loop {
                let (l, r) = (2 * i + 1, 2 * i + 2);
                let mut big = i;
                let mut big_c = c;
                if l < self.k && self.at(l) > big_c {
                    (big, big_c) = (l, self.at(l));
                }
                if r < self.k && self.at(r) > big_c {
                    big = r;
                }
                if big == i {
                    break;
                }
                self.out[self.start + i] = self.out[self.start + big];
                i = big;
            }
            self.out[self.start + i] = (c.1, c.0);
        }
    }

    /// Sorts the kept candidates nearest first and returns how many there are.
    fn finish(self) -> usize {
        let tail = &mut self.out[self.start..];
        tail.sort_unstable_by_key(|&(id, d)| Candidate(d, id));
        tail.len()
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}
