//! Mutable access to payloads: every item ([`Quadtree::iter_mut`]) or those in a rectangle
//! ([`Quadtree::for_each_in_rect_mut`]). Rectangles stay read-only: moving an item can change
//! its node, which is [`Quadtree::update`]'s work.

use std::ops::ControlFlow;

use super::items::EntriesMut;
use super::{traverse::NodeStack, ItemId, Node, Quadtree, QuadtreeError, Rect};

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
    /// with its payload mutable, until `f` returns `Break(value)`, which comes back as the
    /// result. The items [`for_each_in_rect`](Self::for_each_in_rect) finds; rectangles are
    /// read-only here. Allocates nothing.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] or [`QuadtreeError::Inverted`] for a bad `query`; the
    /// tree is unchanged then.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let ids: Vec<_> = (0..10)
    ///     .map(|i| tree.insert(Rect::from_min_size(i as f32 * 10.0, 0.0, 5.0, 5.0), 0u32).unwrap())
    ///     .collect();
    /// // Everything inside an explosion's box takes a hit.
    /// tree.for_each_in_rect_mut(&Rect::new(0.0, 0.0, 30.0, 5.0), |item| {
    ///     *item.value += 1;
    ///     ControlFlow::<()>::Continue(())
    /// }).unwrap();
    /// let hits: Vec<u32> = ids.iter().map(|&id| *tree.get(id).unwrap()).collect();
    /// assert_eq!(hits, [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
    ///
    /// // Stop at the first item and say which it was.
    /// let first = tree.for_each_in_rect_mut(&Rect::new(0.0, 0.0, 100.0, 100.0), |item| {
    ///     *item.value = 99;
    ///     ControlFlow::Break(item.id)
    /// });
    /// let Ok(ControlFlow::Break(id)) = first else { panic!("nothing found") };
    /// assert_eq!(tree.get(id), Some(&99));
    /// assert_eq!(tree.iter().filter(|item| *item.value == 99).count(), 1);
    /// ```
    pub fn for_each_in_rect_mut<B, F>(
        &mut self,
        query: &Rect,
        mut f: F,
    ) -> Result<ControlFlow<B>, QuadtreeError>
    where
        F: FnMut(ItemMut<'_, T>) -> ControlFlow<B>,
    {
        query.check()?;
        let range = self.cell_range(query);
        // The walk of `walk_rect_hits`, one node at a time: the node's list is borrowed
        // mutably while it is scanned, then the tree is read to find the children.
        let mut stack = NodeStack::new(0);
        while let Some(n) = stack.pop() {
            let items = &mut self.nodes[n as usize].items;
            if let ControlFlow::Break(b) = items.for_each_hit_mut(query, &mut f) {
                return Ok(ControlFlow::Break(b));
            }
            self.push_children(&mut stack, &self.nodes[n as usize], range);
        }
        Ok(ControlFlow::Continue(()))
    }
}
