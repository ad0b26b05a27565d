//! The rectangle query as an iterator: the walk of `traverse` with its stack inside the
//! iterator, and the block test applied one block at a time.

use super::items::W;
use super::{traverse::NodeStack, CellRange, ItemList, ItemRef, Quadtree, QuadtreeError, Rect};

/// Iterator over the items whose rectangles intersect a query rectangle; see
/// [`Quadtree::iter_rect`].
pub struct RectIter<'a, T> {
    tree: &'a Quadtree<T>,
    query: Rect,
    range: CellRange,
    /// Nodes still to visit: at most `4 * MAX_DEPTH + 4`, held inside the iterator.
    stack: NodeStack,
    /// The list being scanned, its current block, and that block's hits not yet yielded.
    list: Option<&'a ItemList<T>>,
    block: usize,
    mask: u32,
}

impl<T> Clone for RectIter<'_, T> {
    fn clone(&self) -> Self {
        RectIter {
            stack: self.stack.clone(),
            ..*self
        }
    }
}

impl<'a, T> Iterator for RectIter<'a, T> {
    type Item = ItemRef<'a, T>;

    fn next(&mut self) -> Option<ItemRef<'a, T>> {
        loop {
            if let Some(list) = self.list {
                if self.mask != 0 {
                    let k = self.mask.trailing_zeros() as usize;
                    self.mask &= self.mask - 1;
                    return Some(list.item(self.block * W + k));
                }
                if self.block + 1 < list.block_count() {
                    self.block += 1;
                    self.mask = list.block_hits(self.block, &self.query);
                    continue;
                }
                self.list = None;
            }
            let n = self.stack.pop()?;
            let node = &self.tree.nodes[n as usize];
            self.tree.push_children(&mut self.stack, node, self.range);
            if node.items.block_count() > 0 {
                self.list = Some(&node.items);
                self.block = 0;
                self.mask = node.items.block_hits(0, &self.query);
            }
        }
    }
}

impl<T> std::iter::FusedIterator for RectIter<'_, T> {}

impl<T> Quadtree<T> {
    /// The items whose rectangles intersect `query` (closed: touching counts), as an
    /// iterator: the items [`for_each_in_rect`](Self::for_each_in_rect) finds, with the whole
    /// iterator toolbox (`filter`, `map`, `find`, `collect`, ...).
    /// Allocates nothing: the walk's stack of at most `4 * MAX_DEPTH + 4` node indices lives
    /// inside the iterator, and nothing recurses.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] or [`QuadtreeError::Inverted`] for a bad `query`.
    ///
    /// ```
    /// use quadstress::{Quadtree, QuadtreeError, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// for i in 0..10 {
    ///     tree.insert(Rect::from_min_size(i as f32 * 10.0, 0.0, 5.0, 5.0), i).unwrap();
    /// }
    /// let query = Rect::new(0.0, 0.0, 30.0, 5.0);
    /// let mut found: Vec<&i32> = tree.iter_rect(&query).unwrap().map(|item| item.value).collect();
    /// found.sort();
    /// assert_eq!(found, [&0, &1, &2, &3]); // the box at x = 30 touches the query's edge
    ///
    /// // Stop early, as any iterator does.
    /// let first_odd = tree.iter_rect(&query).unwrap().find(|item| item.value % 2 == 1);
    /// assert!(matches!(first_odd, Some(item) if *item.value == 1 || *item.value == 3));
    ///
    /// assert_eq!(tree.iter_rect(&Rect::new(5.0, 0.0, 1.0, 1.0)).err(), Some(QuadtreeError::Inverted));
    /// ```
    pub fn iter_rect(&self, query: &Rect) -> Result<RectIter<'_, T>, QuadtreeError> {
        query.check()?;
        Ok(RectIter {
            tree: self,
            query: *query,
            range: self.cell_range(query),
            stack: NodeStack::new(0),
            list: None,
            block: 0,
            mask: 0,
        })
    }
}
