//! Many moves at once: the checks, the placements and the rewrites in place (on every core with
//! feature `rayon`), the few changes of structure in a fixed order.
//!
//! Passes:
//! 1. over fixed chunks of the batch, in parallel, reading the tree only: each move's
//!    rectangle is checked and placed against the tree as it stands, and the move is planned
//!    as a rewrite in place (its item keeps its node and, in an internal node, its group), a
//!    change of group, or a change of node; the last two are listed in batch order. Each
//!    chunk also notes whether its moves are in slot order (move `i` names slot `i`, as the
//!    handles of a tree built in one go and never thinned are);
//! 2. unless every move is in slot order, over the same chunks, in parallel: each move
//!    writes its batch index into its handle's slot (its stamp); then each move checks that
//!    it holds its stamp, or its handle comes twice. A batch in slot order names each handle
//!    once, and slot `i`'s move is move `i`: it needs no stamps;
//! 3. for a batch of at least a quarter of the tree's items, over the nodes, in parallel:
//!    each node rewrites in place the entries whose slot's move (by slot order, or by stamp)
//!    is a rewrite, then recomputes its bands (a node's list is its own, so no two tasks
//!    write one place, and no entry moves). A smaller batch rewrites one move at a time, in
//!    batch order, which spares it the walk over every node;
//! 4. in batch order, on one thread: the changes of group, then the changes of node, as
//!    [`Quadtree::update`] would do them.
//!
//! Passes 1, 3 and 4 read and write where slots point, which in a large tree is a cache miss
//! per access (pass 1 reads each move's node; pass 3 each entry's plan by its slot; a change
//! of node touches its slot, two places in its old list and the end of its new one). Each
//! requests those places some moves or entries ahead (a prefetch, a hint that changes
//! nothing), so that the misses overlap instead of coming one after the other: pass 4 is
//! serial, so at a million items this is what limits two threads most.
//!
//! A refused move stops the batch after pass 1, before any write; a batch that names a
//! handle twice goes one `update` at a time, in order, from there. What each pass does
//! depends only on the tree and the batch, never on the threads, so the tree ends the same on
//! any thread count.

use std::sync::atomic::{AtomicU32, Ordering};

#[cfg(feature = "rayon")]
use rayon::prelude::*;

use super::shared::{BatchError, ChunkPlan, Planned, UpdateWorkspace, NOT_REWRITE};
use crate::quadtree::{simd, ItemId, Node, Quadtree, QuadtreeError, Rect};

/// Moves per task: a move is a few dozen instructions, and each chunk keeps two short lists
/// of its own.
const CHUNK: usize = 4096;

/// Nodes per task at least in pass 3: most nodes hold a few dozen items.
#[cfg(feature = "rayon")]
const MIN_NODES_PER_TASK: usize = 64;

/// How many moves ahead pass 1 requests the node a move is placed against.
const NODES_AHEAD: usize = 8;

/// A batch of at least `1 / LARGE_BATCH` of the tree's items rewrites through pass 3's walk.
const LARGE_BATCH: usize = 4;

impl<T> Quadtree<T> {
    /// Moves item `ids[i]` to `rect_of(i)` for every `i`, as calling
    /// [`update`](Self::update) for each in order would, in fewer steps: every move is
    /// checked and placed first, the moves that stay in their nodes rewrite their rectangles
    /// in place, and only the moves that change node go through `update`'s path. A handle
    /// given twice ends at its last rectangle. With feature `rayon`, `par_update_many` does
    /// the same on every core and leaves the same tree, bit for bit, on any thread count.
    ///
    /// "As one `update` each" means: the same items with the same rectangles, handles and
    /// payloads, so every query, iterator and pair search finds the same items; and the same
    /// nodes holding the same items (which nodes exist and what each holds follow from the
    /// boxes alone, as after a fresh build of them). What may differ is order: the order of
    /// the nodes (as [`nodes`](Self::nodes) lists them, which is also the order the pair
    /// search reports pairs in) and of the items within a node, because the moves that stay
    /// in their nodes are rewritten before the others run their splits and merges, which
    /// hand out node blocks in another order. A simulation that depends on the pair order
    /// stays deterministic as long as it makes the same calls on every run: `update_many` and
    /// `par_update_many` agree in that order too.
    ///
    /// # Errors
    /// If any move would be refused by `update` (stale handle, bad rectangle), nothing
    /// changes and the first such move is reported with its index. `rect_of` is called once
    /// per move.
    ///
    /// # Runtime
    /// O(batch) for the checks and placements, plus each change of node as `update` does it;
    /// a batch of at least a quarter of the tree's items rewrites in place node by node
    /// (O(items)), a smaller one move by move. Allocates only when the workspace must grow.
    ///
    /// ```
    /// use quadstress::{BatchError, Quadtree, QuadtreeError, Rect, UpdateWorkspace};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let ids: Vec<_> = (0..100)
    ///     .map(|i| tree.insert(Rect::from_min_size(i as f32, 1.0, 0.5, 0.5), i))
    ///     .collect::<Result<_, _>>()?;
    /// let mut ws = UpdateWorkspace::new();
    /// let to = |i: usize| Rect::from_min_size(99.0 - i as f32, 9.0, 0.5, 0.5);
    /// tree.update_many(&ids, to, &mut ws)?;
    /// assert_eq!(tree.rect(ids[0]), Some(Rect::from_min_size(99.0, 9.0, 0.5, 0.5)));
    ///
    /// let bad = tree.update_many(&ids, |i| Rect::new(i as f32, 0.0, 0.0, 1.0), &mut ws);
    /// let inverted = QuadtreeError::Inverted(Rect::new(1.0, 0.0, 0.0, 1.0));
    /// assert_eq!(bad, Err(BatchError { index: 1, error: inverted }));
    /// assert!(tree.validate().is_ok());
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn update_many<F>(
        &mut self,
        ids: &[ItemId],
        rect_of: F,
        ws: &mut UpdateWorkspace,
    ) -> Result<(), BatchError>
    where
        F: Fn(usize) -> Rect,
    {
        let chunks = self.prepare_batch(ids.len(), ws);
        for (k, ((plan, ids), out)) in ws.plan[..ids.len()]
            .chunks_mut(CHUNK)
            .zip(ids.chunks(CHUNK))
            .zip(&mut ws.chunks[..chunks])
            .enumerate()
        {
            self.plan_chunk(k * CHUNK, ids, plan, out, &rect_of);
        }
        if needs_stamps(&ws.chunks[..chunks]) {
            for (k, ids) in ids.chunks(CHUNK).enumerate() {
                stamp(k * CHUNK, ids, &ws.stamps);
            }
            for (k, (ids, out)) in ids.chunks(CHUNK).zip(&mut ws.chunks).enumerate() {
                out.twice = !holds_stamps(k * CHUNK, ids, &ws.stamps);
            }
        }
        self.finish_batch(ids, ws, |nodes, rewrite| nodes.iter_mut().for_each(rewrite))
    }

    /// Sizes the workspace for a batch of `n` moves; returns the number of chunks.
    fn prepare_batch(&self, n: usize, ws: &mut UpdateWorkspace) -> usize {
        if ws.plan.len() < n {
            ws.plan.resize(n, Planned::default());
        }
        let chunks = n.div_ceil(CHUNK);
        if ws.chunks.len() < chunks {
            ws.chunks.resize_with(chunks, ChunkPlan::default);
        }
        if ws.stamps.len() < self.slots.len() {
            ws.stamps
                .resize_with(self.slots.len(), || AtomicU32::new(u32::MAX));
        }
        chunks
    }

    /// Pass 1 over one chunk of the batch, whose first move is `first`: plans each move
    /// against the tree as it stands, and notes whether the chunk is in slot order. Stops at
    /// the first refused move.
    #[inline]
    fn plan_chunk<F: Fn(usize) -> Rect>(
        &self,
        first: usize,
        ids: &[ItemId],
        plan: &mut [Planned],
        out: &mut ChunkPlan,
        rect_of: &F,
    ) {
        out.regroups.clear();
        out.moves.clear();
        out.refused = None;
        out.twice = false;
        let mut in_order = true;
        for (j, (&id, p)) in ids.iter().zip(plan.iter_mut()).enumerate() {
            // The node each move is placed against, requested `NODES_AHEAD` moves early: the
            // nodes are few, but the batch's streams push them out of the first caches.
            if let Some(slot) = ids
                .get(j + NODES_AHEAD)
                .and_then(|a| self.slots.get(a.index as usize))
            {
                if let Some(node) = self.nodes.get(slot.node as usize) {
                    simd::prefetch(node);
                }
            }
            let i = first + j;
            let rect = rect_of(i);
            let inside = self.grid.holds_valid(&rect);
            if !inside {
                if let Err(error) = rect.check() {
                    out.refused = Some((i, error));
                    break;
                }
            }
            let Some(slot) = self.live_slot(id) else {
                out.refused = Some((i, QuadtreeError::StaleId));
                break;
            };
            in_order &= id.index as usize == i;
            let node = &self.nodes[slot.node as usize];
            let mut rewrite = NOT_REWRITE;
            if !self.still_fits(node, &rect, inside) {
                out.moves.push(i as u32);
            } else if !node.items.keeps_group(slot.pos as usize, &rect) {
                out.regroups.push(i as u32);
            } else {
                rewrite = id.index;
            }
            *p = Planned { rect, rewrite };
        }
        // A refused chunk is not in order: the batch stops anyway.
        out.in_order = in_order && out.refused.is_none();
    }

    /// Passes 3 and 4, after passes 1 and 2 planned every move.
    /// `each_node` runs pass 3's rewrite over every node (on every core, or not).
    fn finish_batch<E>(
        &mut self,
        ids: &[ItemId],
        ws: &UpdateWorkspace,
        each_node: E,
    ) -> Result<(), BatchError>
    where
        E: FnOnce(&mut [Node<T>], &(dyn Fn(&mut Node<T>) + Sync)),
    {
        let n = ids.len();
        let chunks = &ws.chunks[..n.div_ceil(CHUNK)];
        // Each chunk stopped at its first refusal, so the first chunk with one has the first.
        if let Some((index, error)) = chunks.iter().find_map(|c| c.refused) {
            return Err(BatchError { index, error });
        }
        let (plan, stamps) = (&ws.plan[..n], &ws.stamps);
        // A batch longer than `u32::MAX` has a handle twice (there are fewer slots), whatever
        // the stamps say.
        if n > u32::MAX as usize || chunks.iter().any(|c| c.twice) {
            for (&id, p) in ids.iter().zip(plan) {
                let done = self.update(id, p.rect);
                debug_assert!(done.is_ok(), "checked in pass 2");
            }
            return Ok(());
        }
        if n >= self.len / LARGE_BATCH {
            // In slot order, slot `s` of the batch is move `s`. Otherwise every slot of the
            // batch holds its own move's index, and a slot outside it an older index, whose
            // plan (if there is one) names another slot.
            let in_order = chunks.iter().all(|c| c.in_order);
            let new_rect = |slot: u32| {
                let at = if in_order {
                    slot as usize
                } else {
                    stamps[slot as usize].load(Ordering::Relaxed) as usize
                };
                let p = plan.get(at)?;
                (p.rewrite == slot).then_some(p.rect)
            };
            // The walk reads each entry's plan (or stamp) where its slot says: a scattered
            // read per entry, requested a few entries ahead.
            let ahead = |slot: u32| {
                if in_order {
                    if let Some(p) = plan.get(slot as usize) {
                        simd::prefetch(p);
                    }
                } else if let Some(stamp) = stamps.get(slot as usize) {
                    simd::prefetch(stamp);
                }
            };
            let rewrite = |node: &mut Node<T>| {
                node.items.rewrite_each(new_rect, ahead);
            };
            each_node(&mut self.nodes, &rewrite);
        } else {
            for p in plan.iter().filter(|p| p.rewrite != NOT_REWRITE) {
                let slot = self.slots[p.rewrite as usize];
                self.rewrite(p.rewrite, slot.node, slot.pos, p.rect);
            }
        }
        // The rewrites in place touched no structure and moved no entry, so every node
        // planned is still right until the first change of node.
        for &i in chunks.iter().flat_map(|c| &c.regroups) {
            let index = ids[i as usize].index;
            let slot = self.slots[index as usize];
            self.rewrite(index, slot.node, slot.pos, plan[i as usize].rect);
        }
        // Checked in pass 1, and no handle comes twice: each slot is still live.
        let moves = chunks.iter().flat_map(|c| &c.moves);
        self.move_each(moves.map(|&i| (ids[i as usize].index, plan[i as usize].rect)));
        Ok(())
    }
}

#[cfg(feature = "rayon")]
impl<T: Send + Sync> Quadtree<T> {
    /// [`update_many`](Self::update_many) with the work spread over the current rayon pool
    /// (run it inside `pool.install` to choose the threads). The tree ends the same on every
    /// thread count, and the same as `update_many` leaves it, bit for bit: the same nodes in
    /// the same order, the same items in the same order in each (see `update_many` for how
    /// both compare with one `update` each). A handle given twice ends at its last rectangle.
    ///
    /// # Errors
    /// If any move would be refused by `update` (stale handle, bad rectangle), nothing
    /// changes and the first such move is reported. `rect_of` is called once per move.
    ///
    /// # Runtime
    /// In parallel: each move's check and placement and, for a batch of at least a quarter
    /// of the tree's items, the rewrite in place of each item that stays in its node. Then
    /// in order: the few moves that change node (an `update` each) or, in an internal node,
    /// change group; a smaller batch also rewrites in place there. Allocates only when the
    /// workspace must grow.
    ///
    /// ```
    /// use quadstress::{BatchError, Quadtree, QuadtreeError, Rect, UpdateWorkspace};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let ids: Vec<_> = (0..100)
    ///     .map(|i| tree.insert(Rect::from_min_size(i as f32, 1.0, 0.5, 0.5), i).unwrap())
    ///     .collect();
    /// let mut ws = UpdateWorkspace::new();
    /// tree.par_update_many(&ids, |i| Rect::from_min_size(i as f32, 50.0, 0.5, 0.5), &mut ws)
    ///     .unwrap();
    /// assert_eq!(tree.rect(ids[7]), Some(Rect::from_min_size(7.0, 50.0, 0.5, 0.5)));
    /// let bad = tree.par_update_many(&ids, |i| Rect::new(i as f32, 0.0, 0.0, 1.0), &mut ws);
    /// let inverted = QuadtreeError::Inverted(Rect::new(1.0, 0.0, 0.0, 1.0));
    /// assert_eq!(bad, Err(BatchError { index: 1, error: inverted }));
    /// assert!(tree.validate().is_ok());
    /// ```
    pub fn par_update_many<F>(
        &mut self,
        ids: &[ItemId],
        rect_of: F,
        ws: &mut UpdateWorkspace,
    ) -> Result<(), BatchError>
    where
        F: Fn(usize) -> Rect + Sync,
    {
        if rayon::current_num_threads() == 1 {
            return self.update_many(ids, rect_of, ws);
        }
        let chunks = self.prepare_batch(ids.len(), ws);
        let UpdateWorkspace {
            plan,
            chunks: outs,
            stamps,
            ..
        } = ws;
        let this = &*self;
        plan[..ids.len()]
            .par_chunks_mut(CHUNK)
            .zip(ids.par_chunks(CHUNK))
            .zip(outs[..chunks].par_iter_mut())
            .enumerate()
            .for_each(|(k, ((plan, ids), out))| {
                this.plan_chunk(k * CHUNK, ids, plan, out, &rect_of);
            });
        if needs_stamps(&outs[..chunks]) {
            ids.par_chunks(CHUNK)
                .enumerate()
                .for_each(|(k, ids)| stamp(k * CHUNK, ids, stamps));
            ids.par_chunks(CHUNK)
                .zip(outs[..chunks].par_iter_mut())
                .enumerate()
                .for_each(|(k, (ids, out))| out.twice = !holds_stamps(k * CHUNK, ids, stamps));
        }
        self.finish_batch(ids, ws, |nodes, rewrite| {
            nodes
                .par_iter_mut()
                .with_min_len(MIN_NODES_PER_TASK)
                .for_each(rewrite)
        })
    }
}

/// Whether a planned batch needs pass 2: no move was refused (a refused batch stops before
/// it, and its handles may lie beyond the stamps), and some chunk is out of slot order.
fn needs_stamps(chunks: &[ChunkPlan]) -> bool {
    chunks.iter().all(|c| c.refused.is_none()) && !chunks.iter().all(|c| c.in_order)
}

/// Pass 2 over one chunk of the batch, whose first move is `first`: each move's batch index
/// into its slot's stamp (a handle beyond the slots is stale, and was refused in pass 1).
#[inline]
fn stamp(first: usize, ids: &[ItemId], stamps: &[AtomicU32]) {
    for (j, id) in ids.iter().enumerate() {
        if let Some(s) = stamps.get(id.index as usize) {
            s.store((first + j) as u32, Ordering::Relaxed);
        }
    }
}

/// The second half of pass 2, once every stamp is written: whether each move of the chunk
/// holds its slot's stamp (one that does not shares its handle with a later move).
#[inline]
fn holds_stamps(first: usize, ids: &[ItemId], stamps: &[AtomicU32]) -> bool {
    ids.iter()
        .enumerate()
        .all(|(j, id)| stamps[id.index as usize].load(Ordering::Relaxed) == (first + j) as u32)
}

#[cfg(all(test, feature = "rayon"))]
mod tests {
    use super::*;
    use crate::{oracle, Config, Placement, Shape};

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// Random batches (small steps, jumps, handles given twice, a few refused batches) on
    /// exact and loose trees, large ones (rewritten node by node) and small ones (move by
    /// move): after each, the tree is valid, every item is where the model says, queries
    /// agree with brute force, and the serial form and 1, 2, 3 and 8 threads leave the same
    /// tree.
    #[test]
    fn batches_match_one_by_one_updates_on_any_thread_count() {
        let cases = [Placement::Exact, Placement::Loose]
            .into_iter()
            .flat_map(|p| [(p, 4_000usize), (p, 1_000)]);
        for (placement, batch_len) in cases {
            let world = Rect::new(0.0, 0.0, 200.0, 200.0);
            let config = Config {
                leaf_capacity: 8,
                placement,
                ..Config::default()
            };
            let threads = [0, 1, 2, 3, 8];
            let mut trees: Vec<Quadtree<u32>> = threads
                .iter()
                .map(|_| Quadtree::with_config(world, config).unwrap())
                .collect();
            let mut rng = quadstress_testkit::TestRng::new(7);
            let mut model = Vec::new();
            // Each tree has its own handles (each carries its tree's id).
            let mut ids = vec![Vec::new(); trees.len()];
            for i in 0..6_000u32 {
                let r = Rect::from_min_size(rng.range(0.0, 199.0), rng.range(0.0, 199.0), 1.0, 1.0);
                for (tree, ids) in trees.iter_mut().zip(&mut ids) {
                    ids.push(tree.insert(r, i).unwrap());
                }
                model.push((i, r));
            }
            let mut ws = UpdateWorkspace::new();
            for round in 0..12u64 {
                // A batch: mostly small steps, some jumps, some handles twice.
                let mut batch = Vec::new();
                let mut rects = Vec::new();
                // Every third round takes the first handles in slot order (no stamps needed);
                // other odd rounds draw handles at random (so some come twice); other even
                // rounds take distinct ones, with a stride prime to the item count.
                let start = rng.below(model.len() as u64) as usize;
                for j in 0..batch_len {
                    let k = if round % 3 == 0 {
                        j
                    } else if round % 2 == 1 {
                        rng.below(model.len() as u64) as usize
                    } else {
                        (start + 7 * j) % model.len()
                    };
                    let old = model[k].1;
                    let r = if rng.below(10) == 0 {
                        Rect::from_min_size(
                            rng.range(-20.0, 210.0),
                            rng.range(-20.0, 210.0),
                            rng.range(0.0, 30.0),
                            1.0,
                        )
                    } else {
                        let (dx, dy) = (rng.range(-0.5, 0.5), rng.range(-0.5, 0.5));
                        Rect::new(
                            old.min_x + dx,
                            old.min_y + dy,
                            old.max_x + dx,
                            old.max_y + dy,
                        )
                    };
                    batch.push(k);
                    rects.push(r);
                }
                let refuse = round % 4 == 3;
                if refuse {
                    rects[batch_len / 3] = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
                    rects[batch_len / 2] = Rect::new(3.0, 0.0, 1.0, 1.0);
                }
                let mut results = Vec::new();
                for ((tree, &t), ids) in trees.iter_mut().zip(&threads).zip(&ids) {
                    let handles: Vec<ItemId> = batch.iter().map(|&k| ids[k]).collect();
                    // Thread count 0: the serial form, outside any pool.
                    results.push(if t == 0 {
                        tree.update_many(&handles, |i| rects[i], &mut ws)
                    } else {
                        pool(t).install(|| tree.par_update_many(&handles, |i| rects[i], &mut ws))
                    });
                    tree.validate().unwrap();
                }
                assert!(results.windows(2).all(|w| w[0] == w[1]));
                if refuse {
                    let expected = BatchError {
                        index: batch_len / 3,
                        error: QuadtreeError::NonFinite(Shape::Rect(Rect::new(
                            f32::NAN,
                            0.0,
                            1.0,
                            1.0,
                        ))),
                    };
                    assert_eq!(results[0], Err(expected));
                } else {
                    assert_eq!(results[0], Ok(()));
                    for (&k, r) in batch.iter().zip(&rects) {
                        model[k].1 = *r;
                    }
                }
                for (tree, ids) in trees.iter().zip(&ids) {
                    for (k, id) in ids.iter().enumerate() {
                        assert_eq!(tree.rect(*id), Some(model[k].1));
                    }
                }
                let q =
                    Rect::from_min_size(rng.range(0.0, 150.0), rng.range(0.0, 150.0), 50.0, 50.0);
                let mut hits = Vec::new();
                trees[1].query_in_rect(&q, &mut hits).unwrap();
                let mut got: Vec<u32> = hits.iter().map(|id| *trees[1].get(*id).unwrap()).collect();
                got.sort_unstable();
                assert_eq!(got, oracle::query_in_rect(&model, &q));
                let layout = |t: &Quadtree<u32>| {
                    t.iter()
                        .map(|item| (item.id.index(), item.rect))
                        .collect::<Vec<_>>()
                };
                let first = layout(&trees[0]);
                assert!(trees.iter().all(|t| layout(t) == first), "round {round}");
            }
            let stale = ids[0][5];
            trees[0].remove(stale);
            let r = trees[0].update_many(
                &[ids[0][4], stale],
                |_| Rect::new(1.0, 1.0, 2.0, 2.0),
                &mut ws,
            );
            assert_eq!(
                r,
                Err(BatchError {
                    index: 1,
                    error: QuadtreeError::StaleId
                })
            );
        }
    }
}
