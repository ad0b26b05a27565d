//! A node's item list: the entries (handle and payload), and their rectangles in blocks of
//! eight with one array per edge, so that one rectangle is tested against eight stored ones
//! with a few vector instructions (the pair search and `query_rect` spend most of their time
//! there). The blocks are the only copy of the rectangles: a second one in each entry cost
//! 16 bytes per item, which a one-by-one build of a million items paid in page faults.
//!
//! The block test and the bounding box come from `simd`, in the target's vector form; a scan
//! of more than one block runs with AVX where the CPU has it (checked at run time, once per
//! scan): AVX tests a block with one compare per edge instead of two. A scan of a single
//! block stays with the inlined compile-time form, since the call into the AVX-compiled scan
//! would cost more than the compare it saves, and with a small capacity most lists are a
//! single block.

use std::ops::{ControlFlow, Deref};

use super::simd::{self, Avx};
use super::{Entry, ItemId, ItemMut, ItemRef, Rect, TreeId};

/// Rectangles per block: one 256-bit AVX register per edge, or two SSE registers.
pub(super) const W: usize = 8;

/// Eight rectangles, one array per edge. A lane without an item holds [`Lanes::EMPTY`].
///
/// Aligned to a cache line, so a block is two whole lines and none of its four loads spans
/// two lines.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(align(64))]
pub(super) struct Lanes {
    min_x: [f32; W],
    min_y: [f32; W],
    max_x: [f32; W],
    max_y: [f32; W],
}

impl Lanes {
    /// Intersects nothing: every finite rectangle fails `min_x <= other.max_x`.
    const EMPTY: Lanes = Lanes {
        min_x: [f32::INFINITY; W],
        min_y: [f32::INFINITY; W],
        max_x: [f32::NEG_INFINITY; W],
        max_y: [f32::NEG_INFINITY; W],
    };

    /// Bit `k` set when lane `k` intersects `r` (closed, as [`Rect::intersects`]).
    #[inline(always)]
    pub(super) fn hits(&self, r: &Rect) -> u32 {
        simd::hits8(&self.min_x, &self.min_y, &self.max_x, &self.max_y, r)
    }

    /// As [`hits`](Self::hits), with AVX.
    #[inline(always)]
    pub(super) fn hits_avx(&self, avx: Avx, r: &Rect) -> u32 {
        avx.hits8(&self.min_x, &self.min_y, &self.max_x, &self.max_y, r)
    }

    fn set(&mut self, k: usize, r: &Rect) {
        self.min_x[k] = r.min_x;
        self.min_y[k] = r.min_y;
        self.max_x[k] = r.max_x;
        self.max_y[k] = r.max_y;
    }

    #[inline(always)]
    fn get(&self, k: usize) -> Rect {
        Rect::new(self.min_x[k], self.min_y[k], self.max_x[k], self.max_y[k])
    }

    fn clear(&mut self, k: usize) {
        self.set(k, &Lanes::EMPTY.get(0));
    }
}

/// The items of one node. Reads of handles and payloads go through `Deref` to the entry
/// slice, rectangles through [`rect`](Self::rect); every change goes through a method here,
/// which keeps the lanes in step with the entries.
///
/// An internal node's list is kept in two groups (`banded`): first the items that cross the
/// node's vertical centre line (`centre_x`), then the rest, each group with a bounding box
/// that only grows (until the list is emptied or rebuilt). An internal node holds only items
/// that cross one of its centre lines, so the two boxes are thin bands around those lines,
/// and a query that meets neither band skips the list: small queries scan the straddlers of
/// large nodes only near the lines. A leaf's items spread over its whole cell, so a leaf's
/// list keeps no groups and no bands, and its changes cost nothing extra. Which group an item
/// is in changes only speed, never an answer. A sorted list also keeps a [`Run`] per group,
/// which region queries search instead of scanning the whole group.
#[derive(Clone, Debug)]
pub(super) struct ItemList<T> {
    entries: Vec<Entry<T>>,
    /// `lanes[p / W]`, lane `p % W`, is the rectangle of `entries[p]`.
    lanes: Vec<Lanes>,
    /// The tree's id, which the entries leave out of their handles.
    tree: TreeId,

    /// Entries before `split` cross `centre_x`; those from `split` on do not. Zero when not
    /// banded. A `u32` (no list holds more than `MAX_ITEMS`), so that a node fits in 128
    /// bytes with the runs' pointer.
    split: u32,
    /// The x of the node's vertical centre line; NaN for a leaf's list, which keeps no groups.
    centre_x: f32,
    /// Bounds of the crossing group and of the rest: they contain every rectangle of their
    /// group, and an empty group's holds [`EMPTY_BOUNDS`].
    bands: [Rect; 2],
    /// Per group, the part kept sorted along the line its items cross (see [`Run`]); none
    /// until a list is first sorted, so that lists that never are carry one word for it.
    runs: Option<Box<[Run; 2]>>,
}

/// What a list without runs reads: two empty runs.
static NO_RUNS: [Run; 2] = [Run::EMPTY, Run::EMPTY];

/// A run of a group's entries sorted along the line they cross: the crossing group by
/// `min_y`, the rest by `min_x`. A scan binary-searches the keys for the slice its range can
/// meet and tests only that slice, plus the group's entries outside the run.
///
/// The keys are the sort keys as they were when the run was sorted, rewritten only within
/// their neighbours' (so they stay sorted); entries move on without moving in the list, and
/// the run keeps how far any entry's key edge has gone below (`down`) or above (`up`) its
/// key and the longest extent along the line (`ext`), all grow-only until the next sort. An
/// entry at key `k` then lies within `[k - down, k + up + ext]` along the line, which is what
/// the window search assumes. The crossing group's run starts at 0 and its unsorted entries
/// follow it; the other group's run has unsorted entries on both sides (`pre`: entries
/// that stepped in when the crossing group shrank, and the usual tail).
///
/// A run is sorted in two halves, by where its entries lie across the line: those whose
/// middle was on the near side of the group's band when it was sorted, then the others, each
/// half sorted along the line. Each half keeps the extent across the line that its entries
/// cover (`across`, grow-only like the slack), so a query beside the line skips the half
/// on the far side, whose entries it meets along the line but not across it.
#[derive(Clone, Debug)]
struct Run {
    /// Position of the run's first entry.
    start: usize,
    /// Keys of the run's entries, from `keys[first]` (the entry at `start`) on.
    keys: Vec<f32>,
    first: usize,
    /// The run index where the second half starts.
    mid: usize,
    /// Per half, the lowest and highest edge across the line of any of its entries.
    across: [(f32, f32); 2],
    down: f64,
    up: f64,
    ext: f64,
}

impl Run {
    const EMPTY: Run = Run {
        start: 0,
        keys: Vec::new(),
        first: 0,
        mid: 0,
        across: [NO_EXTENT; 2],
        down: 0.0,
        up: 0.0,
        ext: 0.0,
    };

    #[inline(always)]
    fn len(&self) -> usize {
        self.keys.len() - self.first
    }

    fn reset(&mut self, start: usize) {
        self.start = start;
        self.keys.clear();
        self.first = 0;
        self.mid = 0;
        self.across = [NO_EXTENT; 2];
        self.down = 0.0;
        self.up = 0.0;
        self.ext = 0.0;
    }

    /// The index of position `pos` in the run, if it is in the run.
    #[inline(always)]
    fn index(&self, pos: usize) -> Option<usize> {
        pos.checked_sub(self.start).filter(|&i| i < self.len())
    }

    /// The run's last position leaves it.
    fn pop_back(&mut self) {
        self.keys.pop();
        self.mid = self.mid.min(self.len());
        if self.len() == 0 {
            self.reset(self.start);
        }
    }

    /// The run's first position leaves it.
    fn pop_front(&mut self) {
        self.first += 1;
        self.start += 1;
        self.mid = self.mid.saturating_sub(1);
        if self.len() == 0 {
            self.reset(self.start);
        }
    }

    /// An entry with key edge `k`, extent `ext` along the line and edges `across` across it
    /// now sits at run index `i`: its key follows it as far as its neighbours' keys in its
    /// half allow, and the slack covers the rest; its half's extent across grows to cover it.
    #[inline]
    fn write(&mut self, i: usize, k: f32, ext: f64, across: (f32, f32)) {
        let j = self.first + i;
        let lo = if i > 0 && i != self.mid {
            self.keys[j - 1]
        } else {
            f32::NEG_INFINITY
        };
        let hi = if i + 1 < self.len() && i + 1 != self.mid {
            self.keys[j + 1]
        } else {
            f32::INFINITY
        };
        let half = &mut self.across[usize::from(i >= self.mid)];
        *half = (half.0.min(across.0), half.1.max(across.1));
        self.ext = self.ext.max(ext);
        self.keys[j] = if k < lo {
            self.down = self.down.max(lo as f64 - k as f64);
            lo
        } else if k > hi {
            self.up = self.up.max(k as f64 - hi as f64);
            hi
        } else {
            k
        };
    }

    /// Per half, the positions of the run whose entries can meet `[lo, hi]` along the line
    /// and `across` across it (an empty range for a half that `across` misses).
    #[inline]
    fn windows(&self, lo: f32, hi: f32, across: (f32, f32)) -> [(usize, usize); 2] {
        let keys = &self.keys[self.first..];
        let halves = [
            (0, self.mid.min(keys.len())),
            (self.mid.min(keys.len()), keys.len()),
        ];
        let mut out = [(self.start, self.start); 2];
        for (h, &(from, to)) in halves.iter().enumerate() {
            let (a, b) = self.across[h];
            if from < to && across.0 <= b && a <= across.1 {
                let (x, y) = self.window(&keys[from..to], lo, hi);
                out[h] = (self.start + from + x, self.start + from + y);
            }
        }
        out
    }

    /// The indices of sorted `keys` (one half's) whose entries can meet `[lo, hi]` along the
    /// line.
    #[inline]
    fn window(&self, keys: &[f32], lo: f32, hi: f32) -> (usize, usize) {
        // In f64, widened by more than the rounding of the two sums, so that no entry the
        // bounds above admit is left out.
        let (lo, hi) = (lo as f64, hi as f64);
        let below = self.ext + self.up;
        let lo = lo - below - (lo.abs() + below) * SLACK_ROUNDING;
        let hi = hi + self.down + (hi.abs() + self.down) * SLACK_ROUNDING;
        // Keys lie along the line about as evenly as the items do: the window's start is
        // first guessed from where `lo` falls between the first and last keys, then found by
        // galloping from the guess. A bisection of a long run reads a key in a different cache
        // line at each of its last steps; this reads a few keys near the window, which the
        // scan reads next, and never more than twice the bisection's steps.
        let a = match (keys.first(), keys.last()) {
            (Some(&first), Some(&last)) if first < last => {
                let (first, last) = (first as f64, last as f64);
                let t = (lo - first) / (last - first);
                let guess = (t * (keys.len() - 1) as f64).clamp(0.0, (keys.len() - 1) as f64);
                gallop_partition(keys, guess as usize, |k| (k as f64) < lo)
            }
            _ => keys.partition_point(|&k| (k as f64) < lo),
        };
        // The window is short next to a long run: gallop from its start too.
        let b = gallop_partition(keys, a, |k| (k as f64) <= hi);
        (a, b)
    }
}

/// The first index of `keys` whose key is not `below`, as `partition_point` finds it (`below`
/// must hold for a prefix of the keys and for nothing after it), searched from index `guess`
/// outwards in doubling steps, then bisected within the last step: O(log d) reads for an
/// answer `d` away from the guess, all of them near the answer once the steps are short.
fn gallop_partition(keys: &[f32], guess: usize, below: impl Fn(f32) -> bool) -> usize {
    let n = keys.len();
    if n == 0 {
        return 0;
    }
    let g = guess.min(n - 1);
    let (from, to) = if below(keys[g]) {
        // The answer is past `g`: `keys[g + step / 2]` is below, `keys[g + step]` is not.
        let mut step = 1;
        while g + step < n && below(keys[g + step]) {
            step *= 2;
        }
        (g + step / 2 + 1, (g + step).min(n))
    } else {
        // The answer is `g` or before: `keys[g - step / 2]` is not below, `keys[g - step]` is.
        let mut step = 1;
        while step <= g && !below(keys[g - step]) {
            step *= 2;
        }
        (if step > g { 0 } else { g - step + 1 }, g - step / 2)
    };
    from + keys[from..to].partition_point(|&k| below(k))
}

/// Relative widening of the window bounds: well above the rounding of two `f64` additions.
const SLACK_ROUNDING: f64 = 1.0 / (1u64 << 48) as f64;

/// Groups with fewer entries keep no run: a scan of all of them costs about what the binary
/// search would.
const RUN_MIN: usize = 64;

/// The key edge (the minimum along the line the group crosses) and extent along that line of
/// `r` in group `g` (0: crossing the vertical line, sorted along y; 1: the rest, along x).
#[inline(always)]
fn key_of(g: usize, r: &Rect) -> (f32, f64) {
    if g == 0 {
        (r.min_y, r.max_y as f64 - r.min_y as f64)
    } else {
        (r.min_x, r.max_x as f64 - r.min_x as f64)
    }
}

/// The edges of `r` across the line that group `g`'s entries cross.
#[inline(always)]
fn across_of(g: usize, r: &Rect) -> (f32, f32) {
    if g == 0 {
        (r.min_x, r.max_x)
    } else {
        (r.min_y, r.max_y)
    }
}

/// The extent across a line of no entry: any entry's edges grow it to themselves.
const NO_EXTENT: (f32, f32) = (f32::INFINITY, f32::NEG_INFINITY);

/// The bits of `k` as an unsigned integer in `k`'s order (total order: -0 before +0).
#[inline(always)]
fn ordered(k: f32) -> u32 {
    let bits = k.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

/// The inverse of [`ordered`].
#[inline(always)]
fn from_ordered(o: u32) -> f32 {
    f32::from_bits(if o >> 31 == 1 { o & !(1 << 31) } else { !o })
}

/// Up to five ascending, disjoint position ranges: what a scan tests.
/// The most spans of a list with runs: the crossing group's two halves and its unsorted
/// tail, then the other group's unsorted head, two halves and tail.
const SPANS: usize = 7;

struct Spans {
    at: [(usize, usize); SPANS],
    n: usize,
}

impl Spans {
    #[inline(always)]
    fn one(start: usize, end: usize) -> Self {
        Spans {
            at: [(start, end); SPANS],
            n: 1,
        }
    }

    #[inline(always)]
    fn add(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        if self.n > 0 && self.at[self.n - 1].1 == start {
            self.at[self.n - 1].1 = end;
        } else {
            self.at[self.n] = (start, end);
            self.n += 1;
        }
    }
}

/// How many blocks ahead a long scan asks for the lanes it will test. A list's blocks are
/// one run of memory, which the hardware's own prefetching follows only within a page; a
/// scan of a sorted run's window crosses a page every 32 blocks, and would stall at each.
const PREFETCH_BLOCKS: usize = 24;

/// Calls `each(b, lanes, mask)` for every block of the non-empty span of positions
/// `start..end`, `mask` naming the lanes of block `b` that hit `r` and lie in the span. Only
/// the span's first and last blocks need masking, so they are tested apart from the blocks
/// between them, which take the bare test.
#[inline(always)]
fn for_span_blocks<B, H, E>(
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

/// The bounds of no rectangle: it intersects nothing, and any rectangle grows it to itself.
const EMPTY_BOUNDS: Rect = Rect {
    min_x: f32::INFINITY,
    min_y: f32::INFINITY,
    max_x: f32::NEG_INFINITY,
    max_y: f32::NEG_INFINITY,
};

/// Blocks whose masks the pair search joins into one 64-bit mask.
const GROUP: usize = 64 / W;

/// The masks of `blocks` (at most [`GROUP`]) tested against `r`, block `k` in bits `8k..`.
#[inline(always)]
fn group_mask<H>(blocks: &[Lanes], r: &Rect, hits: &H) -> u64
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
const SET_BITS: [[u8; W]; 256] = {
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
const SET_COUNT: [u8; 256] = {
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
pub(super) struct HitBatch {
    pos: [u32; HitBatch::CAP + W],
    n: usize,
}

impl HitBatch {
    /// Positions held before the batch is reported; a block may write `W` more.
    const CAP: usize = 8 * W;

    #[inline(always)]
    pub(super) fn new() -> Self {
        HitBatch {
            pos: [0; HitBatch::CAP + W],
            n: 0,
        }
    }

    /// Adds `base + k` for each set bit `k` of `mask` (below `1 << W`), without a branch per
    /// bit: all `W` slots are written, and the count moves by the bits set. Returns whether
    /// the batch is full and must be reported.
    #[inline(always)]
    pub(super) fn push(&mut self, base: usize, mask: u32) -> bool {
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
    pub(super) fn take(&mut self) -> &[u32] {
        let n = std::mem::take(&mut self.n);
        &self.pos[..n]
    }
}

/// The mask of a block whose every lane hits.
const FULL_BLOCK: u32 = (1 << W) - 1;

/// A scan of fewer blocks than this (a leaf's few, or the window a small query leaves of a
/// list) walks each block's mask bit by bit; a longer one reports through a [`HitBatch`].
/// Short scans meet few items, and there the batch's fixed stores cost more than the
/// mispredicts they save.
const BATCHED_BLOCKS: usize = 8;

/// Below this many blocks a scan tests every block instead of the bands first: the two
/// band tests would cost about as much as they save.
const BANDED_BLOCKS: usize = 2;

/// The entries of one list with their rectangles, payloads mutable; see
/// [`ItemList::entries_mut`].
pub(super) struct EntriesMut<'a, T> {
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

impl<T> Default for ItemList<T> {
    fn default() -> Self {
        Self::new(TreeId::NONE)
    }
}

impl<T> Deref for ItemList<T> {
    type Target = [Entry<T>];

    fn deref(&self) -> &[Entry<T>] {
        &self.entries
    }
}

/// Grows `b` to contain `r`. No stored rectangle holds a NaN, so compare-and-select (the
/// processors' own min and max) does what `f32::min` and `f32::max` would, in fewer
/// instructions.
#[inline(always)]
fn grow(b: &mut Rect, r: &Rect) {
    b.min_x = if r.min_x < b.min_x { r.min_x } else { b.min_x };
    b.min_y = if r.min_y < b.min_y { r.min_y } else { b.min_y };
    b.max_x = if r.max_x > b.max_x { r.max_x } else { b.max_x };
    b.max_y = if r.max_y > b.max_y { r.max_y } else { b.max_y };
}

impl<T> ItemList<T> {
    /// An empty list of the tree `tree`.
    pub(super) fn new(tree: TreeId) -> Self {
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
    pub(super) fn tree(&self) -> TreeId {
        self.tree
    }

    /// Makes this the list of an internal node whose vertical centre line is at `centre_x`:
    /// sorts the entries into their groups and computes the bands. Entries move: the caller
    /// sets their slots afterwards. The groups get their runs from
    /// [`sort_runs`](Self::sort_runs).
    pub(super) fn make_banded(&mut self, centre_x: f32) {
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
    fn banded(&self) -> bool {
        !self.centre_x.is_nan()
    }

    /// Entries before this position cross the centre line; zero when not banded.
    #[inline(always)]
    fn split(&self) -> usize {
        self.split as usize
    }

    /// Makes this a leaf's list: no groups, no bands, no runs.
    pub(super) fn unband(&mut self) {
        self.centre_x = f32::NAN;
        self.split = 0;
        self.bands = [EMPTY_BOUNDS; 2];
        self.reset_runs();
    }

    fn reset_runs(&mut self) {
        let split = self.split();
        if let Some(runs) = &mut self.runs {
            runs[0].reset(0);
            runs[1].reset(split);
        }
    }

    /// Whether `r` goes in the crossing group.
    #[inline(always)]
    fn crosses(&self, r: &Rect) -> bool {
        r.min_x <= self.centre_x && self.centre_x <= r.max_x
    }

    /// The positions of group `g`.
    #[inline(always)]
    fn group(&self, g: usize) -> (usize, usize) {
        if g == 0 {
            (0, self.split())
        } else {
            (self.split(), self.entries.len())
        }
    }

    /// The run of group `g` (an empty one when the list keeps none).
    #[inline(always)]
    fn run(&self, g: usize) -> &Run {
        &self.runs.as_deref().unwrap_or(&NO_RUNS)[g]
    }

    /// Whether `pos` is in group `g`'s run.
    #[inline(always)]
    fn in_run(&self, g: usize, pos: usize) -> bool {
        self.runs.is_some() && self.run(g).index(pos).is_some()
    }

    /// The run of group `g`, if the list keeps runs.
    #[inline(always)]
    fn run_mut(&mut self, g: usize) -> Option<&mut Run> {
        self.runs.as_deref_mut().map(|r| &mut r[g])
    }

    /// Whether either group keeps a run.
    #[inline(always)]
    fn has_runs(&self) -> bool {
        self.runs
            .as_deref()
            .is_some_and(|r| r[0].len() + r[1].len() > 0)
    }

    /// The group of position `pos`: 0 for the crossing group.
    #[inline(always)]
    fn group_of(&self, pos: usize) -> usize {
        usize::from(pos >= self.split())
    }

    /// After the entry at `pos` changed or was replaced: if `pos` is in a run, the run
    /// learns its key.
    #[inline(always)]
    fn note(&mut self, pos: usize) {
        if self.runs.is_none() {
            return;
        }
        let g = self.group_of(pos);
        let r = self.rect(pos);
        if let Some(run) = self.run_mut(g) {
            if let Some(i) = run.index(pos) {
                let (k, ext) = key_of(g, &r);
                run.write(i, k, ext, across_of(g, &r));
            }
        }
    }

    /// The other group's run, when empty, starts where that group does.
    #[inline(always)]
    fn settle_runs(&mut self) {
        let split = self.split();
        if let Some(run) = self.run_mut(1) {
            if run.len() == 0 {
                run.reset(split);
            }
        }
    }

    /// Sorts group `g` along its line into one run, or leaves it without a run if it is
    /// small. Every entry of the group is reported to `moved`.
    fn sort_group(
        &mut self,
        g: usize,
        scratch: &mut Vec<u64>,
        moved: &mut impl FnMut(&Entry<T>, usize),
    ) {
        let (s, e) = self.group(g);
        let n = e - s;
        if n < RUN_MIN {
            if let Some(run) = self.run_mut(g) {
                run.reset(s);
            }
            return;
        }
        let runs = self.runs.get_or_insert_with(|| Box::new(NO_RUNS.clone()));
        runs[g].reset(s);
        // The halves split at the middle of the group's band across its line.
        let pivot = {
            let (a, b) = across_of(g, &self.bands[g]);
            (a as f64 + b as f64) * 0.5
        };
        // Keys in their total order's bits, above the offset in the group: one integer sort
        // per half, the first half's entries filled in from the front, the second's from the
        // back.
        scratch.clear();
        scratch.resize(n, 0);
        let (mut mid, mut back) = (0, n);
        let mut ext = 0f64;
        let mut across = [NO_EXTENT; 2];
        for p in s..e {
            let r = self.rect(p);
            let (k, x) = key_of(g, &r);
            ext = ext.max(x);
            let (a, b) = across_of(g, &r);
            let half = usize::from((a as f64 + b as f64) * 0.5 >= pivot);
            across[half] = (across[half].0.min(a), across[half].1.max(b));
            let at = if half == 0 {
                mid += 1;
                mid - 1
            } else {
                back -= 1;
                back
            };
            scratch[at] = (u64::from(ordered(k)) << 32) | (p - s) as u64;
        }
        scratch[..mid].sort_unstable();
        scratch[mid..].sort_unstable();
        if let Some(run) = self.run_mut(g) {
            run.keys
                .extend(scratch.iter().map(|&v| from_ordered((v >> 32) as u32)));
            run.ext = ext;
            run.mid = mid;
            run.across = across;
        }
        // Entry `i` of the sorted group comes from offset `perm[i]`: follow each cycle with
        // swaps, marking the visited offsets in bit 32.
        const SEEN: u64 = 1 << 32;
        for v in scratch.iter_mut() {
            *v &= u64::from(u32::MAX);
        }
        for i in 0..n {
            if scratch[i] & SEEN != 0 {
                continue;
            }
            let mut cur = i;
            loop {
                let next = (scratch[cur] & u64::from(u32::MAX)) as usize;
                scratch[cur] |= SEEN;
                if next == i {
                    break;
                }
                self.swap(s + cur, s + next);
                cur = next;
            }
        }
        for p in s..e {
            moved(&self.entries[p], p);
        }
    }

    /// Sorts both groups of an internal node's list into runs (the small ones into none).
    /// Every entry of a sorted group is reported to `moved`.
    pub(super) fn sort_runs(
        &mut self,
        scratch: &mut Vec<u64>,
        mut moved: impl FnMut(&Entry<T>, usize),
    ) {
        if self.banded() {
            for g in 0..2 {
                self.sort_group(g, scratch, &mut moved);
            }
        }
    }

    /// Appends an entry to its group (to its run's unsorted tail) and returns its position.
    /// An entry that had to make room for it is reported to `moved` with its new position.
    #[inline]
    pub(super) fn push(
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

    /// After the groups' border moved up past `s`: the other group's run no longer holds
    /// `s`, and when empty starts at the border.
    #[inline(never)]
    fn leave_front_of_run(&mut self, s: usize) {
        if self.in_run(1, s) {
            if let Some(run) = self.run_mut(1) {
                run.pop_front();
            }
        }
        self.settle_runs();
    }

    #[inline(always)]
    fn push_last(&mut self, rect: Rect, entry: Entry<T>) {
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
    fn swap(&mut self, i: usize, j: usize) {
        self.entries.swap(i, j);
        let (a, b) = (self.rect(i), self.rect(j));
        self.lanes[i / W].set(i % W, &b);
        self.lanes[j / W].set(j % W, &a);
    }

    /// Whether the entry at `pos` may take the rectangle `r` in place, without changing its
    /// group (always in a leaf's list).
    #[inline(always)]
    pub(super) fn keeps_group(&self, pos: usize, r: &Rect) -> bool {
        !self.banded() || (pos < self.split()) == self.crosses(r)
    }

    /// Changes the rectangle of the entry at `pos` to `rect`, which keeps the entry's group
    /// (see [`keeps_group`](Self::keeps_group)): no entry moves.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    #[inline(always)]
    pub(super) fn set_rect_in_group(&mut self, pos: usize, rect: Rect) {
        debug_assert!(pos < self.entries.len() && self.keeps_group(pos, &rect));
        self.lanes[pos / W].set(pos % W, &rect);
        if self.banded() {
            grow(&mut self.bands[self.group_of(pos)], &rect);
            if self.runs.is_some() {
                self.note_apart(pos);
            }
        }
    }

    /// [`note`](Self::note), not inlined: for the callers whose common case has no runs.
    #[inline(never)]
    fn note_apart(&mut self, pos: usize) {
        self.note(pos);
    }

    /// Rewrites in place the rectangle of every entry that `new_rect` (given the entry's slot
    /// index) gives one for, then recomputes the bands if it rewrote any. No entry moves:
    /// each new rectangle must keep its entry's group (see [`keeps_group`](Self::keeps_group)).
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))]
    #[inline]
    pub(super) fn rewrite_each(&mut self, mut new_rect: impl FnMut(u32) -> Option<Rect>) {
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
        for (lanes, entries) in self.lanes.iter_mut().zip(self.entries.chunks(W)) {
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

    /// Recomputes both bands from the items: after many leave at once.
    pub(super) fn refresh_bands(&mut self) {
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
    pub(super) fn rect(&self, pos: usize) -> Rect {
        assert!(pos < self.entries.len());
        self.lanes[pos / W].get(pos % W)
    }

    /// The entry at `pos` with its rectangle, as queries hand it out.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    #[inline(always)]
    pub(super) fn item(&self, pos: usize) -> ItemRef<'_, T> {
        let e = &self.entries[pos];
        ItemRef {
            id: e.id.handle(self.tree),
            rect: self.lanes[pos / W].get(pos % W),
            value: &e.value,
        }
    }

    /// The smallest rectangle containing every item here, or `None` for an empty list.
    /// Empty lanes hold infinities that lose every `min` and `max`, so whole blocks are
    /// folded, four lanes at a time.
    #[inline]
    pub(super) fn bounds(&self) -> Option<Rect> {
        simd::bounds8(
            self.lanes
                .iter()
                .map(|l| [&l.min_x, &l.min_y, &l.max_x, &l.max_y]),
        )
    }

    /// Every entry with its rectangle, in list order.
    #[inline]
    pub(super) fn items(&self) -> impl Iterator<Item = ItemRef<'_, T>> + '_ {
        (0..self.entries.len()).map(|p| self.item(p))
    }

    /// Removes the entry at `pos` and returns it with its rectangle. The entries that take
    /// its place (the last of its group, and the last entry) are reported to `moved` with
    /// their new positions.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    pub(super) fn swap_remove(
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

    /// As [`swap_remove`](Self::swap_remove), keeping the runs: an entry that fills a hole
    /// in a run is written into it as a move would be, and a run whose end leaves shrinks.
    fn swap_remove_in_runs(
        &mut self,
        mut pos: usize,
        mut moved: impl FnMut(&Entry<T>, usize),
    ) -> (Rect, Entry<T>) {
        if pos < self.split() {
            // As in `swap_remove`.
            let s = self.split() - 1;
            let s_in_run = self.in_run(0, s);
            if pos != s {
                self.swap(pos, s);
                moved(&self.entries[pos], pos);
            }
            if s_in_run {
                if let Some(run) = self.run_mut(0) {
                    run.pop_back();
                }
            }
            if pos != s {
                self.note(pos);
            }
            self.split = s as u32;
            self.settle_runs();
            pos = s;
        }
        let last = self.entries.len() - 1;
        let last_in_run = self.in_run(1, last);
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
        if last_in_run {
            if let Some(run) = self.run_mut(1) {
                run.pop_back();
            }
        }
        if pos != last {
            self.note(pos);
        }
        self.settle_runs();
        if self.entries.is_empty() {
            self.bands = [EMPTY_BOUNDS; 2];
            self.reset_runs();
        }
        (rect, entry)
    }

    /// Changes the rectangle of the entry at `pos` and returns its position, which changes
    /// when it changes group; the entry it changed places with is reported to `moved`.
    ///
    /// # Panics
    /// If `pos` is out of bounds.
    #[inline]
    pub(super) fn set_rect(
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

    /// The rest of [`set_rect`](Self::set_rect) for a list with runs (the rectangle and the
    /// band are written): apart, so that moves in lists without runs stay small.
    #[inline(never)]
    fn set_rect_in_runs(
        &mut self,
        pos: usize,
        cross: bool,
        mut moved: impl FnMut(&Entry<T>, usize),
    ) -> usize {
        let to = match (pos < self.split(), cross) {
            (true, false) => {
                // Out of the crossing group: the group's last entry takes its place.
                let to = self.split() - 1;
                let to_in_run = self.in_run(0, to);
                if to != pos {
                    self.swap(pos, to);
                    moved(&self.entries[pos], pos);
                }
                if to_in_run {
                    if let Some(run) = self.run_mut(0) {
                        run.pop_back();
                    }
                }
                if to != pos {
                    self.note(pos);
                }
                self.split -= 1;
                self.settle_runs();
                to
            }
            (false, true) => {
                // Into the crossing group: the other group's first entry takes its place.
                let to = self.split();
                let to_in_run = self.in_run(1, to);
                if to != pos {
                    self.swap(pos, to);
                    moved(&self.entries[pos], pos);
                }
                if to_in_run {
                    if let Some(run) = self.run_mut(1) {
                        run.pop_front();
                    }
                }
                self.split += 1;
                if to != pos {
                    self.note(pos);
                }
                self.settle_runs();
                to
            }
            // A move within the group: only a run's key can change.
            _ => {
                self.note(pos);
                pos
            }
        };
        to
    }

    pub(super) fn value_mut(&mut self, pos: usize) -> Option<&mut T> {
        self.entries.get_mut(pos).map(|e| &mut e.value)
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.lanes.clear();
        self.split = 0;
        self.bands = [EMPTY_BOUNDS; 2];
        self.reset_runs();
    }

    /// Entries the list holds room for.
    pub(super) fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Gives back memory beyond room for `keep` entries (or the entries held, if more).
    pub(super) fn shrink_to(&mut self, keep: usize) {
        self.entries.shrink_to(keep);
        self.lanes.shrink_to(keep.div_ceil(W));
    }

    pub(super) fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
        let blocks = (self.entries.len() + additional).div_ceil(W);
        self.lanes.reserve(blocks.saturating_sub(self.lanes.len()));
    }

    /// Moves every entry of `from` to the end of this list, calling `moved` with each one and
    /// its new position. Both lists keep their allocations.
    pub(super) fn append_from(
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
    pub(super) fn move_into(&mut self, out: &mut Vec<(Rect, Entry<T>)>) {
        let lanes = &self.lanes;
        out.extend(
            self.entries
                .drain(..)
                .enumerate()
                .map(|(p, e)| (lanes[p / W].get(p % W), e)),
        );
        self.clear();
    }

    /// Calls `f` for every item at position `from` or later whose rectangle intersects `r`
    /// (closed), until `f` returns `Break`.
    #[inline]
    pub(super) fn for_each_hit<'a, B, F>(
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
        // the long scan's batching made every short scan's call dearer. The closures handed
        // to `Avx::run` and to the scans are marked to inline: left to itself, LLVM compiled
        // a long scan apart from the AVX function, calling the block test out of line.
        let (first, end) = self.block_window(r, from);
        if first >= end {
            // Both bands missed (most lists above a small query), or nothing left to scan.
            return ControlFlow::Continue(());
        }
        if end - first >= BATCHED_BLOCKS {
            if let Some(avx) = Avx::detect() {
                return avx.run(
                    #[inline(always)]
                    move || {
                        self.scan_long(
                            r,
                            from,
                            (first, end),
                            batch,
                            f,
                            #[inline(always)]
                            |l, r| l.hits_avx(avx, r),
                        )
                    },
                );
            }
            return self.scan_long(r, from, (first, end), batch, f, Lanes::hits);
        }
        if self.lanes.len() > from / W + 1 {
            if let Some(avx) = Avx::detect() {
                return avx.run(
                    #[inline(always)]
                    move || {
                        self.scan_short(
                            r,
                            from,
                            (first, end),
                            f,
                            #[inline(always)]
                            |l, r| l.hits_avx(avx, r),
                        )
                    },
                );
            }
        }
        self.scan_short(r, from, (first, end), f, Lanes::hits)
    }

    /// As [`for_each_hit`](Self::for_each_hit) from position 0, reading only the window of
    /// each run that `r` can meet: the region queries' scan. The pair search keeps to
    /// `for_each_hit`, which tests every block of a group whose band `r` meets (the same
    /// answer), since its small scans would pay the dispatch and gain little.
    #[inline]
    pub(super) fn for_each_hit_windowed<'a, B, F>(
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

    /// The scan of a list with runs, apart from the scan of lists without.
    #[inline(never)]
    fn for_each_hit_in_spans<'a, B, F>(
        &'a self,
        r: &Rect,
        from: usize,
        batch: &mut Option<HitBatch>,
        f: F,
    ) -> ControlFlow<B>
    where
        F: FnMut(ItemRef<'a, T>) -> ControlFlow<B>,
    {
        if let Some(avx) = Avx::detect() {
            return avx.run(
                #[inline(always)]
                move || {
                    self.scan(
                        r,
                        from,
                        batch,
                        f,
                        #[inline(always)]
                        |l, r| l.hits_avx(avx, r),
                    )
                },
            );
        }
        self.scan(r, from, batch, f, Lanes::hits)
    }

    /// Calls `f(a, b)` for every pair of items here whose rectangles intersect (closed),
    /// `a` before `b` in the list, until `f` returns `Break`; `hits` is the block test (the
    /// pair search picks it once, see `pairs`).
    ///
    /// Each item meets the items before it: a list's last block is usually part-full, and
    /// this way its few items meet the full blocks, rather than every item of the full blocks
    /// meeting it (a list of 12 takes 15 block tests instead of 20). The masks of up to eight
    /// blocks are joined into one 64-bit mask before its bits are walked (see
    /// [`for_each_hit_grouped`](Self::for_each_hit_grouped)).
    #[inline(always)]
    pub(super) fn for_each_pair_inside<'a, B, F, H>(&'a self, mut f: F, hits: H) -> ControlFlow<B>
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
    pub(super) fn for_each_hit_grouped<'a, B, F, H>(
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
    fn scan<'a, B, F, H>(
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
    fn report_block<'a, B, F>(
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
    fn report<'a, B, F>(&'a self, batch: &mut HitBatch, f: &mut F) -> ControlFlow<B>
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
    fn scan_blocks<'a, B, F, H>(
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
    fn block_window(&self, r: &Rect, from: usize) -> (usize, usize) {
        let (lo, hi) = self.window(r);
        ((from / W).max(lo), hi)
    }

    /// The first lanes of a scan's first block that come before `from`, masked off.
    #[inline(always)]
    fn first_skip(first: usize, from: usize) -> u32 {
        if first == from / W {
            !0u32 << (from % W)
        } else {
            !0
        }
    }

    /// A short scan of `blocks`, each mask walked bit by bit.
    #[inline(always)]
    fn scan_short<'a, B, F, H>(
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
    fn scan_long<'a, B, F, H>(
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
    pub(super) fn for_each_distance<F>(&self, x: f32, y: f32, mut f: F)
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

    /// Appends the handle of every entry whose rectangle intersects `r` (closed), in list
    /// order; `hits` is the block test (a query picks it once, see `Quadtree::query_rect`).
    /// Most blocks a query tests hold no hit, so a block costs one test and one branch on its
    /// mask, and only hits are written to `out`.
    #[inline(always)]
    pub(super) fn gather_hits<H>(
        &self,
        r: &Rect,
        out: &mut Vec<ItemId>,
        batch: &mut Option<HitBatch>,
        hits: H,
    ) where
        H: Fn(&Lanes, &Rect) -> u32,
    {
        if self.has_runs() {
            return self.gather_spans(r, out, batch, hits);
        }
        let (first, end) = self.window(r);
        if end.saturating_sub(first) >= BATCHED_BLOCKS {
            self.gather_long(r, out, (first, end), batch, hits);
        } else {
            self.gather_short(r, out, (first, end), hits);
        }
    }

    /// As [`gather_hits`](Self::gather_hits) with AVX: the long and the short scans are
    /// separate calls into the AVX-compiled code, as in `for_each_hit`.
    #[inline(always)]
    pub(super) fn gather_hits_avx(
        &self,
        r: &Rect,
        out: &mut Vec<ItemId>,
        batch: &mut Option<HitBatch>,
        avx: Avx,
    ) {
        if self.has_runs() {
            return avx.run(
                #[inline(always)]
                || {
                    self.gather_spans(
                        r,
                        out,
                        batch,
                        #[inline(always)]
                        |l: &Lanes, r: &Rect| l.hits_avx(avx, r),
                    )
                },
            );
        }
        let (first, end) = self.window(r);
        if end.saturating_sub(first) >= BATCHED_BLOCKS {
            avx.run(
                #[inline(always)]
                || {
                    self.gather_long(
                        r,
                        out,
                        (first, end),
                        batch,
                        #[inline(always)]
                        |l: &Lanes, r: &Rect| l.hits_avx(avx, r),
                    )
                },
            );
        } else {
            avx.run(
                #[inline(always)]
                || {
                    self.gather_short(
                        r,
                        out,
                        (first, end),
                        #[inline(always)]
                        |l: &Lanes, r: &Rect| l.hits_avx(avx, r),
                    )
                },
            );
        }
    }

    /// A short gather: each mask walked bit by bit.
    #[inline(always)]
    fn gather_short<H>(
        &self,
        r: &Rect,
        out: &mut Vec<ItemId>,
        (first, end): (usize, usize),
        hits: H,
    ) where
        H: Fn(&Lanes, &Rect) -> u32,
    {
        // A copy the compiler knows `out` cannot alias, so the query's edges are read (and
        // broadcast) once, not once per block.
        let r = *r;
        let (entries, tree) = (self.entries.as_slice(), self.tree);
        let Some(blocks) = self.lanes.get(first..end) else {
            return;
        };
        // Entries are only looked up for hits: pairing each block with its slice of entries
        // cost more than the block test itself.
        for (b, lanes) in blocks.iter().enumerate() {
            let mut mask = hits(lanes, &r);
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                out.push(entries[(first + b) * W + k].id.handle(tree));
            }
        }
    }

    /// A long gather, through a [`HitBatch`] (whole blocks straight).
    #[inline(always)]
    fn gather_long<H>(
        &self,
        r: &Rect,
        out: &mut Vec<ItemId>,
        (first, end): (usize, usize),
        batch: &mut Option<HitBatch>,
        hits: H,
    ) where
        H: Fn(&Lanes, &Rect) -> u32,
    {
        let r = *r;
        let batch = batch.get_or_insert_with(HitBatch::new);
        self.gather_span(&r, out, (first * W, end * W), batch, &hits);
        Self::push_hits(&self.entries, self.tree, out, batch);
    }

    /// Appends the handles of the hits among the positions `start..end` (not empty) to `out`,
    /// through `batch`, which may keep the last ones.
    #[inline(always)]
    fn gather_span<H>(
        &self,
        r: &Rect,
        out: &mut Vec<ItemId>,
        span: (usize, usize),
        batch: &mut HitBatch,
        hits: &H,
    ) where
        H: Fn(&Lanes, &Rect) -> u32,
    {
        let (entries, tree) = (self.entries.as_slice(), self.tree);
        let _ = for_span_blocks::<(), _, _>(
            &self.lanes,
            r,
            span,
            hits,
            #[inline(always)]
            |b, _, mask| {
                Self::push_block(entries, tree, out, b, mask, batch);
                ControlFlow::Continue(())
            },
        );
    }

    /// As [`report_block`](Self::report_block), appending handles to `out`.
    #[inline(always)]
    fn push_block(
        entries: &[Entry<T>],
        tree: TreeId,
        out: &mut Vec<ItemId>,
        b: usize,
        mask: u32,
        batch: &mut HitBatch,
    ) {
        if mask == FULL_BLOCK {
            Self::push_hits(entries, tree, out, batch);
            out.extend(entries[b * W..][..W].iter().map(|e| e.id.handle(tree)));
        } else if mask != 0 && batch.push(b * W, mask) {
            Self::push_hits(entries, tree, out, batch);
        }
    }

    /// Appends the handles of the entries at the positions in `batch`, emptying it. The
    /// entries and the tree's id come as values read once per scan: read through `self`, the
    /// compiler reloads them after every push, as `out`'s writes might change them.
    #[inline(always)]
    fn push_hits(entries: &[Entry<T>], tree: TreeId, out: &mut Vec<ItemId>, batch: &mut HitBatch) {
        out.extend(
            batch
                .take()
                .iter()
                .map(|&p| entries[p as usize].id.handle(tree)),
        );
    }

    /// As [`gather_long`](Self::gather_long), over the spans of a list with runs.
    #[inline(always)]
    fn gather_spans<H>(
        &self,
        r: &Rect,
        out: &mut Vec<ItemId>,
        batch: &mut Option<HitBatch>,
        hits: H,
    ) where
        H: Fn(&Lanes, &Rect) -> u32,
    {
        let r = *r;
        let batch = batch.get_or_insert_with(HitBatch::new);
        let spans = self.spans(&r);
        for &(start, end) in &spans.at[..spans.n] {
            if start < end {
                self.gather_span(&r, out, (start, end), batch, &hits);
            }
        }
        Self::push_hits(&self.entries, self.tree, out, batch);
    }

    /// Blocks of `W` rectangles: entry `p` is in block `p / W`.
    #[inline]
    pub(super) fn block_count(&self) -> usize {
        self.lanes.len()
    }

    /// Bit `k` set when entry `b * W + k` intersects `r` (closed): the block test, one block
    /// at a time, for the iterators.
    #[inline]
    pub(super) fn block_hits(&self, b: usize, r: &Rect) -> u32 {
        self.lanes[b].hits(r)
    }

    /// Every entry with its rectangle and its payload mutable, in list order.
    pub(super) fn entries_mut(&mut self) -> EntriesMut<'_, T> {
        EntriesMut {
            entries: self.entries.iter_mut(),
            lanes: &self.lanes,
            pos: 0,
            tree: self.tree,
        }
    }

    /// Calls `f` with every entry whose rectangle intersects `r` (closed), its payload
    /// mutable, until `f` returns `Break`.
    pub(super) fn for_each_hit_mut<B, F>(&mut self, r: &Rect, mut f: F) -> ControlFlow<B>
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

    /// Whether a scan for `r` finds nothing without testing a block: an empty list, or a
    /// banded one whose two bands `r` misses. A caller can skip the scan's setup then.
    #[inline(always)]
    pub(super) fn misses(&self, r: &Rect) -> bool {
        self.lanes.is_empty() || (self.banded() && simd::meets2(&self.bands, r) == 0)
    }

    /// The blocks that a scan for `r` must test in a list without runs: a banded list leaves
    /// out a group whose band `r` misses (the crossing group comes first, so what is left is
    /// one range), and is skipped whole when `r` misses both, the common case for a node
    /// far from the query. A block shared by both groups is tested whole when one band is
    /// met, which is right: items of a group whose band `r` misses cannot intersect `r`.
    #[inline(always)]
    fn window(&self, r: &Rect) -> (usize, usize) {
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

    /// The positions that a scan for `r` must test, in order, in a list with runs. A banded list leaves out a
    /// group whose band `r` misses, and of a group's run, the entries outside the window its
    /// keys give for `r` (see [`Run`]); the group's entries outside its run are all tested.
    #[inline(always)]
    fn spans(&self, r: &Rect) -> Spans {
        let len = self.entries.len();
        if !self.banded() || self.lanes.len() < BANDED_BLOCKS {
            return Spans::one(0, len);
        }
        let mut spans = Spans {
            at: [(0, 0); SPANS],
            n: 0,
        };
        let met = simd::meets2(&self.bands, r);
        if met & 1 != 0 {
            let run = self.run(0);
            if run.len() > 0 {
                for (a, b) in run.windows(r.min_y, r.max_y, across_of(0, r)) {
                    spans.add(a, b);
                }
                spans.add(run.len(), self.split());
            } else {
                spans.add(0, self.split());
            }
        }
        if met & 2 != 0 {
            let run = self.run(1);
            if run.len() > 0 {
                spans.add(self.split(), run.start);
                for (a, b) in run.windows(r.min_x, r.max_x, across_of(1, r)) {
                    spans.add(a, b);
                }
                spans.add(run.start + run.len(), len);
            } else {
                spans.add(self.split(), len);
            }
        }
        spans
    }

    /// Whether there is one block per eight entries, with empty lanes past the last entry,
    /// each entry in its group and inside its group's band, and each run inside its group,
    /// its keys sorted, and each of its entries within the reach its keys and slack give.
    pub(super) fn lanes_consistent(&self) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::ControlFlow;

    /// Bit `k` set when lane `k` intersects `r`, one lane at a time: the oracle of the
    /// vector forms.
    fn hits_scalar(lanes: &Lanes, r: &Rect) -> u32 {
        (0..W).fold(0, |mask, k| {
            mask | u32::from(lanes.get(k).intersects(r)) << k
        })
    }

    /// Small pseudo-random numbers without a dependency: coordinates on a coarse grid, so
    /// exact touches along edges and corners are common.
    struct Lcg(u64);

    impl Lcg {
        fn coord(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % 16) as f32
        }

        fn rect(&mut self) -> Rect {
            let (x, y) = (self.coord(), self.coord());
            Rect::new(x, y, x + self.coord() / 4.0, y + self.coord() / 4.0)
        }
    }

    /// A list of `n` random items whose payload is their position, and their rectangles kept
    /// apart as the oracle.
    fn list(rng: &mut Lcg, n: usize) -> (ItemList<usize>, Vec<Rect>) {
        let mut items = ItemList::default();
        let mut rects = Vec::new();
        for value in 0..n {
            let id = crate::quadtree::SlotKey {
                index: value as u32,
                generation: 0,
            };
            let rect = rng.rect();
            items.push(rect, Entry { id, value }, |_, _| {});
            rects.push(rect);
        }
        (items, rects)
    }

    /// Every item's rectangle, by payload, as the list stores it.
    fn stored(items: &ItemList<usize>) -> Vec<(usize, Rect)> {
        let mut all: Vec<_> = items.items().map(|it| (*it.value, it.rect)).collect();
        all.sort_by_key(|&(v, _)| v);
        all
    }

    /// `bounds` against a fold over the oracle's rectangles, for lists that fill whole
    /// blocks, part of one, or none, and after removals leave emptied lanes behind.
    #[test]
    fn bounds_cover_exactly_the_items() {
        let mut rng = Lcg(11);
        let fold = |rects: &[Rect]| {
            rects.iter().copied().reduce(|a, b| {
                Rect::new(
                    a.min_x.min(b.min_x),
                    a.min_y.min(b.min_y),
                    a.max_x.max(b.max_x),
                    a.max_y.max(b.max_y),
                )
            })
        };
        for n in [0, 1, 7, 8, 9, 16, 23, 40] {
            let (mut items, rects) = list(&mut rng, n);
            assert_eq!(items.bounds(), fold(&rects), "n = {n}");
            if n > 2 {
                let (gone, _) = items.swap_remove(n / 2, |_, _| {});
                let left: Vec<Rect> = items.items().map(|it| it.rect).collect();
                assert_eq!(left.len(), n - 1);
                assert!(rects.contains(&gone));
                assert_eq!(items.bounds(), fold(&left), "n = {n}, after a removal");
            }
        }
    }

    #[test]
    fn rectangles_follow_their_entries_through_every_change() {
        let mut rng = Lcg(5);
        let (mut items, mut rects) = list(&mut rng, 37);
        let expect = |rects: &[Rect], keep: &dyn Fn(usize) -> bool| -> Vec<(usize, Rect)> {
            (0..rects.len())
                .filter(|&v| keep(v))
                .map(|v| (v, rects[v]))
                .collect()
        };
        assert_eq!(stored(&items), expect(&rects, &|_| true));
        // Changes: new rectangles for some, then removals from the front, middle and end.
        for pos in [0, 9, 36] {
            let v = items[pos].value;
            rects[v] = rng.rect();
            items.set_rect(pos, rects[v], |_, _| {});
        }
        let mut gone = Vec::new();
        for pos in [0, 17, 33, 5] {
            let (rect, entry) = items.swap_remove(pos, |_, _| {});
            assert_eq!(rect, rects[entry.value]);
            gone.push(entry.value);
            assert!(items.lanes_consistent());
        }
        assert_eq!(stored(&items), expect(&rects, &|v| !gone.contains(&v)));
        // Moving everything to another list keeps each rectangle with its entry.
        let (mut other, other_rects) = list(&mut rng, 3);
        let mut positions = Vec::new();
        other.append_from(&mut items, |e, p| positions.push((e.value, p)));
        assert!(items.is_empty() && items.lanes_consistent() && other.lanes_consistent());
        for &(v, p) in &positions {
            assert_eq!((other[p].value, other.rect(p)), (v, rects[v]));
        }
        assert_eq!(
            (other.rect(0), other.rect(2)),
            (other_rects[0], other_rects[2])
        );
        let mut out = Vec::new();
        other.move_into(&mut out);
        assert_eq!(out.len(), 3 + 37 - gone.len());
        assert!(other.is_empty() && other.lanes_consistent());
        assert_eq!((out[1].0, out[1].1.value), (other_rects[1], 1));
        for (rect, e) in &out[3..] {
            assert_eq!(*rect, rects[e.value]);
        }
    }

    #[test]
    fn every_block_test_matches_rect_intersects() {
        let mut rng = Lcg(7);
        for n in 0..40 {
            let (items, rects) = list(&mut rng, n);
            for _ in 0..20 {
                let r = rng.rect();
                for (b, lanes) in items.lanes.iter().enumerate() {
                    let want = (0..W)
                        .filter(|&k| rects.get(b * W + k).is_some_and(|e| e.intersects(&r)))
                        .fold(0, |m, k| m | 1 << k);
                    assert_eq!(hits_scalar(lanes, &r), want);
                    assert_eq!(lanes.hits(&r), want);
                    if let Some(avx) = Avx::detect() {
                        assert_eq!(avx.run(|| lanes.hits_avx(avx, &r)), want);
                    }
                }
            }
        }
    }

    /// Every block test the pair search may be handed: the compile-time form, the scalar
    /// meaning, and AVX where the CPU has it.
    type BlockTest = Box<dyn Fn(&Lanes, &Rect) -> u32>;

    fn block_tests() -> Vec<BlockTest> {
        let mut tests: Vec<BlockTest> = vec![Box::new(Lanes::hits), Box::new(hits_scalar)];
        if let Some(avx) = Avx::detect() {
            tests.push(Box::new(move |l: &Lanes, r: &Rect| {
                avx.run(|| l.hits_avx(avx, r))
            }));
        }
        tests
    }

    #[test]
    fn scans_find_what_brute_force_finds() {
        let mut rng = Lcg(11);
        // Past 64 items the pair search joins the masks of more than one group of blocks.
        for n in (0..40).chain([63, 64, 65, 71, 130, 200]) {
            let (items, rects) = list(&mut rng, n);
            // A random query, one that meets every item (more hits than a batch holds, every
            // block whole) and one that meets about half (whole blocks between partial ones).
            let r = rng.rect();
            for r in [
                r,
                Rect::new(-1.0, -1.0, 40.0, 40.0),
                Rect::new(-1.0, 3.0, 40.0, 11.0),
            ] {
                scans_find_what_brute_force_finds_for(&items, &rects, r);
            }
        }
    }

    fn scans_find_what_brute_force_finds_for(items: &ItemList<usize>, rects: &[Rect], r: Rect) {
        let n = items.len();
        for from in 0..=n {
            let want: Vec<usize> = (from..n).filter(|&i| rects[i].intersects(&r)).collect();
            let dispatched = hits_from(items, &r, from);
            for &(v, rect) in &dispatched {
                assert_eq!(rect, rects[v]);
            }
            let dispatched: Vec<usize> = dispatched.into_iter().map(|(v, _)| v).collect();
            let portable = portable_scan(items, &r, from);
            assert_eq!((&dispatched, &portable), (&want, &want));
        }
        let want_hits: Vec<usize> = (0..n).filter(|&i| rects[i].intersects(&r)).collect();
        let want: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .filter(|&(i, j)| rects[i].intersects(&rects[j]))
            .collect();
        for hits in block_tests() {
            // In list order, each hit once, and the items of the blocks tested counted.
            let (mut found, mut tests) = (Vec::new(), 0);
            let _ = items.for_each_hit_grouped(
                &r,
                |e| {
                    assert_eq!(e.rect, rects[*e.value]);
                    found.push(*e.value);
                    ControlFlow::<()>::Continue(())
                },
                &hits,
                &mut tests,
            );
            assert_eq!((&found, tests), (&want_hits, n as u64), "{n} items");
            // Each pair once, `a` before `b`, `b` in list order, then `a`.
            let mut pairs = Vec::new();
            let _ = items.for_each_pair_inside(
                |a, b| {
                    assert_eq!((a.rect, b.rect), (rects[*a.value], rects[*b.value]));
                    pairs.push((*a.value, *b.value));
                    ControlFlow::<()>::Continue(())
                },
                &hits,
            );
            let mut sorted = pairs.clone();
            sorted.sort_unstable_by_key(|&(a, b)| (b, a));
            assert_eq!(pairs, sorted, "{n} items");
            sorted.sort_unstable();
            assert_eq!(sorted, want, "{n} items");
        }
        let want: Vec<u32> = (0..n)
            .filter(|&i| rects[i].intersects(&r))
            .map(|i| i as u32)
            .collect();
        let mut gathered = Vec::new();
        items.gather_hits(&r, &mut gathered, &mut None, Lanes::hits);
        assert_eq!(gathered.iter().map(|id| id.index).collect::<Vec<_>>(), want);
        if let Some(avx) = Avx::detect() {
            gathered.clear();
            items.gather_hits_avx(&r, &mut gathered, &mut None, avx);
            assert_eq!(gathered.iter().map(|id| id.index).collect::<Vec<_>>(), want);
        }
    }

    #[test]
    fn galloping_finds_what_partition_point_finds() {
        let mut rng = Lcg(23);
        for n in 0..70 {
            // Sorted keys with runs of equal ones, as a run's clamped keys have.
            let mut keys: Vec<f32> = (0..n).map(|_| rng.coord()).collect();
            keys.sort_by(f32::total_cmp);
            for t in -1..=17 {
                let t = t as f32;
                let want = keys.partition_point(|&k| k < t);
                let want_le = keys.partition_point(|&k| k <= t);
                for guess in 0..=n + 2 {
                    assert_eq!(
                        gallop_partition(&keys, guess, |k| k < t),
                        want,
                        "{keys:?} {t}"
                    );
                    assert_eq!(gallop_partition(&keys, guess, |k| k <= t), want_le);
                }
            }
        }
    }

    #[test]
    fn a_hit_batch_holds_the_set_bits_in_order() {
        for mask in 0u32..256 {
            let want: Vec<u32> = (0..W as u32).filter(|k| mask >> k & 1 == 1).collect();
            let mut batch = HitBatch::new();
            assert!(!batch.push(16, mask));
            let got: Vec<u32> = batch.take().iter().map(|p| p - 16).collect();
            assert_eq!(got, want, "{mask:08b}");
            assert!(batch.take().is_empty());
        }
        // Full once it holds `CAP` positions, and every one kept.
        let mut batch = HitBatch::new();
        let blocks = HitBatch::CAP / W;
        for b in 0..blocks {
            assert_eq!(batch.push(b * W, 0xff), b + 1 == blocks);
        }
        let all: Vec<u32> = (0..HitBatch::CAP as u32).collect();
        assert_eq!(batch.take(), &all[..]);
    }

    #[test]
    fn grouped_scans_and_pairs_stop_when_told() {
        let mut rng = Lcg(5);
        let (items, _) = list(&mut rng, 150);
        let everything = Rect::new(-1.0, -1.0, 100.0, 100.0);
        let mut seen = 0;
        let flow = items.for_each_hit_grouped(
            &everything,
            |_| {
                seen += 1;
                if seen == 70 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
            Lanes::hits,
            &mut 0,
        );
        assert_eq!((flow, seen), (ControlFlow::Break(()), 70));
        let mut seen = 0;
        let flow = items.for_each_pair_inside(
            |_, _| {
                seen += 1;
                if seen == 3 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
            Lanes::hits,
        );
        assert_eq!((flow, seen), (ControlFlow::Break(()), 3));
    }

    /// A list split at a centre line: through random pushes, moves (some across the line) and
    /// removals, the positions reported to `moved` stay right, every entry stays in its group
    /// and band, the runs (sorted now and then, more or less often) stay sorted with every
    /// entry within their reach, and the banded scans find what brute force finds.
    #[test]
    fn groups_bands_and_runs_follow_every_change() {
        for (seed, sort_every, steps) in [(13, 700, 3000), (17, 97, 1500), (19, 1500, 3000)] {
            groups_bands_and_runs_follow(seed, sort_every, steps);
        }
    }

    fn groups_bands_and_runs_follow(seed: u64, sort_every: usize, steps: usize) {
        let mut rng = Lcg(seed);
        let mut items = ItemList::default();
        items.make_banded(8.0);
        let mut scratch = Vec::new();
        // Payload: the item's number; `at[v]` its position as the callbacks report it.
        let mut rects: Vec<Option<Rect>> = Vec::new();
        let mut at: Vec<usize> = Vec::new();
        let mut sorted_once = false;
        for step in 0..steps {
            let live: Vec<usize> = (0..rects.len()).filter(|&v| rects[v].is_some()).collect();
            // Grow to a few hundred items, then churn; a full sort now and then.
            let choice = if live.len() > 400 {
                2 + rng.coord() as usize % 2
            } else {
                rng.coord() as usize % 5
            };
            if step % sort_every == sort_every / 2 {
                items.sort_runs(&mut scratch, |e, p| at[e.value] = p);
            }
            if step % 40 == 20 {
                // Many in-place moves at once, as a batch update makes: each entry a small
                // step, where it keeps its group.
                let (dx, dy) = (rng.coord() / 8.0 - 1.0, rng.coord() / 8.0 - 1.0);
                let mut next: Vec<Option<Rect>> = vec![None; rects.len()];
                for (v, r) in rects.iter_mut().enumerate() {
                    if let Some(old) = *r {
                        let new = Rect::new(
                            old.min_x + dx,
                            old.min_y + dy,
                            old.max_x + dx,
                            old.max_y + dy,
                        );
                        if v % 3 != 0 && items.keeps_group(at[v], &new) {
                            next[v] = Some(new);
                            *r = Some(new);
                        }
                    }
                }
                // The slot index is the item's number here.
                items.rewrite_each(|index| next[index as usize]);
            }
            match choice {
                0 | 1 | 4 => {
                    let v = rects.len();
                    let rect = rng.rect();
                    let id = crate::quadtree::SlotKey {
                        index: v as u32,
                        generation: 0,
                    };
                    at.push(usize::MAX);
                    let p = items.push(rect, Entry { id, value: v }, |e, p| at[e.value] = p);
                    at[v] = p;
                    rects.push(Some(rect));
                }
                2 if !live.is_empty() => {
                    let v = live[step % live.len()];
                    let rect = rng.rect();
                    // Mostly small moves, as moving objects make, sometimes a jump.
                    let old = rects[v].unwrap();
                    let rect = if step % 3 == 0 {
                        rect
                    } else {
                        let (dx, dy) = (rng.coord() / 16.0 - 0.45, rng.coord() / 16.0 - 0.45);
                        Rect::new(
                            old.min_x + dx,
                            old.min_y + dy,
                            old.max_x + dx,
                            old.max_y + dy,
                        )
                    };
                    at[v] = items.set_rect(at[v], rect, |e, p| at[e.value] = p);
                    rects[v] = Some(rect);
                }
                3 if !live.is_empty() => {
                    let v = live[(step * 7) % live.len()];
                    let (rect, e) = items.swap_remove(at[v], |e, p| at[e.value] = p);
                    assert_eq!((e.value, Some(rect)), (v, rects[v]));
                    rects[v] = None;
                }
                _ => {}
            }
            assert!(items.lanes_consistent(), "seed {seed}, step {step}");
            sorted_once |= items.has_runs();
            for (v, r) in rects.iter().enumerate() {
                if let Some(r) = r {
                    assert_eq!((items[at[v]].value, items.rect(at[v])), (v, *r));
                }
            }
            // Now and then a query that meets every item (more hits than one batch holds) or
            // about half of them.
            let q = rng.rect();
            let q = match step % 10 {
                0 => Rect::new(-1.0, -1.0, 40.0, 40.0),
                5 => Rect::new(-1.0, 3.0, 40.0, 11.0),
                _ => q,
            };
            let want: Vec<usize> = (0..rects.len())
                .filter(|&v| rects[v].is_some_and(|r| r.intersects(&q)))
                .collect();
            assert_eq!(sorted_hits(&items, &q), want);
            let mut grouped = Vec::new();
            let _ = items.for_each_hit_grouped(
                &q,
                |e| {
                    grouped.push(*e.value);
                    ControlFlow::<()>::Continue(())
                },
                Lanes::hits,
                &mut 0,
            );
            grouped.sort_unstable();
            assert_eq!(grouped, want);
            let sorted_gather = |hits: &dyn Fn(&Lanes, &Rect) -> u32| {
                let mut gathered = Vec::new();
                items.gather_hits(&q, &mut gathered, &mut None, hits);
                let mut gathered: Vec<usize> =
                    gathered.iter().map(|id| id.index as usize).collect();
                gathered.sort_unstable();
                gathered
            };
            assert_eq!(sorted_gather(&Lanes::hits), want);
            if let Some(avx) = Avx::detect() {
                let gathered = avx.run(|| sorted_gather(&|l, r| l.hits_avx(avx, r)));
                assert_eq!(gathered, want);
                // The entry point `query_rect` calls.
                let mut direct = Vec::new();
                items.gather_hits_avx(&q, &mut direct, &mut None, avx);
                let mut direct: Vec<usize> = direct.iter().map(|id| id.index as usize).collect();
                direct.sort_unstable();
                assert_eq!(direct, want);
            }
            // The portable block test, and a scan from a position on.
            let from = step % (items.len() + 1);
            let want: Vec<usize> = want.into_iter().filter(|&v| at[v] >= from).collect();
            let mut portable = portable_scan(&items, &q, from);
            portable.sort_unstable();
            assert_eq!(portable, want);
        }
        assert!(sorted_once, "seed {seed}: the runs must be exercised");
    }

    /// The walks read nodes by index, and a node of 128 bytes is a shift away.
    #[test]
    fn a_node_fits_in_128_bytes() {
        assert!(std::mem::size_of::<crate::quadtree::arena::Node<u32>>() <= 128);
        assert!(std::mem::size_of::<crate::quadtree::arena::Node<[u32; 2]>>() <= 128);
    }

    /// A banded list whose groups share a block: a query meeting neither band tests no
    /// block, one meeting one band tests that group's blocks (the shared one included), and
    /// every scan still finds what brute force finds.
    /// The values and rectangles `for_each_hit` reports for `r` from position `from`, in
    /// the order it reports them.
    fn hits_from(items: &ItemList<usize>, r: &Rect, from: usize) -> Vec<(usize, Rect)> {
        let mut found = Vec::new();
        let _ = items.for_each_hit(r, from, &mut None, |e| {
            found.push((*e.value, e.rect));
            ControlFlow::<()>::Continue(())
        });
        found
    }

    /// The values `for_each_hit` reports for `r` from position 0, sorted.
    fn sorted_hits(items: &ItemList<usize>, r: &Rect) -> Vec<usize> {
        let mut found: Vec<usize> = hits_from(items, r, 0).into_iter().map(|(v, _)| v).collect();
        found.sort_unstable();
        found
    }

    /// The values the region queries' scan reports for `r` from position `from` with the
    /// portable block test, in order.
    fn portable_scan(items: &ItemList<usize>, r: &Rect, from: usize) -> Vec<usize> {
        let mut found = Vec::new();
        let _ = items.scan(
            r,
            from,
            &mut None,
            |e| {
                found.push(*e.value);
                ControlFlow::<()>::Continue(())
            },
            hits_scalar,
        );
        found
    }

    /// A list of `rects` in order, entry `i` with the value `i`.
    fn list_of(rects: &[Rect]) -> ItemList<usize> {
        let mut items = ItemList::default();
        for (value, &rect) in rects.iter().enumerate() {
            let id = crate::quadtree::SlotKey {
                index: value as u32,
                generation: 0,
            };
            items.push(rect, Entry { id, value }, |_, _| {});
        }
        items
    }

    #[test]
    fn a_query_missing_both_bands_tests_no_block() {
        // 13 items crossing x = 50 (around y = 10..20), then 6 crossing only y = 50.
        let rects: Vec<Rect> = (0..19)
            .map(|value| {
                let f = value as f32;
                if value < 13 {
                    Rect::new(49.0, 10.0 + f * 0.5, 51.0, 11.0 + f * 0.5)
                } else {
                    Rect::new(60.0 + f, 49.0, 61.0 + f, 51.0)
                }
            })
            .collect();
        let mut items = list_of(&rects);
        items.make_banded(50.0);
        assert_eq!(items.split(), 13);
        // The query, then the first block and the number of blocks tested.
        let cases = [
            (Rect::new(0.0, 0.0, 5.0, 5.0), None),
            (Rect::new(45.0, 12.0, 55.0, 13.0), Some((0, 2))),
            (Rect::new(70.0, 48.0, 75.0, 52.0), Some((1, 2))),
            (Rect::new(0.0, 0.0, 100.0, 100.0), Some((0, 3))),
        ];
        for (q, want_blocks) in cases {
            let (a, b) = items.window(&q);
            let tested = (b > a).then_some((a, b - a));
            assert_eq!(tested, want_blocks, "{q:?}");
            let want: Vec<usize> = (0..19).filter(|&v| rects[v].intersects(&q)).collect();
            assert_eq!(sorted_hits(&items, &q), want, "{q:?}");
        }
    }

    #[test]
    fn a_query_beside_the_line_skips_the_far_half() {
        // 256 items 4 wide crossing x = 50, their middles left or right of it in turn, spread
        // along y.
        let rects: Vec<Rect> = (0..256)
            .map(|value| {
                let (y, left) = ((value / 2) as f32 * 0.75, value % 2 == 0);
                let x = if left { 47.0 } else { 49.0 } + (value % 7) as f32 * 0.1;
                Rect::new(x, y, x + 4.0, y + 1.0)
            })
            .collect();
        let mut items = list_of(&rects);
        items.make_banded(50.0);
        items.sort_runs(&mut Vec::new(), |_, _| {});
        assert!(items.lanes_consistent());
        let run = items.run(0);
        assert_eq!((run.len(), run.mid), (256, 128));
        for (q, near) in [
            // Right of every left item's right edge (at most 51.6): only the right half.
            (Rect::new(52.0, 20.0, 60.0, 40.0), false),
            // Left of every right item's left edge (at least 49): only the left half.
            (Rect::new(40.0, 20.0, 48.5, 40.0), true),
        ] {
            let spans = items.spans(&q);
            let tested: Vec<usize> = spans.at[..spans.n]
                .iter()
                .flat_map(|&(a, b)| a..b)
                .collect();
            assert!(!tested.is_empty(), "{q:?}");
            // Every position tested holds an item of the half the query can meet.
            for &p in &tested {
                assert_eq!(items[p].value % 2 == 0, near, "{q:?} at {p}");
            }
            let mut got = Vec::new();
            let _ = items.for_each_hit_windowed(&q, &mut None, |it| {
                got.push(*it.value);
                ControlFlow::<()>::Continue(())
            });
            got.sort();
            let want: Vec<usize> = (0..256).filter(|&v| rects[v].intersects(&q)).collect();
            assert!(!want.is_empty());
            assert_eq!(got, want, "{q:?}");
        }
    }

    #[test]
    fn a_scan_stops_when_told() {
        let mut rng = Lcg(3);
        let everything = Rect::new(-1.0, -1.0, 100.0, 100.0);
        let half = Rect::new(-1.0, 3.0, 40.0, 11.0);
        // A short scan; a long one stopping inside a whole block and after a batch was
        // reported; a long one stopping inside a batch.
        for (n, q, stop) in [(30, everything, 5), (200, everything, 70), (200, half, 20)] {
            let (items, rects) = list(&mut rng, n);
            let want: Vec<usize> = (0..n).filter(|&i| rects[i].intersects(&q)).collect();
            assert!(want.len() > stop);
            let mut seen = Vec::new();
            let flow = items.for_each_hit(&q, 0, &mut None, |e| {
                seen.push(*e.value);
                if seen.len() == stop {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            assert_eq!((flow, &seen[..]), (ControlFlow::Break(()), &want[..stop]));
        }
    }
}
