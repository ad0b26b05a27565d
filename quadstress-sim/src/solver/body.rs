//! Each particle's state in the solver ([`Body`]) and the solver's reusable buffers.

use super::contact::Contact;
use super::sort;
use super::{CHUNK, SLEEP_STEPS};
use crate::parallel::Workers;

/// A particle's state in the solver, beside the particle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Body {
    /// Where the particle was after this substep's motion, before its contacts (moved along
    /// with pushes that must not give it speed).
    pub(super) mid: [f32; 2],
    /// Steps in a row it has been slow; asleep from [`SLEEP_STEPS`] on.
    pub(super) still: u32,
    /// The substep on which it was last found supported.
    pub(super) support: u32,
    /// The substeps on which it last touched a particle on its left and on its right.
    pub(super) touched: [u32; 2],
    /// The substeps on which it last had a shoulder on its left and on its right (see
    /// [`SHOULDER`](super::grain::SHOULDER)).
    pub(super) shoulder: [u32; 2],
    /// The substeps on which it last had a particle above it beyond its left and right edge.
    pub(super) roof: [u32; 2],
    /// What it touched along y in the last substep: [`REST_LEFT`], [`REST_RIGHT`], [`LOADED`],
    /// [`OVER`].
    pub(super) rest: u8,
    /// `rest` of the substep before.
    pub(super) rest_before: u8,
    /// Whether it leans in this substep (see `lean`): it tips over its support's edge, which
    /// does not slide, so the support's friction does not hold it back.
    pub(super) leaning: bool,
    /// The substeps it has leaned since it last came down half a side (or slept), and the
    /// height (y) it came down to (minus infinity before it first leans).
    pub(super) lean_substeps: u32,
    pub(super) lean_y: f32,
    /// Steps in a row it has ended within [`SETTLE_DRIFT`] sides of `anchor`, whatever woke
    /// it, pushed it or sped it up in between: settled from [`SETTLED_STEPS`] on (see
    /// `grain::settle`).
    pub(super) settling: u32,
    pub(super) anchor: [f32; 2],
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
            settling: 0,
            anchor: [f32::INFINITY; 2],
        }
    }
}

/// [`Body::rest`]: it rested on a particle whose centre lies left of (or under) its own...
pub(super) const REST_LEFT: u8 = 1;

/// ...on one whose centre lies right of its own...
pub(super) const REST_RIGHT: u8 = 2;

/// ...and a particle rested on it...
pub(super) const LOADED: u8 = 4;

/// ...and its centre lay over a support (within half a side of that one's centre).
pub(super) const OVER: u8 = 8;

/// `still` of a sleeping particle that wakes at the end of the step: something pushed into it
/// or moved past it fast.
pub(super) const WOKEN: u32 = u32::MAX;
/// `still` of a sleeping particle that a neighbour asks to wake (a square on it that may lean
/// off it, a leaning one beside it): it wakes at the end of the step unless it has settled.
pub(super) const WOKEN_SOFT: u32 = u32::MAX - 1;
/// Steps in a row (five seconds; counted as [`SLEEP_STEPS`](super::SLEEP_STEPS) are, in
/// sixtieths of a second at smaller steps) after which a particle that has not strayed has
/// settled:
/// it falls asleep whatever keeps it awake, only a push or a fast neighbour wakes it, and its
/// own pushes into a sleeping one no longer wake that one. Without it, a few squares on a
/// ledge kept each other awake for ever (each, woken by a leaning neighbour, leaned in turn),
/// and so did a pair stuck in each other under a sleeping pile (the awake one's push woke the
/// other, which woke it back).
pub(super) const SETTLED_STEPS: u32 = 300;
/// How far (in sides) a particle may stray from where it was and still count as settling:
/// by position, not speed, since the lean's bursts of speed between steps of rest reset any
/// count of slow steps.
pub(super) const SETTLE_DRIFT: f32 = 0.05;

impl Body {
    #[inline(always)]
    pub(super) fn settled(&self) -> bool {
        self.settling >= SETTLED_STEPS
    }

    #[inline(always)]
    pub(super) fn asleep(&self) -> bool {
        self.still >= SLEEP_STEPS
    }
}

/// The stripe solver's state: each particle's [`Body`], the step being solved and the reusable
/// buffers.
#[derive(Debug, Default)]
pub(crate) struct SolverBuffers {
    pub(super) bodies: Vec<Body>,
    /// Scratch of `renumber`.
    pub(super) renumbered: Vec<Body>,
    /// Where each stripe's particles start, by index, and (last) where the particles outside
    /// every stripe start: fixed by the last reordering.
    pub(super) stripe_starts: Vec<u32>,
    /// The sort's buffers.
    pub(super) sort: sort::SortBuffers,
    /// The contacts by bucket (each stripe, then the serial bucket), each floor first.
    pub(super) sorted: Vec<Contact>,
    /// Where each bucket's contacts start in `sorted` (and, last, the contact count).
    pub(super) starts: Vec<u32>,
    /// Substeps solved so far (wrapping): stamps the supports.
    pub(super) substep: u32,
    /// The time step of the last `integrate`: the later substeps and the tree's boxes use it.
    pub(crate) last_dt: f32,
    /// Seconds simulated since the start or the last `clear` (see `Params::tick`).
    pub(super) clock: f64,
}

impl SolverBuffers {
    /// Forgets every particle's state (the buffers stay).
    pub(crate) fn clear(&mut self) {
        self.bodies.clear();
        self.stripe_starts.clear();
        self.clock = 0.0;
    }

    /// How many particles (from index 0) lie in stripes.
    pub(crate) fn in_stripes(&self) -> usize {
        self.stripe_starts.last().map_or(0, |&s| s as usize)
    }

    /// Sets the stripes: stripe `k` starts at index `start(k)`, and `start(count)` is where
    /// the particles outside every stripe start.
    pub(crate) fn set_stripes(&mut self, count: usize, start: impl Fn(usize) -> usize) {
        self.stripe_starts.clear();
        self.stripe_starts
            .extend((0..=count).map(|k| if k == 0 { 0 } else { start(k) as u32 }));
    }

    /// Follows a reordering of `count` particles: the particle now at index `new` was at
    /// `old_of(new)`. Particles spawned since the last step have no body yet (they are
    /// appended, so theirs are the last old indices): they get a fresh one, and every other
    /// particle keeps its own, asleep or not. (Dropping them all woke a whole pile at every
    /// reordering while a stream poured on it.) Each new body is gathered from its old place,
    /// in fixed chunks on every worker.
    pub(crate) fn renumber(
        &mut self,
        workers: &Workers,
        count: usize,
        old_of: impl Fn(usize) -> usize + Sync + Send,
    ) {
        if self.bodies.len() > count {
            self.bodies.clear();
            return;
        }
        self.renumbered.resize(count, Body::default());
        let bodies = &self.bodies;
        workers.for_each_chunk(&mut self.renumbered, CHUNK, |k, chunk| {
            for (j, body) in chunk.iter_mut().enumerate() {
                *body = bodies
                    .get(old_of(k * CHUNK + j))
                    .copied()
                    .unwrap_or_default();
            }
        });
        std::mem::swap(&mut self.bodies, &mut self.renumbered);
    }

    /// Whether particle `i` sleeps (one with no body yet is awake).
    pub(crate) fn is_asleep(&self, i: usize) -> bool {
        self.bodies.get(i).is_some_and(Body::asleep)
    }

    /// How many particles are asleep.
    pub(crate) fn sleeping(&self) -> usize {
        self.bodies.iter().filter(|b| b.asleep()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renumber_moves_each_body_with_its_particle_and_gives_new_ones_a_fresh_body() {
        // Bodies over several chunks, so that two threads gather in parallel; the last
        // particle was spawned after the last step: it has no body yet. The new order
        // reverses the old one.
        let count = 2 * CHUNK + 3;
        let bodies: Vec<Body> = (0..count as u32 - 1)
            .map(|k| Body {
                still: 10 + k,
                ..Body::default()
            })
            .collect();
        for threads in [1, 2] {
            let mut buffers = SolverBuffers {
                bodies: bodies.clone(),
                ..SolverBuffers::default()
            };
            let workers = Workers::new(threads).unwrap();
            buffers.renumber(&workers, count, |new| count - 1 - new);
            assert_eq!(buffers.bodies.len(), count);
            assert_eq!(buffers.bodies[0], Body::default(), "{threads} threads");
            for (new, body) in buffers.bodies.iter().enumerate().skip(1) {
                let old = count - 1 - new;
                assert_eq!(body.still, 10 + old as u32, "{threads} threads, new {new}");
            }
        }
    }

    #[test]
    fn stripes_fix_the_particles_in_them_until_cleared() {
        let mut buffers = SolverBuffers::default();
        assert_eq!(
            buffers.in_stripes(),
            0,
            "no stripes before the first reordering"
        );
        buffers.set_stripes(3, |k| [0, 4, 9, 12][k]);
        assert_eq!(buffers.stripe_starts, [0, 4, 9, 12]);
        assert_eq!(buffers.in_stripes(), 12);
        buffers.clear();
        assert_eq!(buffers.in_stripes(), 0);
    }
}
