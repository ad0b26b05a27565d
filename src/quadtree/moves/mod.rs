//! The batch moves: many handles at once (`update_many`), every item by a function of the item
//! (`update_all`), and their `par_` forms.

mod update_all;
mod update_many;

use super::{items, placement, simd, ItemId, ItemRef, Node, Quadtree, QuadtreeError, Rect};

pub use update_all::ItemError;
pub use update_many::{BatchError, UpdateWorkspace};
