//! `Clone`: a snapshot of the tree that its handles keep working in.

use super::{bulk, Quadtree};

/// A deep copy: same items, same structure, and the same handles, which name the same items
/// in both trees (a snapshot for rollback or replay keeps every stored `ItemId` valid). The
/// two trees are independent afterwards, but a handle created in one after the copy may also
/// be accepted by the other, since they share their handle numbering. The copy holds no
/// spare memory: freed nodes keep no list room, and work buffers start empty.
///
/// ```
/// use quadstress::{Quadtree, Rect};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
/// let a = tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), "a").unwrap();
/// let snapshot = tree.clone();
/// tree.update(a, Rect::new(50.0, 50.0, 51.0, 51.0)).unwrap();
/// tree.remove(a);
/// // Roll back: the handle is valid again, at the old place.
/// let tree = snapshot;
/// assert_eq!(tree.get(a), Some(&"a"));
/// assert_eq!(tree.rect(a), Some(Rect::new(1.0, 1.0, 2.0, 2.0)));
/// tree.validate().unwrap();
/// ```
impl<T: Clone> Clone for Quadtree<T> {
    fn clone(&self) -> Self {
        let nodes = self.nodes.clone();
        // `Vec::clone` keeps no spare room, so the freed lists' room is counted again.
        let spare_capacity = self
            .free_blocks
            .iter()
            .flat_map(|&first| first..first + 4)
            .map(|n| nodes[n as usize].items.capacity())
            .sum();
        Quadtree {
            world: self.world,
            config: self.config,
            scale_x: self.scale_x,
            scale_y: self.scale_y,
            max_cell: self.max_cell,
            loose_mask: self.loose_mask,
            nodes,
            free_blocks: self.free_blocks.clone(),
            spare_capacity,
            level_tables: self.level_tables.clone(),
            nodes_per_level: self.nodes_per_level,
            deepest: self.deepest,
            slots: self.slots.clone(),
            tree: self.tree,
            free_slot: self.free_slot,
            retired: self.retired,
            len: self.len,
            scratch: Vec::new(),
            sort_scratch: Vec::new(),
            bulk: bulk::BulkScratch::default(),
        }
    }
}
