//! The physics of a step outside the broad phase: motion and walls (`integrate`) and the
//! contact solver (`resolve`), in substeps. This file is the substep driver; the rest is
//! split by concern, as Box2D splits its solver:
//!
//! - `body`: each particle's state in the solver and the reusable buffers;
//! - `motion`: a substep's motion of one particle (gravity, the lean, the walls);
//! - `contact`: the contact math (one substep's push on a pair, restitution);
//! - `grain`: the grain rules (rest, lean, shoulders, roofs, sleep);
//! - `stripes`: the stripes and the walk of the contacts, stripe by stripe, on every core;
//! - `sort`: the order of the contacts (each stripe floor first).
//!
//! # The step
//! A step of `dt` is [`SUBSTEPS`] substeps of `h = dt / SUBSTEPS`, on one contact list found
//! at the start of the step (position-based dynamics with small steps, as in Müller et al.'s
//! "Detailed rigid body simulation with extended position based dynamics" and Box2D v3's
//! soft step). Each substep moves every awake particle (`v += g h`, `x += v h`, the walls
//! reflect it), then walks the contacts once (`solver_iterations` times), pushing each
//! overlapping pair apart along the contact normal, and then takes as the new velocity the
//! motion the pushes made (`v += Δx / h`): a particle pushed out of a support stops, one
//! pushed sideways off a corner moves sideways. Only the part of a push that undoes this
//! substep's approach changes a velocity; the rest (overlap that was already there, as in a
//! fresh burst) moves the particle without giving it speed, so overlapping spawns separate
//! instead of exploding. After the last substep, restitution gives each contact that closed
//! faster than gravity gives in two steps `e` times its closing speed back, once.
//!
//! The contact list comes from the tree holding each particle's square swept over the step
//! and grown by a small margin (see `broad`): a particle that falls several sides in a step
//! already has its contact with the row it will hit, and the solver takes the axis along
//! which the pair was apart before the substep's motion as the contact's axis, on the side
//! it came from, so it lands on the row instead of crossing it.
//!
//! # The contact model: squares that sit like grains
//! Particles are axis-aligned squares that do not rotate. Between two of them the normal is
//! the axis of least overlap (or the axis they came from), with one exception under gravity:
//! when a square rests on another, the normal tilts away from the lower square's centre, by
//! an angle whose tangent is 1.5 times the offset between their centres in sides (capped at 2),
//! as the normal between two discs tilts. A square near the centre of its support (within the
//! friction angle: 0.2 side) stands on it; one further off slides away, as down a slope,
//! until it rests on two squares (the pushes of both supports then cancel, as for a brick
//! over a joint), against a neighbour, or on the floor. Locked squares with axis-aligned
//! normals would instead stand in any offset stack: one-wide towers, chains leaning half a
//! side per level and vertical crevasses that never close, which real grains (that roll and
//! tip) do not leave. With the tilt, chains topple, a pile packs like bricks and its surface
//! stays within a few sides of level. Every contact's depth stays that of the squares
//! (rounded boxes would slide similarly at their corners, but let the drawn squares overlap
//! there).
//!
//! The tilt leaves stacks standing that grains would not: squares exactly on top of one
//! another (a tower one wide, the face of a cliff of aligned squares) and bricks over joints
//! (a square on two supports), which stack into ladders, arches and cliffs several squares
//! tall. A grain at an edge rolls off it, so a square *leans* beside a drop: it rests on
//! something, nothing is beside it on one side (no particle within the broad phase's margin,
//! no wall), and nothing below holds that side up: no particle whose top is near its bottom
//! lies at least three quarters of a side out on that side (a *shoulder*). Then it gains
//! sideways speed towards that side, as much as gravity gives, up to twelve sides a second,
//! loaded or not, on one support or two (a drop on both sides, as on a tower's top: away from
//! a single support's centre; on two supports their tilts part it from the nearer one). A
//! tower or a cliff's face comes down, every square of it at once, until each square of the
//! slope has a shoulder on its open side: a slope of at most about one side up per side
//! across. A hole inside a pile, under a *roof* (a particle above beyond
//! that edge), is left alone: the pile does not keep compacting. A square with a shoulder or
//! a neighbour on each side stands, on one support or two, as a block stands on a floor (a
//! square on a ledge that rolled towards the ledge's lower neighbour instead rocked there
//! forever: the neighbour's corner pushed it back).
//!
//! A square leans to roll down: one that has leaned for a second without coming down half a
//! side leans no more until it does, or sleeps (on a row with gaps too wide for it to have a
//! shoulder on both sides at once, it ran from one side to the other for ever).
//!
//! A leaning square rolls over its support's edge rather than sliding, so that support's
//! friction does not hold it back (with friction, a loaded square beside a drop stood: the
//! load's push makes the friction larger than the lean). The lean is decided once a substep,
//! in the particle pass, from the contacts of the substep before (each particle notes on
//! which side its supports, neighbours, shoulders and roofs lie and whether it carries one).
//!
//! Friction is Coulomb's, at the position level: the sliding of a pair across its normal
//! during a substep is undone up to `friction` times the push along the normal (0.3 under
//! gravity, none without, so an elastic gas keeps its energy).
//!
//! # Stacks, walls and the order of the contacts
//! Each stripe's contacts are walked floor first. A particle resting on the floor or on a
//! particle so supported (in this substep or the last) is supported; in a contact between a
//! supported particle and one on top of it, the supported one does not move: the whole push
//! goes to the upper one (shock propagation, Guendelman et al.), so a correction travels up
//! a whole stack in one pass and tall piles do not sink. A falling clump has no support and
//! is solved as equals, and so is a particle rising faster than the wake speed (one that
//! bounced): a support holds still, and a rising one handed its rise to each square that
//! fell on it, which restitution then sent up faster still (a landing 100,000 pile threw
//! squares up at 0.65 times the fastest fall, where a bounce off the floor gives 0.5).
//!
//! The walls take part in the solve: a particle against a wall cannot be pushed into it, so the
//! other one takes the whole push (along an axis; the sideways part of a tilted push that a wall
//! stops is dropped, not handed to the other particle, which would otherwise be driven away from
//! every wall and leave a crevasse along it). What a wall takes back of a push, or hands on, gives
//! speed only in the share of the push that undid an approach (overlap a burst spawned into a wall,
//! taken back as speed, threw particles off the walls at 40 to 76 sides a second on the first
//! frame); a pair deep in each other that can part along neither side of its axis (a column from
//! the floor to the ceiling) parts along the other axis. A shallow overlap that cannot part along
//! its axis stays as it is: parting it along the other axis would push one particle through a whole
//! side, into whatever lies there (a square at a wall beside a sleeping one was pushed into the one
//! under it, and the two stayed on the same spot).
//!
//! # Sleeping
//! Under gravity, a particle that rests and is slower than [`SLEEP_SPEED`] sides a second for
//! [`SLEEP_STEPS`] steps in a row (sixtieths of a second at smaller steps: the same time at any
//! step size) falls asleep: its velocity is zero, it does not move, and contacts treat it as fixed,
//! like the floor. It rests on the floor, or on a supported particle with its centre over that one
//! (or over the joint of two, or held by a neighbour beside it): a square creeping slowly off its
//! support's edge, or one held up by nothing (wedged between its neighbours by friction), does not
//! sleep until it has settled (one slept hanging over a drop, its centre beyond the edge, and left
//! a cliff; one slept as a lid over a hole). A support sliding out from under a sleeping square,
//! beyond three quarters of a side of its centre, wakes it (one slept on, floating beside a cliff's
//! face). An awake particle that pushes into it or moves past it faster than [`WAKE_SPEED`] wakes
//! it. A settled pile is then at rest (zero kinetic energy), and a stream poured on it wakes what
//! it hits. An awake square with nothing on it, not held on both sides, keeps what it rests on
//! awake, so that a support can lean in turn once the square on it has gone: a tower's chain of
//! supports does not stop halfway because one of them fell asleep first. A sleeping square beside a
//! leaning one wakes (the leaning one tips away from it, and may leave a drop beside it): a cliff's
//! face comes down whole. So does one beside a neighbour moving faster than [`WAKE_SPEED`] (falling
//! away or rolling off): without it, a face whose neighbouring column slid away slept on as a
//! cliff.
//!
//! These rules wake particles on behalf of others, so they can keep each other awake: a few
//! squares on a ledge, each leaning a little and waking its sleeping neighbour, rocked for
//! ever. A particle that has stayed within a twentieth of a side of one place for five seconds
//! has *settled*: it falls asleep however it moves in between and wherever it rests (one
//! balanced on a corner jittered in place for ever), a neighbour's lean or load no
//! longer wakes it (only a push or a fast neighbour does, which starts its settling over), and
//! its own pushes into a sleeping particle, being those of a pair stuck in each other, wake
//! nothing. A push deeper than half a side wakes any sleeper, settled or not: such a pair is
//! stuck, and one of them must give (a square wedged between two settled sleepers, over and
//! under it, stayed inside the lower one for ever).
//!
//! # Stripes: every core, one answer
//! The world is cut into vertical stripes at least sixteen particles wide; their number
//! follows from the world and the particle size alone, never from the thread count. The
//! reordering (see `layout`) puts each stripe's particles in one range of indices. A contact
//! belongs to the stripe of its lower-indexed particle when its other particle lies in the
//! same stripe or the next; other contacts (particles spawned since the reordering, or ones
//! that wandered more than a stripe) go to a serial bucket. Each even stripe `2j` is solved
//! by a task that owns the particles of stripes `2j..2j + 2` as one slice; all such tasks run
//! at once, then those of the odd stripes, then the serial bucket on one thread. (On one
//! thread a task takes stripes `4j` and `4j + 2` and walks their contacts in turn, two
//! independent chains of loads and stores.) The slices are cut with `split_at_mut`, so no two
//! tasks can write the same particle, and each stripe goes through its contacts in one fixed
//! order: the result is the same, bit for bit, on any number of threads, as in Box2D v3's
//! coloured graph.

use super::parallel::Cut;
use super::{Particle, SimError, Simulation};

mod body;
mod contact;
mod grain;
mod motion;
mod sort;
mod stripes;

use body::Body;
pub(crate) use body::SolverBuffers;
use contact::FRICTION;
use grain::{settle, LEAN_SECONDS};
use motion::{move_particle, take_velocity};
pub(crate) use stripes::StripeGrid;

/// Particles per task of the per-particle loops: a fixed partition, whatever the thread count.
pub(super) const CHUNK: usize = 4096;

/// Substeps per step. Three keep every quality bound of the tests and of BENCHMARKS.md's
/// piles (packing, column steps, rest, no stuck pair) and walk the contacts a quarter less
/// often than four: the falling 100,000 pile's solve takes about a quarter less. Two failed
/// two tests: under strong gravity (500 sides/s²) a pile stayed awake, and a cliff stepped at
/// 1/1000 s left a step of three sides.
pub(super) const SUBSTEPS: u32 = 3;

/// A particle that gravity pulls harder than the particle is small (more than a third of
/// [`SLEEP_SPEED`] a substep) is slow below this many substeps' worth of gravity: a support
/// that holds it takes back what gravity gave in the substep, up to a fraction of it, and
/// that fraction alone kept a pile awake for ever (200 sides/s² gives 0.83 sides/s in a
/// substep of 1/240 s).
const SLEEP_GRAVITY_SUBSTEPS: f32 = 1.5;
/// In a world far from the origin, a particle is slow below this many `f32` steps of its
/// coordinates a substep: moves of one step are rounding, not motion (at 100,000 a step is
/// 0.0078, and one a substep of 1/180 s is 1.4 units a second, a third of a side a second of
/// 4-unit particles).
const SLEEP_POSITION_STEPS: f32 = 4.0;
/// The wake speed is at least this many times the sleep speed.
const WAKE_OVER_SLEEP: f32 = 2.0;

/// Under gravity, the speed (units a second) below which a particle counts as slow, before the
/// rounding of its own coordinates (see `grain::settle`): [`SLEEP_SPEED`] sides a second, or
/// more where gravity is strong for the particle's size. The default settings, and 8-unit
/// particles under gravity up to 480 units/s² at 60 steps a second, keep [`SLEEP_SPEED`].
fn sleep_speed(size: f32, gh: f32) -> f32 {
    (SLEEP_SPEED * size).max(SLEEP_GRAVITY_SUBSTEPS * gh.abs())
}

/// Under gravity, a particle slower than this (in sides a second) for [`SLEEP_STEPS`] steps
/// falls asleep. Where gravity gives more than a third of it in a substep, the bound is one and
/// a half substeps' worth of gravity instead; far from the origin, where a few `f32` steps of a
/// particle's coordinates a substep make a speed above it, it is four such steps a substep.
pub const SLEEP_SPEED: f32 = 0.5;

/// Steps in a row a particle must be slow to fall asleep (a quarter of a second at 60 steps a
/// second). At smaller steps only those that end a sixtieth of a second of simulated time
/// count, so that a particle sleeps after the same time at any step size (counted in steps, a
/// square tipping off a cliff's edge at 1/1000 s fell asleep 16 ms into its lean). With 24,
/// the standard 100,000 pile, which the lean at cliffs keeps settling longer, was 77% to 90%
/// asleep at frame 450 instead of 99% (see BENCHMARKS.md); a square that may lean keeps its
/// support awake whatever this is.
pub const SLEEP_STEPS: u32 = 16;

/// The time (seconds of simulation) a step of [`SLEEP_STEPS`] and of settling stands for.
const SLEEP_TICK: f64 = 1.0 / 60.0;

/// An awake particle faster than this (sides a second) wakes the sleeping ones it touches.
pub const WAKE_SPEED: f32 = 1.0;

/// What the passes need to know.
#[derive(Clone, Copy)]
struct Params {
    size: f32,
    /// The substep, in seconds.
    h: f32,
    /// What gravity adds to a velocity in a substep (0 without gravity).
    gh: f32,
    gravity: bool,
    restitution: f32,
    /// Closing speeds below this bounce with no restitution: resting contacts stay at rest.
    rest_speed: f32,
    limit: f32,
    friction: f32,
    /// The walls: least and largest left edge, least and largest top edge.
    left: f32,
    right: f32,
    top: f32,
    floor: f32,
    /// Overlap left to the next substep, so that resting contacts keep touching.
    slop: f32,
    /// A gap up to this still counts as resting on a support.
    touch: f32,
    wake_speed: f32,
    sleep_speed: f32,
    /// Times a particle's `f32` coordinate step, the speed its rounding alone can show: it is
    /// slow below that too.
    rounding_speed: f32,
    /// [`LEAN_SECONDS`] in substeps.
    lean_budget: u32,
    substep: u32,
    /// Whether this step ends a [`SLEEP_TICK`] of simulated time: only such steps count
    /// towards sleep and settling (every step at 60 steps a second or fewer).
    tick: bool,
}

impl Params {
    /// Whether `p` lies in the walls' range: [`clamp_to_walls`](Self::clamp_to_walls) would
    /// leave it as it is.
    #[inline(always)]
    fn within_walls(&self, p: &Particle) -> bool {
        (p.x >= self.left) & (p.x <= self.right) & (p.y >= self.top) & (p.y <= self.floor)
    }

    #[inline(always)]
    fn clamp_to_walls(&self, p: &mut Particle) {
        p.x = within(p.x, self.left, self.right);
        p.y = within(p.y, self.top, self.floor);
    }
}

impl Simulation {
    /// Closing speeds below which contacts and walls do not bounce: what gravity adds in two
    /// steps of `dt`.
    fn rest_speed(&self, dt: f32) -> f32 {
        if self.gravity_pulls() {
            (2.0 * self.config.gravity * dt).abs().min(self.speed_limit)
        } else {
            0.0
        }
    }

    /// Whether gravity pulls particles towards the floor (sleep, support and tilt need one).
    pub(super) fn gravity_pulls(&self) -> bool {
        self.config.gravity_on && self.config.gravity > 0.0
    }

    fn params(&self, dt: f32) -> Params {
        let s = self.config.particle_size;
        let h = dt / SUBSTEPS as f32;
        let gravity = self.gravity_pulls();
        let limit = self.speed_limit;
        let gh = if self.config.gravity_on {
            (self.config.gravity * h).clamp(-limit, limit)
        } else {
            0.0
        };
        let sleep_speed = sleep_speed(s, gh);
        Params {
            size: s,
            h,
            gh,
            gravity,
            restitution: self.config.restitution,
            rest_speed: self.rest_speed(dt),
            limit,
            friction: if gravity { FRICTION } else { 0.0 },
            left: self.config.world.min_x,
            right: self.wall_x,
            top: self.config.world.min_y,
            floor: self.wall_y,
            slop: 0.001 * s,
            touch: 0.02 * s,
            wake_speed: (WAKE_SPEED * s).max(WAKE_OVER_SLEEP * sleep_speed),
            sleep_speed,
            rounding_speed: if h > 0.0 {
                SLEEP_POSITION_STEPS / h
            } else {
                0.0
            },
            // Whole substeps, so that the budget is the same at every step size (`as`
            // saturates: no budget limit for a step of 0, where nothing moves).
            lean_budget: (LEAN_SECONDS / f64::from(h)).round() as u32,
            substep: self.buffers.substep,
            tick: false,
        }
    }

    /// Runs `task` on every particle with its body, in fixed chunks.
    fn each_particle(&mut self, task: impl Fn(&mut Particle, &mut Body) + Sync + Send) {
        let n = self.particles.len();
        self.buffers.bodies.resize(n, Body::default());
        let bound = |k: usize| k * CHUNK;
        self.workers.for_each_part(
            (
                Cut::new(&mut self.particles, bound),
                Cut::new(&mut self.buffers.bodies, bound),
            ),
            n.div_ceil(CHUNK),
            |_, (p, b)| {
                for (p, b) in p.get().0.iter_mut().zip(b.get().0) {
                    task(p, b);
                }
            },
        );
    }

    /// Phase: the first substep's motion (gravity, motion, the walls) for every awake
    /// particle; the contacts are found after it (see the module documentation).
    ///
    /// # Errors
    /// [`SimError::BadTimeStep`] for a negative or non-finite `dt`; nothing moves then.
    pub(crate) fn integrate(&mut self, dt: f32) -> Result<(), SimError> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(SimError::BadTimeStep(dt));
        }
        self.buffers.last_dt = dt;
        let p = self.params(dt);
        self.each_particle(move |q, b| {
            // Without gravity nothing sleeps (see `resolve`): a pile that slept until gravity
            // went off wakes before anything looks at it, so that no particle reported asleep
            // takes part in a step that moves it (the gas's impulses ignore sleep).
            if !p.gravity {
                b.still = 0;
            }
            move_particle(&p, q, b);
        });
        self.broad.set_drift(f64::NAN);
        Ok(())
    }

    /// Phase: resolves the contacts (see the module documentation): the first substep's
    /// contacts, the other substeps whole, restitution and sleep.
    pub(crate) fn resolve(&mut self) {
        let dt = self.buffers.last_dt;
        self.sort_contacts();
        for sub in 0..SUBSTEPS {
            self.buffers.substep = self.buffers.substep.wrapping_add(1);
            let p = self.params(dt);
            if sub > 0 {
                self.each_particle(move |q, b| {
                    take_velocity(&p, q, b);
                    move_particle(&p, q, b);
                });
            }
            for _ in 0..self.config.solver_iterations {
                self.each_contact::<false>(&p);
            }
        }
        let before = self.buffers.clock;
        self.buffers.clock += f64::from(dt);
        let p = Params {
            tick: f64::from(dt) >= 0.999 * SLEEP_TICK
                || (self.buffers.clock / SLEEP_TICK).floor() > (before / SLEEP_TICK).floor(),
            ..self.params(dt)
        };
        self.each_particle(move |q, b| take_velocity(&p, q, b));
        if p.gravity && p.restitution > 0.0 {
            self.each_contact::<true>(&p);
        }
        if p.gravity {
            self.each_particle(move |q, b| settle(&p, q, b));
        } else {
            // Without gravity nothing sleeps: an elastic gas keeps moving.
            self.each_particle(|_, b| b.still = 0);
        }
        self.broad.set_drift(f64::NAN);
    }
}

/// `x.clamp(lo, hi)` to the bit, for `lo <= hi` (which `Params` keeps), without `clamp`'s
/// check of the bounds, which the compiler could not drop from the per-particle and contact
/// loops.
#[inline(always)]
fn within(x: f32, lo: f32, hi: f32) -> f32 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// `x` clamped to `[-limit, limit]` (`limit >= 0`).
#[inline(always)]
fn clamp(x: f32, limit: f32) -> f32 {
    x.max(-limit).min(limit)
}

/// `1` or `-1` as `x` is positive or not (0 counts as positive: index order breaks ties).
#[inline(always)]
fn side(x: f32) -> f32 {
    if x < 0.0 {
        -1.0
    } else {
        1.0
    }
}

/// What the unit tests of the solver's parts share: a substep's settings, particles and bodies.
#[cfg(test)]
mod test_support {
    use super::body::Body;
    use super::contact::{solve_contact, Contact, FRICTION};
    use super::{Params, SLEEP_STEPS};
    use crate::Particle;

    pub(super) fn params() -> Params {
        Params {
            size: 8.0,
            h: 1.0 / 240.0,
            gh: 400.0 / 240.0,
            gravity: true,
            restitution: 0.0,
            rest_speed: 13.0,
            limit: 1e6,
            friction: FRICTION,
            left: 0.0,
            right: 92.0,
            top: 0.0,
            floor: 92.0,
            slop: 0.008,
            touch: 0.16,
            wake_speed: 8.0,
            sleep_speed: 2.0,
            rounding_speed: 960.0,
            lean_budget: 240,
            substep: 10,
            tick: true,
        }
    }

    pub(super) fn at(x: f32, y: f32) -> Particle {
        Particle {
            x,
            y,
            vx: 0.0,
            vy: 0.0,
        }
    }

    /// The body of a particle at `q` at the start of a substep, asleep or not.
    pub(super) fn body_at(q: &Particle, asleep: bool) -> Body {
        Body {
            still: if asleep { SLEEP_STEPS } else { 0 },
            mid: [q.x, q.y],
            ..Body::default()
        }
    }

    pub(super) fn solve(p: &Params, a: &mut Particle, b: &mut Particle) {
        let (mut ba, mut bb) = (body_at(a, false), body_at(b, false));
        let mut c = Contact::default();
        solve_contact(p, &mut c, a, &mut ba, b, &mut bb);
    }
}
