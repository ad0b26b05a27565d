//! Each item's place: the index of its cell in the table of every level's cells, for one
//! rectangle or for a whole staging at once (checking each rectangle and handing out its
//! handle in the same pass).

use super::scratch::{level_base, BulkScratch};
use crate::quadtree::placement::Grid;
use crate::quadtree::slots::{Slot, SlotHandout, TreeId};
use crate::quadtree::{ItemId, Quadtree, Rect, MAX_DEPTH};

impl<T> Quadtree<T> {
    /// The index in the table of every level's cells of the cell that `r` is placed in.
    #[inline]
    pub(super) fn cell_index(&self, r: &Rect) -> u32 {
        self.grid.cell_index(r)
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
pub(super) struct Placer<const LOOSE: bool> {
    grid: Grid,
    depth: u32,
    /// Under exact placement, the first cell of the level an item spends `bits` levels above
    /// the deepest one at, for each `bits`.
    first_cell: [u32; MAX_DEPTH as usize + 2],
    /// The index given to a rectangle that fails [`Rect::check`].
    refused: u32,
}

impl<const LOOSE: bool> Placer<LOOSE> {
    pub(super) fn new(grid: &Grid, refused: u32) -> Self {
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
    pub(super) fn cell(&self, r: &Rect) -> u32 {
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
pub(super) fn place_and_hand_out<T, const LOOSE: bool>(
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
