//! The contact math: one substep's push on a pair of squares (`solve_contact_in`) and the
//! once-a-step restitution, as the module documentation of `solver` describes.

#[cfg(test)]
use super::body::WOKEN_SOFT;
use super::body::{Body, WOKEN};
use super::grain::{mark_rest, mark_shoulder, mark_sides, mark_support, SHOULDER, SIDE_LATERAL};
use super::{clamp, side, Params};
use crate::Particle;

/// How steeply the normal of a square resting on another tilts: the tangent of the tilt per
/// side of offset between their centres, and its cap. Steeper (2 per side) packs a pile
/// denser but keeps it creeping: every square more than 0.15 side off its support's centre
/// slides, so the 100,000 pile compacted for 5 s after it landed, stepping at about 30 ms
/// instead of sleeping, and sank along the walls; flatter (1 per side) settles sooner still but
/// packs 10,000 particles below 0.8 (see BENCHMARKS.md).
pub(super) const TILT: f32 = 1.5;

pub(super) const TILT_MAX: f32 = 2.0;

/// Coulomb friction of contacts and walls under gravity.
pub(super) const FRICTION: f32 = 0.3;

/// A contact as the solver keeps it: its particles `a < b`, and the row of its lower particle
/// while it is sorted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Contact {
    pub(super) a: u32,
    pub(super) b: u32,
    /// The row while sorting (0 once sorted); then [`TOUCHED`], [`ALONG_Y`] and [`B_LOW`].
    pub(super) key: u32,
    /// The closing speed along the normal when the pair first touched in this step.
    pub(super) closing: f32,
}

/// The contact touched in this step: `closing` holds its closing speed then.
pub(super) const TOUCHED: u32 = 1;

/// Its normal is along y (else x)...
pub(super) const ALONG_Y: u32 = 2;

/// ...and points from `a` to `b` in the negative direction (b is left of or above a).
pub(super) const B_LOW: u32 = 4;

/// Whether a particle at `q` can move by `d` along the axis (y if `along_y`) without
/// leaving the walls' range on that side.
#[inline(always)]
fn can_move(p: &Params, q: &Particle, along_y: bool, d: f32) -> bool {
    let (pos, lo, hi) = if along_y {
        (q.y, p.top, p.floor)
    } else {
        (q.x, p.left, p.right)
    };
    if d < 0.0 {
        pos > lo
    } else {
        pos < hi
    }
}

/// [`solve_contact_in`] with the constant read from `p.gravity`: the unit tests' entry.
#[cfg(test)]
pub(super) fn solve_contact(
    p: &Params,
    c: &mut Contact,
    a: &mut Particle,
    ba: &mut Body,
    b: &mut Particle,
    bb: &mut Body,
) {
    if p.gravity {
        solve_contact_in::<true>(p, c, a, ba, b, bb);
    } else {
        solve_contact_in::<false>(p, c, a, ba, b, bb);
    }
}

/// One substep's push on a contact (see the module documentation), with `p.gravity` as the
/// constant `GRAVITY`: the stripe walk is compiled once with gravity and once without, so
/// that the contact loop tests none of the rules' gravity switches.
#[inline(always)]
pub(super) fn solve_contact_in<const GRAVITY: bool>(
    p: &Params,
    c: &mut Contact,
    a: &mut Particle,
    ba: &mut Body,
    b: &mut Particle,
    bb: &mut Body,
) {
    debug_assert_eq!(p.gravity, GRAVITY);
    let (sleep_a, sleep_b) = (ba.asleep(), bb.asleep());
    if sleep_a && sleep_b {
        return;
    }
    let s = p.size;
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    // Neighbours side by side (any pair the broad phase found: within its margin) hold each
    // other up sideways (see `lean`).
    if GRAVITY && dy.abs() < (1.0 - SIDE_LATERAL) * s && dx.abs() >= dy.abs() {
        mark_sides(p, dx, a, ba, b, bb);
    }
    // (A fast particle's swept box finds pairs further apart: only a neighbour counts.)
    let (adx, ady) = (dx.abs(), dy.abs());
    let near = |d: f32, least: f32| (least * s..=1.25 * s).contains(&d);
    if GRAVITY && near(ady, 0.5) && near(adx, SHOULDER) {
        mark_shoulder(p, dx, dy, ba, bb);
    }
    let (ox, oy) = (s - adx, s - ady);
    // Where the pair was before this substep's motion: the axis it was apart on (only one),
    // from the side it was on, even if it crossed since.
    let (wx, wy) = (dx - (b.vx - a.vx) * p.h, dy - (b.vy - a.vy) * p.h);
    // Apart by more than `touch` along an axis, on the side it came from: whichever axis is
    // chosen below, the pair then has no push and no rest to note (across that axis it has no
    // lateral overlap, along it a depth of at most `-touch`). Most pairs of a falling pile
    // leave here.
    if ox <= -p.touch && (wx < 0.0) == (dx < 0.0) || oy <= -p.touch && (wy < 0.0) == (dy < 0.0) {
        return;
    }
    let (apart_x, apart_y) = (wx.abs() >= s, wy.abs() >= s);
    let (mut along_y, mut dir) = if apart_y != apart_x {
        (apart_y, if apart_y { side(wy) } else { side(wx) })
    } else if oy <= ox || GRAVITY && ox > 0.5 * s {
        // Under gravity, squares that sink into each other by more than half a side across
        // part vertically: one squeezed into a gap narrower than itself climbs out of it
        // (and slides off, by the tilt) instead of being pushed from wall to wall.
        (true, side(dy))
    } else {
        (false, side(dx))
    };
    let (mut depth, lateral) = if along_y {
        (s - dir * dy, ox)
    } else {
        (s - dir * dx, oy)
    };
    // The lower particle of a contact along y (positive y is down): `b` when dir > 0.
    let lower_is_b = dir > 0.0;
    let supported = |q: &Particle, body: &Body| {
        body.asleep()
            || (body.support.wrapping_add(1) >= p.substep || q.y >= p.floor - p.touch)
                && q.vy > -p.wake_speed
    };
    if lateral <= 0.0 {
        return;
    }
    if depth <= p.slop {
        // Resting on a support across a hair's gap still counts as supported.
        if GRAVITY && along_y && depth > -p.touch {
            mark_support(p, lower_is_b, a, ba, b, bb, supported);
            mark_rest(p, lower_is_b, dx, a, ba, b, bb);
        }
        return;
    }
    let mut wa = if sleep_a { 0.0 } else { 1.0 };
    let mut wb = if sleep_b { 0.0 } else { 1.0 };
    // An awake particle pushing in or passing fast wakes a sleeping one, from the next step
    // on: for the rest of this one it holds still, as the floor would, so that nothing it
    // rests on is missing from the contacts (those between two sleeping particles are left
    // out of the step).
    if sleep_a || sleep_b {
        wake_pushed(p, depth, sleep_a, a, ba, b, bb);
    }
    // The normal, from a to b, and how far b must move from a along it.
    let (mut nx, mut ny) = if along_y { (0.0, dir) } else { (dir, 0.0) };
    let mut reach = depth;
    if GRAVITY && along_y {
        // The normal tilts away from the support's centre (see the module documentation).
        let offset = dx.abs();
        if offset > 0.0 {
            let t = (TILT * offset / s).min(TILT_MAX);
            let norm = (1.0 + t * t).sqrt();
            (nx, ny) = (side(dx) * t / norm, dir / norm);
            reach = depth * norm;
        }
        // Shock propagation: a supported lower particle holds still.
        let (lower, lower_body, upper) = if lower_is_b {
            (&*b, &*bb, &*a)
        } else {
            (&*a, &*ba, &*b)
        };
        let upper_awake = if lower_is_b { wa > 0.0 } else { wb > 0.0 };
        if upper_awake && can_move(p, upper, true, -1.0) && supported(lower, lower_body) {
            // The upper particle takes the whole push.
            (wa, wb) = if lower_is_b { (1.0, 0.0) } else { (0.0, 1.0) };
        }
    }
    // The walls: a particle against a wall on the side it would be pushed to stays.
    let main_a = if along_y { -ny } else { -nx };
    let main_b = -main_a;
    if wa > 0.0 && !can_move(p, a, along_y, main_a) {
        wa = 0.0;
    }
    if wb > 0.0 && !can_move(p, b, along_y, main_b) {
        wb = 0.0;
    }
    if wa + wb == 0.0 {
        // Neither can give this way. A shallow overlap stays (it does not grow: neither
        // moves towards the other along the axis); parting a pair that barely touches along
        // another way would push one through a whole side, into whatever lies there.
        if depth <= 0.5 * s {
            return;
        }
        match part_deep_pair(p, a, ba, b, bb, along_y, dir, dx, dy) {
            Some(parted) => (along_y, dir, depth, nx, ny, wa, wb) = parted,
            None => return,
        }
        reach = depth;
    }
    // Each weight is 0 or 1 here: shared halves when both can move (the same bits as dividing
    // by their sum, without a division on the contact's path).
    let (wa, wb) = if wa + wb > 1.0 {
        (0.5 * wa, 0.5 * wb)
    } else {
        (wa, wb)
    };
    let push = (reach - p.slop).max(0.0);
    // A particle pushed deep this step does not count as still (it must not fall asleep
    // inside another).
    if push > 0.05 * s {
        if wa > 0.0 {
            ba.still = 0;
        }
        if wb > 0.0 {
            bb.still = 0;
        }
    }
    // Under gravity, the part of the push that undoes this substep's approach becomes
    // velocity at the substep's end (`take_velocity`); the rest only moves the particles
    // (their `mid` moves along), so overlapping spawns part without flying apart. The
    // approach counts the pushes this substep already made (`x - mid`): a particle held up
    // by its support has stopped. Without gravity every push is of the second kind, and
    // a closing pair gets an elastic impulse instead (below).
    let approach = if GRAVITY {
        (a.vx * p.h + a.x - ba.mid[0] - b.vx * p.h - b.x + bb.mid[0]) * nx
            + (a.vy * p.h + a.y - ba.mid[1] - b.vy * p.h - b.y + bb.mid[1]) * ny
    } else {
        0.0
    };
    let quiet = (push - approach.max(0.0)).max(0.0);
    let (ax, ay, bx, by) = (a.x, a.y, b.x, b.y);
    a.x -= wa * push * nx;
    a.y -= wa * push * ny;
    b.x += wb * push * nx;
    b.y += wb * push * ny;
    ba.mid[0] -= wa * quiet * nx;
    ba.mid[1] -= wa * quiet * ny;
    bb.mid[0] += wb * quiet * nx;
    bb.mid[1] += wb * quiet * ny;
    // Coulomb friction: undo the sliding across the normal in this substep, up to
    // `friction` times the push.
    // (`dir` as it is now: a deep pair may have swapped sides above.)
    let upper_leans = along_y && if dir > 0.0 { ba.leaning } else { bb.leaning };
    if p.friction > 0.0 && !upper_leans {
        let (tx, ty) = (-ny, nx);
        let slide = ((b.x - bb.mid[0]) - (a.x - ba.mid[0]) + (b.vx - a.vx) * p.h) * tx
            + ((b.y - bb.mid[1]) - (a.y - ba.mid[1]) + (b.vy - a.vy) * p.h) * ty;
        let undo = clamp(slide, p.friction * push);
        a.x += wa * undo * tx;
        a.y += wa * undo * ty;
        b.x -= wb * undo * tx;
        b.y -= wb * undo * ty;
    }
    // Of what the walls take back, so much moves `mid` as the push did (a spawn's overlap
    // pushed into a wall, taken back, would otherwise leave as speed away from it).
    // (A division, taken only where a wall or a shortfall needs it.)
    let still_share = || if push > 0.0 { quiet / push } else { 0.0 };
    // Most pushes leave both inside the walls: one test of the two, and nothing to clamp.
    if !(p.within_walls(a) & p.within_walls(b)) {
        keep_within_walls(p, a, ba, still_share());
        keep_within_walls(p, b, bb, still_share());
    }
    // A wall that stopped one particle short hands the rest of the push to the other.
    let short_a = ((ax - a.x) * nx + (ay - a.y) * ny) - wa * push;
    let short_b = ((b.x - bx) * nx + (b.y - by) * ny) - wb * push;
    // Not the sideways part of a tilted push (see the module documentation).
    let tilted = nx != 0.0 && ny != 0.0;
    // Of what is handed on, only the share that undoes the approach gives speed, as for the
    // push itself. (Where no wall stopped either, the shortfall is the rounding of the push,
    // and so is what is handed on: yet that rounding's bias, the push of each pair a hair
    // longer, is part of the solver's behaviour; a cliff stepped at 1/1000 s stood without it.)
    if !tilted && short_a < 0.0 && wb > 0.0 {
        shift_within_walls(p, b, bb, -short_a * nx, -short_a * ny, still_share());
    } else if !tilted && short_b < 0.0 && wa > 0.0 {
        shift_within_walls(p, a, ba, short_b * nx, short_b * ny, still_share());
    }
    let closing = (a.vx - b.vx) * nx + (a.vy - b.vy) * ny;
    if !GRAVITY && closing > 0.0 {
        // A gas: an impulse that sends the pair apart at `restitution` times its closing
        // speed, between equals (a wall reflects a particle by itself).
        let j = 0.5 * (1.0 + p.restitution) * closing;
        a.vx -= j * nx;
        a.vy -= j * ny;
        b.vx += j * nx;
        b.vy += j * ny;
    }
    if c.key & TOUCHED == 0 {
        c.key = TOUCHED | if along_y { ALONG_Y } else { 0 } | if dir < 0.0 { B_LOW } else { 0 };
        c.closing = closing;
    }
    if GRAVITY && along_y {
        mark_support(p, lower_is_b, a, ba, b, bb, supported);
        mark_rest(p, lower_is_b, dx, a, ba, b, bb);
    }
}

/// A pair overlapping by more than half a side whose push neither particle can take along its
/// axis (see the module documentation): it parts the other way round if the two are level
/// along the axis (a square on the floor beside a sleeping one climbs onto it), else along
/// the other axis. Returns the new axis, direction, depth, normal and weights, or `None` if
/// neither can move that way either. Rare: kept out of the contact loop.
#[cold]
#[inline(never)]
#[expect(
    clippy::too_many_arguments,
    reason = "the contact's state, out of line"
)]
fn part_deep_pair(
    p: &Params,
    a: &Particle,
    ba: &Body,
    b: &Particle,
    bb: &Body,
    along_y: bool,
    dir: f32,
    dx: f32,
    dy: f32,
) -> Option<(bool, f32, f32, f32, f32, f32, f32)> {
    let s = p.size;
    let free = |q: &Particle, body: &Body, along_y: bool, d: f32| {
        f32::from(u8::from(!body.asleep() && can_move(p, q, along_y, d)))
    };
    let (mut along_y, mut dir) = (along_y, dir);
    let level = if along_y { dy.abs() } else { dx.abs() } < 0.5 * s;
    if level && free(a, ba, along_y, dir) + free(b, bb, along_y, -dir) > 0.0 {
        dir = -dir;
    } else {
        along_y = !along_y;
        dir = side(if along_y { dy } else { dx });
    }
    let depth = if along_y { s - dir * dy } else { s - dir * dx };
    let (nx, ny) = if along_y { (0.0, dir) } else { (dir, 0.0) };
    let wa = free(a, ba, along_y, -dir);
    let wb = free(b, bb, along_y, dir);
    (wa + wb > 0.0).then_some((along_y, dir, depth, nx, ny, wa, wb))
}

/// A push deeper than this (in sides) into a sleeping particle wakes it, settled or not: the
/// pair is stuck in each other, and one of them must give (a square wedged between two
/// settled sleepers, one under it and one over it, stayed inside the one under it for ever).
const STUCK: f32 = 0.5;

/// An awake particle pushing into a sleeping one (`a` if `sleep_a`, else `b`) by `depth`, or
/// passing it fast, wakes it from the next step on (see `solve_contact_in`). Out of the
/// contact loop: a falling pile has few sleeping particles, a sleeping one few pushes.
#[cold]
#[inline(never)]
fn wake_pushed(
    p: &Params,
    depth: f32,
    sleep_a: bool,
    a: &Particle,
    ba: &mut Body,
    b: &Particle,
    bb: &mut Body,
) {
    let (mover, mover_body, body) = if sleep_a {
        (b, &*bb, ba)
    } else {
        (a, &*ba, bb)
    };
    let speed2 = mover.vx * mover.vx + mover.vy * mover.vy;
    // A settled particle pushing into a sleeping one is stuck in it, not arriving; a settled
    // sleeper holds a slow one that sinks into it as the floor would (under strong gravity,
    // each woken square sank into a settled neighbour and woke it, for ever).
    if depth > 0.05 * p.size && !mover_body.settled() && !body.settled()
        || speed2 > p.wake_speed * p.wake_speed
        || depth > STUCK * p.size
    {
        body.still = WOKEN;
    }
}

/// [`shift_within_walls`] by nothing: only the walls move `q` (and `mid`, when they do).
#[inline(always)]
fn keep_within_walls(p: &Params, q: &mut Particle, body: &mut Body, still_share: f32) {
    let (px, py) = (q.x, q.y);
    p.clamp_to_walls(q);
    if q.x != px || q.y != py {
        body.mid[0] += still_share * (q.x - px);
        body.mid[1] += still_share * (q.y - py);
    }
}

/// Moves `q` by `(hx, hy)` and into the walls' range, and its `mid` along by `still_share` of
/// where that took it: that share of the move gives no speed (see `solve_contact_in`).
#[inline(always)]
pub(super) fn shift_within_walls(
    p: &Params,
    q: &mut Particle,
    body: &mut Body,
    hx: f32,
    hy: f32,
    still_share: f32,
) {
    q.x += hx;
    q.y += hy;
    let (px, py) = (q.x, q.y);
    p.clamp_to_walls(q);
    body.mid[0] += still_share * (hx + q.x - px);
    body.mid[1] += still_share * (hy + q.y - py);
}

/// Whether restitution gives a contact speed back: it touched in this step, closing faster
/// than the rest speed.
#[inline(always)]
pub(super) fn bounces(p: &Params, c: &Contact) -> bool {
    !(c.key & TOUCHED == 0 || c.closing <= p.rest_speed)
}

/// Restitution under gravity, once a step: a contact that closed faster than the rest speed
/// (one that [`bounces`], which the walk checks before reading its particles) parts at
/// `restitution` times that speed, along the axis it touched on.
#[inline(always)]
pub(super) fn restitute(
    p: &Params,
    c: &mut Contact,
    a: &mut Particle,
    ba: &mut Body,
    b: &mut Particle,
    bb: &mut Body,
) {
    debug_assert!(
        bounces(p, c),
        "the walk calls restitute only on contacts that bounce"
    );
    let closing = c.closing;
    let dir = if c.key & B_LOW != 0 { -1.0 } else { 1.0 };
    let (wa, wb) = match (ba.asleep(), bb.asleep()) {
        (false, false) => (0.5, 0.5),
        (true, false) => (0.0, 1.0),
        (false, true) => (1.0, 0.0),
        (true, true) => return,
    };
    let along_y = c.key & ALONG_Y != 0;
    let (va, vb) = if along_y {
        (&mut a.vy, &mut b.vy)
    } else {
        (&mut a.vx, &mut b.vx)
    };
    // Parting speed now, and what restitution asks for.
    let parting = (*vb - *va) * dir;
    let want = p.restitution * closing;
    if parting < want {
        let dv = (want - parting) * dir;
        *va -= wa * dv;
        *vb += wb * dv;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::body::{LOADED, OVER, REST_LEFT, SETTLED_STEPS};
    use crate::solver::test_support::{at, body_at, params, solve};

    /// Two squares on the same spot in a corner part: one of them can always move.
    #[test]
    fn a_coincident_pair_in_a_corner_parts() {
        let p = params();
        for (x, y) in [
            (92.0, 92.0),
            (0.0, 92.0),
            (0.0, 0.0),
            (92.0, 0.0),
            (40.0, 92.0),
        ] {
            let (mut a, mut b) = (at(x, y), at(x, y));
            solve(&p, &mut a, &mut b);
            let gap = (a.x - b.x).abs().max((a.y - b.y).abs());
            assert!(gap >= 8.0 - 0.01, "({x}, {y}): {a:?} {b:?}");
        }
    }

    /// A square on the floor with another on top off its centre is pushed sideways, away from
    /// its support (a centred one: `a_square_free_on_one_side_leans_there`).
    #[test]
    fn a_square_off_its_support_slides_off() {
        let p = params();
        let (mut low, mut up) = (at(40.0, 92.0), at(43.0, 84.5));
        solve(&p, &mut low, &mut up);
        assert_eq!(
            (low.x, low.y),
            (40.0, 92.0),
            "the supported square holds still"
        );
        assert!(up.x > 43.0 && up.y < 84.5, "{up:?}");
    }

    /// A square pressed against a wall that barely overlaps a sleeping neighbour beside it
    /// stays where it is: it is not sent a whole side along the other axis (into the square
    /// under it, where it stuck: a coincident pair at rest).
    #[test]
    fn a_shallow_overlap_against_a_wall_stays() {
        let p = params();
        let (mut sleeper, mut mover) = (at(84.008, 60.0), at(92.0, 60.02));
        mover.vy = p.gh;
        let (mut bs, mut bm) = (body_at(&sleeper, true), body_at(&mover, false));
        let mut c = Contact::default();
        solve_contact(&p, &mut c, &mut sleeper, &mut bs, &mut mover, &mut bm);
        assert_eq!((sleeper.x, sleeper.y), (84.008, 60.0));
        assert_eq!(mover.x, 92.0);
        assert!((mover.y - 60.02).abs() < 0.01, "{mover:?}");
    }

    /// A supported square holds still under one that lands on it, unless it rises faster than
    /// the wake speed (it bounced): then the two share the push, as a falling clump does.
    #[test]
    fn a_rising_square_is_no_support() {
        let p = params();
        for (vy, holds) in [
            (0.0, true),
            (-0.5 * p.wake_speed, true),
            (-4.0 * p.wake_speed, false),
        ] {
            let (mut low, mut up) = (at(40.0, 80.0), at(40.0, 72.5));
            low.vy = vy;
            up.vy = 10.0 * p.wake_speed;
            let (mut bl, mut bu) = (body_at(&low, false), body_at(&up, false));
            bl.support = p.substep;
            let mut c = Contact::default();
            solve_contact(&p, &mut c, &mut low, &mut bl, &mut up, &mut bu);
            assert_eq!(low.y == 80.0, holds, "vy {vy}: {low:?} {up:?}");
            assert!(
                up.y - low.y <= -8.0 + 0.01,
                "vy {vy}: parted {low:?} {up:?}"
            );
        }
    }

    /// A push deeper than half a side into a settled sleeper wakes it (the pair is stuck); a
    /// square sinking into it a little does not.
    #[test]
    fn a_deep_push_wakes_a_settled_sleeper() {
        let p = params();
        for (depth, wakes) in [(0.1, false), (0.4, false), (0.6, true), (0.9, true)] {
            let (mut low, mut up) = (at(40.0, 80.0), at(40.0, 72.0 + depth * 8.0));
            let (mut bl, mut bu) = (body_at(&low, true), body_at(&up, false));
            bl.settling = SETTLED_STEPS;
            let mut c = Contact::default();
            solve_contact(&p, &mut c, &mut low, &mut bl, &mut up, &mut bu);
            assert_eq!(bl.still == WOKEN, wakes, "depth {depth}");
            assert_eq!(
                (low.x, low.y),
                (40.0, 80.0),
                "a sleeper holds still in its step"
            );
        }
    }

    /// A sleeping square under an awake one free to lean off it wakes; under one held on both
    /// sides it sleeps on.
    #[test]
    fn a_leaning_square_wakes_its_support() {
        let p = params();
        for (held, wakes) in [(false, true), (true, false)] {
            let (mut low, mut up) = (at(40.0, 92.0), at(40.0, 84.005));
            let (mut bl, mut bu) = (body_at(&low, true), body_at(&up, false));
            if held {
                bu.touched = [p.substep, p.substep];
            }
            let mut c = Contact::default();
            solve_contact(&p, &mut c, &mut low, &mut bl, &mut up, &mut bu);
            assert_eq!(bl.still == WOKEN_SOFT, wakes, "held {held}");
            assert_eq!(bl.rest, LOADED);
            assert_eq!(bu.rest, REST_LEFT | OVER);
        }
    }

    /// A sleeping square wakes when the neighbour beside it moves on faster than the wake
    /// speed (it may leave a drop there), either way round, and sleeps on beside a slow one.
    #[test]
    fn a_sleeping_square_wakes_beside_a_neighbour_moving_on() {
        let p = params();
        for (speed, wakes) in [(0.5 * p.wake_speed, false), (2.0 * p.wake_speed, true)] {
            for sleeper_first in [true, false] {
                // Side by side on the floor, a hair apart: no push, only the neighbour's speed.
                let (mut sleeper, mut mover) = (at(40.0, 84.0), at(48.01, 84.0));
                mover.vy = speed;
                let (mut bs, mut bm) = (body_at(&sleeper, true), body_at(&mover, false));
                let mut c = Contact::default();
                if sleeper_first {
                    solve_contact(&p, &mut c, &mut sleeper, &mut bs, &mut mover, &mut bm);
                } else {
                    solve_contact(&p, &mut c, &mut mover, &mut bm, &mut sleeper, &mut bs);
                }
                assert_eq!(bs.still == WOKEN, wakes, "speed {speed}, {sleeper_first}");
                assert_eq!((sleeper.x, sleeper.y), (40.0, 84.0));
            }
        }
    }

    /// A fast square that crossed a row within a substep is put back on the side it came from.
    #[test]
    fn a_fast_square_lands_on_the_side_it_came_from() {
        let mut p = params();
        p.gravity = false;
        let mut row = at(40.0, 60.0);
        let mut fast = at(40.0, 66.0);
        fast.vy = 20.0 / p.h; // came from y = 46, eight units above the row's top
        solve(&p, &mut row, &mut fast);
        assert!(fast.y <= row.y - 8.0 + 0.01, "{fast:?} {row:?}");
    }
}
