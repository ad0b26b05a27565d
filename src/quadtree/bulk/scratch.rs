//! The bulk builds' workspace, kept in the tree between builds so that a rebuild every frame
//! allocates nothing: the staged items, the table of every level's cells, the grouping by
//! node, and the handles a build hands out.

use crate::quadtree::{Entry, ItemId, Rect, SlotKey};

/// Index of the first cell of `level` in the table of every level's cells: the levels above
/// hold `(4^level - 1) / 3` cells, which in binary is `level` pairs of bits `01`: the low
/// `2 * level` bits of `0x5555...`, taken with two shifts instead of a division per item.
#[inline(always)]
pub(super) fn level_base(level: u32) -> usize {
    ((0x5555_5555_5555_5555u64 >> (63 - 2 * level)) >> 1) as usize
}

/// An item waiting to be placed.
#[derive(Debug)]
pub(super) struct Staged<T> {
    pub(super) rect: Rect,
    pub(super) key: SlotKey,
    /// The payload, taken when the item is placed; `None` for an item whose payload the
    /// caller makes then (`par_insert_many`).
    pub(super) value: Option<T>,
}

impl<T> Staged<T> {
    /// The list entry of staged item `i`, taking its payload: the one staged with it, or
    /// `value_of(i)` for an item staged without one (those come before `values_from`).
    #[inline]
    pub(super) fn entry(
        &mut self,
        i: usize,
        values_from: usize,
        value_of: impl FnOnce(usize) -> T,
    ) -> Entry<T> {
        let value = match self.value.take() {
            Some(value) => value,
            None if i < values_from => value_of(i),
            None => unreachable!("each item is placed once"),
        };
        Entry {
            id: self.key,
            value,
        }
    }
}

/// Reused buffers of the bulk path, so rebuilding every frame allocates nothing. Items are
/// numbered in staging order: the new ones in input order, then those already stored.
#[derive(Debug)]
pub(in crate::quadtree) struct BulkScratch<T> {
    pub(super) items: Vec<Staged<T>>,
    /// Per item: the index of its place's cell in `cells`, then its node.
    pub(super) routes: Vec<u32>,
    /// Per cell of every level: the items placed there, then the items of its subtree, then
    /// the node that holds the items placed there. Its length is fixed by the depth (at most
    /// `(4^(MAX_DEPTH + 1) - 1) / 3`), never by the data.
    pub(super) cells: Vec<u32>,
    /// After the parallel build's grouping: `ends[k]` is one past the last position of node `k`'s group in
    /// `order`, and the group starts where node `k - 1`'s ends.
    pub(super) ends: Vec<u32>,
    /// The parallel build's item numbers grouped by node, in node order, input order within
    /// a node.
    pub(super) order: Vec<u32>,
    /// Entries already stored, on their way to the staging.
    pub(super) stored: Vec<(Rect, Entry<T>)>,
    /// The staged items of a large serial build being put in node order (then swapped with
    /// `items`, which holds them in node order from then on).
    pub(super) grouped: Vec<Staged<T>>,
    /// Scratch of the lists' fill: a banded list's order.
    pub(super) perm: Vec<u32>,
    /// Scratch of the grouping: each node's group's start in `order`.
    pub(super) firsts: Vec<u32>,
}

impl<T> Default for BulkScratch<T> {
    fn default() -> Self {
        BulkScratch {
            items: Vec::new(),
            routes: Vec::new(),
            cells: Vec::new(),
            ends: Vec::new(),
            order: Vec::new(),
            stored: Vec::new(),
            grouped: Vec::new(),
            perm: Vec::new(),
            firsts: Vec::new(),
        }
    }
}

impl<T> BulkScratch<T> {
    /// Forgets the staged items, keeping every buffer's allocation. `grouped` and `order`
    /// keep their lengths too: a grouping writes each of their places exactly once, so
    /// clearing them first would write them twice a build (`grouped` only ever holds items
    /// whose payloads were taken).
    pub(in crate::quadtree) fn clear_items(&mut self) {
        self.items.clear();
        self.routes.clear();
    }

    /// An empty count for every cell of a tree of `depth` levels below the root, and one
    /// more place after them (the count of refused rectangles while staging).
    pub(in crate::quadtree) fn reset_cells(&mut self, depth: u8) {
        self.cells.clear();
        self.cells.resize(level_base(u32::from(depth) + 1) + 1, 0);
    }

    /// The range of node `k`'s group in `order`.
    #[inline(always)]
    pub(super) fn group(&self, k: usize) -> std::ops::Range<usize> {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        start..self.ends[k] as usize
    }
}

/// The handles a bulk insert appends to the caller's `ids` while it stages: unless kept,
/// they are taken back when it ends, by a refusal or by a panic in the caller's code.
pub(super) struct HandlesOut<'a> {
    pub(super) ids: &'a mut Vec<ItemId>,
    from: usize,
}

impl<'a> HandlesOut<'a> {
    pub(super) fn new(ids: &'a mut Vec<ItemId>) -> Self {
        HandlesOut {
            from: ids.len(),
            ids,
        }
    }

    pub(super) fn keep(&mut self) {
        self.from = self.ids.len();
    }
}

impl Drop for HandlesOut<'_> {
    fn drop(&mut self) {
        self.ids.truncate(self.from);
    }
}
