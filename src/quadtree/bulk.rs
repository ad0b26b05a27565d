//! Bulk placement: many items into their final nodes in one pass, without split cascades.
//!
//! Each item's place is turned into a Morton key of its cell at the deepest level (the cell's
//! first descendant there). A counting sort by key makes every node's subtree a contiguous
//! range of buckets, so the shape of the tree follows from bucket counts, top-down, and each
//! item is moved exactly once, into its final node.

use super::{Entry, ItemId, Quadtree, QuadtreeError, Rect, SlotKey, MAX_DEPTH, MAX_ITEMS, NULL};

/// Reused buffers of the bulk path, so rebuilding every frame allocates nothing.
#[derive(Debug)]
pub(super) struct BulkScratch<T> {
    /// Items waiting to be placed, with their rectangles.
    pub(super) staging: Vec<(Rect, Entry<T>)>,
    keys: Vec<u32>,
    levels: Vec<u8>,
    /// Each item's position in key order, by input index.
    sorted_pos: Vec<u32>,
    /// Each item's level, in key order.
    sorted_levels: Vec<u8>,
    /// After the sort: `ends[k]` is one past the last sorted position of bucket `k`.
    ends: Vec<u32>,
    /// Each item's node, in key order.
    dest: Vec<u32>,
}

impl<T> Default for BulkScratch<T> {
    fn default() -> Self {
        BulkScratch {
            staging: Vec::new(),
            keys: Vec::new(),
            levels: Vec::new(),
            sorted_pos: Vec::new(),
            sorted_levels: Vec::new(),
            ends: Vec::new(),
            dest: Vec::new(),
        }
    }
}

/// Spreads the low 16 bits of `v` to the even bit positions.
const fn spread(v: u32) -> u32 {
    let mut v = v & 0xffff;
    v = (v | (v << 8)) & 0x00ff_00ff;
    v = (v | (v << 4)) & 0x0f0f_0f0f;
    v = (v | (v << 2)) & 0x3333_3333;
    (v | (v << 1)) & 0x5555_5555
}

/// [`spread`] of every cell coordinate the deepest level can have: one load instead of
/// eight shifts and masks per coordinate (4 KiB).
static SPREAD: [u32; 1 << MAX_DEPTH] = {
    let mut t = [0; 1 << MAX_DEPTH];
    let mut i = 0;
    while i < t.len() {
        t[i] = spread(i as u32);
        i += 1;
    }
    t
};

/// Morton key of a cell: x bits even, y bits odd, so the two bits a level adds are exactly the
/// child quadrant `(x bit) | (y bit) << 1`, and children's ranges come in quadrant order.
fn morton(cx: u32, cy: u32) -> u32 {
    SPREAD[cx as usize] | (SPREAD[cy as usize] << 1)
}

impl<T> Quadtree<T> {
    /// Inserts many items at once and appends their handles to `ids`, in input order.
    ///
    /// Faster than inserting one by one, most of all into an empty tree: items go straight
    /// to their final nodes instead of being moved down by every split. The result is the same
    /// tree shape as one-by-one insertion of the same items would reach. Existing items keep
    /// their handles.
    ///
    /// All or nothing: every rectangle is checked before anything changes.
    ///
    /// # Runtime
    /// O(n + items already stored + 4^max_depth) for the counting sort's buckets, which stay
    /// allocated for the next call: call it every frame to rebuild without allocating.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] or [`QuadtreeError::Inverted`] for any bad rectangle,
    /// [`QuadtreeError::Full`] if the handles would run out (more than
    /// [`MAX_ITEMS`](crate::MAX_ITEMS) slots, freed ones included; refused as soon as the
    /// iterator passes that). The first error found is returned; the tree and `ids` are
    /// unchanged then.
    ///
    /// ```
    /// use quadstress::{Quadtree, QuadtreeError, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let mut ids = Vec::new();
    /// let items = (0..1000).map(|i| (Rect::from_min_size((i % 100) as f32, (i / 10) as f32, 0.5, 0.5), i));
    /// tree.insert_many(items, &mut ids).unwrap();
    /// assert_eq!(ids.len(), 1000);
    /// assert_eq!(tree.get(ids[123]), Some(&123));
    /// assert!(tree.validate().is_ok());
    ///
    /// let bad = [(Rect::new(0.0, 0.0, 1.0, 1.0), 1), (Rect::new(f32::NAN, 0.0, 1.0, 1.0), 2)];
    /// assert_eq!(tree.insert_many(bad, &mut ids), Err(QuadtreeError::NonFinite));
    /// assert_eq!((tree.len(), ids.len()), (1000, 1000));
    /// ```
    pub fn insert_many<I>(
        &mut self,
        items: I,
        ids: &mut Vec<ItemId>,
    ) -> Result<usize, QuadtreeError>
    where
        I: IntoIterator<Item = (Rect, T)>,
    {
        // Stage 1: stage and check everything before touching the tree.
        let mut staging = std::mem::take(&mut self.bulk.staging);
        staging.clear();
        let placeholder = SlotKey {
            index: NULL,
            generation: 0,
        };
        // Only as many as could ever get a handle are staged: an endless iterator is refused
        // once it passes the limit, not after it has filled memory.
        let room = MAX_ITEMS.saturating_sub(self.slots.len());
        for (rect, value) in items {
            let refused = match rect.check() {
                Err(e) => Some(e),
                Ok(()) if staging.len() >= room => Some(QuadtreeError::Full),
                Ok(()) => None,
            };
            if let Some(e) = refused {
                staging.clear();
                self.bulk.staging = staging;
                return Err(e);
            }
            staging.push((
                rect,
                Entry {
                    id: placeholder,
                    value,
                },
            ));
        }
        let added = staging.len();
        // Stage 2: handles. Cannot fail now: the room check above bounds the slot table.
        ids.reserve(added);
        for (_, entry) in &mut staging {
            let id = self.alloc_slot()?;
            entry.id = id.key();
            ids.push(id);
        }
        self.len += added;
        // Stage 3: everything already stored joins the staging area, and all is placed anew.
        self.collapse_all();
        self.nodes[0].items.move_into(&mut staging);
        self.nodes[0].subtree_len = 0;
        self.bulk.staging = staging;
        self.place_staged();
        Ok(added)
    }

    /// Places every staged entry into a tree whose root is empty and childless.
    pub(super) fn place_staged(&mut self) {
        let depth = self.config.max_depth as u32;
        let cap = self.config.leaf_capacity as u32;
        let mut b = std::mem::take(&mut self.bulk);
        let n = b.staging.len();

        // Stage 1: keys and levels.
        b.keys.clear();
        b.levels.clear();
        for (rect, _) in &b.staging {
            let p = self.place_of(rect);
            let shift = depth - p.level as u32;
            b.keys.push(morton(p.cx << shift, p.cy << shift));
            b.levels.push(p.level);
        }

        // Stage 2: counting sort by key. After the scatter, `ends[k]` is the end of bucket k,
        // and the start of bucket k is the end of bucket k - 1.
        let buckets = 1usize << (2 * depth);
        b.ends.clear();
        b.ends.resize(buckets + 1, 0);
        for &k in &b.keys {
            b.ends[k as usize + 1] += 1;
        }
        for k in 0..buckets {
            b.ends[k + 1] += b.ends[k];
        }
        // The scatter writes each item's sorted position by input index, and its level by
        // sorted position, so that the shape stage below reads and writes sequentially.
        b.sorted_pos.clear();
        b.sorted_pos.resize(n, 0);
        b.sorted_levels.clear();
        b.sorted_levels.resize(n, 0);
        for (i, (&k, &level)) in b.keys.iter().zip(&b.levels).enumerate() {
            let at = &mut b.ends[k as usize];
            b.sorted_pos[i] = *at;
            b.sorted_levels[*at as usize] = level;
            *at += 1;
        }
        let start_of = |ends: &[u32], k: usize| if k == 0 { 0 } else { ends[k - 1] as usize };

        // Stage 3: shape, top-down. A node's subtree is the bucket range of its cell, minus
        // the ancestors' own items, which all sit in its first bucket (their key is the
        // ancestor's first cell, which is also this node's first cell).
        b.dest.clear();
        b.dest.resize(n, NULL);
        self.scratch.clear();
        self.scratch.push(0);
        while let Some(nd) = self.scratch.pop() {
            let (level, cx, cy) = {
                let node = &self.nodes[nd as usize];
                (node.level, node.cx, node.cy)
            };
            let shift = 2 * (depth - level as u32);
            let first_key = (morton(cx, cy) << shift) as usize;
            let last_key = ((morton(cx, cy) + 1) << shift) as usize;
            let (a, e) = (start_of(&b.ends, first_key), start_of(&b.ends, last_key));
            let f = b.ends[first_key] as usize;
            let (mut above, mut own) = (0u32, 0u32);
            for &l in &b.sorted_levels[a..f] {
                above += u32::from(l < level);
                own += u32::from(l == level);
            }
            let total = (e - a) as u32 - above;
            self.nodes[nd as usize].subtree_len = total;
            if total > cap && level < self.config.max_depth {
                let first = self.alloc_children(nd);
                for (d, &l) in b.dest[a..f].iter_mut().zip(&b.sorted_levels[a..f]) {
                    if l == level {
                        *d = nd;
                    }
                }
                self.nodes[nd as usize].items.reserve(own as usize);
                for q in 0..4 {
                    self.scratch.push(first + q);
                }
            } else {
                for (d, &l) in b.dest[a..e].iter_mut().zip(&b.sorted_levels[a..e]) {
                    if l >= level {
                        *d = nd;
                    }
                }
                self.nodes[nd as usize].items.reserve(total as usize);
            }
        }

        // Stage 4: move each entry once, into its node. The nodes of a batch are looked up
        // first: independent random reads overlap, where inside the attach loop each waits
        // behind the previous item's writes.
        const BATCH: usize = 64;
        let mut entries = b.staging.drain(..);
        for batch in b.sorted_pos.chunks(BATCH) {
            let mut nodes = [0u32; BATCH];
            for (node, &pos) in nodes.iter_mut().zip(batch) {
                *node = b.dest[pos as usize];
            }
            for (&node, (rect, entry)) in nodes[..batch.len()].iter().zip(entries.by_ref()) {
                self.attach(node, rect, entry);
            }
        }
        drop(entries);
        self.bulk = b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_interleaves_x_even_y_odd() {
        assert_eq!(morton(1, 0), 0b01);
        assert_eq!(morton(0, 1), 0b10);
        assert_eq!(morton(0b101, 0b011), 0b01_10_11);
        let last = (1u32 << MAX_DEPTH) - 1;
        assert_eq!(morton(last, last), (1 << (2 * MAX_DEPTH as u32)) - 1);
        for v in [0, 1, 2, 3, 511, 512, last] {
            assert_eq!(SPREAD[v as usize], spread(v));
        }
    }
}
