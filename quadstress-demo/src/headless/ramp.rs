//! `--headless --ramp`: the simulation's step alone against a budget (see [`crate::state::ramp`]).
//!
//! The ramp starts from [`START_PARTICLES`] in a square world the particles cover to
//! `--coverage` (or in the window's world at `--world-scale`); when the count would pass that
//! coverage the world doubles its area ([`regrow`]), so the density stays between half the
//! coverage and the coverage. Its default scene is the window's: gravity on, a pile
//! (`--gravity off` for a gas).

use std::io::Write;

use quadstress::Rect;
use quadstress_sim::{Simulation, MAX_PARTICLES};

use crate::input::platform::now_seconds;
use crate::settings::cli::Args;
use crate::settings::startup::{headless_config, DEFAULT_COVERAGE};
use crate::state::app::BruteForceEstimate;
use crate::state::ramp::{regrow, thousands, wider, Measure, Ramp, Sample, Stop, START_PARTICLES};

/// Most particles `world` holds at `coverage` of its area.
fn cap_of(world: Rect, coverage: f32, particle_size: f32) -> usize {
    let area = f64::from(world.width()) * f64::from(world.height());
    (area * f64::from(coverage) / f64::from(particle_size * particle_size)) as usize
}

/// Runs the headless ramp, writing its report to `out`. `memory` is what the machine has
/// free, in bytes, and `bytes_per_particle` what a particle takes at most: the ramp stops
/// (as at a cap) before it would need more. The outer error is the output's; the inner, a
/// refusal.
pub fn run(
    args: &Args,
    out: &mut impl Write,
    memory: Option<u64>,
    bytes_per_particle: u64,
) -> std::io::Result<Result<(), String>> {
    let refused = |e: &dyn std::fmt::Display| Ok(Err(e.to_string()));
    if !args.press.is_empty() || !args.panel.is_empty() || args.pointer.is_some() {
        return refused(
            &"--press, --panel and --pointer script a run of fixed particles; the \
                         headless ramp adds its own",
        );
    }
    let config = match headless_config(args, START_PARTICLES, true) {
        Ok(config) => config,
        Err(e) => return refused(&e),
    };
    let coverage = args.coverage.unwrap_or(DEFAULT_COVERAGE);
    let mut sim = match Simulation::new(config) {
        Ok(sim) => sim,
        Err(e) => return refused(&e),
    };
    if let Some(threads) = args.threads {
        if let Err(e) = sim.set_threads(threads) {
            return refused(&e);
        }
    }
    if let Err(e) = sim.spawn_burst(START_PARTICLES) {
        return refused(&e);
    }
    let mut ramp = Ramp::new(args.budget_ms, Measure::Step);
    writeln!(out, "ramp.start: {} count", sim.len())?;
    writeln!(out, "coverage: {coverage} fraction")?;
    if let Some(scale) = args.world_scale {
        writeln!(out, "world_scale: {scale}")?;
    }
    writeln!(out, "broadphase: {}", sim.broadphase().name())?;
    writeln!(out, "threads: {} threads", sim.threads())?;
    writeln!(out, "step_seconds: {} s", args.dt)?;
    writeln!(
        out,
        "gravity: {}",
        if config.gravity_on { "on" } else { "off" }
    )?;
    write!(out, "{}", ramp.header_lines())?;
    out.flush()?;

    let mut estimate = BruteForceEstimate::default();
    let mut steps = 0u64;
    loop {
        if args.frames.is_some_and(|limit| steps >= limit) {
            ramp.stop(Stop::Frames);
            break;
        }
        let due = ramp.due(sim.len());
        let wanted = sim.len().saturating_add(due);
        let too_big = |n: usize| {
            n > MAX_PARTICLES
                || memory.is_some_and(|m| (n as u64).saturating_mul(bytes_per_particle) > m)
        };
        if too_big(wanted) {
            ramp.stop(Stop::Cap);
            break;
        }
        if wanted > sim.config().max_particles {
            let world = wider(sim.config().world);
            let cap = cap_of(world, coverage, sim.config().particle_size);
            sim = match regrow(&sim, world, cap) {
                Ok(sim) => sim,
                Err(e) => return refused(&e),
            };
        }
        if let Err(e) = sim.spawn_burst(due) {
            return refused(&e);
        }
        let t = match sim.step_timed(args.dt, now_seconds) {
            Ok(t) => t,
            Err(e) => return refused(&e),
        };
        steps += 1;
        estimate.refresh(&sim, now_seconds);
        let sample = Sample {
            step_ms: Some(t.step_ms),
            ..Sample::default()
        };
        let width = sim.config().world.width();
        if let Some(p) = ramp.record(sample, sim.len(), width, |n| estimate.ms_at(n)) {
            write!(out, "{}", Ramp::point_lines(ramp.points().len() - 1, &p))?;
            out.flush()?;
        }
        if ramp.stopped().is_some() {
            break;
        }
    }
    writeln!(out, "steps: {steps} steps")?;
    write!(out, "{}", ramp.summary_lines())?;
    // The scene, so that a chart read alone says what it measured.
    let title = format!(
        "{} particles in a {} ms step\nheadless, gravity {}, coverage {coverage}, world {}, \
         {} threads",
        thousands(ramp.max_particles()),
        ramp.budget_ms(),
        if config.gravity_on { "on" } else { "off" },
        match args.world_scale {
            Some(scale) => format!("x{scale} of the window's"),
            None => "square".to_owned(),
        },
        sim.threads()
    );
    match crate::state::plot::write_outputs(
        &ramp,
        args.csv.as_deref(),
        args.plot.as_deref(),
        &title,
    ) {
        Ok(lines) => {
            for line in lines {
                writeln!(out, "{line}")?;
            }
            Ok(Ok(()))
        }
        Err(e) => refused(&e),
    }
}
