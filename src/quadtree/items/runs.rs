//! Sorted runs: each group of a banded list may keep a run of its entries sorted along the
//! line they cross, which region queries binary-search for the spans they must test.

use super::{simd, ItemList, Rect, BANDED_BLOCKS, EMPTY_BOUNDS, W};
use crate::quadtree::Entry;

/// What a list without runs reads: two empty runs.
pub(super) static NO_RUNS: [Run; 2] = [Run::EMPTY, Run::EMPTY];

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
pub(super) struct Run {
    /// Position of the run's first entry.
    pub(super) start: usize,
    /// Keys of the run's entries, from `keys[first]` (the entry at `start`) on.
    pub(super) keys: Vec<f32>,
    pub(super) first: usize,
    /// The run index where the second half starts.
    pub(super) mid: usize,
    /// Per half, the lowest and highest edge across the line of any of its entries.
    pub(super) across: [(f32, f32); 2],
    pub(super) down: f64,
    pub(super) up: f64,
    pub(super) ext: f64,
}

impl Run {
    pub(super) const EMPTY: Run = Run {
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
    pub(super) fn len(&self) -> usize {
        self.keys.len() - self.first
    }

    pub(super) fn reset(&mut self, start: usize) {
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
    pub(super) fn index(&self, pos: usize) -> Option<usize> {
        pos.checked_sub(self.start).filter(|&i| i < self.len())
    }

    /// The run's last position leaves it.
    pub(super) fn pop_back(&mut self) {
        self.keys.pop();
        self.mid = self.mid.min(self.len());
        if self.len() == 0 {
            self.reset(self.start);
        }
    }

    /// The run's first position leaves it.
    pub(super) fn pop_front(&mut self) {
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
    pub(super) fn write(&mut self, i: usize, k: f32, ext: f64, across: (f32, f32)) {
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
            self.down = self.down.max(outward(lo as f64 - k as f64));
            lo
        } else if k > hi {
            self.up = self.up.max(outward(k as f64 - hi as f64));
            hi
        } else {
            k
        };
    }

    /// Per half, the positions of the run whose entries can meet `[lo, hi]` along the line
    /// and `across` across it (an empty range for a half that `across` misses).
    #[inline]
    pub(super) fn windows(&self, lo: f32, hi: f32, across: (f32, f32)) -> [(usize, usize); 2] {
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
    pub(super) fn window(&self, keys: &[f32], lo: f32, hi: f32) -> (usize, usize) {
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

/// A slack `d` (the rounded `f64` difference of two `f32` keys, `d >= 0`) widened to at least
/// the exact difference: the difference of keys at the two ends of the `f32` range (say
/// `-f32::MAX` and 2.5) rounds away the small one, and the key plus that slack would then
/// fall short of the entry.
#[inline(always)]
fn outward(d: f64) -> f64 {
    d + d * f64::EPSILON
}

/// The first index of `keys` whose key is not `below`, as `partition_point` finds it (`below`
/// must hold for a prefix of the keys and for nothing after it), searched from index `guess`
/// outwards in doubling steps, then bisected within the last step: O(log d) reads for an
/// answer `d` away from the guess, all of them near the answer once the steps are short.
pub(super) fn gallop_partition(keys: &[f32], guess: usize, below: impl Fn(f32) -> bool) -> usize {
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
pub(super) const SLACK_ROUNDING: f64 = 1.0 / (1u64 << 48) as f64;

/// Groups with fewer entries keep no run: a scan of all of them costs about what the binary
/// search would.
pub(super) const RUN_MIN: usize = 64;

/// The key edge (the minimum along the line the group crosses) and extent along that line of
/// `r` in group `g` (0: crossing the vertical line, sorted along y; 1: the rest, along x).
#[inline(always)]
pub(super) fn key_of(g: usize, r: &Rect) -> (f32, f64) {
    if g == 0 {
        (r.min_y, r.max_y as f64 - r.min_y as f64)
    } else {
        (r.min_x, r.max_x as f64 - r.min_x as f64)
    }
}

/// The edges of `r` across the line that group `g`'s entries cross.
#[inline(always)]
pub(super) fn across_of(g: usize, r: &Rect) -> (f32, f32) {
    if g == 0 {
        (r.min_x, r.max_x)
    } else {
        (r.min_y, r.max_y)
    }
}

/// The extent across a line of no entry: any entry's edges grow it to themselves.
pub(super) const NO_EXTENT: (f32, f32) = (f32::INFINITY, f32::NEG_INFINITY);

/// The bits of `k` as an unsigned integer in `k`'s order (total order: -0 before +0).
#[inline(always)]
pub(super) fn ordered(k: f32) -> u32 {
    let bits = k.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

/// The inverse of [`ordered`].
#[inline(always)]
pub(super) fn from_ordered(o: u32) -> f32 {
    f32::from_bits(if o >> 31 == 1 { o & !(1 << 31) } else { !o })
}

/// Halves shorter than this are sorted by comparisons: the radix sort's four count tables
/// cost more than they save there.
const RADIX_MIN: usize = 256;

/// Sorts `words`, each a key in its high 32 bits above an offset, ascending, given them in
/// offset order: the order `sort_unstable` gives, since the offsets differ. A long slice
/// takes a least-significant-byte-first radix sort of the keys through `buf` (as long as
/// `words`), which is stable, so equal keys stay in offset order; a pass whose byte is the
/// same in every key (the high bytes of keys in a narrow range) is skipped. The comparison
/// sort cost the bulk builds, which end with a sort, about as much as the rest of the build.
pub(super) fn sort_by_key_bits(words: &mut [u64], buf: &mut [u64]) {
    let n = words.len();
    if n < RADIX_MIN {
        words.sort_unstable();
        return;
    }
    let mut counts = [[0u32; 256]; 4];
    for &v in words.iter() {
        let k = (v >> 32) as u32;
        for (b, c) in counts.iter_mut().enumerate() {
            c[(k >> (8 * b)) as usize & 0xff] += 1;
        }
    }
    let (mut from, mut to) = (words, buf);
    let mut in_buf = false;
    for (b, c) in counts.iter_mut().enumerate() {
        if c.iter().any(|&k| k as usize == n) {
            continue;
        }
        let mut sum = 0;
        for k in c.iter_mut() {
            (*k, sum) = (sum, sum + *k);
        }
        for &v in from.iter() {
            let d = (v >> (32 + 8 * b)) as usize & 0xff;
            to[c[d] as usize] = v;
            c[d] += 1;
        }
        std::mem::swap(&mut from, &mut to);
        in_buf = !in_buf;
    }
    if in_buf {
        to.copy_from_slice(from);
    }
}

/// Up to five ascending, disjoint position ranges: what a scan tests.
/// The most spans of a list with runs: the crossing group's two halves and its unsorted
/// tail, then the other group's unsorted head, two halves and tail.
pub(super) const SPANS: usize = 7;

pub(super) struct Spans {
    pub(super) at: [(usize, usize); SPANS],
    pub(super) n: usize,
}

impl Spans {
    #[inline(always)]
    pub(super) fn one(start: usize, end: usize) -> Self {
        Spans {
            at: [(start, end); SPANS],
            n: 1,
        }
    }

    #[inline(always)]
    pub(super) fn add(&mut self, start: usize, end: usize) {
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

impl<T> ItemList<T> {
    pub(super) fn reset_runs(&mut self) {
        let split = self.split();
        if let Some(runs) = &mut self.runs {
            runs[0].reset(0);
            runs[1].reset(split);
        }
    }

    /// The run of group `g` (an empty one when the list keeps none).
    #[inline(always)]
    pub(super) fn run(&self, g: usize) -> &Run {
        &self.runs.as_deref().unwrap_or(&NO_RUNS)[g]
    }

    /// Whether `pos` is in group `g`'s run.
    #[inline(always)]
    pub(super) fn in_run(&self, g: usize, pos: usize) -> bool {
        self.runs.is_some() && self.run(g).index(pos).is_some()
    }

    /// The run of group `g`, if the list keeps runs.
    #[inline(always)]
    pub(super) fn run_mut(&mut self, g: usize) -> Option<&mut Run> {
        self.runs.as_deref_mut().map(|r| &mut r[g])
    }

    /// Whether either group keeps a run.
    #[inline(always)]
    pub(in crate::quadtree) fn has_runs(&self) -> bool {
        self.runs
            .as_deref()
            .is_some_and(|r| r[0].len() + r[1].len() > 0)
    }

    /// After the entry at `pos` changed or was replaced: if `pos` is in a run, the run
    /// learns its key.
    #[inline(always)]
    pub(super) fn note(&mut self, pos: usize) {
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
    pub(super) fn settle_runs(&mut self) {
        let split = self.split();
        if let Some(run) = self.run_mut(1) {
            if run.len() == 0 {
                run.reset(split);
            }
        }
    }

    /// Sorts group `g` along its line into one run, or leaves it without a run if it is
    /// small. Every entry of the group is reported to `moved`.
    pub(super) fn sort_group(
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
        // The second `n` words are the radix sort's buffer.
        scratch.clear();
        scratch.resize(2 * n, 0);
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
        {
            let (words, buf) = scratch.split_at_mut(n);
            // The second half was filled from the back: in offset order, as the first is, a
            // stable sort by key leaves equal keys in offset order, as sorting whole words does.
            words[mid..].reverse();
            sort_by_key_bits(&mut words[..mid], &mut buf[..mid]);
            sort_by_key_bits(&mut words[mid..], &mut buf[mid..]);
        }
        scratch.truncate(n);
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
    pub(in crate::quadtree) fn sort_runs(
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

    /// After the groups' border moved up past `s`: the other group's run no longer holds
    /// `s`, and when empty starts at the border.
    #[inline(never)]
    pub(super) fn leave_front_of_run(&mut self, s: usize) {
        if self.in_run(1, s) {
            if let Some(run) = self.run_mut(1) {
                run.pop_front();
            }
        }
        self.settle_runs();
    }

    /// [`note`](Self::note), not inlined: for the callers whose common case has no runs.
    #[inline(never)]
    pub(super) fn note_apart(&mut self, pos: usize) {
        self.note(pos);
    }

    /// As [`swap_remove`](Self::swap_remove), keeping the runs: an entry that fills a hole
    /// in a run is written into it as a move would be, and a run whose end leaves shrinks.
    pub(super) fn swap_remove_in_runs(
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

    /// The rest of [`set_rect`](Self::set_rect) for a list with runs (the rectangle and the
    /// band are written): apart, so that moves in lists without runs stay small.
    #[inline(never)]
    pub(super) fn set_rect_in_runs(
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

    /// The positions that a scan for `r` must test, in order, in a list with runs. A banded list leaves out a
    /// group whose band `r` misses, and of a group's run, the entries outside the window its
    /// keys give for `r` (see [`Run`]); the group's entries outside its run are all tested.
    #[inline(always)]
    pub(super) fn spans(&self, r: &Rect) -> Spans {
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
}
