//! Every item moved at once, in the tree's own order: each item's new rectangle comes from a
//! function of the item, so the walk reads and writes the lists front to back instead of
//! where a batch of handles points.
//!
//! Passes:
//! 1. over fixed chunks of [`NODES_PER_CHUNK`] nodes, in parallel: each item's new rectangle
//!    is asked for (a node's items in a loop of their own, so that the caller's scattered
//!    reads overlap), checked and placed against the tree as it stands. A move that stays in
//!    its node (and, in an internal node, its group) is written in place at once, its old
//!    rectangle kept in the chunk's buffer; a change of group and a change of node are
//!    listed apart, in list order. In a leaf under exact placement, a rectangle that lies
//!    inside the leaf's [`inner_bounds`](Grid::inner_bounds) (kept in the chunk's plan from
//!    walk to walk, since nodes keep their cells) is valid and stays: one test instead of
//!    the check, the placement and the group, which only the rest take. Each node then
//!    recomputes its bands. A list with sorted runs is the exception: writing into a run
//!    widens its reach for good (putting the old key back would not narrow it), so its
//!    moves in place wait in the buffer, new rectangles this time, until no rectangle was
//!    refused;
//! 2. if some rectangle was refused: over the same chunks, every rectangle written in place
//!    is put back from the buffer, and the walk stops there. Otherwise the lists with runs
//!    write what waited;
//! 3. in list order, on one thread: the changes of group, then the changes of node, as
//!    [`Quadtree::update`] would do them (the same as `update_many`'s pass 4).
//!
//! The chunks are fixed by the node count, never by the threads, and the serial form runs the
//! same chunks in order, each whole even after a refusal, so the tree ends the same on any
//! thread count, refused or not. A refused walk leaves every item, node and run as it was;
//! only the bands of the lists put back are recomputed, which changes no answer (and makes
//! them no wider than they were).

#[cfg(feature = "rayon")]
use rayon::prelude::*;

use super::shared::{CellBounds, ItemError, NodeChunkPlan, UpdateWorkspace, ELSEWHERE};
use crate::quadtree::items::W;
use crate::quadtree::placement::Grid;
use crate::quadtree::{ItemRef, Node, Quadtree, Rect};

/// Blocks of the next node's list requested while a node is planned.
const NEXT_BLOCKS: usize = 4;

/// Nodes per chunk: a node holds a few dozen items, so a chunk is a few thousand moves.
const NODES_PER_CHUNK: usize = 64;

impl<T> Quadtree<T> {
    /// Moves every item to `new_rect(item)`, as calling [`update`](Self::update) for each
    /// item in [`iter`](Self::iter)'s order would, in fewer steps. Where every item moves at
    /// once (particles, a crowd), this is the fastest way to move them: the walk goes through
    /// the tree's lists front to back, so the only scattered reads are the caller's (looking
    /// up each item's new place by its payload), where [`update_many`](Self::update_many)
    /// finds each handle's entry wherever it lies. An item that should stay where it is gets
    /// its own rectangle back (`item.rect`). With feature `rayon`, `par_update_all` does the
    /// same on every core and leaves the same tree, bit for bit, on any thread count.
    ///
    /// "As one `update` each" means what it means for `update_many`: the same items with the
    /// same rectangles, handles and payloads, in the same nodes; the order of the nodes and of
    /// the items within a node may differ, and is the same on every run that makes the same
    /// calls.
    ///
    /// # Errors
    /// If any new rectangle would be refused by `update` (NaN, infinite, inverted), nothing
    /// changes and the first such item in `iter`'s order is reported. `new_rect` is called
    /// exactly once per item, in `iter`'s order, even after a refusal.
    ///
    /// # Panics
    /// Only if `new_rect` does. The tree is then still valid, but not all or nothing: each
    /// item holds its old rectangle or its new one (the new one for the items of the lists
    /// walked before the panic that keep their node and group, outside lists with sorted
    /// runs).
    ///
    /// # Runtime
    /// O(items) for the walk (each list read and written once, front to back: its new
    /// rectangles asked for, then checked, placed and written), plus each change of node as
    /// `update` does it. Allocates only when the workspace must grow.
    ///
    /// ```
    /// use quadstress::{ItemError, Quadtree, QuadtreeError, Rect, UpdateWorkspace};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// // The payload is each box's index in the caller's own arrays.
    /// let mut boxes: Vec<Rect> = (0..100)
    ///     .map(|i| Rect::from_min_size(i as f32, 1.0, 0.5, 0.5))
    ///     .collect();
    /// let ids: Vec<_> = (0..100)
    ///     .map(|i| tree.insert(boxes[i], i))
    ///     .collect::<Result<_, _>>()?;
    /// let mut ws = UpdateWorkspace::new();
    /// for (i, b) in boxes.iter_mut().enumerate() {
    ///     *b = Rect::from_min_size(99.0 - i as f32, 9.0, 0.5, 0.5);
    /// }
    /// tree.update_all(|item| boxes[*item.value], &mut ws)?;
    /// assert_eq!(tree.rect(ids[0]), Some(Rect::from_min_size(99.0, 9.0, 0.5, 0.5)));
    ///
    /// let bad = tree.update_all(|item| Rect::new(1.0, 0.0, 0.0, 1.0), &mut ws);
    /// let inverted = QuadtreeError::Inverted(Rect::new(1.0, 0.0, 0.0, 1.0));
    /// assert_eq!(bad.map_err(|e| e.error), Err(inverted));
    /// assert_eq!(tree.rect(ids[0]), Some(Rect::from_min_size(99.0, 9.0, 0.5, 0.5)));
    /// assert!(tree.validate().is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn update_all<F>(
        &mut self,
        mut new_rect: F,
        ws: &mut UpdateWorkspace,
    ) -> Result<(), ItemError>
    where
        F: FnMut(ItemRef<'_, T>) -> Rect,
    {
        let chunks = self.prepare_all(ws);
        let grid = &self.grid;
        for (nodes, plan) in self
            .nodes
            .chunks_mut(NODES_PER_CHUNK)
            .zip(&mut ws.node_chunks)
        {
            move_in_place(grid, nodes, plan, &mut new_rect);
        }
        self.finish_all(&ws.node_chunks[..chunks], |nodes, plans, put_back| {
            nodes
                .chunks_mut(NODES_PER_CHUNK)
                .zip(plans)
                .for_each(|(nodes, plan)| put_back(nodes, plan))
        })
    }

    /// Sizes the workspace for a walk over every node; returns the number of chunks.
    fn prepare_all(&self, ws: &mut UpdateWorkspace) -> usize {
        let chunks = self.nodes.len().div_ceil(NODES_PER_CHUNK);
        if ws.node_chunks.len() < chunks {
            ws.node_chunks.resize_with(chunks, NodeChunkPlan::default);
        }
        chunks
    }

    /// Passes 2 and 3, after pass 1 ran over every chunk. `each_chunk` runs a function over
    /// every chunk of nodes with its plan (on every core, or not): pass 2's putting back, or
    /// the moves in place that waited.
    fn finish_all<E>(&mut self, plans: &[NodeChunkPlan], each_chunk: E) -> Result<(), ItemError>
    where
        E: Fn(&mut [Node<T>], &[NodeChunkPlan], &(dyn Fn(&mut [Node<T>], &NodeChunkPlan) + Sync)),
    {
        // Each chunk kept its first refusal, so the first chunk with one has the first.
        if let Some(refused) = plans.iter().find_map(|c| c.refused) {
            let put_back = |nodes: &mut [Node<T>], plan: &NodeChunkPlan| {
                let mut waited = plan.deferred.iter().peekable();
                let mut at = 0;
                for (k, node) in nodes.iter_mut().enumerate() {
                    let len = node.items.len();
                    if len == 0 {
                        continue;
                    }
                    // A node whose moves waited holds what it held.
                    if waited.next_if(|&&(w, _)| w as usize == k).is_none() {
                        node.items.rewrite_from(&plan.rects[at..at + len]);
                    }
                    at += len;
                }
            };
            each_chunk(&mut self.nodes, plans, &put_back);
            return Err(refused);
        }
        if plans.iter().any(|c| !c.deferred.is_empty()) {
            let write_waiting = |nodes: &mut [Node<T>], plan: &NodeChunkPlan| {
                for &(k, at) in &plan.deferred {
                    let items = &mut nodes[k as usize].items;
                    let at = at as usize;
                    let len = items.len();
                    items.rewrite_from(&plan.rects[at..at + len]);
                }
            };
            each_chunk(&mut self.nodes, plans, &write_waiting);
        }
        // The rewrites in place touched no structure and moved no entry, so every node
        // planned is still right until the first change of node.
        for &(index, rect) in plans.iter().flat_map(|c| &c.regroups) {
            let slot = self.slots[index as usize];
            self.rewrite(index, slot.node, slot.pos, rect);
        }
        self.move_each(plans.iter().flat_map(|c| &c.moves).copied());
        Ok(())
    }
}

/// Pass 1 over one chunk of nodes: asks for, checks and places each item's new rectangle
/// against the tree as it stands, writes in place those that keep their node and group, and
/// lists the rest. A refused rectangle is noted (the chunk's first) and written nowhere; the
/// chunk goes on, so that it ends the same whichever form runs it.
#[inline]
fn move_in_place<T, F>(
    grid: &Grid,
    nodes: &mut [Node<T>],
    plan: &mut NodeChunkPlan,
    new_rect: &mut F,
) where
    F: FnMut(ItemRef<'_, T>) -> Rect,
{
    plan.rects.clear();
    plan.regroups.clear();
    plan.moves.clear();
    plan.deferred.clear();
    plan.refused = None;
    let this_grid = Some((grid.world, grid.max_depth()));
    if plan.inner_grid != this_grid {
        plan.inner.clear();
        plan.inner_grid = this_grid;
    }
    if plan.inner.len() < nodes.len() {
        plan.inner.resize(nodes.len(), CellBounds::NONE);
    }
    let mut next = nodes
        .iter_mut()
        .enumerate()
        .filter(|(_, n)| !n.items.is_empty())
        .peekable();
    while let Some((k, node)) = next.next() {
        // Each list is an allocation of its own: the next one's first blocks are requested
        // while this one is walked.
        if let Some((_, n)) = next.peek() {
            n.items.prefetch_blocks(NEXT_BLOCKS);
            n.items.prefetch_entries(NEXT_BLOCKS * W);
        }
        // The node's new rectangles first, in a loop of their own: what `new_rect` reads
        // (the caller's data, found by the payload) may lie anywhere, and its reads overlap
        // only if little work sits between them.
        let start = plan.rects.len();
        let wait = node.items.has_runs();
        if wait {
            plan.deferred.push((k as u32, start as u32));
        }
        plan.rects.resize(start + node.items.len(), ELSEWHERE);
        node.items
            .map_items(&mut plan.rects[start..], &mut *new_rect);
        if !grid.is_loose() && node.is_leaf() && node.items.is_plain() {
            // A leaf's items that stay inside its cell need no other check (see
            // `inner_bounds`); the rest take the full one.
            let known = &mut plan.inner[k];
            if (known.level, known.cx, known.cy) != (node.level, node.cx, node.cy) {
                *known = CellBounds {
                    level: node.level,
                    cx: node.cx,
                    cy: node.cy,
                    bounds: grid.inner_bounds(node.level, node.cx, node.cy),
                };
            }
            let inner = known.bounds;
            plan.rest.clear();
            node.items.swap_in_staying(
                &mut plan.rects[start..],
                |r| inner.holds_valid(r),
                &mut plan.rest,
            );
            for i in 0..plan.rest.len() {
                let p = plan.rest[i] as usize;
                place_one(grid, node, plan, start, p, false);
            }
        } else {
            for p in 0..node.items.len() {
                place_one(grid, node, plan, start, p, wait);
            }
        }
        if !wait {
            node.items.refresh_bands();
        }
    }
}

/// Pass 1's check and placement of the entry at `p` of `node`, whose new rectangle waits at
/// `plan.rects[start + p]`: refused (noted), a change of node or of group (listed), or a
/// move in place, written now (its old rectangle left in `plan.rects`) or, in a list with
/// runs (`wait`), left there to be written later.
#[inline(always)]
fn place_one<T>(
    grid: &Grid,
    node: &mut Node<T>,
    plan: &mut NodeChunkPlan,
    start: usize,
    p: usize,
    wait: bool,
) {
    let kept = &mut plan.rects[start + p];
    let rect = *kept;
    *kept = ELSEWHERE;
    let inside = grid.holds_valid(&rect);
    if !inside {
        if let Err(error) = rect.check() {
            if plan.refused.is_none() {
                let id = node.items.item(p).id;
                plan.refused = Some(ItemError { id, error });
            }
            return;
        }
    }
    let index = node.items[p].id.index;
    if !grid.still_fits(node, &rect, inside) {
        plan.moves.push((index, rect));
    } else if !node.items.keeps_group(p, &rect) {
        plan.regroups.push((index, rect));
    } else if wait {
        *kept = rect;
    } else {
        *kept = node.items.replace_in_group(p, &rect);
    }
}

#[cfg(feature = "rayon")]
impl<T: Send + Sync> Quadtree<T> {
    /// [`update_all`](Self::update_all) with the work spread over the current rayon pool
    /// (run it inside `pool.install` to choose the threads). The tree ends the same on every
    /// thread count, and the same as `update_all` leaves it, bit for bit.
    ///
    /// # Errors
    /// If any new rectangle would be refused by `update`, nothing changes and the first such
    /// item in [`iter`](Self::iter)'s order is reported. `new_rect` is called once per item
    /// (from any thread, in no fixed order).
    ///
    /// # Panics
    /// Only if `new_rect` does, with the tree left as `update_all` leaves it then (valid,
    /// each item at its old rectangle or its new one), for the chunks of nodes that were
    /// walked.
    ///
    /// # Runtime
    /// In parallel: each item's new rectangle, its check and placement, and the rewrite in
    /// place of each item that stays in its node. Then in order: the few moves that change
    /// node (an `update` each) or, in an internal node, change group. Allocates only when
    /// the workspace must grow.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect, UpdateWorkspace};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// for i in 0..100 {
    ///     tree.insert(Rect::from_min_size(i as f32, 1.0, 0.5, 0.5), i).unwrap();
    /// }
    /// let mut ws = UpdateWorkspace::new();
    /// // Every box one unit up.
    /// let up = |r: Rect| Rect::new(r.min_x, r.min_y + 1.0, r.max_x, r.max_y + 1.0);
    /// tree.par_update_all(|item| up(item.rect), &mut ws).unwrap();
    /// assert!(tree.iter().all(|item| item.rect.min_y == 2.0));
    /// assert!(tree.validate().is_ok());
    /// ```
    pub fn par_update_all<F>(
        &mut self,
        new_rect: F,
        ws: &mut UpdateWorkspace,
    ) -> Result<(), ItemError>
    where
        F: Fn(ItemRef<'_, T>) -> Rect + Sync,
    {
        let chunks = self.prepare_all(ws);
        let grid = &self.grid;
        self.nodes
            .par_chunks_mut(NODES_PER_CHUNK)
            .zip(ws.node_chunks[..chunks].par_iter_mut())
            .for_each(|(nodes, plan)| move_in_place(grid, nodes, plan, &mut &new_rect));
        self.finish_all(&ws.node_chunks[..chunks], |nodes, plans, put_back| {
            nodes
                .par_chunks_mut(NODES_PER_CHUNK)
                .zip(plans.par_iter())
                .for_each(|(nodes, plan)| put_back(nodes, plan))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{oracle, Config, Placement, QuadtreeError, Shape};

    /// A tree of `n` small boxes (payload: the box's index in the model), some large ones
    /// among them so that internal nodes hold straddlers, built in bulk (sorted runs) or one
    /// by one.
    fn tree(
        placement: Placement,
        bulk: bool,
        rng: &mut quadstress_testkit::TestRng,
    ) -> (Quadtree<u32>, Vec<Rect>) {
        let world = Rect::new(0.0, 0.0, 200.0, 200.0);
        let config = Config {
            leaf_capacity: 8,
            placement,
            ..Config::default()
        };
        let mut tree = Quadtree::with_config(world, config).unwrap();
        let model: Vec<Rect> = (0..3_000)
            .map(|i| {
                let side = if i % 50 == 0 { 20.0 } else { 1.0 };
                Rect::from_min_size(rng.range(0.0, 199.0), rng.range(0.0, 199.0), side, 1.0)
            })
            .collect();
        if bulk {
            let mut ids = Vec::new();
            tree.insert_many(model.iter().zip(0..).map(|(r, i)| (*r, i)), &mut ids)
                .unwrap();
        } else {
            for (i, r) in model.iter().enumerate() {
                tree.insert(*r, i as u32).unwrap();
            }
        }
        (tree, model)
    }

    /// Small steps for most, jumps (some out of the world) for a few, no move for some.
    fn next_rects(model: &mut [Rect], rng: &mut quadstress_testkit::TestRng) {
        for r in model.iter_mut() {
            match rng.below(20) {
                0 => {
                    *r = Rect::from_min_size(
                        rng.range(-20.0, 210.0),
                        rng.range(-20.0, 210.0),
                        rng.range(0.0, 30.0),
                        1.0,
                    )
                }
                1 => {}
                _ => {
                    let (dx, dy) = (rng.range(-0.5, 0.5), rng.range(-0.5, 0.5));
                    *r = Rect::new(r.min_x + dx, r.min_y + dy, r.max_x + dx, r.max_y + dy);
                }
            }
        }
    }

    /// Every item with its handle, rectangle and payload, in the tree's order.
    fn layout(t: &Quadtree<u32>) -> Vec<(u32, Rect, u32)> {
        t.iter()
            .map(|item| (item.id.index(), item.rect, *item.value))
            .collect()
    }

    /// Rounds of moves on exact and loose trees, built in bulk and one by one: after each,
    /// the tree is valid, every item is where the model says, and region queries and the
    /// pairs agree with brute force.
    #[test]
    fn moves_every_item_as_the_model_says() {
        for placement in [Placement::Exact, Placement::Loose] {
            for bulk in [true, false] {
                let mut rng = quadstress_testkit::TestRng::new(11);
                let (mut tree, mut model) = tree(placement, bulk, &mut rng);
                let mut ws = UpdateWorkspace::new();
                for round in 0..8 {
                    next_rects(&mut model, &mut rng);
                    tree.update_all(|item| model[*item.value as usize], &mut ws)
                        .unwrap();
                    tree.validate().unwrap();
                    assert_eq!(tree.len(), model.len());
                    for item in tree.iter() {
                        assert_eq!(item.rect, model[*item.value as usize], "round {round}");
                    }
                    let keyed: Vec<(u32, Rect)> = (0..).zip(model.iter().copied()).collect();
                    let q = Rect::from_min_size(
                        rng.range(0.0, 150.0),
                        rng.range(0.0, 150.0),
                        40.0,
                        30.0,
                    );
                    let mut got: Vec<u32> = Vec::new();
                    tree.for_each_in_rect(&q, |item| got.push(*item.value))
                        .unwrap();
                    got.sort_unstable();
                    assert_eq!(got, oracle::query_in_rect(&keyed, &q));
                    let mut pairs = Vec::new();
                    tree.for_each_pair(|a, b| {
                        let (a, b) = (*a.value, *b.value);
                        pairs.push((a.min(b), a.max(b)));
                    });
                    pairs.sort_unstable();
                    assert_eq!(pairs, oracle::query_pairs(&keyed));
                }
            }
        }
    }

    /// A refused rectangle (NaN, infinite, inverted) leaves the tree as it was, every item in
    /// place, and names the first refused item in the tree's order.
    #[test]
    fn a_refused_rectangle_changes_nothing() {
        let mut rng = quadstress_testkit::TestRng::new(5);
        let (mut tree, mut model) = tree(Placement::Exact, true, &mut rng);
        let mut ws = UpdateWorkspace::new();
        let bad = [
            Rect::new(f32::NAN, 0.0, 1.0, 1.0),
            Rect::new(0.0, 0.0, f32::INFINITY, 1.0),
        ]
        .map(|r| (r, QuadtreeError::NonFinite(Shape::Rect(r))))
        .into_iter()
        .chain([Rect::new(3.0, 0.0, 1.0, 1.0)].map(|r| (r, QuadtreeError::Inverted(r))));
        for (k, (bad_rect, error)) in bad.into_iter().enumerate() {
            let before = layout(&tree);
            next_rects(&mut model, &mut rng);
            // Two refused items, far apart in the tree's order: the first is reported.
            let order: Vec<u32> = before.iter().map(|e| e.2).collect();
            let (first, later) = (order[order.len() / 3 + k], order[order.len() - 1 - k]);
            let got = tree.update_all(
                |item| match *item.value {
                    v if v == first || v == later => bad_rect,
                    v => model[v as usize],
                },
                &mut ws,
            );
            let id = tree.iter().find(|i| *i.value == first).unwrap().id;
            assert_eq!(got, Err(ItemError { id, error }));
            assert_eq!(layout(&tree), before);
            tree.validate().unwrap();
            // The model goes back to what the tree holds.
            for (_, r, v) in before {
                model[v as usize] = r;
            }
        }
    }

    /// A refused walk over lists with sorted runs leaves the whole tree as it was, runs
    /// included: writing into a run widens its reach for good, so those lists wait for the
    /// refusal check. The boxes slide far along the line they cross (they would widen the
    /// run most), and the last in the tree's order is refused.
    #[test]
    fn a_refused_walk_leaves_the_sorted_runs_as_they_were() {
        let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 800.0, 600.0)).unwrap();
        // Boxes across the vertical centre line, stacked along it, and a few small ones in
        // the leaves.
        let mut items: Vec<(Rect, u32)> = (0..2_000u32)
            .map(|i| {
                let y = i as f32 * 0.25;
                (Rect::new(395.0, y, 405.0, y + 2.0), i)
            })
            .collect();
        items.extend((0..500u32).map(|i| {
            let (x, y) = ((i % 25) as f32 * 12.0 + 20.0, (i / 25) as f32 * 20.0 + 5.0);
            (Rect::from_min_size(x, y, 1.0, 1.0), 2_000 + i)
        }));
        let mut ids = Vec::new();
        tree.insert_many(items, &mut ids).unwrap();
        let before = format!("{tree:?}");
        let last = *tree.iter().last().unwrap().value;
        let slide = |item: ItemRef<'_, u32>| {
            let r = item.rect;
            match *item.value {
                v if v == last => Rect::new(f32::NAN, 0.0, 1.0, 1.0),
                v if v < 2_000 => Rect::new(r.min_x, 498.0 - r.min_y, r.max_x, 500.0 - r.min_y),
                _ => Rect::new(r.min_x + 0.5, r.min_y, r.max_x + 0.5, r.max_y),
            }
        };
        let mut ws = UpdateWorkspace::new();
        assert!(tree.update_all(slide, &mut ws).is_err());
        assert_eq!(format!("{tree:?}"), before);
        tree.validate().unwrap();
    }

    /// Serial and on 1, 2, 3 and 8 threads, the same rounds leave the same tree, bit for bit
    /// (the same items in the same order in the same nodes), and a refused round the same
    /// error.
    #[cfg(feature = "rayon")]
    #[test]
    fn the_same_tree_on_any_thread_count() {
        let threads = [0, 1, 2, 3, 8];
        let mut trees = Vec::new();
        let mut model = Vec::new();
        for _ in threads {
            let mut rng = quadstress_testkit::TestRng::new(3);
            let (t, m) = tree(Placement::Exact, true, &mut rng);
            trees.push(t);
            model = m;
        }
        let mut rng = quadstress_testkit::TestRng::new(4);
        let mut ws = UpdateWorkspace::new();
        for round in 0..6 {
            next_rects(&mut model, &mut rng);
            if round == 4 {
                model[17] = Rect::new(0.0, f32::NAN, 1.0, 1.0);
            }
            let mut results = Vec::new();
            for (tree, &t) in trees.iter_mut().zip(&threads) {
                let new_rect = |item: ItemRef<'_, u32>| model[*item.value as usize];
                results.push(if t == 0 {
                    tree.update_all(new_rect, &mut ws)
                } else {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(t)
                        .build()
                        .unwrap();
                    pool.install(|| tree.par_update_all(new_rect, &mut ws))
                });
                tree.validate().unwrap();
            }
            // Each tree has its own handles (each carries its tree's id): compare the slots.
            let results: Vec<_> = results
                .iter()
                .map(|r| r.map_err(|e| (e.id.index(), e.error)))
                .collect();
            assert!(results.windows(2).all(|w| w[0] == w[1]), "round {round}");
            assert_eq!(results[0].is_err(), round == 4);
            if round == 4 {
                for item in trees[0].iter() {
                    model[*item.value as usize] = item.rect;
                }
            }
            let first = layout(&trees[0]);
            assert!(trees.iter().all(|t| layout(t) == first), "round {round}");
            let nodes =
                |t: &Quadtree<u32>| t.nodes().map(|n| (n.rect, n.items)).collect::<Vec<_>>();
            assert!(trees.iter().all(|t| nodes(t) == nodes(&trees[0])));
        }
    }
}
