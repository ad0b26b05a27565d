//! The simulation's settings ([`SimConfig`], [`Broadphase`]), its limits and its errors
//! ([`SimError`]), and the wall positions every accepted setting must allow.

use std::fmt;

use quadstress::{Config, Quadtree, QuadtreeError, Rect};

/// The largest `max_particles` a simulation accepts: particles are indexed by `u32`, and the
/// tree holds at most `u32::MAX - 1` items.
pub const MAX_PARTICLES: usize = u32::MAX as usize - 1;

/// The fastest any particle moves, in world units per second, whatever the world: keeps every
/// sum and product of velocities in the solver finite (a collision can hand one particle
/// more speed than the limit, but never `2^20` times more).
pub(super) const SPEED_CAP: f32 = f32::MAX / (1u32 << 20) as f32;

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
    /// assert_eq!(quadstress_sim::Broadphase::BruteForce.name(), "brute force");
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
    /// use quadstress_sim::Broadphase;
    /// assert_eq!(Broadphase::BruteForce.next(), Broadphase::Incremental);
    /// ```
    pub fn next(self) -> Self {
        let i = Self::ALL.iter().position(|&m| m == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }
}

/// Settings of a [`Simulation`](super::Simulation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimConfig {
    /// The walls: no particle ever leaves this rectangle.
    pub world: Rect,
    /// Side of the square particles. Default 8: 8x8 pixels at 1:1 in the demo.
    pub particle_size: f32,
    /// Most particles alive at once; spawning past it is refused. At most [`MAX_PARTICLES`].
    pub max_particles: usize,
    /// Downward acceleration in world units per second², used while `gravity_on`.
    pub gravity: f32,
    /// Whether gravity pulls.
    pub gravity_on: bool,
    /// Bounciness of contacts and walls: 1 keeps all kinetic energy, 0 none.
    pub restitution: f32,
    /// Tree leaf capacity and depth.
    pub tree: Config,
    /// Seed of the random generator: the same seed and inputs give the same run.
    pub seed: u64,
    /// How contacts are found.
    pub broadphase: Broadphase,
    /// Passes over the contact list per substep (a step has three). More passes settle
    /// crowded contacts sooner; each pass costs one sweep of the list.
    pub solver_iterations: u32,
    /// Worker threads of the phases, from 1 to [`MAX_THREADS`](crate::MAX_THREADS); `None`:
    /// every core ([`default_threads`](crate::default_threads)). Every count gives the same
    /// particles, bit for bit; [`Simulation::set_threads`](crate::Simulation::set_threads)
    /// changes it live.
    pub threads: Option<usize>,
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
            threads: None,
        }
    }
}

impl SimConfig {
    /// A square world that `n` particles of the default size cover to about `coverage`
    /// (0.1 = 10% of its area).
    ///
    /// ```
    /// let c = quadstress_sim::SimConfig::with_coverage(100_000, 0.1);
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

/// A setting of [`SimConfig`] (or of the running simulation) that can be refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Setting {
    /// [`SimConfig::particle_size`].
    ParticleSize,
    /// [`SimConfig::restitution`].
    Restitution,
    /// [`SimConfig::gravity`].
    Gravity,
    /// [`SimConfig::solver_iterations`].
    SolverIterations,
    /// [`SimConfig::max_particles`].
    MaxParticles,
    /// [`SimConfig::world`].
    World,
    /// The worker thread count ([`Simulation::set_threads`](super::Simulation::set_threads)).
    Threads,
    /// The fixed step of a [`FixedStep`](super::FixedStep) driver.
    FixedStep,
}

impl Setting {
    /// The setting's name, as its field or method is spelled.
    ///
    /// ```
    /// assert_eq!(quadstress_sim::Setting::ParticleSize.name(), "particle_size");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Setting::ParticleSize => "particle_size",
            Setting::Restitution => "restitution",
            Setting::Gravity => "gravity",
            Setting::SolverIterations => "solver_iterations",
            Setting::MaxParticles => "max_particles",
            Setting::World => "world",
            Setting::Threads => "threads",
            Setting::FixedStep => "fixed step",
        }
    }
}

/// What the simulation refuses.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
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
    /// A setting out of its range: which one, and what it must be.
    BadSetting {
        /// The setting refused.
        setting: Setting,
        /// What the setting must be, e.g. "must be positive".
        requirement: &'static str,
    },
    /// A position or vector that is NaN or infinite.
    NonFinite,
    /// An error of the tree.
    Tree(QuadtreeError),
}

impl SimError {
    fn bad(setting: Setting, requirement: &'static str) -> Self {
        SimError::BadSetting {
            setting,
            requirement,
        }
    }
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
            SimError::BadSetting {
                setting,
                requirement,
            } => write!(
                f,
                "bad simulation setting {}: {requirement}",
                setting.name()
            ),
            SimError::NonFinite => write!(f, "position or velocity is NaN or infinite"),
            SimError::Tree(e) => write!(f, "quadtree: {e}"),
        }
    }
}

impl std::error::Error for SimError {
    /// The tree's error, for [`SimError::Tree`].
    ///
    /// ```
    /// use std::error::Error;
    /// use quadstress::{QuadtreeError, Rect};
    /// use quadstress_sim::SimError;
    /// let tree_error = QuadtreeError::Inverted(Rect::new(1.0, 0.0, 0.0, 1.0));
    /// let e = SimError::from(tree_error);
    /// assert_eq!(e.source().unwrap().to_string(), tree_error.to_string());
    /// assert!(SimError::NonFinite.source().is_none());
    /// ```
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SimError::Tree(e) => Some(e),
            _ => None,
        }
    }
}

impl From<QuadtreeError> for SimError {
    fn from(e: QuadtreeError) -> Self {
        SimError::Tree(e)
    }
}

/// What [`SimConfig::check`] derives from an accepted configuration: the walls' last fits
/// and the speed limit.
pub(super) struct Derived {
    pub tree: Quadtree<u32>,
    pub wall_x: f32,
    pub wall_y: f32,
    pub speed_limit: f32,
}

impl SimConfig {
    /// Checks every setting, so that no later call of a [`Simulation`](super::Simulation)
    /// built from it can fail on it.
    ///
    /// # Errors
    /// [`SimError::BadSetting`] naming the setting: a particle size that is not positive or
    /// does not fit the world once `position + size` is rounded to `f32`, a restitution outside
    /// `[0, 1]`, a non-finite gravity, `solver_iterations` outside `1..=64`, `max_particles`
    /// above [`MAX_PARTICLES`], or a world so large that its speed limit (four world sizes per
    /// second) overflows `f32`; the tree's errors for a bad world (including one whose width
    /// or height overflows `f32`) or tree config.
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, SimError, Setting};
    /// assert!(SimConfig::default().check().is_ok());
    /// let bad = SimConfig { restitution: 2.0, ..SimConfig::default() };
    /// assert!(matches!(
    ///     bad.check(),
    ///     Err(SimError::BadSetting { setting: Setting::Restitution, .. })
    /// ));
    /// ```
    pub fn check(&self) -> Result<(), SimError> {
        self.derive().map(|_| ())
    }

    pub(super) fn derive(&self) -> Result<Derived, SimError> {
        let size = self.particle_size;
        if !(size.is_finite() && size > 0.0) {
            return Err(SimError::bad(Setting::ParticleSize, "must be positive"));
        }
        if !(self.restitution.is_finite() && (0.0..=1.0).contains(&self.restitution)) {
            return Err(SimError::bad(
                Setting::Restitution,
                "must be between 0 and 1",
            ));
        }
        if !self.gravity.is_finite() {
            return Err(SimError::bad(Setting::Gravity, "must be finite"));
        }
        if !(1..=64).contains(&self.solver_iterations) {
            return Err(SimError::bad(
                Setting::SolverIterations,
                "must be between 1 and 64",
            ));
        }
        if self
            .threads
            .is_some_and(|t| !(1..=crate::MAX_THREADS).contains(&t))
        {
            return Err(SimError::bad(Setting::Threads, "must be between 1 and 256"));
        }
        if self.max_particles > MAX_PARTICLES {
            return Err(SimError::bad(
                Setting::MaxParticles,
                "must be at most MAX_PARTICLES (u32::MAX - 1)",
            ));
        }
        // The tree checks the world and its own settings.
        let tree = Quadtree::with_config(self.world, self.tree)?;
        let w = self.world;
        let (Some(wall_x), Some(wall_y)) = (
            last_fit(w.min_x, w.max_x, size),
            last_fit(w.min_y, w.max_y, size),
        ) else {
            return Err(SimError::bad(
                Setting::ParticleSize,
                "particles must fit in the world (after f32 rounding)",
            ));
        };
        let speed_limit = 4.0 * w.width().max(w.height());
        if !speed_limit.is_finite() {
            return Err(SimError::bad(
                Setting::World,
                "too large: its speed limit (4 world sizes per second) overflows f32",
            ));
        }
        Ok(Derived {
            tree,
            wall_x,
            wall_y,
            speed_limit: speed_limit.min(SPEED_CAP),
        })
    }
}

/// The largest `x` in `[min, max]` whose square of side `size` still ends at or before `max`
/// once `x + size` is rounded to `f32`, or `None` if even `min` does not fit. `max - size`
/// can be a rounding step off either way, so this searches the `f32`s between `min` and `max`
/// (in the order of their bit patterns: at most 32 halvings).
pub(super) fn last_fit(min: f32, max: f32, size: f32) -> Option<f32> {
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
