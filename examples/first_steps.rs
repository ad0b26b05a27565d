//! First steps with quadstress: insert, move, query, find pairs, remove.
//!
//! `cargo run --release --example first_steps`

use std::ops::ControlFlow;

use quadstress::{Quadtree, Rect};

fn main() -> Result<(), quadstress::QuadtreeError> {
    // A tree over the world; items may also lie outside it (they are kept at the root).
    let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 800.0, 600.0))?;

    // Insert returns a handle that stays valid while the item lives, whatever moves.
    let player = tree.insert(Rect::from_min_size(100.0, 100.0, 16.0, 16.0), "player")?;
    let coin = tree.insert(Rect::from_min_size(110.0, 110.0, 8.0, 8.0), "coin")?;
    let wall = tree.insert(Rect::new(300.0, 0.0, 310.0, 600.0), "wall")?;
    let enemy = tree.insert(Rect::from_min_size(500.0, 400.0, 16.0, 16.0), "enemy")?;
    println!("{} items", tree.len());
    assert_eq!(tree.len(), 4);

    // Move: O(1) when the item stays in its node, which is nearly always.
    tree.update(enemy, Rect::from_min_size(296.0, 400.0, 16.0, 16.0))?;
    let moved = tree.rect(enemy).expect("the enemy is in the tree");
    println!("enemy moved to x {}..{}", moved.min_x, moved.max_x);

    // A region query as an iterator of the items, payloads lent.
    let near_origin = Rect::new(0.0, 0.0, 200.0, 200.0);
    let mut names: Vec<&str> = tree
        .iter_in_rect(&near_origin)
        .map(|item| *item.value)
        .collect();
    names.sort();
    println!("near the origin: {}", names.join(", "));
    assert_eq!(names, ["coin", "player"]);

    // The same query into a Vec of handles (appended; reuse the Vec to avoid allocating).
    let mut found = Vec::new();
    tree.query_in_rect(&near_origin, &mut found)?;
    found.sort();
    assert_eq!(found, vec![player, coin]);

    // Every intersecting pair, each once; a callback can keep what it is lent.
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    tree.for_each_pair(|a, b| {
        let (a, b) = (*a.value, *b.value);
        pairs.push(if a < b { (a, b) } else { (b, a) });
    });
    pairs.sort();
    for (a, b) in &pairs {
        println!("touching: {a} and {b}");
    }
    assert_eq!(pairs, [("coin", "player"), ("enemy", "wall")]);

    // A callback that returns `ControlFlow` stops with a value: the first thing the player
    // touches.
    let touched = tree.for_each_colliding_with(player, |item| ControlFlow::Break(*item.value))?;
    match touched {
        ControlFlow::Break(name) => println!("the player touches the {name}"),
        ControlFlow::Continue(()) => println!("the player touches nothing"),
    }
    assert_eq!(touched, ControlFlow::Break("coin"));

    // Nearest neighbours, lent with their distances, nearest first.
    let mut nearest = Vec::new();
    tree.for_each_nearest(400.0, 300.0, 2, |item, distance| {
        println!("near the centre: the {} at {distance}", item.value);
        nearest.push(item.id);
    })?;
    assert_eq!(nearest[0], wall);

    // Removing returns the payload; the handle is stale afterwards and reaches nothing.
    assert_eq!(tree.remove(coin), Some("coin"));
    assert_eq!(tree.remove(coin), None);
    println!("coin collected, {} items left", tree.len());
    tree.validate().expect("the tree's invariants hold");
    Ok(())
}
