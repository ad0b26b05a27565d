//! The camera and the world-to-screen mapping. With no zoom the world keeps its aspect and is
//! scaled to fit the window, centred, so resizing loses nothing; zooming in shows part of it
//! at up to [`MAX_SCALE`] pixels per world unit.

use quadstress::Rect;

use crate::settings::MAX_ZOOM as MAX_SCALE;

/// Where the camera looks: the whole world, or a zoom and a centre.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Camera {
    /// Screen pixels per world unit, and the world point at the window's centre; `None` shows
    /// the whole world.
    zoom: Option<(f32, f32, f32)>,
}

impl Camera {
    /// A camera at `scale` pixels per world unit centred on world `(x, y)` (clamped when the
    /// view is made).
    pub fn at(scale: f32, x: f32, y: f32) -> Self {
        Camera {
            zoom: Some((scale, x, y)),
        }
    }

    /// Back to the whole world.
    pub fn fit(&mut self) {
        self.zoom = None;
    }

    /// Zooms by `factor` keeping the world point under screen `(sx, sy)` where it is.
    pub fn zoom_about(&mut self, view: &View, factor: f32, sx: f32, sy: f32) {
        let (px, py) = view.to_world(sx, sy);
        let scale = (view.scale * factor).clamp(view.fit_scale, MAX_SCALE.max(view.fit_scale));
        if scale <= view.fit_scale {
            self.zoom = None;
            return;
        }
        // The point under the cursor stays under it: it is (sx - width / 2) / scale from the
        // new centre.
        let cx = px - (sx - view.width / 2.0) / scale;
        let cy = py - (sy - view.height / 2.0) / scale;
        self.zoom = Some((scale, cx, cy));
    }

    /// Moves the view by screen pixels (a drag of the content by `dx`, `dy`).
    pub fn pan(&mut self, view: &View, dx: f32, dy: f32) {
        let (cx, cy) = view.to_world(view.width / 2.0 - dx, view.height / 2.0 - dy);
        self.zoom = Some((view.scale, cx, cy));
    }
}

/// The mapping of one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    world: Rect,
    scale: f32,
    fit_scale: f32,
    /// Screen position of the world's top-left corner, in whole pixels, so that every
    /// particle lands on the pixel grid the same way.
    offset_x: f32,
    offset_y: f32,
    width: f32,
    height: f32,
}

impl View {
    /// The largest scale at which the world fits a `width` x `height` window, centred.
    #[cfg(test)]
    pub fn fit(world: Rect, width: f32, height: f32) -> Self {
        Self::new(world, width, height, Camera::default())
    }

    /// The view `camera` gives in a `width` x `height` window. The centre is clamped so that
    /// the view never leaves the world along an axis the world fills.
    pub fn new(world: Rect, width: f32, height: f32, camera: Camera) -> Self {
        let fit_scale = (width / world.width())
            .min(height / world.height())
            .max(1e-6);
        let (scale, cx, cy) = match camera.zoom {
            Some((s, x, y)) if s > fit_scale => (s, x, y),
            _ => (fit_scale, world.center().0, world.center().1),
        };
        let axis = |c: f32, lo: f32, hi: f32, screen: f32| {
            let half = screen / scale / 2.0;
            if 2.0 * half >= hi - lo {
                (lo + hi) / 2.0
            } else {
                c.clamp(lo + half, hi - half)
            }
        };
        let cx = axis(cx, world.min_x, world.max_x, width);
        let cy = axis(cy, world.min_y, world.max_y, height);
        View {
            world,
            scale,
            fit_scale,
            offset_x: (width / 2.0 - (cx - world.min_x) * scale).round(),
            offset_y: (height / 2.0 - (cy - world.min_y) * scale).round(),
            width,
            height,
        }
    }

    /// The window's height in pixels.
    pub fn screen_height(&self) -> f32 {
        self.height
    }

    /// Screen pixels per world unit.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// Whether the whole world is shown.
    #[cfg(test)]
    pub fn is_fit(&self) -> bool {
        self.scale <= self.fit_scale
    }

    /// World point to screen point.
    pub fn to_screen(self, x: f32, y: f32) -> (f32, f32) {
        (
            self.offset_x + (x - self.world.min_x) * self.scale,
            self.offset_y + (y - self.world.min_y) * self.scale,
        )
    }

    /// Screen point to world point.
    pub fn to_world(self, x: f32, y: f32) -> (f32, f32) {
        (
            self.world.min_x + (x - self.offset_x) / self.scale,
            self.world.min_y + (y - self.offset_y) / self.scale,
        )
    }

    /// The side in pixels every particle of world side `size` is drawn with: the same for
    /// all of them (never a mix of 2x2 and 3x3), at least 2 px, `size` px at 1:1.
    pub fn particle_px(&self, size: f32) -> f32 {
        (size * self.scale).round().max(2.0)
    }

    /// The pixel a particle's top-left corner lands on: whole pixels, so every particle
    /// covers the same pixel count.
    #[cfg(test)]
    pub fn snap(&self, x: f32, y: f32) -> (f32, f32) {
        let (sx, sy) = self.to_screen(x, y);
        (sx.floor(), sy.floor())
    }

    /// [`snap`](Self::snap) as integers, without a call to `floor` (which the baseline x86-64
    /// target does not inline): the particles' per-frame path.
    #[inline]
    pub fn snap_px(&self, x: f32, y: f32) -> (i32, i32) {
        let floor = |v: f32| {
            let i = v as i32;
            if (i as f32) > v {
                i - 1
            } else {
                i
            }
        };
        let (sx, sy) = self.to_screen(x, y);
        (floor(sx), floor(sy))
    }

    /// A world rectangle on screen, snapped to whole pixels so one-pixel outlines never fall
    /// between pixel rows.
    pub fn rect_to_screen(&self, r: &Rect) -> (f32, f32, f32, f32) {
        let (x0, y0) = self.to_screen(r.min_x, r.min_y);
        let (x1, y1) = self.to_screen(r.max_x, r.max_y);
        let (x0, y0, x1, y1) = (x0.round(), y0.round(), x1.round(), y1.round());
        (x0, y0, (x1 - x0).max(1.0), (y1 - y0).max(1.0))
    }

    /// The part of the world on screen.
    pub fn visible_world(&self) -> Rect {
        let (x0, y0) = self.to_world(0.0, 0.0);
        let (x1, y1) = self.to_world(self.width, self.height);
        Rect::new(x0, y0, x1, y1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORLD: Rect = Rect::new(0.0, 0.0, 3072.0, 2304.0);

    #[test]
    fn the_world_keeps_its_aspect_and_round_trips() {
        let v = View::fit(WORLD, 1024.0, 768.0);
        assert_eq!(v.scale(), 1.0 / 3.0);
        assert_eq!(v.to_screen(1536.0, 1152.0), (512.0, 384.0));
        // A wide window letterboxes left and right, keeping the aspect.
        let wide = View::fit(WORLD, 2000.0, 768.0);
        assert_eq!(wide.scale(), 1.0 / 3.0);
        let (x, y) = wide.to_screen(0.0, 0.0);
        assert_eq!((x, y), (488.0, 0.0));
        let (wx, wy) = wide.to_world(1000.0, 400.0);
        let (sx, sy) = wide.to_screen(wx, wy);
        assert!((sx - 1000.0).abs() < 1e-3 && (sy - 400.0).abs() < 1e-3);
    }

    #[test]
    fn zooming_keeps_the_point_under_the_cursor_and_stops_at_the_limits() {
        let mut cam = Camera::default();
        let mut v = View::new(WORLD, 1024.0, 768.0, cam);
        let (sx, sy) = (300.0, 200.0);
        for _ in 0..40 {
            let before = v.to_world(sx, sy);
            cam.zoom_about(&v, 1.25, sx, sy);
            v = View::new(WORLD, 1024.0, 768.0, cam);
            // Within a pixel of where it was: the offset is rounded to whole pixels.
            let (x, y) = v.to_screen(before.0, before.1);
            assert!((x - sx).abs() <= 1.0 && (y - sy).abs() <= 1.0, "{x}, {y}");
        }
        assert_eq!(v.scale(), MAX_SCALE);
        assert_eq!(v.particle_px(8.0), 32.0);
        for _ in 0..40 {
            cam.zoom_about(&v, 0.8, sx, sy);
            v = View::new(WORLD, 1024.0, 768.0, cam);
        }
        assert!(v.is_fit());
        assert_eq!(v, View::fit(WORLD, 1024.0, 768.0));
    }

    #[test]
    fn particles_are_one_size_on_whole_pixels() {
        let one = View::new(WORLD, 1024.0, 768.0, Camera::at(1.0, 1000.3, 700.7));
        assert_eq!(one.particle_px(8.0), 8.0);
        let fit = View::fit(WORLD, 1024.0, 768.0);
        assert_eq!(fit.particle_px(8.0), 3.0);
        assert_eq!(View::fit(WORLD, 300.0, 200.0).particle_px(8.0), 2.0);
        let (x, y) = one.snap(1000.37, 700.9);
        assert_eq!((x.fract(), y.fract()), (0.0, 0.0));
        for (wx, wy) in [
            (1000.37, 700.9),
            (0.0, 0.0),
            (-3.5, 2.0),
            (1535.999, 1152.0),
        ] {
            let (fx, fy) = one.snap(wx, wy);
            assert_eq!(one.snap_px(wx, wy), (fx as i32, fy as i32), "{wx}, {wy}");
        }
    }

    #[test]
    fn panning_stays_over_the_world() {
        let mut cam = Camera::at(1.0, 1536.0, 1152.0);
        let v = View::new(WORLD, 1024.0, 768.0, cam);
        cam.pan(&v, 100.0, 0.0);
        let v2 = View::new(WORLD, 1024.0, 768.0, cam);
        assert_eq!(
            v2.to_screen(1536.0, 1152.0).0,
            v.to_screen(1536.0, 1152.0).0 + 100.0
        );
        cam.pan(&v2, 1e6, 1e6);
        let v3 = View::new(WORLD, 1024.0, 768.0, cam);
        assert_eq!(
            v3.to_screen(0.0, 0.0),
            (0.0, 0.0),
            "clamped to the world's corner"
        );
        let seen = v3.visible_world();
        assert_eq!((seen.min_x, seen.min_y), (0.0, 0.0));
    }
}
