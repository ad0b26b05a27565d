//! The query API's forms against the oracle: callbacks that keep what they are lent and stop
//! with a value, on random data under both placements.

use std::ops::ControlFlow;

use quadstress::{
    oracle::{self, TestRng},
    Config, ItemId, Placement, Quadtree, Rect,
};

const WORLD: Rect = Rect::new(0.0, 0.0, 100.0, 100.0);
const PLACEMENTS: [Placement; 2] = [Placement::Exact, Placement::Loose];

/// A tree of `n` random boxes (some straddling the world's edge) whose payload is their
/// insertion number, and the oracle's view of it keyed by payload.
fn random_tree(placement: Placement, n: u32, seed: u64) -> (Quadtree<u32>, Vec<(u32, Rect)>) {
    let config = Config {
        leaf_capacity: 4,
        max_depth: 6,
        placement,
    };
    let mut tree = Quadtree::with_config(WORLD, config).unwrap();
    let mut rng = TestRng::new(seed);
    let mut items = Vec::new();
    for i in 0..n {
        let (x, y) = (rng.grid(110.0, 220) - 5.0, rng.grid(110.0, 220) - 5.0);
        let side = if rng.below(10) == 0 { 20.0 } else { 2.0 };
        let r = Rect::from_min_size(x, y, rng.range(0.0, side), rng.range(0.0, side));
        tree.insert(r, i).unwrap();
        items.push((i, r));
    }
    tree.validate().unwrap();
    (tree, items)
}

fn queries(rng: &mut TestRng) -> Vec<Rect> {
    (0..40)
        .map(|_| {
            let (x, y) = (rng.grid(120.0, 240) - 10.0, rng.grid(120.0, 240) - 10.0);
            Rect::from_min_size(x, y, rng.range(0.0, 30.0), rng.range(0.0, 30.0))
        })
        .collect()
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

/// Every callback query hands out references that outlive the call (they borrow the tree,
/// not the walk), and they name exactly the oracle's items.
#[test]
fn callbacks_keep_what_they_are_lent() {
    for placement in PLACEMENTS {
        let (tree, items) = random_tree(placement, 600, 3);
        let mut rng = TestRng::new(4);
        for q in queries(&mut rng) {
            let mut found: Vec<&u32> = Vec::new();
            let flow = tree
                .for_each_in_rect(&q, |item| {
                    found.push(item.value);
                    ControlFlow::<()>::Continue(())
                })
                .unwrap();
            assert_eq!(flow, ControlFlow::Continue(()));
            let found = sorted(found.into_iter().copied().collect());
            assert_eq!(found, oracle::query_rect(&items, &q), "{placement:?} {q:?}");

            let mut refs = Vec::new();
            let (flow, _) = tree
                .for_each_in_rect_counting(
                    &q,
                    |_| {},
                    |item| {
                        refs.push(item);
                        ControlFlow::<()>::Continue(())
                    },
                )
                .unwrap();
            assert_eq!(flow, ControlFlow::Continue(()));
            let via_counting = sorted(refs.iter().map(|item| *item.value).collect());
            assert_eq!(via_counting, found);
            for item in &refs {
                assert_eq!(tree.get(item.id), Some(item.value));
                assert_eq!(tree.rect(item.id), Some(item.rect));
            }

            let (x, y) = (q.min_x, q.min_y);
            let mut at: Vec<&u32> = Vec::new();
            let flow = tree
                .for_each_at_point(x, y, |item| {
                    at.push(item.value);
                    ControlFlow::<()>::Continue(())
                })
                .unwrap();
            assert_eq!(flow, ControlFlow::Continue(()));
            let at = sorted(at.into_iter().copied().collect());
            assert_eq!(at, oracle::query_point(&items, x, y));

            let r = q.width();
            let mut near: Vec<&u32> = Vec::new();
            let flow = tree
                .for_each_in_circle(x, y, r, |item| {
                    near.push(item.value);
                    ControlFlow::<()>::Continue(())
                })
                .unwrap();
            assert_eq!(flow, ControlFlow::Continue(()));
            let near = sorted(near.into_iter().copied().collect());
            assert_eq!(near, oracle::query_circle(&items, x, y, r));
        }
        let ids: Vec<ItemId> = tree.iter().map(|item| item.id).collect();
        for &id in ids.iter().step_by(37) {
            let mut hits: Vec<&u32> = Vec::new();
            let flow = tree
                .for_each_colliding_with(id, |item| {
                    hits.push(item.value);
                    ControlFlow::<()>::Continue(())
                })
                .unwrap();
            assert_eq!(flow, ControlFlow::Continue(()));
            let hits = sorted(hits.into_iter().copied().collect());
            assert_eq!(hits, oracle::colliding_with(&items, *tree.get(id).unwrap()));
        }
        let mut pairs: Vec<(&u32, &u32)> = Vec::new();
        let flow = tree.for_each_pair(|a, b| {
            pairs.push((a.value, b.value));
            ControlFlow::<()>::Continue(())
        });
        assert_eq!(flow, ControlFlow::Continue(()));
        let mut pairs: Vec<(u32, u32)> = pairs
            .into_iter()
            .map(|(&a, &b)| (a.min(b), a.max(b)))
            .collect();
        pairs.sort_unstable();
        assert!(!pairs.is_empty());
        assert_eq!(pairs, oracle::pairs(&items), "{placement:?}");
    }
}

/// `Break(value)` stops each walk at once and comes back as the result: stopping at the k-th
/// hit returns the k-th payload seen, and nothing is seen after it.
#[test]
fn callbacks_stop_with_a_value() {
    for placement in PLACEMENTS {
        let (tree, items) = random_tree(placement, 600, 5);
        let everything = Rect::new(-10.0, -10.0, 110.0, 110.0);
        for k in [1usize, 2, 17, 300] {
            let mut seen = Vec::new();
            let flow = tree
                .for_each_in_rect(&everything, |item| {
                    seen.push(*item.value);
                    if seen.len() == k {
                        ControlFlow::Break(item.value)
                    } else {
                        ControlFlow::Continue(())
                    }
                })
                .unwrap();
            assert_eq!(seen.len(), k);
            assert_eq!(flow, ControlFlow::Break(&seen[k - 1]));

            let mut seen = 0;
            let (flow, counts) = tree
                .for_each_in_rect_counting(
                    &everything,
                    |_| {},
                    |item| {
                        seen += 1;
                        if seen == k {
                            ControlFlow::Break((item.id, seen))
                        } else {
                            ControlFlow::Continue(())
                        }
                    },
                )
                .unwrap();
            let ControlFlow::Break((id, at)) = flow else {
                panic!("the walk did not stop: {flow:?}");
            };
            assert_eq!((at, seen), (k, k));
            assert!(tree.contains(id));
            assert!(counts.items_tested < items.len() || k == items.len());

            let mut pairs_seen = 0;
            let flow = tree.for_each_pair(|a, b| {
                pairs_seen += 1;
                if pairs_seen == k {
                    ControlFlow::Break((a.id, b.id))
                } else {
                    ControlFlow::Continue(())
                }
            });
            let ControlFlow::Break((a, b)) = flow else {
                panic!("the pair search did not stop");
            };
            assert_eq!(pairs_seen, k);
            assert!(tree.rect(a).unwrap().intersects(&tree.rect(b).unwrap()));
        }
        let (_, of) = items[10];
        let (x, y) = (of.min_x, of.min_y);
        let first = tree.for_each_at_point(x, y, |item| ControlFlow::Break(item.id));
        assert!(
            matches!(first, Ok(ControlFlow::Break(id)) if tree.rect(id).unwrap().contains_point(x, y))
        );
        let first = tree.for_each_in_circle(x, y, 5.0, |item| ControlFlow::Break(item.rect));
        assert!(matches!(first, Ok(ControlFlow::Break(r)) if r.intersects_circle(x, y, 5.0)));
    }
}
