//! The query forms allocate nothing: callbacks, the region iterator, the mutable walks and
//! the pair search, counted by a global allocator. One test function, so that no other test
//! thread allocates while it counts.

use quadstress::{Config, Placement, Quadtree, Rect};
use quadstress_testkit::alloc::{allocations, Counting};
use quadstress_testkit::TestRng;

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn queries_allocate_nothing() {
    for placement in [Placement::Exact, Placement::Loose] {
        let config = Config {
            leaf_capacity: 4,
            max_depth: 8,
            placement,
        };
        let mut tree = Quadtree::with_config(Rect::new(0.0, 0.0, 1000.0, 1000.0), config).unwrap();
        let mut rng = TestRng::new(21);
        for i in 0..20_000u32 {
            let (x, y) = (rng.range(0.0, 1000.0), rng.range(0.0, 1000.0));
            tree.insert(Rect::from_min_size(x, y, 3.0, 3.0), i).unwrap();
        }
        let queries: Vec<Rect> = (0..200)
            .map(|_| {
                let (x, y) = (rng.range(-50.0, 1000.0), rng.range(-50.0, 1000.0));
                Rect::from_min_size(x, y, rng.range(0.0, 100.0), rng.range(0.0, 100.0))
            })
            .collect();
        let before = allocations();
        let mut found = 0usize;
        let mut sum = 0u64;
        for q in &queries {
            found += tree.iter_in_rect(q).count();
            let _ = tree.for_each_in_rect(q, |item| {
                sum += u64::from(*item.value);
            });
            let _ = tree.for_each_in_rect_mut(q, |item| {
                *item.value = item.value.wrapping_add(1);
            });
        }
        for item in tree.iter_mut() {
            *item.value = item.value.wrapping_sub(1);
        }
        let mut pairs = 0usize;
        tree.for_each_pair(|_, _| {
            pairs += 1;
        });
        assert_eq!(allocations(), before, "{placement:?}");
        // The walks did real work.
        assert!(
            found > 1_000 && sum > 0 && pairs > 100,
            "{found} {sum} {pairs}"
        );
    }
}
