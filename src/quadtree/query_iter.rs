//! The region queries as iterators: the walk of `traverse` with its stack inside the iterator,
//! and the block test applied one block at a time.
//!
//! An iterator cannot return an error without making every caller unwrap it before `.map`, so
//! the `iter_*` forms take none: input their callback forms refuse (a NaN or infinite
//! coordinate, an inverted rectangle, a negative radius, a stale handle) meets no item, and
//! the iterator is empty. [`Rect::check`] tells a bad query apart from an empty answer.

use std::iter::FusedIterator;

use super::items::W;
use super::select::{CollidingSelection, InCircleSelection, InRectSelection, Selection};
use super::{traverse::NodeStack, CellRange, ItemId, ItemList, ItemRef, Quadtree, Rect};

/// Iterator over the items whose rectangles intersect a query rectangle; see
/// [`Quadtree::iter_in_rect`] and [`Quadtree::iter_at_point`].
pub struct InRect<'a, T> {
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

impl<T> Clone for InRect<'_, T> {
    fn clone(&self) -> Self {
        InRect {
            stack: self.stack.clone(),
            ..*self
        }
    }
}

impl<'a, T> Iterator for InRect<'a, T> {
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

impl<T> FusedIterator for InRect<'_, T> {}

impl<'a, T> InRect<'a, T> {
    /// The walk of selection `sel`, or an empty one for a refused query.
    fn selected<S: Selection>(tree: &'a Quadtree<T>, sel: Option<&S>) -> Self {
        let (query, range, stack) = match sel {
            Some(sel) => (
                *sel.bounds(),
                tree.cell_range(sel.bounds()),
                NodeStack::new(0),
            ),
            None => (Rect::default(), CellRange::default(), NodeStack::empty()),
        };
        InRect {
            tree,
            query,
            range,
            stack,
            list: None,
            block: 0,
            mask: 0,
        }
    }

    /// The next item the block test finds that `sel` keeps.
    #[inline]
    fn next_kept<S: Selection>(&mut self, sel: &S) -> Option<ItemRef<'a, T>> {
        self.find(|item| sel.keeps(item.id.key(), &item.rect))
    }
}

/// Iterator over the items whose rectangles meet a closed disc; see
/// [`Quadtree::iter_in_circle`].
pub struct InCircle<'a, T> {
    hits: InRect<'a, T>,
    /// `None` for a refused disc, whose walk is empty.
    sel: Option<InCircleSelection>,
}

impl<T> Clone for InCircle<'_, T> {
    fn clone(&self) -> Self {
        InCircle {
            hits: self.hits.clone(),
            sel: self.sel,
        }
    }
}

impl<'a, T> Iterator for InCircle<'a, T> {
    type Item = ItemRef<'a, T>;

    fn next(&mut self) -> Option<ItemRef<'a, T>> {
        self.hits.next_kept(self.sel.as_ref()?)
    }
}

impl<T> FusedIterator for InCircle<'_, T> {}

/// Iterator over the other items whose rectangles intersect one item's; see
/// [`Quadtree::iter_colliding_with`].
pub struct CollidingWith<'a, T> {
    hits: InRect<'a, T>,
    /// `None` for a stale handle, whose walk is empty.
    sel: Option<CollidingSelection>,
}

impl<T> Clone for CollidingWith<'_, T> {
    fn clone(&self) -> Self {
        CollidingWith {
            hits: self.hits.clone(),
            sel: self.sel,
        }
    }
}

impl<'a, T> Iterator for CollidingWith<'a, T> {
    type Item = ItemRef<'a, T>;

    fn next(&mut self) -> Option<ItemRef<'a, T>> {
        self.hits.next_kept(self.sel.as_ref()?)
    }
}

impl<T> FusedIterator for CollidingWith<'_, T> {}

impl<T> Quadtree<T> {
    /// The items whose rectangles intersect `query` (closed: touching counts), as an
    /// iterator: the items [`for_each_in_rect`](Self::for_each_in_rect) finds, with the whole
    /// iterator toolbox (`filter`, `map`, `find`, `collect`, ...). A `query` that
    /// `for_each_in_rect` refuses (see [`Rect::check`]) meets nothing: the iterator is empty.
    /// Allocates nothing: the walk's stack of at most `4 * MAX_DEPTH + 4` node indices lives
    /// inside the iterator, and nothing recurses.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// for i in 0..10 {
    ///     tree.insert(Rect::from_min_size(i as f32 * 10.0, 0.0, 5.0, 5.0), i)?;
    /// }
    /// let query = Rect::new(0.0, 0.0, 30.0, 5.0);
    /// let mut found: Vec<&i32> = tree.iter_in_rect(&query).map(|item| item.value).collect();
    /// found.sort();
    /// assert_eq!(found, [&0, &1, &2, &3]); // the box at x = 30 touches the query's edge
    ///
    /// // Stop early, as any iterator does.
    /// let first_odd = tree.iter_in_rect(&query).find(|item| item.value % 2 == 1);
    /// assert!(matches!(first_odd, Some(item) if *item.value == 1 || *item.value == 3));
    ///
    /// // An inverted rectangle meets nothing; `check` says why.
    /// let inverted = Rect::new(5.0, 0.0, 1.0, 1.0);
    /// assert_eq!(tree.iter_in_rect(&inverted).count(), 0);
    /// assert!(inverted.check().is_err());
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn iter_in_rect(&self, query: &Rect) -> InRect<'_, T> {
        InRect::selected(self, InRectSelection::new(query).ok().as_ref())
    }

    /// The items whose rectangles contain the point (edges included), as an iterator: the
    /// items [`for_each_at_point`](Self::for_each_at_point) finds. A NaN or infinite
    /// coordinate meets nothing. Allocates nothing.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), "a")?;
    /// tree.insert(Rect::new(5.0, 5.0, 15.0, 15.0), "b")?;
    /// assert_eq!(tree.iter_at_point(12.0, 12.0).map(|item| *item.value).collect::<Vec<_>>(), ["b"]);
    /// assert_eq!(tree.iter_at_point(f32::NAN, 1.0).count(), 0);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn iter_at_point(&self, x: f32, y: f32) -> InRect<'_, T> {
        InRect::selected(self, InRectSelection::at_point(x, y).ok().as_ref())
    }

    /// The items whose rectangles meet the closed disc of centre `(x, y)` and radius `r`, as
    /// an iterator: the items [`for_each_in_circle`](Self::for_each_in_circle) finds. A
    /// non-finite centre or radius, or a negative radius, meets nothing. Allocates nothing.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// tree.insert(Rect::new(10.0, 0.0, 11.0, 1.0), "near")?;
    /// tree.insert(Rect::new(8.0, 8.0, 9.0, 9.0), "corner")?; // at distance sqrt(128) > 10
    /// let found: Vec<_> = tree.iter_in_circle(0.0, 0.0, 10.0).map(|item| *item.value).collect();
    /// assert_eq!(found, ["near"]);
    /// assert_eq!(tree.iter_in_circle(0.0, 0.0, -1.0).count(), 0);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn iter_in_circle(&self, x: f32, y: f32, r: f32) -> InCircle<'_, T> {
        let sel = InCircleSelection::new(x, y, r).ok();
        InCircle {
            hits: InRect::selected(self, sel.as_ref()),
            sel,
        }
    }

    /// The *other* items whose rectangles intersect the rectangle of item `id`, as an
    /// iterator: the items [`for_each_colliding_with`](Self::for_each_colliding_with) finds,
    /// the item itself left out whichever accepted handle names it (a clone's own, or one of
    /// the tree it was copied from). A stale handle collides with nothing. Allocates nothing.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let player = tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), "player")?;
    /// tree.insert(Rect::new(5.0, 5.0, 6.0, 6.0), "coin")?;
    /// tree.insert(Rect::new(50.0, 50.0, 60.0, 60.0), "far")?;
    /// let hits: Vec<_> = tree.iter_colliding_with(player).map(|item| *item.value).collect();
    /// assert_eq!(hits, ["coin"]);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn iter_colliding_with(&self, id: ItemId) -> CollidingWith<'_, T> {
        let sel = self.colliding_selection(id).ok();
        CollidingWith {
            hits: InRect::selected(self, sel.as_ref()),
            sel,
        }
    }
}
