//! The demo's state and its per-frame work: the actions of the controls table, the simulation
//! step, the blue quad. `App` reads no clock and no input device of its own: the loop hands it
//! a [`Clock`] and a [`Pointer`], so its logic is tested without a window.

use std::fmt::Write as _;

use quadstress::{Config, Placement, Rect, MAX_DEPTH, MAX_LEAF_CAPACITY};
use quadstress_sim::{
    Broadphase, FixedStep, PhaseTimes, SimConfig, SimError, Simulation,
    DEFAULT_MAX_STEPS_PER_FRAME, STEP_SECONDS,
};

use crate::input::controls::{Action, Binding, Pointer};
use crate::input::platform::Clock;
use crate::settings::cli::DEFAULT_BUDGET_MS;
use crate::settings::panel_controls::{Control, Field, Value, SPAWN_BATCH};
use crate::settings::{
    particle_cap, particle_cap_of, placement_name, scaled_world, ColorMode, Display, Outlines,
    MAX_COVERAGE, MAX_WORLD_SCALE, MIN_WORLD_SCALE, PARTICLE_SIZE, WORLD,
};
use crate::state::probe::{Probe, Shape};
use crate::state::profile::Profile;
use crate::state::ramp::{regrow, RampRun};
use crate::state::stepper::{SimSlot, Stepped};
use crate::state::view::{Camera, View};

/// Most particles the brute-force broad phase accepts: above this, one of its steps takes
/// more than about 100 ms on the machine this was measured on (2 shared cores), and the
/// window would freeze.
pub const BRUTE_FORCE_MAX_PARTICLES: usize = 5_000;
/// How long a message stays on screen, in seconds.
const MESSAGE_SECONDS: f64 = 3.0;

const QUAD_SPEED: f32 = 900.0;
/// Zoom factor per wheel notch.
const ZOOM_STEP: f32 = 1.25;

/// Particles in the sample the brute-force estimate times: about half a million rectangle
/// tests, well under a millisecond.
const ESTIMATE_SAMPLE: usize = 1024;
/// Seconds between two timings of the sample.
const ESTIMATE_SECONDS: f64 = 1.0;

/// What brute force would cost at the current count: the time of one rectangle test, taken
/// from testing every pair of a sample of the particles, times the n(n-1)/2 tests brute force
/// makes at n particles.
#[derive(Debug, Default)]
pub struct BruteForceEstimate {
    /// Milliseconds per pair test, from the last timing.
    ms_per_pair: f64,
    /// When the sample was last timed.
    timed_at: Option<f64>,
    /// The sample's rectangles, kept to avoid allocating each second.
    sample: Vec<Rect>,
}

impl BruteForceEstimate {
    /// Brute force's estimated pair search at `n` particles, in milliseconds; `None` before
    /// the first timing.
    pub fn ms_at(&self, n: usize) -> Option<f64> {
        let n = n as f64;
        self.timed_at
            .map(|_| self.ms_per_pair * n * (n - 1.0).max(0.0) / 2.0)
    }

    /// Times every pair of a sample of `sim`'s particles, once every [`ESTIMATE_SECONDS`].
    pub fn refresh(&mut self, sim: &Simulation, clock: Clock) {
        let now = clock();
        if self
            .timed_at
            .is_some_and(|at| now - at < ESTIMATE_SECONDS && now >= at)
            || sim.len() < 64
        {
            return;
        }
        let s = sim.config().particle_size;
        let stride = sim.len().div_ceil(ESTIMATE_SAMPLE).max(1);
        self.sample.clear();
        self.sample
            .extend(sim.particles().iter().step_by(stride).map(|p| p.rect(s)));
        let t = clock();
        // The brute-force broad phase's loop: every pair, one rectangle test each.
        let mut touching = 0usize;
        for (i, a) in self.sample.iter().enumerate() {
            for b in &self.sample[i + 1..] {
                touching += usize::from(a.intersects(b));
            }
        }
        std::hint::black_box(touching);
        let m = self.sample.len() as f64;
        self.ms_per_pair = (clock() - t) * 1e3 / (m * (m - 1.0) / 2.0);
        self.timed_at = Some(now);
    }
}

/// Fractional particles owed to each spawn source, so low rates still spawn.
#[derive(Debug, Default)]
struct SpawnDebt {
    trickle: f32,
    flood: f32,
    cursor: f32,
}

/// The spawn inputs held this frame: they spawn per simulated step once the frame knows how
/// many steps it runs (see [`App::begin_frame`]), never by the frame's real time, so that a
/// scripted run repeats exactly however slow its frames are.
#[derive(Debug, Default)]
struct Held {
    trickle: bool,
    flood: bool,
    /// The cursor stream, at this world point.
    cursor: Option<(f32, f32)>,
}

/// A message for the screen (spawn cap reached, settings changed) and until when it shows.
#[derive(Debug, Default)]
struct Message {
    text: String,
    until: f64,
}

/// Everything the demo remembers between frames.
pub struct App {
    /// The particles and their tree; away on the step thread while a frame's steps run.
    sim: SimSlot,
    /// Where the view looks.
    pub camera: Camera,
    /// What is drawn.
    pub display: Display,
    /// The blue quad.
    pub probe: Probe,
    /// The last step's phase times.
    pub times: PhaseTimes,
    /// Brute force's cost at the current count, for comparison with the tree's.
    pub brute_force: BruteForceEstimate,
    paused: bool,
    step_once: bool,
    quit: bool,
    /// Particles per second from the cursor.
    cursor_rate: f32,
    /// Particles the panel's spawn button adds.
    spawn_count: usize,
    /// The particle count at which held spawn inputs stop; 0: they go on to the cap.
    stop_at: usize,
    debt: SpawnDebt,
    held: Held,
    /// Whether "the world is full" was said since the last spawn that fitted: said once per
    /// change, not every frame a key is held at the cap.
    said_full: bool,
    /// Whether "held spawn keys stopped" was said since the count was last below the stop.
    said_stop: bool,
    /// The last cursor position while the middle button pans.
    pan_from: Option<(f32, f32)>,
    message: Message,
    clock: Clock,
    /// Real time turned into fixed steps.
    pub fixed: FixedStep,
    /// The frame's phases over the last frames, for the HUD's profile lines.
    pub profile: Profile,
    /// Which renderer draws the particles, and on which OpenGL.
    pub renderer: String,
    /// The world's size against [`WORLD`]'s (`--world-scale`).
    world_scale: f32,
    /// The stress test's ramp (see `ramp`).
    pub ramp: RampRun,
    /// Simulated seconds so far: the steps begun, times the step.
    sim_seconds: f64,
}

impl App {
    /// A demo with the given tree settings, broad phase and gravity, reading `clock`.
    ///
    /// # Errors
    /// The simulation's, for bad tree settings.
    pub fn new(
        tree: Config,
        gravity_on: bool,
        seed: u64,
        broadphase: Broadphase,
        threads: Option<usize>,
        clock: Clock,
    ) -> Result<Self, SimError> {
        let sim = Simulation::new(SimConfig {
            world: WORLD,
            particle_size: PARTICLE_SIZE,
            max_particles: particle_cap(),
            tree,
            gravity_on,
            seed,
            broadphase,
            threads,
            ..SimConfig::default()
        })?;
        Ok(App {
            sim: SimSlot::Home(Box::new(sim)),
            camera: Camera::default(),
            display: Display::default(),
            // Left of the controls panel, clear of the hint below it.
            probe: Probe::new(Rect::from_min_size(1200.0, 900.0, 600.0, 450.0), WORLD),
            times: PhaseTimes::default(),
            brute_force: BruteForceEstimate::default(),
            paused: false,
            step_once: false,
            quit: false,
            cursor_rate: 600.0,
            spawn_count: SPAWN_BATCH,
            stop_at: 0,
            debt: SpawnDebt::default(),
            held: Held::default(),
            said_full: false,
            said_stop: false,
            pan_from: None,
            message: Message::default(),
            clock,
            fixed: FixedStep::new(STEP_SECONDS, DEFAULT_MAX_STEPS_PER_FRAME)?,
            profile: Profile::default(),
            renderer: String::new(),
            world_scale: 1.0,
            ramp: RampRun::new(DEFAULT_BUDGET_MS),
            sim_seconds: 0.0,
        })
    }

    /// Starts over in [`WORLD`] scaled by `scale` (see [`scaled_world`]), with the particle
    /// cap of its area and every other setting kept; the particles are removed.
    ///
    /// # Errors
    /// A scale outside [`MIN_WORLD_SCALE`] to [`MAX_WORLD_SCALE`], or the simulation's error
    /// for a world it refuses; nothing changes then.
    pub fn set_world_scale(&mut self, scale: f32) -> Result<(), String> {
        if !(MIN_WORLD_SCALE..=MAX_WORLD_SCALE).contains(&scale) {
            return Err(format!(
                "the world scale is {MIN_WORLD_SCALE} to {MAX_WORLD_SCALE}, not {scale}"
            ));
        }
        let world = scaled_world(scale);
        // The settings carry the thread count.
        let sim = Simulation::new(SimConfig {
            world,
            max_particles: particle_cap_of(world),
            ..*self.sim.get().config()
        })
        .map_err(|e| e.to_string())?;
        self.sim = SimSlot::Home(Box::new(sim));
        self.world_scale = scale;
        self.probe.set_world(world);
        Ok(())
    }

    /// [`set_world_scale`](Self::set_world_scale), saying what happened.
    pub fn rescale_world(&mut self, scale: f32) {
        match self.set_world_scale(scale) {
            Ok(()) => {
                let cap = self.sim.get().config().max_particles;
                self.say(format_args!(
                    "world x{scale}: room for {cap} particles (the old ones are gone)"
                ));
            }
            Err(e) => self.say(format_args!("world scale refused: {e}")),
        }
    }

    /// The world's size against [`WORLD`]'s.
    pub fn world_scale(&self) -> f32 {
        self.world_scale
    }

    /// Moves the particles into [`WORLD`] scaled by `scale`, with the particle cap of its
    /// area, keeping their places (see [`regrow`]): the ramp widening a full world. Returns
    /// the new cap.
    ///
    /// # Errors
    /// The simulation's errors for a world it refuses; nothing changes then.
    pub fn widen_world(&mut self, scale: f32) -> Result<usize, SimError> {
        let world = scaled_world(scale);
        let cap = particle_cap_of(world);
        let grown = regrow(self.sim.get(), world, cap)?;
        self.sim = SimSlot::Home(Box::new(grown));
        self.world_scale = scale;
        self.probe.set_world(world);
        Ok(cap)
    }

    /// The ramp's key and button (see [`RampRun::toggle`]), saying what it did.
    pub fn toggle_ramp(&mut self) {
        let did = self.ramp.toggle();
        self.say(format_args!("{did}"));
    }

    /// Runs the simulation's phases on `threads` worker threads, or says why not.
    pub fn set_threads(&mut self, threads: usize) {
        match self.sim.get_mut().set_threads(threads) {
            Ok(()) => self.say(format_args!("simulation threads: {threads}")),
            Err(e) => self.say(format_args!("threads refused: {e}")),
        }
    }

    /// The particles and their tree.
    ///
    /// # Panics
    /// While the frame's steps run on the step thread (see [`SimSlot`]).
    pub fn sim(&self) -> &Simulation {
        self.sim.get()
    }

    /// The particles and their tree, to change.
    ///
    /// # Panics
    /// While the frame's steps run on the step thread (see [`SimSlot`]).
    pub fn sim_mut(&mut self) -> &mut Simulation {
        self.sim.get_mut()
    }

    /// Where the simulation is, for the stepper to take it away and bring it back.
    pub fn sim_slot(&mut self) -> &mut SimSlot {
        &mut self.sim
    }

    /// Simulated seconds so far (the steps begun times the step): what the marks of changed
    /// leaves age by, so that they stand still while paused.
    pub fn sim_seconds(&self) -> f64 {
        self.sim_seconds
    }

    /// Seconds on the app's clock.
    pub fn now(&self) -> f64 {
        (self.clock)()
    }

    /// Whether the simulation is paused.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Whether the user asked to end the program.
    pub fn quit_requested(&self) -> bool {
        self.quit
    }

    /// Particles per second the cursor stream spawns.
    pub fn cursor_rate(&self) -> f32 {
        self.cursor_rate
    }

    /// The message on screen now, if any.
    pub fn message(&self) -> Option<&str> {
        (self.now() < self.message.until).then_some(self.message.text.as_str())
    }

    /// Whether the blue quad's report is on screen.
    pub fn report_shown(&self) -> bool {
        self.probe.shown(self.now())
    }

    /// Shows a message on screen for a few seconds and prints it.
    pub fn say(&mut self, text: std::fmt::Arguments<'_>) {
        self.message.text.clear();
        let _ = self.message.text.write_fmt(text);
        println!("{}", self.message.text);
        self.message.until = self.now() + MESSAGE_SECONDS;
    }

    /// An input of binding `b` is not active this frame: ends the drags it started.
    pub fn release(&mut self, b: &Binding) {
        match b.action {
            Action::TestQuad if self.probe.release(self.sim.get(), self.clock).is_some() => {
                println!("dropped: {}", self.probe.line());
            }
            Action::Pan => self.pan_from = None,
            _ => {}
        }
    }

    /// Does what binding `b` does, as if its input were active this frame.
    pub fn act(&mut self, b: &Binding, dt: f32, view: &View, pointer: Pointer) {
        let cursor = view.to_world(pointer.x, pointer.y);
        let now = self.now();
        match b.action {
            Action::SpawnTrickle => self.held.trickle = true,
            Action::SpawnFlood => self.held.flood = true,
            Action::SpawnAtCursor => self.held.cursor = Some(cursor),
            Action::SpawnRateDown | Action::SpawnRateUp => {
                let factor = if b.action == Action::SpawnRateUp {
                    1.5
                } else {
                    1.0 / 1.5
                };
                self.set_cursor_rate(self.cursor_rate * factor);
            }
            Action::TestQuad => {
                if self
                    .probe
                    .hold(self.sim.get(), cursor.0, cursor.1, self.clock)
                    .is_some()
                {
                    println!("right-click: {}", self.probe.line());
                }
            }
            Action::Pan => {
                if let Some((px, py)) = self.pan_from {
                    self.camera.pan(view, pointer.x - px, pointer.y - py);
                }
                self.pan_from = Some((pointer.x, pointer.y));
            }
            Action::Zoom => {
                let notches = pointer.wheel.signum();
                self.camera
                    .zoom_about(view, ZOOM_STEP.powf(notches), pointer.x, pointer.y);
            }
            Action::FitWorld => self.camera.fit(),
            Action::QuadLeft => self.probe.nudge(-QUAD_SPEED * dt, 0.0, now),
            Action::QuadRight => self.probe.nudge(QUAD_SPEED * dt, 0.0, now),
            Action::QuadUp => self.probe.nudge(0.0, -QUAD_SPEED * dt, now),
            Action::QuadDown => self.probe.nudge(0.0, QUAD_SPEED * dt, now),
            Action::CycleColors => self.set_colors(self.display.colors.next()),
            Action::ToggleOutlines => self.display.outlines = self.display.outlines.next(),
            Action::Pause => self.paused = !self.paused,
            Action::Step => self.step_once = true,
            Action::Clear => self.clear(),
            Action::ToggleGravity => self.set_gravity(!self.sim.get().config().gravity_on),
            Action::CycleBroadphase => self.set_broadphase(self.sim.get().broadphase().next()),
            Action::CapacityDown | Action::CapacityUp | Action::DepthDown | Action::DepthUp => {
                let mut c = self.sim.get().config().tree;
                match b.action {
                    Action::CapacityDown => c.leaf_capacity = (c.leaf_capacity / 2).max(1),
                    Action::CapacityUp => {
                        c.leaf_capacity = c.leaf_capacity.saturating_mul(2).min(MAX_LEAF_CAPACITY)
                    }
                    Action::DepthDown => c.max_depth = c.max_depth.saturating_sub(1),
                    _ => c.max_depth = (c.max_depth + 1).min(MAX_DEPTH),
                }
                self.set_tree(c);
            }
            Action::TogglePlacement => {
                let mut c = self.sim.get().config().tree;
                c.placement = match c.placement {
                    Placement::Exact => Placement::Loose,
                    Placement::Loose => Placement::Exact,
                };
                self.set_tree(c);
            }
            Action::ToggleHud => self.display.hud = !self.display.hud,
            Action::ToggleHelp => self.display.help = !self.display.help,
            Action::TogglePanel => self.display.panel = !self.display.panel,
            Action::CycleQuery => self.set_query(self.probe.shape().next()),
            Action::Ramp => self.toggle_ramp(),
            Action::Close => {
                // Esc closes what is open before it ends anything, so in a page (which cannot
                // be ended) it still does something.
                if self.display.help {
                    self.display.help = false;
                } else if self.display.panel_shown() {
                    self.display.panel = false;
                } else {
                    self.quit = true;
                }
            }
        }
    }

    /// Sets the cursor stream's rate, within 10 to 50,000 particles a second.
    pub fn set_cursor_rate(&mut self, rate: f32) {
        self.cursor_rate = rate.clamp(10.0, 50_000.0);
        let rate = self.cursor_rate;
        self.say(format_args!("cursor stream: {rate:.0} particles/s"));
    }

    /// Sets the blue quad's query and runs it if its report is shown.
    pub fn set_query(&mut self, shape: Shape) {
        self.probe.set_shape(shape);
        self.say(format_args!("right-click query: {}", shape.name()));
        if self.report_shown() {
            self.probe.run(self.sim.get(), self.clock);
            println!("query: {}", self.probe.line());
        }
    }

    /// Sets how many neighbours the nearest query finds.
    pub fn set_nearest_k(&mut self, k: usize) {
        self.probe.set_k(k);
        if self.report_shown() {
            self.probe.run(self.sim.get(), self.clock);
        }
    }

    /// Spawns `n` particles at random places.
    pub fn spawn_at_random(&mut self, n: usize) {
        self.spawn(n, None);
    }

    /// The panel's spawn button: exactly the panel's spawn count of particles at
    /// random places, or none and the reason when the world has no room for them all.
    pub fn spawn_count_now(&mut self) {
        let n = self.spawn_count;
        let (len, cap) = (self.sim.get().len(), self.sim.get().config().max_particles);
        let room = cap.saturating_sub(len);
        if n > room {
            self.say(format_args!(
                "spawn {n} refused: room for {room} more (this world holds {cap}; \
                 the world scale makes room)"
            ));
        } else {
            self.spawn(n, None);
            // A refused allocation said its own message.
            if self.sim.get().len() == len + n {
                self.say(format_args!("spawned {n}: {} particles", len + n));
            }
        }
    }

    /// Sets the panel's spawn count, or says why not: it must fit in this world.
    pub fn set_spawn_count(&mut self, n: usize) {
        let cap = self.sim.get().config().max_particles;
        if n == 0 || n > cap {
            self.say(format_args!(
                "spawn count {n} refused: 1 to {cap}, the particles this world holds"
            ));
        } else {
            self.spawn_count = n;
            self.say(format_args!(
                "spawn count: {n} (the panel's \"spawn the count\")"
            ));
        }
    }

    /// Makes held spawn inputs stop at `n` particles (0: at the world's cap), or says why not.
    pub fn set_stop_at(&mut self, n: usize) {
        let cap = self.sim.get().config().max_particles;
        if n > cap {
            self.say(format_args!(
                "stop at {n} refused: this world holds {cap} (0 stops at the cap)"
            ));
        } else {
            self.stop_at = n;
            self.said_stop = false;
            match n {
                0 => self.say(format_args!("held spawn keys stop at the cap ({cap})")),
                _ => self.say(format_args!("held spawn keys stop at {n} particles")),
            }
        }
    }

    /// Pauses or resumes the simulation.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// Advances one frame while paused.
    pub fn step_once(&mut self) {
        self.step_once = true;
    }

    /// Removes every particle.
    pub fn clear(&mut self) {
        self.sim.get_mut().clear();
        self.said_full = false;
        self.probe.forget();
    }

    /// Sets the colouring.
    pub fn set_colors(&mut self, colors: ColorMode) {
        self.display.colors = colors;
        self.say(format_args!("colours: {}", colors.name()));
    }

    /// Gravity on or off.
    pub fn set_gravity(&mut self, on: bool) {
        self.sim.get_mut().set_gravity(on);
        self.say(format_args!("gravity {}", if on { "on" } else { "off" }));
    }

    /// Switches to broad phase `mode`; brute force is refused above
    /// [`BRUTE_FORCE_MAX_PARTICLES`] and the next mode taken instead.
    pub fn set_broadphase(&mut self, mode: Broadphase) {
        if mode == Broadphase::BruteForce && !self.brute_force_allowed() {
            self.refuse_brute_force("refused");
        } else {
            self.sim.get_mut().set_broadphase(mode);
            self.say(format_args!("broad phase: {}", mode.name()));
        }
    }

    /// Rebuilds the tree with settings `c`, or says why they are refused (or that they are
    /// the tree's already, at a limit of the keys).
    pub fn set_tree(&mut self, c: Config) {
        if c == self.sim.get().config().tree {
            self.say(format_args!(
                "tree unchanged (nothing rebuilt): leaf capacity {} (1 to {MAX_LEAF_CAPACITY}), \
                 depth limit {} (0 to {MAX_DEPTH}), {} placement",
                c.leaf_capacity,
                c.max_depth,
                placement_name(c.placement)
            ));
            return;
        }
        match self.sim.get_mut().set_tree_config(c) {
            Ok(()) => self.say(format_args!(
                "tree rebuilt: leaf capacity {}, depth limit {}, {} placement",
                c.leaf_capacity,
                c.max_depth,
                placement_name(c.placement)
            )),
            Err(e) => self.say(format_args!("tree settings refused: {e}")),
        }
    }

    fn brute_force_allowed(&self) -> bool {
        self.sim.get().len() <= BRUTE_FORCE_MAX_PARTICLES
    }

    /// Leaves brute force for the next broad phase and says why (`verb`: refused, stopped).
    fn refuse_brute_force(&mut self, verb: &str) {
        let next = Broadphase::BruteForce.next();
        self.sim.get_mut().set_broadphase(next);
        self.say(format_args!(
            "brute force {verb}: {} particles, more than {} (its step would freeze the window); {}",
            self.sim.get().len(),
            BRUTE_FORCE_MAX_PARTICLES,
            next.name()
        ));
    }

    fn spawn(&mut self, n: usize, at: Option<(f32, f32)>) {
        if n == 0 {
            return;
        }
        let result = match at {
            Some((x, y)) => self.sim.get_mut().spawn_stream(x, y, n, 6.0, 120.0),
            None => self.sim.get_mut().spawn_burst(n),
        };
        match result {
            Ok(_) => self.said_full = false,
            // Said once while a key is held at the cap (the console would get a line a
            // frame), and kept on screen meanwhile.
            Err(SimError::CapReached { .. }) if self.said_full => {
                self.message.until = self.now() + MESSAGE_SECONDS;
            }
            Err(SimError::CapReached { cap, .. }) => {
                self.said_full = true;
                self.say(format_args!(
                    "the world is full: {cap} particles cover {:.0}% of it",
                    MAX_COVERAGE * 100.0
                ));
            }
            Err(e) => self.say(format_args!("{e}")),
        }
    }

    /// Spawns what the held spawn inputs owe for `steps` simulated steps: their rates times
    /// the steps' simulated time, up to the panel's stop count. Forgets what
    /// was held: the next frame's input holds again.
    fn spawn_held(&mut self, steps: u32) {
        let seconds = steps as f32 * self.fixed.step_seconds();
        let held = std::mem::take(&mut self.held);
        let rate = |a: Action| a.spawn_rate().unwrap_or(0) as f32;
        if held.trickle {
            let n = take_whole(&mut self.debt.trickle, rate(Action::SpawnTrickle) * seconds);
            self.spawn_held_part(n, None);
        }
        if held.flood {
            let n = take_whole(&mut self.debt.flood, rate(Action::SpawnFlood) * seconds);
            self.spawn_held_part(n, None);
        }
        if let Some(at) = held.cursor {
            let n = take_whole(&mut self.debt.cursor, self.cursor_rate * seconds);
            self.spawn_held_part(n, Some(at));
        }
    }

    /// Spawns `n` of a held input's particles, or as many as reach the panel's stop
    /// count.
    fn spawn_held_part(&mut self, n: usize, at: Option<(f32, f32)>) {
        let stop = self.stop_at;
        let room = stop.saturating_sub(self.sim.get().len());
        if stop == 0 || n <= room {
            self.spawn(n, at);
            self.said_stop &= self.sim.get().len() >= stop;
            return;
        }
        self.spawn(room, at);
        // Said once while the keys are held at the stop, as "the world is full" is.
        if !self.said_stop {
            self.said_stop = true;
            self.say(format_args!(
                "held spawn keys stopped at {stop} particles (the panel's \"held: stop at\")"
            ));
        }
    }

    /// A right-click at world `(x, y)`: see [`Probe::click`]. Prints the report.
    pub fn right_click(&mut self, x: f32, y: f32) {
        self.probe.click(self.sim.get(), x, y, self.clock);
        println!("right-click: {}", self.probe.line());
    }

    /// Moves the blue quad by world units.
    pub fn nudge_quad(&mut self, dx: f32, dy: f32) {
        let now = self.now();
        self.probe.nudge(dx, dy, now);
    }

    /// Readies a frame that follows `real_seconds` of real time and returns how many fixed
    /// steps it runs: as many as real time asks (see [`FixedStep`]), one a frame in a scripted
    /// run (so that it repeats exactly, however slow its frames), none while paused unless
    /// single-stepping. The held spawn inputs spawn for those steps. Brings a shown report up
    /// to date.
    pub fn begin_frame(&mut self, real_seconds: f64, scripted: bool) -> u32 {
        if self.sim.get().broadphase() == Broadphase::BruteForce && !self.brute_force_allowed() {
            self.refuse_brute_force("stopped");
        }
        let once = std::mem::take(&mut self.step_once);
        let steps = if self.paused {
            self.fixed.reset();
            u32::from(once)
        } else if scripted {
            1
        } else {
            self.fixed.advance(real_seconds)
        };
        self.spawn_held(steps);
        if self.report_shown() {
            self.probe.run(self.sim.get(), self.clock);
        }
        self.sim_seconds += f64::from(steps) * f64::from(self.fixed.step_seconds());
        steps
    }

    /// Takes in what a frame's steps did: their phase times, for the HUD.
    pub fn stepped(&mut self, stepped: Stepped) {
        if let Some(times) = stepped.times {
            self.times = times;
            self.brute_force.refresh(self.sim.get(), self.clock);
            let now = self.now();
            let p = &mut self.profile;
            p.step.push(now, times.step_ms);
            for (series, (_, ms)) in p.phases.iter_mut().zip(times.by_phase()) {
                series.push(now, ms);
            }
        }
    }

    /// One scripted frame in line: [`begin_frame`](Self::begin_frame), then its step.
    #[cfg(test)]
    pub fn update(&mut self) {
        let steps = self.begin_frame(f64::from(STEP_SECONDS), true);
        let stepped =
            crate::state::stepper::run_steps(self.sim.get_mut(), steps, STEP_SECONDS, self.clock);
        self.stepped(stepped);
    }
}

/// The controls panel's values: each control reads its value here and writes it back through
/// the setters the keys use.
impl App {
    /// Panel control `c`'s current value.
    pub fn read(&self, c: &Control) -> Value {
        let tree = self.sim.get().config().tree;
        match c.field {
            Field::Stream => Value::Number(self.cursor_rate()),
            Field::SpawnCount => Value::Number(self.spawn_count as f32),
            Field::StopAt => Value::Number(self.stop_at as f32),
            Field::Capacity => Value::Number(tree.leaf_capacity as f32),
            Field::Depth => Value::Number(f32::from(tree.max_depth)),
            Field::Placement => Value::Choice(usize::from(tree.placement == Placement::Loose)),
            Field::Broadphase => Value::Choice(
                Broadphase::ALL
                    .iter()
                    .position(|&m| m == self.sim.get().broadphase())
                    .unwrap_or(0),
            ),
            Field::Colors => Value::Choice(self.display.colors as usize),
            Field::Outlines => Value::Choice(self.display.outlines as usize),
            Field::Gravity => Value::On(self.sim.get().config().gravity_on),
            Field::Pause => Value::On(self.paused()),
            Field::Query => Value::Choice(self.probe.shape() as usize),
            Field::Nearest => Value::Number(self.probe.k() as f32),
            Field::WorldScale => Value::Number(self.world_scale),
            Field::Threads => Value::Number(self.sim.get().threads() as f32),
            Field::Spawn | Field::Step | Field::Clear => Value::Pressed(false),
            Field::Ramp => Value::Pressed(false),
        }
    }

    /// Sets panel control `c` to `value`, through the setters the keys use.
    pub fn apply(&mut self, c: &Control, value: Value) {
        let mut tree = self.sim.get().config().tree;
        match (c.field, value) {
            (Field::Stream, Value::Number(v)) => self.set_cursor_rate(v),
            (Field::WorldScale, Value::Number(v)) => self.rescale_world(v),
            (Field::Threads, Value::Number(v)) => self.set_threads(v.max(1.0) as usize),
            (Field::Capacity, Value::Number(v)) => {
                tree.leaf_capacity = v.clamp(1.0, MAX_LEAF_CAPACITY as f32) as usize;
                self.set_tree(tree);
            }
            (Field::Depth, Value::Number(v)) => {
                tree.max_depth = v.clamp(0.0, f32::from(MAX_DEPTH)) as u8;
                self.set_tree(tree);
            }
            (Field::Placement, Value::Choice(i)) => {
                tree.placement = if i == 1 {
                    Placement::Loose
                } else {
                    Placement::Exact
                };
                self.set_tree(tree);
            }
            (Field::Broadphase, Value::Choice(i)) => {
                self.set_broadphase(Broadphase::ALL[i.min(Broadphase::ALL.len() - 1)]);
            }
            (Field::Colors, Value::Choice(i)) => {
                self.set_colors(ColorMode::ALL[i.min(ColorMode::ALL.len() - 1)]);
            }
            (Field::Outlines, Value::Choice(i)) => {
                self.display.outlines = Outlines::ALL[i.min(Outlines::ALL.len() - 1)];
            }
            (Field::Gravity, Value::On(on)) => self.set_gravity(on),
            (Field::Pause, Value::On(on)) => self.set_paused(on),
            (Field::Query, Value::Choice(i)) => {
                let all = [Shape::Rect, Shape::Circle, Shape::Nearest];
                self.set_query(all[i.min(all.len() - 1)]);
            }
            (Field::Nearest, Value::Number(v)) => self.set_nearest_k(v as usize),
            // The panel's numbers are whole and within `MAX_COUNT` (see `Control::parse`).
            (Field::SpawnCount, Value::Number(v)) => self.set_spawn_count(v as usize),
            (Field::StopAt, Value::Number(v)) => self.set_stop_at(v as usize),
            (Field::Spawn, Value::Pressed(true)) => self.spawn_count_now(),
            (Field::Step, Value::Pressed(true)) => self.step_once(),
            (Field::Clear, Value::Pressed(true)) => self.clear(),
            (Field::Ramp, Value::Pressed(true)) => self.toggle_ramp(),
            _ => {}
        }
    }
}

/// Adds `amount` to `debt` and takes the whole part out.
fn take_whole(debt: &mut f32, amount: f32) -> usize {
    *debt += amount;
    let n = *debt as usize;
    *debt -= n as f32;
    n
}

/// A fake clock and an `App` reading it, for the demo's unit tests.
#[cfg(test)]
pub mod tests_support {
    use std::cell::Cell;

    use super::*;

    thread_local! {
        /// The fake clock's time: each test thread has its own.
        static NOW: Cell<f64> = const { Cell::new(100.0) };
    }

    /// The fake clock: seconds that pass only by [`advance`].
    pub fn fake_clock() -> f64 {
        NOW.with(Cell::get)
    }

    /// Moves this thread's fake clock on.
    pub fn advance(seconds: f64) {
        NOW.with(|now| now.set(now.get() + seconds));
    }

    /// An empty demo with the default settings, on the fake clock.
    pub fn test_app() -> App {
        App::new(
            Config::default(),
            true,
            7,
            Broadphase::Incremental,
            None,
            fake_clock,
        )
        .unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::{advance, fake_clock, test_app as app};
    use super::*;
    use crate::input::controls::BINDINGS;
    use crate::settings::panel_controls::{by_name, parse_setting, CONTROLS};
    use crate::state::probe::REPORT_SECONDS;

    fn view() -> View {
        View::new(WORLD, 1024.0, 768.0, Camera::default())
    }

    fn press(app: &mut App, action: Action) {
        let b = BINDINGS.iter().find(|b| b.action == action).unwrap();
        app.act(b, 1.0 / 60.0, &view(), Pointer::default());
    }

    #[test]
    fn the_brute_force_estimate_grows_with_the_square_of_the_count() {
        let mut app = app();
        assert_eq!(app.brute_force.ms_at(1000), None);
        app.sim_mut().spawn_burst(3000).unwrap();
        // The fake clock stands still: a timing of 0 ms, then the estimate is 0.
        app.update();
        assert_eq!(app.brute_force.ms_at(3000), Some(0.0));
        // A real clock gives a positive time per pair, scaled by n(n-1)/2.
        fn real_clock() -> f64 {
            use std::sync::OnceLock;
            static START: OnceLock<std::time::Instant> = OnceLock::new();
            START
                .get_or_init(std::time::Instant::now)
                .elapsed()
                .as_secs_f64()
        }
        let mut estimate = BruteForceEstimate::default();
        estimate.refresh(app.sim(), real_clock);
        let (small, large) = (
            estimate.ms_at(1000).unwrap(),
            estimate.ms_at(100_000).unwrap(),
        );
        assert!(small > 0.0);
        let ratio = large / small;
        let expected = (100_000.0 * 99_999.0) / (1000.0 * 999.0);
        assert!(
            (ratio / expected - 1.0).abs() < 1e-9,
            "{ratio} vs {expected}"
        );
        // Within a second it is not timed again.
        let per_pair = estimate.ms_per_pair;
        estimate.refresh(app.sim(), real_clock);
        assert_eq!(estimate.ms_per_pair, per_pair);
    }

    #[test]
    fn a_message_shows_for_its_time_on_the_given_clock() {
        let mut app = app();
        assert_eq!(app.message(), None);
        press(&mut app, Action::ToggleGravity);
        assert_eq!(app.message(), Some("gravity off"));
        assert!(!app.sim().config().gravity_on);
        advance(MESSAGE_SECONDS - 0.01);
        assert_eq!(app.message(), Some("gravity off"));
        advance(0.02);
        assert_eq!(app.message(), None);
    }

    #[test]
    fn a_right_click_centres_the_quad_and_its_report_agrees_with_brute_force() {
        let mut app = app();
        app.sim_mut().spawn_burst(3000).unwrap();
        app.update();
        app.right_click(900.0, 900.0);
        assert_eq!(app.probe.rect(), Rect::new(600.0, 675.0, 1200.0, 1125.0));
        let r = *app.probe.report();
        assert!(r.count > 0 && r.agrees, "{r:?}");
        assert_eq!(r.count, app.probe.hits().len());
        assert!(
            r.particles_tested >= r.count && r.particles_tested < 3000,
            "{r:?}"
        );
        assert!(app.probe.visited().len() == r.nodes_visited && r.nodes_visited >= 1);
        assert!(app.report_shown());
        // Moving the quad keeps the report up; left alone, it goes.
        advance(REPORT_SECONDS - 1.0);
        app.nudge_quad(30.0, 0.0);
        advance(2.0);
        assert!(app.report_shown());
        app.update();
        assert!(app.probe.report().agrees);
        assert_eq!(app.probe.rect().min_x, 630.0);
        advance(REPORT_SECONDS);
        assert!(!app.report_shown());
    }

    #[test]
    fn the_quad_stays_inside_the_world() {
        let mut app = app();
        app.nudge_quad(-1e6, 1e6);
        let q = app.probe.rect();
        assert_eq!((q.min_x, q.max_y), (WORLD.min_x, WORLD.max_y));
        assert_eq!((q.width(), q.height()), (600.0, 450.0));
    }

    /// The blue quad scales with the world: its share of the world and its place in it stay
    /// (at world 0.25 it used to keep its 600 x 450 and cover three quarters of the world).
    #[test]
    fn the_quad_scales_with_the_world() {
        let mut app = app();
        let start = app.probe.rect();
        let share = |app: &App| {
            let (q, w) = (app.probe.rect(), app.sim().config().world);
            (
                q.width() / w.width(),
                q.height() / w.height(),
                (q.min_x - w.min_x) / w.width(),
                (q.min_y - w.min_y) / w.height(),
            )
        };
        let before = share(&app);
        for scale in [0.25, 2.0, 1.0] {
            app.set_world_scale(scale).unwrap();
            let after = share(&app);
            for (a, b) in [
                (after.0, before.0),
                (after.1, before.1),
                (after.2, before.2),
                (after.3, before.3),
            ] {
                assert!((a - b).abs() < 1e-5, "x{scale}: {after:?} vs {before:?}");
            }
        }
        assert_eq!(app.probe.rect(), start, "back at scale 1, where it began");
        app.set_world_scale(0.25).unwrap();
        assert_eq!(
            (app.probe.rect().width(), app.probe.rect().height()),
            (150.0, 112.5)
        );
    }

    #[test]
    fn dragging_the_quad_reports_on_release_only_when_it_moved() {
        let mut app = app();
        app.sim_mut().spawn_burst(500).unwrap();
        let quad = *BINDINGS
            .iter()
            .find(|b| b.action == Action::TestQuad)
            .unwrap();
        let v = view();
        let at = |x: f32, y: f32| {
            let (sx, sy) = v.to_screen(x, y);
            Pointer {
                x: sx,
                y: sy,
                wheel: 0.0,
            }
        };
        // Press inside the quad: it stays; a release without a move reports nothing more.
        app.act(&quad, 0.016, &v, at(1500.0, 1200.0));
        let clicked = app.probe.rect();
        assert_eq!(clicked, Rect::from_min_size(1200.0, 900.0, 600.0, 450.0));
        assert!(app.probe.release(app.sim.get(), fake_clock).is_none());
        // Press, drag by (300, -300), release: the quad follows the grip and reports again.
        app.act(&quad, 0.016, &v, at(1500.0, 1200.0));
        app.act(&quad, 0.016, &v, at(1800.0, 900.0));
        let moved = app.probe.rect();
        assert!((moved.min_x - 1500.0).abs() < 2.0 && (moved.min_y - 600.0).abs() < 2.0);
        let report = app.probe.release(app.sim.get(), fake_clock).unwrap();
        assert!(report.agrees);
        assert_eq!(report.brute_count, app.sim().touching_brute_force(&moved));
    }

    #[test]
    fn pause_stops_the_simulation_and_step_advances_one_frame() {
        let mut app = app();
        app.sim_mut().spawn_burst(200).unwrap();
        let before: Vec<_> = app.sim().particles().iter().map(|p| (p.x, p.y)).collect();
        press(&mut app, Action::Pause);
        assert!(app.paused());
        app.update();
        let paused: Vec<_> = app.sim().particles().iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(before, paused);
        press(&mut app, Action::Step);
        app.update();
        let stepped: Vec<_> = app.sim().particles().iter().map(|p| (p.x, p.y)).collect();
        assert_ne!(paused, stepped, "gravity moved them");
        app.update();
        let still: Vec<_> = app.sim().particles().iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(stepped, still, "one step only");
    }

    #[test]
    fn brute_force_is_refused_and_stopped_above_its_limit() {
        let mut app = app();
        app.sim_mut().spawn_burst(100).unwrap();
        app.set_broadphase(Broadphase::BruteForce);
        assert_eq!(app.sim().broadphase(), Broadphase::BruteForce);
        app.sim_mut()
            .spawn_burst(BRUTE_FORCE_MAX_PARTICLES)
            .unwrap();
        app.update();
        assert_ne!(app.sim().broadphase(), Broadphase::BruteForce);
        assert!(app.message().unwrap().starts_with("brute force stopped"));
        app.set_broadphase(Broadphase::BruteForce);
        assert_ne!(app.sim().broadphase(), Broadphase::BruteForce);
        assert!(app.message().unwrap().starts_with("brute force refused"));
    }

    #[test]
    fn tree_keys_change_the_settings_within_their_limits() {
        let mut app = app();
        let start = app.sim().config().tree;
        press(&mut app, Action::CapacityUp);
        assert_eq!(
            app.sim().config().tree.leaf_capacity,
            start.leaf_capacity * 2
        );
        for _ in 0..20 {
            press(&mut app, Action::CapacityDown);
        }
        assert_eq!(app.sim().config().tree.leaf_capacity, 1);
        for _ in 0..40 {
            press(&mut app, Action::DepthUp);
        }
        assert_eq!(app.sim().config().tree.max_depth, MAX_DEPTH);
        press(&mut app, Action::TogglePlacement);
        assert_ne!(app.sim().config().tree.placement, start.placement);
        assert!(app.message().unwrap().starts_with("tree rebuilt"));
        // At a limit nothing is rebuilt, and the message says so.
        press(&mut app, Action::DepthUp);
        assert!(app.message().unwrap().contains("nothing rebuilt"));
        let mut c = app.sim().config().tree;
        c.leaf_capacity = MAX_LEAF_CAPACITY;
        app.set_tree(c);
        press(&mut app, Action::CapacityUp);
        assert_eq!(app.sim().config().tree.leaf_capacity, MAX_LEAF_CAPACITY);
        assert!(app.message().unwrap().contains("nothing rebuilt"));
    }

    #[test]
    fn spawning_follows_the_rate_and_clear_forgets_the_report() {
        let mut app = app();
        // 300 particles a second for a second of 60 frames.
        for _ in 0..60 {
            press(&mut app, Action::SpawnTrickle);
            app.update();
        }
        assert!(
            (299..=300).contains(&app.sim().len()),
            "{}",
            app.sim().len()
        );
        app.right_click(1500.0, 1000.0);
        press(&mut app, Action::Clear);
        assert!(app.sim().is_empty());
        assert!(!app.report_shown() && app.probe.hits().is_empty());
    }

    /// Held spawn keys spawn per simulated step: a scripted run (a step a frame) gets the
    /// same particles whatever its frames' real time (they used to spawn rate x real frame
    /// time, so slow frames spawned more), and a real-time frame spawns for the steps it
    /// runs.
    #[test]
    fn held_spawn_keys_spawn_per_simulated_step_not_per_real_second() {
        let flood = BINDINGS
            .iter()
            .find(|b| b.action == Action::SpawnFlood)
            .unwrap();
        let count_after = |frame_seconds: f32| {
            let mut app = app();
            for _ in 0..30 {
                app.act(flood, frame_seconds, &view(), Pointer::default());
                let steps = app.begin_frame(f64::from(frame_seconds), true);
                assert_eq!(steps, 1);
                crate::state::stepper::run_steps(app.sim_mut(), steps, STEP_SECONDS, fake_clock);
            }
            (app.sim().len(), app.sim().state_hash())
        };
        let fast = count_after(1.0 / 60.0);
        assert_eq!(fast.0, 3000, "6,000 a second for 30 steps of 1/60 s");
        assert_eq!(count_after(0.25), fast, "4 FPS frames spawn the same");
        // A real-time frame of 3.5 steps' time runs 3 steps and spawns 3 steps' worth.
        let mut app = app();
        app.act(flood, 0.0, &view(), Pointer::default());
        let steps = app.begin_frame(3.5 * f64::from(STEP_SECONDS), false);
        assert_eq!(steps, 3);
        assert_eq!(app.sim().len(), 300);
        // A paused frame runs no step and spawns nothing; nothing held spawns nothing.
        app.set_paused(true);
        app.act(flood, 0.0, &view(), Pointer::default());
        assert_eq!(app.begin_frame(1.0, false), 0);
        app.set_paused(false);
        app.begin_frame(f64::from(STEP_SECONDS), true);
        assert_eq!(app.sim().len(), 300);
    }

    /// The panel's typed counts: the spawn button adds exactly the count, held keys stop
    /// exactly at the stop count (whatever their rate and the steps a frame), and counts the
    /// world cannot hold are refused with the reason, changing nothing.
    #[test]
    fn the_panel_spawns_a_typed_count_and_held_keys_stop_at_one() {
        let mut app = app();
        let set = |app: &mut App, text: &str| {
            let (c, v) = parse_setting(text).unwrap();
            app.apply(c, v);
        };
        set(&mut app, "count=1234");
        set(&mut app, "spawn");
        assert_eq!(app.sim().len(), 1234);
        assert_eq!(app.message(), Some("spawned 1234: 1234 particles"));
        set(&mut app, "stop=3001");
        let mut said = 0;
        for _ in 0..40 {
            press(&mut app, Action::SpawnFlood);
            press(&mut app, Action::SpawnTrickle);
            let was = app.said_stop;
            app.update();
            said += usize::from(!was && app.said_stop);
        }
        assert_eq!(
            app.sim().len(),
            3001,
            "6,300 a second for 40 steps, stopped"
        );
        assert_eq!(
            app.message(),
            Some("held spawn keys stopped at 3001 particles (the panel's \"held: stop at\")")
        );
        assert_eq!(said, 1, "said once, not each step held at the stop");
        // A real-time frame of four steps stops there too.
        set(&mut app, "stop=3300");
        press(&mut app, Action::SpawnFlood);
        assert_eq!(app.begin_frame(4.0 * f64::from(STEP_SECONDS), false), 4);
        assert_eq!(app.sim().len(), 3300);
        // Above the world's cap: refused, the last count kept.
        let cap = app.sim().config().max_particles;
        set(&mut app, &format!("count={}", cap + 1));
        assert!(
            app.message().unwrap().starts_with("spawn count"),
            "{:?}",
            app.message()
        );
        assert_eq!(app.read(by_name("count").unwrap()), Value::Number(1234.0));
        set(&mut app, &format!("stop={}", cap + 1));
        assert!(app.message().unwrap().contains("refused"));
        assert_eq!(app.read(by_name("stop").unwrap()), Value::Number(3300.0));
        // A count that fits the world but not its room: nothing spawned, the room said.
        set(&mut app, &format!("count={cap}"));
        set(&mut app, "spawn");
        assert_eq!(app.sim().len(), 3300);
        let said = app.message().unwrap();
        assert!(
            said.contains(&format!("room for {} more", cap - 3300)),
            "{said}"
        );
        // Stop at 0: held keys go on to the cap.
        set(&mut app, "stop=0");
        press(&mut app, Action::SpawnFlood);
        app.update();
        assert_eq!(app.sim().len(), 3400);
    }

    /// Holding a spawn key at the cap says "the world is full" once, and keeps it on screen
    /// while the key is held; after a clear it is said again.
    #[test]
    fn the_world_is_full_is_said_once_per_change() {
        let mut app = app();
        app.set_world_scale(0.25).unwrap();
        let cap = app.sim().config().max_particles;
        let mut said = 0;
        for _ in 0..120 {
            press(&mut app, Action::SpawnFlood);
            let was = app.said_full;
            app.update();
            said += usize::from(!was && app.said_full);
            advance(0.1);
        }
        assert_eq!(app.sim().len(), cap);
        assert_eq!(said, 1, "said once in 12 s held at the cap");
        assert!(app.message().unwrap().starts_with("the world is full"));
        press(&mut app, Action::Clear);
        assert!(!app.said_full);
        press(&mut app, Action::SpawnFlood);
        app.update();
        assert!(!app.said_full, "a spawn that fits");
    }

    #[test]
    fn a_control_writes_what_it_reads() {
        let mut app = app();
        for c in CONTROLS {
            let before = app.read(c);
            app.apply(c, before);
            assert_eq!(app.read(c), before, "{}", c.name);
        }
        let set = |app: &mut App, text: &str| {
            let (c, v) = parse_setting(text).unwrap();
            app.apply(c, v);
            app.read(c)
        };
        assert_eq!(set(&mut app, "capacity=48"), Value::Number(48.0));
        assert_eq!(app.sim().config().tree.leaf_capacity, 48);
        assert_eq!(set(&mut app, "capacity=100000"), Value::Number(100_000.0));
        assert_eq!(set(&mut app, "depth=4"), Value::Number(4.0));
        assert_eq!(set(&mut app, "placement=loose"), Value::Choice(1));
        assert_eq!(app.sim().config().tree.placement, Placement::Loose);
        assert_eq!(set(&mut app, "broadphase=rebuild"), Value::Choice(1));
        assert_eq!(set(&mut app, "colors=contact"), Value::Choice(2));
        assert_eq!(set(&mut app, "gravity=off"), Value::On(false));
        assert_eq!(set(&mut app, "pause=on"), Value::On(true));
        assert_eq!(set(&mut app, "query=nearest"), Value::Choice(2));
        assert_eq!(set(&mut app, "k=7"), Value::Number(7.0));
        assert_eq!(set(&mut app, "threads=3"), Value::Number(3.0));
        assert_eq!(app.sim().threads(), 3);
        set(&mut app, "spawn");
        assert_eq!(set(&mut app, "outlines=leaves"), Value::Choice(1));
        assert_eq!(app.display.outlines, Outlines::Leaves);
        assert_eq!(set(&mut app, "world=1.2"), Value::Number(1.2));
        assert_eq!(set(&mut app, "world=2"), Value::Number(2.0));
        assert_eq!(app.sim().config().world.width(), 2.0 * WORLD.width());
        assert!(app.sim().is_empty(), "a new world starts empty");
        assert_eq!(app.probe.shape(), Shape::Nearest, "the query is kept");
        assert_eq!(app.probe.k(), 7);
        set(&mut app, "spawn");
        assert_eq!(app.sim().len(), SPAWN_BATCH);
        set(&mut app, "clear");
        assert!(app.sim().is_empty());
    }
}
