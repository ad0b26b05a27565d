//! Spawning: random bursts over the world and streams from a point, both under the cap.

use rand::RngExt;

use super::{Particle, SimError, Simulation};
use quadstress::{QuadtreeError, Rect};

impl Simulation {
    fn add(&mut self, x: f32, y: f32, vx: f32, vy: f32) -> Result<(), SimError> {
        let s = self.config.particle_size;
        let w = self.config.world;
        let x = x.clamp(w.min_x, self.wall_x);
        let y = y.clamp(w.min_y, self.wall_y);
        let limit = self.speed_limit;
        let (vx, vy) = (vx.clamp(-limit, limit), vy.clamp(-limit, limit));
        let index = self.particles.len() as u32;
        let id = self
            .broad
            .tree
            .insert(Rect::new(x, y, x + s, y + s), index)?;
        self.particles.push(Particle { x, y, vx, vy });
        self.broad.ids.push(id);
        self.broad.seen.push([x, y]);
        Ok(())
    }

    /// Room for `n` more particles in the per-particle buffers and the tree, asked of the
    /// allocator before any is spawned: a count the machine cannot hold is refused at once
    /// instead of ending the process on a failed allocation part-way through.
    fn reserve_for(&mut self, n: usize) -> Result<(), SimError> {
        let refused = |_| SimError::Tree(QuadtreeError::OutOfMemory);
        self.particles.try_reserve(n).map_err(refused)?;
        self.broad.ids.try_reserve(n).map_err(refused)?;
        self.broad.seen.try_reserve(n).map_err(refused)?;
        self.broad.tree.reserve(n)?;
        Ok(())
    }

    /// Room left under the cap, and the error to return if `n` does not fit.
    fn room_for(&self, n: usize) -> (usize, Option<SimError>) {
        let room = self
            .config
            .max_particles
            .saturating_sub(self.particles.len());
        if n <= room {
            (n, None)
        } else {
            let err = SimError::CapReached {
                cap: self.config.max_particles,
                spawned: room,
                refused: n - room,
            };
            (room, Some(err))
        }
    }

    /// Adds `n` particles at random positions in the world with small random velocities.
    /// Returns how many were added.
    ///
    /// # Errors
    /// [`SimError::CapReached`] if the cap cuts the burst short; the particles that fit were
    /// added. `SimError::Tree(QuadtreeError::OutOfMemory)` if the allocator refuses room for
    /// the particles that fit; none is added then.
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, SimError, Simulation};
    /// let mut sim = Simulation::new(SimConfig { max_particles: 10, ..SimConfig::default() }).unwrap();
    /// assert_eq!(sim.spawn_burst(8), Ok(8));
    /// assert_eq!(sim.spawn_burst(5), Err(SimError::CapReached { cap: 10, spawned: 2, refused: 3 }));
    /// assert_eq!(sim.len(), 10);
    /// ```
    pub fn spawn_burst(&mut self, n: usize) -> Result<usize, SimError> {
        let (fits, err) = self.room_for(n);
        let w = self.config.world;
        // Room for what is spawned, never for what the cap refuses.
        self.reserve_for(fits)?;
        for _ in 0..fits {
            let x = self.rng.random_range(w.min_x..=self.wall_x);
            let y = self.rng.random_range(w.min_y..=self.wall_y);
            let vx = self.rng.random_range(-60.0..=60.0);
            let vy = self.rng.random_range(-60.0..=60.0);
            self.add(x, y, vx, vy)?;
        }
        err.map_or(Ok(fits), Err)
    }

    /// Adds `n` particles around the point `(x, y)` (clamped into the world), within `spread`
    /// of it, flying out at up to `speed`: a stream from the mouse. A spread wider than the
    /// world counts as the world's width or height, whichever is larger, and a speed above
    /// the speed limit as the limit; particles land clamped into the world.
    ///
    /// # Errors
    /// [`SimError::NonFinite`] for a bad point, spread or speed (nothing added);
    /// [`SimError::CapReached`] and a refused allocation as for
    /// [`spawn_burst`](Self::spawn_burst).
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// assert_eq!(sim.spawn_stream(100.0, 100.0, 10, 5.0, 50.0), Ok(10));
    /// assert!(sim.particles().iter().all(|p| (p.x - 100.0).abs() <= 5.0));
    /// assert!(sim.spawn_stream(f32::NAN, 0.0, 1, 5.0, 50.0).is_err());
    /// ```
    pub fn spawn_stream(
        &mut self,
        x: f32,
        y: f32,
        n: usize,
        spread: f32,
        speed: f32,
    ) -> Result<usize, SimError> {
        if ![x, y, spread, speed].iter().all(|v| v.is_finite()) {
            return Err(SimError::NonFinite);
        }
        let w = self.config.world;
        let (x, y) = (x.clamp(w.min_x, self.wall_x), y.clamp(w.min_y, self.wall_y));
        let spread = spread.abs().min(w.width().max(w.height()));
        let speed = speed.abs().min(self.speed_limit);
        let (fits, err) = self.room_for(n);
        self.reserve_for(fits)?;
        for _ in 0..fits {
            let px = x + self.rng.random_range(-spread..=spread);
            let py = y + self.rng.random_range(-spread..=spread);
            let vx = self.rng.random_range(-speed..=speed);
            let vy = self.rng.random_range(-speed..=speed);
            self.add(px, py, vx, vy)?;
        }
        err.map_or(Ok(fits), Err)
    }
}
