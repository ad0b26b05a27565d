//! The broad phase: the tree kept up to date with the particles, the contacts found through
//! it (or by brute force), and the questions asked of it between steps (`touching`).
//!
//! # What the tree holds
//! Each particle's square at the start of the step (after the first substep's motion), swept
//! along its velocity over one step and grown by [`MARGIN`] sides all round, clamped to the
//! world. The pairs of these boxes are every pair the step's substeps can bring into
//! contact, however fast: the solver then lands a fast particle on the row it would cross
//! (speculative contacts, as in Box2D). The margin catches the small sideways moves the
//! pushes of a step make.
//!
//! # Sleeping particles
//! A sleeping particle does not move, and the solver leaves a pair of two sleeping ones alone
//! (see the solver's documentation), so the broad phase skips what concerns only them. The
//! tree update moves the awake particles and those that fell asleep in the last step (the
//! tree last saw them moving), every particle when the step or gravity changed (a box's
//! sweep depends on them). The contact list leaves out pairs of two sleeping particles, in
//! every mode; when at most a quarter of the particles is awake, the incremental mode finds
//! it by asking the tree about each awake particle's box instead of searching all pairs. On
//! the 100,000 particles' pile, once asleep, the two phases then take a few tenths of a
//! millisecond instead of several milliseconds. Which search runs depends on the counts
//! alone, and the awake particles are searched in fixed chunks joined in order: the same
//! contact list on any thread count.
//!
//! # How the tree update moves them
//! When at least a quarter of the particles move (the pile while it falls), the update walks the
//! tree's lists in their own order ([`Quadtree::update_all`]), asking for each item's new box by
//! its payload, and a sleeping particle's item gets its own box back: the lists are read and
//! written front to back, where a batch of handles ([`Quadtree::update_many`]) reaches each item's
//! entry through its slot and reads each move's plan again from the node walk (on the falling pile
//! the walk costs about a quarter less: BENCHMARKS.md). Fewer moves go as one batch of handles,
//! which spares the walk over every item. The walk's chunks and the batch's follow the tree and the
//! counts alone, so either leaves the same tree on any thread count; the two leave the items in
//! different orders, and the pair order follows.

use std::sync::atomic::{AtomicU64, Ordering};

use quadstress::{ItemId, PairWorkspace, Quadtree, Rect, UpdateWorkspace};

use super::{Broadphase, Particle, SimError, Simulation, StepCounts};

/// How far, in particle sides, the tree's box of a particle reaches beyond its swept square.
pub const MARGIN: f32 = 0.0625;

/// The pair search asks the tree about each awake particle's box when at most one particle in
/// this many is awake, and searches all pairs otherwise.
const AWAKE_QUERY_SHARE: usize = 4;
/// The tree update walks every item ([`Quadtree::update_all`]) when at least one particle in
/// this many moves, and moves a batch of handles otherwise.
const WALK_SHARE: usize = 4;
/// Awake particles per task of that search.
const AWAKE_CHUNK: usize = 1024;

/// How a particle's box in the tree is made from its square (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub(super) struct Sweep {
    size: f32,
    /// The step, in seconds, and what gravity adds to a velocity over it.
    dt: f32,
    g_dt: f32,
    margin: f32,
    world: Rect,
}

impl Sweep {
    /// What a box depends on beside the particle: the step and gravity's share of it (bits).
    pub(super) fn key(&self) -> [u32; 2] {
        [self.dt.to_bits(), self.g_dt.to_bits()]
    }

    /// The particle's box.
    #[inline(always)]
    pub(super) fn rect(&self, p: &Particle) -> Rect {
        let w = &self.world;
        // `clamp` keeps an overflowing product (a huge step) inside the world.
        let x1 = (p.x + p.vx * self.dt).clamp(w.min_x, w.max_x);
        let y1 = (p.y + (p.vy + self.g_dt) * self.dt).clamp(w.min_y, w.max_y);
        let m = self.margin;
        Rect::new(
            (p.x.min(x1) - m).max(w.min_x),
            (p.y.min(y1) - m).max(w.min_y),
            (p.x.max(x1) + self.size + m).min(w.max_x),
            (p.y.max(y1) + self.size + m).min(w.max_y),
        )
    }
}

/// The broad phase's state: the tree and each particle's handle in it, what the tree last
/// saw of each particle (to answer `touching` between steps), the contacts it found and the
/// buffers its searches reuse. Kept together because every one of them follows the tree: a
/// tree update, a rebuild or a clear changes them all.
#[derive(Debug)]
pub(super) struct BroadPhase {
    pub(super) tree: Quadtree<u32>,
    /// Tree handle of each particle, by index (the tree's payload is the index).
    pub(super) ids: Vec<ItemId>,
    pub(super) contacts: Vec<(u32, u32)>,
    /// Reused buffer of the particles' squares for the brute-force broad phase.
    pub(super) rects: Vec<Rect>,
    /// The tree's pair search's reusable buffers.
    pub(super) pair_buffers: PairWorkspace<(u32, u32)>,
    pub(super) moves: UpdateWorkspace,
    /// The most any particle has moved along an axis since the tree last saw it (as `f64`
    /// bits; NaN until `drift` measures it against `seen`): lets `touching` ask the tree and
    /// still answer for the particles' positions now. Measured on demand, so that steps do
    /// not pay for the pass.
    drift: AtomicU64,
    /// Each particle's top-left corner as the tree last saw it (the tree's rectangle's
    /// minimum), kept by index: `drift` then reads two arrays in order instead of looking up
    /// every particle's rectangle in the tree.
    pub(super) seen: Vec<[f32; 2]>,
    /// Whether each particle sleeps in this step, and the awake ones' indices.
    pub(super) asleep: Vec<bool>,
    pub(super) awake: Vec<u32>,
    /// Whether the tree's box of each particle was made while it was awake: it may have moved
    /// since, so the next update refreshes it even if it sleeps now.
    pub(super) stale: Vec<bool>,
    /// The particles the tree update moves (indices, and their handles).
    moved: Vec<u32>,
    moved_ids: Vec<ItemId>,
    /// Whether the tree update moves each particle, by index.
    moving: Vec<bool>,
    /// The step and gravity's share of it that the tree's boxes were made with (bits): a
    /// sleeping particle's box depends on them.
    pub(super) tree_sweep: [u32; 2],
    /// Per task of the awake particles' pair search: its pairs and how many items it tested.
    awake_pairs: Vec<(Vec<(u32, u32)>, u64)>,
    pub(super) counts: StepCounts,
}

impl BroadPhase {
    /// An empty broad phase around `tree`. No box has been made yet, so the first update
    /// moves every particle whatever the step.
    pub(super) fn new(tree: Quadtree<u32>) -> Self {
        BroadPhase {
            tree,
            ids: Vec::new(),
            contacts: Vec::new(),
            rects: Vec::new(),
            pair_buffers: PairWorkspace::new(),
            moves: UpdateWorkspace::new(),
            drift: AtomicU64::new(0f64.to_bits()),
            seen: Vec::new(),
            asleep: Vec::new(),
            awake: Vec::new(),
            stale: Vec::new(),
            moved: Vec::new(),
            moved_ids: Vec::new(),
            moving: Vec::new(),
            tree_sweep: [u32::MAX; 2],
            awake_pairs: Vec::new(),
            counts: StepCounts::default(),
        }
    }

    /// Forgets every particle; the buffers keep their room.
    pub(super) fn clear(&mut self) {
        self.ids.clear();
        self.seen.clear();
        self.set_drift(0.0);
        self.tree.clear();
        self.contacts.clear();
        self.rects.clear();
        self.asleep.clear();
        self.awake.clear();
        self.stale.clear();
        self.counts = StepCounts::default();
    }

    /// Records the drift (NaN: unknown, to be measured on the next call that needs it).
    pub(super) fn set_drift(&self, drift: f64) {
        self.drift.store(drift.to_bits(), Ordering::Relaxed);
    }

    /// The drift recorded, NaN when it has to be measured.
    fn known_drift(&self) -> f64 {
        f64::from_bits(self.drift.load(Ordering::Relaxed))
    }
}

impl Simulation {
    /// How this step's boxes are made.
    pub(super) fn sweep(&self) -> Sweep {
        let limit = self.speed_limit;
        let dt = self.buffers.last_dt;
        Sweep {
            size: self.config.particle_size,
            dt,
            g_dt: if self.config.gravity_on {
                (self.config.gravity * dt).clamp(-limit, limit)
            } else {
                0.0
            },
            margin: MARGIN * self.config.particle_size,
            world: self.config.world,
        }
    }

    /// The most any particle has moved along an axis since the tree last saw it, in world
    /// units: each particle's square is its square when the tree last saw it (which the tree's
    /// box of it contains) moved by at most this along x and along y, so a query of the tree
    /// grown by it finds every particle that touches the query where it is now (see [`touching`](Self::touching)). One scan of the particles
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
        let known = self.broad.known_drift();
        if !known.is_nan() {
            return known;
        }
        let mut drift = 0f32;
        let mut widen = |moved: f32| drift = if moved > drift { moved } else { drift };
        if self.broad.seen.len() == self.particles.len() {
            for (p, &[ax, ay]) in self.particles.iter().zip(&self.broad.seen) {
                widen((p.x - ax).abs());
                widen((p.y - ay).abs());
            }
        } else {
            // Every path that gives the tree a square records it in `seen`; should one miss,
            // the world's size is a drift that holds whatever happened.
            debug_assert!(
                false,
                "seen: {} of {}",
                self.broad.seen.len(),
                self.particles.len()
            );
            let w = self.config.world;
            widen(w.width().max(w.height()));
        }
        // The differences were rounded to f32: allow for that.
        let drift = drift as f64 * (1.0 + 1e-6);
        self.broad.set_drift(drift);
        drift
    }

    /// [`update_tree`](Self::update_tree) then the pair search of the step: the contact list
    /// is the same set in every broad-phase mode.
    pub fn find_contacts(&mut self) {
        self.update_tree();
        self.find_pairs();
    }

    /// Phase: brings the tree up to date with the particles' positions: one walk over the
    /// tree's items or one batch of moves (incremental and brute-force modes, on every worker;
    /// see the module documentation), or clear and bulk insert (rebuild mode).
    pub fn update_tree(&mut self) {
        let n = self.particles.len();
        // A sleeping particle has not moved since the tree last saw it, unless it fell asleep
        // since (its box is then stale) or the boxes' sweep changed. One pass sorts the
        // particles into asleep and awake and, for the incremental modes, marks those the
        // update moves.
        let sweep = self.sweep();
        let whole = sweep.key() != self.broad.tree_sweep;
        let rebuild = self.config.broadphase == Broadphase::Rebuild;
        let broad = &mut self.broad;
        broad.asleep.clear();
        broad.awake.clear();
        broad.moving.clear();
        broad.stale.resize(n, true);
        let mut moving_count = 0;
        for (i, stale) in broad.stale.iter_mut().enumerate() {
            let asleep = self.buffers.is_asleep(i);
            broad.asleep.push(asleep);
            if !asleep {
                broad.awake.push(i as u32);
            }
            if !rebuild {
                let moving = whole || !asleep || *stale;
                moving_count += moving as usize;
                broad.moving.push(moving);
                *stale = !asleep;
            }
        }
        match self.config.broadphase {
            Broadphase::Rebuild => self.rebuild_tree(),
            Broadphase::Incremental | Broadphase::BruteForce => {
                if moving_count * WALK_SHARE >= n {
                    // Most boxes move: one walk over the tree's lists in their own order,
                    // each item's box asked for by its payload (a sleeping particle's box
                    // stays). The walk's chunks are fixed by the tree, so the tree ends the
                    // same on any thread count.
                    let (tree, moves, particles, moving) = (
                        &mut self.broad.tree,
                        &mut self.broad.moves,
                        &self.particles,
                        &self.broad.moving,
                    );
                    let new_rect = move |item: quadstress::ItemRef<'_, u32>| {
                        let i = *item.value as usize;
                        if moving[i] {
                            sweep.rect(&particles[i])
                        } else {
                            item.rect
                        }
                    };
                    self.workers
                        .serial_or_parallel(
                            (tree, moves),
                            |(tree, moves)| tree.update_all(new_rect, moves),
                            |(tree, moves)| tree.par_update_all(new_rect, moves),
                        )
                        .expect("particle positions stay finite");
                } else {
                    self.broad.moved.clear();
                    self.broad.moved_ids.clear();
                    for (i, &moving) in self.broad.moving.iter().enumerate() {
                        if moving {
                            self.broad.moved.push(i as u32);
                            self.broad.moved_ids.push(self.broad.ids[i]);
                        }
                    }
                    // The batch on every thread count (its serial form on one): it leaves the
                    // tree's item lists in the same order whatever the threads, and the pair
                    // order follows them.
                    let (tree, moves, particles) =
                        (&mut self.broad.tree, &mut self.broad.moves, &self.particles);
                    let (ids, moved) = (&self.broad.moved_ids, &self.broad.moved);
                    let rect_of = move |k: usize| sweep.rect(&particles[moved[k] as usize]);
                    self.workers
                        .serial_or_parallel(
                            (tree, moves),
                            |(tree, moves)| tree.update_many(ids, rect_of, moves),
                            |(tree, moves)| tree.par_update_many(ids, rect_of, moves),
                        )
                        .expect("particle handles stay valid and positions finite");
                }
                self.broad.tree_sweep = sweep.key();
                self.note_seen();
            }
        }
        self.broad.set_drift(0.0);
    }

    /// Records every particle's position as the tree's rectangles now hold it (after a tree
    /// update or rebuild), for [`drift`](Self::drift).
    pub(crate) fn note_seen(&mut self) {
        const CHUNK: usize = 16_384;
        let particles = &self.particles;
        // No allocation once the buffer has grown to the particle count.
        self.broad.seen.resize(particles.len(), [0.0; 2]);
        self.workers
            .for_each_chunk(&mut self.broad.seen, CHUNK, |k, chunk| {
                for (s, p) in chunk.iter_mut().zip(&particles[k * CHUNK..]) {
                    *s = [p.x, p.y];
                }
            });
    }

    /// Phase: collects the contacts (pairs of overlapping boxes: see the module
    /// documentation) with the current broad phase, from the tree as the last
    /// [`update_tree`](Self::update_tree) left it (the tree's parallel pair search), or from
    /// the particles, in brute force.
    pub(crate) fn find_pairs(&mut self) {
        // A pair of sleeping particles is left out: nothing in the step moves either.
        let asleep = &self.broad.asleep[..];
        let any_asleep = self.broad.awake.len() < asleep.len();
        let keep = move |a: u32, b: u32| !(any_asleep && asleep[a as usize] && asleep[b as usize]);
        let tests = match self.config.broadphase {
            Broadphase::Incremental
                if self.broad.awake.len() * AWAKE_QUERY_SHARE <= asleep.len() =>
            {
                self.find_pairs_of_awake()
            }
            Broadphase::Incremental | Broadphase::Rebuild => {
                let (tree, workers) = (&self.broad.tree, &self.workers);
                workers.serial_or_parallel(
                    (&mut self.broad.contacts, &mut self.broad.pair_buffers),
                    |(contacts, _)| {
                        contacts.clear();
                        let ((), counts) = tree.for_each_pair_counting(|a, b| {
                            let (a, b) = (*a.value.min(b.value), *a.value.max(b.value));
                            if keep(a, b) {
                                contacts.push((a, b));
                            }
                        });
                        counts.tests
                    },
                    |(contacts, pairs)| {
                        // The search appends: last step's pairs go first.
                        pairs.clear();
                        tree.par_pairs(pairs, |a, b| {
                            let (a, b) = (*a.value.min(b.value), *a.value.max(b.value));
                            keep(a, b).then_some((a, b))
                        });
                        // The chunks are copied into place on the workers too, over fixed
                        // ranges of the contact list, so that no part of the phase runs on
                        // one thread only.
                        contacts.resize(pairs.len(), (0, 0));
                        let pairs = &*pairs;
                        workers.for_each_chunk(contacts, CONTACT_COPY_CHUNK, |k, out| {
                            copy_pairs(pairs, k * CONTACT_COPY_CHUNK, out);
                        });
                        pairs.tests()
                    },
                )
            }
            Broadphase::BruteForce => {
                self.broad.contacts.clear();
                self.broad.rects.clear();
                let sweep = self.sweep();
                self.broad
                    .rects
                    .extend(self.particles.iter().map(|p| sweep.rect(p)));
                every_pair(&self.broad.rects, keep, &mut self.broad.contacts);
                let n = self.broad.rects.len() as u64;
                n * n.saturating_sub(1) / 2
            }
        };
        self.broad.counts = StepCounts {
            contacts: self.broad.contacts.len(),
            pairs_tested: tests,
        };
    }

    /// The pairs with an awake particle, found by asking the tree about each awake particle's
    /// box in index order (a pair of two awake ones from the lower index), in fixed chunks of
    /// the awake particles, joined in chunk order: the same list on any thread count. Returns
    /// the items tested.
    fn find_pairs_of_awake(&mut self) -> u64 {
        let parts = self.broad.awake.len().div_ceil(AWAKE_CHUNK);
        if self.broad.awake_pairs.len() < parts {
            self.broad.awake_pairs.resize_with(parts, Default::default);
        }
        let (tree, ids, asleep, awake) = (
            &self.broad.tree,
            &self.broad.ids,
            &self.broad.asleep,
            &self.broad.awake,
        );
        self.workers
            .for_each_chunk(&mut self.broad.awake_pairs[..parts], 1, |k, part| {
                let (pairs, tests) = &mut part[0];
                pairs.clear();
                *tests = 0;
                let end = ((k + 1) * AWAKE_CHUNK).min(awake.len());
                for &i in &awake[k * AWAKE_CHUNK..end] {
                    let rect = tree
                        .rect(ids[i as usize])
                        .expect("every particle is in the tree");
                    tree.for_each_in_rect(&rect, |item| {
                        let j = *item.value;
                        *tests += 1;
                        if j > i || j != i && asleep[j as usize] {
                            pairs.push((i.min(j), i.max(j)));
                        }
                    })
                    .expect("a box from the tree is a valid query");
                }
            });
        self.broad.contacts.clear();
        let mut tests = 0;
        for (pairs, t) in &self.broad.awake_pairs[..parts] {
            self.broad.contacts.extend_from_slice(pairs);
            tests += t;
        }
        tests
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
        self.broad.tree.for_each_in_rect(&grown, |item| {
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
fn every_pair(rects: &[Rect], keep: impl Fn(u32, u32) -> bool, contacts: &mut Vec<(u32, u32)>) {
    for (i, a) in rects.iter().enumerate() {
        for (j, b) in rects.iter().enumerate().skip(i + 1) {
            if a.intersects(b) && keep(i as u32, j as u32) {
                contacts.push((i as u32, j as u32));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SimConfig;

    fn stepped(n: usize) -> Simulation {
        let mut sim = Simulation::new(SimConfig {
            seed: 3,
            threads: Some(1),
            ..SimConfig::default()
        })
        .unwrap();
        sim.spawn_burst(n).unwrap();
        for _ in 0..3 {
            sim.step(1.0 / 60.0).unwrap();
        }
        sim
    }

    #[test]
    fn clear_forgets_every_particle_and_keeps_the_room() {
        let mut sim = stepped(300);
        let broad = &mut sim.broad;
        assert_eq!(broad.ids.len(), 300);
        assert!(!broad.contacts.is_empty(), "a burst of 300 has contacts");
        broad.set_drift(f64::NAN);
        broad.clear();
        assert!(broad.tree.is_empty());
        assert!(broad.ids.is_empty() && broad.seen.is_empty() && broad.contacts.is_empty());
        assert!(broad.asleep.is_empty() && broad.awake.is_empty() && broad.stale.is_empty());
        assert_eq!(broad.counts, StepCounts::default());
        assert_eq!(broad.known_drift(), 0.0, "no particle, nothing drifted");
        assert!(broad.ids.capacity() >= 300 && broad.seen.capacity() >= 300);
    }

    #[test]
    fn drift_is_measured_once_and_zero_after_a_tree_update() {
        let mut sim = stepped(300);
        // The step's contacts moved the particles after the tree update: unknown until asked.
        assert!(sim.broad.known_drift().is_nan());
        let d = sim.drift();
        assert!(d.is_finite() && d > 0.0, "drift {d}");
        assert_eq!(sim.broad.known_drift(), d);
        sim.update_tree();
        assert_eq!(sim.broad.known_drift(), 0.0);
    }
}
