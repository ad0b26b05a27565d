//! `Clone`: a snapshot of the tree that its handles keep working in, and a tree of its own
//! for the handles made afterwards.

use super::{bulk, Quadtree};

/// A deep copy: same items, same structure, and a new tree. The handles the original made
/// before the copy name the same items in both trees (a snapshot for rollback or replay keeps
/// every stored `ItemId` valid), but the copy is another tree: a handle either tree makes
/// afterwards, by an insert or a query, reaches only that tree's items, even where both
/// trees put new items in the same slot (see [`ItemId`](super::ItemId)). A clone of a clone
/// accepts the handles of each tree it was copied through, for the items those trees held
/// when copied. The copy holds no spare memory: freed nodes keep no list room, and work
/// buffers start empty.
///
/// # Runtime
/// O(items + nodes + slots), plus one id per tree the original was copied through.
///
/// # Panics
/// Once the process has made `2^64 - 1` trees (each new tree and each clone takes a new id:
/// at one a nanosecond, after 584 years).
///
/// ```
/// use quadstress::{Quadtree, Rect};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
/// let a = tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), "a").unwrap();
/// let snapshot = tree.clone();
/// tree.update(a, Rect::new(50.0, 50.0, 51.0, 51.0)).unwrap();
/// tree.remove(a);
/// let b = tree.insert(Rect::new(3.0, 3.0, 4.0, 4.0), "b").unwrap();
/// // Roll back: the handle made before the copy is valid again, at the old place; the
/// // handle made after it in the other tree reaches nothing in the snapshot.
/// let tree = snapshot;
/// assert_eq!(tree.get(a), Some(&"a"));
/// assert_eq!(tree.rect(a), Some(Rect::new(1.0, 1.0, 2.0, 2.0)));
/// assert_eq!(tree.get(b), None);
/// tree.validate().unwrap();
/// ```
impl<T: Clone> Clone for Quadtree<T> {
    fn clone(&self) -> Self {
        let tree = super::TreeId::next().expect("2^64 - 1 trees made: no id left for a clone");
        let mut nodes = self.nodes.clone();
        // Queries of the copy hand out its own handles.
        for node in &mut nodes {
            node.items.set_tree(tree);
        }
        let mut ancestors = Vec::with_capacity(self.ancestors.len() + 1);
        ancestors.extend_from_slice(&self.ancestors);
        ancestors.push(self.tree);
        // The copy's next items begin their lives in the copy: its free slots say so.
        let slots = self.slots.copy_for(ancestors.len() as u32);
        // `Vec::clone` keeps no spare room, so the freed lists' room is counted again.
        let spare_capacity = self
            .free_blocks
            .iter()
            .flat_map(|&first| first..first + 4)
            .map(|n| nodes[n as usize].items.capacity())
            .sum();
        Quadtree {
            config: self.config,
            grid: self.grid,
            nodes,
            free_blocks: self.free_blocks.clone(),
            spare_capacity,
            cells: self.cells.clone(),
            slots,
            tree,
            ancestors,
            len: self.len,
            scratch: Vec::new(),
            sort_scratch: Vec::new(),
            bulk: bulk::BulkScratch::default(),
        }
    }
}
