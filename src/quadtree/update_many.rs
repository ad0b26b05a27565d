//! Many moves at once (feature `rayon`): the checks and placements on every core, the changes
//! in a fixed order.
//!
//! Three passes: (1) in parallel, each move's rectangle is checked and placed, and the move is
//! planned as a rewrite in its node or a change of node; (2) in order, the plan is searched for
//! the first refused move and for handles given twice; (3) in order, the rewrites, then the
//! changes of node. Nothing in (1) writes to the tree, and (2) and (3) do not depend on the
//! threads, so the tree ends the same on any thread count.

use std::fmt;

use rayon::prelude::*;

use super::{ItemId, Quadtree, QuadtreeError, Rect, NULL};

/// `Planned::node` of a move that changes node.
const MOVES: u32 = NULL;
/// `Planned::node` of a refused move; `pos` then holds the error's code.
const REFUSED: u32 = NULL - 1;

/// Moves planned per rayon task at least: a move's plan is a few dozen instructions.
const MIN_MOVES_PER_TASK: usize = 4096;

/// One move's plan: its rectangle, and the list position to rewrite it at (or a marker).
#[derive(Clone, Copy, Debug)]
struct Planned {
    rect: Rect,
    node: u32,
    pos: u32,
}

/// The reusable buffers of [`Quadtree::update_many`]: keep one and pass it to every batch, so
/// that a batch allocates nothing once they have grown to the largest batch.
#[derive(Debug, Default, Clone)]
pub struct UpdateWorkspace {
    plan: Vec<Planned>,
    /// One bit per slot: handles seen so far in this batch.
    seen: Vec<u64>,
}

impl UpdateWorkspace {
    /// An empty workspace; its buffers grow on first use.
    pub fn new() -> Self {
        Self::default()
    }
}

/// A batch that [`Quadtree::update_many`] refused: the first refused move and why. The tree
/// is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchError {
    /// Index of the move in the batch.
    pub index: usize,
    /// Why it was refused, as [`Quadtree::update`] would say.
    pub error: QuadtreeError,
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} of the batch: {}", self.index, self.error)
    }
}

impl std::error::Error for BatchError {}

const ERRORS: [QuadtreeError; 3] = [
    QuadtreeError::NonFinite,
    QuadtreeError::Inverted,
    QuadtreeError::StaleId,
];

impl<T: Send + Sync> Quadtree<T> {
    /// Moves item `ids[i]` to `rect_of(i)` for every `i`, as calling
    /// [`update`](Self::update) for each in order would, but with the work spread over the
    /// current rayon pool (run it inside `pool.install` to choose the threads). The tree ends
    /// the same on every thread count. A handle given twice ends at its last rectangle.
    ///
    /// # Errors
    /// If any move would be refused by `update` (stale handle, bad rectangle), nothing
    /// changes and the first such move is reported. `rect_of` is called once per move.
    ///
    /// # Runtime
    /// In parallel: each move's check and placement (the slot, the node, the cell). Then in
    /// order: one pass over the plan, one rewrite per move that stays in its node, and an
    /// `update` per move that changes node. Allocates only when the workspace must grow.
    ///
    /// ```
    /// use quadstress::{BatchError, Quadtree, QuadtreeError, Rect, UpdateWorkspace};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let ids: Vec<_> = (0..100)
    ///     .map(|i| tree.insert(Rect::from_min_size(i as f32, 1.0, 0.5, 0.5), i).unwrap())
    ///     .collect();
    /// let mut ws = UpdateWorkspace::new();
    /// tree.update_many(&ids, |i| Rect::from_min_size(i as f32, 50.0, 0.5, 0.5), &mut ws)
    ///     .unwrap();
    /// assert_eq!(tree.rect(ids[7]), Some(Rect::from_min_size(7.0, 50.0, 0.5, 0.5)));
    /// let bad = tree.update_many(&ids, |i| Rect::new(i as f32, 0.0, 0.0, 1.0), &mut ws);
    /// assert_eq!(bad, Err(BatchError { index: 1, error: QuadtreeError::Inverted }));
    /// assert!(tree.validate().is_ok());
    /// ```
    pub fn update_many<F>(
        &mut self,
        ids: &[ItemId],
        rect_of: F,
        ws: &mut UpdateWorkspace,
    ) -> Result<(), BatchError>
    where
        F: Fn(usize) -> Rect + Sync,
    {
        // Pass 1, in parallel: read-only plans.
        ws.plan.clear();
        let this = &*self;
        ws.plan.par_extend(
            ids.par_iter()
                .enumerate()
                .with_min_len(MIN_MOVES_PER_TASK)
                .map(|(i, &id)| this.plan_move(id, rect_of(i))),
        );
        // Pass 2: the first refusal, and whether any handle comes twice.
        ws.seen.clear();
        ws.seen.resize(self.slots.len().div_ceil(64), 0);
        let mut twice = false;
        for (index, p) in ws.plan.iter().enumerate() {
            if p.node == REFUSED {
                let error = ERRORS[p.pos as usize];
                return Err(BatchError { index, error });
            }
            // Every handle here is live, so its index is below the slot count.
            let i = ids[index].index as usize;
            let bit = 1u64 << (i % 64);
            twice |= ws.seen[i / 64] & bit != 0;
            ws.seen[i / 64] |= bit;
        }
        // Pass 3: the rewrites in place touch no structure, so the nodes planned stay right
        // until the first change of node (a rewrite may move the item, or another, within its
        // list, so the position is read from the slot). A handle given twice could be planned
        // against a node it has left by then: such a batch goes one `update` at a time.
        if !twice {
            for (p, &id) in ws.plan.iter().zip(ids) {
                if p.node != MOVES {
                    let pos = self.slots[id.index as usize].pos;
                    self.rewrite(id, p.node, pos, p.rect);
                }
            }
        }
        for (p, &id) in ws.plan.iter().zip(ids) {
            if twice || p.node == MOVES {
                let done = self.update(id, p.rect);
                debug_assert!(done.is_ok(), "checked in pass 1");
            }
        }
        Ok(())
    }

    /// The plan of one move, against the tree as it stands.
    #[inline]
    fn plan_move(&self, id: ItemId, rect: Rect) -> Planned {
        let refused = |code: u32| Planned {
            rect,
            node: REFUSED,
            pos: code,
        };
        if let Err(e) = rect.check() {
            return refused(ERRORS.iter().position(|&x| x == e).unwrap_or(0) as u32);
        }
        let Some(slot) = self.live_slot(id) else {
            return refused(2);
        };
        let stays = self.fits(&self.nodes[slot.node as usize], self.place_of(&rect));
        Planned {
            rect,
            node: if stays { slot.node } else { MOVES },
            pos: slot.pos,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{oracle, Config, Placement};

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// Random batches (small steps, jumps, handles given twice, a few refused batches) on
    /// exact and loose trees: after each, the tree is valid, every item is where the model
    /// says, queries agree with brute force, and 1, 2, 3 and 8 threads leave the same tree.
    #[test]
    fn batches_match_one_by_one_updates_on_any_thread_count() {
        for placement in [Placement::Exact, Placement::Loose] {
            let world = Rect::new(0.0, 0.0, 200.0, 200.0);
            let config = Config {
                leaf_capacity: 8,
                placement,
                ..Config::default()
            };
            let threads = [1, 2, 3, 8];
            let mut trees: Vec<Quadtree<u32>> = threads
                .iter()
                .map(|_| Quadtree::with_config(world, config).unwrap())
                .collect();
            let mut rng = oracle::TestRng::new(7);
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
                // Odd rounds draw handles at random (so some come twice); even rounds take
                // distinct ones, with a stride prime to the item count.
                let start = rng.below(model.len() as u64) as usize;
                for j in 0..4_000 {
                    let k = if round % 2 == 1 {
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
                    rects[1234] = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
                    rects[2000] = Rect::new(3.0, 0.0, 1.0, 1.0);
                }
                let mut results = Vec::new();
                for ((tree, &t), ids) in trees.iter_mut().zip(&threads).zip(&ids) {
                    let handles: Vec<ItemId> = batch.iter().map(|&k| ids[k]).collect();
                    results.push(
                        pool(t).install(|| tree.update_many(&handles, |i| rects[i], &mut ws)),
                    );
                    tree.validate().unwrap();
                }
                assert!(results.windows(2).all(|w| w[0] == w[1]));
                if refuse {
                    let expected = BatchError {
                        index: 1234,
                        error: QuadtreeError::NonFinite,
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
                trees[1].query_rect(&q, &mut hits).unwrap();
                let mut got: Vec<u32> = hits.iter().map(|id| *trees[1].get(*id).unwrap()).collect();
                got.sort_unstable();
                assert_eq!(got, oracle::query_rect(&model, &q));
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
