//! The fixed-step driver: turns the real time a window measured into a whole number of fixed
//! simulation steps, with a cap so that a machine too slow for real time slows the world down
//! smoothly instead of spiralling. Pure arithmetic on the seconds it is handed: it reads no
//! clock, so it is tested without one and runs the same natively and in a web page.

use super::config::Setting;
use super::SimError;

/// Simulated seconds per step of the demo and the headless mode: one step per frame of a
/// 60 Hz display. A step costs one broad phase; the solver's shock pass carries a stack's
/// support up the whole pile within a step, so piles hold at this step without substeps,
/// and a headless frame (one step) stays 1/60 s of simulated time.
pub const STEP_SECONDS: f32 = 1.0 / 60.0;

/// Steps one frame may run at most by default: a frame that took longer than four steps of
/// simulated time drops the rest, so the world runs slower than real time instead of asking
/// the next frame for even more steps.
pub const DEFAULT_MAX_STEPS_PER_FRAME: u32 = 4;

/// How long the speed estimate of [`FixedStep::speed`] averages over, in real seconds.
const SPEED_WINDOW_SECONDS: f64 = 0.5;

/// Decides how many fixed steps each frame runs, from the real time that passed.
///
/// The same seed and the same inputs, applied between the same steps, give the same
/// particles whatever the frame rate: only the number of steps per frame changes.
///
/// # Runtime
/// O(1) per frame; no allocation.
///
/// ```
/// use quadstress_sim::FixedStep;
/// let mut clock = FixedStep::new(1.0 / 60.0, 4).unwrap();
/// // A 120 Hz display: a step every other frame.
/// let steps: Vec<u32> = (0..4).map(|_| clock.advance(1.0 / 120.0)).collect();
/// assert_eq!(steps.iter().sum::<u32>(), 2);
/// // A frame that took a whole second runs 4 steps, not 60: the world slows down.
/// assert_eq!(clock.advance(1.0), 4);
/// assert!(clock.behind());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedStep {
    step: f64,
    max_steps: u32,
    /// Real time not yet simulated, always below one step after `advance`.
    backlog: f64,
    /// Real and simulated seconds in the current speed window.
    window_real: f64,
    window_simulated: f64,
    /// Simulated seconds per real second over the last full window.
    speed: f64,
    /// Whether the last frame dropped time.
    dropped: bool,
}

impl FixedStep {
    /// A driver of steps of `step_seconds`, running at most `max_steps_per_frame` per frame.
    ///
    /// # Errors
    /// [`SimError::BadSetting`] for a step that is not a positive finite number or a cap of
    /// zero.
    ///
    /// ```
    /// use quadstress_sim::FixedStep;
    /// assert!(FixedStep::new(1.0 / 60.0, 4).is_ok());
    /// assert!(FixedStep::new(0.0, 4).is_err());
    /// assert!(FixedStep::new(1.0 / 60.0, 0).is_err());
    /// ```
    pub fn new(step_seconds: f32, max_steps_per_frame: u32) -> Result<Self, SimError> {
        if !(step_seconds.is_finite() && step_seconds > 0.0) {
            return Err(SimError::BadSetting {
                setting: Setting::FixedStep,
                requirement: "the step must be a positive number of seconds",
            });
        }
        if max_steps_per_frame == 0 {
            return Err(SimError::BadSetting {
                setting: Setting::FixedStep,
                requirement: "a frame must be allowed at least one step",
            });
        }
        Ok(FixedStep {
            step: f64::from(step_seconds),
            max_steps: max_steps_per_frame,
            backlog: 0.0,
            window_real: 0.0,
            window_simulated: 0.0,
            speed: 1.0,
            dropped: false,
        })
    }

    /// The length of one step in simulated seconds: what to pass to
    /// [`Simulation::step`](super::Simulation::step).
    pub fn step_seconds(&self) -> f32 {
        self.step as f32
    }

    /// The most steps one frame runs.
    pub fn max_steps_per_frame(&self) -> u32 {
        self.max_steps
    }

    /// Adds the real seconds since the last frame and returns how many steps to run now.
    /// Time beyond [`max_steps_per_frame`](Self::max_steps_per_frame) steps is dropped (the
    /// world slows down); a negative, NaN or infinite duration counts as none, so a clock
    /// that jumps cannot stall or flood the simulation. A frame never runs more steps than
    /// its own time asks for (its whole steps, plus one that the part of a step carried from
    /// earlier frames completes): a frame with no time runs none, whatever came before,
    /// even a frame of `f64::MAX` seconds.
    ///
    /// ```
    /// use quadstress_sim::FixedStep;
    /// let mut clock = FixedStep::new(0.01, 3).unwrap();
    /// assert_eq!(clock.advance(0.025), 2); // 5 ms carried to the next frame
    /// assert_eq!(clock.advance(0.005), 1);
    /// assert_eq!(clock.advance(f64::NAN), 0);
    /// assert_eq!(clock.advance(-1.0), 0);
    /// assert_eq!(clock.advance(f64::INFINITY), 0);
    /// assert_eq!(clock.advance(f64::MAX), 3); // the cap: the rest is dropped
    /// assert_eq!(clock.advance(0.0), 0);
    /// ```
    pub fn advance(&mut self, real_seconds: f64) -> u32 {
        let real = if real_seconds.is_finite() && real_seconds > 0.0 {
            real_seconds
        } else {
            0.0
        };
        self.backlog += real;
        // A tolerance of a millionth of a step, so that frames of exactly one step (in `f64`
        // seconds, against a step rounded to `f32`) do not lose a step to rounding.
        let whole = ((self.backlog + self.step * 1e-6) / self.step).floor();
        let steps = whole.min(f64::from(self.max_steps)) as u32;
        self.dropped = whole > f64::from(self.max_steps);
        // Behind, the whole steps that could not run are gone, not owed to later frames: only
        // the part of a step stays. Over about a million steps behind, `backlog - whole *
        // step` would keep the rounding error of two huge numbers (many steps' worth, or NaN
        // past `f64::MAX`), so nothing stays then. What stays is kept below one step less the
        // tolerance, so that a frame with no time never runs a step.
        let rest = if whole <= f64::from(1u32 << 20) {
            self.backlog - whole * self.step
        } else {
            0.0
        };
        self.backlog = if rest > 0.0 {
            rest.min(self.step * (1.0 - 2e-6))
        } else {
            0.0
        };
        self.window_real += real;
        self.window_simulated += f64::from(steps) * self.step;
        if self.window_real >= SPEED_WINDOW_SECONDS {
            self.speed = self.window_simulated / self.window_real;
            self.window_real = 0.0;
            self.window_simulated = 0.0;
        }
        steps
    }

    /// Simulated seconds per real second, averaged over about half a second of frames: 1.0 at
    /// real speed, 0.5 when the world runs at half speed. Starts at 1.0.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Whether the simulation is falling behind real time: the last frame dropped time, or
    /// the last half second ran below 99% of real speed. A HUD shows
    /// [`speed`](Self::speed) then.
    pub fn behind(&self) -> bool {
        self.dropped || self.speed < 0.99
    }

    /// Forgets the time owed and the speed window, e.g. after a pause, so that the first frame
    /// after it does not run a burst of steps.
    pub fn reset(&mut self) {
        self.backlog = 0.0;
        self.window_real = 0.0;
        self.window_simulated = 0.0;
        self.speed = 1.0;
        self.dropped = false;
    }
}

#[cfg(test)]
mod tests {
    use super::FixedStep;

    /// Frame times a broken or hostile clock hands out, with ordinary ones among them.
    const FRAMES: [f64; 16] = [
        f64::MAX,
        1e300,
        1e20,
        1e10,
        12_345.678,
        1.0,
        1.0 / 60.0,
        1e-9,
        5e-324,
        0.0,
        -0.0,
        -1.0,
        -f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];

    /// The steps a frame of `real` seconds asks for at most: none for a time that is not a
    /// positive number, else its whole steps plus the one the carried part of a step may
    /// complete, and never more than the cap.
    fn asked(clock: &FixedStep, real: f64) -> f64 {
        if !(real.is_finite() && real > 0.0) {
            return 0.0;
        }
        ((real / clock.step).floor() + 1.0).min(f64::from(clock.max_steps))
    }

    /// After any frame, however huge or broken its time, the next frames run no more steps
    /// than their own time asks for: an empty, NaN or negative frame runs none.
    #[test]
    fn no_frame_runs_more_steps_than_its_time_asks_for() {
        for step in [1.0 / 60.0, 0.01, 1e-6, 3.0, 1e30] {
            for cap in [1, 4, 1000, u32::MAX] {
                for first in FRAMES {
                    for then in FRAMES {
                        let mut clock = FixedStep::new(step, cap).unwrap();
                        let n = clock.advance(first);
                        assert!(
                            f64::from(n) <= asked(&clock, first),
                            "step {step:e}, cap {cap}: a frame of {first:e} s ran {n} steps"
                        );
                        for _ in 0..3 {
                            let n = clock.advance(then);
                            assert!(
                                f64::from(n) <= asked(&clock, then),
                                "step {step:e}, cap {cap}: after a frame of {first:e} s, a frame of {then:e} s ran {n} steps"
                            );
                        }
                        assert_eq!(
                            clock.advance(0.0),
                            0,
                            "step {step:e}, cap {cap}: an empty frame after frames of {first:e} s and {then:e} s"
                        );
                        assert!(clock.speed().is_finite() && clock.speed() >= 0.0);
                    }
                }
            }
        }
    }

    /// Frames that ask for a step still get it after a huge frame: the clock is not stuck.
    #[test]
    fn ordinary_frames_run_as_before_after_a_huge_one() {
        for huge in [f64::MAX, 1e300, 1e20, f64::INFINITY, f64::NAN, -1.0] {
            let mut clock = FixedStep::new(0.01, 3).unwrap();
            clock.advance(huge);
            let steps: Vec<u32> = (0..50).map(|_| clock.advance(0.01)).collect();
            assert!(steps.iter().all(|&n| n == 1), "after {huge}: {steps:?}");
            assert_eq!(clock.advance(0.025), 2, "after {huge}");
        }
    }
}
