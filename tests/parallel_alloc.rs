//! The parallel pair search and batch moves allocate nothing once their workspaces have grown,
//! on one thread and on two (rayon's own bookkeeping included).
#![cfg(feature = "rayon")]

mod common;

use common::alloc::{self, Counting};
use quadstress::{oracle::TestRng, PairWorkspace, Quadtree, Rect, UpdateWorkspace};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn warm_parallel_searches_and_batches_do_not_allocate() {
    // One test function, so no other test thread allocates while we count.
    let world = Rect::new(0.0, 0.0, 300.0, 300.0);
    let mut tree = Quadtree::new(world).unwrap();
    let mut rng = TestRng::new(3);
    let mut rects = Vec::new();
    let mut ids = Vec::new();
    for i in 0..20_000u32 {
        let r = Rect::from_min_size(rng.range(0.0, 298.0), rng.range(0.0, 298.0), 2.0, 2.0);
        ids.push(tree.insert(r, i).unwrap());
        rects.push(r);
    }
    let mut pairs = PairWorkspace::new();
    let mut moves = UpdateWorkspace::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        // Small steps that stay in their nodes, as particles make between frames.
        let mut step = |k: usize| {
            let d = if k % 2 == 0 { 0.01 } else { -0.01 };
            pool.install(|| {
                tree.update_many(
                    &ids,
                    |i| {
                        let r = rects[i];
                        Rect::new(r.min_x + d, r.min_y + d, r.max_x + d, r.max_y + d)
                    },
                    &mut moves,
                )
            })
            .unwrap();
            pool.install(|| tree.par_pairs(&mut pairs, |a, b| Some((*a.value, *b.value))))
        };
        // Both positions once, so that every chunk's buffer has grown to its largest.
        assert!(step(0) > 1000 && step(1) > 1000);
        let before = alloc::allocations();
        for k in 2..8 {
            assert!(step(k) > 1000);
        }
        assert_eq!(alloc::allocations() - before, 0, "{threads} threads");
    }
}
