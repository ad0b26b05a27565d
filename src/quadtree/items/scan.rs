//! The scans that visit hits: the region queries' (from a position on, or over a sorted
//! list's spans), the pair search's (grouped masks, each pair inside a list once), the
//! nearest-neighbour distances and the mutable scan.

use std::ops::ControlFlow;

use super::{simd, with_block_test, ItemList, Lanes, EMPTY_BOUNDS, W};
use crate::quadtree::{Entry, ItemId, ItemMut, ItemRef, Rect};

/// How many blocks ahead a long scan asks for the lanes it will test. A list's blocks are
/// one run of memory, which the hardware's own prefetching follows only within a page; a
/// scan of a sorted run's window crosses a page every 32 blocks, and would stall at each.
pub(super) const PREFETCH_BLOCKS: usize = 24;

/// Calls `each(b, lanes, mask)` for every block of the non-empty span of positions
/// `start..end`, `mask` naming the lanes of block `b` that hit `r` and lie in the span. Only
/// the span's first and last blocks need masking, so they are tested apart from the blocks
/// between them, which take the bare test.
#[inline(always)]
pub(super) fn for_span_blocks<B, H, E>(
    lanes: &[Lanes],
    r: &Rect,
    (start, end): (usize, usize),
    hits: &H,
    mut each: E,
) -> ControlFlow<B>
where
    H: Fn(&Lanes, &Rect) -> u32,
    E: FnMut(usize, &Lanes, u32) -> ControlFlow<B>,
{
    let (b0, b1) = (start / W, (end - 1) / W);
    let first = !0u32 << (start % W);
    let last = (2u32 << ((end - 1) % W)) - 1;
    let Some(blocks) = lanes.get(b0..=b1) else {
        return ControlFlow::Continue(());
    };
    match blocks {
        [one] => each(b0, one, hits(one, r) & first & last),
        [head, middle @ .., tail] => {
            each(b0, head, hits(head, r) & first)?;
            for (i, l) in middle.iter().enumerate() {
                if let Some(ahead) = blocks.get(i + 1 + PREFETCH_BLOCKS) {
                    simd::prefetch(ahead);
                }
                each(b0 + 1 + i, l, hits(l, r))?;
            }
            each(b1, tail, hits(tail, r) & last)
        }
        [] => ControlFlow::Continue(()),
    }
}

/// Blocks whose masks the pair search joins into one 64-bit mask.
pub(super) const GROUP: usize = 64 / W;

/// The masks of `blocks` (at most [`GROUP`]) tested against `r`, block `k` in bits `8k..`.
#[inline(always)]
pub(super) fn group_mask<H>(blocks: &[Lanes], r: &Rect, hits: &H) -> u64
where
    H: Fn(&Lanes, &Rect) -> u32,
{
    let mut mask = 0;
    for (k, lanes) in blocks.iter().enumerate() {
        mask |= u64::from(hits(lanes, r)) << (k * W);
    }
    mask
}

/// For each 8-bit mask, the positions of its set bits, lowest first (the rest zero).
pub(super) const SET_BITS: [[u8; W]; 256] = {
    let mut table = [[0u8; W]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut k, mut n) = (0, 0);
        while k < W {
            if mask >> k & 1 == 1 {
                table[mask][n] = k as u8;
                n += 1;
            }
            k += 1;
        }
        mask += 1;
    }
    table
};

/// For each 8-bit mask, how many bits it sets: a table read, shorter than the bit count's
/// arithmetic where the CPU's own count instruction is not assumed.
pub(super) const SET_COUNT: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut mask = 0;
    while mask < 256 {
        table[mask] = (mask as u32).count_ones() as u8;
        mask += 1;
    }
    table
};

/// Hit positions of a region scan, collected block by block before the caller's closure
/// sees them. Walking a block's mask bit by bit ends with a mispredicted branch whenever
/// the count of hits varies from block to block, as it does where most items hit (a query
/// among large, dense items); here a block with hits costs the same fixed stores whatever
/// its mask, and the closure is then called in a loop whose end is predicted. Positions stay
/// in scan order, so the hits come in the same order as bit by bit. A query lends one to
/// every list it scans, made by the first scan that needs one: clearing it for every list,
/// or for every query, cost small queries more than the batching saved.
pub(in crate::quadtree) struct HitBatch {
    pos: [u32; HitBatch::CAP + W],
    n: usize,
}

impl HitBatch {
    /// Positions held before the batch is reported; a block may write `W` more.
    pub(super) const CAP: usize = 8 * W;

    #[inline(always)]
    pub(in crate::quadtree) fn new() -> Self {
        HitBatch {
            pos: [0; HitBatch::CAP + W],
            n: 0,
        }
    }

    /// Adds `base + k` for each set bit `k` of `mask` (below `1 << W`), without a branch per
    /// bit: all `W` slots are written, and the count moves by the bits set. Returns whether
    /// the batch is full and must be reported.
    #[inline(always)]
    pub(in crate::quadtree) fn push(&mut self, base: usize, mask: u32) -> bool {
        let ks = &SET_BITS[mask as usize & 0xff];
        let at = self.n.min(HitBatch::CAP);
        for (slot, &k) in self.pos[at..at + W].iter_mut().zip(ks) {
            *slot = base as u32 + u32::from(k);
        }
        self.n = at + usize::from(SET_COUNT[mask as usize & 0xff]);
        self.n >= HitBatch::CAP
    }

    /// The positions collected, in order; empties the batch.
    #[inline(always)]
    pub(in crate::quadtree) fn take(&mut self) -> &[u32] {
        let n = std::mem::take(&mut self.n);
        &self.pos[..n]
    }
}

/// Lists a [`ListHits`] holds hits of at once.
const PENDING_LISTS: usize = 8;

/// Hit positions of the short scans of several lists, each tagged with its list, reported
/// together: a small query's walk scans a few short lists (a leaf's blocks, a band's window),
/// and reporting each list's hits in a loop of its own mispredicts the end of each loop,
/// where one loop over all of them mispredicts once. Filled as a [`HitBatch`] is, a block at
/// a time with no branch on its mask.
pub(in crate::quadtree) struct ListHits<'a, T> {
    pos: [u32; HitBatch::CAP + W],
    list: [u8; HitBatch::CAP + W],
    lists: [Option<&'a ItemList<T>>; PENDING_LISTS],
    n: usize,
    lists_held: usize,
}

impl<'a, T> ListHits<'a, T> {
    #[inline(always)]
    pub(in crate::quadtree) fn new() -> Self {
        ListHits {
            pos: [0; HitBatch::CAP + W],
            list: [0; HitBatch::CAP + W],
            lists: [None; PENDING_LISTS],
            n: 0,
            lists_held: 0,
        }
    }

    /// Whether a scan of `blocks` blocks (fewer than [`BATCHED_BLOCKS`]) of one more list
    /// fits.
    #[inline(always)]
    pub(super) fn has_room(&self, blocks: usize) -> bool {
        self.lists_held < PENDING_LISTS && self.n + blocks * W <= HitBatch::CAP
    }

    /// Tests `blocks`, `list`'s blocks from block `first` on, against `r` with `hits`, and
    /// holds the hits, tagged with `list`; there must be room (see `has_room`).
    #[inline(always)]
    pub(super) fn hold<H>(
        &mut self,
        list: &'a ItemList<T>,
        first: usize,
        blocks: &[Lanes],
        r: &Rect,
        hits: H,
    ) where
        H: Fn(&Lanes, &Rect) -> u32,
    {
        let k = self.lists_held.min(PENDING_LISTS - 1);
        self.lists[k] = Some(list);
        self.lists_held = k + 1;
        // A copy the compiler knows no store aliases: the edges are read once.
        let r = *r;
        for (b, lanes) in blocks.iter().enumerate() {
            self.push(k as u8, (first + b) * W, hits(lanes, &r));
        }
    }

    /// As [`HitBatch::push`], the positions being those of list number `list`.
    #[inline(always)]
    fn push(&mut self, list: u8, base: usize, mask: u32) {
        let ks = &SET_BITS[mask as usize & 0xff];
        let at = self.n.min(HitBatch::CAP);
        for (slot, &k) in self.pos[at..at + W].iter_mut().zip(ks) {
            *slot = base as u32 + u32::from(k);
        }
        self.list[at..at + W].fill(list);
        self.n = at + usize::from(SET_COUNT[mask as usize & 0xff]);
    }

    /// Appends the handle of each item held to `out`, in order; empties the batch.
    #[inline(always)]
    pub(in crate::quadtree) fn gather_into(&mut self, out: &mut Vec<ItemId>) {
        let n = std::mem::take(&mut self.n);
        self.lists_held = 0;
        let lists = &self.lists;
        // `map`, not `filter_map`: the count is known, so `out` grows once.
        out.extend(self.pos[..n].iter().zip(&self.list[..n]).map(|(&p, &k)| {
            let list = lists[k as usize].expect("every position's list is held");
            list.entries[p as usize].id.handle(list.tree)
        }));
    }

    /// Calls `f` with each item held, in order, until it breaks; empties the batch.
    #[inline(always)]
    pub(in crate::quadtree) fn report<B, F>(&mut self, f: &mut F) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        let n = std::mem::take(&mut self.n);
        self.lists_held = 0;
        for (&p, &k) in self.pos[..n].iter().zip(&self.list[..n]) {
            let Some(list) = self.lists[k as usize] else {
                continue;
            };
            let p = p as usize;
            let e = &list.entries[p];
            let rect = list.lanes.get(p / W).map_or(EMPTY_BOUNDS, |l| l.get(p % W));
            f(ItemRef {
                id: e.id.handle(list.tree),
                rect,
                value: &e.value,
            })?;
        }
        ControlFlow::Continue(())
    }
}

/// The mask of a block whose every lane hits.
pub(super) const FULL_BLOCK: u32 = (1 << W) - 1;

/// A scan of fewer blocks than this (a leaf's few, or the window a small query leaves of a
/// list) is short: the region queries hold its hits for the whole walk ([`ListHits`]), other
/// scans walk each block's mask bit by bit. A longer scan reports through a [`HitBatch`],
/// whole blocks straight.
pub(super) const BATCHED_BLOCKS: usize = 8;

impl<T> ItemList<T> {
    /// Calls `f` for every item at position `from` or later whose rectangle intersects `r`
    /// (closed), until `f` returns `Break`.
    #[inline]
    pub(in crate::quadtree) fn for_each_hit<'a, B, F>(
        &'a self,
        r: &Rect,
        from: usize,
        batch: &mut Option<HitBatch>,
        f: F,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        // Long and short scans are separate calls into the AVX-compiled code: in one body,
        // the long scan's batching made every short scan's call dearer.
        let (first, end) = self.block_window(r, from);
        if first >= end {
            // Both bands missed (most lists above a small query), or nothing left to scan.
            return ControlFlow::Continue(());
        }
        if end - first >= BATCHED_BLOCKS {
            return with_block_test!(|hits| self.scan_long(r, from, (first, end), batch, f, hits));
        }
        if self.lanes.len() > from / W + 1 {
            return with_block_test!(|hits| self.scan_short(r, from, (first, end), f, hits));
        }
        self.scan_short(r, from, (first, end), f, Lanes::hits)
    }

    /// As [`for_each_hit`](Self::for_each_hit) from position 0, reading only the window of
    /// each run that `r` can meet: the region queries' scan. The pair search keeps to
    /// `for_each_hit`, which tests every block of a group whose band `r` meets (the same
    /// answer), since its small scans would pay the dispatch and gain little.
    #[inline]
    pub(in crate::quadtree) fn for_each_hit_windowed<'a, B, F>(
        &'a self,
        r: &Rect,
        batch: &mut Option<HitBatch>,
        f: F,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        if self.has_runs() {
            return self.for_each_hit_in_spans(r, 0, batch, f);
        }
        self.for_each_hit(r, 0, batch, f)
    }

    /// [`for_each_hit_windowed`](Self::for_each_hit_windowed) with the block test `hits`
    /// chosen by the caller, for a walk that runs whole in the AVX-compiled code: a list
    /// without runs is scanned inline, with no call and no dispatch of its own. A short scan
    /// leaves its hits in `pending`, which the walk reports at its end (or when it fills,
    /// or before a scan that reports at once), so that `f` runs over the hits of several
    /// lists in one loop; the order of the hits is that of the scans.
    #[inline(always)]
    pub(in crate::quadtree) fn for_each_hit_windowed_with<'a, B, F, H>(
        &'a self,
        r: &Rect,
        batch: &mut Option<HitBatch>,
        pending: &mut ListHits<'a, T>,
        mut f: F,
        hits: H,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
        H: Fn(&Lanes, &Rect) -> u32,
    {
        if self.has_runs() {
            pending.report(&mut f)?;
            return self.for_each_hit_in_spans(r, 0, batch, f);
        }
        let (first, end) = self.block_window(r, 0);
        let Some(blocks) = self.lanes.get(first..end) else {
            return ControlFlow::Continue(());
        };
        if blocks.len() >= BATCHED_BLOCKS {
            pending.report(&mut f)?;
            return self.scan_long(r, 0, (first, end), batch, f, hits);
        }
        if blocks.is_empty() {
            return ControlFlow::Continue(());
        }
        if !pending.has_room(blocks.len()) {
            pending.report(&mut f)?;
        }
        pending.hold(self, first, blocks, r, hits);
        ControlFlow::Continue(())
    }

    /// The scan of a list with runs, apart from the scan of lists without.
    #[inline(never)]
    pub(super) fn for_each_hit_in_spans<'a, B, F>(
        &'a self,
        r: &Rect,
        from: usize,
        batch: &mut Option<HitBatch>,
        f: F,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        with_block_test!(|hits| self.scan(r, from, batch, f, hits))
    }

    /// Calls `f(a, b)` for every pair of items here whose rectangles intersect (closed),
    /// `a` before `b` in the list, until `f` returns `Break`; `hits` is the block test (the
    /// pair search picks it once, see `pairs.rs`).
    ///
    /// Each item meets the items before it: a list's last block is usually part-full, and
    /// this way its few items meet the full blocks, rather than every item of the full blocks
    /// meeting it (a list of 12 takes 15 block tests instead of 20). The masks of up to eight
    /// blocks are joined into one 64-bit mask before its bits are walked (see
    /// [`for_each_hit_grouped`](Self::for_each_hit_grouped)).
    #[inline(always)]
    pub(in crate::quadtree) fn for_each_pair_inside<'a, B, F, H>(
        &'a self,
        mut f: F,
        hits: H,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>, ItemRef<'a, T>) -> ControlFlow<B>,
        H: Fn(&Lanes, &Rect) -> u32,
    {
        let len = self.entries.len();
        if len <= GROUP * W {
            // Most lists: one mask per item covers every item before it. Block by block, so
            // that each item's rectangle is read from its block without an index check and
            // the blocks to test stay the same for eight items (the item's own block is
            // tested too, its lanes from the item on masked off).
            for (bj, own) in self.lanes.iter().enumerate() {
                let blocks = &self.lanes[..=bj];
                for k in 0..(len - bj * W).min(W) {
                    let j = bj * W + k;
                    let b = own.get(k);
                    let mut mask = group_mask(blocks, &b, &hits) & ((1u64 << j) - 1);
                    while mask != 0 {
                        let i = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        f(self.item(i), self.item(j))?;
                    }
                }
            }
            return ControlFlow::Continue(());
        }
        for j in 1..len {
            let b = self.rect(j);
            let blocks = &self.lanes[..j.div_ceil(W)];
            for (g, group) in blocks.chunks(GROUP).enumerate() {
                let mut mask = group_mask(group, &b, &hits);
                // Only the items before `j`.
                let before = j - g * GROUP * W;
                if before < 64 {
                    mask &= (1u64 << before) - 1;
                }
                while mask != 0 {
                    let i = g * GROUP * W + mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    f(self.item(i), self.item(j))?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// As [`for_each_hit`](Self::for_each_hit) from position 0, for the pair search: `hits`
    /// is the block test, the number of items in the blocks tested is added to `tests`, and
    /// the masks of up to eight blocks are joined into one 64-bit mask before its bits are
    /// walked. The walk's branches depend on the data and are mispredicted about once per
    /// mask with hits, so fewer, fuller masks cost fewer mispredicts.
    #[inline(always)]
    pub(in crate::quadtree) fn for_each_hit_grouped<'a, B, F, H>(
        &'a self,
        r: &Rect,
        mut f: F,
        hits: H,
        tests: &mut u64,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
        H: Fn(&Lanes, &Rect) -> u32,
    {
        let (lo, hi) = self.window(r);
        let Some(blocks) = self.lanes.get(lo..hi) else {
            return ControlFlow::Continue(());
        };
        *tests += ((hi * W).min(self.entries.len()) - lo * W) as u64;
        // A copy `f` cannot write to, so the query's edges are read once (see `gather_short`).
        let r = *r;
        for (g, group) in blocks.chunks(GROUP).enumerate() {
            let mut mask = group_mask(group, &r, &hits);
            while mask != 0 {
                let p = (lo + g * GROUP) * W + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                f(self.item(p))?;
            }
        }
        ControlFlow::Continue(())
    }

    /// The scan behind both entry points: `hits` is the block test to use.
    #[inline(always)]
    pub(super) fn scan<'a, B, F, H>(
        &'a self,
        r: &Rect,
        from: usize,
        batch: &mut Option<HitBatch>,
        mut f: F,
        hits: H,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
        H: Fn(&Lanes, &Rect) -> u32,
    {
        // A copy `f` cannot write to, so the query's edges are read once (see `gather_short`).
        let r = *r;
        if !self.has_runs() {
            return self.scan_blocks(&r, from, batch, f, hits);
        }
        let batch = batch.get_or_insert_with(HitBatch::new);
        let spans = self.spans(&r);
        for &(start, end) in &spans.at[..spans.n] {
            let start = start.max(from);
            if start >= end {
                continue;
            }
            for_span_blocks(
                &self.lanes,
                &r,
                (start, end),
                &hits,
                #[inline(always)]
                |b, lanes, mask| self.report_block(b, lanes, mask, batch, &mut f),
            )?;
        }
        self.report(batch, &mut f)
    }

    /// Reports the hits of block `b` that `mask` names: a block whose every lane hits
    /// straight from the block (no bit walk to mispredict, and the block is at hand), the
    /// others through `batch`.
    #[inline(always)]
    pub(super) fn report_block<'a, B, F>(
        &'a self,
        b: usize,
        lanes: &Lanes,
        mask: u32,
        batch: &mut HitBatch,
        f: &mut F,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        if mask == FULL_BLOCK {
            self.report(batch, f)?;
            for (k, e) in self.entries[b * W..][..W].iter().enumerate() {
                f(ItemRef {
                    id: e.id.handle(self.tree),
                    rect: lanes.get(k),
                    value: &e.value,
                })?;
            }
        } else if mask != 0 && batch.push(b * W, mask) {
            self.report(batch, f)?;
        }
        ControlFlow::Continue(())
    }

    /// Calls `f` with the item at each position in `batch`, in order, until it breaks.
    #[inline(always)]
    pub(super) fn report<'a, B, F>(&'a self, batch: &mut HitBatch, f: &mut F) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        // Slices read once: through `self`, each hit would reload them, as `f` might write
        // where they live.
        let (entries, lanes, tree) = (self.entries.as_slice(), self.lanes.as_slice(), self.tree);
        for &p in batch.take() {
            let p = p as usize;
            let e = &entries[p];
            // Every entry has its block; `get` rather than an index, so that a closure that
            // never reads the rectangle pays no bounds check for it either.
            let rect = lanes.get(p / W).map_or(EMPTY_BOUNDS, |l| l.get(p % W));
            f(ItemRef {
                id: e.id.handle(tree),
                rect,
                value: &e.value,
            })?;
        }
        ControlFlow::Continue(())
    }

    /// The scan of a list without runs: whole blocks, the bands' window of them.
    #[inline(always)]
    pub(super) fn scan_blocks<'a, B, F, H>(
        &'a self,
        r: &Rect,
        from: usize,
        batch: &mut Option<HitBatch>,
        f: F,
        hits: H,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
        H: Fn(&Lanes, &Rect) -> u32,
    {
        let (first, end) = self.block_window(r, from);
        if end.saturating_sub(first) >= BATCHED_BLOCKS {
            self.scan_long(r, from, (first, end), batch, f, hits)
        } else {
            self.scan_short(r, from, (first, end), f, hits)
        }
    }

    /// The blocks a scan from position `from` tests: the bands' window of them, from the
    /// block holding `from` on.
    #[inline(always)]
    pub(super) fn block_window(&self, r: &Rect, from: usize) -> (usize, usize) {
        let (lo, hi) = self.window(r);
        ((from / W).max(lo), hi)
    }

    /// The first lanes of a scan's first block that come before `from`, masked off.
    #[inline(always)]
    pub(super) fn first_skip(first: usize, from: usize) -> u32 {
        if first == from / W {
            !0u32 << (from % W)
        } else {
            !0
        }
    }

    /// A short scan of `blocks`, each mask walked bit by bit.
    #[inline(always)]
    pub(super) fn scan_short<'a, B, F, H>(
        &'a self,
        r: &Rect,
        from: usize,
        (first, end): (usize, usize),
        mut f: F,
        hits: H,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
        H: Fn(&Lanes, &Rect) -> u32,
    {
        let Some(blocks) = self.lanes.get(first..end) else {
            return ControlFlow::Continue(());
        };
        let mut skip = Self::first_skip(first, from);
        for (b, lanes) in blocks.iter().enumerate() {
            let mut mask = hits(lanes, r) & skip;
            skip = !0;
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let e = &self.entries[(first + b) * W + k];
                f(ItemRef {
                    id: e.id.handle(self.tree),
                    rect: lanes.get(k),
                    value: &e.value,
                })?;
            }
        }
        ControlFlow::Continue(())
    }

    /// A long scan of `blocks`, reported through a [`HitBatch`] (whole blocks straight).
    #[inline(always)]
    pub(super) fn scan_long<'a, B, F, H>(
        &'a self,
        r: &Rect,
        from: usize,
        (first, end): (usize, usize),
        batch: &mut Option<HitBatch>,
        mut f: F,
        hits: H,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
        H: Fn(&Lanes, &Rect) -> u32,
    {
        let batch = batch.get_or_insert_with(HitBatch::new);
        for_span_blocks(
            &self.lanes,
            r,
            ((first * W).max(from), end * W),
            &hits,
            #[inline(always)]
            |b, lanes, mask| self.report_block(b, lanes, mask, batch, &mut f),
        )?;
        self.report(batch, &mut f)
    }

    /// Calls `f` with each entry and the squared distance from `(x, y)` to its rectangle, as
    /// [`Rect::distance_squared`] computes it (in `f64`, which neither overflows nor
    /// underflows). A block's distances are computed together, one array per edge, which the
    /// compiler vectorizes.
    #[inline]
    pub(in crate::quadtree) fn for_each_distance<F>(&self, x: f32, y: f32, mut f: F)
    where
        F: FnMut(f64, &Entry<T>),
    {
        let (x, y) = (x as f64, y as f64);
        for (lanes, entries) in self.lanes.iter().zip(self.entries.chunks(W)) {
            let mut d = [0f64; W];
            for (k, d) in d.iter_mut().enumerate() {
                let dx = (lanes.min_x[k] as f64 - x)
                    .max(0.0)
                    .max(x - lanes.max_x[k] as f64);
                let dy = (lanes.min_y[k] as f64 - y)
                    .max(0.0)
                    .max(y - lanes.max_y[k] as f64);
                *d = dx * dx + dy * dy;
            }
            for (e, &d) in entries.iter().zip(&d) {
                f(d, e);
            }
        }
    }

    /// Calls `f` with every entry whose rectangle intersects `r` (closed), its payload
    /// mutable, until `f` returns `Break`.
    pub(in crate::quadtree) fn for_each_hit_mut<B, F>(
        &mut self,
        r: &Rect,
        mut f: F,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemMut<'_, T>) -> ControlFlow<B>,
    {
        let tree = self.tree;
        for (b, lanes) in self.lanes.iter().enumerate() {
            let mut mask = lanes.hits(r);
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let e = &mut self.entries[b * W + k];
                f(ItemMut {
                    id: e.id.handle(tree),
                    rect: lanes.get(k),
                    value: &mut e.value,
                })?;
            }
        }
        ControlFlow::Continue(())
    }
}
