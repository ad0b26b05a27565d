//! Particle physics on the quadtree: square particles that fall, stack, pack and come to
//! rest, with the same bits on any number of threads.
//!
//! The simulation runs with or without a window: it never reads a clock. A step is one
//! sequence of named phases ([`Phase::ALL`]): reorder (now and then), integrate (the first
//! substep's motion), update the tree ([`Simulation::update_tree`]), find the pairs, and
//! resolve (the contacts, in substeps, and sleep). [`Simulation::step`] runs them;
//! [`Simulation::step_timed`] runs the same sequence and times each phase with whatever
//! clock the caller has (macroquad's in the demo, `std::time::Instant` in the headless
//! mode).
//!
//! A window drives the simulation in fixed steps of real time with [`FixedStep`]; the phases
//! run on a pool of worker threads ([`Simulation::set_threads`]) and give the same bits on
//! any number of them ([`Simulation::state_hash`] says so in one number).
//!
//! This file holds [`Simulation`] and its state; the rest has a file each: `config`
//! ([`SimConfig`], [`Broadphase`], [`SimError`] and the checks of a setting), `driver`
//! ([`FixedStep`]), `spawn` (bursts and streams), `broad` (the tree, the contacts and
//! `touching`), `solver` (motion, walls, contacts, sleep; the design of the physics is in
//! its documentation, its parts a file each), `layout` (the
//! reordering), `parallel` (the worker threads and the stripe views), `metrics` (what a
//! report measures), `pile` (the pile's height profile), `timing` (phase times).
//!
//! # Unsafe code
//! None: the crate forbids it. The parallel passes write through `&mut` slices cut with
//! `split_at_mut` (each stripe's particles are one range of indices, see the solver), and
//! every index is checked.
//!
//! ```
//! use quadstress_sim::{SimConfig, Simulation, STEP_SECONDS};
//! let mut sim = Simulation::new(SimConfig { seed: 7, ..SimConfig::default() }).unwrap();
//! sim.spawn_burst(1000).unwrap();
//! for _ in 0..60 {
//!     sim.step(STEP_SECONDS).unwrap();
//! }
//! assert_eq!(sim.len(), 1000);
//! let w = sim.config().world;
//! assert!(sim.particles().iter().all(|p| w.contains_rect(&p.rect(sim.config().particle_size))));
//! ```

#![forbid(unsafe_code)]

use rand::rngs::StdRng;
use rand::SeedableRng;

use quadstress::{Config, Quadtree, Rect};

mod broad;
mod config;
mod driver;
mod layout;
mod metrics;
mod parallel;
mod percentiles;
mod pile;
mod solver;
mod spawn;
mod timing;

pub use broad::MARGIN;
pub use config::{Broadphase, Setting, SimConfig, SimError, MAX_PARTICLES};
pub use driver::{FixedStep, DEFAULT_MAX_STEPS_PER_FRAME, STEP_SECONDS};
pub use metrics::{overlap_of, pile_packing, Overlap};
pub use parallel::{default_threads, MAX_THREADS};
#[doc(hidden)]
pub use percentiles::Percentiles;
pub use pile::{ColumnSteps, HeightProfile, COLUMN_COVER, MAX_PROFILE_COLUMNS, SUPPORT_GAP};
pub use solver::{SLEEP_SPEED, SLEEP_STEPS, WAKE_SPEED};
#[doc(hidden)]
pub use timing::percentile;
pub use timing::PhaseTimes;

use broad::BroadPhase;
use layout::Layout;
use parallel::Workers;
use solver::{SolverBuffers, StripeGrid};

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
}

impl Particle {
    /// The particle's square.
    ///
    /// ```
    /// let p = quadstress_sim::Particle { x: 1.0, y: 2.0, vx: 0.0, vy: 0.0 };
    /// assert_eq!(p.rect(8.0), quadstress::Rect::new(1.0, 2.0, 9.0, 10.0));
    /// ```
    pub fn rect(&self, size: f32) -> Rect {
        Rect::new(self.x, self.y, self.x + size, self.y + size)
    }
}

/// The phases of a step, in the order [`Simulation::step`] runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Every few dozen steps (sooner when many particles were spawned since), the particles
    /// are put in stripe order (the solver's stripes, each floor first) so that neighbours
    /// sit close in memory and each stripe is one range of indices, and the tree is rebuilt
    /// in that order.
    Reorder,
    /// Gravity, motion and the walls of the step's first substep.
    Integrate,
    /// The tree brought up to date with the particles ([`Simulation::update_tree`]).
    UpdateTree,
    /// The contacts found: pairs of the particles' swept boxes.
    FindPairs,
    /// The contacts resolved, in substeps, and the particles at rest put to sleep.
    Resolve,
}

impl Phase {
    /// Every phase, in step order.
    pub const ALL: [Phase; 5] = [
        Phase::Reorder,
        Phase::Integrate,
        Phase::UpdateTree,
        Phase::FindPairs,
        Phase::Resolve,
    ];

    /// The name reports use.
    ///
    /// ```
    /// assert_eq!(quadstress_sim::Phase::FindPairs.name(), "pair_search");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Phase::Reorder => "reorder",
            Phase::Integrate => "integrate",
            Phase::UpdateTree => "tree_update",
            Phase::FindPairs => "pair_search",
            Phase::Resolve => "resolution",
        }
    }
}

/// Counts from the last step, for a HUD or a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCounts {
    /// Contacts found by the broad phase (pairs of touching squares).
    pub contacts: usize,
    /// Pairs of squares the broad phase tested; brute force tests `n * (n - 1) / 2`. Where
    /// it asks the tree about each awake particle, the squares the tree's walks returned.
    pub pairs_tested: u64,
}

/// The particle system. See the [module documentation](self).
///
/// # Runtime
/// A step is O(n) for integration and resolution, plus the broad phase: for the default
/// incremental quadtree, an update of each awake particle (O(1) unless it changes node) and
/// the tree's pair search, or, while at most a quarter of the particles is awake, one query of
/// the tree per awake particle: a pile at rest costs little more than its per-particle passes.
/// Nothing is allocated per step once buffers have grown.
#[derive(Debug)]
pub struct Simulation {
    config: SimConfig,
    particles: Vec<Particle>,
    /// The tree, the contacts and what the broad phase keeps between steps.
    broad: BroadPhase,
    /// The reordering's buffers and its count of steps.
    layout: Layout,
    /// How the world is cut into stripes, and the contact solver's buffers.
    stripes: StripeGrid,
    buffers: SolverBuffers,
    /// Largest left and top edge a particle may have: its square then ends inside the walls
    /// even after `x + size` is rounded.
    wall_x: f32,
    wall_y: f32,
    /// Largest speed along each axis, in units per second.
    speed_limit: f32,
    workers: Workers,
    rng: StdRng,
}

impl Simulation {
    /// An empty simulation, on `config.threads` worker threads (every core by default).
    ///
    /// # Errors
    /// The whole configuration is checked here, so that no later call can fail on it: the
    /// errors of [`SimConfig::check`].
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, Simulation};
    /// assert!(Simulation::new(SimConfig::default()).is_ok());
    /// let bad = SimConfig { particle_size: -1.0, ..SimConfig::default() };
    /// assert!(Simulation::new(bad).is_err());
    /// ```
    pub fn new(config: SimConfig) -> Result<Self, SimError> {
        let derived = config.derive()?;
        Ok(Simulation {
            config,
            particles: Vec::new(),
            broad: BroadPhase::new(derived.tree),
            layout: Layout::default(),
            stripes: StripeGrid::new(
                config.world.min_x,
                config.world.width(),
                config.particle_size,
            ),
            buffers: SolverBuffers::default(),
            wall_x: derived.wall_x,
            wall_y: derived.wall_y,
            speed_limit: derived.speed_limit,
            workers: Workers::new(config.threads.unwrap_or_else(default_threads))?,
            rng: StdRng::seed_from_u64(config.seed),
        })
    }

    /// The number of worker threads the phases run on.
    pub fn threads(&self) -> usize {
        self.workers.threads()
    }

    /// Runs the phases on `threads` worker threads from the next step on (1: on the caller's
    /// thread). Every thread count gives the same particles, bit for bit; on wasm32 the work
    /// runs on the caller's thread whatever the count.
    ///
    /// # Errors
    /// [`SimError::BadSetting`] for a count outside `1..=`[`MAX_THREADS`]; nothing changes
    /// then.
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.set_threads(2).unwrap();
    /// assert_eq!(sim.threads(), 2);
    /// assert!(sim.set_threads(0).is_err());
    /// ```
    pub fn set_threads(&mut self, threads: usize) -> Result<(), SimError> {
        if threads != self.workers.threads() {
            self.workers = Workers::new(threads)?;
        }
        self.config.threads = Some(threads);
        Ok(())
    }

    /// The settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The particles, by index. Every few dozen steps the simulation reorders them so that
    /// neighbours sit close in memory: an index names the same particle from the start of one
    /// step's integration to the next, and the tree, [`contacts`](Self::contacts)
    /// and [`touching`](Self::touching) always use the current indices.
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
        &self.broad.tree
    }

    /// Contacts found by the last broad phase, as particle index pairs `(a, b)` with `a < b`.
    /// A pair of particles that both slept in that step is left out (see
    /// [`asleep`](Self::asleep)): nothing in the step moves them.
    pub fn contacts(&self) -> &[(u32, u32)] {
        &self.broad.contacts
    }

    /// Whether each particle slept when the last broad phase ran, by index (empty before the
    /// first step).
    pub fn asleep(&self) -> &[bool] {
        &self.broad.asleep
    }

    /// How many particles are asleep (see the solver's design notes in the crate's
    /// documentation): they rest, with zero velocity, until something wakes them.
    pub fn sleeping(&self) -> usize {
        self.buffers.sleeping()
    }

    /// Counts from the last broad phase.
    pub fn counts(&self) -> StepCounts {
        self.broad.counts
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

    /// Rebuilds the tree with new leaf capacity and depth; every particle stays.
    ///
    /// # Errors
    /// The tree's config errors; nothing changes then.
    pub fn set_tree_config(&mut self, tree: Config) -> Result<(), SimError> {
        self.broad.tree.set_config(tree)?;
        self.config.tree = tree;
        Ok(())
    }

    /// Removes every particle.
    pub fn clear(&mut self) {
        self.particles.clear();
        self.buffers.clear();
        self.broad.clear();
    }

    /// Advances by `dt` seconds: every phase of [`Phase::ALL`] in order. The demo and the
    /// headless mode pass [`STEP_SECONDS`]; any finite, non-negative `dt` is accepted.
    ///
    /// # Errors
    /// [`SimError::BadTimeStep`] for a negative or non-finite `dt`; nothing moves then.
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, SimError, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.spawn_burst(100).unwrap();
    /// assert!(sim.step(1.0 / 60.0).is_ok());
    /// assert!(matches!(sim.step(f32::NAN), Err(SimError::BadTimeStep(_))));
    /// ```
    pub fn step(&mut self, dt: f32) -> Result<(), SimError> {
        self.run_phases(dt, || 0.0).map(|_| ())
    }

    /// The one sequence of phases behind [`step`](Self::step) and
    /// [`step_timed`](Self::step_timed): `clock` is read before the first phase and after
    /// each.
    fn run_phases(
        &mut self,
        dt: f32,
        clock: impl FnMut() -> f64 + Send,
    ) -> Result<PhaseTimes, SimError> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(SimError::BadTimeStep(dt));
        }
        // The whole step runs on one of the pool's threads: the serial work between parallel
        // loops then stays on a worker, and each loop hands work to the other threads
        // directly instead of waking them from the caller's thread and waiting to be woken.
        let workers = self.workers.clone();
        workers.run(|| self.run_phases_in_place(dt, clock))
    }

    /// [`run_phases`](Self::run_phases) on the current thread.
    fn run_phases_in_place(
        &mut self,
        dt: f32,
        mut clock: impl FnMut() -> f64,
    ) -> Result<PhaseTimes, SimError> {
        let mut ms = [0.0; Phase::ALL.len()];
        let start = clock();
        let mut last = start;
        for (k, phase) in Phase::ALL.into_iter().enumerate() {
            match phase {
                Phase::Reorder => self.reorder_if_due(),
                Phase::Integrate => self.integrate(dt)?,
                Phase::UpdateTree => self.update_tree(),
                Phase::FindPairs => self.find_pairs(),
                Phase::Resolve => self.resolve(),
            }
            let now = clock();
            ms[k] = (now - last) * 1e3;
            last = now;
        }
        Ok(PhaseTimes::from_phases(ms, (last - start) * 1e3))
    }
}
