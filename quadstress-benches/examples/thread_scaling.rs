//! A driver for thread scaling: `par_pairs` among 100,000 and 1,000,000 boxes of side 2 at
//! constant density, and `par_update_many` of 1,000,000 such boxes each taking a random-walk
//! step (up to 0.5 per axis), and the same with `par_update_all`, on a pool of 1 and of 2 threads (or `THREADS=a,b,...`).
//! The thread counts alternate within each round (the order flips every round), so that a
//! change in what else runs on the machine falls on all of them alike; each figure is the
//! median of `REPS` (default 7) runs, and the last lines give each count's median over the
//! rounds and its best, each with its speed-up over the first count. The machine's other
//! work shows as rounds where two threads gain little: the best round says what the
//! second core gives when it is free.
//!
//! ```text
//! cargo build --release -p quadstress-benches --example thread_scaling
//! ./target/release/examples/thread_scaling            # 5 rounds
//! ROUNDS=3 THREADS=1,2,4,8,16 ./target/release/examples/thread_scaling
//! ```
//!
//! `MOVING=n` moves `n` boxes of side 2 at constant density instead of the million (the
//! task keeps its name).

use quadstress::{Config, ItemId, PairWorkspace, Quadtree, Rect, UpdateWorkspace};
use quadstress_benches::workloads;
use std::time::{Duration, Instant};

fn median(reps: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[reps / 2]
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn built(world: Rect, rects: &[Rect]) -> (Quadtree<u32>, Vec<ItemId>) {
    let mut tree = Quadtree::with_config(world, Config::default()).unwrap();
    let mut ids = Vec::new();
    let items = rects.iter().enumerate().map(|(i, r)| (*r, i as u32));
    tree.insert_many(items, &mut ids).unwrap();
    (tree, ids)
}

fn main() {
    let rounds = env_or("ROUNDS", 5);
    let reps = env_or("REPS", 7);
    let threads: Vec<usize> = std::env::var("THREADS")
        .unwrap_or_else(|_| "1,2".into())
        .split(',')
        .map(|t| {
            t.trim()
                .parse()
                .expect("THREADS: a list of counts, e.g. 1,2")
        })
        .collect();
    let pools: Vec<rayon::ThreadPool> = threads
        .iter()
        .map(|&t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect();

    let (w100k, r100k) = workloads::constant_density(100_000, 100_000);
    let (w1m, r1m) = workloads::constant_density(1_000_000, 1_000_000);
    let (t100k, _) = built(w100k, &r100k);
    let (t1m, _) = built(w1m, &r1m);
    // The moving boxes go back and forth between two frames a random-walk step apart.
    // `MOVING=n`: that many boxes move instead of 1,000,000 (a smaller batch to profile).
    let (wm, rm) = match env_or("MOVING", 1_000_000) {
        1_000_000 => (w1m, r1m.clone()),
        n => workloads::constant_density(n, n as u64),
    };
    let (mut moving, ids) = built(wm, &rm);
    let (mut moving_all, _) = built(wm, &rm);
    let mut stepped = rm.clone();
    workloads::Motion::walk(0.5, 5).advance(&wm, &mut stepped);
    let frames = [stepped, rm];

    let mut ws = PairWorkspace::new();
    let mut uws = UpdateWorkspace::new();
    let mut pairs_seen: Option<(usize, usize)> = None;
    // rows[task][thread index] = the per-round medians
    let tasks = [
        "par_pairs.100000",
        "par_pairs.1000000",
        "par_update_many.1000000",
        "par_update_all.1000000",
    ];
    let mut rows = vec![vec![Vec::new(); threads.len()]; tasks.len()];
    for round in 0..rounds {
        let order: Vec<usize> = if round % 2 == 0 {
            (0..threads.len()).collect()
        } else {
            (0..threads.len()).rev().collect()
        };
        for &k in &order {
            let pool = &pools[k];
            let mut counts = (0, 0);
            let a = median(reps, || {
                ws.clear();
                counts.0 =
                    pool.install(|| t100k.par_pairs(&mut ws, |a, b| Some((*a.value, *b.value))));
            });
            let b = median(reps, || {
                ws.clear();
                counts.1 =
                    pool.install(|| t1m.par_pairs(&mut ws, |a, b| Some((*a.value, *b.value))));
            });
            // Same pairs on every thread count, or the comparison means nothing.
            assert_eq!(*pairs_seen.get_or_insert(counts), counts);
            let mut f = 0;
            let c = median(reps, || {
                let rects = &frames[f % 2];
                f += 1;
                pool.install(|| moving.par_update_many(&ids, |i| rects[i], &mut uws))
                    .unwrap();
            });
            // The same frames, each box's rectangle looked up by its payload.
            let d = median(reps, || {
                let rects = &frames[f % 2];
                f += 1;
                pool.install(|| {
                    moving_all.par_update_all(|item| rects[*item.value as usize], &mut uws)
                })
                .unwrap();
            });
            for (row, t) in rows.iter_mut().zip([a, b, c, d]) {
                row[k].push(t);
            }
            println!(
                "round {round} threads {:>2}: {} {:.3} ms, {} {:.3} ms, {} {:.3} ms, {} {:.3} ms",
                threads[k],
                tasks[0],
                a.as_secs_f64() * 1e3,
                tasks[1],
                b.as_secs_f64() * 1e3,
                tasks[2],
                c.as_secs_f64() * 1e3,
                tasks[3],
                d.as_secs_f64() * 1e3
            );
        }
    }
    assert!(moving.validate().is_ok());
    assert!(moving_all.validate().is_ok());
    for (task, row) in tasks.iter().zip(&rows) {
        let sorted: Vec<Vec<f64>> = row
            .iter()
            .map(|ts| {
                let mut ts: Vec<f64> = ts.iter().map(|t| t.as_secs_f64() * 1e3).collect();
                ts.sort_by(f64::total_cmp);
                ts
            })
            .collect();
        for (k, ts) in sorted.iter().enumerate() {
            let (med, best) = (ts[ts.len() / 2], ts[0]);
            println!(
                "{task}.{}t: median {med:.3} ms (x{:.2} of {}t), best {best:.3} ms (x{:.2})",
                threads[k],
                sorted[0][ts.len() / 2] / med,
                threads[0],
                sorted[0][0] / best
            );
        }
    }
}
