//! Predicates written from the definitions alone, independently of the library's maths (which
//! uses block tests, cell mappings and rounding-aware bounds): the checks compare the tree's
//! answers with these. Distances are exact: `f64` holds every difference and square of `f32`s.

use quadstress::{QuadtreeError, Rect, Shape};

/// Whether two closed rectangles intersect (touching counts).
pub fn intersects(a: &Rect, b: &Rect) -> bool {
    a.min_x <= b.max_x && b.min_x <= a.max_x && a.min_y <= b.max_y && b.min_y <= a.max_y
}

/// Whether the closed rectangle contains the point (edges included).
pub fn contains_point(r: &Rect, x: f32, y: f32) -> bool {
    r.min_x <= x && x <= r.max_x && r.min_y <= y && y <= r.max_y
}

/// The exact squared distance from a point to a rectangle, 0 inside it.
pub fn distance_squared(r: &Rect, x: f32, y: f32) -> f64 {
    let (x, y) = (x as f64, y as f64);
    let dx = (r.min_x as f64 - x).max(0.0).max(x - r.max_x as f64);
    let dy = (r.min_y as f64 - y).max(0.0).max(y - r.max_y as f64);
    dx * dx + dy * dy
}

/// What the tree must say about a rectangle by the rule its docs state: `None` if it is
/// valid, else why it is refused.
pub fn rect_error(r: &Rect) -> Option<QuadtreeError> {
    let finite = [r.min_x, r.min_y, r.max_x, r.max_y]
        .iter()
        .all(|v| v.is_finite());
    if !finite {
        Some(QuadtreeError::NonFinite(Shape::Rect(*r)))
    } else if r.min_x > r.max_x || r.min_y > r.max_y {
        Some(QuadtreeError::Inverted(*r))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The predicates agree with the library's own on the cases that matter at the edges:
    /// touching, corners, zero-sized rectangles, and points on the edges.
    #[test]
    fn the_predicates_agree_with_the_library_at_the_edges() {
        let a = Rect::new(0.0, 0.0, 2.0, 2.0);
        for b in [
            Rect::new(2.0, 2.0, 3.0, 3.0),
            Rect::new(2.0, 0.5, 2.0, 0.5),
            Rect::new(2.5, 0.0, 3.0, 1.0),
            Rect::new(-1.0, -1.0, -0.5, 5.0),
        ] {
            assert_eq!(intersects(&a, &b), a.intersects(&b), "{b:?}");
        }
        for (x, y) in [(2.0, 2.0), (0.0, 1.0), (2.0001, 1.0), (-0.0, 0.0)] {
            assert_eq!(contains_point(&a, x, y), a.contains_point(x, y));
        }
        assert_eq!(distance_squared(&a, 5.0, 6.0), 25.0);
        assert_eq!(distance_squared(&a, 1.0, 1.0), 0.0);
        for r in [
            Rect::new(1.0, 0.0, 0.0, 1.0),
            Rect::new(f32::NAN, 0.0, 0.0, 1.0),
        ] {
            assert_eq!(rect_error(&r), r.check().err(), "{r:?}");
        }
        assert!(matches!(
            rect_error(&Rect::new(1.0, 0.0, 0.0, 1.0)),
            Some(QuadtreeError::Inverted(_))
        ));
        assert!(matches!(
            rect_error(&Rect::new(f32::NAN, 0.0, 0.0, 1.0)),
            Some(QuadtreeError::NonFinite(_))
        ));
        assert_eq!(rect_error(&a), None);
    }
}
