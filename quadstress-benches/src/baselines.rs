//! Reference broad phases the benchmarks compare the tree with (brute force lives in
//! `quadstress::oracle`).
//!
//! They find the same thing as `Quadtree::for_each_pair`:
//! every unordered pair of intersecting closed rectangles, once. Each reports pairs as
//! indices into the slice it was given, smaller index first. They use the same
//! overlap test as the tree's pair search ([`Rect::intersects`]).

use quadstress::Rect;

/// Sort-and-sweep on x: sort by left edge, and test each rectangle against those whose left
/// edge is not past its right edge. Keeps its sort buffer between calls.
#[derive(Debug, Default)]
pub struct SortAndSweep {
    order: Vec<(f32, u32)>,
}

impl SortAndSweep {
    /// Calls `f(i, j)` with `i < j` for every intersecting pair of `rects`.
    pub fn pairs(&mut self, rects: &[Rect], mut f: impl FnMut(u32, u32)) {
        self.order.clear();
        self.order
            .extend(rects.iter().enumerate().map(|(i, r)| (r.min_x, i as u32)));
        self.order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        for (k, &(_, i)) in self.order.iter().enumerate() {
            let a = &rects[i as usize];
            for &(min_x, j) in &self.order[k + 1..] {
                if min_x > a.max_x {
                    break;
                }
                let b = &rects[j as usize];
                if a.min_y <= b.max_y && b.min_y <= a.max_y {
                    f(i.min(j), i.max(j));
                }
            }
        }
    }
}

/// A uniform grid built by counting sort: each rectangle goes into the cell of its top-left
/// corner. A pair search tests each cell against itself and its four "forward" neighbours; a
/// query visits the cells its rectangle reaches, widened by one cell up and left. Correct only
/// while no rectangle is wider or taller than a cell; [`build`](Self::build) refuses otherwise.
///
/// On uniform data with cell = once or twice the object size, this is close to the practical
/// limit of a broad phase; it is weak when sizes vary widely or objects cluster.
#[derive(Debug)]
pub struct UniformGrid {
    cell: f32,
    inv: f32,
    min_x: f32,
    min_y: f32,
    cols: usize,
    rows: usize,
    starts: Vec<u32>,
    sorted: Vec<u32>,
    cell_of: Vec<u32>,
    fill: Vec<u32>,
}

impl UniformGrid {
    /// A grid with square cells of side `cell`.
    pub fn new(cell: f32) -> Self {
        UniformGrid {
            cell,
            inv: 1.0 / cell,
            min_x: 0.0,
            min_y: 0.0,
            cols: 0,
            rows: 0,
            starts: Vec::new(),
            sorted: Vec::new(),
            cell_of: Vec::new(),
            fill: Vec::new(),
        }
    }

    /// Sorts `rects` into the grid. Returns `false` (and leaves the grid empty) if some
    /// rectangle is larger than a cell or the grid would need more than
    /// `4 * rects.len() + 1024` cells.
    pub fn build(&mut self, rects: &[Rect]) -> bool {
        self.cols = 0;
        self.rows = 0;
        if rects.is_empty() {
            return true;
        }
        // Stage 1: bounds and grid size.
        let (mut min_x, mut min_y) = (f32::INFINITY, f32::INFINITY);
        let (mut max_x, mut max_y) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
        for r in rects {
            if r.width() > self.cell || r.height() > self.cell {
                return false;
            }
            min_x = min_x.min(r.min_x);
            min_y = min_y.min(r.min_y);
            max_x = max_x.max(r.min_x);
            max_y = max_y.max(r.min_y);
        }
        let cols = ((max_x - min_x) * self.inv) as usize + 1;
        let rows = ((max_y - min_y) * self.inv) as usize + 1;
        if cols.saturating_mul(rows) > 4 * rects.len() + 1024 {
            return false;
        }
        // Stage 2: counting sort of rectangle indices by cell.
        self.starts.clear();
        self.starts.resize(cols * rows + 1, 0);
        self.cell_of.clear();
        for r in rects {
            let cx = (((r.min_x - min_x) * self.inv) as usize).min(cols - 1);
            let cy = (((r.min_y - min_y) * self.inv) as usize).min(rows - 1);
            let c = cy * cols + cx;
            self.cell_of.push(c as u32);
            self.starts[c + 1] += 1;
        }
        for c in 0..cols * rows {
            self.starts[c + 1] += self.starts[c];
        }
        self.sorted.clear();
        self.sorted.resize(rects.len(), 0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.starts);
        for (i, &c) in self.cell_of.iter().enumerate() {
            self.sorted[self.fill[c as usize] as usize] = i as u32;
            self.fill[c as usize] += 1;
        }
        (self.min_x, self.min_y, self.cols, self.rows) = (min_x, min_y, cols, rows);
        true
    }

    fn bucket(&self, c: usize) -> &[u32] {
        &self.sorted[self.starts[c] as usize..self.starts[c + 1] as usize]
    }

    /// Calls `f(i, j)` with `i < j` for every intersecting pair of `rects`, building the grid
    /// first. Returns `false` without reporting anything when [`build`](Self::build) refuses.
    pub fn pairs(&mut self, rects: &[Rect], mut f: impl FnMut(u32, u32)) -> bool {
        if !self.build(rects) {
            return false;
        }
        // Own cell (later entries only), then the forward half of the neighbours:
        // (x+1, y-1), (x+1, y), (x+1, y+1), (x, y+1). Each neighbouring pair of cells is
        // visited from one side only, so each pair is reported once.
        let (cols, rows) = (self.cols, self.rows);
        for cy in 0..rows {
            for cx in 0..cols {
                let own = self.bucket(cy * cols + cx);
                for (k, &i) in own.iter().enumerate() {
                    let a = &rects[i as usize];
                    for &j in &own[k + 1..] {
                        if a.intersects(&rects[j as usize]) {
                            f(i.min(j), i.max(j));
                        }
                    }
                    for (dx, dy) in [(1isize, -1isize), (1, 0), (1, 1), (0, 1)] {
                        let (nx, ny) = (cx as isize + dx, cy as isize + dy);
                        if nx < 0 || ny < 0 || nx >= cols as isize || ny >= rows as isize {
                            continue;
                        }
                        for &j in self.bucket(ny as usize * cols + nx as usize) {
                            if a.intersects(&rects[j as usize]) {
                                f(i.min(j), i.max(j));
                            }
                        }
                    }
                }
            }
        }
        true
    }

    /// Calls `f(i)` for every rectangle of the last [`build`](Self::build) that intersects
    /// `q`; `rects` must be the slice it was built from.
    pub fn query(&self, rects: &[Rect], q: &Rect, mut f: impl FnMut(u32)) {
        if self.cols == 0 {
            return;
        }
        // A rectangle lives in the cell of its top-left corner and is at most a cell wide,
        // so one reaching `q` starts at most one cell up or left of it.
        let cell = |v: f32, min: f32, n: usize| -> usize {
            (((v - min) * self.inv).max(0.0) as usize).min(n - 1)
        };
        if q.max_x < self.min_x - self.cell || q.max_y < self.min_y - self.cell {
            return;
        }
        let x0 = cell(q.min_x - self.cell, self.min_x, self.cols);
        let y0 = cell(q.min_y - self.cell, self.min_y, self.rows);
        let x1 = cell(q.max_x, self.min_x, self.cols);
        let y1 = cell(q.max_y, self.min_y, self.rows);
        for cy in y0..=y1 {
            for cx in x0..=x1 {
                for &i in self.bucket(cy * self.cols + cx) {
                    if rects[i as usize].intersects(q) {
                        f(i);
                    }
                }
            }
        }
    }
}

/// Checks against the oracle, run by `cargo test --bench table`.
pub mod checks {
    use super::*;
    use quadstress::oracle::{self, TestRng};

    /// Both baselines report exactly the oracle's pairs, on boxes with common exact touches.
    pub fn baselines_match_the_oracle() {
        let mut rng = TestRng::new(11);
        for n in [0, 1, 2, 50, 2_000] {
            let rects: Vec<Rect> = (0..n)
                .map(|_| {
                    let (x, y) = (rng.grid(200.0, 400), rng.grid(200.0, 400));
                    Rect::from_min_size(x, y, rng.grid(4.0, 8), rng.grid(4.0, 8))
                })
                .collect();
            let keyed: Vec<(u32, Rect)> = rects
                .iter()
                .enumerate()
                .map(|(i, r)| (i as u32, *r))
                .collect();
            let want = oracle::pairs(&keyed);
            let mut got = Vec::new();
            SortAndSweep::default().pairs(&rects, |a, b| got.push((a, b)));
            got.sort_unstable();
            assert_eq!(got, want, "sort and sweep, n = {n}");
            got.clear();
            assert!(UniformGrid::new(8.0).pairs(&rects, |a, b| got.push((a, b))));
            got.sort_unstable();
            assert_eq!(got, want, "grid, n = {n}");
        }
        // Grid queries against the oracle, in and around the boxes.
        let rects: Vec<Rect> = (0..3_000)
            .map(|_| {
                let (x, y) = (rng.grid(300.0, 1200), rng.grid(300.0, 1200));
                Rect::from_min_size(x, y, rng.grid(4.0, 8), rng.grid(4.0, 8))
            })
            .collect();
        let keyed: Vec<(u32, Rect)> = (0..).zip(rects.iter().copied()).collect();
        let mut grid = UniformGrid::new(4.0);
        assert!(grid.build(&rects));
        for _ in 0..500 {
            let (x, y) = (rng.range(-20.0, 320.0), rng.range(-20.0, 320.0));
            let q = Rect::from_min_size(x, y, rng.range(0.0, 30.0), rng.range(0.0, 30.0));
            let mut got = Vec::new();
            grid.query(&rects, &q, |i| got.push(i));
            got.sort_unstable();
            assert_eq!(got, oracle::query_rect(&keyed, &q), "grid query {q:?}");
        }
        // A box larger than a cell is refused, not mishandled.
        let big = [Rect::new(0.0, 0.0, 10.0, 10.0)];
        assert!(!UniformGrid::new(4.0).pairs(&big, |_, _| {}));
    }
}
