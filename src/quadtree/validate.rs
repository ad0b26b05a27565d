//! The structural invariant check, run after every mutation in the tests.

use std::fmt;

use super::{Quadtree, NULL, RETIRED};

/// A broken invariant found by [`Quadtree::validate`]: a bug in this crate, never a user error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantError(String);

impl InvariantError {
    /// Which invariant is broken, and where.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for InvariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "quadtree invariant broken: {}", self.0)
    }
}

impl std::error::Error for InvariantError {}

macro_rules! ensure {
    ($cond:expr, $($msg:tt)*) => {
        if !$cond {
            return Err(InvariantError(format!($($msg)*)));
        }
    };
}

impl<T> Quadtree<T> {
    /// Checks every structural invariant and says which one is broken, if any:
    /// - links: each child's parent, level and cell match its position under its parent;
    ///   the level tables name exactly the live nodes; the free list holds exactly the rest;
    /// - placement: every item sits in the node its rectangle belongs to (the deepest existing
    ///   node on the path to its smallest containing cell), and items outside the world sit
    ///   at the root;
    /// - counts: each node's subtree count is its items plus its children's counts; the root's
    ///   equals `len()`;
    /// - shape: no leaf above `max_depth`'s level holds more than `leaf_capacity` items, and no
    ///   internal node holds `leaf_capacity` or fewer items in its subtree;
    /// - handles: each item's slot points back at its node and position with its generation,
    ///   and the free slots chain holds exactly the slots not in use.
    ///
    /// O(nodes + items + slots). Meant for tests and debugging.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// for i in 0..1000 {
    ///     tree.insert(Rect::from_min_size((i * 37 % 100) as f32, (i * 91 % 100) as f32, 1.0, 1.0), i).unwrap();
    /// }
    /// assert_eq!(tree.validate(), Ok(()));
    /// ```
    pub fn validate(&self) -> Result<(), InvariantError> {
        let cap = self.config.leaf_capacity;
        let depth = self.config.max_depth;
        ensure!(
            self.nodes[0].live && self.nodes[0].parent == NULL,
            "root is not a live orphan"
        );
        ensure!(self.nodes[0].level == 0, "root level is not 0");

        // Stage 1: walk the tree from the root; every reached node must be live and consistent.
        let mut reached = vec![false; self.nodes.len()];
        let mut stack = vec![0u32];
        let mut per_level = [0u32; super::MAX_DEPTH as usize + 1];
        let mut items_seen = 0usize;
        while let Some(n) = stack.pop() {
            ensure!(!reached[n as usize], "node {n} reached twice");
            reached[n as usize] = true;
            let node = &self.nodes[n as usize];
            ensure!(node.live, "reachable node {n} is marked free");
            ensure!(
                node.items.tree() == self.tree,
                "node {n}'s items would hand out another tree's handles"
            );
            ensure!(node.level <= depth, "node {n} deeper than max_depth");
            per_level[node.level as usize] += 1;
            let table = self.cells.table(node.level);
            let idx = ((node.cy << node.level) | node.cx) as usize;
            ensure!(
                table.get(idx) == Some(&n),
                "level table does not name node {n}"
            );

            let mut below = 0u32;
            if !node.is_leaf() {
                for q in 0..4u32 {
                    let c = node.first_child + q;
                    ensure!((c as usize) < self.nodes.len(), "child {c} out of range");
                    let child = &self.nodes[c as usize];
                    ensure!(
                        child.parent == n,
                        "child {c} has parent {} not {n}",
                        child.parent
                    );
                    ensure!(child.level == node.level + 1, "child {c} level wrong");
                    ensure!(
                        child.cx == 2 * node.cx + (q & 1) && child.cy == 2 * node.cy + (q >> 1),
                        "child {c} cell wrong"
                    );
                    below += child.subtree_len;
                    stack.push(c);
                }
                ensure!(
                    node.subtree_len as usize > cap,
                    "internal node {n} holds only {} items (leaf capacity {cap}): should have merged",
                    node.subtree_len
                );
            } else if node.level < depth {
                ensure!(
                    node.items.len() <= cap,
                    "leaf {n} above max depth holds {} > {cap} items: should have split",
                    node.items.len()
                );
            }
            ensure!(
                node.subtree_len as usize == node.items.len() + below as usize,
                "node {n} subtree count {} != {} own + {below} below",
                node.subtree_len,
                node.items.len()
            );

            ensure!(
                node.items.lanes_consistent(),
                "node {n}: the blocks of rectangles differ from the items"
            );
            for (pos, e) in node.items.iter().enumerate() {
                items_seen += 1;
                let slot = self.slots.get(e.id.index as usize);
                ensure!(slot.is_some(), "item slot {} out of range", e.id.index);
                let slot = slot.unwrap();
                ensure!(
                    slot.node == n
                        && slot.pos as usize == pos
                        && slot.generation == e.id.generation,
                    "slot {} does not point back at node {n} position {pos}",
                    e.id.index
                );
                ensure!(
                    node.items.rect(pos).check().is_ok(),
                    "item {} has a bad rectangle",
                    e.id.index
                );
                let p = self.place_of(&node.items.rect(pos));
                ensure!(
                    self.fits(node, p),
                    "item {} with place {p:?} is in node {n} (level {}, cell {},{})",
                    e.id.index,
                    node.level,
                    node.cx,
                    node.cy
                );
                if !self.grid.world.contains_rect(&node.items.rect(pos)) {
                    ensure!(
                        n == 0,
                        "item {} outside the world is not at the root",
                        e.id.index
                    );
                }
            }
        }
        ensure!(
            items_seen == self.len,
            "{items_seen} items stored but len() is {}",
            self.len
        );
        ensure!(
            self.nodes[0].subtree_len as usize == self.len,
            "root count != len()"
        );
        ensure!(
            per_level == *self.cells.per_level(),
            "per-level node counts are stale"
        );
        let deepest = per_level.iter().rposition(|&c| c > 0).unwrap_or(0) as u8;
        ensure!(
            deepest == self.cells.deepest(),
            "deepest level {} recorded as {}",
            deepest,
            self.cells.deepest()
        );

        // Stage 2: the unreached nodes are exactly the free blocks, and are empty.
        let mut free = vec![false; self.nodes.len()];
        for &first in &self.free_blocks {
            for q in 0..4 {
                let c = (first + q) as usize;
                ensure!(c < self.nodes.len(), "free block {first} out of range");
                ensure!(!free[c], "node {c} freed twice");
                free[c] = true;
            }
        }
        let spare: usize = (0..self.nodes.len())
            .filter(|&n| free[n])
            .map(|n| self.nodes[n].items.capacity())
            .sum();
        ensure!(
            spare == self.spare_capacity,
            "free nodes' lists hold room for {spare} entries, recorded as {}",
            self.spare_capacity
        );
        for (n, node) in self.nodes.iter().enumerate() {
            ensure!(
                reached[n] != free[n],
                "node {n} is neither in the tree nor free, or both"
            );
            if free[n] {
                ensure!(
                    !node.live && node.items.is_empty(),
                    "free node {n} is live or holds items"
                );
            }
        }
        let table_entries: usize = self
            .cells
            .all()
            .iter()
            .map(|t| t.iter().filter(|&&v| v != NULL).count())
            .sum();
        ensure!(
            table_entries == reached.iter().filter(|&&r| r).count(),
            "level tables name nodes that are not in the tree"
        );

        // Stage 3: the free slot chain holds exactly the unused, non-retired slots.
        let mut free_slots = 0usize;
        let mut s = self.slots.free_head();
        while s != NULL {
            ensure!(
                (s as usize) < self.slots.len(),
                "free slot chain leaves the slot table"
            );
            ensure!(
                free_slots <= self.slots.len(),
                "free slot chain has a cycle"
            );
            let slot = &self.slots[s as usize];
            ensure!(
                slot.node == NULL,
                "slot {s} is in the free chain but in use"
            );
            free_slots += 1;
            s = slot.pos;
        }
        let lineage = self.lineage();
        if let Some(s) = self.slots.iter().position(|s| {
            if s.node < RETIRED {
                s.born > lineage
            } else {
                s.node == NULL && s.born != lineage
            }
        }) {
            return Err(InvariantError(format!(
                "slot {s}: its item's tree is {} of a lineage of {lineage}",
                self.slots[s].born
            )));
        }
        let used = self.slots.iter().filter(|s| s.node < RETIRED).count();
        let retired = self.slots.iter().filter(|s| s.node == RETIRED).count();
        ensure!(
            used == self.len,
            "{used} slots in use but len() is {}",
            self.len
        );
        ensure!(
            retired == self.slots.retired(),
            "{retired} slots retired but {} counted",
            self.slots.retired()
        );
        ensure!(
            used + free_slots + retired == self.slots.len(),
            "slot accounting: {used} used + {free_slots} free + {retired} retired != {}",
            self.slots.len()
        );
        Ok(())
    }
}
