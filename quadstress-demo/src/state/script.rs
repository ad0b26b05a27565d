//! A scripted run of the window: what `--frames`, `--warmup`, `--press`, `--panel`,
//! `--right-click` and `--move-quad` make happen on which frame, the timings of its timed
//! frames, and the summary it prints after its last frame. The frame loop (`window.rs`) asks
//! it each frame; it reads no clock and draws nothing itself.

use quadstress_sim::Percentiles;

use crate::input::controls::{self, Pointer};
use crate::settings::cli::Args;
use crate::settings::panel_controls::{Control, Value};
use crate::settings::placement_name;
use crate::state::app::App;
use crate::state::profile::FrameTimes;
use crate::state::view::View;

/// Timings of the timed frames, in seconds, in bounded memory.
struct RunTimes {
    frame: Percentiles,
    work: Percentiles,
    draw: Percentiles,
    present: Percentiles,
    step: Percentiles,
    step_wait: Percentiles,
    /// The part of a frame that runs while no step does.
    before_steps: Percentiles,
}

/// The scripted run's plan and what it measured so far.
pub struct Script {
    /// The last frame, when the run is scripted.
    frames: Option<u64>,
    warmup: u64,
    press: Vec<(String, std::ops::RangeInclusive<u64>)>,
    panel: Vec<(&'static Control, Value, u64)>,
    right_click: Option<(f32, f32)>,
    move_quad: Option<(f32, f32)>,
    /// The frame now running, from 1.
    frame: u64,
    /// This frame's panel settings.
    panel_now: Vec<(&'static Control, Value)>,
    times: RunTimes,
}

impl Script {
    /// The script `args` give (none but the interactive demo when `--frames` is absent).
    pub fn new(args: &Args) -> Self {
        // Bounded whatever `--frames` says: exact up to a limit, then a fixed histogram.
        let timed = || Percentiles::with_capacity(args.frames.unwrap_or(0));
        Script {
            frames: args.frames,
            warmup: args.warmup,
            press: args.press.clone(),
            panel: args.panel.clone(),
            right_click: args.right_click,
            move_quad: args.move_quad,
            frame: 0,
            panel_now: Vec::with_capacity(args.panel.len()),
            times: RunTimes {
                frame: timed(),
                work: timed(),
                draw: timed(),
                present: timed(),
                step: timed(),
                step_wait: timed(),
                before_steps: timed(),
            },
        }
    }

    /// Starts the next frame.
    pub fn next_frame(&mut self) {
        self.frame += 1;
    }

    /// Whether the run is scripted: it then steps once a frame, so that it repeats exactly.
    pub fn scripted(&self) -> bool {
        self.frames.is_some()
    }

    /// Whether this is the scripted run's last frame.
    pub fn is_last(&self) -> bool {
        self.frames.is_some_and(|n| self.frame >= n)
    }

    /// The frame now running, from 1.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Does this frame's `--press` inputs, as the controls table would with the pointer at
    /// `pointer`.
    pub fn press(&self, app: &mut App, dt: f32, view: &View, pointer: Pointer) {
        for (label, _) in self.press.iter().filter(|(_, at)| at.contains(&self.frame)) {
            for b in controls::by_label(label) {
                app.act(b, dt, view, pointer);
            }
        }
    }

    /// This frame's `--panel` settings, for the panel to take through its widgets.
    pub fn panel_settings(&mut self) -> &[(&'static Control, Value)] {
        let frame = self.frame;
        self.panel_now.clear();
        self.panel_now.extend(
            self.panel
                .iter()
                .filter(|&&(_, _, at)| at == frame)
                .map(|&(c, v, _)| (c, v)),
        );
        &self.panel_now
    }

    /// The right-click of the first frame and the quad's move of every later one.
    pub fn move_quad(&self, app: &mut App) {
        if self.frame == 1 {
            if let Some((x, y)) = self.right_click {
                app.right_click(x, y);
                // A scripted report stays up to the last frame, however slow the frames.
                app.probe.keep_shown();
            }
        }
        if let Some((dx, dy)) = self.move_quad.filter(|_| self.frame > 1) {
            app.nudge_quad(dx, dy);
        }
    }

    /// Records a frame's times, once the warm-up frames (and the first, which includes the
    /// window's start) are over.
    pub fn record(&mut self, t: FrameTimes) {
        if self.frames.is_none() || self.frame <= self.warmup.saturating_add(1) {
            return;
        }
        let times = &mut self.times;
        times.frame.record(t.frame);
        times.work.record(t.frame - t.slept);
        times.draw.record(t.draw);
        times.present.record(t.present);
        times.step_wait.record(t.step_wait);
        if let Some(before) = t.before_steps {
            times.before_steps.record(before);
        }
        if let Some(step) = t.step {
            times.step.record(step);
        }
    }

    /// Prints the summary of the run after its last frame: the state, the frame-time
    /// statistics, FPS, and the median of each part of a frame.
    pub fn report(&mut self, app: &App, view: &View, overlaps: bool) {
        if self.right_click.is_some() {
            println!("quad report: {}", app.probe.line());
        }
        let sim = app.sim();
        println!("particles: {} count", sim.len());
        println!("particle_cap: {} count", sim.config().max_particles);
        println!("threads: {} count", sim.threads());
        println!("broadphase: {}", sim.broadphase().name());
        println!("colors: {}", app.display.colors.name());
        let tree = sim.config().tree;
        println!("leaf_capacity: {} items", tree.leaf_capacity);
        println!("depth_limit: {} levels", tree.max_depth);
        println!("placement: {}", placement_name(tree.placement));
        println!(
            "gravity: {}",
            if sim.config().gravity_on { "on" } else { "off" }
        );
        println!("query: {}", app.probe.shape().name());
        // As headless prints it: the same script gives the same particles in both modes.
        println!("state_hash: {:016x}", sim.state_hash());
        println!("zoom: {} px_per_unit", view.scale());
        println!(
            "particle_side: {} px",
            view.particle_px(sim.config().particle_size)
        );
        let frame = &mut self.times.frame;
        println!("frames_timed: {} frames", frame.len());
        let mean = frame.mean().unwrap_or(0.0);
        if let Some(median) = frame.percentile(0.5) {
            println!("frame_time.median: {:.2} ms", median * 1e3);
        }
        if let Some(p99) = frame.percentile(0.99) {
            println!("frame_time.p99: {:.2} ms", p99 * 1e3);
        }
        if mean > 0.0 {
            println!("fps.mean: {:.1} fps", 1.0 / mean);
        }
        println!("step.last: {:.2} ms", app.times.step_ms);
        println!("step_overlap: {}", if overlaps { "on" } else { "off" });
        let t = &mut self.times;
        for (name, values) in [
            ("frame_work", &mut t.work),
            ("draw", &mut t.draw),
            ("present", &mut t.present),
            ("step", &mut t.step),
            ("step_wait", &mut t.step_wait),
            ("before_steps", &mut t.before_steps),
        ] {
            if let Some(median) = values.percentile(0.5) {
                println!("{name}.median: {:.2} ms", median * 1e3);
            }
        }
    }

    /// Ends the script where the program goes on after it (a web page): the demo is
    /// interactive from here.
    pub fn end(&mut self) {
        self.frames = None;
    }
}
