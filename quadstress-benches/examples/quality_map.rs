//! The quality map of the simulation's piles (issue 35): how far particles sink into each
//! other, how the pile is shaped and how still it is, over coverage and seeds, and on the
//! reproductions of stuck pairs. Each run is the headless mode's
//! (`quadstress --headless --gravity on --particles N --coverage C --seed S --frames 900`:
//! the same settings, the same figures, the same `state_hash`), or the window's world at a
//! scale filled to its cap with a burst.
//!
//! ```sh
//! cargo run --release -p quadstress-benches --example quality_map            # everything
//! cargo run --release -p quadstress-benches --example quality_map -- repro   # one group
//! JOBS=2 FRAMES=900 cargo run --release -p quadstress-benches --example quality_map -- map10k
//! COVERAGES=0.5,0.85 cargo run --release -p quadstress-benches --example quality_map -- map100k
//! ```
//! Groups: `repro` (the stuck-pair reproductions), `map10k` and `map100k` (coverage 0.3 to 0.9,
//! seeds 1 to 4). Too slow for CI (the whole map takes about 20 minutes on 2 cores); the
//! figures go to BENCHMARKS.md. Prints one markdown row per run, then one per group of seeds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use quadstress::Rect;
use quadstress_sim::{HeightProfile, SimConfig, Simulation, STEP_SECONDS};

/// The window's world (`quadstress-demo`'s `WORLD`) and its cap: the share of its area the
/// particles may cover (`MAX_COVERAGE`). Copied, since the demo is a binary; the map says
/// which cap it ran with.
const WINDOW_WORLD: Rect = Rect::new(0.0, 0.0, 3072.0, 2304.0);
const WINDOW_COVERAGE: f64 = 0.85;

#[derive(Clone)]
struct Case {
    label: String,
    config: SimConfig,
    particles: usize,
    seed: u64,
}

struct Row {
    overlap_max: f64,
    overlap_mean: f64,
    step_p99: f64,
    step_max: f64,
    packing: f64,
    energy: f64,
    hash: u64,
}

/// A run as the headless mode sets it up: a square world `n` particles cover to `coverage`.
fn headless(n: usize, coverage: f32, seed: u64) -> Case {
    let mut config = SimConfig::with_coverage(n.max(1), coverage);
    config.seed = seed;
    config.gravity_on = true;
    config.max_particles = config.max_particles.max(n);
    Case {
        label: format!("{n} @ {coverage}"),
        config,
        particles: n,
        seed,
    }
}

/// The window's world at `scale`, filled to its cap.
fn window(scale: f32, seed: u64) -> Case {
    let world = Rect::from_min_size(
        WINDOW_WORLD.min_x,
        WINDOW_WORLD.min_y,
        WINDOW_WORLD.width() * scale,
        WINDOW_WORLD.height() * scale,
    );
    let size = SimConfig::default().particle_size;
    let cap = (f64::from(world.width()) * f64::from(world.height()) * WINDOW_COVERAGE
        / f64::from(size * size)) as usize;
    Case {
        label: format!("window x{scale} cap {cap}"),
        config: SimConfig {
            world,
            max_particles: cap,
            seed,
            ..SimConfig::default()
        },
        particles: cap,
        seed,
    }
}

fn cases(groups: &[String], coverages: &[f32]) -> Vec<Case> {
    let want = |g: &str| groups.is_empty() || groups.iter().any(|x| x == g);
    let mut out = Vec::new();
    if want("repro") {
        out.push(headless(4, 0.5, 2));
        out.push(headless(30, 0.4, 14));
        for scale in [0.25, 0.5, 1.0] {
            for seed in 1..=4 {
                out.push(window(scale, seed));
            }
        }
    }
    for (group, n) in [("map10k", 10_000), ("map100k", 100_000)] {
        if want(group) {
            for &coverage in coverages {
                for seed in 1..=4 {
                    out.push(headless(n, coverage, seed));
                }
            }
        }
    }
    out
}

fn run(case: &Case, frames: u64, threads: usize) -> Row {
    let mut sim = Simulation::new(case.config).expect("a configuration the headless mode runs");
    sim.set_threads(threads).expect("a thread count in range");
    sim.spawn_burst(case.particles)
        .expect("room for the particles");
    // Kinetic energy per particle over the last simulated second, as the headless mode.
    let last_second = (1.0 / f64::from(STEP_SECONDS)).ceil() as u64;
    let (mut energy, mut energy_frames) = (0.0, 0u64);
    for frame in 0..frames {
        sim.step(STEP_SECONDS).expect("a valid step");
        if frames - frame <= last_second {
            energy += sim.kinetic_energy() / sim.len().max(1) as f64;
            energy_frames += 1;
        }
    }
    let overlap = sim.overlap();
    let steps = sim
        .column_steps(&mut HeightProfile::new())
        .unwrap_or_default();
    Row {
        overlap_max: overlap.max,
        overlap_mean: overlap.mean,
        step_p99: steps.p99,
        step_max: steps.max,
        packing: sim.pile_packing(),
        energy: energy / energy_frames.max(1) as f64,
        hash: sim.state_hash(),
    }
}

fn main() {
    let groups: Vec<String> = std::env::args().skip(1).collect();
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let frames = env("FRAMES", 900) as u64;
    // Runs side by side, each on one thread: the bits are the same on any thread count.
    let jobs = env("JOBS", 2).max(1);
    // `COVERAGES=0.5,0.8` runs the maps at those coverages only.
    let coverages: Vec<f32> = match std::env::var("COVERAGES") {
        Ok(list) => list
            .split(',')
            .map(|c| {
                c.trim()
                    .parse()
                    .expect("COVERAGES: numbers, comma-separated")
            })
            .collect(),
        Err(_) => vec![0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9],
    };
    let cases = cases(&groups, &coverages);
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<Option<Row>>> = Mutex::new((0..cases.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(k) else { break };
                let row = run(case, frames, 1);
                eprintln!("done {} seed {}", case.label, case.seed);
                rows.lock().unwrap()[k] = Some(row);
            });
        }
    });
    let rows: Vec<Row> = rows
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every case ran"))
        .collect();

    println!("frames: {frames}, step {STEP_SECONDS} s, gravity on, the simulation's defaults");
    println!();
    println!("| run | seed | overlap.max | overlap.mean | column_step.p99 | column_step.max | packing | KE/particle | state_hash |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (case, r) in cases.iter().zip(&rows) {
        println!(
            "| {} | {} | {:.4} | {:.4} | {:.2} | {:.2} | {:.3} | {:.3} | {:016x} |",
            case.label,
            case.seed,
            r.overlap_max,
            r.overlap_mean,
            r.step_p99,
            r.step_max,
            r.packing,
            r.energy,
            r.hash
        );
    }
    // One row per run label over its seeds: the worst overlap, the means of the rest.
    println!();
    println!("| run | seeds | overlap.max (worst) | seeds with overlap.max > 0.15 | overlap.mean (worst) | column_step.p99 (mean) | column_step.max (worst) | packing (mean) | KE/particle (mean) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut start = 0;
    while start < cases.len() {
        let end = (start..cases.len())
            .find(|&k| cases[k].label != cases[start].label)
            .unwrap_or(cases.len());
        let group = &rows[start..end];
        let n = group.len() as f64;
        let worst = |f: fn(&Row) -> f64| group.iter().map(f).fold(0.0, f64::max);
        let mean = |f: fn(&Row) -> f64| group.iter().map(f).sum::<f64>() / n;
        println!(
            "| {} | {} | {:.4} | {} | {:.4} | {:.2} | {:.2} | {:.3} | {:.3} |",
            cases[start].label,
            group.len(),
            worst(|r| r.overlap_max),
            group.iter().filter(|r| r.overlap_max > 0.15).count(),
            worst(|r| r.overlap_mean),
            mean(|r| r.step_p99),
            worst(|r| r.step_max),
            mean(|r| r.packing),
            mean(|r| r.energy),
        );
        start = end;
    }
}
