//! What a report measures about the particles: their energy, how far they overlap, how densely
//! they pack, and a hash of their state that tells two runs apart to the last bit (the pile's
//! height profile has its own file, `pile`). The overlap and packing are also free functions
//! of any squares, so that a peer engine's bodies are measured by the same code. Computed on demand: a step never
//! pays for these.

use super::{percentile, Particle, Simulation};
use quadstress::{Config, Quadtree, Rect};

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
        overlap_of(
            &self.particles,
            self.config.particle_size,
            self.config.world,
            self.config.tree,
        )
    }

    /// How densely the pile fills the space below its top: [`pile_packing`] of the particles.
    ///
    /// ```
    /// use quadstress::Rect;
    /// use quadstress_sim::{SimConfig, Simulation};
    /// let world = Rect::new(0.0, 0.0, 16.0, 64.0);
    /// let mut sim = Simulation::new(SimConfig { world, ..SimConfig::default() }).unwrap();
    /// // One of two columns filled for the bottom side: half the area below the top.
    /// sim.spawn_stream(0.0, 56.0, 1, 0.0, 0.0).unwrap();
    /// assert_eq!(sim.pile_packing(), 0.5);
    /// ```
    pub fn pile_packing(&self) -> f64 {
        pile_packing(
            &self.particles,
            self.config.world,
            self.config.particle_size,
        )
    }
}

/// [`Simulation::overlap`] of any squares of side `size` by their top-left corners (a peer
/// engine's bodies, say): every touching pair, found with a tree over `world` built with
/// `tree` (squares outside it are still found). Allocates; meant for reports and tests.
///
/// # Panics
/// For a `world` or `tree` the tree refuses, or a particle that is not finite.
pub fn overlap_of(particles: &[Particle], size: f32, world: Rect, tree: Config) -> Overlap {
    let s = size;
    let mut tree = Quadtree::with_config(world, tree).expect("a world and tree the tree accepts");
    let mut ids = Vec::with_capacity(particles.len());
    tree.insert_many(
        particles
            .iter()
            .enumerate()
            .map(|(i, p)| (p.rect(s), i as u32)),
        &mut ids,
    )
    .expect("finite particles");
    let (mut pairs, mut sum, mut max) = (0usize, 0f64, 0f64);
    tree.for_each_pair(|a, b| {
        let (p, q) = (particles[*a.value as usize], particles[*b.value as usize]);
        let ox = f64::from(s) - (f64::from(p.x) - f64::from(q.x)).abs();
        let oy = f64::from(s) - (f64::from(p.y) - f64::from(q.y)).abs();
        let depth = ox.min(oy).max(0.0) / f64::from(s);
        pairs += 1;
        sum += depth;
        max = max.max(depth);
    });
    Overlap {
        pairs,
        mean: if pairs == 0 { 0.0 } else { sum / pairs as f64 },
        max,
    }
}

/// How densely a pile settled under gravity fills the space below its top: the squares'
/// area over the area from the floor (`world.max_y`) up to the top of the highest 1% of the
/// squares (at least one side), across the world's width. Below 1 the pile holds its shape;
/// at 1 and above the squares are pressed into each other. 0 for no squares. Allocates (one
/// `f64` per square); meant for reports.
///
/// ```
/// use quadstress::Rect;
/// use quadstress_sim::{pile_packing, Particle};
/// let at = |x: f32, y: f32| Particle { x, y, vx: 0.0, vy: 0.0 };
/// let world = Rect::new(0.0, 0.0, 32.0, 100.0);
/// // A full bottom row of four and one square on it: 5 squares under a top 2 sides high.
/// let pile = [at(0.0, 92.0), at(8.0, 92.0), at(16.0, 92.0), at(24.0, 92.0), at(8.0, 84.0)];
/// assert_eq!(pile_packing(&pile, world, 8.0), 5.0 / 8.0);
/// ```
pub fn pile_packing(particles: &[Particle], world: Rect, size: f32) -> f64 {
    let mut tops: Vec<f64> = particles.iter().map(|p| f64::from(p.y)).collect();
    let Some(top) = percentile(&mut tops, 0.01) else {
        return 0.0;
    };
    let height = (f64::from(world.max_y) - top).max(f64::from(size));
    let area = f64::from(size).powi(2) * particles.len() as f64;
    area / (height * f64::from(world.width()))
}
