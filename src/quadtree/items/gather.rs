//! The scans that append handles to a `Vec` (`query_in_rect`): hits go straight from the block
//! test into the output, with no per-hit callback.

use std::ops::ControlFlow;

use super::scan::{for_span_blocks, HitBatch, ListHits, BATCHED_BLOCKS, FULL_BLOCK};
use super::{with_block_test, Avx, ItemList, Lanes, W};
use crate::quadtree::{Entry, ItemId, Rect, TreeId};

impl<T> ItemList<T> {
    /// Appends the handle of every entry whose rectangle intersects `r` (closed), in list
    /// order; `hits` is the block test (a query picks it once, see `Quadtree::query_in_rect`).
    /// A short scan leaves its hits in `pending`, which the query appends at its end (or when
    /// it fills, or before a scan that appends at once), as `for_each_hit_windowed_with`
    /// does; a long one appends its own through `batch`.
    #[inline(always)]
    pub(in crate::quadtree) fn gather_hits<'a, H>(
        &'a self,
        r: &Rect,
        out: &mut Vec<ItemId>,
        batch: &mut Option<HitBatch>,
        pending: &mut ListHits<'a, T>,
        hits: H,
    ) where
        H: Fn(&Lanes, &Rect) -> u32,
    {
        if self.has_runs() {
            pending.gather_into(out);
            return self.gather_spans(r, out, batch, hits);
        }
        let (first, end) = self.window(r);
        if end.saturating_sub(first) >= BATCHED_BLOCKS {
            pending.gather_into(out);
            self.gather_long(r, out, (first, end), batch, hits);
        } else {
            self.gather_short(r, out, (first, end), pending, hits);
        }
    }

    /// As [`gather_hits`](Self::gather_hits) with AVX: the long and the short scans are
    /// separate calls into the AVX-compiled code, as in `for_each_hit`.
    #[inline(always)]
    pub(in crate::quadtree) fn gather_hits_avx<'a>(
        &'a self,
        r: &Rect,
        out: &mut Vec<ItemId>,
        batch: &mut Option<HitBatch>,
        pending: &mut ListHits<'a, T>,
        avx: Avx,
    ) {
        if self.has_runs() {
            pending.gather_into(out);
            return with_block_test!(avx => |hits| self.gather_spans(r, out, batch, hits));
        }
        let (first, end) = self.window(r);
        if end.saturating_sub(first) >= BATCHED_BLOCKS {
            pending.gather_into(out);
            with_block_test!(avx => |hits| self.gather_long(r, out, (first, end), batch, hits));
        } else if first < end {
            with_block_test!(avx => |hits| self.gather_short(r, out, (first, end), pending, hits));
        }
    }

    /// A short gather (fewer than [`BATCHED_BLOCKS`] blocks) into `pending`, with no branch
    /// on any block's mask: each block writes its hits' positions whole and moves the end by
    /// their count (see [`ListHits`]).
    #[inline(always)]
    pub(super) fn gather_short<'a, H>(
        &'a self,
        r: &Rect,
        out: &mut Vec<ItemId>,
        (first, end): (usize, usize),
        pending: &mut ListHits<'a, T>,
        hits: H,
    ) where
        H: Fn(&Lanes, &Rect) -> u32,
    {
        let Some(blocks) = self.lanes.get(first..end) else {
            return;
        };
        if blocks.is_empty() {
            return;
        }
        if !pending.has_room(blocks.len()) {
            pending.gather_into(out);
        }
        pending.hold(self, first, blocks, r, hits);
    }

    /// A long gather, through a [`HitBatch`] (whole blocks straight).
    #[inline(always)]
    pub(super) fn gather_long<H>(
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
    pub(super) fn gather_span<H>(
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
    pub(super) fn push_block(
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
    pub(super) fn push_hits(
        entries: &[Entry<T>],
        tree: TreeId,
        out: &mut Vec<ItemId>,
        batch: &mut HitBatch,
    ) {
        out.extend(
            batch
                .take()
                .iter()
                .map(|&p| entries[p as usize].id.handle(tree)),
        );
    }

    /// As [`gather_long`](Self::gather_long), over the spans of a list with runs.
    #[inline(always)]
    pub(super) fn gather_spans<H>(
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
}
