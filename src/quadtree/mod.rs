//! The dynamic quadtree: node arena, placement, insertion, removal, moving items.
//!
//! Submodules hold the read side: `query` (rectangle, point, circle, nearest),
//! `pairs` (all intersecting pairs), `walk` (node walk, statistics, iteration) and
//! `validate` (the invariant check).

mod bulk;
mod error;
mod geom;
mod items;
mod pairs;
mod query;
mod validate;
mod walk;

use items::ItemList;

pub use error::QuadtreeError;
pub use geom::Rect;
pub use validate::InvariantError;
pub use walk::{Iter, NodeInfo, Nodes, TreeStats};

/// The deepest `max_depth` a tree accepts. Cell coordinates at the deepest level are
/// `max_depth`-bit integers and each level has a dense lookup table of `4^level` entries,
/// so depth 10 costs at most about 5.6 MB of tables (allocated only for levels in use).
pub const MAX_DEPTH: u8 = 10;

/// The largest `capacity` a tree accepts.
pub const MAX_CAPACITY: usize = 1 << 20;

/// Largest item-list reservation made for a new node; see `alloc_children`.
const LIST_RESERVE_CAP: usize = 255;

/// Null sentinel for node and slot links.
const NULL: u32 = u32::MAX;

/// `Slot::node` of a slot whose generation ran out: never handed out again.
const RETIRED: u32 = u32::MAX - 1;

/// How an item's node is chosen. Both keep every item exactly once and answer every query
/// exactly; they differ in which items a query has to look at.
///
/// ```
/// use quadstress::{Config, Placement, Quadtree, Rect};
/// let world = Rect::new(0.0, 0.0, 800.0, 600.0);
/// let at_root = |placement| {
///     let config = Config { capacity: 1, placement, ..Config::default() };
///     let mut tree = Quadtree::with_config(world, config).unwrap();
///     tree.insert(Rect::new(10.0, 10.0, 20.0, 20.0), ()).unwrap();
///     // Small, but crosses both centre lines.
///     tree.insert(Rect::new(390.0, 290.0, 410.0, 310.0), ()).unwrap();
///     tree.validate().unwrap();
///     tree.stats().items_at_root
/// };
/// assert_eq!(at_root(Placement::Exact), 1);
/// assert_eq!(at_root(Placement::Loose), 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Placement {
    /// The smallest node whose cell contains the item (seed 001). An item that crosses a
    /// cell line of a large node stays in that node however small it is: with many items,
    /// about `2 * item side / world side` of them sit at the root. Best for all-pairs
    /// searches of small items: a pair can only be found between a node and its subtree.
    #[default]
    Exact,
    /// A loose quadtree: each node's region is its cell enlarged by half a cell on every
    /// side, and an item goes to the deepest node whose cell holds its centre and whose
    /// region holds the item, so its level depends on its size only, never on where it
    /// falls. Region queries look at far fewer items when items are large compared with the
    /// finest cells (seed 004's 32x32 boxes); pair searches must also look at neighbouring
    /// nodes of the same level.
    Loose,
}

/// Tuning of a [`Quadtree`].
///
/// ```
/// let config = quadstress::Config::default();
/// assert_eq!((config.capacity, config.max_depth), (32, 6));
/// assert_eq!(config.placement, quadstress::Placement::Exact);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Items a leaf holds before it splits into four children. Default 32.
    pub capacity: usize,
    /// Depth of the deepest allowed node (the root has depth 0). Default 6.
    /// A leaf at this depth never splits and keeps whatever lands in it.
    pub max_depth: u8,
    /// Exact (default) or loose nodes; see [`Placement`].
    pub placement: Placement,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            capacity: 32,
            max_depth: 6,
            placement: Placement::Exact,
        }
    }
}

impl Config {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`QuadtreeError::InvalidCapacity`] unless `1 <= capacity <= MAX_CAPACITY`,
    /// [`QuadtreeError::InvalidMaxDepth`] if `max_depth > MAX_DEPTH`.
    ///
    /// ```
    /// use quadstress::{Config, QuadtreeError};
    /// let bad = Config { capacity: 0, max_depth: 6, ..Config::default() };
    /// assert_eq!(bad.check(), Err(QuadtreeError::InvalidCapacity(0)));
    /// assert!(Config::default().check().is_ok());
    /// ```
    pub fn check(&self) -> Result<(), QuadtreeError> {
        if self.capacity == 0 || self.capacity > MAX_CAPACITY {
            return Err(QuadtreeError::InvalidCapacity(self.capacity));
        }
        if self.max_depth > MAX_DEPTH {
            return Err(QuadtreeError::InvalidMaxDepth(self.max_depth));
        }
        Ok(())
    }
}

/// A handle to an item of a [`Quadtree`]: a slot index plus a generation.
///
/// Handles stay valid while the item lives, whatever moves, splits, merges or
/// [`Quadtree::set_config`] rebuilds happen. Once the item is removed (or the tree cleared)
/// the slot's generation moves on, so the old handle is recognised as stale and can never
/// reach an item inserted later into the same slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemId {
    index: u32,
    generation: u32,
}

impl ItemId {
    /// The slot index: dense, below the largest number of items ever held at once.
    /// Useful to index side tables.
    ///
    /// ```
    /// let mut tree = quadstress::Quadtree::new(quadstress::Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    /// let id = tree.insert(quadstress::Rect::new(0.0, 0.0, 0.1, 0.1), ()).unwrap();
    /// assert_eq!(id.index(), 0);
    /// ```
    pub fn index(self) -> u32 {
        self.index
    }
}

/// What a query hands its callback: the handle, the stored rectangle and the payload.
#[derive(Debug)]
pub struct ItemRef<'a, T> {
    /// The item's handle.
    pub id: ItemId,
    /// The item's rectangle.
    pub rect: Rect,
    /// The item's payload.
    pub value: &'a T,
}

impl<T> Clone for ItemRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ItemRef<'_, T> {}

/// One stored item, kept inside its node's list so that queries scan contiguous memory. Its
/// rectangle lives beside it, in the list's blocks.
#[derive(Debug)]
struct Entry<T> {
    id: ItemId,
    value: T,
}

/// Where an item lives; the free list of slots is threaded through `pos`.
#[derive(Clone, Copy, Debug)]
struct Slot {
    generation: u32,
    /// Node holding the item; NULL when the slot is free, RETIRED when it is out of use.
    node: u32,
    /// Index in the node's list, or the next free slot when the slot is free.
    pos: u32,
}

/// A node of the arena. Children are allocated as a block of four consecutive nodes, so a
/// node needs one link to reach all of them; quadrant `q` is `first_child + q` with
/// `q = (x bit) | (y bit) << 1`.
#[derive(Debug)]
struct Node<T> {
    parent: u32,
    /// First of four children, or NULL for a leaf.
    first_child: u32,
    level: u8,
    /// False while the node sits in the free list.
    live: bool,
    /// Cell coordinates at `level`.
    cx: u32,
    cy: u32,
    /// Items in this node and all its descendants: drives merging.
    subtree_len: u32,
    items: ItemList<T>,
}

impl<T> Node<T> {
    fn new(parent: u32, level: u8, cx: u32, cy: u32) -> Self {
        Node {
            parent,
            first_child: NULL,
            level,
            live: true,
            cx,
            cy,
            subtree_len: 0,
            items: ItemList::default(),
        }
    }

    fn is_leaf(&self) -> bool {
        self.first_child == NULL
    }
}

/// Ends the life of an item's slot: the next generation makes old handles stale. A slot whose
/// generation would wrap is retired instead, so no handle can ever come back to life. Returns
/// whether the slot may be reused (the caller threads it into the free chain).
fn end_generation(slot: &mut Slot) -> bool {
    if slot.generation == u32::MAX {
        slot.node = RETIRED;
        slot.pos = NULL;
        return false;
    }
    slot.node = NULL;
    slot.generation += 1;
    true
}

/// The node a rectangle belongs to, before looking at which nodes exist: the smallest cell of
/// the full quadtree (down to `max_depth`) that contains it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    level: u8,
    cx: u32,
    cy: u32,
}

/// Inclusive integer cell range at the deepest level: the pruning key of every query.
#[derive(Clone, Copy, Debug)]
struct CellRange {
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

/// A dynamic 2D quadtree of axis-aligned rectangles with a payload `T`.
///
/// Built for many moving objects (particles, bullets, units): insertion, removal and moves
/// are O(1) apart from the occasional split or merge, and a move that stays in its node is
/// a handful of integer operations.
///
/// # Usage
/// ```
/// use quadstress::{Quadtree, Rect};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 800.0, 600.0)).unwrap();
/// let a = tree.insert(Rect::from_min_size(10.0, 10.0, 8.0, 8.0), "a").unwrap();
/// let b = tree.insert(Rect::from_min_size(15.0, 15.0, 8.0, 8.0), "b").unwrap();
/// tree.update(b, Rect::from_min_size(400.0, 300.0, 8.0, 8.0)).unwrap();
///
/// let mut hits = Vec::new();
/// tree.query_rect(&Rect::new(0.0, 0.0, 100.0, 100.0), &mut hits).unwrap();
/// assert_eq!(hits, vec![a]);
/// assert_eq!(tree.remove(a), Some("a"));
/// assert_eq!(tree.remove(a), None); // stale handle: nothing else is touched
/// ```
///
/// # Placement
/// Each item is stored exactly once, in the smallest existing node whose cell contains its
/// rectangle. The level and cell are computed directly, without descending from the root:
/// the rectangle's edges are mapped to integer cell coordinates at `max_depth`, and the
/// highest bit set in `(x0 ^ x1) | (y0 ^ y1)` says how many levels above the bottom the two
/// edges first share a cell (seed 002's "instant insertion" trick). A dense table per level
/// then names the node of that cell, if it exists.
///
/// With [`Placement::Loose`] in the [`Config`], nodes reach half a cell beyond their cells and
/// an item's level follows from its size alone (its node is the one holding its centre), so
/// no small item is stuck at the root for crossing a centre line.
///
/// Items partly or wholly outside the world rectangle are kept at the root, and every query
/// still finds them.
///
/// # Runtime
/// With `D = max_depth`, `c = capacity`:
/// - `insert`, `remove`: O(D) (counters along the path to the root) plus O(c) for a split
///   or merge when one happens;
/// - `update` within the same node: O(1); to another node: as remove plus insert, without
///   any search;
/// - queries: O(D + k) node visits for a small query region, where k is the items found,
///   plus the items held in the visited nodes;
/// - `for_each_pair`: each node's items against each other and against the overlapping
///   items below them.
///
/// Nothing recurses: every walk uses an explicit stack of at most `4 * MAX_DEPTH + 4`
/// entries held on the call stack, so queries allocate nothing.
///
/// # Caveats
/// - Rectangles straddling the lines of large cells stay high in the tree, as in every
///   "smallest containing node" quadtree: a rectangle crossing the world's centre lines sits
///   at the root and is tested by every pair search that reaches it.
/// - Coordinates are `f32`; a world far from the origin loses precision like any `f32` data.
#[derive(Debug)]
pub struct Quadtree<T> {
    world: Rect,
    config: Config,
    /// Deepest-level cells per world unit, per axis.
    scale_x: f32,
    scale_y: f32,
    /// Largest cell coordinate at the deepest level: `2^max_depth - 1`.
    max_cell: u32,
    /// All ones under loose placement, zero under exact: masks `loose_margin`.
    loose_mask: u32,
    nodes: Vec<Node<T>>,
    /// First nodes of freed child blocks, ready for reuse.
    free_blocks: Vec<u32>,
    /// Per level, the node of every cell (NULL where none exists); allocated on first use.
    level_tables: Vec<Vec<u32>>,
    /// Live nodes per level, to know the deepest level in use.
    nodes_per_level: [u32; MAX_DEPTH as usize + 1],
    deepest: u8,
    slots: Vec<Slot>,
    free_slot: u32,
    len: usize,
    /// Reused work list for splits, merges and bulk placement.
    scratch: Vec<u32>,
    bulk: bulk::BulkScratch<T>,
}

impl<T> Quadtree<T> {
    /// An empty tree over `world` with the default [`Config`] (capacity 32, depth 6).
    ///
    /// # Errors
    /// [`QuadtreeError::InvalidWorld`] if `world` is not finite or has no area.
    ///
    /// ```
    /// use quadstress::{Quadtree, QuadtreeError, Rect};
    /// assert!(Quadtree::<()>::new(Rect::new(0.0, 0.0, 800.0, 600.0)).is_ok());
    /// let flat = Quadtree::<()>::new(Rect::new(0.0, 0.0, 800.0, 0.0));
    /// assert_eq!(flat.unwrap_err(), QuadtreeError::InvalidWorld);
    /// ```
    pub fn new(world: Rect) -> Result<Self, QuadtreeError> {
        Self::with_config(world, Config::default())
    }

    /// An empty tree over `world` with the given settings.
    ///
    /// # Errors
    /// [`QuadtreeError::InvalidWorld`] for a degenerate world, and the errors of
    /// [`Config::check`].
    ///
    /// ```
    /// use quadstress::{Config, Quadtree, QuadtreeError, Rect};
    /// let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    /// let tree = Quadtree::<u32>::with_config(world, Config { capacity: 8, max_depth: 4, ..Config::default() }).unwrap();
    /// assert_eq!(tree.config().capacity, 8);
    /// let deep = Quadtree::<u32>::with_config(world, Config { capacity: 8, max_depth: 40, ..Config::default() });
    /// assert_eq!(deep.unwrap_err(), QuadtreeError::InvalidMaxDepth(40));
    /// ```
    pub fn with_config(world: Rect, config: Config) -> Result<Self, QuadtreeError> {
        if world.check().is_err() || world.width() <= 0.0 || world.height() <= 0.0 {
            return Err(QuadtreeError::InvalidWorld);
        }
        config.check()?;
        let mut tree = Quadtree {
            world,
            config,
            scale_x: 0.0,
            scale_y: 0.0,
            max_cell: 0,
            loose_mask: 0,
            nodes: Vec::new(),
            free_blocks: Vec::new(),
            level_tables: Vec::new(),
            nodes_per_level: [0; MAX_DEPTH as usize + 1],
            deepest: 0,
            slots: Vec::new(),
            free_slot: NULL,
            len: 0,
            scratch: Vec::new(),
            bulk: bulk::BulkScratch::default(),
        };
        tree.reset_nodes();
        Ok(tree)
    }

    /// Drops every node and puts an empty root back, with the scales of the current config.
    fn reset_nodes(&mut self) {
        let cells = (1u32 << self.config.max_depth) as f32;
        self.scale_x = cells / self.world.width();
        self.scale_y = cells / self.world.height();
        self.max_cell = (1u32 << self.config.max_depth) - 1;
        self.loose_mask = match self.config.placement {
            Placement::Exact => 0,
            Placement::Loose => u32::MAX,
        };
        self.nodes.clear();
        self.free_blocks.clear();
        self.level_tables.clear();
        self.level_tables
            .resize_with(self.config.max_depth as usize + 1, Vec::new);
        self.level_tables[0] = vec![0];
        self.nodes_per_level = [0; MAX_DEPTH as usize + 1];
        self.nodes_per_level[0] = 1;
        self.deepest = 0;
        self.nodes.push(Node::new(NULL, 0, 0, 0));
    }

    /// The world rectangle the tree subdivides.
    ///
    /// ```
    /// let world = quadstress::Rect::new(0.0, 0.0, 8.0, 6.0);
    /// assert_eq!(quadstress::Quadtree::<()>::new(world).unwrap().world(), world);
    /// ```
    pub fn world(&self) -> Rect {
        self.world
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

    // ---------------------------------------------------------------- placement

    /// Deepest-level cell coordinate of `x`. The mapping is monotone (subtract, multiply by a
    /// positive constant, truncate, clamp), which is what makes integer pruning exact:
    /// `a <= b` implies `cell(a) <= cell(b)`, so rectangles that overlap in `f32` also overlap
    /// as cell ranges. The `as u32` cast saturates, so points left of the world map to 0.
    #[inline]
    fn cell_x(&self, x: f32) -> u32 {
        (((x - self.world.min_x) * self.scale_x) as u32).min(self.max_cell)
    }

    #[inline]
    fn cell_y(&self, y: f32) -> u32 {
        (((y - self.world.min_y) * self.scale_y) as u32).min(self.max_cell)
    }

    #[inline]
    fn cell_range(&self, r: &Rect) -> CellRange {
        CellRange {
            x0: self.cell_x(r.min_x),
            y0: self.cell_y(r.min_y),
            x1: self.cell_x(r.max_x),
            y1: self.cell_y(r.max_y),
        }
    }

    /// The level and cell a rectangle belongs to in the full tree, by the XOR / highest-bit
    /// trick: the number of significant bits of `x0 ^ x1` is the number of levels, counted
    /// from the bottom, that the two edges spend in different cells.
    #[inline]
    fn place_of(&self, r: &Rect) -> Place {
        if !self.world.contains_rect(r) {
            return Place {
                level: 0,
                cx: 0,
                cy: 0,
            };
        }
        let c = self.cell_range(r);
        if self.config.placement == Placement::Loose {
            return self.loose_place_of(c);
        }
        let bits = 32 - ((c.x0 ^ c.x1) | (c.y0 ^ c.y1)).leading_zeros();
        Place {
            level: self.config.max_depth - bits as u8,
            cx: c.x0 >> bits,
            cy: c.y0 >> bits,
        }
    }

    /// Loose placement, in integer cells so that queries can prune exactly: a node `2^k`
    /// deepest cells wide reaches `loose_margin` cells beyond its cell on each side, so an
    /// item whose cell span is at most `2^k` (k >= 1) fits the node of its middle cell; at the
    /// deepest level (k = 0) the margin is zero and only single-cell items fit.
    #[inline]
    fn loose_place_of(&self, c: CellRange) -> Place {
        let span = (c.x1 - c.x0).max(c.y1 - c.y0);
        let k = if span == 0 {
            0
        } else {
            (32 - (span - 1).leading_zeros()).max(1)
        };
        if k > self.config.max_depth as u32 {
            return Place {
                level: 0,
                cx: 0,
                cy: 0,
            };
        }
        Place {
            level: self.config.max_depth - k as u8,
            cx: ((c.x0 + c.x1) >> 1) >> k,
            cy: ((c.y0 + c.y1) >> 1) >> k,
        }
    }

    /// How many deepest-level cells a node `2^shift` cells wide reaches beyond its own cell on
    /// each side: half a cell under loose placement, nothing under exact placement.
    #[inline]
    fn loose_margin(&self, shift: u8) -> u32 {
        ((1u32 << shift) >> 1) & self.loose_mask
    }

    /// The node that must hold an item of place `p`: the deepest existing node on the path to
    /// `p`'s cell at a level no deeper than `p.level`. Existence is monotone along a path
    /// (children come in blocks of four), so the first table hit from below is the deepest.
    #[inline]
    fn node_for(&self, p: Place) -> u32 {
        let mut level = p.level.min(self.deepest);
        loop {
            let shift = p.level - level;
            let table = &self.level_tables[level as usize];
            if !table.is_empty() {
                let idx = ((p.cy >> shift) << level | (p.cx >> shift)) as usize;
                let node = table[idx];
                if node != NULL {
                    return node;
                }
            }
            // Level 0 always holds the root, so this never underflows.
            level -= 1;
        }
    }

    /// Whether an item of place `p` belongs in `node` as the tree stands.
    #[inline]
    fn fits(&self, node: &Node<T>, p: Place) -> bool {
        if p.level < node.level {
            return false;
        }
        let shift = p.level - node.level;
        (p.cx >> shift) == node.cx
            && (p.cy >> shift) == node.cy
            && (node.is_leaf() || p.level == node.level)
    }

    // ---------------------------------------------------------------- slots

    #[inline]
    fn live_slot(&self, id: ItemId) -> Option<Slot> {
        let slot = *self.slots.get(id.index as usize)?;
        (slot.generation == id.generation && slot.node < RETIRED).then_some(slot)
    }

    fn alloc_slot(&mut self) -> Result<ItemId, QuadtreeError> {
        if self.free_slot != NULL {
            let index = self.free_slot;
            let slot = &mut self.slots[index as usize];
            self.free_slot = slot.pos;
            return Ok(ItemId {
                index,
                generation: slot.generation,
            });
        }
        if self.slots.len() >= (NULL - 1) as usize {
            return Err(QuadtreeError::Full);
        }
        self.slots.push(Slot {
            generation: 0,
            node: NULL,
            pos: NULL,
        });
        Ok(ItemId {
            index: self.slots.len() as u32 - 1,
            generation: 0,
        })
    }

    fn free_slot(&mut self, index: u32) {
        if end_generation(&mut self.slots[index as usize]) {
            self.slots[index as usize].pos = self.free_slot;
            self.free_slot = index;
        }
    }

    // ---------------------------------------------------------------- node arena

    /// Adds `delta` to the subtree counters from `node` up to the root (at most `max_depth + 1`
    /// steps).
    #[inline]
    fn add_to_path(&mut self, mut node: u32, delta: i32) {
        while node != NULL {
            let n = &mut self.nodes[node as usize];
            n.subtree_len = n.subtree_len.wrapping_add_signed(delta);
            node = n.parent;
        }
    }

    /// Gives `parent` four empty children and registers them in their level's table.
    fn alloc_children(&mut self, parent: u32) -> u32 {
        let (level, pcx, pcy) = {
            let p = &self.nodes[parent as usize];
            (p.level + 1, p.cx, p.cy)
        };
        let first = match self.free_blocks.pop() {
            Some(first) => first,
            None => {
                let first = self.nodes.len() as u32;
                for _ in 0..4 {
                    self.nodes.push(Node::new(NULL, 0, 0, 0));
                }
                first
            }
        };
        if self.level_tables[level as usize].is_empty() {
            self.level_tables[level as usize] = vec![NULL; 1usize << (2 * level as usize)];
        }
        for q in 0..4u32 {
            let (cx, cy) = (2 * pcx + (q & 1), 2 * pcy + (q >> 1));
            let n = &mut self.nodes[(first + q) as usize];
            // Reuse the item list's allocation: freed nodes keep their capacity.
            let mut items = std::mem::take(&mut n.items);
            // Room for a full leaf plus the item that splits it, so that merges and splits
            // in steady state reuse these lists instead of regrowing them. Capped so that a
            // huge `capacity` does not reserve memory for every node.
            items.reserve(self.config.capacity.min(LIST_RESERVE_CAP) + 1);
            *n = Node::new(parent, level, cx, cy);
            n.items = items;
            self.level_tables[level as usize][((cy << level) | cx) as usize] = first + q;
        }
        self.nodes[parent as usize].first_child = first;
        self.nodes_per_level[level as usize] += 4;
        self.deepest = self.deepest.max(level);
        first
    }

    /// Returns a block of four (already emptied, childless) nodes to the free list.
    fn free_children(&mut self, first: u32) {
        let level = self.nodes[first as usize].level;
        for q in 0..4 {
            let n = &mut self.nodes[(first + q) as usize];
            debug_assert!(n.items.is_empty() && n.is_leaf());
            n.live = false;
            n.parent = NULL;
            let idx = ((n.cy << level) | n.cx) as usize;
            self.level_tables[level as usize][idx] = NULL;
        }
        self.nodes_per_level[level as usize] -= 4;
        while self.deepest > 0 && self.nodes_per_level[self.deepest as usize] == 0 {
            self.deepest -= 1;
        }
        self.free_blocks.push(first);
    }

    /// Splits `start` if it is an overfull leaf, and then any child that is overfull in turn.
    /// Inlined check first: nearly every insert finds nothing to split.
    #[inline]
    fn split_if_full(&mut self, start: u32) {
        let node = &self.nodes[start as usize];
        if node.items.len() > self.config.capacity && node.is_leaf() {
            self.split_cascade(start);
        }
    }

    fn split_cascade(&mut self, start: u32) {
        let cap = self.config.capacity;
        self.scratch.clear();
        self.scratch.push(start);
        while let Some(n) = self.scratch.pop() {
            let node = &self.nodes[n as usize];
            if !node.is_leaf() || node.items.len() <= cap || node.level >= self.config.max_depth {
                continue;
            }
            let level = node.level;
            let first = self.alloc_children(n);
            // Stage 1: move every item that fits below this node into its child quadrant;
            // items whose place is this level stay (swap_remove keeps this O(len)).
            let mut items = std::mem::take(&mut self.nodes[n as usize].items);
            let mut i = 0;
            while i < items.len() {
                let p = self.place_of(&items.rect(i));
                if p.level == level {
                    self.slots[items[i].id.index as usize].pos = i as u32;
                    i += 1;
                    continue;
                }
                let shift = p.level - level - 1;
                let q = ((p.cx >> shift) & 1) | (((p.cy >> shift) & 1) << 1);
                let child = first + q;
                let (rect, entry) = items.swap_remove(i);
                let c = &mut self.nodes[child as usize];
                self.slots[entry.id.index as usize].node = child;
                self.slots[entry.id.index as usize].pos = c.items.len() as u32;
                c.items.push(rect, entry);
                c.subtree_len += 1;
            }
            self.nodes[n as usize].items = items;
            // Stage 2: a child that received more than `capacity` splits next.
            for q in 0..4 {
                if self.nodes[(first + q) as usize].items.len() > cap {
                    self.scratch.push(first + q);
                }
            }
        }
    }

    /// After items left `from`'s subtree: collapses the highest node on the path to the root
    /// that is internal yet holds no more than `capacity` items below it.
    fn merge_if_sparse(&mut self, from: u32) {
        let cap = self.config.capacity as u32;
        let mut target = NULL;
        let mut n = from;
        while n != NULL {
            let node = &self.nodes[n as usize];
            if !node.is_leaf() && node.subtree_len <= cap {
                target = n;
            }
            n = node.parent;
        }
        if target != NULL {
            self.collapse(target);
        }
    }

    /// Pulls every item below `target` up into it and frees all its descendants.
    fn collapse(&mut self, target: u32) {
        let mut items = std::mem::take(&mut self.nodes[target as usize].items);
        self.scratch.clear();
        self.scratch.push(self.nodes[target as usize].first_child);
        self.nodes[target as usize].first_child = NULL;
        while let Some(first) = self.scratch.pop() {
            for q in 0..4 {
                let c = (first + q) as usize;
                if !self.nodes[c].is_leaf() {
                    self.scratch.push(self.nodes[c].first_child);
                    self.nodes[c].first_child = NULL;
                }
                let slots = &mut self.slots;
                items.append_from(&mut self.nodes[c].items, |entry, pos| {
                    let slot = &mut slots[entry.id.index as usize];
                    slot.node = target;
                    slot.pos = pos as u32;
                });
            }
            self.free_children(first);
        }
        self.nodes[target as usize].items = items;
    }

    /// Removes the entry at `(node, pos)` from its list, fixing the slot of the entry that
    /// takes its place. Counters are the caller's business.
    fn detach(&mut self, node: u32, pos: u32) -> Entry<T> {
        let items = &mut self.nodes[node as usize].items;
        let (_, entry) = items.swap_remove(pos as usize);
        if let Some(moved) = items.get(pos as usize) {
            self.slots[moved.id.index as usize].pos = pos;
        }
        entry
    }

    /// Appends an entry to `node` and points its slot there.
    fn attach(&mut self, node: u32, rect: Rect, entry: Entry<T>) {
        let items = &mut self.nodes[node as usize].items;
        let slot = &mut self.slots[entry.id.index as usize];
        slot.node = node;
        slot.pos = items.len() as u32;
        items.push(rect, entry);
    }

    // ---------------------------------------------------------------- mutation

    /// Inserts a rectangle with its payload and returns its handle.
    ///
    /// A rectangle partly or wholly outside the world is kept at the root.
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
        self.attach(node, rect, Entry { id, value });
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
    /// assert_eq!(tree.update(id, Rect::new(3.0, 0.0, 1.0, 1.0)), Err(QuadtreeError::Inverted));
    /// ```
    pub fn update(&mut self, id: ItemId, rect: Rect) -> Result<(), QuadtreeError> {
        rect.check()?;
        let slot = self.live_slot(id).ok_or(QuadtreeError::StaleId)?;
        let p = self.place_of(&rect);
        let old = slot.node;
        if self.fits(&self.nodes[old as usize], p) {
            self.nodes[old as usize]
                .items
                .set_rect(slot.pos as usize, rect);
            return Ok(());
        }
        // The item changes node. The new node cannot be inside a subtree that the merge below
        // collapses: only counters strictly below the common ancestor drop, on the old side.
        let target = self.node_for(p);
        let entry = self.detach(old, slot.pos);
        self.attach(target, rect, entry);
        self.add_to_path(target, 1);
        self.add_to_path(old, -1);
        self.split_if_full(target);
        self.merge_if_sparse(old);
        Ok(())
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
        // Every slot in use moves to its next generation. The free chain is then rebuilt in
        // index order: handing slots out in the order items were stored would scatter the
        // next fill across the slot table (measured 2.5x slower refills).
        self.free_slot = NULL;
        for index in (0..self.slots.len()).rev() {
            let slot = &mut self.slots[index];
            let reusable = match slot.node {
                RETIRED => false,
                NULL => true,
                _ => end_generation(slot),
            };
            if reusable {
                slot.pos = self.free_slot;
                self.free_slot = index as u32;
            }
        }
        self.len = 0;
        self.collapse_all();
        // Node blocks are handed out last-freed first, and each keeps its item lists'
        // allocations. Handing them out lowest index first instead gives a refill that splits
        // in the same order as the fill before it the same lists for the same cells, so the
        // crowded cells get back their large lists rather than regrowing small ones.
        self.free_blocks.sort_unstable_by(|a, b| b.cmp(a));
    }

    /// Frees every node but the root, keeping item lists' allocations.
    fn collapse_all(&mut self) {
        if !self.nodes[0].is_leaf() {
            self.collapse(0);
        }
        self.nodes[0].subtree_len = self.nodes[0].items.len() as u32;
    }

    /// Changes capacity and depth and rebuilds the tree. Every handle stays valid and every
    /// item stays; only the node structure changes.
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
    /// tree.set_config(Config { capacity: 4, max_depth: 8, ..Config::default() }).unwrap();
    /// assert_eq!(tree.get(ids[42]), Some(&42));
    /// assert!(tree.stats().deepest_level > 2);
    /// assert!(tree.set_config(Config { capacity: 0, max_depth: 8, ..Config::default() }).is_err());
    /// ```
    pub fn set_config(&mut self, config: Config) -> Result<(), QuadtreeError> {
        config.check()?;
        // Pull every item up to the root with the old geometry, then place them all again
        // under the new one, keeping their handles.
        self.collapse_all();
        let mut all = std::mem::take(&mut self.nodes[0].items);
        self.config = config;
        self.reset_nodes();
        all.move_into(&mut self.bulk.staging);
        self.place_staged();
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
