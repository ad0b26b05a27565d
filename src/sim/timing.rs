//! Timing a step phase by phase, and the percentiles every report of this crate quotes (the
//! demo's window and headless mode, the bench binary). The simulation never reads a clock: the
//! caller passes one, so the same code runs natively and in a web page.

use super::{SimError, Simulation};

/// Milliseconds spent in each phase of one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Gravity, motion and walls ([`Simulation::integrate`]).
    pub integrate_ms: f64,
    /// Bringing the tree up to date ([`Simulation::update_tree`]).
    pub update_ms: f64,
    /// Finding the contacts ([`Simulation::find_pairs`]).
    pub pairs_ms: f64,
    /// Resolving them ([`Simulation::resolve`]).
    pub resolve_ms: f64,
    /// The whole step.
    pub step_ms: f64,
}

impl Simulation {
    /// [`step`](Self::step), timing each phase with `clock` (seconds on any monotonic clock).
    ///
    /// # Errors
    /// As [`step`](Self::step); nothing moves then.
    ///
    /// ```
    /// use quadstress::sim::{SimConfig, Simulation};
    /// let mut sim = Simulation::new(SimConfig::default()).unwrap();
    /// sim.spawn_burst(100).unwrap();
    /// let start = std::time::Instant::now();
    /// let t = sim.step_timed(1.0 / 60.0, || start.elapsed().as_secs_f64()).unwrap();
    /// assert!(t.step_ms >= t.integrate_ms + t.update_ms + t.pairs_ms + t.resolve_ms - 1e-9);
    /// ```
    pub fn step_timed(
        &mut self,
        dt: f32,
        mut clock: impl FnMut() -> f64,
    ) -> Result<PhaseTimes, SimError> {
        let t0 = clock();
        self.integrate(dt)?;
        let t1 = clock();
        self.update_tree();
        let t2 = clock();
        self.find_pairs();
        let t3 = clock();
        self.resolve();
        let t4 = clock();
        Ok(PhaseTimes {
            integrate_ms: (t1 - t0) * 1e3,
            update_ms: (t2 - t1) * 1e3,
            pairs_ms: (t3 - t2) * 1e3,
            resolve_ms: (t4 - t3) * 1e3,
            step_ms: (t4 - t0) * 1e3,
        })
    }
}

/// The `p`-th percentile (`0.5` for the median, `0.99` for p99) of `values` by the
/// nearest-rank rule: the smallest value with at least `p` of the values at or below it.
/// Sorts `values` in place; `None` when empty.
///
/// ```
/// use quadstress::sim::percentile;
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
