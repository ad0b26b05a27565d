//! A node's item list: the entries, plus their rectangles again in blocks of four with one
//! array per edge, so that one rectangle is tested against four stored ones with a few vector
//! instructions (the pair search and `query_rect` spend most of their time there).

use std::ops::{ControlFlow, Deref};

use super::{Entry, ItemId, Rect};

/// Four rectangles, one array per edge. A lane without an item holds [`Lanes::EMPTY`].
#[derive(Clone, Copy, Debug, PartialEq)]
struct Lanes {
    min_x: [f32; 4],
    min_y: [f32; 4],
    max_x: [f32; 4],
    max_y: [f32; 4],
}

impl Lanes {
    /// Intersects nothing: every finite rectangle fails `min_x <= other.max_x`.
    const EMPTY: Lanes = Lanes {
        min_x: [f32::INFINITY; 4],
        min_y: [f32::INFINITY; 4],
        max_x: [f32::NEG_INFINITY; 4],
        max_y: [f32::NEG_INFINITY; 4],
    };

    /// Bit `k` set when lane `k` intersects `r` (closed, as [`Rect::intersects`]).
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn hits(&self, r: &Rect) -> u32 {
        let mut mask = 0;
        for k in 0..4 {
            let hit = (self.min_x[k] <= r.max_x)
                & (r.min_x <= self.max_x[k])
                & (self.min_y[k] <= r.max_y)
                & (r.min_y <= self.max_y[k]);
            mask |= u32::from(hit) << k;
        }
        mask
    }

    /// Bit `k` set when lane `k` intersects `r` (closed, as [`Rect::intersects`]): four
    /// SSE compares. The compiler does not vectorize the lane-wise form above (it emits
    /// scalar compares and byte masks), which made the pair search 2x slower than testing
    /// one rectangle at a time.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    #[allow(unsafe_code)]
    fn hits(&self, r: &Rect) -> u32 {
        use std::arch::x86_64::*;
        // SAFETY: SSE is part of the x86_64 baseline, so these intrinsics are always
        // available; the loads read four `f32`s from `[f32; 4]` arrays (unaligned loads).
        unsafe {
            let lx = _mm_loadu_ps(self.min_x.as_ptr());
            let ly = _mm_loadu_ps(self.min_y.as_ptr());
            let hx = _mm_loadu_ps(self.max_x.as_ptr());
            let hy = _mm_loadu_ps(self.max_y.as_ptr());
            let x = _mm_and_ps(
                _mm_cmple_ps(lx, _mm_set1_ps(r.max_x)),
                _mm_cmple_ps(_mm_set1_ps(r.min_x), hx),
            );
            let y = _mm_and_ps(
                _mm_cmple_ps(ly, _mm_set1_ps(r.max_y)),
                _mm_cmple_ps(_mm_set1_ps(r.min_y), hy),
            );
            _mm_movemask_ps(_mm_and_ps(x, y)) as u32
        }
    }

    fn set(&mut self, k: usize, r: &Rect) {
        self.min_x[k] = r.min_x;
        self.min_y[k] = r.min_y;
        self.max_x[k] = r.max_x;
        self.max_y[k] = r.max_y;
    }

    fn get(&self, k: usize) -> Rect {
        Rect::new(self.min_x[k], self.min_y[k], self.max_x[k], self.max_y[k])
    }

    fn clear(&mut self, k: usize) {
        self.set(k, &Lanes::EMPTY.get(0));
    }
}

/// The items of one node. Reads go through `Deref` to the entry slice; every change goes
/// through a method here, which keeps the lanes in step with the entries.
#[derive(Debug)]
pub(super) struct ItemList<T> {
    entries: Vec<Entry<T>>,
    /// `lanes[p / 4]`, lane `p % 4`, is the rectangle of `entries[p]`.
    lanes: Vec<Lanes>,
}

impl<T> Default for ItemList<T> {
    fn default() -> Self {
        ItemList {
            entries: Vec::new(),
            lanes: Vec::new(),
        }
    }
}

impl<T> Deref for ItemList<T> {
    type Target = [Entry<T>];

    fn deref(&self) -> &[Entry<T>] {
        &self.entries
    }
}

impl<T> ItemList<T> {
    pub(super) fn push(&mut self, entry: Entry<T>) {
        let p = self.entries.len();
        if p % 4 == 0 {
            // A new block is written once, whole, rather than emptied and then set.
            let mut lanes = Lanes::EMPTY;
            lanes.set(0, &entry.rect);
            self.lanes.push(lanes);
        } else if let Some(lanes) = self.lanes.last_mut() {
            lanes.set(p % 4, &entry.rect);
        }
        self.entries.push(entry);
    }

    /// Removes the entry at `pos`; the last entry takes its place.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    pub(super) fn swap_remove(&mut self, pos: usize) -> Entry<T> {
        let last = self.entries.len() - 1;
        let entry = self.entries.swap_remove(pos);
        if pos != last {
            let moved = self.lanes[last / 4].get(last % 4);
            self.lanes[pos / 4].set(pos % 4, &moved);
        }
        if last % 4 == 0 {
            self.lanes.pop();
        } else {
            self.lanes[last / 4].clear(last % 4);
        }
        entry
    }

    /// Changes the rectangle of the entry at `pos`.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    pub(super) fn set_rect(&mut self, pos: usize, rect: Rect) {
        self.entries[pos].rect = rect;
        self.lanes[pos / 4].set(pos % 4, &rect);
    }

    pub(super) fn value_mut(&mut self, pos: usize) -> Option<&mut T> {
        self.entries.get_mut(pos).map(|e| &mut e.value)
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.lanes.clear();
    }

    pub(super) fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
        let blocks = (self.entries.len() + additional).div_ceil(4);
        self.lanes.reserve(blocks.saturating_sub(self.lanes.len()));
    }

    /// Empties the list, handing out its entries.
    pub(super) fn drain(&mut self) -> std::vec::Drain<'_, Entry<T>> {
        self.lanes.clear();
        self.entries.drain(..)
    }

    /// Moves every entry to the end of `out`.
    pub(super) fn move_into(&mut self, out: &mut Vec<Entry<T>>) {
        self.lanes.clear();
        out.append(&mut self.entries);
    }

    /// Calls `f` for every entry at position `from` or later whose rectangle intersects `r`
    /// (closed), until `f` returns `Break`.
    #[inline]
    pub(super) fn for_each_hit<F>(&self, r: &Rect, from: usize, mut f: F) -> ControlFlow<()>
    where
        F: FnMut(&Entry<T>) -> ControlFlow<()>,
    {
        let first = from / 4;
        let Some(blocks) = self.lanes.get(first..) else {
            return ControlFlow::Continue(());
        };
        // Lanes before `from` in its block are masked off.
        let mut skip = !0u32 << (from % 4);
        for (b, lanes) in blocks.iter().enumerate() {
            let mut mask = lanes.hits(r) & skip;
            skip = !0;
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                f(&self.entries[(first + b) * 4 + k])?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Appends the handle of every entry whose rectangle intersects `r` (closed). Near a query
    /// about half the entries hit, so the handles are gathered without a branch per entry.
    #[inline]
    pub(super) fn gather_hits(&self, r: &Rect, out: &mut Vec<ItemId>) {
        const BLOCKS: usize = 16;
        let mut found = [ItemId {
            index: 0,
            generation: 0,
        }; 4 * BLOCKS];
        for (lanes, entries) in self
            .lanes
            .chunks(BLOCKS)
            .zip(self.entries.chunks(4 * BLOCKS))
        {
            let mut k = 0;
            for (b, lanes) in lanes.iter().enumerate() {
                let mask = lanes.hits(r);
                for (l, e) in entries[4 * b..].iter().take(4).enumerate() {
                    found[k] = e.id;
                    k += ((mask >> l) & 1) as usize;
                }
            }
            out.extend_from_slice(&found[..k]);
        }
    }

    /// Whether the lanes match the entries, lane for lane, with empty lanes past the end.
    pub(super) fn lanes_consistent(&self) -> bool {
        self.lanes.len() == self.entries.len().div_ceil(4)
            && self.lanes.iter().enumerate().all(|(b, lanes)| {
                (0..4).all(|k| match self.entries.get(b * 4 + k) {
                    Some(e) => lanes.get(k) == e.rect,
                    None => lanes.get(k) == Lanes::EMPTY.get(0),
                })
            })
    }
}
