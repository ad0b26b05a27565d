//! Where particles sit in memory: now and then the particles are put in stripe order (the
//! contact solver's stripes, see `solver`), each stripe's rows floor first and left to right
//! within a row, and the tree is rebuilt in that order. The solver walks each stripe's
//! contacts floor first, so it then reads the particles nearly in memory order, and particles
//! that touch sit a few hundred bytes apart instead of anywhere in the array: the solver's
//! passes over the contacts, the tree update and the pair search stay in the cache.
// The radix sort and the renumbering write from several threads through `SharedSlice`; each
// use says why no two tasks touch the same element.
#![allow(unsafe_code)]

use super::parallel::{SharedSlice, Workers};
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
    pub fn reorder_if_due(&mut self) {
        self.steps_since_reorder += 1;
        if self.steps_since_reorder < STEPS_BETWEEN_REORDERS {
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
        // Keys come in index order, so the stable sort orders equal keys by index: one order.
        self.row_sort.sort(&mut self.order_keys, &self.workers);

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
        {
            let new_index = SharedSlice::new(&mut self.new_index);
            let new_index = &new_index;
            self.workers.for_each(n.div_ceil(CHUNK), |k| {
                let start = k * CHUNK;
                for (new, &(_, old)) in keys[start..(start + CHUNK).min(n)].iter().enumerate() {
                    // SAFETY: the old indices are a permutation of 0..n (one key was made per
                    // particle), so no two tasks write the same index.
                    unsafe { *new_index.get(old as usize) = (start + new) as u32 };
                }
            });
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
        self.note_seen();
        self.set_drift(0.0);
    }
}

/// Digits of the radix sort: a byte.
const DIGIT_BITS: u32 = 8;
const BUCKETS: usize = 1 << DIGIT_BITS;
const DIGITS: usize = 64 / DIGIT_BITS as usize;

/// Keys per task of the radix sort: each task counts and moves its own keys.
const SORT_CHUNK: usize = 16_384;

/// A stable least-significant-digit radix sort of (key, index) pairs by key, a byte at a
/// time, on the workers: each pass counts every chunk's keys, takes each chunk's start in
/// each bucket in a fixed order (bucket, then chunk), and moves each chunk's keys to them.
/// Bytes that every key shares are skipped, so a pile a few hundred particles wide and tall
/// takes five passes. The order is the stable sort's on any thread count.
#[derive(Debug, Default)]
pub(super) struct RowSort {
    scratch: Vec<(u64, u32)>,
    /// Per chunk, a count (then a next position) per bucket of the current byte.
    counts: Vec<[u32; BUCKETS]>,
}

impl RowSort {
    pub(super) fn sort(&mut self, keys: &mut Vec<(u64, u32)>, workers: &Workers) {
        let n = keys.len();
        let chunks = n.div_ceil(SORT_CHUNK);
        // The bits in which some key differs from the first: the bytes to sort by.
        let first = keys.first().map_or(0, |k| k.0);
        let varying = keys.iter().fold(0, |acc, k| acc | (k.0 ^ first));
        self.scratch.resize(n, (0, 0));
        self.counts.resize(chunks, [0; BUCKETS]);
        for d in 0..DIGITS {
            if (varying >> (d as u32 * DIGIT_BITS)) as usize & (BUCKETS - 1) == 0 {
                continue;
            }
            let shift = d as u32 * DIGIT_BITS;
            let digit = move |key: u64| ((key >> shift) as usize) & (BUCKETS - 1);
            let source = &keys[..];
            workers.for_each_chunk(&mut self.counts, 1, |k, count| {
                let count = &mut count[0];
                *count = [0; BUCKETS];
                let start = k * SORT_CHUNK;
                for &(key, _) in &source[start..(start + SORT_CHUNK).min(n)] {
                    count[digit(key)] += 1;
                }
            });
            let mut at = 0u32;
            for b in 0..BUCKETS {
                for count in &mut self.counts {
                    let c = count[b];
                    count[b] = at;
                    at += c;
                }
            }
            {
                let target = SharedSlice::new(&mut self.scratch);
                let target = &target;
                workers.for_each_chunk(&mut self.counts, 1, |k, next| {
                    let next = &mut next[0];
                    let start = k * SORT_CHUNK;
                    for &item in &source[start..(start + SORT_CHUNK).min(n)] {
                        let at = &mut next[digit(item.0)];
                        // SAFETY: chunk k's keys of bucket b go to positions from its start
                        // in b up to the next chunk's start in b, which it counted itself:
                        // the chunks' ranges do not overlap.
                        unsafe { *target.get(*at as usize) = item };
                        *at += 1;
                    }
                });
            }
            std::mem::swap(keys, &mut self.scratch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_sort_is_the_stable_sort_on_any_thread_count() {
        let mut state = 7u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state >> 11
        };
        for n in [0usize, 1, 2, 1000, SORT_CHUNK + 7, 5 * SORT_CHUNK + 123] {
            // Rows and columns of a pile, some far apart, many equal.
            let keys: Vec<(u64, u32)> = (0..n)
                .map(|i| {
                    let row = next() % 300 + if next() % 50 == 0 { 1 << 31 } else { 0 };
                    let column = next() % 500;
                    (row << 32 | column, i as u32)
                })
                .collect();
            let mut want = keys.clone();
            want.sort();
            for threads in [1, 2, 3, 8] {
                let workers = Workers::new(threads).unwrap();
                let mut sort = RowSort::default();
                let mut got = keys.clone();
                sort.sort(&mut got, &workers);
                assert_eq!(got, want, "{n} keys on {threads} threads");
                // Again, with the buffers of the first run.
                got.clone_from(&keys);
                sort.sort(&mut got, &workers);
                assert_eq!(got, want);
            }
        }
    }
}
