//! Data for the benchmarks, shared by the `bench` binary and the criterion benches.

use quadstress::Rect;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// `n` boxes of 32x32 at random positions inside an 800x600 world: with a million, every
/// spot is covered many times over, and most boxes cross the lines of the finest cells.
pub fn boxes_32x32_800x600(n: usize, seed: u64) -> (Rect, Vec<Rect>) {
    let world = Rect::new(0.0, 0.0, 800.0, 600.0);
    let mut rng = StdRng::seed_from_u64(seed);
    let rects = (0..n)
        .map(|_| {
            let x = rng.random_range(0.0..800.0 - 32.0);
            let y = rng.random_range(0.0..600.0 - 32.0);
            Rect::from_min_size(x, y, 32.0, 32.0)
        })
        .collect();
    (world, rects)
}

/// `n` boxes of side 2 at constant density: world side `sqrt(n) * 4`. Positions lie on a 0.25
/// grid, so exact touches (closed boxes) happen and show in the counts.
pub fn constant_density(n: usize, seed: u64) -> (Rect, Vec<Rect>) {
    let side = (n as f32).sqrt() * 4.0;
    let world = Rect::new(0.0, 0.0, side, side);
    let steps = ((side - 2.0) * 4.0) as u32;
    let mut rng = StdRng::seed_from_u64(seed);
    let rects = (0..n)
        .map(|_| {
            let x = rng.random_range(0..=steps) as f32 * 0.25;
            let y = rng.random_range(0..=steps) as f32 * 0.25;
            Rect::from_min_size(x, y, 2.0, 2.0)
        })
        .collect();
    (world, rects)
}

/// `n` boxes with sides from 1 to 64, clustered around a few centres, as when particles are
/// sprayed from the mouse and pile up: a uniform grid must use cells of the largest size.
pub fn clustered(n: usize, seed: u64) -> (Rect, Vec<Rect>) {
    let side = (n as f32).sqrt() * 8.0;
    let world = Rect::new(0.0, 0.0, side, side);
    let mut rng = StdRng::seed_from_u64(seed);
    let centres: Vec<(f32, f32, f32)> = (0..6)
        .map(|_| {
            (
                rng.random_range(0.15 * side..0.85 * side),
                rng.random_range(0.15 * side..0.85 * side),
                rng.random_range(0.02 * side..0.08 * side),
            )
        })
        .collect();
    let rects = (0..n)
        .map(|_| {
            let (cx, cy, spread) = centres[rng.random_range(0..centres.len())];
            // Sum of uniforms: a cheap bell shape around the centre.
            let dx: f32 = (0..3).map(|_| rng.random_range(-1.0..1.0f32)).sum::<f32>() * spread;
            let dy: f32 = (0..3).map(|_| rng.random_range(-1.0..1.0f32)).sum::<f32>() * spread;
            // Mostly small, some large: side = 64^u, u uniform, so from 1 to 64.
            let w = 64f32.powf(rng.random_range(0.0..1.0f32) * rng.random_range(0.0..1.0f32));
            let h = w * rng.random_range(0.5..1.0f32);
            let x = (cx + dx).clamp(0.0, side - w);
            let y = (cy + dy).clamp(0.0, side - h);
            Rect::from_min_size(x, y, w, h)
        })
        .collect();
    (world, rects)
}

/// Per-axis steps of up to `max_step`, one per box, for the moving workload.
pub fn steps(n: usize, max_step: f32, seed: u64) -> Vec<(f32, f32)> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            (
                rng.random_range(-max_step..=max_step),
                rng.random_range(-max_step..=max_step),
            )
        })
        .collect()
}

/// Moves each box by its step, reflecting the step at the world's walls.
pub fn advance(world: &Rect, rects: &mut [Rect], steps: &mut [(f32, f32)]) {
    for (r, s) in rects.iter_mut().zip(steps.iter_mut()) {
        if r.min_x + s.0 < world.min_x || r.max_x + s.0 > world.max_x {
            s.0 = -s.0;
        }
        if r.min_y + s.1 < world.min_y || r.max_y + s.1 > world.max_y {
            s.1 = -s.1;
        }
        *r = Rect::new(r.min_x + s.0, r.min_y + s.1, r.max_x + s.0, r.max_y + s.1);
    }
}

/// How the moving workloads' boxes move from frame to frame.
pub enum Motion {
    /// Each box keeps its own step (see [`steps`]), reflected at the walls ([`advance`]).
    Velocity(Vec<(f32, f32)>),
    /// Each box takes a fresh step each frame, uniform in `[-max, max]` per axis, and is
    /// clamped to the world: a random walk, whose boxes leave their cells in every direction.
    Walk(Box<StdRng>, f32),
}

impl Motion {
    /// Constant velocities of up to `max_step` per axis for `n` boxes.
    pub fn velocity(n: usize, max_step: f32, seed: u64) -> Self {
        Motion::Velocity(steps(n, max_step, seed))
    }

    /// A random walk of steps up to `max_step` per axis.
    pub fn walk(max_step: f32, seed: u64) -> Self {
        Motion::Walk(Box::new(StdRng::seed_from_u64(seed)), max_step)
    }

    /// Moves every box one frame on.
    pub fn advance(&mut self, world: &Rect, rects: &mut [Rect]) {
        match self {
            Motion::Velocity(steps) => advance(world, rects, steps),
            Motion::Walk(rng, max) => {
                for r in rects.iter_mut() {
                    let (w, h) = (r.width(), r.height());
                    let dx = rng.random_range(-*max..=*max);
                    let dy = rng.random_range(-*max..=*max);
                    let x = (r.min_x + dx).clamp(world.min_x, world.max_x - w);
                    let y = (r.min_y + dy).clamp(world.min_y, world.max_y - h);
                    *r = Rect::new(x, y, x + w, y + h);
                }
            }
        }
    }
}

/// `n` query rectangles of `side` x `side` at random positions inside `world`.
pub fn queries(world: &Rect, n: usize, side: f32, seed: u64) -> Vec<Rect> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let x = rng.random_range(world.min_x..world.max_x - side);
            let y = rng.random_range(world.min_y..world.max_y - side);
            Rect::from_min_size(x, y, side, side)
        })
        .collect()
}
