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

/// A uniform grid built by counting sort each call: each rectangle goes into the cell of its
/// top-left corner, and is tested against its own cell and the four "forward" neighbours.
/// Correct only while no rectangle is wider or taller than a cell; [`pairs`](Self::pairs)
/// returns `false` (and reports nothing) otherwise.
///
/// On uniform data with cell = twice the object size, this is close to the practical limit
/// of a broad phase; it is weak when sizes vary widely or objects cluster.
#[derive(Debug)]
pub struct UniformGrid {
    cell: f32,
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
            starts: Vec::new(),
            sorted: Vec::new(),
            cell_of: Vec::new(),
            fill: Vec::new(),
        }
    }

    /// Calls `f(i, j)` with `i < j` for every intersecting pair of `rects`. Returns `false`
    /// without reporting anything if some rectangle is larger than a cell or the grid would
    /// need more than `4 * rects.len() + 1024` cells.
    pub fn pairs(&mut self, rects: &[Rect], mut f: impl FnMut(u32, u32)) -> bool {
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
        let inv = 1.0 / self.cell;
        let cols = ((max_x - min_x) * inv) as usize + 1;
        let rows = ((max_y - min_y) * inv) as usize + 1;
        if cols.saturating_mul(rows) > 4 * rects.len() + 1024 {
            return false;
        }
        // Stage 2: counting sort of rectangle indices by cell.
        self.starts.clear();
        self.starts.resize(cols * rows + 1, 0);
        self.cell_of.clear();
        for r in rects {
            let cx = (((r.min_x - min_x) * inv) as usize).min(cols - 1);
            let cy = (((r.min_y - min_y) * inv) as usize).min(rows - 1);
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
        // Stage 3: own cell (later entries only), then the forward half of the neighbours:
        // (x+1, y-1), (x+1, y), (x+1, y+1), (x, y+1). Each neighbouring pair of cells is
        // visited from one side only, so each pair is reported once.
        for cy in 0..rows {
            for cx in 0..cols {
                let c = cy * cols + cx;
                let own = &self.sorted[self.starts[c] as usize..self.starts[c + 1] as usize];
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
                        let n = ny as usize * cols + nx as usize;
                        for &j in &self.sorted[self.starts[n] as usize..self.starts[n + 1] as usize]
                        {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use quadstress::oracle::{self, TestRng};

    /// Both baselines report exactly the oracle's pairs, on boxes with common exact touches.
    #[test]
    fn baselines_match_the_oracle() {
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
        // A box larger than a cell is refused, not mishandled.
        let big = [Rect::new(0.0, 0.0, 10.0, 10.0)];
        assert!(!UniformGrid::new(4.0).pairs(&big, |_, _| {}));
    }
}
