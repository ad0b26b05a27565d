//! A driver for the moving workloads: 100,000 boxes of side 2 at constant density (the table
//! bench's `moving` rows in shape), each frame moved on (`MOTION=walk`, the default: a fresh
//! random step up to 0.5 per axis; `MOTION=velocity`: each at its own constant velocity),
//! then the tree's (built in bulk) `update_many` of every box (`EACH=1`: one `update` each; `ALL=1`: `update_all`, each box's
//! rectangle looked up by its payload) and its
//! `for_each_pair`, timed apart; then the bench's grid (`baselines::UniformGrid`, cells of
//! `GRID`, default 4.04) rebuilt and searched on the same frames (its build timed apart
//! too). Prints the medians over
//! `FRAMES` frames (default 30) and the tree's total over the grid's, after checking that
//! both found the same pairs. `N` sets the number of boxes.
//!
//! ```text
//! cargo build --release -p quadstress-benches --example moving_profile
//! ./target/release/examples/moving_profile
//! MOTION=velocity EACH=1 ./target/release/examples/moving_profile
//! FRAMES=10 valgrind --tool=callgrind --toggle-collect='*update_many*' \
//!     ./target/release/examples/moving_profile
//! ```
use quadstress::{Config, Quadtree, UpdateWorkspace};
use quadstress_benches::baselines::UniformGrid;
use quadstress_benches::workloads;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let n: usize = std::env::var("N").map_or(100_000, |v| v.parse().unwrap());
    let frames: usize = std::env::var("FRAMES").map_or(30, |v| v.parse().unwrap());
    let walk = std::env::var("MOTION").map_or(true, |m| m == "walk");
    let each = std::env::var("EACH").is_ok();
    let all = std::env::var("ALL").is_ok();
    let (world, start) = workloads::constant_density(n, 77);
    let motion = || {
        if walk {
            workloads::Motion::walk(0.5, 79)
        } else {
            workloads::Motion::velocity(n, 0.5, 78)
        }
    };
    let mut tree: Quadtree<u32> = Quadtree::with_config(world, Config::default()).unwrap();
    let mut ids = Vec::new();
    tree.insert_many(
        start.iter().enumerate().map(|(i, r)| (*r, i as u32)),
        &mut ids,
    )
    .unwrap();
    let mut ws = UpdateWorkspace::new();
    let mut rects = start.clone();
    let mut m = motion();
    let (mut up, mut pa, mut total) = (Vec::new(), Vec::new(), 0u64);
    for _ in 0..frames {
        m.advance(&world, &mut rects);
        let t = Instant::now();
        if each {
            for (id, r) in ids.iter().zip(&rects) {
                tree.update(*id, *r).unwrap();
            }
        } else if all {
            tree.update_all(|item| rects[*item.value as usize], &mut ws)
                .unwrap();
        } else {
            tree.update_many(&ids, |i| rects[i], &mut ws).unwrap();
        }
        let t1 = Instant::now();
        let mut c = 0u64;
        tree.for_each_pair(|_, _| c += 1);
        total += c;
        let t2 = Instant::now();
        up.push((t1 - t).as_secs_f64() * 1e3);
        pa.push((t2 - t1).as_secs_f64() * 1e3);
    }
    let mut grid = UniformGrid::new(std::env::var("GRID").map_or(4.04, |v| v.parse().unwrap()));
    let mut rects = start.clone();
    let mut m = motion();
    let (mut g, mut gb, mut gtotal) = (Vec::new(), Vec::new(), 0u64);
    for _ in 0..frames {
        m.advance(&world, &mut rects);
        let t = Instant::now();
        let mut c = 0u64;
        assert!(grid.build(&rects));
        let tb = t.elapsed();
        grid.pairs_built(|_, _| c += 1);
        gtotal += c;
        g.push(t.elapsed().as_secs_f64() * 1e3);
        gb.push(tb.as_secs_f64() * 1e3);
    }
    assert_eq!(total, gtotal);
    let (u, p, gm, gbm) = (median(up), median(pa), median(g), median(gb));
    println!(
        "update {u:.3} ms + pairs {p:.3} ms = {:.3} ms; grid {gm:.3} ms (build {gbm:.3}); ratio {:.3}x",
        u + p,
        (u + p) / gm
    );
}
