//! The batch moves: many handles at once ([`update_many`](crate::Quadtree::update_many)), every
//! item by a function of the item ([`update_all`](crate::Quadtree::update_all)), and their
//! `par_` forms. One file per operation; what both use is in `shared`, which imports neither,
//! and neither imports the other. The single [`update`](crate::Quadtree::update) is the
//! tree's core, in `tree`; both batch moves end with its path for the moves that change node.

mod shared;
mod update_all;
mod update_many;

pub use shared::{BatchError, ItemError, UpdateWorkspace};
