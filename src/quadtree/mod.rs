//! The dynamic quadtree.
//!
//! # Architecture
//! One node array plus a free list of child blocks (`arena`), one slot table of generational
//! handles (`SlotTable`, in `slots`), and per-level dense tables that name the node of every
//! cell (`CellTables`, in `arena`). An item's node is computed from its rectangle in O(1) by
//! the grid's cell mapping (`Grid`, in `placement`) instead of by a descent, which is what
//! makes insert, remove and move cheap. Each node keeps its items in a list of blocks of
//! rectangles that the scans test several at a time (`items`). `Quadtree` holds these parts,
//! each a type with its own tests, and the work buffers its operations reuse.
//!
//! This file holds the [`Quadtree`] type; each concern has a file:
//! - `tree`: construction, insert, remove, update, clear and access by handle;
//! - `config`: [`Config`], [`Placement`] and the limits;
//! - `slots`: [`ItemId`], [`ItemRef`], the slot table and its free chain;
//! - `placement`: the grid: rectangle to level and cell, and the node that must hold it;
//! - `arena`: nodes, the cell tables, splits, merges, collapses;
//! - `items`: a node's item list and its block scans;
//! - `simd`: the block test and bounding box in each target's vector form (the tree's only unsafe code);
//! - `traverse`: the explicit-stack and table walks every query and the pair search use;
//! - `visit`: [`VisitResult`], what a callback returns (`()` or `ControlFlow`);
//! - `query`: rectangle, point, circle, colliding-with and nearest queries, callback and
//!   appending forms;
//! - `query_iter`: the region queries as iterators;
//! - `query_mut`: payloads mutable, all of them or those a region query finds;
//! - `select`: each region query's stem written once (what it finds), for every form;
//! - `pairs`: all intersecting pairs;
//! - `par_pairs` (feature `rayon`): the pair search over fixed chunks of nodes on every core;
//! - `update_many`: many moves at once, planned, then rewritten in place (on every core with
//!   feature `rayon`);
//! - `update_all`: every item moved at once, by a function of the item, in one walk over the
//!   lists in their own order (on every core with feature `rayon`);
//! - `bulk`: rebuilding from many items at once;
//! - `par_bulk` (feature `rayon`): the same rebuild on every core, the same tree on any
//!   thread count;
//! - `inspect`: node walk for drawing, item iteration, statistics;
//! - `validate`: the check of every invariant;
//! - `clone`: deep copies that keep their handles;
//! - `geom`, `error`: [`Rect`] and [`QuadtreeError`].
//!
//! # Why it is built this way
//! - **Placement is computed, not searched.** Moving objects change node rarely, and when they
//!   do, the new node comes from integer arithmetic plus one table read per level at most; a
//!   move that stays in its node rewrites one rectangle. Subtree counters along the path to
//!   the root (at most `max_depth + 1` of them) decide merges without any search.
//! - **Exact placement is the default** because the demo and most games ask for all pairs of
//!   small objects: under exact placement a pair can only be found between a node and its own
//!   subtree, while loose nodes of one level overlap and must also meet their neighbours, which
//!   makes more rectangle tests for the same pairs. Loose placement exists for region queries
//!   over large, dense items, where exact placement keeps every straddler high in the tree.
//! - **Rectangles live in blocks of eight, one array per edge, and nowhere else.** One query
//!   rectangle is tested against a block with a few vector compares (SSE, NEON or WebAssembly
//!   SIMD, chosen at compile time, and AVX where the CPU has it, checked at run time once per
//!   scan; portable code elsewhere), and storing each rectangle once keeps an item at about
//!   40 bytes with a `u32` payload: builds are bound by memory traffic, so bytes per item
//!   matter as much as instructions.
//! - **Straddlers sit in bands.** Under exact placement an internal node holds only items
//!   that cross one of its centre lines, however small. Its list keeps them in two groups,
//!   those crossing the vertical line first, each with a bounding box that only grows, so
//!   the boxes are thin bands around the two lines; a query or a pair search that meets
//!   neither band skips the list, and one that meets one band scans only that group. Small
//!   queries then scan a large node's straddlers only near its lines. The cost: an item that
//!   changes group within its node swaps places with one other item, a leaf becoming
//!   internal sorts its list once, and a band never shrinks until its list is emptied or
//!   rebuilt (a split or a collapse), so items that left keep a band wider than it must be.
//!   Leaves keep no groups: their items spread over the whole cell.
//! - **Large groups are also sorted along their line.** A group of 64 or more straddlers can
//!   keep a run sorted by the edge along the line it crosses (the crossing group by `min_y`,
//!   the rest by `min_x`), with the keys kept beside it; a region query binary-searches them
//!   and tests only the slice its range meets, plus the group's unsorted entries. The run is
//!   sorted in two halves, by which side of the line each entry's middle lay on, and each
//!   half keeps the extent across the line its entries cover (grow-only): a query beside the
//!   line skips the far half, whose entries it would meet along the line but not across it.
//!   The bulk builds end by sorting ([`Quadtree::sort_straddlers`], which also sorts on
//!   demand), by the keys with ties in list order, so the order of the items (the order of
//!   the pairs a simulation resolves) depends on the items alone; inserts and moves do not
//!   sort, so they stay O(1): an item that joins a group waits in its unsorted
//!   tail, an item that moves keeps its place and the run widens its reach (how far any key
//!   has drifted, and the longest extent) to cover it, and a hole a removal leaves is filled
//!   like a move. The cost: a run's reach only grows until the next sort, so after much
//!   movement a query reads more of it; the unsorted entries are scanned whole; the pair
//!   search reads whole groups, as before (its scans are small and many, and a dispatch on
//!   runs cost it more than the runs saved).
//! - **Region queries report their hits in batches.** Each block tested writes all eight of
//!   its lanes' positions (from a table of each mask's set bits) into a small batch on the
//!   stack and moves the batch's end by the count of hits, with no branch on the mask; the
//!   caller's closure, or the push into `out`, then runs over the batch. Walking each mask bit
//!   by bit mispredicts the end of that walk whenever the count of hits varies between blocks,
//!   as it does both where a query meets many items (large, dense ones) and where a small
//!   query meets a few items in each of a few short lists. The short lists' hits wait in one
//!   batch for the whole walk, each tagged with its list, and the closure (or the append to
//!   `out`) runs once over all of them, so a small query pays one mispredicted loop end
//!   instead of one per list (a list scanned at once, a long one or one with runs, first
//!   reports what waits). The hits keep their order.
//! - **Scattered places are requested ahead.** A large tree's lists, slots and nodes lie
//!   far apart in memory, and where an operation goes from one to the next by index (a
//!   batch of moves through its slots, a bulk build's fill through the grouping's order, the
//!   pair search from node to node, a small query to its leaves), each step used to wait
//!   for its own cache miss. Each of those loops now asks for the places of a few steps
//!   later (`simd::prefetch`, a hint that never changes a result), so that the misses
//!   overlap; the measurements are in BENCHMARKS.md ("scattered reads requested ahead").
//! - **Everything can move in the tree's own order.** A batch of handles (`update_many`)
//!   reaches each item's entry wherever its list lies; `update_all` instead asks the caller
//!   for each item's new rectangle while it walks the lists front to back, writing in place
//!   the moves that keep their node, so the scattered reads left are the caller's own (a
//!   node's new rectangles are asked for in a loop of their own, so that they overlap). In a
//!   leaf, a move that stays inside the leaf's cell is known valid and placed by one test
//!   against the cell's exact `f32` edges (found once per node with placement's own mapping
//!   and kept between walks). With every box moving each frame it takes about 0.7x
//!   `update_many`'s time at 100,000 boxes and at a million (BENCHMARKS.md, "everything
//!   moved in the tree's order" and "a leaf's moves in one test").
//! - **Leaves hold 32 items and the depth stops at 6** by default: with block scans, fewer and
//!   fuller leaves cost less than many small ones (fewer nodes to visit, fewer counters to
//!   update), even though they make more rectangle tests.
//! - **The pair search works from below.** Each node tests the bounding box of its own items
//!   against each ancestor's list, then only the items that box meets: a node far from an
//!   ancestor's centre lines misses both of its bands at once, so only the nodes along the
//!   lines scan straddlers. Walking each straddler down through the subtree instead cost more
//!   instructions and mispredicts. The masks of up to eight blocks are joined into one 64-bit
//!   mask before its hits are walked, and the whole search runs in one AVX-compiled call where
//!   the CPU has AVX, so that each scan inlines the block test.
//! - **Reuse is deliberate.** Freed node blocks keep their item lists' allocations, and after
//!   `clear()` blocks and slots are handed out lowest index first, so a refill that splits in
//!   the same order gets back the same lists for the same cells and the slot table stays dense.
//!   What freed lists keep is capped at about twice the most items the tree has held at once,
//!   so churn that crowds a different cell each time does not grow memory without bound.
//! - **Bulk rebuilds count instead of inserting:** each item's cell counted in a table of
//!   every level's cells, the shape derived top-down from the subtree sums, a stable counting
//!   sort of the items by node, then each node's list filled from its group in input order,
//!   each entry moved once. The lists come out the same whichever core fills them.
//!
//! # Where it falls short
//! - Under exact placement a rectangle that crosses a large cell's centre lines stays in that
//!   node however small it is (with many items, about `2 * item side / world side` of them
//!   sit at the root). The bands keep queries away from the lines from scanning them, and
//!   sorted runs let a query on a line read only the stretch of the line it covers; but only
//!   in a tree built in bulk or after [`Quadtree::sort_straddlers`]: in a tree built one by
//!   one a query on a line scans every straddler of that line's band.
//! - A one-by-one build of a million items into a fresh tree is bound by the first write to
//!   fresh memory (page faults), not by placement: a comparable share of its time goes to
//!   faulting in the pages the lists need.
//! - The pair search over a thousand items beats brute force by two orders of magnitude, but
//!   it is a few microseconds long, so a busy machine moves that ratio more than any change.
//! - What was tried and dropped, and the measurements behind these choices, are in the
//!   repository's BENCHMARKS.md.

// rustdoc lists the inherent impls of child modules before a module's own, in the order the
// modules are declared, so the core impl is a child module declared first, on its own so that
// rustfmt keeps it there.
mod tree;

mod arena;
mod bulk;
mod clone;
mod config;
mod error;
mod geom;
mod inspect;
mod items;
mod pairs;
#[cfg(feature = "rayon")]
mod par_bulk;
#[cfg(feature = "rayon")]
mod par_pairs;
mod placement;
mod query;
mod query_iter;
mod query_mut;
mod select;
mod simd;
mod slots;
mod traverse;
mod update_all;
mod update_many;
mod validate;
mod visit;

use arena::{CellTables, Node, NULL};
use items::ItemList;
use placement::{CellRange, Grid};
use slots::{Entry, Slot, SlotKey, SlotTable, TreeId, RETIRED};

pub use config::{Config, Placement, MAX_DEPTH, MAX_ITEMS, MAX_LEAF_CAPACITY};
pub use error::{QuadtreeError, Shape};
pub use geom::Rect;
pub use inspect::{Iter, NodeInfo, NodeItems, Nodes, TreeStats};
#[cfg(feature = "rayon")]
pub use par_pairs::PairWorkspace;
pub use query::QueryCounts;
pub use query_iter::{CollidingWith, InCircle, InRect};
pub use query_mut::{ItemMut, IterMut};
pub use slots::{ItemId, ItemRef};
pub use update_all::ItemError;
pub use update_many::{BatchError, UpdateWorkspace};
pub use validate::InvariantError;
pub use visit::VisitResult;

/// A dynamic 2D quadtree of axis-aligned rectangles with a payload `T`.
///
/// Built for many moving objects (particles, bullets, units): insertion, removal and moves
/// are O(1) apart from the occasional split or merge, and a move that stays in its node is
/// a handful of integer operations.
///
/// # Usage
/// ```
/// use quadstress::{Quadtree, Rect};
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 800.0, 600.0))?;
/// let a = tree.insert(Rect::from_min_size(10.0, 10.0, 8.0, 8.0), "a")?;
/// let b = tree.insert(Rect::from_min_size(15.0, 15.0, 8.0, 8.0), "b")?;
/// tree.update(b, Rect::from_min_size(400.0, 300.0, 8.0, 8.0))?;
///
/// let near_origin = Rect::new(0.0, 0.0, 100.0, 100.0);
/// let names: Vec<&str> = tree.iter_in_rect(&near_origin).map(|item| *item.value).collect();
/// assert_eq!(names, ["a"]);
/// let mut hits = Vec::new();
/// tree.query_in_rect(&near_origin, &mut hits)?;
/// assert_eq!(hits, vec![a]);
/// assert_eq!(tree.remove(a), Some("a"));
/// assert_eq!(tree.remove(a), None); // stale handle: nothing else is touched
/// # Ok::<(), quadstress::QuadtreeError>(())
/// ```
///
/// # Queries: one vocabulary
/// Each query has a stem, and each stem the same forms, named by one rule:
///
/// | stem: what it finds | iterator `iter_*` | callback `for_each_*` | `Vec` of handles `query_*` | payloads mutable `for_each_*_mut` | with the work done `for_each_*_counting` |
/// |---|---|---|---|---|---|
/// | `in_rect`: items intersecting a rectangle | [`iter_in_rect`](Self::iter_in_rect) | [`for_each_in_rect`](Self::for_each_in_rect) | [`query_in_rect`](Self::query_in_rect) | [`for_each_in_rect_mut`](Self::for_each_in_rect_mut) | [`for_each_in_rect_counting`](Self::for_each_in_rect_counting) |
/// | `at_point`: items containing a point | [`iter_at_point`](Self::iter_at_point) | [`for_each_at_point`](Self::for_each_at_point) | [`query_at_point`](Self::query_at_point) | [`for_each_at_point_mut`](Self::for_each_at_point_mut) | [`for_each_at_point_counting`](Self::for_each_at_point_counting) |
/// | `in_circle`: items meeting a disc | [`iter_in_circle`](Self::iter_in_circle) | [`for_each_in_circle`](Self::for_each_in_circle) | [`query_in_circle`](Self::query_in_circle) | [`for_each_in_circle_mut`](Self::for_each_in_circle_mut) | [`for_each_in_circle_counting`](Self::for_each_in_circle_counting) |
/// | `colliding_with`: the other items touching one item | [`iter_colliding_with`](Self::iter_colliding_with) | [`for_each_colliding_with`](Self::for_each_colliding_with) | [`query_colliding_with`](Self::query_colliding_with) | [`for_each_colliding_with_mut`](Self::for_each_colliding_with_mut) | [`for_each_colliding_with_counting`](Self::for_each_colliding_with_counting) |
/// | `nearest`: the k nearest items, nearest first, with distances | none (the search ends before the first answer) | [`for_each_nearest`](Self::for_each_nearest) | [`query_nearest`](Self::query_nearest) | none | [`for_each_nearest_counting`](Self::for_each_nearest_counting) |
/// | `pair`: every intersecting pair, once | none (the search nests walks) | [`for_each_pair`](Self::for_each_pair) | [`query_pairs`](Self::query_pairs) | none (two items at once) | [`for_each_pair_counting`](Self::for_each_pair_counting) |
///
/// The forms of a stem find the same items: each region stem is written once, as one
/// selection that every form walks with, `nearest` is one search and `pair` one pair search.
/// A handle that a clone accepts from the tree it was copied from names the same item as the
/// clone's own handle, in every form (`colliding_with` leaves that item out either way).
///
/// - **Iterators** yield [`ItemRef`]s (handle, rectangle, `&T` lent for the tree's borrow)
///   and take no `Result`, so `.map(|item| item.value)` works at once: input the other
///   forms refuse (a NaN or infinite coordinate, an inverted rectangle, a negative radius,
///   a stale handle) meets no item and the iterator is empty. [`Rect::check`] tells a bad
///   query apart from an empty answer.
/// - **Callbacks** get the same `ItemRef`s and may return `()` to see every item, or
///   [`ControlFlow<B>`](std::ops::ControlFlow) to stop at the first `Break(value)`
///   ([`VisitResult`]); the query returns the closure's type, in a `Result` when the input
///   can be refused: `tree.for_each_in_rect(&r, |item| found.push(item.value))?`.
///   The `_counting` forms also return the [`QueryCounts`] of the work done.
/// - **`query_*`** appends to the caller's `Vec` (never clears it) and returns how many it
///   appended; reuse the `Vec` to allocate nothing.
/// - **Batches**: [`insert_many`](Self::insert_many) and [`update_many`](Self::update_many)
///   are all or nothing, and their [`BatchError`] names the first refused item;
///   [`update_all`](Self::update_all) moves every item to a rectangle computed from the item,
///   all or nothing too, its [`ItemError`] naming the first refused item's handle.
/// - **`par_*`** (feature `rayon`) is the parallel form of the name it prefixes
///   (`par_insert_many`, `par_update_many`, `par_update_all`, `par_for_each_node_items`),
///   and `par_pairs` the pair search, mapped into a `PairWorkspace` (appended, like every
///   `out`). Each gives the same answer on any thread count.
///
/// No query allocates, apart from what a caller's `Vec` grows by (and `for_each_nearest`
/// with `k` above 32). Nothing recurses: every walk keeps an explicit stack of at most
/// `4 * MAX_DEPTH + 4` node indices on the call stack or inside the iterator.
///
/// # Placement
/// Each item is stored exactly once, in the smallest existing node whose cell contains its
/// rectangle. The level and cell are computed directly, without descending from the root:
/// the rectangle's edges are mapped to integer cell coordinates at `max_depth`, and the
/// highest bit set in `(x0 ^ x1) | (y0 ^ y1)` says how many levels above the bottom the two
/// edges first share a cell (XOR / highest-set-bit placement, as in Game Programming Gems 2,
/// 4.5). A dense table per level
/// then names the node of that cell, if it exists.
///
/// With [`Placement::Loose`] in the [`Config`], nodes reach half a cell beyond their cells and
/// an item's level follows from its size alone (its node is the one holding its centre), so
/// no small item is stuck at the root for crossing a centre line.
///
/// Items partly or wholly outside the world rectangle are kept at the root, and every query
/// still finds them.
///
/// # Runtime
/// With `D = max_depth`, `c = leaf_capacity`:
/// - `insert`, `remove`: O(D) (counters along the path to the root) plus O(c) for a split
///   or merge when one happens;
/// - `update` within the same node: O(1); to another node: as remove plus insert, without
///   any search;
/// - `update_many`: O(batch) checks and placements, then as `update` for each move that
///   changes node; `update_all` the same with O(items) for the walk over every list;
/// - region queries: O(D + k) node visits for a small query region, where k is the items
///   found, plus the items held in the visited nodes;
/// - nearest: about O(D + k) node visits on evenly spread data, O(log k) per candidate;
/// - `for_each_pair`: each node's items against each other and against the overlapping
///   items below them.
///
/// # Caveats
/// - Rectangles straddling the lines of large cells stay high in the tree, as in every
///   "smallest containing node" quadtree: a rectangle crossing the world's centre lines sits
///   at the root and is tested by every pair search that reaches it.
/// - Coordinates are `f32`; a world far from the origin loses precision like any `f32` data.
#[derive(Debug)]
pub struct Quadtree<T> {
    config: Config,
    /// The world and its cells: where a rectangle belongs.
    grid: Grid,
    nodes: Vec<Node<T>>,
    /// First nodes of freed child blocks, ready for reuse.
    free_blocks: Vec<u32>,
    /// Entries the item lists of the nodes in `free_blocks` have room for.
    spare_capacity: usize,
    /// Which node holds each cell, per level.
    cells: CellTables,
    /// Where each handle's item lives, and the free chain.
    slots: SlotTable,
    /// Sets this tree's handles apart from every other tree's: fresh for every clone.
    tree: TreeId,
    /// The ids of the trees this one was cloned from, each from the one before (oldest
    /// first): their handles reach the items they held when copied (see `Slot::born`).
    ancestors: Vec<TreeId>,
    len: usize,
    /// Reused work list for splits, merges and bulk placement.
    scratch: Vec<u32>,
    /// Reused keys for sorting the runs of item lists.
    sort_scratch: Vec<u64>,
    bulk: bulk::BulkScratch<T>,
}
