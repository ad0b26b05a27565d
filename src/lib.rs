//! # quadstress
//!
//! A fast, dynamic 2D quadtree for games and particle simulations.
//!
//! [`Quadtree<T>`] stores axis-aligned rectangles ([`Rect`]) with a payload `T` and hands out
//! stable generational handles ([`ItemId`]). Items can be inserted, removed and moved every
//! frame; the tree splits and merges as they come and go. Queries find the items in a
//! rectangle, at a point, in a circle, the k nearest to a point, and all intersecting pairs.
//!
//! ```
//! use quadstress::{Quadtree, Rect};
//!
//! let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 800.0, 600.0))?;
//! let a = tree.insert(Rect::from_min_size(100.0, 100.0, 8.0, 8.0), "a")?;
//! let b = tree.insert(Rect::from_min_size(104.0, 104.0, 8.0, 8.0), "b")?;
//! tree.insert(Rect::from_min_size(500.0, 300.0, 8.0, 8.0), "c")?;
//!
//! let mut contacts = 0;
//! tree.for_each_pair(|_, _| contacts += 1);
//! assert_eq!(contacts, 1);
//!
//! tree.update(b, Rect::from_min_size(300.0, 300.0, 8.0, 8.0))?;
//! assert_eq!(tree.remove(a), Some("a"));
//! assert!(tree.validate().is_ok());
//! # Ok::<(), quadstress::QuadtreeError>(())
//! ```
//!
//! ## Modules
//! - [`Quadtree`] and its types: the tree (see its documentation for a guide).
//! - [`design`]: how the tree is built and why: its storage, the choices behind its speed,
//!   where it falls short, and which source file holds what.
//! - [`oracle`]: brute-force answers to every query, the ground truth
//!   of the crate's tests, public so that users can check their own use the same way.
//!
//! The particle simulation (`quadstress-sim`), the demo (`quadstress-demo`) and the benches
//! (`quadstress-benches`) are members of this crate's workspace, not parts of it.
//!
//! ## Features
//! With its default features the crate has no dependencies at all.
//! - `rayon` (off by default): the `par_` forms, `Quadtree::par_pairs`,
//!   `Quadtree::par_update_many`, `Quadtree::par_update_all`, `Quadtree::par_insert_many` and
//!   `Quadtree::par_for_each_node_items`: the pair search, batch moves, bulk inserts and
//!   node walk on every core, with the same answer on any thread count.
//!
//! ## Unsafe code
//! Denied everywhere but in `quadtree/simd.rs`, which allows it for itself alone: a four-lane
//! `f32` type with the few operations the block scans need (load, splat, compares, and/or,
//! min/max, bit mask) and the four edges' cell mapping (subtract, scale, clamp, truncate),
//! written with the target's vector intrinsics (SSE on x86_64, NEON on aarch64, `simd128` on
//! wasm32 when enabled), plus an eight-lane AVX block test on x86_64 used only after a
//! run-time check that the CPU has AVX, and a prefetch hint (a request for a cache line,
//! which never faults and changes no result). Other targets, and any build
//! with `RUSTFLAGS="--cfg quadstress_portable"`, use a portable form with no unsafe code.
#![deny(unsafe_code)]
#![deny(missing_docs)]

// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod oracle;
mod quadtree;

pub use quadtree::design;

#[cfg(feature = "rayon")]
pub use quadtree::PairWorkspace;
pub use quadtree::{
    BatchError, CollidingWith, Config, InCircle, InRect, InvariantError, ItemError, ItemId,
    ItemMut, ItemRef, Iter, IterMut, NodeInfo, NodeItems, Nodes, Placement, Quadtree,
    QuadtreeError, QueryCounts, Rect, Shape, TreeStats, UpdateWorkspace, VisitResult, MAX_DEPTH,
    MAX_ITEMS, MAX_LEAF_CAPACITY,
};
