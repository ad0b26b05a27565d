//! Axis-aligned rectangles: the only shape the tree stores.

use super::{QuadtreeError, Shape};

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
    /// A rectangle from its two corners, **min and max**: the smaller coordinates (`min_x`,
    /// `min_y`, the top-left), then the larger (`max_x`, `max_y`, the bottom-right).
    ///
    /// The three constructors take three conventions:
    /// - `new(min_x, min_y, max_x, max_y)`: two corners;
    /// - [`from_min_size(x, y, width, height)`](Self::from_min_size): a corner and the
    ///   **width and height**;
    /// - [`from_center(cx, cy, half_w, half_h)`](Self::from_center): the centre and the
    ///   **half extents** (half the width, half the height).
    ///
    /// Nothing is checked here: the tree checks every rectangle it is given (see
    /// [`Rect::check`]), and refuses one whose max is below its min as
    /// [`QuadtreeError::Inverted`](crate::QuadtreeError::Inverted), which names its corners.
    ///
    /// ```
    /// use quadstress::{QuadtreeError, Rect};
    /// let r = Rect::new(1.0, 2.0, 4.0, 6.0);
    /// assert_eq!((r.width(), r.height()), (3.0, 4.0));
    /// // A corner and a size given to `new` make an inverted rectangle, and the error says so.
    /// let wrong = Rect::new(100.0, 100.0, 8.0, 8.0);
    /// let err = wrong.check().unwrap_err();
    /// assert_eq!(err, QuadtreeError::Inverted(wrong));
    /// assert!(err.to_string().starts_with("rectangle with min (100, 100) and max (8, 8) is inverted"));
    /// assert_eq!(Rect::from_min_size(100.0, 100.0, 8.0, 8.0), Rect::new(100.0, 100.0, 108.0, 108.0));
    /// ```
    pub const fn new(min_x: f32, min_y: f32, max_x: f32, max_y: f32) -> Self {
        Rect {
            min_x,
            min_y,
            max_x,
            max_y,
        }
    }

    /// A rectangle from its corner of smaller coordinates (`x`, `y`, the top-left) and its
    /// **width and height** (not the other corner: that is [`new`](Self::new); nor half
    /// extents: that is [`from_center`](Self::from_center)).
    ///
    /// ```
    /// let r = quadstress::Rect::from_min_size(10.0, 20.0, 8.0, 4.0);
    /// assert_eq!(r, quadstress::Rect::new(10.0, 20.0, 18.0, 24.0));
    /// assert_eq!((r.width(), r.height()), (8.0, 4.0));
    /// ```
    pub fn from_min_size(x: f32, y: f32, width: f32, height: f32) -> Self {
        Rect::new(x, y, x + width, y + height)
    }

    /// A rectangle from its centre and its **half extents**: half the width and half the
    /// height (not the whole width and height: that is [`from_min_size`](Self::from_min_size)
    /// from a corner; nor two corners: that is [`new`](Self::new)).
    ///
    /// ```
    /// let r = quadstress::Rect::from_center(5.0, 5.0, 1.0, 2.0);
    /// assert_eq!(r, quadstress::Rect::new(4.0, 3.0, 6.0, 7.0));
    /// assert_eq!((r.width(), r.height()), (2.0, 4.0)); // twice the half extents
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

    /// Whether `other` lies inside this closed, finite rectangle and is not inverted: then
    /// it is valid without [`check`](Self::check) (a NaN or an infinity fails the
    /// containment).
    #[inline(always)]
    pub(crate) fn holds_valid(&self, other: &Rect) -> bool {
        self.contains_rect(other) & (other.min_x <= other.max_x) & (other.min_y <= other.max_y)
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
    /// (0 when the point is inside), in `f64`.
    ///
    /// `f64` holds the square of any `f32` difference without overflow or underflow, so the
    /// result is the exact distance rounded once or twice, for every finite input: from
    /// subnormal offsets up to points `f32::MAX` apart.
    ///
    /// ```
    /// let r = quadstress::Rect::new(0.0, 0.0, 1.0, 1.0);
    /// assert_eq!(r.distance_squared(4.0, 5.0), 25.0);
    /// assert_eq!(r.distance_squared(0.5, 0.5), 0.0);
    /// // In f32, the square of 1e20 would overflow to infinity.
    /// let far = 1e20f32;
    /// assert_eq!(r.distance_squared(0.5, 1.0 + far), far as f64 * far as f64);
    /// ```
    #[inline]
    pub fn distance_squared(&self, x: f32, y: f32) -> f64 {
        let (x, y) = (x as f64, y as f64);
        let dx = (self.min_x as f64 - x).max(0.0).max(x - self.max_x as f64);
        let dy = (self.min_y as f64 - y).max(0.0).max(y - self.max_y as f64);
        dx * dx + dy * dy
    }

    /// Euclidean distance from the point to the nearest point of the rectangle (0 when the
    /// point is inside): computed in `f64` and rounded to the nearest `f32` (so infinite only
    /// when the true distance is beyond `f32::MAX`). This is the distance
    /// [`Quadtree::query_nearest`](crate::Quadtree::query_nearest) reports.
    ///
    /// ```
    /// let r = quadstress::Rect::new(0.0, 0.0, 0.0, 0.0);
    /// assert_eq!(r.distance(3.0, 4.0), 5.0);
    /// assert_eq!(r.distance(3e-30, 4e-30), 5e-30); // its square is below f32's range
    /// ```
    #[inline]
    pub fn distance(&self, x: f32, y: f32) -> f32 {
        self.distance_squared(x, y).sqrt() as f32
    }

    /// Whether the rectangle and the closed disc of centre `(x, y)` and radius `r` share a
    /// point. Decided in `f64`, so it neither overflows nor underflows for any finite input.
    ///
    /// ```
    /// let rect = quadstress::Rect::new(0.0, 0.0, 1.0, 1.0);
    /// assert!(rect.intersects_circle(4.0, 5.0, 5.0)); // exactly touching
    /// assert!(!rect.intersects_circle(4.0, 5.0, 4.9));
    /// ```
    #[inline]
    pub fn intersects_circle(&self, x: f32, y: f32, r: f32) -> bool {
        let r = r as f64;
        self.distance_squared(x, y) <= r * r
    }

    /// Whether [`check`](Self::check) passes, without the branches: `min <= max` holds for
    /// no NaN, and a finite lower bound below a finite upper one leaves both finite.
    #[inline(always)]
    pub(crate) fn is_valid(&self) -> bool {
        (self.min_x <= self.max_x)
            & (self.min_y <= self.max_y)
            & (self.min_x > f32::NEG_INFINITY)
            & (self.min_y > f32::NEG_INFINITY)
            & (self.max_x < f32::INFINITY)
            & (self.max_y < f32::INFINITY)
    }

    /// Checks that every coordinate is finite and that the rectangle is not inverted.
    ///
    /// # Errors
    /// [`QuadtreeError::NonFinite`] for a NaN or infinite coordinate,
    /// [`QuadtreeError::Inverted`] when `min_x > max_x` or `min_y > max_y`; each holds the
    /// rectangle.
    ///
    /// ```
    /// use quadstress::{QuadtreeError, Rect, Shape};
    /// assert!(Rect::new(0.0, 0.0, 1.0, 1.0).check().is_ok());
    /// let nan = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
    /// assert_eq!(nan.check(), Err(QuadtreeError::NonFinite(Shape::Rect(nan))));
    /// let inverted = Rect::new(2.0, 0.0, 1.0, 1.0);
    /// assert_eq!(inverted.check(), Err(QuadtreeError::Inverted(inverted)));
    /// ```
    pub fn check(&self) -> Result<(), QuadtreeError> {
        let finite = self.min_x.is_finite()
            && self.min_y.is_finite()
            && self.max_x.is_finite()
            && self.max_y.is_finite();
        if !finite {
            Err(QuadtreeError::NonFinite(Shape::Rect(*self)))
        } else if self.min_x > self.max_x || self.min_y > self.max_y {
            Err(QuadtreeError::Inverted(*self))
        } else {
            Ok(())
        }
    }

    /// The rectangle grown by `margin` on every side, each bound rounded outwards to the next
    /// `f32` so that the result covers the exact bounds, and saturating at `-f32::MAX` and
    /// `f32::MAX`: a query box that must not miss anything within `margin` of `self`.
    ///
    /// ```
    /// use quadstress::Rect;
    /// let r = Rect::new(0.0, 0.0, 1.0, 1.0).grown(0.1);
    /// assert!(r.min_x <= -0.1 && r.max_x >= 1.1);
    /// assert_eq!(Rect::new(0.0, 0.0, f32::MAX, 1.0).grown(1e39).max_x, f32::MAX);
    /// ```
    pub fn grown(&self, margin: f64) -> Rect {
        Rect::new(
            f32_at_or_below(self.min_x as f64 - margin),
            f32_at_or_below(self.min_y as f64 - margin),
            f32_at_or_above(self.max_x as f64 + margin),
            f32_at_or_above(self.max_y as f64 + margin),
        )
    }
}

/// The largest `f32` at or below `v`, saturating at `-f32::MAX` and `f32::MAX`: rounds a
/// bound outwards, so that a box computed in `f64` and stored in `f32` still covers it.
pub(crate) fn f32_at_or_below(v: f64) -> f32 {
    if v >= f32::MAX as f64 {
        return f32::MAX;
    }
    if v <= -(f32::MAX as f64) {
        return -f32::MAX;
    }
    // Finite and above -f32::MAX here, so one step down stays finite.
    let r = v as f32;
    if r as f64 <= v {
        r
    } else {
        next_toward_neg_inf(r)
    }
}

/// The smallest `f32` at or above `v`, saturating as [`f32_at_or_below`] does.
pub(crate) fn f32_at_or_above(v: f64) -> f32 {
    -f32_at_or_below(-v)
}

/// The next `f32` below a finite `r` (`f32::next_down` needs a newer Rust than ours).
fn next_toward_neg_inf(r: f32) -> f32 {
    let bits = r.to_bits();
    if r == 0.0 {
        -f32::from_bits(1)
    } else if r > 0.0 {
        f32::from_bits(bits - 1)
    } else {
        f32::from_bits(bits + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outward_rounding_covers_the_f64_value() {
        let values = [
            0.0,
            -0.0,
            1e-50,
            -1e-50,
            0.1,
            -0.1,
            1.0 / 3.0,
            -1.0 / 3.0,
            3.4e38,
            -3.4e38,
            1e300,
            -1e300,
            f32::MAX as f64,
            -(f32::MAX as f64),
            16_777_217.0,
        ];
        for v in values {
            let (lo, hi) = (f32_at_or_below(v), f32_at_or_above(v));
            assert!(lo.is_finite() && hi.is_finite(), "{v}");
            let clamped = v.clamp(-(f32::MAX as f64), f32::MAX as f64);
            assert!(
                lo as f64 <= clamped && clamped <= hi as f64,
                "{v}: {lo} {hi}"
            );
            // Tight: the next f32 outwards would not be needed.
            if lo > -f32::MAX {
                assert!(
                    (next_toward_neg_inf(lo) as f64) < clamped,
                    "{v}: {lo} not tight"
                );
            }
            if v == v as f32 as f64 {
                assert_eq!((lo, hi), (v as f32, v as f32));
            }
        }
    }
}
