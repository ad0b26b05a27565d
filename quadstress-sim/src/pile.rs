//! The shape of a pile: its height profile and the steps between neighbouring columns
//! ([`HeightProfile`], [`ColumnSteps`]), the figure that tells granular matter (a slope with
//! small steps) from towers and crevasses (steps of many sides). The definition is
//! [`HeightProfile`]'s.

use std::collections::VecDeque;

use quadstress::Rect;

use super::{Particle, Simulation};

/// How far below a particle's bottom edge another particle's top may lie and still support
/// it, as a fraction of the side: a resting contact left a rounding step apart still counts,
/// a particle falling onto a pile does not.
pub const SUPPORT_GAP: f64 = 1.0 / 64.0;

/// How much of a column (in sides) a particle must cover to count for it: a sixteenth, so that
/// squares that touch across a column's edge, overlapping it by a rounding sliver, count for
/// their own column only.
pub const COLUMN_COVER: f64 = 1.0 / 16.0;

/// The most columns a profile measures: a wider world (in sides) is not measured, so that no
/// world, however wide, makes the profile's buffers outgrow the particles' own.
pub const MAX_PROFILE_COLUMNS: usize = 1 << 22;

/// The steps of a pile's height profile, from [`HeightProfile::measure`] or
/// [`Simulation::column_steps`]: see [`HeightProfile`] for the definition.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ColumnSteps {
    /// Columns across the world, one side wide: `columns - 1` steps.
    pub columns: usize,
    /// The largest difference between the heights of two neighbouring columns, in sides
    /// (0 with a single column).
    pub max: f64,
    /// The 99th percentile of those differences (nearest rank: the smallest step with at
    /// least 99% of the steps at or below it), in sides.
    pub p99: f64,
}

/// The reusable buffers of a height profile, and the profile last measured.
///
/// # The profile
/// The world is cut into `floor(width / side)` columns, each one particle side wide from the
/// left wall (the last one also takes the rest of the width, less than a side). A particle
/// belongs to every column its square covers more than [`COLUMN_COVER`] of: one, or two side
/// by side. So a gap between particles is a step only where it holds a column all but
/// `COLUMN_COVER`: a crack narrower than a side never is (no particle falls into it; a profile
/// of the centres alone saw a crack of a sixth of a side between two rows as a crevasse as deep
/// as the rows), a gap two sides wide always is, and one in between is or is not as it falls
/// on the columns. A column's height is the top of its highest
/// *supported* particle, measured up from the floor, in sides; a column with no supported
/// particle has height 0. A particle is supported when it rests on the floor or on another
/// particle: the other particle's square overlaps it along x (by more than nothing) and its top
/// lies below the particle's top by more than nothing and by at most one side plus
/// [`SUPPORT_GAP`] sides. So a particle in the air is left out (it is falling), and so is one
/// held only at its side; a particle resting on a falling one counts (a clump that falls
/// together is a pile too, for an instant).
///
/// # The walls
/// The walls bound the profile: steps are taken between neighbouring columns inside the
/// world only, `columns - 1` of them. A wall is not a column: a pile heaped against a wall (a
/// box's side holds a pile up) adds no step for the wall, while a tower standing against a
/// wall counts through its step to the column beside it. Particles whose centre lies outside
/// the world, or whose position is not finite, are left out.
///
/// # Runtime
/// One pass to sort the particles by half-side column (a counting sort), a sort of each such
/// column by height (`O(k log k)` for `k` particles in it: `O(n log h)` for a pile `h`
/// particles tall), and sliding windows over neighbouring columns that find each particle's
/// support in `O(1)` amortised: no pair is tested twice, so a heap of coincident particles
/// costs no more than a pile. The buffers are the [`HeightProfile`]'s and are reused: a
/// second measure of a pile of the same size allocates nothing.
///
/// ```
/// use quadstress::Rect;
/// use quadstress_sim::{HeightProfile, Particle};
/// let world = Rect::new(0.0, 0.0, 40.0, 80.0);
/// let at = |x: f32, y: f32| Particle { x, y, vx: 0.0, vy: 0.0 };
/// // A tower of three in the middle column of five, 8-unit particles.
/// let pile = [at(16.0, 72.0), at(16.0, 64.0), at(16.0, 56.0)];
/// let mut profile = HeightProfile::new();
/// let steps = profile.measure(&pile, world, 8.0).unwrap();
/// assert_eq!(profile.heights(), &[0.0, 0.0, 3.0, 0.0, 0.0]);
/// assert_eq!((steps.columns, steps.max, steps.p99), (5, 3.0, 3.0));
/// ```
#[derive(Clone, Debug, Default)]
pub struct HeightProfile {
    /// Each particle's half-side column (`u32::MAX`: left out), by particle index.
    half_column: Vec<u32>,
    /// Where each half-side column's particles start in `order` (one more entry than columns).
    starts: Vec<u32>,
    /// Particle indices by half-side column, each column by rising `y` (top first).
    order: Vec<u32>,
    /// Whether the particle at each position of `order` is supported.
    supported: Vec<bool>,
    /// The sliding window's candidates (positions in a column of `order`).
    window: VecDeque<u32>,
    /// The last profile, one height per column, in sides.
    heights: Vec<f64>,
    /// The steps between neighbouring columns (reordered by the percentile).
    steps: Vec<f64>,
}

impl HeightProfile {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// The heights of the last [`measure`](Self::measure), one per column from the left
    /// wall, in sides (empty before the first, or after one that measured nothing).
    pub fn heights(&self) -> &[f64] {
        &self.heights
    }

    /// Measures the height profile of `particles` (squares of side `size` by their top-left
    /// corners, as [`Particle`]) in `world`, whose floor is its bottom edge (`max_y`).
    ///
    /// `None` when the world is more than [`MAX_PROFILE_COLUMNS`] sides wide, when `size` is
    /// not a positive finite number or is wider than the world, or when there are more than
    /// `u32::MAX - 1` particles: nothing is measured then.
    pub fn measure(
        &mut self,
        particles: &[Particle],
        world: Rect,
        size: f32,
    ) -> Option<ColumnSteps> {
        self.heights.clear();
        self.steps.clear();
        let s = f64::from(size);
        let (min_x, max_x) = (f64::from(world.min_x), f64::from(world.max_x));
        let (min_y, max_y) = (f64::from(world.min_y), f64::from(world.max_y));
        let width = max_x - min_x;
        let measurable = s.is_finite()
            && s > 0.0
            && width.is_finite()
            && s <= width
            && min_y.is_finite()
            && max_y.is_finite();
        if !measurable || particles.len() >= u32::MAX as usize {
            return None;
        }
        let columns = (width / s).floor();
        if columns > MAX_PROFILE_COLUMNS as f64 {
            return None;
        }
        let columns = columns as usize;
        // Half-side columns for the support search: two particles whose centres lie in the
        // same one overlap along x for sure, and none further than two apart can.
        let half = s / 2.0;
        let halves = (width / half).ceil() as usize;

        let centre_x = |p: &Particle| f64::from(p.x) + half;
        let inside = |p: &Particle| {
            let cy = f64::from(p.y) + half;
            (min_x..=max_x).contains(&centre_x(p)) && (min_y..=max_y).contains(&cy)
        };

        // Counting sort by half-side column.
        self.half_column.clear();
        self.starts.clear();
        self.starts.resize(halves + 1, 0);
        for p in particles {
            let k = if inside(p) {
                (((centre_x(p) - min_x) / half) as usize).min(halves - 1) as u32
            } else {
                u32::MAX
            };
            self.half_column.push(k);
            if k != u32::MAX {
                self.starts[k as usize + 1] += 1;
            }
        }
        for k in 0..halves {
            self.starts[k + 1] += self.starts[k];
        }
        let kept = self.starts[halves] as usize;
        self.order.clear();
        self.order.resize(kept, 0);
        // `starts[k]` runs ahead while filling; it is restored below.
        for (i, &k) in self.half_column.iter().enumerate() {
            if k != u32::MAX {
                let at = &mut self.starts[k as usize];
                self.order[*at as usize] = i as u32;
                *at += 1;
            }
        }
        for k in (0..halves).rev() {
            self.starts[k + 1] = self.starts[k];
        }
        self.starts[0] = 0;
        let y_of = |i: &u32| particles[*i as usize].y;
        for k in 0..halves {
            let (a, b) = (self.starts[k] as usize, self.starts[k + 1] as usize);
            self.order[a..b].sort_unstable_by(|i, j| y_of(i).total_cmp(&y_of(j)).then(i.cmp(j)));
        }

        // Support: the floor, then each neighbouring half-side column within two.
        let reach = s * (1.0 + SUPPORT_GAP);
        let floor = max_y - SUPPORT_GAP * s;
        self.supported.clear();
        self.supported.extend(
            self.order
                .iter()
                .map(|&i| f64::from(particles[i as usize].y) + s >= floor),
        );
        for a in 0..halves {
            let pa = self.starts[a] as usize..self.starts[a + 1] as usize;
            for offset in -2isize..=2 {
                let b = a as isize + offset;
                if b < 0 || b >= halves as isize {
                    continue;
                }
                let b = b as usize;
                let pb = self.starts[b] as usize..self.starts[b + 1] as usize;
                if pb.is_empty() {
                    continue;
                }
                mark_supported(
                    particles,
                    &self.order[pa.clone()],
                    &self.order[pb],
                    offset.signum(),
                    s,
                    reach,
                    &mut self.supported[pa.clone()],
                    &mut self.window,
                );
            }
        }

        // The profile, and its steps.
        self.heights.resize(columns, 0.0);
        for (&i, &held) in self.order.iter().zip(&self.supported) {
            if held {
                let p = &particles[i as usize];
                // Every column the square covers more than COLUMN_COVER of (one, or two).
                let left = (f64::from(p.x) - min_x) / s;
                let first = ((left + COLUMN_COVER).max(0.0) as usize).min(columns - 1);
                let last =
                    ((left + 1.0 - COLUMN_COVER).ceil().max(1.0) as usize - 1).min(columns - 1);
                let top = (max_y - f64::from(p.y)) / s;
                for h in &mut self.heights[first..=last] {
                    *h = h.max(top);
                }
            }
        }
        self.steps
            .extend(self.heights.windows(2).map(|w| (w[1] - w[0]).abs()));
        let max = self.steps.iter().copied().fold(0.0, f64::max);
        let p99 = if self.steps.is_empty() {
            0.0
        } else {
            // Nearest rank, as the reports' other percentiles, by selection: O(columns).
            let rank =
                ((self.steps.len() as f64 * 0.99).ceil() as usize).clamp(1, self.steps.len()) - 1;
            *self.steps.select_nth_unstable_by(rank, f64::total_cmp).1
        };
        Some(ColumnSteps { columns, max, p99 })
    }
}

/// Marks each particle of `pa` (a half-side column, by rising `y`) that some particle of
/// `pb` (another, or the same, by rising `y`) supports: its top lies in `(y, y + reach]`
/// below the particle's and it overlaps the particle along x. `side` is where `pb` lies: 0
/// the same column (any particle in the window overlaps), 1 to the right (the window's
/// leftmost particle decides), -1 to the left (its rightmost). The window slides down both
/// columns once, its leftmost or rightmost kept in a monotone queue: O(|pa| + |pb|).
#[allow(clippy::too_many_arguments)]
fn mark_supported(
    particles: &[Particle],
    pa: &[u32],
    pb: &[u32],
    side: isize,
    size: f64,
    reach: f64,
    supported: &mut [bool],
    window: &mut VecDeque<u32>,
) {
    let at = |k: usize| &particles[pb[k] as usize];
    // The queue keeps the window's positions whose x may still be its extreme: for a column
    // to the right, rising x from the front (the front is the leftmost); to the left, falling.
    let dominated = |new: f32, old: f32| if side > 0 { new <= old } else { new >= old };
    window.clear();
    let (mut lo, mut hi) = (0usize, 0usize);
    for (held, &i) in supported.iter_mut().zip(pa) {
        let p = &particles[i as usize];
        let y = f64::from(p.y);
        while lo < pb.len() && f64::from(at(lo).y) <= y {
            lo += 1;
        }
        hi = hi.max(lo);
        while hi < pb.len() && f64::from(at(hi).y) <= y + reach {
            if side != 0 {
                let x = at(hi).x;
                while window
                    .back()
                    .is_some_and(|&b| dominated(x, particles[pb[b as usize] as usize].x))
                {
                    window.pop_back();
                }
                window.push_back(hi as u32);
            }
            hi += 1;
        }
        if *held || hi == lo {
            continue;
        }
        *held = match side {
            0 => true,
            _ => {
                while window.front().is_some_and(|&f| (f as usize) < lo) {
                    window.pop_front();
                }
                window.front().is_some_and(|&f| {
                    let dx = f64::from(particles[pb[f as usize] as usize].x) - f64::from(p.x);
                    dx.abs() < size
                })
            }
        };
    }
}

impl Simulation {
    /// The steps of the pile's height profile (see [`HeightProfile`] for the definition),
    /// measured with `profile`'s buffers;
    /// `None` for a world more than [`MAX_PROFILE_COLUMNS`] sides wide.
    ///
    /// ```
    /// use quadstress::Rect;
    /// use quadstress_sim::{HeightProfile, SimConfig, Simulation};
    /// let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    /// let mut sim = Simulation::new(SimConfig { world, ..SimConfig::default() }).unwrap();
    /// // Two particles on the floor, one on the other: a step of 2 sides to each side of it.
    /// sim.spawn_stream(24.0, 56.0, 1, 0.0, 0.0).unwrap();
    /// sim.spawn_stream(24.0, 48.0, 1, 0.0, 0.0).unwrap();
    /// let mut profile = HeightProfile::new();
    /// let steps = sim.column_steps(&mut profile).unwrap();
    /// assert_eq!((steps.columns, steps.max), (8, 2.0));
    /// ```
    pub fn column_steps(&self, profile: &mut HeightProfile) -> Option<ColumnSteps> {
        profile.measure(
            &self.particles,
            self.config.world,
            self.config.particle_size,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    const S: f32 = 8.0;

    fn at(x: f32, y: f32) -> Particle {
        Particle {
            x,
            y,
            vx: 0.0,
            vy: 0.0,
        }
    }

    /// A world `columns` sides wide and `rows` sides tall, from the origin.
    fn world(columns: u32, rows: u32) -> Rect {
        Rect::new(0.0, 0.0, columns as f32 * S, rows as f32 * S)
    }

    /// A particle in column `c` whose bottom edge is `level` sides above the floor of a world
    /// `rows` tall.
    fn cell(c: f32, level: f32, rows: u32) -> Particle {
        at(c * S, (rows as f32 - level - 1.0) * S)
    }

    fn measure(pile: &[Particle], w: Rect) -> (Vec<f64>, ColumnSteps) {
        let mut profile = HeightProfile::new();
        let steps = profile.measure(pile, w, S).unwrap();
        (profile.heights().to_vec(), steps)
    }

    #[test]
    fn a_flat_layer_has_no_steps() {
        let pile: Vec<_> = (0..10).map(|c| cell(c as f32, 0.0, 20)).collect();
        let (heights, steps) = measure(&pile, world(10, 20));
        assert_eq!(heights, vec![1.0; 10]);
        assert_eq!((steps.columns, steps.max, steps.p99), (10, 0.0, 0.0));
    }

    #[test]
    fn a_tower_stands_out_by_its_height_on_both_sides() {
        let mut pile: Vec<_> = (0..10).map(|c| cell(c as f32, 0.0, 20)).collect();
        pile.extend((1..6).map(|level| cell(4.0, level as f32, 20)));
        let (heights, steps) = measure(&pile, world(10, 20));
        assert_eq!(heights[4], 6.0);
        assert_eq!(steps.max, 5.0);
        // Nine steps: seven of 0 and two of 5; the 99th percentile is the ninth.
        assert_eq!(steps.p99, 5.0);
    }

    #[test]
    fn the_percentile_is_the_nearest_rank() {
        // 201 columns: a staircase up by one side a column for 101 columns, then a cliff of
        // 3 and flat: 100 steps of 1, one of 100 (the cliff down to 0) and 99 of 0.
        let mut pile = Vec::new();
        for c in 0..=100 {
            for level in 0..=c {
                pile.push(cell(c as f32, level as f32, 120));
            }
        }
        let (heights, steps) = measure(&pile, world(201, 120));
        assert_eq!(heights[100], 101.0);
        assert_eq!(heights[101], 0.0);
        assert_eq!(steps.max, 101.0);
        // 200 steps, sorted: 99 zeros, 100 ones, then 101; rank ceil(0.99 * 200) = 198.
        assert_eq!(steps.p99, 1.0);
    }

    #[test]
    fn particles_in_the_air_or_held_at_the_side_are_not_supported() {
        let rows = 20;
        let pile = vec![
            // Column 0: on the floor, and one hovering a quarter side above it.
            cell(0.0, 0.0, rows),
            cell(0.0, 1.25, rows),
            // Column 2: on the floor, and one exactly on it.
            cell(2.0, 0.0, rows),
            cell(2.0, 1.0, rows),
            // Column 3: beside the tower of column 2, touching only its side, in the air.
            cell(3.0, 1.0, rows),
            // Column 5: on the floor, and one resting half on it, over columns 5 and 6.
            cell(5.0, 0.0, rows),
            cell(5.5, 1.0, rows),
            // Column 8: one a gap of SUPPORT_GAP / 2 above a floor particle: still resting.
            cell(8.0, 0.0, rows),
            cell(8.0, 1.0 + SUPPORT_GAP as f32 / 2.0, rows),
        ];
        let (heights, _) = measure(&pile, world(10, rows));
        let expected = [
            1.0,
            0.0,
            2.0,
            0.0,
            0.0,
            2.0,
            2.0,
            0.0,
            2.0 + SUPPORT_GAP / 2.0,
            0.0,
        ];
        for (c, (h, e)) in heights.iter().zip(expected).enumerate() {
            assert!((h - e).abs() < 1e-9, "column {c}: {h} != {e}");
        }
    }

    #[test]
    fn cracks_are_no_steps_and_gaps_two_sides_wide_are() {
        let rows = 4;
        let row =
            |xs: &[f32]| -> Vec<Particle> { xs.iter().map(|&x| cell(x, 0.0, rows)).collect() };
        // A crack of 0.16 side between columns 4 and 5: no column is left empty.
        let cracked: Vec<f32> = (0..5)
            .map(|c| c as f32)
            .chain((5..10).map(|c| c as f32 + 0.16))
            .collect();
        let (heights, steps) = measure(&row(&cracked), world(11, rows));
        assert_eq!(&heights[..10], &[1.0; 10]);
        assert_eq!(heights[10], 1.0, "the last square covers 0.16 of column 10");
        assert_eq!(steps.max, 0.0);
        // Squares that touch across column edges by a rounding sliver count once each.
        let sliver: Vec<f32> = (0..5).map(|c| c as f32 + 0.001).collect();
        let (heights, _) = measure(&row(&sliver), world(8, rows));
        assert_eq!(heights, vec![1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
        // A gap of two sides, however it falls on the columns, shows.
        for shift in [0.0, 0.25, 0.5, 0.75] {
            let gapped = [0.0 + shift, 1.0 + shift, 4.0 + shift, 5.0 + shift];
            let (heights, steps) = measure(&row(&gapped), world(8, rows));
            assert!(heights[2..4].contains(&0.0), "shift {shift}: {heights:?}");
            assert_eq!(steps.max, 1.0);
        }
    }

    #[test]
    fn a_pile_against_a_wall_adds_no_step_for_the_wall() {
        // A slope down from the left wall: 3, 2, 1, then a tower of 4 at the right wall.
        let rows = 10;
        let mut pile = Vec::new();
        for (c, height) in [(0, 3), (1, 2), (2, 1), (5, 4)] {
            for level in 0..height {
                pile.push(cell(c as f32, level as f32, rows));
            }
        }
        let (heights, steps) = measure(&pile, world(6, rows));
        assert_eq!(heights, vec![3.0, 2.0, 1.0, 0.0, 0.0, 4.0]);
        // Steps 1, 1, 1, 0, 4: the tower counts against its neighbour, the walls not at all.
        assert_eq!(steps.max, 4.0);
        assert_eq!(steps.columns, 6);
    }

    #[test]
    fn a_partial_column_joins_the_last_whole_one() {
        // 10.5 sides wide: ten columns, the last one and a half sides wide; a particle at
        // the right wall stands in it.
        let w = Rect::new(0.0, 0.0, 10.5 * S, 10.0 * S);
        let pile = vec![at(w.max_x - S, 9.0 * S)];
        let (heights, steps) = measure(&pile, w);
        assert_eq!(steps.columns, 10);
        assert_eq!(heights[9], 1.0);
        assert_eq!(steps.max, 1.0);
    }

    #[test]
    fn coincident_and_odd_particles_are_measured_without_trouble() {
        let w = world(8, 8);
        let mut pile = vec![at(20.0, 20.0); 20_000];
        pile.extend([
            at(f32::NAN, 0.0),
            at(0.0, f32::INFINITY),
            at(-100.0, 56.0),
            at(1e30, 56.0),
        ]);
        let (heights, steps) = measure(&pile, w);
        // Coincident particles do not hold each other up; the odd ones are left out.
        assert_eq!(heights, vec![0.0; 8]);
        assert_eq!(steps.max, 0.0);
        let mut profile = HeightProfile::new();
        assert!(profile.measure(&pile, w, 0.0).is_none());
        assert!(profile.measure(&pile, w, f32::NAN).is_none());
        assert!(profile.measure(&pile, w, 100.0).is_none());
        let wide = Rect::new(0.0, 0.0, 1e12, 64.0);
        assert!(profile.measure(&pile, wide, S).is_none());
        assert!(profile.heights().is_empty());
        assert_eq!(
            profile.measure(&[], w, S),
            Some(ColumnSteps {
                columns: 8,
                max: 0.0,
                p99: 0.0
            })
        );
    }

    /// The definition, pair by pair.
    fn brute_heights(pile: &[Particle], w: Rect) -> Vec<f64> {
        let s = f64::from(S);
        let columns = (f64::from(w.width()) / s).floor() as usize;
        let mut heights = vec![0.0; columns];
        for p in pile {
            let (px, py) = (f64::from(p.x), f64::from(p.y));
            let on_floor = py + s >= f64::from(w.max_y) - SUPPORT_GAP * s;
            let on_another = pile.iter().any(|q| {
                let (qx, qy) = (f64::from(q.x), f64::from(q.y));
                (qx - px).abs() < s && qy > py && qy <= py + s * (1.0 + SUPPORT_GAP)
            });
            if on_floor || on_another {
                // Every column whose span [c, c + 1) sides (the first from far left, the last
                // to far right) the square's [x, x + 1) covers more than COLUMN_COVER of.
                let left = (px - f64::from(w.min_x)) / s;
                for (c, h) in heights.iter_mut().enumerate() {
                    let lo = if c == 0 { f64::MIN } else { c as f64 };
                    let hi = if c == columns - 1 {
                        f64::MAX
                    } else {
                        (c + 1) as f64
                    };
                    if (left + 1.0).min(hi) - left.max(lo) > COLUMN_COVER {
                        *h = f64::max(*h, (f64::from(w.max_y) - py) / s);
                    }
                }
            }
        }
        heights
    }

    #[test]
    fn random_piles_match_the_definition() {
        let mut rng = StdRng::seed_from_u64(5);
        let mut profile = HeightProfile::new();
        for round in 0..200 {
            let (columns, rows) = (rng.random_range(1..30u32), rng.random_range(1..30u32));
            let w = Rect::new(
                -40.0,
                100.0,
                -40.0 + columns as f32 * S,
                100.0 + rows as f32 * S,
            );
            let n = rng.random_range(0..300);
            // Positions on a grid of eighth sides, so that exact contacts, gaps of
            // SUPPORT_GAP and coincident particles all happen.
            let pile: Vec<_> = (0..n)
                .map(|_| {
                    let gx = rng.random_range(0..=(columns - 1) * 8) as f32;
                    let gy = rng.random_range(0..=(rows - 1) * 8) as f32;
                    let nudge = if rng.random_bool(0.1) {
                        SUPPORT_GAP as f32 * S
                    } else {
                        0.0
                    };
                    at(
                        w.min_x + gx * S / 8.0,
                        (w.min_y + gy * S / 8.0 - nudge).max(w.min_y),
                    )
                })
                .collect();
            profile.measure(&pile, w, S).unwrap();
            assert_eq!(profile.heights(), brute_heights(&pile, w), "round {round}");
        }
    }

    #[test]
    fn a_second_measure_reuses_the_buffers() {
        let mut rng = StdRng::seed_from_u64(8);
        let w = world(40, 40);
        let pile: Vec<_> = (0..800)
            .map(|_| {
                at(
                    rng.random_range(0.0..=39.0 * S),
                    rng.random_range(0.0..=39.0 * S),
                )
            })
            .collect();
        let mut profile = HeightProfile::new();
        let first = profile.measure(&pile, w, S);
        let capacity = |p: &HeightProfile| {
            (
                p.half_column.capacity(),
                p.starts.capacity(),
                p.order.capacity(),
                p.supported.capacity(),
                p.window.capacity(),
                p.heights.capacity(),
                p.steps.capacity(),
            )
        };
        let before = capacity(&profile);
        assert_eq!(profile.measure(&pile, w, S), first);
        assert_eq!(capacity(&profile), before);
    }
}
