//! The list's storage: entries and lanes kept in step, the two groups of a banded list and
//! their bands, and every change (push, remove, move, rewrite), which keeps the runs in step
//! through [`runs`](super::runs).

use super::{simd, ItemList, Lanes, BANDED_BLOCKS, EMPTY_BOUNDS, W};
use crate::quadtree::{Entry, ItemMut, ItemRef, Rect, TreeId};

/// The entries of one list with their rectangles, payloads mutable; see
/// [`ItemList::entries_mut`].
pub(in crate::quadtree) struct EntriesMut<'a, T> {
    entries: std::slice::IterMut<'a, Entry<T>>,
    lanes: &'a [Lanes],
    pos: usize,
    tree: TreeId,
}

impl<T> Default for EntriesMut<'_, T> {
    fn default() -> Self {
        EntriesMut {
            entries: Default::default(),
            lanes: &[],
            pos: 0,
            tree: TreeId::NONE,
        }
    }
}

impl<'a, T> Iterator for EntriesMut<'a, T> {
    type Item = ItemMut<'a, T>;

    #[inline]
    fn next(&mut self) -> Option<ItemMut<'a, T>> {
        let e = self.entries.next()?;
        let rect = self.lanes[self.pos / W].get(self.pos % W);
        self.pos += 1;
        Some(ItemMut {
            id: e.id.handle(self.tree),
            rect,
            value: &mut e.value,
        })
    }
}

/// Grows `b` to contain `r`. No stored rectangle holds a NaN, so compare-and-select (the
/// processors' own min and max) does what `f32::min` and `f32::max` would, in fewer
/// instructions.
#[inline(always)]
pub(super) fn grow(b: &mut Rect, r: &Rect) {
    b.min_x = if r.min_x < b.min_x { r.min_x } else { b.min_x };
    b.min_y = if r.min_y < b.min_y { r.min_y } else { b.min_y };
    b.max_x = if r.max_x > b.max_x { r.max_x } else { b.max_x };
    b.max_y = if r.max_y > b.max_y { r.max_y } else { b.max_y };
}

/// Entries apart between two prefetch requests: each brings two lines (128 bytes), as many
/// entries as fit in them.
const fn entries_per_request<T>() -> usize {
    let n = 128 / std::mem::size_of::<Entry<T>>();
    if n == 0 {
        1
    } else {
        n
    }
}

impl<T> ItemList<T> {
    /// An empty list of the tree `tree`.
    pub(in crate::quadtree) fn new(tree: TreeId) -> Self {
        ItemList {
            entries: Vec::new(),
            lanes: Vec::new(),
            tree,
            split: 0,
            centre_x: f32::NAN,
            bands: [EMPTY_BOUNDS; 2],
            runs: None,
        }
    }

    /// The tree whose handles this list hands out.
    pub(in crate::quadtree) fn tree(&self) -> TreeId {
        self.tree
    }

    /// Hands out handles of the tree `tree` from now on: a clone's lists.
    pub(in crate::quadtree) fn set_tree(&mut self, tree: TreeId) {
        self.tree = tree;
    }

    /// Makes this the list of an internal node whose vertical centre line is at `centre_x`:
    /// sorts the entries into their groups and computes the bands. Entries move: the caller
    /// sets their slots afterwards. The groups get their runs from
    /// [`sort_runs`](Self::sort_runs).
    pub(in crate::quadtree) fn make_banded(&mut self, centre_x: f32) {
        debug_assert!(!centre_x.is_nan());
        self.centre_x = centre_x;
        let mut split = 0;
        for p in 0..self.entries.len() {
            if self.crosses(&self.rect(p)) {
                self.swap(split, p);
                split += 1;
            }
        }
        self.split = split as u32;
        self.reset_runs();
        self.refresh_bands();
    }

    /// Whether the list keeps its groups and bands (an internal node's list): it knows the
    /// node's centre line then.
    #[inline(always)]
    pub(super) fn banded(&self) -> bool {
        !self.centre_x.is_nan()
    }

    /// Entries before this position cross the centre line; zero when not banded.
    #[inline(always)]
    pub(super) fn split(&self) -> usize {
        self.split as usize
    }

    /// Makes this a leaf's list: no groups, no bands, no runs.
    pub(in crate::quadtree) fn unband(&mut self) {
        self.centre_x = f32::NAN;
        self.split = 0;
        self.bands = [EMPTY_BOUNDS; 2];
        self.reset_runs();
    }

    /// Whether `r` goes in the crossing group.
    #[inline(always)]
    pub(super) fn crosses(&self, r: &Rect) -> bool {
        r.min_x <= self.centre_x && self.centre_x <= r.max_x
    }

    /// The positions of group `g`.
    #[inline(always)]
    pub(super) fn group(&self, g: usize) -> (usize, usize) {
        if g == 0 {
            (0, self.split())
        } else {
            (self.split(), self.entries.len())
        }
    }

    /// The group of position `pos`: 0 for the crossing group.
    #[inline(always)]
    pub(super) fn group_of(&self, pos: usize) -> usize {
        usize::from(pos >= self.split())
    }

    /// Appends an entry to its group (to its run's unsorted tail) and returns its position.
    /// An entry that had to make room for it is reported to `moved` with its new position.
    #[inline]
    pub(in crate::quadtree) fn push(
        &mut self,
        rect: Rect,
        entry: Entry<T>,
        mut moved: impl FnMut(&Entry<T>, usize),
    ) -> usize {
        let p = self.entries.len();
        self.push_last(rect, entry);
        if !self.banded() {
            return p;
        }
        let cross = self.crosses(&rect);
        grow(&mut self.bands[usize::from(!cross)], &rect);
        if !cross {
            return p;
        }
        let s = self.split();
        self.split += 1;
        if s != p {
            // The other group's first entry makes room, and joins that group's tail.
            self.swap(s, p);
            moved(&self.entries[p], p);
        }
        if self.runs.is_some() {
            self.leave_front_of_run(s);
        }
        s
    }

    /// The order in which pushing entries with these rectangles into this empty list, one
    /// after the other, would leave them (see [`push`](Self::push)): `None` when in the order
    /// given (a leaf's list), else written to `perm` (entry `perm[p]` at position `p`). The
    /// groups and bands are set as those pushes set them; the entries themselves are then
    /// appended in that order by [`fill_in_order`](Self::fill_in_order).
    #[inline]
    pub(in crate::quadtree) fn fill_order<'p>(
        &mut self,
        rects: impl Iterator<Item = Rect>,
        perm: &'p mut Vec<u32>,
    ) -> Option<&'p [u32]> {
        debug_assert!(self.entries.is_empty() && self.lanes.is_empty());
        if !self.banded() {
            return None;
        }
        // A crossing entry goes to the end of the crossing group, and the other group's first
        // entry, if any, makes room for it at the end of the list. The bands grow in push
        // order, as the pushes grow them.
        perm.clear();
        let mut split = 0;
        for (k, r) in rects.enumerate() {
            let p = perm.len();
            perm.push(k as u32);
            let cross = self.crosses(&r);
            grow(&mut self.bands[usize::from(!cross)], &r);
            if cross {
                perm.swap(split, p);
                split += 1;
            }
        }
        self.split = split as u32;
        // The runs as the pushes leave them (`leave_front_of_run`): both empty, the other
        // group's at the border.
        self.reset_runs();
        Some(perm)
    }

    /// Appends these entries with their rectangles to an empty list, in the order given: the
    /// lanes a whole block at a time. A leaf's list takes them in the order pushes would
    /// leave them; a banded list's order comes from [`fill_order`](Self::fill_order), which
    /// also sets its groups and bands.
    #[inline(always)]
    pub(in crate::quadtree) fn fill_in_order(
        &mut self,
        items: impl ExactSizeIterator<Item = (Rect, Entry<T>)>,
    ) {
        debug_assert!(self.entries.len() % W == 0 && self.lanes.len() * W == self.entries.len());
        let n = items.len();
        self.entries.reserve(n);
        self.lanes.reserve(n.div_ceil(W));
        let mut block = Lanes::EMPTY;
        let mut j = 0;
        for (rect, entry) in items {
            block.set(j, &rect);
            self.entries.push(entry);
            j += 1;
            if j == W {
                self.lanes.push(block);
                block = Lanes::EMPTY;
                j = 0;
            }
        }
        if j != 0 {
            self.lanes.push(block);
        }
    }

    #[inline(always)]
    pub(super) fn push_last(&mut self, rect: Rect, entry: Entry<T>) {
        let p = self.entries.len();
        if p % W == 0 {
            // A new block is written once, whole, rather than emptied and then set.
            let mut lanes = Lanes::EMPTY;
            lanes.set(0, &rect);
            self.lanes.push(lanes);
        } else if let Some(lanes) = self.lanes.last_mut() {
            lanes.set(p % W, &rect);
        }
        self.entries.push(entry);
    }

    /// Exchanges two entries with their rectangles.
    pub(super) fn swap(&mut self, i: usize, j: usize) {
        self.entries.swap(i, j);
        let (a, b) = (self.rect(i), self.rect(j));
        self.lanes[i / W].set(i % W, &b);
        self.lanes[j / W].set(j % W, &a);
    }

    /// Whether the entry at `pos` may take the rectangle `r` in place, without changing its
    /// group (always in a leaf's list).
    #[inline(always)]
    pub(in crate::quadtree) fn keeps_group(&self, pos: usize, r: &Rect) -> bool {
        !self.banded() || (pos < self.split()) == self.crosses(r)
    }

    /// Changes the rectangle of the entry at `pos` to `rect`, which keeps the entry's group
    /// (see [`keeps_group`](Self::keeps_group)): no entry moves.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    #[inline(always)]
    pub(in crate::quadtree) fn set_rect_in_group(&mut self, pos: usize, rect: Rect) {
        debug_assert!(pos < self.entries.len() && self.keeps_group(pos, &rect));
        self.lanes[pos / W].set(pos % W, &rect);
        if self.banded() {
            grow(&mut self.bands[self.group_of(pos)], &rect);
            if self.runs.is_some() {
                self.note_apart(pos);
            }
        }
    }

    /// Rewrites in place the rectangle of every entry that `new_rect` (given the entry's slot
    /// index) gives one for, then recomputes the bands if it rewrote any. No entry moves:
    /// each new rectangle must keep its entry's group (see [`keeps_group`](Self::keeps_group)).
    /// `ahead` is told each entry's slot index two blocks before `new_rect` is asked for it,
    /// so that it can request what `new_rect` will read (a hint: it must change nothing).
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))]
    #[inline]
    pub(in crate::quadtree) fn rewrite_each(
        &mut self,
        mut new_rect: impl FnMut(u32) -> Option<Rect>,
        ahead: impl Fn(u32),
    ) {
        if self.runs.is_some() {
            // A rewritten entry in a run is written into it as a move would be.
            let mut rewritten = false;
            for p in 0..self.entries.len() {
                if let Some(r) = new_rect(self.entries[p].id.index) {
                    self.lanes[p / W].set(p % W, &r);
                    self.note(p);
                    rewritten = true;
                }
            }
            if rewritten {
                self.refresh_bands();
            }
            return;
        }
        let mut rewritten = false;
        // The entries two blocks on, announced one block at a time.
        let mut announced = self.entries.iter();
        announced
            .by_ref()
            .take(2 * W)
            .for_each(|e| ahead(e.id.index));
        for (lanes, entries) in self.lanes.iter_mut().zip(self.entries.chunks(W)) {
            announced.by_ref().take(W).for_each(|e| ahead(e.id.index));
            for (k, e) in entries.iter().enumerate() {
                if let Some(r) = new_rect(e.id.index) {
                    lanes.set(k, &r);
                    rewritten = true;
                }
            }
        }
        if rewritten && self.banded() {
            self.refresh_bands();
        }
    }

    /// Rewrites in place the rectangle of each entry from `rects`, one per entry in list
    /// order, except those whose `min_x` is NaN (which no stored rectangle has: the entries
    /// that go elsewhere), then recomputes the bands. As for
    /// [`rewrite_each`](Self::rewrite_each), each new rectangle must keep its entry's group.
    ///
    /// # Panics
    /// If `rects` holds fewer rectangles than the list has entries.
    #[inline]
    pub(in crate::quadtree) fn rewrite_from(&mut self, rects: &[Rect]) {
        let rects = &rects[..self.entries.len()];
        if self.runs.is_some() {
            for (p, r) in rects.iter().enumerate() {
                if !r.min_x.is_nan() {
                    self.lanes[p / W].set(p % W, r);
                    self.note(p);
                }
            }
        } else {
            for (lanes, block) in self.lanes.iter_mut().zip(rects.chunks(W)) {
                for (k, r) in block.iter().enumerate() {
                    if !r.min_x.is_nan() {
                        lanes.set(k, r);
                    }
                }
            }
        }
        if self.banded() {
            self.refresh_bands();
        }
    }

    /// Writes `rect` over the rectangle of the entry at `pos`, which it must keep in its group
    /// (see [`keeps_group`](Self::keeps_group)), and returns the rectangle it replaced. The
    /// bands are left as they were: after a series of these,
    /// [`refresh_bands`](Self::refresh_bands) makes them right.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    #[inline(always)]
    pub(in crate::quadtree) fn replace_in_group(&mut self, pos: usize, rect: &Rect) -> Rect {
        let lanes = &mut self.lanes[pos / W];
        let old = lanes.get(pos % W);
        lanes.set(pos % W, rect);
        self.note(pos);
        old
    }

    /// Whether the list keeps neither groups nor runs (a leaf's list): then any rectangle
    /// may be written over any entry's.
    #[inline(always)]
    pub(in crate::quadtree) fn is_plain(&self) -> bool {
        !self.banded() && self.runs.is_none()
    }

    /// For a plain list (see [`is_plain`](Self::is_plain)), with one rectangle in `rects`
    /// per entry: writes each rectangle that `stays` accepts over its entry's and puts the
    /// replaced one in its place in `rects`, and appends the positions of the others to
    /// `rest`, in list order.
    ///
    /// # Panics
    /// If `rects` is shorter than the list.
    #[inline(always)]
    pub(in crate::quadtree) fn swap_in_staying(
        &mut self,
        rects: &mut [Rect],
        stays: impl Fn(&Rect) -> bool,
        rest: &mut Vec<u32>,
    ) {
        debug_assert!(self.is_plain());
        let rects = &mut rects[..self.entries.len()];
        for (b, (lanes, block)) in self.lanes.iter_mut().zip(rects.chunks_mut(W)).enumerate() {
            for (k, kept) in block.iter_mut().enumerate() {
                let new = *kept;
                if stays(&new) {
                    *kept = lanes.get(k);
                    lanes.set(k, &new);
                } else {
                    rest.push((b * W + k) as u32);
                }
            }
        }
    }

    /// Asks the CPU to bring the room past the list's end into its caches, ahead of a fill
    /// (see `simd::prefetch`): the first blocks of lanes and entries a list of a full
    /// leaf's size writes. A hint only.
    #[inline(always)]
    pub(in crate::quadtree) fn prefetch_room(&mut self) {
        const LEAF: usize = 4 * W;
        for block in self.lanes.spare_capacity_mut().iter().take(LEAF / W) {
            simd::prefetch(block);
        }
        let apart = entries_per_request::<T>();
        for entry in self
            .entries
            .spare_capacity_mut()
            .iter()
            .step_by(apart)
            .take(LEAF.div_ceil(apart))
        {
            simd::prefetch(entry);
        }
    }

    /// Asks the CPU to bring the first `n` entries into its caches (see `simd::prefetch`): a
    /// hint only.
    #[inline(always)]
    pub(in crate::quadtree) fn prefetch_entries(&self, n: usize) {
        for entry in self
            .entries
            .iter()
            .take(n)
            .step_by(entries_per_request::<T>())
        {
            simd::prefetch(entry);
        }
    }

    /// Asks the CPU to bring the first `blocks` blocks of lanes into its caches (see
    /// `simd::prefetch`): a hint only.
    #[inline(always)]
    pub(in crate::quadtree) fn prefetch_blocks(&self, blocks: usize) {
        for block in self.lanes.iter().take(blocks) {
            simd::prefetch(block);
        }
    }

    /// Asks the CPU to bring the lanes and the entry at `pos` into its caches, ahead of a
    /// removal or a write there (see `simd::prefetch`): a hint only, and none for a position
    /// past the end.
    #[inline(always)]
    pub(in crate::quadtree) fn prefetch_at(&self, pos: usize) {
        if let Some(block) = self.lanes.get(pos / W) {
            simd::prefetch(block);
        }
        if let Some(entry) = self.entries.get(pos) {
            simd::prefetch(entry);
        }
    }

    /// [`prefetch_at`](Self::prefetch_at) for the last entry: the one a removal moves into
    /// the hole, and the end a push writes after.
    #[inline(always)]
    pub(in crate::quadtree) fn prefetch_last(&self) {
        if let Some(last) = self.entries.len().checked_sub(1) {
            self.prefetch_at(last);
        }
    }

    /// Recomputes both bands from the items: after many leave at once.
    pub(in crate::quadtree) fn refresh_bands(&mut self) {
        self.bands = [EMPTY_BOUNDS; 2];
        if !self.banded() {
            return;
        }
        for p in 0..self.entries.len() {
            let r = self.rect(p);
            grow(&mut self.bands[usize::from(p >= self.split())], &r);
        }
    }

    /// The rectangle of the entry at `pos`.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    #[inline]
    pub(in crate::quadtree) fn rect(&self, pos: usize) -> Rect {
        assert!(pos < self.entries.len());
        self.lanes[pos / W].get(pos % W)
    }

    /// The entry at `pos` with its rectangle, as queries hand it out.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    #[inline(always)]
    pub(in crate::quadtree) fn item(&self, pos: usize) -> ItemRef<'_, T> {
        let e = &self.entries[pos];
        ItemRef {
            id: e.id.handle(self.tree),
            rect: self.lanes[pos / W].get(pos % W),
            value: &e.value,
        }
    }

    /// Writes `f(item)` for every item, in list order, into `out`, one place per item:
    /// [`item`](Self::item) for each position without its index checks, so that a caller
    /// whose `f` reads scattered data keeps many of those reads in flight.
    ///
    /// # Panics
    /// If `out` is shorter than the list, or if `f` panics.
    #[inline(always)]
    pub(in crate::quadtree) fn map_items<R>(
        &self,
        out: &mut [R],
        mut f: impl FnMut(ItemRef<'_, T>) -> R,
    ) {
        let out = &mut out[..self.entries.len()];
        let blocks = self.lanes.iter().zip(self.entries.chunks(W));
        for ((lanes, entries), out) in blocks.zip(out.chunks_mut(W)) {
            for ((e, o), k) in entries.iter().zip(out).zip(0..W) {
                *o = f(ItemRef {
                    id: e.id.handle(self.tree),
                    rect: lanes.get(k),
                    value: &e.value,
                });
            }
        }
    }

    /// The smallest rectangle containing every item here, or `None` for an empty list.
    /// Empty lanes hold infinities that lose every `min` and `max`, so whole blocks are
    /// folded, four lanes at a time.
    #[inline]
    pub(in crate::quadtree) fn bounds(&self) -> Option<Rect> {
        simd::bounds8(
            self.lanes
                .iter()
                .map(|l| [&l.min_x, &l.min_y, &l.max_x, &l.max_y]),
        )
    }

    /// Every entry with its rectangle, in list order.
    #[inline]
    pub(in crate::quadtree) fn items(&self) -> impl Iterator<Item = ItemRef<'_, T>> + '_ {
        (0..self.entries.len()).map(|p| self.item(p))
    }

    /// Removes the entry at `pos` and returns it with its rectangle. The entries that take
    /// its place (the last of its group, and the last entry) are reported to `moved` with
    /// their new positions.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    pub(in crate::quadtree) fn swap_remove(
        &mut self,
        mut pos: usize,
        mut moved: impl FnMut(&Entry<T>, usize),
    ) -> (Rect, Entry<T>) {
        if self.runs.is_some() {
            return self.swap_remove_in_runs(pos, moved);
        }
        if pos < self.split() {
            // The last of the crossing group fills the hole, and its place becomes the first
            // of the rest, which the list's last entry fills below.
            let s = self.split() - 1;
            if pos != s {
                self.swap(pos, s);
                moved(&self.entries[pos], pos);
            }
            self.split = s as u32;
            pos = s;
        }
        let last = self.entries.len() - 1;
        let rect = self.rect(pos);
        let entry = self.entries.swap_remove(pos);
        if pos != last {
            let m = self.lanes[last / W].get(last % W);
            self.lanes[pos / W].set(pos % W, &m);
            moved(&self.entries[pos], pos);
        }
        if last % W == 0 {
            self.lanes.pop();
        } else {
            self.lanes[last / W].clear(last % W);
        }
        if self.entries.is_empty() {
            self.bands = [EMPTY_BOUNDS; 2];
        }
        (rect, entry)
    }

    /// Changes the rectangle of the entry at `pos` and returns its position, which changes
    /// when it changes group; the entry it changed places with is reported to `moved`.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    #[inline]
    pub(in crate::quadtree) fn set_rect(
        &mut self,
        pos: usize,
        rect: Rect,
        mut moved: impl FnMut(&Entry<T>, usize),
    ) -> usize {
        assert!(pos < self.entries.len());
        self.lanes[pos / W].set(pos % W, &rect);
        if !self.banded() {
            return pos;
        }
        let cross = self.crosses(&rect);
        grow(&mut self.bands[usize::from(!cross)], &rect);
        if self.runs.is_some() {
            return self.set_rect_in_runs(pos, cross, moved);
        }
        // No runs to keep: the groups alone, as cheap as a move can be.
        let to = match (pos < self.split(), cross) {
            (true, false) => {
                self.split -= 1;
                self.split()
            }
            (false, true) => {
                self.split += 1;
                self.split() - 1
            }
            _ => return pos,
        };
        if to != pos {
            self.swap(pos, to);
            moved(&self.entries[pos], pos);
        }
        to
    }

    pub(in crate::quadtree) fn value_mut(&mut self, pos: usize) -> Option<&mut T> {
        self.entries.get_mut(pos).map(|e| &mut e.value)
    }

    pub(in crate::quadtree) fn clear(&mut self) {
        self.entries.clear();
        self.lanes.clear();
        self.split = 0;
        self.bands = [EMPTY_BOUNDS; 2];
        self.reset_runs();
    }

    /// Entries the list holds room for.
    pub(in crate::quadtree) fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Gives back memory beyond room for `keep` entries (or the entries held, if more).
    pub(in crate::quadtree) fn shrink_to(&mut self, keep: usize) {
        self.entries.shrink_to(keep);
        self.lanes.shrink_to(keep.div_ceil(W));
    }

    pub(in crate::quadtree) fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
        let blocks = (self.entries.len() + additional).div_ceil(W);
        self.lanes.reserve(blocks.saturating_sub(self.lanes.len()));
    }

    /// Moves every entry of `from` to the end of this list, calling `moved` with each one and
    /// its new position. Both lists keep their allocations.
    pub(in crate::quadtree) fn append_from(
        &mut self,
        from: &mut ItemList<T>,
        mut moved: impl FnMut(&Entry<T>, usize),
    ) {
        for (p, entry) in from.entries.drain(..).enumerate() {
            let rect = from.lanes[p / W].get(p % W);
            let at = self.push(rect, entry, &mut moved);
            moved(&self.entries[at], at);
        }
        from.clear();
    }

    /// Moves every entry, with its rectangle, to the end of `out`.
    pub(in crate::quadtree) fn move_into(&mut self, out: &mut Vec<(Rect, Entry<T>)>) {
        let lanes = &self.lanes;
        out.extend(
            self.entries
                .drain(..)
                .enumerate()
                .map(|(p, e)| (lanes[p / W].get(p % W), e)),
        );
        self.clear();
    }

    /// Blocks of `W` rectangles: entry `p` is in block `p / W`.
    #[inline]
    pub(in crate::quadtree) fn block_count(&self) -> usize {
        self.lanes.len()
    }

    /// Bit `k` set when entry `b * W + k` intersects `r` (closed): the block test, one block
    /// at a time, for the iterators.
    #[inline]
    pub(in crate::quadtree) fn block_hits(&self, b: usize, r: &Rect) -> u32 {
        self.lanes[b].hits(r)
    }

    /// Every entry with its rectangle and its payload mutable, in list order.
    pub(in crate::quadtree) fn entries_mut(&mut self) -> EntriesMut<'_, T> {
        EntriesMut {
            entries: self.entries.iter_mut(),
            lanes: &self.lanes,
            pos: 0,
            tree: self.tree,
        }
    }

    /// Whether a scan for `r` finds nothing without testing a block: an empty list, or a
    /// banded one whose two bands `r` misses. A caller can skip the scan's setup then.
    #[inline(always)]
    pub(in crate::quadtree) fn misses(&self, r: &Rect) -> bool {
        // A banded list is decided by its bands alone (an empty group's band meets nothing),
        // which lie in the node's first cache line with the centre line: most lists above a
        // small query are passed by without reading the line that holds the storage.
        if self.banded() {
            simd::meets2(&self.bands, r) == 0
        } else {
            self.lanes.is_empty()
        }
    }

    /// The blocks that a scan for `r` must test in a list without runs: a banded list leaves
    /// out a group whose band `r` misses (the crossing group comes first, so what is left is
    /// one range), and is skipped whole when `r` misses both, the common case for a node
    /// far from the query. A block shared by both groups is tested whole when one band is
    /// met, which is right: items of a group whose band `r` misses cannot intersect `r`.
    #[inline(always)]
    pub(super) fn window(&self, r: &Rect) -> (usize, usize) {
        let blocks = self.lanes.len();
        if !self.banded() || blocks < BANDED_BLOCKS {
            return (0, blocks);
        }
        let met = simd::meets2(&self.bands, r);
        let (in_crossing, in_rest) = (met & 1 != 0, met & 2 != 0);
        let first = if in_crossing { 0 } else { self.split() / W };
        let end = if in_rest {
            blocks
        } else if in_crossing {
            self.split().div_ceil(W)
        } else {
            first
        };
        (first, end)
    }
}
