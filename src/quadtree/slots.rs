//! Handles and the slot table. An [`ItemId`] is a slot index, a generation and the id of the
//! tree that made it; the slot says which node holds the item and where in its list. Freed
//! slots form a free chain threaded through `pos`, and a slot's generation moves on when its
//! item goes, so a stale handle is recognised in O(1) and never reaches a later item (a slot
//! whose generation would come back to where it started is retired for good).
//!
//! Each tree takes the next value of a process-wide 64-bit count as its id, and every access
//! compares the handle's tree id with the tree's: a handle from another tree is refused
//! whatever its index and generation. A clone takes a new id too, and keeps the ids of the
//! trees it was copied from (its lineage, oldest first); each slot records the place in the
//! lineage of the tree that began its item's life (`born`). A handle of an ancestor reaches
//! an item only if that ancestor's place is at or after the item's: the ancestor held the
//! item when it was copied, and its handle for that slot and generation names that item,
//! since within one tree's history a slot never repeats a generation. Any other ancestor's
//! handle names an item the ancestor made after the copy, which the clone does not hold.
//! The common case, a tree's own handle, costs one comparison as before; the lineage is
//! read only for handles of other trees, and a free slot already holds the tree's own
//! place, so an insert writes nothing more.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Quadtree, QuadtreeError, Rect, NULL};

/// The tree a handle belongs to: unique among all trees of a process. Kept as two `u32`
/// halves (high first, so that the derived order is the number's) so that handles stay
/// 4-byte aligned, 16 bytes. The item lists leave it out of their entries ([`SlotKey`]).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct TreeId([u32; 2]);

impl TreeId {
    /// Belongs to no tree: handles being staged before they get their slot.
    pub(super) const NONE: TreeId = TreeId([0, 0]);

    /// A new tree's id, never handed out before in this process; `None` once `2^64 - 1` ids
    /// are used up (at one tree a nanosecond, after 584 years).
    pub(super) fn next() -> Option<TreeId> {
        static TREES: AtomicU64 = AtomicU64::new(1);
        let id = TREES
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
            .ok()?;
        Some(TreeId([(id >> 32) as u32, id as u32]))
    }
}

impl fmt::Debug for TreeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", u64::from(self.0[0]) << 32 | u64::from(self.0[1]))
    }
}

/// `Slot::node` of a slot whose generation ran out: never handed out again.
pub(super) const RETIRED: u32 = u32::MAX - 1;

/// A handle to an item of a [`Quadtree`]: a slot index, a generation and the tree's id
/// (16 bytes).
///
/// Handles stay valid while the item lives, whatever moves, splits, merges or
/// [`Quadtree::set_config`] rebuilds happen. Once the item is removed (or the tree cleared)
/// the slot's generation moves on, so the old handle is recognised as stale and can never
/// reach an item inserted later into the same slot: a slot whose generation would wrap
/// around to its first value (after `2^32 - 1` items have lived in it) is retired instead.
///
/// A handle from another tree is refused too, on every access: each tree has an id that no
/// other tree of the process shares (a 64-bit count, see [`QuadtreeError::Full`]), and the
/// handle carries it. A clone is another tree with an id of its own; it also accepts the
/// handles of the tree it was copied from, but only for the items that tree held at the
/// copy, so that a snapshot keeps its handles while the handles either tree makes
/// afterwards reach only that tree's items (see [`Quadtree`]'s `Clone`). A handle from a
/// query names the item in the tree that was queried: a clone's query hands out the clone's
/// handles, which its original refuses.
///
/// ```
/// use quadstress::{Quadtree, Rect};
/// let mut a = Quadtree::new(Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
/// let mut b = Quadtree::new(Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
/// // The same slot and generation in both trees: only the tree ids differ.
/// let in_a = a.insert(Rect::new(0.0, 0.0, 0.5, 0.5), 'a').unwrap();
/// let in_b = b.insert(Rect::new(0.0, 0.0, 0.5, 0.5), 'b').unwrap();
/// assert_eq!(in_a.index(), in_b.index());
/// assert_eq!(b.get(in_a), None);
/// assert_eq!(b.remove(in_a), None);
/// assert_eq!(b.get(in_b), Some(&'b'));
/// assert_eq!(std::mem::size_of::<quadstress::ItemId>(), 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemId {
    pub(super) index: u32,
    pub(super) generation: u32,
    pub(super) tree: TreeId,
}

impl ItemId {
    /// The slot and generation, as the tree's lists store them.
    #[inline]
    pub(super) fn key(self) -> SlotKey {
        SlotKey {
            index: self.index,
            generation: self.generation,
        }
    }

    /// The slot index: dense, below the largest number of items ever held at once.
    /// Useful to index side tables.
    ///
    /// ```
    /// let mut tree = quadstress::Quadtree::new(quadstress::Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// let id = tree.insert(quadstress::Rect::new(0.0, 0.0, 0.1, 0.1), ()).unwrap();
    /// assert_eq!(id.index(), 0);
    /// ```
    pub fn index(self) -> u32 {
        self.index
    }
}

/// What a query hands out: the handle, the stored rectangle and the payload, lent for `'a`,
/// the borrow of the tree, so a callback may keep it past its own call.
#[derive(Debug)]
pub struct ItemRef<'a, T> {
    /// The item's handle.
    pub id: ItemId,
    /// The item's rectangle.
    pub rect: Rect,
    /// The item's payload, borrowed from the tree.
    pub value: &'a T,
}

impl<T> Clone for ItemRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ItemRef<'_, T> {}

/// A handle without its tree id: what the item lists store, since every item of a tree has
/// the same one (the lists stay as small as they were before handles named their tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SlotKey {
    pub(super) index: u32,
    pub(super) generation: u32,
}

impl SlotKey {
    /// The full handle, for the tree `tree`.
    #[inline(always)]
    pub(super) fn handle(self, tree: TreeId) -> ItemId {
        ItemId {
            index: self.index,
            generation: self.generation,
            tree,
        }
    }
}

/// One stored item, kept inside its node's list so that queries scan contiguous memory. Its
/// rectangle lives beside it, in the list's blocks.
#[derive(Clone, Debug)]
pub(super) struct Entry<T> {
    pub(super) id: SlotKey,
    pub(super) value: T,
}

/// Where an item lives; the free list of slots is threaded through `pos`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    pub(super) generation: u32,
    /// Node holding the item; NULL when the slot is free, RETIRED when it is out of use.
    pub(super) node: u32,
    /// Index in the node's list, or the next free slot when the slot is free.
    pub(super) pos: u32,
    /// Which tree's handles reach the item: the tree that began its life (inserted it), as
    /// its place in the tree's lineage (see [`Quadtree::accepts`]). A slot not in use holds
    /// the tree's own place, which its next item inherits.
    pub(super) born: u32,
}

/// Ends the life of an item's slot: the next generation makes old handles stale. A slot whose
/// next generation would be its first again (0, after 2^32 - 1 lives) is retired instead, so
/// no handle can ever come back to life. Returns whether the slot may be reused (the caller
/// threads it into the free chain).
pub(super) fn end_generation(slot: &mut Slot) -> bool {
    let next = slot.generation.wrapping_add(1);
    if next == 0 {
        slot.node = RETIRED;
        slot.pos = NULL;
        return false;
    }
    slot.node = NULL;
    slot.generation = next;
    true
}

/// Hands out the slots that successive calls of `alloc_slot` would (the free chain first,
/// then new slots past the table's end), without changing the table until
/// [`Quadtree::commit_handout`]: the free chain is only read and new slots are only counted, so
/// a batch that is refused, or whose iterator panics, leaves the table untouched. Callers
/// check [`MAX_ITEMS`](super::MAX_ITEMS) themselves.
#[derive(Clone, Copy)]
pub(super) struct SlotHandout {
    free: u32,
    table_len: usize,
    new: usize,
}

impl SlotHandout {
    /// The next slot's key.
    #[inline(always)]
    pub(super) fn next(&mut self, slots: &[Slot]) -> SlotKey {
        if self.free != NULL {
            let slot = &slots[self.free as usize];
            let key = SlotKey {
                index: self.free,
                generation: slot.generation,
            };
            self.free = slot.pos;
            return key;
        }
        self.new += 1;
        SlotKey {
            index: (self.table_len + self.new - 1) as u32,
            generation: 0,
        }
    }
}

/// The slot table: one [`Slot`] per handle index (where its item lives, or the next free slot),
/// the free chain through the slots out of use, and the count of slots retired for good. It
/// knows nothing of nodes: the tree writes `node` and `pos` as items move, and reads the
/// table as a slice.
#[derive(Clone, Debug)]
pub(super) struct SlotTable {
    slots: Vec<Slot>,
    /// The first free slot, NULL when none; the chain runs through `Slot::pos`.
    free: u32,
    /// Slots whose generations ran out: never handed out again.
    retired: usize,
}

impl std::ops::Deref for SlotTable {
    type Target = [Slot];

    #[inline(always)]
    fn deref(&self) -> &[Slot] {
        &self.slots
    }
}

impl std::ops::DerefMut for SlotTable {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Slot] {
        &mut self.slots
    }
}

impl SlotTable {
    /// An empty table.
    pub(super) fn new() -> Self {
        SlotTable {
            slots: Vec::new(),
            free: NULL,
            retired: 0,
        }
    }

    /// Asks the CPU to bring slot `index` into its caches (see `simd::prefetch`): a hint
    /// only, and none for an index past the end.
    #[inline(always)]
    pub(super) fn prefetch(&self, index: u32) {
        if let Some(slot) = self.slots.get(index as usize) {
            super::simd::prefetch(slot);
        }
    }

    /// The first free slot (NULL when none), for `validate` to walk the chain.
    pub(super) fn free_head(&self) -> u32 {
        self.free
    }

    /// Slots retired for good: they take room in the table but are never handed out.
    pub(super) fn retired(&self) -> usize {
        self.retired
    }

    /// Slots the table holds room for, retired ones included (as [`Vec::capacity`]).
    pub(super) fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Room for `additional` more slots past the table's end.
    pub(super) fn try_reserve(
        &mut self,
        additional: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        self.slots.try_reserve(additional)
    }

    /// A handout starting from the table as it is now.
    pub(super) fn handout(&self) -> SlotHandout {
        SlotHandout {
            free: self.free,
            table_len: self.slots.len(),
            new: 0,
        }
    }

    /// Makes the handout's new slots (their items to begin their lives at lineage place
    /// `born`) and takes the slots it handed out off the free chain.
    pub(super) fn commit(&mut self, handout: SlotHandout, born: u32) {
        debug_assert_eq!(self.slots.len(), handout.table_len);
        self.slots.resize(
            handout.table_len + handout.new,
            Slot {
                generation: 0,
                node: NULL,
                pos: NULL,
                born,
            },
        );
        self.free = handout.free;
    }

    /// The next slot for an item: the head of the free chain, else a new slot whose item
    /// begins its life at lineage place `born`; `None` when the table holds
    /// [`MAX_ITEMS`](super::MAX_ITEMS) slots and none is free.
    pub(super) fn alloc(&mut self, born: u32) -> Option<SlotKey> {
        if self.free != NULL {
            let index = self.free;
            let slot = &self.slots[index as usize];
            self.free = slot.pos;
            return Some(SlotKey {
                index,
                generation: slot.generation,
            });
        }
        if self.slots.len() >= super::MAX_ITEMS {
            return None;
        }
        self.slots.push(Slot {
            generation: 0,
            node: NULL,
            pos: NULL,
            born,
        });
        Some(SlotKey {
            index: self.slots.len() as u32 - 1,
            generation: 0,
        })
    }

    /// Ends the life of slot `index`'s item: the slot's next item begins its life at lineage
    /// place `born`, and the slot goes to the head of the free chain, or is retired.
    pub(super) fn release(&mut self, index: u32, born: u32) {
        let slot = &mut self.slots[index as usize];
        slot.born = born;
        if end_generation(slot) {
            slot.pos = self.free;
            self.free = index;
        } else {
            self.retired += 1;
        }
    }

    /// Ends the life of every item at once (`clear`): each slot in use moves to its next
    /// generation, and the free chain is rebuilt in index order, since handing slots out in
    /// the order items were stored would scatter the next fill across the table and make
    /// refills markedly slower. Every slot's next item begins its life at `born`.
    pub(super) fn release_all(&mut self, born: u32) {
        let mut free = NULL;
        for (index, slot) in self.slots.iter_mut().enumerate().rev() {
            slot.born = born;
            let reusable = match slot.node {
                RETIRED => false,
                NULL => true,
                _ => {
                    let reusable = end_generation(slot);
                    self.retired += usize::from(!reusable);
                    reusable
                }
            };
            if reusable {
                slot.pos = free;
                free = index as u32;
            }
        }
        self.free = free;
    }

    /// A copy whose free slots' next items begin their lives at `born` (a clone's own place).
    pub(super) fn copy_for(&self, born: u32) -> SlotTable {
        let mut copy = self.clone();
        for slot in copy.slots.iter_mut().filter(|s| s.node == NULL) {
            slot.born = born;
        }
        copy
    }
}

impl<T> Quadtree<T> {
    /// A handout starting from the slot table as it is now.
    pub(super) fn slot_handout(&self) -> SlotHandout {
        self.slots.handout()
    }

    /// Makes the handout's new slots and takes the slots it handed out off the free chain.
    pub(super) fn commit_handout(&mut self, handout: SlotHandout) {
        let born = self.lineage();
        self.slots.commit(handout, born);
    }

    #[inline]
    pub(super) fn live_slot(&self, id: ItemId) -> Option<Slot> {
        let slot = *self.slots.get(id.index as usize)?;
        // The tests in their order from before clones had ids of their own: the generation
        // and the tree id sit side by side in the handle, and a move's fast path compares
        // them together (in this order, about 4 instructions fewer per `update`).
        (slot.generation == id.generation
            && (id.tree == self.tree || self.accepts(id.tree, slot.born))
            && slot.node < RETIRED)
            .then_some(slot)
    }

    /// This tree's place in its lineage: how many trees it was cloned from, one from the
    /// other (0 for a tree made by [`new`](Quadtree::new) or a bulk constructor).
    #[inline]
    pub(super) fn lineage(&self) -> u32 {
        self.ancestors.len() as u32
    }

    /// Whether a handle of the tree `tree`, an ancestor, reaches an item whose life began in
    /// the tree at place `born` of the lineage: only if `tree` already held the item, as the
    /// trees from `born` on did (an item in this tree was in each tree it was copied through).
    /// A handle of an ancestor that was copied before the item began names another item, or
    /// none. The lineage is short (one entry per copy of a copy), and this is reached only
    /// by handles of other trees.
    #[cold]
    pub(super) fn accepts(&self, tree: TreeId, born: u32) -> bool {
        self.ancestors
            .get(born as usize..)
            .is_some_and(|later| later.contains(&tree))
    }

    pub(super) fn alloc_slot(&mut self) -> Result<ItemId, QuadtreeError> {
        let key = self
            .slots
            .alloc(self.lineage())
            .ok_or(QuadtreeError::Full)?;
        Ok(key.handle(self.tree))
    }

    pub(super) fn free_slot(&mut self, index: u32) {
        // The slot's next item begins its life in this tree.
        let born = self.lineage();
        self.slots.release(index, born);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Used, free (walked along the chain) and retired slots account for the whole table.
    fn check_accounting(t: &SlotTable) -> (usize, usize, usize) {
        let mut free = 0;
        let mut s = t.free_head();
        while s != NULL {
            assert_eq!(t[s as usize].node, NULL, "slot {s} on the chain is free");
            free += 1;
            assert!(free <= t.len(), "the free chain loops");
            s = t[s as usize].pos;
        }
        let used = t
            .iter()
            .filter(|s| s.node < RETIRED && s.node != NULL)
            .count();
        let retired = t.iter().filter(|s| s.node == RETIRED).count();
        assert_eq!(retired, t.retired());
        assert_eq!(used + free + retired, t.len());
        (used, free, retired)
    }

    /// Marks a handed-out slot as holding an item, as the tree does when it places one.
    fn occupy(t: &mut SlotTable, key: SlotKey) {
        t[key.index as usize].node = 0;
        t[key.index as usize].pos = 0;
    }

    #[test]
    fn released_slots_come_back_with_the_next_generation_last_freed_first() {
        let mut t = SlotTable::new();
        let keys: Vec<SlotKey> = (0..4).map(|_| t.alloc(0).unwrap()).collect();
        assert_eq!(
            keys.iter().map(|k| k.index).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert!(keys.iter().all(|k| k.generation == 0));
        for &k in &keys {
            occupy(&mut t, k);
        }
        t.release(1, 5);
        t.release(3, 5);
        assert_eq!(check_accounting(&t), (2, 2, 0));
        assert_eq!(t[1].born, 5);
        let again = t.alloc(0).unwrap();
        assert_eq!((again.index, again.generation), (3, 1));
        let again = t.alloc(0).unwrap();
        assert_eq!((again.index, again.generation), (1, 1));
        assert_eq!(
            t.alloc(7).unwrap().index,
            4,
            "a new slot once the chain is empty"
        );
        assert_eq!(t[4].born, 7);
    }

    #[test]
    fn a_slot_whose_generation_runs_out_is_retired() {
        let mut t = SlotTable::new();
        let k = t.alloc(0).unwrap();
        occupy(&mut t, k);
        t[0].generation = u32::MAX;
        t.release(0, 0);
        assert_eq!(t.retired(), 1);
        assert_eq!(t.free_head(), NULL);
        assert_eq!(check_accounting(&t), (0, 0, 1));
        // Never handed out again.
        assert_eq!(t.alloc(0).unwrap().index, 1);
    }

    #[test]
    fn a_handout_gives_what_alloc_would_and_changes_nothing_until_committed() {
        let mut t = SlotTable::new();
        for _ in 0..6 {
            let k = t.alloc(0).unwrap();
            occupy(&mut t, k);
        }
        t.release(4, 0);
        t.release(2, 0);
        let mut by_alloc = t.clone();
        let want: Vec<SlotKey> = (0..4).map(|_| by_alloc.alloc(3).unwrap()).collect();
        let mut handout = t.handout();
        let got: Vec<SlotKey> = (0..4).map(|_| handout.next(&t)).collect();
        assert_eq!(got, want);
        assert_eq!((t.len(), t.free_head()), (6, 2), "the table is untouched");
        t.commit(handout, 3);
        assert_eq!(t.len(), by_alloc.len());
        assert_eq!(t.free_head(), NULL);
        assert_eq!(t[7].born, 3);
    }

    #[test]
    fn release_all_rebuilds_the_chain_in_index_order() {
        let mut t = SlotTable::new();
        for _ in 0..5 {
            let k = t.alloc(0).unwrap();
            occupy(&mut t, k);
        }
        t.release(3, 0);
        t[1].generation = u32::MAX;
        t.release_all(2);
        assert_eq!(check_accounting(&t), (0, 4, 1));
        let order: Vec<u32> = (0..4).map(|_| t.alloc(2).unwrap().index).collect();
        assert_eq!(order, [0, 2, 3, 4]);
        assert!(t.iter().all(|s| s.born == 2));
        assert_eq!(t[0].generation, 1);
        // A copy for a clone marks only its free slots with the clone's place.
        let mut u = SlotTable::new();
        let k = u.alloc(0).unwrap();
        occupy(&mut u, k);
        u.alloc(0).unwrap();
        u.release(1, 0);
        let copy = u.copy_for(9);
        assert_eq!((copy[0].born, copy[1].born), (0, 9));
    }
}
