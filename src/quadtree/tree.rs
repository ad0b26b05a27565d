//! The [`Quadtree`] type and its core: construction, settings, insert, remove, update, clear
//! and access by handle.

use super::{
    bulk, CellTables, Config, Entry, Grid, ItemId, Node, QuadtreeError, Rect, Slot, SlotTable,
    TreeId, MAX_DEPTH, MAX_ITEMS,
};

/// A dynamic 2D quadtree of axis-aligned rectangles with a payload `T`.
///
/// Built for many moving objects (particles, bullets, units): insertion, removal and moves
/// are O(1) apart from the occasional split or merge, and a move that stays in its node is
/// a handful of integer operations.
///
/// # Usage
/// ```
/// use quadstress::{Quadtree, Rect};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 800.0, 600.0))?;
/// let a = tree.insert(Rect::from_min_size(10.0, 10.0, 8.0, 8.0), "a")?;
/// let b = tree.insert(Rect::from_min_size(15.0, 15.0, 8.0, 8.0), "b")?;
/// tree.update(b, Rect::from_min_size(400.0, 300.0, 8.0, 8.0))?;
///
/// let near_origin = Rect::new(0.0, 0.0, 100.0, 100.0);
/// let names: Vec<&str> = tree.iter_in_rect(&near_origin).map(|item| *item.value).collect();
/// assert_eq!(names, ["a"]);
/// let mut hits = Vec::new();
/// tree.query_in_rect(&near_origin, &mut hits)?;
/// assert_eq!(hits, vec![a]);
/// assert_eq!(tree.remove(a), Some("a"));
/// assert_eq!(tree.remove(a), None); // stale handle: nothing else is touched
/// # Ok::<(), quadstress::QuadtreeError>(())
/// ```
///
/// # Queries: one vocabulary
/// Each query has a stem, and each stem the same forms, named by one rule:
///
/// | stem: what it finds | iterator `iter_*` | callback `for_each_*` | `Vec` of handles `query_*` | payloads mutable `for_each_*_mut` | with the work done `for_each_*_counting` |
/// |---|---|---|---|---|---|
/// | `in_rect`: items intersecting a rectangle | [`iter_in_rect`](Self::iter_in_rect) | [`for_each_in_rect`](Self::for_each_in_rect) | [`query_in_rect`](Self::query_in_rect) | [`for_each_in_rect_mut`](Self::for_each_in_rect_mut) | [`for_each_in_rect_counting`](Self::for_each_in_rect_counting) |
/// | `at_point`: items containing a point | [`iter_at_point`](Self::iter_at_point) | [`for_each_at_point`](Self::for_each_at_point) | [`query_at_point`](Self::query_at_point) | [`for_each_at_point_mut`](Self::for_each_at_point_mut) | [`for_each_at_point_counting`](Self::for_each_at_point_counting) |
/// | `in_circle`: items meeting a disc | [`iter_in_circle`](Self::iter_in_circle) | [`for_each_in_circle`](Self::for_each_in_circle) | [`query_in_circle`](Self::query_in_circle) | [`for_each_in_circle_mut`](Self::for_each_in_circle_mut) | [`for_each_in_circle_counting`](Self::for_each_in_circle_counting) |
/// | `colliding_with`: the other items touching one item | [`iter_colliding_with`](Self::iter_colliding_with) | [`for_each_colliding_with`](Self::for_each_colliding_with) | [`query_colliding_with`](Self::query_colliding_with) | [`for_each_colliding_with_mut`](Self::for_each_colliding_with_mut) | [`for_each_colliding_with_counting`](Self::for_each_colliding_with_counting) |
/// | `nearest`: the k nearest items, nearest first, with distances | none (the search ends before the first answer) | [`for_each_nearest`](Self::for_each_nearest) | [`query_nearest`](Self::query_nearest) | none | [`for_each_nearest_counting`](Self::for_each_nearest_counting) |
/// | `pair`: every intersecting pair, once | none (the search nests walks) | [`for_each_pair`](Self::for_each_pair) | [`query_pairs`](Self::query_pairs) | none (two items at once) | [`for_each_pair_counting`](Self::for_each_pair_counting) |
///
/// The forms of a stem find the same items: each region stem is written once, as one
/// selection that every form walks with, `nearest` is one search and `pair` one pair search.
/// A handle that a clone accepts from the tree it was copied from names the same item as the
/// clone's own handle, in every form (`colliding_with` leaves that item out either way).
///
/// - **Iterators** yield [`ItemRef`](crate::ItemRef)s (handle, rectangle, `&T` lent for the tree's borrow)
///   and take no `Result`, so `.map(|item| item.value)` works at once: input the other
///   forms refuse (a NaN or infinite coordinate, an inverted rectangle, a negative radius,
///   a stale handle) meets no item and the iterator is empty. [`Rect::check`] tells a bad
///   query apart from an empty answer.
/// - **Callbacks** get the same `ItemRef`s and may return `()` to see every item, or
///   [`ControlFlow<B>`](std::ops::ControlFlow) to stop at the first `Break(value)`
///   ([`VisitResult`](crate::VisitResult)); the query returns the closure's type, in a `Result` when the input
///   can be refused: `tree.for_each_in_rect(&r, |item| found.push(item.value))?`.
///   The `_counting` forms also return the [`QueryCounts`](crate::QueryCounts) of the work done.
/// - **`query_*`** appends to the caller's `Vec` (never clears it) and returns how many it
///   appended; reuse the `Vec` to allocate nothing.
/// - **Batches**: [`insert_many`](Self::insert_many) and [`update_many`](Self::update_many)
///   are all or nothing, and their [`BatchError`](crate::BatchError) names the first refused item;
///   [`update_all`](Self::update_all) moves every item to a rectangle computed from the item,
///   all or nothing too, its [`ItemError`](crate::ItemError) naming the first refused item's handle.
/// - **`par_*`** (feature `rayon`) is the parallel form of the name it prefixes
///   (`par_insert_many`, `par_update_many`, `par_update_all`, `par_for_each_node_items`),
///   and `par_pairs` the pair search, mapped into a `PairWorkspace` (appended, like every
///   `out`). Each gives the same answer on any thread count.
///
/// No query allocates, apart from what a caller's `Vec` grows by (and `for_each_nearest`
/// with `k` above 32). Nothing recurses: every walk keeps an explicit stack of at most
/// `4 * MAX_DEPTH + 4` node indices on the call stack or inside the iterator.
///
/// # Placement
/// Each item is stored exactly once, in the smallest existing node whose cell contains its
/// rectangle. The level and cell are computed directly, without descending from the root:
/// the rectangle's edges are mapped to integer cell coordinates at `max_depth`, and the
/// highest bit set in `(x0 ^ x1) | (y0 ^ y1)` says how many levels above the bottom the two
/// edges first share a cell (XOR / highest-set-bit placement, as in Game Programming Gems 2,
/// 4.5). A dense table per level
/// then names the node of that cell, if it exists.
///
/// With [`Placement::Loose`](crate::Placement::Loose) in the [`Config`], nodes reach half a cell beyond their cells and
/// an item's level follows from its size alone (its node is the one holding its centre), so
/// no small item is stuck at the root for crossing a centre line.
///
/// Items partly or wholly outside the world rectangle are kept at the root, and every query
/// still finds them.
///
/// # Runtime
/// With `D = max_depth`, `c = leaf_capacity`:
/// - `insert`, `remove`: O(D) (counters along the path to the root) plus O(c) for a split
///   or merge when one happens;
/// - `update` within the same node: O(1); to another node: as remove plus insert, without
///   any search;
/// - `update_many`: O(batch) checks and placements, then as `update` for each move that
///   changes node; `update_all` the same with O(items) for the walk over every list;
/// - region queries: O(D + k) node visits for a small query region, where k is the items
///   found, plus the items held in the visited nodes;
/// - nearest: about O(D + k) node visits on evenly spread data, O(log k) per candidate;
/// - `for_each_pair`: each node's items against each other and against the overlapping
///   items below them.
///
/// # Caveats
/// - Rectangles straddling the lines of large cells stay high in the tree, as in every
///   "smallest containing node" quadtree: a rectangle crossing the world's centre lines sits
///   at the root and is tested by every pair search that reaches it.
/// - Coordinates are `f32`; a world far from the origin loses precision like any `f32` data.
#[derive(Debug)]
pub struct Quadtree<T> {
    pub(super) config: Config,
    /// The world and its cells: where a rectangle belongs.
    pub(super) grid: Grid,
    pub(super) nodes: Vec<Node<T>>,
    /// First nodes of freed child blocks, ready for reuse.
    pub(super) free_blocks: Vec<u32>,
    /// Entries the item lists of the nodes in `free_blocks` have room for.
    pub(super) spare_capacity: usize,
    /// Which node holds each cell, per level.
    pub(super) cells: CellTables,
    /// Where each handle's item lives, and the free chain.
    pub(super) slots: SlotTable,
    /// Sets this tree's handles apart from every other tree's: fresh for every clone.
    pub(super) tree: TreeId,
    /// The ids of the trees this one was cloned from, each from the one before (oldest
    /// first): their handles reach the items they held when copied (see `Slot::born`).
    pub(super) ancestors: Vec<TreeId>,
    pub(super) len: usize,
    /// Reused work list for splits, merges and bulk placement.
    pub(super) scratch: Vec<u32>,
    /// Reused keys for sorting the runs of item lists.
    pub(super) sort_scratch: Vec<u64>,
    pub(super) bulk: bulk::BulkScratch<T>,
}

impl<T> Quadtree<T> {
    /// An empty tree over `world` with the default [`Config`] (leaf capacity 32, depth 6).
    ///
    /// # Errors
    /// [`QuadtreeError::InvalidWorld`] if `world` is not finite or has no area, or if its
    /// width or height is not a finite `f32` (edges more than `f32::MAX` apart) or is below
    /// `2^MAX_DEPTH / f32::MAX` (about `3e-36`).
    ///
    /// ```
    /// use quadstress::{Quadtree, QuadtreeError, Rect};
    /// assert!(Quadtree::<()>::new(Rect::new(0.0, 0.0, 800.0, 600.0)).is_ok());
    /// let flat = Quadtree::<()>::new(Rect::new(0.0, 0.0, 800.0, 0.0));
    /// let err = flat.unwrap_err();
    /// assert_eq!(err, QuadtreeError::InvalidWorld(Rect::new(0.0, 0.0, 800.0, 0.0)));
    /// assert!(err.to_string().contains("min (0, 0) and max (800, 0) has no area"));
    /// ```
    pub fn new(world: Rect) -> Result<Self, QuadtreeError> {
        Self::with_config(world, Config::default())
    }

    /// An empty tree over `world` with the given settings.
    ///
    /// # Errors
    /// [`QuadtreeError::InvalidWorld`] for a world [`new`](Self::new) refuses, and the errors
    /// of [`Config::check`]. [`QuadtreeError::Full`] once the process has made `2^64 - 1`
    /// trees (each takes a new id: at one tree a nanosecond, after 584 years).
    ///
    /// ```
    /// use quadstress::{Config, Quadtree, QuadtreeError, Rect};
    /// let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    /// let tree = Quadtree::<u32>::with_config(world, Config { leaf_capacity: 8, max_depth: 4, ..Config::default() }).unwrap();
    /// assert_eq!(tree.config().leaf_capacity, 8);
    /// let deep = Quadtree::<u32>::with_config(world, Config { leaf_capacity: 8, max_depth: 40, ..Config::default() });
    /// assert_eq!(deep.unwrap_err(), QuadtreeError::InvalidMaxDepth(40));
    /// ```
    pub fn with_config(world: Rect, config: Config) -> Result<Self, QuadtreeError> {
        // The width and height must be finite too (two finite edges can be more than
        // `f32::MAX` apart), and the deepest cells' scale `2^MAX_DEPTH / width` must not
        // overflow, or items would map to no cell at all.
        let finest = (1u32 << MAX_DEPTH) as f32;
        let usable = |side: f32| side > 0.0 && side.is_finite() && (finest / side).is_finite();
        if world.check().is_err() || !usable(world.width()) || !usable(world.height()) {
            return Err(QuadtreeError::InvalidWorld(world));
        }
        config.check()?;
        let tree = TreeId::next().ok_or(QuadtreeError::Full)?;
        let mut tree = Quadtree {
            config,
            grid: Grid::new(world, &config),
            nodes: Vec::new(),
            free_blocks: Vec::new(),
            spare_capacity: 0,
            cells: CellTables::new(config.max_depth),
            slots: SlotTable::new(),
            tree,
            ancestors: Vec::new(),
            len: 0,
            scratch: Vec::new(),
            sort_scratch: Vec::new(),
            bulk: bulk::BulkScratch::default(),
        };
        tree.reset_nodes();
        Ok(tree)
    }

    /// An empty tree over `world` with the given settings and room for `n` items: inserting
    /// them one by one never grows the handle table (each growth copies every handle stored so
    /// far), and the node table gets room for as many nodes as evenly spread or clustered items
    /// make. Nodes' item lists still grow as their cells fill, since where the items go is not
    /// known in advance.
    ///
    /// # Errors
    /// As [`with_config`](Self::with_config), and as [`reserve`](Self::reserve) for `n`.
    ///
    /// ```
    /// use quadstress::{Config, Quadtree, QuadtreeError, Rect};
    /// let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    /// let too_many = Quadtree::<u8>::with_capacity(world, Config::default(), usize::MAX);
    /// assert_eq!(too_many.unwrap_err(), QuadtreeError::Full);
    /// let mut tree = Quadtree::with_capacity(world, Config::default(), 10_000).unwrap();
    /// assert!(tree.is_empty() && tree.capacity() >= 10_000);
    /// let room = tree.capacity();
    /// for i in 0..10_000 {
    ///     let (x, y) = ((i % 100) as f32, (i / 100) as f32);
    ///     tree.insert(Rect::from_min_size(x, y, 0.5, 0.5), i).unwrap();
    /// }
    /// assert_eq!(tree.capacity(), room); // nothing grew
    /// ```
    pub fn with_capacity(world: Rect, config: Config, n: usize) -> Result<Self, QuadtreeError> {
        let mut tree = Self::with_config(world, config)?;
        tree.reserve(n)?;
        Ok(tree)
    }

    /// Makes room for `additional` more items than the tree holds, as
    /// [`with_capacity`](Self::with_capacity) does for a new tree: inserting them never grows
    /// the handle table. Slots freed by removals count as room; a slot retired because its
    /// generation ran out (after `2^32 - 1` items lived in it, see [`ItemId`]) does not, and
    /// keeps its place in the table for good.
    ///
    /// # Errors
    /// [`QuadtreeError::Full`] if the tree would then hold more than [`MAX_ITEMS`] items
    /// (retired slots counted as items), and
    /// [`QuadtreeError::OutOfMemory`] if the allocator refuses the tables (never an abort).
    /// The items are unchanged then.
    ///
    /// ```
    /// use quadstress::{Quadtree, QuadtreeError, Rect, MAX_ITEMS};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 10.0, 10.0)).unwrap();
    /// tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 'a').unwrap();
    /// tree.reserve(500).unwrap();
    /// assert!(tree.capacity() >= 501);
    /// assert_eq!(tree.reserve(MAX_ITEMS), Err(QuadtreeError::Full));
    /// assert_eq!(tree.reserve(usize::MAX), Err(QuadtreeError::Full));
    /// assert_eq!(tree.len(), 1);
    /// ```
    pub fn reserve(&mut self, additional: usize) -> Result<(), QuadtreeError> {
        // Retired slots take room in the table for good: they count against `MAX_ITEMS`, and
        // never as room for a new item.
        if (self.len + self.slots.retired())
            .checked_add(additional)
            .is_none_or(|n| n > MAX_ITEMS)
        {
            return Err(QuadtreeError::Full);
        }
        let free = self.slots.len() - self.len - self.slots.retired();
        self.slots
            .try_reserve(additional.saturating_sub(free))
            .map_err(|_| QuadtreeError::OutOfMemory)?;
        // Leaves of evenly spread items end up about half full on average, and there are
        // 4/3 nodes per leaf: under three nodes per `leaf_capacity` items, so four leave a margin,
        // and never more than a full tree of `max_depth`. Adversarial data can need more (a
        // chain of splits that each leave three children empty); the table then grows.
        let items = self.len.saturating_add(additional);
        let full_tree = ((4usize << (2 * self.config.max_depth as usize)) - 1) / 3;
        let nodes = (items / self.config.leaf_capacity)
            .saturating_mul(4)
            .saturating_add(5)
            .min(full_tree);
        self.nodes
            .try_reserve(nodes.saturating_sub(self.nodes.len() + 4 * self.free_blocks.len()))
            .map_err(|_| QuadtreeError::OutOfMemory)
    }

    /// How many items the tree has room for before its handle table must grow, as
    /// [`Vec::capacity`] counts room. The leaf size is [`Config::leaf_capacity`].
    ///
    /// ```
    /// use quadstress::{Config, Quadtree, Rect};
    /// let world = Rect::new(0.0, 0.0, 1.0, 1.0);
    /// let tree = Quadtree::<()>::with_capacity(world, Config::default(), 64).unwrap();
    /// assert!(tree.capacity() >= 64);
    /// ```
    pub fn capacity(&self) -> usize {
        self.slots.capacity() - self.slots.retired()
    }

    /// The world rectangle the tree subdivides.
    ///
    /// ```
    /// let world = quadstress::Rect::new(0.0, 0.0, 8.0, 6.0);
    /// assert_eq!(quadstress::Quadtree::<()>::new(world).unwrap().world(), world);
    /// ```
    pub fn world(&self) -> Rect {
        self.grid.world
    }

    /// The current settings.
    ///
    /// ```
    /// let tree = quadstress::Quadtree::<()>::new(quadstress::Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// assert_eq!(tree.config(), quadstress::Config::default());
    /// ```
    pub fn config(&self) -> Config {
        self.config
    }

    /// Number of items stored.
    ///
    /// ```
    /// let mut tree = quadstress::Quadtree::new(quadstress::Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// tree.insert(quadstress::Rect::new(0.0, 0.0, 0.5, 0.5), 7).unwrap();
    /// assert_eq!(tree.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tree holds no item.
    ///
    /// ```
    /// let tree = quadstress::Quadtree::<()>::new(quadstress::Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// assert!(tree.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Inserts a rectangle with its payload and returns its handle.
    ///
    /// A rectangle partly or wholly outside the world is accepted and kept at the root, where
    /// every query still finds it (and every query and pair search that reaches the root
    /// tests it, as it does the root's other items).
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] or [`QuadtreeError::Inverted`] for a bad rectangle,
    /// [`QuadtreeError::Full`] past `u32::MAX - 1` items. The tree is unchanged then.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let inside = tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 1).unwrap();
    /// let outside = tree.insert(Rect::new(-50.0, -50.0, -40.0, -40.0), 2).unwrap();
    /// assert_eq!(tree.get(outside), Some(&2));
    /// assert_eq!(tree.len(), 2);
    /// # let _ = inside;
    /// ```
    pub fn insert(&mut self, rect: Rect, value: T) -> Result<ItemId, QuadtreeError> {
        rect.check()?;
        let id = self.alloc_slot()?;
        let node = self.node_for(self.place_of(&rect));
        self.attach(
            node,
            rect,
            Entry {
                id: id.key(),
                value,
            },
        );
        self.len += 1;
        self.add_to_path(node, 1);
        self.split_if_full(node);
        Ok(id)
    }

    /// Removes an item and returns its payload, or `None` if the handle is stale.
    /// A stale handle never touches another item.
    ///
    /// ```
    /// let mut tree = quadstress::Quadtree::new(quadstress::Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// let id = tree.insert(quadstress::Rect::new(0.0, 0.0, 0.5, 0.5), 'x').unwrap();
    /// assert_eq!(tree.remove(id), Some('x'));
    /// assert_eq!(tree.remove(id), None);
    /// ```
    pub fn remove(&mut self, id: ItemId) -> Option<T> {
        let slot = self.live_slot(id)?;
        let entry = self.detach(slot.node, slot.pos);
        self.free_slot(id.index);
        self.len -= 1;
        self.add_to_path(slot.node, -1);
        self.merge_if_sparse(slot.node);
        Some(entry.value)
    }

    /// Moves an item to a new rectangle.
    ///
    /// O(1) when the item stays in its node, which is nearly always the case for objects that
    /// move a little each frame. Otherwise the item goes straight to its new node, found by the
    /// same direct computation as [`insert`](Self::insert), and the trees split or merge as
    /// their counts require.
    ///
    /// A new rectangle partly or wholly outside the world is accepted and kept at the root,
    /// as [`insert`](Self::insert) keeps one; moving back inside puts the item where its
    /// rectangle belongs again.
    ///
    /// # Errors
    /// [`QuadtreeError::StaleId`] for a stale handle, and the rectangle errors of
    /// [`insert`](Self::insert). The tree is unchanged then.
    ///
    /// ```
    /// use quadstress::{Quadtree, QuadtreeError, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let id = tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), ()).unwrap();
    /// tree.update(id, Rect::new(90.0, 90.0, 91.0, 91.0)).unwrap();
    /// assert_eq!(tree.rect(id), Some(Rect::new(90.0, 90.0, 91.0, 91.0)));
    /// let inverted = Rect::new(3.0, 0.0, 1.0, 1.0);
    /// assert_eq!(tree.update(id, inverted), Err(QuadtreeError::Inverted(inverted)));
    /// ```
    pub fn update(&mut self, id: ItemId, rect: Rect) -> Result<(), QuadtreeError> {
        // The common case first: a valid rectangle that keeps its item's node and group is
        // written in place, without computing its level or checking it further.
        if let Some(slot) = self.live_slot(id) {
            let inside = self.grid.holds_valid(&rect);
            let node = &self.nodes[slot.node as usize];
            if inside
                && self.still_fits(node, &rect, true)
                && node.items.keeps_group(slot.pos as usize, &rect)
            {
                self.nodes[slot.node as usize]
                    .items
                    .set_rect_in_group(slot.pos as usize, rect);
                return Ok(());
            }
        }
        self.update_across(id, rect)
    }

    /// The rest of [`update`](Self::update): checks, then a move that may change the item's
    /// node or group. Apart, so that the common case stays small.
    #[inline(never)]
    fn update_across(&mut self, id: ItemId, rect: Rect) -> Result<(), QuadtreeError> {
        rect.check()?;
        let slot = self.live_slot(id).ok_or(QuadtreeError::StaleId)?;
        self.move_checked(id.index, slot, rect);
        Ok(())
    }

    /// The move of [`update_across`](Self::update_across) once checked: the item of slot
    /// `index` (whose record is `slot`) to the valid rectangle `rect`.
    pub(super) fn move_checked(&mut self, index: u32, slot: Slot, rect: Rect) {
        let p = self.place_of(&rect);
        let old = slot.node;
        if self.fits(&self.nodes[old as usize], p) {
            self.rewrite(index, old, slot.pos, rect);
            return;
        }
        // The item changes node. The new node cannot be inside a subtree that the merge below
        // collapses: only counters strictly below the common ancestor drop, on the old side.
        let target = self.node_for(p);
        let entry = self.detach(old, slot.pos);
        self.attach(target, rect, entry);
        self.move_count(old, target);
        self.split_if_full(target);
        self.merge_if_sparse(old);
    }

    /// Asks the CPU to bring into its caches what moving the item of slot `index` to `rect`
    /// will touch: where it leaves its list, that list's last entry (which fills the hole),
    /// and the end of the list it will join. A hint only: nothing changes.
    #[inline]
    pub(super) fn prefetch_move(&self, index: u32, rect: &Rect) {
        let Some(slot) = self.slots.get(index as usize) else {
            return;
        };
        if let Some(old) = self.nodes.get(slot.node as usize) {
            old.items.prefetch_at(slot.pos as usize);
            old.items.prefetch_last();
        }
        let target = self.node_for(self.place_of(rect));
        self.nodes[target as usize].items.prefetch_last();
    }

    /// Rewrites the rectangle of the item of slot `index` at `(node, pos)`, which stays in
    /// its node.
    #[inline]
    pub(super) fn rewrite(&mut self, index: u32, node: u32, pos: u32, rect: Rect) {
        let slots = &mut self.slots;
        let at = self.nodes[node as usize]
            .items
            .set_rect(pos as usize, rect, |e, at| {
                slots[e.id.index as usize].pos = at as u32;
            });
        slots[index as usize].pos = at as u32;
    }

    /// Removes every item. All handles become stale; allocations are kept for reuse.
    ///
    /// ```
    /// let mut tree = quadstress::Quadtree::new(quadstress::Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// let id = tree.insert(quadstress::Rect::new(0.0, 0.0, 0.5, 0.5), ()).unwrap();
    /// tree.clear();
    /// assert!(tree.is_empty());
    /// assert!(tree.get(id).is_none());
    /// ```
    pub fn clear(&mut self) {
        for node in &mut self.nodes {
            node.items.clear();
        }
        // Every slot in use moves to its next generation; the free chain is rebuilt in index
        // order.
        let born = self.lineage();
        self.slots.release_all(born);
        self.len = 0;
        self.collapse_all();
        // Node blocks are handed out last-freed first, and each keeps its item lists'
        // allocations. Handing them out lowest index first instead gives a refill that splits
        // in the same order as the fill before it the same lists for the same cells, so the
        // crowded cells get back their large lists rather than regrowing small ones.
        self.free_blocks.sort_unstable_by(|a, b| b.cmp(a));
    }

    /// Sorts the items that cross the centre lines of the internal nodes along the lines
    /// they cross, so that a region query reads only the part of each such list that its
    /// range meets. Each list is sorted in two halves, by the side of the line each item's
    /// middle lies on, so a query beside the line also skips the half on the far side. The
    /// bulk builds ([`insert_many`](Self::insert_many), `par_insert_many`,
    /// [`set_config`](Self::set_config)) end with it, so a tree built in bulk needs no call.
    /// Call it after one-by-one inserts and before many region queries: items inserted or
    /// moved to another node afterwards wait in unsorted tails that every query near the line
    /// scans whole, and items that move within their node keep their place while the sorted
    /// list widens its reach to cover them, so queries near the lines slow down again as items
    /// move far along them. Answers never depend on it. The order it leaves depends only on
    /// the items (the sort keys, ties by their order before), never on timing or threads:
    /// the order of a node's items is also the order in which the pair search reports pairs,
    /// which a simulation may depend on.
    ///
    /// Handles stay valid, and no item moves to another node.
    ///
    /// # Runtime
    /// O(s log s) for the s items kept in internal nodes; lists of fewer than 64 items on
    /// either side are left as they are.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 800.0, 600.0)).unwrap();
    /// for i in 0..1000 {
    ///     // Boxes across the vertical centre line, which all stay at the root.
    ///     let y = i as f32 * 0.5;
    ///     tree.insert(Rect::new(395.0, y, 405.0, y + 2.0), i).unwrap();
    /// }
    /// let query = Rect::new(398.0, 100.0, 402.0, 101.0);
    /// let mut before = Vec::new();
    /// tree.query_in_rect(&query, &mut before).unwrap();
    /// tree.sort_straddlers();
    /// let mut after = Vec::new();
    /// tree.query_in_rect(&query, &mut after).unwrap();
    /// before.sort();
    /// after.sort();
    /// assert_eq!(before, after);
    /// assert_eq!(after.len(), 7); // y from 98 to 101: boxes 196 to 202
    /// ```
    pub fn sort_straddlers(&mut self) {
        self.sort_lists(true);
    }

    /// [`sort_straddlers`](Self::sort_straddlers); with `point` false the slots of the items
    /// that moved are left as they were, for a bulk build that points every slot afterwards
    /// (one scattered write per item fewer).
    pub(super) fn sort_lists(&mut self, point: bool) {
        for n in 0..self.nodes.len() {
            let node = &mut self.nodes[n];
            if node.live && !node.is_leaf() {
                if point {
                    let slots = &mut self.slots;
                    node.items.sort_runs(&mut self.sort_scratch, |e, at| {
                        slots[e.id.index as usize].pos = at as u32;
                    });
                } else {
                    node.items.sort_runs(&mut self.sort_scratch, |_, _| {});
                }
            }
        }
    }

    /// Changes leaf capacity, depth or placement and rebuilds the tree. Every handle stays
    /// valid and every item stays; only the node structure changes.
    ///
    /// # Errors
    /// The errors of [`Config::check`]; the tree is unchanged then.
    ///
    /// ```
    /// use quadstress::{Config, Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    /// let ids: Vec<_> = (0..100)
    ///     .map(|i| tree.insert(Rect::from_min_size(i as f32, 50.0, 0.5, 0.5), i).unwrap())
    ///     .collect();
    /// tree.set_config(Config { leaf_capacity: 4, max_depth: 8, ..Config::default() }).unwrap();
    /// assert_eq!(tree.get(ids[42]), Some(&42));
    /// assert!(tree.stats().deepest_level > 2);
    /// assert!(tree.set_config(Config { leaf_capacity: 0, max_depth: 8, ..Config::default() }).is_err());
    /// ```
    pub fn set_config(&mut self, config: Config) -> Result<(), QuadtreeError> {
        config.check()?;
        // Pull every item up to the root with the old geometry, then place them all again
        // under the new one, keeping their handles.
        self.bulk.clear_items();
        self.stage_stored();
        self.config = config;
        self.reset_nodes();
        self.bulk.reset_cells(config.max_depth);
        self.place_staged(0, |_| unreachable!("every payload is staged"));
        Ok(())
    }

    // ---------------------------------------------------------------- access

    /// The payload of an item, or `None` for a stale handle.
    ///
    /// ```
    /// let mut tree = quadstress::Quadtree::new(quadstress::Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// let id = tree.insert(quadstress::Rect::new(0.0, 0.0, 0.5, 0.5), 5).unwrap();
    /// assert_eq!(tree.get(id), Some(&5));
    /// ```
    pub fn get(&self, id: ItemId) -> Option<&T> {
        let slot = self.live_slot(id)?;
        Some(&self.nodes[slot.node as usize].items[slot.pos as usize].value)
    }

    /// The payload of an item, mutably, or `None` for a stale handle.
    ///
    /// ```
    /// let mut tree = quadstress::Quadtree::new(quadstress::Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// let id = tree.insert(quadstress::Rect::new(0.0, 0.0, 0.5, 0.5), 5).unwrap();
    /// *tree.get_mut(id).unwrap() += 1;
    /// assert_eq!(tree.get(id), Some(&6));
    /// ```
    pub fn get_mut(&mut self, id: ItemId) -> Option<&mut T> {
        let slot = self.live_slot(id)?;
        self.nodes[slot.node as usize]
            .items
            .value_mut(slot.pos as usize)
    }

    /// The rectangle of an item, or `None` for a stale handle.
    ///
    /// ```
    /// use quadstress::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// let id = tree.insert(Rect::new(0.0, 0.0, 0.5, 0.5), ()).unwrap();
    /// assert_eq!(tree.rect(id), Some(Rect::new(0.0, 0.0, 0.5, 0.5)));
    /// ```
    pub fn rect(&self, id: ItemId) -> Option<Rect> {
        let slot = self.live_slot(id)?;
        Some(self.nodes[slot.node as usize].items.rect(slot.pos as usize))
    }

    /// Whether the handle names a live item.
    ///
    /// ```
    /// let mut tree = quadstress::Quadtree::new(quadstress::Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// let id = tree.insert(quadstress::Rect::new(0.0, 0.0, 0.5, 0.5), ()).unwrap();
    /// assert!(tree.contains(id));
    /// tree.remove(id);
    /// assert!(!tree.contains(id));
    /// ```
    pub fn contains(&self, id: ItemId) -> bool {
        self.live_slot(id).is_some()
    }
}

#[cfg(test)]
mod tests {
    use crate::quadtree::{Config, Placement, Quadtree, Rect};

    /// A tree made with room for its items grows neither its handle table nor its node table
    /// while they go in one by one, for even and crowded data, exact and loose.
    #[test]
    fn reserved_trees_do_not_grow_their_tables() {
        for placement in [Placement::Exact, Placement::Loose] {
            for (n, spread) in [(5_000usize, 100.0f32), (20_000, 3.0), (300, 100.0)] {
                let config = Config {
                    leaf_capacity: 8,
                    placement,
                    ..Config::default()
                };
                let world = Rect::new(0.0, 0.0, 100.0, 100.0);
                let mut tree = Quadtree::with_capacity(world, config, n).unwrap();
                let (slots, nodes) = (tree.slots.capacity(), tree.nodes.capacity());
                let mut seed = 1u32;
                for i in 0..n {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    let x = (seed >> 8) as f32 / (1u32 << 24) as f32 * spread;
                    let y = (i as f32 * 0.618).fract() * spread;
                    tree.insert(Rect::from_min_size(x, y, 0.25, 0.25), i)
                        .unwrap();
                }
                assert_eq!(tree.len(), n);
                assert_eq!(
                    (tree.slots.capacity(), tree.nodes.capacity()),
                    (slots, nodes),
                    "{placement:?}, {n} items over {spread}"
                );
                tree.validate().unwrap();
            }
        }
    }

    /// Slots whose generation ran out are retired for good: `reserve` and `capacity` count
    /// no room in them, so inserting what `reserve` made room for never grows the table.
    #[test]
    fn retired_slots_are_no_room() {
        let world = Rect::new(0.0, 0.0, 100.0, 100.0);
        let mut tree = Quadtree::with_capacity(world, Config::default(), 100).unwrap();
        for i in 0..100 {
            tree.insert(Rect::from_min_size(i as f32, 1.0, 0.5, 0.5), i)
                .unwrap();
        }
        // Every slot on its last generation: clearing retires them all.
        for slot in tree.slots.iter_mut() {
            slot.generation = u32::MAX;
        }
        tree.clear();
        tree.validate().unwrap();
        tree.reserve(100).unwrap();
        let room = tree.capacity();
        assert!(room >= 100, "capacity {room} after reserve(100)");
        let table = tree.slots.capacity();
        for i in 0..100 {
            tree.insert(Rect::from_min_size(i as f32, 1.0, 0.5, 0.5), i)
                .unwrap();
        }
        assert_eq!(
            tree.slots.capacity(),
            table,
            "inserting the 100 items reserve(100) made room for grew the handle table"
        );
        assert_eq!(tree.capacity(), room);
        tree.validate().unwrap();
    }
}
