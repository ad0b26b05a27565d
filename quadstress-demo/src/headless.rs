//! The headless stress mode: the simulation with no window, timed per phase, printed as
//! `name: value unit` lines. It runs in a web page too (`?headless&particles=...`), with the
//! same output in the browser's console, so native and browser timings compare directly.

use std::io::Write;

use quadstress_sim::{HeightProfile, Percentiles, Phase, SimConfig, Simulation, MAX_PARTICLES};

use super::cli::{Args, Switch};
use super::platform::now_seconds;
use super::settings::placement_name;

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

fn run_to(args: &Args, out: &mut impl Write) -> Result<(), Stop> {
    let refuse = |e: &dyn std::fmt::Display| Stop::Refused(e.to_string());
    if !(args.coverage.is_finite() && args.coverage > 0.0 && args.coverage <= 1.0) {
        return Err(Stop::Refused(format!(
            "--coverage must be in (0, 1], got {}",
            args.coverage
        )));
    }
    let frames = args.frames.unwrap_or(600);
    if !(args.dt.is_finite() && args.dt >= 0.0) {
        return Err(Stop::Refused(format!(
            "--dt must be a finite, non-negative number of seconds, got {}",
            args.dt
        )));
    }
    if args.ramp {
        let memory = available_memory();
        return super::headless_ramp::run(args, out, memory, BYTES_PER_PARTICLE)?
            .map_err(Stop::Refused);
    }
    // Refused before any work, as the flags are.
    let mut script = super::headless_script::HeadlessScript::new(args).map_err(Stop::Refused)?;
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
    let mut config = SimConfig::with_coverage(args.particles.max(1), args.coverage);
    config.seed = args.seed;
    config.gravity_on = args.gravity == Some(Switch::On);
    config.broadphase = args.broadphase.into();
    config.max_particles = config.max_particles.max(args.particles);
    // The library's defaults, as in the window.
    config.tree = args.tree_config();
    // Boxed: scripted input (`--press`, `--panel`) hands it to the window's app and back.
    let mut sim = Box::new(Simulation::new(config).map_err(|e| refuse(&e))?);
    if let Some(threads) = args.threads {
        sim.set_threads(threads).map_err(|e| refuse(&e))?;
    }
    sim.spawn_burst(args.particles).map_err(|e| refuse(&e))?;

    writeln!(out, "particles: {} count", sim.len())?;
    writeln!(out, "world_side: {} units", config.world.width())?;
    writeln!(out, "coverage: {} fraction", args.coverage)?;
    writeln!(out, "broadphase: {}", sim.broadphase().name())?;
    writeln!(out, "threads: {} threads", sim.threads())?;
    writeln!(out, "step_seconds: {} s", args.dt)?;
    writeln!(
        out,
        "gravity: {}",
        if config.gravity_on { "on" } else { "off" }
    )?;
    writeln!(out, "tree_capacity: {} items", config.tree.leaf_capacity)?;
    writeln!(out, "tree_depth_limit: {} levels", config.tree.max_depth)?;
    writeln!(
        out,
        "tree_placement: {}",
        placement_name(config.tree.placement)
    )?;
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
    for frame in 0..frames {
        if let Some(script) = script.as_mut() {
            let (back, steps) = script.frame(sim);
            sim = back;
            if steps == 0 {
                continue;
            }
        }
        let t = sim
            .step_timed(args.dt, now_seconds)
            .map_err(|e| refuse(&e))?;
        for (k, (_, ms)) in t.by_phase().into_iter().enumerate() {
            phases[k].1.record(ms);
        }
        phases[Phase::ALL.len()].1.record(t.step_ms);
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
    }
    if frames > 0 {
        let f = frames as f64;
        writeln!(out, "contacts.mean: {:.1} pairs", contacts as f64 / f)?;
        writeln!(out, "pairs_tested.mean: {:.0} pairs", tested as f64 / f)?;
    }
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
    let overlap = sim.overlap();
    writeln!(out, "overlap.pairs: {} pairs", overlap.pairs)?;
    writeln!(out, "overlap.mean: {:.4} fraction", overlap.mean)?;
    writeln!(out, "overlap.max: {:.4} fraction", overlap.max)?;
    if energy_frames > 0 {
        writeln!(
            out,
            "kinetic_energy.per_particle: {:.3} units2/s2",
            energy / energy_frames as f64
        )?;
    }
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
