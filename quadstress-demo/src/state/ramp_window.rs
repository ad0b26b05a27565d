//! The window's ramp, frame by frame (see `ramp` for the rule): it takes in the last frame's
//! times, adds this frame's particles at random (the simulation's seeded generator places
//! them), widens the world when it is full, and prints the report when the ramp stops.

use std::path::Path;

use crate::settings::{MAX_COVERAGE, MAX_WORLD_SCALE};
use crate::state::app::App;
use crate::state::plot::write_outputs;
use crate::state::ramp::{Ramp, Sample, Stop};

/// Runs the ramp's part of a frame, if a ramp runs: records `sample` (the last frame's
/// times), then adds particles, widening the world by [`std::f32::consts::SQRT_2`] (twice the
/// area) up to [`MAX_WORLD_SCALE`] when they would not fit. Needs the simulation at home (not
/// on the step thread). Returns whether the ramp stopped in this frame.
pub fn frame(app: &mut App, sample: Sample) -> bool {
    if app.ramp.ramp.as_ref().is_none_or(|r| r.stopped().is_some()) {
        return false;
    }
    let Some(mut ramp) = app.ramp.ramp.take() else {
        return false;
    };
    // A paused demo neither measures nor adds.
    let stopped = !app.paused() && advance(app, &mut ramp, sample);
    app.ramp.ramp = Some(ramp);
    stopped
}

fn advance(app: &mut App, ramp: &mut Ramp, sample: Sample) -> bool {
    let count = app.sim().len();
    app.ramp.count = count;
    let width = app.sim().config().world.width();
    let estimate = &app.brute_force;
    if let Some(p) = ramp.record(sample, count, width, |n| estimate.ms_at(n)) {
        print!("{}", Ramp::point_lines(ramp.points().len() - 1, &p));
    }
    if ramp.stopped().is_some() {
        return true;
    }
    let due = ramp.due(count);
    if count + due > app.sim().config().max_particles {
        let scale = app.world_scale();
        if scale >= MAX_WORLD_SCALE {
            ramp.stop(Stop::Cap);
            return true;
        }
        let scale = (scale * std::f32::consts::SQRT_2).min(MAX_WORLD_SCALE);
        match app.widen_world(scale) {
            Ok(cap) => app.say(format_args!(
                "ramp: world x{scale:.2}, room for {cap} particles (they kept their places)"
            )),
            Err(e) => {
                app.say(format_args!("ramp stopped: the world cannot grow: {e}"));
                ramp.stop(Stop::Cap);
                return true;
            }
        }
    }
    app.spawn_at_random(due);
    false
}

/// Stops a running ramp because the scripted run's `--frames` are over; returns whether one
/// ran (its report is then due).
pub fn stop_for_frames(app: &mut App) -> bool {
    match &mut app.ramp.ramp {
        Some(ramp) if ramp.stopped().is_none() => {
            ramp.stop(Stop::Frames);
            true
        }
        _ => false,
    }
}

/// Prints the report of a ramp that stopped and writes its `--csv` and `--plot` files.
pub fn report(app: &App, csv: Option<&Path>, plot: Option<&Path>) {
    let Some(ramp) = &app.ramp.ramp else {
        return;
    };
    print!("{}{}", ramp.header_lines(), ramp.summary_lines());
    // The scene, so that a chart read alone says what it measured.
    let title = format!(
        "{} particles at {} ms frames\nwindow, gravity {}, filled to {:.0}% then widened, \
         world x{:.2} at the end, {}, {} threads",
        crate::state::ramp::thousands(ramp.max_particles()),
        ramp.budget_ms(),
        if app.sim().config().gravity_on {
            "on"
        } else {
            "off"
        },
        MAX_COVERAGE * 100.0,
        app.world_scale(),
        app.renderer,
        app.sim().threads()
    );
    match write_outputs(ramp, csv, plot, &title) {
        Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
        Err(e) => eprintln!("error: {e}"),
    }
}
