//! Particle physics on the quadtree: square particles that fall, bounce off the walls and
//! collide with each other, found through the tree's moving-object updates and pair search.
//!
//! The simulation runs with or without a window: it never reads a clock. A step is three
//! phases ([`Simulation::integrate`], [`Simulation::find_contacts`], [`Simulation::resolve`]),
//! the second made of [`Simulation::update_tree`] and [`Simulation::find_pairs`], so that a caller can time each with whatever clock it has (macroquad's in the demo,
//! `std::time::Instant` in the headless mode). [`Simulation::step`] runs all three.
//!
//! ```
//! use quadstress::sim::{SimConfig, Simulation};
//! let mut sim = Simulation::new(SimConfig { seed: 7, ..SimConfig::default() }).unwrap();
//! sim.spawn_burst(1000).unwrap();
//! for _ in 0..60 {
//!     sim.step(1.0 / 60.0).unwrap();
//! }
//! assert_eq!(sim.len(), 1000);
//! let w = sim.config().world;
//! assert!(sim.particles().iter().all(|p| w.contains_rect(&p.rect(sim.config().particle_size))));
//! ```

use std::fmt;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::oracle::brute_force_pairs;
use crate::quadtree::{f32_at_or_above, f32_at_or_below};

mod timing;
use crate::{Config, ItemId, Quadtree, QuadtreeError, Rect};
pub use timing::{percentile, PhaseTimes};

/// The largest `max_particles` a simulation accepts: particles are indexed by `u32`, and the
/// tree holds at most `u32::MAX - 1` items.
pub const MAX_PARTICLES: usize = u32::MAX as usize - 1;

/// The fastest any particle moves, in world units per second, whatever the world: keeps every
/// sum and product of velocities in the solver finite (a collision can hand one particle
/// more speed than the limit, but never `2^20` times more).
const SPEED_CAP: f32 = f32::MAX / (1u32 << 20) as f32;

/// How contacts are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Broadphase {
    /// One tree for the whole run; each step moves every particle with `Quadtree::update`.
    #[default]
    Incremental,
    /// The tree is cleared and bulk-loaded again every step.
    Rebuild,
    /// Every pair of particles is tested: O(n²), the reference.
    BruteForce,
}

impl Broadphase {
    /// All modes, in the order the demo cycles through them.
    pub const ALL: [Broadphase; 3] = [
        Broadphase::Incremental,
        Broadphase::Rebuild,
        Broadphase::BruteForce,
    ];

    /// A short name for display.
    ///
    /// ```
    /// assert_eq!(quadstress::sim::Broadphase::BruteForce.name(), "brute force");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Broadphase::Incremental => "quadtree (incremental)",
            Broadphase::Rebuild => "quadtree (rebuilt)",
            Broadphase::BruteForce => "brute force",
        }
    }

    /// The next mode, wrapping around.
    ///
    /// ```
    /// use quadstress::sim::Broadphase;
    /// assert_eq!(Broadphase::BruteForce.next(), Broadphase::Incremental);
    /// ```
    pub fn next(self) -> Self {
        let i = Self::ALL.iter().position(|&m| m == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }
}

/// Settings of a [`Simulation`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimConfig {
    /// The walls: no particle ever leaves this rectangle.
    pub world: Rect,
    /// Side of the square particles (seed 004's stress test used 8).
    pub particle_size: f32,
    /// Most particles alive at once; spawning past it is refused. At most [`MAX_PARTICLES`].
    pub max_particles: usize,
    /// Downward acceleration in world units per second², used while `gravity_on`.
    pub gravity: f32,
    /// Whether gravity pulls.
    pub gravity_on: bool,
    /// Bounciness of contacts and walls: 1 keeps all kinetic energy, 0 none.
    pub restitution: f32,
    /// Tree capacity and depth.
    pub tree: Config,
    /// Seed of the random generator: the same seed and inputs give the same run.
    pub seed: u64,
    /// How contacts are found.
    pub broadphase: Broadphase,
    /// Passes over the contact list per step. More passes let a correction travel further
    /// through a stack in one step, so piles sink less; each pass costs one sweep of the list.
    pub solver_iterations: u32,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            world: Rect::new(0.0, 0.0, 2048.0, 1536.0),
            particle_size: 8.0,
            max_particles: 1_000_000,
            gravity: 400.0,
            gravity_on: true,
            restitution: 0.5,
            tree: Config::default(),
            seed: 1,
            broadphase: Broadphase::Incremental,
            solver_iterations: 1,
        }
    }
}

impl SimConfig {
    /// A square world that `n` particles of the default size cover to about `coverage`
    /// (0.1 = 10% of its area).
    ///
    /// ```
    /// let c = quadstress::sim::SimConfig::with_coverage(100_000, 0.1);
    /// assert_eq!(c.world.width(), 8000.0);
    /// ```
    pub fn with_coverage(n: usize, coverage: f32) -> Self {
        let base = SimConfig::default();
        let side = (n as f32 * base.particle_size * base.particle_size / coverage).sqrt();
        SimConfig {
            world: Rect::new(0.0, 0.0, side.ceil(), side.ceil()),
            ..base
        }
    }
}

/// What the simulation refuses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SimError {
    /// The particle cap was reached: `spawned` particles were added, `refused` were not.
    CapReached {
        /// The cap.
        cap: usize,
        /// Particles added by the call before the cap was reached.
        spawned: usize,
        /// Particles the call could not add.
        refused: usize,
    },
    /// A time step that is negative, NaN or infinite.
    BadTimeStep(f32),
    /// A bad setting: the message says which.
    BadConfig(&'static str),
    /// A position or vector that is NaN or infinite.
    NonFinite,
    /// An error of the tree.
    Tree(QuadtreeError),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::CapReached {
                cap,
                spawned,
                refused,
            } => write!(
                f,
                "particle cap of {cap} reached: spawned {spawned}, refused {refused}"
            ),
            SimError::BadTimeStep(dt) => {
                write!(f, "time step {dt} is not a finite, non-negative number")
            }
            SimError::BadConfig(why) => write!(f, "bad simulation setting: {why}"),
            SimError::NonFinite => write!(f, "position or velocity is NaN or infinite"),
            SimError::Tree(e) => write!(f, "quadtree: {e}"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<QuadtreeError> for SimError {
    fn from(e: QuadtreeError) -> Self {
        SimError::Tree(e)
    }
}

/// One particle: a square of the simulation's `particle_size`, by its top-left corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Velocity along x, units per second.
    pub vx: f32,
    /// Velocity along y, units per second (positive is down).
    pub vy: f32,
    /// Colour as RGBA bytes.
    pub color: [u8; 4],
}

impl Particle {
    /// The particle's square.
    ///
    /// ```
    /// let p = quadstress::sim::Particle { x: 1.0, y: 2.0, vx: 0.0, vy: 0.0, color: [0; 4] };
    /// assert_eq!(p.rect(8.0), quadstress::Rect::new(1.0, 2.0, 9.0, 10.0));
    /// ```
    pub fn rect(&self, size: f32) -> Rect {
        Rect::new(self.x, self.y, self.x + size, self.y + size)
    }
}

/// Counts from the last step, for a HUD or a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCounts {
    /// Contacts found by the broad phase (pairs of touching squares).
    pub contacts: usize,
    /// Pairs of squares the broad phase tested; brute force tests `n * (n - 1) / 2`.
    pub pairs_tested: u64,
}

/// Keeps one coordinate in `[lo, hi]`, reflecting (and damping by `e`) a velocity that points
/// out of the range.
fn bounce(pos: &mut f32, vel: &mut f32, lo: f32, hi: f32, e: f32) {
    if *pos < lo {
        *pos = lo;
        *vel = vel.abs() * e;
    } else if *pos > hi {
        *pos = hi;
        *vel = -vel.abs() * e;
    }
}

/// The largest `x` in `[min, max]` whose square of side `size` still ends at or before `max`
/// once `x + size` is rounded to `f32`, or `None` if even `min` does not fit. `max - size`
/// can be a rounding step off either way, so this searches the `f32`s between `min` and `max`
/// (in the order of their bit patterns: at most 32 halvings).
fn last_fit(min: f32, max: f32, size: f32) -> Option<f32> {
    let fits = |x: f32| x + size <= max;
    if !fits(min) {
        return None;
    }
    // Finite floats in order map to integers in order.
    let key = |v: f32| {
        let b = v.to_bits() as i32;
        if b < 0 {
            i32::MIN - b
        } else {
            b
        }
    };
    let value = |k: i32| f32::from_bits(if k < 0 { i32::MIN - k } else { k } as u32);
    let (mut lo, mut hi) = (key(min) as i64, key(max) as i64);
    // Invariant: value(lo) fits; everything above hi does not.
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        if fits(value(mid as i32)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(value(lo as i32))
}

/// A bright palette; particles take a colour from it at random.
const PALETTE: [[u8; 4]; 6] = [
    [255, 99, 71, 255],
    [255, 215, 0, 255],
    [50, 205, 50, 255],
    [0, 191, 255, 255],
    [238, 130, 238, 255],
    [255, 255, 255, 255],
];

/// The particle system. See the [module documentation](self).
///
/// # Runtime
/// A step is O(n) for integration and resolution, plus the broad phase: for the default
/// incremental quadtree, O(n) updates (each O(1) unless the particle changes node) and the
/// tree's pair search. Nothing is allocated per step once buffers have grown.
#[derive(Debug)]
pub struct Simulation {
    config: SimConfig,
    particles: Vec<Particle>,
    /// Tree handle of each particle, by index (the tree's payload is the index).
    ids: Vec<ItemId>,
    tree: Quadtree<u32>,
    contacts: Vec<(u32, u32)>,
    /// Reused buffer of the particles' squares for the brute-force broad phase.
    rects: Vec<Rect>,
    /// Reused buffers of the bottom-up pass: (row, contact index) sorted by row, row starts.
    stack_order: Vec<(u64, u32)>,
    stack_rows: Vec<(u64, u32)>,
    row_starts: Vec<u32>,
    /// Largest left and top edge a particle may have: its square then ends inside the walls
    /// even after `x + size` is rounded.
    wall_x: f32,
    wall_y: f32,
    /// Largest speed along each axis, in units per second.
    speed_limit: f32,
    /// Each particle's position when the tree last saw it, and the most any particle has
    /// moved along an axis since (as `f64` bits; NaN until `touching` measures it): lets
    /// `touching` ask the tree and still answer for the particles' positions now. Measured
    /// on demand, so that steps do not pay for it.
    anchors: Vec<(f32, f32)>,
    drift: AtomicU64,
    counts: StepCounts,
    rng: StdRng,
}

impl Simulation {
    /// An empty simulation.
    ///
    /// # Errors
    /// The whole configuration is checked here, so that no later call can fail on it:
    /// [`SimError::BadConfig`] for a particle size that is not positive or does not fit the
    /// world once `position + size` is rounded to `f32`, a restitution outside `[0, 1]`, a
    /// non-finite gravity, `solver_iterations` outside `1..=64`, `max_particles` above
    /// [`MAX_PARTICLES`], or a world so large that its speed limit (four world sizes per
    /// second) overflows `f32`; the tree's errors for a bad world (including one whose width
    /// or height overflows `f32`) or tree config.
    ///
    /// ```
    /// use quadstress::sim::{SimConfig, Simulation};
    /// assert!(Simulation::new(SimConfig::default()).is_ok());
    /// let bad = SimConfig { particle_size: -1.0, ..SimConfig::default() };
    /// assert!(Simulation::new(bad).is_err());
    /// ```
    pub fn new(config: SimConfig) -> Result<Self, SimError> {
        let size = config.particle_size;
        if !(size.is_finite() && size > 0.0) {
            return Err(SimError::BadConfig("particle_size must be positive"));
        }
        if !(config.restitution.is_finite() && (0.0..=1.0).contains(&config.restitution)) {
            return Err(SimError::BadConfig("restitution must be between 0 and 1"));
        }
        if !config.gravity.is_finite() {
            return Err(SimError::BadConfig("gravity must be finite"));
        }
        if !(1..=64).contains(&config.solver_iterations) {
            return Err(SimError::BadConfig(
                "solver_iterations must be between 1 and 64",
            ));
        }
        if config.max_particles > MAX_PARTICLES {
            return Err(SimError::BadConfig(
                "max_particles must be at most MAX_PARTICLES (u32::MAX - 1)",
            ));
        }
        let tree = Quadtree::with_config(config.world, config.tree)?;
        let w = config.world;
        let (Some(wall_x), Some(wall_y)) = (
            last_fit(w.min_x, w.max_x, size),
            last_fit(w.min_y, w.max_y, size),
        ) else {
            return Err(SimError::BadConfig(
                "particles must fit in the world (after f32 rounding)",
            ));
        };
        let speed_limit = 4.0 * w.width().max(w.height());
        if !speed_limit.is_finite() {
            return Err(SimError::BadConfig(
                "the world is too large: its speed limit (4 world sizes per second) overflows f32",
            ));
        }
        Ok(Simulation {
            config,
            particles: Vec::new(),
            ids: Vec::new(),
            tree,
            contacts: Vec::new(),
            rects: Vec::new(),
            stack_order: Vec::new(),
            stack_rows: Vec::new(),
            row_starts: Vec::new(),
            wall_x,
            wall_y,
            speed_limit: speed_limit.min(SPEED_CAP),
            anchors: Vec::new(),
            drift: AtomicU64::new(0f64.to_bits()),
            counts: StepCounts::default(),
            rng: StdRng::seed_from_u64(config.seed),
        })
    }

    /// The settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The particles, by index.
    pub fn particles(&self) -> &[Particle] {
        &self.particles
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.particles.len()
    }

    /// Whether there are no particles.
    pub fn is_empty(&self) -> bool {
        self.particles.is_empty()
    }

    /// The tree holding the particles (payload: particle index). In brute-force mode it is
    /// still kept up to date, so the demo can draw it.
    pub fn tree(&self) -> &Quadtree<u32> {
        &self.tree
    }

    /// Contacts found by the last broad phase, as particle index pairs `(a, b)` with `a < b`.
    pub fn contacts(&self) -> &[(u32, u32)] {
        &self.contacts
    }

    /// Counts from the last broad phase.
    pub fn counts(&self) -> StepCounts {
        self.counts
    }

    /// The current broad phase.
    pub fn broadphase(&self) -> Broadphase {
        self.config.broadphase
    }

    /// Switches the broad phase; takes effect at the next step.
    pub fn set_broadphase(&mut self, mode: Broadphase) {
        self.config.broadphase = mode;
    }

    /// Turns gravity on or off.
    pub fn set_gravity(&mut self, on: bool) {
        self.config.gravity_on = on;
    }

    /// Rebuilds the tree with new capacity and depth; every particle stays.
    ///
    /// # Errors
    /// The tree's config errors; nothing changes then.
    pub fn set_tree_config(&mut self, tree: Config) -> Result<(), SimError> {
        self.tree.set_config(tree)?;
        self.config.tree = tree;
        Ok(())
    }

    /// Removes every particle.
    pub fn clear(&mut self) {
        self.particles.clear();
        self.ids.clear();
        self.anchors.clear();
        self.set_drift(0.0);
        self.tree.clear();
        self.contacts.clear();
        self.rects.clear();
        self.counts = StepCounts::default();
    }

    fn add(&mut self, x: f32, y: f32, vx: f32, vy: f32) -> Result<(), SimError> {
        let s = self.config.particle_size;
        let w = self.config.world;
        let x = x.clamp(w.min_x, self.wall_x);
        let y = y.clamp(w.min_y, self.wall_y);
        let limit = self.speed_limit;
        let (vx, vy) = (vx.clamp(-limit, limit), vy.clamp(-limit, limit));
        let color = PALETTE[self.rng.random_range(0..PALETTE.len())];
        let index = self.particles.len() as u32;
        let id = self.tree.insert(Rect::new(x, y, x + s, y + s), index)?;
        self.particles.push(Particle {
            x,
            y,
            vx,
            vy,
            color,
        });
        self.ids.push(id);
        self.anchors.push((x, y));
        Ok(())
    }

    /// Room left under the cap, and the error to return if `n` does not fit.
    fn room_for(&self, n: usize) -> (usize, Option<SimError>) {
        let room = self
            .config
            .max_particles
            .saturating_sub(self.particles.len());
        if n <= room {
            (n, None)
        } else {
            let err = SimError::CapReached {
                cap: self.config.max_particles,
                spawned: room,
                refused: n - room,
            };
            (room, Some(err))
        }
    }

    /// Adds `n` particles at random positions in the world with small random velocities.
    /// Returns how many were added.
    ///
    /// # Errors
    /// [`SimError::CapReached`] if the cap cuts the burst short; the particles that fit were
    /// added.
    ///
    /// ```
    /// use quadstress::sim::{SimConfig, SimError, Simulation};
    /// let mut sim = Simulation::new(SimConfig { max_particles: 10, ..SimConfig::default() }).unwrap();
    /// assert_eq!(sim.spawn_burst(8), Ok(8));
    /// assert_eq!(sim.spawn_burst(5), Err(SimError::CapReached { cap: 10, spawned: 2, refused: 3 }));
    /// assert_eq!(sim.len(), 10);
    /// ```
    pub fn spawn_burst(&mut self, n: usize) -> Result<usize, SimError> {
        let (fits, err) = self.room_for(n);
        let w = self.config.world;
        // Room for what is spawned, never for the whole request up front: with a high cap,
        // a huge request grows the buffers as particles arrive.
        let ahead = fits.min(1 << 16);
        self.particles.reserve(ahead);
        self.ids.reserve(ahead);
        self.anchors.reserve(ahead);
        for _ in 0..fits {
            let x = self.rng.random_range(w.min_x..=self.wall_x);
            let y = self.rng.random_range(w.min_y..=self.wall_y);
            let vx = self.rng.random_range(-60.0..=60.0);
            let vy = self.rng.random_range(-60.0..=60.0);
            self.add(x, y, vx, vy)?;
        }
        err.map_or(Ok(fits), Err)
    }

    /// Adds `n` particles around the point `(x, y)` (clamped into the world), within `spread`
    /// of it, flying out at up to `speed`: a stream from the mouse. A spread wider than the
    /// world counts as the world's width or height, whichever is larger, and a speed above
    /// the speed limit as the limit; particles land clamped into the world.
    ///
    /// # Errors
    /// [`SimError::NonFinite`] for a bad point, spread or speed (nothing added);
    /// [`SimError::CapReached`] as for [`spawn_burst`](Self::spawn_burst).
    ///
    /// ```
    /// use quadstress::sim::{SimConfig, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// assert_eq!(sim.spawn_stream(100.0, 100.0, 10, 5.0, 50.0), Ok(10));
    /// assert!(sim.particles().iter().all(|p| (p.x - 100.0).abs() <= 5.0));
    /// assert!(sim.spawn_stream(f32::NAN, 0.0, 1, 5.0, 50.0).is_err());
    /// ```
    pub fn spawn_stream(
        &mut self,
        x: f32,
        y: f32,
        n: usize,
        spread: f32,
        speed: f32,
    ) -> Result<usize, SimError> {
        if ![x, y, spread, speed].iter().all(|v| v.is_finite()) {
            return Err(SimError::NonFinite);
        }
        let w = self.config.world;
        let (x, y) = (x.clamp(w.min_x, self.wall_x), y.clamp(w.min_y, self.wall_y));
        let spread = spread.abs().min(w.width().max(w.height()));
        let speed = speed.abs().min(self.speed_limit);
        let (fits, err) = self.room_for(n);
        for _ in 0..fits {
            let px = x + self.rng.random_range(-spread..=spread);
            let py = y + self.rng.random_range(-spread..=spread);
            let vx = self.rng.random_range(-speed..=speed);
            let vy = self.rng.random_range(-speed..=speed);
            self.add(px, py, vx, vy)?;
        }
        err.map_or(Ok(fits), Err)
    }

    /// Advances by `dt` seconds: [`integrate`](Self::integrate),
    /// [`find_contacts`](Self::find_contacts), [`resolve`](Self::resolve).
    ///
    /// # Errors
    /// [`SimError::BadTimeStep`] for a negative or non-finite `dt`; nothing moves then.
    ///
    /// ```
    /// use quadstress::sim::{SimConfig, SimError, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.spawn_burst(100).unwrap();
    /// assert!(sim.step(1.0 / 60.0).is_ok());
    /// assert!(matches!(sim.step(f32::NAN), Err(SimError::BadTimeStep(_))));
    /// ```
    pub fn step(&mut self, dt: f32) -> Result<(), SimError> {
        self.integrate(dt)?;
        self.find_contacts();
        self.resolve();
        Ok(())
    }

    /// Phase 1: gravity, motion, and the walls.
    ///
    /// # Errors
    /// [`SimError::BadTimeStep`] for a negative or non-finite `dt`; nothing moves then.
    pub fn integrate(&mut self, dt: f32) -> Result<(), SimError> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(SimError::BadTimeStep(dt));
        }
        // A speed limit keeps velocities finite whatever `dt` and gravity are; it is far
        // above anything gravity reaches inside the world within a second.
        let limit = self.speed_limit;
        let g = if self.config.gravity_on {
            (self.config.gravity * dt).clamp(-limit, limit)
        } else {
            0.0
        };
        for p in &mut self.particles {
            p.vy += g;
            p.vx = p.vx.clamp(-limit, limit);
            p.vy = p.vy.clamp(-limit, limit);
            p.x += p.vx * dt;
            p.y += p.vy * dt;
        }
        self.keep_inside();
        self.set_drift(f64::NAN);
        Ok(())
    }

    /// Puts every particle back inside the walls, reflecting its velocity if it was moving out.
    fn keep_inside(&mut self) {
        let w = self.config.world;
        let e = self.config.restitution;
        let (wall_x, wall_y) = (self.wall_x, self.wall_y);
        for p in &mut self.particles {
            bounce(&mut p.x, &mut p.vx, w.min_x, wall_x, e);
            bounce(&mut p.y, &mut p.vy, w.min_y, wall_y, e);
        }
    }

    fn set_drift(&self, drift: f64) {
        self.drift.store(drift.to_bits(), Ordering::Relaxed);
    }

    /// The most any particle has moved along an axis since the tree last saw it: one scan of
    /// the particles after each step, on the first call that needs it.
    fn drift(&self) -> f64 {
        let known = f64::from_bits(self.drift.load(Ordering::Relaxed));
        if !known.is_nan() {
            return known;
        }
        let mut drift = 0f32;
        for (p, &(ax, ay)) in self.particles.iter().zip(&self.anchors) {
            let moved = (p.x - ax).abs();
            drift = if moved > drift { moved } else { drift };
            let moved = (p.y - ay).abs();
            drift = if moved > drift { moved } else { drift };
        }
        // The differences were rounded to f32: allow for that.
        let drift = drift as f64 * (1.0 + 1e-6);
        self.set_drift(drift);
        drift
    }

    /// Phase 2: [`update_tree`](Self::update_tree) then [`find_pairs`](Self::find_pairs).
    /// The contact list is the same set in every broad-phase mode.
    pub fn find_contacts(&mut self) {
        self.update_tree();
        self.find_pairs();
    }

    /// Phase 2a: brings the tree up to date with the particles' positions: one `update` per
    /// particle (incremental and brute-force modes), or clear and bulk insert (rebuild mode).
    pub fn update_tree(&mut self) {
        let s = self.config.particle_size;
        match self.config.broadphase {
            Broadphase::Rebuild => {
                self.tree.clear();
                self.ids.clear();
                let items = self
                    .particles
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.rect(s), i as u32));
                // Particles are kept finite and inside the world, so this cannot fail.
                self.tree
                    .insert_many(items, &mut self.ids)
                    .expect("particles are always finite");
                for (a, p) in self.anchors.iter_mut().zip(&self.particles) {
                    *a = (p.x, p.y);
                }
            }
            Broadphase::Incremental | Broadphase::BruteForce => {
                for ((p, id), a) in self.particles.iter().zip(&self.ids).zip(&mut self.anchors) {
                    self.tree
                        .update(*id, p.rect(s))
                        .expect("particle handles stay valid and positions finite");
                    *a = (p.x, p.y);
                }
            }
        }
        self.set_drift(0.0);
    }

    /// Phase 2b: collects the contacts with the current broad phase, from the tree as the last
    /// [`update_tree`](Self::update_tree) left it (or from the particles, in brute force).
    pub fn find_pairs(&mut self) {
        self.contacts.clear();
        let s = self.config.particle_size;
        let contacts = &mut self.contacts;
        let tests = match self.config.broadphase {
            Broadphase::Incremental | Broadphase::Rebuild => {
                let (_, tests) = self.tree.for_each_pair_counting(|a, b| {
                    contacts.push((*a.value.min(b.value), *a.value.max(b.value)));
                    ControlFlow::Continue(())
                });
                tests
            }
            Broadphase::BruteForce => {
                self.rects.clear();
                self.rects.extend(self.particles.iter().map(|p| p.rect(s)));
                brute_force_pairs(&self.rects, |i, j| contacts.push((i, j)));
                let n = self.rects.len() as u64;
                n * n.saturating_sub(1) / 2
            }
        };
        self.counts = StepCounts {
            contacts: self.contacts.len(),
            pairs_tested: tests,
        };
    }

    /// Phase 3: for each contact, an impulse along the contact normal (the axis of least
    /// overlap) if the pair is closing, and a positional correction that pushes the squares
    /// apart so stacks do not sink into each other. Then the walls again.
    pub fn resolve(&mut self) {
        let s = self.config.particle_size;
        let e = self.config.restitution;
        // Fix most of the overlap each step, but leave a sliver so resting stacks keep their
        // contacts instead of jittering in and out of touch.
        const CORRECTION: f32 = 0.8;
        let slop = 0.01 * s;
        for _ in 0..self.config.solver_iterations {
            self.solve_pass(s, e, CORRECTION, slop);
        }
        if self.config.gravity_on && self.config.gravity > 0.0 {
            self.shock_pass(s, slop);
        }
        self.keep_inside();
        self.set_drift(f64::NAN);
    }

    /// Shock propagation: one pass over the vertical contacts from the floor up, treating the
    /// lower particle of each as immovable. A correction then travels through a whole stack in
    /// one step instead of one particle per pass, so piles hold their height under gravity.
    fn shock_pass(&mut self, s: f32, slop: f32) {
        // The contacts in order of the row (one particle high) of their lower particle,
        // floor first. Rows count from the floor and the sort only spans the rows that hold
        // contacts: a counting sort over them when they are few, O(contacts), where a
        // comparison sort took most of the step; a comparison sort when contacts are spread
        // over many more rows than there are contacts (never a table sized by the world).
        let floor = self.config.world.max_y;
        let particles = &self.particles;
        let row_of = |&(a, b): &(u32, u32)| {
            let (p, q) = (&particles[a as usize], &particles[b as usize]);
            ((floor - p.y.max(q.y)) / s).max(0.0) as u64
        };
        // (row, contact) in contact order, and the range of rows.
        let (mut first, mut last) = (u64::MAX, 0);
        self.stack_rows.clear();
        for (k, c) in self.contacts.iter().enumerate() {
            let r = row_of(c);
            first = first.min(r);
            last = last.max(r);
            self.stack_rows.push((r, k as u32));
        }
        self.stack_order.clear();
        let n = self.stack_rows.len();
        if n == 0 {
            return;
        }
        if last - first < 2 * n as u64 + 64 {
            let rows = (last - first + 1) as usize;
            self.row_starts.clear();
            self.row_starts.resize(rows + 1, 0);
            for &(r, _) in &self.stack_rows {
                self.row_starts[(r - first) as usize + 1] += 1;
            }
            for r in 0..rows {
                self.row_starts[r + 1] += self.row_starts[r];
            }
            self.stack_order.resize(n, (0, 0));
            for &(r, k) in &self.stack_rows {
                let at = &mut self.row_starts[(r - first) as usize];
                self.stack_order[*at as usize] = (r, k);
                *at += 1;
            }
        } else {
            std::mem::swap(&mut self.stack_order, &mut self.stack_rows);
            // Keys are unique, so this is the order the counting sort gives.
            self.stack_order.sort_unstable();
        }
        for &(_, k) in &self.stack_order {
            let (a, b) = self.contacts[k as usize];
            let (pa, pb) = (self.particles[a as usize], self.particles[b as usize]);
            let (hi, mut upper, lower) = if pa.y >= pb.y {
                (b, pb, pa)
            } else {
                (a, pa, pb)
            };
            let (ox, oy) = (s - (upper.x - lower.x).abs(), s - (lower.y - upper.y));
            if ox <= 0.0 || oy <= 0.0 || ox < oy {
                continue; // apart now, or a side contact: the regular passes handled it
            }
            upper.y -= (oy - slop).max(0.0);
            upper.vy = upper.vy.min(lower.vy);
            self.particles[hi as usize] = upper;
        }
    }

    fn solve_pass(&mut self, s: f32, e: f32, correction: f32, slop: f32) {
        for &(a, b) in &self.contacts {
            let (pa, pb) = (self.particles[a as usize], self.particles[b as usize]);
            let (dx, dy) = (pb.x - pa.x, pb.y - pa.y);
            let (ox, oy) = (s - dx.abs(), s - dy.abs());
            if ox < 0.0 || oy < 0.0 {
                continue; // moved apart while resolving earlier contacts
            }
            // Normal from a to b along the axis of least penetration; coincident squares are
            // separated along x, by index order, so the result is deterministic.
            let (nx, ny, depth) = if ox < oy {
                (if dx < 0.0 { -1.0 } else { 1.0 }, 0.0, ox)
            } else {
                (0.0, if dy < 0.0 { -1.0 } else { 1.0 }, oy)
            };
            let closing = (pb.vx - pa.vx) * nx + (pb.vy - pa.vy) * ny;
            let (mut ua, mut ub) = (pa, pb);
            if closing < 0.0 {
                // Equal masses: each takes half of the impulse (1 + e) * closing.
                let j = -(1.0 + e) * closing * 0.5;
                ua.vx -= j * nx;
                ua.vy -= j * ny;
                ub.vx += j * nx;
                ub.vy += j * ny;
            }
            let push = (depth - slop).max(0.0) * correction * 0.5;
            ua.x -= push * nx;
            ua.y -= push * ny;
            ub.x += push * nx;
            ub.y += push * ny;
            self.particles[a as usize] = ua;
            self.particles[b as usize] = ub;
        }
    }

    /// Total kinetic energy, with unit mass per particle.
    ///
    /// ```
    /// use quadstress::sim::{SimConfig, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.spawn_stream(100.0, 100.0, 1, 0.0, 0.0).unwrap();
    /// assert_eq!(sim.kinetic_energy(), 0.0);
    /// ```
    pub fn kinetic_energy(&self) -> f64 {
        self.particles
            .iter()
            .map(|p| 0.5 * (p.vx as f64 * p.vx as f64 + p.vy as f64 * p.vy as f64))
            .sum()
    }

    /// Indices of the particles touching `rect` (closed) where they are now, found through the
    /// tree, appended to `out`; returns how many. Between a step's tree update and its end
    /// the particles move a little (contacts push them apart): the tree is asked about `rect`
    /// grown by the most any particle moved since, and each answer is checked against the
    /// particle's current square, so the answer is always that of
    /// [`touching_brute_force`](Self::touching_brute_force). The first call after a step
    /// measures that drift with one pass over the particles.
    ///
    /// # Errors
    /// The tree's errors for a bad rectangle.
    ///
    /// ```
    /// use quadstress::{sim::{SimConfig, Simulation}, Rect};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.spawn_stream(100.0, 100.0, 1, 0.0, 0.0).unwrap();
    /// let mut out = Vec::new();
    /// assert_eq!(sim.touching(&Rect::new(108.0, 0.0, 200.0, 200.0), &mut out), Ok(1));
    /// assert_eq!(out, vec![0]);
    /// ```
    pub fn touching(&self, rect: &Rect, out: &mut Vec<u32>) -> Result<usize, SimError> {
        rect.check()?;
        let before = out.len();
        let d = self.drift();
        let grown = Rect::new(
            f32_at_or_below(rect.min_x as f64 - d),
            f32_at_or_below(rect.min_y as f64 - d),
            f32_at_or_above(rect.max_x as f64 + d),
            f32_at_or_above(rect.max_y as f64 + d),
        );
        let s = self.config.particle_size;
        let particles = &self.particles;
        let _ = self.tree.for_each_in_rect(&grown, |item| {
            let i = *item.value;
            if particles[i as usize].rect(s).intersects(rect) {
                out.push(i);
            }
            ControlFlow::Continue(())
        })?;
        Ok(out.len() - before)
    }

    /// The same count as [`touching`](Self::touching), by scanning every particle: the
    /// cross-check for the demo's report.
    ///
    /// ```
    /// use quadstress::{sim::{SimConfig, Simulation}, Rect};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.spawn_burst(500).unwrap();
    /// let q = Rect::new(0.0, 0.0, 700.0, 700.0);
    /// let mut out = Vec::new();
    /// assert_eq!(sim.touching(&q, &mut out).unwrap(), sim.touching_brute_force(&q));
    /// ```
    pub fn touching_brute_force(&self, rect: &Rect) -> usize {
        let s = self.config.particle_size;
        self.particles
            .iter()
            .filter(|p| p.rect(s).intersects(rect))
            .count()
    }
}
