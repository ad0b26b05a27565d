//! A CPU-side RGBA canvas for the many small things of a frame (particles, node outlines),
//! uploaded as one texture. Under a software OpenGL (Mesa's llvmpipe, as on CI and Xvfb)
//! per-triangle setup dominates: 50,000 particles as 100,000 triangles took about 45 ms a frame,
//! one textured quad takes a fraction of that. The buffer is reused; nothing here allocates
//! per frame unless the window is resized.

use macroquad::color::WHITE;
use macroquad::texture::{draw_texture, FilterMode, Image, Texture2D};

/// The canvas, sized to the window.
pub struct Canvas {
    image: Image,
    texture: Option<Texture2D>,
}

impl Canvas {
    /// An empty canvas; it takes the window's size on the first [`begin`](Self::begin).
    pub fn new() -> Self {
        Canvas {
            image: Image::empty(),
            texture: None,
        }
    }

    /// Starts a frame: resizes to `width` x `height` if needed, and clears to transparent.
    pub fn begin(&mut self, width: u16, height: u16) {
        // A minimised window can report a zero size; keep a 1x1 canvas rather than a 0x0 texture.
        let (width, height) = (width.max(1), height.max(1));
        if self.image.width != width || self.image.height != height {
            self.image = Image::gen_image_color(width, height, macroquad::color::BLANK);
            let texture = Texture2D::from_image(&self.image);
            texture.set_filter(FilterMode::Nearest);
            self.texture = Some(texture);
        } else {
            self.image.bytes.fill(0);
        }
    }

    /// Fills the pixel rectangle `[x, x + w) x [y, y + h)`, clipped to the canvas.
    pub fn fill(&mut self, x: f32, y: f32, w: f32, h: f32, rgba: [u8; 4]) {
        let (cw, ch) = (self.image.width as i64, self.image.height as i64);
        let x0 = (x.floor() as i64).clamp(0, cw);
        let y0 = (y.floor() as i64).clamp(0, ch);
        let x1 = ((x + w).floor() as i64).clamp(0, cw).max(x0 + 1).min(cw);
        let y1 = ((y + h).floor() as i64).clamp(0, ch).max(y0 + 1).min(ch);
        if x0 >= cw || y0 >= ch {
            return;
        }
        let stride = cw as usize * 4;
        for row in y0 as usize..y1 as usize {
            let start = row * stride + x0 as usize * 4;
            let end = row * stride + x1 as usize * 4;
            for px in self.image.bytes[start..end].chunks_exact_mut(4) {
                px.copy_from_slice(&rgba);
            }
        }
    }

    /// A one-pixel outline of the pixel rectangle at `(x, y)` of size `w` x `h`.
    pub fn outline(&mut self, x: f32, y: f32, w: f32, h: f32, rgba: [u8; 4]) {
        self.fill(x, y, w, 1.0, rgba);
        self.fill(x, y + h - 1.0, w, 1.0, rgba);
        self.fill(x, y, 1.0, h, rgba);
        self.fill(x + w - 1.0, y, 1.0, h, rgba);
    }

    /// Uploads the frame and draws it over the whole window.
    pub fn present(&self) {
        if let Some(texture) = &self.texture {
            texture.update(&self.image);
            draw_texture(texture, 0.0, 0.0, WHITE);
        }
    }
}
