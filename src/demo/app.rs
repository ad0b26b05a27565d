//! The demo's state and its per-frame work: input, simulation step, the blue quad's test.

use std::fmt::Write as _;

use macroquad::input::{
    is_key_down, is_key_pressed, is_mouse_button_down, is_mouse_button_pressed, mouse_position,
    mouse_wheel,
};
use macroquad::time::get_time;
use quadstress::sim::{SimConfig, SimError, Simulation};
use quadstress::{Config, Placement, Rect, MAX_DEPTH};

use super::controls::{Action, Input, Trigger, BINDINGS};
use super::view::View;

/// The world the demo simulates: three times the default window, so 50,000 particles of 8x8
/// cover about 45% of it.
pub const WORLD: Rect = Rect::new(0.0, 0.0, 3072.0, 2304.0);
/// Most particles the demo lets you spawn.
pub const MAX_PARTICLES: usize = 200_000;
/// How long the right-click report stays on screen, in seconds.
pub const REPORT_SECONDS: f64 = 4.0;
/// Frames kept for the frame-time graph (about three seconds at 60 FPS).
pub const GRAPH_FRAMES: usize = 180;

const TRICKLE_PER_SECOND: f32 = 300.0;
const FLOOD_PER_SECOND: f32 = 6000.0;
const QUAD_SPEED: f32 = 900.0;
/// A frame longer than this is simulated as this long: a slow frame means slow motion rather
/// than a bigger step, which would compress piles, make more contacts and slow the next frame.
const MAX_DT: f32 = 1.0 / 60.0;

/// Milliseconds spent in each phase of the last step.
#[derive(Clone, Copy, Debug, Default)]
pub struct PhaseTimes {
    /// Moving the particles in the tree (or rebuilding it).
    pub update_ms: f64,
    /// Finding the contacts.
    pub pairs_ms: f64,
    /// Resolving them.
    pub resolve_ms: f64,
}

/// The last right-click's result.
#[derive(Debug, Default)]
pub struct QuadReport {
    /// Particles touching the quad, by the tree.
    pub count: usize,
    /// The same count by scanning every particle.
    pub brute_count: usize,
    /// How long the tree query took.
    pub query_ms: f64,
    /// Until when the report and the highlight stay on screen (`get_time` seconds).
    pub until: f64,
}

/// Everything the demo remembers between frames.
pub struct App {
    pub sim: Simulation,
    pub quad: Rect,
    pub show_outlines: bool,
    pub show_help: bool,
    pub paused: bool,
    step_once: bool,
    /// Particles per second from the cursor.
    pub cursor_rate: f32,
    /// Fractional particles owed to each spawn source, so low rates still spawn.
    carry: [f32; 3],
    drag_offset: Option<(f32, f32)>,
    pub times: PhaseTimes,
    /// Frame times in milliseconds, a ring of `GRAPH_FRAMES`.
    pub frame_ms: [f32; GRAPH_FRAMES],
    pub frame_index: usize,
    pub report: QuadReport,
    /// Indices of the particles the last right-click found.
    pub hits: Vec<u32>,
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
        broadphase: quadstress::sim::Broadphase,
    ) -> Result<Self, SimError> {
        let sim = Simulation::new(SimConfig {
            world: WORLD,
            max_particles: MAX_PARTICLES,
            tree,
            gravity_on,
            seed,
            broadphase,
            ..SimConfig::default()
        })?;
        Ok(App {
            sim,
            quad: Rect::from_min_size(1800.0, 900.0, 600.0, 450.0),
            show_outlines: true,
            show_help: false,
            paused: false,
            step_once: false,
            cursor_rate: 600.0,
            carry: [0.0; 3],
            drag_offset: None,
            times: PhaseTimes::default(),
            frame_ms: [0.0; GRAPH_FRAMES],
            frame_index: 0,
            report: QuadReport::default(),
            hits: Vec::new(),
            message: String::new(),
            message_until: 0.0,
        })
    }

    fn say(&mut self, now: f64, text: std::fmt::Arguments<'_>) {
        self.message.clear();
        let _ = self.message.write_fmt(text);
        println!("{}", self.message);
        self.message_until = now + 3.0;
    }

    /// Reads every binding of the table and acts on it.
    pub fn handle_input(&mut self, dt: f32, view: &View) {
        let now = get_time();
        let (mx, my) = mouse_position();
        let cursor = view.to_world(mx, my);
        for b in BINDINGS {
            let active = match (b.input, b.trigger) {
                (Input::Key(k), Trigger::Held) => is_key_down(k),
                (Input::Key(k), Trigger::Pressed) => is_key_pressed(k),
                (Input::Mouse(m), Trigger::Held) => is_mouse_button_down(m),
                (Input::Mouse(m), Trigger::Pressed) => is_mouse_button_pressed(m),
                (Input::Wheel, _) => mouse_wheel().1 != 0.0,
            };
            if active {
                self.act(b.action, dt, cursor, now);
            } else if b.action == Action::DragQuad {
                self.drag_offset = None;
            }
        }
    }

    fn act(&mut self, action: Action, dt: f32, cursor: (f32, f32), now: f64) {
        match action {
            Action::SpawnTrickle => self.spawn(0, TRICKLE_PER_SECOND * dt, None, now),
            Action::SpawnFlood => self.spawn(1, FLOOD_PER_SECOND * dt, None, now),
            Action::SpawnAtCursor => self.spawn(2, self.cursor_rate * dt, Some(cursor), now),
            Action::SpawnRate => {
                let factor = if mouse_wheel().1 > 0.0 { 1.25 } else { 0.8 };
                self.cursor_rate = (self.cursor_rate * factor).clamp(10.0, 50_000.0);
                let rate = self.cursor_rate;
                self.say(
                    now,
                    format_args!("cursor spawn rate: {rate:.0} particles/s"),
                );
            }
            Action::TestQuad => self.right_click(cursor.0, cursor.1),
            Action::DragQuad => {
                let (ox, oy) = *self
                    .drag_offset
                    .get_or_insert((cursor.0 - self.quad.min_x, cursor.1 - self.quad.min_y));
                self.place_quad(cursor.0 - ox, cursor.1 - oy);
            }
            Action::QuadLeft => self.nudge_quad(-QUAD_SPEED * dt, 0.0),
            Action::QuadRight => self.nudge_quad(QUAD_SPEED * dt, 0.0),
            Action::QuadUp => self.nudge_quad(0.0, -QUAD_SPEED * dt),
            Action::QuadDown => self.nudge_quad(0.0, QUAD_SPEED * dt),
            Action::ToggleOutlines => self.show_outlines = !self.show_outlines,
            Action::Pause => self.paused = !self.paused,
            Action::Step => self.step_once = true,
            Action::Clear => {
                self.sim.clear();
                self.hits.clear();
                self.report.until = 0.0;
            }
            Action::ToggleGravity => {
                let on = !self.sim.config().gravity_on;
                self.sim.set_gravity(on);
                self.say(
                    now,
                    format_args!("gravity {}", if on { "on" } else { "off" }),
                );
            }
            Action::CycleBroadphase => {
                let next = self.sim.broadphase().next();
                self.sim.set_broadphase(next);
                self.say(now, format_args!("broad phase: {}", next.name()));
            }
            Action::CapacityDown | Action::CapacityUp | Action::DepthDown | Action::DepthUp => {
                let mut c = self.sim.config().tree;
                match action {
                    Action::CapacityDown => c.capacity = (c.capacity / 2).max(1),
                    Action::CapacityUp => c.capacity = (c.capacity * 2).min(1024),
                    Action::DepthDown => c.max_depth = c.max_depth.saturating_sub(1),
                    _ => c.max_depth = (c.max_depth + 1).min(MAX_DEPTH),
                }
                match self.sim.set_tree_config(c) {
                    Ok(()) => self.say(
                        now,
                        format_args!(
                            "tree rebuilt: capacity {}, depth limit {}",
                            c.capacity, c.max_depth
                        ),
                    ),
                    Err(e) => self.say(now, format_args!("tree settings refused: {e}")),
                }
            }
            Action::TogglePlacement => {
                let mut c = self.sim.config().tree;
                c.placement = match c.placement {
                    Placement::Exact => Placement::Loose,
                    Placement::Loose => Placement::Exact,
                };
                match self.sim.set_tree_config(c) {
                    Ok(()) => self.say(
                        now,
                        format_args!("tree rebuilt: {} placement", placement_name(c.placement)),
                    ),
                    Err(e) => self.say(now, format_args!("tree settings refused: {e}")),
                }
            }
            Action::ToggleHelp => self.show_help = !self.show_help,
        }
    }

    fn spawn(&mut self, source: usize, amount: f32, at: Option<(f32, f32)>, now: f64) {
        self.carry[source] += amount;
        let n = self.carry[source] as usize;
        self.carry[source] -= n as f32;
        if n == 0 {
            return;
        }
        let result = match at {
            Some((x, y)) => self.sim.spawn_stream(x, y, n, 6.0, 120.0),
            None => self.sim.spawn_burst(n),
        };
        if let Err(e) = result {
            // Once a second at most: holding a spawn key at the cap would flood the console.
            if now > self.message_until - 2.0 {
                self.say(now, format_args!("{e}"));
            }
        }
    }

    /// Keeps the quad inside the world.
    fn place_quad(&mut self, x: f32, y: f32) {
        let (w, h) = (self.quad.width(), self.quad.height());
        let x = x.clamp(WORLD.min_x, WORLD.max_x - w);
        let y = y.clamp(WORLD.min_y, WORLD.max_y - h);
        self.quad = Rect::from_min_size(x, y, w, h);
    }

    fn nudge_quad(&mut self, dx: f32, dy: f32) {
        self.place_quad(self.quad.min_x + dx, self.quad.min_y + dy);
    }

    /// A right-click at world `(x, y)`: inside the quad it tests the quad where it is; outside,
    /// it first centres the quad there. Prints the report and shows it for a few seconds.
    pub fn right_click(&mut self, x: f32, y: f32) {
        if !self.quad.contains_point(x, y) {
            self.place_quad(x - self.quad.width() / 2.0, y - self.quad.height() / 2.0);
        }
        // The tree holds the positions of the last broad phase; bring it to the particles'
        // current positions so the tree and the brute-force scan see the same state.
        self.sim.update_tree();
        self.hits.clear();
        let t = get_time();
        let count = self
            .sim
            .touching(&self.quad, &mut self.hits)
            .expect("the quad is always a valid rectangle");
        let query_ms = (get_time() - t) * 1e3;
        let brute_count = self.sim.touching_brute_force(&self.quad);
        let q = self.quad;
        println!(
            "right-click: blue quad [{:.0}, {:.0}, {:.0}, {:.0}] collides: {}; particles touching: {}; tree query: {:.3} ms; brute force: {} ({})",
            q.min_x,
            q.min_y,
            q.max_x,
            q.max_y,
            if count > 0 { "yes" } else { "no" },
            count,
            query_ms,
            brute_count,
            if count == brute_count { "agrees" } else { "DISAGREES" },
        );
        self.report = QuadReport {
            count,
            brute_count,
            query_ms,
            until: get_time() + REPORT_SECONDS,
        };
    }

    /// Advances the simulation unless paused, timing each phase with macroquad's clock.
    pub fn update(&mut self, dt: f32) {
        if self.paused && !self.step_once {
            return;
        }
        self.step_once = false;
        let dt = dt.clamp(0.0, MAX_DT);
        if self.sim.integrate(dt).is_err() {
            return;
        }
        let t0 = get_time();
        self.sim.update_tree();
        let t1 = get_time();
        self.sim.find_pairs();
        let t2 = get_time();
        self.sim.resolve();
        let t3 = get_time();
        self.times = PhaseTimes {
            update_ms: (t1 - t0) * 1e3,
            pairs_ms: (t2 - t1) * 1e3,
            resolve_ms: (t3 - t2) * 1e3,
        };
    }

    /// Records a frame time for the graph.
    pub fn record_frame(&mut self, seconds: f32) {
        self.frame_ms[self.frame_index % GRAPH_FRAMES] = seconds * 1e3;
        self.frame_index += 1;
    }
}

/// How the HUD and messages name a placement.
pub fn placement_name(placement: Placement) -> &'static str {
    match placement {
        Placement::Exact => "exact",
        Placement::Loose => "loose",
    }
}
