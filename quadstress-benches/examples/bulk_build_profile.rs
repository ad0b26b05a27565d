//! A driver for profiling bulk builds: clears a tree and rebuilds it with `insert_many`
//! (or `par_insert_many` with `PAR=1`, on `RAYON_NUM_THREADS` threads), three times to warm
//! up, then enough times to time, and prints the mean time per build (clear included).
//!
//! ```text
//! cargo build --release --example bulk_build_profile
//! ./target/release/examples/bulk_build_profile p10000        # 10,000 boxes of side 2
//! ./target/release/examples/bulk_build_profile 1m            # 1,000,000 32x32 boxes in 800x600
//! PAR=1 RAYON_NUM_THREADS=2 ./target/release/examples/bulk_build_profile p100000
//! valgrind --tool=callgrind --toggle-collect='*insert_many*' \
//!     ./target/release/examples/bulk_build_profile p1000
//! ```
//!
//! With `PAIRS=1`, each build is followed by a serial search for all colliding pairs
//! (`for_each_pair`), as the table bench's `pairs` rows time them from scratch; with `PAR=1`
//! too, by `par_pairs` into a kept `PairWorkspace`. Under callgrind, `--separate-threads=yes`
//! then shows how the parallel build and search share their work between the threads.
//!
//! `GRID=side`: the bench's grid (`baselines::UniformGrid`, cells of that side) builds the
//! same boxes (and with `PAIRS=1` searches them, from scratch), alternated with the tree's rebuild
//! and search, `ROUNDS` rounds (default 7) of `reps` each; prints the median and fastest
//! round of each and their ratios, so that both are timed under the same load:
//!
//! ```text
//! PAIRS=1 GRID=4.04 ./target/release/examples/bulk_build_profile p100000
//! ```
//!
//! `pN` is N boxes of side 2 at constant density on a 0.25 grid (world side `sqrt(N) * 4`),
//! the table bench's `pairs` workload in shape, from the workspace's seeded generator so that
//! the driver needs no bench code. Without `PAR`, the `rayon` feature is not used.

use quadstress::{Config, Quadtree, Rect};
use quadstress_benches::baselines::UniformGrid;
use quadstress_testkit::TestRng;

fn workload(name: &str) -> (Rect, Vec<Rect>) {
    let mut s = TestRng::new(7);
    if name == "1m" {
        let rects = (0..1_000_000)
            .map(|_| {
                let (x, y) = (s.unit() * 768.0, s.unit() * 568.0);
                Rect::from_min_size(x, y, 32.0, 32.0)
            })
            .collect();
        return (Rect::new(0.0, 0.0, 800.0, 600.0), rects);
    }
    let n: usize = name
        .strip_prefix('p')
        .and_then(|n| n.parse().ok())
        .expect("a workload: 1m or pN (N boxes of side 2)");
    let side = (n as f32).sqrt() * 4.0;
    let steps = ((side - 2.0) * 4.0) as u32 as f32;
    let rects = (0..n)
        .map(|_| {
            let x = ((s.unit() * steps) as u32) as f32 * 0.25;
            let y = ((s.unit() * steps) as u32) as f32 * 0.25;
            Rect::from_min_size(x, y, 2.0, 2.0)
        })
        .collect();
    (Rect::new(0.0, 0.0, side, side), rects)
}

fn main() {
    // `PAR=1`: everything runs on a worker of the pool, as a caller inside `pool.install`
    // does, so that each parallel pass starts on a worker rather than from outside the pool.
    if std::env::var("PAR").is_ok() {
        let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
        pool.install(run);
    } else {
        run();
    }
}

fn run() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "1m".into());
    let (world, rects) = workload(&name);
    let mut tree: Quadtree<u32> = Quadtree::with_config(world, Config::default()).unwrap();
    let mut ids = Vec::new();
    let parallel = std::env::var("PAR").is_ok();
    let with_pairs = std::env::var("PAIRS").is_ok();
    let mut found = 0u64;
    let mut ws = quadstress::PairWorkspace::new();
    let mut rebuild = |tree: &mut Quadtree<u32>| {
        tree.clear();
        ids.clear();
        if parallel {
            tree.par_insert_many(rects.len(), |i| rects[i], |i| i as u32, &mut ids)
                .unwrap();
        } else {
            let items = rects.iter().enumerate().map(|(i, r)| (*r, i as u32));
            tree.insert_many(items, &mut ids).unwrap();
        }
        if with_pairs && parallel {
            ws.clear();
            found += tree.par_pairs(&mut ws, |a, b| Some((*a.value, *b.value))) as u64;
        } else if with_pairs {
            tree.for_each_pair(|_, _| found += 1);
        }
    };
    for _ in 0..3 {
        rebuild(&mut tree);
    }
    let reps = (2_000_000 / rects.len()).max(5);
    if let Ok(side) = std::env::var("GRID") {
        let mut grid = UniformGrid::new(side.parse().expect("GRID=cell side"));
        let mut grid_found = 0u64;
        let mut grid_run = || {
            let mut n = 0u64;
            let built = if with_pairs {
                grid.pairs(&rects, |_, _| n += 1)
            } else {
                grid.build(&rects)
            };
            assert!(built, "the grid refuses these boxes");
            grid_found = n;
        };
        grid_run();
        let rounds: usize = std::env::var("ROUNDS").map_or(7, |r| r.parse().unwrap());
        let per = |f: &mut dyn FnMut()| {
            let start = std::time::Instant::now();
            for _ in 0..reps {
                f();
            }
            start.elapsed().as_secs_f64() * 1e3 / reps as f64
        };
        let (mut t, mut g) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            // Which goes first alternates from round to round.
            if round % 2 == 0 {
                t.push(per(&mut || rebuild(&mut tree)));
                g.push(per(&mut grid_run));
            } else {
                g.push(per(&mut grid_run));
                t.push(per(&mut || rebuild(&mut tree)));
            }
        }
        let ratios: Vec<f64> = t.iter().zip(&g).map(|(t, g)| t / g).collect();
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "{name}: tree {} median {:.4} ms (fastest {:.4}), grid {side} median {:.4} ms (fastest {:.4}); \
             tree/grid median of rounds {:.3}x, fastest/fastest {:.3}x",
            if with_pairs { "rebuild + pairs" } else { "rebuild" },
            median(&t),
            min(&t),
            median(&g),
            min(&g),
            median(&ratios),
            min(&t) / min(&g)
        );
        return;
    }
    let start = std::time::Instant::now();
    for _ in 0..reps {
        rebuild(&mut tree);
    }
    let per_build = start.elapsed().as_secs_f64() * 1e3 / reps as f64;
    assert_eq!(tree.len(), rects.len());
    assert!(tree.validate().is_ok());
    println!(
        "{name}: {per_build:.4} ms per build{}, {} nodes",
        if with_pairs { " and pair search" } else { "" },
        tree.nodes().len()
    );
    if with_pairs {
        println!("{found} pairs found in all");
    }
}
