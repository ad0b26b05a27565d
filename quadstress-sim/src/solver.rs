//! The physics of a step outside the broad phase: motion and walls (`integrate`) and the
//! contact solver (`resolve`), in substeps. `sort` puts the contacts in the order the solver
//! walks them.
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
//! is solved as equals. The walls take part in the solve: a particle against a wall cannot be
//! pushed into it, so the other one takes the whole push (along an axis; the sideways part of
//! a tilted push that a wall stops is dropped, not handed to the other particle, which would
//! otherwise be driven away from every wall and leave a crevasse along it). What a wall takes
//! back of a push, or hands on, gives speed only in the share of the push that undid an
//! approach (overlap a burst spawned into a wall, taken back as speed, threw particles off the
//! walls at 40 to 76 sides a second on the first frame); a pair deep in
//! each other that can part along neither side of its axis (a column from the floor to the
//! ceiling) parts along the other axis. A shallow overlap that cannot part along its axis
//! stays as it is: parting it along the other axis would push one particle through a whole
//! side, into whatever lies there (a square at a wall beside a sleeping one was pushed into
//! the one under it, and the two stayed on the same spot).
//!
//! # Sleeping
//! Under gravity, a particle slower than [`SLEEP_SPEED`] sides a second for [`SLEEP_STEPS`]
//! steps in a row falls asleep: its velocity is zero, it does not move, and contacts treat it
//! as fixed, like the floor. An awake particle that pushes into it or moves past it faster
//! than [`WAKE_SPEED`] wakes it. A settled pile is then at rest (zero kinetic energy), and a
//! stream poured on it wakes what it hits. An awake square with nothing on it, not held on both
//! sides, keeps what it rests on awake, so that a support can lean in turn once the square on
//! it has gone: a tower's chain of supports does not stop halfway because one of them fell
//! asleep first. A sleeping square beside a leaning one wakes (the leaning one tips away from
//! it, and may leave a drop beside it): a cliff's face comes down whole. So does one beside a
//! neighbour moving faster than [`WAKE_SPEED`] (falling away or rolling off): without it, a
//! face whose neighbouring column slid away slept on as a cliff.
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

mod sort;

/// Particles per task of the per-particle loops: a fixed partition, whatever the thread count.
pub(super) const CHUNK: usize = 4096;
/// The narrowest stripe, in particle sides.
const MIN_STRIPE_SIDES: f32 = 16.0;
/// The most stripes a world is cut into.
const MAX_STRIPES: usize = 256;
/// Substeps per step.
pub(super) const SUBSTEPS: u32 = 4;
/// Under gravity, a particle slower than this (in sides a second) for [`SLEEP_STEPS`] steps
/// falls asleep.
pub const SLEEP_SPEED: f32 = 0.5;
/// Steps in a row a particle must be slow to fall asleep (a quarter of a second at 60 steps a
/// second). With 24, the standard 100,000 pile, which the lean at cliffs keeps settling
/// longer, was 77% to 90% asleep at frame 450 instead of 99% (see BENCHMARKS.md); a square
/// that may lean keeps its support awake whatever this is.
pub const SLEEP_STEPS: u32 = 16;
/// An awake particle faster than this (sides a second) wakes the sleeping ones it touches.
pub const WAKE_SPEED: f32 = 1.0;
/// How steeply the normal of a square resting on another tilts: the tangent of the tilt per
/// side of offset between their centres, and its cap. Steeper (2 per side) packs a pile
/// denser but keeps it creeping: every square more than 0.15 side off its support's centre
/// slides, so the 100,000 pile compacted for 5 s after it landed, stepping at about 30 ms
/// instead of sleeping, and sank along the walls; flatter (1 per side) settles sooner still but
/// packs 10,000 particles below 0.8 (see BENCHMARKS.md).
const TILT: f32 = 1.5;
const TILT_MAX: f32 = 2.0;
/// Coulomb friction of contacts and walls under gravity.
const FRICTION: f32 = 0.3;
/// A square that leans (see `lean`) gains this fraction of what gravity gives a substep as
/// speed sideways, each substep, up to [`LEAN_SPEED`] sides a second: it tips off an edge as
/// fast as it would fall. With half of it and 3 sides a second, a heap sprayed onto the
/// 10,000 pile took some ten seconds to come down to its slope, its faces shedding one slow
/// square at a time (column steps p99 3.0 to 4.0 sides at frame 900, seeds 1-8); with the
/// whole pull and 12 sides a second, 1.0 to 2.0 in the same seeds (see BENCHMARKS.md).
const LEAN_ACCEL: f32 = 1.0;
/// Slower caps (9 or 10) left that heap flowing at frame 900 in some seeds (p99 3.0).
const LEAN_SPEED: f32 = 12.0;

/// A contact as the solver keeps it: its particles `a < b`, and the row of its lower particle
/// while it is sorted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Contact {
    a: u32,
    b: u32,
    /// The row while sorting (0 once sorted); then [`TOUCHED`], [`ALONG_Y`] and [`B_LOW`].
    key: u32,
    /// The closing speed along the normal when the pair first touched in this step.
    closing: f32,
}

/// The contact touched in this step: `closing` holds its closing speed then.
const TOUCHED: u32 = 1;
/// Its normal is along y (else x)...
const ALONG_Y: u32 = 2;
/// ...and points from `a` to `b` in the negative direction (b is left of or above a).
const B_LOW: u32 = 4;

/// A particle's state in the solver, beside the particle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Body {
    /// Where the particle was after this substep's motion, before its contacts (moved along
    /// with pushes that must not give it speed).
    mid: [f32; 2],
    /// Steps in a row it has been slow; asleep from [`SLEEP_STEPS`] on.
    still: u32,
    /// The substep on which it was last found supported.
    support: u32,
    /// The substeps on which it last touched a particle on its left and on its right.
    touched: [u32; 2],
    /// The substeps on which it last had a shoulder on its left and on its right (see
    /// [`SHOULDER`]).
    shoulder: [u32; 2],
    /// The substeps on which it last had a particle above it beyond its left and right edge.
    roof: [u32; 2],
    /// What it touched along y in the last substep: [`REST_LEFT`], [`REST_RIGHT`], [`LOADED`].
    rest: u8,
    /// `rest` of the substep before.
    rest_before: u8,
    /// Whether it leans in this substep (see `lean`): it tips over its support's edge, which
    /// does not slide, so the support's friction does not hold it back.
    leaning: bool,
    /// The substeps it has leaned since it last came down half a side (or slept), and the
    /// height (y) it came down to (minus infinity before it first leans).
    lean_substeps: u32,
    lean_y: f32,
}

impl Default for Body {
    fn default() -> Self {
        Body {
            mid: [0.0; 2],
            still: 0,
            support: 0,
            touched: [0; 2],
            shoulder: [0; 2],
            roof: [0; 2],
            rest: 0,
            rest_before: 0,
            leaning: false,
            lean_substeps: 0,
            lean_y: f32::NEG_INFINITY,
        }
    }
}

/// A square that has leaned this long (in seconds of substeps) without coming down half a
/// side leans no more until it does, or sleeps: with the full lean, a square on a support
/// between two others too far apart to be its shoulders both at once ran from one to the
/// other for ever (it has a drop on the side it has left).
const LEAN_SECONDS: f64 = 1.0;

/// [`Body::rest`]: it rested on a particle whose centre lies left of (or under) its own...
const REST_LEFT: u8 = 1;
/// ...on one whose centre lies right of its own...
const REST_RIGHT: u8 = 2;
/// ...and a particle rested on it.
const LOADED: u8 = 4;

/// `still` of a sleeping particle that wakes at the end of the step.
const WOKEN: u32 = u32::MAX;

impl Body {
    #[inline(always)]
    fn asleep(&self) -> bool {
        self.still >= SLEEP_STEPS
    }
}

/// How the world is cut into stripes.
#[derive(Clone, Copy, Debug)]
pub(super) struct StripeGrid {
    /// Stripes, at least 1.
    count: usize,
    /// The last stripe, as a float.
    last: f32,
    left: f32,
    per_unit: f32,
}

impl StripeGrid {
    pub(super) fn new(world_left: f32, world_width: f32, size: f32) -> Self {
        let fit = (f64::from(world_width) / f64::from(size * MIN_STRIPE_SIDES)).floor();
        let count = if fit.is_finite() {
            (fit as usize).clamp(1, MAX_STRIPES)
        } else {
            1
        };
        let per_unit = (count as f64 / f64::from(world_width)) as f32;
        StripeGrid {
            count,
            last: (count - 1) as f32,
            left: world_left,
            per_unit: if per_unit.is_finite() { per_unit } else { 0.0 },
        }
    }

    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// The stripe of a particle whose left edge is `x`: never decreasing in `x`, below 256.
    #[inline(always)]
    pub(super) fn of(&self, x: f32) -> u32 {
        // `as` saturates (and takes NaN, which never happens here, to 0).
        ((x - self.left) * self.per_unit).min(self.last) as u32
    }
}

/// The reusable buffers of the stripe solver, and each particle's [`Body`].
#[derive(Debug, Default)]
pub(super) struct SolverBuffers {
    bodies: Vec<Body>,
    /// Scratch of `renumber`.
    renumbered: Vec<Body>,
    /// Where each stripe's particles start, by index, and (last) where the particles outside
    /// every stripe start: fixed by the last reordering.
    stripe_starts: Vec<u32>,
    /// The sort's buffers.
    sort: sort::SortBuffers,
    /// The contacts by bucket (each stripe, then the serial bucket), each floor first.
    sorted: Vec<Contact>,
    /// Where each bucket's contacts start in `sorted` (and, last, the contact count).
    starts: Vec<u32>,
    /// Substeps solved so far (wrapping): stamps the supports.
    substep: u32,
}

impl SolverBuffers {
    /// Forgets every particle's state (the buffers stay).
    pub(super) fn clear(&mut self) {
        self.bodies.clear();
        self.stripe_starts.clear();
    }

    /// How many particles (from index 0) lie in stripes.
    pub(super) fn in_stripes(&self) -> usize {
        self.stripe_starts.last().map_or(0, |&s| s as usize)
    }

    /// Sets the stripes: stripe `k` starts at index `start(k)`, and `start(count)` is where
    /// the particles outside every stripe start.
    pub(super) fn set_stripes(&mut self, count: usize, start: impl Fn(usize) -> usize) {
        self.stripe_starts.clear();
        self.stripe_starts
            .extend((0..=count).map(|k| if k == 0 { 0 } else { start(k) as u32 }));
    }

    /// Follows a reordering: `new_index[old]` is each particle's new index. Particles spawned
    /// since the last step have no body yet (they are appended, so theirs are the last
    /// indices): they get a fresh one, and every other particle keeps its own, asleep or not.
    /// (Dropping them all woke a whole pile at every reordering while a stream poured on it.)
    pub(super) fn renumber(&mut self, new_index: &[u32]) {
        if self.bodies.len() > new_index.len() {
            self.bodies.clear();
            return;
        }
        self.bodies.resize(new_index.len(), Body::default());
        self.renumbered.clear();
        self.renumbered.resize(new_index.len(), Body::default());
        for (old, &new) in new_index.iter().enumerate() {
            self.renumbered[new as usize] = self.bodies[old];
        }
        std::mem::swap(&mut self.bodies, &mut self.renumbered);
    }

    /// Whether particle `i` sleeps (one with no body yet is awake).
    pub(super) fn is_asleep(&self, i: usize) -> bool {
        self.bodies.get(i).is_some_and(Body::asleep)
    }

    /// How many particles are asleep.
    pub(super) fn sleeping(&self) -> usize {
        self.bodies.iter().filter(|b| b.asleep()).count()
    }
}

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
    /// [`LEAN_SECONDS`] in substeps.
    lean_budget: u32,
    substep: u32,
}

impl Params {
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
        Params {
            size: s,
            h,
            gh: if self.config.gravity_on {
                (self.config.gravity * h).clamp(-limit, limit)
            } else {
                0.0
            },
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
            wake_speed: WAKE_SPEED * s,
            sleep_speed: SLEEP_SPEED * s,
            // Whole substeps, so that the budget is the same at every step size (`as`
            // saturates: no budget limit for a step of 0, where nothing moves).
            lean_budget: (LEAN_SECONDS / f64::from(h)).round() as u32,
            substep: self.buffers.substep,
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
        self.last_dt = dt;
        let p = self.params(dt);
        self.each_particle(move |q, b| move_particle(&p, q, b));
        self.set_drift(f64::NAN);
        Ok(())
    }

    /// Phase: resolves the contacts (see the module documentation): the first substep's
    /// contacts, the other substeps whole, restitution and sleep.
    pub(crate) fn resolve(&mut self) {
        let dt = self.last_dt;
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
        let p = self.params(dt);
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
        self.set_drift(f64::NAN);
    }

    /// Runs `solve_contact` (or, if `RESTITUTE`, `restitute`) on every sorted contact with its
    /// particles and bodies, stripe by stripe (see the module documentation). The choice is a
    /// constant, not a closure: a closure around the solve was called once per contact (its
    /// calls, a tenth of the solver's instructions); a direct call is inlined into the loop.
    fn each_contact<const RESTITUTE: bool>(&mut self, p: &Params) {
        // On one thread a task solves two stripes in turn (see `each_stripe`); on more, each
        // stripe is a task of its own, so that the threads share the work in finer parts
        // (with two threads and seven two-stripe tasks one thread would solve four). Either
        // way each stripe's contacts go in the same order: the same bits.
        if self.workers.serial() {
            self.each_stripe::<RESTITUTE, 4>(p);
        } else {
            self.each_stripe::<RESTITUTE, 2>(p);
        }
    }

    /// [`each_contact`](Self::each_contact) with tasks of `SPAN` stripes: 2 (a task solves
    /// one stripe) or 4 (two, in turn).
    fn each_stripe<const RESTITUTE: bool, const SPAN: usize>(&mut self, p: &Params) {
        let count = self.stripes.count();
        let buf = &mut self.buffers;
        let n = self.particles.len();
        buf.bodies.resize(n, Body::default());
        let (starts, pstarts) = (&buf.starts[..], &buf.stripe_starts[..]);
        if pstarts.len() == count + 1 {
            for parity in 0..2 {
                // Part j holds stripes first(j)..first(j) + SPAN and solves stripe first(j)
                // (and, when SPAN is 4, first(j) + 2); part 0 also holds the stripes before,
                // which it leaves alone.
                let first = move |j: usize| SPAN * j + parity;
                let parts = count.saturating_sub(parity).div_ceil(SPAN);
                let contact_bound = move |j: usize| {
                    if j == 0 {
                        0
                    } else {
                        starts[first(j).min(count)] as usize
                    }
                };
                let particle_bound = move |j: usize| {
                    if j == 0 {
                        0
                    } else {
                        pstarts[first(j).min(count)] as usize
                    }
                };
                self.workers.for_each_part(
                    (
                        Cut::new(&mut buf.sorted, contact_bound),
                        Cut::new(&mut self.particles, particle_bound),
                        Cut::new(&mut buf.bodies, particle_bound),
                    ),
                    parts,
                    move |j, (c, pp, b)| {
                        let (c, c0) = c.get();
                        let (prm, (p, p0)) = (p, pp.get());
                        // As long as `p` (so it is): the bounds checks of `two` on `b` are
                        // then those on `p`, which the compiler drops.
                        let b = &mut b.get().0[..p.len()];
                        let k = first(j);
                        let range = |k: usize| {
                            if k < count {
                                starts[k] as usize - c0..starts[k + 1] as usize - c0
                            } else {
                                0..0
                            }
                        };
                        if SPAN == 2 {
                            for c in &mut c[range(k)] {
                                on_pair::<RESTITUTE>(prm, p, b, p0, c);
                            }
                            return;
                        }
                        let (r1, r2) = (range(k), range(k + 2));
                        // The two stripes share no particle: their contacts are solved in
                        // turn, so that the processor works on two independent chains of
                        // loads and stores at once, in the same order within each stripe.
                        let (head, tail) = c.split_at_mut(r2.start.max(r1.end));
                        let list = &mut head[r1];
                        let list2 = &mut tail[..r2.len()];
                        let both = list.len().min(list2.len());
                        let (l1, rest1) = list.split_at_mut(both);
                        let (l2, rest2) = list2.split_at_mut(both);
                        for (c1, c2) in l1.iter_mut().zip(l2.iter_mut()) {
                            on_pair::<RESTITUTE>(prm, p, b, p0, c1);
                            on_pair::<RESTITUTE>(prm, p, b, p0, c2);
                        }
                        for c in rest1.iter_mut().chain(rest2) {
                            on_pair::<RESTITUTE>(prm, p, b, p0, c);
                        }
                    },
                );
            }
        }
        // The serial bucket (every contact, when there are no stripes yet), on this thread.
        let serial = if pstarts.len() == count + 1 {
            starts[count] as usize..starts[count + 1] as usize
        } else {
            0..buf.sorted.len()
        };
        let bodies = &mut buf.bodies[..n];
        for c in &mut buf.sorted[serial] {
            on_pair::<RESTITUTE>(p, &mut self.particles, bodies, 0, c);
        }
    }
}

/// Runs `solve_contact` (`restitute` if `RESTITUTE`) on contact `c` with its particles, from
/// slices that start at index `offset`.
#[inline(always)]
fn on_pair<const RESTITUTE: bool>(
    p: &Params,
    particles: &mut [Particle],
    bodies: &mut [Body],
    offset: usize,
    c: &mut Contact,
) {
    let (i, j) = (c.a as usize - offset, c.b as usize - offset);
    let (pa, pb) = two(particles, i, j);
    let (ba, bb) = two(bodies, i, j);
    if RESTITUTE {
        restitute(p, c, pa, ba, pb, bb);
    } else {
        solve_contact(p, c, pa, ba, pb, bb);
    }
}

/// Elements `i < j` of `slice`, both mutable.
#[inline(always)]
fn two<T>(slice: &mut [T], i: usize, j: usize) -> (&mut T, &mut T) {
    let (lo, hi) = slice.split_at_mut(j);
    (&mut lo[i], &mut hi[0])
}

/// A substep's motion of one particle: gravity, motion and the walls. A sleeping particle
/// stays.
#[inline(always)]
fn move_particle(p: &Params, q: &mut Particle, b: &mut Body) {
    if b.asleep() {
        b.mid = [q.x, q.y];
        b.rest = 0;
        b.leaning = false;
        return;
    }
    if p.gravity {
        lean(p, q, b);
    }
    q.vy += p.gh;
    q.vx = within(q.vx, -p.limit, p.limit);
    q.vy = within(q.vy, -p.limit, p.limit);
    q.x += q.vx * p.h;
    q.y += q.vy * p.h;
    let (vx, vy) = (q.vx, q.vy);
    bounce(&mut q.x, &mut q.vx, p.left, p.right, p);
    bounce(&mut q.y, &mut q.vy, p.top, p.floor, p);
    // Coulomb friction with the wall that stopped the particle: up to `friction` times the
    // speed the wall took away, off the speed along it.
    if p.friction > 0.0 {
        let (dvx, dvy) = ((q.vx - vx).abs(), (q.vy - vy).abs());
        q.vx -= clamp(q.vx, p.friction * dvy);
        q.vy -= clamp(q.vy, p.friction * dvx);
    }
    b.mid = [q.x, q.y];
}

/// The velocity the contacts' pushes gave a particle in the last substep (see
/// `solve_contact`).
#[inline(always)]
fn take_velocity(p: &Params, q: &mut Particle, b: &mut Body) {
    if p.h > 0.0 && !b.asleep() {
        q.vx = within(q.vx + (q.x - b.mid[0]) / p.h, -p.limit, p.limit);
        q.vy = within(q.vy + (q.y - b.mid[1]) / p.h, -p.limit, p.limit);
    }
    b.mid = [q.x, q.y];
}

/// Keeps one coordinate in `[lo, hi]`, reflecting a velocity that points out of the range,
/// damped by restitution (and stopped if it is slower than the rest speed, so a particle
/// resting on the floor does not hop under gravity).
#[inline(always)]
fn bounce(pos: &mut f32, vel: &mut f32, lo: f32, hi: f32, p: &Params) {
    let out = if *pos < lo {
        *pos = lo;
        vel.abs()
    } else if *pos > hi {
        *pos = hi;
        -vel.abs()
    } else {
        return;
    };
    *vel = if out.abs() <= p.rest_speed {
        0.0
    } else {
        out * p.restitution
    };
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

/// Whether a particle at `q` can move by `d` along the axis (y if `along_y`) without
/// leaving the walls' range on that side.
#[inline(always)]
fn can_move(p: &Params, q: &Particle, along_y: bool, d: f32) -> bool {
    let (pos, lo, hi) = if along_y {
        (q.y, p.top, p.floor)
    } else {
        (q.x, p.left, p.right)
    };
    if d < 0.0 {
        pos > lo
    } else {
        pos < hi
    }
}

/// One substep's push on a contact (see the module documentation).
#[inline(always)]
fn solve_contact(
    p: &Params,
    c: &mut Contact,
    a: &mut Particle,
    ba: &mut Body,
    b: &mut Particle,
    bb: &mut Body,
) {
    let (sleep_a, sleep_b) = (ba.asleep(), bb.asleep());
    if sleep_a && sleep_b {
        return;
    }
    let s = p.size;
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    // Neighbours side by side (any pair the broad phase found: within its margin) hold each
    // other up sideways (see `lean`).
    if p.gravity && dy.abs() < (1.0 - SIDE_LATERAL) * s && dx.abs() >= dy.abs() {
        mark_sides(p, dx, a, ba, b, bb);
    }
    // (A fast particle's swept box finds pairs further apart: only a neighbour counts.)
    let (adx, ady) = (dx.abs(), dy.abs());
    let near = |d: f32, least: f32| (least * s..=1.25 * s).contains(&d);
    if p.gravity && near(ady, 0.5) && near(adx, SHOULDER) {
        mark_shoulder(p, dx, dy, ba, bb);
    }
    let (ox, oy) = (s - adx, s - ady);
    // Where the pair was before this substep's motion: the axis it was apart on (only one),
    // from the side it was on, even if it crossed since.
    let (wx, wy) = (dx - (b.vx - a.vx) * p.h, dy - (b.vy - a.vy) * p.h);
    let (apart_x, apart_y) = (wx.abs() >= s, wy.abs() >= s);
    let (mut along_y, mut dir) = if apart_y != apart_x {
        (apart_y, if apart_y { side(wy) } else { side(wx) })
    } else if oy <= ox || p.gravity && ox > 0.5 * s {
        // Under gravity, squares that sink into each other by more than half a side across
        // part vertically: one squeezed into a gap narrower than itself climbs out of it
        // (and slides off, by the tilt) instead of being pushed from wall to wall.
        (true, side(dy))
    } else {
        (false, side(dx))
    };
    let (mut depth, lateral) = if along_y {
        (s - dir * dy, ox)
    } else {
        (s - dir * dx, oy)
    };
    // The lower particle of a contact along y (positive y is down): `b` when dir > 0.
    let lower_is_b = dir > 0.0;
    let supported = |q: &Particle, body: &Body| {
        body.asleep() || body.support.wrapping_add(1) >= p.substep || q.y >= p.floor - p.touch
    };
    if lateral <= 0.0 {
        return;
    }
    if depth <= p.slop {
        // Resting on a support across a hair's gap still counts as supported.
        if p.gravity && along_y && depth > -p.touch {
            mark_support(p, lower_is_b, a, ba, b, bb, supported);
            mark_rest(p, lower_is_b, dx, a, ba, b, bb);
        }
        return;
    }
    let mut wa = if sleep_a { 0.0 } else { 1.0 };
    let mut wb = if sleep_b { 0.0 } else { 1.0 };
    // An awake particle pushing in or passing fast wakes a sleeping one, from the next step
    // on: for the rest of this one it holds still, as the floor would, so that nothing it
    // rests on is missing from the contacts (those between two sleeping particles are left
    // out of the step).
    if sleep_a || sleep_b {
        let (mover, body) = if sleep_a {
            (&*b, &mut *ba)
        } else {
            (&*a, &mut *bb)
        };
        let speed2 = mover.vx * mover.vx + mover.vy * mover.vy;
        if depth > 0.05 * s || speed2 > p.wake_speed * p.wake_speed {
            body.still = WOKEN;
        }
    }
    // The normal, from a to b, and how far b must move from a along it.
    let (mut nx, mut ny) = if along_y { (0.0, dir) } else { (dir, 0.0) };
    let mut reach = depth;
    if p.gravity && along_y {
        // The normal tilts away from the support's centre (see the module documentation).
        let offset = dx.abs();
        if offset > 0.0 {
            let t = (TILT * offset / s).min(TILT_MAX);
            let norm = (1.0 + t * t).sqrt();
            (nx, ny) = (side(dx) * t / norm, dir / norm);
            reach = depth * norm;
        }
        // Shock propagation: a supported lower particle holds still.
        let (lower, lower_body, upper) = if lower_is_b {
            (&*b, &*bb, &*a)
        } else {
            (&*a, &*ba, &*b)
        };
        let upper_awake = if lower_is_b { wa > 0.0 } else { wb > 0.0 };
        if upper_awake && can_move(p, upper, true, -1.0) && supported(lower, lower_body) {
            // The upper particle takes the whole push.
            (wa, wb) = if lower_is_b { (1.0, 0.0) } else { (0.0, 1.0) };
        }
    }
    // The walls: a particle against a wall on the side it would be pushed to stays.
    let main_a = if along_y { -ny } else { -nx };
    let main_b = -main_a;
    if wa > 0.0 && !can_move(p, a, along_y, main_a) {
        wa = 0.0;
    }
    if wb > 0.0 && !can_move(p, b, along_y, main_b) {
        wb = 0.0;
    }
    if wa + wb == 0.0 {
        // Neither can give this way. A shallow overlap stays (it does not grow: neither
        // moves towards the other along the axis); parting a pair that barely touches along
        // another way would push one through a whole side, into whatever lies there.
        if depth <= 0.5 * s {
            return;
        }
        // A deep one: swap which side each goes to if they are level along the axis (a
        // square on the floor beside a sleeping one climbs onto it), else part along the
        // other axis.
        let free = |q: &Particle, body: &Body, along_y: bool, d: f32| {
            f32::from(u8::from(!body.asleep() && can_move(p, q, along_y, d)))
        };
        let level = if along_y { dy.abs() } else { dx.abs() } < 0.5 * s;
        if level && free(a, ba, along_y, dir) + free(b, bb, along_y, -dir) > 0.0 {
            dir = -dir;
        } else {
            along_y = !along_y;
            dir = side(if along_y { dy } else { dx });
        }
        depth = if along_y { s - dir * dy } else { s - dir * dx };
        (nx, ny) = if along_y { (0.0, dir) } else { (dir, 0.0) };
        reach = depth;
        wa = free(a, ba, along_y, -dir);
        wb = free(b, bb, along_y, dir);
        if wa + wb == 0.0 {
            return;
        }
    }
    let total = wa + wb;
    let (wa, wb) = (wa / total, wb / total);
    let push = (reach - p.slop).max(0.0);
    // A particle pushed deep this step does not count as still (it must not fall asleep
    // inside another).
    if push > 0.05 * s {
        if wa > 0.0 {
            ba.still = 0;
        }
        if wb > 0.0 {
            bb.still = 0;
        }
    }
    // Under gravity, the part of the push that undoes this substep's approach becomes
    // velocity at the substep's end (`take_velocity`); the rest only moves the particles
    // (their `mid` moves along), so overlapping spawns part without flying apart. The
    // approach counts the pushes this substep already made (`x - mid`): a particle held up
    // by its support has stopped. Without gravity every push is of the second kind, and
    // a closing pair gets an elastic impulse instead (below).
    let approach = if p.gravity {
        (a.vx * p.h + a.x - ba.mid[0] - b.vx * p.h - b.x + bb.mid[0]) * nx
            + (a.vy * p.h + a.y - ba.mid[1] - b.vy * p.h - b.y + bb.mid[1]) * ny
    } else {
        0.0
    };
    let quiet = (push - approach.max(0.0)).max(0.0);
    let (ax, ay, bx, by) = (a.x, a.y, b.x, b.y);
    a.x -= wa * push * nx;
    a.y -= wa * push * ny;
    b.x += wb * push * nx;
    b.y += wb * push * ny;
    ba.mid[0] -= wa * quiet * nx;
    ba.mid[1] -= wa * quiet * ny;
    bb.mid[0] += wb * quiet * nx;
    bb.mid[1] += wb * quiet * ny;
    // Coulomb friction: undo the sliding across the normal in this substep, up to
    // `friction` times the push.
    // (`dir` as it is now: a deep pair may have swapped sides above.)
    let upper_leans = along_y && if dir > 0.0 { ba.leaning } else { bb.leaning };
    if p.friction > 0.0 && !upper_leans {
        let (tx, ty) = (-ny, nx);
        let slide = ((b.x - bb.mid[0]) - (a.x - ba.mid[0]) + (b.vx - a.vx) * p.h) * tx
            + ((b.y - bb.mid[1]) - (a.y - ba.mid[1]) + (b.vy - a.vy) * p.h) * ty;
        let undo = clamp(slide, p.friction * push);
        a.x += wa * undo * tx;
        a.y += wa * undo * ty;
        b.x -= wb * undo * tx;
        b.y -= wb * undo * ty;
    }
    // Of what the walls take back, so much moves `mid` as the push did (a spawn's overlap
    // pushed into a wall, taken back, would otherwise leave as speed away from it).
    let still_share = if push > 0.0 { quiet / push } else { 0.0 };
    shift_within_walls(p, a, ba, 0.0, 0.0, still_share);
    shift_within_walls(p, b, bb, 0.0, 0.0, still_share);
    // A wall that stopped one particle short hands the rest of the push to the other.
    let short_a = ((ax - a.x) * nx + (ay - a.y) * ny) - wa * push;
    let short_b = ((b.x - bx) * nx + (b.y - by) * ny) - wb * push;
    // Not the sideways part of a tilted push (see the module documentation).
    let tilted = nx != 0.0 && ny != 0.0;
    // Of what is handed on, only the share that undoes the approach gives speed, as for the
    // push itself.
    if !tilted && short_a < 0.0 && wb > 0.0 {
        shift_within_walls(p, b, bb, -short_a * nx, -short_a * ny, still_share);
    } else if !tilted && short_b < 0.0 && wa > 0.0 {
        shift_within_walls(p, a, ba, short_b * nx, short_b * ny, still_share);
    }
    let closing = (a.vx - b.vx) * nx + (a.vy - b.vy) * ny;
    if !p.gravity && closing > 0.0 {
        // A gas: an impulse that sends the pair apart at `restitution` times its closing
        // speed, between equals (a wall reflects a particle by itself).
        let j = 0.5 * (1.0 + p.restitution) * closing;
        a.vx -= j * nx;
        a.vy -= j * ny;
        b.vx += j * nx;
        b.vy += j * ny;
    }
    if c.key & TOUCHED == 0 {
        c.key = TOUCHED | if along_y { ALONG_Y } else { 0 } | if dir < 0.0 { B_LOW } else { 0 };
        c.closing = closing;
    }
    if p.gravity && along_y {
        mark_support(p, lower_is_b, a, ba, b, bb, supported);
        mark_rest(p, lower_is_b, dx, a, ba, b, bb);
    }
}

/// Moves `q` by `(hx, hy)` and into the walls' range, and its `mid` along by `still_share` of
/// where that took it: that share of the move gives no speed (see `solve_contact`).
#[inline(always)]
fn shift_within_walls(
    p: &Params,
    q: &mut Particle,
    body: &mut Body,
    hx: f32,
    hy: f32,
    still_share: f32,
) {
    q.x += hx;
    q.y += hy;
    let (px, py) = (q.x, q.y);
    p.clamp_to_walls(q);
    body.mid[0] += still_share * (hx + q.x - px);
    body.mid[1] += still_share * (hy + q.y - py);
}

/// Notes a resting contact along y (see `lean`): on which side of the upper particle's centre
/// the lower one lies, and that the lower one carries a load. A sleeping support under an
/// awake particle with nothing on it and a side free wakes: that one may lean off it, and then
/// it may lean in turn.
#[inline(always)]
fn mark_rest(
    p: &Params,
    lower_is_b: bool,
    dx: f32,
    a: &Particle,
    ba: &mut Body,
    b: &Particle,
    bb: &mut Body,
) {
    let (upper, upper_body, lower_body, up_dx) = if lower_is_b {
        (a, ba, bb, -dx)
    } else {
        (b, bb, ba, dx)
    };
    upper_body.rest |= if up_dx >= 0.0 { REST_LEFT } else { REST_RIGHT };
    lower_body.rest |= LOADED;
    if !upper_body.asleep()
        && upper_body.rest_before & LOADED == 0
        && held_sides(p, upper, upper_body) != (true, true)
    {
        // Awake for as long as the square on it may lean off it, so that it can lean in turn
        // when that one has gone.
        if lower_body.asleep() {
            lower_body.still = WOKEN;
        } else {
            lower_body.still = 0;
        }
    }
}

/// Gives a square the sideways speed it gains in a substep from leaning, from the contacts it
/// had in the last one, which it then forgets (see the module documentation).
///
/// A drop on one side (free there, no shoulder, no roof): the square tips that way whatever
/// it carries and however many supports it has; a drop on both sides: away from a single
/// support's centre (on two, their tilts decide); no drop: it stays.
#[inline(always)]
fn lean(p: &Params, q: &mut Particle, body: &mut Body) {
    let rest = std::mem::take(&mut body.rest);
    body.rest_before = rest;
    body.leaning = false;
    if rest & (REST_LEFT | REST_RIGHT) == 0 {
        return;
    }
    let held = held_sides(p, q, body);
    let ledge = |k: usize| p.substep.wrapping_sub(body.shoulder[k]) < 2;
    let open = |k: usize| p.substep.wrapping_sub(body.roof[k]) >= 2;
    let drop = (
        !held.0 && !ledge(0) && open(0),
        !held.1 && !ledge(1) && open(1),
    );
    let away = if rest & REST_LEFT != 0 { 1.0 } else { -1.0 };
    let side = match drop {
        (true, false) => -1.0,
        (false, true) => 1.0,
        // A drop on both sides: away from a single support's centre. On two supports it is
        // left to their tilts, which part it from the nearer one's edge; leaning one way
        // fought them, and a square rocked on two supports for ever.
        (true, true) if rest & (REST_LEFT | REST_RIGHT) != (REST_LEFT | REST_RIGHT) => away,
        _ => return,
    };
    // A square leans to roll down: one that has leaned for a while without coming down (it
    // runs to and fro over a row) stops leaning, and comes to rest.
    if q.y > body.lean_y + 0.5 * p.size {
        (body.lean_y, body.lean_substeps) = (q.y, 0);
    }
    if body.lean_substeps >= p.lean_budget {
        return;
    }
    body.lean_substeps += 1;
    // At a run, not thrown: it tips off.
    let (dv, cap) = (LEAN_ACCEL * p.gh, LEAN_SPEED * p.size);
    body.leaning = true;
    if side > 0.0 && q.vx < cap {
        q.vx = (q.vx + dv).min(cap);
    } else if side < 0.0 && q.vx > -cap {
        q.vx = (q.vx - dv).max(-cap);
    }
}

/// How much two squares side by side must overlap across their contact (in sides) for each to
/// hold the other up sideways.
const SIDE_LATERAL: f32 = 0.25;

/// Stamps a pair side by side: `b` lies right of `a` if `dir > 0`. A sleeping one beside an
/// awake one that leans or moves faster than the wake speed wakes: that one leaves (the
/// leaning one tips away from it, a falling or rolling one passes on), and then the sleeping
/// one may stand beside a drop in turn (a cliff's face comes down whole, not only where it
/// was awake; without the moving one, a face whose neighbouring column slid away slept on).
#[inline(always)]
fn mark_sides(p: &Params, dir: f32, a: &Particle, ba: &mut Body, b: &Particle, bb: &mut Body) {
    let (a_side, b_side) = if dir > 0.0 { (1, 0) } else { (0, 1) };
    ba.touched[a_side] = p.substep;
    bb.touched[b_side] = p.substep;
    let leaves = |q: &Particle, body: &Body| {
        !body.asleep() && (body.leaning || q.vx * q.vx + q.vy * q.vy > p.wake_speed * p.wake_speed)
    };
    if bb.asleep() && leaves(a, ba) {
        bb.still = WOKEN;
    } else if ba.asleep() && leaves(b, bb) {
        ba.still = WOKEN;
    }
}

/// How far beyond a particle's centre (in sides) another's centre must lie, at least half a
/// side below it, to be its shoulder on that side (or, above it, its roof): beyond its edge by
/// three quarters of a side or more. (At half a side, a brick over a joint would be its own
/// shoulder, so a ladder of them, two sides up per side across, would stand.)
const SHOULDER: f32 = 0.75;

/// Stamps a pair one above the other and side by side (`dx`, `dy`: from `a` to `b`): the upper
/// one has a shoulder on the lower one's side, the lower one a roof on the upper one's.
#[inline(always)]
fn mark_shoulder(p: &Params, dx: f32, dy: f32, ba: &mut Body, bb: &mut Body) {
    if dy > 0.0 {
        ba.shoulder[usize::from(dx > 0.0)] = p.substep;
        bb.roof[usize::from(dx < 0.0)] = p.substep;
    } else {
        bb.shoulder[usize::from(dx < 0.0)] = p.substep;
        ba.roof[usize::from(dx > 0.0)] = p.substep;
    }
}

/// Whether a particle was held on its left and on its right (by a neighbour side by side or a
/// wall) in this substep or the last.
#[inline(always)]
fn held_sides(p: &Params, q: &Particle, body: &Body) -> (bool, bool) {
    let held = |k: usize| p.substep.wrapping_sub(body.touched[k]) < 2;
    (
        held(0) || q.x <= p.left + p.touch,
        held(1) || q.x >= p.right - p.touch,
    )
}

/// Marks the upper particle of a contact along y supported if the lower one is.
#[inline(always)]
fn mark_support(
    p: &Params,
    lower_is_b: bool,
    a: &Particle,
    ba: &mut Body,
    b: &Particle,
    bb: &mut Body,
    supported: impl Fn(&Particle, &Body) -> bool,
) {
    if lower_is_b {
        if supported(b, bb) {
            ba.support = p.substep;
        }
    } else if supported(a, ba) {
        bb.support = p.substep;
    }
}

/// Restitution under gravity, once a step: a contact that closed faster than the rest speed
/// parts at `restitution` times that speed, along the axis it touched on.
#[inline(always)]
fn restitute(
    p: &Params,
    c: &mut Contact,
    a: &mut Particle,
    ba: &mut Body,
    b: &mut Particle,
    bb: &mut Body,
) {
    let closing = c.closing;
    if c.key & TOUCHED == 0 || closing <= p.rest_speed {
        return;
    }
    let dir = if c.key & B_LOW != 0 { -1.0 } else { 1.0 };
    let (wa, wb) = match (ba.asleep(), bb.asleep()) {
        (false, false) => (0.5, 0.5),
        (true, false) => (0.0, 1.0),
        (false, true) => (1.0, 0.0),
        (true, true) => return,
    };
    let along_y = c.key & ALONG_Y != 0;
    let (va, vb) = if along_y {
        (&mut a.vy, &mut b.vy)
    } else {
        (&mut a.vx, &mut b.vx)
    };
    // Parting speed now, and what restitution asks for.
    let parting = (*vb - *va) * dir;
    let want = p.restitution * closing;
    if parting < want {
        let dv = (want - parting) * dir;
        *va -= wa * dv;
        *vb += wb * dv;
    }
}

/// The end of a step under gravity: a particle slow for [`SLEEP_STEPS`] steps falls asleep.
#[inline(always)]
fn settle(p: &Params, q: &mut Particle, b: &mut Body) {
    if b.asleep() {
        (q.vx, q.vy) = (0.0, 0.0);
        if b.still == WOKEN {
            b.still = 0;
        }
        return;
    }
    if q.vx * q.vx + q.vy * q.vy < p.sleep_speed * p.sleep_speed {
        b.still += 1;
        if b.asleep() {
            (q.vx, q.vy) = (0.0, 0.0);
            (b.lean_substeps, b.lean_y) = (0, q.y);
        }
    } else {
        b.still = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
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
            lean_budget: 240,
            substep: 10,
        }
    }

    fn at(x: f32, y: f32) -> Particle {
        Particle {
            x,
            y,
            vx: 0.0,
            vy: 0.0,
        }
    }

    /// The body of a particle at `q` at the start of a substep, asleep or not.
    fn body_at(q: &Particle, asleep: bool) -> Body {
        Body {
            still: if asleep { SLEEP_STEPS } else { 0 },
            mid: [q.x, q.y],
            ..Body::default()
        }
    }

    fn solve(p: &Params, a: &mut Particle, b: &mut Particle) {
        let (mut ba, mut bb) = (body_at(a, false), body_at(b, false));
        let mut c = Contact::default();
        solve_contact(p, &mut c, a, &mut ba, b, &mut bb);
    }

    /// Two squares on the same spot in a corner part: one of them can always move.
    #[test]
    fn a_coincident_pair_in_a_corner_parts() {
        let p = params();
        for (x, y) in [
            (92.0, 92.0),
            (0.0, 92.0),
            (0.0, 0.0),
            (92.0, 0.0),
            (40.0, 92.0),
        ] {
            let (mut a, mut b) = (at(x, y), at(x, y));
            solve(&p, &mut a, &mut b);
            let gap = (a.x - b.x).abs().max((a.y - b.y).abs());
            assert!(gap >= 8.0 - 0.01, "({x}, {y}): {a:?} {b:?}");
        }
    }

    /// A square on the floor with another on top off its centre is pushed sideways, away from
    /// its support (a centred one: `a_square_free_on_one_side_leans_there`).
    #[test]
    fn a_square_off_its_support_slides_off() {
        let p = params();
        let (mut low, mut up) = (at(40.0, 92.0), at(43.0, 84.5));
        solve(&p, &mut low, &mut up);
        assert_eq!(
            (low.x, low.y),
            (40.0, 92.0),
            "the supported square holds still"
        );
        assert!(up.x > 43.0 && up.y < 84.5, "{up:?}");
    }

    /// A square pressed against a wall that barely overlaps a sleeping neighbour beside it
    /// stays where it is: it is not sent a whole side along the other axis (into the square
    /// under it, where it stuck: a coincident pair at rest).
    #[test]
    fn a_shallow_overlap_against_a_wall_stays() {
        let p = params();
        let (mut sleeper, mut mover) = (at(84.008, 60.0), at(92.0, 60.02));
        mover.vy = p.gh;
        let (mut bs, mut bm) = (body_at(&sleeper, true), body_at(&mover, false));
        let mut c = Contact::default();
        solve_contact(&p, &mut c, &mut sleeper, &mut bs, &mut mover, &mut bm);
        assert_eq!((sleeper.x, sleeper.y), (84.008, 60.0));
        assert_eq!(mover.x, 92.0);
        assert!((mover.y - 60.02).abs() < 0.01, "{mover:?}");
    }

    /// A square leans (gains speed) towards a drop beside it: free on that side, with no
    /// shoulder below and no roof above there; away from its support's centre with a drop on
    /// both sides; with a shoulder or a neighbour on each side it stands.
    #[test]
    fn a_square_beside_a_drop_leans_there() {
        let p = params();
        let (now, free) = (p.substep, p.substep.wrapping_sub(5));
        // On a terrace (a shoulder on both sides) a square stands, free or held, on one
        // support or two, loaded or not.
        let terrace = [now, now];
        // Beside a drop on the left (no shoulder there), open to the sky or under a roof.
        let (cliff_left, open, roof_left) = ([free, now], [free, free], [now, free]);
        for (touched, shoulder, roof, rest, leans) in [
            ([free, now], terrace, open, REST_LEFT, 0.0),
            ([now, free], terrace, open, REST_RIGHT, 0.0),
            ([free, free], terrace, open, REST_LEFT, 0.0),
            ([free, free], terrace, open, REST_RIGHT, 0.0),
            ([now, now], terrace, open, REST_LEFT, 0.0),
            // A shoulder on one side, a drop on the other: it tips into the drop.
            ([free, free], [now, free], open, REST_LEFT, 1.0),
            ([free, free], [free, now], open, REST_RIGHT, -1.0),
            ([free, now], terrace, open, REST_LEFT | LOADED, 0.0),
            ([free, free], terrace, open, REST_LEFT | REST_RIGHT, 0.0),
            ([free, free], terrace, open, 0, 0.0),
            // The face of a cliff: loaded, or a brick over a joint, it tips over the edge.
            ([free, now], cliff_left, open, REST_LEFT | LOADED, -1.0),
            ([free, now], cliff_left, open, REST_LEFT | REST_RIGHT, -1.0),
            ([free, now], cliff_left, open, REST_RIGHT | LOADED, -1.0),
            // Beside a hole under a roof, inside a pile: it stays.
            ([free, now], cliff_left, roof_left, REST_LEFT | LOADED, 0.0),
            // Held on that side, or resting on nothing (falling): no lean.
            ([now, now], cliff_left, open, REST_LEFT | LOADED, 0.0),
            ([free, now], cliff_left, open, LOADED, 0.0),
            // A drop on both sides: away from a single support's centre (the top of a
            // tower); on two supports the tilts decide.
            ([free, free], [free, free], open, REST_RIGHT | LOADED, -1.0),
            ([free, free], [free, free], open, REST_LEFT, 1.0),
            (
                [free, free],
                [free, free],
                open,
                REST_LEFT | REST_RIGHT,
                0.0,
            ),
        ] {
            let mut q = at(40.0, 84.0);
            let mut body = Body {
                touched,
                shoulder,
                roof,
                rest,
                ..Body::default()
            };
            move_particle(&p, &mut q, &mut body);
            assert_eq!(
                q.vx.signum() * f32::from(u8::from(q.vx != 0.0)),
                leans,
                "{touched:?} {shoulder:?} {roof:?} {rest}"
            );
            assert_eq!(body.rest, 0, "forgotten");
            assert_eq!(body.leaning, leans != 0.0);
        }
        // Against a wall counts as held on that side.
        let mut q = at(0.0, 84.0);
        let mut body = Body {
            touched: [free, p.substep],
            rest: REST_RIGHT,
            ..Body::default()
        };
        move_particle(&p, &mut q, &mut body);
        assert_eq!(q.vx, 0.0);
    }

    /// A sleeping square under an awake one free to lean off it wakes; under one held on both
    /// sides it sleeps on.
    #[test]
    fn a_leaning_square_wakes_its_support() {
        let p = params();
        for (held, wakes) in [(false, true), (true, false)] {
            let (mut low, mut up) = (at(40.0, 92.0), at(40.0, 84.005));
            let (mut bl, mut bu) = (body_at(&low, true), body_at(&up, false));
            if held {
                bu.touched = [p.substep, p.substep];
            }
            let mut c = Contact::default();
            solve_contact(&p, &mut c, &mut low, &mut bl, &mut up, &mut bu);
            assert_eq!(bl.still == WOKEN, wakes, "held {held}");
            assert_eq!(bl.rest, LOADED);
            assert_eq!(bu.rest, REST_LEFT);
        }
    }

    /// A sleeping square wakes when the neighbour beside it moves on faster than the wake
    /// speed (it may leave a drop there), either way round, and sleeps on beside a slow one.
    #[test]
    fn a_sleeping_square_wakes_beside_a_neighbour_moving_on() {
        let p = params();
        for (speed, wakes) in [(0.5 * p.wake_speed, false), (2.0 * p.wake_speed, true)] {
            for sleeper_first in [true, false] {
                // Side by side on the floor, a hair apart: no push, only the neighbour's speed.
                let (mut sleeper, mut mover) = (at(40.0, 84.0), at(48.01, 84.0));
                mover.vy = speed;
                let (mut bs, mut bm) = (body_at(&sleeper, true), body_at(&mover, false));
                let mut c = Contact::default();
                if sleeper_first {
                    solve_contact(&p, &mut c, &mut sleeper, &mut bs, &mut mover, &mut bm);
                } else {
                    solve_contact(&p, &mut c, &mut mover, &mut bm, &mut sleeper, &mut bs);
                }
                assert_eq!(bs.still == WOKEN, wakes, "speed {speed}, {sleeper_first}");
                assert_eq!((sleeper.x, sleeper.y), (40.0, 84.0));
            }
        }
    }

    /// A fast square that crossed a row within a substep is put back on the side it came from.
    #[test]
    fn a_fast_square_lands_on_the_side_it_came_from() {
        let mut p = params();
        p.gravity = false;
        let mut row = at(40.0, 60.0);
        let mut fast = at(40.0, 66.0);
        fast.vy = 20.0 / p.h; // came from y = 46, eight units above the row's top
        solve(&p, &mut row, &mut fast);
        assert!(fast.y <= row.y - 8.0 + 0.01, "{fast:?} {row:?}");
    }
}
