//! One place per region query: each stem (`in_rect`, `at_point`, `in_circle`,
//! `colliding_with`) is written once, as a selection, the rectangle the walk's block test
//! filters by and which of the items that test finds the stem keeps. Every form of a stem
//! (iterator, callback, `_mut`, counting, into a `Vec`) walks with the stem's selection, so
//! the forms cannot disagree on what they find; what "the item itself" is, which
//! colliding-with leaves out, is decided here alone.

use std::ops::ControlFlow;

use super::items::{Lanes, ListHits};
use super::query::{check_point, circle_bounds};
use super::simd::Avx;
use super::slots::SlotKey;
use super::{
    traverse::NodeStack, ItemId, ItemMut, ItemRef, NodeInfo, Quadtree, QuadtreeError, QueryCounts,
    Rect,
};

/// What a region query finds: the items whose rectangles meet [`bounds`](Self::bounds)
/// (closed) and that [`keeps`](Self::keeps) accepts.
pub(super) trait Selection: Copy {
    /// Whether `keeps` accepts every item `bounds` meets, so that a form may take the block
    /// test's hits as they come (`query_*` appends them without a callback).
    const EVERY_HIT: bool;

    /// A checked rectangle (finite, not inverted) that every selected item's rectangle meets.
    fn bounds(&self) -> &Rect;

    /// Whether the item `id` (this tree's slot and generation) of rectangle `rect`, which
    /// meets `bounds`, is selected.
    fn keeps(&self, id: SlotKey, rect: &Rect) -> bool;
}

/// `in_rect` and `at_point`: every item meeting a rectangle (a point's is zero-sized: a closed
/// rectangle contains a point exactly when it meets the point's rectangle).
#[derive(Clone, Copy, Debug)]
pub(super) struct InRectSelection(Rect);

impl InRectSelection {
    pub(super) fn new(query: &Rect) -> Result<Self, QuadtreeError> {
        query.check()?;
        Ok(InRectSelection(*query))
    }

    pub(super) fn at_point(x: f32, y: f32) -> Result<Self, QuadtreeError> {
        check_point(x, y)?;
        Ok(InRectSelection(Rect::new(x, y, x, y)))
    }
}

impl Selection for InRectSelection {
    const EVERY_HIT: bool = true;

    #[inline(always)]
    fn bounds(&self) -> &Rect {
        &self.0
    }

    #[inline(always)]
    fn keeps(&self, _: SlotKey, _: &Rect) -> bool {
        true
    }
}

/// `in_circle`: the items meeting a closed disc, among those meeting its bounding box.
#[derive(Clone, Copy, Debug)]
pub(super) struct InCircleSelection {
    bounds: Rect,
    x: f32,
    y: f32,
    r: f32,
}

impl InCircleSelection {
    pub(super) fn new(x: f32, y: f32, r: f32) -> Result<Self, QuadtreeError> {
        Ok(InCircleSelection {
            bounds: circle_bounds(x, y, r)?,
            x,
            y,
            r,
        })
    }
}

impl Selection for InCircleSelection {
    const EVERY_HIT: bool = false;

    #[inline(always)]
    fn bounds(&self) -> &Rect {
        &self.bounds
    }

    #[inline(always)]
    fn keeps(&self, _: SlotKey, rect: &Rect) -> bool {
        rect.intersects_circle(self.x, self.y, self.r)
    }
}

/// `colliding_with`: the items meeting one item's rectangle, the item itself left out.
#[derive(Clone, Copy, Debug)]
pub(super) struct CollidingSelection {
    rect: Rect,
    /// The item itself, by slot and generation: the handle the query was given may be this
    /// tree's or an ancestor's (a clone accepts the handles of the tree it was copied from),
    /// while the walks hand out this tree's, so whole handles would not compare.
    itself: SlotKey,
}

impl Selection for CollidingSelection {
    const EVERY_HIT: bool = false;

    #[inline(always)]
    fn bounds(&self) -> &Rect {
        &self.rect
    }

    #[inline(always)]
    fn keeps(&self, id: SlotKey, _: &Rect) -> bool {
        id != self.itself
    }
}

impl<T> Quadtree<T> {
    /// The selection of the items colliding with item `id`, or [`QuadtreeError::StaleId`].
    pub(super) fn colliding_selection(
        &self,
        id: ItemId,
    ) -> Result<CollidingSelection, QuadtreeError> {
        let slot = self.live_slot(id).ok_or(QuadtreeError::StaleId)?;
        Ok(CollidingSelection {
            rect: self.nodes[slot.node as usize].items.rect(slot.pos as usize),
            itself: id.key(),
        })
    }

    /// Calls `f` for every selected item: the callback forms.
    #[inline]
    pub(super) fn walk_selected<'a, S, B, F>(&'a self, sel: &S, mut f: F) -> ControlFlow<B>
    where
        S: Selection,
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        self.walk_rect_hits(sel.bounds(), |item| {
            if sel.keeps(item.id.key(), &item.rect) {
                f(item)
            } else {
                ControlFlow::Continue(())
            }
        })
    }

    /// As [`walk_selected`](Self::walk_selected), also calling `visit` for every node the
    /// walk enters and counting the work: the `_counting` forms.
    pub(super) fn walk_selected_counting<'a, S, B, V, F>(
        &'a self,
        sel: &S,
        mut visit: V,
        mut f: F,
    ) -> (ControlFlow<B>, QueryCounts)
    where
        S: Selection,
        V: FnMut(&NodeInfo),
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        let query = sel.bounds();
        let range = self.cell_range(query);
        let mut counts = QueryCounts::default();
        let mut f = |item: ItemRef<'a, T>| {
            if sel.keeps(item.id.key(), &item.rect) {
                f(item)
            } else {
                ControlFlow::Continue(())
            }
        };
        // The walk of `walk_rect_hits`, spelled out to see each node's index and list.
        let mut stack = NodeStack::new(0);
        let mut batch = None;
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            counts.nodes_visited += 1;
            counts.tests += node.items.len() as u64;
            visit(&self.node_info(n, node));
            if let ControlFlow::Break(b) =
                node.items.for_each_hit_windowed(query, &mut batch, &mut f)
            {
                return (ControlFlow::Break(b), counts);
            }
            self.push_children(&mut stack, node, range);
        }
        (ControlFlow::Continue(()), counts)
    }

    /// Calls `f` for every selected item with its payload mutable, one node at a time: the
    /// node's list is borrowed mutably while it is scanned, then the tree is read to find the
    /// children. The `_mut` forms.
    pub(super) fn walk_selected_mut<S, B, F>(&mut self, sel: &S, mut f: F) -> ControlFlow<B>
    where
        S: Selection,
        F: FnMut(ItemMut<'_, T>) -> ControlFlow<B>,
    {
        let query = sel.bounds();
        let range = self.cell_range(query);
        let mut stack = NodeStack::new(0);
        while let Some(n) = stack.pop() {
            let items = &mut self.nodes[n as usize].items;
            items.for_each_hit_mut(query, |item| {
                if sel.keeps(item.id.key(), &item.rect) {
                    f(item)
                } else {
                    ControlFlow::Continue(())
                }
            })?;
            self.push_children(&mut stack, &self.nodes[n as usize], range);
        }
        ControlFlow::Continue(())
    }

    /// Appends every selected item's handle to `out` and returns how many: the `query_*`
    /// forms.
    pub(super) fn gather_selected<S: Selection>(&self, sel: &S, out: &mut Vec<ItemId>) -> usize {
        let before = out.len();
        if !S::EVERY_HIT {
            let _ = self.walk_selected(sel, |item| {
                out.push(item.id);
                ControlFlow::<()>::Continue(())
            });
            return out.len() - before;
        }
        // Every hit is kept, so the hits go from the block test into `out` with no per-hit
        // callback, the short scans' through `pending` at the end. With AVX, a list with
        // blocks to test is scanned by one call into an AVX-compiled scan that inlines the
        // test; a list whose bands the query misses costs one band test, and the walk between
        // the scans stays small (compiling the whole walk for AVX made it spill more than the
        // calls cost, with `pending` too).
        let query = sel.bounds();
        let range = self.cell_range(query);
        let mut batch = None;
        let mut pending = ListHits::new();
        if let Some(avx) = Avx::detect() {
            self.gather_in_range(range, out, |items, out| {
                if !items.misses(query) {
                    items.gather_hits_avx(query, out, &mut batch, &mut pending, avx);
                }
            });
        } else {
            self.gather_in_range(range, out, |items, out| {
                items.gather_hits(query, out, &mut batch, &mut pending, Lanes::hits)
            });
        }
        pending.gather_into(out);
        out.len() - before
    }
}
