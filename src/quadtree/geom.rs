//! Axis-aligned rectangles: the only shape the tree stores.

use super::QuadtreeError;

/// A closed axis-aligned rectangle `[min_x, max_x] x [min_y, max_y]`.
///
/// Closed means that two rectangles which only touch along an edge or at a corner
/// *do* intersect, in every query of the tree and in the pair search (as in rstar and parry).
/// A rectangle with zero width or height (a segment or a point) is valid.
///
/// ```
/// use quadstress::Rect;
/// let a = Rect::new(0.0, 0.0, 1.0, 1.0);
/// let b = Rect::new(1.0, 1.0, 2.0, 2.0); // touches `a` at one corner
/// assert!(a.intersects(&b));
/// assert_eq!(a.width(), 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Rect {
    /// Left edge.
    pub min_x: f32,
    /// Top edge (the smaller y).
    pub min_y: f32,
    /// Right edge.
    pub max_x: f32,
    /// Bottom edge (the larger y).
    pub max_y: f32,
}

impl Rect {
    /// A rectangle from its corners. Nothing is checked here: the tree checks every
    /// rectangle it is given (see [`Rect::check`]).
    ///
    /// ```
    /// let r = quadstress::Rect::new(1.0, 2.0, 4.0, 6.0);
    /// assert_eq!((r.width(), r.height()), (3.0, 4.0));
    /// ```
    pub const fn new(min_x: f32, min_y: f32, max_x: f32, max_y: f32) -> Self {
        Rect {
            min_x,
            min_y,
            max_x,
            max_y,
        }
    }

    /// A rectangle from its top-left corner and its size.
    ///
    /// ```
    /// let r = quadstress::Rect::from_min_size(10.0, 20.0, 8.0, 8.0);
    /// assert_eq!(r, quadstress::Rect::new(10.0, 20.0, 18.0, 28.0));
    /// ```
    pub fn from_min_size(x: f32, y: f32, width: f32, height: f32) -> Self {
        Rect::new(x, y, x + width, y + height)
    }

    /// A rectangle from its centre and half extents.
    ///
    /// ```
    /// let r = quadstress::Rect::from_center(5.0, 5.0, 1.0, 2.0);
    /// assert_eq!(r, quadstress::Rect::new(4.0, 3.0, 6.0, 7.0));
    /// ```
    pub fn from_center(cx: f32, cy: f32, half_w: f32, half_h: f32) -> Self {
        Rect::new(cx - half_w, cy - half_h, cx + half_w, cy + half_h)
    }

    /// Width (`max_x - min_x`).
    ///
    /// ```
    /// assert_eq!(quadstress::Rect::new(0.0, 0.0, 3.0, 1.0).width(), 3.0);
    /// ```
    pub fn width(&self) -> f32 {
        self.max_x - self.min_x
    }

    /// Height (`max_y - min_y`).
    ///
    /// ```
    /// assert_eq!(quadstress::Rect::new(0.0, 0.0, 3.0, 1.0).height(), 1.0);
    /// ```
    pub fn height(&self) -> f32 {
        self.max_y - self.min_y
    }

    /// The centre point `(x, y)`.
    ///
    /// ```
    /// assert_eq!(quadstress::Rect::new(0.0, 0.0, 4.0, 2.0).center(), (2.0, 1.0));
    /// ```
    pub fn center(&self) -> (f32, f32) {
        (
            0.5 * (self.min_x + self.max_x),
            0.5 * (self.min_y + self.max_y),
        )
    }

    /// Whether the two closed rectangles share at least one point.
    ///
    /// ```
    /// use quadstress::Rect;
    /// let a = Rect::new(0.0, 0.0, 1.0, 1.0);
    /// assert!(a.intersects(&Rect::new(1.0, 0.5, 2.0, 0.6))); // shared edge
    /// assert!(!a.intersects(&Rect::new(1.01, 0.0, 2.0, 1.0)));
    /// ```
    #[inline]
    pub fn intersects(&self, other: &Rect) -> bool {
        // `&` rather than `&&`: on random data each comparison is a coin flip, and four
        // unpredictable branches cost more than four comparisons.
        (self.min_x <= other.max_x)
            & (other.min_x <= self.max_x)
            & (self.min_y <= other.max_y)
            & (other.min_y <= self.max_y)
    }

    /// Whether `other` lies entirely inside this closed rectangle.
    ///
    /// ```
    /// use quadstress::Rect;
    /// let world = Rect::new(0.0, 0.0, 10.0, 10.0);
    /// assert!(world.contains_rect(&Rect::new(0.0, 0.0, 10.0, 10.0)));
    /// assert!(!world.contains_rect(&Rect::new(-1.0, 0.0, 1.0, 1.0)));
    /// ```
    #[inline]
    pub fn contains_rect(&self, other: &Rect) -> bool {
        // `&` rather than `&&`: four compares are cheaper than the branches between them.
        (self.min_x <= other.min_x)
            & (other.max_x <= self.max_x)
            & (self.min_y <= other.min_y)
            & (other.max_y <= self.max_y)
    }

    /// Whether the point lies in this closed rectangle (edges included).
    ///
    /// ```
    /// let r = quadstress::Rect::new(0.0, 0.0, 1.0, 1.0);
    /// assert!(r.contains_point(1.0, 0.0));
    /// assert!(!r.contains_point(1.5, 0.0));
    /// ```
    #[inline]
    pub fn contains_point(&self, x: f32, y: f32) -> bool {
        self.min_x <= x && x <= self.max_x && self.min_y <= y && y <= self.max_y
    }

    /// Squared Euclidean distance from the point to the nearest point of the rectangle
    /// (0 when the point is inside).
    ///
    /// ```
    /// let r = quadstress::Rect::new(0.0, 0.0, 1.0, 1.0);
    /// assert_eq!(r.distance_squared(4.0, 5.0), 25.0);
    /// assert_eq!(r.distance_squared(0.5, 0.5), 0.0);
    /// ```
    #[inline]
    pub fn distance_squared(&self, x: f32, y: f32) -> f32 {
        let dx = (self.min_x - x).max(0.0).max(x - self.max_x);
        let dy = (self.min_y - y).max(0.0).max(y - self.max_y);
        dx * dx + dy * dy
    }

    /// Whether the rectangle and the closed disc of centre `(x, y)` and radius `r` share a point.
    ///
    /// ```
    /// let rect = quadstress::Rect::new(0.0, 0.0, 1.0, 1.0);
    /// assert!(rect.intersects_circle(4.0, 5.0, 5.0)); // exactly touching
    /// assert!(!rect.intersects_circle(4.0, 5.0, 4.9));
    /// ```
    #[inline]
    pub fn intersects_circle(&self, x: f32, y: f32, r: f32) -> bool {
        self.distance_squared(x, y) <= r * r
    }

    /// Checks that every coordinate is finite and that the rectangle is not inverted.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] for a NaN or infinite coordinate,
    /// [`QuadtreeError::Inverted`] when `min_x > max_x` or `min_y > max_y`.
    ///
    /// ```
    /// use quadstress::{QuadtreeError, Rect};
    /// assert!(Rect::new(0.0, 0.0, 1.0, 1.0).check().is_ok());
    /// assert_eq!(Rect::new(f32::NAN, 0.0, 1.0, 1.0).check(), Err(QuadtreeError::NonFinite));
    /// assert_eq!(Rect::new(2.0, 0.0, 1.0, 1.0).check(), Err(QuadtreeError::Inverted));
    /// ```
    pub fn check(&self) -> Result<(), QuadtreeError> {
        let finite = self.min_x.is_finite()
            && self.min_y.is_finite()
            && self.max_x.is_finite()
            && self.max_y.is_finite();
        if !finite {
            Err(QuadtreeError::NonFinite)
        } else if self.min_x > self.max_x || self.min_y > self.max_y {
            Err(QuadtreeError::Inverted)
        } else {
            Ok(())
        }
    }
}
