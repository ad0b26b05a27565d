//! The query API's forms against the oracle: callbacks that keep what they are lent and stop
//! with a value, on random data under both placements.

use std::ops::ControlFlow;

use quadstress::{oracle, Config, ItemId, Placement, Quadtree, Rect};
use quadstress_testkit::TestRng;

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
            tree.for_each_in_rect(&q, |item| {
                found.push(item.value);
            })
            .unwrap();
            let found = sorted(found.into_iter().copied().collect());
            assert_eq!(
                found,
                oracle::query_in_rect(&items, &q),
                "{placement:?} {q:?}"
            );

            let mut refs = Vec::new();
            let ((), _) = tree
                .for_each_in_rect_counting(
                    &q,
                    |_| {},
                    |item| {
                        refs.push(item);
                    },
                )
                .unwrap();
            let via_counting = sorted(refs.iter().map(|item| *item.value).collect());
            assert_eq!(via_counting, found);
            for item in &refs {
                assert_eq!(tree.get(item.id), Some(item.value));
                assert_eq!(tree.rect(item.id), Some(item.rect));
            }

            let (x, y) = (q.min_x, q.min_y);
            let mut at: Vec<&u32> = Vec::new();
            tree.for_each_at_point(x, y, |item| {
                at.push(item.value);
            })
            .unwrap();
            let at = sorted(at.into_iter().copied().collect());
            assert_eq!(at, oracle::query_at_point(&items, x, y));

            let r = q.width();
            let mut near: Vec<&u32> = Vec::new();
            tree.for_each_in_circle(x, y, r, |item| {
                near.push(item.value);
            })
            .unwrap();
            let near = sorted(near.into_iter().copied().collect());
            assert_eq!(near, oracle::query_in_circle(&items, x, y, r));
        }
        let ids: Vec<ItemId> = tree.iter().map(|item| item.id).collect();
        for &id in ids.iter().step_by(37) {
            let mut hits: Vec<&u32> = Vec::new();
            tree.for_each_colliding_with(id, |item| {
                hits.push(item.value);
            })
            .unwrap();
            let hits = sorted(hits.into_iter().copied().collect());
            assert_eq!(
                hits,
                oracle::query_colliding_with(&items, *tree.get(id).unwrap())
            );
        }
        let mut pairs: Vec<(&u32, &u32)> = Vec::new();
        tree.for_each_pair(|a, b| {
            pairs.push((a.value, b.value));
        });
        let mut pairs: Vec<(u32, u32)> = pairs
            .into_iter()
            .map(|(&a, &b)| (a.min(b), a.max(b)))
            .collect();
        pairs.sort_unstable();
        assert!(!pairs.is_empty());
        assert_eq!(pairs, oracle::query_pairs(&items), "{placement:?}");
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
            assert!(counts.tests < items.len() as u64 || k == items.len());

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

/// `iter_in_rect` finds the oracle's items with their stored rectangles and payloads; a clone of
/// a half-used iterator yields the same rest; a bad query is refused.
#[test]
fn the_region_iterator_finds_what_brute_force_finds() {
    for placement in PLACEMENTS {
        let (tree, items) = random_tree(placement, 800, 7);
        let mut rng = TestRng::new(8);
        let mut total = 0;
        for q in queries(&mut rng) {
            let mut iter = tree.iter_in_rect(&q);
            let head: Vec<u32> = iter.by_ref().take(3).map(|item| *item.value).collect();
            let rest_again: Vec<u32> = iter.clone().map(|item| *item.value).collect();
            let rest: Vec<u32> = iter.map(|item| *item.value).collect();
            assert_eq!(rest, rest_again);
            let found = sorted(head.into_iter().chain(rest).collect());
            assert_eq!(
                found,
                oracle::query_in_rect(&items, &q),
                "{placement:?} {q:?}"
            );
            total += found.len();
            for item in tree.iter_in_rect(&q) {
                assert_eq!(items[*item.value as usize].1, item.rect);
                assert_eq!(tree.get(item.id), Some(item.value));
            }
        }
        assert!(total > 100, "the queries found too little to test: {total}");
        let everything = Rect::new(-10.0, -10.0, 110.0, 110.0);
        assert_eq!(tree.iter_in_rect(&everything).count(), items.len());
        let mut done = tree.iter_in_rect(&everything);
        done.by_ref().for_each(drop);
        assert!(done.next().is_none(), "fused");
        for bad in [
            Rect::new(f32::NAN, 0.0, 1.0, 1.0),
            Rect::new(0.0, 0.0, f32::INFINITY, 1.0),
            Rect::new(2.0, 0.0, 1.0, 1.0),
        ] {
            assert_eq!(tree.iter_in_rect(&bad).count(), 0);
        }
    }
}

/// `for_each_in_rect_mut` changes exactly the payloads of the oracle's items, `iter_mut`
/// every payload once, and neither moves anything.
#[test]
fn mutable_walks_change_exactly_their_payloads() {
    for placement in PLACEMENTS {
        let (mut tree, items) = random_tree(placement, 800, 9);
        let mut want: Vec<u32> = items.iter().map(|&(v, _)| v).collect();
        let ids: Vec<(u32, ItemId)> = {
            let mut v: Vec<_> = tree.iter().map(|item| (*item.value, item.id)).collect();
            v.sort_unstable();
            v
        };
        // Payloads become `original + 1000 * hits`, so every change is seen.
        let mut rng = TestRng::new(10);
        for q in queries(&mut rng) {
            tree.for_each_in_rect_mut(&q, |item| {
                assert_eq!(item.rect, items[(*item.value % 1000) as usize].1);
                *item.value += 1000;
            })
            .unwrap();
            for k in oracle::query_in_rect(&items, &q) {
                want[k as usize] += 1000;
            }
        }
        for &(k, id) in &ids {
            assert_eq!(tree.get(id), Some(&want[k as usize]), "item {k}");
            assert_eq!(tree.rect(id), Some(items[k as usize].1));
        }
        assert_eq!(tree.iter_mut().len(), items.len());
        for item in &mut tree {
            *item.value += 1;
        }
        for &(k, id) in &ids {
            assert_eq!(tree.get(id), Some(&(want[k as usize] + 1)));
        }
        tree.validate().unwrap();
        // Breaking stops at once: one payload changed.
        let everything = Rect::new(-10.0, -10.0, 110.0, 110.0);
        let flow = tree.for_each_in_rect_mut(&everything, |item| {
            *item.value = u32::MAX;
            ControlFlow::Break(item.id)
        });
        let Ok(ControlFlow::Break(id)) = flow else {
            panic!("did not stop: {flow:?}");
        };
        assert_eq!(tree.get(id), Some(&u32::MAX));
        assert_eq!(tree.iter().filter(|i| *i.value == u32::MAX).count(), 1);
        let before: Vec<u32> = tree.iter().map(|i| *i.value).collect();
        let bad = Rect::new(0.0, 0.0, f32::NAN, 1.0);
        assert!(tree
            .for_each_in_rect_mut(&bad, |item| {
                *item.value = 0;
            })
            .is_err());
        assert_eq!(tree.iter().map(|i| *i.value).collect::<Vec<_>>(), before);
    }
}

/// A clone answers every query as the original, accepts the original's handles, validates,
/// and lives on its own: changing one changes nothing in the other. Its own queries hand out
/// its own handles, for the same slots.
#[test]
fn a_clone_is_an_independent_snapshot() {
    for placement in PLACEMENTS {
        let (mut tree, _) = random_tree(placement, 800, 11);
        // Churn first, so the clone copies freed nodes and free slots too.
        let ids: Vec<ItemId> = tree.iter().map(|item| item.id).collect();
        for &id in ids.iter().step_by(3) {
            tree.remove(id).unwrap();
        }
        let live: Vec<(u32, Rect)> = tree.iter().map(|i| (*i.value, i.rect)).collect();
        let copy = tree.clone();
        copy.validate().unwrap();
        assert_eq!(copy.stats(), tree.stats());
        let listed = |t: &Quadtree<u32>| {
            let mut v: Vec<_> = t.iter().map(|i| (i.id.index(), i.rect, *i.value)).collect();
            v.sort_by_key(|e| e.0);
            v
        };
        assert_eq!(listed(&tree), listed(&copy));
        let b: Vec<_> = tree.iter().map(|i| (i.id, i.rect, *i.value)).collect();
        let mut p = Vec::new();
        copy.query_pairs(&mut p);
        assert_eq!(p.len(), oracle::query_pairs(&live).len());
        // Change the original: the copy keeps the old state, and the reverse.
        for &id in ids.iter().skip(1).step_by(3) {
            tree.update(id, Rect::new(1.0, 1.0, 2.0, 2.0)).unwrap();
        }
        let fresh = tree.insert(Rect::new(5.0, 5.0, 6.0, 6.0), 7777).unwrap();
        tree.validate().unwrap();
        for &(id, rect, v) in &b {
            assert_eq!((copy.rect(id), copy.get(id)), (Some(rect), Some(&v)));
        }
        assert_eq!(copy.len(), live.len());
        let mut copy = copy;
        copy.clear();
        assert!(copy.is_empty());
        assert_eq!(tree.get(fresh), Some(&7777));
        assert_eq!(tree.len(), live.len() + 1);
    }
}

/// A clone is another tree: the handles made before the copy name the same items in both,
/// but a handle either tree makes afterwards (insert, bulk insert, query) never reaches an
/// item of the other, even where both put their new items in the same slot with the same
/// generation; a clone of a clone is another tree again.
#[test]
fn a_handle_made_after_a_clone_never_reaches_the_other_trees_item() {
    for placement in PLACEMENTS {
        let config = Config {
            placement,
            ..Config::default()
        };
        let mut a = Quadtree::with_config(WORLD, config).unwrap();
        let kept = a.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 1).unwrap();
        let gone = a.insert(Rect::new(3.0, 3.0, 4.0, 4.0), 2).unwrap();
        a.remove(gone).unwrap();
        let mut b = a.clone();
        assert_eq!((a.get(kept), b.get(kept)), (Some(&1), Some(&1)));
        // Both trees hand the freed slot out again, at the same generation.
        let in_a = a.insert(Rect::new(5.0, 5.0, 6.0, 6.0), 10).unwrap();
        let in_b = b.insert(Rect::new(7.0, 7.0, 8.0, 8.0), 20).unwrap();
        assert_eq!(in_a.index(), in_b.index());
        for (tree, foreign, own, value) in [(&mut b, in_a, in_b, 20), (&mut a, in_b, in_a, 10)] {
            assert_eq!(tree.get(foreign), None, "{placement:?}");
            assert_eq!(tree.get_mut(foreign), None);
            assert_eq!(tree.rect(foreign), None);
            assert!(!tree.contains(foreign));
            assert!(tree.update(foreign, Rect::new(9.0, 9.0, 9.5, 9.5)).is_err());
            assert_eq!(tree.remove(foreign), None);
            assert_eq!(tree.get(own), Some(&value));
            assert_eq!(tree.len(), 2);
            tree.validate().unwrap();
        }
        // Bulk inserts and queries make handles of their own tree too.
        let (mut bulk_a, mut bulk_b) = (Vec::new(), Vec::new());
        let batch = [(Rect::new(20.0, 20.0, 21.0, 21.0), 30)];
        a.insert_many(batch, &mut bulk_a).unwrap();
        b.insert_many(batch, &mut bulk_b).unwrap();
        assert_eq!(bulk_a[0].index(), bulk_b[0].index());
        assert_eq!(b.get(bulk_a[0]), None);
        let mut found = Vec::new();
        b.query_in_rect(&Rect::new(0.0, 0.0, 100.0, 100.0), &mut found)
            .unwrap();
        assert_eq!(found.len(), 3);
        assert!(found.iter().all(|&id| a.get(id).is_none() || id == kept));
        // A clone of the clone: b's later item is c's, a's item in that slot is not.
        let c = b.clone();
        assert_eq!(c.get(in_b), Some(&20));
        assert_eq!(c.get(in_a), None);
        assert_eq!(c.get(kept), Some(&1));
        assert_eq!(c.get(bulk_a[0]), None);
        assert_eq!(c.get(bulk_b[0]), Some(&30));
        c.validate().unwrap();
    }
}

/// A clone queried through a handle made before the copy (a handle of the tree it was copied
/// from, or of that tree's own original) leaves the item itself out of colliding-with in every
/// form, as the clone's own handle of the item does: the iterator, the callback, the `Vec`,
/// the counting form and the mutable walk, which must not lend the item's own payload.
#[test]
fn colliding_with_on_a_clone_through_an_older_handle_leaves_the_item_out() {
    for placement in PLACEMENTS {
        let (a, items) = random_tree(placement, 500, 52);
        let b = a.clone();
        let c = b.clone();
        let payloads = |t: &Quadtree<u32>, ids: &[ItemId]| {
            sorted(ids.iter().map(|&id| *t.get(id).unwrap()).collect())
        };
        let mut checked = 0;
        for item in a.iter() {
            let (old, v) = (item.id, *item.value);
            let want = oracle::query_colliding_with(&items, v);
            for mut tree in [b.clone(), c.clone()] {
                let iterated: Vec<ItemId> = tree.iter_colliding_with(old).map(|i| i.id).collect();
                assert_eq!(payloads(&tree, &iterated), want, "{placement:?} iter {v}");
                let mut called = Vec::new();
                tree.for_each_colliding_with(old, |i| called.push(i.id))
                    .unwrap();
                assert_eq!(payloads(&tree, &called), want, "{placement:?} for_each {v}");
                let mut listed = Vec::new();
                tree.query_colliding_with(old, &mut listed).unwrap();
                assert_eq!(payloads(&tree, &listed), want, "{placement:?} query {v}");
                let mut counted = Vec::new();
                tree.for_each_colliding_with_counting(old, |_| {}, |i| counted.push(i.id))
                    .unwrap();
                assert_eq!(
                    payloads(&tree, &counted),
                    want,
                    "{placement:?} counting {v}"
                );
                let mut lent = Vec::new();
                tree.for_each_colliding_with_mut(old, |i| {
                    *i.value += 1_000_000;
                    lent.push(i.id);
                })
                .unwrap();
                assert_eq!(
                    tree.get(old),
                    Some(&v),
                    "{placement:?} _mut lent the item itself"
                );
                let lent_payloads: Vec<u32> = sorted(
                    lent.iter()
                        .map(|&id| *tree.get(id).unwrap() - 1_000_000)
                        .collect(),
                );
                assert_eq!(lent_payloads, want, "{placement:?} _mut {v}");
            }
            checked += usize::from(!want.is_empty());
            if checked > 40 {
                break;
            }
        }
        assert!(
            checked > 40,
            "{placement:?}: too few items collide to check"
        );
    }
}
