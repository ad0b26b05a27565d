//! Region queries (rectangle, point, circle, colliding-with) and nearest neighbours, in their
//! callback and appending forms, built on the walks of `traverse`. No query allocates, apart
//! from what a caller's `out` grows by (and [`Quadtree::for_each_nearest`] for a large `k`).

use std::cmp::Ordering;
use std::ops::ControlFlow;

use super::geom::{f32_at_or_above, f32_at_or_below};
use super::select::{InCircleSelection, InRectSelection, Selection};
use super::{
    traverse::NodeStack, CellRange, ItemId, ItemList, ItemRef, Node, NodeInfo, Quadtree,
    QuadtreeError, Rect, Shape, VisitResult, NULL,
};

/// The work a query did, from its `_counting` form
/// ([`for_each_in_rect_counting`](Quadtree::for_each_in_rect_counting),
/// [`for_each_pair_counting`](Quadtree::for_each_pair_counting), ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryCounts {
    /// Nodes the walk entered, the root included (for the pair search: every node in use).
    pub nodes_visited: usize,
    /// Rectangle tests made: for a region query, the items tested against the query (every
    /// item stored in a visited node); for the nearest search, the items whose distances
    /// were computed (likewise); for the pair search, the pairs of rectangles tested.
    pub tests: u64,
}

/// `Ok` for a finite point.
pub(super) fn check_point(x: f32, y: f32) -> Result<(), QuadtreeError> {
    if x.is_finite() && y.is_finite() {
        Ok(())
    } else {
        Err(QuadtreeError::NonFinite(Shape::Point { x, y }))
    }
}

/// The box that the disc of centre `(x, y)` and radius `r` is filtered through first, or why
/// the disc is refused.
///
/// It is computed in `f64` and rounded outwards, so it covers every item
/// [`Rect::intersects_circle`] accepts; edges beyond `f32`'s range stop at `±f32::MAX`, past
/// which no stored item reaches. That test rounds each `f64` difference once, which can bring
/// an item a hair (2^-53 of the radius) inside: the box reaches 2^-50 of the radius further to
/// keep such items.
pub(super) fn circle_bounds(x: f32, y: f32, r: f32) -> Result<Rect, QuadtreeError> {
    if !(x.is_finite() && y.is_finite() && r.is_finite()) {
        return Err(QuadtreeError::NonFinite(Shape::Circle { x, y, r }));
    }
    if r < 0.0 {
        return Err(QuadtreeError::NegativeRadius(r));
    }
    let (xd, yd) = (x as f64, y as f64);
    let reach = r as f64 * (1.0 + f64::EPSILON * 8.0);
    Ok(Rect::new(
        f32_at_or_below(xd - reach),
        f32_at_or_below(yd - reach),
        f32_at_or_above(xd + reach),
        f32_at_or_above(yd + reach),
    ))
}

/// How many nearest candidates [`Quadtree::for_each_nearest`] keeps on the stack; a larger
/// `k` allocates their buffer.
const NEAREST_ON_STACK: usize = 32;

impl<T> Quadtree<T> {
    /// Calls `f` for every item whose rectangle intersects `query` (closed: touching counts).
    /// `f` returns `()` to see every item, or `ControlFlow` to stop at its first `Break`
    /// ([`VisitResult`]); the query returns what `f` returns: `()`, or `Break(value)` or
    /// `Continue(())`. Allocates nothing.
    ///
    /// The [`ItemRef`] lends the payload for as long as the tree is borrowed, so `f` can keep
    /// it (`Vec<&T>`). The same items as an iterator: [`iter_in_rect`](Self::iter_in_rect);
    /// their handles appended to a `Vec`: [`query_in_rect`](Self::query_in_rect); with
    /// payloads mutable: [`for_each_in_rect_mut`](Self::for_each_in_rect_mut).
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] or [`QuadtreeError::Inverted`] for a bad `query`.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// for i in 0..10 {
    ///     tree.insert(Rect::from_min_size(i as f32 * 10.0, 0.0, 5.0, 5.0), i)?;
    /// }
    /// // Keep what the walk finds: the references live as long as the borrow of `tree`.
    /// let mut found: Vec<&i32> = Vec::new();
    /// tree.for_each_in_rect(&Rect::new(0.0, 0.0, 30.0, 5.0), |item| found.push(item.value))?;
    /// found.sort();
    /// assert_eq!(found, [&0, &1, &2, &3]); // the box at x = 30 touches the query's edge
    ///
    /// // Stop at the first payload above 6 and bring it back.
    /// let first_big = tree.for_each_in_rect(&Rect::new(0.0, 0.0, 100.0, 100.0), |item| {
    ///     if *item.value > 6 { ControlFlow::Break(item.value) } else { ControlFlow::Continue(()) }
    /// })?;
    /// assert!(matches!(first_big, ControlFlow::Break(&v) if v > 6));
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_in_rect<'a, R, F>(&'a self, query: &Rect, mut f: F) -> Result<R, QuadtreeError>
    where
        F: FnMut(ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        let sel = InRectSelection::new(query)?;
        Ok(R::from_flow(
            self.walk_selected(&sel, |item| f(item).branch()),
        ))
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
    /// use quadstress::{Config, Quadtree, Rect};
    /// let config = Config { leaf_capacity: 4, ..Config::default() };
    /// let mut tree = Quadtree::with_config(Rect::new(0.0, 0.0, 1000.0, 1000.0), config)?;
    /// for i in 0..1000 {
    ///     let (x, y) = ((i % 40) as f32 * 25.0, (i / 40) as f32 * 40.0);
    ///     tree.insert(Rect::from_min_size(x, y, 2.0, 2.0), i)?;
    /// }
    /// let mut hits = 0;
    /// let mut visited = Vec::new();
    /// let ((), counts) = tree.for_each_in_rect_counting(
    ///     &Rect::new(10.0, 10.0, 60.0, 60.0),
    ///     |node| visited.push(node.rect),
    ///     |_| hits += 1,
    /// )?;
    /// assert_eq!(hits, 2); // (25, 40) and (50, 40)
    /// assert_eq!(counts.nodes_visited, visited.len());
    /// assert!(counts.nodes_visited < tree.stats().nodes / 10);
    /// assert!(counts.tests >= hits && counts.tests < 1000 / 10);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_in_rect_counting<'a, R, V, F>(
        &'a self,
        query: &Rect,
        visit: V,
        f: F,
    ) -> Result<(R, QueryCounts), QuadtreeError>
    where
        V: FnMut(&NodeInfo),
        F: FnMut(ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        let sel = InRectSelection::new(query)?;
        Ok(self.counting(&sel, visit, f))
    }

    /// The `_counting` forms' body: `f` over the selected items, `visit` over the nodes.
    fn counting<'a, S, R, V, F>(&'a self, sel: &S, visit: V, mut f: F) -> (R, QueryCounts)
    where
        S: Selection,
        V: FnMut(&NodeInfo),
        F: FnMut(ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        let (flow, counts) = self.walk_selected_counting(sel, visit, |item| f(item).branch());
        (R::from_flow(flow), counts)
    }

    /// Appends to `out` the handle of every item intersecting `query` (closed) and returns how
    /// many were appended: the items [`for_each_in_rect`](Self::for_each_in_rect) finds.
    /// Reuse `out` across calls to avoid allocating.
    ///
    /// # Errors
    /// As [`for_each_in_rect`](Self::for_each_in_rect); `out` is unchanged then.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let a = tree.insert(Rect::new(10.0, 10.0, 20.0, 20.0), ())?;
    /// tree.insert(Rect::new(50.0, 50.0, 60.0, 60.0), ())?;
    /// let mut out = Vec::new();
    /// assert_eq!(tree.query_in_rect(&Rect::new(0.0, 0.0, 10.0, 10.0), &mut out)?, 1);
    /// assert_eq!(out, vec![a]);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn query_in_rect(
        &self,
        query: &Rect,
        out: &mut Vec<ItemId>,
    ) -> Result<usize, QuadtreeError> {
        let sel = InRectSelection::new(query)?;
        Ok(self.gather_selected(&sel, out))
    }

    /// The walk of [`query_in_rect`](Self::query_in_rect), `scan` appending each node's hits.
    #[inline(always)]
    pub(super) fn gather_in_range<'a, S>(
        &'a self,
        range: CellRange,
        out: &mut Vec<ItemId>,
        mut scan: S,
    ) where
        S: FnMut(&'a ItemList<T>, &mut Vec<ItemId>),
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

    /// Calls `f` for every item whose rectangle contains the point (edges included); `f`
    /// returns `()` or `ControlFlow`, as in [`for_each_in_rect`](Self::for_each_in_rect).
    /// Allocates nothing.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] for a NaN or infinite coordinate.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), "a")?;
    /// tree.insert(Rect::new(5.0, 5.0, 15.0, 15.0), "b")?;
    /// let mut n = 0;
    /// tree.for_each_at_point(10.0, 10.0, |_| n += 1)?;
    /// assert_eq!(n, 2);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_at_point<'a, R, F>(
        &'a self,
        x: f32,
        y: f32,
        mut f: F,
    ) -> Result<R, QuadtreeError>
    where
        F: FnMut(ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        let sel = InRectSelection::at_point(x, y)?;
        Ok(R::from_flow(
            self.walk_selected(&sel, |item| f(item).branch()),
        ))
    }

    /// As [`for_each_at_point`](Self::for_each_at_point), and also shows the work done, as
    /// [`for_each_in_rect_counting`](Self::for_each_in_rect_counting) does.
    ///
    /// # Errors
    /// As [`for_each_at_point`](Self::for_each_at_point).
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), "a")?;
    /// tree.insert(Rect::new(50.0, 50.0, 60.0, 60.0), "b")?;
    /// let mut found = Vec::new();
    /// let ((), counts) = tree.for_each_at_point_counting(5.0, 5.0, |_| {}, |item| found.push(*item.value))?;
    /// assert_eq!(found, ["a"]);
    /// assert_eq!(counts.nodes_visited, 1); // the root, a leaf
    /// assert_eq!(counts.tests, 2);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_at_point_counting<'a, R, V, F>(
        &'a self,
        x: f32,
        y: f32,
        visit: V,
        f: F,
    ) -> Result<(R, QueryCounts), QuadtreeError>
    where
        V: FnMut(&NodeInfo),
        F: FnMut(ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        let sel = InRectSelection::at_point(x, y)?;
        Ok(self.counting(&sel, visit, f))
    }

    /// Appends to `out` every item whose rectangle contains the point; returns how many.
    ///
    /// # Errors
    /// As [`for_each_at_point`](Self::for_each_at_point).
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let a = tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), ())?;
    /// let mut out = Vec::new();
    /// tree.query_at_point(3.0, 4.0, &mut out)?;
    /// assert_eq!(out, vec![a]);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn query_at_point(
        &self,
        x: f32,
        y: f32,
        out: &mut Vec<ItemId>,
    ) -> Result<usize, QuadtreeError> {
        let sel = InRectSelection::at_point(x, y)?;
        Ok(self.gather_selected(&sel, out))
    }

    /// Calls `f` for every item whose rectangle meets the closed disc of centre `(x, y)` and
    /// radius `r`; `f` returns `()` or `ControlFlow`, as in
    /// [`for_each_in_rect`](Self::for_each_in_rect). Allocates nothing.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] for a non-finite centre or radius,
    /// [`QuadtreeError::NegativeRadius`] for `r < 0`.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// tree.insert(Rect::new(10.0, 0.0, 11.0, 1.0), ())?;
    /// tree.insert(Rect::new(8.0, 8.0, 9.0, 9.0), ())?; // corner at distance sqrt(128) > 10
    /// let mut n = 0;
    /// tree.for_each_in_circle(0.0, 0.0, 10.0, |_| n += 1)?;
    /// assert_eq!(n, 1);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_in_circle<'a, R, F>(
        &'a self,
        x: f32,
        y: f32,
        r: f32,
        mut f: F,
    ) -> Result<R, QuadtreeError>
    where
        F: FnMut(ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        let sel = InCircleSelection::new(x, y, r)?;
        Ok(R::from_flow(
            self.walk_selected(&sel, |item| f(item).branch()),
        ))
    }

    /// As [`for_each_in_circle`](Self::for_each_in_circle), and also shows the work done, as
    /// [`for_each_in_rect_counting`](Self::for_each_in_rect_counting) does: the items tested
    /// are those stored in the nodes the disc's bounding box reaches.
    ///
    /// # Errors
    /// As [`for_each_in_circle`](Self::for_each_in_circle).
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// tree.insert(Rect::new(10.0, 0.0, 11.0, 1.0), ())?;
    /// tree.insert(Rect::new(8.0, 8.0, 9.0, 9.0), ())?; // corner at distance sqrt(128) > 10
    /// let mut n = 0;
    /// let ((), counts) = tree.for_each_in_circle_counting(0.0, 0.0, 10.0, |_| {}, |_| n += 1)?;
    /// assert_eq!((n, counts.tests), (1, 2));
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_in_circle_counting<'a, R, V, F>(
        &'a self,
        x: f32,
        y: f32,
        r: f32,
        visit: V,
        f: F,
    ) -> Result<(R, QueryCounts), QuadtreeError>
    where
        V: FnMut(&NodeInfo),
        F: FnMut(ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        let sel = InCircleSelection::new(x, y, r)?;
        Ok(self.counting(&sel, visit, f))
    }

    /// Appends to `out` every item meeting the disc; returns how many.
    ///
    /// # Errors
    /// As [`for_each_in_circle`](Self::for_each_in_circle).
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let near = tree.insert(Rect::new(3.0, 4.0, 3.0, 4.0), ())?; // a point at distance 5
    /// tree.insert(Rect::new(30.0, 40.0, 31.0, 41.0), ())?;
    /// let mut out = Vec::new();
    /// tree.query_in_circle(0.0, 0.0, 5.0, &mut out)?;
    /// assert_eq!(out, vec![near]);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn query_in_circle(
        &self,
        x: f32,
        y: f32,
        r: f32,
        out: &mut Vec<ItemId>,
    ) -> Result<usize, QuadtreeError> {
        let sel = InCircleSelection::new(x, y, r)?;
        Ok(self.gather_selected(&sel, out))
    }

    /// Calls `f` for every *other* item whose rectangle intersects the rectangle of item `id`:
    /// everything colliding with it; `f` returns `()` or `ControlFlow`, as in
    /// [`for_each_in_rect`](Self::for_each_in_rect). Allocates nothing.
    ///
    /// On a clone, `id` may also be a handle that the tree it was copied from made before the
    /// copy (see [`ItemId`]): it names the same item as the clone's own handle, and that item
    /// is left out all the same, in this form and every other of the stem.
    ///
    /// # Errors
    /// [`QuadtreeError::StaleId`] if `id` is stale.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let player = tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), "player")?;
    /// tree.insert(Rect::new(5.0, 5.0, 6.0, 6.0), "coin")?;
    /// tree.insert(Rect::new(9.0, 9.0, 12.0, 12.0), "wall")?;
    /// tree.insert(Rect::new(50.0, 50.0, 60.0, 60.0), "far")?;
    /// let mut hits = Vec::new();
    /// tree.for_each_colliding_with(player, |item| hits.push(*item.value))?;
    /// hits.sort();
    /// assert_eq!(hits, vec!["coin", "wall"]);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_colliding_with<'a, R, F>(
        &'a self,
        id: ItemId,
        mut f: F,
    ) -> Result<R, QuadtreeError>
    where
        F: FnMut(ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        let sel = self.colliding_selection(id)?;
        Ok(R::from_flow(
            self.walk_selected(&sel, |item| f(item).branch()),
        ))
    }

    /// As [`for_each_colliding_with`](Self::for_each_colliding_with), and also shows the work
    /// done, as [`for_each_in_rect_counting`](Self::for_each_in_rect_counting) does: the items
    /// tested include item `id` itself.
    ///
    /// # Errors
    /// As [`for_each_colliding_with`](Self::for_each_colliding_with).
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let player = tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), "player")?;
    /// tree.insert(Rect::new(5.0, 5.0, 6.0, 6.0), "coin")?;
    /// let mut hits = Vec::new();
    /// let ((), counts) =
    ///     tree.for_each_colliding_with_counting(player, |_| {}, |item| hits.push(*item.value))?;
    /// assert_eq!(hits, ["coin"]);
    /// assert_eq!(counts.tests, 2);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_colliding_with_counting<'a, R, V, F>(
        &'a self,
        id: ItemId,
        visit: V,
        f: F,
    ) -> Result<(R, QueryCounts), QuadtreeError>
    where
        V: FnMut(&NodeInfo),
        F: FnMut(ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        let sel = self.colliding_selection(id)?;
        Ok(self.counting(&sel, visit, f))
    }

    /// Appends to `out` the handle of every *other* item colliding with item `id`; returns
    /// how many.
    ///
    /// # Errors
    /// As [`for_each_colliding_with`](Self::for_each_colliding_with).
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let player = tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), ())?;
    /// let coin = tree.insert(Rect::new(5.0, 5.0, 6.0, 6.0), ())?;
    /// let mut out = Vec::new();
    /// assert_eq!(tree.query_colliding_with(player, &mut out)?, 1);
    /// assert_eq!(out, vec![coin]);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn query_colliding_with(
        &self,
        id: ItemId,
        out: &mut Vec<ItemId>,
    ) -> Result<usize, QuadtreeError> {
        let sel = self.colliding_selection(id)?;
        Ok(self.gather_selected(&sel, out))
    }

    /// Calls `f(item, distance)` for the `k` items nearest to the point, nearest first; `f`
    /// returns `()` or `ControlFlow`, as in [`for_each_in_rect`](Self::for_each_in_rect).
    /// The distance is from the point to the nearest point of the item's rectangle, 0 inside
    /// it, as [`Rect::distance`] gives it: computed in `f64` and rounded once to `f32`, so it
    /// is exact as far as `f32` allows in any world. Items at equal `f32` distances come in
    /// the order of their handles ([`ItemId`]'s `Ord`), so the answer depends only on what
    /// the tree holds, not on its shape.
    ///
    /// The search finishes before `f` sees the first item, so there is no iterator form. It
    /// keeps up to 32 candidates on the stack; a larger `k` (or `k` beyond [`len`](Self::len),
    /// which counts as `len`) allocates their buffer once per call. The handles and distances
    /// appended to a `Vec`, reusable: [`query_nearest`](Self::query_nearest).
    ///
    /// # Runtime
    /// Depth-first, nearest child first, skipping any node farther than the current k-th
    /// candidate: about O(D + k) node visits on evenly spread data, O(log k) per candidate.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] for a non-finite point.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// for i in 0..10 {
    ///     tree.insert(Rect::from_min_size(i as f32 * 10.0, 0.0, 1.0, 1.0), i)?;
    /// }
    /// let mut found = Vec::new();
    /// tree.for_each_nearest(42.0, 0.0, 3, |item, d| found.push((*item.value, d)))?;
    /// assert_eq!(found, vec![(4, 1.0), (5, 8.0), (3, 11.0)]);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_nearest<'a, R, F>(
        &'a self,
        x: f32,
        y: f32,
        k: usize,
        f: F,
    ) -> Result<R, QuadtreeError>
    where
        F: FnMut(ItemRef<'a, T>, f32) -> R,
        R: VisitResult,
    {
        Ok(self.for_each_nearest_counting(x, y, k, |_| {}, f)?.0)
    }

    /// As [`for_each_nearest`](Self::for_each_nearest), and also shows the work done: `visit`
    /// sees every node the search entered (those it skipped as too far are not), and the
    /// returned [`QueryCounts`] say how many nodes that was and how many items' distances were
    /// computed (every item stored in an entered node).
    ///
    /// # Errors
    /// As [`for_each_nearest`](Self::for_each_nearest).
    ///
    /// ```
    /// use quadstress::{Config, Quadtree, Rect};
    /// let config = Config { leaf_capacity: 4, ..Config::default() };
    /// let mut tree = Quadtree::with_config(Rect::new(0.0, 0.0, 1000.0, 1000.0), config)?;
    /// for i in 0..1000 {
    ///     let (x, y) = ((i % 40) as f32 * 25.0, (i / 40) as f32 * 40.0);
    ///     tree.insert(Rect::from_min_size(x, y, 2.0, 2.0), i)?;
    /// }
    /// let mut found = Vec::new();
    /// let ((), counts) = tree.for_each_nearest_counting(26.0, 41.0, 2, |_| {}, |item, d| {
    ///     found.push((*item.value, d));
    /// })?;
    /// assert_eq!(found[0], (41, 0.0)); // the box at (25, 40)
    /// assert!(counts.tests < 1000 / 10);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_nearest_counting<'a, R, V, F>(
        &'a self,
        x: f32,
        y: f32,
        k: usize,
        mut visit: V,
        mut f: F,
    ) -> Result<(R, QueryCounts), QuadtreeError>
    where
        V: FnMut(&NodeInfo),
        F: FnMut(ItemRef<'a, T>, f32) -> R,
        R: VisitResult,
    {
        check_point(x, y)?;
        let k = k.min(self.len);
        let none = (self.placeholder_id(), 0.0);
        let mut on_stack = [none; NEAREST_ON_STACK];
        let mut on_heap = Vec::new();
        let buf = if k <= NEAREST_ON_STACK {
            &mut on_stack[..k]
        } else {
            on_heap.resize(k, none);
            &mut on_heap[..]
        };
        let mut counts = QueryCounts::default();
        let found = self.nearest_into(x, y, buf, &mut |n, node| {
            counts.nodes_visited += 1;
            counts.tests += node.items.len() as u64;
            visit(&self.node_info(n, node));
        });
        for &(id, d) in &buf[..found] {
            let slot = self.slots[id.index as usize];
            let item = self.nodes[slot.node as usize].items.item(slot.pos as usize);
            if let ControlFlow::Break(b) = f(item, d).branch() {
                return Ok((R::from_flow(ControlFlow::Break(b)), counts));
            }
        }
        Ok((R::from_flow(ControlFlow::Continue(())), counts))
    }

    /// The `k` items nearest to the point, nearest first, as `(handle, distance)` pairs
    /// appended to `out`; returns how many (`k`, or fewer when the tree holds fewer). The
    /// items and distances of [`for_each_nearest`](Self::for_each_nearest). Allocates nothing
    /// once `out` has room for `k` more entries.
    ///
    /// # Errors
    /// As [`for_each_nearest`](Self::for_each_nearest); `out` is unchanged then.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// for i in 0..10 {
    ///     tree.insert(Rect::from_min_size(i as f32 * 10.0, 0.0, 1.0, 1.0), i)?;
    /// }
    /// let mut out = Vec::new();
    /// tree.query_nearest(42.0, 0.0, 3, &mut out)?;
    /// let found: Vec<i32> = out.iter().map(|(id, _)| *tree.get(*id).unwrap()).collect();
    /// assert_eq!(found, vec![4, 5, 3]); // distances 1, 8, 11
    /// assert_eq!(out[0].1, 1.0);
    ///
    /// // Like every query, `query_nearest` appends: clear `out` to reuse it.
    /// tree.query_nearest(0.0, 0.0, 1, &mut out)?;
    /// assert_eq!(out.len(), 4);
    /// assert_eq!(out[3].1, 0.0);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn query_nearest(
        &self,
        x: f32,
        y: f32,
        k: usize,
        out: &mut Vec<(ItemId, f32)>,
    ) -> Result<usize, QuadtreeError> {
        check_point(x, y)?;
        let start = out.len();
        out.resize(start + k.min(self.len), (self.placeholder_id(), 0.0));
        let found = self.nearest_into(x, y, &mut out[start..], &mut |_, _| {});
        out.truncate(start + found);
        Ok(found)
    }

    /// A handle no slot matches, to fill buffers with.
    fn placeholder_id(&self) -> ItemId {
        ItemId {
            index: NULL,
            generation: 0,
            tree: self.tree,
        }
    }

    /// The `buf.len()` items nearest to the (finite) point, nearest first, in `buf`'s head;
    /// returns how many (fewer than `buf.len()` only when the tree holds fewer). `entered`
    /// sees each node whose items the search reads: the one search of the nearest stem.
    fn nearest_into(
        &self,
        x: f32,
        y: f32,
        buf: &mut [(ItemId, f32)],
        entered: &mut impl FnMut(u32, &Node<T>),
    ) -> usize {
        if buf.is_empty() || self.len == 0 {
            return 0;
        }
        // Node cells in f32 can be a rounding step off the cells items were mapped into;
        // widening each cell by `slack` keeps the distance bound a true lower bound.
        let w = &self.grid.world;
        let magnitude = w
            .min_x
            .abs()
            .max(w.max_x.abs())
            .max(w.min_y.abs())
            .max(w.max_y.abs()) as f64;
        let slack = (magnitude + w.width().max(w.height()) as f64) * 1e-5;
        // The best candidates so far, a max-heap on distance kept in `buf`: O(log k) per
        // candidate whatever k is. Distances are computed in f64 and kept as the f32 that is
        // reported; rounding is monotone, so the order is the exact order up to ties between
        // equal f32 distances, which `Candidate`'s order breaks by handle.
        let mut best = KBest::new(buf);
        let mut stack = NodeStack::new(0);
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            // Strictly farther only: a node at the k-th distance may hold a tie with a smaller
            // handle.
            if best.is_full() && self.node_distance(n, x, y, slack) > best.worst() {
                continue;
            }
            entered(n, node);
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
        best.finish()
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
        let (mx, my) = if self.grid.is_loose() {
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

/// A nearest-neighbour candidate, ordered by distance, then by handle: equal `f32` distances
/// go to the smaller handle, whatever order the walk met them in.
#[derive(Clone, Copy, Debug)]
struct Candidate(f32, ItemId);

/// The `k` best candidates so far, `k` the length of the buffer: a binary max-heap (worst on
/// top) in its head, stored as `(handle, distance)`.
struct KBest<'a> {
    buf: &'a mut [(ItemId, f32)],
    len: usize,
    /// A squared distance beyond which a candidate cannot enter: the square of the `f32`
    /// just above the worst kept distance (whatever is farther rounds to at least that).
    bar: f64,
}

impl<'a> KBest<'a> {
    fn new(buf: &'a mut [(ItemId, f32)]) -> Self {
        KBest {
            buf,
            len: 0,
            bar: f64::INFINITY,
        }
    }

    fn at(&self, i: usize) -> Candidate {
        let (id, d) = self.buf[i];
        Candidate(d, id)
    }

    fn is_full(&self) -> bool {
        self.len == self.buf.len()
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
        let k = self.buf.len();
        if !self.is_full() {
            // Sift up from the new last entry.
            let mut i = self.len;
            self.buf[i] = (c.1, c.0);
            self.len += 1;
            while i > 0 {
                let parent = (i - 1) / 2;
                if self.at(parent) >= c {
                    break;
                }
                self.buf.swap(i, parent);
                i = parent;
            }
        } else if c < self.at(0) {
            // Replace the worst and sift down.
            let mut i = 0;
            loop {
                let (l, r) = (2 * i + 1, 2 * i + 2);
                let mut big = i;
                let mut big_c = c;
                if l < k && self.at(l) > big_c {
                    (big, big_c) = (l, self.at(l));
                }
                if r < k && self.at(r) > big_c {
                    big = r;
                }
                if big == i {
                    break;
                }
                self.buf[i] = self.buf[big];
                i = big;
            }
            self.buf[i] = (c.1, c.0);
        }
    }

    /// Sorts the kept candidates nearest first and returns how many there are.
    fn finish(self) -> usize {
        let kept = &mut self.buf[..self.len];
        kept.sort_unstable_by_key(|&(id, d)| Candidate(d, id));
        kept.len()
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
