//! What a report measures about the particles: their energy, how far they overlap, and a hash
//! of their state that tells two runs apart to the last bit. Computed on demand: a step never
//! pays for these.

use std::ops::ControlFlow;

use super::Simulation;
use quadstress::Quadtree;

/// How far touching particles press into each other, from [`Simulation::overlap`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Overlap {
    /// Pairs of particles whose squares touch (closed: sharing an edge counts).
    pub pairs: usize,
    /// Mean penetration depth over those pairs, along the contact normal (the axis of least
    /// overlap), as a fraction of the particle side.
    pub mean: f64,
    /// The deepest penetration, as a fraction of the particle side.
    pub max: f64,
}

impl Simulation {
    /// Total kinetic energy, with unit mass per particle.
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.spawn_stream(100.0, 100.0, 1, 0.0, 0.0).unwrap();
    /// assert_eq!(sim.kinetic_energy(), 0.0);
    /// ```
    pub fn kinetic_energy(&self) -> f64 {
        self.particles
            .iter()
            .map(|p| 0.5 * (p.vx as f64 * p.vx as f64 + p.vy as f64 * p.vy as f64))
            .sum()
    }

    /// A hash (64-bit FNV-1a) of every particle's position and velocity bits, in index order:
    /// two runs that print the same hash hold the same particles to the last bit.
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, Simulation};
    /// let run = |threads| {
    ///     let mut sim = Simulation::new(SimConfig::default()).unwrap();
    ///     sim.set_threads(threads).unwrap();
    ///     sim.spawn_burst(2000).unwrap();
    ///     for _ in 0..20 {
    ///         sim.step(1.0 / 60.0).unwrap();
    ///     }
    ///     sim.state_hash()
    /// };
    /// assert_eq!(run(1), run(3));
    /// ```
    pub fn state_hash(&self) -> u64 {
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for p in &self.particles {
            for v in [p.x, p.y, p.vx, p.vy] {
                for b in v.to_bits().to_le_bytes() {
                    h = (h ^ u64::from(b)).wrapping_mul(PRIME);
                }
            }
        }
        h
    }

    /// How far the touching particles overlap where they are now: every touching pair, found
    /// with a tree built for the purpose (allocates; meant for reports and tests).
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.spawn_stream(100.0, 100.0, 1, 0.0, 0.0).unwrap();
    /// sim.spawn_stream(104.0, 100.0, 1, 0.0, 0.0).unwrap();
    /// let o = sim.overlap();
    /// assert_eq!((o.pairs, o.mean, o.max), (1, 0.5, 0.5));
    /// ```
    pub fn overlap(&self) -> Overlap {
        let s = self.config.particle_size;
        let mut tree = Quadtree::with_config(self.config.world, self.config.tree)
            .expect("the configuration was checked");
        let mut ids = Vec::with_capacity(self.particles.len());
        tree.insert_many(
            self.particles
                .iter()
                .enumerate()
                .map(|(i, p)| (p.rect(s), i as u32)),
            &mut ids,
        )
        .expect("particles are always finite");
        let (mut pairs, mut sum, mut max) = (0usize, 0f64, 0f64);
        let particles = &self.particles;
        let _ = tree.for_each_pair(|a, b| {
            let (p, q) = (particles[*a.value as usize], particles[*b.value as usize]);
            let ox = f64::from(s) - (f64::from(p.x) - f64::from(q.x)).abs();
            let oy = f64::from(s) - (f64::from(p.y) - f64::from(q.y)).abs();
            let depth = ox.min(oy).max(0.0) / f64::from(s);
            pairs += 1;
            sum += depth;
            max = max.max(depth);
            ControlFlow::<()>::Continue(())
        });
        Overlap {
            pairs,
            mean: if pairs == 0 { 0.0 } else { sum / pairs as f64 },
            max,
        }
    }
}
