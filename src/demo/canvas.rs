//! A CPU-side RGBA canvas for the many small things of a frame (particles, node outlines),
//! uploaded as one texture that covers the window, floor included. Under a software OpenGL (Mesa's llvmpipe, as on CI and Xvfb)
//! per-triangle setup dominates: 50,000 particles as 100,000 triangles took about 45 ms a frame,
//! one textured quad takes a fraction of that. The buffer is reused; nothing here allocates
//! per frame unless the window is resized.

use macroquad::color::WHITE;
use macroquad::material::{
    gl_use_default_material, gl_use_material, load_material, Material, MaterialParams,
};
use macroquad::miniquad::ShaderSource;
use macroquad::texture::{draw_texture, FilterMode, Image, Texture2D};

/// The canvas is opaque: drawn without blending, a software OpenGL writes each pixel once
/// instead of reading it back to mix.
const VERTEX: &str = "#version 100
attribute vec3 position;
attribute vec2 texcoord;
varying lowp vec2 uv;
uniform mat4 Model;
uniform mat4 Projection;
void main() {
    gl_Position = Projection * Model * vec4(position, 1);
    uv = texcoord;
}";
const FRAGMENT: &str = "#version 100
varying lowp vec2 uv;
uniform sampler2D Texture;
void main() {
    gl_FragColor = texture2D(Texture, uv);
}";

/// The canvas, sized to the window.
pub struct Canvas {
    image: Image,
    texture: Option<Texture2D>,
    /// The opaque material, made on first use (it needs the window's context).
    opaque: Option<Option<Material>>,
}

impl Canvas {
    /// An empty canvas; it takes the window's size on the first [`begin`](Self::begin).
    pub fn new() -> Self {
        Canvas {
            image: Image::empty(),
            texture: None,
            opaque: None,
        }
    }

    /// Starts a frame: resizes to `width` x `height` if needed, and clears to `background`.
    pub fn begin(&mut self, width: u16, height: u16, background: [u8; 4]) {
        // A minimised window can report a zero size; keep a 1x1 canvas rather than a 0x0 texture.
        let (width, height) = (width.max(1), height.max(1));
        if self.image.width != width || self.image.height != height {
            self.image = Image::gen_image_color(width, height, macroquad::color::BLANK);
            let texture = Texture2D::from_image(&self.image);
            texture.set_filter(FilterMode::Nearest);
            self.texture = Some(texture);
        }
        for px in self.image.bytes.chunks_exact_mut(4) {
            px.copy_from_slice(&background);
        }
    }

    /// Fills the pixel rectangle `[x, x + w) x [y, y + h)`, clipped to the canvas.
    pub fn fill(&mut self, x: f32, y: f32, w: f32, h: f32, rgba: [u8; 4]) {
        let (cw, ch) = (self.image.width as i64, self.image.height as i64);
        let x0 = (x.floor() as i64).clamp(0, cw);
        let y0 = (y.floor() as i64).clamp(0, ch);
        let x1 = ((x + w).floor() as i64).clamp(0, cw).max(x0 + 1).min(cw);
        let y1 = ((y + h).floor() as i64).clamp(0, ch).max(y0 + 1).min(ch);
        if x0 >= cw || y0 >= ch || x + w <= 0.0 || y + h <= 0.0 {
            return;
        }
        self.fill_pixels(x0 as usize, y0 as usize, x1 as usize, y1 as usize, rgba);
    }

    /// Fills the pixels `x0..x1` x `y0..y1`, already clipped to the canvas.
    #[inline]
    fn fill_pixels(&mut self, x0: usize, y0: usize, x1: usize, y1: usize, rgba: [u8; 4]) {
        let stride = usize::from(self.image.width) * 4;
        for row in y0..y1 {
            let span = &mut self.image.bytes[row * stride + x0 * 4..row * stride + x1 * 4];
            for px in span.chunks_exact_mut(4) {
                px.copy_from_slice(&rgba);
            }
        }
    }

    /// Fills the `side` x `side` square with its top-left pixel at `(x, y)`, clipped to the
    /// canvas: the particles' fast path, in whole pixels.
    #[inline]
    pub fn square(&mut self, x: i32, y: i32, side: i32, rgba: [u8; 4]) {
        let (cw, ch) = (i32::from(self.image.width), i32::from(self.image.height));
        let (x0, y0) = (x.max(0), y.max(0));
        let (x1, y1) = ((x + side).min(cw), (y + side).min(ch));
        if x0 >= x1 || y0 >= y1 {
            return;
        }
        self.fill_pixels(x0 as usize, y0 as usize, x1 as usize, y1 as usize, rgba);
    }

    /// Blends `rgb` over the pixel rectangle with opacity `alpha` (0 to 255): over a drawn
    /// pixel it mixes the colours, over an empty one it leaves a translucent tint.
    pub fn tint(&mut self, x: f32, y: f32, w: f32, h: f32, rgb: [u8; 3], alpha: u8) {
        let (cw, ch) = (self.image.width as i64, self.image.height as i64);
        let x0 = (x.floor() as i64).clamp(0, cw);
        let y0 = (y.floor() as i64).clamp(0, ch);
        let x1 = ((x + w).floor() as i64).clamp(0, cw);
        let y1 = ((y + h).floor() as i64).clamp(0, ch);
        let a = u32::from(alpha);
        let stride = cw as usize * 4;
        for row in y0 as usize..y1 as usize {
            let start = row * stride + x0 as usize * 4;
            let end = row * stride + x1 as usize * 4;
            for px in self.image.bytes[start..end].chunks_exact_mut(4) {
                if px[3] == 0 {
                    px.copy_from_slice(&[rgb[0], rgb[1], rgb[2], alpha]);
                } else {
                    for c in 0..3 {
                        px[c] =
                            ((u32::from(px[c]) * (255 - a) + u32::from(rgb[c]) * a) / 255) as u8;
                    }
                    px[3] = px[3].max(alpha);
                }
            }
        }
    }

    /// A one-pixel outline on the pixel columns `x0` and `x1` and rows `y0` and `y1` (edges
    /// included), pulled inside the canvas so that the world's border stays visible.
    pub fn outline(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, rgba: [u8; 4]) {
        let (cw, ch) = (self.image.width as f32, self.image.height as f32);
        let (x1, y1) = (x1.min(cw - 1.0), y1.min(ch - 1.0));
        let (x0, y0) = (x0.max(0.0), y0.max(0.0));
        if x1 < x0 || y1 < y0 {
            return;
        }
        let (w, h) = (x1 - x0 + 1.0, y1 - y0 + 1.0);
        self.fill(x0, y0, w, 1.0, rgba);
        self.fill(x0, y1, w, 1.0, rgba);
        self.fill(x0, y0, 1.0, h, rgba);
        self.fill(x1, y0, 1.0, h, rgba);
    }

    /// Uploads the frame and draws it over the whole window.
    pub fn present(&mut self) {
        let opaque = self.opaque.get_or_insert_with(|| {
            let shader = ShaderSource::Glsl {
                vertex: VERTEX,
                fragment: FRAGMENT,
            };
            // Without it (a backend that refuses the shader) the default, blended one serves.
            load_material(shader, MaterialParams::default()).ok()
        });
        if let Some(texture) = &self.texture {
            texture.update(&self.image);
            if let Some(material) = opaque {
                gl_use_material(material);
            }
            draw_texture(texture, 0.0, 0.0, WHITE);
            gl_use_default_material();
        }
    }
}
