//! The CPU canvas: the frame's many small things (floor, particles, node outlines) filled
//! into an image (a `u32` a pixel), uploaded as one texture that covers the window. Under a
//! software OpenGL (Mesa's llvmpipe, as on CI and Xvfb) per-triangle setup dominates: 50,000
//! particles as 100,000 triangles took about 45 ms a frame, one textured quad takes a
//! fraction of that.
//!
//! The image is filled in horizontal bands, one per thread of rayon's pool: each band runs
//! the whole [`Scene`] clipped to its rows, so every pixel sees the same writes in the same
//! order as on one thread, and the image is the same bits. The buffer is reused; nothing here
//! allocates per frame unless the window is resized.

use macroquad::color::WHITE;
use macroquad::material::{
    gl_use_default_material, gl_use_material, load_material, Material, MaterialParams,
};
use macroquad::miniquad::ShaderSource;
use macroquad::texture::{draw_texture, FilterMode, Texture2D};

use crate::render::gl::as_bytes;
#[cfg(not(target_arch = "wasm32"))]
use crate::render::gl::Blit;
use crate::render::overlay::Layer;
use crate::render::scene::{
    outline_edges, span, square_fills, square_span, tint_span, Painter, Scene, Square,
};
use crate::settings::RendererChoice;

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

/// Fewest rows a band gets: below this a thread's start costs more than its share saves.
const MIN_BAND_ROWS: usize = 64;

/// The order of a canvas pixel's bytes; rows go from the top either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// RGBA: what a texture drawn as a quad takes (WebGL, OpenGL 2).
    Rgba,
    /// BGRA: the window's own channel order, so that `glBlitFramebuffer` shows the canvas as
    /// a plain copy of rows (Mesa's llvmpipe copies memory there instead of running a shader
    /// over every pixel of the window; see [`crate::render::gl::Blit`]).
    Bgra,
}

impl Layout {
    /// `rgba` in this layout's channel order.
    #[inline]
    fn order(self, [r, g, b, a]: [u8; 4]) -> [u8; 4] {
        match self {
            Layout::Rgba => [r, g, b, a],
            Layout::Bgra => [b, g, r, a],
        }
    }

    /// `rgba` as a pixel of this layout: the `u32` whose bytes in memory are its channels.
    #[inline]
    fn pixel(self, rgba: [u8; 4]) -> u32 {
        u32::from_ne_bytes(self.order(rgba))
    }
}

/// The canvas, sized to the window.
pub struct Canvas {
    /// The pixels, top row first, each a `u32` whose bytes are its channels in `layout`'s
    /// order: filling a span of pixels is a plain fill of words.
    pixels: Vec<u32>,
    /// Width and height in pixels.
    size: (u16, u16),
    texture: Option<Texture2D>,
    /// The opaque material, made on first use (it needs the window's context).
    opaque: Option<Option<Material>>,
    /// How `pixels` hold their channels.
    layout: Layout,
    #[cfg(not(target_arch = "wasm32"))]
    blit: Blit,
    /// The scene the pixels hold, and whether the texture holds the pixels: a frame whose
    /// scene is the same (an empty or settled world) is shown again without filling or
    /// uploading the window's pixels.
    painted: Scene,
    /// The versions of the layers blended over the scene in the pixels.
    painted_layers: [u64; 2],
    uploaded: bool,
}

impl Painter for Canvas {
    fn renderer(&self) -> RendererChoice {
        RendererChoice::Canvas
    }

    fn blends_layers(&self) -> bool {
        true
    }

    fn paint(&mut self, scene: &Scene, layers: [&Layer; 2], width: u16, height: u16, bands: usize) {
        self.fill(width, height, scene, layers, bands);
        self.present();
    }
}

/// Rows `y0..y1` of the canvas, the part one thread fills.
struct Band<'a> {
    /// The band's pixels: row `y0` first.
    px: &'a mut [u32],
    /// The canvas's size in pixels.
    width: usize,
    height: usize,
    y0: usize,
    y1: usize,
    layout: Layout,
}

impl Band<'_> {
    /// Where row `row` (of the canvas, inside the band) starts in the band's pixels.
    #[inline]
    fn row_start(&self, row: usize) -> usize {
        (row - self.y0) * self.width
    }

    /// Fills the pixels `x0..x1` x `y0..y1` (clipped to the canvas already) that lie in the band.
    #[inline]
    fn fill_pixels(&mut self, x0: usize, y0: usize, x1: usize, y1: usize, rgba: [u8; 4]) {
        let color = self.layout.pixel(rgba);
        for row in y0.max(self.y0)..y1.min(self.y1) {
            let at = self.row_start(row);
            self.px[at + x0..at + x1].fill(color);
        }
    }

    /// Blends `rgb` with opacity `alpha` over the pixels `x0..x1` x `y0..y1` in the band.
    fn tint_pixels(&mut self, [x0, y0, x1, y1]: [usize; 4], [r, g, b]: [u8; 3], alpha: u8) {
        let a = u32::from(alpha);
        let [r, g, b, _] = self.layout.order([r, g, b, 255]);
        let rgb = [r, g, b];
        for row in y0.max(self.y0)..y1.min(self.y1) {
            let at = self.row_start(row);
            for px in &mut self.px[at + x0..at + x1] {
                let mut c4 = px.to_ne_bytes();
                for c in 0..3 {
                    c4[c] = ((u32::from(c4[c]) * (255 - a) + u32::from(rgb[c]) * a) / 255) as u8;
                }
                *px = u32::from_ne_bytes(c4);
            }
        }
    }

    /// Blends the boxes of `layer` over the band, as OpenGL would draw them onto the window:
    /// premultiplied colours over the pixels (rounded to nearest), or opaque wherever the
    /// texel has coverage.
    fn blend_layer(&mut self, layer: &Layer) {
        let (w, h) = (self.width, self.height);
        for &([x0, y0, bw, bh], start) in &layer.boxes {
            let (x1, y1) = ((x0 + bw).min(w), (y0 + bh).min(h));
            if x1 <= x0 {
                continue;
            }
            for row in y0.max(self.y0)..y1.min(self.y1) {
                let at = self.row_start(row);
                // Texels go bottom row first.
                let from = start + (y0 + bh - 1 - row) * bw * 4;
                let (Some(px), Some(texels)) = (
                    self.px.get_mut(at + x0..at + x1),
                    layer.texels.get(from..from + (x1 - x0) * 4),
                ) else {
                    continue;
                };
                match (self.layout, layer.drawn_is_opaque) {
                    (Layout::Rgba, false) => blend_row::<false>(px, texels),
                    (Layout::Bgra, false) => blend_row::<true>(px, texels),
                    (layout, true) => cover_row(px, texels, layout),
                }
            }
        }
    }

    /// Fills the `N` x `N` squares of `particles` (top-left corners and colours) that meet the
    /// band: those wholly inside it row by row as fixed-size arrays, the others clipped.
    fn small_squares<const N: usize>(&mut self, particles: &[(i32, i32, [u8; 4])]) {
        let (w, h) = (self.width, self.height);
        let (top, bottom) = (self.y0 as i32, self.y1 as i32);
        let side = N as i32;
        for &(x, y, rgba) in particles {
            if y >= bottom || y + side <= top {
                continue;
            }
            if x >= 0 && x + side <= w as i32 && y >= top && y + side <= bottom {
                let row = [self.layout.pixel(rgba); N];
                let at = self.row_start(y as usize) + x as usize;
                // One bounds check for the square: its rows are `w` apart, each of `N` pixels
                // (the last one ends the slice, every other one is a whole `w` long).
                if let Some(square) = self.px.get_mut(at..at + (N - 1) * w + N) {
                    for r in 0..N {
                        square[r * w..r * w + N].copy_from_slice(&row);
                    }
                }
            } else if let Some([x0, y0, x1, y1]) = square_span(x, y, side, w, h) {
                self.fill_pixels(x0, y0, x1, y1, rgba);
            }
        }
    }

    /// Draws the scene's part in this band, then the layers' boxes over it.
    fn paint(&mut self, scene: &Scene, layers: [&Layer; 2]) {
        let (w, h) = (self.width, self.height);
        // The background and the floor in one pass: each pixel is written once.
        let background = self.layout.pixel(scene.background);
        let floor = scene
            .floor
            .and_then(|(r, rgba)| Some((span(r, w, h)?, self.layout.pixel(rgba))));
        for row in self.y0..self.y1 {
            let at = self.row_start(row);
            let line = &mut self.px[at..at + w];
            match floor {
                Some(([x0, y0, x1, y1], color)) if (y0..y1).contains(&row) => {
                    line[..x0].fill(background);
                    line[x0..x1].fill(color);
                    line[x1..].fill(background);
                }
                _ => line.fill(background),
            }
        }
        let side = scene.side;
        let square = |band: &mut Self, &s: &Square| {
            for (x, y, side, rgba) in square_fills(s, side) {
                if let Some([x0, y0, x1, y1]) = square_span(x, y, side, w, h) {
                    band.fill_pixels(x0, y0, x1, y1, rgba);
                }
            }
        };
        if let Some((r, rgb, alpha)) = scene.quad_tint {
            if let Some(s) = tint_span(r, w, h) {
                self.tint_pixels(s, rgb, alpha);
            }
        }
        // Squares of a few pixels (the whole world in view) take a fixed-size path.
        match side {
            1 => self.small_squares::<1>(&scene.particles),
            2 => self.small_squares::<2>(&scene.particles),
            3 => self.small_squares::<3>(&scene.particles),
            4 => self.small_squares::<4>(&scene.particles),
            5 => self.small_squares::<5>(&scene.particles),
            // Bordered from BORDER_FROM_SIDE on.
            _ => {
                let (top, bottom) = (self.y0 as i32, self.y1 as i32);
                for p in scene
                    .particles
                    .iter()
                    .filter(|p| p.1 < bottom && p.1 + side > top)
                {
                    square(self, p);
                }
            }
        }
        for &r in &scene.tints {
            if let Some(s) = tint_span(r, w, h) {
                self.tint_pixels(s, scene.tint.0, scene.tint.1);
            }
        }
        for p in &scene.highlights {
            square(self, p);
        }
        // The band's rows widened by one: an outline outside them surely misses the band
        // (whatever rounding `span` does), and most of a band's outlines do.
        let (top, bottom) = (self.y0 as f32 - 1.0, self.y1 as f32);
        for &(r, rgba) in &scene.outlines {
            if r[3] < top || r[1] > bottom {
                continue;
            }
            for edge in outline_edges(r, w, h).into_iter().flatten() {
                if let Some([x0, y0, x1, y1]) = span(edge, w, h) {
                    self.fill_pixels(x0, y0, x1, y1, rgba);
                }
            }
        }
        for &(r, [red, green, blue, alpha]) in &scene.flashes {
            if let Some(s) = tint_span(r, w, h) {
                self.tint_pixels(s, [red, green, blue], alpha);
            }
        }
        for &r in &scene.probe {
            if let Some([x0, y0, x1, y1]) = tint_span(r, w, h) {
                self.fill_pixels(x0, y0, x1, y1, scene.probe_rgba);
            }
        }
        for layer in layers {
            self.blend_layer(layer);
        }
    }
}

/// Blends premultiplied RGBA `texels` over the pixels `px` as OpenGL's `ONE,
/// ONE_MINUS_SRC_ALPHA` would, rounding to the nearest; `BGRA` says the pixels' order.
#[inline]
fn blend_row<const BGRA: bool>(px: &mut [u32], texels: &[u8]) {
    for (px, t) in px.iter_mut().zip(texels.chunks_exact(4)) {
        let mut c4 = px.to_ne_bytes();
        let keep = 255 - u32::from(t[3]);
        let src = if BGRA {
            [t[2], t[1], t[0]]
        } else {
            [t[0], t[1], t[2]]
        };
        for (under, over) in c4.iter_mut().zip(src) {
            let kept = (u32::from(*under) * keep + 127) / 255;
            *under = (u32::from(over) + kept).min(255) as u8;
        }
        *px = u32::from_ne_bytes(c4);
    }
}

/// Puts the colour of every texel with some coverage onto its pixel, keeping the pixel's
/// alpha (the controls panel, drawn opaque).
#[inline]
fn cover_row(px: &mut [u32], texels: &[u8], layout: Layout) {
    for (px, t) in px.iter_mut().zip(texels.chunks_exact(4)) {
        if t[3] > 0 {
            let mut c4 = layout.order([t[0], t[1], t[2], 0]);
            c4[3] = px.to_ne_bytes()[3];
            *px = u32::from_ne_bytes(c4);
        }
    }
}

impl Canvas {
    /// An empty canvas in `layout`; it takes the window's size on the first
    /// [`fill`](Self::fill). [`Layout::Bgra`] is shown with a framebuffer blit
    /// (desktop OpenGL 3 and newer), and falls back to the textured quad where that fails.
    pub fn new(layout: Layout) -> Self {
        Canvas {
            pixels: Vec::new(),
            size: (0, 0),
            texture: None,
            opaque: None,
            #[cfg(not(target_arch = "wasm32"))]
            layout,
            #[cfg(target_arch = "wasm32")]
            layout: {
                let _ = layout;
                Layout::Rgba
            },
            #[cfg(not(target_arch = "wasm32"))]
            blit: Blit::default(),
            painted: Scene::default(),
            painted_layers: [0; 2],
            uploaded: false,
        }
    }

    /// Resizes to `width` x `height` if needed and draws `scene` and then `layers` (the text
    /// over the world, the controls panel) in up to `bands` horizontal bands at once.
    pub fn fill(
        &mut self,
        width: u16,
        height: u16,
        scene: &Scene,
        layers: [&Layer; 2],
        bands: usize,
    ) {
        // A minimised window can report a zero size; keep a 1x1 canvas rather than a 0x0 texture.
        let (width, height) = (width.max(1), height.max(1));
        let versions = layers.map(|l| l.version);
        if self.size != (width, height) {
            self.size = (width, height);
            self.pixels.clear();
            self.pixels
                .resize(usize::from(width) * usize::from(height), 0);
        } else if self.uploaded && *scene == self.painted && versions == self.painted_layers {
            return;
        }
        self.uploaded = false;
        self.painted.copy_from(scene);
        self.painted_layers = versions;
        let (w, h) = (usize::from(width), usize::from(height));
        let bands = bands.clamp(1, (h / MIN_BAND_ROWS).max(1));
        let rows = h.div_ceil(bands);
        let layout = self.layout;
        let band = |(i, px): (usize, &mut [u32])| {
            let y0 = i * rows;
            let y1 = (y0 + rows).min(h);
            Band {
                px,
                width: w,
                height: h,
                y0,
                y1,
                layout,
            }
            .paint(scene, layers);
        };
        #[cfg(not(target_arch = "wasm32"))]
        if bands > 1 {
            use rayon::prelude::*;
            self.pixels
                .par_chunks_mut(rows * w)
                .enumerate()
                .for_each(band);
            return;
        }
        self.pixels.chunks_mut(rows * w).enumerate().for_each(band);
    }

    /// The canvas's pixel at `(x, y)`, as RGBA, for tests.
    #[cfg(test)]
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 4] {
        let px = self.pixels[y * usize::from(self.size.0) + x].to_ne_bytes();
        // The swap is its own inverse.
        self.layout.order(px)
    }

    /// The pixels as bytes, as OpenGL reads them.
    #[cfg(test)]
    fn bytes(&self) -> &[u8] {
        as_bytes(&self.pixels)
    }

    /// Turns the pixels into [`Layout::Rgba`] (when the blit turned out unusable).
    #[cfg(not(target_arch = "wasm32"))]
    fn swap_to_rgba(&mut self) {
        if self.layout == Layout::Rgba {
            return;
        }
        for px in &mut self.pixels {
            let [b, g, r, a] = px.to_ne_bytes();
            *px = u32::from_ne_bytes([r, g, b, a]);
        }
        self.layout = Layout::Rgba;
        self.uploaded = false;
    }

    /// Uploads the frame and draws it over the whole window.
    pub fn present(&mut self) {
        let (w, h) = self.size;
        #[cfg(not(target_arch = "wasm32"))]
        if self.layout == Layout::Bgra {
            if self.blit.show(as_bytes(&self.pixels), w, h, !self.uploaded) {
                self.uploaded = true;
                return;
            }
            self.swap_to_rgba();
        }
        let opaque = self.opaque.get_or_insert_with(|| {
            let shader = ShaderSource::Glsl {
                vertex: VERTEX,
                fragment: FRAGMENT,
            };
            // Without it (a backend that refuses the shader) the default, blended one serves.
            load_material(shader, MaterialParams::default()).ok()
        });
        if self
            .texture
            .as_ref()
            .is_none_or(|t| t.size() != (f32::from(w), f32::from(h)).into())
        {
            let texture = Texture2D::from_rgba8(w, h, as_bytes(&self.pixels));
            texture.set_filter(FilterMode::Nearest);
            self.texture = Some(texture);
            self.uploaded = false;
        }
        if let Some(texture) = &self.texture {
            if !self.uploaded {
                texture.update_from_bytes(u32::from(w), u32::from(h), as_bytes(&self.pixels));
                self.uploaded = true;
            }
            if let Some(material) = opaque {
                gl_use_material(material);
            }
            draw_texture(texture, 0.0, 0.0, WHITE);
            gl_use_default_material();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::palette::{FLOOR_RGBA, HIGHLIGHT, OUTLINE_COLORS};

    /// A scene with some of everything, crossing band edges and the window's edges.
    fn scene() -> Scene {
        let mut s = Scene {
            background: [1, 2, 3, 255],
            floor: Some(([10.0, 5.0, 280.0, 190.0], FLOOR_RGBA)),
            quad_tint: Some(([50.5, 60.2, 100.0, 80.0], [40, 110, 255], 56)),
            side: 3,
            tint: ([255, 255, 255], 64),
            ..Scene::default()
        };
        for i in 0..2000i32 {
            let (x, y) = ((i * 37) % 310 - 5, (i * 53) % 215 - 5);
            s.particles.push((x, y, [(i % 200) as u8, 90, 40, 255]));
        }
        s.tints.push([60.0, 63.0, 70.0, 70.0]);
        s.highlights.push((64, 64, HIGHLIGHT));
        s.outlines
            .push(([0.0, 0.0, 300.0, 200.0], OUTLINE_COLORS[0]));
        s.outlines
            .push(([20.0, 62.0, 150.0, 66.0], OUTLINE_COLORS[3]));
        s
    }

    #[test]
    fn bands_give_the_same_pixels_as_one_thread() {
        let scene = scene();
        let mut one = Canvas::new(Layout::Rgba);
        one.fill(300, 200, &scene, [&Layer::default(), &Layer::default()], 1);
        // 200 rows in bands of at least 64: three bands, the last one short.
        let mut banded = Canvas::new(Layout::Rgba);
        banded.fill(300, 200, &scene, [&Layer::default(), &Layer::default()], 8);
        assert!(one.pixels == banded.pixels, "the bands differ");
        assert_eq!(
            one.pixel(0, 0),
            OUTLINE_COLORS[0],
            "the border is pulled inside"
        );
        let background = (1..300)
            .filter(|&x| one.pixel(x, 2) == [1, 2, 3, 255])
            .count();
        assert!(
            background > 100,
            "background above the floor: {background} pixels"
        );
        assert_eq!(one.pixel(65, 65), HIGHLIGHT);
    }

    /// A layer of one `w` x `h` box at `(x, y)` of texel `rgba`.
    fn layer(x: usize, y: usize, w: usize, h: usize, rgba: [u8; 4], opaque: bool) -> Layer {
        Layer {
            boxes: vec![([x, y, w, h], 0)],
            texels: rgba.repeat(w * h),
            drawn_is_opaque: opaque,
            version: 1,
            ..Layer::default()
        }
    }

    #[test]
    fn layers_blend_over_the_scene_as_opengl_would_on_any_band_count() {
        let scene = scene();
        let mut plain = Canvas::new(Layout::Rgba);
        let none = Layer::default();
        plain.fill(300, 200, &scene, [&none, &none], 1);
        // 80% black over everything (the text panels' fill), and an opaque panel with a
        // hole (no coverage) at its first texel.
        let text = layer(40, 50, 120, 100, [0, 0, 0, 204], false);
        let mut panel = layer(200, 60, 50, 70, [70, 80, 90, 255], true);
        // Texels come bottom row first: the first is the box's bottom-left.
        panel.texels[3] = 0;
        for layout in [Layout::Rgba, Layout::Bgra] {
            let mut one = Canvas::new(layout);
            one.fill(300, 200, &scene, [&text, &panel], 1);
            let mut banded = Canvas::new(layout);
            banded.fill(300, 200, &scene, [&text, &panel], 3);
            assert!(one.pixels == banded.pixels, "the bands differ");
            for (x, y) in [(40, 50), (100, 100), (159, 149)] {
                let under = plain.pixel(x, y);
                let over = one.pixel(x, y);
                for c in 0..3 {
                    let expected = (f32::from(under[c]) * 51.0 / 255.0).round() as u8;
                    assert_eq!(over[c], expected, "({x}, {y}) channel {c}");
                }
            }
            assert_eq!(one.pixel(39, 100), plain.pixel(39, 100), "left of the box");
            assert_eq!(one.pixel(220, 100), [70, 80, 90, 255]);
            assert_eq!(one.pixel(200, 129), plain.pixel(200, 129), "the hole");
            assert_eq!(one.pixel(201, 129), [70, 80, 90, 255]);
        }
        // A new version of a layer is painted again, the same one is not.
        let mut canvas = Canvas::new(Layout::Rgba);
        canvas.fill(300, 200, &scene, [&text, &panel], 2);
        canvas.uploaded = true;
        canvas.fill(300, 200, &scene, [&text, &panel], 2);
        assert!(canvas.uploaded);
        panel.version += 1;
        canvas.fill(300, 200, &scene, [&text, &panel], 2);
        assert!(!canvas.uploaded);
    }

    #[test]
    fn the_window_order_holds_the_same_pixels_with_red_and_blue_swapped() {
        let scene = scene();
        let mut rgba = Canvas::new(Layout::Rgba);
        rgba.fill(300, 200, &scene, [&Layer::default(), &Layer::default()], 1);
        let mut bgra = Canvas::new(Layout::Bgra);
        bgra.fill(300, 200, &scene, [&Layer::default(), &Layer::default()], 3);
        for (a, b) in rgba
            .bytes()
            .chunks_exact(4)
            .zip(bgra.bytes().chunks_exact(4))
        {
            assert_eq!([a[2], a[1], a[0], a[3]], b);
        }
        assert_eq!(bgra.pixel(65, 65), HIGHLIGHT);
        assert_eq!(bgra.bytes()[..4], [255, 255, 255, 255]);
        // The floor's blue and red are not the same, so the swap shows.
        assert_eq!(bgra.pixel(150, 190)[..3], rgba.pixel(150, 190)[..3]);
        bgra.swap_to_rgba();
        assert!(bgra.pixels == rgba.pixels);
    }

    #[test]
    fn small_squares_fill_the_pixels_that_clipped_spans_do() {
        let scene = scene();
        let (w, h) = (300, 200);
        let paint = |small: bool, side: i32, y0: usize, y1: usize| {
            let mut px = vec![0u32; (y1 - y0) * w];
            let mut band = Band {
                px: &mut px,
                width: w,
                height: h,
                y0,
                y1,
                layout: Layout::Bgra,
            };
            if small {
                match side {
                    1 => band.small_squares::<1>(&scene.particles),
                    3 => band.small_squares::<3>(&scene.particles),
                    _ => band.small_squares::<6>(&scene.particles),
                }
            } else {
                for &(x, y, rgba) in &scene.particles {
                    if let Some([x0, y0, x1, y1]) = square_span(x, y, side, w, h) {
                        band.fill_pixels(x0, y0, x1, y1, rgba);
                    }
                }
            }
            px
        };
        for side in [1, 3, 6] {
            for (y0, y1) in [(0, 200), (0, 64), (64, 131), (131, 200)] {
                let small = paint(true, side, y0, y1);
                assert!(
                    small == paint(false, side, y0, y1),
                    "side {side}, rows {y0}..{y1}"
                );
                assert!(
                    small.iter().filter(|&&p| p != 0).count() > 100,
                    "nothing drawn"
                );
            }
        }
    }

    #[test]
    fn an_unchanged_scene_is_not_filled_again_and_a_changed_one_is() {
        let mut scene = scene();
        let mut canvas = Canvas::new(Layout::Rgba);
        canvas.fill(300, 200, &scene, [&Layer::default(), &Layer::default()], 2);
        let first = canvas.pixels.clone();
        // As after `present`: the texture holds the image.
        canvas.uploaded = true;
        canvas.pixels[0] = 99;
        canvas.fill(300, 200, &scene, [&Layer::default(), &Layer::default()], 2);
        assert_eq!(canvas.pixels[0], 99, "the same scene was filled again");
        scene.highlights.push((150, 190, HIGHLIGHT));
        canvas.fill(300, 200, &scene, [&Layer::default(), &Layer::default()], 2);
        assert!(!canvas.uploaded, "a changed scene must be uploaded");
        let mut fresh = Canvas::new(Layout::Rgba);
        fresh.fill(300, 200, &scene, [&Layer::default(), &Layer::default()], 1);
        assert!(canvas.pixels == fresh.pixels);
        assert!(canvas.pixels != first);
        assert_eq!(canvas.pixel(151, 191), HIGHLIGHT);
    }
}
