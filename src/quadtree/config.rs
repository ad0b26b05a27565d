//! Tuning: [`Config`] (leaf capacity, depth limit, placement) and the limits it is checked
//! against.

use super::QuadtreeError;

/// The deepest `max_depth` a tree accepts. Cell coordinates at the deepest level are
/// `max_depth`-bit integers and each level has a dense lookup table of `4^level` entries,
/// so depth 10 costs at most about 5.6 MB of tables (allocated only for levels in use).
pub const MAX_DEPTH: u8 = 10;

/// The most items a tree holds: handles index a `u32` table whose top values are reserved.
/// An insertion past it is refused with [`QuadtreeError::Full`].
pub const MAX_ITEMS: usize = u32::MAX as usize - 1;

/// The largest [`Config::leaf_capacity`] a tree accepts.
pub const MAX_LEAF_CAPACITY: usize = 1 << 20;

/// How an item's node is chosen. Both keep every item exactly once and answer every query
/// exactly; they differ in which items a query has to look at.
///
/// ```
/// use quadstress::{Config, Placement, Quadtree, Rect};
/// let world = Rect::new(0.0, 0.0, 800.0, 600.0);
/// let at_root = |placement| {
///     let config = Config { leaf_capacity: 1, placement, ..Config::default() };
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
    /// The smallest node whose cell contains the item. An item that crosses a
    /// cell line of a large node stays in that node however small it is: with many items,
    /// about `2 * item side / world side` of them sit at the root. Best for all-pairs
    /// searches of small items: a pair can only be found between a node and its subtree.
    #[default]
    Exact,
    /// A loose quadtree: each node's region is its cell enlarged by half a cell on every
    /// side, and an item goes to the deepest node whose cell holds its centre and whose
    /// region holds the item, so its level depends on its size only, never on where it
    /// falls. Region queries look at far fewer items when items are large compared with the
    /// finest cells; pair searches must also look at neighbouring
    /// nodes of the same level.
    Loose,
}

/// Tuning of a [`Quadtree`](super::Quadtree).
///
/// ```
/// let config = quadstress::Config::default();
/// assert_eq!((config.leaf_capacity, config.max_depth), (32, 6));
/// assert_eq!(config.placement, quadstress::Placement::Exact);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Items a leaf holds before it splits into four children. Default 32. Not to be
    /// confused with [`Quadtree::capacity`](super::Quadtree::capacity), the room for items
    /// before the handle table grows.
    pub leaf_capacity: usize,
    /// Depth of the deepest allowed node (the root has depth 0). Default 6.
    /// A leaf at this depth never splits and keeps whatever lands in it.
    pub max_depth: u8,
    /// Exact (default) or loose nodes; see [`Placement`].
    pub placement: Placement,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            leaf_capacity: 32,
            max_depth: 6,
            placement: Placement::Exact,
        }
    }
}

impl Config {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`QuadtreeError::InvalidLeafCapacity`] unless `1 <= leaf_capacity <= MAX_LEAF_CAPACITY`,
    /// [`QuadtreeError::InvalidMaxDepth`] if `max_depth > MAX_DEPTH`.
    ///
    /// ```
    /// use quadstress::{Config, QuadtreeError};
    /// let bad = Config { leaf_capacity: 0, max_depth: 6, ..Config::default() };
    /// assert_eq!(bad.check(), Err(QuadtreeError::InvalidLeafCapacity(0)));
    /// assert!(Config::default().check().is_ok());
    /// ```
    pub fn check(&self) -> Result<(), QuadtreeError> {
        if self.leaf_capacity == 0 || self.leaf_capacity > MAX_LEAF_CAPACITY {
            return Err(QuadtreeError::InvalidLeafCapacity(self.leaf_capacity));
        }
        if self.max_depth > MAX_DEPTH {
            return Err(QuadtreeError::InvalidMaxDepth(self.max_depth));
        }
        Ok(())
    }
}
