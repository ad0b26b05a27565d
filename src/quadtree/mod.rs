//! The dynamic quadtree: one file per concern, listed in [`design`], which also says why the
//! tree is built as it is. The public types are re-exported at the crate's root.

// `tree` holds the `Quadtree` type and its core impl; rustdoc lists the inherent impls in the
// order the modules are declared, so it comes first, on its own so that rustfmt keeps it there.
mod tree;

mod arena;
mod bulk;
mod clone;
mod config;
pub mod design;
mod error;
mod geom;
mod inspect;
mod items;
mod moves;
mod pairs;
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
pub use moves::{BatchError, ItemError, UpdateWorkspace};
#[cfg(feature = "rayon")]
pub use par_pairs::PairWorkspace;
pub use query::QueryCounts;
pub use query_iter::{CollidingWith, InCircle, InRect};
pub use query_mut::{ItemMut, IterMut};
pub use slots::{ItemId, ItemRef};
pub use tree::Quadtree;
pub use validate::InvariantError;
pub use visit::VisitResult;
