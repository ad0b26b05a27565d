//! Mutable access to payloads: every item ([`Quadtree::iter_mut`]) or those a region query
//! finds (the `for_each_*_mut` forms). Rectangles stay read-only: moving an item can change
//! its node, which is [`Quadtree::update`]'s work.

use super::items::EntriesMut;
use super::select::{InCircleSelection, InRectSelection};
use super::{ItemId, Node, Quadtree, QuadtreeError, Rect, VisitResult};

/// What a mutable walk hands out: the handle, the stored rectangle (a copy: the tree's
/// own cannot be changed here) and the payload, mutable.
#[derive(Debug)]
pub struct ItemMut<'a, T> {
    /// The item's handle.
    pub id: ItemId,
    /// The item's rectangle. Move an item with [`Quadtree::update`].
    pub rect: Rect,
    /// The item's payload, mutable.
    pub value: &'a mut T,
}

/// Iterator over every item with its payload mutable; see [`Quadtree::iter_mut`].
pub struct IterMut<'a, T> {
    nodes: std::slice::IterMut<'a, Node<T>>,
    list: EntriesMut<'a, T>,
    /// Items not yet yielded.
    remaining: usize,
}

impl<'a, T> Iterator for IterMut<'a, T> {
    type Item = ItemMut<'a, T>;

    fn next(&mut self) -> Option<ItemMut<'a, T>> {
        loop {
            if let Some(item) = self.list.next() {
                self.remaining -= 1;
                return Some(item);
            }
            self.list = self.nodes.next()?.items.entries_mut();
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T> ExactSizeIterator for IterMut<'_, T> {}
impl<T> std::iter::FusedIterator for IterMut<'_, T> {}

/// `for item in &mut tree` visits every item with its payload mutable, as
/// [`Quadtree::iter_mut`] does.
///
/// ```
/// use quadstress::{Quadtree, Rect};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 10.0, 10.0)).unwrap();
/// let id = tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 5).unwrap();
/// for item in &mut tree {
///     *item.value *= 10;
/// }
/// assert_eq!(tree.get(id), Some(&50));
/// ```
impl<'a, T> IntoIterator for &'a mut Quadtree<T> {
    type Item = ItemMut<'a, T>;
    type IntoIter = IterMut<'a, T>;

    fn into_iter(self) -> IterMut<'a, T> {
        self.iter_mut()
    }
}

impl<T> Quadtree<T> {
    /// Every item with its payload mutable, in no particular order. Rectangles are read-only
    /// here (move items with [`update`](Self::update)). Allocates nothing.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 10.0, 10.0)).unwrap();
    /// for i in 0..100 {
    ///     tree.insert(Rect::from_min_size((i % 10) as f32, (i / 10) as f32, 0.5, 0.5), i).unwrap();
    /// }
    /// for item in tree.iter_mut() {
    ///     // Payloads may depend on where their items are.
    ///     *item.value += item.rect.min_x as i32;
    /// }
    /// assert_eq!(tree.iter().map(|item| *item.value).sum::<i32>(), 4950 + 450);
    /// assert_eq!(tree.iter_mut().len(), 100);
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, T> {
        IterMut {
            remaining: self.len,
            nodes: self.nodes.iter_mut(),
            list: EntriesMut::default(),
        }
    }

    /// Calls `f` for every item whose rectangle intersects `query` (closed: touching counts)
    /// with its payload mutable: the items [`for_each_in_rect`](Self::for_each_in_rect)
    /// finds; `f` returns `()` or `ControlFlow`, as there. Rectangles are read-only here.
    /// Allocates nothing.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] or [`QuadtreeError::Inverted`] for a bad `query`; the
    /// tree is unchanged then.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let ids: Vec<_> = (0..10)
    ///     .map(|i| tree.insert(Rect::from_min_size(i as f32 * 10.0, 0.0, 5.0, 5.0), 0u32))
    ///     .collect::<Result<_, _>>()?;
    /// // Everything inside an explosion's box takes a hit.
    /// tree.for_each_in_rect_mut(&Rect::new(0.0, 0.0, 30.0, 5.0), |item| *item.value += 1)?;
    /// let hits: Vec<u32> = ids.iter().map(|&id| *tree.get(id).unwrap()).collect();
    /// assert_eq!(hits, [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
    ///
    /// // Stop at the first item and say which it was.
    /// let first = tree.for_each_in_rect_mut(&Rect::new(0.0, 0.0, 100.0, 100.0), |item| {
    ///     *item.value = 99;
    ///     ControlFlow::Break(item.id)
    /// })?;
    /// let ControlFlow::Break(id) = first else { panic!("nothing found") };
    /// assert_eq!(tree.get(id), Some(&99));
    /// assert_eq!(tree.iter().filter(|item| *item.value == 99).count(), 1);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_in_rect_mut<R, F>(&mut self, query: &Rect, mut f: F) -> Result<R, QuadtreeError>
    where
        F: FnMut(ItemMut<'_, T>) -> R,
        R: VisitResult,
    {
        let sel = InRectSelection::new(query)?;
        Ok(R::from_flow(
            self.walk_selected_mut(&sel, |item| f(item).branch()),
        ))
    }

    /// Calls `f` for every item whose rectangle contains the point (edges included), with
    /// its payload mutable: the items [`for_each_at_point`](Self::for_each_at_point) finds.
    ///
    /// # Errors
    /// As [`for_each_at_point`](Self::for_each_at_point); the tree is unchanged then.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let a = tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), 0)?;
    /// let b = tree.insert(Rect::new(20.0, 0.0, 30.0, 10.0), 0)?;
    /// tree.for_each_at_point_mut(5.0, 5.0, |item| *item.value += 1)?; // a click
    /// assert_eq!((tree.get(a), tree.get(b)), (Some(&1), Some(&0)));
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_at_point_mut<R, F>(
        &mut self,
        x: f32,
        y: f32,
        mut f: F,
    ) -> Result<R, QuadtreeError>
    where
        F: FnMut(ItemMut<'_, T>) -> R,
        R: VisitResult,
    {
        let sel = InRectSelection::at_point(x, y)?;
        Ok(R::from_flow(
            self.walk_selected_mut(&sel, |item| f(item).branch()),
        ))
    }

    /// Calls `f` for every item whose rectangle meets the closed disc of centre `(x, y)` and
    /// radius `r`, with its payload mutable: the items
    /// [`for_each_in_circle`](Self::for_each_in_circle) finds.
    ///
    /// # Errors
    /// As [`for_each_in_circle`](Self::for_each_in_circle); the tree is unchanged then.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let near = tree.insert(Rect::new(10.0, 0.0, 11.0, 1.0), 100)?;
    /// let corner = tree.insert(Rect::new(8.0, 8.0, 9.0, 9.0), 100)?; // sqrt(128) > 10 away
    /// // A blast of radius 10 at the origin.
    /// tree.for_each_in_circle_mut(0.0, 0.0, 10.0, |item| *item.value -= 30)?;
    /// assert_eq!((tree.get(near), tree.get(corner)), (Some(&70), Some(&100)));
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_in_circle_mut<R, F>(
        &mut self,
        x: f32,
        y: f32,
        r: f32,
        mut f: F,
    ) -> Result<R, QuadtreeError>
    where
        F: FnMut(ItemMut<'_, T>) -> R,
        R: VisitResult,
    {
        let sel = InCircleSelection::new(x, y, r)?;
        Ok(R::from_flow(
            self.walk_selected_mut(&sel, |item| f(item).branch()),
        ))
    }

    /// Calls `f` for every *other* item whose rectangle intersects the rectangle of item
    /// `id`, with its payload mutable: the items
    /// [`for_each_colliding_with`](Self::for_each_colliding_with) finds. `id`'s own payload
    /// is not lent (it is not among the items), whichever accepted handle `id` is: on a
    /// clone, one the tree it was copied from made before the copy names the same item.
    ///
    /// # Errors
    /// [`QuadtreeError::StaleId`] if `id` is stale.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let player = tree.insert(Rect::new(0.0, 0.0, 10.0, 10.0), 0)?;
    /// let wall = tree.insert(Rect::new(9.0, 9.0, 12.0, 12.0), 0)?;
    /// let far = tree.insert(Rect::new(50.0, 50.0, 60.0, 60.0), 0)?;
    /// tree.for_each_colliding_with_mut(player, |item| *item.value += 1)?;
    /// assert_eq!([tree.get(player), tree.get(wall), tree.get(far)], [Some(&0), Some(&1), Some(&0)]);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_colliding_with_mut<R, F>(
        &mut self,
        id: ItemId,
        mut f: F,
    ) -> Result<R, QuadtreeError>
    where
        F: FnMut(ItemMut<'_, T>) -> R,
        R: VisitResult,
    {
        let sel = self.colliding_selection(id)?;
        Ok(R::from_flow(
            self.walk_selected_mut(&sel, |item| f(item).branch()),
        ))
    }
}
