//! The shape of a bulk build: the subtree counts summed bottom-up, the nodes made top-down
//! with their lists' room reserved, and the node of every cell.

use super::scratch::level_base;
use crate::quadtree::{Quadtree, NULL};

impl<T> Quadtree<T> {
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
}
