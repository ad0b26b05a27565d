//! The one error type of the tree, and the shape a refused call was given.

use std::fmt;

use super::Rect;

/// Everything the tree refuses. A refused call leaves the tree exactly as it was.
///
/// An error about a value carries that value as it was given, and its message names it: a
/// refused `Rect::new(100.0, 100.0, 8.0, 8.0)` says `min (100, 100)` and `max (8, 8)`, so a
/// corner and a size given where two corners belong are seen at once.
///
/// # Equality
/// Two errors are equal when they are the same variant with the same values **bit for bit**
/// (`f32::to_bits`): a NaN equals the same NaN, and `0.0` differs from `-0.0`. Comparing
/// floats by `==` would make an error holding a NaN unequal to itself, which `Eq` forbids and
/// which would make `assert_eq!` on a refused NaN fail; by bits, the comparison says whether
/// the two errors report the same input, which is what a test of an error asks.
///
/// ```
/// use quadstress::{Quadtree, QuadtreeError, Rect, Shape};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
/// let bad = Rect::new(0.0, 0.0, f32::INFINITY, 1.0);
/// let err = tree.insert(bad, ()).unwrap_err();
/// assert_eq!(err, QuadtreeError::NonFinite(Shape::Rect(bad)));
/// assert_eq!(err.to_string(), "rectangle with min (0, 0) and max (inf, 1) has a NaN or infinite coordinate");
/// assert!(tree.is_empty());
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum QuadtreeError {
    /// A coordinate, radius or point was NaN or infinite: the shape as given.
    NonFinite(Shape),
    /// A rectangle had `min > max` on some axis: the rectangle as given.
    Inverted(Rect),
    /// A negative circle radius: the radius.
    NegativeRadius(f32),
    /// The world rectangle (as given) is not finite, has zero or negative width or height,
    /// or a width or height that overflows `f32` or is too small to divide into the deepest
    /// cells.
    InvalidWorld(Rect),
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

/// The shape a refused call was given, in [`QuadtreeError::NonFinite`]: a rectangle, a
/// point (point and nearest queries) or a circle (circle queries).
///
/// Compared bit for bit, like [`QuadtreeError`].
///
/// ```
/// use quadstress::Shape;
/// let s = Shape::Circle { x: 1.0, y: f32::NAN, r: 2.0 };
/// assert_eq!(s.to_string(), "circle of centre (1, NaN) and radius 2");
/// assert_eq!(s, s); // a NaN equals itself here
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Shape {
    /// A rectangle.
    Rect(Rect),
    /// A point.
    Point {
        /// Its x.
        x: f32,
        /// Its y.
        y: f32,
    },
    /// A circle (a disc).
    Circle {
        /// Its centre's x.
        x: f32,
        /// Its centre's y.
        y: f32,
        /// Its radius.
        r: f32,
    },
}

/// The bits of a rectangle's four coordinates, for equality by bits.
fn rect_bits(r: &Rect) -> [u32; 4] {
    [r.min_x, r.min_y, r.max_x, r.max_y].map(f32::to_bits)
}

impl Shape {
    /// Which shape, and the bits of its coordinates (unused ones zero).
    fn bits(&self) -> (u8, [u32; 4]) {
        match self {
            Shape::Rect(r) => (0, rect_bits(r)),
            Shape::Point { x, y } => (1, [x.to_bits(), y.to_bits(), 0, 0]),
            Shape::Circle { x, y, r } => (2, [x.to_bits(), y.to_bits(), r.to_bits(), 0]),
        }
    }
}

impl PartialEq for Shape {
    fn eq(&self, other: &Self) -> bool {
        self.bits() == other.bits()
    }
}

impl Eq for Shape {}

impl PartialEq for QuadtreeError {
    fn eq(&self, other: &Self) -> bool {
        use QuadtreeError as E;
        match (self, other) {
            (E::NonFinite(a), E::NonFinite(b)) => a == b,
            (E::Inverted(a), E::Inverted(b)) | (E::InvalidWorld(a), E::InvalidWorld(b)) => {
                rect_bits(a) == rect_bits(b)
            }
            (E::NegativeRadius(a), E::NegativeRadius(b)) => a.to_bits() == b.to_bits(),
            (E::InvalidLeafCapacity(a), E::InvalidLeafCapacity(b)) => a == b,
            (E::InvalidMaxDepth(a), E::InvalidMaxDepth(b)) => a == b,
            (E::StaleId, E::StaleId) | (E::Full, E::Full) | (E::OutOfMemory, E::OutOfMemory) => {
                true
            }
            _ => false,
        }
    }
}

impl Eq for QuadtreeError {}

/// `min (x, y) and max (x, y)`: a rectangle in [`Rect::new`]'s terms.
struct Corners<'a>(&'a Rect);

impl fmt::Display for Corners<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        write!(
            f,
            "min ({}, {}) and max ({}, {})",
            r.min_x, r.min_y, r.max_x, r.max_y
        )
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Rect(r) => write!(f, "rectangle with {}", Corners(r)),
            Shape::Point { x, y } => write!(f, "point ({x}, {y})"),
            Shape::Circle { x, y, r } => write!(f, "circle of centre ({x}, {y}) and radius {r}"),
        }
    }
}

/// Why [`Quadtree::new`](crate::Quadtree::new) refused `world`, in words.
fn world_fault(world: &Rect) -> &'static str {
    let (w, h) = (world.width(), world.height());
    match world.check() {
        Err(QuadtreeError::NonFinite(_)) => "has a NaN or infinite coordinate",
        Err(_) => "is inverted",
        Ok(()) if w <= 0.0 || h <= 0.0 => "has no area",
        Ok(()) if !w.is_finite() || !h.is_finite() => "is wider or taller than f32::MAX",
        Ok(()) => "is too small to divide into the deepest cells",
    }
}

impl fmt::Display for QuadtreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuadtreeError::NonFinite(shape) => {
                write!(f, "{shape} has a NaN or infinite coordinate")
            }
            QuadtreeError::Inverted(r) => write!(
                f,
                "rectangle with {} is inverted (min > max on an axis; Rect::new takes two \
                 corners, Rect::from_min_size a corner and a size)",
                Corners(r)
            ),
            QuadtreeError::NegativeRadius(r) => write!(f, "circle radius {r} is negative"),
            QuadtreeError::InvalidWorld(world) => write!(
                f,
                "world rectangle with {} {}: it must be finite with positive width and height",
                Corners(world),
                world_fault(world)
            ),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Quadtree;

    /// Each refused value's message names it, whichever call refused it.
    #[test]
    fn every_message_names_the_values_it_refused() {
        let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
        let said = |e: QuadtreeError| e.to_string();
        let inverted = tree
            .insert(Rect::new(100.0, 100.0, 8.0, 8.0), ())
            .unwrap_err();
        assert!(
            said(inverted).starts_with("rectangle with min (100, 100) and max (8, 8) is inverted"),
            "{inverted}"
        );
        let nan = tree
            .insert(Rect::new(1.0, f32::NAN, 2.0, 3.0), ())
            .unwrap_err();
        assert_eq!(
            said(nan),
            "rectangle with min (1, NaN) and max (2, 3) has a NaN or infinite coordinate"
        );
        let mut out = Vec::new();
        let point = tree.query_at_point(f32::NEG_INFINITY, 7.5, &mut out);
        assert_eq!(
            said(point.unwrap_err()),
            "point (-inf, 7.5) has a NaN or infinite coordinate"
        );
        let mut near = Vec::new();
        let nearest = tree.query_nearest(2.0, f32::NAN, 1, &mut near);
        assert_eq!(
            said(nearest.unwrap_err()),
            "point (2, NaN) has a NaN or infinite coordinate"
        );
        let circle = tree.query_in_circle(1.0, 2.0, f32::INFINITY, &mut out);
        assert_eq!(
            said(circle.unwrap_err()),
            "circle of centre (1, 2) and radius inf has a NaN or infinite coordinate"
        );
        let negative = tree.query_in_circle(1.0, 2.0, -0.25, &mut out);
        assert_eq!(
            said(negative.unwrap_err()),
            "circle radius -0.25 is negative"
        );
    }

    /// A refused world's message names its corners and what is wrong with it.
    #[test]
    fn a_refused_world_says_which_and_why() {
        let max = f32::MAX;
        for (world, why) in [
            (
                Rect::new(0.0, 0.0, f32::INFINITY, 5.0),
                "min (0, 0) and max (inf, 5) has a NaN or infinite coordinate",
            ),
            (
                Rect::new(10.0, 0.0, 0.0, 5.0),
                "min (10, 0) and max (0, 5) is inverted",
            ),
            (
                Rect::new(0.0, 0.0, 800.0, 0.0),
                "min (0, 0) and max (800, 0) has no area",
            ),
            (
                Rect::new(-max, 0.0, max, 1.0),
                "is wider or taller than f32::MAX",
            ),
            (
                Rect::new(0.0, 0.0, 1e-40, 1.0),
                "min (0, 0) and max (0.0000000000000000000000000000000000000001, 1) is too small",
            ),
        ] {
            let err = Quadtree::<()>::new(world).unwrap_err();
            assert_eq!(err, QuadtreeError::InvalidWorld(world));
            assert!(err.to_string().contains(why), "{err} lacks {why:?}");
        }
    }

    /// Equality is by bits: an error holding a NaN equals itself, and signed zeros differ.
    #[test]
    fn errors_compare_by_bits() {
        let nan = QuadtreeError::NonFinite(Shape::Point {
            x: f32::NAN,
            y: 0.0,
        });
        assert_eq!(nan, nan);
        assert_ne!(
            QuadtreeError::NegativeRadius(0.0),
            QuadtreeError::NegativeRadius(-0.0)
        );
        let r = Rect::new(1.0, 0.0, 0.0, 1.0);
        assert_ne!(QuadtreeError::Inverted(r), QuadtreeError::InvalidWorld(r));
        assert_ne!(
            QuadtreeError::NonFinite(Shape::Point { x: 1.0, y: 2.0 }),
            QuadtreeError::NonFinite(Shape::Circle {
                x: 1.0,
                y: 2.0,
                r: 0.0
            })
        );
    }
}
