//! The demo's state and its per-frame work: input, simulation step, the blue quad's test.

use std::fmt::Write as _;
use std::ops::ControlFlow;

use macroquad::input::{
    is_key_down, is_key_pressed, is_mouse_button_down, is_mouse_button_pressed, mouse_position,
    mouse_wheel,
};
use quadstress::sim::{Broadphase, PhaseTimes, SimConfig, SimError, Simulation};
use quadstress::{Config, Placement, Rect, MAX_DEPTH};

use super::controls::{Action, Binding, Input, Trigger, BINDINGS};
use super::platform::now_seconds;
use super::view::{Camera, View};

/// The world the demo simulates: three times the default window, so 50,000 particles of 8x8
/// cover about 45% of it.
pub const WORLD: Rect = Rect::new(0.0, 0.0, 3072.0, 2304.0);
/// Side of a particle in world units: 8 px at 1:1.
pub const PARTICLE_SIZE: f32 = 8.0;
/// The largest share of the world's area the particles may cover. Past it a settled pile under
/// gravity reaches the top of the world: no longer a pile but a packed box, pressed into
/// itself, where the solver spends its steps on overlaps. The headless mode's `pile.packing`
/// (the particles' area over the area under the pile's top) shows where that happens.
pub const MAX_COVERAGE: f32 = 0.92;
/// How long the right-click report stays on screen after the last click or move, in seconds.
pub const REPORT_SECONDS: f64 = 4.0;
/// Frames kept for the frame-time graph (about three seconds at 60 FPS).
pub const GRAPH_FRAMES: usize = 180;
/// Most particles the brute-force broad phase accepts: above this, one of its steps takes
/// more than about 100 ms on the machine this was measured on (2 shared cores), and the
/// window would freeze.
pub const BRUTE_FORCE_MAX_PARTICLES: usize = 5_000;

const QUAD_SPEED: f32 = 900.0;
/// A frame longer than this is simulated as this long: a slow frame means slow motion rather
/// than a bigger step, which would compress piles, make more contacts and slow the next frame.
const MAX_DT: f32 = 1.0 / 60.0;
/// Zoom factor per wheel notch.
const ZOOM_STEP: f32 = 1.25;

/// Most particles the demo's world holds: [`MAX_COVERAGE`] of its area.
pub fn particle_cap() -> usize {
    (WORLD.width() * WORLD.height() * MAX_COVERAGE / (PARTICLE_SIZE * PARTICLE_SIZE)) as usize
}

/// What the particles' colours mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    /// The next mode, wrapping around.
    pub fn next(self) -> Self {
        match self {
            ColorMode::Depth => ColorMode::Speed,
            ColorMode::Speed => ColorMode::Contact,
            ColorMode::Contact => ColorMode::Depth,
        }
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

/// The blue quad's test, kept up to date every frame while it is shown.
#[derive(Debug, Default)]
pub struct QuadReport {
    /// Particles touching the quad, by the tree.
    pub count: usize,
    /// The same count by scanning every particle.
    pub brute_count: usize,
    /// Nodes the tree query entered, and nodes in the tree.
    pub nodes_visited: usize,
    pub nodes_total: usize,
    /// Particles the tree query tested, and particles in the tree.
    pub items_tested: usize,
    pub items_total: usize,
    /// How long the tree query took.
    pub query_ms: f64,
    /// Until when the report stays on screen (`now_seconds`).
    pub until: f64,
}

impl QuadReport {
    /// The console form of the report.
    pub fn line(&self, quad: &Rect) -> String {
        format!(
            "blue quad [{:.0}, {:.0}, {:.0}, {:.0}] collides: {}; particles touching: {}; nodes visited: {} of {}; items tested: {} of {}; tree query: {:.3} ms; brute force: {} ({})",
            quad.min_x,
            quad.min_y,
            quad.max_x,
            quad.max_y,
            if self.count > 0 { "yes" } else { "no" },
            self.count,
            self.nodes_visited,
            self.nodes_total,
            self.items_tested,
            self.items_total,
            self.query_ms,
            self.brute_count,
            if self.count == self.brute_count { "agrees" } else { "DISAGREES" },
        )
    }
}

/// Fractional particles owed to each spawn source, so low rates still spawn.
#[derive(Debug, Default)]
struct SpawnDebt {
    trickle: f32,
    flood: f32,
    cursor: f32,
}

/// Everything the demo remembers between frames.
pub struct App {
    pub sim: Simulation,
    pub quad: Rect,
    pub camera: Camera,
    pub colors: ColorMode,
    pub show_outlines: bool,
    pub show_help: bool,
    pub show_hud: bool,
    pub paused: bool,
    pub quit: bool,
    step_once: bool,
    /// Particles per second from the cursor.
    pub cursor_rate: f32,
    debt: SpawnDebt,
    /// The grip on the quad while the right button drags it: cursor minus quad corner.
    quad_grip: Option<(f32, f32)>,
    /// The last cursor position while the middle button pans.
    pan_from: Option<(f32, f32)>,
    pub times: PhaseTimes,
    /// Frame times in milliseconds, a ring of `GRAPH_FRAMES`.
    pub frame_ms: [f32; GRAPH_FRAMES],
    pub frame_index: usize,
    pub report: QuadReport,
    /// Indices of the particles touching the quad.
    pub hits: Vec<u32>,
    /// Cells of the nodes the quad's query visited, and whether each is a leaf.
    pub visited: Vec<(Rect, bool)>,
    /// A message for the screen (spawn cap reached, settings changed) and until when.
    pub message: String,
    pub message_until: f64,
}

impl App {
    /// A demo with the given tree settings and gravity.
    pub fn new(
        tree: Config,
        gravity_on: bool,
        seed: u64,
        broadphase: Broadphase,
    ) -> Result<Self, SimError> {
        let sim = Simulation::new(SimConfig {
            world: WORLD,
            particle_size: PARTICLE_SIZE,
            max_particles: particle_cap(),
            tree,
            gravity_on,
            seed,
            broadphase,
            ..SimConfig::default()
        })?;
        Ok(App {
            sim,
            quad: Rect::from_min_size(1800.0, 900.0, 600.0, 450.0),
            camera: Camera::default(),
            colors: ColorMode::default(),
            show_outlines: true,
            show_help: false,
            show_hud: true,
            paused: false,
            quit: false,
            step_once: false,
            cursor_rate: 600.0,
            debt: SpawnDebt::default(),
            quad_grip: None,
            pan_from: None,
            times: PhaseTimes::default(),
            frame_ms: [0.0; GRAPH_FRAMES],
            frame_index: 0,
            report: QuadReport::default(),
            hits: Vec::new(),
            visited: Vec::new(),
            message: String::new(),
            message_until: 0.0,
        })
    }

    /// Shows a message on screen for a few seconds and prints it.
    pub fn say(&mut self, text: std::fmt::Arguments<'_>) {
        self.message.clear();
        let _ = self.message.write_fmt(text);
        println!("{}", self.message);
        self.message_until = now_seconds() + 3.0;
    }

    /// Reads every binding of the table and acts on it.
    pub fn handle_input(&mut self, dt: f32, view: &View) {
        for b in BINDINGS {
            let active = match (b.input, b.trigger) {
                // A press and release between two frames still counts as held for a frame.
                (Input::Key(k), Trigger::Held) => is_key_down(k) || is_key_pressed(k),
                (Input::Key(k), Trigger::Pressed) => is_key_pressed(k),
                (Input::Mouse(m), Trigger::Held) => {
                    is_mouse_button_down(m) || is_mouse_button_pressed(m)
                }
                (Input::Mouse(m), Trigger::Pressed) => is_mouse_button_pressed(m),
                (Input::Wheel, _) => mouse_wheel().1 != 0.0,
            };
            if active {
                self.act(b, dt, view);
            } else {
                match b.action {
                    Action::TestQuad => self.quad_grip = None,
                    Action::Pan => self.pan_from = None,
                    _ => {}
                }
            }
        }
    }

    /// Does what binding `b` does, as if its input were active this frame.
    pub fn act(&mut self, b: &Binding, dt: f32, view: &View) {
        let (mx, my) = mouse_position();
        let cursor = view.to_world(mx, my);
        match b.action {
            Action::SpawnTrickle | Action::SpawnFlood => {
                let rate = b.action.spawn_rate().unwrap_or(0) as f32;
                let debt = if b.action == Action::SpawnTrickle {
                    &mut self.debt.trickle
                } else {
                    &mut self.debt.flood
                };
                let n = take_whole(debt, rate * dt);
                self.spawn(n, None);
            }
            Action::SpawnAtCursor => {
                let n = take_whole(&mut self.debt.cursor, self.cursor_rate * dt);
                self.spawn(n, Some(cursor));
            }
            Action::SpawnRateDown | Action::SpawnRateUp => {
                let factor = if b.action == Action::SpawnRateUp {
                    1.5
                } else {
                    1.0 / 1.5
                };
                self.cursor_rate = (self.cursor_rate * factor).clamp(10.0, 50_000.0);
                let rate = self.cursor_rate;
                self.say(format_args!("cursor stream: {rate:.0} particles/s"));
            }
            Action::TestQuad => match self.quad_grip {
                None => {
                    self.right_click(cursor.0, cursor.1);
                    self.quad_grip = Some((cursor.0 - self.quad.min_x, cursor.1 - self.quad.min_y));
                }
                Some((gx, gy)) => self.place_quad(cursor.0 - gx, cursor.1 - gy),
            },
            Action::Pan => {
                if let Some((px, py)) = self.pan_from {
                    self.camera.pan(view, mx - px, my - py);
                }
                self.pan_from = Some((mx, my));
            }
            Action::Zoom => {
                let notches = mouse_wheel().1.signum();
                self.camera
                    .zoom_about(view, ZOOM_STEP.powf(notches), mx, my);
            }
            Action::FitWorld => self.camera.fit(),
            Action::QuadLeft => self.nudge_quad(-QUAD_SPEED * dt, 0.0),
            Action::QuadRight => self.nudge_quad(QUAD_SPEED * dt, 0.0),
            Action::QuadUp => self.nudge_quad(0.0, -QUAD_SPEED * dt),
            Action::QuadDown => self.nudge_quad(0.0, QUAD_SPEED * dt),
            Action::CycleColors => {
                self.colors = self.colors.next();
                let name = self.colors.name();
                self.say(format_args!("colours: {name}"));
            }
            Action::ToggleOutlines => self.show_outlines = !self.show_outlines,
            Action::Pause => self.paused = !self.paused,
            Action::Step => self.step_once = true,
            Action::Clear => {
                self.sim.clear();
                self.hits.clear();
                self.visited.clear();
                self.report.until = 0.0;
            }
            Action::ToggleGravity => {
                let on = !self.sim.config().gravity_on;
                self.sim.set_gravity(on);
                self.say(format_args!("gravity {}", if on { "on" } else { "off" }));
            }
            Action::CycleBroadphase => {
                let mut next = self.sim.broadphase().next();
                if next == Broadphase::BruteForce && !self.brute_force_allowed() {
                    self.say(format_args!(
                        "brute force refused: {} particles, more than {} (its step would freeze the window); {}",
                        self.sim.len(),
                        BRUTE_FORCE_MAX_PARTICLES,
                        next.next().name()
                    ));
                    next = next.next();
                } else {
                    self.say(format_args!("broad phase: {}", next.name()));
                }
                self.sim.set_broadphase(next);
            }
            Action::CapacityDown | Action::CapacityUp | Action::DepthDown | Action::DepthUp => {
                let mut c = self.sim.config().tree;
                match b.action {
                    Action::CapacityDown => c.capacity = (c.capacity / 2).max(1),
                    Action::CapacityUp => c.capacity = (c.capacity * 2).min(1024),
                    Action::DepthDown => c.max_depth = c.max_depth.saturating_sub(1),
                    _ => c.max_depth = (c.max_depth + 1).min(MAX_DEPTH),
                }
                match self.sim.set_tree_config(c) {
                    Ok(()) => self.say(format_args!(
                        "tree rebuilt: capacity {}, depth limit {}",
                        c.capacity, c.max_depth
                    )),
                    Err(e) => self.say(format_args!("tree settings refused: {e}")),
                }
            }
            Action::TogglePlacement => {
                let mut c = self.sim.config().tree;
                c.placement = match c.placement {
                    Placement::Exact => Placement::Loose,
                    Placement::Loose => Placement::Exact,
                };
                match self.sim.set_tree_config(c) {
                    Ok(()) => self.say(format_args!(
                        "tree rebuilt: {} placement",
                        placement_name(c.placement)
                    )),
                    Err(e) => self.say(format_args!("tree settings refused: {e}")),
                }
            }
            Action::ToggleHud => self.show_hud = !self.show_hud,
            Action::ToggleHelp => self.show_help = !self.show_help,
            Action::Quit => self.quit = true,
        }
    }

    fn brute_force_allowed(&self) -> bool {
        self.sim.len() <= BRUTE_FORCE_MAX_PARTICLES
    }

    fn spawn(&mut self, n: usize, at: Option<(f32, f32)>) {
        if n == 0 {
            return;
        }
        let result = match at {
            Some((x, y)) => self.sim.spawn_stream(x, y, n, 6.0, 120.0),
            None => self.sim.spawn_burst(n),
        };
        if let Err(e) = result {
            // Once a second at most: holding a spawn key at the cap would flood the console.
            if now_seconds() > self.message_until - 2.0 {
                match e {
                    SimError::CapReached { cap, .. } => self.say(format_args!(
                        "the world is full: {cap} particles cover {:.0}% of it",
                        MAX_COVERAGE * 100.0
                    )),
                    e => self.say(format_args!("{e}")),
                }
            }
        }
    }

    /// Keeps the quad inside the world; a quad on screen keeps its report up to date.
    fn place_quad(&mut self, x: f32, y: f32) {
        let (w, h) = (self.quad.width(), self.quad.height());
        let x = x.clamp(WORLD.min_x, WORLD.max_x - w);
        let y = y.clamp(WORLD.min_y, WORLD.max_y - h);
        self.quad = Rect::from_min_size(x, y, w, h);
        if self.report.until > 0.0 {
            self.report.until = self.report.until.max(now_seconds() + REPORT_SECONDS);
        }
    }

    /// Moves the quad by world units.
    pub fn nudge_quad(&mut self, dx: f32, dy: f32) {
        self.place_quad(self.quad.min_x + dx, self.quad.min_y + dy);
    }

    /// A right-click at world `(x, y)`: inside the quad it tests the quad where it is; outside,
    /// it first centres the quad there. Prints the report and shows it for a few seconds.
    pub fn right_click(&mut self, x: f32, y: f32) {
        if !self.quad.contains_point(x, y) {
            self.place_quad(x - self.quad.width() / 2.0, y - self.quad.height() / 2.0);
        }
        self.report.until = now_seconds() + REPORT_SECONDS;
        self.test_quad();
        println!("right-click: {}", self.report.line(&self.quad));
    }

    /// Whether the quad's report is on screen.
    pub fn report_shown(&self) -> bool {
        now_seconds() < self.report.until
    }

    /// Runs the quad's query through the tree (collecting the visited nodes and the hits) and
    /// the brute-force count, refreshing the report.
    pub fn test_quad(&mut self) {
        // The tree holds the positions of the last broad phase; bring it to the particles'
        // current positions so the tree and the brute-force scan see the same state.
        self.sim.update_tree();
        self.hits.clear();
        self.visited.clear();
        let (hits, visited) = (&mut self.hits, &mut self.visited);
        let t = now_seconds();
        let (_, counts) = self
            .sim
            .tree()
            .for_each_in_rect_counting(
                &self.quad,
                |node| visited.push((node.rect, node.is_leaf)),
                |item| {
                    hits.push(*item.value);
                    ControlFlow::Continue(())
                },
            )
            .expect("the quad is always a valid rectangle");
        let query_ms = (now_seconds() - t) * 1e3;
        let tree = self.sim.tree();
        self.report = QuadReport {
            count: self.hits.len(),
            brute_count: self.sim.touching_brute_force(&self.quad),
            nodes_visited: counts.nodes_visited,
            nodes_total: tree.nodes().len(),
            items_tested: counts.items_tested,
            items_total: tree.len(),
            query_ms,
            until: self.report.until,
        };
    }

    /// Advances the simulation unless paused, timing each phase.
    pub fn update(&mut self, dt: f32) {
        if self.sim.broadphase() == Broadphase::BruteForce && !self.brute_force_allowed() {
            let next = Broadphase::BruteForce.next();
            self.sim.set_broadphase(next);
            self.say(format_args!(
                "brute force stopped: {} particles, more than {} (its step would freeze the window); {}",
                self.sim.len(),
                BRUTE_FORCE_MAX_PARTICLES,
                next.name()
            ));
        }
        if !self.paused || self.step_once {
            self.step_once = false;
            let dt = dt.clamp(0.0, MAX_DT);
            if let Ok(times) = self.sim.step_timed(dt, now_seconds) {
                self.times = times;
            }
        }
        if self.report_shown() {
            self.test_quad();
        }
    }

    /// Records a frame time for the graph.
    pub fn record_frame(&mut self, seconds: f32) {
        self.frame_ms[self.frame_index % GRAPH_FRAMES] = seconds * 1e3;
        self.frame_index += 1;
    }
}

/// Adds `amount` to `debt` and takes the whole part out.
fn take_whole(debt: &mut f32, amount: f32) -> usize {
    *debt += amount;
    let n = *debt as usize;
    *debt -= n as f32;
    n
}

/// How the HUD and messages name a placement.
pub fn placement_name(placement: Placement) -> &'static str {
    match placement {
        Placement::Exact => "exact",
        Placement::Loose => "loose",
    }
}
