//! `--headless --ramp`: the simulation's step alone against a budget (see [`crate::state::ramp`]).
//!
//! The ramp starts from [`START_PARTICLES`] in a square world the particles cover to
//! `--coverage` (or in the window's world at `--world-scale`); when the count would pass that
//! coverage the world doubles its area ([`regrow`]), so the density stays between half the
//! coverage and the coverage. Its default scene is the window's: gravity on, a pile
//! (`--gravity off` for a gas).

use std::io::Write;

use quadstress_sim::MAX_PARTICLES;

use super::{refuse, set_up, write_scene, Stop};
use crate::input::platform::now_seconds;
use crate::settings::cli::Args;
use crate::settings::particles_covering;
use crate::settings::startup::{headless_config, DEFAULT_COVERAGE};
use crate::state::app::BruteForceEstimate;
use crate::state::ramp::{
    regrow, thousands, wider, Measure, Ramp, Sample, Stop as RampStop, START_PARTICLES,
};

/// Runs the headless ramp, writing its report to `out`. `memory` is what the machine has
/// free, in bytes, and `bytes_per_particle` what a particle takes at most: the ramp stops
/// (as at a cap) before it would need more.
pub(super) fn run(
    args: &Args,
    out: &mut impl Write,
    memory: Option<u64>,
    bytes_per_particle: u64,
) -> Result<(), Stop> {
    if !args.press.is_empty() || !args.panel.is_empty() || args.pointer.is_some() {
        return Err(refuse(
            "--press, --panel and --pointer script a run of fixed particles; the headless \
             ramp adds its own",
        ));
    }
    let config = headless_config(args, START_PARTICLES, true).map_err(Stop::Refused)?;
    let coverage = args.coverage.unwrap_or(DEFAULT_COVERAGE);
    let mut sim = set_up(args, config, START_PARTICLES)?;
    let mut ramp = Ramp::new(args.budget_ms, Measure::Step);
    writeln!(out, "ramp.start: {} count", sim.len())?;
    write_scene(out, args, &sim, true)?;
    write!(out, "{}", ramp.header_lines())?;
    out.flush()?;

    let mut estimate = BruteForceEstimate::default();
    let mut steps = 0u64;
    loop {
        if args.frames.is_some_and(|limit| steps >= limit) {
            ramp.stop(RampStop::Frames);
            break;
        }
        let due = ramp.due(sim.len());
        let wanted = sim.len().saturating_add(due);
        let too_big = |n: usize| {
            n > MAX_PARTICLES
                || memory.is_some_and(|m| (n as u64).saturating_mul(bytes_per_particle) > m)
        };
        if too_big(wanted) {
            ramp.stop(RampStop::Cap);
            break;
        }
        if wanted > sim.config().max_particles {
            let world = wider(sim.config().world);
            sim = regrow(&sim, world, particles_covering(world, coverage)).map_err(refuse)?;
        }
        sim.spawn_burst(due).map_err(refuse)?;
        let t = sim.step_timed(args.dt, now_seconds).map_err(refuse)?;
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
    let lines =
        crate::state::plot::write_outputs(&ramp, args.csv.as_deref(), args.plot.as_deref(), &title)
            .map_err(Stop::Refused)?;
    for line in lines {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
