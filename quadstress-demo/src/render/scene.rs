//! One frame's many small things, in window pixels and in drawing order: the floor, the blue
//! quad's fill, the particles, the visited leaves, the highlights, the node outlines, the
//! edges of the leaves that changed lately, the blue probe's edge (all under the text). Both
//! renderers draw from it (the canvas fills it into an image, the instanced renderer sends it
//! to the GPU), and both take their pixel spans from the functions here, so they cover the
//! same pixels. The lists are reused from frame to frame.

use std::sync::atomic::{AtomicU8, Ordering};

use quadstress::{Placement, Rect, MAX_DEPTH};
use quadstress_sim::{Particle, Simulation};

use crate::render::overlay::Layer;
use crate::render::palette::{
    speed_color, BACKGROUND_RGBA, DEPTH_COLORS, FLASH, FLOOR_RGBA, FREE, HIGHLIGHT, OUTLINE_COLORS,
    QUAD_EDGE_RGBA, QUAD_FILL, TOUCHING, VISITED_EDGE, VISITED_TINT,
};
use crate::settings::{ColorMode, Outlines, RendererChoice};
use crate::state::app::App;
use crate::state::probe::Outline;
use crate::state::view::View;

/// A particle or highlight: its top-left pixel and colour; every one is `side` pixels square.
pub type Square = (i32, i32, [u8; 4]);

/// The smallest particle, in pixels, drawn with a one-pixel border in a darker shade of its
/// colour: from here on neighbours in a packed pile stay apart instead of merging into slabs.
pub const BORDER_FROM_SIDE: i32 = 6;

/// The colour of a particle's border: its own, darker.
#[inline]
pub fn border_color([r, g, b, a]: [u8; 4]) -> [u8; 4] {
    let dark = |c: u8| (u16::from(c) * 9 / 16) as u8;
    [dark(r), dark(g), dark(b), a]
}

/// The fills that draw square `(x, y, rgba)` of `side` pixels: the square, and over it its
/// inside in the particle's colour when it gets a border. Both painters draw squares so.
#[inline]
pub fn square_fills(
    (x, y, rgba): Square,
    side: i32,
) -> impl Iterator<Item = (i32, i32, i32, [u8; 4])> {
    let bordered = side >= BORDER_FROM_SIDE;
    let outer = if bordered { border_color(rgba) } else { rgba };
    std::iter::once((x, y, side, outer)).chain(bordered.then_some((x + 1, y + 1, side - 2, rgba)))
}

/// What a frame draws below the text, in window pixels.
#[derive(Debug, Default)]
pub struct Scene {
    /// The window outside the world.
    pub background: [u8; 4],
    /// The world's floor: `[x, y, w, h]` and colour.
    pub floor: Option<([f32; 4], [u8; 4])>,
    /// The blue quad's fill: `[x, y, w, h]`, colour and opacity.
    pub quad_tint: Option<([f32; 4], [u8; 3], u8)>,
    /// Side of every particle, in pixels.
    pub side: i32,
    /// The particles on screen.
    pub particles: Vec<Square>,
    /// The visited leaves' tint (colour and opacity) and their `[x, y, w, h]`.
    pub tint: ([u8; 3], u8),
    pub tints: Vec<[f32; 4]>,
    /// The particles the quad's query found, drawn over the tint.
    pub highlights: Vec<Square>,
    /// One-pixel outlines: the pixel columns and rows `[x0, y0, x1, y1]` (edges included)
    /// and colour; later ones over earlier ones.
    pub outlines: Vec<([f32; 4], [u8; 4])>,
    /// The edges of leaves that split or merged in the last second, over the outlines:
    /// fills `[x, y, w, h]` and a colour whose alpha is its opacity (fading with the leaf's
    /// age).
    pub flashes: Vec<([f32; 4], [u8; 4])>,
    /// The blue probe's edge, over everything else of the scene (and under the text): fills
    /// `[x, y, w, h]` in [`probe_rgba`](Self::probe_rgba).
    pub probe: Vec<[f32; 4]>,
    pub probe_rgba: [u8; 4],
    /// The nodes' outline boxes and depths in node order, before they are sorted by depth.
    pub(super) by_depth: Vec<(u8, [f32; 4])>,
    /// Side of every particle in world units, for culling.
    pub(super) particle_size: f32,
}

/// `v.floor() as i64` without a call to `floorf` (targets without SSE4.1 have no instruction
/// for it, and every outline edge of every frame rounds four of these).
#[inline]
pub fn floor_i64(v: f32) -> i64 {
    // Saturates as `as` does; NaN gives 0, as `as` does.
    let t = v as i64;
    if t as f32 > v {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// The pixels `[x0, y0, x1, y1)` a fill of `[x, y, w, h]` covers in a `cw` x `ch` window:
/// at least one pixel each way when it touches the window at all.
pub fn span([x, y, w, h]: [f32; 4], cw: usize, ch: usize) -> Option<[usize; 4]> {
    let (cw, ch) = (cw as i64, ch as i64);
    let x0 = floor_i64(x).clamp(0, cw);
    let y0 = floor_i64(y).clamp(0, ch);
    let x1 = floor_i64(x + w).clamp(0, cw).max(x0 + 1).min(cw);
    let y1 = floor_i64(y + h).clamp(0, ch).max(y0 + 1).min(ch);
    if x0 >= cw || y0 >= ch || x + w <= 0.0 || y + h <= 0.0 {
        return None;
    }
    Some([x0 as usize, y0 as usize, x1 as usize, y1 as usize])
}

/// The pixels a tint of `[x, y, w, h]` covers (none when it rounds to nothing).
pub fn tint_span([x, y, w, h]: [f32; 4], cw: usize, ch: usize) -> Option<[usize; 4]> {
    let (cw, ch) = (cw as i64, ch as i64);
    let x0 = floor_i64(x).clamp(0, cw);
    let y0 = floor_i64(y).clamp(0, ch);
    let x1 = floor_i64(x + w).clamp(0, cw);
    let y1 = floor_i64(y + h).clamp(0, ch);
    (x0 < x1 && y0 < y1).then_some([x0 as usize, y0 as usize, x1 as usize, y1 as usize])
}

/// The pixels of a `side` x `side` square with its top-left pixel at `(x, y)`, clipped.
#[inline]
pub fn square_span(x: i32, y: i32, side: i32, cw: usize, ch: usize) -> Option<[usize; 4]> {
    let (cw, ch) = (cw as i32, ch as i32);
    let (x0, y0) = (x.max(0), y.max(0));
    let (x1, y1) = ((x + side).min(cw), (y + side).min(ch));
    (x0 < x1 && y0 < y1).then_some([x0 as usize, y0 as usize, x1 as usize, y1 as usize])
}

/// The four one-pixel edges (as `[x, y, w, h]` fills) of an outline on the pixel columns `x0`
/// and `x1` and rows `y0` and `y1`, pulled inside the window so that the world's border
/// stays visible.
pub fn outline_edges([x0, y0, x1, y1]: [f32; 4], cw: usize, ch: usize) -> Option<[[f32; 4]; 4]> {
    let (x1, y1) = (x1.min(cw as f32 - 1.0), y1.min(ch as f32 - 1.0));
    let (x0, y0) = (x0.max(0.0), y0.max(0.0));
    if x1 < x0 || y1 < y0 {
        return None;
    }
    let (w, h) = (x1 - x0 + 1.0, y1 - y0 + 1.0);
    Some([
        [x0, y0, w, 1.0],
        [x0, y1, w, 1.0],
        [x0, y0, 1.0, h],
        [x1, y0, 1.0, h],
    ])
}

/// The pixel columns and rows a node's outline takes: its cell, or under loose placement its
/// region (the cell and half a cell around it, none at the depth limit).
fn node_box(view: &View, rect: &Rect, depth: u8, placement: Placement, max_depth: u8) -> [f32; 4] {
    let r = if placement == Placement::Loose && depth < max_depth {
        let (mx, my) = (rect.width() / 2.0, rect.height() / 2.0);
        Rect::new(
            rect.min_x - mx,
            rect.min_y - my,
            rect.max_x + mx,
            rect.max_y + my,
        )
    } else {
        *rect
    };
    let (x0, y0) = view.to_screen(r.min_x, r.min_y);
    let (x1, y1) = view.to_screen(r.max_x, r.max_y);
    [x0.round(), y0.round(), x1.round(), y1.round()]
}

/// What the particles' colours are computed from, gathered in one place while the simulation
/// is at hand (before the frame's steps start): the depth of the node holding each particle
/// in depth colouring, whether it touches another in contact colouring; speed colouring reads
/// the particles' own velocities. [`color`](Self::color) turns them into a particle's colour.
#[derive(Debug, Default)]
pub struct ColorInputs {
    /// The colouring they were gathered for.
    mode: ColorMode,
    /// Depth of the node holding each particle, by particle index (depth colouring).
    depth: Vec<AtomicU8>,
    /// Whether each particle touches another one or sleeps (contact colouring).
    touching: Vec<bool>,
}

impl ColorInputs {
    /// Gathers what colouring `mode` needs from `sim`.
    pub fn gather(&mut self, sim: &Simulation, mode: ColorMode) {
        self.mode = mode;
        match mode {
            ColorMode::Depth => walk_tree(sim, &mut self.depth),
            ColorMode::Contact => {
                // A sleeping particle rests on something (a particle, or the floor alone):
                // the contacts leave out the pairs of two sleeping ones.
                self.touching.clear();
                self.touching.extend_from_slice(sim.asleep());
                self.touching.resize(sim.len(), false);
                for &(a, b) in sim.contacts() {
                    for i in [a, b] {
                        if let Some(t) = self.touching.get_mut(i as usize) {
                            *t = true;
                        }
                    }
                }
            }
            ColorMode::Speed => {}
        }
    }

    /// The colour of particle `p`, the `i`th of the simulation when the inputs were gathered.
    #[inline]
    pub fn color(&self, i: usize, p: &Particle) -> [u8; 4] {
        match self.mode {
            ColorMode::Depth => {
                let d = self.depth.get(i).map_or(0, |d| d.load(Ordering::Relaxed));
                DEPTH_COLORS[usize::from(d).min(DEPTH_COLORS.len() - 1)]
            }
            ColorMode::Speed => speed_color(p.vx, p.vy),
            ColorMode::Contact => {
                if self.touching.get(i).copied().unwrap_or(false) {
                    TOUCHING
                } else {
                    FREE
                }
            }
        }
    }
}

/// One walk over the tree, on every thread of rayon's pool: writes the depth of the node
/// holding each particle into `depth` (by particle index). The walk reads each node's list
/// once (no rectangle tests, no stack), and each particle's depth is written by the one node
/// that holds it, so the result is the same on any thread count. A particle the tree does not
/// hold keeps depth 0.
fn walk_tree(sim: &Simulation, depth: &mut Vec<AtomicU8>) {
    let n = sim.len();
    depth.truncate(n);
    depth.resize_with(n, AtomicU8::default);
    let depth = &depth[..];
    sim.tree().par_for_each_node_items(|node, items| {
        for item in items {
            if let Some(d) = depth.get(*item.value as usize) {
                d.store(node.depth, Ordering::Relaxed);
            }
        }
    });
}

/// A route by which a [`Scene`] reaches the window: the CPU canvas or the instanced GPU draw.
pub trait Painter {
    /// Which renderer this is.
    fn renderer(&self) -> RendererChoice;
    /// Whether it blends the overlay's layers into its own pixels (the canvas) rather than
    /// leaving them to OpenGL.
    fn blends_layers(&self) -> bool;
    /// Draws `scene` and, if it [`blends_layers`](Self::blends_layers), `layers` over a
    /// `width` x `height` window, using up to `bands` threads.
    fn paint(&mut self, scene: &Scene, layers: [&Layer; 2], width: u16, height: u16, bands: usize);
}

fn xywh((x, y, w, h): (f32, f32, f32, f32)) -> [f32; 4] {
    [x, y, w, h]
}

/// Scenes are equal when they draw the same: the working list is left out.
impl PartialEq for Scene {
    fn eq(&self, other: &Scene) -> bool {
        self.background == other.background
            && self.floor == other.floor
            && self.quad_tint == other.quad_tint
            && self.side == other.side
            && self.particles == other.particles
            && self.tint == other.tint
            && self.tints == other.tints
            && self.highlights == other.highlights
            && self.outlines == other.outlines
            && self.flashes == other.flashes
            && self.probe == other.probe
            && self.probe_rgba == other.probe_rgba
    }
}

impl Scene {
    /// Makes this scene equal to `other`, reusing this one's lists (no allocation once they
    /// have grown).
    pub fn copy_from(&mut self, other: &Scene) {
        self.background = other.background;
        self.floor = other.floor;
        self.quad_tint = other.quad_tint;
        self.side = other.side;
        self.particle_size = other.particle_size;
        self.particles.clear();
        self.particles.extend_from_slice(&other.particles);
        self.tint = other.tint;
        self.tints.clear();
        self.tints.extend_from_slice(&other.tints);
        self.highlights.clear();
        self.highlights.extend_from_slice(&other.highlights);
        self.outlines.clear();
        self.outlines.extend_from_slice(&other.outlines);
        self.flashes.clear();
        self.flashes.extend_from_slice(&other.flashes);
        self.probe.clear();
        self.probe.extend_from_slice(&other.probe);
        self.probe_rgba = other.probe_rgba;
    }

    /// The scene of `app` seen through `view`, its colours from `colors`.
    #[cfg(test)]
    pub fn build(&mut self, app: &App, view: &View, colors: &ColorInputs) {
        self.build_around_particles(app, view, &mut LeafChanges::default());
        self.fill_particles(app.sim().particles(), view, colors);
    }

    /// The particles' squares, from `particles` (the simulation's, or a copy of them taken
    /// with [`build_around_particles`](Self::build_around_particles), so that the next steps
    /// may run meanwhile), coloured from `colors`.
    pub fn fill_particles(&mut self, particles: &[Particle], view: &View, colors: &ColorInputs) {
        let size = self.particle_size;
        let seen = view.visible_world();
        self.particles.clear();
        for (i, p) in particles.iter().enumerate() {
            if p.x > seen.max_x
                || p.y > seen.max_y
                || p.x + size < seen.min_x
                || p.y + size < seen.min_y
            {
                continue;
            }
            let color = colors.color(i, p);
            let (sx, sy) = view.snap_px(p.x, p.y);
            self.particles.push((sx, sy, color));
        }
    }

    /// Everything of the scene but the particles' squares (see
    /// [`fill_particles`](Self::fill_particles)): the floor, the quad, the query's tints and
    /// highlights, the node outlines, the leaves that changed lately (`changes` remembers
    /// them from frame to frame), the probe's edge.
    pub fn build_around_particles(&mut self, app: &App, view: &View, changes: &mut LeafChanges) {
        let sim = app.sim();
        self.background = BACKGROUND_RGBA;
        self.floor = Some((xywh(view.rect_to_screen(&sim.config().world)), FLOOR_RGBA));
        // The quad under the particles, so the ones touching it show on top of it.
        // Only the rectangle query is the quad: the circle and the nearest are outlined.
        self.quad_tint = matches!(app.probe.outline(), Outline::Rect(_)).then(|| {
            (
                xywh(view.rect_to_screen(&app.probe.rect())),
                QUAD_FILL.0,
                QUAD_FILL.1,
            )
        });
        self.particle_size = sim.config().particle_size;
        self.side = view.particle_px(self.particle_size) as i32;
        self.tint = VISITED_TINT;
        self.tints.clear();
        self.highlights.clear();
        let report = app.report_shown();
        if report {
            // The leaves the walk reached are where it searched; the nodes above them only
            // led there (and the root, always visited, would tint the whole world).
            for (rect, _) in app.probe.visited().iter().filter(|(_, leaf)| *leaf) {
                self.tints.push(xywh(view.rect_to_screen(rect)));
            }
            for &i in app.probe.hits() {
                if let Some(p) = sim.particles().get(i as usize) {
                    let (sx, sy) = view.snap_px(p.x, p.y);
                    self.highlights.push((sx, sy, HIGHLIGHT));
                }
            }
        }
        self.outlines.clear();
        let tree = sim.tree();
        let config = sim.config().tree;
        self.flashes.clear();
        if app.display.outlines != Outlines::Off {
            let leaves_only = app.display.outlines == Outlines::Leaves;
            // Deepest first, so the shallow split lines stay visible on top of the deep ones
            // that share them; in node order within a depth. One walk over the nodes, then a
            // counting sort by depth.
            let mut per_depth = [0usize; MAX_DEPTH as usize + 2];
            self.by_depth.clear();
            changes.leaves.clear();
            let world = tree.world();
            for node in tree.nodes() {
                if node.is_leaf {
                    changes
                        .leaves
                        .push((leaf_key(&world, &node.rect, node.depth), node.rect));
                } else if leaves_only {
                    continue;
                }
                let b = node_box(
                    view,
                    &node.rect,
                    node.depth,
                    config.placement,
                    config.max_depth,
                );
                self.by_depth.push((node.depth, b));
                per_depth[usize::from(node.depth)] += 1;
            }
            // Where each depth's outlines start: the deepest at 0.
            let mut start = 0;
            for count in per_depth.iter_mut().rev() {
                let n = *count;
                *count = start;
                start += n;
            }
            let none = ([0.0; 4], [0; 4]);
            self.outlines.resize(self.by_depth.len(), none);
            for &(depth, b) in &self.by_depth {
                let color = OUTLINE_COLORS[usize::from(depth).min(OUTLINE_COLORS.len() - 1)];
                let at = &mut per_depth[usize::from(depth)];
                self.outlines[*at] = (b, color);
                *at += 1;
            }
            changes.update(app.sim_seconds());
            let [r, g, b] = FLASH.0;
            for &(rect, age) in &changes.recent {
                let alpha = (f64::from(FLASH.1) * (1.0 - age / FLASH_SECONDS)).round() as u8;
                let (x, y, w, h) = view.rect_to_screen(&rect);
                let t = FLASH_EDGE.min(w / 2.0).min(h / 2.0);
                let color = [r, g, b, alpha];
                self.flashes.extend([
                    ([x, y, w, t], color),
                    ([x, y + h - t, w, t], color),
                    ([x, y + t, t, h - 2.0 * t], color),
                    ([x + w - t, y + t, t, h - 2.0 * t], color),
                ]);
            }
        } else {
            changes.forget();
        }
        if report {
            for (rect, _) in app.probe.visited().iter().filter(|(_, leaf)| *leaf) {
                let b = node_box(view, rect, 0, Placement::Exact, 0);
                self.outlines.push((b, VISITED_EDGE));
            }
        }
        self.probe_rgba = QUAD_EDGE_RGBA;
        self.probe.clear();
        let rows = view.screen_height();
        match app.probe.outline() {
            Outline::Rect(r) => {
                let (x, y, w, h) = view.rect_to_screen(&r);
                let t = PROBE_EDGE;
                self.probe.extend([
                    [x, y, w, t],
                    [x, y + h - t, w, t],
                    [x, y, t, h],
                    [x + w - t, y, t, h],
                ]);
            }
            Outline::Circle { x, y, r } => {
                let (sx, sy) = view.to_screen(x, y);
                ring(
                    &mut self.probe,
                    (sx, sy),
                    r * view.scale(),
                    PROBE_EDGE,
                    rows,
                );
            }
            Outline::Nearest { x, y, reach } => {
                let (sx, sy) = view.to_screen(x, y);
                let (arm, t) = (10.0, PROBE_EDGE);
                self.probe.extend([
                    [sx - arm, sy - t / 2.0, 2.0 * arm, t],
                    [sx - t / 2.0, sy - arm, t, 2.0 * arm],
                ]);
                if reach > 0.0 {
                    ring(&mut self.probe, (sx, sy), reach * view.scale(), 2.0, rows);
                }
            }
        }
    }
}

/// Thickness of the blue probe's edge, in pixels.
const PROBE_EDGE: f32 = 3.0;
/// Thickness of a changed leaf's edge, in pixels.
const FLASH_EDGE: f32 = 2.0;
/// How long a leaf that split or merged stays marked, in simulated seconds.
const FLASH_SECONDS: f64 = 1.0;

/// A ring of `thickness` pixels around the circle of radius `r` about `(cx, cy)`, as one or
/// two fills per pixel row (rows `0..rows` of the window only).
fn ring(out: &mut Vec<[f32; 4]>, (cx, cy): (f32, f32), r: f32, thickness: f32, rows: f32) {
    let (outer, inner) = (r + thickness / 2.0, (r - thickness / 2.0).max(0.0));
    let top = (cy - outer).floor().max(0.0);
    let bottom = (cy + outer).ceil().min(rows);
    let mut y = top;
    while y < bottom {
        // The row's middle, against both circles.
        let dy = (y + 0.5 - cy).abs();
        if dy < outer {
            let xo = (outer * outer - dy * dy).sqrt();
            if dy < inner {
                let xi = (inner * inner - dy * dy).sqrt();
                out.push([cx - xo, y, xo - xi, 1.0]);
                out.push([cx + xi, y, xo - xi, 1.0]);
            } else {
                out.push([cx - xo, y, 2.0 * xo, 1.0]);
            }
        }
        y += 1.0;
    }
}

/// A leaf's identity from frame to frame: its depth and its cell's column and row.
fn leaf_key(world: &Rect, rect: &Rect, depth: u8) -> u64 {
    let col = ((rect.min_x - world.min_x) / rect.width().max(f32::MIN_POSITIVE)).round() as u64;
    let row = ((rect.min_y - world.min_y) / rect.height().max(f32::MIN_POSITIVE)).round() as u64;
    (u64::from(depth) << 48) | ((col & 0xFF_FFFF) << 24) | (row & 0xFF_FFFF)
}

/// The tree's leaves from frame to frame, and which of them became leaves in the last
/// [`FLASH_SECONDS`]: a leaf is new where a node split (its children) or merged (itself).
/// Lists are reused; nothing is allocated once they have grown.
#[derive(Debug, Default)]
pub struct LeafChanges {
    /// This frame's leaves: key and cell.
    leaves: Vec<(u64, Rect)>,
    /// Every leaf of the last frame and when it became one, sorted by key.
    born: Vec<(u64, f64)>,
    next: Vec<(u64, f64)>,
    /// The leaves that changed lately and their age in seconds.
    pub recent: Vec<(Rect, f64)>,
}

impl LeafChanges {
    /// Compares this frame's [`leaves`](Self::leaves) with the last frame's at time `now`.
    /// A change of most leaves at once (the first frame, a rebuild with other settings, a
    /// cleared world) is not the tree adapting, and is not marked.
    fn update(&mut self, now: f64) {
        self.leaves.sort_unstable_by_key(|&(key, _)| key);
        self.next.clear();
        self.recent.clear();
        let mut old = self.born.iter().peekable();
        let mut fresh = 0;
        for &(key, _) in &self.leaves {
            while old.next_if(|&&(k, _)| k < key).is_some() {}
            let born = match old.next_if(|&&(k, _)| k == key) {
                Some(&(_, at)) => at,
                None => {
                    fresh += 1;
                    now
                }
            };
            self.next.push((key, born));
        }
        if self.born.is_empty() || fresh * 2 > self.leaves.len() {
            for (_, at) in &mut self.next {
                if *at == now {
                    *at = f64::NEG_INFINITY;
                }
            }
        }
        std::mem::swap(&mut self.born, &mut self.next);
        for (&(_, rect), &(_, at)) in self.leaves.iter().zip(&self.born) {
            let age = now - at;
            if (0.0..FLASH_SECONDS).contains(&age) {
                self.recent.push((rect, age));
            }
        }
    }

    /// Forgets the leaves (outlines off): when they come back, nothing is marked at once.
    fn forget(&mut self) {
        self.born.clear();
        self.recent.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::app::tests_support::test_app;
    use crate::state::view::Camera;

    #[test]
    fn floor_i64_is_floor_then_a_saturating_cast() {
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            -1.0,
            1.0 - f32::EPSILON,
            -1e-45,
            1e-45,
            8_388_607.5,
            -8_388_607.5,
            1e19,
            -1e19,
            9.223_372e18,
            -9.223_372e18,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        values.extend((-2000..2000).map(|i| i as f32 * 0.37));
        for v in values {
            assert_eq!(floor_i64(v), v.floor() as i64, "{v}");
        }
    }

    #[test]
    fn the_tree_walk_gives_each_particle_its_node_depth() {
        let mut app = test_app();
        app.sim_mut().spawn_burst(6000).unwrap();
        let mut depth = Vec::new();
        for _ in 0..30 {
            app.update();
        }
        walk_tree(app.sim(), &mut depth);
        // As many particles at each depth as the tree holds there.
        let tree = app.sim().tree();
        let mut per_depth = [0usize; MAX_DEPTH as usize + 1];
        let depth: Vec<u8> = depth.iter().map(|d| d.load(Ordering::Relaxed)).collect();
        for &d in &depth {
            per_depth[usize::from(d)] += 1;
        }
        assert_eq!(per_depth, tree.stats().items_per_depth);
        let mut by_walk = vec![u8::MAX; app.sim().len()];
        let at = std::cell::Cell::new(0);
        let _ = tree.for_each_in_rect_counting(
            &tree.world(),
            |node| at.set(node.depth),
            |item| {
                by_walk[*item.value as usize] = at.get();
            },
        );
        assert!(by_walk.iter().all(|&d| d != u8::MAX), "a particle left out");
        assert_eq!(depth, by_walk);
        assert!(depth.iter().any(|&d| d >= 3), "a flat tree shows nothing");
    }

    #[test]
    fn outlines_go_deepest_first_in_node_order_within_a_depth() {
        let mut app = test_app();
        app.sim_mut().spawn_burst(6000).unwrap();
        for _ in 0..3 {
            app.update();
        }
        let view = View::new(app.sim().config().world, 1024.0, 768.0, Camera::default());
        let mut scene = Scene::default();
        scene.build(&app, &view, &ColorInputs::default());
        let tree = app.sim().tree();
        let config = app.sim().config().tree;
        let mut expected = Vec::new();
        for depth in (0..=tree.stats().deepest_level).rev() {
            let color = OUTLINE_COLORS[usize::from(depth).min(OUTLINE_COLORS.len() - 1)];
            for node in tree.nodes().filter(|n| n.depth == depth) {
                let b = node_box(&view, &node.rect, depth, config.placement, config.max_depth);
                expected.push((b, color));
            }
        }
        assert!(tree.stats().deepest_level >= 3);
        assert_eq!(scene.outlines, expected);
        // A second build over the same state is the same scene.
        let mut again = Scene::default();
        again.build(&app, &view, &ColorInputs::default());
        assert!(again == scene);
    }

    /// The 4^depth cells of the unit world at `depth`, as `(key, cell)` leaves.
    fn grid(depth: u8) -> Vec<(u64, Rect)> {
        let world = Rect::new(0.0, 0.0, 1.0, 1.0);
        let n = 1u32 << depth;
        let side = 1.0 / n as f32;
        let mut cells = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let r = Rect::from_min_size(i as f32 * side, j as f32 * side, side, side);
                cells.push((leaf_key(&world, &r, depth), r));
            }
        }
        cells
    }

    #[test]
    fn leaves_that_split_are_marked_for_a_second_and_a_rebuild_is_not() {
        // The first frame marks nothing.
        let mut changes = LeafChanges {
            leaves: grid(2),
            ..LeafChanges::default()
        };
        changes.update(10.0);
        assert!(changes.recent.is_empty());
        // One of the 16 leaves splits into 4: the 4 children are new.
        let split = changes.leaves[5].1;
        let mut leaves = grid(2);
        leaves.remove(5);
        leaves.extend(grid(3).into_iter().filter(|(_, r)| split.contains_rect(r)));
        changes.leaves = leaves.clone();
        changes.update(10.5);
        assert_eq!(changes.recent.len(), 4);
        assert!(changes
            .recent
            .iter()
            .all(|(r, age)| split.contains_rect(r) && *age == 0.0));
        // Still marked half a second later, gone after a second.
        changes.leaves = leaves.clone();
        changes.update(11.0);
        assert_eq!(changes.recent.len(), 4);
        changes.leaves = leaves;
        changes.update(11.6);
        assert!(changes.recent.is_empty());
        // Every leaf new at once (a rebuild with other settings): nothing is marked.
        changes.leaves = grid(4);
        changes.update(12.0);
        assert!(changes.recent.is_empty());
    }

    #[test]
    fn a_ring_covers_its_circle_and_not_its_middle() {
        let mut fills = Vec::new();
        ring(&mut fills, (100.0, 100.0), 40.0, 3.0, 1000.0);
        let covered = |x: f32, y: f32| {
            fills
                .iter()
                .any(|&[fx, fy, w, h]| x >= fx && x < fx + w && y >= fy && y < fy + h)
        };
        for k in 0..64 {
            let a = k as f32 / 64.0 * std::f32::consts::TAU;
            assert!(
                covered(100.0 + 40.0 * a.cos(), 100.0 + 40.0 * a.sin()),
                "{a}"
            );
        }
        assert!(!covered(100.0, 100.0) && !covered(120.0, 100.0));
    }

    #[test]
    fn particles_from_six_pixels_get_a_darker_border() {
        let c = [200, 100, 50, 255];
        let small: Vec<_> = square_fills((0, 0, c), 5).collect();
        assert_eq!(small, [(0, 0, 5, c)]);
        let big: Vec<_> = square_fills((0, 0, c), 6).collect();
        assert_eq!(big, [(0, 0, 6, border_color(c)), (1, 1, 4, c)]);
        assert!(border_color(c)[..3].iter().zip(&c[..3]).all(|(b, c)| b < c));
    }
}
