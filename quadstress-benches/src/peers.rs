//! The peer crates, behind the `peers` feature: broccoli's tree, parry2d's BVH and
//! static_aabb2d_index's packed Hilbert R-tree, each driven the way its documentation
//! recommends for the job, and each answering with a count the bench compares.

use parry2d::bounding_volume::Aabb;
use parry2d::math::Vector;
use parry2d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use quadstress::Rect;
use static_aabb2d_index::{StaticAABB2DIndex, StaticAABB2DIndexBuilder};

type BroccoliBox = (broccoli::axgeom::Rect<f32>, ());

fn broccoli_box(r: &Rect) -> BroccoliBox {
    (
        broccoli::axgeom::rect(r.min_x, r.max_x, r.min_y, r.max_y),
        (),
    )
}

/// broccoli: builds its tree over a copy of the boxes and finds every colliding pair.
pub fn broccoli_pairs(rects: &[Rect], boxes: &mut Vec<BroccoliBox>) -> u64 {
    boxes.clear();
    boxes.extend(rects.iter().map(broccoli_box));
    let mut tree = broccoli::Tree::new(boxes);
    let mut n = 0u64;
    tree.find_colliding_pairs(|_, _| n += 1);
    n
}

/// broccoli: builds its tree, then answers every query; returns the total hits.
pub fn broccoli_queries(rects: &[Rect], queries: &[Rect], boxes: &mut Vec<BroccoliBox>) -> u64 {
    boxes.clear();
    boxes.extend(rects.iter().map(broccoli_box));
    let mut tree = broccoli::Tree::new(boxes);
    let mut n = 0u64;
    for q in queries {
        let mut q = broccoli_box(q);
        tree.find_all_intersect_rect(broccoli::aabb::pin::AabbPin::new(&mut q), |_, _| n += 1);
    }
    n
}

/// broccoli's build alone.
pub fn broccoli_build(rects: &[Rect], boxes: &mut Vec<BroccoliBox>) -> usize {
    boxes.clear();
    boxes.extend(rects.iter().map(broccoli_box));
    let tree = broccoli::Tree::new(boxes);
    std::hint::black_box(&tree);
    drop(tree);
    boxes.len()
}

fn aabb(r: &Rect) -> Aabb {
    Aabb::new(Vector::new(r.min_x, r.min_y), Vector::new(r.max_x, r.max_y))
}

/// parry2d's BVH, with the workspace its traversals and refits reuse.
pub struct ParryBvh {
    pub bvh: Bvh,
    workspace: BvhWorkspace,
    leaves: Vec<Aabb>,
}

impl ParryBvh {
    /// Bulk build (`from_leaves`, binned).
    pub fn bulk(rects: &[Rect]) -> Self {
        let leaves: Vec<Aabb> = rects.iter().map(aabb).collect();
        ParryBvh {
            bvh: Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves),
            workspace: BvhWorkspace::default(),
            leaves,
        }
    }

    /// One `insert` per box.
    pub fn one_by_one(rects: &[Rect]) -> Self {
        let mut bvh = Bvh::new();
        for (i, r) in rects.iter().enumerate() {
            bvh.insert(aabb(r), i as u32);
        }
        ParryBvh {
            bvh,
            workspace: BvhWorkspace::default(),
            leaves: Vec::new(),
        }
    }

    /// Every intersecting pair: the tree traversed against itself.
    pub fn pairs(&mut self) -> u64 {
        let mut n = 0u64;
        self.bvh
            .traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |_, _| n += 1);
        n
    }

    /// Moves every box (`insert_or_update_partially`, then one `refit`), as parry's docs
    /// recommend for many moving leaves.
    pub fn update_all(&mut self, rects: &[Rect]) {
        for (i, r) in rects.iter().enumerate() {
            self.bvh.insert_or_update_partially(aabb(r), i as u32, 0.0);
        }
        self.bvh.refit(&mut self.workspace);
    }

    /// Total hits of `intersect_aabb` over every query.
    pub fn queries(&self, queries: &[Rect]) -> u64 {
        queries
            .iter()
            .map(|q| self.bvh.intersect_aabb(&aabb(q)).count() as u64)
            .sum()
    }

    /// Leaves kept from the bulk build (so the caller can drop its copy).
    pub fn leaf_count(&self) -> usize {
        self.leaves.len()
    }
}

/// static_aabb2d_index: a packed Hilbert R-tree, built once, never changed.
pub fn static_index(rects: &[Rect]) -> StaticAABB2DIndex<f32> {
    let mut b = StaticAABB2DIndexBuilder::new(rects.len());
    for r in rects {
        b.add(r.min_x, r.min_y, r.max_x, r.max_y);
    }
    b.build().expect("as many boxes as announced")
}

/// Total hits of `visit_query` over every query.
pub fn static_index_queries(index: &StaticAABB2DIndex<f32>, queries: &[Rect]) -> u64 {
    let mut n = 0u64;
    for q in queries {
        index.visit_query(q.min_x, q.min_y, q.max_x, q.max_y, &mut |_: usize| n += 1);
    }
    n
}

/// Checks against the oracle, run by `cargo test --bench table`.
pub mod checks {
    use super::*;
    use quadstress::oracle;
    use quadstress_testkit::TestRng;

    /// Every peer gives the oracle's counts, touching boxes included. The boxes have area:
    /// broccoli's rectangle query misses some zero-width boxes, which no workload here has.
    pub fn peers_match_the_oracle() {
        let mut rng = TestRng::new(5);
        let rects: Vec<Rect> = (0..3_000)
            .map(|_| {
                let (x, y) = (rng.grid(200.0, 800), rng.grid(200.0, 800));
                let (w, h) = (0.5 + rng.grid(3.5, 7), 0.5 + rng.grid(3.5, 7));
                Rect::from_min_size(x, y, w, h)
            })
            .collect();
        let keyed: Vec<(u32, Rect)> = (0..).zip(rects.iter().copied()).collect();
        // Off the boxes' grid: broccoli's rectangle query leaves out boxes that only touch the
        // query's edges, so the counts are compared where nothing merely touches.
        let queries: Vec<Rect> = (0..200)
            .map(|_| {
                Rect::from_min_size(
                    rng.grid(200.0, 800) + 0.1,
                    rng.grid(200.0, 800) + 0.1,
                    9.8,
                    9.8,
                )
            })
            .collect();
        let pairs = oracle::query_pairs(&keyed).len() as u64;
        let hits: u64 = queries
            .iter()
            .map(|q| oracle::query_in_rect(&keyed, q).len() as u64)
            .sum();
        let mut boxes = Vec::new();
        assert_eq!(broccoli_pairs(&rects, &mut boxes), pairs);
        assert_eq!(broccoli_queries(&rects, &queries, &mut boxes), hits);
        assert_eq!(broccoli_build(&rects, &mut boxes), rects.len());
        let mut bulk = ParryBvh::bulk(&rects);
        assert_eq!(bulk.leaf_count(), rects.len());
        assert_eq!(bulk.pairs(), pairs);
        assert_eq!(bulk.queries(&queries), hits);
        let mut grown = ParryBvh::one_by_one(&rects);
        assert_eq!(grown.pairs(), pairs);
        // Moved by a few units each, then the same answers as the oracle on the new boxes.
        let moved: Vec<Rect> = rects
            .iter()
            .map(|r| Rect::from_min_size(r.min_x + 1.5, r.min_y - 0.5, r.width(), r.height()))
            .collect();
        let keyed: Vec<(u32, Rect)> = (0..).zip(moved.iter().copied()).collect();
        grown.update_all(&moved);
        assert_eq!(grown.pairs(), oracle::query_pairs(&keyed).len() as u64);
        let index = static_index(&rects);
        assert_eq!(static_index_queries(&index, &queries), hits);
    }
}
