//! The list's invariants, as `validate` checks them.

use super::runs::{across_of, key_of};
use super::{ItemList, Lanes, Rect, W};

impl<T> ItemList<T> {
    /// Whether there is one block per eight entries, with empty lanes past the last entry,
    /// each entry in its group and inside its group's band, and each run inside its group,
    /// its keys sorted, and each of its entries within the reach its keys and slack give.
    pub(in crate::quadtree) fn lanes_consistent(&self) -> bool {
        let len = self.entries.len();
        let inside = |b: &Rect, r: &Rect| {
            b.min_x <= r.min_x && b.min_y <= r.min_y && r.max_x <= b.max_x && r.max_y <= b.max_y
        };
        let runs_fit = (0..2).all(|g| {
            let run = self.run(g);
            let (s, e) = self.group(g);
            let keys = &run.keys[run.first.min(run.keys.len())..];
            let placed = if run.len() == 0 {
                self.runs.is_none() || (run.start == s && (self.banded() || run.keys.is_empty()))
            } else {
                self.banded()
                    && (g == 1 || run.start == 0)
                    && s <= run.start
                    && run.start + run.len() <= e
            };
            let mid = run.mid;
            let sorted = |keys: &[f32]| keys.windows(2).all(|w| w[0] <= w[1]);
            placed
                && mid <= keys.len()
                && sorted(&keys[..mid])
                && sorted(&keys[mid..])
                && keys.iter().enumerate().all(|(i, &k)| {
                    let r = self.rect(run.start + i);
                    let (live, ext) = key_of(g, &r);
                    let (a, b) = across_of(g, &r);
                    let half = run.across[usize::from(i >= mid)];
                    (live as f64) >= k as f64 - run.down
                        && (live as f64) <= k as f64 + run.up
                        && ext <= run.ext
                        && half.0 <= a
                        && b <= half.1
                })
        });
        self.lanes.len() == len.div_ceil(W)
            && (len..self.lanes.len() * W)
                .all(|p| self.lanes[p / W].get(p % W) == Lanes::EMPTY.get(0))
            && self.split() <= len
            && (self.banded() || self.split() == 0)
            && runs_fit
            && (0..len).all(|p| {
                let r = self.rect(p);
                if !self.banded() {
                    return true;
                }
                self.crosses(&r) == (p < self.split())
                    && inside(&self.bands[usize::from(p >= self.split())], &r)
            })
    }
}
