//! Batch moves and loose placement: a crowd of units moves every frame with one
//! `update_many`, in a loose tree, and explosions hit what their discs reach.
//!
//! `cargo run --release --example batch_moves [UNITS] [FRAMES]` (default 20,000 units, 60
//! frames).
//!
//! - **Loose placement** puts an item by its size alone, so a small unit that crosses a large
//!   cell's centre line does not sit at the root as it would under exact placement; the
//!   example counts the items at the root both ways.
//! - **`update_many`** moves the whole crowd at once: every move is checked and placed first,
//!   units that stay in their nodes are rewritten in place, and a refused batch (here one NaN
//!   position) changes nothing and names its first bad move.
//! - **`for_each_in_circle_mut`** damages what an explosion reaches, and the iterator form
//!   counts the survivors in view; both are checked against brute force.

use std::time::Instant;

use quadstress::{
    oracle, BatchError, Config, ItemId, Placement, Quadtree, QuadtreeError, Rect, Shape,
    UpdateWorkspace,
};
// The workspace's seeded generator (a dev-dependency): the same boxes on every machine.
use quadstress_testkit::TestRng;

const WORLD: Rect = Rect::new(0.0, 0.0, 4000.0, 4000.0);
const SIDE: f32 = 6.0;

/// A unit's payload: its health.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Unit {
    health: i32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let units: usize = args
        .next()
        .map_or(20_000, |a| a.parse().expect("UNITS: a count"));
    let frames: usize = args
        .next()
        .map_or(60, |a| a.parse().expect("FRAMES: a count"));
    // The crate's seeded test generator: the same crowd every run, no dependency.
    let mut rng = TestRng::new(7);

    // Positions and velocities live beside the tree; the tree holds each unit's box.
    let mut pos: Vec<(f32, f32)> = (0..units)
        .map(|_| {
            (
                rng.unit() * (WORLD.max_x - SIDE),
                rng.unit() * (WORLD.max_y - SIDE),
            )
        })
        .collect();
    let vel: Vec<(f32, f32)> = (0..units)
        .map(|_| ((rng.unit() - 0.5) * 8.0, (rng.unit() - 0.5) * 8.0))
        .collect();
    let rect_at = |(x, y): (f32, f32)| Rect::from_min_size(x, y, SIDE, SIDE);

    // The same crowd under both placements: loose keeps small units off the root.
    let mut at_root = Vec::new();
    for placement in [Placement::Exact, Placement::Loose] {
        let config = Config {
            placement,
            ..Config::default()
        };
        let mut tree = Quadtree::with_config(WORLD, config)?;
        let mut ids = Vec::new();
        let items = pos.iter().map(|&p| (rect_at(p), Unit { health: 100 }));
        tree.insert_many(items, &mut ids)?;
        at_root.push(tree.stats().items_at_root);
        println!(
            "{placement:?} placement: {} of {units} units at the root",
            tree.stats().items_at_root
        );
    }
    assert!(at_root[1] < at_root[0] || units < 100);

    let config = Config {
        placement: Placement::Loose,
        ..Config::default()
    };
    let mut tree = Quadtree::with_config(WORLD, config)?;
    let mut ids: Vec<ItemId> = Vec::new();
    tree.insert_many(
        pos.iter().map(|&p| (rect_at(p), Unit { health: 100 })),
        &mut ids,
    )?;

    // Each frame: every unit steps, bouncing off the walls, and the tree follows in one batch.
    let mut moves = UpdateWorkspace::new();
    let start = Instant::now();
    for _ in 0..frames {
        for ((x, y), (vx, vy)) in pos.iter_mut().zip(&vel) {
            *x = (*x + vx).clamp(0.0, WORLD.max_x - SIDE);
            *y = (*y + vy).clamp(0.0, WORLD.max_y - SIDE);
        }
        tree.update_many(&ids, |i| rect_at(pos[i]), &mut moves)?;
    }
    let per_frame = start.elapsed().as_secs_f64() * 1e3 / frames.max(1) as f64;
    println!("{frames} frames of {units} moves: {per_frame:.3} ms a frame (update_many)");
    tree.validate().expect("the tree's invariants hold");
    for (&id, &p) in ids.iter().zip(&pos) {
        assert_eq!(tree.rect(id), Some(rect_at(p)));
    }

    // A batch with one bad position is refused whole, and says which move was bad.
    if units > 10 {
        let bad = |i: usize| {
            if i == 7 {
                Rect::from_min_size(f32::NAN, 0.0, SIDE, SIDE)
            } else {
                rect_at((0.0, 0.0))
            }
        };
        let refused = tree.update_many(&ids, bad, &mut moves);
        let expected = BatchError {
            index: 7,
            error: QuadtreeError::NonFinite(Shape::Rect(bad(7))),
        };
        assert_eq!(refused, Err(expected));
        println!("a batch with a NaN at move 7 was refused: {}", expected);
        assert_eq!(tree.rect(ids[0]), Some(rect_at(pos[0])), "nothing moved");
    }

    // An explosion at the centre: 40 damage to every unit its disc reaches.
    let (cx, cy, r) = (WORLD.max_x / 2.0, WORLD.max_y / 2.0, 300.0);
    let mut hit = 0;
    tree.for_each_in_circle_mut(cx, cy, r, |unit| {
        unit.value.health -= 40;
        hit += 1;
    })?;
    let keyed: Vec<(usize, Rect)> = pos.iter().map(|&p| rect_at(p)).enumerate().collect();
    assert_eq!(hit, oracle::query_in_circle(&keyed, cx, cy, r).len());
    println!("the explosion hit {hit} units");

    // The camera counts the wounded in view with the iterator form.
    let camera = Rect::from_center(cx, cy, 400.0, 300.0);
    let wounded = tree
        .iter_in_rect(&camera)
        .filter(|unit| unit.value.health < 100)
        .count();
    println!("{wounded} wounded units in view");
    assert!(wounded <= hit && (hit == 0 || wounded > 0));
    Ok(())
}
