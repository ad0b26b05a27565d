//! [`Quadtree::par_insert_many`], bulk placement on every core (feature `rayon`): the
//! passes of `bulk`, with the per-item
//! ones over the items in parallel and the filling of the lists over the nodes in parallel.
//! Each list receives its group in input order, as in the serial build, so the tree is the
//! same on any thread count, and the same as [`Quadtree::insert_many`] makes.

use rayon::prelude::*;

use super::fill::FILL_AHEAD;
use super::scratch::{HandlesOut, Staged};
use crate::quadtree::{
    simd, BatchError, Entry, ItemId, Node, Quadtree, QuadtreeError, Rect, SlotKey, MAX_ITEMS, NULL,
};

/// Batches smaller than this are staged and placed on the caller's thread: the same tree,
/// without the parallel passes' overhead.
const MIN_PARALLEL_ITEMS: usize = 4096;

/// Items per task at least in the per-item passes.
const MIN_ITEMS_PER_TASK: usize = 4096;

/// Nodes per task at least when filling the lists: most nodes hold a few dozen items.
const MIN_NODES_PER_TASK: usize = 32;

impl<T: Send + Sync> Quadtree<T> {
    /// Inserts `n` items at once, item `i` with the rectangle `rect_of(i)` and the payload
    /// `value_of(i)`, with the work spread over the current rayon pool (run it inside
    /// `pool.install` to choose the threads). The tree ends the same on every thread count,
    /// and the same as [`insert_many`](Self::insert_many) of the same items in index order
    /// leaves it; the handles are appended to `ids` in index order.
    ///
    /// All or nothing: every rectangle is checked before anything changes. `rect_of` is
    /// called once per item, and `value_of` once per item after every check has passed.
    ///
    /// # Runtime
    /// As [`insert_many`](Self::insert_many). In parallel: the rectangles, their checks
    /// and places, each item's node, and the filling of the nodes' lists. In order, on one
    /// thread: the counts of the places, the handles (a walk of the free slots), the shape
    /// of the tree, the grouping of the items by node and the slots' records of where their
    /// items went.
    /// Items already stored are placed anew with the rest, on one thread, and so is a batch
    /// of fewer than 4,096 items. Allocates nothing once its buffers have grown to the
    /// largest batch.
    ///
    /// # Panics
    /// A panic in `rect_of` or `value_of` goes on to the caller, and `ids` is left as it was
    /// (as [`insert_many`](Self::insert_many) leaves it when its iterator panics). One in
    /// `rect_of` leaves the tree unchanged; one in `value_of` comes after the tree was taken
    /// apart, and leaves it cleared (every handle stale), never half-built.
    ///
    /// # Errors
    /// A [`BatchError`]: [`QuadtreeError::Full`] if `n` more items would not all get handles
    /// (checked first; the index is the first item that would not),
    /// [`QuadtreeError::OutOfMemory`] (index 0) if the allocator refuses the staging buffers,
    /// else [`QuadtreeError::NonFinite`] or [`QuadtreeError::Inverted`] for the bad
    /// rectangle of lowest index, with that index. The tree and `ids` are unchanged then.
    ///
    /// ```
    /// use quadstress::{BatchError, Quadtree, QuadtreeError, Rect};
    /// let rect_of = |i: usize| Rect::from_min_size((i % 100) as f32, (i / 10) as f32, 0.5, 0.5);
    /// let mut serial = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let mut ids = Vec::new();
    /// serial.insert_many((0..1000).map(|i| (rect_of(i), i)), &mut ids).unwrap();
    ///
    /// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut parallel = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let mut par_ids = Vec::new();
    /// pool.install(|| parallel.par_insert_many(1000, rect_of, |i| i, &mut par_ids)).unwrap();
    /// assert_eq!(parallel.get(par_ids[123]), Some(&123));
    /// assert!(parallel.validate().is_ok());
    /// // The same nodes, the same items in the same order in each, the same handles.
    /// let items = |t: &Quadtree<usize>| {
    ///     t.iter().map(|item| (item.id.index(), item.rect, *item.value)).collect::<Vec<_>>()
    /// };
    /// assert_eq!(items(&parallel), items(&serial));
    /// assert_eq!(parallel.nodes().len(), serial.nodes().len());
    ///
    /// let bad = |i: usize| if i == 7 { Rect::new(2.0, 0.0, 1.0, 1.0) } else { rect_of(i) };
    /// let refused = pool.install(|| parallel.par_insert_many(10, bad, |i| i, &mut par_ids));
    /// assert_eq!(refused, Err(BatchError { index: 7, error: QuadtreeError::Inverted(bad(7)) }));
    /// assert_eq!((parallel.len(), par_ids.len()), (1000, 1000));
    /// ```
    pub fn par_insert_many<R, V>(
        &mut self,
        n: usize,
        rect_of: R,
        value_of: V,
        ids: &mut Vec<ItemId>,
    ) -> Result<usize, BatchError>
    where
        R: Fn(usize) -> Rect + Sync + Send,
        V: Fn(usize) -> T + Sync + Send,
    {
        let room = MAX_ITEMS.saturating_sub(self.slots.len());
        if n > room {
            return Err(BatchError {
                index: room,
                error: QuadtreeError::Full,
            });
        }
        let out_of_memory = BatchError {
            index: 0,
            error: QuadtreeError::OutOfMemory,
        };
        // Stage 1: stage, check and place everything before touching the tree.
        let mut b = std::mem::take(&mut self.bulk);
        b.clear_items();
        b.reset_cells(self.config.max_depth);
        if b.items.try_reserve(n).is_err() || b.routes.try_reserve(n).is_err() {
            self.bulk = b;
            return Err(out_of_memory);
        }
        let placeholder = SlotKey {
            index: NULL,
            generation: 0,
        };
        let parallel = n >= MIN_PARALLEL_ITEMS;
        if !parallel {
            b.items.extend((0..n).map(|i| Staged {
                rect: rect_of(i),
                key: placeholder,
                value: None,
            }));
            for (index, staged) in b.items.iter().enumerate() {
                if let Err(error) = staged.rect.check() {
                    b.clear_items();
                    self.bulk = b;
                    return Err(BatchError { index, error });
                }
                let cell = self.cell_index(&staged.rect);
                b.cells[cell as usize] += 1;
                b.routes.push(cell);
            }
            self.bulk = b;
        } else {
            self.bulk = b;
            if let Err(e) = self.par_stage(n, &rect_of) {
                self.bulk.clear_items();
                return Err(e);
            }
        }
        // Stage 2: handles, on one thread: the free chain is a chain, and the generations and
        // handles written along the walk cost less than a parallel pass of their own.
        // The handles go back out of `ids` if anything below panics.
        let mut out = HandlesOut::new(ids);
        self.stage_handles(n, out.ids)
            .map_err(|error| BatchError { index: 0, error })?;
        // Stage 3: everything already stored joins the staging area, and all is placed anew.
        self.stage_stored();
        // A panic in `value_of` stops the filling half-way: the tree is cleared before it
        // goes on, so that it is never left inconsistent.
        let placed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if self.bulk.items.len() > n || !parallel {
                self.place_staged(n, &value_of);
            } else {
                self.par_place_staged(&value_of);
            }
        }));
        if let Err(panic) = placed {
            self.bulk.clear_items();
            self.clear();
            std::panic::resume_unwind(panic);
        }
        out.keep();
        Ok(n)
    }

    /// Stage 1 of a large batch on every core: each item's rectangle, check and cell, and
    /// the cells' counts; the bad rectangle of lowest index if any.
    fn par_stage<R>(&mut self, n: usize, rect_of: &R) -> Result<(), BatchError>
    where
        R: Fn(usize) -> Rect + Sync + Send,
    {
        let placeholder = SlotKey {
            index: NULL,
            generation: 0,
        };
        let mut b = std::mem::take(&mut self.bulk);
        // One pass makes both the staged item and its cell, so each rectangle is read once.
        let tree = &*self;
        (0..n)
            .into_par_iter()
            .with_min_len(MIN_ITEMS_PER_TASK)
            .map(|i| {
                let rect = rect_of(i);
                let cell = match rect.check() {
                    Ok(()) => tree.cell_index(&rect),
                    Err(_) => NULL,
                };
                let staged = Staged {
                    rect,
                    key: placeholder,
                    value: None,
                };
                (staged, cell)
            })
            .unzip_into_vecs(&mut b.items, &mut b.routes);
        // The counts, on one thread, stop at the first refused rectangle: the lowest index.
        // Counts left half-made then are reset by the next build.
        let mut refused = None;
        for (i, &cell) in b.routes.iter().enumerate() {
            if cell == NULL {
                let error = b.items[i].rect.check().expect_err("a refused rectangle");
                refused = Some(BatchError { index: i, error });
                break;
            }
            b.cells[cell as usize] += 1;
        }
        self.bulk = b;
        refused.map_or(Ok(()), Err)
    }

    /// Gives the `added` items staged first their handles, appended to `ids`, and counts
    /// them in the tree's length.
    fn stage_handles(&mut self, added: usize, ids: &mut Vec<ItemId>) -> Result<(), QuadtreeError> {
        ids.try_reserve(added)
            .map_err(|_| QuadtreeError::OutOfMemory)?;
        // Callers refuse batches larger than this before staging: checked again here
        // because the loop below hands out new slots without a check of its own.
        if added > MAX_ITEMS.saturating_sub(self.slots.len()) {
            return Err(QuadtreeError::Full);
        }
        let tree = self.tree;
        let mut handout = self.slot_handout();
        let slots = &self.slots;
        // `extend` from the slice's exact length: no capacity check per handle.
        ids.extend(self.bulk.items[..added].iter_mut().map(|staged| {
            staged.key = handout.next(slots);
            staged.key.handle(tree)
        }));
        self.commit_handout(handout);
        self.len += added;
        Ok(())
    }

    /// [`place_staged`](Self::place_staged) with every payload from `value_of`, on every
    /// core where it can.
    fn par_place_staged<V>(&mut self, value_of: V)
    where
        V: Fn(usize) -> T + Sync + Send,
    {
        self.shape_staged();
        let mut b = std::mem::take(&mut self.bulk);
        {
            let cells = &b.cells;
            b.routes
                .par_iter_mut()
                .with_min_len(MIN_ITEMS_PER_TASK)
                .for_each(|r| *r = cells[*r as usize]);
        }
        b.group_by_node::<false>(self.nodes.len(), false, &mut self.slots);
        // Stage 4: each node's list from its group, in input order; a list is its node's own,
        // so no two tasks write one place.
        let b_ref = &b;
        let fill = |nd: usize, node: &mut Node<T>| {
            let group = b_ref.group(nd);
            let order = &b_ref.order[group.clone()];
            // The items lie scattered: each is requested `FILL_AHEAD` reads early.
            let ahead = b_ref.order.get(group.start + FILL_AHEAD..).unwrap_or(&[]);
            let entry = |i: u32| {
                let staged = &b_ref.items[i as usize];
                let entry = Entry {
                    id: staged.key,
                    value: value_of(i as usize),
                };
                (staged.rect, entry)
            };
            if node.is_leaf() {
                // A leaf's list in group order, a block of lanes at a time, as the serial
                // fill writes it.
                node.items
                    .fill_in_order(order.iter().enumerate().map(|(k, &i)| {
                        if let Some(later) = ahead.get(k).and_then(|&a| b_ref.items.get(a as usize))
                        {
                            simd::prefetch(later);
                        }
                        entry(i)
                    }));
            } else {
                // A banded list by pushes, which leave the order the serial fill works
                // out (without its scratch, which a task would allocate).
                for &i in order {
                    let (rect, entry) = entry(i);
                    node.items.push(rect, entry, |_, _| {});
                }
            }
        };
        // Fixed chunks of nodes, each filled in order, the next list's room requested while
        // one fills (as `place_staged` does).
        self.nodes
            .par_chunks_mut(MIN_NODES_PER_TASK)
            .enumerate()
            .for_each(|(c, chunk)| {
                let mut nodes = chunk.iter_mut().enumerate().peekable();
                while let Some((k, node)) = nodes.next() {
                    if let Some((_, next)) = nodes.peek_mut() {
                        next.items.prefetch_room();
                    }
                    fill(c * MIN_NODES_PER_TASK + k, node);
                }
            });
        b.clear_items();
        self.bulk = b;
        // As `place_staged`, so that both builds make the same lists.
        self.sort_lists(false);
        self.point_banded_slots();
    }
}

#[cfg(test)]
mod tests {
    use crate::quadtree::bulk::tests::{build_configs, rect_of};
    use crate::quadtree::{BatchError, ItemId, Quadtree, Rect, MAX_ITEMS};

    /// Everything a bulk build decides: each node's place and links, each list's items in
    /// order, and each slot.
    fn layout(t: &Quadtree<u32>) -> Vec<String> {
        let mut out: Vec<String> = t
            .nodes
            .iter()
            .map(|n| {
                let items: Vec<_> = (0..n.items.len())
                    .map(|p| (n.items[p].id, n.items[p].value, n.items.rect(p)))
                    .collect();
                format!(
                    "{} {} {} {} {} {} {} {:?}",
                    n.live, n.level, n.cx, n.cy, n.parent, n.first_child, n.subtree_len, items
                )
            })
            .collect();
        out.extend(
            t.slots
                .iter()
                .map(|s| format!("{} {} {}", s.generation, s.node, s.pos)),
        );
        out
    }

    #[test]
    fn parallel_builds_match_the_serial_build_on_any_thread_count() {
        let world = Rect::new(0.0, 0.0, 100.0, 80.0);
        for config in build_configs() {
            // Serial builds of up to 2,048 items scatter straight into the lists, larger ones
            // group first: both forms meet the parallel build here.
            let sizes = [
                (0usize, 0usize),
                (1, 0),
                (1_500, 300),
                (40_000, 0),
                (9_000, 3_000),
                (70_000, 5_000),
            ];
            for (n, stored) in sizes {
                let mut serial = Quadtree::with_config(world, config).unwrap();
                let mut before = Vec::new();
                serial
                    .insert_many((0..stored).map(|i| (rect_of(n + i), i as u32)), &mut before)
                    .unwrap();
                let mut ids = Vec::new();
                let values = |i: usize| (i * 3) as u32;
                let twin = serial.clone();
                serial
                    .insert_many((0..n).map(|i| (rect_of(i), values(i))), &mut ids)
                    .unwrap();
                serial.validate().unwrap();
                for threads in 1..=3 {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    let mut parallel = twin.clone();
                    let mut par_ids = Vec::new();
                    let added =
                        pool.install(|| parallel.par_insert_many(n, rect_of, values, &mut par_ids));
                    assert_eq!(added, Ok(n));
                    // The same slots and generations (a clone's handles are its own).
                    let keys = |ids: &[ItemId]| ids.iter().map(|id| id.key()).collect::<Vec<_>>();
                    assert_eq!(keys(&par_ids), keys(&ids));
                    parallel.validate().unwrap();
                    assert!(
                        layout(&parallel) == layout(&serial),
                        "{config:?}, {n} items onto {stored}, {threads} threads"
                    );
                    // A rebuild in place, as a simulation does it every few steps.
                    parallel.clear();
                    par_ids.clear();
                    pool.install(|| parallel.par_insert_many(n, rect_of, values, &mut par_ids))
                        .unwrap();
                    let mut rebuilt = serial.clone();
                    rebuilt.clear();
                    let mut rebuilt_ids = Vec::new();
                    rebuilt
                        .insert_many((0..n).map(|i| (rect_of(i), values(i))), &mut rebuilt_ids)
                        .unwrap();
                    assert_eq!(keys(&par_ids), keys(&rebuilt_ids));
                    assert!(layout(&parallel) == layout(&rebuilt));
                }
            }
        }
    }

    #[test]
    fn a_panicking_payload_leaves_a_cleared_tree() {
        let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 80.0)).unwrap();
        let mut ids = Vec::new();
        tree.insert_many((0..500).map(|i| (rect_of(i), i as u32)), &mut ids)
            .unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for stored in [true, false] {
            if !stored {
                tree.clear();
            }
            let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let value = |i: usize| {
                    if i == 9_000 {
                        panic!("payload {i}")
                    } else {
                        i as u32
                    }
                };
                pool.install(|| tree.par_insert_many(20_000, rect_of, value, &mut ids))
            }));
            assert!(panicked.is_err());
            assert!(tree.is_empty() && tree.get(ids[0]).is_none());
            tree.validate().unwrap();
            ids.clear();
            tree.insert_many((0..50).map(|i| (rect_of(i), i as u32)), &mut ids)
                .unwrap();
            tree.validate().unwrap();
        }
    }

    #[test]
    fn parallel_builds_refuse_the_first_bad_rectangle_and_change_nothing() {
        use crate::quadtree::QuadtreeError;
        let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 80.0)).unwrap();
        let mut ids = Vec::new();
        tree.insert_many((0..500).map(|i| (rect_of(i), i as u32)), &mut ids)
            .unwrap();
        let before = layout(&tree);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let bad = |i: usize| match i {
            20_000 => Rect::new(1.0, 0.0, 0.0, 1.0),
            30_000 => Rect::new(f32::NAN, 0.0, 1.0, 1.0),
            _ => rect_of(i),
        };
        let r = pool.install(|| tree.par_insert_many(40_000, bad, |i| i as u32, &mut ids));
        let inverted = BatchError {
            index: 20_000,
            error: QuadtreeError::Inverted(Rect::new(1.0, 0.0, 0.0, 1.0)),
        };
        assert_eq!(r, Err(inverted));
        let r = pool.install(|| tree.par_insert_many(usize::MAX, bad, |i| i as u32, &mut ids));
        let full = BatchError {
            index: MAX_ITEMS - 500,
            error: QuadtreeError::Full,
        };
        assert_eq!(r, Err(full));
        assert_eq!(ids.len(), 500);
        assert!(layout(&tree) == before);
        tree.validate().unwrap();
    }
}
