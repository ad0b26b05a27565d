//! The grouping of a large build: a stable counting sort of the staged items by node, each
//! slot pointed at its item's node and place on the way.

use super::scratch::{BulkScratch, Staged};
use crate::quadtree::slots::Slot;
use crate::quadtree::{Rect, SlotKey, NULL};

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
#[expect(
    clippy::too_many_arguments,
    reason = "the slices are passed apart so that the compiler knows they do not overlap"
)]
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
