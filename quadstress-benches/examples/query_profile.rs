//! A driver for profiling region queries among a million boxes: builds the table bench's
//! `boxes_1m_800x600` workload in shape (1,000,000 boxes 32x32 in 800x600, from its own
//! generator) in bulk, which sorts the straddlers, then runs random 32x32 queries that visit their hits,
//! and prints the time per query and the hits. `VEC=1` collects handles with `query_in_rect`
//! instead; `SMALL=1` runs 10x10 queries among 100,000 boxes of side 2 instead (the
//! `queries_10x10` workload's shape); `SAME=1` puts every query at one place. `GRID=side`
//! runs the same queries (visited) on the bench's grid with cells of that side instead, and
//! with `AB=1` alternates the tree and the grid, five rounds (`ROUNDS=n`; `SHOW=1` prints
//! each), and prints the fastest round of each and their ratio: a comparison under the same
//! load on a shared machine. `ONE_BY_ONE=1`
//! builds the tree with one `insert` per box instead of `insert_many`. `CAP=n`, `DEPTH=n` and
//! `LOOSE=1` set the tree's leaf capacity, depth limit and loose placement (the defaults: 32,
//! 6, exact).
//!
//! ```text
//! cargo build --release --example query_profile
//! ./target/release/examples/query_profile 10000
//! SMALL=1 GRID=3.03 AB=1 ./target/release/examples/query_profile 100000
//! valgrind --tool=callgrind --toggle-collect='*tree_queries*' \
//!     ./target/release/examples/query_profile 2000
//! ```

use quadstress::{ItemId, Quadtree, Rect};
use quadstress_benches::baselines::UniformGrid;
use quadstress_testkit::TestRng;

/// The tree's queries, visited or (with `out`) appended: a function of its own, so that
/// callgrind can count them alone (`--toggle-collect='*tree_queries*'`) however the query
/// inlines.
#[inline(never)]
fn tree_queries(tree: &Quadtree<u32>, rects: &[Rect], mut out: Option<&mut Vec<ItemId>>) -> u64 {
    let mut hits = 0u64;
    for q in rects {
        if let Some(out) = out.as_deref_mut() {
            out.clear();
            hits += tree.query_in_rect(q, out).unwrap() as u64;
            continue;
        }
        tree.for_each_in_rect(q, |_| {
            hits += 1;
        })
        .unwrap();
    }
    hits
}

fn main() {
    let queries: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let mut s = TestRng::new(7);
    // `SMALL=1`: 100,000 boxes of side 2 at the table bench's constant density, and 10x10
    // queries, as its `queries_10x10` workload.
    let small = std::env::var("SMALL").is_ok();
    let (n, side, query, world) = if small {
        let w = (100_000f32).sqrt() * 4.0;
        (100_000u32, 2.0, 10.0, Rect::new(0.0, 0.0, w, w))
    } else {
        (1_000_000, 32.0, 32.0, Rect::new(0.0, 0.0, 800.0, 600.0))
    };
    let env = |k: &str, d: usize| std::env::var(k).ok().map_or(d, |v| v.parse().unwrap());
    let config = quadstress::Config {
        leaf_capacity: env("CAP", 32),
        max_depth: env("DEPTH", 6) as u8,
        placement: if env("LOOSE", 0) == 1 {
            quadstress::Placement::Loose
        } else {
            quadstress::Placement::Exact
        },
    };
    let mut tree: Quadtree<u32> = Quadtree::with_config(world, config).unwrap();
    let mut ids = Vec::new();
    let all_rects: Vec<Rect> = (0..n)
        .map(|_| {
            let x = s.unit() * (world.max_x - side);
            let y = s.unit() * (world.max_y - side);
            Rect::from_min_size(x, y, side, side)
        })
        .collect();
    // The bulk build leaves the straddlers sorted. `ONE_BY_ONE=1`: one `insert` per box
    // instead, as the table bench's `queries_10x10` builds its tree.
    if std::env::var("ONE_BY_ONE").is_ok() {
        for (i, r) in all_rects.iter().enumerate() {
            tree.insert(*r, i as u32).unwrap();
        }
    } else {
        let items = all_rects.iter().zip(0..).map(|(r, i)| (*r, i));
        tree.insert_many(items, &mut ids).unwrap();
    }
    // `SAME=1`: every query at the first one's place, so its items stay in the caches.
    let same = std::env::var("SAME").is_ok();
    let rects: Vec<Rect> = (0..queries)
        .map(|i| {
            if same && i > 0 {
                return Rect::from_min_size(123.4, 77.7, query, query);
            }
            let x = s.unit() * (world.max_x - query);
            let y = s.unit() * (world.max_y - query);
            Rect::from_min_size(x, y, query, query)
        })
        .collect();
    // `VEC=1`: the handles into a `Vec` (`query_in_rect`) instead of visits.
    let into_vec = std::env::var("VEC").is_ok();
    let mut out = Vec::new();
    let mut tree_run = || tree_queries(&tree, &rects, into_vec.then_some(&mut out));
    // `GRID=side`: the bench's grid with cells of that side, on the same boxes and queries
    // (visited); `AB=1` with it: the tree and the grid alternately, five rounds, the fastest
    // round of each, so that the two are compared under the same load.
    let grid = std::env::var("GRID").ok().map(|side| {
        let mut grid = UniformGrid::new(side.parse().expect("GRID=cell side"));
        assert!(grid.build(&all_rects), "the grid refuses these boxes");
        grid
    });
    let grid_run = |grid: &UniformGrid| {
        let mut hits = 0u64;
        for q in &rects {
            grid.query(q, |_| hits += 1);
        }
        hits
    };
    let timed = |f: &mut dyn FnMut() -> u64| {
        let start = std::time::Instant::now();
        let hits = f();
        (start.elapsed().as_secs_f64() * 1e6 / queries as f64, hits)
    };
    match (&grid, std::env::var("AB").is_ok()) {
        (Some(grid), true) => {
            let (mut best_tree, mut best_grid) = (f64::INFINITY, f64::INFINITY);
            let rounds: usize = std::env::var("ROUNDS").map_or(5, |v| v.parse().unwrap());
            let show = std::env::var("SHOW").is_ok();
            for _ in 0..rounds {
                let (t, a) = timed(&mut tree_run);
                let (g, b) = timed(&mut || grid_run(grid));
                assert_eq!(a, b, "the tree and the grid disagree");
                if show {
                    println!("round: tree {t:.3} us, grid {g:.3} us, {:.2}x", t / g);
                }
                (best_tree, best_grid) = (best_tree.min(t), best_grid.min(g));
            }
            println!(
                "{queries} queries, fastest of 5 alternated rounds: tree {best_tree:.3} us, grid {best_grid:.3} us per query: {:.2}x",
                best_tree / best_grid
            );
        }
        (Some(grid), false) => {
            let (per_query, hits) = timed(&mut || grid_run(grid));
            println!("{queries} grid queries: {per_query:.3} us per query, {hits} hits");
        }
        (None, _) => {
            let (per_query, hits) = timed(&mut tree_run);
            println!("{queries} queries: {per_query:.3} us per query, {hits} hits");
        }
    }
}
