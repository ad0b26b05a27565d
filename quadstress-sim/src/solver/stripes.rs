//! How the world is cut into stripes, and the walk of the contacts stripe by stripe: even
//! stripes at once, then odd ones, then the serial bucket (see the module documentation of
//! `solver`).

use super::body::Body;
use super::contact::{bounces, restitute, solve_contact_in, Contact};
use super::Params;
use crate::parallel::Cut;
use crate::{Particle, Simulation};

/// The narrowest stripe, in particle sides.
pub(super) const MIN_STRIPE_SIDES: f32 = 16.0;

/// The most stripes a world is cut into.
pub(super) const MAX_STRIPES: usize = 256;

/// How the world is cut into stripes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StripeGrid {
    /// Stripes, at least 1.
    count: usize,
    /// The last stripe, as a float.
    last: f32,
    left: f32,
    per_unit: f32,
}

impl StripeGrid {
    pub(crate) fn new(world_left: f32, world_width: f32, size: f32) -> Self {
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

    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// The stripe of a particle whose left edge is `x`: never decreasing in `x`, below 256.
    #[inline(always)]
    pub(crate) fn of(&self, x: f32) -> u32 {
        // `as` saturates (and takes NaN, which never happens here, to 0).
        ((x - self.left) * self.per_unit).min(self.last) as u32
    }
}

impl Simulation {
    /// Runs `solve_contact_in` (or, if `RESTITUTE`, `restitute`) on every sorted contact with its
    /// particles and bodies, stripe by stripe (see the module documentation). The choice is a
    /// constant, not a closure: a closure around the solve was called once per contact (its
    /// calls, a tenth of the solver's instructions); a direct call is inlined into the loop.
    pub(super) fn each_contact<const RESTITUTE: bool>(&mut self, p: &Params) {
        // On one thread a task solves two stripes in turn (see `each_stripe`); on more, each
        // stripe is a task of its own, so that the threads share the work in finer parts
        // (with two threads and seven two-stripe tasks one thread would solve four). Either
        // way each stripe's contacts go in the same order: the same bits.
        match (self.workers.serial(), p.gravity) {
            (true, true) => self.each_stripe::<RESTITUTE, 4, true>(p),
            (true, false) => self.each_stripe::<RESTITUTE, 4, false>(p),
            (false, true) => self.each_stripe::<RESTITUTE, 2, true>(p),
            (false, false) => self.each_stripe::<RESTITUTE, 2, false>(p),
        }
    }

    /// [`each_contact`](Self::each_contact) with tasks of `SPAN` stripes: 2 (a task solves
    /// one stripe) or 4 (two, in turn).
    fn each_stripe<const RESTITUTE: bool, const SPAN: usize, const GRAVITY: bool>(
        &mut self,
        p: &Params,
    ) {
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
                                on_pair::<RESTITUTE, GRAVITY>(prm, p, b, p0, c);
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
                            on_pair::<RESTITUTE, GRAVITY>(prm, p, b, p0, c1);
                            on_pair::<RESTITUTE, GRAVITY>(prm, p, b, p0, c2);
                        }
                        for c in rest1.iter_mut().chain(rest2) {
                            on_pair::<RESTITUTE, GRAVITY>(prm, p, b, p0, c);
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
            on_pair::<RESTITUTE, GRAVITY>(p, &mut self.particles, bodies, 0, c);
        }
    }
}

/// Runs `solve_contact_in` (`restitute` if `RESTITUTE`) on contact `c` with its particles, from
/// slices that start at index `offset`.
#[inline(always)]
fn on_pair<const RESTITUTE: bool, const GRAVITY: bool>(
    p: &Params,
    particles: &mut [Particle],
    bodies: &mut [Body],
    offset: usize,
    c: &mut Contact,
) {
    // Restitution concerns only the contacts that closed fast: the rest leave before their
    // particles are read.
    if RESTITUTE && !bounces(p, c) {
        return;
    }
    let (i, j) = (c.a as usize - offset, c.b as usize - offset);
    let (pa, pb) = two(particles, i, j);
    let (ba, bb) = two(bodies, i, j);
    if RESTITUTE {
        restitute(p, c, pa, ba, pb, bb);
    } else {
        solve_contact_in::<GRAVITY>(p, c, pa, ba, pb, bb);
    }
}

/// Elements `i < j` of `slice`, both mutable.
#[inline(always)]
fn two<T>(slice: &mut [T], i: usize, j: usize) -> (&mut T, &mut T) {
    let (lo, hi) = slice.split_at_mut(j);
    (&mut lo[i], &mut hi[0])
}
