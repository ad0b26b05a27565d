//! Timing a step phase by phase, and the percentiles every report of this crate quotes (the
//! demo's window and headless mode, the table bench; hidden from the docs: not a promise). The simulation never reads a clock: the
//! caller passes one, so the same code runs natively and in a web page.

use super::{Phase, SimError, Simulation};

/// Milliseconds spent in each phase of one step ([`Phase::ALL`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Putting the particles in stripe order, on the steps that do ([`Phase::Reorder`]).
    pub reorder_ms: f64,
    /// Gravity, motion and walls ([`Phase::Integrate`]).
    pub integrate_ms: f64,
    /// Bringing the tree up to date ([`Simulation::update_tree`]).
    pub update_ms: f64,
    /// Finding the contacts ([`Phase::FindPairs`]).
    pub pairs_ms: f64,
    /// Resolving them ([`Phase::Resolve`]).
    pub resolve_ms: f64,
    /// The whole step.
    pub step_ms: f64,
}

impl PhaseTimes {
    pub(super) fn from_phases(ms: [f64; Phase::ALL.len()], step_ms: f64) -> Self {
        let [reorder_ms, integrate_ms, update_ms, pairs_ms, resolve_ms] = ms;
        PhaseTimes {
            reorder_ms,
            integrate_ms,
            update_ms,
            pairs_ms,
            resolve_ms,
            step_ms,
        }
    }

    /// Each phase's time, in [`Phase::ALL`] order.
    pub fn by_phase(&self) -> [(Phase, f64); Phase::ALL.len()] {
        [
            (Phase::Reorder, self.reorder_ms),
            (Phase::Integrate, self.integrate_ms),
            (Phase::UpdateTree, self.update_ms),
            (Phase::FindPairs, self.pairs_ms),
            (Phase::Resolve, self.resolve_ms),
        ]
    }
}

impl Simulation {
    /// [`step`](Self::step), timing each phase with `clock` (seconds on any monotonic clock,
    /// read on the thread that runs the step: one of the simulation's workers): the same
    /// sequence of phases.
    ///
    /// # Errors
    /// As [`step`](Self::step); nothing moves then.
    ///
    /// ```
    /// use quadstress_sim::{SimConfig, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.spawn_burst(100).unwrap();
    /// let start = std::time::Instant::now();
    /// let t = sim.step_timed(1.0 / 60.0, || start.elapsed().as_secs_f64()).unwrap();
    /// let sum: f64 = t.by_phase().iter().map(|(_, ms)| ms).sum();
    /// assert!((t.step_ms - sum).abs() < 1e-6);
    /// ```
    pub fn step_timed(
        &mut self,
        dt: f32,
        clock: impl FnMut() -> f64 + Send,
    ) -> Result<PhaseTimes, SimError> {
        self.run_phases(dt, clock)
    }
}

/// Not part of the API: the statistics helper of this crate's reports (demo, benches).
///
/// The `p`-th percentile (`0.5` for the median, `0.99` for p99) of `values` by the
/// nearest-rank rule: the smallest value with at least `p` of the values at or below it.
/// Sorts `values` in place; `None` when empty.
///
/// ```
/// use quadstress_sim::percentile;
/// let mut v = [5.0, 1.0, 4.0, 2.0, 3.0];
/// assert_eq!(percentile(&mut v, 0.5), Some(3.0));
/// assert_eq!(percentile(&mut v, 0.99), Some(5.0));
/// assert_eq!(percentile(&mut v, 0.0), Some(1.0));
/// assert_eq!(percentile(&mut [], 0.5), None);
/// ```
pub fn percentile(values: &mut [f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = (values.len() as f64 * p.clamp(0.0, 1.0)).ceil() as usize;
    Some(values[rank.clamp(1, values.len()) - 1])
}
