//! The physics of a step outside the broad phase: motion and walls (`integrate`), contact
//! impulses and positional corrections (`resolve`), and the bottom-up shock pass.

use super::{SimError, Simulation};

/// Particles per task of the per-particle loops: a fixed partition, whatever the thread count.
const CHUNK: usize = 4096;

/// Keeps one coordinate in `[lo, hi]`, reflecting (and damping by `e`) a velocity that points
/// out of the range.
fn bounce(pos: &mut f32, vel: &mut f32, lo: f32, hi: f32, e: f32) {
    if *pos < lo {
        *pos = lo;
        *vel = vel.abs() * e;
    } else if *pos > hi {
        *pos = hi;
        *vel = -vel.abs() * e;
    }
}

impl Simulation {
    /// Phase 1: gravity, motion, and the walls.
    ///
    /// # Errors
    /// [`SimError::BadTimeStep`] for a negative or non-finite `dt`; nothing moves then.
    pub fn integrate(&mut self, dt: f32) -> Result<(), SimError> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(SimError::BadTimeStep(dt));
        }
        // A speed limit keeps velocities finite whatever `dt` and gravity are; it is far
        // above anything gravity reaches inside the world within a second.
        let limit = self.speed_limit;
        let g = if self.config.gravity_on {
            (self.config.gravity * dt).clamp(-limit, limit)
        } else {
            0.0
        };
        let w = self.config.world;
        let e = self.config.restitution;
        let (wall_x, wall_y) = (self.wall_x, self.wall_y);
        self.workers
            .for_each_chunk(&mut self.particles, CHUNK, |_, chunk| {
                for p in chunk {
                    p.vy += g;
                    p.vx = p.vx.clamp(-limit, limit);
                    p.vy = p.vy.clamp(-limit, limit);
                    p.x += p.vx * dt;
                    p.y += p.vy * dt;
                    bounce(&mut p.x, &mut p.vx, w.min_x, wall_x, e);
                    bounce(&mut p.y, &mut p.vy, w.min_y, wall_y, e);
                }
            });
        self.set_drift(f64::NAN);
        Ok(())
    }

    /// Puts every particle back inside the walls, reflecting its velocity if it was moving out.
    fn keep_inside(&mut self) {
        let w = self.config.world;
        let e = self.config.restitution;
        let (wall_x, wall_y) = (self.wall_x, self.wall_y);
        for p in &mut self.particles {
            bounce(&mut p.x, &mut p.vx, w.min_x, wall_x, e);
            bounce(&mut p.y, &mut p.vy, w.min_y, wall_y, e);
        }
    }

    /// Phase 3: for each contact, an impulse along the contact normal (the axis of least
    /// overlap) if the pair is closing, and a positional correction that pushes the squares
    /// apart so stacks do not sink into each other. Then the walls again.
    pub fn resolve(&mut self) {
        let s = self.config.particle_size;
        let e = self.config.restitution;
        // Fix most of the overlap each step, but leave a sliver so resting stacks keep their
        // contacts instead of jittering in and out of touch.
        const CORRECTION: f32 = 0.8;
        let slop = 0.01 * s;
        for _ in 0..self.config.solver_iterations {
            self.solve_pass(s, e, CORRECTION, slop);
        }
        if self.config.gravity_on && self.config.gravity > 0.0 {
            self.shock_pass(s, slop);
        }
        self.keep_inside();
        self.set_drift(f64::NAN);
    }

    /// Shock propagation: one pass over the vertical contacts from the floor up, treating the
    /// lower particle of each as immovable. A correction then travels through a whole stack in
    /// one step instead of one particle per pass, so piles hold their height under gravity.
    fn shock_pass(&mut self, s: f32, slop: f32) {
        // The contacts in order of the row (one particle high) of their lower particle,
        // floor first. Rows count from the floor and the sort only spans the rows that hold
        // contacts: a counting sort over them when they are few, O(contacts), where a
        // comparison sort took most of the step; a comparison sort when contacts are spread
        // over many more rows than there are contacts (never a table sized by the world).
        let floor = self.config.world.max_y;
        let particles = &self.particles;
        let row_of = |&(a, b): &(u32, u32)| {
            let (p, q) = (&particles[a as usize], &particles[b as usize]);
            ((floor - p.y.max(q.y)) / s).max(0.0) as u64
        };
        // (row, contact) in contact order, and the range of rows.
        let (mut first, mut last) = (u64::MAX, 0);
        self.stack_rows.clear();
        for (k, c) in self.contacts.iter().enumerate() {
            let r = row_of(c);
            first = first.min(r);
            last = last.max(r);
            self.stack_rows.push((r, k as u32));
        }
        // The contacts themselves, in row order: the pass below then reads them in sequence.
        self.stack_order.clear();
        let n = self.stack_rows.len();
        if n == 0 {
            return;
        }
        if last - first < 2 * n as u64 + 64 {
            let rows = (last - first + 1) as usize;
            self.row_starts.clear();
            self.row_starts.resize(rows + 1, 0);
            for &(r, _) in &self.stack_rows {
                self.row_starts[(r - first) as usize + 1] += 1;
            }
            for r in 0..rows {
                self.row_starts[r + 1] += self.row_starts[r];
            }
            self.stack_order.resize(n, (0, 0));
            for (&(r, _), &c) in self.stack_rows.iter().zip(&self.contacts) {
                let at = &mut self.row_starts[(r - first) as usize];
                self.stack_order[*at as usize] = c;
                *at += 1;
            }
        } else {
            // Keys are unique, so this is the order the counting sort gives.
            self.stack_rows.sort_unstable();
            let contacts = &self.contacts;
            self.stack_order
                .extend(self.stack_rows.iter().map(|&(_, k)| contacts[k as usize]));
        }
        let particles = &mut self.particles[..];
        for &(a, b) in &self.stack_order {
            let (pa, pb) = (particles[a as usize], particles[b as usize]);
            let (hi, mut upper, lower) = if pa.y >= pb.y {
                (b, pb, pa)
            } else {
                (a, pa, pb)
            };
            let (ox, oy) = (s - (upper.x - lower.x).abs(), s - (lower.y - upper.y));
            if ox <= 0.0 || oy <= 0.0 || ox < oy {
                continue; // apart now, or a side contact: the regular passes handled it
            }
            upper.y -= (oy - slop).max(0.0);
            upper.vy = upper.vy.min(lower.vy);
            particles[hi as usize] = upper;
        }
    }

    fn solve_pass(&mut self, s: f32, e: f32, correction: f32, slop: f32) {
        let particles = &mut self.particles[..];
        for &(a, b) in &self.contacts {
            let (pa, pb) = (particles[a as usize], particles[b as usize]);
            let (dx, dy) = (pb.x - pa.x, pb.y - pa.y);
            let (ox, oy) = (s - dx.abs(), s - dy.abs());
            if ox < 0.0 || oy < 0.0 {
                continue; // moved apart while resolving earlier contacts
            }
            // Normal from a to b along the axis of least penetration; coincident squares are
            // separated along x, by index order, so the result is deterministic.
            let (nx, ny, depth) = if ox < oy {
                (if dx < 0.0 { -1.0 } else { 1.0 }, 0.0, ox)
            } else {
                (0.0, if dy < 0.0 { -1.0 } else { 1.0 }, oy)
            };
            let closing = (pb.vx - pa.vx) * nx + (pb.vy - pa.vy) * ny;
            let (mut ua, mut ub) = (pa, pb);
            if closing < 0.0 {
                // Equal masses: each takes half of the impulse (1 + e) * closing.
                let j = -(1.0 + e) * closing * 0.5;
                ua.vx -= j * nx;
                ua.vy -= j * ny;
                ub.vx += j * nx;
                ub.vy += j * ny;
            }
            let push = (depth - slop).max(0.0) * correction * 0.5;
            ua.x -= push * nx;
            ua.y -= push * ny;
            ub.x += push * nx;
            ub.y += push * ny;
            particles[a as usize] = ua;
            particles[b as usize] = ub;
        }
    }
}
