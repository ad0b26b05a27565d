//! All intersecting pairs, each unordered pair exactly once.

use std::ops::{ControlFlow, Range};

use super::items::{with_block_test, Lanes};
use super::{
    CellRange, ItemId, ItemList, ItemRef, Node, Placement, Quadtree, QueryCounts, Rect,
    VisitResult, NULL,
};

/// How many blocks of the next node's list the pair search requests while it searches a
/// node: a full leaf of 32 items.
const PAIR_BLOCKS_AHEAD: usize = 4;

impl<T> Quadtree<T> {
    /// Calls `f(a, b)` once for every unordered pair of items whose rectangles intersect
    /// (closed: touching counts); `f` returns `()` to see every pair, or `ControlFlow` to stop
    /// at its first `Break` ([`VisitResult`]), and the search returns what `f` returns.
    /// Allocates nothing. No `Result`, unlike the region queries: the search takes no input
    /// that could be refused (every stored rectangle was checked when it went in), so it
    /// cannot fail. The pairs' handles appended to a `Vec`:
    /// [`query_pairs`](Self::query_pairs); on every core: `par_pairs` (feature `rayon`).
    ///
    /// As with [`for_each_in_rect`](Self::for_each_in_rect), the [`ItemRef`]s lend the
    /// payloads for as long as the tree is borrowed, and `Break(value)` stops the search and
    /// comes back as the result.
    ///
    /// Under exact placement every item sits in the smallest node containing it, so a pair is
    /// found exactly once: either both items sit in the same node, or one sits in a strict
    /// ancestor of the other's node. Each node tests the bounding box of its items against
    /// each ancestor's list (only the band of straddlers that the box meets, see
    /// [`design`](crate::design)), then its items against each ancestor item that box meets.
    ///
    /// Under [`Placement::Loose`] the regions of nodes of one level overlap, so each item also
    /// looks at the neighbouring nodes of its level that its rectangle reaches, and a pair
    /// between two such nodes is reported from the one with the smaller index.
    ///
    /// # Runtime
    /// Per node, its items against each other, and its items against each ancestor item
    /// that their bounding box meets, after one bounding-box test per ancestor item in the
    /// bands that box meets (a node far from an ancestor's centre lines costs two band tests
    /// for it). Under loose placement, instead, per item in an internal node, the items of the
    /// descendants whose cells its rectangle overlaps, and those of up to eight neighbouring
    /// nodes and their subtrees.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// tree.insert(Rect::new(0.0, 0.0, 2.0, 2.0), 'a')?;
    /// tree.insert(Rect::new(2.0, 2.0, 3.0, 3.0), 'b')?; // touches a at a corner
    /// tree.insert(Rect::new(40.0, 40.0, 70.0, 70.0), 'c')?; // crosses the centre lines
    /// tree.insert(Rect::new(60.0, 60.0, 61.0, 61.0), 'd')?;
    /// // The payloads are lent for as long as `tree` is borrowed, so the pairs can keep them.
    /// let mut pairs: Vec<[&char; 2]> = Vec::new();
    /// tree.for_each_pair(|a, b| {
    ///     let mut p = [a.value, b.value];
    ///     p.sort();
    ///     pairs.push(p);
    /// });
    /// pairs.sort();
    /// assert_eq!(pairs, vec![[&'a', &'b'], [&'c', &'d']]);
    ///
    /// // Stop at the first pair that involves 'd', and bring back its partner.
    /// let partner = tree.for_each_pair(|a, b| match (*a.value, *b.value) {
    ///     ('d', other) | (other, 'd') => ControlFlow::Break(other),
    ///     _ => ControlFlow::Continue(()),
    /// });
    /// assert_eq!(partner, ControlFlow::Break('c'));
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_pair<'a, R, F>(&'a self, f: F) -> R
    where
        F: FnMut(ItemRef<'a, T>, ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        self.for_each_pair_counting(f).0
    }

    /// As [`for_each_pair`](Self::for_each_pair), and also returns the work done: the nodes
    /// searched and how many rectangle pairs were tested ([`QueryCounts::tests`]); the work a
    /// brute-force search would do is `n * (n - 1) / 2` tests.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 1000.0, 1000.0))?;
    /// for i in 0..1000 {
    ///     tree.insert(Rect::from_min_size((i % 40) as f32 * 25.0, (i / 40) as f32 * 25.0, 2.0, 2.0), i)?;
    /// }
    /// let ((), counts) = tree.for_each_pair_counting(|_, _| {});
    /// assert!(counts.tests < 1000 * 999 / 2 / 20);
    /// assert_eq!(counts.nodes_visited, tree.stats().nodes);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn for_each_pair_counting<'a, R, F>(&'a self, mut f: F) -> (R, QueryCounts)
    where
        F: FnMut(ItemRef<'a, T>, ItemRef<'a, T>) -> R,
        R: VisitResult,
    {
        let mut tests = 0u64;
        let flow = self.pairs_in_nodes(
            0..self.nodes.len(),
            &mut |a, b| f(a, b).branch(),
            &mut tests,
        );
        let counts = QueryCounts {
            nodes_visited: self.nodes().len(),
            tests,
        };
        (R::from_flow(flow), counts)
    }

    /// The pairs that the nodes with indices in `nodes` report, in node order: every pair is
    /// reported by exactly one node, so splitting the node array into ranges splits the
    /// search (see `par_pairs`).
    pub(super) fn pairs_in_nodes<'a, B, F>(
        &'a self,
        nodes: Range<usize>,
        f: &mut F,
        tests: &mut u64,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>, ItemRef<'a, T>) -> ControlFlow<B>,
    {
        // The block test is chosen once: with AVX, the whole search is compiled for it, so
        // every scan inlines the test instead of calling into an AVX-compiled scan.
        with_block_test!(|hits| self.pairs_in_nodes_with(nodes, f, tests, hits))
    }

    /// [`pairs_in_nodes`](Self::pairs_in_nodes) with the block test `hits`.
    #[inline(always)]
    fn pairs_in_nodes_with<'a, B, F, H>(
        &'a self,
        nodes: Range<usize>,
        f: &mut F,
        tests: &mut u64,
        hits: H,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>, ItemRef<'a, T>) -> ControlFlow<B>,
        H: Fn(&Lanes, &Rect) -> u32 + Copy,
    {
        let loose = self.config.placement == Placement::Loose;
        let first = nodes.start;
        let all = &self.nodes[nodes];
        for (n, node) in all.iter().enumerate() {
            // Each list lies apart from the others: the next node's first blocks are
            // requested while this one is searched.
            if let Some(next) = all.get(n + 1) {
                next.items.prefetch_blocks(PAIR_BLOCKS_AHEAD);
            }
            if !node.live {
                continue;
            }
            let n = (first + n) as u32;
            let items = &node.items;
            let len = items.len() as u64;
            *tests += len * len.saturating_sub(1) / 2;
            // Pairs inside the node.
            items.for_each_pair_inside(&mut *f, hits)?;
            if !loose {
                // Under exact placement, the items here against those of every ancestor
                // that reach this node's items.
                if let Some(bounds) = items.bounds() {
                    let mut p = node.parent;
                    while p != NULL {
                        let up = &self.nodes[p as usize];
                        let mut met = 0;
                        let flow = up.items.for_each_hit_grouped(
                            &bounds,
                            |a| {
                                met += 1;
                                items.for_each_hit_grouped(&a.rect, |b| f(a, b), hits, &mut 0)
                            },
                            hits,
                            tests,
                        );
                        *tests += met * len;
                        flow?;
                        p = up.parent;
                    }
                }
                continue;
            }
            // Under loose placement, each item here against the items below this node and
            // in and below the neighbouring nodes of this level whose regions its rectangle
            // overlaps.
            let has_below = !node.is_leaf() && node.subtree_len as usize > items.len();
            for a in items.items() {
                let range = self.cell_range(&a.rect);
                let mut test = |bs: &'a ItemList<T>| {
                    bs.for_each_hit_grouped(&a.rect, |b| f(a, b), hits, tests)
                };
                if has_below {
                    self.walk_below(node, range, &mut test)?;
                }
                self.loose_neighbours(n, node, range, &mut test)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Under loose placement, regions of nodes of one level overlap, so an item can meet items
    /// of a neighbouring node of its own level and of that node's subtree. A pair between two
    /// nodes of one level is reported from the node with the smaller index; a pair between
    /// levels from the higher node, as in the exact case.
    fn loose_neighbours<'a, B, F>(
        &'a self,
        n: u32,
        node: &Node<T>,
        range: CellRange,
        f: &mut F,
    ) -> ControlFlow<B>
    where
        F: FnMut(&'a ItemList<T>) -> ControlFlow<B>,
    {
        let level = node.level;
        let last = (1u32 << level) - 1;
        let r = self.range_at_level(range, level);
        let (x1, y1) = (r.x1.min(last), r.y1.min(last));
        let table = self.cells.table(level);
        for cy in r.y0..=y1 {
            for cx in r.x0..=x1 {
                let other = table[((cy << level) | cx) as usize];
                if other == NULL || other == n {
                    continue;
                }
                if other > n {
                    f(&self.nodes[other as usize].items)?;
                }
                self.walk_below(&self.nodes[other as usize], range, &mut *f)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Appends every intersecting pair to `out` (each unordered pair once, as
    /// `(smaller handle, larger handle)`) and returns how many were appended.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 10.0, 10.0))?;
    /// let a = tree.insert(Rect::new(0.0, 0.0, 2.0, 2.0), ())?;
    /// let b = tree.insert(Rect::new(1.0, 1.0, 3.0, 3.0), ())?;
    /// tree.insert(Rect::new(8.0, 8.0, 9.0, 9.0), ())?;
    /// let mut out = Vec::new();
    /// assert_eq!(tree.query_pairs(&mut out), 1);
    /// assert_eq!(out, vec![(a, b)]);
    /// # Ok::<(), quadstress::QuadtreeError>(())
    /// ```
    pub fn query_pairs(&self, out: &mut Vec<(ItemId, ItemId)>) -> usize {
        let before = out.len();
        self.for_each_pair(|a, b| out.push((a.id.min(b.id), a.id.max(b.id))));
        out.len() - before
    }
}
