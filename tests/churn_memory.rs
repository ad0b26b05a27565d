//! Memory after churn: a tree that fills different cells in turn and is emptied each time
//! holds on to no more than a small multiple of its peak contents. A counting global
//! allocator tracks the bytes in use.

use quadstress::{Quadtree, Rect};
use quadstress_testkit::alloc::{self, Counting};
use quadstress_testkit::TestRng;

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn memory_after_churn_stays_bounded_by_the_peak() {
    // One test function, so no other test thread allocates while we count.
    const N: usize = 20_000;
    const CYCLES: usize = 120;
    let world = Rect::new(0.0, 0.0, 1000.0, 1000.0);
    let mut rng = TestRng::new(12);
    let start = alloc::live_bytes();
    let mut tree = Quadtree::new(world).unwrap();
    let mut ids = Vec::with_capacity(N);
    let mut after = Vec::new();
    for _ in 0..CYCLES {
        // Every item in one random half-unit spot: one deepest leaf takes them all ...
        let (sx, sy) = (rng.range(0.0, 999.5), rng.range(0.0, 999.5));
        for i in 0..N {
            let (x, y) = (sx + rng.range(0.0, 0.5), sy + rng.range(0.0, 0.5));
            ids.push(tree.insert(Rect::new(x, y, x, y), i as u32).unwrap());
        }
        for id in ids.drain(..) {
            tree.remove(id).unwrap();
        }
        // ... then as many boxes spread over the whole world.
        for i in 0..N {
            let (x, y) = (rng.range(0.0, 999.0), rng.range(0.0, 999.0));
            ids.push(
                tree.insert(Rect::from_min_size(x, y, 1.0, 1.0), i as u32)
                    .unwrap(),
            );
        }
        for id in ids.drain(..) {
            tree.remove(id).unwrap();
        }
        after.push(alloc::live_bytes() - start);
    }
    tree.validate().unwrap();
    assert!(tree.is_empty());
    // About 40 bytes per stored item, so the peak contents take about 0.8 MB.
    let peak_contents = N * 40;
    let first = after[2];
    let last = *after.last().unwrap();
    let most = *after.iter().max().unwrap();
    eprintln!("bytes held after cycles 3, last, most: {first}, {last}, {most}");
    assert!(
        most <= 8 * peak_contents,
        "{most} bytes held after a cycle, for a peak of {N} items"
    );
    assert!(
        last <= 2 * first,
        "held memory grew from {first} to {last} bytes over {CYCLES} cycles"
    );
}
