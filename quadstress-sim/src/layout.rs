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

impl Simulation {
    /// The reorder phase: once every 32 calls, puts the particles in stripe order (the
    /// solver's stripes left to right, each floor first and left to right within a row) and
    /// rebuilds the tree in that order. Particle indices change, and the
    /// tree, the handles and the contact list follow, so every answer of the simulation stays
    /// consistent. Allocates nothing once its buffers have grown to the particle count.
    pub(crate) fn reorder_if_due(&mut self) {
        self.steps_since_reorder += 1;
        // Particles outside every stripe are solved on one thread: more than one in eight
        // brings the reordering forward.
        let outside = self.particles.len() - self.buffers.in_stripes();
        if self.steps_since_reorder < STEPS_BETWEEN_REORDERS && outside * 8 <= self.particles.len()
        {
            return;
        }
        self.steps_since_reorder = 0;
        self.reorder();
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
        self.order_keys.resize(n, (0, 0));
        let particles = &self.particles;
        let stripes = self.stripes;
        self.workers
            .for_each_chunk(&mut self.order_keys, CHUNK, |k, chunk| {
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
            &mut self.order_keys,
            |keys| keys.sort_unstable(),
            |keys| {
                use rayon::slice::ParallelSliceMut;
                keys.par_sort_unstable();
            },
        );

        self.reordered.resize(
            n,
            Particle {
                x: 0.0,
                y: 0.0,
                vx: 0.0,
                vy: 0.0,
            },
        );
        let keys = &self.order_keys;
        self.workers
            .for_each_chunk(&mut self.reordered, CHUNK, |k, chunk| {
                for (j, p) in chunk.iter_mut().enumerate() {
                    *p = particles[keys[k * CHUNK + j].1 as usize];
                }
            });
        std::mem::swap(&mut self.particles, &mut self.reordered);

        // The contacts of the last broad phase, renamed: new index of each old one.
        self.new_index.resize(n, 0);
        for (new, &(_, old)) in keys.iter().enumerate() {
            self.new_index[old as usize] = new as u32;
        }
        // Each stripe's particles, now one range of indices.
        let stripes = self.stripes;
        let particles = &self.particles;
        self.buffers.set_stripes(stripes.count(), |k| {
            particles.partition_point(|p| (stripes.of(p.x) as usize) < k)
        });
        let new_index = &self.new_index;
        self.workers
            .for_each_chunk(&mut self.contacts, CHUNK, |_, chunk| {
                for c in chunk {
                    let (a, b) = (new_index[c.0 as usize], new_index[c.1 as usize]);
                    *c = (a.min(b), a.max(b));
                }
            });

        self.buffers.renumber(new_index);

        self.rebuild_tree();
    }

    /// Clears the tree and bulk-loads every particle at its current position, in index order,
    /// on every worker: the tree is the same on any thread count.
    pub(super) fn rebuild_tree(&mut self) {
        let sweep = self.sweep();
        self.tree.clear();
        self.ids.clear();
        let particles = &self.particles;
        let (tree, ids) = (&mut self.tree, &mut self.ids);
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
        self.stale.clear();
        self.stale
            .extend((0..self.particles.len()).map(|i| !buffers.is_asleep(i)));
        self.tree_sweep = sweep.key();
        self.note_seen();
        self.set_drift(0.0);
    }
}
