//! The ramp: how many particles this machine holds. Particles are added steadily, a share of
//! the count every frame; every 60 frames (one second at 60 FPS) close a window whose medians
//! make one point of the curve. The ramp stops at the second window in a row whose median
//! misses the budget (one slow second, a host's hiccup, is not the limit): the largest count
//! held is the largest point that met it.
//!
//! What is added is the same on every run (so many particles a frame at a given count, placed
//! by the simulation's seeded generator); only where the ramp stops depends on the clock. The
//! window measures the frame (the budget bounds the interval from one frame to the next), the
//! headless mode the simulation's step alone.
//!
//! A full world is widened by [`regrow`]: the particles move into a world twice the area,
//! from the same top-left corner, keeping their places (their velocities start from rest).

use std::fmt::Write as _;
use std::path::Path;

use quadstress::Rect;
use quadstress_sim::{percentile, SimConfig, SimError, Simulation};

/// Frames (windowed) or steps (headless) in one point of the curve: a second at 60 FPS.
pub const WINDOW_FRAMES: usize = 60;
/// Particles the headless ramp starts from.
pub const START_PARTICLES: usize = 1_000;
/// Particles added per second at least (a sixtieth of it every frame).
pub const MIN_RATE: f64 = 2_000.0;
/// Share of the count added per second (a sixtieth of it a frame, so it compounds): from
/// 10,000 particles to a million in about 23 s.
pub const GROWTH_PER_SECOND: f64 = 0.2;
/// Frames the windowed ramp lets pass, adding nothing, before its first window: a second.
pub const SETTLE_FRAMES: usize = WINDOW_FRAMES;
/// The window's frames are held to 60 FPS by a sleep that overshoots by a fraction of a
/// millisecond, and a display's vsync jitters: a frame interval counts as late only beyond
/// the budget by this share. A step (headless) has no such slack.
pub const FRAME_SLACK: f64 = 0.05;

/// What the budget bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// The interval from one frame to the next (the windowed ramp).
    Frame,
    /// The simulation's step (the headless ramp).
    Step,
}

impl Measure {
    /// The name the report uses.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Frame => "frame",
            Measure::Step => "step",
        }
    }
}

/// Why the ramp stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A window's median missed the budget: the machine's limit.
    Budget,
    /// The world is as large as it grows (or the machine's memory is full): the limit is
    /// above the count reached.
    Cap,
    /// `--frames` ran out first: the limit is above the count reached.
    Frames,
    /// The user stopped it (`R` or the panel's button).
    User,
}

impl Stop {
    /// The name the report uses.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Budget => "budget",
            Stop::Cap => "cap",
            Stop::Frames => "frames",
            Stop::User => "user",
        }
    }
}

/// One point of the curve: the medians of one window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Particles at the window's middle frame (the count grows through the window).
    pub particles: usize,
    /// The simulation's step, in milliseconds (`None` if no step ran, as while paused).
    pub step_ms: Option<f64>,
    /// The frame's drawing (windowed only).
    pub draw_ms: Option<f64>,
    /// The interval from one frame to the next (windowed only).
    pub frame_ms: Option<f64>,
    /// What an all-pairs brute force's pair search would take at this count: the time per
    /// rectangle test, measured on a sample of the particles, times n(n-1)/2.
    pub brute_force_ms: Option<f64>,
    /// The world's width in world units.
    pub world_width: f32,
}

/// Reads one series of the curve from a point: its step, draw, frame or brute-force time.
pub type Series = fn(&Point) -> Option<f64>;

/// One frame's (or step's) times, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// The step, if one ran.
    pub step_ms: Option<f64>,
    /// The drawing (windowed).
    pub draw_ms: Option<f64>,
    /// The frame interval (windowed).
    pub frame_ms: Option<f64>,
}

/// The ramp's state: what it adds next, the open window, the points so far.
#[derive(Debug)]
pub struct Ramp {
    budget_ms: f64,
    measure: Measure,
    /// Particles owed: a fractional share accumulates until a whole one is due.
    debt: f64,
    /// The open window's samples, kept to take medians (capacity for one window: no
    /// allocation per frame).
    step: Vec<f64>,
    draw: Vec<f64>,
    frame: Vec<f64>,
    /// Frames in the open window, and the count at its middle frame.
    frames: usize,
    middle: usize,
    points: Vec<Point>,
    max_particles: usize,
    stopped: Option<Stop>,
    /// Frames still to pass before the first window: a window's first frames include its
    /// start (and a button's press), which the count has no part in.
    settling: usize,
    /// Brute force's time per pair test, from the first point that had an estimate.
    ms_per_pair: Option<f64>,
    /// Whether the last window missed the budget: a second miss in a row stops the ramp.
    missed_last: bool,
}

impl Ramp {
    /// A ramp that bounds `measure` by `budget_ms`.
    pub fn new(budget_ms: f64, measure: Measure) -> Self {
        Ramp {
            budget_ms,
            measure,
            debt: 0.0,
            step: Vec::with_capacity(WINDOW_FRAMES),
            draw: Vec::with_capacity(WINDOW_FRAMES),
            frame: Vec::with_capacity(WINDOW_FRAMES),
            frames: 0,
            middle: 0,
            points: Vec::new(),
            max_particles: 0,
            stopped: None,
            settling: match measure {
                Measure::Frame => SETTLE_FRAMES,
                Measure::Step => 0,
            },
            ms_per_pair: None,
            missed_last: false,
        }
    }

    /// The budget, in milliseconds.
    pub fn budget_ms(&self) -> f64 {
        self.budget_ms
    }

    /// What the budget bounds.
    pub fn measure(&self) -> Measure {
        self.measure
    }

    /// The median a window may reach and still hold: the budget, plus [`FRAME_SLACK`] for
    /// frames.
    pub fn miss_above_ms(&self) -> f64 {
        match self.measure {
            Measure::Frame => self.budget_ms * (1.0 + FRAME_SLACK),
            Measure::Step => self.budget_ms,
        }
    }

    /// Particles to add this frame at `count`: a sixtieth of a second's rate, which is
    /// [`GROWTH_PER_SECOND`] of the count or [`MIN_RATE`], whichever is more. Depends on the
    /// count and the frames so far alone, never on the clock.
    pub fn due(&mut self, count: usize) -> usize {
        if self.stopped.is_some() || self.settling > 0 {
            return 0;
        }
        let rate = (count as f64 * GROWTH_PER_SECOND).max(MIN_RATE);
        self.debt += rate / WINDOW_FRAMES as f64;
        let n = self.debt.floor();
        self.debt -= n;
        n as usize
    }

    /// Records one frame at `count` particles in a world `world_width` wide. At the end of
    /// a window, adds its point (`brute_force_ms` estimates brute force at the point's count)
    /// and returns it; stops the ramp if the point misses the budget.
    pub fn record(
        &mut self,
        sample: Sample,
        count: usize,
        world_width: f32,
        brute_force_ms: impl FnOnce(usize) -> Option<f64>,
    ) -> Option<Point> {
        if self.stopped.is_some() {
            return None;
        }
        if self.settling > 0 {
            self.settling -= 1;
            return None;
        }
        for (values, value) in [
            (&mut self.step, sample.step_ms),
            (&mut self.draw, sample.draw_ms),
            (&mut self.frame, sample.frame_ms),
        ] {
            if let Some(v) = value.filter(|v| v.is_finite()) {
                values.push(v);
            }
        }
        self.frames += 1;
        if self.frames == WINDOW_FRAMES / 2 {
            self.middle = count;
        }
        if self.frames < WINDOW_FRAMES {
            return None;
        }
        // One timed pair test for the whole curve (the first the estimate gives): timed
        // again for each point, the host's noise would bend a line that only grows with n².
        let pairs = |n: usize| n as f64 * (n as f64 - 1.0).max(0.0) / 2.0;
        let brute_force_ms = match self.ms_per_pair {
            Some(per_pair) => Some(per_pair * pairs(self.middle)),
            None => {
                let ms = brute_force_ms(self.middle);
                if let Some(ms) = ms.filter(|_| self.middle >= 2) {
                    self.ms_per_pair = Some(ms / pairs(self.middle));
                }
                ms
            }
        };
        let point = Point {
            particles: self.middle,
            step_ms: percentile(&mut self.step, 0.5),
            draw_ms: percentile(&mut self.draw, 0.5),
            frame_ms: percentile(&mut self.frame, 0.5),
            brute_force_ms,
            world_width,
        };
        self.step.clear();
        self.draw.clear();
        self.frame.clear();
        self.frames = 0;
        let measured = match self.measure {
            Measure::Frame => point.frame_ms,
            Measure::Step => point.step_ms,
        };
        match measured {
            Some(ms) if ms > self.miss_above_ms() => {
                if self.missed_last {
                    self.stopped = Some(Stop::Budget);
                }
                self.missed_last = true;
            }
            Some(_) => {
                self.missed_last = false;
                self.max_particles = self.max_particles.max(point.particles);
            }
            // A window with nothing measured (paused throughout) neither holds nor misses.
            None => {}
        }
        self.points.push(point);
        Some(point)
    }

    /// Stops the ramp for `why` (the first reason stands).
    pub fn stop(&mut self, why: Stop) {
        self.stopped.get_or_insert(why);
    }

    /// Why the ramp stopped, or `None` while it runs.
    pub fn stopped(&self) -> Option<Stop> {
        self.stopped
    }

    /// The largest count a window held within the budget (0 if none did).
    pub fn max_particles(&self) -> usize {
        self.max_particles
    }

    /// The curve's points so far, oldest first.
    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// The lines that open the report: the budget and what it bounds.
    pub fn header_lines(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "ramp.measure: {}", self.measure.name());
        let _ = writeln!(s, "ramp.budget: {:.3} ms", self.budget_ms);
        let _ = writeln!(s, "ramp.miss_above: {:.3} ms", self.miss_above_ms());
        let _ = writeln!(s, "ramp.window: {WINDOW_FRAMES} frames");
        s
    }

    /// The report's lines for the point numbered `index`.
    pub fn point_lines(index: usize, p: &Point) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "ramp.point.{index}.particles: {} count", p.particles);
        for (name, value) in [
            ("step", p.step_ms),
            ("draw", p.draw_ms),
            ("frame", p.frame_ms),
            ("brute_force_pairs_estimate", p.brute_force_ms),
        ] {
            if let Some(ms) = value {
                let _ = writeln!(s, "ramp.point.{index}.{name}: {ms:.3} ms");
            }
        }
        let _ = writeln!(s, "ramp.point.{index}.world_width: {} units", p.world_width);
        s
    }

    /// The lines that close the report: why it stopped and the largest count held.
    pub fn summary_lines(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "ramp.points: {} points", self.points.len());
        let why = self.stopped.map_or("running", Stop::name);
        let _ = writeln!(s, "ramp.stopped_by: {why}");
        let _ = writeln!(s, "ramp.max_particles: {} count", self.max_particles);
        s
    }

    /// The curve as CSV: a header and one row per point; a time not measured is empty.
    pub fn csv(&self) -> String {
        let mut s = String::from(
            "particles,step_ms,draw_ms,frame_ms,brute_force_pairs_estimate_ms,world_width\n",
        );
        let cell = |v: Option<f64>| v.map_or(String::new(), |ms| format!("{ms:.4}"));
        for p in &self.points {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{}",
                p.particles,
                cell(p.step_ms),
                cell(p.draw_ms),
                cell(p.frame_ms),
                cell(p.brute_force_ms),
                p.world_width
            );
        }
        s
    }
}

/// The window's ramp: the budget a new one gets, the one running or done, and whether its
/// chart is on screen.
#[derive(Debug)]
pub struct RampRun {
    /// `--budget-ms`.
    pub budget_ms: f64,
    /// The ramp running, or the last one, done.
    pub ramp: Option<Ramp>,
    /// Whether the chart shows.
    pub shown: bool,
    /// Particles at the ramp's last frame, for the chart's title.
    pub count: usize,
}

impl RampRun {
    /// No ramp yet; a new one gets `budget_ms`.
    pub fn new(budget_ms: f64) -> Self {
        RampRun {
            budget_ms,
            ramp: None,
            shown: false,
            count: 0,
        }
    }

    /// Starts a ramp measuring frames, its chart shown.
    pub fn start(&mut self) {
        self.ramp = Some(Ramp::new(self.budget_ms, Measure::Frame));
        self.shown = true;
    }

    /// The ramp's key and button: starts a ramp, stops a running one, or closes the chart
    /// of one that is done. Returns what it did, for a message.
    pub fn toggle(&mut self) -> &'static str {
        match &mut self.ramp {
            Some(r) if r.stopped().is_none() => {
                r.stop(Stop::User);
                "ramp stopped"
            }
            Some(_) if self.shown => {
                self.shown = false;
                "ramp chart closed"
            }
            _ => {
                self.start();
                "ramp: adding particles until frames miss the budget two seconds in a row"
            }
        }
    }
}

/// Checks before any work that the `--csv` and `--plot` files come with `--ramp` and can be
/// written, so that a long ramp does not end in a refused write; the files themselves are
/// left as they are until the ramp writes them (see `files`). A page writes no files.
pub fn check_outputs(csv: Option<&Path>, plot: Option<&Path>, ramp: bool) -> Result<(), String> {
    if !ramp && (csv.is_some() || plot.is_some()) {
        return Err("--csv and --plot write the ramp's curve: add --ramp".to_owned());
    }
    for path in [csv, plot].into_iter().flatten() {
        if cfg!(target_arch = "wasm32") {
            return Err("a page cannot write files: --csv and --plot are for the desktop".into());
        }
        crate::settings::files::check_writable(path)?;
    }
    Ok(())
}

/// The next world when `sim`'s is full: twice the area, from the same top-left corner.
pub fn wider(world: Rect) -> Rect {
    let k = std::f32::consts::SQRT_2;
    Rect::from_min_size(
        world.min_x,
        world.min_y,
        (world.width() * k).ceil(),
        (world.height() * k).ceil(),
    )
}

/// A simulation like `sim` (settings, threads, broad phase) in `world` with room for `cap`
/// particles, holding `sim`'s particles at their places, at rest.
///
/// # Errors
/// The simulation's, for a world or cap it refuses.
pub fn regrow(sim: &Simulation, world: Rect, cap: usize) -> Result<Simulation, SimError> {
    // The settings carry the thread count.
    let mut grown = Simulation::new(SimConfig {
        world,
        max_particles: cap.max(sim.len()),
        ..*sim.config()
    })?;
    grown.set_broadphase(sim.broadphase());
    for p in sim.particles() {
        // A stream of one with no spread and no speed: one particle at rest at (x, y).
        grown.spawn_stream(p.x, p.y, 1, 0.0, 0.0)?;
    }
    Ok(grown)
}

/// The smallest and largest of `values`, if any is positive (a log axis shows no zero).
pub fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(None, |b, v| match b {
            None => Some((v, v)),
            Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
        })
}

/// Whether a log axis labels its tick at `v`: 1, 2 and 5 times a power of ten only. Every
/// tick of a decade labelled ran together ("7000 8000900010k").
#[cfg_attr(
    target_arch = "wasm32",
    expect(dead_code, reason = "the PNG and SVG charts are desktop only")
)]
pub fn labelled_tick(v: f64) -> bool {
    if !(v.is_finite() && v > 0.0) {
        return false;
    }
    let mantissa = v / 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|m| (mantissa / m - 1.0).abs() < 1e-6)
}

/// A count as the axis shows it: 1500, 25k, 1.2M.
pub fn count_label(n: f64) -> String {
    if n >= 1e6 {
        format!("{}M", trim(n / 1e6))
    } else if n >= 1e4 {
        format!("{}k", trim(n / 1e3))
    } else {
        format!("{n:.0}")
    }
}

/// Milliseconds as the axis shows them: 0.05, 2, 1500.
pub fn ms_label(ms: f64) -> String {
    if ms >= 10.0 {
        format!("{ms:.0}")
    } else {
        trim(ms)
    }
}

/// A count with thousands separated: 1,150,156.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut s = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            s.push(',');
        }
        s.push(c);
    }
    s
}

/// Two significant decimals at most, no trailing zeros.
fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(ms: f64) -> Sample {
        Sample {
            step_ms: Some(ms / 2.0),
            draw_ms: Some(ms / 4.0),
            frame_ms: Some(ms),
        }
    }

    #[test]
    fn what_is_added_depends_on_the_count_alone() {
        let mut a = Ramp::new(16.7, Measure::Step);
        let mut b = Ramp::new(1.0, Measure::Step);
        let (mut na, mut nb) = (0, 0);
        for _ in 0..600 {
            na += a.due(na);
            nb += b.due(nb);
        }
        assert_eq!(na, nb);
        // Ten seconds: at least the minimum rate, and growing by about a fifth a second.
        assert!(na as f64 >= 10.0 * MIN_RATE, "{na}");
        let mut r = Ramp::new(16.7, Measure::Step);
        let added: usize = (0..WINDOW_FRAMES).map(|_| r.due(100_000)).sum();
        // A fifth of the count a second, less a particle of rounding still owed.
        assert!((19_999..=20_000).contains(&added), "{added}");
    }

    #[test]
    fn the_ramp_holds_while_the_median_meets_the_budget_and_stops_at_the_first_miss() {
        let mut r = Ramp::new(16.7, Measure::Frame);
        // The first second settles: slow frames there count for nothing, nothing is added.
        for _ in 0..SETTLE_FRAMES {
            assert_eq!(r.due(1000), 0);
            assert_eq!(r.record(frame(500.0), 1000, 3072.0, |_| None), None);
        }
        assert!(r.due(1000) > 0);
        let mut count = 1000;
        let mut points = Vec::new();
        // Windows at 10, 17 (inside the slack), 30 (one slow second: not yet the limit),
        // 10, then 30 and 30: the second slow second in a row stops it.
        for ms in [10.0, 17.0, 30.0, 10.0, 30.0, 30.0, 10.0] {
            for i in 0..WINDOW_FRAMES {
                // A few slow frames do not decide a window: the median does.
                let ms = if i % 10 == 0 { 100.0 } else { ms };
                count += 10;
                if let Some(p) = r.record(frame(ms), count, 3072.0, |n| Some(n as f64)) {
                    points.push(p);
                }
            }
        }
        assert_eq!(points.len(), 6, "nothing is recorded after the stop");
        assert_eq!(r.stopped(), Some(Stop::Budget));
        // The fourth window held, after the lone slow third: the largest count held.
        assert_eq!(r.max_particles(), points[3].particles);
        assert_eq!(points[0].particles, 1000 + 10 * (WINDOW_FRAMES / 2));
        assert_eq!(points[2].frame_ms, Some(30.0));
        assert_eq!(points[1].step_ms, Some(8.5));
        // The first estimate as it came; later points scale its time per pair.
        assert_eq!(points[0].brute_force_ms, Some(points[0].particles as f64));
        assert_eq!(r.due(5000), 0, "a stopped ramp adds nothing");
        let summary = r.summary_lines();
        assert!(summary.contains("ramp.stopped_by: budget\n"), "{summary}");
        let max = format!("ramp.max_particles: {} count\n", points[3].particles);
        assert!(summary.contains(&max), "{summary}");
    }

    /// The brute-force line uses the first estimate's time per pair for every point, so it
    /// rises with the count however the later estimates wander (they used to be re-timed
    /// per point, and the line went down between points on a noisy host).
    #[test]
    fn the_brute_force_line_keeps_its_first_time_per_pair() {
        let mut r = Ramp::new(1e6, Measure::Step);
        // Estimates that fall as the count grows: a host that got quieter.
        let noisy = [None, Some(4.0), Some(1.0), Some(0.5), Some(0.25)];
        let mut points = Vec::new();
        for (w, estimate) in noisy.into_iter().enumerate() {
            for _ in 0..WINDOW_FRAMES {
                let sample = Sample {
                    step_ms: Some(1.0),
                    ..Sample::default()
                };
                if let Some(p) = r.record(sample, 1000 * (w + 1), 800.0, |_| estimate) {
                    points.push(p);
                }
            }
        }
        assert_eq!(points[0].brute_force_ms, None, "no timing yet");
        assert_eq!(
            points[1].brute_force_ms,
            Some(4.0),
            "the first timing as it came"
        );
        let per_pair = 4.0 / (2000.0 * 1999.0 / 2.0);
        for p in &points[2..] {
            let n = p.particles as f64;
            let expected = per_pair * n * (n - 1.0) / 2.0;
            assert!(
                (p.brute_force_ms.unwrap() / expected - 1.0).abs() < 1e-12,
                "{p:?}"
            );
        }
        let line: Vec<f64> = points.iter().filter_map(|p| p.brute_force_ms).collect();
        assert!(line.windows(2).all(|w| w[0] < w[1]), "{line:?}");
    }

    #[test]
    fn a_headless_ramp_has_no_slack_and_measures_the_step() {
        let mut r = Ramp::new(1.0, Measure::Step);
        assert_eq!(r.miss_above_ms(), 1.0);
        for window in 0..2 {
            // One slow second is not the limit; the second in a row is.
            assert_eq!(r.stopped(), None, "window {window}");
            for _ in 0..WINDOW_FRAMES {
                let sample = Sample {
                    step_ms: Some(1.01),
                    ..Sample::default()
                };
                r.record(sample, 500, 800.0, |_| None);
            }
        }
        assert_eq!(r.stopped(), Some(Stop::Budget));
        assert_eq!(r.max_particles(), 0);
        let lines = Ramp::point_lines(0, &r.points()[0]);
        assert!(lines.contains("ramp.point.0.step: 1.010 ms\n"), "{lines}");
        assert!(!lines.contains("draw"), "{lines}");
    }

    #[test]
    fn the_csv_has_a_row_per_point_with_empty_cells_for_what_was_not_measured() {
        let mut r = Ramp::new(5.0, Measure::Step);
        for w in 0..3 {
            for _ in 0..WINDOW_FRAMES {
                let sample = Sample {
                    step_ms: Some(1.0 + w as f64),
                    ..Sample::default()
                };
                r.record(sample, 100 * (w + 1), 800.0, |_| Some(0.5));
            }
        }
        let csv = r.csv();
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows.len(), 4, "{csv}");
        assert_eq!(rows[1], "100,1.0000,,,0.5000,800");
        // The first point's 0.5 ms, scaled by the pairs: 300 * 299 against 100 * 99.
        let scaled = 0.5 * (300.0 * 299.0) / (100.0 * 99.0);
        assert_eq!(rows[3], format!("300,3.0000,,,{scaled:.4},800"));
        assert!(rows.iter().all(|r| r.split(',').count() == 6));
    }

    #[test]
    fn a_regrown_world_keeps_every_particle_in_its_place() {
        let mut sim = Simulation::new(SimConfig {
            world: Rect::new(0.0, 0.0, 800.0, 600.0),
            max_particles: 1000,
            seed: 3,
            ..SimConfig::default()
        })
        .unwrap();
        sim.set_threads(2).unwrap();
        sim.spawn_burst(1000).unwrap();
        let world = wider(sim.config().world);
        assert_eq!((world.width(), world.height()), (1132.0, 849.0));
        let grown = regrow(&sim, world, 2000).unwrap();
        assert_eq!(grown.len(), 1000);
        assert_eq!(grown.config().max_particles, 2000);
        assert_eq!(grown.threads(), 2);
        let places = |s: &Simulation| -> Vec<(f32, f32)> {
            s.particles().iter().map(|p| (p.x, p.y)).collect()
        };
        assert_eq!(places(&grown), places(&sim));
        assert!(grown.particles().iter().all(|p| p.vx == 0.0 && p.vy == 0.0));
        grown.tree().validate().unwrap();
    }

    impl RampRun {
        fn running(&self) -> bool {
            self.ramp.as_ref().is_some_and(|r| r.stopped().is_none())
        }
    }

    #[test]
    fn the_ramp_key_starts_stops_and_closes() {
        let mut run = RampRun::new(16.7);
        assert!(!run.running() && !run.shown);
        assert!(run.toggle().starts_with("ramp: adding"));
        assert!(run.running() && run.shown);
        assert_eq!(run.ramp.as_ref().unwrap().measure(), Measure::Frame);
        assert_eq!(run.toggle(), "ramp stopped");
        assert_eq!(run.ramp.as_ref().unwrap().stopped(), Some(Stop::User));
        assert!(!run.running() && run.shown, "the chart stays");
        assert_eq!(run.toggle(), "ramp chart closed");
        assert!(!run.shown);
        assert!(run.toggle().starts_with("ramp: adding"), "and starts over");
        assert!(run.running() && run.ramp.as_ref().unwrap().points().is_empty());
    }

    #[test]
    fn only_one_two_and_five_times_a_power_of_ten_are_labelled() {
        for v in [
            1.0, 2.0, 5.0, 10.0, 0.02, 0.5, 1000.0, 2000.0, 5000.0, 10_000.0, 1e6,
        ] {
            assert!(labelled_tick(v), "{v}");
        }
        for v in [
            3.0,
            0.07,
            7000.0,
            8000.0,
            9000.0,
            40_000.0,
            0.0,
            -1.0,
            f64::NAN,
        ] {
            assert!(!labelled_tick(v), "{v}");
        }
    }

    #[test]
    fn axis_labels_are_short() {
        assert_eq!(count_label(1500.0), "1500");
        assert_eq!(count_label(25_000.0), "25k");
        assert_eq!(count_label(1_250_000.0), "1.25M");
        assert_eq!(ms_label(0.05), "0.05");
        assert_eq!(ms_label(2.0), "2");
        assert_eq!(ms_label(1500.0), "1500");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_150_156), "1,150,156");
    }
}
