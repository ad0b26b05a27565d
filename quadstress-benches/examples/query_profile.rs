//! A driver for profiling region queries among a million boxes: builds the table bench's
//! `boxes_1m_800x600` workload in shape (1,000,000 boxes 32x32 in 800x600, from its own
//! generator) in bulk, which sorts the straddlers, then runs random 32x32 queries that visit their hits,
//! and prints the time per query and the hits. `VEC=1` collects handles with `query_rect`
//! instead; `SMALL=1` runs 10x10 queries among 100,000 boxes of side 2 instead (the
//! `queries_10x10` workload's shape); `SAME=1` puts every query at one place.
//!
//! ```text
//! cargo build --release --example query_profile
//! ./target/release/examples/query_profile 10000
//! valgrind --tool=callgrind --toggle-collect='*for_each_in_rect*' \
//!     ./target/release/examples/query_profile 2000
//! ```

use quadstress::{Quadtree, Rect};

/// A linear congruential generator: a fixed sequence with no dependency.
fn next_unit(state: &mut u64) -> f32 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 40) as f32) / (1u64 << 24) as f32
}

fn main() {
    let queries: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let mut s = 7u64;
    // `SMALL=1`: 100,000 boxes of side 2 at the table bench's constant density, and 10x10
    // queries, as its `queries_10x10` workload.
    let small = std::env::var("SMALL").is_ok();
    let (n, side, query, world) = if small {
        let w = (100_000f32).sqrt() * 4.0;
        (100_000u32, 2.0, 10.0, Rect::new(0.0, 0.0, w, w))
    } else {
        (1_000_000, 32.0, 32.0, Rect::new(0.0, 0.0, 800.0, 600.0))
    };
    let mut tree: Quadtree<u32> = Quadtree::new(world).unwrap();
    let mut ids = Vec::new();
    let items = (0..n).map(|i| {
        let x = next_unit(&mut s) * (world.max_x - side);
        let y = next_unit(&mut s) * (world.max_y - side);
        (Rect::from_min_size(x, y, side, side), i)
    });
    // The bulk build leaves the straddlers sorted.
    tree.insert_many(items, &mut ids).unwrap();
    // `SAME=1`: every query at the first one's place, so its items stay in the caches.
    let same = std::env::var("SAME").is_ok();
    let rects: Vec<Rect> = (0..queries)
        .map(|i| {
            if same && i > 0 {
                return Rect::from_min_size(123.4, 77.7, query, query);
            }
            let x = next_unit(&mut s) * (world.max_x - query);
            let y = next_unit(&mut s) * (world.max_y - query);
            Rect::from_min_size(x, y, query, query)
        })
        .collect();
    // `VEC=1`: the handles into a `Vec` (`query_rect`) instead of visits.
    let into_vec = std::env::var("VEC").is_ok();
    let mut out = Vec::new();
    let start = std::time::Instant::now();
    let mut hits = 0u64;
    for q in &rects {
        if into_vec {
            out.clear();
            hits += tree.query_in_rect(q, &mut out).unwrap() as u64;
            continue;
        }
        tree.for_each_in_rect(q, |_| {
            hits += 1;
        })
        .unwrap();
    }
    let per_query = start.elapsed().as_secs_f64() * 1e6 / queries as f64;
    println!("{queries} queries: {per_query:.3} us per query, {hits} hits");
}
