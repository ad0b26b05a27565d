//! How the tree is built and why: the layout of its storage, the choices behind its speed, and
//! where it falls short. Nothing here is needed to use the tree (its guide is
//! [`Quadtree`](crate::Quadtree)'s page); it is for readers of the source and for users who want to
//! know what a call costs and why.
//!
//! # Architecture
//! One node array plus a free list of child blocks (`arena`), one slot table of generational
//! handles (`SlotTable`, in `slots`), and per-level dense tables that name the node of every cell
//! (`CellTables`, in `arena`). An item's node is computed from its rectangle in O(1) by the grid's
//! cell mapping (`Grid`, in `placement`) instead of by a descent, which is what makes insert,
//! remove and move cheap. Each node keeps its items in a list of blocks of rectangles that the
//! scans test several at a time (`items`). `Quadtree` holds these parts, each a type with its own
//! tests, and the work buffers its operations reuse.
//!
//! # Where each part lives
//! The tree's source is `src/quadtree/`, one file per concern:
//! - `tree`: the [`Quadtree`](crate::Quadtree) type; construction, insert, remove, update, clear
//!   and access by handle;
//! - `config`: [`Config`](crate::Config), [`Placement`](crate::Placement) and the limits;
//! - `slots`: [`ItemId`](crate::ItemId), [`ItemRef`](crate::ItemRef), the slot table and its free
//!   chain;
//! - `placement`: the grid: rectangle to level and cell, and the node that must hold it;
//! - `arena`: nodes, the cell tables, splits, merges, collapses;
//! - `items`: a node's item list and its block scans;
//! - `simd`: the block test and bounding box in each target's vector form (the tree's only unsafe
//!   code);
//! - `traverse`: the explicit-stack and table walks every query and the pair search use;
//! - `visit`: [`VisitResult`](crate::VisitResult), what a callback returns (`()` or `ControlFlow`);
//! - `query`: rectangle, point, circle, colliding-with and nearest queries, callback and appending
//!   forms;
//! - `query_iter`: the region queries as iterators;
//! - `query_mut`: payloads mutable, all of them or those a region query finds;
//! - `select`: each region query's stem written once (what it finds), for every form;
//! - `pairs`: all intersecting pairs;
//! - `par_pairs` (feature `rayon`): the pair search over fixed chunks of nodes on every core;
//! - `moves`: the batch moves, one file each: `update_many`, many moves at once, planned, then
//!   rewritten in place; `update_all`, every item moved at once, by a function of the item, in one
//!   walk over the lists in their own order (both on every core with feature `rayon`); `shared`,
//!   their workspace, plans and errors and the pass both end with;
//! - `bulk`: building from many items at once, one file per part (staging and checks, places,
//!   shape, grouping, fill, the workspace they share), and `par_insert_many`, the same build on
//!   every core (feature `rayon`), the same tree on any thread count;
//! - `inspect`: node walk for drawing, item iteration, statistics;
//! - `validate`: the check of every invariant;
//! - `clone`: deep copies that keep their handles;
//! - `geom`, `error`: [`Rect`](crate::Rect), [`QuadtreeError`](crate::QuadtreeError) and
//!   [`Shape`](crate::Shape);
//! - `design`: this page.
//!
//! # Why it is built this way
//! - **Placement is computed, not searched.** Moving objects change node rarely, and when they do,
//!   the new node comes from integer arithmetic plus one table read per level at most; a move that
//!   stays in its node rewrites one rectangle. Subtree counters along the path to the root (at most
//!   `max_depth + 1` of them) decide merges without any search.
//! - **Exact placement is the default** because the demo and most games ask for all pairs of small
//!   objects: under exact placement a pair can only be found between a node and its own subtree,
//!   while loose nodes of one level overlap and must also meet their neighbours, which makes more
//!   rectangle tests for the same pairs. Loose placement exists for region queries over large,
//!   dense items, where exact placement keeps every straddler high in the tree.
//! - **Rectangles live in blocks of eight, one array per edge, and nowhere else.** One query
//!   rectangle is tested against a block with a few vector compares (SSE, NEON or WebAssembly SIMD,
//!   chosen at compile time, and AVX where the CPU has it, checked at run time once per scan;
//!   portable code elsewhere), and storing each rectangle once keeps an item at about 40 bytes with
//!   a `u32` payload: builds are bound by memory traffic, so bytes per item matter as much as
//!   instructions.
//! - **Straddlers sit in bands.** Under exact placement an internal node holds only items that
//!   cross one of its centre lines, however small. Its list keeps them in two groups, those
//!   crossing the vertical line first, each with a bounding box that only grows, so the boxes are
//!   thin bands around the two lines; a query or a pair search that meets neither band skips the
//!   list, and one that meets one band scans only that group. Small queries then scan a large
//!   node's straddlers only near its lines. The cost: an item that changes group within its node
//!   swaps places with one other item, a leaf becoming internal sorts its list once, and a band
//!   never shrinks until its list is emptied or rebuilt (a split or a collapse), so items that left
//!   keep a band wider than it must be. Leaves keep no groups: their items spread over the whole
//!   cell.
//! - **Large groups are also sorted along their line.** A group of 64 or more straddlers can keep a
//!   run sorted by the edge along the line it crosses (the crossing group by `min_y`, the rest by
//!   `min_x`), with the keys kept beside it; a region query binary-searches them and tests only the
//!   slice its range meets, plus the group's unsorted entries. The run is sorted in two halves, by
//!   which side of the line each entry's middle lay on, and each half keeps the extent across the
//!   line its entries cover (grow-only): a query beside the line skips the far half, whose entries
//!   it would meet along the line but not across it. The bulk builds end by sorting
//!   ([`Quadtree::sort_straddlers`](crate::Quadtree::sort_straddlers), which also sorts on demand),
//!   by the keys with ties in list order, so the order of the items (the order of the pairs a
//!   simulation resolves) depends on the items alone; inserts and moves do not sort, so they stay
//!   O(1): an item that joins a group waits in its unsorted tail, an item that moves keeps its
//!   place and the run widens its reach (how far any key has drifted, and the longest extent) to
//!   cover it, and a hole a removal leaves is filled like a move. The cost: a run's reach only
//!   grows until the next sort, so after much movement a query reads more of it; the unsorted
//!   entries are scanned whole; the pair search reads whole groups (its scans are small and many,
//!   and a dispatch on runs would cost it more than the runs save).
//! - **Region queries report their hits in batches.** Each block tested writes all eight of its
//!   lanes' positions (from a table of each mask's set bits) into a small batch on the stack and
//!   moves the batch's end by the count of hits, with no branch on the mask; the caller's closure,
//!   or the push into `out`, then runs over the batch. Walking each mask bit by bit mispredicts the
//!   end of that walk whenever the count of hits varies between blocks, as it does both where a
//!   query meets many items (large, dense ones) and where a small query meets a few items in each
//!   of a few short lists. The short lists' hits wait in one batch for the whole walk, each tagged
//!   with its list, and the closure (or the append to `out`) runs once over all of them, so a small
//!   query pays one mispredicted loop end instead of one per list (a list scanned at once, a long
//!   one or one with runs, first reports what waits). The hits keep their order.
//! - **Scattered places are requested ahead.** A large tree's lists, slots and nodes lie far apart
//!   in memory, and where an operation goes from one to the next by index (a batch of moves through
//!   its slots, a bulk build's fill through the grouping's order, the pair search from node to
//!   node, a small query to its leaves), each step would wait for its own cache miss. Each of those
//!   loops asks for the places of a few steps later (`simd::prefetch`, a hint that never changes a
//!   result), so that the misses overlap; the measurements are in BENCHMARKS.md ("scattered reads
//!   requested ahead").
//! - **Everything can move in the tree's own order.** A batch of handles (`update_many`) reaches
//!   each item's entry wherever its list lies; `update_all` instead asks the caller for each item's
//!   new rectangle while it walks the lists front to back, writing in place the moves that keep
//!   their node, so the scattered reads left are the caller's own (a node's new rectangles are
//!   asked for in a loop of their own, so that they overlap). In a leaf, a move that stays inside
//!   the leaf's cell is known valid and placed by one test against the cell's exact `f32` edges
//!   (found once per node with placement's own mapping and kept between walks). With every box
//!   moving each frame it takes about 0.7x `update_many`'s time at 100,000 boxes and at a million
//!   (BENCHMARKS.md, "everything moved in the tree's order" and "a leaf's moves in one test").
//! - **Leaves hold 32 items and the depth stops at 6** by default: with block scans, fewer and
//!   fuller leaves cost less than many small ones (fewer nodes to visit, fewer counters to update),
//!   even though they make more rectangle tests.
//! - **The pair search works from below.** Each node tests the bounding box of its own items
//!   against each ancestor's list, then only the items that box meets: a node far from an
//!   ancestor's centre lines misses both of its bands at once, so only the nodes along the lines
//!   scan straddlers. Walking each straddler down through the subtree instead costs more
//!   instructions and mispredicts. The masks of up to eight blocks are joined into one 64-bit mask
//!   before its hits are walked, and the whole search runs in one AVX-compiled call where the CPU
//!   has AVX, so that each scan inlines the block test.
//! - **Reuse is deliberate.** Freed node blocks keep their item lists' allocations, and after
//!   `clear()` blocks and slots are handed out lowest index first, so a refill that splits in the
//!   same order gets back the same lists for the same cells and the slot table stays dense. What
//!   freed lists keep is capped at about twice the most items the tree has held at once, so churn
//!   that crowds a different cell each time does not grow memory without bound.
//! - **Bulk rebuilds count instead of inserting:** each item's cell counted in a table of every
//!   level's cells, the shape derived top-down from the subtree sums, a stable counting sort of the
//!   items by node, then each node's list filled from its group in input order, each entry moved
//!   once. The lists come out the same whichever core fills them.
//!
//! # Where it falls short
//! - Under exact placement a rectangle that crosses a large cell's centre lines stays in that node
//!   however small it is (with many items, about `2 * item side / world side` of them sit at the
//!   root). The bands keep queries away from the lines from scanning them, and sorted runs let a
//!   query on a line read only the stretch of the line it covers; but only in a tree built in bulk
//!   or after [`Quadtree::sort_straddlers`](crate::Quadtree::sort_straddlers): in a tree built one
//!   by one a query on a line scans every straddler of that line's band.
//! - A one-by-one build of a million items into a fresh tree is bound by the first write to fresh
//!   memory (page faults), not by placement: a comparable share of its time goes to faulting in the
//!   pages the lists need.
//! - The pair search over a thousand items beats brute force by two orders of magnitude, but it is
//!   a few microseconds long, so a busy machine moves that ratio more than any change.
//! - The measurements behind these choices are in the repository's BENCHMARKS.md.
