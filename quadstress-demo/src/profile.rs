//! The frame's phases over the last frames, shown like Box2D's profile: each phase's last
//! value, its average `[ ]` and its maximum `( )`.

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
    /// One simulation step, and its phases (the last step of a frame that ran several).
    pub step: Series,
    pub update: Series,
    pub pairs: Series,
    pub resolve: Series,
    /// Building the frame on the CPU: colours, the canvas or the instances, the HUD.
    pub draw: Series,
    /// Handing the frame to OpenGL and showing it (`next_frame`).
    pub present: Series,
    /// Waiting for steps that ran beside the drawing to finish.
    pub step_wait: Series,
}

#[cfg(test)]
mod tests {
    use super::*;

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
