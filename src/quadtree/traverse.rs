//! The walks every query and the pair search share. Nothing recurses: a depth-first walk keeps
//! an explicit stack of node indices on the call stack (`NodeStack`), pruned by integer cell
//! ranges (exact, see `placement`), and a walk over a small range reads the level tables cell by
//! cell instead. No walk allocates.

use std::ops::ControlFlow;

use super::items::{with_block_test, ListHits};
use super::placement::Place;
use super::simd;
use super::{CellRange, ItemList, ItemRef, Node, Quadtree, Rect, MAX_DEPTH, NULL};

/// A DFS pops one node and pushes at most four, and never goes deeper than `MAX_DEPTH`,
/// so it never holds more than `3 * MAX_DEPTH + 1` nodes; the bound leaves room to spare.
const STACK_LEN: usize = 4 * MAX_DEPTH as usize + 4;

/// Up to this many deepest-level cells, [`Quadtree::walk_below`] reads the level tables cell
/// by cell instead of walking down the nodes.
const TABLE_WALK_CELLS: u64 = 64;

/// A small stack of node indices that lives on the call stack.
#[derive(Clone)]
pub(super) struct NodeStack {
    buf: [u32; STACK_LEN],
    len: usize,
}

impl NodeStack {
    pub(super) fn empty() -> Self {
        NodeStack {
            buf: [NULL; STACK_LEN],
            len: 0,
        }
    }

    pub(super) fn new(root: u32) -> Self {
        let mut s = Self::empty();
        s.push(root);
        s
    }

    #[inline]
    pub(super) fn push(&mut self, node: u32) {
        self.buf[self.len] = node;
        self.len += 1;
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<u32> {
        self.len = self.len.checked_sub(1)?;
        Some(self.buf[self.len])
    }
}

impl<T> Quadtree<T> {
    /// Visits every node in `start`'s subtree whose region overlaps `range`.
    #[inline]
    pub(super) fn walk_nodes<'a, B, F>(
        &'a self,
        start: u32,
        range: CellRange,
        f: F,
    ) -> ControlFlow<B>
    where
        F: FnMut(&'a Node<T>) -> ControlFlow<B>,
    {
        self.walk_stack(NodeStack::new(start), range, f)
    }

    /// Pops nodes off `stack`, hands each to `f` and pushes its overlapping children.
    #[inline]
    pub(super) fn walk_stack<'a, B, F>(
        &'a self,
        mut stack: NodeStack,
        range: CellRange,
        mut f: F,
    ) -> ControlFlow<B>
    where
        F: FnMut(&'a Node<T>) -> ControlFlow<B>,
    {
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            f(node)?;
            self.push_children(&mut stack, node, range);
        }
        ControlFlow::Continue(())
    }

    /// Visits every node whose region overlaps `range`: a small range by the level tables
    /// (see [`walk_table`](Self::walk_table)), a larger one by walking down from the root.
    #[inline(always)]
    pub(super) fn walk_range<'a, B, F>(&'a self, range: CellRange, f: F) -> ControlFlow<B>
    where
        F: FnMut(&'a Node<T>) -> ControlFlow<B>,
    {
        if self.table_walk_fits(range) {
            self.walk_table(range, f)
        } else {
            self.walk_nodes(0, range, f)
        }
    }

    /// Whether `range` covers few enough deepest-level cells for
    /// [`walk_table`](Self::walk_table).
    #[inline(always)]
    pub(super) fn table_walk_fits(&self, range: CellRange) -> bool {
        let deep = self.range_at_level(range, self.cells.deepest());
        u64::from(deep.x1 - deep.x0 + 1) * u64::from(deep.y1 - deep.y0 + 1) <= TABLE_WALK_CELLS
    }

    /// Visits every node whose region overlaps `range` by reading the level tables over the
    /// range's cells: no stack, and no node is read unless its region overlaps the range.
    /// Nodes with empty subtrees are visited too (with no items). For small ranges: the cost
    /// grows with the range's cells at every level. The order of the nodes is unspecified.
    #[inline(always)]
    pub(super) fn walk_table<'a, B, F>(&'a self, range: CellRange, mut f: F) -> ControlFlow<B>
    where
        F: FnMut(&'a Node<T>) -> ControlFlow<B>,
    {
        if !self.grid.is_loose() {
            return self.walk_table_up(range, f);
        }
        // Loose regions overlap, so the range widens by each level's margin: from the root
        // down, where a node exists only if its parent does, so a level without a node in
        // range ends the walk.
        for (level, table) in self.cells.all()[..=self.cells.deepest() as usize]
            .iter()
            .enumerate()
        {
            let r = self.range_at_level(range, level as u8);
            // Loose margins can reach past the world's last cell.
            let last = (1u32 << level) - 1;
            let (x1, y1) = (r.x1.min(last), r.y1.min(last));
            let mut any = false;
            for cy in r.y0..y1 + 1 {
                let row = (cy << level) as usize;
                for cx in r.x0..x1 + 1 {
                    let n = table[row | cx as usize];
                    if n != NULL {
                        any = true;
                        f(&self.nodes[n as usize])?;
                    }
                }
            }
            if !any {
                break;
            }
        }
        ControlFlow::Continue(())
    }

    /// Requests the lines of the nodes that [`walk_table_up`](Self::walk_table_up) will read
    /// first (those in `range` at the deepest level and the level above, where a small
    /// range spans at most a few cells), then the first blocks of the deepest ones' lists,
    /// before any is read: the walk then waits for those misses about once, instead of once
    /// per node in turn. A hint only.
    #[inline(always)]
    fn prefetch_table_walk(&self, range: CellRange) {
        let deepest = self.cells.deepest();
        for level in (deepest.saturating_sub(1)..=deepest).rev() {
            let _ = self.table_nodes::<()>(level, range, |n| {
                simd::prefetch(&self.nodes[n as usize]);
                ControlFlow::Continue(())
            });
            let shift = self.config.max_depth - level;
            if range.x0 >> shift == range.x1 >> shift && range.y0 >> shift == range.y1 >> shift {
                break;
            }
        }
        let _ = self.table_nodes::<()>(deepest, range, |n| {
            self.nodes[n as usize].items.prefetch_blocks(4);
            ControlFlow::Continue(())
        });
    }

    /// Calls `f` with the node of every cell of `level` in `range` that has one, row by row
    /// (`level` at most the deepest in use, whose table is whole).
    #[inline(always)]
    fn table_nodes<B>(
        &self,
        level: u8,
        range: CellRange,
        mut f: impl FnMut(u32) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let shift = self.config.max_depth - level;
        let (x0, y0) = (range.x0 >> shift, range.y0 >> shift);
        let (x1, y1) = (range.x1 >> shift, range.y1 >> shift);
        let table = self.cells.table(level);
        for cy in y0..y1 + 1 {
            let row = (cy << level) as usize;
            for cx in x0..x1 + 1 {
                let n = table[row | cx as usize];
                if n != NULL {
                    f(n)?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// [`walk_table`](Self::walk_table) under exact placement, deepest level first. The levels
    /// where `range` spans more than one cell are read from their tables; above them the
    /// range lies in one cell per level, and the nodes there are the deepest existing node on
    /// that path and its ancestors, reached by their parent links: one load per level instead
    /// of a range and a table read.
    #[inline(always)]
    fn walk_table_up<'a, B, F>(&'a self, range: CellRange, mut f: F) -> ControlFlow<B>
    where
        F: FnMut(&'a Node<T>) -> ControlFlow<B>,
    {
        self.prefetch_table_walk(range);
        let mut level = self.cells.deepest();
        let (cx, cy) = loop {
            // Exact cells of a level are the deepest ones shifted, always inside the level.
            let shift = self.config.max_depth - level;
            let (x0, y0) = (range.x0 >> shift, range.y0 >> shift);
            let (x1, y1) = (range.x1 >> shift, range.y1 >> shift);
            if x0 == x1 && y0 == y1 {
                break (x0, y0);
            }
            self.table_nodes(level, range, |n| f(&self.nodes[n as usize]))?;
            // Level 0 is a single cell, so the loop ends there at the latest.
            level -= 1;
        };
        let mut n = self.node_for(Place { level, cx, cy });
        while n != NULL {
            let node = &self.nodes[n as usize];
            f(node)?;
            n = node.parent;
        }
        ControlFlow::Continue(())
    }

    /// Calls `f` for every entry intersecting `query` (closed), with the lists' block test,
    /// in the nodes whose regions overlap it.
    #[inline]
    pub(super) fn walk_rect_hits<'a, B, F>(&'a self, query: &Rect, mut f: F) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        // Borrowed, not moved into the AVX closure: the batch is a few hundred bytes.
        let (batch, f) = (&mut None, &mut f);
        let pending = &mut ListHits::new();
        let range = self.cell_range(query);
        // Most lists a small query reaches are empty or have both bands away from it: that
        // test is made in the walk, and only the lists left are scanned. The whole walk is
        // compiled for AVX (one dispatch a query), so a short list's scan inlines into it with
        // no call and no dispatch of its own. The short scans' hits wait in `pending`, and
        // `f` runs over them all at the end (see `ListHits`).
        with_block_test!(|hits| {
            self.walk_range(
                range,
                #[inline(always)]
                |node| {
                    if node.items.misses(query) {
                        return ControlFlow::Continue(());
                    }
                    node.items
                        .for_each_hit_windowed_with(query, batch, pending, &mut *f, hits)
                },
            )?;
            pending.report(f)
        })
    }

    /// Hands `f` the items of every node below `parent` (not `parent`'s own) whose region
    /// overlaps `range`: a superset of the answer, callers filter each entry exactly. Nodes
    /// whose subtrees are empty may be handed over too (with no items).
    #[inline]
    pub(super) fn walk_below<'a, B, F>(
        &'a self,
        parent: &Node<T>,
        range: CellRange,
        mut f: F,
    ) -> ControlFlow<B>
    where
        F: FnMut(&'a ItemList<T>) -> ControlFlow<B>,
    {
        // Stage 1: a small range reads each level's table directly, level by level: no stack
        // and no child tests, which is most of the walk's cost for small items. A node exists
        // only if its parent does, so a level without a node in range ends the walk.
        let deep = self.range_at_level(range, self.cells.deepest());
        let cells = u64::from(deep.x1 - deep.x0 + 1) * u64::from(deep.y1 - deep.y0 + 1);
        if cells <= TABLE_WALK_CELLS {
            for level in parent.level + 1..=self.cells.deepest() {
                // Only `parent`'s descendants: its cell, `2^s` cells wide at this level.
                let s = level - parent.level;
                let r = self.range_at_level(range, level);
                let x0 = r.x0.max(parent.cx << s);
                let x1 = r.x1.min(((parent.cx + 1) << s) - 1);
                let y0 = r.y0.max(parent.cy << s);
                let y1 = r.y1.min(((parent.cy + 1) << s) - 1);
                let table = self.cells.table(level);
                let mut any = false;
                for cy in y0..=y1 {
                    for cx in x0..=x1 {
                        let n = table[((cy << level) | cx) as usize];
                        if n != NULL {
                            any = true;
                            f(&self.nodes[n as usize].items)?;
                        }
                    }
                }
                if !any {
                    break;
                }
            }
            return ControlFlow::Continue(());
        }
        // Stage 2: otherwise walk down from `parent`, visiting only nodes that exist.
        let mut stack = NodeStack::empty();
        self.push_children(&mut stack, parent, range);
        self.walk_stack(stack, range, |node| f(&node.items))
    }

    /// Pushes the non-empty children of `node` whose regions overlap `range`.
    #[inline]
    pub(super) fn push_children(&self, stack: &mut NodeStack, node: &Node<T>, range: CellRange) {
        if node.is_leaf() {
            return;
        }
        // Children are one level down: compare the range's cells at that level.
        let r = self.range_at_level(range, node.level + 1);
        for q in 0..4 {
            let c = node.first_child + q;
            let child = &self.nodes[c as usize];
            if child.subtree_len > 0
                && r.x0 <= child.cx
                && child.cx <= r.x1
                && r.y0 <= child.cy
                && child.cy <= r.y1
            {
                stack.push(c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quadtree::{Config, Placement};
    use quadstress_testkit::TestRng;

    /// The table walk visits each node whose region overlaps the range once, and the nodes
    /// with items among them are exactly those the stack walk visits: on trees deep in some
    /// places and shallow in others, with items across the world's edge, for ranges of one
    /// cell up to the most the table walk takes.
    #[test]
    fn the_table_walk_visits_what_the_stack_walk_visits() {
        let mut rng = TestRng::new(31);
        for placement in [Placement::Exact, Placement::Loose] {
            let config = Config {
                leaf_capacity: 4,
                max_depth: 7,
                placement,
            };
            let mut tree: Quadtree<u32> =
                Quadtree::with_config(Rect::new(0.0, 0.0, 256.0, 256.0), config).unwrap();
            for i in 0..3_000 {
                // A crowded corner, a sparse rest, and some boxes reaching past the world.
                let (x, y) = if i % 3 == 0 {
                    (rng.range(-10.0, 260.0), rng.range(-10.0, 260.0))
                } else {
                    (rng.range(0.0, 40.0), rng.range(0.0, 40.0))
                };
                let side = rng.range(0.0, 6.0);
                tree.insert(Rect::new(x, y, x + side, y + side), i).unwrap();
            }
            let mut walked = 0;
            for _ in 0..2_000 {
                let (x, y) = (rng.range(-5.0, 256.0), rng.range(-5.0, 256.0));
                let (w, h) = (rng.range(0.0, 20.0), rng.range(0.0, 20.0));
                let range = tree.cell_range(&Rect::new(x, y, x + w, y + h));
                if !tree.table_walk_fits(range) {
                    continue;
                }
                walked += 1;
                let index = |node: &Node<u32>| {
                    tree.nodes
                        .iter()
                        .position(|n| std::ptr::eq(n, node))
                        .unwrap()
                };
                let mut by_table = Vec::new();
                let _ = tree.walk_table(range, |node| {
                    by_table.push(index(node));
                    ControlFlow::<()>::Continue(())
                });
                let mut by_stack = Vec::new();
                let _ = tree.walk_nodes(0, range, |node| {
                    by_stack.push(index(node));
                    ControlFlow::<()>::Continue(())
                });
                by_table.sort_unstable();
                let all = by_table.len();
                by_table.dedup();
                assert_eq!(all, by_table.len(), "{placement:?}: a node visited twice");
                by_table.retain(|&n| n == 0 || tree.nodes[n].subtree_len > 0);
                by_stack.sort_unstable();
                assert_eq!(by_table, by_stack, "{placement:?} {range:?}");
            }
            assert!(walked > 1_000, "{walked}");
            assert!(tree.cells.deepest() >= 5, "the tree must be deep somewhere");
        }
    }

    /// The hits that wait in the walk's batch come out in the order `query_in_rect` appends
    /// them, and a closure that breaks at the k-th hit has seen exactly the first k: over
    /// queries that meet one list or dozens (more than the batch holds lists or hits), in
    /// trees with short leaves, long crowded ones and sorted runs of straddlers.
    #[test]
    fn batched_hits_keep_their_order_and_stop_at_a_break() {
        let mut rng = TestRng::new(38);
        for (capacity, sorted) in [(32, true), (4, false), (200, true)] {
            let config = Config {
                leaf_capacity: capacity,
                max_depth: 6,
                placement: Placement::Exact,
            };
            let mut tree: Quadtree<u32> =
                Quadtree::with_config(Rect::new(0.0, 0.0, 256.0, 256.0), config).unwrap();
            for i in 0..6_000 {
                // Small boxes, a crowded corner, and long boxes across the centre lines.
                let (x, y) = match i % 5 {
                    0 => (rng.range(0.0, 30.0), rng.range(0.0, 30.0)),
                    1 => (rng.range(100.0, 128.0), rng.range(0.0, 256.0)),
                    _ => (rng.range(0.0, 254.0), rng.range(0.0, 254.0)),
                };
                let (w, h) = if i % 5 == 1 { (40.0, 2.0) } else { (2.0, 2.0) };
                tree.insert(Rect::new(x, y, x + w, y + h), i).unwrap();
            }
            if sorted {
                tree.sort_straddlers();
            }
            for _ in 0..300 {
                let (x, y) = (rng.range(-5.0, 256.0), rng.range(-5.0, 256.0));
                let side = rng.range(0.0, 60.0);
                let q = Rect::new(x, y, x + side, y + side);
                let mut appended = Vec::new();
                tree.query_in_rect(&q, &mut appended).unwrap();
                let mut visited = Vec::new();
                tree.for_each_in_rect(&q, |item| visited.push(item.id))
                    .unwrap();
                assert_eq!(visited, appended, "{q:?}");
                for k in [0, 1, appended.len() / 2, appended.len().saturating_sub(1)] {
                    let mut seen = Vec::new();
                    let stopped = tree
                        .for_each_in_rect(&q, |item| {
                            seen.push(item.id);
                            if seen.len() > k {
                                ControlFlow::Break(())
                            } else {
                                ControlFlow::Continue(())
                            }
                        })
                        .unwrap();
                    let want = appended.len().min(k + 1);
                    assert_eq!(seen, appended[..want], "{q:?} {k}");
                    assert_eq!(stopped.is_break(), appended.len() > k);
                }
            }
        }
    }
}
