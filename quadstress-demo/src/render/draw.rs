//! Drawing: world, blue quad, particles, node outlines, HUD, legend, help. Nothing here
//! allocates per particle or per frame once its buffers have grown; text reuses one string.

use std::fmt::Write as _;

use macroquad::camera::set_default_camera;
use macroquad::color::Color;
use macroquad::shapes::{draw_line, draw_rectangle, draw_rectangle_lines};
use macroquad::text::{draw_text, measure_text};
use macroquad::window::{clear_background, screen_height, screen_width};

use quadstress::TreeStats;
use quadstress_sim::{Broadphase, Particle};

use crate::render::overlay::{Overlay, PanelCache};
use crate::render::palette::{
    speed_color, BACKGROUND, DEPTH_COLORS, FAST, FAST_SPEED, FREE, QUAD_EDGE, SLOW, TOUCHING,
};
use crate::render::panel;
use crate::render::ramp_view;
use crate::render::scene::{ColorInputs, LeafChanges, Painter, Scene};
use crate::settings::{is_small_window, placement_name, ui_scale, ColorMode, GRAPH_FRAMES};
use crate::state::app::App;
use crate::state::probe::Shape;
use crate::state::view::View;

const TEXT: Color = Color::new(0.92, 0.92, 0.92, 1.0);
const PANEL: Color = Color::new(0.0, 0.0, 0.0, 0.8);

/// What draws a frame: the painter of the particles, the cached overlay and panel, and the
/// buffers they keep from frame to frame.
pub struct Renderer {
    /// How the frame's many small things reach the window.
    pub painter: Box<dyn Painter>,
    /// Bands the canvas is filled in: the threads of rayon's pool.
    pub bands: usize,
    scene: Scene,
    /// The particles as the frame shows them, copied before the next steps start.
    particles: Vec<Particle>,
    text: String,
    /// What the particles' colours are computed from.
    colors: ColorInputs,
    /// The help overlay's lines, built once.
    help: Vec<(&'static str, String)>,
    /// The text over the world, kept in a render target.
    pub overlay: Overlay,
    /// The controls panel, kept in a render target.
    pub panel: PanelCache,
    /// The probe's outline and its box on screen, taken while the simulation is at hand.
    probe_box: (f32, f32, f32, f32),
    /// The tree's leaves from frame to frame, for marking the ones that changed lately.
    changes: LeafChanges,
}

impl Renderer {
    /// A renderer painting with `painter`, the overlay kept in a render target when
    /// `cached_overlay`.
    pub fn new(painter: Box<dyn Painter>, cached_overlay: bool) -> Self {
        let mut overlay = Overlay::new(cached_overlay);
        let mut panel = PanelCache::new(cached_overlay);
        // The canvas blends the cached boxes in itself: under a software OpenGL that costs
        // less than blending them onto the window as textured quads.
        if painter.blends_layers() {
            overlay.composite_on_cpu();
            panel.composite_on_cpu();
        }
        Renderer {
            painter,
            bands: crate::input::platform::threads(),
            scene: Scene::default(),
            particles: Vec::new(),
            text: String::with_capacity(1024),
            colors: ColorInputs::default(),
            help: crate::input::controls::help_lines().collect(),
            overlay,
            panel,
            probe_box: (0.0, 0.0, 0.0, 0.0),
            changes: LeafChanges::default(),
        }
    }
}

/// The part of a frame that reads the simulation: the scene's lists and, when it is cached,
/// the text over the world (drawn into its render target). After it, [`show`] needs nothing
/// of `app.sim`, so the next steps may run meanwhile.
pub fn prepare(app: &App, view: &View, renderer: &mut Renderer) {
    // The last frame may have ended with the controls panel's camera.
    set_default_camera();
    let sim = app.sim();
    renderer.colors.gather(sim, app.display.colors);
    // A copy of the particles (a plain copy of memory) lets the steps start before the
    // squares are made from them, in `show`.
    renderer.particles.clear();
    renderer.particles.extend_from_slice(sim.particles());
    renderer
        .scene
        .build_around_particles(app, view, &mut renderer.changes);
    renderer.probe_box = view.rect_to_screen(&app.probe.rect());
    if renderer.overlay.cached() {
        draw_overlay(app, renderer);
    }
    renderer.panel.read_back();
}

/// The part of a frame that hands it to OpenGL: the particles and outlines, the probe's edge,
/// the text and the controls panel. With the overlay cached it reads nothing of `app.sim`
/// (which may be stepping meanwhile); drawn straight onto the window, the text reads it here.
pub fn show(app: &App, view: &View, renderer: &mut Renderer) {
    // Draws into a render target are done before anything goes onto the window.
    set_default_camera();
    // Under a software OpenGL every full-window pass costs milliseconds: the floor and the
    // quad's fill go into the canvas, which is drawn once over the whole window, so only the
    // instanced route clears the window first.
    if !renderer.painter.blends_layers() {
        clear_background(BACKGROUND);
    }
    let (width, height) = (screen_width() as u16, screen_height() as u16);
    renderer
        .scene
        .fill_particles(&renderer.particles, view, &renderer.colors);
    let layers = [&renderer.overlay.layer, &renderer.panel.layer];
    renderer
        .painter
        .paint(&renderer.scene, layers, width, height, renderer.bands);
    if !renderer.overlay.cached() {
        draw_overlay(app, renderer);
    }
    renderer.overlay.show();
    renderer.panel.show();
}

/// The text over the world: hint, statistics, the query's report, the message, the help;
/// redrawn only when due (into the overlay's target when cached).
fn draw_overlay(app: &App, renderer: &mut Renderer) {
    let sim = app.sim();
    let stats = sim.tree().stats();
    let (_, qy, _, qh) = renderer.probe_box;
    let report = app.report_shown();
    let (sw, sh) = (screen_width(), screen_height());
    let key = overlay_key(app, &stats, (qy + qh).to_bits());
    let overlay = &mut renderer.overlay;
    if overlay.due(key, sw as u32, sh as u32) {
        overlay.begin(key, sw as u32, sh as u32);
        let text = &mut renderer.text;
        // A small window's panel is docked at the bottom right (see `panel::layout`): the
        // hint and the message keep to its left instead of running under it.
        let docked = app.display.panel_shown() && is_small_window(sw, sh);
        let left_of_panel = if docked {
            panel::layout(sw, sh).0.x - 4.0
        } else {
            sw
        };
        if sim.is_empty() {
            // Below the quad and the controls panel, so it covers neither.
            let mut below = qy + qh;
            if app.display.panel_shown() && !docked {
                below = below.max(panel::bottom(sw, sh));
            }
            draw_hint(below, left_of_panel, overlay);
        }
        if app.display.hud {
            draw_hud(app, &stats, text, overlay);
        }
        if report {
            draw_report(app, text, overlay);
        }
        if let Some(message) = app.message() {
            let s = scale().max(1.0);
            let y = sh - 16.0 * s;
            draw_rectangle(0.0, y - 18.0 * s, left_of_panel, 26.0 * s, PANEL);
            overlay.add_box(0.0, y - 18.0 * s, left_of_panel, 26.0 * s);
            draw_text(message, 10.0, y, 20.0 * s, TEXT);
        }
        // Under the help, which covers everything else.
        if let Some((x, y, w, h)) = ramp_view::show(app, sw, sh) {
            overlay.add_box(x, y, w, h);
        }
        if app.display.help {
            draw_help(&renderer.help, overlay);
        }
        overlay.end();
    }
}

/// What the overlay shows apart from its timings and counts (which it refreshes every few
/// frames): when this changes, it is redrawn at once. `quad_bottom` places the hint.
fn overlay_key(app: &App, stats: &TreeStats, quad_bottom: u32) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let sim = app.sim();
    let c = sim.config();
    (
        app.display,
        sim.is_empty(),
        sim.len(),
        c.max_particles,
        c.tree.leaf_capacity,
        c.tree.max_depth,
        c.tree.placement == quadstress::Placement::Loose,
        sim.broadphase() as u8,
        c.gravity_on,
        app.paused(),
        app.cursor_rate().to_bits(),
    )
        .hash(&mut h);
    (
        stats.deepest_level,
        app.report_shown(),
        app.probe.shape() as u8,
        app.probe.k(),
        app.probe.rect().min_x.to_bits(),
        app.probe.rect().min_y.to_bits(),
        ramp_view::key(app),
        app.message(),
        quad_bottom,
        app.renderer.as_str(),
    )
        .hash(&mut h);
    h.finish()
}

/// Text size and line step for the window: smaller in a small window, larger in a big one.
fn text_size() -> (f32, f32) {
    let (w, h) = (screen_width(), screen_height());
    if is_small_window(w, h) {
        (14.0, 15.0)
    } else {
        let s = ui_scale(w, h);
        (18.0 * s, 19.0 * s)
    }
}

/// The scale of the window's text beside the normal size (1 in a small window).
fn scale() -> f32 {
    text_size().0 / 18.0
}

/// Draws `text` in a panel at `(x, y)` (or right-aligned to `x` if `right`), at least `min_w`
/// wide; returns the panel's size.
fn panel(
    text: &str,
    (x, y): (f32, f32),
    right: bool,
    (min_w, extra_h): (f32, f32),
    edge: Option<Color>,
    overlay: &mut Overlay,
) -> (f32, f32) {
    let (size, step) = text_size();
    let w = text
        .lines()
        .map(|l| measure_text(l, None, size as u16, 1.0).width)
        .fold(min_w, f32::max)
        + 16.0;
    let h = text.lines().count() as f32 * step + 10.0 + extra_h;
    let x = if right { x - w } else { x };
    draw_rectangle(x, y, w, h, PANEL);
    overlay.add_box(x, y, w, h);
    if let Some(c) = edge {
        draw_rectangle_lines(x, y, w, h, 2.0, c);
    }
    for (i, line) in text.lines().enumerate() {
        draw_text(line, x + 8.0, y + step * (i as f32 + 1.0), size, TEXT);
    }
    (w, h)
}

/// The first screen's hint, its box's top edge at or below `top`.
fn draw_hint(top: f32, width: f32, overlay: &mut Overlay) {
    const WIDE: [&str; 2] = [
        "hold 1 or 2: particles rain in      hold the left mouse: pour them at the cursor",
        "right-click: test the blue quad through the tree      wheel: zoom      H: help",
    ];
    // The same in a narrow column (left of a docked panel).
    const NARROW: [&str; 4] = [
        "hold 1 or 2: particles rain in",
        "hold the left mouse: pour at the cursor",
        "right-click: test the blue quad",
        "wheel: zoom      H: help",
    ];
    let (size, step) = text_size();
    let widest = |lines: &[&str]| {
        lines
            .iter()
            .map(|l| measure_text(l, None, size as u16, 1.0).width)
            .fold(0.0f32, f32::max)
    };
    let lines: &[&str] = if widest(&WIDE) + 32.0 <= width {
        &WIDE
    } else {
        &NARROW
    };
    let w = widest(lines);
    let x = ((width - w) / 2.0).max(16.0);
    let h = step * lines.len() as f32 + 18.0;
    // Above the message bar at the bottom (its top is 34 pixels up at scale 1), which
    // covered the second line in a small window.
    let bar = 34.0 * scale().max(1.0);
    let y = (top + 12.0 + step + 4.0).min(screen_height() - bar - 4.0 - h + step + 4.0);
    draw_rectangle(x - 12.0, y - step - 4.0, w + 24.0, h, PANEL);
    overlay.add_box(x - 12.0, y - step - 4.0, w + 24.0, h);
    for (i, line) in lines.iter().enumerate() {
        draw_text(line, x, y + i as f32 * step + 4.0, size, TEXT);
    }
}

fn draw_hud(app: &App, stats: &TreeStats, hud: &mut String, overlay: &mut Overlay) {
    let sim = app.sim();
    let counts = sim.counts();
    let n = sim.len() as f64;
    let brute_pairs = n * (n - 1.0).max(0.0) / 2.0;
    let tree = sim.config().tree;
    // FPS and the frame time from one clock: the frames of the last second.
    let frame_ms = app.profile.frames.mean_over_ms(1000.0);
    // The panel is as wide as the legend's longest line (the depth legend at depth 10); it is
    // measured before the text goes into `hud`, which it uses.
    let legend_w = draw_legend(app, stats, hud, (12.0, 0.0), false) - 12.0;
    hud.clear();
    let _ = write!(
        hud,
        "FPS {}   frame {:.1} ms{}\n\
         particles {} of {}   cursor {:.0}/s\n\
         nodes {}   deepest {}   at root {}\n\
         leaf capacity {}   depth limit {}   {}\n\
         contacts {}   pairs tested {:.4}%\n",
        Fps(frame_ms),
        frame_ms.min(99_999.0),
        if app.paused() { "   PAUSED" } else { "" },
        sim.len(),
        sim.config().max_particles,
        app.cursor_rate(),
        stats.nodes,
        stats.deepest_level,
        stats.items_at_root,
        tree.leaf_capacity,
        tree.max_depth,
        placement_name(tree.placement),
        counts.contacts,
        if brute_pairs > 0.0 {
            100.0 * counts.pairs_tested as f64 / brute_pairs
        } else {
            0.0
        },
    );
    brute_force_line(app, hud);
    let _ = write!(
        hud,
        "\n{}   gravity {}",
        sim.broadphase().name(),
        if sim.config().gravity_on { "on" } else { "off" },
    );
    profile_lines(app, hud);
    hud.push_str("\nms: last [mean] (max) of 3 s\nH: help   tab: hide   P: panel");
    if is_small_window(screen_width(), screen_height()) {
        // A small window keeps the world visible: the first two lines and the legend.
        let end = hud.match_indices('\n').nth(1).map_or(hud.len(), |(i, _)| i);
        hud.truncate(end);
        let (_, step) = text_size();
        let (_, h) = panel(
            hud,
            (4.0, 4.0),
            false,
            (legend_w, step + 4.0),
            None,
            overlay,
        );
        draw_legend(app, stats, hud, (12.0, 4.0 + h - 6.0), true);
        return;
    }
    let (_, step) = text_size();
    let graph_h = 30.0 * scale();
    let (w, h) = panel(
        hud,
        (4.0, 4.0),
        false,
        (legend_w, graph_h + 8.0 + 2.0 * step),
        None,
        overlay,
    );
    let graph_top = 4.0 + h - graph_h - 8.0 - 2.0 * step;
    draw_frame_graph(app, 12.0, graph_top, w - 16.0, graph_h);
    draw_graph_legend(12.0, 4.0 + h - 8.0 - step);
    draw_legend(app, stats, hud, (12.0, 4.0 + h - 8.0), true);
}

/// FPS from a mean frame time in milliseconds, for the HUD: a whole number, or `--` with no
/// time to go by (a clock that stood still, as a browser's virtual time can).
struct Fps(f32);

impl std::fmt::Display for Fps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 > 0.0 && self.0.is_finite() {
            write!(f, "{:.0}", (1e3 / self.0).min(99_999.0))
        } else {
            f.write_str("--")
        }
    }
}

/// The frame graph's colours in words.
const GRAPH_COLORS: [(&str, Color); 3] = [
    ("60 FPS", Color::new(0.4, 0.9, 0.5, 1.0)),
    ("30", Color::new(1.0, 0.8, 0.3, 1.0)),
    ("fewer", Color::new(1.0, 0.35, 0.3, 1.0)),
];

/// The frame graph's legend, one line from `(x, y)` (the text's baseline).
fn draw_graph_legend(x: f32, y: f32) {
    let (size, _) = text_size();
    let label = "frames at:";
    draw_text(label, x, y, size, TEXT);
    let mut x = x + measure_text(label, None, size as u16, 1.0).width + 8.0;
    for (text, color) in GRAPH_COLORS {
        draw_rectangle(x, y - size * 0.7, size * 0.7, size * 0.7, color);
        draw_text(text, x + size * 0.8, y, size, TEXT);
        x += size * 0.8 + measure_text(text, None, size as u16, 1.0).width + 10.0;
    }
}

/// The profile, Box2D style: the step's and the drawing's last value, `[mean]` and `(max)`
/// over the last three seconds of real time in milliseconds, the step's phases' means; the
/// renderer; and the simulation's speed against real time when it falls behind.
fn profile_lines(app: &App, hud: &mut String) {
    let p = &app.profile;
    let now = app.now();
    let (last, mean, max) = p.step.last_mean_max(now);
    let _ = write!(hud, "\nstep {last:.1} [{mean:.1}] ({max:.1}) ms");
    p.phase_means(now, hud);
    let (last, mean, max) = p.draw.last_mean_max(now);
    let (_, present, _) = p.present.last_mean_max(now);
    let _ = write!(
        hud,
        "\ndraw {last:.1} [{mean:.1}] ({max:.1})  present [{present:.1}]"
    );
    let _ = write!(hud, "\nrenderer: {}", app.renderer);
    if !app.paused() && app.fixed.behind() {
        let _ = write!(hud, "   SLOW MOTION {:.2}x", app.fixed.speed());
    }
}

/// Frame times of the last `GRAPH_FRAMES` frames as bars, scaled to the slowest of them, with
/// lines at 16.7 ms (60 FPS) and 33.3 ms (30 FPS), labelled in a margin right of the bars so
/// that no bar covers a label.
fn draw_frame_graph(app: &App, x: f32, y: f32, w: f32, h: f32) {
    let size = 13.0 * scale();
    let label_w = measure_text("33.3", None, size as u16, 1.0).width + 6.0;
    let bars_w = (w - label_w).max(1.0);
    let bar = bars_w / GRAPH_FRAMES as f32;
    let full_scale_ms = (app.profile.frames.slowest_ms() * 1.1).max(40.0);
    for (i, ms) in app.profile.frames.oldest_first().enumerate() {
        let bh = (ms / full_scale_ms).min(1.0) * h;
        let color = GRAPH_COLORS[usize::from(ms > 16.8) + usize::from(ms > 33.4)].1;
        draw_rectangle(x + i as f32 * bar, y + h - bh, bar.max(1.0), bh, color);
    }
    // 33.3 above its line and 16.7 below its own (which lies lower): the labels never meet,
    // however close the lines come.
    for (ms, label, above) in [(16.7, "16.7", false), (33.3, "33.3", true)] {
        let ly = y + h - (ms / full_scale_ms) * h;
        draw_line(x, ly, x + bars_w, ly, 1.0, Color::new(1.0, 1.0, 1.0, 0.6));
        let baseline = if above {
            ly + 0.25 * size
        } else {
            ly + 0.85 * size
        };
        draw_text(label, x + bars_w + 4.0, baseline, size, TEXT);
    }
}

/// The legend of the current colouring, one line from `(x, y)` (the text's baseline), drawn
/// if `paint`; returns where it ends on the right.
fn draw_legend(
    app: &App,
    stats: &TreeStats,
    text: &mut String,
    (x, y): (f32, f32),
    paint: bool,
) -> f32 {
    let (size, _) = text_size();
    let swatch = |x: f32, y: f32, c: [u8; 4]| {
        draw_rectangle(
            x,
            y - size * 0.7,
            size * 0.7,
            size * 0.7,
            Color::from_rgba(c[0], c[1], c[2], 255),
        );
    };
    text.clear();
    let _ = write!(text, "{} (V):", app.display.colors.name());
    let title_w = measure_text(text.as_str(), None, size as u16, 1.0).width;
    if paint {
        draw_text(text.as_str(), x, y, size, TEXT);
    }
    let mut x = x + 8.0 + title_w;
    let label = |x: &mut f32, c: [u8; 4], s: &str| {
        if paint {
            swatch(*x, y, c);
            draw_text(s, *x + size * 0.8, y, size, TEXT);
        }
        *x += size * 0.8 + measure_text(s, None, size as u16, 1.0).width + 10.0;
    };
    match app.display.colors {
        ColorMode::Depth => {
            for d in 0..=stats.deepest_level.min(10) {
                let digits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
                label(&mut x, DEPTH_COLORS[d as usize], digits[d as usize]);
            }
        }
        ColorMode::Speed => {
            label(&mut x, SLOW, "still");
            label(&mut x, speed_color(FAST_SPEED / 2.0, 0.0), "200 u/s");
            label(&mut x, FAST, "400 u/s or more");
        }
        ColorMode::Contact => {
            label(&mut x, TOUCHING, "touching");
            label(&mut x, FREE, "free");
        }
    }
    // The last label's gap is not part of the legend.
    x - 10.0
}

/// The tree's broad phase (update and pair search) beside brute force's at the current count:
/// measured when brute force runs, estimated from a timed sample otherwise.
fn brute_force_line(app: &App, out: &mut String) {
    let t = &app.times;
    let n = app.sim().len();
    if app.sim().broadphase() == Broadphase::BruteForce {
        let _ = write!(out, "brute force: pairs {:.1} ms (measured)", t.pairs_ms);
        return;
    }
    let tree_ms = t.update_ms + t.pairs_ms;
    match app.brute_force.ms_at(n) {
        Some(brute_ms) if n >= 2 && brute_ms > 0.0 => {
            let _ = write!(
                out,
                "broad phase {tree_ms:.1} ms; brute force ~{brute_ms:.0} ms ({:.0}x)",
                brute_ms / tree_ms.max(1e-3)
            );
        }
        _ => {
            let _ = write!(out, "broad phase {tree_ms:.1} ms; brute force: timing");
        }
    }
}

fn draw_report(app: &App, text: &mut String, overlay: &mut Overlay) {
    let r = app.probe.report();
    text.clear();
    let verdict = if r.agrees { "agrees" } else { "DISAGREES" };
    if r.shape == Shape::Nearest {
        let _ = write!(
            text,
            "{} nearest to the cross\n\
             particles found: {}\n\
             brute force: {} ({verdict})\n\
             farthest at: {:.1}\n\
             nodes within reach: {} of {}\n\
             tree query: {:.3} ms",
            app.probe.k(),
            r.count,
            r.brute_count,
            r.reach,
            r.nodes_visited,
            r.nodes_total,
            r.query_ms,
        );
        panel(
            text,
            (screen_width() - 4.0, 4.0),
            true,
            (0.0, 0.0),
            Some(QUAD_EDGE),
            overlay,
        );
        return;
    }
    let _ = write!(
        text,
        "blue {} collides: {}\n\
         particles touching: {}\n\
         brute force: {} ({})\n\
         nodes visited: {} of {}\n\
         particles tested: {} of {}\n\
         tree query: {:.3} ms",
        if r.shape == Shape::Circle {
            "circle"
        } else {
            "quad"
        },
        if r.count > 0 { "YES" } else { "no" },
        r.count,
        r.brute_count,
        verdict,
        r.nodes_visited,
        r.nodes_total,
        r.particles_tested,
        r.particles_total,
        r.query_ms,
    );
    panel(
        text,
        (screen_width() - 4.0, 4.0),
        true,
        (0.0, 0.0),
        Some(QUAD_EDGE),
        overlay,
    );
}

fn draw_help(lines: &[(&str, String)], overlay: &mut Overlay) {
    // Every row fits the window's height, in smaller text if need be.
    let (size, step) = text_size();
    let step = step
        .min((screen_height() - 56.0) / lines.len().max(1) as f32)
        .max(6.0);
    let size = size.min(step);
    let label_w = 7.0 * (size + 4.0);
    let text_w = lines
        .iter()
        .map(|(_, help)| measure_text(help, None, size as u16, 1.0).width)
        .fold(0.0f32, f32::max);
    let rows = lines.len();
    let (w, h) = (
        (label_w + text_w + 28.0).min(screen_width()),
        44.0 + rows as f32 * step,
    );
    let x = ((screen_width() - w) / 2.0).max(0.0);
    let y = ((screen_height() - h) / 2.0).max(0.0);
    draw_rectangle(x, y, w, h, Color::new(0.0, 0.0, 0.0, 1.0));
    overlay.add_box(x, y, w, h);
    draw_rectangle_lines(x, y, w, h, 2.0, QUAD_EDGE);
    draw_text("controls", x + 12.0, y + 26.0, size + 6.0, TEXT);
    for (i, (label, help)) in lines.iter().enumerate() {
        let ty = y + 50.0 + i as f32 * step;
        draw_text(label, x + 12.0, ty, size + 4.0, QUAD_EDGE);
        draw_text(help, x + 12.0 + label_w, ty, size, TEXT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fps_comes_from_the_frame_time_and_never_overflows() {
        assert_eq!(Fps(20.0).to_string(), "50");
        assert_eq!(Fps(1e-9).to_string(), "99999");
        assert_eq!(Fps(0.0).to_string(), "--");
        assert_eq!(Fps(f32::NAN).to_string(), "--");
    }
}
