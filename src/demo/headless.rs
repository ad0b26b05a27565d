//! The headless stress mode: the simulation with no window, timed per phase, printed as
//! `name: value unit` lines. It runs in a web page too (`?headless&particles=...`), with the
//! same output in the browser's console, so native and browser timings compare directly.

use quadstress::sim::{SimConfig, Simulation};
use quadstress::Config;

use super::app::placement_name;
use super::cli::{Args, Switch};
use super::platform::now_seconds;

/// Median and 99th percentile of a list of milliseconds (sorted in place).
fn percentiles(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    v.sort_by(f64::total_cmp);
    let p99 = ((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len()) - 1;
    (v[v.len() / 2], v[p99])
}

/// Runs the headless mode; returns an error message for bad flags.
pub fn run(args: &Args) -> Result<(), String> {
    if !(args.coverage.is_finite() && args.coverage > 0.0 && args.coverage <= 1.0) {
        return Err(format!(
            "--coverage must be in (0, 1], got {}",
            args.coverage
        ));
    }
    let frames = args.frames.unwrap_or(600);
    let mut config = SimConfig::with_coverage(args.particles.max(1), args.coverage);
    config.seed = args.seed;
    config.gravity_on = args.gravity == Some(Switch::On);
    config.broadphase = args.broadphase.into();
    config.max_particles = config.max_particles.max(args.particles);
    // The library's defaults, as in the window. Capacity 8 with cells four particles wide
    // was about 3x slower per step at 100,000 particles once leaves were scanned in blocks.
    config.tree = Config {
        capacity: args.capacity,
        max_depth: args.depth,
        placement: args.placement.into(),
    };
    let mut sim = Simulation::new(config).map_err(|e| e.to_string())?;
    sim.spawn_burst(args.particles).map_err(|e| e.to_string())?;

    println!("particles: {} count", sim.len());
    println!("world_side: {} units", config.world.width());
    println!("coverage: {} fraction", args.coverage);
    println!("broadphase: {}", sim.broadphase().name());
    println!("gravity: {}", if config.gravity_on { "on" } else { "off" });
    println!("tree_capacity: {} items", config.tree.capacity);
    println!("tree_depth_limit: {} levels", config.tree.max_depth);
    println!("tree_placement: {}", placement_name(config.tree.placement));

    let n = frames as usize;
    let (mut integrate, mut update, mut pairs, mut resolve, mut step) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut contacts, mut tested) = (0u64, 0u64);
    let ms = |t: f64| (now_seconds() - t) * 1e3;
    for _ in 0..frames {
        let t0 = now_seconds();
        let t = now_seconds();
        sim.integrate(args.dt).map_err(|e| e.to_string())?;
        integrate.push(ms(t));
        let t = now_seconds();
        sim.update_tree();
        update.push(ms(t));
        let t = now_seconds();
        sim.find_pairs();
        pairs.push(ms(t));
        let t = now_seconds();
        sim.resolve();
        resolve.push(ms(t));
        step.push(ms(t0));
        contacts += sim.counts().contacts as u64;
        tested += sim.counts().pairs_tested;
    }
    println!("frames: {frames} frames");
    for (name, v) in [
        ("integrate", &mut integrate),
        ("tree_update", &mut update),
        ("pair_search", &mut pairs),
        ("resolution", &mut resolve),
        ("step", &mut step),
    ] {
        let (median, p99) = percentiles(v);
        println!("{name}.median: {median:.3} ms");
        println!("{name}.p99: {p99:.3} ms");
    }
    let f = frames.max(1) as f64;
    let np = sim.len() as f64;
    println!("contacts.mean: {:.1} pairs", contacts as f64 / f);
    println!("pairs_tested.mean: {:.0} pairs", tested as f64 / f);
    println!("pairs_brute_force: {:.0} pairs", np * (np - 1.0) / 2.0);
    let s = sim.tree().stats();
    println!("tree.nodes: {} nodes", s.nodes);
    println!("tree.leaves: {} nodes", s.leaves);
    println!("tree.deepest_level: {} levels", s.deepest_level);
    println!("tree.items_at_root: {} items", s.items_at_root);
    Ok(())
}
