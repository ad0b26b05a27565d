//! The grain rules, decided from the marks the contacts leave on each particle: which side
//! it rests on, is held on, has a shoulder or a roof on; the lean towards a drop; sleep.
//! The module documentation of `solver` says why each rule exists.

use super::body::{Body, LOADED, OVER, REST_LEFT, REST_RIGHT, SETTLE_DRIFT, WOKEN, WOKEN_SOFT};
use super::{Params, SLEEP_STEPS};
use crate::Particle;

/// A square that leans (see `lean`) gains this fraction of what gravity gives a substep as
/// speed sideways, each substep, up to [`LEAN_SPEED`] sides a second: it tips off an edge as
/// fast as it would fall. With half of it and 3 sides a second, a heap sprayed onto the
/// 10,000 pile took some ten seconds to come down to its slope, its faces shedding one slow
/// square at a time (column steps p99 3.0 to 4.0 sides at frame 900, seeds 1-8); with the
/// whole pull and 12 sides a second, 1.0 to 2.0 in the same seeds (see BENCHMARKS.md).
pub(super) const LEAN_ACCEL: f32 = 1.0;

/// Slower caps (9 or 10) left that heap flowing at frame 900 in some seeds (p99 3.0).
pub(super) const LEAN_SPEED: f32 = 12.0;

/// A square that has leaned this long (in seconds of substeps) without coming down half a
/// side leans no more until it does, or sleeps: with the full lean, a square on a support
/// between two others too far apart to be its shoulders both at once ran from one to the
/// other for ever (it has a drop on the side it has left).
pub(super) const LEAN_SECONDS: f64 = 1.0;

/// Notes a resting contact along y (see `lean`): on which side of the upper particle's centre
/// the lower one lies, and that the lower one carries a load. A sleeping support under an
/// awake particle with nothing on it and a side free wakes: that one may lean off it, and then
/// it may lean in turn.
#[inline(always)]
pub(super) fn mark_rest(
    p: &Params,
    lower_is_b: bool,
    dx: f32,
    a: &Particle,
    ba: &mut Body,
    b: &Particle,
    bb: &mut Body,
) {
    let (upper, upper_body, lower, lower_body, up_dx) = if lower_is_b {
        (a, ba, b, bb, -dx)
    } else {
        (b, bb, a, ba, dx)
    };
    let side = if up_dx >= 0.0 { REST_LEFT } else { REST_RIGHT };
    upper_body.rest |= side | (OVER * u8::from(up_dx.abs() <= 0.5 * p.size));
    lower_body.rest |= LOADED;
    if upper_body.asleep() {
        wake_if_support_leaves(p, up_dx, upper_body, lower, lower_body);
    } else if upper_body.rest_before & LOADED == 0
        && held_sides(p, upper, upper_body) != (true, true)
    {
        // Awake for as long as the square on it may lean off it, so that it can lean in turn
        // when that one has gone.
        if lower_body.asleep() {
            lower_body.still = lower_body.still.max(WOKEN_SOFT);
        } else {
            lower_body.still = 0;
        }
    }
}

/// A support sliding out from under a sleeping square, whose centre is well beyond its edge,
/// wakes it: it may have nothing else under it (it slept on as a square floating beside a
/// cliff's face). Out of the contact loop: few contacts have a sleeping upper particle.
#[cold]
#[inline(never)]
fn wake_if_support_leaves(
    p: &Params,
    up_dx: f32,
    upper_body: &mut Body,
    lower: &Particle,
    lower_body: &Body,
) {
    if !lower_body.asleep()
        && up_dx.abs() > 0.75 * p.size
        && up_dx * lower.vx < 0.0
        && lower.vx.abs() > p.sleep_speed
    {
        upper_body.still = WOKEN;
    }
}

/// Gives a square the sideways speed it gains in a substep from leaning, from the contacts it
/// had in the last one, which it then forgets (see the module documentation).
///
/// A drop on one side (free there, no shoulder, no roof): the square tips that way whatever
/// it carries and however many supports it has; a drop on both sides: away from a single
/// support's centre (on two, their tilts decide); no drop: it stays.
#[inline(always)]
pub(super) fn lean(p: &Params, q: &mut Particle, body: &mut Body) {
    let rest = std::mem::take(&mut body.rest);
    body.rest_before = rest;
    body.leaning = false;
    if rest & (REST_LEFT | REST_RIGHT) == 0 {
        return;
    }
    let held = held_sides(p, q, body);
    let ledge = |k: usize| p.substep.wrapping_sub(body.shoulder[k]) < 2;
    let open = |k: usize| p.substep.wrapping_sub(body.roof[k]) >= 2;
    let drop = (
        !held.0 && !ledge(0) && open(0),
        !held.1 && !ledge(1) && open(1),
    );
    let away = if rest & REST_LEFT != 0 { 1.0 } else { -1.0 };
    let side = match drop {
        (true, false) => -1.0,
        (false, true) => 1.0,
        // A drop on both sides: away from a single support's centre. On two supports it is
        // left to their tilts, which part it from the nearer one's edge; leaning one way
        // fought them, and a square rocked on two supports for ever.
        (true, true) if rest & (REST_LEFT | REST_RIGHT) != (REST_LEFT | REST_RIGHT) => away,
        _ => return,
    };
    // A square leans to roll down: one that has leaned for a while without coming down (it
    // runs to and fro over a row) stops leaning, and comes to rest.
    if q.y > body.lean_y + 0.5 * p.size {
        (body.lean_y, body.lean_substeps) = (q.y, 0);
    }
    if body.lean_substeps >= p.lean_budget {
        return;
    }
    body.lean_substeps += 1;
    // At a run, not thrown: it tips off.
    let (dv, cap) = (LEAN_ACCEL * p.gh, LEAN_SPEED * p.size);
    body.leaning = true;
    if side > 0.0 && q.vx < cap {
        q.vx = (q.vx + dv).min(cap);
    } else if side < 0.0 && q.vx > -cap {
        q.vx = (q.vx - dv).max(-cap);
    }
}

/// How much two squares side by side must overlap across their contact (in sides) for each to
/// hold the other up sideways.
pub(super) const SIDE_LATERAL: f32 = 0.25;

/// Stamps a pair side by side: `b` lies right of `a` if `dir > 0`. A sleeping one beside an
/// awake one that leans or moves faster than the wake speed wakes: that one leaves (the
/// leaning one tips away from it, a falling or rolling one passes on), and then the sleeping
/// one may stand beside a drop in turn (a cliff's face comes down whole, not only where it
/// was awake; without the moving one, a face whose neighbouring column slid away slept on).
#[inline(always)]
pub(super) fn mark_sides(
    p: &Params,
    dir: f32,
    a: &Particle,
    ba: &mut Body,
    b: &Particle,
    bb: &mut Body,
) {
    let (a_side, b_side) = if dir > 0.0 { (1, 0) } else { (0, 1) };
    ba.touched[a_side] = p.substep;
    bb.touched[b_side] = p.substep;
    // A neighbour moving past fast wakes a sleeping one; a leaning one asks it to wake.
    let wake = |q: &Particle, body: &Body| {
        if body.asleep() {
            0
        } else if q.vx * q.vx + q.vy * q.vy > p.wake_speed * p.wake_speed {
            WOKEN
        } else if body.leaning {
            WOKEN_SOFT
        } else {
            0
        }
    };
    if bb.asleep() {
        bb.still = bb.still.max(wake(a, ba));
    } else if ba.asleep() {
        ba.still = ba.still.max(wake(b, bb));
    }
}

/// How far beyond a particle's centre (in sides) another's centre must lie, at least half a
/// side below it, to be its shoulder on that side (or, above it, its roof): beyond its edge by
/// three quarters of a side or more. (At half a side, a brick over a joint would be its own
/// shoulder, so a ladder of them, two sides up per side across, would stand.)
pub(super) const SHOULDER: f32 = 0.75;

/// Stamps a pair one above the other and side by side (`dx`, `dy`: from `a` to `b`): the upper
/// one has a shoulder on the lower one's side, the lower one a roof on the upper one's.
#[inline(always)]
pub(super) fn mark_shoulder(p: &Params, dx: f32, dy: f32, ba: &mut Body, bb: &mut Body) {
    if dy > 0.0 {
        ba.shoulder[usize::from(dx > 0.0)] = p.substep;
        bb.roof[usize::from(dx < 0.0)] = p.substep;
    } else {
        bb.shoulder[usize::from(dx < 0.0)] = p.substep;
        ba.roof[usize::from(dx > 0.0)] = p.substep;
    }
}

/// Whether a particle was held on its left and on its right (by a neighbour side by side or a
/// wall) in this substep or the last.
#[inline(always)]
pub(super) fn held_sides(p: &Params, q: &Particle, body: &Body) -> (bool, bool) {
    let held = |k: usize| p.substep.wrapping_sub(body.touched[k]) < 2;
    (
        held(0) || q.x <= p.left + p.touch,
        held(1) || q.x >= p.right - p.touch,
    )
}

/// Marks the upper particle of a contact along y supported if the lower one is.
#[inline(always)]
pub(super) fn mark_support(
    p: &Params,
    lower_is_b: bool,
    a: &Particle,
    ba: &mut Body,
    b: &Particle,
    bb: &mut Body,
    supported: impl Fn(&Particle, &Body) -> bool,
) {
    if lower_is_b {
        if supported(b, bb) {
            ba.support = p.substep;
        }
    } else if supported(a, ba) {
        bb.support = p.substep;
    }
}

/// The end of a step under gravity: a particle slow for [`SLEEP_STEPS`] steps falls asleep, and
/// one slow for [`SETTLED_STEPS`](super::body::SETTLED_STEPS) steps stays asleep until a push or
/// a fast neighbour wakes it.
#[inline(always)]
pub(super) fn settle(p: &Params, q: &mut Particle, b: &mut Body) {
    if b.asleep() {
        (q.vx, q.vy) = (0.0, 0.0);
        if b.still == WOKEN {
            // A push or a fast neighbour: the pile around it changed.
            (b.still, b.settling, b.anchor) = (0, 0, [q.x, q.y]);
        } else if b.still == WOKEN_SOFT && !b.settled() {
            b.still = 0;
        } else {
            b.still = SLEEP_STEPS;
        }
        return;
    }
    // Far from the origin, moves of a few `f32` steps a substep are rounding, not motion.
    let far = q.x.abs().max(q.y.abs());
    let slow = p
        .sleep_speed
        .max((f32::from_bits(far.to_bits() + 1) - far) * p.rounding_speed);
    let strayed = (q.x - b.anchor[0]).abs().max((q.y - b.anchor[1]).abs());
    if strayed <= SETTLE_DRIFT * p.size {
        b.settling = b.settling.saturating_add(u32::from(p.tick));
    } else {
        (b.settling, b.anchor) = (0, [q.x, q.y]);
    }
    // Only a square that rests sleeps while it is slow: on the floor, or supported with its
    // centre over a support, between two, or held by a neighbour. One creeping off its
    // support's edge slower than the sleep speed slept hanging over the drop, its centre
    // beyond the edge; one wedged between its neighbours by friction slept as a lid over a
    // hole. One that has settled sleeps wherever it is (one balanced on a corner jittered in
    // place for ever).
    let resting = || {
        let balanced = b.rest & OVER != 0
            || b.rest & (REST_LEFT | REST_RIGHT) == REST_LEFT | REST_RIGHT
            || held_sides(p, q, b) != (false, false);
        q.y >= p.floor - p.touch || (p.substep.wrapping_sub(b.support) < 2 && balanced)
    };
    if q.vx * q.vx + q.vy * q.vy < slow * slow && resting() || b.settled() {
        b.still += u32::from(p.tick);
        if b.settled() {
            b.still = b.still.max(SLEEP_STEPS);
        }
        if b.asleep() {
            (q.vx, q.vy) = (0.0, 0.0);
            (b.lean_substeps, b.lean_y) = (0, q.y);
        }
    } else {
        b.still = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::body::SETTLED_STEPS;
    use crate::solver::motion::move_particle;
    use crate::solver::test_support::{at, body_at, params};

    /// A square leans (gains speed) towards a drop beside it: free on that side, with no
    /// shoulder below and no roof above there; away from its support's centre with a drop on
    /// both sides; with a shoulder or a neighbour on each side it stands.
    #[test]
    fn a_square_beside_a_drop_leans_there() {
        let p = params();
        let (now, free) = (p.substep, p.substep.wrapping_sub(5));
        // On a terrace (a shoulder on both sides) a square stands, free or held, on one
        // support or two, loaded or not.
        let terrace = [now, now];
        // Beside a drop on the left (no shoulder there), open to the sky or under a roof.
        let (cliff_left, open, roof_left) = ([free, now], [free, free], [now, free]);
        for (touched, shoulder, roof, rest, leans) in [
            ([free, now], terrace, open, REST_LEFT, 0.0),
            ([now, free], terrace, open, REST_RIGHT, 0.0),
            ([free, free], terrace, open, REST_LEFT, 0.0),
            ([free, free], terrace, open, REST_RIGHT, 0.0),
            ([now, now], terrace, open, REST_LEFT, 0.0),
            // A shoulder on one side, a drop on the other: it tips into the drop.
            ([free, free], [now, free], open, REST_LEFT, 1.0),
            ([free, free], [free, now], open, REST_RIGHT, -1.0),
            ([free, now], terrace, open, REST_LEFT | LOADED, 0.0),
            ([free, free], terrace, open, REST_LEFT | REST_RIGHT, 0.0),
            ([free, free], terrace, open, 0, 0.0),
            // The face of a cliff: loaded, or a brick over a joint, it tips over the edge.
            ([free, now], cliff_left, open, REST_LEFT | LOADED, -1.0),
            ([free, now], cliff_left, open, REST_LEFT | REST_RIGHT, -1.0),
            ([free, now], cliff_left, open, REST_RIGHT | LOADED, -1.0),
            // Beside a hole under a roof, inside a pile: it stays.
            ([free, now], cliff_left, roof_left, REST_LEFT | LOADED, 0.0),
            // Held on that side, or resting on nothing (falling): no lean.
            ([now, now], cliff_left, open, REST_LEFT | LOADED, 0.0),
            ([free, now], cliff_left, open, LOADED, 0.0),
            // A drop on both sides: away from a single support's centre (the top of a
            // tower); on two supports the tilts decide.
            ([free, free], [free, free], open, REST_RIGHT | LOADED, -1.0),
            ([free, free], [free, free], open, REST_LEFT, 1.0),
            (
                [free, free],
                [free, free],
                open,
                REST_LEFT | REST_RIGHT,
                0.0,
            ),
        ] {
            let mut q = at(40.0, 84.0);
            let mut body = Body {
                touched,
                shoulder,
                roof,
                rest,
                ..Body::default()
            };
            move_particle(&p, &mut q, &mut body);
            assert_eq!(
                q.vx.signum() * f32::from(u8::from(q.vx != 0.0)),
                leans,
                "{touched:?} {shoulder:?} {roof:?} {rest}"
            );
            assert_eq!(body.rest, 0, "forgotten");
            assert_eq!(body.leaning, leans != 0.0);
        }
        // Against a wall counts as held on that side.
        let mut q = at(0.0, 84.0);
        let mut body = Body {
            touched: [free, p.substep],
            rest: REST_RIGHT,
            ..Body::default()
        };
        move_particle(&p, &mut q, &mut body);
        assert_eq!(q.vx, 0.0);
    }

    /// A sleeper that has settled stays asleep when a neighbour only asks it to wake (a
    /// leaning one beside it, a square on it that may lean off it); a push wakes it and starts
    /// its settling over. One that has not settled wakes either way.
    #[test]
    fn a_settled_sleeper_wakes_only_to_a_push() {
        let p = params();
        for (settling, kind, wakes) in [
            (SETTLED_STEPS, WOKEN_SOFT, false),
            (SETTLED_STEPS, WOKEN, true),
            (SETTLED_STEPS - 1, WOKEN_SOFT, true),
            (0, WOKEN, true),
        ] {
            let mut q = at(40.0, 92.0);
            let mut body = Body {
                still: kind,
                settling,
                anchor: [q.x, q.y],
                ..Body::default()
            };
            settle(&p, &mut q, &mut body);
            assert_eq!(!body.asleep(), wakes, "{settling} {kind}");
            assert_eq!(body.settling == 0, kind == WOKEN, "{settling} {kind}");
        }
        // Awake, it falls asleep once it has stayed put long enough, however fast it goes.
        let mut q = at(40.0, 92.0);
        q.vy = 10.0 * p.sleep_speed;
        let mut body = Body {
            settling: SETTLED_STEPS - 1,
            anchor: [q.x, q.y],
            ..Body::default()
        };
        settle(&p, &mut q, &mut body);
        assert!(body.asleep());
        assert_eq!((q.vx, q.vy), (0.0, 0.0));
    }

    /// Only a square that rests falls asleep when slow: on the floor, or supported with its
    /// centre over a support, on two supports, or held by a neighbour; not one held up by
    /// nothing below (wedged between neighbours) nor one whose centre hangs beyond its one
    /// support's edge. One that has settled sleeps wherever it is.
    #[test]
    fn only_a_resting_square_sleeps() {
        let p = params();
        let (now, long_ago) = (p.substep, p.substep.wrapping_sub(5));
        for (y, support, rest, touched, rests) in [
            (92.0, long_ago, 0, [long_ago; 2], true),
            (84.0, long_ago, 0, [long_ago; 2], false),
            (84.0, long_ago, REST_LEFT | OVER, [long_ago; 2], false),
            (84.0, long_ago, 0, [now, now], false),
            (84.0, now, REST_LEFT | OVER, [long_ago; 2], true),
            (84.0, now, REST_RIGHT | OVER, [long_ago; 2], true),
            (84.0, now, REST_LEFT, [long_ago; 2], false),
            (84.0, now, REST_RIGHT, [long_ago; 2], false),
            (84.0, now, REST_LEFT | REST_RIGHT, [long_ago; 2], true),
            (84.0, now, REST_LEFT, [now, long_ago], true),
            (84.0, now, REST_LEFT, [long_ago, now], true),
        ] {
            for settling in [0, SETTLED_STEPS - 1] {
                let mut q = at(40.0, y);
                let mut body = Body {
                    still: SLEEP_STEPS - 1,
                    settling,
                    anchor: [q.x, q.y],
                    support,
                    rest,
                    touched,
                    ..Body::default()
                };
                settle(&p, &mut q, &mut body);
                let sleeps = rests || settling > 0;
                assert_eq!(
                    body.asleep(),
                    sleeps,
                    "y {y}, support {support}, rest {rest}, {settling}"
                );
            }
        }
    }

    /// A support sliding out from under a sleeping square (faster than the sleep speed, the
    /// square's centre three quarters of a side or more beyond its edge) wakes it; one that
    /// slides back under it, or slowly, or is still under its centre, leaves it asleep.
    #[test]
    fn a_support_sliding_away_wakes_the_square_on_it() {
        let p = params();
        for (offset, vx, wakes) in [
            (7.0, 2.0 * p.sleep_speed, true),
            (-7.0, -2.0 * p.sleep_speed, true),
            (7.0, -2.0 * p.sleep_speed, false),
            (7.0, 0.5 * p.sleep_speed, false),
            (5.0, 2.0 * p.sleep_speed, false),
        ] {
            for upper_first in [true, false] {
                let (up, mut low) = (at(40.0, 84.0), at(40.0 + offset, 92.0));
                low.vx = vx;
                let (mut bu, mut bl) = (body_at(&up, true), body_at(&low, false));
                let dx = if upper_first { offset } else { -offset };
                if upper_first {
                    mark_rest(&p, true, dx, &up, &mut bu, &low, &mut bl);
                } else {
                    mark_rest(&p, false, dx, &low, &mut bl, &up, &mut bu);
                }
                assert_eq!(bu.still == WOKEN, wakes, "offset {offset}, vx {vx}");
            }
        }
    }
}
