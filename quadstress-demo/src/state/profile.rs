//! The window's frame times, recorded once a frame into one [`Profile`]: the frame-time
//! graph and the FPS, and the frame's phases shown like Box2D's profile (each phase's last
//! value, its average `[ ]` and its maximum `( )` over [`WINDOW_SECONDS`] of real time). A
//! scripted run's summary takes the same [`FrameTimes`].

use quadstress_sim::Phase;

use crate::settings::GRAPH_FRAMES;

/// The span of real time the HUD's last, `[mean]` and `(max)` cover, in seconds: the same
/// three seconds at 60 FPS and at 3 (a count of frames covered a minute at 3 FPS).
pub const WINDOW_SECONDS: f64 = 3.0;
/// Values a series keeps: three seconds at up to 240 FPS (beyond, the last 720 frames).
const KEPT: usize = 720;

/// One phase's values of the last [`WINDOW_SECONDS`] of real time, in milliseconds, each
/// with the clock's time when it was taken; a fixed ring, nothing allocated per frame.
#[derive(Clone, Debug)]
pub struct Series {
    at: [f64; KEPT],
    ms: [f32; KEPT],
    next: usize,
    len: usize,
}

impl Default for Series {
    fn default() -> Self {
        Series {
            at: [0.0; KEPT],
            ms: [0.0; KEPT],
            next: 0,
            len: 0,
        }
    }
}

impl Series {
    /// Adds a value taken at `at` seconds on the clock, dropping the oldest once full.
    pub fn push(&mut self, at: f64, ms: f64) {
        self.at[self.next] = at;
        self.ms[self.next] = ms as f32;
        self.next = (self.next + 1) % KEPT;
        self.len = (self.len + 1).min(KEPT);
    }

    /// The latest value, and the mean and maximum of the values of the last
    /// [`WINDOW_SECONDS`] before `now` (the latest always among them; zeros when empty).
    pub fn last_mean_max(&self, now: f64) -> (f32, f32, f32) {
        if self.len == 0 {
            return (0.0, 0.0, 0.0);
        }
        let newest = (self.next + KEPT - 1) % KEPT;
        let (mut sum, mut max, mut n) = (0.0f32, 0.0f32, 0usize);
        for back in 0..self.len {
            let i = (newest + KEPT - back) % KEPT;
            if back > 0 && now - self.at[i] >= WINDOW_SECONDS {
                break;
            }
            sum += self.ms[i];
            max = max.max(self.ms[i]);
            n += 1;
        }
        (self.ms[newest], sum / n as f32, max)
    }
}

/// One frame's times, in seconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameTimes {
    /// From this frame's start to the last one's, pacing sleep included.
    pub frame: f64,
    /// The sleep that paced the last frame.
    pub slept: f64,
    /// The CPU part of drawing this frame plus the last frame's hand-over to OpenGL.
    pub draw: f64,
    /// The last frame's hand-over to OpenGL.
    pub present: f64,
    /// Waiting for the last frame's steps.
    pub step_wait: f64,
    /// From the last frame's steps coming back to this frame's starting them, when they run
    /// beside the drawing.
    pub before_steps: Option<f64>,
    /// The last of the steps that came back this frame.
    pub step: Option<f64>,
}

/// The frame times of the last [`GRAPH_FRAMES`] frames, in milliseconds.
#[derive(Clone, Debug)]
pub struct FrameGraph {
    ms: [f32; GRAPH_FRAMES],
    /// Frames recorded so far; the next one goes at `recorded % GRAPH_FRAMES`.
    recorded: usize,
}

impl FrameGraph {
    pub fn new() -> Self {
        FrameGraph {
            ms: [0.0; GRAPH_FRAMES],
            recorded: 0,
        }
    }

    /// Records a frame time.
    pub fn record(&mut self, seconds: f32) {
        self.ms[self.recorded % GRAPH_FRAMES] = seconds * 1e3;
        self.recorded += 1;
    }

    /// The kept frame times, oldest first (zeros before the first frames).
    pub fn oldest_first(&self) -> impl Iterator<Item = f32> + '_ {
        (0..GRAPH_FRAMES).map(move |i| self.ms[(self.recorded + i) % GRAPH_FRAMES])
    }

    /// The mean of the last frames that span `span_ms` of real time (the frame that crosses
    /// it included; at most the kept ones), 0 before the first: the same second at 60 FPS
    /// and at 3.
    pub fn mean_over_ms(&self, span_ms: f32) -> f32 {
        let kept = self.recorded.min(GRAPH_FRAMES);
        let (mut sum, mut n) = (0.0f32, 0usize);
        while n < kept && (n == 0 || sum < span_ms) {
            n += 1;
            sum += self.ms[(self.recorded + GRAPH_FRAMES - n) % GRAPH_FRAMES];
        }
        if n == 0 {
            0.0
        } else {
            sum / n as f32
        }
    }

    /// The slowest kept frame time.
    pub fn slowest_ms(&self) -> f32 {
        self.ms.iter().copied().fold(0.0, f32::max)
    }
}

/// Per-frame timings of the window's work.
#[derive(Clone, Debug)]
pub struct Profile {
    /// The last frames' times, for the graph and the FPS.
    pub frames: FrameGraph,
    /// One simulation step (the last step of a frame that ran several).
    pub step: Series,
    /// Each of its phases, in [`Phase::ALL`] order: a phase the simulation adds shows up by
    /// itself.
    pub phases: [Series; Phase::ALL.len()],
    /// Building the frame on the CPU: colours, the canvas or the instances, the HUD.
    pub draw: Series,
    /// Handing the frame to OpenGL and showing it (`next_frame`).
    pub present: Series,
    /// Waiting for steps that ran beside the drawing to finish.
    pub step_wait: Series,
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            frames: FrameGraph::new(),
            step: Series::default(),
            phases: Default::default(),
            draw: Series::default(),
            present: Series::default(),
            step_wait: Series::default(),
        }
    }
}

impl Profile {
    /// Records the times of the frame that began at `at` on the clock: the graph's frame
    /// time and the HUD's drawing, hand-over and waiting for the steps.
    pub fn record(&mut self, at: f64, t: &FrameTimes) {
        self.frames.record(t.frame as f32);
        self.draw.push(at, t.draw * 1e3);
        self.present.push(at, t.present * 1e3);
        self.step_wait.push(at, t.step_wait * 1e3);
    }

    /// Every phase of the step by its report name with its mean `[ ]` at `now`, three to a
    /// line, each line starting with a newline and an indent.
    pub fn phase_means(&self, now: f64, out: &mut String) {
        use std::fmt::Write;
        for (k, (phase, series)) in Phase::ALL.iter().zip(&self.phases).enumerate() {
            let (_, mean, _) = series.last_mean_max(now);
            let gap = if k % 3 == 0 { "\n " } else { "" };
            let _ = write!(out, "{gap} {} [{mean:.1}]", phase.name());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The HUD's FPS covers the last second of real time: 60 frames at 60 FPS, 3 at 3 FPS
    /// (60 frames at 3 FPS reached 20 s back).
    #[test]
    fn the_frame_rate_covers_the_last_second_whatever_the_rate() {
        let mut graph = FrameGraph::new();
        assert_eq!(graph.mean_over_ms(1000.0), 0.0);
        for _ in 0..100 {
            graph.record(1.0 / 60.0);
        }
        assert!((graph.mean_over_ms(1000.0) - 1000.0 / 60.0).abs() < 1e-3);
        for _ in 0..3 {
            graph.record(1.0 / 3.0);
        }
        assert!((graph.mean_over_ms(1000.0) - 1000.0 / 3.0).abs() < 1e-2);
        // Fewer frames than the span: the ones there are.
        let mut young = FrameGraph::new();
        young.record(0.010);
        young.record(0.030);
        assert!((young.mean_over_ms(1000.0) - 20.0).abs() < 1e-4);
    }

    /// One record feeds the graph and the HUD's series alike.
    #[test]
    fn a_frame_is_recorded_for_the_graph_and_the_hud() {
        let mut p = Profile::default();
        let t = FrameTimes {
            frame: 0.020,
            draw: 0.006,
            present: 0.002,
            step_wait: 0.001,
            ..FrameTimes::default()
        };
        p.record(5.0, &t);
        assert!((p.frames.mean_over_ms(1000.0) - 20.0).abs() < 1e-4);
        let close = |(last, _, _): (f32, f32, f32), ms: f32| (last - ms).abs() < 1e-4;
        assert!(close(p.draw.last_mean_max(5.0), 6.0));
        assert!(close(p.present.last_mean_max(5.0), 2.0));
        assert!(close(p.step_wait.last_mean_max(5.0), 1.0));
    }

    #[test]
    fn the_phase_means_name_every_phase_of_the_step() {
        let mut p = Profile::default();
        for (k, series) in p.phases.iter_mut().enumerate() {
            series.push(1.0, k as f64 + 0.25);
        }
        let mut out = String::new();
        p.phase_means(1.0, &mut out);
        for (k, phase) in Phase::ALL.iter().enumerate() {
            let shown = format!(" {} [{:.1}]", phase.name(), k as f64 + 0.25);
            assert!(out.contains(&shown), "{shown:?} missing from {out:?}");
        }
        assert_eq!(out.lines().count(), 1 + Phase::ALL.len().div_ceil(3));
    }

    #[test]
    fn a_series_keeps_the_last_three_seconds_mean_and_max() {
        let mut s = Series::default();
        assert_eq!(s.last_mean_max(0.0), (0.0, 0.0, 0.0));
        s.push(10.0, 2.0);
        s.push(10.5, 4.0);
        assert_eq!(s.last_mean_max(10.5), (4.0, 3.0, 4.0));
        // Three seconds at 60 FPS of 1 ms: the 2 and the 4 have left the window.
        for f in 1..=180 {
            s.push(10.5 + f as f64 / 60.0, 1.0);
        }
        assert_eq!(s.last_mean_max(13.5), (1.0, 1.0, 1.0));
    }

    /// At 3 FPS the window is still three seconds: nine frames, not the 180 of 60 FPS (the
    /// means of a slow window used to reach a minute back, to the fast frames).
    #[test]
    fn a_slow_frame_rate_keeps_three_seconds_too() {
        let mut s = Series::default();
        // A minute at 60 FPS of 5 ms, then 3 FPS of 300 ms.
        for f in 0..3600 {
            s.push(f as f64 / 60.0, 5.0);
        }
        let mut now = 60.0;
        for _ in 0..12 {
            now += 1.0 / 3.0;
            s.push(now, 300.0);
        }
        assert_eq!(s.last_mean_max(now), (300.0, 300.0, 300.0));
        // A value older than the window is left out even when it is all there is but the
        // latest: the latest always counts.
        let mut lone = Series::default();
        lone.push(0.0, 50.0);
        lone.push(10.0, 10.0);
        assert_eq!(lone.last_mean_max(10.0), (10.0, 10.0, 10.0));
        assert_eq!(lone.last_mean_max(20.0), (10.0, 10.0, 10.0));
    }
}
