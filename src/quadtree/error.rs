//! The one error type of the tree.

use std::fmt;

/// Everything the tree refuses. A refused call leaves the tree exactly as it was.
///
/// ```
/// use quadstress::{Quadtree, QuadtreeError, Rect};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
/// let err = tree.insert(Rect::new(0.0, 0.0, f32::INFINITY, 1.0), ()).unwrap_err();
/// assert_eq!(err, QuadtreeError::NonFinite);
/// assert!(tree.is_empty());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuadtreeError {
    /// A coordinate, radius or point was NaN or infinite.
    NonFinite,
    /// A rectangle had `min > max` on some axis.
    Inverted,
    /// A negative circle radius.
    NegativeRadius,
    /// The world rectangle is not finite, has zero or negative width or height, or a width or
    /// height that overflows `f32` or is too small to divide into the deepest cells.
    InvalidWorld,
    /// [`Config::leaf_capacity`](crate::Config::leaf_capacity) outside `1..=MAX_LEAF_CAPACITY`.
    InvalidLeafCapacity(usize),
    /// `max_depth` above [`MAX_DEPTH`](crate::MAX_DEPTH).
    InvalidMaxDepth(u8),
    /// The handle was removed already, cleared, or belongs to another tree (see
    /// [`ItemId`](crate::ItemId) for how far that is detected).
    StaleId,
    /// The tree would hold more than [`MAX_ITEMS`](crate::MAX_ITEMS) items (or, from
    /// [`Quadtree::new`](crate::Quadtree::new), the process has used up its `2^64 - 1` tree
    /// ids).
    Full,
    /// The allocator refused the memory asked for (by [`Quadtree::reserve`](crate::Quadtree::reserve)
    /// or [`Quadtree::with_capacity`](crate::Quadtree::with_capacity)).
    OutOfMemory,
}

impl fmt::Display for QuadtreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuadtreeError::NonFinite => write!(f, "coordinate is NaN or infinite"),
            QuadtreeError::Inverted => write!(
                f,
                "rectangle is inverted (min > max on an axis; Rect::new takes two corners, \
                 Rect::from_min_size a corner and a size)"
            ),
            QuadtreeError::NegativeRadius => write!(f, "circle radius is negative"),
            QuadtreeError::InvalidWorld => {
                write!(
                    f,
                    "world rectangle must be finite with positive width and height"
                )
            }
            QuadtreeError::InvalidLeafCapacity(c) => write!(
                f,
                "leaf_capacity {c} is out of range 1..={}",
                crate::quadtree::MAX_LEAF_CAPACITY
            ),
            QuadtreeError::InvalidMaxDepth(d) => write!(
                f,
                "max_depth {d} is out of range 0..={}",
                crate::quadtree::MAX_DEPTH
            ),
            QuadtreeError::StaleId => write!(f, "item handle is stale or was removed"),
            QuadtreeError::Full => write!(
                f,
                "the tree cannot hold more than {} items",
                crate::quadtree::MAX_ITEMS
            ),
            QuadtreeError::OutOfMemory => write!(f, "out of memory for the tree's tables"),
        }
    }
}

impl std::error::Error for QuadtreeError {}
