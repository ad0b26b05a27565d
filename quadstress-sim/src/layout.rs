//! Where particles sit in memory: now and then the particles are put in stripe order (the
//! contact solver's stripes, see `solver`), each stripe's rows floor first and left to right
//! within a row, and the tree is rebuilt in that order. The solver walks each stripe's
//! contacts floor first, so it then reads the particles nearly in memory order, and particles
//! that touch sit a few hundred bytes apart instead of anywhere in the array: the solver's
//! passes over the contacts, the tree update and the pair search stay in the cache.
//!
//! The reordering also fixes the solver's stripes as ranges of particle indices (see
//! `solver`): each stripe's particles then sit in one slice that a task can own.
//! Particles spawned after it belong to no stripe until the next one, which comes early
//! when they are many.

use super::solver::CHUNK;
use super::{Particle, Simulation};

/// Steps between two reorderings. Particles of a pile barely move between them; falling ones
/// scatter slowly, and one reordering costs about as much as a tree rebuild.
pub(super) const STEPS_BETWEEN_REORDERS: u32 = 32;

/// The reordering's state: when the next one is due, and the buffers one fills (the sort
/// keys, the particles in their new order, each old index's new one), kept between
/// reorderings so that one allocates nothing once they have grown to the particle count.
#[derive(Debug, Default)]
pub(super) struct Layout {
    /// (stripe, row and column key, old index), sorted.
    pub(super) order_keys: Vec<(u64, u32)>,
    pub(super) reordered: Vec<Particle>,
    pub(super) new_index: Vec<u32>,
    steps_since_reorder: u32,
}

impl Layout {
    /// Counts one step and says whether the particles are reordered in it: every
    /// [`STEPS_BETWEEN_REORDERS`] steps, or sooner when more than one particle in eight of
    /// `particles` sits outside the stripes (those are solved on one thread). A reordering
    /// due starts the count again.
    pub(super) fn due(&mut self, particles: usize, in_stripes: usize) -> bool {
        self.steps_since_reorder += 1;
        let outside = particles - in_stripes;
        if self.steps_since_reorder < STEPS_BETWEEN_REORDERS && outside * 8 <= particles {
            return false;
        }
        self.steps_since_reorder = 0;
        true
    }
}

impl Simulation {
    /// The reorder phase: once every 32 calls, puts the particles in stripe order (the
    /// solver's stripes left to right, each floor first and left to right within a row) and
    /// rebuilds the tree in that order. Particle indices change, and the
    /// tree, the handles and the contact list follow, so every answer of the simulation stays
    /// consistent. Allocates nothing once its buffers have grown to the particle count.
    pub(crate) fn reorder_if_due(&mut self) {
        if self
            .layout
            .due(self.particles.len(), self.buffers.in_stripes())
        {
            self.reorder();
        }
    }

    /// Puts the particles in stripe order (in each stripe, rows one particle high counted from
    /// the floor, then columns), then rebuilds the tree in that order so its handles and item
    /// lists follow it too.
    fn reorder(&mut self) {
        let n = self.particles.len();
        if n < 2 {
            self.buffers.set_stripes(self.stripes.count(), |_| n);
            return;
        }
        let s = f64::from(self.config.particle_size);
        let (floor, left) = (
            f64::from(self.config.world.max_y),
            f64::from(self.config.world.min_x),
        );
        // The key: stripe (8 bits: there are at most 256), row and column (28 bits each,
        // saturated, so a world taller or wider than 2^28 particles still sorts: its far rows
        // share a key), and nothing is sized by the world.
        const MAX_28: f64 = ((1u32 << 28) - 1) as f64;
        self.layout.order_keys.resize(n, (0, 0));
        let particles = &self.particles;
        let stripes = self.stripes;
        self.workers
            .for_each_chunk(&mut self.layout.order_keys, CHUNK, |k, chunk| {
                for (j, key) in chunk.iter_mut().enumerate() {
                    let i = k * CHUNK + j;
                    let p = particles[i];
                    let row = ((floor - f64::from(p.y)) / s).clamp(0.0, MAX_28) as u64;
                    let column = ((f64::from(p.x) - left) / s).clamp(0.0, MAX_28) as u64;
                    let stripe = u64::from(stripes.of(p.x));
                    *key = (stripe << 56 | row << 28 | column, i as u32);
                }
            });
        // Keys with their indices are all different: one order, on any thread count.
        self.workers.serial_or_parallel(
            &mut self.layout.order_keys,
            |keys| keys.sort_unstable(),
            |keys| {
                use rayon::slice::ParallelSliceMut;
                keys.par_sort_unstable();
            },
        );

        self.layout.reordered.resize(
            n,
            Particle {
                x: 0.0,
                y: 0.0,
                vx: 0.0,
                vy: 0.0,
            },
        );
        let keys = &self.layout.order_keys;
        self.workers
            .for_each_chunk(&mut self.layout.reordered, CHUNK, |k, chunk| {
                for (j, p) in chunk.iter_mut().enumerate() {
                    *p = particles[keys[k * CHUNK + j].1 as usize];
                }
            });
        std::mem::swap(&mut self.particles, &mut self.layout.reordered);

        // The contacts of the last broad phase, renamed: new index of each old one.
        self.layout.new_index.resize(n, 0);
        for (new, &(_, old)) in keys.iter().enumerate() {
            self.layout.new_index[old as usize] = new as u32;
        }
        // Each stripe's particles, now one range of indices.
        let stripes = self.stripes;
        let particles = &self.particles;
        self.buffers.set_stripes(stripes.count(), |k| {
            particles.partition_point(|p| (stripes.of(p.x) as usize) < k)
        });
        let new_index = &self.layout.new_index;
        self.workers
            .for_each_chunk(&mut self.broad.contacts, CHUNK, |_, chunk| {
                for c in chunk {
                    let (a, b) = (new_index[c.0 as usize], new_index[c.1 as usize]);
                    *c = (a.min(b), a.max(b));
                }
            });

        let keys = &self.layout.order_keys;
        self.buffers
            .renumber(&self.workers, n, |new| keys[new].1 as usize);

        self.rebuild_tree();
    }

    /// Clears the tree and bulk-loads every particle at its current position, in index order,
    /// on every worker: the tree is the same on any thread count.
    pub(super) fn rebuild_tree(&mut self) {
        let sweep = self.sweep();
        self.broad.tree.clear();
        self.broad.ids.clear();
        let particles = &self.particles;
        let (tree, ids) = (&mut self.broad.tree, &mut self.broad.ids);
        let built = self.workers.serial_or_parallel(
            (tree, ids),
            |(tree, ids)| {
                let items = particles
                    .iter()
                    .enumerate()
                    .map(|(i, p): (usize, &Particle)| (sweep.rect(p), i as u32));
                tree.insert_many(items, ids)
            },
            |(tree, ids)| {
                tree.par_insert_many(
                    particles.len(),
                    |i| sweep.rect(&particles[i]),
                    |i| i as u32,
                    ids,
                )
            },
        );
        // Particles are kept finite and inside the world, so this cannot fail.
        built.expect("particles are always finite");
        // Every box is fresh; an awake particle's goes stale as it moves.
        let buffers = &self.buffers;
        self.broad.stale.clear();
        self.broad
            .stale
            .extend((0..self.particles.len()).map(|i| !buffers.is_asleep(i)));
        self.broad.tree_sweep = sweep.key();
        self.note_seen();
        self.broad.set_drift(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_every_interval_and_restarts_the_count() {
        let mut layout = Layout::default();
        let due: Vec<u32> = (1..=3 * STEPS_BETWEEN_REORDERS)
            .filter(|_| layout.due(100, 100))
            .collect();
        assert_eq!(
            due,
            [1, 2, 3].map(|k| k * STEPS_BETWEEN_REORDERS),
            "every particle in a stripe: on the interval only"
        );
    }

    #[test]
    fn due_early_when_many_particles_are_outside_the_stripes() {
        let mut layout = Layout::default();
        // One in eight outside is tolerated; one more brings the reordering forward.
        assert!(!layout.due(800, 700));
        assert!(layout.due(800, 699));
        // The early reordering restarted the count.
        assert!((1..STEPS_BETWEEN_REORDERS).all(|_| !layout.due(800, 800)));
        assert!(layout.due(800, 800));
    }
}
