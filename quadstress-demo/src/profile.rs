//! The frame's phases over the last frames, shown like Box2D's profile: each phase's last
//! value, its average `[ ]` and its maximum `( )`.

use quadstress_sim::Phase;

use super::settings::GRAPH_FRAMES;

/// The last [`GRAPH_FRAMES`] values of one phase, in milliseconds.
#[derive(Clone, Debug)]
pub struct Series {
    ms: [f32; GRAPH_FRAMES],
    next: usize,
    len: usize,
}

impl Default for Series {
    fn default() -> Self {
        Series {
            ms: [0.0; GRAPH_FRAMES],
            next: 0,
            len: 0,
        }
    }
}

impl Series {
    /// Adds a value, dropping the oldest once full.
    pub fn push(&mut self, ms: f64) {
        self.ms[self.next] = ms as f32;
        self.next = (self.next + 1) % GRAPH_FRAMES;
        self.len = (self.len + 1).min(GRAPH_FRAMES);
    }

    /// The latest value, its mean and its maximum over the kept values (zeros when empty).
    pub fn last_mean_max(&self) -> (f32, f32, f32) {
        if self.len == 0 {
            return (0.0, 0.0, 0.0);
        }
        let last = self.ms[(self.next + GRAPH_FRAMES - 1) % GRAPH_FRAMES];
        let kept = &self.ms[..self.len];
        let mean = kept.iter().sum::<f32>() / self.len as f32;
        let max = kept.iter().copied().fold(0.0, f32::max);
        (last, mean, max)
    }
}

/// Per-frame timings of the window's work.
#[derive(Clone, Debug, Default)]
pub struct Profile {
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

impl Profile {
    /// Every phase of the step by its report name with its mean `[ ]`, three to a line, each
    /// line starting with a newline and an indent.
    pub fn phase_means(&self, out: &mut String) {
        use std::fmt::Write;
        for (k, (phase, series)) in Phase::ALL.iter().zip(&self.phases).enumerate() {
            let (_, mean, _) = series.last_mean_max();
            let gap = if k % 3 == 0 { "\n " } else { "" };
            let _ = write!(out, "{gap} {} [{mean:.1}]", phase.name());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phase_means_name_every_phase_of_the_step() {
        let mut p = Profile::default();
        for (k, series) in p.phases.iter_mut().enumerate() {
            series.push(k as f64 + 0.25);
        }
        let mut out = String::new();
        p.phase_means(&mut out);
        for (k, phase) in Phase::ALL.iter().enumerate() {
            let shown = format!(" {} [{:.1}]", phase.name(), k as f64 + 0.25);
            assert!(out.contains(&shown), "{shown:?} missing from {out:?}");
        }
        assert_eq!(out.lines().count(), 1 + Phase::ALL.len().div_ceil(3));
    }

    #[test]
    fn a_series_keeps_the_last_frames_mean_and_max() {
        let mut s = Series::default();
        assert_eq!(s.last_mean_max(), (0.0, 0.0, 0.0));
        s.push(2.0);
        s.push(4.0);
        assert_eq!(s.last_mean_max(), (4.0, 3.0, 4.0));
        for _ in 0..GRAPH_FRAMES {
            s.push(1.0);
        }
        // The 2 and the 4 have left the window.
        assert_eq!(s.last_mean_max(), (1.0, 1.0, 1.0));
    }
}
