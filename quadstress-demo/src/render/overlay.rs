//! The text over the world (statistics panel, query report, message, hint, help), kept in a
//! render target: under a software OpenGL, shading every glyph every frame costs more than the
//! particles do. The target is redrawn when what it shows changes, and every
//! [`REFRESH_FRAMES`] frames for the timing lines; each frame shows only its panels' boxes, one
//! textured quad each.
//!
//! The target holds premultiplied colours: drawn into it with the colour blended as usual and
//! its alpha as `src + dst * (1 - src)`, a panel's translucent fill and the text over it
//! become one texel that, blended onto the window as premultiplied, gives the same pixel as
//! drawing them onto the window one after the other.

use macroquad::camera::{set_camera, set_default_camera, Camera2D};
use macroquad::color::{Color, WHITE};
use macroquad::material::{gl_use_default_material, gl_use_material, load_material};
use macroquad::material::{Material, MaterialParams};
use macroquad::math::{vec2, Rect};
use macroquad::miniquad::ShaderSource;
use macroquad::miniquad::{BlendFactor, BlendState, BlendValue, Equation, PipelineParams};
use macroquad::texture::{
    draw_texture_ex, render_target, DrawTextureParams, FilterMode, RenderTarget,
};
use macroquad::ui::{DrawList, Ui};
use macroquad::window::clear_background;

/// Frames between two redraws while nothing but the timings changes: at 60 FPS the HUD's
/// numbers and frame graph move four times a second. Counted in frames rather than seconds so
/// that a frame costs the same however slowly it runs (under an instruction counter too).
pub const REFRESH_FRAMES: u32 = 15;

const VERTEX: &str = "#version 100
attribute vec3 position;
attribute vec2 texcoord;
attribute vec4 color0;
varying lowp vec2 uv;
varying lowp vec4 color;
uniform mat4 Model;
uniform mat4 Projection;
void main() {
    gl_Position = Projection * Model * vec4(position, 1);
    uv = texcoord;
    color = color0 / 255.0;
}
";

const FRAGMENT: &str = "#version 100
varying lowp vec2 uv;
varying lowp vec4 color;
uniform sampler2D Texture;
void main() {
    gl_FragColor = texture2D(Texture, uv) * color;
}
";

/// The controls panel's texels onto the window: the `ui` blends its alpha like its colours,
/// which leaves translucent widgets on its opaque window less than opaque in the target;
/// every texel it drew is opaque on the window.
const FRAGMENT_DRAWN_IS_OPAQUE: &str = "#version 100
varying lowp vec2 uv;
varying lowp vec4 color;
uniform sampler2D Texture;
void main() {
    lowp vec4 texel = texture2D(Texture, uv) * color;
    gl_FragColor = texel.a > 0.0 ? vec4(texel.rgb, 1.0) : vec4(0.0);
}
";

/// The material the panels are drawn with: colours blended from `color_source`, alpha
/// added up as coverage.
fn material(color_source: BlendFactor) -> Option<Material> {
    material_with(FRAGMENT, color_source)
}

fn material_with(fragment: &str, color_source: BlendFactor) -> Option<Material> {
    let over = |source| {
        Some(BlendState::new(
            Equation::Add,
            source,
            BlendFactor::OneMinusValue(BlendValue::SourceAlpha),
        ))
    };
    load_material(
        ShaderSource::Glsl {
            vertex: VERTEX,
            fragment,
        },
        MaterialParams {
            pipeline_params: PipelineParams {
                color_blend: over(color_source),
                alpha_blend: over(BlendFactor::One),
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .ok()
}

/// Boxes of a render target read back into memory, for the CPU canvas to blend over its
/// pixels: under a software OpenGL, blending textured quads over the window costs more than
/// the canvas's own filling, and the boxes change only every few frames.
#[derive(Debug, Default)]
pub struct Layer {
    /// Each box: its first column and row on the window, its width and height, and where its
    /// texels start in `texels` (RGBA, its bottom row first, as OpenGL reads them).
    pub boxes: Vec<([usize; 4], usize)>,
    pub texels: Vec<u8>,
    /// How the texels go onto the window: premultiplied colours blended over it, or (the
    /// controls panel) every texel with some coverage opaque.
    pub drawn_is_opaque: bool,
    /// Changes whenever the boxes or texels do.
    pub version: u64,
    /// The framebuffer object around the target's texture, made on first use, and that
    /// texture's GL name.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fbo: (u32, u32),
}

impl Layer {
    /// Reads boxes `boxes` of `target` (`height` rows, the window's rows bottom up) back.
    #[cfg(not(target_arch = "wasm32"))]
    fn read(&mut self, target: &RenderTarget, height: u32, boxes: &[Rect]) {
        self.version += 1;
        self.boxes.clear();
        self.texels.clear();
        for b in boxes {
            let (x0, y0) = (b.x as usize, b.y as usize);
            let (w, h) = (
                b.w as usize,
                (b.h as usize).min((height as usize).saturating_sub(y0)),
            );
            if w == 0 || h == 0 {
                continue;
            }
            self.boxes.push(([x0, y0, w, h], self.texels.len()));
            self.texels.resize(self.texels.len() + w * h * 4, 0);
        }
        crate::render::gl::read_boxes(target, height, &mut self.fbo, &self.boxes, &mut self.texels);
    }
}

/// The cached overlay: its render target, the boxes drawn into it, and when and from what
/// it was last drawn.
pub struct Overlay {
    target: Option<(RenderTarget, u32, u32)>,
    /// Drawing into the target (premultiplies) and from it onto the window.
    into_target: Option<Material>,
    onto_window: Option<Material>,
    /// The screen boxes the panels were drawn in, whole pixels.
    boxes: Vec<Rect>,
    /// What the target shows, apart from the timings; and the frames since it was drawn.
    key: u64,
    frames: u32,
    /// Whether the next frame draws the panels again.
    again: bool,
    /// Whether drawing goes to the target (false: straight onto the window, the reference
    /// the cache is tested against, and the fallback when a material fails to load).
    cached: bool,
    /// The boxes read back after each redraw, when the canvas blends them in.
    pub layer: Layer,
    composited: bool,
}

impl Overlay {
    /// An overlay drawn through a render target when `cached`, else straight onto the window.
    pub fn new(cached: bool) -> Self {
        let (into_target, onto_window) = if cached {
            (
                material(BlendFactor::Value(BlendValue::SourceAlpha)),
                // The target's colours are premultiplied already.
                material(BlendFactor::One),
            )
        } else {
            (None, None)
        };
        let cached = into_target.is_some() && onto_window.is_some();
        Overlay {
            target: None,
            into_target,
            onto_window,
            boxes: Vec::new(),
            key: 0,
            frames: REFRESH_FRAMES,
            again: false,
            cached,
            layer: Layer::default(),
            composited: false,
        }
    }

    /// From now on the boxes are read back after each redraw into [`layer`](Self::layer), for
    /// the CPU canvas to blend in, and [`show`](Self::show) draws nothing (desktop only, with
    /// the cache).
    pub fn composite_on_cpu(&mut self) {
        self.composited = self.cached && cfg!(not(target_arch = "wasm32"));
    }

    /// Whether the overlay goes through the render target.
    pub fn cached(&self) -> bool {
        self.cached
    }

    /// Whether the panels must be drawn this frame (called once a frame): the window's size or
    /// `key` (what they show, timings aside) changed, or [`REFRESH_FRAMES`] passed. Straight
    /// onto the window, always.
    pub fn due(&mut self, key: u64, width: u32, height: u32) -> bool {
        self.frames = self.frames.saturating_add(1);
        let changed = !self.cached
            || self.key != key
            || self.frames >= REFRESH_FRAMES
            || !matches!(self.target, Some((_, w, h)) if w == width && h == height);
        // Text with glyphs new to the font's atlas can come out blank in the frame that adds
        // them (the atlas grows into a new texture): each redraw is done again once.
        let again = std::mem::replace(&mut self.again, changed);
        changed || again
    }

    /// Starts drawing the panels: into the cleared target (sized to the window), or onto the
    /// window. Each panel then reports its box with [`add_box`](Self::add_box).
    pub fn begin(&mut self, key: u64, width: u32, height: u32) {
        self.boxes.clear();
        if !self.cached {
            return;
        }
        if !matches!(self.target, Some((_, w, h)) if w == width && h == height) {
            let target = render_target(width.max(1), height.max(1));
            target.texture.set_filter(FilterMode::Nearest);
            self.target = Some((target, width, height));
        }
        let Some((target, w, h)) = &self.target else {
            return;
        };
        let (w, h) = (*w as f32, *h as f32);
        // The window's own projection, so that edges between pixels round as they do on the
        // window: the target holds the window's rows bottom up, and is shown flipped.
        set_camera(&Camera2D {
            target: vec2(w / 2.0, h / 2.0),
            zoom: vec2(2.0 / w, -2.0 / h),
            render_target: Some(target.clone()),
            ..Default::default()
        });
        clear_background(Color::new(0.0, 0.0, 0.0, 0.0));
        if let Some(m) = &self.into_target {
            gl_use_material(m);
        }
        self.key = key;
        self.frames = 0;
    }

    /// A panel drawn at `(x, y, w, h)`.
    pub fn add_box(&mut self, x: f32, y: f32, w: f32, h: f32) {
        let (x0, y0) = (x.floor().max(0.0), y.floor().max(0.0));
        let (x1, y1) = ((x + w).ceil(), (y + h).ceil());
        if x1 > x0 && y1 > y0 {
            self.boxes.push(Rect::new(x0, y0, x1 - x0, y1 - y0));
        }
    }

    /// Ends drawing the panels.
    pub fn end(&mut self) {
        if self.cached {
            gl_use_default_material();
            set_default_camera();
        }
        #[cfg(not(target_arch = "wasm32"))]
        if let (true, Some((target, _, height))) = (self.composited, &self.target) {
            self.layer.read(target, *height, &self.boxes);
        }
    }

    /// Shows the target's panels on the window (nothing to do when drawn straight onto it).
    pub fn show(&self) {
        let (Some((target, _, height)), Some(m), true, false) = (
            &self.target,
            &self.onto_window,
            self.cached,
            self.composited,
        ) else {
            return;
        };
        gl_use_material(m);
        for b in &self.boxes {
            show_box(target, *height, b);
        }
        gl_use_default_material();
    }
}

/// The controls panel (macroquad's `ui`, which draws itself after the frame) kept in a render
/// target the same way: when its triangles change, the frame ends with the target as the
/// camera's, so the `ui` draws into it; otherwise with a one-pixel target, where its
/// triangles cost next to nothing. Each frame shows the box of what the target holds: the
/// panel as it was drawn at the end of the last frame.
pub struct PanelCache {
    target: Option<(RenderTarget, u32, u32)>,
    /// Where the `ui` draws while nothing changed.
    void: Option<RenderTarget>,
    onto_window: Option<Material>,
    /// The `ui`'s triangles this frame, to compare with those in the target.
    list: Vec<DrawList>,
    /// What the target holds: a hash of its triangles, and their box on the window.
    drawn: u64,
    shown: Option<Rect>,
    cached: bool,
    /// The box read back after each redraw, when the canvas blends it in; and whether the
    /// target was redrawn since it was last read.
    pub layer: Layer,
    composited: bool,
    fresh: bool,
}

impl PanelCache {
    /// A cache when `cached`, else the `ui` draws onto the window as usual.
    pub fn new(cached: bool) -> Self {
        let onto_window = if cached {
            material_with(FRAGMENT_DRAWN_IS_OPAQUE, BlendFactor::One)
        } else {
            None
        };
        PanelCache {
            target: None,
            void: None,
            cached: onto_window.is_some(),
            onto_window,
            list: Vec::new(),
            drawn: 0,
            shown: None,
            layer: Layer {
                drawn_is_opaque: true,
                ..Layer::default()
            },
            composited: false,
            fresh: false,
        }
    }

    /// From now on the panel is read back after each redraw into [`layer`](Self::layer), for
    /// the CPU canvas to blend in, and [`show`](Self::show) draws nothing (desktop only).
    pub fn composite_on_cpu(&mut self) {
        self.composited = self.cached && cfg!(not(target_arch = "wasm32"));
    }

    /// Reads the panel back if the `ui` redrew it at the end of the last frame (or hides it
    /// when the `ui` drew nothing).
    pub fn read_back(&mut self) {
        let due = std::mem::take(&mut self.fresh) && self.composited;
        #[cfg(not(target_arch = "wasm32"))]
        if let (true, Some((target, _, height))) = (due, &self.target) {
            let boxes: &[Rect] = match &self.shown {
                Some(b) => std::slice::from_ref(b),
                None => &[],
            };
            self.layer.read(target, *height, boxes);
        }
        #[cfg(target_arch = "wasm32")]
        let _ = due;
    }

    /// Shows what the target holds.
    pub fn show(&self) {
        let (Some((target, _, height)), Some(m), Some(b), false) =
            (&self.target, &self.onto_window, self.shown, self.composited)
        else {
            return;
        };
        gl_use_material(m);
        show_box(target, *height, &b);
        gl_use_default_material();
    }

    /// Called last in a frame, after the `ui`'s widgets: points the camera where the `ui`
    /// will draw at the frame's end (the next frame starts with the default camera again).
    pub fn before_present(&mut self, ui: &mut Ui, width: u32, height: u32) {
        if !self.cached {
            return;
        }
        self.list.clear();
        ui.render(&mut self.list);
        let (hash, bounds) = hash_and_bounds(&self.list);
        let sized = matches!(self.target, Some((_, w, h)) if w == width && h == height);
        if sized && hash == self.drawn {
            let void = self.void.get_or_insert_with(|| render_target(1, 1));
            set_camera(&Camera2D {
                render_target: Some(void.clone()),
                ..Default::default()
            });
            return;
        }
        if !sized {
            let target = render_target(width.max(1), height.max(1));
            target.texture.set_filter(FilterMode::Nearest);
            self.target = Some((target, width, height));
        }
        let Some((target, _, _)) = &self.target else {
            return;
        };
        // The camera only names the target: the `ui` brings its own window projection.
        set_camera(&Camera2D {
            render_target: Some(target.clone()),
            ..Default::default()
        });
        clear_background(Color::new(0.0, 0.0, 0.0, 0.0));
        self.drawn = hash;
        self.fresh = true;
        self.shown = bounds.map(|[x0, y0, x1, y1]| {
            let (x0, y0) = (x0.floor().max(0.0), y0.floor().max(0.0));
            let (x1, y1) = (x1.ceil().min(width as f32), y1.ceil().min(height as f32));
            Rect::new(x0, y0, (x1 - x0).max(0.0), (y1 - y0).max(0.0))
        });
    }
}

/// A hash of the `ui`'s triangles (positions, texture coordinates, colours, clipping) and
/// the box of their vertices on the window, within their clipping.
fn hash_and_bounds(list: &[DrawList]) -> (u64, Option<[f32; 4]>) {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut bounds: Option<[f32; 4]> = None;
    for d in list {
        d.indices.hash(&mut h);
        d.texture.is_some().hash(&mut h);
        let clip = d.clipping_zone;
        if let Some(c) = clip {
            [c.x, c.y, c.w, c.h].map(f32::to_bits).hash(&mut h);
        }
        for v in &d.vertices {
            [v.position.x, v.position.y, v.uv.x, v.uv.y]
                .map(f32::to_bits)
                .hash(&mut h);
            v.color.hash(&mut h);
            let (mut x, mut y) = (v.position.x, v.position.y);
            if let Some(c) = clip {
                x = x.clamp(c.x, c.x + c.w);
                y = y.clamp(c.y, c.y + c.h);
            }
            bounds = Some(match bounds {
                None => [x, y, x, y],
                Some([x0, y0, x1, y1]) => [x0.min(x), y0.min(y), x1.max(x), y1.max(y)],
            });
        }
    }
    (h.finish(), bounds)
}

/// Draws box `b` of a window-sized `target` (`height` pixels high, rows bottom-up) at the same
/// place on the window.
fn show_box(target: &RenderTarget, height: u32, b: &Rect) {
    draw_texture_ex(
        &target.texture,
        b.x,
        b.y,
        WHITE,
        DrawTextureParams {
            dest_size: Some(vec2(b.w, b.h)),
            source: Some(Rect::new(b.x, height as f32 - b.y - b.h, b.w, b.h)),
            flip_y: true,
            ..Default::default()
        },
    );
}
