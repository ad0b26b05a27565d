//! Read-only walks over the structure: nodes for drawing, statistics for a HUD, all items.

use super::{ItemRef, Node, Quadtree, Rect, VisitResult, MAX_DEPTH};
use std::ops::ControlFlow;

/// One node of the tree, as [`Quadtree::nodes`] yields it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeInfo {
    /// The node's cell in world coordinates.
    pub rect: Rect,
    /// Depth: 0 for the root.
    pub depth: u8,
    /// Items stored in this node itself.
    pub items: usize,
    /// Items in this node and all its descendants.
    pub subtree_items: usize,
    /// Whether the node has no children.
    pub is_leaf: bool,
}

/// Counts describing the tree's shape, from [`Quadtree::stats`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TreeStats {
    /// Items stored.
    pub items: usize,
    /// Nodes in use (the root included).
    pub nodes: usize,
    /// Leaves among them.
    pub leaves: usize,
    /// Deepest level that has nodes.
    pub deepest_level: u8,
    /// Items stored at each depth (index = depth; entries past `max_depth` stay 0).
    pub items_per_depth: [usize; MAX_DEPTH as usize + 1],
    /// Items held at the root: those outside the world, and those crossing its centre lines.
    pub items_at_root: usize,
    /// Items whose rectangle is not entirely inside the world.
    pub items_outside_world: usize,
}

/// Iterator over the nodes in use; see [`Quadtree::nodes`].
pub struct Nodes<'a, T> {
    tree: &'a Quadtree<T>,
    next: usize,
    /// Live nodes not yet yielded.
    remaining: usize,
}

impl<T> Iterator for Nodes<'_, T> {
    type Item = NodeInfo;

    fn next(&mut self) -> Option<NodeInfo> {
        while self.next < self.tree.nodes.len() {
            let n = self.next;
            self.next += 1;
            let node = &self.tree.nodes[n];
            if node.live {
                self.remaining -= 1;
                return Some(self.tree.node_info(n as u32, node));
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T> ExactSizeIterator for Nodes<'_, T> {}
impl<T> std::iter::FusedIterator for Nodes<'_, T> {}

/// Iterator over the items one node holds itself; see [`Quadtree::for_each_node_items`].
pub struct NodeItems<'a, T> {
    list: &'a super::ItemList<T>,
    pos: usize,
}

impl<'a, T> NodeItems<'a, T> {
    fn of(node: &'a Node<T>) -> Self {
        NodeItems {
            list: &node.items,
            pos: 0,
        }
    }
}

impl<'a, T> Iterator for NodeItems<'a, T> {
    type Item = ItemRef<'a, T>;

    #[inline]
    fn next(&mut self) -> Option<ItemRef<'a, T>> {
        (self.pos < self.list.len()).then(|| {
            self.pos += 1;
            self.list.item(self.pos - 1)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.list.len() - self.pos;
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for NodeItems<'_, T> {}
impl<T> std::iter::FusedIterator for NodeItems<'_, T> {}

/// Iterator over every item; see [`Quadtree::iter`].
pub struct Iter<'a, T> {
    nodes: std::slice::Iter<'a, Node<T>>,
    /// The list being walked and the next position in it.
    list: Option<&'a super::ItemList<T>>,
    pos: usize,
    /// Items not yet yielded.
    remaining: usize,
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = ItemRef<'a, T>;

    fn next(&mut self) -> Option<ItemRef<'a, T>> {
        loop {
            if let Some(list) = self.list.filter(|l| self.pos < l.len()) {
                self.pos += 1;
                self.remaining -= 1;
                return Some(list.item(self.pos - 1));
            }
            self.list = Some(&self.nodes.next()?.items);
            self.pos = 0;
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}
impl<T> std::iter::FusedIterator for Iter<'_, T> {}

/// `for item in &tree` visits every item, as [`Quadtree::iter`] does.
///
/// ```
/// use quadstress::{Quadtree, Rect};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 10.0, 10.0)).unwrap();
/// tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 5).unwrap();
/// tree.insert(Rect::new(6.0, 6.0, 7.0, 7.0), 6).unwrap();
/// let mut sum = 0;
/// for item in &tree {
///     sum += *item.value;
/// }
/// assert_eq!(sum, 11);
/// ```
impl<'a, T> IntoIterator for &'a Quadtree<T> {
    type Item = ItemRef<'a, T>;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<T> Quadtree<T> {
    /// The cell of node `n` in world coordinates.
    pub(super) fn node_rect(&self, n: u32) -> Rect {
        let node = &self.nodes[n as usize];
        self.grid.cell_rect(node.level, node.cx, node.cy)
    }

    pub(super) fn node_info(&self, n: u32, node: &Node<T>) -> NodeInfo {
        NodeInfo {
            rect: self.node_rect(n),
            depth: node.level,
            items: node.items.len(),
            subtree_items: node.subtree_len as usize,
            is_leaf: node.is_leaf(),
        }
    }

    /// Every node in use, for drawing outlines or inspecting the structure. Allocates nothing.
    ///
    /// ```
    /// use quadstress::{Config, Quadtree, Rect};
    /// let config = Config { leaf_capacity: 1, max_depth: 3, ..Config::default() };
    /// let mut tree = Quadtree::with_config(Rect::new(0.0, 0.0, 8.0, 8.0), config).unwrap();
    /// tree.insert(Rect::new(0.5, 0.5, 0.6, 0.6), ()).unwrap();
    /// tree.insert(Rect::new(7.5, 7.5, 7.6, 7.6), ()).unwrap(); // the root splits
    /// let nodes: Vec<_> = tree.nodes().collect();
    /// assert_eq!(nodes.len(), 5);
    /// assert_eq!(tree.nodes().len(), 5);
    /// assert!(!nodes[0].is_leaf && nodes[0].depth == 0 && nodes[0].subtree_items == 2);
    /// assert!(nodes[1..].iter().all(|n| n.depth == 1 && n.rect.width() == 4.0));
    /// ```
    pub fn nodes(&self) -> Nodes<'_, T> {
        Nodes {
            tree: self,
            next: 0,
            remaining: self.cells.per_level().iter().map(|&n| n as usize).sum(),
        }
    }

    /// Every node in use with the items it holds itself (not its descendants'), in the
    /// order of [`nodes`](Self::nodes); `f` returns `()` or `ControlFlow` ([`VisitResult`]), and
    /// the walk stops at its first `Break`, returning it.
    ///
    /// A walk that needs each item's node (its depth for colouring, its cell) reads every
    /// list once this way, with no rectangle tests and no stack, where a query over the
    /// whole world would test every item.
    ///
    /// # Runtime
    /// O(nodes + items); allocates nothing.
    ///
    /// ```
    /// use quadstress::{Config, Quadtree, Rect};
    /// use std::ops::ControlFlow;
    /// let config = Config { leaf_capacity: 1, max_depth: 3, ..Config::default() };
    /// let mut tree = Quadtree::with_config(Rect::new(0.0, 0.0, 8.0, 8.0), config).unwrap();
    /// tree.insert(Rect::new(3.0, 3.0, 5.0, 5.0), "centre").unwrap(); // crosses the centre lines
    /// tree.insert(Rect::new(0.5, 0.5, 0.6, 0.6), "corner").unwrap();
    /// tree.insert(Rect::new(7.5, 7.5, 7.6, 7.6), "far corner").unwrap();
    /// let mut depths = Vec::new();
    /// tree.for_each_node_items(|node, items| {
    ///     depths.extend(items.map(|item| (*item.value, node.depth)));
    /// });
    /// depths.sort();
    /// assert_eq!(depths, [("centre", 0), ("corner", 1), ("far corner", 1)]);
    /// // Stopping early hands back the value.
    /// let first = tree.for_each_node_items(|_, mut items| match items.next() {
    ///     Some(item) => ControlFlow::Break(*item.value),
    ///     None => ControlFlow::Continue(()),
    /// });
    /// assert_eq!(first, ControlFlow::Break("centre"));
    /// ```
    pub fn for_each_node_items<'a, R, F>(&'a self, mut f: F) -> R
    where
        F: FnMut(NodeInfo, NodeItems<'a, T>) -> R,
        R: VisitResult,
    {
        for (n, node) in self.nodes.iter().enumerate() {
            if node.live {
                if let ControlFlow::Break(b) =
                    f(self.node_info(n as u32, node), NodeItems::of(node)).branch()
                {
                    return R::from_flow(ControlFlow::Break(b));
                }
            }
        }
        R::from_flow(ControlFlow::Continue(()))
    }

    /// [`for_each_node_items`](Self::for_each_node_items) on every thread of rayon's current
    /// pool: `f` sees every node in use once, from any thread, in no fixed order (on wasm32,
    /// one thread). What `f` gathers across nodes must not depend on the order (a maximum, a
    /// count, writes to places no other node writes) for the result to be the same on any
    /// thread count.
    ///
    /// # Runtime
    /// O(nodes + items), split over the threads in runs of nodes; allocates nothing.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// for i in 0..1000 {
    ///     let (x, y) = ((i % 40) as f32 * 2.5, (i / 40) as f32 * 4.0);
    ///     tree.insert(Rect::from_min_size(x, y, 1.0, 1.0), i).unwrap();
    /// }
    /// let sum = AtomicUsize::new(0);
    /// tree.par_for_each_node_items(|_, items| {
    ///     sum.fetch_add(items.map(|item| *item.value).sum::<usize>(), Ordering::Relaxed);
    /// });
    /// assert_eq!(sum.into_inner(), (0..1000).sum::<usize>());
    /// ```
    #[cfg(feature = "rayon")]
    pub fn par_for_each_node_items<F>(&self, f: F)
    where
        T: Sync,
        F: Fn(NodeInfo, NodeItems<'_, T>) + Sync + Send,
    {
        use rayon::prelude::*;
        // Runs of nodes, so that a thread's share is worth its start.
        const NODES_PER_TASK: usize = 64;
        self.nodes
            .par_iter()
            .enumerate()
            .with_min_len(NODES_PER_TASK)
            .for_each(|(n, node)| {
                if node.live {
                    f(self.node_info(n as u32, node), NodeItems::of(node));
                }
            });
    }

    /// Every item, in no particular order. Allocates nothing.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 10.0, 10.0)).unwrap();
    /// for i in 0..100 {
    ///     tree.insert(Rect::from_min_size((i % 10) as f32, (i / 10) as f32, 0.5, 0.5), i).unwrap();
    /// }
    /// assert_eq!(tree.iter().map(|item| *item.value).sum::<i32>(), 4950);
    /// assert_eq!(tree.iter().len(), 100);
    /// ```
    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            nodes: self.nodes.iter(),
            list: None,
            pos: 0,
            remaining: self.len,
        }
    }

    /// Shape statistics: items, nodes, deepest level in use, items per depth, items at the
    /// root. O(nodes + items at the root); allocates nothing.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// tree.insert(Rect::new(49.0, 49.0, 51.0, 51.0), ()).unwrap(); // crosses the centre
    /// tree.insert(Rect::new(-5.0, 0.0, 1.0, 1.0), ()).unwrap(); // partly outside
    /// let stats = tree.stats();
    /// assert_eq!((stats.items, stats.items_at_root, stats.items_outside_world), (2, 2, 1));
    /// assert_eq!(stats.nodes, 1);
    /// ```
    pub fn stats(&self) -> TreeStats {
        let mut s = TreeStats {
            items: self.len,
            deepest_level: self.cells.deepest(),
            ..TreeStats::default()
        };
        for node in self.nodes.iter().filter(|n| n.live) {
            s.nodes += 1;
            s.leaves += usize::from(node.is_leaf());
            s.items_per_depth[node.level as usize] += node.items.len();
        }
        s.items_at_root = self.nodes[0].items.len();
        s.items_outside_world = self.nodes[0]
            .items
            .items()
            .filter(|e| !self.grid.world.contains_rect(&e.rect))
            .count();
        s
    }
}
