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
#[derive(Clone, Debug)]
pub(super) struct Node<T> {
    pub(super) parent: u32,
    /// First of four children, or NULL for a leaf.
    pub(super) first_child: u32,
    pub(super) level: u8,
    /// False while the node sits in the free list.
    pub(super) live: bool,
    /// Cell coordinates at `level`.
    pub(super) cx: u32,
    pub(super) cy: u32,
    /// Items in this node and all its descendants: drives merging.
    pub(super) subtree_len: u32,
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

impl<T> Quadtree<T> {
    /// Drops every node and puts an empty root back, with the scales of the current config.
    pub(super) fn reset_nodes(&mut self) {
        self.grid = Grid::new(self.grid.world, &self.config);
        self.nodes.clear();
        self.free_blocks.clear();
        self.spare_capacity = 0;
        self.level_tables.clear();
        self.level_tables
            .resize_with(self.config.max_depth as usize + 1, Vec::new);
        self.level_tables[0] = vec![0];
        self.nodes_per_level = [0; MAX_DEPTH as usize + 1];
        self.nodes_per_level[0] = 1;
        self.deepest = 0;
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
        if self.level_tables[level as usize].is_empty() {
            self.level_tables[level as usize] = vec![NULL; 1usize << (2 * level as usize)];
        }
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
            self.level_tables[level as usize][((cy << level) | cx) as usize] = first + q;
        }
        self.nodes[parent as usize].first_child = first;
        // The parent is internal now. Its entries may move within its list: the callers set
        // the slots of those that stay (a split does after moving the rest down; a bulk
        // build fills lists only after making the nodes).
        let centre_x = self.centre_x(level - 1, pcx);
        self.nodes[parent as usize].items.make_banded(centre_x);
        self.nodes_per_level[level as usize] += 4;
        self.deepest = self.deepest.max(level);
        first
    }

    /// Returns a block of four (already emptied, childless) nodes to the free list.
    ///
    /// Freed nodes keep their item lists' allocations for reuse, but only up to a budget of
    /// about twice the most items the tree has held at once (its slot count): beyond it, a
    /// freed list shrinks to what `alloc_children` reserves. Without the budget, churn that
    /// crowds a different cell each time leaves a peak-sized list in every such cell.
    pub(super) fn free_children(&mut self, first: u32) {
        let level = self.nodes[first as usize].level;
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
            let idx = ((n.cy << level) | n.cx) as usize;
            self.level_tables[level as usize][idx] = NULL;
        }
        self.nodes_per_level[level as usize] -= 4;
        while self.deepest > 0 && self.nodes_per_level[self.deepest as usize] == 0 {
            self.deepest -= 1;
        }
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
