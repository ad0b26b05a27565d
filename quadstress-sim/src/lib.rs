//! Particle physics on the quadtree: square particles that fall, bounce off the walls and
//! collide with each other, found through the tree's moving-object updates and pair search.
//!
//! The simulation runs with or without a window: it never reads a clock. A step is one
//! sequence of named phases ([`Phase::ALL`]): [`reorder`](Simulation::reorder_if_due) (now
//! and then), [`integrate`](Simulation::integrate), [`update_tree`](Simulation::update_tree),
//! [`find_pairs`](Simulation::find_pairs) and [`resolve`](Simulation::resolve).
//! [`Simulation::step`] runs them; [`Simulation::step_timed`] runs the same sequence and times
//! each phase with whatever clock the caller has (macroquad's in the demo,
//! `std::time::Instant` in the headless mode).
//!
//! A window drives the simulation in fixed steps of real time with [`FixedStep`]; the phases
//! run on a pool of worker threads ([`Simulation::set_threads`]) and give the same bits on
//! any number of them ([`Simulation::state_hash`] says so in one number).
//!
//! This file holds [`Simulation`], its state and the broad phase; the rest has a file each:
//! `config` ([`SimConfig`], [`Broadphase`], [`SimError`] and the checks of a setting),
//! `driver` ([`FixedStep`]), `spawn` (bursts and streams), `solver` (motion, walls,
//! contacts), `layout` (the reordering), `parallel` (the worker threads), `metrics` (what a
//! report measures), `pile` (the pile's height profile), `timing` (phase times).
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

use std::sync::atomic::{AtomicU64, Ordering};

use rand::rngs::StdRng;
use rand::SeedableRng;

use quadstress::{Config, ItemId, PairWorkspace, Quadtree, Rect, UpdateWorkspace};

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

pub use config::{Broadphase, Setting, SimConfig, SimError, MAX_PARTICLES};
pub use driver::{FixedStep, DEFAULT_MAX_STEPS_PER_FRAME, STEP_SECONDS};
pub use metrics::{overlap_of, pile_packing, Overlap};
pub use parallel::{default_threads, MAX_THREADS};
#[doc(hidden)]
pub use percentiles::Percentiles;
pub use pile::{ColumnSteps, HeightProfile, MAX_PROFILE_COLUMNS, SUPPORT_GAP};
#[doc(hidden)]
pub use timing::percentile;
pub use timing::PhaseTimes;

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
    /// Every few dozen steps, the particles are put in stripe order (the solver's stripes,
    /// each floor first) so that neighbours sit close in memory, and the tree is rebuilt in
    /// that order ([`Simulation::reorder_if_due`]).
    Reorder,
    /// Gravity, motion and the walls ([`Simulation::integrate`]).
    Integrate,
    /// The tree brought up to date with the particles ([`Simulation::update_tree`]).
    UpdateTree,
    /// The contacts found ([`Simulation::find_pairs`]).
    FindPairs,
    /// The contacts resolved ([`Simulation::resolve`]).
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
    /// Pairs of squares the broad phase tested; brute force tests `n * (n - 1) / 2`.
    pub pairs_tested: u64,
}

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
    /// The broad phase's reusable buffers.
    pair_buffers: PairWorkspace<(u32, u32)>,
    moves: UpdateWorkspace,
    /// How the world is cut into stripes, and the contact solver's buffers.
    stripes: StripeGrid,
    buffers: SolverBuffers,
    /// The time step of the last `integrate`.
    last_dt: f32,
    /// Largest left and top edge a particle may have: its square then ends inside the walls
    /// even after `x + size` is rounded.
    wall_x: f32,
    wall_y: f32,
    /// Largest speed along each axis, in units per second.
    speed_limit: f32,
    /// The most any particle has moved along an axis since the tree last saw it (as `f64`
    /// bits; NaN until `drift` measures it against `seen`): lets `touching` ask the tree and
    /// still answer for the particles' positions now. Measured on demand, so that steps do
    /// not pay for the pass.
    drift: AtomicU64,
    /// Each particle's top-left corner as the tree last saw it (the tree's rectangle's
    /// minimum), kept by index: `drift` then reads two arrays in order instead of looking up
    /// every particle's rectangle in the tree.
    seen: Vec<[f32; 2]>,
    /// Reused buffers of the reordering (see `layout`): (stripe and row key, old index)
    /// sorted, the particles in their new order, and each old index's new one.
    order_keys: Vec<(u64, u32)>,
    reordered: Vec<Particle>,
    new_index: Vec<u32>,
    row_sort: layout::RowSort,
    steps_since_reorder: u32,
    counts: StepCounts,
    workers: Workers,
    rng: StdRng,
}

impl Simulation {
    /// An empty simulation, on [`default_threads`] worker threads.
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
            ids: Vec::new(),
            tree: derived.tree,
            contacts: Vec::new(),
            rects: Vec::new(),
            pair_buffers: PairWorkspace::new(),
            moves: UpdateWorkspace::new(),
            stripes: StripeGrid::new(
                config.world.min_x,
                config.world.width(),
                config.particle_size,
            ),
            buffers: SolverBuffers::default(),
            last_dt: 0.0,
            wall_x: derived.wall_x,
            wall_y: derived.wall_y,
            speed_limit: derived.speed_limit,
            drift: AtomicU64::new(0f64.to_bits()),
            seen: Vec::new(),
            order_keys: Vec::new(),
            reordered: Vec::new(),
            new_index: Vec::new(),
            row_sort: layout::RowSort::default(),
            steps_since_reorder: 0,
            counts: StepCounts::default(),
            workers: Workers::new(default_threads())?,
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
        Ok(())
    }

    /// The settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The particles, by index. Every few dozen steps the simulation reorders them so that
    /// neighbours sit close in memory: an index names the same particle from the start of one
    /// step's [`integrate`](Self::integrate) to the next, and the tree, [`contacts`](Self::contacts)
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

    /// Rebuilds the tree with new leaf capacity and depth; every particle stays.
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
        self.seen.clear();
        self.buffers.clear();
        self.set_drift(0.0);
        self.tree.clear();
        self.contacts.clear();
        self.rects.clear();
        self.counts = StepCounts::default();
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

    fn set_drift(&self, drift: f64) {
        self.drift.store(drift.to_bits(), Ordering::Relaxed);
    }

    /// The most any particle has moved along an axis since the tree last saw it, in world
    /// units: each particle's square is its square in the tree moved by at most this along x
    /// and along y, so a query of the tree grown by it finds every particle that touches the
    /// query where it is now (see [`touching`](Self::touching)). One scan of the particles
    /// after each step, on the first call that needs it; 0 right after a tree update.
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.spawn_burst(500).unwrap();
    /// sim.step(1.0 / 60.0).unwrap();
    /// let d = sim.drift();
    /// assert!(d >= 0.0 && d.is_finite());
    /// sim.update_tree();
    /// assert_eq!(sim.drift(), 0.0);
    /// ```
    pub fn drift(&self) -> f64 {
        let known = f64::from_bits(self.drift.load(Ordering::Relaxed));
        if !known.is_nan() {
            return known;
        }
        let mut drift = 0f32;
        let mut widen = |moved: f32| drift = if moved > drift { moved } else { drift };
        if self.seen.len() == self.particles.len() {
            for (p, &[ax, ay]) in self.particles.iter().zip(&self.seen) {
                widen((p.x - ax).abs());
                widen((p.y - ay).abs());
            }
        } else {
            // Every path that gives the tree a square records it in `seen`; should one miss,
            // the tree's own rectangles still give the right answer.
            debug_assert!(
                false,
                "seen: {} of {}",
                self.seen.len(),
                self.particles.len()
            );
            for (p, &id) in self.particles.iter().zip(&self.ids) {
                let seen = self.tree.rect(id).expect("particle handles stay valid");
                widen((p.x - seen.min_x).abs());
                widen((p.y - seen.min_y).abs());
            }
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

    /// Phase: brings the tree up to date with the particles' positions: one batch of moves
    /// (incremental and brute-force modes; planned in parallel), or clear and bulk insert
    /// (rebuild mode).
    pub fn update_tree(&mut self) {
        let s = self.config.particle_size;
        match self.config.broadphase {
            Broadphase::Rebuild => self.rebuild_tree(),
            Broadphase::Incremental | Broadphase::BruteForce => {
                // The batch on every thread count (its serial form on one): it leaves the
                // tree's item lists in the same order whatever the threads, and the pair
                // order follows them.
                let (tree, ids, moves, particles) =
                    (&mut self.tree, &self.ids, &mut self.moves, &self.particles);
                let rect_of = |i: usize| particles[i].rect(s);
                if self.workers.serial() {
                    tree.update_many(ids, rect_of, moves)
                } else {
                    self.workers
                        .run(|| tree.par_update_many(ids, rect_of, moves))
                }
                .expect("particle handles stay valid and positions finite");
                self.note_seen();
            }
        }
        self.set_drift(0.0);
    }

    /// Records every particle's position as the tree's rectangles now hold it (after a tree
    /// update or rebuild), for [`drift`](Self::drift).
    pub(crate) fn note_seen(&mut self) {
        const CHUNK: usize = 16_384;
        let particles = &self.particles;
        // No allocation once the buffer has grown to the particle count.
        self.seen.resize(particles.len(), [0.0; 2]);
        self.workers
            .for_each_chunk(&mut self.seen, CHUNK, |k, chunk| {
                for (s, p) in chunk.iter_mut().zip(&particles[k * CHUNK..]) {
                    *s = [p.x, p.y];
                }
            });
    }

    /// Phase: collects the contacts with the current broad phase, from the tree as the last
    /// [`update_tree`](Self::update_tree) left it (the tree's parallel pair search), or from
    /// the particles, in brute force.
    pub fn find_pairs(&mut self) {
        let s = self.config.particle_size;
        let tests = match self.config.broadphase {
            Broadphase::Incremental | Broadphase::Rebuild if self.workers.serial() => {
                let contacts = &mut self.contacts;
                contacts.clear();
                let ((), counts) = self.tree.for_each_pair_counting(|a, b| {
                    contacts.push((*a.value.min(b.value), *a.value.max(b.value)));
                });
                counts.tests
            }
            Broadphase::Incremental | Broadphase::Rebuild => {
                let (tree, pairs) = (&self.tree, &mut self.pair_buffers);
                // The search appends: last step's pairs go first.
                pairs.clear();
                self.workers.run(|| {
                    tree.par_pairs(pairs, |a, b| {
                        Some((*a.value.min(b.value), *a.value.max(b.value)))
                    })
                });
                // The chunks are copied into place on the workers too, over fixed ranges of
                // the contact list, so that no part of the phase runs on one thread only.
                let buffers = &self.pair_buffers;
                self.contacts.resize(buffers.len(), (0, 0));
                self.workers
                    .for_each_chunk(&mut self.contacts, CONTACT_COPY_CHUNK, |k, out| {
                        copy_pairs(buffers, k * CONTACT_COPY_CHUNK, out);
                    });
                self.pair_buffers.tests()
            }
            Broadphase::BruteForce => {
                self.contacts.clear();
                self.rects.clear();
                self.rects.extend(self.particles.iter().map(|p| p.rect(s)));
                every_pair(&self.rects, &mut self.contacts);
                let n = self.rects.len() as u64;
                n * n.saturating_sub(1) / 2
            }
        };
        self.counts = StepCounts {
            contacts: self.contacts.len(),
            pairs_tested: tests,
        };
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
    /// use quadstress::Rect;
    /// use quadstress_sim::{SimConfig, Simulation};
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
        let grown = rect.grown(d);
        let s = self.config.particle_size;
        let particles = &self.particles;
        self.tree.for_each_in_rect(&grown, |item| {
            let i = *item.value;
            if particles[i as usize].rect(s).intersects(rect) {
                out.push(i);
            }
        })?;
        Ok(out.len() - before)
    }

    /// The same count as [`touching`](Self::touching), by scanning every particle: the
    /// cross-check for the demo's report.
    ///
    /// ```
    /// use quadstress::Rect;
    /// use quadstress_sim::{SimConfig, Simulation};
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

/// Contacts per task when the pair search's chunks are copied into the contact list.
const CONTACT_COPY_CHUNK: usize = 32_768;

/// Copies the pairs of `buffers` from position `start` (in their order) into `out`, whole.
fn copy_pairs(buffers: &PairWorkspace<(u32, u32)>, start: usize, out: &mut [(u32, u32)]) {
    let mut skip = start;
    let mut done = 0;
    for chunk in buffers.chunks() {
        if done == out.len() {
            break;
        }
        if skip >= chunk.len() {
            skip -= chunk.len();
            continue;
        }
        let part = &chunk[skip..];
        let n = part.len().min(out.len() - done);
        out[done..done + n].copy_from_slice(&part[..n]);
        done += n;
        skip = 0;
    }
    debug_assert_eq!(done, out.len());
}

/// The brute-force broad phase: every pair of squares tested, `(i, j)` with `i < j` pushed
/// for each pair that touches (closed rectangles), in order of `i` then `j`.
fn every_pair(rects: &[Rect], contacts: &mut Vec<(u32, u32)>) {
    for (i, a) in rects.iter().enumerate() {
        for (j, b) in rects.iter().enumerate().skip(i + 1) {
            if a.intersects(b) {
                contacts.push((i as u32, j as u32));
            }
        }
    }
}
