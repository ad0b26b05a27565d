//! Where particles sit in memory: now and then the particles are put in row order, floor
//! first and left to right within a row, and the tree is rebuilt in that order. Particles
//! that touch then sit a few hundred bytes apart instead of anywhere in the array, so the
//! solver's passes over the contacts, the tree update and the pair search stay in the cache.

use rayon::slice::ParallelSliceMut;

use super::solver::CHUNK;
use super::{Particle, Simulation};

/// Steps between two reorderings. Particles of a pile barely move between them; falling ones
/// scatter slowly, and one reordering costs about as much as a tree rebuild.
pub(super) const STEPS_BETWEEN_REORDERS: u32 = 32;

impl Simulation {
    /// The reorder phase: once every 32 calls, puts the particles in row order (floor first,
    /// left to right) and rebuilds the tree in that order. Particle indices change, and the
    /// tree, the handles and the contact list follow, so every answer of the simulation stays
    /// consistent. Allocates nothing once its buffers have grown to the particle count.
    pub fn reorder_if_due(&mut self) {
        self.steps_since_reorder += 1;
        if self.steps_since_reorder < STEPS_BETWEEN_REORDERS {
            return;
        }
        self.steps_since_reorder = 0;
        self.reorder();
    }

    /// Puts the particles in row order (rows one particle high, counted from the floor), then
    /// rebuilds the tree in that order so its handles and item lists follow it too.
    fn reorder(&mut self) {
        let n = self.particles.len();
        if n < 2 {
            return;
        }
        let s = f64::from(self.config.particle_size);
        let (floor, left) = (
            f64::from(self.config.world.max_y),
            f64::from(self.config.world.min_x),
        );
        // `as` saturates, so a world taller or wider than 2^32 particles still sorts (its far
        // rows share a key), and nothing is sized by the world.
        self.order_keys.resize(n, (0, 0));
        let particles = &self.particles;
        self.workers
            .for_each_chunk(&mut self.order_keys, CHUNK, |k, chunk| {
                for (j, key) in chunk.iter_mut().enumerate() {
                    let i = k * CHUNK + j;
                    let p = particles[i];
                    let row = ((floor - f64::from(p.y)) / s).max(0.0) as u32;
                    let column = ((f64::from(p.x) - left) / s).max(0.0) as u32;
                    *key = (u64::from(row) << 32 | u64::from(column), i as u32);
                }
            });
        // Keys with their index are unique: the unstable sort gives one order.
        let keys = &mut self.order_keys;
        if self.workers.serial() {
            keys.sort_unstable();
        } else {
            self.workers.run(|| keys.par_sort_unstable());
        }

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
        let s = self.config.particle_size;
        self.tree.clear();
        self.ids.clear();
        let particles = &self.particles;
        let (tree, ids) = (&mut self.tree, &mut self.ids);
        let built = if self.workers.serial() {
            let items = particles
                .iter()
                .enumerate()
                .map(|(i, p): (usize, &Particle)| (p.rect(s), i as u32));
            tree.insert_many(items, ids)
        } else {
            self.workers.run(|| {
                tree.par_insert_many(particles.len(), |i| particles[i].rect(s), |i| i as u32, ids)
            })
        };
        // Particles are kept finite and inside the world, so this cannot fail.
        built.expect("particles are always finite");
        self.set_drift(0.0);
    }
}
