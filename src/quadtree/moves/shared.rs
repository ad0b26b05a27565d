//! What the batch moves share, so that neither imports the other: the one workspace both
//! keep their plans in (and the plans), their errors, and the pass both end with (the
//! changes of node, in order).

use std::fmt;
use std::sync::atomic::AtomicU32;

use crate::quadtree::{ItemId, Quadtree, QuadtreeError, Rect};

/// `Planned::rewrite` of a move that is not a rewrite in place: no slot has this index.
pub(super) const NOT_REWRITE: u32 = u32::MAX;

/// One move's plan.
#[derive(Clone, Copy, Debug)]
pub(super) struct Planned {
    pub(super) rect: Rect,
    /// The slot of the move's handle when the move is a rewrite in place, else
    /// [`NOT_REWRITE`].
    pub(super) rewrite: u32,
}

impl Default for Planned {
    fn default() -> Self {
        Planned {
            rect: Rect::new(0.0, 0.0, 0.0, 0.0),
            rewrite: NOT_REWRITE,
        }
    }
}

/// What `update_many`'s planning passes found in one chunk of the batch.
#[derive(Clone, Debug, Default)]
pub(super) struct ChunkPlan {
    /// The first refused move of the chunk, by batch index: the chunk stops there.
    pub(super) refused: Option<(usize, QuadtreeError)>,
    /// Whether every move of the chunk names the slot of its batch index.
    pub(super) in_order: bool,
    /// Whether some move does not hold its slot's stamp (pass 2 only).
    pub(super) twice: bool,
    /// Batch indices of the moves that change group, then of those that change node, in
    /// batch order.
    pub(super) regroups: Vec<u32>,
    pub(super) moves: Vec<u32>,
}

/// The reusable buffers of [`Quadtree::update_many`] and `par_update_many`: keep one and pass
/// it to every batch, so that a batch allocates nothing once they have grown to the largest
/// batch and tree.
#[derive(Debug, Default)]
pub struct UpdateWorkspace {
    pub(super) plan: Vec<Planned>,
    /// `update_all`'s plan, per chunk of nodes.
    pub(super) node_chunks: Vec<NodeChunkPlan>,
    pub(super) chunks: Vec<ChunkPlan>,
    /// Per slot, the batch index of a move of that slot's handle (this batch's, or older).
    pub(super) stamps: Vec<AtomicU32>,
}

impl Clone for UpdateWorkspace {
    /// A new, empty workspace: the buffers hold nothing a later batch reads.
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl UpdateWorkspace {
    /// An empty workspace; its buffers grow on first use.
    pub fn new() -> Self {
        Self::default()
    }
}

/// A batch that [`Quadtree::update_many`], [`Quadtree::insert_many`] or their `par_` forms
/// refused: the first refused item and why. The tree is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchError {
    /// Index of the first refused item in the batch (for a batch refused as a whole, such as
    /// one that would overflow [`MAX_ITEMS`](crate::MAX_ITEMS), the first item that did not
    /// fit).
    pub index: usize,
    /// Why it was refused, as [`Quadtree::update`] or [`Quadtree::insert`] would say.
    pub error: QuadtreeError,
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "item {} of the batch: {}", self.index, self.error)
    }
}

impl From<BatchError> for QuadtreeError {
    /// The reason alone, for callers that propagate [`QuadtreeError`] with `?`.
    fn from(e: BatchError) -> Self {
        e.error
    }
}

impl std::error::Error for BatchError {}

/// What the buffer holds for an entry that was not written in place (pass 2 skips it): no
/// stored rectangle has a NaN.
pub(super) const ELSEWHERE: Rect = Rect {
    min_x: f32::NAN,
    min_y: f32::NAN,
    max_x: f32::NAN,
    max_y: f32::NAN,
};

/// What `update_all`'s first pass found in one chunk of nodes.
#[derive(Clone, Debug, Default)]
pub(super) struct NodeChunkPlan {
    /// Each entry's old rectangle where pass 1 wrote a new one in place (its new one in a
    /// node listed in `deferred`), node after node in list order; [`ELSEWHERE`] for an entry
    /// that changes group or node or was refused.
    pub(super) rects: Vec<Rect>,
    /// The first refused item of the chunk.
    pub(super) refused: Option<ItemError>,
    /// The nodes (by place in the chunk) whose lists keep sorted runs, each with where its
    /// entries start in `rects`: their moves in place wait until no rectangle was refused
    /// (`rects` holds their new rectangles), because writing into a run widens its reach
    /// for good, and putting the old rectangles back would not narrow it.
    pub(super) deferred: Vec<(u32, u32)>,
    /// The positions, in the leaf walked, of the new rectangles that lie outside its
    /// [`inner_bounds`](Grid::inner_bounds) (or are invalid): those take the full check.
    pub(super) rest: Vec<u32>,
    /// Each node's [`inner_bounds`](Grid::inner_bounds) as the last walk found them, by
    /// place in the chunk, with the cell they are for: nodes keep their cells from frame to
    /// frame, so most walks reuse them.
    pub(super) inner: Vec<CellBounds>,
    /// The world and depth those bounds were found in.
    pub(super) inner_grid: Option<(Rect, u8)>,
    /// Slot index and new rectangle of each entry that changes group, then of each that
    /// changes node, in list order.
    pub(super) regroups: Vec<(u32, Rect)>,
    pub(super) moves: Vec<(u32, Rect)>,
}

/// A cell's [`inner_bounds`](Grid::inner_bounds), kept between walks.
#[derive(Clone, Copy, Debug)]
pub(super) struct CellBounds {
    pub(super) level: u8,
    pub(super) cx: u32,
    pub(super) cy: u32,
    pub(super) bounds: Rect,
}

impl CellBounds {
    /// Bounds for no cell: every node's differs.
    pub(super) const NONE: CellBounds = CellBounds {
        level: u8::MAX,
        cx: 0,
        cy: 0,
        bounds: ELSEWHERE,
    };
}

/// An item whose new rectangle [`Quadtree::update_all`] (or `par_update_all`) refused: its
/// handle and why. Every item is where it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemError {
    /// The refused item's handle.
    pub id: ItemId,
    /// Why it was refused, as [`Quadtree::update`] would say.
    pub error: QuadtreeError,
}

impl fmt::Display for ItemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "item {:?}: {}", self.id, self.error)
    }
}

impl From<ItemError> for QuadtreeError {
    /// The reason alone, for callers that propagate [`QuadtreeError`] with `?`.
    fn from(e: ItemError) -> Self {
        e.error
    }
}

impl std::error::Error for ItemError {}

/// How many moves ahead pass 4 requests the lists a move will touch (and twice as many, its
/// slot): enough misses in flight to cover a miss's latency.
const MOVES_AHEAD: usize = 8;

impl<T> Quadtree<T> {
    /// Moves the item of each slot index to its rectangle, in order, as `update` would (the
    /// changes of node of pass 4). Each slot must be live, each rectangle checked, and no
    /// slot may come twice. Each move misses the caches several times over (its slot, its
    /// old list where it leaves and at the end, the list it joins), one after the other, and
    /// the moves are few and scattered: the slots of the moves `2 * MOVES_AHEAD` on, then the
    /// lists of those `MOVES_AHEAD` on, are requested early, so that their misses overlap.
    pub(super) fn move_each<I>(&mut self, moves: I)
    where
        I: Iterator<Item = (u32, Rect)> + Clone,
    {
        let mut slots_ahead = moves.clone();
        let mut lists_ahead = moves.clone();
        for (index, _) in slots_ahead.by_ref().take(2 * MOVES_AHEAD) {
            self.slots.prefetch(index);
        }
        for (index, rect) in lists_ahead.by_ref().take(MOVES_AHEAD) {
            self.prefetch_move(index, &rect);
        }
        for (index, rect) in moves {
            if let Some((j, _)) = slots_ahead.next() {
                self.slots.prefetch(j);
            }
            if let Some((j, r)) = lists_ahead.next() {
                self.prefetch_move(j, &r);
            }
            let slot = self.slots[index as usize];
            self.move_checked(index, slot, rect);
        }
    }
}
