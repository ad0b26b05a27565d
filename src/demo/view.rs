//! World-to-screen mapping: the world keeps its aspect and is scaled to fit the window,
//! centred, so resizing loses nothing.

use quadstress::Rect;

/// The current fit of the world in the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    world: Rect,
    scale: f32,
    offset_x: f32,
    offset_y: f32,
}

impl View {
    /// The largest scale at which the world fits a `width` x `height` window, centred.
    pub fn fit(world: Rect, width: f32, height: f32) -> Self {
        let scale = (width / world.width())
            .min(height / world.height())
            .max(1e-6);
        View {
            world,
            scale,
            offset_x: (width - world.width() * scale) / 2.0,
            offset_y: (height - world.height() * scale) / 2.0,
        }
    }

    /// Screen pixels per world unit.
    pub fn scale(&self) -> f32 {
        self.scale
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

    /// A world rectangle on screen, snapped to whole pixels so one-pixel outlines never fall
    /// between pixel rows.
    pub fn rect_to_screen(&self, r: &Rect) -> (f32, f32, f32, f32) {
        let (x0, y0) = self.to_screen(r.min_x, r.min_y);
        let (x1, y1) = self.to_screen(r.max_x, r.max_y);
        let (x0, y0, x1, y1) = (x0.round(), y0.round(), x1.round(), y1.round());
        (x0, y0, (x1 - x0).max(1.0), (y1 - y0).max(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_world_keeps_its_aspect_and_round_trips() {
        let world = Rect::new(0.0, 0.0, 3072.0, 2304.0);
        let v = View::fit(world, 1024.0, 768.0);
        assert_eq!(v.scale(), 1.0 / 3.0);
        assert_eq!(v.to_screen(1536.0, 1152.0), (512.0, 384.0));
        // A wide window letterboxes left and right, keeping the aspect.
        let wide = View::fit(world, 2000.0, 768.0);
        assert_eq!(wide.scale(), 1.0 / 3.0);
        let (x, y) = wide.to_screen(0.0, 0.0);
        assert_eq!((x, y), (488.0, 0.0));
        let (wx, wy) = wide.to_world(1000.0, 400.0);
        let (sx, sy) = wide.to_screen(wx, wy);
        assert!((sx - 1000.0).abs() < 1e-3 && (sy - 400.0).abs() < 1e-3);
    }
}
