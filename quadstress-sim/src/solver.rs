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

use std::sync::atomic::{AtomicBool, Ordering};

use super::parallel::{SharedSlice, Workers};
use super::{Particle, SimError, Simulation};

/// Particles per task of the per-particle loops: a fixed partition, whatever the thread count.
pub(super) const CHUNK: usize = 4096;
/// Contacts per task when contacts are sorted into stripes.
const CONTACT_CHUNK: usize = 4096;
/// The narrowest stripe, in particle sides.
const MIN_STRIPE_SIDES: f32 = 16.0;
/// The most stripes a world is cut into.
const MAX_STRIPES: usize = 256;

/// A contact as the solver keeps it: the row of its lower particle (counted from the floor,
/// half a particle high) and its axis, then its particles `a < b`. Sorting by this puts a
/// stripe's contacts floor first, in one order whatever the broad phase's order was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Contact {
    /// The row in the low 31 bits (0 once sorted by the one-pass sort: the passes after a
    /// sort read only the axis); the top bit set for a contact along y.
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

    /// The stripe of a particle whose left edge is `x`: never decreasing in `x`, below 256.
    #[inline(always)]
    pub(super) fn of(&self, x: f32) -> u32 {
        // Clamped as a float (NaN, which never happens here, gives 0), so that the
        // conversion needs no checks of its own.
        let at = clamp_to((x - self.left) * self.per_unit, self.last);
        // SAFETY: `at` is a number in `[0, MAX_STRIPES)`.
        unsafe { at.to_int_unchecked::<i32>() as u32 }
    }
}

/// `x` clamped to `[0, hi]`, NaN to 0: one `maxss` and one `minss` (`f32::max` and `f32::min`
/// treat NaN apart, at a few instructions more each).
#[inline(always)]
fn clamp_to(x: f32, hi: f32) -> f32 {
    let x = if x > 0.0 { x } else { 0.0 };
    if x < hi {
        x
    } else {
        hi
    }
}

/// The reusable buffers of the stripe solver.
#[derive(Debug, Default)]
pub(super) struct SolverBuffers {
    /// Per chunk of contacts, a count (then the next position) per bucket: each stripe, then
    /// the serial pass (per bucket and row, in the one-pass sort).
    counts: Vec<u32>,
    /// Each particle's row and stripe, `row << 8 | stripe`: what a contact's key needs of
    /// its particles' positions (the one-pass sort).
    particle_keys: Vec<u32>,
    /// Each contact's bucket and row as one number, with its axis in the top bit, in the
    /// broad phase's order (the one-pass sort).
    key: Vec<u32>,
    /// Each contact's bucket, in the broad phase's order.
    bucket: Vec<u16>,
    /// The contacts with their rows in the broad phase's order, then scratch of the row sort.
    unsorted: Vec<Contact>,
    /// The contacts by bucket, each bucket's floor first.
    sorted: Vec<Contact>,
    /// Each bucket's contacts along y, in the same order, from where the bucket starts in
    /// `sorted`: all the shock pass reads.
    vertical: Vec<Contact>,
    /// How many contacts along y each bucket has.
    verticals: Vec<u32>,
    /// Each contact chunk's lowest and highest row.
    row_range: Vec<(u32, u32)>,
    /// Where each bucket's contacts start in `sorted` (and, last, the contact count).
    starts: Vec<u32>,
    /// Per bucket, a count (then the next position) per row.
    row_counts: Vec<u32>,
    /// The step on which each particle was last found resting on the floor or on a resting
    /// particle (wrapping step numbers).
    rest_step: Vec<u32>,
    /// Scratch of `renumber`.
    renumbered: Vec<u32>,
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
        self.renumbered.clear();
        self.renumbered.resize(new_index.len(), 0);
        for (old, &new) in new_index.iter().enumerate() {
            self.renumbered[new as usize] = self.rest_step[old];
        }
        std::mem::swap(&mut self.rest_step, &mut self.renumbered);
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
    /// The top wall (the least `y`).
    top_y: f32,
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
            top_y: self.config.world.min_y,
            // Under gravity, sand-like friction lets piles come to rest (a stream still
            // spreads); without it, contacts stay frictionless so elastic ones keep energy.
            friction: if self.config.gravity_on { 0.3 } else { 0.0 },
            step: self.buffers.step,
        };
        for _ in 0..self.config.solver_iterations {
            let buf = &mut self.buffers;
            let particles = SharedSlice::new(&mut self.particles);
            let (sorted, starts) = (&buf.sorted, &buf.starts);
            // Each pass also lists each bucket's contacts along y, in order, for the shock
            // pass (the same list every time).
            let vertical = SharedSlice::new(&mut buf.vertical);
            let verticals = SharedSlice::new(&mut buf.verticals);
            // `move`: the closure owns a copy of `params`, which the loop keeps in registers
            // (a reference could alias the particles' stores, as far as the compiler knows).
            // One bucket's contacts, its list of those along y, and that list's length.
            let bucket_of = |bucket: usize| {
                let range = starts[bucket] as usize..starts[bucket + 1] as usize;
                // SAFETY: buckets are disjoint ranges of the contacts; one task each.
                let (vertical, count) =
                    unsafe { (vertical.range(range.clone()), verticals.get(bucket)) };
                (&sorted[range], vertical, count)
            };
            let solve = move |c: &Contact, vertical: &mut [Contact], found: &mut usize| {
                // SAFETY: see `pair_of`; `sort_contacts` checked every index.
                let (pa, pb) = unsafe { pair_of(&particles, c) };
                solve_contact(&params, c.vertical(), pa, pb);
                // SAFETY: `found` counts some of the contacts before this one, so it is
                // below the list's length, which `vertical` has.
                unsafe { *vertical.get_unchecked_mut(*found) = *c };
                *found += usize::from(c.vertical());
            };
            by_stripe_pairs(&self.workers, self.stripes.count, move |first, second| {
                let (list, vertical, count) = bucket_of(first);
                let mut found = 0;
                let Some(second) = second else {
                    for c in list {
                        solve(c, vertical, &mut found);
                    }
                    *count = found as u32;
                    return;
                };
                // Two stripes two apart share no particle: their contacts are solved in
                // turn, so that the processor works on two independent chains of loads and
                // stores at once (each contact waits on the last one's writes), in the same
                // order within each stripe.
                let (list2, vertical2, count2) = bucket_of(second);
                let mut found2 = 0;
                let both = list.len().min(list2.len());
                for (c, c2) in list[..both].iter().zip(&list2[..both]) {
                    solve(c, vertical, &mut found);
                    solve(c2, vertical2, &mut found2);
                }
                for c in &list[both..] {
                    solve(c, vertical, &mut found);
                }
                for c in &list2[both..] {
                    solve(c, vertical2, &mut found2);
                }
                *count = found as u32;
                *count2 = found2 as u32;
            });
        }
        self.keep_inside();
        if self.config.gravity_on && self.config.gravity > 0.0 {
            self.buffers.step = self.buffers.step.wrapping_add(1);
            let params = Params {
                step: self.buffers.step,
                ..params
            };
            let buf = &mut self.buffers;
            let rest = SharedSlice::new(&mut buf.rest_step);
            let particles = SharedSlice::new(&mut self.particles);
            let (vertical, starts, verticals) = (&buf.vertical, &buf.starts, &buf.verticals);
            let lifted_out = AtomicBool::new(false);
            let lifted = &lifted_out;
            let list_of = |bucket: usize| {
                let from = starts[bucket] as usize;
                &vertical[from..from + verticals[bucket] as usize]
            };
            let shock = move |c: &Contact| {
                // SAFETY: as for the particles; `rest_step` has one entry per particle.
                let (pa, pb) = unsafe { pair_of(&particles, c) };
                let (ra, rb) = unsafe { pair_of(&rest, c) };
                shock_contact(&params, pa, pb, ra, rb)
            };
            by_stripe_pairs(&self.workers, self.stripes.count, move |first, second| {
                let list = list_of(first);
                let list2 = second.map_or(&[][..], list_of);
                let mut out = false;
                // In turn, as in the solve passes.
                let both = list.len().min(list2.len());
                for (c, c2) in list[..both].iter().zip(&list2[..both]) {
                    out |= shock(c);
                    out |= shock(c2);
                }
                for c in list[both..].iter().chain(&list2[both..]) {
                    out |= shock(c);
                }
                if out {
                    lifted.store(true, Ordering::Relaxed);
                }
            });
            // The shock pass moves particles only up, and the walls held every particle
            // before it: only one lifted through the top wall can be outside now.
            if lifted_out.into_inner() {
                self.keep_inside();
            }
        }
        self.set_drift(f64::NAN);
    }

    /// Sorts the contacts of the last broad phase into stripes (see the module documentation),
    /// each stripe's floor first; within a row, in the broad phase's order. The order does
    /// not depend on the thread count. Where the world's rows times its stripes are few next
    /// to the contacts, one stable counting sort by stripe and row does it; elsewhere (a tall
    /// world) the contacts go by stripe first, then each stripe by row, so that nothing is
    /// sized by the world.
    fn sort_contacts(&mut self) {
        let keys = Keys {
            floor: self.config.world.max_y,
            size: self.config.particle_size,
            dt: self.last_dt,
            gravity: self.config.gravity_on && self.config.gravity > 0.0,
            grid: self.stripes,
        };
        let n = self.particles.len();
        self.buffers
            .rest_step
            .resize(n, self.buffers.step.wrapping_sub(REST_STEPS + 1));
        // One bucket per stripe, and one for the serial pass.
        let width = self.stripes.count + 1;
        let m = self.contacts.len();
        // Every particle lies inside the world, so its row is at most the top's.
        let rows = keys.row(self.config.world.min_y) as usize + 1;
        let cells = rows.saturating_mul(width);
        // The one-pass sort keeps a row in 24 bits and a cell with an axis in 32.
        if rows < 1 << 24 && cells < 1 << 31 && cells <= 4 * m + 65_536 {
            self.sort_contacts_in_one_pass(&keys, rows);
        } else {
            self.sort_contacts_by_stripe_then_row(&keys);
        }
    }

    /// `sort_contacts` as one stable counting sort by bucket and row, for worlds whose rows
    /// times buckets are few next to the contacts: the order is the same as
    /// [`sort_contacts_by_stripe_then_row`](Self::sort_contacts_by_stripe_then_row) gives.
    /// Each particle's row and stripe are found once, in a pass over the particles; then one
    /// pass over the contacts finds each contact's key and counts the keys, and a second puts
    /// the contacts in place. The contacts are counted in a few consecutive groups, each
    /// counting for itself, so that the groups run in parallel; a stable counting sort has
    /// one answer, whatever the groups.
    fn sort_contacts_in_one_pass(&mut self, keys: &Keys, rows: usize) {
        let width = self.stripes.count + 1;
        let cells = rows * width;
        let buf = &mut self.buffers;
        let workers = &self.workers;
        let particles = &self.particles;
        let contacts = &self.contacts;
        let (n, m) = (particles.len(), contacts.len());
        let last_row = (rows - 1) as u32;
        buf.particle_keys.resize(n, 0);
        // `move`: a copy of `keys` in registers, as in `resolve`.
        let keys = *keys;
        workers.for_each_chunk(&mut buf.particle_keys, CHUNK, move |k, chunk| {
            let from = &particles[k * CHUNK..k * CHUNK + chunk.len()];
            for (key, p) in chunk.iter_mut().zip(from) {
                *key = keys.row(p.y).min(last_row) << 8 | keys.grid.of(p.x);
            }
        });
        // Groups of contacts, as many as the threads (each at least 65,536 contacts) while
        // their counts stay few next to the contacts.
        let groups = (m / 65_536)
            .min((4 * m + 65_536) / cells)
            .clamp(1, workers.threads());
        let per_group = m.div_ceil(groups).max(1);
        let items = |g: usize| (g * per_group).min(m)..((g + 1) * per_group).min(m);
        buf.sorted.resize(m, Contact::default());
        buf.vertical.resize(m, Contact::default());
        buf.key.resize(m, 0);
        buf.counts.clear();
        buf.counts.resize(groups * cells, 0);
        {
            let key = SharedSlice::new(&mut buf.key);
            let particle_keys = &buf.particle_keys;
            workers.for_each_chunk(&mut buf.counts, cells, move |g, counts| {
                // SAFETY: task g alone touches group g's contacts.
                let out_key = unsafe { key.range(items(g)) };
                let chunk = &contacts[items(g)];
                for (k, &(a, b)) in out_key.iter_mut().zip(chunk) {
                    // Indexing checks `a` and `b` (the passes after this one rely on it);
                    // the particles have as many entries as their keys.
                    let (ka, kb) = (particle_keys[a as usize], particle_keys[b as usize]);
                    // SAFETY: `a` and `b` are below `n`, checked just above.
                    let (pa, pb) = unsafe {
                        (
                            particles.get_unchecked(a as usize),
                            particles.get_unchecked(b as usize),
                        )
                    };
                    // The row of the lower particle: rows never grow downwards.
                    let row = (ka >> 8).min(kb >> 8);
                    let bucket = keys.bucket(ka & 0xff, kb & 0xff);
                    let axis = if is_vertical(pa, pb, keys.size, keys.dt, keys.gravity) {
                        VERTICAL
                    } else {
                        0
                    };
                    let at = bucket * rows + row as usize;
                    *k = at as u32 | axis;
                    debug_assert!(at < cells);
                    // SAFETY: the bucket is at most the stripe count and the row at most
                    // `last_row`, so `at` is below `cells`, the length of `counts`.
                    unsafe { *counts.get_unchecked_mut(at) += 1 };
                }
            });
        }
        // Cells in order, each group's share in group order: stable.
        buf.starts.clear();
        let starts = &mut buf.starts;
        let end = counts_to_offsets(&mut buf.counts, cells, groups, |cell, at| {
            if cell % rows == 0 {
                starts.push(at);
            }
        });
        buf.starts.push(end);
        buf.verticals.resize(width, 0);
        let key = &buf.key;
        let sorted = SharedSlice::new(&mut buf.sorted);
        workers.for_each_chunk(&mut buf.counts, cells, |g, next| {
            for (&k, &(a, b)) in key[items(g)].iter().zip(&contacts[items(g)]) {
                // The solver reads the axis of a sorted contact, not its row.
                let c = Contact {
                    row_axis: k & VERTICAL,
                    a,
                    b,
                };
                let k = k & !VERTICAL;
                debug_assert!((k as usize) < cells);
                // SAFETY: every key is below `cells` (see above); the counts hand out each
                // position below `m` once.
                unsafe {
                    let at = next.get_unchecked_mut(k as usize);
                    *sorted.get_unchecked(*at as usize) = c;
                    *at += 1;
                }
            }
        });
    }

    /// `sort_contacts` for any world. One pass over fixed chunks of contacts finds each
    /// contact's row, axis and stripe (from its particles' positions) and counts the stripes;
    /// a second puts the contacts in stripe order; then each stripe, in its own task, sorts
    /// its contacts by row (a counting sort, stable). Where the rows span far more than there
    /// are contacts, each stripe is sorted by comparison instead.
    fn sort_contacts_by_stripe_then_row(&mut self, keys: &Keys) {
        let keys = *keys;
        // One bucket per stripe, and one for the serial pass.
        let width = self.stripes.count + 1;
        let buf = &mut self.buffers;
        let workers = &self.workers;
        let particles = &self.particles;
        let contacts = &self.contacts;
        let m = contacts.len();
        let chunks = m.div_ceil(CONTACT_CHUNK).max(1);
        let items = |k: usize| (k * CONTACT_CHUNK).min(m)..((k + 1) * CONTACT_CHUNK).min(m);
        buf.unsorted.resize(m, Contact::default());
        buf.sorted.resize(m, Contact::default());
        buf.vertical.resize(m, Contact::default());
        buf.bucket.resize(m, 0);
        buf.row_range.clear();
        buf.row_range.resize(chunks, (u32::MAX, 0));
        buf.counts.clear();
        buf.counts.resize(chunks * width, 0);
        // Each contact with its row and bucket, each chunk's count per bucket, and each
        // chunk's lowest and highest row.
        {
            let unsorted = SharedSlice::new(&mut buf.unsorted);
            let bucket = SharedSlice::new(&mut buf.bucket);
            let ranges = SharedSlice::new(&mut buf.row_range);
            // `move`: a copy of `keys` in registers, as in `resolve`.
            workers.for_each_chunk(&mut buf.counts, width, move |k, counts| {
                // SAFETY: task k alone touches chunk k's contacts and entry k of the ranges.
                let (out, out_bucket, range) = unsafe {
                    (
                        unsorted.range(items(k)),
                        bucket.range(items(k)),
                        ranges.get(k),
                    )
                };
                let (mut lo, mut hi) = (u32::MAX, 0);
                let chunk = &contacts[items(k)];
                for ((c, bk), &(a, b)) in out.iter_mut().zip(out_bucket).zip(chunk) {
                    // Indexing checks `a` and `b`: the passes after this one rely on it.
                    let (contact, at) =
                        keys.of(a, b, &particles[a as usize], &particles[b as usize]);
                    (lo, hi) = (lo.min(contact.row()), hi.max(contact.row()));
                    *c = contact;
                    *bk = at as u16;
                    counts[at] += 1;
                }
                *range = (lo, hi);
            });
        }
        // Buckets in order, each chunk's share in chunk order: stable.
        buf.starts.clear();
        let starts = &mut buf.starts;
        let end = counts_to_offsets(&mut buf.counts, width, chunks, |_, at| starts.push(at));
        buf.starts.push(end);
        {
            let (unsorted, bucket) = (&buf.unsorted, &buf.bucket);
            let sorted = SharedSlice::new(&mut buf.sorted);
            workers.for_each_chunk(&mut buf.counts, width, |k, next| {
                for i in items(k) {
                    let at = &mut next[bucket[i] as usize];
                    // SAFETY: the counts hand out each position once.
                    unsafe { *sorted.get(*at as usize) = unsorted[i] };
                    *at += 1;
                }
            });
        }
        // Each bucket by row, from `sorted` into `unsorted` (then swapped), and its contacts
        // along y listed apart.
        let (lo, hi) = buf
            .row_range
            .iter()
            .fold((u32::MAX, 0), |(l, h), &(a, b)| (l.min(a), h.max(b)));
        let rows = if m == 0 { 1 } else { (hi - lo) as usize + 1 };
        let by_count = rows.saturating_mul(width) <= 4 * m + 65_536;
        if by_count {
            buf.row_counts.resize(rows * width, 0);
        }
        buf.verticals.resize(width, 0);
        let starts = &buf.starts;
        let from = SharedSlice::new(&mut buf.sorted);
        let to = SharedSlice::new(&mut buf.unsorted);
        let row_counts = SharedSlice::new(&mut buf.row_counts);
        workers.for_each(width, |bucket| {
            let range = starts[bucket] as usize..starts[bucket + 1] as usize;
            // SAFETY: buckets are disjoint ranges of the contacts, and of the row counts; one
            // task each.
            let (from, to) = unsafe { (from.range(range.clone()), to.range(range)) };
            if by_count {
                // SAFETY: as above.
                let next = unsafe { row_counts.range(bucket * rows..(bucket + 1) * rows) };
                next.fill(0);
                for c in from.iter() {
                    next[(c.row() - lo) as usize] += 1;
                }
                let mut at = 0;
                for n in next.iter_mut() {
                    (*n, at) = (at, at + *n);
                }
                for c in from.iter() {
                    let at = &mut next[(c.row() - lo) as usize];
                    to[*at as usize] = *c;
                    *at += 1;
                }
            } else {
                to.copy_from_slice(from);
                to.sort_unstable_by_key(|c| (c.row(), c.a, c.b));
            }
        });
        std::mem::swap(&mut buf.sorted, &mut buf.unsorted);
    }
}

/// What `sort_contacts` needs to know of a contact: its row, axis and bucket.
#[derive(Clone, Copy)]
struct Keys {
    floor: f32,
    size: f32,
    dt: f32,
    gravity: bool,
    grid: StripeGrid,
}

impl Keys {
    /// The contact of `a` and `b` as the solver keeps it, and its bucket: the stripe of its
    /// left particle, or the serial pass if its particles are more than a stripe apart.
    #[inline(always)]
    fn of(&self, a: u32, b: u32, pa: &Particle, pb: &Particle) -> (Contact, usize) {
        // The lower particle's top edge (as `f32::max`, NaN apart).
        let y = if pa.y > pb.y { pa.y } else { pb.y };
        let row = self.row(y);
        let axis = if is_vertical(pa, pb, self.size, self.dt, self.gravity) {
            VERTICAL
        } else {
            0
        };
        let bucket = self.bucket(self.grid.of(pa.x), self.grid.of(pb.x));
        let contact = Contact {
            row_axis: row | axis,
            a,
            b,
        };
        (contact, bucket)
    }

    /// The row of a particle whose top edge is `y`. Rows are half a particle high: a particle
    /// and the one it rests on (one side apart, less a small overlap) never share a row, so
    /// the support comes first. Never increasing in `y`, so the row of the lower of two
    /// particles is the smaller of their rows.
    #[inline(always)]
    fn row(&self, y: f32) -> u32 {
        // Clamped as a float (NaN, which never happens here, gives 0), so that the
        // conversion needs no checks of its own; rows too far up for 31 bits share the last
        // (the largest `f32` below 2^31).
        let row = clamp_to((self.floor - y) / (0.5 * self.size), 2_147_483_520.0);
        // SAFETY: `row` is a number in `[0, 2^31)`.
        unsafe { row.to_int_unchecked::<i32>() as u32 }
    }

    /// The bucket of a contact whose particles are in stripes `sa` and `sb`: the left one's
    /// stripe, or the serial pass if they are more than a stripe apart.
    #[inline(always)]
    fn bucket(&self, sa: u32, sb: u32) -> usize {
        if sa.abs_diff(sb) <= 1 {
            sa.min(sb) as usize
        } else {
            self.grid.count
        }
    }
}

/// The particles (or their entries of another per-particle slice) of contact `c`.
///
/// # Safety
/// `c.a` and `c.b` are in bounds (`sort_contacts` indexed the particles with them), differ,
/// and no other task touches them now: a contact of stripe k touches particles of stripes k
/// and k + 1 only (`sort_contacts` put the others in the serial bucket), and the stripes
/// solved at once are two apart.
#[allow(clippy::mut_from_ref)]
#[inline(always)]
unsafe fn pair_of<'a, T>(slice: &'a SharedSlice<'_, T>, c: &Contact) -> (&'a mut T, &'a mut T) {
    unsafe {
        (
            slice.get_unchecked(c.a as usize),
            slice.get_unchecked(c.b as usize),
        )
    }
}

/// Turns counts laid out group by group (`counts[g * buckets + k]`: group `g`'s items in
/// bucket `k`) into the position where each group's share of each bucket starts, buckets in
/// order and each bucket's groups in group order, so a scatter by group is a stable sort.
/// `bucket_start(k, at)` hears where each bucket starts; returns the total.
fn counts_to_offsets(
    counts: &mut [u32],
    buckets: usize,
    groups: usize,
    mut bucket_start: impl FnMut(usize, u32),
) -> u32 {
    let mut at = 0u32;
    for bucket in 0..buckets {
        bucket_start(bucket, at);
        for g in 0..groups {
            let count = counts[g * buckets + bucket];
            counts[g * buckets + bucket] = at;
            at += count;
        }
    }
    at
}

/// Runs `run(first, second)` over every stripe: the even stripes in parallel, then the odd
/// ones, two stripes of one parity a task (`first` and `first + 2`, the second left out past
/// the last stripe), then the serial bucket alone. The two stripes of a task share no
/// particle, so the task may interleave their contacts.
///
/// On several threads, an odd number of tasks has its middle pair run as two tasks of one
/// stripe: the pool halves the task list between threads, and equal halves keep both busy to
/// the end. Which stripes share a task never changes what a stripe computes.
fn by_stripe_pairs(
    workers: &Workers,
    stripes: usize,
    run: impl Fn(usize, Option<usize>) + Sync + Send,
) {
    for parity in 0..2 {
        let of_parity = (stripes + 1 - parity) / 2;
        let pairs = of_parity.div_ceil(2);
        // The pair split in two, if any.
        let split = (!workers.serial() && pairs % 2 == 1 && pairs > 1).then_some(pairs / 2);
        let tasks = pairs + usize::from(split.is_some());
        // The `k`-th stripe of this parity, if there is one.
        let stripe = |k: usize| Some(2 * k + parity).filter(|&s| s < stripes);
        workers.for_each(tasks, |t| match split {
            Some(m) if t == m || t == m + 1 => run(2 * (2 * m + t - m) + parity, None),
            Some(m) if t > m + 1 => run(4 * (t - 1) + parity, stripe(2 * (t - 1) + 1)),
            _ => run(4 * t + parity, stripe(2 * t + 1)),
        });
    }
    run(stripes, None);
}

/// One Gauss-Seidel step on a contact: an impulse along the contact's axis if the pair
/// closes, with Coulomb friction across it, then a positional correction of most of the
/// overlap.
#[inline(always)]
fn solve_contact(p: &Params, vertical: bool, pa: &mut Particle, pb: &mut Particle) {
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
        let jt = clamp(-sliding * 0.5, p.friction * j);
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

/// `x` clamped to `[-limit, limit]` (`limit >= 0`), as `f32::clamp` would, without its check
/// that the bounds are in order.
#[inline(always)]
fn clamp(x: f32, limit: f32) -> f32 {
    let x = if x < -limit { -limit } else { x };
    if x > limit {
        limit
    } else {
        x
    }
}

/// Steps for which a particle found resting still counts as resting.
const REST_STEPS: u32 = 8;

/// The shock pass on a contact along y: if the lower particle rests (on the floor, or on a
/// particle that rested within the last [`REST_STEPS`] steps), the upper one is lifted clear of it, cannot
/// fall faster than it, rubs on it with Coulomb friction for the fall it loses, and rests too. Particles in the air are left to the regular passes,
/// so a falling clump falls instead of climbing on itself. Returns whether it lifted a
/// particle through the top wall (the only wall a lift can cross).
#[inline(always)]
fn shock_contact(
    p: &Params,
    pa: &mut Particle,
    pb: &mut Particle,
    ra: &mut u32,
    rb: &mut u32,
) -> bool {
    let s = p.size;
    let (upper, lower, up_rest, low_rest) = if pa.y >= pb.y {
        (pb, pa, rb, ra)
    } else {
        (pa, pb, ra, rb)
    };
    let (ox, oy) = (s - (upper.x - lower.x).abs(), s - (lower.y - upper.y));
    if ox <= 0.0 || oy < 0.0 {
        return false; // apart now
    }
    // Within a quarter side of the floor counts as on it: gravity brings it down.
    // A support found in the last few steps still counts: a chain of supports broken for a
    // step (its links met out of order, at a stripe's edge) does not drop what it holds.
    let resting = lower.y >= p.floor_y - 0.25 * s || p.step.wrapping_sub(*low_rest) <= REST_STEPS;
    if !resting {
        return false;
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
    let jt = clamp(0.5 * sliding, p.friction * stopped);
    upper.vx -= jt;
    lower.vx += jt;
    *up_rest = p.step;
    upper.y < p.top_y
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Every stripe runs once, the even ones before the odd ones, a task's two stripes two
    /// apart, and the serial bucket last, on any thread count (one pair split in two or not).
    #[test]
    fn stripe_pairs_run_every_stripe_once_by_parity() {
        for threads in [1, 2, 3, 8] {
            let workers = Workers::new(threads).unwrap();
            for stripes in 1..=40 {
                let ran = Mutex::new(Vec::new());
                by_stripe_pairs(&workers, stripes, |first, second| {
                    let mut ran = ran.lock().unwrap();
                    ran.push(first);
                    if let Some(second) = second {
                        assert_eq!(second, first + 2);
                        assert!(second < stripes);
                        ran.push(second);
                    }
                });
                let mut ran = ran.into_inner().unwrap();
                assert_eq!(ran.pop(), Some(stripes), "serial bucket last");
                let odd = ran.iter().position(|s| s % 2 == 1).unwrap_or(ran.len());
                assert!(ran[odd..].iter().all(|s| s % 2 == 1), "{ran:?}");
                ran.sort_unstable();
                assert_eq!(ran, (0..stripes).collect::<Vec<_>>());
            }
        }
    }
}
