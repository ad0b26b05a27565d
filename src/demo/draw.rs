//! Drawing: world, blue quad, particles, node outlines, HUD, help. Nothing here allocates per
//! particle; the HUD reuses one string.

use std::fmt::Write as _;

use macroquad::color::Color;
use macroquad::shapes::{draw_line, draw_rectangle, draw_rectangle_lines};
use macroquad::text::{draw_text, measure_text};
use macroquad::time::{get_fps, get_time};
use macroquad::window::{clear_background, screen_height, screen_width};

use quadstress::TreeStats;

use super::app::{placement_name, App, GRAPH_FRAMES, WORLD};
use super::canvas::Canvas;
use super::controls::help_lines;
use super::view::View;

/// Window background, outside the world.
pub const BACKGROUND: Color = Color::new(0.07, 0.07, 0.09, 1.0);
/// The world's floor.
pub const FLOOR: Color = Color::new(0.11, 0.12, 0.16, 1.0);
/// The blue quad's outline (opaque, so tests can find it).
pub const QUAD_EDGE: Color = Color::new(40.0 / 255.0, 110.0 / 255.0, 1.0, 1.0);
/// The blue quad's fill.
pub const QUAD_FILL: Color = Color::new(40.0 / 255.0, 110.0 / 255.0, 1.0, 0.22);
/// Particles found by the last right-click.
pub const HIGHLIGHT: [u8; 4] = [255, 0, 255, 255];
/// Node outline colour per depth, shallow to deep.
pub const DEPTH_COLORS: [[u8; 4]; 11] = [
    [255, 255, 255, 255],
    [255, 217, 77, 255],
    [255, 153, 51, 255],
    [242, 89, 89, 255],
    [204, 102, 230, 255],
    [115, 140, 255, 255],
    [77, 217, 242, 255],
    [89, 230, 140, 255],
    [166, 242, 89, 255],
    [230, 230, 128, 255],
    [179, 179, 179, 255],
];
const TEXT: Color = Color::new(0.92, 0.92, 0.92, 1.0);
const PANEL: Color = Color::new(0.0, 0.0, 0.0, 0.85);

/// Draws one frame. `hud` is a reused text buffer.
pub fn frame(app: &App, view: &View, canvas: &mut Canvas, hud: &mut String) {
    clear_background(BACKGROUND);
    let (x, y, w, h) = view.rect_to_screen(&WORLD);
    draw_rectangle(x, y, w, h, FLOOR);

    // The quad under the particles, so the ones touching it show on top of it.
    let (qx, qy, qw, qh) = view.rect_to_screen(&app.quad);
    draw_rectangle(qx, qy, qw, qh, QUAD_FILL);

    let stats = app.sim.tree().stats();
    // Particles and outlines go through the CPU canvas: one texture instead of ~100,000
    // triangles (see `canvas`).
    canvas.begin(screen_width() as u16, screen_height() as u16);
    let size = app.sim.config().particle_size;
    let px = (size * view.scale()).max(1.0);
    for p in app.sim.particles() {
        let (sx, sy) = view.to_screen(p.x, p.y);
        canvas.fill(sx, sy, px, px, p.color);
    }
    let now = get_time();
    if now < app.report.until {
        for &i in &app.hits {
            if let Some(p) = app.sim.particles().get(i as usize) {
                let (sx, sy) = view.to_screen(p.x, p.y);
                canvas.fill(sx - 1.0, sy - 1.0, px + 2.0, px + 2.0, HIGHLIGHT);
            }
        }
    }
    if app.show_outlines {
        // Deepest first, so the shallow split lines stay visible on top of the deep ones that
        // share them.
        let tree = app.sim.tree();
        for depth in (0..=stats.deepest_level).rev() {
            let color = DEPTH_COLORS[(depth as usize).min(DEPTH_COLORS.len() - 1)];
            for node in tree.nodes().filter(|n| n.depth == depth) {
                let (nx, ny, nw, nh) = view.rect_to_screen(&node.rect);
                canvas.outline(nx, ny, nw + 1.0, nh + 1.0, color);
            }
        }
    }
    canvas.present();
    // The quad's edge above the particles, so it stays visible in a crowd.
    draw_rectangle_lines(qx, qy, qw, qh, 3.0, QUAD_EDGE);

    draw_hud(app, &stats, hud);
    if now < app.report.until {
        draw_report(app, hud);
    }
    if now < app.message_until {
        let y = screen_height() - 16.0;
        draw_rectangle(0.0, y - 18.0, screen_width(), 26.0, PANEL);
        draw_text(&app.message, 10.0, y, 20.0, TEXT);
    }
    if app.show_help {
        draw_help();
    }
}

fn lines(text: &str, x: f32, y: f32, step: f32, size: f32) {
    for (i, line) in text.lines().enumerate() {
        draw_text(line, x, y + i as f32 * step, size, TEXT);
    }
}

fn draw_hud(app: &App, stats: &TreeStats, hud: &mut String) {
    let sim = &app.sim;
    let counts = sim.counts();
    let n = sim.len() as f64;
    let brute_pairs = n * (n - 1.0).max(0.0) / 2.0;
    let tree = sim.config().tree;
    let last = app.frame_ms[(app.frame_index + GRAPH_FRAMES - 1) % GRAPH_FRAMES];
    hud.clear();
    let _ = write!(
        hud,
        "FPS {}   frame {:.1} ms{}\n\
         particles {}   spawn at cursor {:.0}/s\n\
         nodes {}   deepest level {}   at root {}\n\
         capacity {}   depth limit {}   placement {}\n\
         tree update {:.2} ms   pair search {:.2} ms\n\
         resolve {:.2} ms   contacts {}\n\
         pairs tested {}  of  {:.0} ({:.4}%)\n\
         broad phase: {}   gravity {}\n\
         H: help",
        get_fps(),
        last,
        if app.paused { "   PAUSED" } else { "" },
        sim.len(),
        app.cursor_rate,
        stats.nodes,
        stats.deepest_level,
        stats.items_at_root,
        tree.capacity,
        tree.max_depth,
        placement_name(tree.placement),
        app.times.update_ms,
        app.times.pairs_ms,
        app.times.resolve_ms,
        counts.contacts,
        counts.pairs_tested,
        brute_pairs,
        if brute_pairs > 0.0 {
            100.0 * counts.pairs_tested as f64 / brute_pairs
        } else {
            0.0
        },
        sim.broadphase().name(),
        if sim.config().gravity_on { "on" } else { "off" },
    );
    let (w, h) = (410.0, 232.0);
    draw_rectangle(4.0, 4.0, w, h, PANEL);
    lines(hud, 12.0, 22.0, 19.0, 18.0);
    draw_frame_graph(app, 12.0, h - 28.0, w - 16.0, 30.0);
}

/// Frame times of the last `GRAPH_FRAMES` frames as bars; the line marks 33 ms (30 FPS).
fn draw_frame_graph(app: &App, x: f32, y: f32, w: f32, h: f32) {
    let bar = w / GRAPH_FRAMES as f32;
    let full_scale_ms = 50.0;
    for i in 0..GRAPH_FRAMES {
        let ms = app.frame_ms[(app.frame_index + i) % GRAPH_FRAMES];
        let bh = (ms / full_scale_ms).min(1.0) * h;
        let color = if ms > 33.4 {
            Color::new(1.0, 0.35, 0.3, 1.0)
        } else {
            Color::new(0.4, 0.9, 0.5, 1.0)
        };
        draw_rectangle(x + i as f32 * bar, y + h - bh, bar.max(1.0), bh, color);
    }
    let y30 = y + h - (33.3 / full_scale_ms) * h;
    draw_line(x, y30, x + w, y30, 1.0, Color::new(1.0, 1.0, 1.0, 0.5));
}

fn draw_report(app: &App, hud: &mut String) {
    let r = &app.report;
    hud.clear();
    let _ = write!(
        hud,
        "blue quad collides: {}\nparticles touching: {}\ntree query: {:.3} ms\nbrute force: {} ({})",
        if r.count > 0 { "YES" } else { "no" },
        r.count,
        r.query_ms,
        r.brute_count,
        if r.count == r.brute_count { "agrees" } else { "DISAGREES" },
    );
    let (w, h) = (270.0, 104.0);
    let x = screen_width() - w - 4.0;
    draw_rectangle(x, 4.0, w, h, PANEL);
    draw_rectangle_lines(x, 4.0, w, h, 2.0, QUAD_EDGE);
    lines(hud, x + 10.0, 26.0, 20.0, 20.0);
}

fn draw_help() {
    // Sized to the longest line, so nothing runs past the panel; labels larger than the text,
    // so "." and "-" stay visible.
    let label_w = 150.0;
    let text_w = help_lines()
        .map(|(_, help)| measure_text(help, None, 18, 1.0).width)
        .fold(0.0f32, f32::max);
    let rows = help_lines().count() as f32;
    let (w, h) = (
        (label_w + text_w + 28.0).min(screen_width()),
        44.0 + rows * 21.0,
    );
    let x = ((screen_width() - w) / 2.0).max(0.0);
    let y = ((screen_height() - h) / 2.0).max(0.0);
    draw_rectangle(x, y, w, h, Color::new(0.0, 0.0, 0.0, 0.94));
    draw_rectangle_lines(x, y, w, h, 2.0, QUAD_EDGE);
    draw_text("controls", x + 12.0, y + 26.0, 24.0, TEXT);
    for (i, (label, help)) in help_lines().enumerate() {
        let ty = y + 52.0 + i as f32 * 21.0;
        draw_text(label, x + 12.0, ty, 24.0, QUAD_EDGE);
        draw_text(help, x + 12.0 + label_w, ty, 18.0, TEXT);
    }
}
