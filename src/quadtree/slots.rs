//! Handles and the slot table. An [`ItemId`] is a slot index plus a generation; the slot says
//! which node holds the item and where in its list. Freed slots form a free chain threaded
//! through `pos`, and a slot's generation moves on when its item goes, so a stale handle is
//! recognised in O(1) and never reaches a later item (a slot whose generation would come back
//! to where it started is retired for good).
//!
//! Each tree starts its generations at its own tag, spread over the `u32` range, so a handle
//! from another tree carries a generation this tree's slot does not have: it is refused like
//! a stale one, at no cost in handle size.

use std::sync::atomic::{AtomicU32, Ordering};

use super::{Quadtree, QuadtreeError, Rect, NULL};

/// The first generation of every slot of a new tree: consecutive trees get tags about
/// `0.62 * 2^32` apart (golden-ratio steps), so any two trees' tags stay far apart and a slot
/// would have to be reused some billions of times before one tree's generation reaches
/// another's.
pub(super) fn new_tree_tag() -> u32 {
    static TREES: AtomicU32 = AtomicU32::new(0);
    TREES
        .fetch_add(1, Ordering::Relaxed)
        .wrapping_mul(0x9E37_79B9)
}

/// `Slot::node` of a slot whose generation ran out: never handed out again.
pub(super) const RETIRED: u32 = u32::MAX - 1;

/// A handle to an item of a [`Quadtree`]: a slot index plus a generation.
///
/// Handles stay valid while the item lives, whatever moves, splits, merges or
/// [`Quadtree::set_config`] rebuilds happen. Once the item is removed (or the tree cleared)
/// the slot's generation moves on, so the old handle is recognised as stale and can never
/// reach an item inserted later into the same slot.
///
/// A handle from another tree is refused too: each tree numbers its generations from its own
/// starting point, far from every other tree's. This is a strong safeguard, not a proof: the
/// two trees' generations of one slot could only meet after that slot had been reused about
/// a billion times or more, and a process that makes more than 2^32 trees reuses starting
/// points.
///
/// ```
/// use quadstress::{Quadtree, Rect};
/// let mut a = Quadtree::new(Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
/// let mut b = Quadtree::new(Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
/// let in_a = a.insert(Rect::new(0.0, 0.0, 0.5, 0.5), 'a').unwrap();
/// b.insert(Rect::new(0.0, 0.0, 0.5, 0.5), 'b').unwrap();
/// assert_eq!(b.get(in_a), None);
/// assert_eq!(b.remove(in_a), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemId {
    pub(super) index: u32,
    pub(super) generation: u32,
}

impl ItemId {
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

/// One stored item, kept inside its node's list so that queries scan contiguous memory. Its
/// rectangle lives beside it, in the list's blocks.
#[derive(Debug)]
pub(super) struct Entry<T> {
    pub(super) id: ItemId,
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
}

/// Ends the life of an item's slot: the next generation makes old handles stale. A slot whose
/// next generation would be its first again (`tag`, after 2^32 - 1 lives) is retired
/// instead, so no handle can ever come back to life. Returns whether the slot may be reused
/// (the caller threads it into the free chain).
pub(super) fn end_generation(slot: &mut Slot, tag: u32) -> bool {
    let next = slot.generation.wrapping_add(1);
    if next == tag {
        slot.node = RETIRED;
        slot.pos = NULL;
        return false;
    }
    slot.node = NULL;
    slot.generation = next;
    true
}

impl<T> Quadtree<T> {
    #[inline]
    pub(super) fn live_slot(&self, id: ItemId) -> Option<Slot> {
        let slot = *self.slots.get(id.index as usize)?;
        (slot.generation == id.generation && slot.node < RETIRED).then_some(slot)
    }

    pub(super) fn alloc_slot(&mut self) -> Result<ItemId, QuadtreeError> {
        if self.free_slot != NULL {
            let index = self.free_slot;
            let slot = &mut self.slots[index as usize];
            self.free_slot = slot.pos;
            return Ok(ItemId {
                index,
                generation: slot.generation,
            });
        }
        if self.slots.len() >= super::MAX_ITEMS {
            return Err(QuadtreeError::Full);
        }
        self.slots.push(Slot {
            generation: self.tag,
            node: NULL,
            pos: NULL,
        });
        Ok(ItemId {
            index: self.slots.len() as u32 - 1,
            generation: self.tag,
        })
    }

    pub(super) fn free_slot(&mut self, index: u32) {
        if end_generation(&mut self.slots[index as usize], self.tag) {
            self.slots[index as usize].pos = self.free_slot;
            self.free_slot = index;
        }
    }
}
