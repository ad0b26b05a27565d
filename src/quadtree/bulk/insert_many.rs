//! [`Quadtree::insert_many`]: stage, check, place and hand out handles, then rebuild with
//! everything already stored.

use super::place::{place_and_hand_out, Placer};
use super::scratch::{BulkScratch, HandlesOut, Staged};
use crate::quadtree::slots::SlotHandout;
use crate::quadtree::{
    BatchError, ItemId, Quadtree, QuadtreeError, Rect, SlotKey, MAX_ITEMS, NULL,
};

impl<T> Quadtree<T> {
    /// Inserts many items at once and appends their handles to `ids`, in input order.
    ///
    /// Faster than inserting one by one, most of all into an empty tree: items go straight
    /// to their final nodes instead of being moved down by every split. The result has the same
    /// nodes, holding the same items, as one-by-one insertion of the same items would reach
    /// (the nodes and what each holds follow from the boxes alone; their order in
    /// [`nodes`](Self::nodes), and the items' order within a node, depend on how the tree was
    /// made, see [`update_many`](Self::update_many)), with its straddlers
    /// sorted for region queries as [`sort_straddlers`](Self::sort_straddlers) leaves them.
    /// Existing items keep their handles. With the `rayon` feature, `par_insert_many` builds
    /// the same tree on every core.
    ///
    /// All or nothing: every rectangle is checked before anything changes. The iterator is
    /// read to its end (or until it passes the limit of handles, see below) before the
    /// first check.
    ///
    /// # Runtime
    /// O(n + items already stored + 4^max_depth) for the table of cells, which stays
    /// allocated for the next call (call it every frame to rebuild without allocating), and
    /// O(s log s) for the sort of the s items kept in internal nodes.
    ///
    /// # Errors
    /// A [`BatchError`] with the index of the first refused item:
    /// [`QuadtreeError::NonFinite`] or [`QuadtreeError::Inverted`] for a bad rectangle,
    /// [`QuadtreeError::Full`] if the handles would run out (more than
    /// [`MAX_ITEMS`](crate::MAX_ITEMS) slots, freed ones included; refused as soon as the
    /// iterator passes that), [`QuadtreeError::OutOfMemory`] (index 0) if the allocator
    /// refuses `ids` the room the iterator's lower size bound asks. The tree and `ids` are
    /// unchanged then, as they are if the iterator panics.
    ///
    /// ```
    /// use quadstress::{BatchError, Quadtree, QuadtreeError, Rect, Shape};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let mut ids = Vec::new();
    /// let items = (0..1000).map(|i| (Rect::from_min_size((i % 100) as f32, (i / 10) as f32, 0.5, 0.5), i));
    /// tree.insert_many(items, &mut ids).unwrap();
    /// assert_eq!(ids.len(), 1000);
    /// assert_eq!(tree.get(ids[123]), Some(&123));
    /// assert!(tree.validate().is_ok());
    ///
    /// let bad = [(Rect::new(0.0, 0.0, 1.0, 1.0), 1), (Rect::new(f32::NAN, 0.0, 1.0, 1.0), 2)];
    /// let refused = BatchError { index: 1, error: QuadtreeError::NonFinite(Shape::Rect(bad[1].0)) };
    /// assert_eq!(tree.insert_many(bad, &mut ids), Err(refused));
    /// assert_eq!((tree.len(), ids.len()), (1000, 1000));
    /// ```
    pub fn insert_many<I>(&mut self, items: I, ids: &mut Vec<ItemId>) -> Result<usize, BatchError>
    where
        I: IntoIterator<Item = (Rect, T)>,
    {
        // Stage 1: stage every item, then check and place them and give them their handles
        // in one pass over the staging. The slot table changes only once every item is in
        // (`SlotHandout`): a refusal (or a panic in the caller's iterator) leaves the tree as
        // it was, and takes back what was written to `ids`.
        let mut b = std::mem::take(&mut self.bulk);
        b.clear_items();
        b.reset_cells(self.config.max_depth);
        let items = items.into_iter();
        if ids.try_reserve(items.size_hint().0).is_err() {
            self.bulk = b;
            return Err(BatchError {
                index: 0,
                error: QuadtreeError::OutOfMemory,
            });
        }
        // Only as many as could ever get a handle are staged: an endless iterator is refused
        // once it passes the limit, not after it has filled memory. The items are staged by
        // one `extend` (no check per item on the buffer's room where the iterator knows its
        // length), and checked after.
        let room = MAX_ITEMS.saturating_sub(self.slots.len());
        b.items.extend(
            items
                .take(room.saturating_add(1))
                .map(|(rect, value)| Staged {
                    rect,
                    key: SlotKey {
                        index: NULL,
                        generation: 0,
                    },
                    value: Some(value),
                }),
        );
        let mut out = HandlesOut::new(ids);
        let mut handout = self.slot_handout();
        let refused = self.stage_places_and_handles(&mut b, &mut handout, out.ids);
        let refused = refused.or_else(|| {
            (b.items.len() > room).then_some(BatchError {
                index: room,
                error: QuadtreeError::Full,
            })
        });
        if let Some(refused) = refused {
            b.clear_items();
            self.bulk = b;
            return Err(refused);
        }
        out.keep();
        self.commit_handout(handout);
        self.len += b.items.len();
        let added = b.items.len();
        self.bulk = b;
        // Stage 2: everything already stored joins the staging area, and all is placed anew.
        self.stage_stored();
        self.place_staged(0, |_| unreachable!("every payload is staged"));
        Ok(added)
    }

    /// Stage 1's pass over the staged items: each one's rectangle checked and its place's
    /// cell counted and kept in `routes`, and its handle from `handout` written to the
    /// staging and appended to `ids`. Returns the refusal of the first bad rectangle, if any
    /// (the handout and `ids` then hold handles the caller drops).
    fn stage_places_and_handles(
        &self,
        b: &mut BulkScratch<T>,
        handout: &mut SlotHandout,
        ids: &mut Vec<ItemId>,
    ) -> Option<BatchError> {
        let n = b.items.len();
        // The cells' table has one more place, past every level's cells, which counts the
        // refused rectangles.
        let refused_cell = b.cells.len() as u32 - 1;
        b.routes.resize(n, 0);
        let (slots, tree) = (&self.slots, self.tree);
        if self.grid.is_loose() {
            let placer = Placer::<true>::new(&self.grid, refused_cell);
            place_and_hand_out(&placer, b, handout, slots, tree, ids);
        } else {
            let placer = Placer::<false>::new(&self.grid, refused_cell);
            place_and_hand_out(&placer, b, handout, slots, tree, ids);
        }
        let cells = &b.cells;
        if cells[refused_cell as usize] == 0 {
            return None;
        }
        let index = b.routes.iter().position(|&c| c == refused_cell)?;
        let error = b.items[index]
            .rect
            .check()
            .expect_err("a refused rectangle");
        Some(BatchError { index, error })
    }

    /// Moves every stored item to the end of the staging area, keeping its handle, and
    /// leaves an empty, childless root. Their places are left to `place_staged`.
    pub(in crate::quadtree) fn stage_stored(&mut self) {
        self.collapse_all();
        let b = &mut self.bulk;
        self.nodes[0].items.move_into(&mut b.stored);
        self.nodes[0].subtree_len = 0;
        b.items
            .extend(b.stored.drain(..).map(|(rect, entry)| Staged {
                rect,
                key: entry.id,
                value: Some(entry.value),
            }));
    }
}
