//! Bulk placement: many items into their final nodes, each moved once, without split
//! cascades.
//!
//! Passes, over the items or over the cells and nodes, with no search:
//! 1. each item's place (level and cell) is counted in a table of every level's cells
//!    (dense, level after level), which is then summed bottom-up: each cell then holds the
//!    number of items its subtree would hold;
//! 2. the shape follows top-down from those sums: a node splits when its subtree holds more
//!    than a leaf's capacity. The table then names, for each cell, the node that holds the
//!    items placed there;
//! 3. a small build makes one pass over the items in input order, pushing each into its
//!    node's list, reserved to its size by step 2 (a stable counting sort whose buckets are
//!    the lists themselves), and pointing its slot there. A large one, or one on every core
//!    (`par_insert_many`), groups the items by node with a counting sort first, pointing each slot
//!    at its item's node and place in the group (in input order, so the slot table is
//!    written front to back after a clear), fills each node's list once from its group (node
//!    after node, or on every core), then points the slots of the banded lists, whose order
//!    differs from their groups'.
//!
//! Stage 1 reads the caller's items once, into the staging (one `extend`), then makes one
//! pass over the staging that checks and places each item, counts its cell and hands out
//! its handle.
//!
//! A node's list receives its items in the order pushing them in input order leaves them
//! (see `ItemList::push`) whichever way it is filled, so the serial and the parallel build
//! make the same tree, bit for bit, as pushing each item in input order would.
//!
//! One file per part, in the order a build runs them: `insert_many` (stage 1 and the
//! rebuild), `place` (each item's cell), `shape` (stage 2), `group` (a large build's
//! grouping), `fill` (the lists and slots); `scratch` is the workspace they share, kept in
//! the tree; `par_insert_many` (feature `rayon`) is the same build on every core.

mod fill;
mod group;
mod insert_many;
#[cfg(feature = "rayon")]
mod par_insert_many;
mod place;
mod scratch;
mod shape;
#[cfg(test)]
pub(super) mod tests;

pub(super) use scratch::BulkScratch;
