//! The headless stress mode: the simulation with no window, timed per phase, printed as
//! `name: value unit` lines. It runs in a web page too (`?headless&particles=...`), with the
//! same output in the browser's console, so native and browser timings compare directly.

pub mod ramp;
pub mod script;

use std::io::{self, Write};

use quadstress::{Config, ItemId, Quadtree, Rect};
use quadstress_sim::{HeightProfile, Percentiles, Phase, SimConfig, Simulation, MAX_PARTICLES};

use crate::input::platform::now_seconds;
use crate::settings::cli::Args;
use crate::settings::placement_name;
use crate::settings::startup::{headless_config, DEFAULT_COVERAGE};

/// Runs the headless mode; returns an error message for bad flags. Output into a closed pipe
/// (`quadstress --headless | head`) ends the run quietly.
pub fn run(args: &Args) -> Result<(), String> {
    // A page has no standard output: the lines go to the browser's console.
    #[cfg(target_arch = "wasm32")]
    let result = {
        let mut buffer = Vec::new();
        let result = run_to(args, &mut buffer);
        for line in String::from_utf8_lossy(&buffer).lines() {
            println!("{line}");
        }
        result
    };
    #[cfg(not(target_arch = "wasm32"))]
    let result = run_to(args, &mut std::io::stdout().lock());
    match result {
        Err(Stop::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(Stop::Io(e)) => Err(format!("cannot write the output: {e}")),
        Err(Stop::Refused(message)) => Err(message),
        Ok(()) => Ok(()),
    }
}

/// The most memory a headless run takes per particle, rounded up with a margin: the peak
/// resident size over `--particles` (all buffers at their high-water mark, contacts of a
/// packed pile under gravity included) measured up to about 370 bytes.
const BYTES_PER_PARTICLE: u64 = 512;

/// Memory the run may take, in bytes: what Linux reports as available; in a web page, the 4
/// GiB a 32-bit WebAssembly memory can address. `None` where it is unknown (no check then).
fn available_memory() -> Option<u64> {
    #[cfg(target_arch = "wasm32")]
    {
        Some(4 << 30)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib.saturating_mul(1024))
    }
}

/// The deepest overlap between two particles, in particle sides, measured after a step and
/// outside its timing: a tree of the library's default settings (whatever `--capacity` and
/// `--depth` say: a depth of 0 would make it a brute-force search) over the world, kept
/// between steps so that a measure allocates nothing once it has grown. The depth of a pair
/// is [`quadstress_sim::overlap_of`]'s: the overlap along the axis of least overlap.
pub struct DeepestOverlap {
    tree: Quadtree<u32>,
    ids: Vec<ItemId>,
}

impl DeepestOverlap {
    /// A measure for `world`'s particles.
    ///
    /// # Errors
    /// The tree's, for a world it refuses.
    pub fn new(world: Rect) -> Result<Self, String> {
        Ok(DeepestOverlap {
            tree: Quadtree::with_config(world, Config::default()).map_err(|e| e.to_string())?,
            ids: Vec::new(),
        })
    }

    /// The deepest overlap between two of `sim`'s particles now, as a fraction of their side
    /// (0 when none overlap).
    pub fn measure(&mut self, sim: &Simulation) -> f64 {
        let s = sim.config().particle_size;
        let particles = sim.particles();
        self.tree.clear();
        self.ids.clear();
        // The simulation keeps its particles finite (its steps refuse what is not).
        let _ = self.tree.insert_many(
            particles
                .iter()
                .enumerate()
                .map(|(i, p)| (p.rect(s), i as u32)),
            &mut self.ids,
        );
        let side = f64::from(s);
        let mut deepest = 0f64;
        self.tree.for_each_pair(|a, b| {
            let (p, q) = (particles[*a.value as usize], particles[*b.value as usize]);
            let ox = side - (f64::from(p.x) - f64::from(q.x)).abs();
            let oy = side - (f64::from(p.y) - f64::from(q.y)).abs();
            deepest = deepest.max(ox.min(oy));
        });
        deepest.max(0.0) / side
    }
}

/// Why a run stopped early.
enum Stop {
    Io(std::io::Error),
    Refused(String),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Self {
        Stop::Io(e)
    }
}

/// A refusal for `e`.
fn refuse(e: impl std::fmt::Display) -> Stop {
    Stop::Refused(e.to_string())
}

/// The headless run's simulation: `config` on `--threads` threads, `particles` spawned.
fn set_up(args: &Args, config: SimConfig, particles: usize) -> Result<Simulation, Stop> {
    let mut sim = Simulation::new(SimConfig {
        threads: args.threads,
        ..config
    })
    .map_err(refuse)?;
    sim.spawn_burst(particles).map_err(refuse)?;
    Ok(sim)
}

/// The lines that say what a headless run simulates: its world (and the coverage that sized
/// it, or, in the `ramp`, that caps it), cap, broad phase, threads, step, gravity and tree.
fn write_scene(out: &mut impl Write, args: &Args, sim: &Simulation, ramp: bool) -> io::Result<()> {
    let config = sim.config();
    if let Some(scale) = args.world_scale {
        writeln!(out, "world_scale: {scale}")?;
        writeln!(out, "world_width: {} units", config.world.width())?;
        writeln!(out, "world_height: {} units", config.world.height())?;
    } else {
        writeln!(out, "world_side: {} units", config.world.width())?;
    }
    if args.world_scale.is_none() || ramp {
        let coverage = args.coverage.unwrap_or(DEFAULT_COVERAGE);
        writeln!(out, "coverage: {coverage} fraction")?;
    }
    writeln!(out, "particle_cap: {} count", config.max_particles)?;
    writeln!(out, "broadphase: {}", sim.broadphase().name())?;
    writeln!(out, "threads: {} threads", sim.threads())?;
    writeln!(out, "step_seconds: {} s", args.dt)?;
    let gravity = if config.gravity_on { "on" } else { "off" };
    writeln!(out, "gravity: {gravity}")?;
    writeln!(out, "tree_capacity: {} items", config.tree.leaf_capacity)?;
    writeln!(out, "tree_depth_limit: {} levels", config.tree.max_depth)?;
    let placement = placement_name(config.tree.placement);
    writeln!(out, "tree_placement: {placement}")
}

/// The line `name: MEAN unit`, the mean of `count` values summing to `sum` in `decimals`
/// places; none for no values.
fn write_mean(
    out: &mut impl Write,
    name: &str,
    sum: f64,
    count: u64,
    decimals: usize,
    unit: &str,
) -> io::Result<()> {
    if count == 0 {
        return Ok(());
    }
    writeln!(out, "{name}: {:.decimals$} {unit}", sum / count as f64)
}

fn run_to(args: &Args, out: &mut impl Write) -> Result<(), Stop> {
    let frames = args.frames.unwrap_or(600);
    if !(args.dt.is_finite() && args.dt >= 0.0) {
        return Err(Stop::Refused(format!(
            "--dt must be a finite, non-negative number of seconds, got {}",
            args.dt
        )));
    }
    if args.ramp {
        let memory = available_memory();
        return ramp::run(args, out, memory, BYTES_PER_PARTICLE);
    }
    // Refused before any work, as the flags are.
    let mut script = crate::headless::script::HeadlessScript::new(args).map_err(Stop::Refused)?;
    if args.particles > MAX_PARTICLES {
        return Err(Stop::Refused(format!(
            "--particles must be at most {MAX_PARTICLES}, got {}",
            args.particles
        )));
    }
    // Refused before any work: a run the machine cannot hold would otherwise die on a failed
    // allocation after seconds or minutes of spawning.
    let needed = (args.particles as u64).saturating_mul(BYTES_PER_PARTICLE);
    if let Some(available) = available_memory() {
        if needed > available {
            return Err(Stop::Refused(format!(
                "--particles {} needs about {} MiB ({BYTES_PER_PARTICLE} bytes a particle); \
                 only {} MiB are available",
                args.particles,
                needed >> 20,
                available >> 20
            )));
        }
    }
    // The world's cap holds for scripted spawning too: the simulation refuses past it.
    let config = headless_config(args, args.particles, false).map_err(Stop::Refused)?;
    // Boxed: scripted input (`--press`, `--panel`) hands it to the window's app and back.
    let mut sim = Box::new(set_up(args, config, args.particles)?);
    writeln!(out, "particles: {} count", sim.len())?;
    write_scene(out, args, &sim, false)?;
    out.flush()?;

    // Timing storage is bounded whatever `--frames` says: exact up to a limit, then a
    // fixed histogram.
    let mut phases: Vec<(&str, Percentiles)> = Phase::ALL
        .iter()
        .map(|p| (p.name(), Percentiles::with_capacity(frames)))
        .chain([("step", Percentiles::with_capacity(frames))])
        .collect();
    let (mut contacts, mut tested) = (0u64, 0u64);
    // Kinetic energy per particle over the last second of simulated time.
    let last_second = (1.0 / f64::from(args.dt)).ceil().max(1.0) as u64;
    let (mut energy, mut energy_frames) = (0.0, 0u64);
    // The share of particles awake, summed over the steps; the deepest overlap at any step
    // after the first simulated second (the spawn's own overlaps are resolved by then).
    let (mut awake, mut awake_steps) = (0.0, 0u64);
    let mut overlap = DeepestOverlap::new(config.world).map_err(Stop::Refused)?;
    let mut worst: Option<f64> = None;
    let mut stepped = 0u64;
    for frame in 0..frames {
        if let Some(script) = script.as_mut() {
            let (back, steps) = script.frame(sim);
            sim = back;
            if steps == 0 {
                continue;
            }
        }
        let t = sim.step_timed(args.dt, now_seconds).map_err(refuse)?;
        for (k, (_, ms)) in t.by_phase().into_iter().enumerate() {
            phases[k].1.record(ms);
        }
        phases[Phase::ALL.len()].1.record(t.step_ms);
        stepped += 1;
        if !sim.is_empty() {
            awake += 1.0 - sim.sleeping() as f64 / sim.len() as f64;
            awake_steps += 1;
        }
        // Measured after the step's timing has been taken, so it costs the run time only.
        if stepped > last_second {
            let deepest = overlap.measure(&sim);
            worst = Some(worst.map_or(deepest, |w: f64| w.max(deepest)));
        }
        contacts = contacts.saturating_add(sim.counts().contacts as u64);
        tested = tested.saturating_add(sim.counts().pairs_tested);
        if frames - frame <= last_second {
            energy += sim.kinetic_energy() / sim.len().max(1) as f64;
            energy_frames += 1;
        }
    }
    writeln!(out, "frames: {frames} frames")?;
    if script.is_some() {
        // Scripted input spawns and clears: the count the run ended with.
        writeln!(out, "particles_end: {} count", sim.len())?;
    }
    // Statistics of no frames are left out, as in the window's report.
    for (name, times) in &mut phases {
        if let (Some(median), Some(p99)) = (times.percentile(0.5), times.percentile(0.99)) {
            writeln!(out, "{name}.median: {median:.3} ms")?;
            writeln!(out, "{name}.p99: {p99:.3} ms")?;
        }
        // The whole step's spread, where the time goes when the median hides it.
        if *name == "step" {
            if let (Some(mean), Some(p90)) = (times.mean(), times.percentile(0.9)) {
                writeln!(out, "step.mean: {mean:.3} ms")?;
                writeln!(out, "step.p90: {p90:.3} ms")?;
            }
        }
    }
    write_mean(out, "awake.mean", awake, awake_steps, 3, "fraction")?;
    write_mean(out, "contacts.mean", contacts as f64, frames, 1, "pairs")?;
    write_mean(out, "pairs_tested.mean", tested as f64, frames, 0, "pairs")?;
    let np = sim.len() as u128;
    writeln!(
        out,
        "pairs_brute_force: {} pairs",
        np * np.saturating_sub(1) / 2
    )?;
    let s = sim.tree().stats();
    writeln!(out, "tree.nodes: {} nodes", s.nodes)?;
    writeln!(out, "tree.leaves: {} nodes", s.leaves)?;
    writeln!(out, "tree.deepest_level: {} levels", s.deepest_level)?;
    writeln!(out, "tree.items_at_root: {} items", s.items_at_root)?;
    let end = sim.overlap();
    writeln!(out, "overlap.pairs: {} pairs", end.pairs)?;
    writeln!(out, "overlap.mean: {:.4} fraction", end.mean)?;
    writeln!(out, "overlap.max: {:.4} fraction", end.max)?;
    if let Some(worst) = worst {
        writeln!(out, "overlap.worst: {worst:.4} sides")?;
    }
    let energy_name = "kinetic_energy.per_particle";
    write_mean(out, energy_name, energy, energy_frames, 3, "units2/s2")?;
    if config.gravity_on {
        writeln!(out, "pile.packing: {:.3} fraction", sim.pile_packing())?;
        if let Some(steps) = sim.column_steps(&mut HeightProfile::new()) {
            writeln!(out, "pile.column_step.max: {:.2} sides", steps.max)?;
            writeln!(out, "pile.column_step.p99: {:.2} sides", steps.p99)?;
        }
    }
    writeln!(out, "state_hash: {:016x}", sim.state_hash())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quadstress_sim::SimConfig;

    /// The kept tree measures what the simulation's own report does (a fresh tree of its
    /// settings), step after step as the pile falls, lands and the tree is refilled.
    #[test]
    fn the_deepest_overlap_is_the_simulations_own_maximum() {
        let mut sim = Simulation::new(SimConfig {
            world: Rect::new(0.0, 0.0, 400.0, 300.0),
            seed: 5,
            ..SimConfig::default()
        })
        .unwrap();
        let mut deepest = DeepestOverlap::new(sim.config().world).unwrap();
        assert_eq!(deepest.measure(&sim), 0.0, "no particles, no overlap");
        sim.spawn_burst(1200).unwrap();
        let mut seen = 0.0f64;
        for step in 0..120 {
            let ours = deepest.measure(&sim);
            let theirs = sim.overlap().max;
            assert!(
                (ours - theirs).abs() < 1e-9,
                "step {step}: {ours} vs {theirs}"
            );
            seen = seen.max(ours);
            sim.step(1.0 / 60.0).unwrap();
        }
        assert!(
            seen > 0.0,
            "a burst of 1,200 in this world overlaps somewhere"
        );
    }
}
