//! The node arena: one `Vec` of nodes, children allocated four at a time (so a node needs
//! one link to reach all of them), freed blocks kept on a free list for reuse, and one dense
//! table per level mapping a cell to its node. Splitting, merging and collapsing live here,
//! together with the two primitives every mutation uses to move an entry between lists
//! (`detach`, `attach`) and the subtree counters that drive merging.

use super::{Entry, Grid, ItemList, Quadtree, Rect, TreeId, MAX_DEPTH};

/// Largest item-list reservation made for a new node; see `alloc_children`.
pub(super) const LIST_RESERVE_CAP: usize = 255;

/// Null sentinel for node and slot links.
pub(super) const NULL: u32 = u32::MAX;

/// A node of the arena. Children are allocated as a block of four consecutive nodes, so a
/// node needs one link to reach all of them; quadrant `q` is `first_child + q` with
/// `q = (x bit) | (y bit) << 1`.
///
/// Two cache lines, aligned, in a fixed order: the first holds what a walk reads of a node
/// it passes by (the links, the cell, the counts, and the list's bands and centre line, see
/// [`ItemList`]), so that a small query reads one line of each ancestor whose bands it misses;
/// the second the list's storage, read only by a scan.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub(super) struct Node<T> {
    pub(super) parent: u32,
    /// First of four children, or NULL for a leaf.
    pub(super) first_child: u32,
    /// Cell coordinates at `level`.
    pub(super) cx: u32,
    pub(super) cy: u32,
    /// Items in this node and all its descendants: drives merging.
    pub(super) subtree_len: u32,
    pub(super) level: u8,
    /// False while the node sits in the free list.
    pub(super) live: bool,
    pub(super) items: ItemList<T>,
}

impl<T> Node<T> {
    pub(super) fn new(parent: u32, level: u8, cx: u32, cy: u32, tree: TreeId) -> Self {
        Node {
            parent,
            first_child: NULL,
            level,
            live: true,
            cx,
            cy,
            subtree_len: 0,
            items: ItemList::new(tree),
        }
    }

    pub(super) fn is_leaf(&self) -> bool {
        self.first_child == NULL
    }
}

/// Which node holds each cell, level by level, and how many nodes each level holds: a cell's
/// node is one table read away, and walks stop at the deepest level in use. Nodes come and go
/// in blocks of four siblings, so the tables change a block at a time.
#[derive(Clone, Debug)]
pub(super) struct CellTables {
    /// Per level, the node of every cell (NULL where none exists); a level's table is
    /// allocated when its first node is made.
    tables: Vec<Vec<u32>>,
    /// Live nodes per level.
    per_level: [u32; MAX_DEPTH as usize + 1],
    /// The deepest level with a node.
    deepest: u8,
}

impl CellTables {
    /// The tables of a tree `max_depth` deep that holds its root alone (node 0).
    pub(super) fn new(max_depth: u8) -> Self {
        let mut tables = vec![Vec::new(); max_depth as usize + 1];
        tables[0] = vec![0];
        let mut per_level = [0; MAX_DEPTH as usize + 1];
        per_level[0] = 1;
        CellTables {
            tables,
            per_level,
            deepest: 0,
        }
    }

    /// The deepest level with a node.
    #[inline(always)]
    pub(super) fn deepest(&self) -> u8 {
        self.deepest
    }

    /// Live nodes per level.
    pub(super) fn per_level(&self) -> &[u32; MAX_DEPTH as usize + 1] {
        &self.per_level
    }

    /// The node of every cell of `level`, row by row (`(cy << level) | cx`); empty for a
    /// level that never had a node.
    #[inline(always)]
    pub(super) fn table(&self, level: u8) -> &[u32] {
        &self.tables[level as usize]
    }

    /// Every level's table, the root's first.
    pub(super) fn all(&self) -> &[Vec<u32>] {
        &self.tables
    }

    /// Records the four children `first..first + 4` of the node of cell `(pcx, pcy)` one
    /// level up: child `q` holds cell `(2 * pcx + (q & 1), 2 * pcy + (q >> 1))` of `level`.
    pub(super) fn add_block(&mut self, level: u8, pcx: u32, pcy: u32, first: u32) {
        let table = &mut self.tables[level as usize];
        if table.is_empty() {
            *table = vec![NULL; 1usize << (2 * level as usize)];
        }
        for q in 0..4u32 {
            let (cx, cy) = (2 * pcx + (q & 1), 2 * pcy + (q >> 1));
            table[((cy << level) | cx) as usize] = first + q;
        }
        self.per_level[level as usize] += 4;
        self.deepest = self.deepest.max(level);
    }

    /// Forgets the four children of the node of cell `(pcx, pcy)` one level up.
    pub(super) fn remove_block(&mut self, level: u8, pcx: u32, pcy: u32) {
        let table = &mut self.tables[level as usize];
        for q in 0..4u32 {
            let (cx, cy) = (2 * pcx + (q & 1), 2 * pcy + (q >> 1));
            table[((cy << level) | cx) as usize] = NULL;
        }
        self.per_level[level as usize] -= 4;
        while self.deepest > 0 && self.per_level[self.deepest as usize] == 0 {
            self.deepest -= 1;
        }
    }
}

impl<T> Quadtree<T> {
    /// Drops every node and puts an empty root back, with the scales of the current config.
    pub(super) fn reset_nodes(&mut self) {
        self.grid = Grid::new(self.grid.world, &self.config);
        self.nodes.clear();
        self.free_blocks.clear();
        self.spare_capacity = 0;
        self.cells = CellTables::new(self.config.max_depth);
        self.nodes.push(Node::new(NULL, 0, 0, 0, self.tree));
    }

    /// The x of the vertical centre line of cell `cx` of `level`.
    pub(super) fn centre_x(&self, level: u8, cx: u32) -> f32 {
        self.grid.centre_x(level, cx)
    }

    /// Adds `delta` to the subtree counters from `node` up to the root (at most `max_depth + 1`
    /// steps).
    #[inline]
    pub(super) fn add_to_path(&mut self, mut node: u32, delta: i32) {
        while node != NULL {
            let n = &mut self.nodes[node as usize];
            n.subtree_len = n.subtree_len.wrapping_add_signed(delta);
            node = n.parent;
        }
    }

    /// Moves one item's count from the path of `from` up to the root to the path of `to`:
    /// what `add_to_path(to, 1)` then `add_to_path(from, -1)` do, stopping where the two
    /// paths meet, above which the counts do not change (a move changes node mostly between
    /// a leaf and its parent).
    pub(super) fn move_count(&mut self, from: u32, to: u32) {
        let (mut a, mut b) = (from, to);
        while a != b {
            let (la, lb) = (self.nodes[a as usize].level, self.nodes[b as usize].level);
            // The deeper node steps up; at one level, neither is the other's ancestor, so
            // both do. The root is on both paths, so the loop ends there at the latest.
            if la >= lb {
                let n = &mut self.nodes[a as usize];
                n.subtree_len = n.subtree_len.wrapping_sub(1);
                a = n.parent;
            }
            if lb >= la {
                let n = &mut self.nodes[b as usize];
                n.subtree_len = n.subtree_len.wrapping_add(1);
                b = n.parent;
            }
        }
    }

    /// Gives `parent` four empty children and registers them in their level's table.
    pub(super) fn alloc_children(&mut self, parent: u32) -> u32 {
        let (level, pcx, pcy) = {
            let p = &self.nodes[parent as usize];
            (p.level + 1, p.cx, p.cy)
        };
        let first = match self.free_blocks.pop() {
            Some(first) => {
                for q in 0..4 {
                    self.spare_capacity -= self.nodes[(first + q) as usize].items.capacity();
                }
                first
            }
            None => {
                let first = self.nodes.len() as u32;
                for _ in 0..4 {
                    self.nodes.push(Node::new(NULL, 0, 0, 0, self.tree));
                }
                first
            }
        };
        for q in 0..4u32 {
            let (cx, cy) = (2 * pcx + (q & 1), 2 * pcy + (q >> 1));
            let n = &mut self.nodes[(first + q) as usize];
            // Reuse the item list's allocation: freed nodes keep their capacity.
            let mut items = std::mem::take(&mut n.items);
            // Room for a full leaf plus the item that splits it, so that merges and splits
            // in steady state reuse these lists instead of regrowing them. Capped so that a
            // huge `leaf_capacity` does not reserve memory for every node.
            items.reserve(self.config.leaf_capacity.min(LIST_RESERVE_CAP) + 1);
            *n = Node::new(parent, level, cx, cy, self.tree);
            n.items = items;
            n.items.unband();
        }
        self.cells.add_block(level, pcx, pcy, first);
        self.nodes[parent as usize].first_child = first;
        // The parent is internal now. Its entries may move within its list: the callers set
        // the slots of those that stay (a split does after moving the rest down; a bulk
        // build fills lists only after making the nodes).
        let centre_x = self.centre_x(level - 1, pcx);
        self.nodes[parent as usize].items.make_banded(centre_x);
        first
    }

    /// Returns a block of four (already emptied, childless) nodes to the free list.
    ///
    /// Freed nodes keep their item lists' allocations for reuse, but only up to a budget of
    /// about twice the most items the tree has held at once (its slot count): beyond it, a
    /// freed list shrinks to what `alloc_children` reserves. Without the budget, churn that
    /// crowds a different cell each time leaves a peak-sized list in every such cell.
    pub(super) fn free_children(&mut self, first: u32) {
        let (level, pcx, pcy) = {
            let n = &self.nodes[first as usize];
            (n.level, n.cx >> 1, n.cy >> 1)
        };
        let keep = self.config.leaf_capacity.min(LIST_RESERVE_CAP) + 1;
        let budget = 2 * self.slots.len() + 4 * keep;
        for q in 0..4 {
            let n = &mut self.nodes[(first + q) as usize];
            debug_assert!(n.items.is_empty() && n.is_leaf());
            if self.spare_capacity + n.items.capacity() > budget {
                n.items.shrink_to(keep);
            }
            self.spare_capacity += n.items.capacity();
            n.live = false;
            n.parent = NULL;
        }
        self.cells.remove_block(level, pcx, pcy);
        self.free_blocks.push(first);
    }

    /// Splits `start` if it is an overfull leaf, and then any child that is overfull in turn.
    /// Inlined check first: nearly every insert finds nothing to split.
    #[inline]
    pub(super) fn split_if_full(&mut self, start: u32) {
        let node = &self.nodes[start as usize];
        if node.items.len() > self.config.leaf_capacity && node.is_leaf() {
            self.split_cascade(start);
        }
    }

    pub(super) fn split_cascade(&mut self, start: u32) {
        let cap = self.config.leaf_capacity;
        self.scratch.clear();
        self.scratch.push(start);
        while let Some(n) = self.scratch.pop() {
            let node = &self.nodes[n as usize];
            if !node.is_leaf() || node.items.len() <= cap || node.level >= self.config.max_depth {
                continue;
            }
            let level = node.level;
            let first = self.alloc_children(n);
            // Stage 1: move every item that fits below this node into its child quadrant;
            // items whose place is this level stay (swap_remove keeps this O(len)).
            let mut items = std::mem::take(&mut self.nodes[n as usize].items);
            let mut i = 0;
            while i < items.len() {
                let p = self.place_of(&items.rect(i));
                if p.level == level {
                    i += 1;
                    continue;
                }
                let shift = p.level - level - 1;
                let q = ((p.cx >> shift) & 1) | (((p.cy >> shift) & 1) << 1);
                let child = first + q;
                // Entries that fill the hole come from after `i`: their slots are set when
                // they are kept or moved on.
                let (rect, entry) = items.swap_remove(i, |_, _| {});
                let c = &mut self.nodes[child as usize];
                let slots = &mut self.slots;
                let at = c.items.push(rect, entry, |e, at| {
                    slots[e.id.index as usize].pos = at as u32;
                });
                let moved_in = &c.items[at];
                slots[moved_in.id.index as usize].node = child;
                slots[moved_in.id.index as usize].pos = at as u32;
                c.subtree_len += 1;
            }
            // The items that left took no band with them; those that stay are sorted anew.
            items.refresh_bands();
            items.sort_runs(&mut self.sort_scratch, |_, _| {});
            for (p, e) in items.iter().enumerate() {
                self.slots[e.id.index as usize].pos = p as u32;
            }
            self.nodes[n as usize].items = items;
            // Stage 2: a child that received more than `capacity` splits next.
            for q in 0..4 {
                if self.nodes[(first + q) as usize].items.len() > cap {
                    self.scratch.push(first + q);
                }
            }
        }
    }

    /// After items left `from`'s subtree: collapses the highest node on the path to the root
    /// that is internal yet holds no more than `capacity` items below it.
    pub(super) fn merge_if_sparse(&mut self, from: u32) {
        let cap = self.config.leaf_capacity as u32;
        let mut target = NULL;
        let mut n = from;
        while n != NULL {
            let node = &self.nodes[n as usize];
            if !node.is_leaf() && node.subtree_len <= cap {
                target = n;
            }
            n = node.parent;
        }
        if target != NULL {
            self.collapse(target);
        }
    }

    /// Pulls every item below `target` up into it and frees all its descendants.
    pub(super) fn collapse(&mut self, target: u32) {
        let mut items = std::mem::take(&mut self.nodes[target as usize].items);
        // A leaf's list keeps no groups; its slots are set below, as entries arrive.
        items.unband();
        self.scratch.clear();
        self.scratch.push(self.nodes[target as usize].first_child);
        self.nodes[target as usize].first_child = NULL;
        while let Some(first) = self.scratch.pop() {
            for q in 0..4 {
                let c = (first + q) as usize;
                if !self.nodes[c].is_leaf() {
                    self.scratch.push(self.nodes[c].first_child);
                    self.nodes[c].first_child = NULL;
                }
                // Empty after `clear`: nothing to move.
                if !self.nodes[c].items.is_empty() {
                    let slots = &mut self.slots;
                    items.append_from(&mut self.nodes[c].items, |entry, pos| {
                        let slot = &mut slots[entry.id.index as usize];
                        slot.node = target;
                        slot.pos = pos as u32;
                    });
                }
            }
            self.free_children(first);
        }
        self.nodes[target as usize].items = items;
    }

    /// Removes the entry at `(node, pos)` from its list, fixing the slot of the entry that
    /// takes its place. Counters are the caller's business.
    pub(super) fn detach(&mut self, node: u32, pos: u32) -> Entry<T> {
        let items = &mut self.nodes[node as usize].items;
        let slots = &mut self.slots;
        let (_, entry) = items.swap_remove(pos as usize, |e, at| {
            slots[e.id.index as usize].pos = at as u32;
        });
        entry
    }

    /// Appends an entry to `node` and points its slot there.
    pub(super) fn attach(&mut self, node: u32, rect: Rect, entry: Entry<T>) {
        let items = &mut self.nodes[node as usize].items;
        let slots = &mut self.slots;
        let index = entry.id.index as usize;
        let at = items.push(rect, entry, |e, at| {
            slots[e.id.index as usize].pos = at as u32;
        });
        slots[index] = super::Slot {
            node,
            pos: at as u32,
            ..slots[index]
        };
    }

    /// Frees every node but the root, keeping item lists' allocations.
    pub(super) fn collapse_all(&mut self) {
        if !self.nodes[0].is_leaf() {
            self.collapse(0);
        }
        self.nodes[0].subtree_len = self.nodes[0].items.len() as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_tables_follow_blocks_added_and_removed() {
        let mut t = CellTables::new(3);
        assert_eq!((t.deepest(), t.table(0)), (0, &[0][..]));
        assert!(t.table(1).is_empty() && t.table(3).is_empty());
        assert_eq!(t.per_level()[..4], [1, 0, 0, 0]);
        // The root's four children, then the children of its child at cell (1, 0).
        t.add_block(1, 0, 0, 1);
        assert_eq!(t.table(1), &[1, 2, 3, 4]);
        t.add_block(2, 1, 0, 5);
        assert_eq!(t.deepest(), 2);
        assert_eq!(t.per_level()[..4], [1, 4, 4, 0]);
        // Level 2 is four cells wide: the block covers cells x 2..=3, y 0..=1.
        let at = |t: &CellTables, cx: u32, cy: u32| t.table(2)[((cy << 2) | cx) as usize];
        assert_eq!(
            [at(&t, 2, 0), at(&t, 3, 0), at(&t, 2, 1), at(&t, 3, 1)],
            [5, 6, 7, 8]
        );
        assert_eq!(t.table(2).iter().filter(|&&n| n != NULL).count(), 4);
        // Removing the deep block brings the deepest level back, and keeps the table.
        t.remove_block(2, 1, 0);
        assert_eq!(t.deepest(), 1);
        assert!(t.table(2).iter().all(|&n| n == NULL) && t.table(2).len() == 16);
        t.remove_block(1, 0, 0);
        assert_eq!(
            (t.deepest(), t.per_level()[..3].to_vec()),
            (0, vec![1, 0, 0])
        );
        assert_eq!(t.all().len(), 4);
    }
}
