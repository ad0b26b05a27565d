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

/// A uniform grid written as well-kept broad phases write it: one counting sort of the boxes
/// themselves (not indices into the caller's slice) into one flat array, row by row, each box
/// binned once by its lower corner. Cells are at least as large as the largest box, so a box
/// that can meet another lies in its cell or in one of the eight around it; a row's cells are
/// next to each other in the array, so a query reads one contiguous slice per row it reaches,
/// and the pair search two slices per box (the rest of its row's cell and the next cell on,
/// then three cells of the row above). All buffers are kept between builds: no allocation per
/// frame once they have grown.
///
/// On uniform data with a cell of once or twice the largest box this is close to the practical
/// limit of a broad phase; it is weak where sizes vary widely (every cell must hold the largest)
/// or boxes cluster.
#[derive(Debug)]
pub struct UniformGrid {
    cell: f32,
    inv: f32,
    min_x: f32,
    min_y: f32,
    cols: usize,
    rows: usize,
    /// The largest width and height stored, widened by a hair: how far left of and below a
    /// query a box's lower corner can lie and the box still meet it.
    reach: (f32, f32),
    /// `starts[c]..starts[c + 1]` are the positions of cell `c` (row-major) in `boxes`.
    starts: Vec<u32>,
    boxes: Vec<Rect>,
    ids: Vec<u32>,
    cell_of: Vec<u32>,
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
            reach: (0.0, 0.0),
            starts: Vec::new(),
            boxes: Vec::new(),
            ids: Vec::new(),
            cell_of: Vec::new(),
        }
    }

    /// The cell side.
    pub fn cell(&self) -> f32 {
        self.cell
    }

    /// Cell sides worth trying for boxes at most `largest` wide or tall: once, 1.5, twice
    /// and three times that, each 1% over it, so that boxes whose moves have rounded their
    /// sides a little above `largest` still fit a cell. The bench times each and reports the
    /// best.
    pub fn cells_for(largest: f32) -> [f32; 4] {
        [1.0, 1.5, 2.0, 3.0].map(|k| largest * k * 1.01)
    }

    /// Sorts `rects` into the grid. Returns `false` (and leaves the grid empty) if some
    /// rectangle is larger than a cell (less a hair for rounding) or the grid would need more
    /// than `4 * rects.len() + 65536` cells.
    pub fn build(&mut self, rects: &[Rect]) -> bool {
        self.cols = 0;
        self.rows = 0;
        self.boxes.clear();
        self.ids.clear();
        if rects.is_empty() {
            return true;
        }
        let (mut min_x, mut min_y) = (f32::INFINITY, f32::INFINITY);
        let (mut max_x, mut max_y) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
        let (mut wide, mut tall) = (0f32, 0f32);
        for r in rects {
            min_x = min_x.min(r.min_x);
            min_y = min_y.min(r.min_y);
            max_x = max_x.max(r.min_x);
            max_y = max_y.max(r.min_y);
            wide = wide.max(r.max_x - r.min_x);
            tall = tall.max(r.max_y - r.min_y);
        }
        // A box's corner and a neighbour's may round into cells one further apart than the
        // boxes are: the largest box must leave a little room in a cell.
        if wide.max(tall) > self.cell * 0.9995 {
            return false;
        }
        let cols = ((max_x - min_x) * self.inv) as usize + 1;
        let rows = ((max_y - min_y) * self.inv) as usize + 1;
        if cols.saturating_mul(rows) > 4 * rects.len() + 65536 {
            return false;
        }
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
        // The scatter: `starts[c]` walks through cell `c` (shifted down one), then is put back.
        self.boxes
            .resize(rects.len(), Rect::new(0.0, 0.0, 0.0, 0.0));
        self.ids.resize(rects.len(), 0);
        for (i, (r, &c)) in rects.iter().zip(&self.cell_of).enumerate() {
            let at = &mut self.starts[c as usize];
            self.boxes[*at as usize] = *r;
            self.ids[*at as usize] = i as u32;
            *at += 1;
        }
        // Each `starts[c]` now holds the end of cell `c`, which is where cell `c + 1` starts.
        self.starts.copy_within(0..cols * rows, 1);
        self.starts[0] = 0;
        self.reach = (wide * 1.0001, tall * 1.0001);
        (self.min_x, self.min_y, self.cols, self.rows) = (min_x, min_y, cols, rows);
        true
    }

    /// The positions of cells `x0..=x1` of row `y`.
    #[inline(always)]
    fn span(&self, y: usize, x0: usize, x1: usize) -> std::ops::Range<usize> {
        let row = y * self.cols;
        self.starts[row + x0] as usize..self.starts[row + x1 + 1] as usize
    }

    /// Calls `f(i, j)` with `i < j` for every intersecting pair of `rects`, building the grid
    /// first. Returns `false` without reporting anything when [`build`](Self::build) refuses.
    pub fn pairs(&mut self, rects: &[Rect], f: impl FnMut(u32, u32)) -> bool {
        if !self.build(rects) {
            return false;
        }
        self.pairs_built(f);
        true
    }

    /// The pairs of the last [`build`](Self::build). Each box meets the boxes after it in its
    /// own cell and the next cell of its row (one slice), and the three cells above it (one
    /// slice of the next row): every neighbouring pair of cells is visited from one side only,
    /// so each pair is reported once.
    pub fn pairs_built(&self, mut f: impl FnMut(u32, u32)) {
        let (cols, rows) = (self.cols, self.rows);
        let (boxes, ids) = (&self.boxes[..], &self.ids[..]);
        for cy in 0..rows {
            for cx in 0..cols {
                let own = self.span(cy, cx, cx);
                let right = self.span(cy, cx, (cx + 1).min(cols - 1)).end;
                let above = if cy + 1 < rows {
                    self.span(cy + 1, cx.saturating_sub(1), (cx + 1).min(cols - 1))
                } else {
                    0..0
                };
                for p in own {
                    let a = boxes[p];
                    let i = ids[p];
                    for (b, &j) in boxes[p + 1..right].iter().zip(&ids[p + 1..right]) {
                        if a.intersects(b) {
                            f(i.min(j), i.max(j));
                        }
                    }
                    for (b, &j) in boxes[above.clone()].iter().zip(&ids[above.clone()]) {
                        if a.intersects(b) {
                            f(i.min(j), i.max(j));
                        }
                    }
                }
            }
        }
    }

    /// Calls `f(i)` for every rectangle of the last [`build`](Self::build) that intersects
    /// `q`, `i` its index in the slice built from.
    #[inline]
    pub fn query(&self, q: &Rect, mut f: impl FnMut(u32)) {
        if self.cols == 0 {
            return;
        }
        // A box meeting `q` has its lower corner within `reach` left of and below `q`'s,
        // widened by the rounding of the subtraction.
        let cell = |v: f32, min: f32, n: usize| -> usize {
            (((v - min) * self.inv).max(0.0) as usize).min(n - 1)
        };
        let lo_x = q.min_x - self.reach.0 - q.min_x.abs() * 1e-6;
        let lo_y = q.min_y - self.reach.1 - q.min_y.abs() * 1e-6;
        if q.max_x < self.min_x || q.max_y < self.min_y {
            return;
        }
        let x0 = cell(lo_x, self.min_x, self.cols);
        let y0 = cell(lo_y, self.min_y, self.rows);
        let x1 = cell(q.max_x, self.min_x, self.cols);
        let y1 = cell(q.max_y, self.min_y, self.rows);
        let q = *q;
        for cy in y0..=y1 {
            let span = self.span(cy, x0, x1);
            for (b, &i) in self.boxes[span.clone()].iter().zip(&self.ids[span]) {
                if b.intersects(&q) {
                    f(i);
                }
            }
        }
    }
}

/// Checks against the oracle, run by `cargo test --bench table`.
pub mod checks {
    use super::*;
    use quadstress::oracle;
    use quadstress_testkit::TestRng;

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
            let want = oracle::query_pairs(&keyed);
            let mut got = Vec::new();
            SortAndSweep::default().pairs(&rects, |a, b| got.push((a, b)));
            got.sort_unstable();
            assert_eq!(got, want, "sort and sweep, n = {n}");
            got.clear();
            for cell in UniformGrid::cells_for(4.0) {
                got.clear();
                assert!(UniformGrid::new(cell).pairs(&rects, |a, b| got.push((a, b))));
                got.sort_unstable();
                assert_eq!(got, want, "grid of cell {cell}, n = {n}");
            }
        }
        // Grid queries against the oracle, in and around the boxes.
        let rects: Vec<Rect> = (0..3_000)
            .map(|_| {
                let (x, y) = (rng.grid(300.0, 1200), rng.grid(300.0, 1200));
                Rect::from_min_size(x, y, rng.grid(4.0, 8), rng.grid(4.0, 8))
            })
            .collect();
        let keyed: Vec<(u32, Rect)> = (0..).zip(rects.iter().copied()).collect();
        for cell in UniformGrid::cells_for(4.0) {
            let mut grid = UniformGrid::new(cell);
            assert!(grid.build(&rects));
            for _ in 0..200 {
                let (x, y) = (rng.range(-20.0, 320.0), rng.range(-20.0, 320.0));
                let q = Rect::from_min_size(x, y, rng.range(0.0, 30.0), rng.range(0.0, 30.0));
                let mut got = Vec::new();
                grid.query(&q, |i| got.push(i));
                got.sort_unstable();
                assert_eq!(got, oracle::query_in_rect(&keyed, &q), "grid query {q:?}");
            }
        }
        // A box larger than a cell is refused, not mishandled.
        let big = [Rect::new(0.0, 0.0, 10.0, 10.0)];
        assert!(!UniformGrid::new(4.0).pairs(&big, |_, _| {}));
    }
}
