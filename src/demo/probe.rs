//! The blue quad: a query the right mouse button places and drags over the particles, run
//! through the tree every frame while its report is shown, with the brute-force count beside
//! it as a cross-check.

use std::ops::ControlFlow;

use quadstress::sim::Simulation;
use quadstress::Rect;

use super::app::Clock;

/// How long the report stays on screen after the last click or move, in seconds.
pub const REPORT_SECONDS: f64 = 4.0;

/// What the last run of the query found and what it cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Report {
    /// Particles touching the quad, by the tree.
    pub count: usize,
    /// The same count by scanning every particle.
    pub brute_count: usize,
    /// Nodes the tree query entered.
    pub nodes_visited: usize,
    /// Nodes in the tree.
    pub nodes_total: usize,
    /// Particles the tree query tested.
    pub particles_tested: usize,
    /// Particles in the tree.
    pub particles_total: usize,
    /// How long the tree query took.
    pub query_ms: f64,
}

impl Report {
    /// Whether the tree and the brute-force scan agree.
    pub fn agrees(&self) -> bool {
        self.count == self.brute_count
    }
}

/// Where the right button holds the quad.
#[derive(Clone, Copy, Debug)]
struct Grip {
    /// Cursor minus the quad's corner.
    offset: (f32, f32),
    /// Whether the quad moved since the press.
    moved: bool,
}

/// The blue quad, its last report and what its query visited and found.
#[derive(Debug)]
pub struct Probe {
    rect: Rect,
    /// The world the quad stays inside.
    world: Rect,
    report: Report,
    /// Indices of the particles the query found.
    hits: Vec<u32>,
    /// Cells of the nodes the query visited, and whether each is a leaf.
    visited: Vec<(Rect, bool)>,
    /// While the right button holds the quad: where it was gripped.
    grip: Option<Grip>,
    /// Until when the report stays on screen (seconds on the app's clock).
    until: f64,
}

impl Probe {
    /// A quad `rect` inside `world`, its report hidden.
    pub fn new(rect: Rect, world: Rect) -> Self {
        Probe {
            rect,
            world,
            report: Report::default(),
            hits: Vec::new(),
            visited: Vec::new(),
            grip: None,
            until: 0.0,
        }
    }

    /// The quad.
    pub fn rect(&self) -> Rect {
        self.rect
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
    pub fn click(&mut self, sim: &mut Simulation, x: f32, y: f32, clock: Clock) -> &Report {
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
    pub fn hold(&mut self, sim: &mut Simulation, x: f32, y: f32, clock: Clock) -> Option<Report> {
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
    pub fn release(&mut self, sim: &mut Simulation, clock: Clock) -> Option<Report> {
        if !self.grip.take()?.moved {
            return None;
        }
        self.run(sim, clock);
        Some(self.report)
    }

    /// Runs the query through the tree (collecting the visited nodes and the hits) and the
    /// brute-force count, refreshing the report.
    pub fn run(&mut self, sim: &mut Simulation, clock: Clock) {
        // The tree holds the positions of the last broad phase; bring it to the particles'
        // current positions so the tree and the brute-force scan see the same state.
        sim.update_tree();
        self.hits.clear();
        self.visited.clear();
        let (hits, visited) = (&mut self.hits, &mut self.visited);
        let t = clock();
        let (_, counts) = sim
            .tree()
            .for_each_in_rect_counting(
                &self.rect,
                |node| visited.push((node.rect, node.is_leaf)),
                |item| {
                    hits.push(*item.value);
                    ControlFlow::<()>::Continue(())
                },
            )
            .expect("the quad is always a valid rectangle");
        let query_ms = (clock() - t) * 1e3;
        let tree = sim.tree();
        self.report = Report {
            count: self.hits.len(),
            brute_count: sim.touching_brute_force(&self.rect),
            nodes_visited: counts.nodes_visited,
            nodes_total: tree.nodes().len(),
            particles_tested: counts.items_tested,
            particles_total: tree.len(),
            query_ms,
        };
    }

    /// The console form of the report: the same words as the screen's.
    pub fn line(&self) -> String {
        let (q, r) = (&self.rect, &self.report);
        format!(
            "blue quad [{:.0}, {:.0}, {:.0}, {:.0}] collides: {}; particles touching: {}; nodes visited: {} of {}; particles tested: {} of {}; tree query: {:.3} ms; brute force: {} ({})",
            q.min_x,
            q.min_y,
            q.max_x,
            q.max_y,
            if r.count > 0 { "yes" } else { "no" },
            r.count,
            r.nodes_visited,
            r.nodes_total,
            r.particles_tested,
            r.particles_total,
            r.query_ms,
            r.brute_count,
            if r.agrees() { "agrees" } else { "DISAGREES" },
        )
    }
}
