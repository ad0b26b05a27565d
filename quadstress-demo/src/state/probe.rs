//! The blue probe: a query the right mouse button places and drags over the particles, run
//! through the tree every frame while its report is shown, with a brute-force scan beside it
//! as a cross-check. Its shape is the blue quad (a rectangle query), the disc inside it (a
//! circle query) or its centre (the k nearest particles).

use clap::ValueEnum;
use quadstress::{ItemId, Rect};
use quadstress_sim::Simulation;

use crate::input::platform::Clock;
use crate::settings::MAX_NEAREST;

/// How long the report stays on screen after the last click or move, in seconds.
pub const REPORT_SECONDS: f64 = 4.0;

/// The query the probe runs (also the `--query` flag's values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Shape {
    /// Every particle touching the blue quad.
    #[default]
    Rect,
    /// Every particle touching the disc inside the quad.
    Circle,
    /// The k particles nearest to the quad's centre.
    Nearest,
}

impl Shape {
    /// The next shape, wrapping around.
    pub fn next(self) -> Self {
        match self {
            Shape::Rect => Shape::Circle,
            Shape::Circle => Shape::Nearest,
            Shape::Nearest => Shape::Rect,
        }
    }

    /// The name the panel and messages use.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Rect => "rectangle",
            Shape::Circle => "circle",
            Shape::Nearest => "k nearest",
        }
    }
}

/// What the last run of the query found and what it cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Report {
    /// The shape it ran.
    pub shape: Shape,
    /// Particles found by the tree.
    pub count: usize,
    /// The same count by scanning every particle.
    pub brute_count: usize,
    /// Whether the scan found the same: the same count, and for the nearest query the same
    /// distances.
    pub agrees: bool,
    /// Nodes the tree query entered; for the nearest query, the nodes within `reach` of the
    /// point, which any nearest search must enter.
    pub nodes_visited: usize,
    /// Nodes in the tree.
    pub nodes_total: usize,
    /// Particles the tree query tested (0 for the nearest query, whose walk the library keeps
    /// to itself).
    pub particles_tested: usize,
    /// Particles in the tree.
    pub particles_total: usize,
    /// The nearest query's k-th distance (0 for the other shapes).
    pub reach: f32,
    /// How long the tree query took.
    pub query_ms: f64,
}

/// What the draw code outlines for the probe, in world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outline {
    /// The blue quad.
    Rect(Rect),
    /// A disc.
    Circle { x: f32, y: f32, r: f32 },
    /// The nearest query's point and the distance of the farthest particle found.
    Nearest { x: f32, y: f32, reach: f32 },
}

/// Where the right button holds the quad.
#[derive(Clone, Copy, Debug)]
struct Grip {
    /// Cursor minus the quad's corner.
    offset: (f32, f32),
    /// Whether the quad moved since the press.
    moved: bool,
}

/// The blue probe, its last report and what its query visited and found.
#[derive(Debug)]
pub struct Probe {
    /// The blue quad: the circle is inscribed in it, the nearest query starts at its centre.
    rect: Rect,
    shape: Shape,
    /// Neighbours the nearest query asks for.
    k: usize,
    /// The world the quad stays inside.
    world: Rect,
    report: Report,
    /// Indices of the particles the query found.
    hits: Vec<u32>,
    /// Cells of the nodes the query visited, and whether each is a leaf.
    visited: Vec<(Rect, bool)>,
    /// The nearest query's answer from the tree's squares; the particles within reach of it,
    /// by distance from where they are now; and the brute-force distances they are checked
    /// against.
    nearest: Vec<(ItemId, f32)>,
    candidates: Vec<(f32, u32)>,
    distances: Vec<f32>,
    /// While the right button holds the quad: where it was gripped.
    grip: Option<Grip>,
    /// Until when the report stays on screen (seconds on the app's clock).
    until: f64,
}

impl Probe {
    /// A quad `rect` inside `world`, a rectangle query, its report hidden.
    pub fn new(rect: Rect, world: Rect) -> Self {
        Probe {
            rect,
            shape: Shape::Rect,
            k: 50,
            world,
            report: Report::default(),
            hits: Vec::new(),
            visited: Vec::new(),
            nearest: Vec::new(),
            candidates: Vec::new(),
            distances: Vec::new(),
            grip: None,
            until: 0.0,
        }
    }

    /// The blue quad.
    pub fn rect(&self) -> Rect {
        self.rect
    }

    /// The query it runs.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Neighbours the nearest query asks for.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Sets the query's shape.
    pub fn set_shape(&mut self, shape: Shape) {
        self.shape = shape;
    }

    /// Sets how many neighbours the nearest query asks for, 1 to [`MAX_NEAREST`].
    pub fn set_k(&mut self, k: usize) {
        self.k = k.clamp(1, MAX_NEAREST);
    }

    /// The disc of the circle query: inscribed in the quad.
    fn circle(&self) -> (f32, f32, f32) {
        let (x, y) = self.rect.center();
        (x, y, self.rect.width().min(self.rect.height()) / 2.0)
    }

    /// What to outline on screen.
    pub fn outline(&self) -> Outline {
        let (x, y, r) = self.circle();
        match self.shape {
            Shape::Rect => Outline::Rect(self.rect),
            Shape::Circle => Outline::Circle { x, y, r },
            Shape::Nearest => Outline::Nearest {
                x,
                y,
                reach: self.report.reach,
            },
        }
    }

    /// The last run's figures.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Indices of the particles the last run found.
    pub fn hits(&self) -> &[u32] {
        &self.hits
    }

    /// The nodes the last run visited, and whether each is a leaf.
    pub fn visited(&self) -> &[(Rect, bool)] {
        &self.visited
    }

    /// Whether the report is on screen at `now`.
    pub fn shown(&self, now: f64) -> bool {
        now < self.until
    }

    /// Keeps the report up to the end of the program (a scripted run's report stays up to its
    /// last frame, however slow the frames).
    pub fn keep_shown(&mut self) {
        self.until = f64::INFINITY;
    }

    /// Hides the report and forgets what the last run found (the particles are gone).
    pub fn forget(&mut self) {
        self.hits.clear();
        self.visited.clear();
        self.until = 0.0;
    }

    /// Moves the quad into a new world, its size and place scaled with the world's (a new
    /// simulation: the last run's finds are gone).
    pub fn set_world(&mut self, world: Rect) {
        // The quad keeps its share of the world: a quad of the default world's size covered
        // three quarters of a world scaled to 0.25, clipped.
        let (old, r) = (self.world, self.rect);
        let (kx, ky) = (world.width() / old.width(), world.height() / old.height());
        self.rect = Rect::from_min_size(
            world.min_x + (r.min_x - old.min_x) * kx,
            world.min_y + (r.min_y - old.min_y) * ky,
            r.width() * kx,
            r.height() * ky,
        );
        self.world = world;
        self.forget();
        self.place(self.rect.min_x, self.rect.min_y, 0.0);
    }

    /// Moves the quad's corner to `(x, y)`, kept inside the world; a shown report stays up
    /// for a while after the move.
    pub fn place(&mut self, x: f32, y: f32, now: f64) {
        let (w, h) = (self.rect.width(), self.rect.height());
        let x = x.clamp(self.world.min_x, self.world.max_x - w);
        let y = y.clamp(self.world.min_y, self.world.max_y - h);
        self.rect = Rect::from_min_size(x, y, w, h);
        if self.until > 0.0 {
            self.until = self.until.max(now + REPORT_SECONDS);
        }
    }

    /// Moves the quad by world units.
    pub fn nudge(&mut self, dx: f32, dy: f32, now: f64) {
        self.place(self.rect.min_x + dx, self.rect.min_y + dy, now);
    }

    /// A right-click at world `(x, y)`: inside the quad it tests the quad where it is; outside,
    /// it first centres the quad there. Runs the query, shows the report for a few seconds
    /// and returns it.
    pub fn click(&mut self, sim: &Simulation, x: f32, y: f32, clock: Clock) -> &Report {
        let now = clock();
        if !self.rect.contains_point(x, y) {
            self.place(
                x - self.rect.width() / 2.0,
                y - self.rect.height() / 2.0,
                now,
            );
        }
        self.until = now + REPORT_SECONDS;
        self.run(sim, clock);
        &self.report
    }

    /// The right button held at world `(x, y)`: the first frame clicks, the next ones drag the
    /// quad by the point where it was gripped. Returns the report when this frame clicked.
    pub fn hold(&mut self, sim: &Simulation, x: f32, y: f32, clock: Clock) -> Option<Report> {
        match self.grip {
            None => {
                let report = *self.click(sim, x, y, clock);
                self.grip = Some(Grip {
                    offset: (x - self.rect.min_x, y - self.rect.min_y),
                    moved: false,
                });
                Some(report)
            }
            Some(grip) => {
                let (gx, gy) = grip.offset;
                let before = self.rect;
                self.place(x - gx, y - gy, clock());
                self.grip = Some(Grip {
                    moved: grip.moved || self.rect != before,
                    ..grip
                });
                None
            }
        }
    }

    /// The right button released. Returns the report when this ends a drag that moved the
    /// quad, so that the console gets where it was dropped as well as where it was clicked.
    pub fn release(&mut self, sim: &Simulation, clock: Clock) -> Option<Report> {
        if !self.grip.take()?.moved {
            return None;
        }
        self.run(sim, clock);
        Some(self.report)
    }

    /// Runs the query through the tree (collecting the visited nodes and the hits) and the
    /// brute-force scan, refreshing the report.
    ///
    /// The tree holds the squares of the last step's tree update, and the particles have moved
    /// a little since (see [`Simulation::drift`]): rather than update the tree again each
    /// frame, each query asks the tree about its shape grown by that drift and tests each
    /// particle found at its current square, so the answer is exactly the brute-force scan's.
    pub fn run(&mut self, sim: &Simulation, clock: Clock) {
        let drift = sim.drift();
        self.hits.clear();
        self.visited.clear();
        self.report = match self.shape {
            Shape::Rect => self.run_rect(sim, drift, clock),
            Shape::Circle => self.run_circle(sim, drift, clock),
            Shape::Nearest => self.run_nearest(sim, drift, clock),
        };
        let tree = sim.tree();
        self.report.nodes_total = tree.nodes().len();
        self.report.particles_total = tree.len();
    }

    fn run_rect(&mut self, sim: &Simulation, drift: f64, clock: Clock) -> Report {
        let (hits, visited) = (&mut self.hits, &mut self.visited);
        let s = sim.config().particle_size;
        let particles = sim.particles();
        let rect = self.rect;
        let t = clock();
        let grown = grow(&rect, drift);
        let (_, counts) = sim
            .tree()
            .for_each_in_rect_counting(
                &grown,
                |node| visited.push((node.rect, node.is_leaf)),
                |item| {
                    let i = *item.value;
                    if particles[i as usize].rect(s).intersects(&rect) {
                        hits.push(i);
                    }
                },
            )
            .expect("the quad is always a valid rectangle");
        let query_ms = (clock() - t) * 1e3;
        let brute_count = sim.touching_brute_force(&self.rect);
        Report {
            shape: Shape::Rect,
            count: hits.len(),
            brute_count,
            agrees: hits.len() == brute_count,
            nodes_visited: counts.nodes_visited,
            particles_tested: counts.tests as usize,
            query_ms,
            ..Report::default()
        }
    }

    fn run_circle(&mut self, sim: &Simulation, drift: f64, clock: Clock) -> Report {
        let (x, y, r) = self.circle();
        let tree = sim.tree();
        let s = sim.config().particle_size;
        let particles = sim.particles();
        let (hits, visited) = (&mut self.hits, &mut self.visited);
        let t = clock();
        let grown_r = circle_reach(x, y, r, 1.5 * drift);
        // One walk, counted: the nodes it entered and the particles it tested are the query's.
        let ((), counts) = tree
            .for_each_in_circle_counting(
                x,
                y,
                grown_r,
                |node| visited.push((node.rect, node.is_leaf)),
                |item| {
                    let i = *item.value;
                    if particles[i as usize].rect(s).intersects_circle(x, y, r) {
                        hits.push(i);
                    }
                },
            )
            .expect("the disc is always finite");
        let query_ms = (clock() - t) * 1e3;
        let brute_count = particles
            .iter()
            .filter(|p| p.rect(s).intersects_circle(x, y, r))
            .count();
        Report {
            shape: Shape::Circle,
            count: hits.len(),
            brute_count,
            agrees: hits.len() == brute_count,
            nodes_visited: counts.nodes_visited,
            particles_tested: counts.tests as usize,
            query_ms,
            ..Report::default()
        }
    }

    fn run_nearest(&mut self, sim: &Simulation, drift: f64, clock: Clock) -> Report {
        let (x, y, _) = self.circle();
        let tree = sim.tree();
        let s = sim.config().particle_size;
        let particles = sim.particles();
        self.nearest.clear();
        self.candidates.clear();
        let t = clock();
        tree.query_nearest(x, y, self.k, &mut self.nearest)
            .expect("the point is always finite");
        // The tree's distances are those of its squares. A square moved by at most `drift`
        // along each axis changes its distance by at most `drift * sqrt(2)`, so the k nearest
        // where the particles are now lie within the tree's k-th distance plus twice that:
        // every square there is measured where it is now, and the k closest kept.
        let stale_reach = self.nearest.iter().map(|&(_, d)| d).fold(0.0, f32::max);
        let candidates = &mut self.candidates;
        tree.for_each_in_circle(x, y, circle_reach(x, y, stale_reach, 3.0 * drift), |item| {
            let i = *item.value;
            candidates.push((particles[i as usize].rect(s).distance(x, y), i));
        })
        .expect("the point is always finite");
        let k = self.k.min(candidates.len());
        let closer = |a: &(f32, u32), b: &(f32, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        if k > 0 && k < candidates.len() {
            candidates.select_nth_unstable_by(k - 1, closer);
        }
        candidates.truncate(k);
        candidates.sort_unstable_by(closer);
        let query_ms = (clock() - t) * 1e3;
        self.hits.extend(candidates.iter().map(|&(_, i)| i));
        let reach = candidates.last().map_or(0.0, |&(d, _)| d);
        // The nodes whose cells come within the k-th distance: a nearest search cannot stop
        // before it has looked into each of them.
        let visited = &mut self.visited;
        let bounds = Rect::new(x - reach, y - reach, x + reach, y + reach);
        let mut nodes = 0;
        let _ = tree.for_each_in_rect_counting(
            &bounds,
            |node| {
                if node.rect.distance(x, y) <= reach {
                    nodes += 1;
                    visited.push((node.rect, node.is_leaf));
                }
            },
            |_| {},
        );
        // Brute force: every particle's distance, the k smallest, compared with the tree's.
        self.distances.clear();
        self.distances
            .extend(particles.iter().map(|p| p.rect(s).distance(x, y)));
        let brute_k = self.k.min(self.distances.len());
        if brute_k > 0 && brute_k < self.distances.len() {
            self.distances
                .select_nth_unstable_by(brute_k - 1, f32::total_cmp);
        }
        self.distances.truncate(brute_k);
        self.distances.sort_unstable_by(f32::total_cmp);
        let agrees = k == brute_k
            && self
                .candidates
                .iter()
                .zip(&self.distances)
                .all(|(&(d, _), &b)| d == b);
        Report {
            shape: Shape::Nearest,
            count: self.hits.len(),
            brute_count: brute_k,
            agrees,
            nodes_visited: nodes,
            reach,
            query_ms,
            ..Report::default()
        }
    }

    /// The console form of the report: the same words as the screen's.
    pub fn line(&self) -> String {
        let r = &self.report;
        let verdict = if r.agrees { "agrees" } else { "DISAGREES" };
        match self.shape {
            Shape::Rect | Shape::Circle => {
                let what = match self.outline() {
                    Outline::Circle { x, y, r } => {
                        format!("blue circle ({x:.0}, {y:.0}) radius {r:.0}")
                    }
                    _ => {
                        let q = &self.rect;
                        format!(
                            "blue quad [{:.0}, {:.0}, {:.0}, {:.0}]",
                            q.min_x, q.min_y, q.max_x, q.max_y
                        )
                    }
                };
                format!(
                    "{what} collides: {}; particles touching: {}; nodes visited: {} of {}; particles tested: {} of {}; tree query: {:.3} ms; brute force: {} ({verdict})",
                    if r.count > 0 { "yes" } else { "no" },
                    r.count,
                    r.nodes_visited,
                    r.nodes_total,
                    r.particles_tested,
                    r.particles_total,
                    r.query_ms,
                    r.brute_count,
                )
            }
            Shape::Nearest => {
                let (x, y, _) = self.circle();
                format!(
                    "nearest {} to ({x:.0}, {y:.0}): particles found: {} within {:.1}; nodes within reach: {} of {}; tree query: {:.3} ms; brute force: {} ({verdict}, same distances)",
                    self.k,
                    r.count,
                    r.reach,
                    r.nodes_visited,
                    r.nodes_total,
                    r.query_ms,
                    r.brute_count,
                )
            }
        }
    }
}

/// `rect` grown by `d` on every side, rounded outwards: it holds every point within `d` of
/// `rect` along each axis.
fn grow(rect: &Rect, d: f64) -> Rect {
    Rect::new(
        at_or_below(f64::from(rect.min_x) - d),
        at_or_below(f64::from(rect.min_y) - d),
        at_or_above(f64::from(rect.max_x) + d),
        at_or_above(f64::from(rect.max_y) + d),
    )
}

/// A radius that reaches `extra` past `r` around `(x, y)`, with room for the rounding of
/// coordinates of that size.
fn circle_reach(x: f32, y: f32, r: f32, extra: f64) -> f32 {
    let scale = f64::from(x.abs()) + f64::from(y.abs()) + f64::from(r) + extra;
    at_or_above(f64::from(r) + extra + scale * 1e-6)
}

/// The largest `f32` at or below `v`.
fn at_or_below(v: f64) -> f32 {
    let f = v as f32;
    if f64::from(f) <= v {
        f
    } else if f == 0.0 {
        -f32::from_bits(1)
    } else if f > 0.0 {
        f32::from_bits(f.to_bits() - 1)
    } else {
        f32::from_bits(f.to_bits() + 1)
    }
}

/// The smallest `f32` at or above `v`.
fn at_or_above(v: f64) -> f32 {
    -at_or_below(-v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quadstress_sim::SimConfig;

    fn clock() -> f64 {
        0.0
    }

    fn sim(n: usize) -> Simulation {
        let mut sim = Simulation::new(SimConfig::default()).unwrap();
        sim.spawn_burst(n).unwrap();
        for _ in 0..5 {
            sim.step(1.0 / 60.0).unwrap();
        }
        sim
    }

    #[test]
    fn every_shape_agrees_with_brute_force_anywhere() {
        let sim = sim(4000);
        let world = sim.config().world;
        let mut probe = Probe::new(Rect::from_min_size(0.0, 0.0, 240.0, 180.0), world);
        for shape in [Shape::Rect, Shape::Circle, Shape::Nearest] {
            probe.set_shape(shape);
            for (i, k) in [1, 7, 50, 1000].into_iter().enumerate() {
                probe.set_k(k);
                let x = world.min_x + world.width() * (0.1 + 0.27 * i as f32);
                let y = world.min_y + world.height() * (0.9 - 0.23 * i as f32);
                let r = *probe.click(&sim, x, y, clock);
                assert!(r.agrees, "{shape:?} at ({x}, {y}): {}", probe.line());
                assert_eq!(r.count, probe.hits().len());
                assert_eq!(r.count, r.brute_count, "{}", probe.line());
                assert!(r.nodes_visited >= 1 && r.nodes_visited <= r.nodes_total);
                if shape == Shape::Nearest {
                    assert_eq!(r.count, k);
                    assert!(r.reach > 0.0 || k == 1);
                } else {
                    assert!(r.particles_tested >= r.count);
                }
            }
        }
    }

    #[test]
    fn the_circle_finds_fewer_than_its_box_and_the_nearest_lie_within_reach() {
        let sim = sim(6000);
        let world = sim.config().world;
        let mut probe = Probe::new(Rect::from_min_size(0.0, 0.0, 400.0, 400.0), world);
        let (cx, cy) = world.center();
        let in_box = probe.click(&sim, cx, cy, clock).count;
        probe.set_shape(Shape::Circle);
        let in_circle = probe.click(&sim, cx, cy, clock).count;
        assert!(in_circle < in_box, "{in_circle} of {in_box}");
        probe.set_shape(Shape::Nearest);
        probe.set_k(20);
        let r = *probe.click(&sim, cx, cy, clock);
        let s = sim.config().particle_size;
        for &i in probe.hits() {
            let d = sim.particles()[i as usize].rect(s).distance(cx, cy);
            assert!(d <= r.reach, "{d} > {}", r.reach);
        }
        assert!(probe.line().contains("particles found: 20"));
    }

    #[test]
    fn the_queries_find_exactly_the_particles_where_they_are_after_a_step() {
        // After a step the contacts have moved the particles away from the tree's squares:
        // the queries, which do not update the tree, still find what brute force finds.
        let mut sim = sim(8000);
        for _ in 0..40 {
            sim.step(1.0 / 60.0).unwrap();
        }
        assert!(
            sim.drift() > 0.0,
            "the step moved nothing after its tree update"
        );
        let world = sim.config().world;
        let s = sim.config().particle_size;
        let mut probe = Probe::new(Rect::from_min_size(0.0, 0.0, 300.0, 220.0), world);
        for shape in [Shape::Rect, Shape::Circle, Shape::Nearest] {
            probe.set_shape(shape);
            probe.set_k(137);
            for i in 0..6 {
                for j in 0..5 {
                    let x = world.min_x + world.width() * (0.05 + 0.18 * i as f32);
                    let y = world.min_y + world.height() * (0.1 + 0.2 * j as f32);
                    let r = *probe.click(&sim, x, y, clock);
                    assert!(r.agrees, "{}", probe.line());
                    let mut found = probe.hits().to_vec();
                    found.sort_unstable();
                    let (cx, cy, radius) = probe.circle();
                    let mut expected: Vec<u32> = match shape {
                        Shape::Rect => (0..sim.len() as u32)
                            .filter(|&i| {
                                sim.particles()[i as usize]
                                    .rect(s)
                                    .intersects(&probe.rect())
                            })
                            .collect(),
                        Shape::Circle => (0..sim.len() as u32)
                            .filter(|&i| {
                                sim.particles()[i as usize]
                                    .rect(s)
                                    .intersects_circle(cx, cy, radius)
                            })
                            .collect(),
                        Shape::Nearest => {
                            // Distinct distances make the k nearest one set.
                            let mut by_distance: Vec<(f32, u32)> = (0..sim.len() as u32)
                                .map(|i| (sim.particles()[i as usize].rect(s).distance(cx, cy), i))
                                .collect();
                            by_distance
                                .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                            by_distance.truncate(137);
                            by_distance.iter().map(|&(_, i)| i).collect()
                        }
                    };
                    expected.sort_unstable();
                    assert_eq!(found, expected, "{shape:?} at ({x}, {y})");
                }
            }
        }
    }

    #[test]
    fn grown_rectangles_and_reaches_round_outwards() {
        for v in [
            0.0,
            1e-40,
            -1e-40,
            0.1,
            -0.1,
            3072.0,
            -2304.5,
            1e30,
            f64::from(f32::MAX),
        ] {
            assert!(f64::from(at_or_below(v)) <= v, "{v}");
            assert!(f64::from(at_or_above(v)) >= v, "{v}");
            assert!(at_or_below(v) <= at_or_above(v));
        }
        assert_eq!(at_or_below(0.5), 0.5);
        let r = Rect::new(0.1, 0.2, 0.3, 0.4);
        let g = grow(&r, 0.1);
        assert!(f64::from(g.min_x) <= f64::from(r.min_x) - 0.1);
        assert!(f64::from(g.max_y) >= f64::from(r.max_y) + 0.1);
        assert_eq!(grow(&r, 0.0), r);
        assert!(f64::from(circle_reach(3000.0, 2000.0, 200.0, 0.5)) >= 200.5);
    }

    #[test]
    fn k_is_kept_within_its_limits() {
        let mut probe = Probe::new(Rect::new(0.0, 0.0, 1.0, 1.0), Rect::new(0.0, 0.0, 9.0, 9.0));
        probe.set_k(0);
        assert_eq!(probe.k(), 1);
        probe.set_k(usize::MAX);
        assert_eq!(probe.k(), MAX_NEAREST);
    }
}
