//! A substep's motion of each particle: gravity, the lean, the walls, and the velocity the
//! contacts' pushes gave it.

use super::body::Body;
use super::grain::lean;
use super::{clamp, within, Params};
use crate::Particle;

/// A substep's motion of one particle: gravity, motion and the walls. A sleeping particle
/// stays.
#[inline(always)]
pub(super) fn move_particle(p: &Params, q: &mut Particle, b: &mut Body) {
    if b.asleep() {
        b.mid = [q.x, q.y];
        b.rest = 0;
        b.leaning = false;
        return;
    }
    if p.gravity {
        lean(p, q, b);
    }
    q.vy += p.gh;
    q.vx = within(q.vx, -p.limit, p.limit);
    q.vy = within(q.vy, -p.limit, p.limit);
    q.x += q.vx * p.h;
    q.y += q.vy * p.h;
    let (vx, vy) = (q.vx, q.vy);
    let hit = bounce(&mut q.x, &mut q.vx, p.left, p.right, p)
        | bounce(&mut q.y, &mut q.vy, p.top, p.floor, p);
    // Coulomb friction with the wall that stopped the particle: up to `friction` times the
    // speed the wall took away, off the speed along it.
    if hit && p.friction > 0.0 {
        let (dvx, dvy) = ((q.vx - vx).abs(), (q.vy - vy).abs());
        q.vx -= clamp(q.vx, p.friction * dvy);
        q.vy -= clamp(q.vy, p.friction * dvx);
    }
    b.mid = [q.x, q.y];
}

/// The velocity the contacts' pushes gave a particle in the last substep (see
/// `solve_contact_in`).
#[inline(always)]
pub(super) fn take_velocity(p: &Params, q: &mut Particle, b: &mut Body) {
    if p.h > 0.0 && !b.asleep() {
        q.vx = within(q.vx + (q.x - b.mid[0]) / p.h, -p.limit, p.limit);
        q.vy = within(q.vy + (q.y - b.mid[1]) / p.h, -p.limit, p.limit);
    }
    b.mid = [q.x, q.y];
}

/// Keeps one coordinate in `[lo, hi]`, reflecting a velocity that points out of the range,
/// damped by restitution (and stopped if it is slower than the rest speed, so a particle
/// resting on the floor does not hop under gravity). Returns whether it did.
#[inline(always)]
pub(super) fn bounce(pos: &mut f32, vel: &mut f32, lo: f32, hi: f32, p: &Params) -> bool {
    let out = if *pos < lo {
        *pos = lo;
        vel.abs()
    } else if *pos > hi {
        *pos = hi;
        -vel.abs()
    } else {
        return false;
    };
    *vel = if out.abs() <= p.rest_speed {
        0.0
    } else {
        out * p.restitution
    };
    true
}
