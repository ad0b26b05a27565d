//! Placement: which node an item belongs in, computed directly from its rectangle rather
//! than by descending from the root.
//!
//! Rectangle edges map to integer cell coordinates at the deepest level; the mapping is
//! monotone, so two rectangles that overlap in `f32` also overlap as cell ranges, and every
//! query can prune with integers exactly. Under exact placement the highest bit set in
//! `(x0 ^ x1) | (y0 ^ y1)` gives the level where the two edges first share a cell (XOR /
//! highest-set-bit placement, as in Game Programming Gems 2, 4.5). Under loose placement an
//! item's level follows from its size and its cell from its centre. A dense table per level
//! then names the node of that cell, if it exists (`node_for`).

use super::{simd, Config, Node, Placement, Quadtree, Rect, NULL};

/// The grid the tree is cut into: the world, the deepest level, the placement rule, and the
/// monotone mapping from coordinates to deepest-level cells that every placement and query
/// uses. Everything here follows from the world and the [`Config`]; the tree's nodes are
/// `Node`s of `arena` and do not live here.
#[derive(Clone, Copy, Debug)]
pub(super) struct Grid {
    pub(super) world: Rect,
    max_depth: u8,
    /// Deepest-level cells per world unit, per axis.
    scale_x: f32,
    scale_y: f32,
    /// Largest cell coordinate at the deepest level: `2^max_depth - 1`.
    max_cell: u32,
    /// All ones under loose placement, zero under exact: masks `loose_margin`.
    loose_mask: u32,
}

impl Grid {
    /// The grid of `world` (checked: finite, positive sides whose finest scale is finite)
    /// under `config` (checked).
    pub(super) fn new(world: Rect, config: &Config) -> Grid {
        let cells = (1u32 << config.max_depth) as f32;
        Grid {
            world,
            max_depth: config.max_depth,
            scale_x: cells / world.width(),
            scale_y: cells / world.height(),
            max_cell: (1u32 << config.max_depth) - 1,
            loose_mask: match config.placement {
                Placement::Exact => 0,
                Placement::Loose => u32::MAX,
            },
        }
    }

    /// The deepest level.
    #[inline(always)]
    pub(super) fn max_depth(&self) -> u8 {
        self.max_depth
    }

    /// Whether nodes reach half a cell beyond their cells ([`Placement::Loose`]).
    #[inline(always)]
    pub(super) fn is_loose(&self) -> bool {
        self.loose_mask != 0
    }

    /// Deepest-level cell coordinates of the rectangle's edges. The mapping is monotone
    /// (subtract, multiply by a positive constant, truncate, clamp to `0..=max_cell`), which
    /// is what makes integer pruning exact: `a <= b` implies `cell(a) <= cell(b)`, so
    /// rectangles that overlap in `f32` also overlap as cell ranges. Points left of or above
    /// the world map to 0.
    #[inline]
    pub(super) fn cell_range(&self, r: &Rect) -> CellRange {
        let w = &self.world;
        let [x0, y0, x1, y1] = simd::cells4(
            [r.min_x, r.min_y, r.max_x, r.max_y],
            [w.min_x, w.min_y, w.min_x, w.min_y],
            [self.scale_x, self.scale_y, self.scale_x, self.scale_y],
            self.max_cell as f32,
        );
        CellRange { x0, y0, x1, y1 }
    }

    /// The level and cell a rectangle belongs to in the full tree, by the XOR / highest-bit
    /// trick: the number of significant bits of `x0 ^ x1` is the number of levels, counted
    /// from the bottom, that the two edges spend in different cells.
    #[inline]
    pub(super) fn place_of(&self, r: &Rect) -> Place {
        if !self.world.contains_rect(r) {
            return Place {
                level: 0,
                cx: 0,
                cy: 0,
            };
        }
        let c = self.cell_range(r);
        if self.is_loose() {
            return self.loose_place_of(c);
        }
        let bits = 32 - ((c.x0 ^ c.x1) | (c.y0 ^ c.y1)).leading_zeros();
        Place {
            level: self.max_depth - bits as u8,
            cx: c.x0 >> bits,
            cy: c.y0 >> bits,
        }
    }

    /// Loose placement, in integer cells so that queries can prune exactly: a node `2^k`
    /// deepest cells wide reaches `loose_margin` cells beyond its cell on each side, so an
    /// item whose cell span is at most `2^k` (k >= 1) fits the node of its middle cell; at the
    /// deepest level (k = 0) the margin is zero and only single-cell items fit.
    #[inline]
    pub(super) fn loose_place_of(&self, c: CellRange) -> Place {
        let span = (c.x1 - c.x0).max(c.y1 - c.y0);
        let k = if span == 0 {
            0
        } else {
            (32 - (span - 1).leading_zeros()).max(1)
        };
        if k > self.max_depth as u32 {
            return Place {
                level: 0,
                cx: 0,
                cy: 0,
            };
        }
        Place {
            level: self.max_depth - k as u8,
            cx: ((c.x0 + c.x1) >> 1) >> k,
            cy: ((c.y0 + c.y1) >> 1) >> k,
        }
    }

    /// How many deepest-level cells a node `2^shift` cells wide reaches beyond its own cell on
    /// each side: half a cell under loose placement, nothing under exact placement.
    #[inline]
    pub(super) fn loose_margin(&self, shift: u8) -> u32 {
        ((1u32 << shift) >> 1) & self.loose_mask
    }

    /// The cells of `level` whose regions can overlap `range` (deepest-level cells): the
    /// range widened by that level's loose margin (none under exact placement), then shifted.
    /// Not clamped to the level's last cell.
    #[inline]
    pub(super) fn range_at_level(&self, range: CellRange, level: u8) -> CellRange {
        let shift = self.max_depth - level;
        let m = self.loose_margin(shift);
        CellRange {
            x0: range.x0.saturating_sub(m) >> shift,
            y0: range.y0.saturating_sub(m) >> shift,
            x1: (range.x1 + m) >> shift,
            y1: (range.y1 + m) >> shift,
        }
    }

    /// Under exact placement, the rectangle that holds exactly the rectangles whose edges all
    /// map into cell `(cx, cy)` of `level` and that lie in the world: each edge is the first
    /// (or last) `f32` whose deepest-level cell is still one of the cell's, found with the
    /// very mapping placement uses, or the world's edge where the cell reaches it. So a
    /// rectangle that lies inside it and is not inverted is valid, and is placed at or below
    /// that cell ([`still_fits`](Self::still_fits) holds for a leaf there), and one `f32`
    /// further out on any side it is not. A first guess from the cell's edge is checked on
    /// both sides for all four edges at once; an edge whose guess is off is searched for a few
    /// `f32` steps around it, then (near zero, where `f32` steps are much finer than the
    /// mapping's) by bisection.
    pub(super) fn inner_bounds(&self, level: u8, cx: u32, cy: u32) -> Rect {
        let s = u32::from(self.max_depth.saturating_sub(level));
        // The first deepest-level cell of the cell, and the first one past it, per axis.
        let first = [cx << s, cy << s];
        let past = [(cx + 1) << s, (cy + 1) << s];
        let w = &self.world;
        let origin = [w.min_x, w.min_y, w.min_x, w.min_y];
        let scale = [self.scale_x, self.scale_y, self.scale_x, self.scale_y];
        let end = [w.max_x, w.max_y];
        let top = self.max_cell as f32;
        let cells = |v: [f32; 4]| simd::cells4(v, origin, scale, top);
        let at =
            |k: usize, c: u32| (f64::from(origin[k]) + f64::from(c) / f64::from(scale[k])) as f32;
        // Guesses: the first f32 of the cell (min edges) and the first past it (max edges,
        // where the last inside is the one before), the world's edges where the cell has
        // them; each must map into its side and the f32 before it (after it) must not.
        let mut edges = [0.0f32; 4];
        let mut known = [false; 4];
        for k in 0..2 {
            if first[k] == 0 {
                (edges[k], known[k]) = (origin[k], true);
            } else {
                edges[k] = at(k, first[k]);
            }
            if past[k] > self.max_cell {
                (edges[k + 2], known[k + 2]) = (end[k], true);
            } else {
                edges[k + 2] = at(k, past[k]);
            }
        }
        let here = cells(edges);
        let before = cells(edges.map(step_down));
        for k in 0..4 {
            let c = if k < 2 { first[k] } else { past[k - 2] };
            let exact = edges[k].is_finite() && here[k] >= c && before[k] < c;
            if !known[k] && !exact {
                edges[k] = first_mapped(c, edges[k], origin[k], end[k & 1], |v| cells([v; 4])[k]);
            }
        }
        Rect {
            min_x: edges[0],
            min_y: edges[1],
            max_x: if known[2] {
                edges[2]
            } else {
                step_down(edges[2])
            },
            max_y: if known[3] {
                edges[3]
            } else {
                step_down(edges[3])
            },
        }
    }

    /// Cell `(cx, cy)` of `level` in world coordinates.
    pub(super) fn cell_rect(&self, level: u8, cx: u32, cy: u32) -> Rect {
        let cells = (1u32 << level) as f32;
        let w = self.world.width() / cells;
        let h = self.world.height() / cells;
        Rect::new(
            self.world.min_x + cx as f32 * w,
            self.world.min_y + cy as f32 * h,
            self.world.min_x + (cx + 1) as f32 * w,
            self.world.min_y + (cy + 1) as f32 * h,
        )
    }

    /// The x of the vertical centre line of cell `cx` of `level`.
    pub(super) fn centre_x(&self, level: u8, cx: u32) -> f32 {
        let halves = (1u64 << (level + 1)) as f32;
        self.world.min_x + self.world.width() * ((2 * cx + 1) as f32 / halves)
    }
}

/// The next `f32` up from `v` (`f32::next_up`, which needs a newer Rust); infinities and
/// NaN stay as they are.
fn step_up(v: f32) -> f32 {
    if !v.is_finite() {
        return v;
    }
    let b = v.to_bits();
    if v == 0.0 {
        f32::from_bits(1)
    } else if v > 0.0 {
        f32::from_bits(b + 1)
    } else {
        f32::from_bits(b - 1)
    }
}

/// The next `f32` down from `v`.
fn step_down(v: f32) -> f32 {
    -step_up(-v)
}

/// `v`'s place in the order of `f32`s as an integer (for any `v` but NaN): `a < b` implies
/// `key(a) < key(b)`, and neighbouring `f32`s have neighbouring keys (both zeros apart).
fn key(v: f32) -> u32 {
    let b = v.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 1 << 31
    }
}

/// The `f32` of a [`key`].
fn from_key(k: u32) -> f32 {
    f32::from_bits(if k >> 31 == 1 { k & !(1 << 31) } else { !k })
}

/// The first `f32` in `origin..=end` that the monotone `cell` maps to `c` or more, for
/// `0 < c` and `cell(origin) == 0`, or `+inf` if even `end` maps below `c`: a few steps of
/// one `f32` from `guess`, then bisection over the `f32`s between (at most 32 steps).
fn first_mapped(c: u32, guess: f32, origin: f32, end: f32, cell: impl Fn(f32) -> u32) -> f32 {
    let mut v = guess;
    for _ in 0..GUESS_STEPS {
        if !v.is_finite() {
            break;
        }
        let (here, before) = (cell(v) >= c, cell(step_down(v)) >= c);
        if here && !before {
            return v;
        }
        v = if here { step_down(v) } else { step_up(v) };
    }
    if cell(end) < c {
        return f32::INFINITY;
    }
    // `cell` is below `c` at `lo` and reaches it at `hi`.
    let (mut lo, mut hi) = (key(origin), key(end));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if cell(from_key(mid)) >= c {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    from_key(hi)
}

/// How many steps of one `f32` [`first_mapped`] takes from its guess before it bisects.
const GUESS_STEPS: usize = 4;

/// The node a rectangle belongs to, before looking at which nodes exist: the smallest cell of
/// the full quadtree (down to `max_depth`) that contains it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Place {
    pub(super) level: u8,
    pub(super) cx: u32,
    pub(super) cy: u32,
}

/// Inclusive integer cell range at the deepest level: the pruning key of every query.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CellRange {
    pub(super) x0: u32,
    pub(super) y0: u32,
    pub(super) x1: u32,
    pub(super) y1: u32,
}

impl<T> Quadtree<T> {
    /// [`Grid::cell_range`] of the tree's grid.
    #[inline(always)]
    pub(super) fn cell_range(&self, r: &Rect) -> CellRange {
        self.grid.cell_range(r)
    }

    /// [`Grid::place_of`] of the tree's grid.
    #[inline(always)]
    pub(super) fn place_of(&self, r: &Rect) -> Place {
        self.grid.place_of(r)
    }

    /// [`Grid::range_at_level`] of the tree's grid.
    #[inline(always)]
    pub(super) fn range_at_level(&self, range: CellRange, level: u8) -> CellRange {
        self.grid.range_at_level(range, level)
    }

    /// The node that must hold an item of place `p`: the deepest existing node on the path to
    /// `p`'s cell at a level no deeper than `p.level`. Existence is monotone along a path
    /// (children come in blocks of four), so the first table hit from below is the deepest.
    #[inline]
    pub(super) fn node_for(&self, p: Place) -> u32 {
        let mut level = p.level.min(self.cells.deepest());
        loop {
            let shift = p.level - level;
            let table = self.cells.table(level);
            if !table.is_empty() {
                let idx = ((p.cy >> shift) << level | (p.cx >> shift)) as usize;
                let node = table[idx];
                if node != NULL {
                    return node;
                }
            }
            // Level 0 always holds the root, so this never underflows.
            level -= 1;
        }
    }

    /// [`Grid::fits`] of the tree's grid.
    #[inline]
    pub(super) fn fits(&self, node: &Node<T>, p: Place) -> bool {
        Grid::fits(node, p)
    }

    /// [`Grid::still_fits`] of the tree's grid.
    #[inline(always)]
    pub(super) fn still_fits(&self, node: &Node<T>, r: &Rect, inside: bool) -> bool {
        self.grid.still_fits(node, r, inside)
    }
}

impl Grid {
    /// Whether `r` lies inside the (finite) world and is not inverted
    /// ([`Rect::holds_valid`]): then it is valid without [`Rect::check`], which only the rest
    /// need.
    #[inline(always)]
    pub(super) fn holds_valid(&self, r: &Rect) -> bool {
        self.world.holds_valid(r)
    }

    /// Whether an item of place `p` belongs in `node` as the tree stands.
    #[inline]
    pub(super) fn fits<T>(node: &Node<T>, p: Place) -> bool {
        if p.level < node.level {
            return false;
        }
        let shift = p.level - node.level;
        (p.cx >> shift) == node.cx
            && (p.cy >> shift) == node.cy
            && (node.is_leaf() || p.level == node.level)
    }

    /// `fits(node, place_of(r))` for a valid rectangle `r`, `inside` saying whether the world
    /// contains it. Under exact placement, for a rectangle inside the world, it compares
    /// the four edges' cells at the node's level with the node's cell instead of computing
    /// the rectangle's level first: the level is at or below the node's exactly when both
    /// edges of each axis share the node's cell there.
    #[inline(always)]
    pub(super) fn still_fits<T>(&self, node: &Node<T>, r: &Rect, inside: bool) -> bool {
        if !inside || self.is_loose() {
            return Self::fits(node, self.place_of(r));
        }
        let c = self.cell_range(r);
        let s = u32::from(self.max_depth.saturating_sub(node.level));
        let same = (c.x0 >> s == node.cx)
            & (c.x1 >> s == node.cx)
            & (c.y0 >> s == node.cy)
            & (c.y1 >> s == node.cy);
        // An internal node keeps only rectangles of its own level: ones whose edges part at
        // the level just below (with `s == 0`, `same` already says so).
        same && (node.is_leaf() || s == 0 || ((c.x0 ^ c.x1) | (c.y0 ^ c.y1)) >> (s - 1) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quadtree::Config;

    /// A 64x64 world at depth 6: one deepest-level cell per world unit.
    fn tree(placement: Placement) -> Quadtree<()> {
        let config = Config {
            placement,
            ..Config::default()
        };
        Quadtree::with_config(Rect::new(0.0, 0.0, 64.0, 64.0), config).unwrap()
    }

    /// The grid of that tree, alone.
    fn grid(placement: Placement) -> Grid {
        tree(placement).grid
    }

    fn place(level: u8, cx: u32, cy: u32) -> Place {
        Place { level, cx, cy }
    }

    #[test]
    fn exact_level_is_where_the_edges_first_share_a_cell() {
        let t = grid(Placement::Exact);
        // Inside one deepest cell.
        assert_eq!(t.place_of(&Rect::new(1.2, 1.2, 1.8, 1.8)), place(6, 1, 1));
        // Cells 2 and 3 differ in bit 0 only: one level up, cell (1, 1).
        assert_eq!(t.place_of(&Rect::new(2.5, 2.5, 3.5, 3.5)), place(5, 1, 1));
        // Cells 3 and 4 differ up to bit 2: three levels up.
        assert_eq!(t.place_of(&Rect::new(3.5, 0.5, 4.5, 0.5)), place(3, 0, 0));
        // Crossing the world's vertical centre line: the root, however small.
        assert_eq!(
            t.place_of(&Rect::new(31.9, 10.0, 32.1, 10.1)),
            place(0, 0, 0)
        );
        // The far corner cell; a rectangle on the world's edge maps to the last cell.
        assert_eq!(
            t.place_of(&Rect::new(63.5, 63.5, 64.0, 64.0)),
            place(6, 63, 63)
        );
        // Outside the world, even partly: the root.
        assert_eq!(t.place_of(&Rect::new(-1.0, 5.0, 0.5, 5.5)), place(0, 0, 0));
        assert_eq!(t.place_of(&Rect::new(63.0, 5.0, 64.5, 5.5)), place(0, 0, 0));
    }

    #[test]
    fn loose_level_follows_size_and_cell_follows_centre() {
        let t = grid(Placement::Loose);
        // One cell: the deepest level.
        assert_eq!(t.place_of(&Rect::new(1.2, 1.2, 1.8, 1.8)), place(6, 1, 1));
        // Two cells across the world's centre: level 5 (margin half a 2-cell node), at the
        // node of its middle cell, not the root.
        assert_eq!(
            t.place_of(&Rect::new(31.5, 10.2, 32.5, 10.4)),
            place(5, 15, 5)
        );
        // Spans of 3 and 4 cells both need a node 4 cells wide.
        assert_eq!(t.place_of(&Rect::new(8.5, 8.5, 11.5, 8.6)), place(4, 2, 2));
        assert_eq!(t.place_of(&Rect::new(8.5, 8.5, 12.5, 8.6)), place(4, 2, 2));
        // Wider than half the world: the root.
        assert_eq!(t.place_of(&Rect::new(0.5, 0.5, 40.0, 1.0)), place(0, 0, 0));
    }

    /// The vector cell mapping gives what the saturating cast capped at the last cell gives,
    /// for hostile values too: NaN, infinities, `f32::MAX`, subnormals, negatives, exact
    /// cell edges and the values just beside them, with every depth.
    #[test]
    fn cells_match_the_saturating_cast() {
        let mut values = vec![
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            -f32::MAX,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            0.0,
            -0.0,
            1e9,
            -1e9,
        ];
        for k in -3..1030 {
            let v = k as f32;
            values.extend([v, v + 1e-4, v - 1e-4, v + 0.5]);
        }
        let world = [-3.0, 0.25, -3.0, 0.25];
        for depth in 0..=crate::MAX_DEPTH {
            let top = (1u32 << depth) - 1;
            let scale = [1.0, 0.75, 1.0, 0.75];
            for quad in values.chunks(4).filter(|q| q.len() == 4) {
                let v = [quad[0], quad[1], quad[2], quad[3]];
                let got = simd::cells4(v, world, scale, top as f32);
                let want: [u32; 4] =
                    std::array::from_fn(|k| (((v[k] - world[k]) * scale[k]) as u32).min(top));
                assert_eq!(got, want, "{v:?} at depth {depth}");
            }
        }
    }

    /// The shortcut of the batch update gives `fits(node, place_of(r))` for every node of a
    /// built tree and random rectangles, inside the world or across its edge.
    #[test]
    fn still_fits_agrees_with_fits_of_place_of() {
        let mut state = 5u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        for placement in [Placement::Exact, Placement::Loose] {
            let mut t = tree(placement);
            for _ in 0..3_000 {
                let (x, y) = (next() * 64.0, next() * 64.0);
                t.insert(Rect::from_min_size(x, y, 0.3, 0.3), ()).unwrap();
            }
            for _ in 0..5_000 {
                let (x, y) = (next() * 70.0 - 3.0, next() * 70.0 - 3.0);
                let size = next().powi(3) * 20.0;
                let r = Rect::new(x, y, x + size, y + size);
                let inside = t.grid.world.contains_rect(&r);
                for node in t.nodes.iter().filter(|n| n.live) {
                    assert_eq!(
                        t.still_fits(node, &r, inside),
                        t.fits(node, t.place_of(&r)),
                        "{placement:?} {r:?} at level {} cell {} {}",
                        node.level,
                        node.cx,
                        node.cy
                    );
                }
            }
        }
    }

    /// Every valid rectangle inside a cell's `inner_bounds` lies in the world and is placed
    /// at or below that cell, and the bounds are tight (one `f32` further out leaves the cell
    /// or the world), in worlds near and far from the origin, tiny and huge.
    #[test]
    fn inner_bounds_hold_only_what_stays_in_the_cell() {
        let mut rng = quadstress_testkit::TestRng::new(11);
        let mut next = move || rng.unit();
        let worlds = [
            Rect::new(0.0, 0.0, 64.0, 64.0),
            Rect::new(0.0, 0.0, 1264.9, 1264.9),
            Rect::new(1.0e6, -3.0e5, 1.0e6 + 1264.9, -3.0e5 + 777.7),
            Rect::new(-1.0e-3, -1.0e-3, 1.0e-3, 2.0e-3),
            Rect::new(-1.0e30, -1.0e30, 1.0e30, 1.0e30),
            Rect::new(-0.3, 7.0, 0.2, 7.5),
        ];
        let (mut edges, mut tight) = (0, 0);
        for world in worlds {
            for max_depth in [0u8, 1, 3, 6, 10] {
                let config = Config {
                    max_depth,
                    ..Config::default()
                };
                let g = Grid::new(world, &config);
                for _ in 0..200 {
                    let level = (next() * f32::from(max_depth + 1)) as u8;
                    let level = level.min(max_depth);
                    let cells = 1u32 << level;
                    let (cx, cy) = (
                        ((next() * cells as f32) as u32).min(cells - 1),
                        ((next() * cells as f32) as u32).min(cells - 1),
                    );
                    let b = g.inner_bounds(level, cx, cy);
                    let stays = |r: &Rect| {
                        let p = g.place_of(r);
                        g.holds_valid(r)
                            && p.level >= level
                            && p.cx >> (p.level - level) == cx
                            && p.cy >> (p.level - level) == cy
                    };
                    assert!(
                        b.min_x <= b.max_x && b.min_y <= b.max_y,
                        "{world:?} depth {max_depth} cell {level} {cx} {cy}: {b:?}"
                    );
                    // The corners, the whole and random rectangles inside.
                    let mut inside = vec![
                        b,
                        Rect::new(b.min_x, b.min_y, b.min_x, b.min_y),
                        Rect::new(b.max_x, b.max_y, b.max_x, b.max_y),
                    ];
                    for _ in 0..20 {
                        let (x0, x1) = (next(), next());
                        let (y0, y1) = (next(), next());
                        let x = |t: f32| b.min_x + (b.max_x - b.min_x) * t;
                        let y = |t: f32| b.min_y + (b.max_y - b.min_y) * t;
                        let r =
                            Rect::new(x(x0.min(x1)), y(y0.min(y1)), x(x0.max(x1)), y(y0.max(y1)));
                        if b.contains_rect(&r) {
                            inside.push(r);
                        }
                    }
                    for r in &inside {
                        assert!(
                            stays(r),
                            "{world:?} depth {max_depth} cell {level} {cx} {cy}: {b:?} holds {r:?}"
                        );
                    }
                    // One step further out on each side.
                    let outside = [
                        Rect {
                            min_x: step_down(b.min_x),
                            ..b
                        },
                        Rect {
                            min_y: step_down(b.min_y),
                            ..b
                        },
                        Rect {
                            max_x: step_up(b.max_x),
                            ..b
                        },
                        Rect {
                            max_y: step_up(b.max_y),
                            ..b
                        },
                    ];
                    edges += outside.len();
                    tight += outside.iter().filter(|r| !stays(r)).count();
                }
            }
        }
        assert_eq!(tight, edges, "every edge tight");
    }

    #[test]
    fn loose_margin_is_half_a_cell_and_none_when_exact() {
        let (e, l) = (grid(Placement::Exact), grid(Placement::Loose));
        for shift in 0..=6u8 {
            assert_eq!(e.loose_margin(shift), 0);
            assert_eq!(l.loose_margin(shift), (1u32 << shift) / 2);
        }
        // The range of a node level widens by that margin before shifting.
        let r = CellRange {
            x0: 10,
            y0: 10,
            x1: 10,
            y1: 10,
        };
        let at = |t: &Grid, level| {
            let c = t.range_at_level(r, level);
            (c.x0, c.y0, c.x1, c.y1)
        };
        assert_eq!(at(&e, 4), (2, 2, 2, 2));
        // Level 4 nodes are 4 cells wide and reach 2 beyond: cells 8..=12 -> nodes 2..=3.
        assert_eq!(at(&l, 4), (2, 2, 3, 3));
        assert_eq!(at(&l, 6), (10, 10, 10, 10));
    }

    /// Every placement of random rectangles holds the rectangle in the node's region (its cell,
    /// widened by the loose margin) and, under exact placement, no child could hold it.
    #[test]
    fn random_rectangles_fit_their_place_and_no_deeper() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        for placement in [Placement::Exact, Placement::Loose] {
            let t = grid(placement);
            for _ in 0..20_000 {
                let (x, y) = (next() * 64.0, next() * 64.0);
                let size = next().powi(3) * 40.0;
                let r = Rect::new(x, y, (x + size).min(64.0), (y + size).min(64.0));
                let p = t.place_of(&r);
                let c = t.cell_range(&r);
                let shift = 6 - p.level;
                let m = t.loose_margin(shift);
                let lo = |cell: u32| (cell << shift).saturating_sub(m);
                let hi = |cell: u32| ((cell + 1) << shift) - 1 + m;
                assert!(
                    lo(p.cx) <= c.x0 && c.x1 <= hi(p.cx),
                    "{placement:?} {r:?} {p:?}"
                );
                assert!(
                    lo(p.cy) <= c.y0 && c.y1 <= hi(p.cy),
                    "{placement:?} {r:?} {p:?}"
                );
                if placement == Placement::Exact && p.level < 6 {
                    let s = shift - 1;
                    let one_child = c.x0 >> s == c.x1 >> s && c.y0 >> s == c.y1 >> s;
                    assert!(!one_child, "{r:?} fits a child of {p:?}");
                }
            }
        }
    }

    /// A cell's rectangle holds the points that map into that cell (away from its edges,
    /// where rounding may pick either side), its centre line halves it, and a grid made anew
    /// from another config follows that config.
    #[test]
    fn cell_rects_hold_what_maps_into_them() {
        let world = Rect::new(-3.0, 10.0, 97.0, 30.0);
        for placement in [Placement::Exact, Placement::Loose] {
            for max_depth in [0u8, 1, 4, 6] {
                let config = Config {
                    placement,
                    max_depth,
                    ..Config::default()
                };
                let g = Grid::new(world, &config);
                assert_eq!(g.is_loose(), placement == Placement::Loose);
                for level in 0..=max_depth {
                    let n = 1u32 << level;
                    for c in [0, n / 2, n - 1] {
                        let r = g.cell_rect(level, c, c);
                        let mid = r.center();
                        assert!((g.centre_x(level, c) - mid.0).abs() <= 1e-4 * world.width());
                        let p = g.cell_range(&Rect::new(mid.0, mid.1, mid.0, mid.1));
                        let s = max_depth - level;
                        assert_eq!((p.x0 >> s, p.y0 >> s), (c, c), "{placement:?} {level}");
                    }
                }
                // The whole world's cells tile it.
                let last = (1u32 << max_depth) - 1;
                let full = g.cell_range(&world);
                assert_eq!((full.x0, full.y0, full.x1, full.y1), (0, 0, last, last));
            }
        }
    }
}
