//! A broad phase: boxes move every frame and the tree finds the pairs that touch.
//!
//! `cargo run --release --example broad_phase [BOXES] [FRAMES]` (default 20,000 boxes, 60
//! frames). Each frame moves every box with `update`, bouncing off the walls, then lists the
//! intersecting pairs with `query_pairs` into a reused `Vec`; the last line gives the time per
//! frame. The first frame's pairs are checked against brute force.

use std::time::{Duration, Instant};

use quadstress::{ItemId, Quadtree, Rect};
// The workspace's seeded generator (a dev-dependency): the same boxes on every machine.
use quadstress_testkit::TestRng;

const WORLD: Rect = Rect::new(0.0, 0.0, 2000.0, 2000.0);
const SIDE: f32 = 4.0;

/// A moving box: its handle in the tree, position and velocity.
struct Body {
    id: ItemId,
    x: f32,
    y: f32,
    vx: f32,
    vy: f32,
}

fn main() -> Result<(), quadstress::QuadtreeError> {
    let mut args = std::env::args().skip(1);
    let boxes: usize = args
        .next()
        .map_or(20_000, |a| a.parse().expect("BOXES: a count"));
    let frames: usize = args
        .next()
        .map_or(60, |a| a.parse().expect("FRAMES: a count"));

    let mut rng = TestRng::new(0x9e37_79b9_7f4a_7c15);
    let mut tree = Quadtree::with_capacity(WORLD, Default::default(), boxes)?;
    let mut bodies = Vec::with_capacity(boxes);
    for i in 0..boxes {
        let x = rng.unit() * (WORLD.width() - SIDE);
        let y = rng.unit() * (WORLD.height() - SIDE);
        let id = tree.insert(Rect::from_min_size(x, y, SIDE, SIDE), i as u32)?;
        let (vx, vy) = (rng.unit() * 4.0 - 2.0, rng.unit() * 4.0 - 2.0);
        bodies.push(Body { id, x, y, vx, vy });
    }

    let mut pairs = Vec::new();
    let mut total_pairs = 0usize;
    // The frames alone are timed: frame 0's brute-force check is quadratic and would swamp
    // them (100,000 boxes: a frame of a few ms read as 700 ms).
    let mut elapsed = Duration::ZERO;
    for frame in 0..frames {
        let start = Instant::now();
        for b in &mut bodies {
            b.x += b.vx;
            b.y += b.vy;
            if b.x < 0.0 || b.x > WORLD.max_x - SIDE {
                b.vx = -b.vx;
                b.x = b.x.clamp(0.0, WORLD.max_x - SIDE);
            }
            if b.y < 0.0 || b.y > WORLD.max_y - SIDE {
                b.vy = -b.vy;
                b.y = b.y.clamp(0.0, WORLD.max_y - SIDE);
            }
            tree.update(b.id, Rect::from_min_size(b.x, b.y, SIDE, SIDE))?;
        }
        pairs.clear();
        total_pairs += tree.query_pairs(&mut pairs);
        elapsed += start.elapsed();
        if frame == 0 {
            check_against_brute_force(&tree, &pairs);
        }
    }
    tree.validate().expect("the tree's invariants hold");
    println!(
        "{boxes} boxes, {frames} frames: {:.1} pairs a frame, {:.3} ms a frame (move all + all pairs)",
        total_pairs as f64 / frames.max(1) as f64,
        elapsed.as_secs_f64() * 1e3 / frames.max(1) as f64,
    );
    Ok(())
}

/// The tree's pairs against a test of every pair of boxes (quadratic: first frame only).
fn check_against_brute_force(tree: &Quadtree<u32>, pairs: &[(ItemId, ItemId)]) {
    let items: Vec<(ItemId, Rect)> = tree.iter().map(|item| (item.id, item.rect)).collect();
    let mut want = quadstress::oracle::query_pairs(&items);
    let mut got = pairs.to_vec();
    got.sort();
    want.sort();
    assert_eq!(got, want, "the tree's pairs differ from brute force");
    println!("frame 0: {} pairs, the same as brute force", got.len());
}
