//! A node's item list: the entries (handle and payload), and their rectangles in blocks of
//! eight with one array per edge, so that one rectangle is tested against eight stored ones
//! with a few vector instructions (the pair search and `query_in_rect` spend most of their time
//! there). The blocks are the only copy of the rectangles: a second one in each entry cost
//! 16 bytes per item, which a one-by-one build of a million items paid in page faults.
//!
//! The block test and the bounding box come from `simd`, in the target's vector form; a scan
//! of more than one block runs with AVX where the CPU has it (checked at run time, once per
//! scan): AVX tests a block with one compare per edge instead of two. A scan of a single
//! block stays with the inlined compile-time form, since the call into the AVX-compiled scan
//! would cost more than the compare it saves, and with a small capacity most lists are a
//! single block.
//!
//! The list's code is split by concern: [`storage`] holds the entries, the lanes, the groups
//! and their bands, and every change to them; [`runs`] the sorted runs and the spans of them
//! a query reads; [`scan`] the scans that visit hits (region queries and the pair search);
//! [`gather`] the scans that append handles; [`check`] the invariants `validate` asks for.
//! Every scan that may run with AVX picks its block test through [`with_block_test!`].

mod check;
mod gather;
mod runs;
mod scan;
mod storage;
#[cfg(test)]
mod tests;

use std::ops::Deref;

use super::simd::{self, Avx};
use super::{Entry, Rect, TreeId};
use runs::Run;

pub(super) use scan::ListHits;
pub(super) use storage::EntriesMut;

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

    /// [`hits_avx`](Self::hits_avx) as a block test to hand to a scan (see
    /// [`with_block_test!`]).
    #[inline(always)]
    pub(super) fn avx_test(avx: Avx) -> impl Fn(&Lanes, &Rect) -> u32 + Copy {
        #[inline(always)]
        move |l: &Lanes, r: &Rect| l.hits_avx(avx, r)
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
#[repr(C)]
pub(super) struct ItemList<T> {
    // In this order (see `Node`): what a walk's band test reads first, in the node's first
    // cache line; the storage after it, in the second.
    /// Bounds of the crossing group and of the rest: they contain every rectangle of their
    /// group, and an empty group's holds [`EMPTY_BOUNDS`].
    bands: [Rect; 2],
    /// The x of the node's vertical centre line; NaN for a leaf's list, which keeps no groups.
    centre_x: f32,
    /// Entries before `split` cross `centre_x`; those from `split` on do not. Zero when not
    /// banded. A `u32` (no list holds more than `MAX_ITEMS`), so that a node fits in 128
    /// bytes with the runs' pointer.
    split: u32,
    /// `lanes[p / W]`, lane `p % W`, is the rectangle of `entries[p]`.
    lanes: Vec<Lanes>,
    entries: Vec<Entry<T>>,
    /// Per group, the part kept sorted along the line its items cross (see [`Run`]); none
    /// until a list is first sorted, so that lists that never are carry one word for it.
    runs: Option<Box<[Run; 2]>>,
    /// The tree's id, which the entries leave out of their handles.
    tree: TreeId,
}

/// The bounds of no rectangle: it intersects nothing, and any rectangle grows it to itself.
const EMPTY_BOUNDS: Rect = Rect {
    min_x: f32::INFINITY,
    min_y: f32::INFINITY,
    max_x: f32::NEG_INFINITY,
    max_y: f32::NEG_INFINITY,
};

/// Below this many blocks a scan tests every block instead of the bands first: the two
/// band tests would cost about as much as they save.
const BANDED_BLOCKS: usize = 2;

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

/// Evaluates `$body` with `$hits` bound to the block test a scan should use: where the CPU
/// has AVX, the AVX test, with the whole of `$body` compiled for AVX so that the test inlines
/// into it; elsewhere the target's compile-time form ([`Lanes::hits`]). The form
/// `with_block_test!(avx => |hits| body)` takes a token the caller has already detected. A
/// macro, since `$body` is generic over the test and a closure cannot be.
macro_rules! with_block_test {
    (|$hits:ident| $body:expr) => {
        match $crate::quadtree::simd::Avx::detect() {
            Some(avx) => $crate::quadtree::items::with_block_test!(avx => |$hits| $body),
            None => {
                let $hits = $crate::quadtree::items::Lanes::hits;
                $body
            }
        }
    };
    ($avx:expr => |$hits:ident| $body:expr) => {{
        let avx: $crate::quadtree::simd::Avx = $avx;
        // The closure is marked to inline: left to itself, LLVM may compile a large one on its
        // own, without AVX, and call the block test out of line.
        avx.run(
            #[inline(always)]
            move || {
                let $hits = $crate::quadtree::items::Lanes::avx_test(avx);
                $body
            },
        )
    }};
}
pub(super) use with_block_test;
