//! Bulk placement: many items into their final nodes, each moved once, without split
//! cascades.
//!
//! Passes, over the items or over the cells and nodes, with no search:
//! 1. each item's place (level and cell) is counted in a table of every level's cells
//!    (dense, level after level), which is then summed bottom-up: each cell then holds the
//!    number of items its subtree would hold;
//! 2. the shape follows top-down from those sums: a node splits when its subtree holds more
//!    than a leaf's capacity. The table then names, for each cell, the node that holds the
//!    items placed there;
//! 3. a small build makes one pass over the items in input order, pushing each into its
//!    node's list, reserved to its size by step 2 (a stable counting sort whose buckets are
//!    the lists themselves), and pointing its slot there. A large one, or one on every core
//!    (`par_bulk`), groups the items by node with a counting sort first, pointing each slot
//!    at its item's node and place in the group (in input order, so the slot table is
//!    written front to back after a clear), fills each node's list once from its group (node
//!    after node, or on every core), then points the slots of the banded lists, whose order
//!    differs from their groups'.
//!
//! Stage 1 reads the caller's items once, into the staging (one `extend`), then makes one
//! pass over the staging that checks and places each item, counts its cell and hands out
//! its handle.
//!
//! A node's list receives its items in the order pushing them in input order leaves them
//! (see `ItemList::push`) whichever way it is filled, so the serial and the parallel build
//! make the same tree, bit for bit, and the same as they made when every fill pushed.

use super::items::ItemList;
use super::placement::Grid;
use super::simd;
use super::slots::SlotHandout;
use super::slots::{Slot, TreeId};
use super::{
    BatchError, Entry, ItemId, Quadtree, QuadtreeError, Rect, SlotKey, MAX_DEPTH, MAX_ITEMS, NULL,
};

/// Builds of at most this many items push each item straight into its node's list. Larger
/// ones group the items by node first and fill the lists one after the other: the scatter
/// writes to every list at once, which costs more than the grouping pass as soon as the
/// lists stop fitting in the first caches (a few thousand items).
const DIRECT_SCATTER_MAX_ITEMS: usize = 1 << 11;

/// A large build whose staged items take at most this many bytes fills the node lists
/// reading the items through the grouping's order, where they lie; a larger one moves them
/// into node order first if most of them go to banded lists. The items are read once either
/// way. Read through `order`, each item is requested `FILL_AHEAD` items before it is read,
/// so that the scattered reads overlap, which serves leaves (read in group order) but not
/// banded lists (read in the order the pushes' swaps leave, which the fill works out only
/// then): where those hold most items, a pass that moves the items pays once they no longer
/// fit in a last-level cache and each scattered read misses.
const INDEXED_FILL_MAX_BYTES: usize = 8 << 20;

/// How many items ahead the fill requests the staged item it will read through `order`.
pub(super) const FILL_AHEAD: usize = 16;

/// Index of the first cell of `level` in the table of every level's cells: the levels above
/// hold `(4^level - 1) / 3` cells, which in binary is `level` pairs of bits `01`: the low
/// `2 * level` bits of `0x5555...`, taken with two shifts instead of a division per item.
#[inline(always)]
fn level_base(level: u32) -> usize {
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
    fn entry(
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

/// Appends to `list` the group's items `ks` (in that order) of a group of staged items: the
/// group's `k`-th item is item `order[k]`, which lies at `items[first + k]` when the items
/// were moved into node order (`first` the group's start), else at `items[order[k]]`. In the
/// second case `ahead[k]` (where it exists) names the item read `FILL_AHEAD` later, which is
/// requested now: read through `order`, the items are scattered.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fill_group<T>(
    list: &mut ItemList<T>,
    ks: impl ExactSizeIterator<Item = usize>,
    items: &mut [Staged<T>],
    order: &[u32],
    ahead: &[u32],
    first: Option<usize>,
    values_from: usize,
    value_of: &mut impl FnMut(usize) -> T,
) {
    list.fill_in_order(ks.map(|k| {
        if first.is_none() {
            if let Some(later) = ahead.get(k).and_then(|&a| items.get(a as usize)) {
                simd::prefetch(later);
            }
        }
        let i = order[k] as usize;
        let staged = &mut items[first.map_or(i, |f| f + k)];
        let entry = staged.entry(i, values_from, &mut *value_of);
        (staged.rect, entry)
    }));
}

/// Reused buffers of the bulk path, so rebuilding every frame allocates nothing. Items are
/// numbered in staging order: the new ones in input order, then those already stored.
#[derive(Debug)]
pub(super) struct BulkScratch<T> {
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
    stored: Vec<(Rect, Entry<T>)>,
    /// The staged items of a large serial build being put in node order (then swapped with
    /// `items`, which holds them in node order from then on).
    grouped: Vec<Staged<T>>,
    /// Scratch of the lists' fill: a banded list's order.
    perm: Vec<u32>,
    /// Scratch of the grouping: each node's group's start in `order`.
    firsts: Vec<u32>,
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
    pub(super) fn clear_items(&mut self) {
        self.items.clear();
        self.routes.clear();
    }

    /// An empty count for every cell of a tree of `depth` levels below the root, and one
    /// more place after them (the count of refused rectangles while staging).
    pub(super) fn reset_cells(&mut self, depth: u8) {
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

impl<T> Quadtree<T> {
    /// Inserts many items at once and appends their handles to `ids`, in input order.
    ///
    /// Faster than inserting one by one, most of all into an empty tree: items go straight
    /// to their final nodes instead of being moved down by every split. The result has the same
    /// nodes, holding the same items, as one-by-one insertion of the same items would reach
    /// (the nodes and what each holds follow from the boxes alone; their order in
    /// [`nodes`](Self::nodes), and the items' order within a node, depend on how the tree was
    /// made, see [`update_many`](Self::update_many)), with its straddlers
    /// sorted for region queries as [`sort_straddlers`](Self::sort_straddlers) leaves them.
    /// Existing items keep their handles. With the `rayon` feature, `par_insert_many` builds
    /// the same tree on every core.
    ///
    /// All or nothing: every rectangle is checked before anything changes. The iterator is
    /// read to its end (or until it passes the limit of handles, see below) before the
    /// first check.
    ///
    /// # Runtime
    /// O(n + items already stored + 4^max_depth) for the table of cells, which stays
    /// allocated for the next call (call it every frame to rebuild without allocating), and
    /// O(s log s) for the sort of the s items kept in internal nodes.
    ///
    /// # Errors
    /// A [`BatchError`] with the index of the first refused item:
    /// [`QuadtreeError::NonFinite`] or [`QuadtreeError::Inverted`] for a bad rectangle,
    /// [`QuadtreeError::Full`] if the handles would run out (more than
    /// [`MAX_ITEMS`](crate::MAX_ITEMS) slots, freed ones included; refused as soon as the
    /// iterator passes that), [`QuadtreeError::OutOfMemory`] (index 0) if the allocator
    /// refuses `ids` the room the iterator's lower size bound asks. The tree and `ids` are
    /// unchanged then, as they are if the iterator panics.
    ///
    /// ```
    /// use quadstress::{BatchError, Quadtree, QuadtreeError, Rect, Shape};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let mut ids = Vec::new();
    /// let items = (0..1000).map(|i| (Rect::from_min_size((i % 100) as f32, (i / 10) as f32, 0.5, 0.5), i));
    /// tree.insert_many(items, &mut ids).unwrap();
    /// assert_eq!(ids.len(), 1000);
    /// assert_eq!(tree.get(ids[123]), Some(&123));
    /// assert!(tree.validate().is_ok());
    ///
    /// let bad = [(Rect::new(0.0, 0.0, 1.0, 1.0), 1), (Rect::new(f32::NAN, 0.0, 1.0, 1.0), 2)];
    /// let refused = BatchError { index: 1, error: QuadtreeError::NonFinite(Shape::Rect(bad[1].0)) };
    /// assert_eq!(tree.insert_many(bad, &mut ids), Err(refused));
    /// assert_eq!((tree.len(), ids.len()), (1000, 1000));
    /// ```
    pub fn insert_many<I>(&mut self, items: I, ids: &mut Vec<ItemId>) -> Result<usize, BatchError>
    where
        I: IntoIterator<Item = (Rect, T)>,
    {
        // Stage 1: stage every item, then check and place them and give them their handles
        // in one pass over the staging. The slot table changes only once every item is in
        // (`SlotHandout`): a refusal (or a panic in the caller's iterator) leaves the tree as
        // it was, and takes back what was written to `ids`.
        let mut b = std::mem::take(&mut self.bulk);
        b.clear_items();
        b.reset_cells(self.config.max_depth);
        let items = items.into_iter();
        if ids.try_reserve(items.size_hint().0).is_err() {
            self.bulk = b;
            return Err(BatchError {
                index: 0,
                error: QuadtreeError::OutOfMemory,
            });
        }
        // Only as many as could ever get a handle are staged: an endless iterator is refused
        // once it passes the limit, not after it has filled memory. The items are staged by
        // one `extend` (no check per item on the buffer's room where the iterator knows its
        // length), and checked after.
        let room = MAX_ITEMS.saturating_sub(self.slots.len());
        b.items.extend(
            items
                .take(room.saturating_add(1))
                .map(|(rect, value)| Staged {
                    rect,
                    key: SlotKey {
                        index: NULL,
                        generation: 0,
                    },
                    value: Some(value),
                }),
        );
        let mut out = HandlesOut::new(ids);
        let mut handout = self.slot_handout();
        let refused = self.stage_places_and_handles(&mut b, &mut handout, out.ids);
        let refused = refused.or_else(|| {
            (b.items.len() > room).then_some(BatchError {
                index: room,
                error: QuadtreeError::Full,
            })
        });
        if let Some(refused) = refused {
            b.clear_items();
            self.bulk = b;
            return Err(refused);
        }
        out.keep();
        self.commit_handout(handout);
        self.len += b.items.len();
        let added = b.items.len();
        self.bulk = b;
        // Stage 2: everything already stored joins the staging area, and all is placed anew.
        self.stage_stored();
        self.place_staged(0, |_| unreachable!("every payload is staged"));
        Ok(added)
    }

    /// The index in the table of every level's cells of the cell that `r` is placed in.
    #[inline]
    pub(super) fn cell_index(&self, r: &Rect) -> u32 {
        self.grid.cell_index(r)
    }

    /// Stage 1's pass over the staged items: each one's rectangle checked and its place's
    /// cell counted and kept in `routes`, and its handle from `handout` written to the
    /// staging and appended to `ids`. Returns the refusal of the first bad rectangle, if any
    /// (the handout and `ids` then hold handles the caller drops).
    fn stage_places_and_handles(
        &self,
        b: &mut BulkScratch<T>,
        handout: &mut SlotHandout,
        ids: &mut Vec<ItemId>,
    ) -> Option<BatchError> {
        let n = b.items.len();
        // The cells' table has one more place, past every level's cells, which counts the
        // refused rectangles.
        let refused_cell = b.cells.len() as u32 - 1;
        b.routes.resize(n, 0);
        let (slots, tree) = (&self.slots, self.tree);
        if self.grid.is_loose() {
            let placer = Placer::<true>::new(&self.grid, refused_cell);
            place_and_hand_out(&placer, b, handout, slots, tree, ids);
        } else {
            let placer = Placer::<false>::new(&self.grid, refused_cell);
            place_and_hand_out(&placer, b, handout, slots, tree, ids);
        }
        let cells = &b.cells;
        if cells[refused_cell as usize] == 0 {
            return None;
        }
        let index = b.routes.iter().position(|&c| c == refused_cell)?;
        let error = b.items[index]
            .rect
            .check()
            .expect_err("a refused rectangle");
        Some(BatchError { index, error })
    }

    /// Moves every stored item to the end of the staging area, keeping its handle, and
    /// leaves an empty, childless root. Their places are left to `place_staged`.
    pub(super) fn stage_stored(&mut self) {
        self.collapse_all();
        let b = &mut self.bulk;
        self.nodes[0].items.move_into(&mut b.stored);
        self.nodes[0].subtree_len = 0;
        b.items
            .extend(b.stored.drain(..).map(|(rect, entry)| Staged {
                rect,
                key: entry.id,
                value: Some(entry.value),
            }));
    }

    /// Places every staged item into a tree whose root is empty and childless. The payloads
    /// of the items numbered below `values_from` come from `value_of`, the others from the
    /// staging.
    pub(super) fn place_staged(
        &mut self,
        values_from: usize,
        mut value_of: impl FnMut(usize) -> T,
    ) {
        self.shape_staged();
        let mut b = std::mem::take(&mut self.bulk);
        if b.items.len() <= DIRECT_SCATTER_MAX_ITEMS {
            b.route();
            self.scatter_staged(&mut b, values_from, value_of);
            b.clear_items();
            self.bulk = b;
            self.sort_straddlers();
            return;
        }
        // Staged items that fit in the last-level cache are read where they lie, through
        // `order`; more, most of them bound for banded lists, are first moved into node
        // order, so that the fill reads them one after the other instead of missing the
        // cache once per item (see `INDEXED_FILL_MAX_BYTES`). `ends[k + 1]` is node `k`'s
        // own count here.
        let banded: usize = (self.nodes.iter().zip(&b.ends[1..]))
            .filter(|(node, _)| node.live && !node.is_leaf())
            .map(|(_, &own)| own as usize)
            .sum();
        let move_items = b.items.len() * std::mem::size_of::<Staged<T>>() > INDEXED_FILL_MAX_BYTES
            && 2 * banded > b.items.len();
        b.group_by_node::<true>(self.nodes.len(), move_items, &mut self.slots);
        // Each node's list from its group, in input order.
        let mut perm = std::mem::take(&mut b.perm);
        let mut nodes = self.nodes.iter_mut().enumerate().peekable();
        while let Some((nd, node)) = nodes.next() {
            // The next list's room (reserved by the shape, kept from earlier builds) is
            // requested while this one fills: each list is an allocation of its own.
            if let Some((_, next)) = nodes.peek_mut() {
                next.items.prefetch_room();
            }
            let group = b.group(nd);
            if group.is_empty() {
                continue;
            }
            let order = &b.order[group.clone()];
            let ahead = b.order.get(group.start + FILL_AHEAD..).unwrap_or(&[]);
            // Where the group's items lie: moved into node order, or where staged.
            let items = &mut b.items;
            let first = move_items.then_some(group.start);
            let at = |k: usize| first.map_or(order[k] as usize, |f| f + k);
            let placed = node
                .items
                .fill_order((0..order.len()).map(|k| items[at(k)].rect), &mut perm);
            let list = &mut node.items;
            match placed {
                None => fill_group(
                    list,
                    0..order.len(),
                    items,
                    order,
                    ahead,
                    first,
                    values_from,
                    &mut value_of,
                ),
                Some(perm) => fill_group(
                    list,
                    perm.iter().map(|&k| k as usize),
                    items,
                    order,
                    ahead,
                    first,
                    values_from,
                    &mut value_of,
                ),
            }
        }
        b.perm = perm;
        b.clear_items();
        self.bulk = b;
        // The sort before the banded lists' slots, which then learn the sorted places once.
        self.sort_lists(false);
        self.point_banded_slots();
    }

    /// Stages 3 and 4 of a small build in one pass: the node lists, each reserved to its size
    /// by the shape, are the buckets of a stable counting sort. Items are read once, in
    /// staging order, so each list receives its items in that order, and each slot learns its
    /// place as its item lands.
    fn scatter_staged(
        &mut self,
        b: &mut BulkScratch<T>,
        values_from: usize,
        mut value_of: impl FnMut(usize) -> T,
    ) {
        let nodes = &mut self.nodes;
        let slots = &mut self.slots;
        for (i, (staged, &nd)) in b.items.iter_mut().zip(&b.routes).enumerate() {
            let entry = staged.entry(i, values_from, &mut value_of);
            let pos = nodes[nd as usize]
                .items
                .push(staged.rect, entry, |moved, p| {
                    slots[moved.id.index as usize].pos = p as u32;
                });
            let slot = &mut slots[staged.key.index as usize];
            slot.node = nd;
            slot.pos = pos as u32;
        }
    }

    /// Stages 1 and 2: the places of the items staged without one, the subtree counts, the
    /// nodes, made top-down with their lists' room reserved, and each cell's node.
    pub(super) fn shape_staged(&mut self) {
        let depth = u32::from(self.config.max_depth);
        let cap = self.config.leaf_capacity as u32;
        let mut b = std::mem::take(&mut self.bulk);
        for staged in &b.items[b.routes.len()..] {
            let cell = self.cell_index(&staged.rect);
            b.cells[cell as usize] += 1;
            b.routes.push(cell);
        }
        // Subtree sums, bottom-up: a cell's children are two pairs of neighbours, in the two
        // rows of the next level below its own row.
        for level in (0..depth).rev() {
            let (above, below) = b.cells.split_at_mut(level_base(level + 1));
            let above = &mut above[level_base(level)..];
            let side = 1usize << level;
            for (cells, below) in above
                .chunks_exact_mut(side)
                .zip(below.chunks_exact(4 * side))
            {
                let (top, bottom) = below.split_at(2 * side);
                for ((cell, top), bottom) in cells
                    .iter_mut()
                    .zip(top.chunks_exact(2))
                    .zip(bottom.chunks_exact(2))
                {
                    *cell += top[0] + top[1] + bottom[0] + bottom[1];
                }
            }
        }
        // Top-down: a node whose subtree holds more than a leaf's capacity splits.
        let cell_at = |level: u8, cx: u32, cy: u32| {
            level_base(u32::from(level)) + ((cy as usize) << level | cx as usize)
        };
        // Each node's own count goes to `ends` too: the grouping of a large build sums it
        // instead of counting the items again.
        b.ends.clear();
        self.scratch.clear();
        self.scratch.push(0);
        while let Some(nd) = self.scratch.pop() {
            let (level, cx, cy) = {
                let node = &self.nodes[nd as usize];
                (node.level, node.cx, node.cy)
            };
            let total = b.cells[cell_at(level, cx, cy)];
            self.nodes[nd as usize].subtree_len = total;
            let own = if total > cap && level < self.config.max_depth {
                let first = self.alloc_children(nd);
                let mut own = total;
                for q in 0..4 {
                    let c = &self.nodes[(first + q) as usize];
                    own -= b.cells[cell_at(c.level, c.cx, c.cy)];
                    self.scratch.push(first + q);
                }
                own
            } else {
                total
            };
            self.nodes[nd as usize].items.reserve(own as usize);
            let k = nd as usize + 1;
            if b.ends.len() <= k {
                b.ends.resize(k + 1, 0);
            }
            b.ends[k] = own;
        }
        // Each cell's node: its own where it has one, else its parent cell's, as `node_for`
        // would find it.
        b.cells[0] = 0;
        for level in 1..=depth {
            let (above, here) = b.cells.split_at_mut(level_base(level));
            let parents = &above[level_base(level - 1)..];
            let here = &mut here[..1 << (2 * level)];
            let table = self.cells.table(level as u8);
            let side = 1usize << level;
            // Two cells of a row share a parent: pairs, with no index arithmetic per cell.
            // A level's table is either whole or, where no node ever reached it, empty.
            for (cy, row) in here.chunks_exact_mut(side).enumerate() {
                let parent_row = &parents[(cy >> 1) * (side >> 1)..][..side >> 1];
                let pairs = row.chunks_exact_mut(2).zip(parent_row);
                if let Some(own_row) = table.get(cy * side..(cy + 1) * side) {
                    for ((pair, &parent), own) in pairs.zip(own_row.chunks_exact(2)) {
                        pair[0] = if own[0] == NULL { parent } else { own[0] };
                        pair[1] = if own[1] == NULL { parent } else { own[1] };
                    }
                } else {
                    for (pair, &parent) in pairs {
                        pair[0] = parent;
                        pair[1] = parent;
                    }
                }
            }
        }
        self.bulk = b;
    }

    /// Points the slot of every item of a banded (internal) node's list at its position:
    /// the last stage of a bulk build, whose grouping pointed every slot at its item's node
    /// and at its place in a leaf's list.
    pub(super) fn point_banded_slots(&mut self) {
        for (nd, node) in self.nodes.iter().enumerate() {
            if !node.live || node.is_leaf() {
                continue;
            }
            for (pos, entry) in node.items.iter().enumerate() {
                let slot = &mut self.slots[entry.id.index as usize];
                slot.node = nd as u32;
                slot.pos = pos as u32;
            }
        }
    }
}

impl Grid {
    /// The index in the table of every level's cells of the cell that `r` is placed in.
    #[inline(always)]
    pub(super) fn cell_index(&self, r: &Rect) -> u32 {
        let p = self.place_of(r);
        (level_base(u32::from(p.level)) + ((p.cy as usize) << p.level | p.cx as usize)) as u32
    }
}

/// Stage 1's places: the grid's mapping of a rectangle to the index of its cell in the table
/// of every level's cells (`cell_index`), in locals that a loop keeps in registers, for one
/// placement rule (`LOOSE`).
struct Placer<const LOOSE: bool> {
    grid: Grid,
    depth: u32,
    /// Under exact placement, the first cell of the level an item spends `bits` levels above
    /// the deepest one at, for each `bits`.
    first_cell: [u32; MAX_DEPTH as usize + 2],
    /// The index given to a rectangle that fails [`Rect::check`].
    refused: u32,
}

impl<const LOOSE: bool> Placer<LOOSE> {
    fn new(grid: &Grid, refused: u32) -> Self {
        let depth = u32::from(grid.max_depth());
        let mut first_cell = [0u32; MAX_DEPTH as usize + 2];
        for (bits, first) in first_cell.iter_mut().enumerate().take(depth as usize + 1) {
            *first = level_base(depth - bits as u32) as u32;
        }
        Placer {
            grid: *grid,
            depth,
            first_cell,
            refused,
        }
    }

    /// `grid.cell_index(r)`, or `refused` for a rectangle that fails [`Rect::check`].
    #[inline(always)]
    fn cell(&self, r: &Rect) -> u32 {
        let w = &self.grid.world;
        // Inside the world and not inverted, which leaves every coordinate finite (the
        // world's are); a NaN fails every comparison.
        let inside = (w.min_x <= r.min_x)
            & (r.min_x <= r.max_x)
            & (r.max_x <= w.max_x)
            & (w.min_y <= r.min_y)
            & (r.min_y <= r.max_y)
            & (r.max_y <= w.max_y);
        if inside {
            let c = self.grid.cell_range(r);
            if LOOSE {
                let p = self.grid.loose_place_of(c);
                (level_base(u32::from(p.level)) + ((p.cy as usize) << p.level | p.cx as usize))
                    as u32
            } else {
                // As `place_of`: the levels below the one where both edges share a cell.
                let bits = 32 - ((c.x0 ^ c.x1) | (c.y0 ^ c.y1)).leading_zeros();
                self.first_cell[bits as usize]
                    + ((c.y0 >> bits) << (self.depth - bits) | (c.x0 >> bits))
            }
        } else if r.is_valid() {
            // Not inside the world: the root's.
            0
        } else {
            self.refused
        }
    }
}

/// Stage 1's pass over the staged items: each one's cell (`placer`) counted and kept in
/// `routes`, and its handle from `handout` written to the staging and appended to `ids`.
#[inline(never)]
fn place_and_hand_out<T, const LOOSE: bool>(
    placer: &Placer<LOOSE>,
    b: &mut BulkScratch<T>,
    handout: &mut SlotHandout,
    slots: &[Slot],
    tree: TreeId,
    ids: &mut Vec<ItemId>,
) {
    let cells = &mut b.cells;
    // The handout in a local, which the loop keeps in registers; `extend` from slices of one
    // length, with no room checks on `ids`.
    let mut h = *handout;
    ids.extend(
        b.items
            .iter_mut()
            .zip(b.routes.iter_mut())
            .map(|(staged, route)| {
                let cell = placer.cell(&staged.rect);
                cells[cell as usize] += 1;
                *route = cell;
                staged.key = h.next(slots);
                staged.key.handle(tree)
            }),
    );
    *handout = h;
}

impl<T> BulkScratch<T> {
    /// Stage 3, first half: each item's node, from its cell's.
    pub(super) fn route(&mut self) {
        let cells = &self.cells;
        for r in &mut self.routes {
            *r = cells[*r as usize];
        }
    }

    /// The grouping of a large build: a stable counting sort of the items by node, from the
    /// counts that the shape left in `ends`. Each position of `order` is written exactly
    /// once, so it holds every item once. With `move_items`, the
    /// staged items themselves are put in node order too (`items[j]` is then item
    /// `order[j]`), so that a serial fill reads them one after the other; a parallel fill
    /// reads them through `order` instead, spreading those scattered reads over the threads.
    pub(super) fn group_by_node<const ROUTE: bool>(
        &mut self,
        nodes: usize,
        move_items: bool,
        slots: &mut [Slot],
    ) {
        // `ends[k + 1]` holds node `k`'s count from the shape (zero for a node not in use).
        self.ends.resize(nodes + 1, 0);
        for k in 0..nodes {
            self.ends[k + 1] += self.ends[k];
        }
        debug_assert_eq!(self.ends[nodes] as usize, self.routes.len());
        self.order.resize(self.routes.len(), 0);
        // Each group's start, to tell an item's place in its group.
        self.firsts.clear();
        self.firsts.extend_from_slice(&self.ends[..nodes]);
        // With `ROUTE`, `routes` holds each item's cell, whose node the table of cells names
        // (what `route` would write first); else the node itself.
        let (cells, firsts) = (&self.cells[..], &self.firsts[..]);
        let node_of = |r: u32| if ROUTE { cells[r as usize] } else { r };
        if !move_items {
            group_in_place(
                &self.routes,
                &self.items,
                node_of,
                &mut self.ends,
                &mut self.order,
                firsts,
                slots,
            );
            self.ends.truncate(nodes);
            return;
        }
        // The items move into node order, read in input order and written once each: the
        // lists are then filled from consecutive items. Reading them through `order` would
        // jump through memory once per item wherever the input is not in space order.
        // Only new places are made: the others hold taken items and are all overwritten below.
        debug_assert!(self.grouped.iter().all(|g| g.value.is_none()));
        self.grouped.resize_with(self.items.len(), || Staged {
            rect: Rect::new(0.0, 0.0, 0.0, 0.0),
            key: SlotKey {
                index: NULL,
                generation: 0,
            },
            value: None,
        });
        group_moving(
            &self.routes,
            &mut self.items,
            &mut self.grouped,
            node_of,
            &mut self.ends,
            &mut self.order,
            firsts,
            slots,
        );
        std::mem::swap(&mut self.items, &mut self.grouped);
        self.ends.truncate(nodes);
    }
}

/// Points the slot of `staged` at node `nd` and at its place in the node's group, `at` in
/// `order`: its place in a leaf's list (filled in group order). A banded list's places are
/// set once it is filled (`point_banded_slots`). The grouping calls it in staging order,
/// which is the slot table's for a tree built from empty: the slots are written one after
/// the other instead of scattered through the table in node order.
#[inline(always)]
fn point<T>(slots: &mut [Slot], staged: &Staged<T>, nd: u32, at: u32, firsts: &[u32]) {
    let slot = &mut slots[staged.key.index as usize];
    slot.node = nd;
    slot.pos = at - firsts[nd as usize];
}

/// `group_by_node`'s pass when the items stay where they are (a free function, so that its
/// slices are known not to overlap).
#[inline(never)]
fn group_in_place<T>(
    routes: &[u32],
    items: &[Staged<T>],
    node_of: impl Fn(u32) -> u32,
    ends: &mut [u32],
    order: &mut [u32],
    firsts: &[u32],
    slots: &mut [Slot],
) {
    for (i, (&r, staged)) in routes.iter().zip(items).enumerate() {
        let nd = node_of(r);
        let at = &mut ends[nd as usize];
        order[*at as usize] = i as u32;
        point(slots, staged, nd, *at, firsts);
        *at += 1;
    }
}

/// `group_by_node`'s pass when the items move into node order, into `grouped`.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn group_moving<T>(
    routes: &[u32],
    items: &mut [Staged<T>],
    grouped: &mut [Staged<T>],
    node_of: impl Fn(u32) -> u32,
    ends: &mut [u32],
    order: &mut [u32],
    firsts: &[u32],
    slots: &mut [Slot],
) {
    for (i, (&r, staged)) in routes.iter().zip(items).enumerate() {
        let nd = node_of(r);
        let at = &mut ends[nd as usize];
        order[*at as usize] = i as u32;
        point(slots, staged, nd, *at, firsts);
        grouped[*at as usize] = Staged {
            rect: staged.rect,
            key: staged.key,
            value: staged.value.take(),
        };
        *at += 1;
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::quadtree::{Config, Placement, Shape, MAX_DEPTH};

    /// Rectangles of every kind a build meets: small ones spread and crowded, large ones,
    /// ones on the centre lines, ones partly or wholly outside the world, points.
    pub(crate) fn rect_of(i: usize) -> Rect {
        let h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let u = |k: u32| ((h >> k) & 0xffff) as f32 / 65536.0;
        let (x, y) = (u(0) * 120.0 - 10.0, u(16) * 100.0 - 10.0);
        let side = match i % 7 {
            0 => 0.0,
            1 => u(32) * 30.0,
            2 => return Rect::new(49.5 + u(32), y, 50.5, y + 1.0),
            3 => return Rect::from_min_size(20.0 + u(32) * 0.5, 20.0 + u(48) * 0.5, 0.1, 0.1),
            _ => u(32) * 2.0,
        };
        Rect::from_min_size(x, y, side, side)
    }

    /// Configurations a build test runs under: the default, a deep one splitting at every
    /// second item, and a loose one.
    pub(crate) fn build_configs() -> [Config; 3] {
        [
            Config::default(),
            Config {
                leaf_capacity: 1,
                max_depth: 10,
                placement: Placement::Exact,
            },
            Config {
                leaf_capacity: 4,
                max_depth: 7,
                placement: Placement::Loose,
            },
        ]
    }

    /// The shape of a tree, whatever the order of its lists: each live node's cell and
    /// subtree count, and each item's payload with its node's cell.
    #[allow(clippy::type_complexity)]
    fn shape(t: &Quadtree<u32>) -> (Vec<(u8, u32, u32, u32)>, Vec<(u32, u8, u32, u32)>) {
        let live = t.nodes.iter().filter(|n| n.live);
        let mut nodes: Vec<_> = live
            .clone()
            .map(|n| (n.level, n.cx, n.cy, n.subtree_len))
            .collect();
        let mut items: Vec<_> = live
            .flat_map(|n| n.items.iter().map(move |e| (e.value, n.level, n.cx, n.cy)))
            .collect();
        nodes.sort_unstable();
        items.sort_unstable();
        (nodes, items)
    }

    #[test]
    fn bulk_builds_reach_the_shape_of_one_by_one_inserts() {
        let world = Rect::new(0.0, 0.0, 100.0, 80.0);
        // Up to 2,048 staged items scatter straight into the lists; more group first.
        let sizes = [(0, 0), (1, 0), (700, 0), (3_000, 1_000), (60_000, 10_000)];
        for config in build_configs() {
            for (n, stored) in sizes {
                let mut bulk = Quadtree::with_config(world, config).unwrap();
                let mut one_by_one = Quadtree::with_config(world, config).unwrap();
                let mut ids = Vec::new();
                let earlier = (n..n + stored).map(|i| (rect_of(i), i as u32));
                bulk.insert_many(earlier.clone(), &mut ids).unwrap();
                let later = (0..n).map(|i| (rect_of(i), i as u32));
                bulk.insert_many(later.clone(), &mut ids).unwrap();
                for (rect, value) in earlier.chain(later) {
                    one_by_one.insert(rect, value).unwrap();
                }
                bulk.validate().unwrap();
                one_by_one.validate().unwrap();
                assert!(
                    shape(&bulk) == shape(&one_by_one),
                    "{config:?}, {n} items onto {stored}"
                );
                assert_eq!(ids.len(), n + stored);
                for (i, &id) in ids.iter().enumerate() {
                    let value = if i < stored { n + i } else { i - stored };
                    assert_eq!(bulk.get(id), Some(&(value as u32)));
                }
            }
        }
    }

    /// A large build fills its lists reading the staged items where they lie, or, when they
    /// take more than `INDEXED_FILL_MAX_BYTES`, after moving them into node order: the same
    /// items with a payload large enough to cross that limit make the same lists, item for
    /// item, and the same slots.
    #[test]
    fn both_fills_of_a_large_build_make_the_same_lists() {
        type Heavy = [u64; 32];
        let world = Rect::new(0.0, 0.0, 100.0, 80.0);
        let (n, stored) = (66_000, 4_000);
        assert!(n + stored > DIRECT_SCATTER_MAX_ITEMS);
        assert!((n + stored) * std::mem::size_of::<Staged<u32>>() <= INDEXED_FILL_MAX_BYTES);
        assert!((n + stored) * std::mem::size_of::<Staged<Heavy>>() > INDEXED_FILL_MAX_BYTES);
        for config in build_configs() {
            let mut light = Quadtree::with_config(world, config).unwrap();
            let mut heavy = Quadtree::with_config(world, config).unwrap();
            let (mut light_ids, mut heavy_ids) = (Vec::new(), Vec::new());
            for range in [n..n + stored, 0..n] {
                let items = range.clone().map(|i| (rect_of(i), i as u32));
                light.insert_many(items, &mut light_ids).unwrap();
                let items = range.map(|i| (rect_of(i), [i as u64; 32]));
                heavy.insert_many(items, &mut heavy_ids).unwrap();
            }
            light.validate().unwrap();
            heavy.validate().unwrap();
            assert_eq!(light_ids.len(), heavy_ids.len());
            assert_eq!(light.nodes.len(), heavy.nodes.len());
            for (a, b) in light.nodes.iter().zip(&heavy.nodes) {
                assert_eq!((a.live, a.level, a.cx, a.cy), (b.live, b.level, b.cx, b.cy));
                assert_eq!(a.items.len(), b.items.len(), "{config:?}");
                for p in 0..a.items.len() {
                    assert_eq!(a.items[p].id, b.items[p].id);
                    assert_eq!(u64::from(a.items[p].value), b.items[p].value[31]);
                    assert_eq!(a.items.rect(p), b.items.rect(p));
                }
            }
            for (a, b) in light.slots.iter().zip(heavy.slots.iter()) {
                assert_eq!((a.generation, a.node, a.pos), (b.generation, b.node, b.pos));
            }
        }
    }

    /// A tree rebuilt again and again with large payloads (grouped by moving the items, whose
    /// buffers keep their lengths between builds) makes, each time, the lists and slots a
    /// fresh tree makes from the same items: more items than the last build, fewer, and items
    /// added to ones already stored.
    #[test]
    fn repeated_large_builds_match_fresh_ones() {
        type Heavy = (String, [u64; 40]);
        let heavy = |i: usize| (i.to_string(), [i as u64; 40]);
        let world = Rect::new(0.0, 0.0, 100.0, 80.0);
        let config = Config::default();
        let mut reused = Quadtree::with_config(world, config).unwrap();
        let mut ids = Vec::new();
        for (n, stored) in [(30_000, 0), (45_000, 0), (26_000, 0), (20_000, 10_000)] {
            assert!((n + stored) * std::mem::size_of::<Staged<Heavy>>() > INDEXED_FILL_MAX_BYTES);
            let mut fresh = Quadtree::with_config(world, config).unwrap();
            let mut fresh_ids = Vec::new();
            reused.clear();
            ids.clear();
            for range in [n..n + stored, 0..n] {
                let items = range.clone().map(|i| (rect_of(i), heavy(i)));
                reused.insert_many(items, &mut ids).unwrap();
                let items = range.map(|i| (rect_of(i), heavy(i)));
                fresh.insert_many(items, &mut fresh_ids).unwrap();
            }
            // Handles differ (a cleared tree's slots are a generation on), the lists do not.
            reused.validate().unwrap();
            assert_eq!(ids.len(), fresh_ids.len());
            // The reused tree keeps the node blocks of earlier, deeper shapes: its live nodes
            // are the fresh tree's, in the same order.
            let live = |t: &Quadtree<Heavy>| t.nodes.iter().filter(|n| n.live).count();
            assert_eq!(live(&reused), live(&fresh));
            let reused_live = reused.nodes.iter().filter(|n| n.live);
            for (a, b) in reused_live.zip(fresh.nodes.iter().filter(|n| n.live)) {
                assert_eq!((a.level, a.cx, a.cy), (b.level, b.cx, b.cy));
                assert_eq!(a.items.len(), b.items.len());
                for p in 0..a.items.len() {
                    assert_eq!(a.items[p].id.index, b.items[p].id.index);
                    assert_eq!(a.items[p].value, b.items[p].value);
                    assert_eq!(a.items.rect(p), b.items.rect(p));
                }
            }
            for (i, &id) in ids.iter().enumerate() {
                let v = if i < stored { n + i } else { i - stored };
                assert_eq!(reused.get(id), Some(&heavy(v)));
            }
        }
    }

    /// A refused batch or a batch whose iterator panics half-way leaves the tree, its free
    /// chain and the caller's handles as they were, and the next batch gets the handles it
    /// would have got.
    #[test]
    fn a_refused_or_panicking_batch_changes_nothing() {
        let world = Rect::new(0.0, 0.0, 100.0, 80.0);
        let mut tree = Quadtree::new(world).unwrap();
        let mut ids = Vec::new();
        tree.insert_many((0..500).map(|i| (rect_of(i), i as u32)), &mut ids)
            .unwrap();
        // Free some slots, so that handles come from the free chain and from new slots.
        for &id in ids.iter().step_by(3) {
            tree.remove(id).unwrap();
        }
        ids.retain(|&id| tree.get(id).is_some());
        let (len, kept) = (tree.len(), ids.clone());
        let bad = (0..400).map(|i| {
            let r = if i == 399 {
                Rect::new(f32::NAN, 0.0, 1.0, 1.0)
            } else {
                rect_of(i)
            };
            (r, i as u32)
        });
        assert_eq!(
            tree.insert_many(bad, &mut ids),
            Err(BatchError {
                index: 399,
                error: QuadtreeError::NonFinite(Shape::Rect(Rect::new(f32::NAN, 0.0, 1.0, 1.0)))
            })
        );
        assert_eq!((tree.len(), &ids), (len, &kept));
        tree.validate().unwrap();
        let panicking = (0..400).map(|i| {
            assert!(i < 399, "the caller's iterator panics");
            (rect_of(i), i as u32)
        });
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tree.insert_many(panicking, &mut ids)
        }));
        assert!(caught.is_err());
        assert_eq!((tree.len(), &ids), (len, &kept));
        tree.validate().unwrap();
        // The same batch, good now, gets the slots and generations one-by-one inserts would
        // (in a clone, whose handles are its own).
        let mut one_by_one = tree.clone();
        tree.insert_many((0..400).map(|i| (rect_of(i), i as u32)), &mut ids)
            .unwrap();
        tree.validate().unwrap();
        for (i, &id) in ids[kept.len()..].iter().enumerate() {
            assert_eq!(
                one_by_one.insert(rect_of(i), i as u32).unwrap().key(),
                id.key()
            );
            assert_eq!(tree.get(id), Some(&(i as u32)));
        }
    }

    #[test]
    fn levels_follow_each_other_in_the_table_of_cells() {
        for level in 0..=u32::from(MAX_DEPTH) + 1 {
            assert_eq!(level_base(level), ((1usize << (2 * level)) - 1) / 3);
        }
        assert_eq!(level_base(0), 0);
        for level in 0..=u32::from(MAX_DEPTH) {
            assert_eq!(level_base(level + 1) - level_base(level), 1 << (2 * level));
        }
    }
}
