//! The fill: each node's list from its items, by one scatter in staging order (a small
//! build) or from each node's group (a large one), then the slots of the banded lists.

use super::scratch::{BulkScratch, Staged};
use crate::quadtree::items::ItemList;
use crate::quadtree::{simd, Quadtree};

/// Builds of at most this many items push each item straight into its node's list. Larger
/// ones group the items by node first and fill the lists one after the other: the scatter
/// writes to every list at once, which costs more than the grouping pass as soon as the
/// lists stop fitting in the first caches (a few thousand items).
pub(super) const DIRECT_SCATTER_MAX_ITEMS: usize = 1 << 11;

/// A large build whose staged items take at most this many bytes fills the node lists
/// reading the items through the grouping's order, where they lie; a larger one moves them
/// into node order first if most of them go to banded lists. The items are read once either
/// way. Read through `order`, each item is requested `FILL_AHEAD` items before it is read,
/// so that the scattered reads overlap, which serves leaves (read in group order) but not
/// banded lists (read in the order the pushes' swaps leave, which the fill works out only
/// then): where those hold most items, a pass that moves the items pays once they no longer
/// fit in a last-level cache and each scattered read misses.
pub(super) const INDEXED_FILL_MAX_BYTES: usize = 8 << 20;

/// How many items ahead the fill requests the staged item it will read through `order`.
pub(super) const FILL_AHEAD: usize = 16;

/// Appends to `list` the group's items `ks` (in that order) of a group of staged items: the
/// group's `k`-th item is item `order[k]`, which lies at `items[first + k]` when the items
/// were moved into node order (`first` the group's start), else at `items[order[k]]`. In the
/// second case `ahead[k]` (where it exists) names the item read `FILL_AHEAD` later, which is
/// requested now: read through `order`, the items are scattered.
#[inline(always)]
#[expect(
    clippy::too_many_arguments,
    reason = "the slices are passed apart so that the compiler knows they do not overlap"
)]
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

impl<T> Quadtree<T> {
    /// Places every staged item into a tree whose root is empty and childless. The payloads
    /// of the items numbered below `values_from` come from `value_of`, the others from the
    /// staging.
    pub(in crate::quadtree) fn place_staged(
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
