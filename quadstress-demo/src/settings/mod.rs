//! What the demo is set to: the world and its cap, what is drawn, the renderer. Plain types
//! and constants that the flags, the controls table, the state and the drawing all share, so
//! that each of them imports them from here (see the layers in `main.rs`).

pub mod cli;
pub mod files;
pub mod panel_controls;
pub mod report;
pub mod startup;

use clap::ValueEnum;
use quadstress::{Placement, Rect};

/// The world the demo simulates: three times the default window, so 50,000 particles of 8x8
/// cover about 45% of it.
pub const WORLD: Rect = Rect::new(0.0, 0.0, 3072.0, 2304.0);
/// Side of a particle in world units: 8 px at 1:1.
pub const PARTICLE_SIZE: f32 = 8.0;
/// The largest share of the world's area the particles may cover: a box filled to 85%, as
/// issue 35 asks of the pile (it must hold there without particles pressed into each other:
/// BENCHMARKS.md's quality map says how far each solver does, at 10,000 and 100,000 particles
/// and in this world at scales 0.25 to 1). `--world-scale` makes room for more.
pub const MAX_COVERAGE: f32 = 0.85;
/// Frames kept for the frame-time graph and the profile (about three seconds at 60 FPS).
pub const GRAPH_FRAMES: usize = 180;
/// The smallest and largest world scale (`--world-scale`, the panel's world slider).
pub const MIN_WORLD_SCALE: f32 = 0.25;
pub const MAX_WORLD_SCALE: f32 = 4.0;
/// Most neighbours the blue quad's nearest query asks for.
pub const MAX_NEAREST: usize = 1000;
/// The largest zoom, in screen pixels per world unit: an 8-unit particle is 32 px wide.
pub const MAX_ZOOM: f32 = 4.0;

/// How much larger than at 1280x900 the text and the controls panel are drawn in a
/// `width` x `height` window: 1, 1.5 or 2 (a few sizes, so the font atlas holds every glyph
/// before the first frame).
pub fn ui_scale(width: f32, height: f32) -> f32 {
    let k = (width / 1280.0).min(height / 900.0);
    if k >= 2.0 {
        2.0
    } else if k >= 1.5 {
        1.5
    } else {
        1.0
    }
}

/// Whether a window is small: the HUD then shows its first lines and the legend only, its
/// text is smaller, and the controls panel starts hidden (`P` shows it).
pub fn is_small_window(width: f32, height: f32) -> bool {
    width < 720.0 || height < 560.0
}

/// Most particles the demo's world holds: [`MAX_COVERAGE`] of its area.
pub fn particle_cap() -> usize {
    particle_cap_of(WORLD)
}

/// Most particles `world` holds: [`MAX_COVERAGE`] of its area.
pub fn particle_cap_of(world: Rect) -> usize {
    particles_covering(world, MAX_COVERAGE)
}

/// How many particles cover `coverage` of `world`'s area (the headless ramp's cap).
pub fn particles_covering(world: Rect, coverage: f32) -> usize {
    (f64::from(world.width()) * f64::from(world.height()) * f64::from(coverage)
        / f64::from(PARTICLE_SIZE * PARTICLE_SIZE)) as usize
}

/// [`WORLD`] with its width and height times `scale`, from the same top-left corner.
pub fn scaled_world(scale: f32) -> Rect {
    Rect::from_min_size(
        WORLD.min_x,
        WORLD.min_y,
        WORLD.width() * scale,
        WORLD.height() * scale,
    )
}

/// How the HUD and messages name a placement.
pub fn placement_name(placement: Placement) -> &'static str {
    match placement {
        Placement::Exact => "exact",
        Placement::Loose => "loose",
    }
}

/// What the particles' colours mean (also the `--colors` flag's values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, ValueEnum)]
pub enum ColorMode {
    /// The depth of the node holding the particle: the tree shows inside a dense pile.
    #[default]
    Depth,
    /// How fast the particle moves.
    Speed,
    /// Whether it touches another particle.
    Contact,
}

impl ColorMode {
    /// Every mode, in the order `V` cycles them.
    pub const ALL: [ColorMode; 3] = [ColorMode::Depth, ColorMode::Speed, ColorMode::Contact];

    /// The next mode, wrapping around.
    pub fn next(self) -> Self {
        Self::ALL[(self as usize + 1) % Self::ALL.len()]
    }

    /// The name the legend and messages use.
    pub fn name(self) -> &'static str {
        match self {
            ColorMode::Depth => "node depth",
            ColorMode::Speed => "speed",
            ColorMode::Contact => "contact",
        }
    }
}

/// Which node outlines are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Outlines {
    /// Every node's, the deep ones under the shallow.
    #[default]
    All,
    /// The leaves' only: where the items are, without the lines of the nodes above them.
    Leaves,
    /// None.
    Off,
}

impl Outlines {
    /// Every choice, in the order `O` cycles them.
    pub const ALL: [Outlines; 3] = [Outlines::All, Outlines::Leaves, Outlines::Off];

    /// The next choice, wrapping around.
    pub fn next(self) -> Self {
        Self::ALL[(self as usize + 1) % Self::ALL.len()]
    }
}

/// What is drawn, and which overlays are open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Display {
    /// What the particles' colours mean.
    pub colors: ColorMode,
    /// Which node outlines are drawn.
    pub outlines: Outlines,
    /// The statistics panel.
    pub hud: bool,
    /// The help overlay.
    pub help: bool,
    /// The controls panel (shown only with the statistics panel).
    pub panel: bool,
}

impl Display {
    /// Whether the controls panel is on screen: it hides with the statistics panel, and
    /// under the help (which would otherwise lie under it).
    pub fn panel_shown(&self) -> bool {
        self.hud && self.panel && !self.help
    }
}

impl Default for Display {
    fn default() -> Self {
        Display {
            colors: ColorMode::default(),
            outlines: Outlines::All,
            hud: true,
            help: false,
            panel: true,
        }
    }
}

/// How the frame's particles and outlines reach the window (also the `--renderer` flag's
/// values).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RendererChoice {
    /// Filled on the CPU (in bands on every core), shown as one texture: for software OpenGL
    /// and WebGL1.
    Canvas,
    /// One instanced draw call: for GPUs with OpenGL 3.3 or newer.
    Instanced,
}

impl RendererChoice {
    /// The name the console and the HUD use.
    pub fn name(self) -> &'static str {
        match self {
            RendererChoice::Canvas => "canvas",
            RendererChoice::Instanced => "instanced",
        }
    }

    /// The renderer for a GPU named `gl_renderer` that can (`instancing`) or cannot draw
    /// instances with GLSL 3.30, or the `forced` one where it can run; with the reason.
    pub fn choose(
        forced: Option<RendererChoice>,
        gl_renderer: &str,
        instancing: bool,
    ) -> (RendererChoice, &'static str) {
        match forced {
            Some(RendererChoice::Canvas) => (RendererChoice::Canvas, "chosen by --renderer"),
            Some(RendererChoice::Instanced) if instancing => {
                (RendererChoice::Instanced, "chosen by --renderer")
            }
            Some(RendererChoice::Instanced) => (
                RendererChoice::Canvas,
                "instancing needs OpenGL 3.3, which this context lacks",
            ),
            None if !instancing => (
                RendererChoice::Canvas,
                "no OpenGL 3.3 instancing (WebGL1, OpenGL 2)",
            ),
            None if is_software_renderer(gl_renderer) => (
                RendererChoice::Canvas,
                "software OpenGL: filling pixels beats rasterising triangles",
            ),
            None => (RendererChoice::Instanced, "a GPU with instancing"),
        }
    }
}

/// Whether a `GL_RENDERER` string names a software rasteriser (Mesa's llvmpipe, softpipe or
/// swrast, Google's SwiftShader, Apple's software renderer), where drawing many small
/// triangles costs far more than filling them on the CPU.
pub fn is_software_renderer(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["llvmpipe", "softpipe", "swrast", "swiftshader", "software"]
        .iter()
        .any(|s| name.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `12345` as `12,345`, as the README writes counts.
    fn with_commas(n: usize) -> String {
        let digits = n.to_string();
        let mut out = String::new();
        for (k, c) in digits.chars().enumerate() {
            if k > 0 && (digits.len() - k) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    }

    #[test]
    fn the_readme_quotes_the_caps_the_code_computes() {
        // The README's prose is wrapped: compared with its lines joined.
        let readme = include_str!("../../../README.md").replace('\n', " ");
        let cap = with_commas(particle_cap());
        let percent = format!("{:.0}% of its area", MAX_COVERAGE * 100.0);
        let scaled = with_commas(particle_cap_of(scaled_world(1.2)));
        let largest = with_commas(particle_cap_of(scaled_world(MAX_WORLD_SCALE)));
        println!("cap {cap} ({percent}), at --world-scale 1.2: {scaled}, at 4: {largest}");
        for sentence in [
            format!("The world holds at most {cap} of them ({percent})"),
            format!("(1.2 holds {scaled}, {MAX_WORLD_SCALE} holds {largest})"),
        ] {
            assert!(readme.contains(&sentence), "README lacks {sentence:?}");
        }
        let doubled = particle_cap_of(scaled_world(2.0));
        let about = format!(
            "2 holds about {},000 particles",
            with_commas(doubled / 1000)
        );
        let flags = include_str!("cli.rs");
        assert!(
            flags.contains(&about),
            "--world-scale's help lacks {about:?}"
        );
        assert_eq!(with_commas(1_234_567), "1,234,567");
        assert_eq!(with_commas(999), "999");
    }

    #[test]
    fn software_renderers_get_the_canvas_and_gpus_instancing() {
        let llvmpipe = "llvmpipe (LLVM 15.0.6, 256 bits)";
        assert!(is_software_renderer(llvmpipe));
        assert!(is_software_renderer("Google SwiftShader"));
        assert!(!is_software_renderer("NVIDIA GeForce RTX 3060/PCIe/SSE2"));
        let gpu = "AMD Radeon RX 6600 (radeonsi, navi23, LLVM 15.0.6, DRM 3.49)";
        assert_eq!(
            RendererChoice::choose(None, llvmpipe, true).0,
            RendererChoice::Canvas
        );
        assert_eq!(
            RendererChoice::choose(None, gpu, true).0,
            RendererChoice::Instanced
        );
        assert_eq!(
            RendererChoice::choose(None, gpu, false).0,
            RendererChoice::Canvas
        );
        let forced = Some(RendererChoice::Instanced);
        assert_eq!(
            RendererChoice::choose(forced, llvmpipe, true).0,
            RendererChoice::Instanced
        );
        assert_eq!(
            RendererChoice::choose(forced, gpu, false).0,
            RendererChoice::Canvas
        );
        let canvas = Some(RendererChoice::Canvas);
        assert_eq!(
            RendererChoice::choose(canvas, gpu, true).0,
            RendererChoice::Canvas
        );
    }

    #[test]
    fn big_windows_draw_larger_and_small_ones_collapse() {
        assert_eq!(ui_scale(1024.0, 768.0), 1.0);
        assert_eq!(ui_scale(1280.0, 900.0), 1.0);
        assert_eq!(ui_scale(1920.0, 1400.0), 1.5);
        assert_eq!(ui_scale(2560.0, 1800.0), 2.0);
        assert_eq!(ui_scale(2560.0, 1600.0), 1.5);
        assert!(is_small_window(640.0, 480.0));
        assert!(!is_small_window(1024.0, 768.0));
    }

    #[test]
    fn colour_modes_cycle_through_all() {
        let mut m = ColorMode::Depth;
        for expected in [ColorMode::Speed, ColorMode::Contact, ColorMode::Depth] {
            m = m.next();
            assert_eq!(m, expected);
        }
    }
}
