//! How much of the solver's cost per contact is the bare push, and how much the rest (the grain
//! rules, sleep, walls, friction, the substep bookkeeping): a measurement for issue 49, not a
//! test. It steps the standard falling pile (100,000 particles, coverage 0.5, gravity, seed 1,
//! one thread) and every 50 frames times, on a copy of the particles and the step's contact
//! list, a bare position push (each overlapping pair parted along its axis of least overlap,
//! half each, in the list's order: a Gauss-Seidel sweep as the solver's) against the solver's
//! own `resolve` phase, each per contact and substep. It also times the same push on batches
//! of eight contacts that share no particle (a greedy colouring), written for the compiler to
//! vectorise, as a solver solving several contacts at once would.
//!
//! `cargo run --release -p quadstress-sim --example contact_kernel`

use quadstress_sim::{Particle, SimConfig, Simulation};
use std::time::Instant;

/// One sweep of bare pushes over `contacts` in order; returns the total push (so that the
/// work is not optimised away).
fn sweep(p: &mut [Particle], contacts: &[(u32, u32)], size: f32) -> f32 {
    let mut total = 0.0f32;
    for &(a, b) in contacts {
        let (a, b) = (a as usize, b as usize);
        let (dx, dy) = (p[b].x - p[a].x, p[b].y - p[a].y);
        let (ox, oy) = (size - dx.abs(), size - dy.abs());
        if ox <= 0.0 || oy <= 0.0 {
            continue;
        }
        let (hx, hy) = if ox < oy {
            (0.5 * ox * dx.signum(), 0.0)
        } else {
            (0.0, 0.5 * oy * dy.signum())
        };
        p[a].x -= hx;
        p[a].y -= hy;
        p[b].x += hx;
        p[b].y += hy;
        total += hx.abs() + hy.abs();
    }
    total
}

const LANES: usize = 8;
const EMPTY: (u32, u32) = (u32::MAX, u32::MAX);

/// Greedy colouring: each contact joins the first batch after the last batch holding either of
/// its particles that still has room (among the last 64 open batches), so that the batches,
/// solved in order, keep each particle's contacts in the list's order.
fn batches(contacts: &[(u32, u32)], n: usize) -> Vec<[(u32, u32); LANES]> {
    let mut out: Vec<[(u32, u32); LANES]> = Vec::new();
    let mut fill: Vec<usize> = Vec::new();
    let mut last = vec![usize::MAX; n];
    let mut open: Vec<usize> = Vec::new();
    for &(a, b) in contacts {
        let after = last[a as usize].max(last[b as usize]).wrapping_add(1);
        let k = match open.iter().find(|&&o| o >= after) {
            Some(&k) => k,
            None => {
                out.push([EMPTY; LANES]);
                fill.push(0);
                open.push(out.len() - 1);
                out.len() - 1
            }
        };
        out[k][fill[k]] = (a, b);
        fill[k] += 1;
        if fill[k] == LANES {
            open.retain(|&o| o != k);
        }
        if open.len() > 64 {
            open.remove(0);
        }
        (last[a as usize], last[b as usize]) = (k, k);
    }
    out
}

/// [`sweep`] batch by batch, eight lanes at once (`dummy`: a far particle empty lanes use).
fn sweep_batched(
    p: &mut [Particle],
    batches: &[[(u32, u32); LANES]],
    size: f32,
    dummy: usize,
) -> f32 {
    let mut total = 0.0f32;
    for batch in batches {
        let (mut ia, mut ib) = ([dummy; LANES], [dummy; LANES]);
        let (mut ax, mut ay, mut bx, mut by) =
            ([0.0f32; LANES], [0.0; LANES], [0.0; LANES], [0.0; LANES]);
        for l in 0..LANES {
            if batch[l] != EMPTY {
                (ia[l], ib[l]) = (batch[l].0 as usize, batch[l].1 as usize);
            }
            (ax[l], ay[l], bx[l], by[l]) = (p[ia[l]].x, p[ia[l]].y, p[ib[l]].x, p[ib[l]].y);
        }
        let (mut hx, mut hy) = ([0.0f32; LANES], [0.0f32; LANES]);
        for l in 0..LANES {
            let (dx, dy) = (bx[l] - ax[l], by[l] - ay[l]);
            let (ox, oy) = (size - dx.abs(), size - dy.abs());
            let hit = ox > 0.0 && oy > 0.0 && ia[l] != ib[l];
            let along_x = ox < oy;
            let h = if hit {
                0.5 * if along_x { ox } else { oy }
            } else {
                0.0
            };
            hx[l] = if along_x { h.copysign(dx) } else { 0.0 };
            hy[l] = if along_x { 0.0 } else { h.copysign(dy) };
        }
        for l in 0..LANES {
            if ia[l] != ib[l] {
                p[ia[l]].x -= hx[l];
                p[ia[l]].y -= hy[l];
                p[ib[l]].x += hx[l];
                p[ib[l]].y += hy[l];
                total += hx[l].abs() + hy[l].abs();
            }
        }
    }
    total
}

fn main() {
    const SUBSTEPS: usize = 3;
    let n = 100_000;
    let mut config = SimConfig::with_coverage(n, 0.5);
    config.gravity_on = true;
    config.seed = 1;
    config.threads = Some(1);
    let mut sim = Simulation::new(config).expect("the standard pile's settings");
    sim.spawn_burst(n).expect("room for the pile");
    let size = config.particle_size;
    let start = Instant::now();
    let clock = || start.elapsed().as_secs_f64();
    println!("frame, contacts, solver resolve ns/contact/substep, bare push, batched push (ns)");
    for frame in 1..=300 {
        let times = sim.step_timed(1.0 / 60.0, clock).expect("a valid step");
        if frame % 50 != 0 {
            continue;
        }
        let contacts = sim.contacts().to_vec();
        let per = |ms: f64| ms * 1e6 / (SUBSTEPS * contacts.len()) as f64;
        let mut p = sim.particles().to_vec();
        let t = Instant::now();
        let mut moved = 0.0;
        for _ in 0..SUBSTEPS {
            moved += sweep(&mut p, &contacts, size);
        }
        let bare = per(t.elapsed().as_secs_f64() * 1e3);
        let mut q = sim.particles().to_vec();
        q.push(Particle {
            x: -1e9,
            y: -1e9,
            vx: 0.0,
            vy: 0.0,
        });
        let lanes = batches(&contacts, q.len());
        let t = Instant::now();
        let mut moved_batched = 0.0;
        for _ in 0..SUBSTEPS {
            moved_batched += sweep_batched(&mut q, &lanes, size, n);
        }
        let batched = per(t.elapsed().as_secs_f64() * 1e3);
        println!(
            "{frame}, {}, {:.1}, {bare:.1}, {batched:.1} (pushed {moved:.0} and {moved_batched:.0} units)",
            contacts.len(),
            per(times.resolve_ms),
        );
    }
}
