//! The physics of a step outside the broad phase: motion and walls (`integrate`), and the
//! contact solver (`resolve`): impulses and positional corrections in Gauss-Seidel passes,
//! then the shock pass that carries each stack's support up from the floor.
//!
//! # Stripes: every core, one answer
//! The world is cut into vertical stripes at least sixteen particles wide; their number
//! follows from the world and the particle size alone, never from the thread count. Each
//! contact belongs to the stripe of its left particle (by the stripes the particles were in
//! when the step's contacts were sorted), and its other particle then lies in the same stripe
//! or the next. All even stripes are solved at once, then all odd ones: no particle is written
//! by two threads at the same time, and each stripe goes through its contacts in one fixed
//! order (rows from the floor up). A contact whose particles are further apart (only
//! possible through rounding at a stripe edge) waits for a short serial pass after the
//! stripes. The result is the same, bit for bit, on any number of threads, as in the stripe
//! solvers of Verlet demos and Box2D v3's coloured graph.
// The stripes write particles and contacts from several threads through `SharedSlice`; each
// use says why no two tasks touch the same element.
#![allow(unsafe_code)]

use super::parallel::SharedSlice;
use super::{Particle, SimError, Simulation};

/// Particles per task of the per-particle loops: a fixed partition, whatever the thread count.
pub(super) const CHUNK: usize = 4096;
/// Contacts per task when contacts are sorted into stripes.
const CONTACT_CHUNK: usize = 16_384;
/// The narrowest stripe, in particle sides.
const MIN_STRIPE_SIDES: f32 = 16.0;
/// The most stripes a world is cut into.
const MAX_STRIPES: usize = 256;

/// A contact as the solver keeps it: the row of its lower particle (counted from the floor,
/// half a particle high) and its axis, then its particles `a < b`. Sorting by this puts a
/// stripe's contacts floor first, in one order whatever the broad phase's order was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Contact {
    /// The row in the low 31 bits; the top bit set for a contact along y.
    row_axis: u32,
    a: u32,
    b: u32,
}

const VERTICAL: u32 = 1 << 31;

impl Contact {
    fn row(&self) -> u32 {
        self.row_axis & !VERTICAL
    }

    fn vertical(&self) -> bool {
        self.row_axis & VERTICAL != 0
    }
}

/// The axis of a contact between `a` and `b`, decided once per step: the axis along which the
/// squares were apart before this step's motion, when only one was;
/// otherwise the axis of least overlap. A square that falls fast onto a row then lands on it, instead of being
/// pushed sideways into the row by a deep overlap along y.
///
/// Under gravity, two squares that sink into each other by more than a quarter of a side along
/// x as well are put one on top of the other: an overfull row in a pile then lets a particle
/// pop up instead of staying jammed, squeezed between its neighbours, forever.
fn is_vertical(a: &Particle, b: &Particle, size: f32, dt: f32, gravity: bool) -> bool {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let (was_dx, was_dy) = (dx - (b.vx - a.vx) * dt, dy - (b.vy - a.vy) * dt);
    let (apart_x, apart_y) = (was_dx.abs() >= size, was_dy.abs() >= size);
    if apart_x != apart_y {
        return apart_y;
    }
    let (ox, oy) = (size - dx.abs(), size - dy.abs());
    oy <= ox || gravity && ox >= 0.25 * size
}

/// How the world is cut into stripes.
#[derive(Clone, Copy, Debug)]
pub(super) struct StripeGrid {
    /// Stripes, at least 1.
    count: usize,
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
            left: world_left,
            per_unit: if per_unit.is_finite() { per_unit } else { 0.0 },
        }
    }

    /// The stripe of a particle whose left edge is `x`: never decreasing in `x`.
    fn of(&self, x: f32) -> u32 {
        // `as` saturates (NaN, which never happens here, gives 0).
        (((x - self.left) * self.per_unit) as usize).min(self.count - 1) as u32
    }
}

/// The reusable buffers of the stripe solver.
#[derive(Debug, Default)]
pub(super) struct SolverBuffers {
    /// Each particle's stripe this step.
    stripe_of: Vec<u32>,
    /// Per chunk, a count (then the next position) per bucket of a counting sort.
    buckets: Vec<u32>,
    /// The contacts by stripe, each stripe's floor first; the serial ones last.
    sorted: Vec<Contact>,
    /// The contacts with their rows in the broad phase's order, then scratch of the sort.
    unsorted: Vec<Contact>,
    /// Each contact chunk's lowest and highest row.
    row_range: Vec<(u32, u32)>,
    /// Where each bucket of the last counting sort starts: after the sort by stripe, where
    /// each stripe's contacts start in `sorted` (and where the serial ones start).
    starts: Vec<u32>,
    /// The step on which each particle was last found resting on the floor or on a resting
    /// particle (wrapping step numbers).
    rest_step: Vec<u32>,
    step: u32,
}

impl SolverBuffers {
    /// Forgets every particle's state (the buffers stay).
    pub(super) fn clear(&mut self) {
        self.rest_step.clear();
    }

    /// Follows a reordering: `new_index[old]` is each particle's new index.
    pub(super) fn renumber(&mut self, new_index: &[u32]) {
        if self.rest_step.len() != new_index.len() {
            self.rest_step.clear();
            return;
        }
        // `stripe_of` is rewritten before its next use: it serves as scratch here.
        self.stripe_of.clear();
        self.stripe_of.resize(new_index.len(), 0);
        for (old, &new) in new_index.iter().enumerate() {
            self.stripe_of[new as usize] = self.rest_step[old];
        }
        std::mem::swap(&mut self.rest_step, &mut self.stripe_of);
    }
}

/// Keeps one coordinate in `[lo, hi]`, reflecting a velocity that points out of the range,
/// damped by `e` (and stopped if it is slower than `rest_speed`, so a particle resting on
/// the floor does not hop under gravity).
fn bounce(pos: &mut f32, vel: &mut f32, lo: f32, hi: f32, e: f32, rest_speed: f32) {
    let out = if *pos < lo {
        *pos = lo;
        vel.abs()
    } else if *pos > hi {
        *pos = hi;
        -vel.abs()
    } else {
        return;
    };
    *vel = if out.abs() <= rest_speed {
        0.0
    } else {
        out * e
    };
}

/// What the passes over the contacts need to know.
#[derive(Clone, Copy)]
struct Params {
    size: f32,
    restitution: f32,
    /// Closing speeds below this bounce with no restitution: resting contacts stay at rest.
    rest_speed: f32,
    slop: f32,
    floor_y: f32,
    /// Coulomb friction coefficient of contacts.
    friction: f32,
    step: u32,
}

impl Simulation {
    /// Closing speeds below which contacts and walls do not bounce: what gravity adds in two
    /// steps of `dt`.
    fn rest_speed(&self, dt: f32) -> f32 {
        if self.config.gravity_on {
            (2.0 * self.config.gravity * dt).abs().min(self.speed_limit)
        } else {
            0.0
        }
    }

    /// Phase: gravity, motion, and the walls.
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
        self.last_dt = dt;
        let rest_speed = self.rest_speed(dt);
        let w = self.config.world;
        let e = self.config.restitution;
        let (wall_x, wall_y) = (self.wall_x, self.wall_y);
        self.workers
            .for_each_chunk(&mut self.particles, CHUNK, |_, chunk| {
                for p in chunk {
                    p.vy += g;
                    p.vx = p.vx.clamp(-limit, limit);
                    p.vy = p.vy.clamp(-limit, limit);
                    p.x += p.vx * dt;
                    p.y += p.vy * dt;
                    bounce(&mut p.x, &mut p.vx, w.min_x, wall_x, e, rest_speed);
                    bounce(&mut p.y, &mut p.vy, w.min_y, wall_y, e, rest_speed);
                }
            });
        self.set_drift(f64::NAN);
        Ok(())
    }

    /// Puts every particle back inside the walls, reflecting its velocity if it was moving out.
    fn keep_inside(&mut self) {
        let w = self.config.world;
        let e = self.config.restitution;
        let rest_speed = self.rest_speed(self.last_dt);
        let (wall_x, wall_y) = (self.wall_x, self.wall_y);
        self.workers
            .for_each_chunk(&mut self.particles, CHUNK, |_, chunk| {
                for p in chunk {
                    bounce(&mut p.x, &mut p.vx, w.min_x, wall_x, e, rest_speed);
                    bounce(&mut p.y, &mut p.vy, w.min_y, wall_y, e, rest_speed);
                }
            });
    }

    /// Phase: resolves the contacts. The contacts are sorted into stripes, floor first; then
    /// `solver_iterations` Gauss-Seidel passes, each an impulse along the contact normal (the
    /// axis of least overlap) if the pair is closing and a positional correction that pushes
    /// the squares apart; the walls; the shock pass (under gravity), which lifts each particle
    /// resting on the floor or on a resting particle clear of it, so a correction travels up
    /// a whole stack in one step and piles hold their height; the walls again.
    pub fn resolve(&mut self) {
        self.sort_contacts();
        let params = Params {
            size: self.config.particle_size,
            restitution: self.config.restitution,
            rest_speed: self.rest_speed(self.last_dt),
            slop: 0.001 * self.config.particle_size,
            floor_y: self.wall_y,
            // Under gravity, sand-like friction lets piles come to rest (a stream still
            // spreads); without it, contacts stay frictionless so elastic ones keep energy.
            friction: if self.config.gravity_on { 0.3 } else { 0.0 },
            step: self.buffers.step,
        };
        for _ in 0..self.config.solver_iterations {
            self.each_stripe(params, solve_contact);
        }
        self.keep_inside();
        if self.config.gravity_on && self.config.gravity > 0.0 {
            self.buffers.step = self.buffers.step.wrapping_add(1);
            let params = Params {
                step: self.buffers.step,
                ..params
            };
            self.each_stripe(params, shock_contact);
            self.keep_inside();
        }
        self.set_drift(f64::NAN);
    }

    /// Sorts the contacts of the last broad phase into stripes (see the module documentation),
    /// each stripe's floor first: a stable counting sort by row, then one by stripe, both in
    /// parallel over fixed chunks of contacts. The result does not depend on the thread count.
    /// Where the rows span far more than there are contacts (a tall world), each stripe is
    /// sorted by comparison instead, so that nothing is sized by the world.
    fn sort_contacts(&mut self) {
        let grid = self.stripes;
        let stripes = grid.count;
        let floor = self.config.world.max_y;
        let s = self.config.particle_size;
        let dt = self.last_dt;
        let gravity = self.config.gravity_on && self.config.gravity > 0.0;
        let buf = &mut self.buffers;
        let workers = &self.workers;
        let n = self.particles.len();
        buf.stripe_of.resize(n, 0);
        buf.rest_step
            .resize(n, buf.step.wrapping_sub(REST_STEPS + 1));
        let particles = &self.particles;
        workers.for_each_chunk(&mut buf.stripe_of, CHUNK, |k, chunk| {
            for (j, st) in chunk.iter_mut().enumerate() {
                *st = grid.of(particles[k * CHUNK + j].x);
            }
        });
        // Each contact with its row, and each chunk's lowest and highest row.
        let contacts = &self.contacts;
        let m = contacts.len();
        let chunks = m.div_ceil(CONTACT_CHUNK).max(1);
        buf.unsorted.resize(m, Contact::default());
        buf.row_range.clear();
        buf.row_range.resize(chunks, (u32::MAX, 0));
        let ranges = SharedSlice::new(&mut buf.row_range);
        workers.for_each_chunk(&mut buf.unsorted, CONTACT_CHUNK, |k, chunk| {
            let (mut lo, mut hi) = (u32::MAX, 0);
            for (c, &(a, b)) in chunk.iter_mut().zip(&contacts[k * CONTACT_CHUNK..]) {
                let (pa, pb) = (&particles[a as usize], &particles[b as usize]);
                // Rows half a particle high: a particle and the one it rests on (one side
                // apart, less a small overlap) never share a row, so the support comes first.
                let row =
                    (((floor - pa.y.max(pb.y)) / (0.5 * s)).max(0.0) as u32).min(VERTICAL - 1);
                (lo, hi) = (lo.min(row), hi.max(row));
                let axis = if is_vertical(pa, pb, s, dt, gravity) {
                    VERTICAL
                } else {
                    0
                };
                *c = Contact {
                    row_axis: row | axis,
                    a,
                    b,
                };
            }
            // SAFETY: task k writes entry k only.
            unsafe { *ranges.get(k) = (lo, hi) };
        });
        let (lo, hi) = buf
            .row_range
            .iter()
            .fold((u32::MAX, 0), |(l, h), &(a, b)| (l.min(a), h.max(b)));
        let rows = if m == 0 { 1 } else { (hi - lo) as usize + 1 };
        let stripe_of = &buf.stripe_of;
        let bucket_of = |c: &Contact| {
            let (sa, sb) = (stripe_of[c.a as usize], stripe_of[c.b as usize]);
            if sa.abs_diff(sb) <= 1 {
                sa.min(sb) as usize
            } else {
                stripes
            }
        };
        // One bucket per stripe, and one for the serial pass.
        let width = stripes + 1;
        buf.sorted.resize(m, Contact::default());
        if width.saturating_mul(rows).saturating_mul(chunks) <= 2 * m {
            // One stable counting sort by (stripe, row): the order of a sort by row, then
            // by stripe, at half the passes over the contacts, while the buckets stay few.
            let unsorted = &buf.unsorted;
            let sorted = SharedSlice::new(&mut buf.sorted);
            counting_sort(
                workers,
                m,
                width * rows,
                &mut buf.buckets,
                &mut buf.starts,
                |i| {
                    let c = &unsorted[i];
                    bucket_of(c) * rows + (c.row() - lo) as usize
                },
                // SAFETY: `counting_sort` hands out each position once.
                |i, at| unsafe { *sorted.get(at) = unsorted[i] },
            );
            // Where each stripe starts: where its lowest row starts.
            for bucket in 0..=width {
                buf.starts[bucket] = buf.starts[bucket * rows];
            }
            buf.starts.truncate(width + 1);
        } else if rows <= 2 * m + 4096 {
            let unsorted = &buf.unsorted;
            let sorted = SharedSlice::new(&mut buf.sorted);
            counting_sort(
                workers,
                m,
                rows,
                &mut buf.buckets,
                &mut buf.starts,
                |i| (unsorted[i].row() - lo) as usize,
                // SAFETY: `counting_sort` hands out each position once.
                |i, at| unsafe { *sorted.get(at) = unsorted[i] },
            );
            let by_row = &buf.sorted;
            let unsorted = SharedSlice::new(&mut buf.unsorted);
            counting_sort(
                workers,
                m,
                width,
                &mut buf.buckets,
                &mut buf.starts,
                |i| bucket_of(&by_row[i]),
                // SAFETY: as above.
                |i, at| unsafe { *unsorted.get(at) = by_row[i] },
            );
            std::mem::swap(&mut buf.sorted, &mut buf.unsorted);
        } else {
            let unsorted = &buf.unsorted;
            let sorted = SharedSlice::new(&mut buf.sorted);
            counting_sort(
                workers,
                m,
                width,
                &mut buf.buckets,
                &mut buf.starts,
                |i| bucket_of(&unsorted[i]),
                // SAFETY: as above.
                |i, at| unsafe { *sorted.get(at) = unsorted[i] },
            );
            let starts = &buf.starts;
            workers.for_each(width, |bucket| {
                let range = starts[bucket] as usize..starts[bucket + 1] as usize;
                // SAFETY: buckets are disjoint ranges of `sorted`, one task each.
                unsafe { sorted.range(range) }.sort_unstable_by_key(|c| (c.row(), c.a, c.b));
            });
        }
    }

    /// Runs `solve` on every contact: the even stripes in parallel, then the odd ones, then the
    /// contacts left for the serial pass, each stripe floor first.
    fn each_stripe(
        &mut self,
        params: Params,
        // Generic rather than a function pointer, so each pass inlines its contact solve.
        solve: impl Fn(&Params, bool, &mut Particle, &mut Particle, &mut u32, &mut u32) + Sync,
    ) {
        let buf = &mut self.buffers;
        let stripes = self.stripes.count;
        let particles = SharedSlice::new(&mut self.particles);
        let rest = SharedSlice::new(&mut buf.rest_step);
        let sorted = &buf.sorted;
        let starts = &buf.starts;
        let run = |bucket: usize| {
            for c in &sorted[starts[bucket] as usize..starts[bucket + 1] as usize] {
                let (a, b) = (c.a as usize, c.b as usize);
                // SAFETY: a contact of stripe k touches particles of stripes k and k + 1 only
                // (the sort put the others in the serial bucket), and the stripes solved at
                // once are two apart: no other task reads or writes `a` or `b` now. `a != b`.
                let (pa, pb, ra, rb) =
                    unsafe { (particles.get(a), particles.get(b), rest.get(a), rest.get(b)) };
                solve(&params, c.vertical(), pa, pb, ra, rb);
            }
        };
        for parity in 0..2 {
            let tasks = (stripes + 1 - parity) / 2;
            self.workers.for_each(tasks, |t| run(2 * t + parity));
        }
        run(stripes);
    }
}

/// One Gauss-Seidel step on a contact: an impulse along the contact's axis if the pair
/// closes, with Coulomb friction across it, then a positional correction of most of the
/// overlap.
fn solve_contact(
    p: &Params,
    vertical: bool,
    pa: &mut Particle,
    pb: &mut Particle,
    _: &mut u32,
    _: &mut u32,
) {
    // Fix most of the overlap each pass, but not all at once, so stacks settle instead of
    // jittering.
    const CORRECTION: f32 = 0.8;
    let s = p.size;
    let (dx, dy) = (pb.x - pa.x, pb.y - pa.y);
    let (ox, oy) = (s - dx.abs(), s - dy.abs());
    if ox < 0.0 || oy < 0.0 {
        return; // moved apart while resolving earlier contacts
    }
    // Normal from a to b; coincident squares are separated by index order, so the result is
    // deterministic.
    let (nx, ny, depth) = if vertical {
        (0.0, if dy < 0.0 { -1.0 } else { 1.0 }, oy)
    } else {
        (if dx < 0.0 { -1.0 } else { 1.0 }, 0.0, ox)
    };
    let (rvx, rvy) = (pb.vx - pa.vx, pb.vy - pa.vy);
    let closing = rvx * nx + rvy * ny;
    if closing < 0.0 {
        let e = if -closing <= p.rest_speed {
            0.0
        } else {
            p.restitution
        };
        // Equal masses: each takes half of the impulse (1 + e) * closing.
        let j = -(1.0 + e) * closing * 0.5;
        // Friction: stop the sliding across the normal, up to `friction` times the impulse.
        let sliding = rvx * ny - rvy * nx;
        let jt = (-sliding * 0.5).clamp(-p.friction * j, p.friction * j);
        let (ix, iy) = (j * nx + jt * ny, j * ny - jt * nx);
        pa.vx -= ix;
        pa.vy -= iy;
        pb.vx += ix;
        pb.vy += iy;
    }
    let push = (depth - p.slop).max(0.0) * CORRECTION * 0.5;
    pa.x -= push * nx;
    pa.y -= push * ny;
    pb.x += push * nx;
    pb.y += push * ny;
}

/// Steps for which a particle found resting still counts as resting.
const REST_STEPS: u32 = 8;

/// The shock pass on a contact along y: if the lower particle rests (on the floor, or on a
/// particle that rested within the last [`REST_STEPS`] steps), the upper one is lifted clear of it, cannot
/// fall faster than it, rubs on it with Coulomb friction for the fall it loses, and rests too. Particles in the air are left to the regular passes,
/// so a falling clump falls instead of climbing on itself.
fn shock_contact(
    p: &Params,
    vertical: bool,
    pa: &mut Particle,
    pb: &mut Particle,
    ra: &mut u32,
    rb: &mut u32,
) {
    if !vertical {
        return; // a side contact: the regular passes handled it
    }
    let s = p.size;
    let (upper, lower, up_rest, low_rest) = if pa.y >= pb.y {
        (pb, pa, rb, ra)
    } else {
        (pa, pb, ra, rb)
    };
    let (ox, oy) = (s - (upper.x - lower.x).abs(), s - (lower.y - upper.y));
    if ox <= 0.0 || oy < 0.0 {
        return; // apart now
    }
    // Within a quarter side of the floor counts as on it: gravity brings it down.
    // A support found in the last few steps still counts: a chain of supports broken for a
    // step (its links met out of order, at a stripe's edge) does not drop what it holds.
    let resting = lower.y >= p.floor_y - 0.25 * s || p.step.wrapping_sub(*low_rest) <= REST_STEPS;
    if !resting {
        return;
    }
    upper.y -= (oy - p.slop).max(0.0);
    // The support stops the upper particle's fall into it: that impulse (per unit mass) also
    // brings Coulomb friction, so a particle resting in a pile stops sliding off its support
    // instead of gliding until it drops into a gap (the regular passes see no closing speed
    // inside a resting stack, where gravity moves support and load alike).
    let stopped = (upper.vy - lower.vy).max(0.0);
    upper.vy -= stopped;
    // Shared like the regular passes' friction: equal masses, half each way.
    let sliding = upper.vx - lower.vx;
    let jt = (0.5 * sliding).clamp(-p.friction * stopped, p.friction * stopped);
    upper.vx -= jt;
    lower.vx += jt;
    *up_rest = p.step;
}

/// A stable counting sort of items `0..n` into `width` buckets by `key(i)`, in parallel over
/// fixed chunks of [`CONTACT_CHUNK`] items: `place(i, at)` is called once per item with its
/// position, each position handed out once. Leaves in `starts` where each bucket starts (and
/// `n` at the end).
fn counting_sort(
    workers: &super::parallel::Workers,
    n: usize,
    width: usize,
    counts: &mut Vec<u32>,
    starts: &mut Vec<u32>,
    key: impl Fn(usize) -> usize + Sync + Send,
    place: impl Fn(usize, usize) + Sync + Send,
) {
    let chunks = n.div_ceil(CONTACT_CHUNK).max(1);
    counts.clear();
    counts.resize(chunks * width, 0);
    let items = |k: usize| (k * CONTACT_CHUNK).min(n)..((k + 1) * CONTACT_CHUNK).min(n);
    workers.for_each_chunk(counts, width, |k, counts| {
        for i in items(k) {
            counts[key(i)] += 1;
        }
    });
    // Buckets in order, each chunk's share in chunk order: stable.
    starts.clear();
    let mut at = 0u32;
    for bucket in 0..width {
        starts.push(at);
        for k in 0..chunks {
            let count = counts[k * width + bucket];
            counts[k * width + bucket] = at;
            at += count;
        }
    }
    starts.push(at);
    workers.for_each_chunk(counts, width, |k, next| {
        for i in items(k) {
            let at = &mut next[key(i)];
            place(i, *at as usize);
            *at += 1;
        }
    });
}
