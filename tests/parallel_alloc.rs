//! The parallel pair search, batch moves and bulk rebuild allocate nothing once their
//! workspaces have grown, on one thread and on two (rayon's own bookkeeping included).
#![cfg(feature = "rayon")]

use quadstress::{PairWorkspace, Quadtree, Rect, UpdateWorkspace};
use quadstress_testkit::alloc::{self, Counting};
use quadstress_testkit::TestRng;

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
        // Small steps that stay in their nodes, as particles make between frames, all inside
        // one `install`: handing a job to the pool from outside it goes through rayon's
        // injector queue, which allocates a block now and then (every few dozen jobs, or
        // when a busy machine delays the workers), whatever the job does.
        let allocated = pool.install(|| {
            let mut step = |k: usize| {
                let d = if k % 2 == 0 { 0.01 } else { -0.01 };
                tree.par_update_many(
                    &ids,
                    |i| {
                        let r = rects[i];
                        Rect::new(r.min_x + d, r.min_y + d, r.max_x + d, r.max_y + d)
                    },
                    &mut moves,
                )
                .unwrap();
                pairs.clear();
                tree.par_pairs(&mut pairs, |a, b| Some((*a.value, *b.value)))
            };
            // Both positions once, so that every chunk's buffer has grown to its largest.
            assert!(step(0) > 1000 && step(1) > 1000);
            // Every worker once through rayon's queues: a worker's first steal registers it
            // with the queues' memory reclamation (crossbeam's epochs), which allocates, and
            // on a busy machine a worker may not have stolen anything yet.
            rayon::broadcast(|_| ());
            let before = alloc::allocations();
            for k in 2..8 {
                assert!(step(k) > 1000);
            }
            alloc::allocations() - before
        });
        assert_eq!(allocated, 0, "{threads} threads");

        // A rebuild from scratch on the same threads, as a simulation's reorder makes it:
        // clear, then the parallel bulk build. It allocates no more than the serial one:
        // rayon's tasks and the staging allocate nothing once warm. (Both regrow the few
        // lists that `clear` shrank to keep its spare capacity within its budget.)
        let mut rebuilt = Quadtree::new(world).unwrap();
        let mut rebuilt_ids = Vec::new();
        let mut rebuild = |parallel: bool| {
            rebuilt.clear();
            rebuilt_ids.clear();
            let before = alloc::allocations();
            let added = if parallel {
                pool.install(|| {
                    rebuilt.par_insert_many(
                        rects.len(),
                        |i| rects[i],
                        |i| i as u32,
                        &mut rebuilt_ids,
                    )
                })
            } else {
                let items = rects.iter().enumerate().map(|(i, r)| (*r, i as u32));
                rebuilt.insert_many(items, &mut rebuilt_ids)
            };
            assert_eq!(added, Ok(rects.len()));
            alloc::allocations() - before
        };
        for parallel in [false, true, false, true] {
            rebuild(parallel);
        }
        let serial: usize = (0..4).map(|_| rebuild(false)).sum();
        let parallel: usize = (0..4).map(|_| rebuild(true)).sum();
        assert!(
            parallel <= serial,
            "rebuild on {threads} threads: {parallel} > {serial}"
        );
    }
}
