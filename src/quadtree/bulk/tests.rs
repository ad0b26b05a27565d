//! The bulk builds against one-by-one inserts, and their refusals.

use super::fill::{DIRECT_SCATTER_MAX_ITEMS, INDEXED_FILL_MAX_BYTES};
use super::scratch::{level_base, Staged};
use crate::quadtree::{
    BatchError, Config, Placement, Quadtree, QuadtreeError, Rect, Shape, MAX_DEPTH,
};

/// Rectangles of every kind a build meets: small ones spread and crowded, large ones,
/// ones on the centre lines, ones partly or wholly outside the world, points.
pub(crate) fn rect_of(i: usize) -> Rect {
    let h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let u = |k: u32| ((h >> k) & 0xffff) as f32 / 65536.0;
    let (x, y) = (u(0) * 120.0 - 10.0, u(16) * 100.0 - 10.0);
    let side = match i % 7 {
        0 => 0.0,
        1 => u(32) * 30.0,
        2 => return Rect::new(49.5 + u(32), y, 50.5, y + 1.0),
        3 => return Rect::from_min_size(20.0 + u(32) * 0.5, 20.0 + u(48) * 0.5, 0.1, 0.1),
        _ => u(32) * 2.0,
    };
    Rect::from_min_size(x, y, side, side)
}

/// Configurations a build test runs under: the default, a deep one splitting at every
/// second item, and a loose one.
pub(crate) fn build_configs() -> [Config; 3] {
    [
        Config::default(),
        Config {
            leaf_capacity: 1,
            max_depth: 10,
            placement: Placement::Exact,
        },
        Config {
            leaf_capacity: 4,
            max_depth: 7,
            placement: Placement::Loose,
        },
    ]
}

/// The shape of a tree, whatever the order of its lists: each live node's cell and
/// subtree count, and each item's payload with its node's cell.
#[expect(clippy::type_complexity, reason = "a test's plain tuples")]
fn shape(t: &Quadtree<u32>) -> (Vec<(u8, u32, u32, u32)>, Vec<(u32, u8, u32, u32)>) {
    let live = t.nodes.iter().filter(|n| n.live);
    let mut nodes: Vec<_> = live
        .clone()
        .map(|n| (n.level, n.cx, n.cy, n.subtree_len))
        .collect();
    let mut items: Vec<_> = live
        .flat_map(|n| n.items.iter().map(move |e| (e.value, n.level, n.cx, n.cy)))
        .collect();
    nodes.sort_unstable();
    items.sort_unstable();
    (nodes, items)
}

#[test]
fn bulk_builds_reach_the_shape_of_one_by_one_inserts() {
    let world = Rect::new(0.0, 0.0, 100.0, 80.0);
    // Up to 2,048 staged items scatter straight into the lists; more group first.
    let sizes = [(0, 0), (1, 0), (700, 0), (3_000, 1_000), (60_000, 10_000)];
    for config in build_configs() {
        for (n, stored) in sizes {
            let mut bulk = Quadtree::with_config(world, config).unwrap();
            let mut one_by_one = Quadtree::with_config(world, config).unwrap();
            let mut ids = Vec::new();
            let earlier = (n..n + stored).map(|i| (rect_of(i), i as u32));
            bulk.insert_many(earlier.clone(), &mut ids).unwrap();
            let later = (0..n).map(|i| (rect_of(i), i as u32));
            bulk.insert_many(later.clone(), &mut ids).unwrap();
            for (rect, value) in earlier.chain(later) {
                one_by_one.insert(rect, value).unwrap();
            }
            bulk.validate().unwrap();
            one_by_one.validate().unwrap();
            assert!(
                shape(&bulk) == shape(&one_by_one),
                "{config:?}, {n} items onto {stored}"
            );
            assert_eq!(ids.len(), n + stored);
            for (i, &id) in ids.iter().enumerate() {
                let value = if i < stored { n + i } else { i - stored };
                assert_eq!(bulk.get(id), Some(&(value as u32)));
            }
        }
    }
}

/// A large build fills its lists reading the staged items where they lie, or, when they
/// take more than `INDEXED_FILL_MAX_BYTES`, after moving them into node order: the same
/// items with a payload large enough to cross that limit make the same lists, item for
/// item, and the same slots.
#[test]
fn both_fills_of_a_large_build_make_the_same_lists() {
    type Heavy = [u64; 32];
    let world = Rect::new(0.0, 0.0, 100.0, 80.0);
    let (n, stored) = (66_000, 4_000);
    assert!(n + stored > DIRECT_SCATTER_MAX_ITEMS);
    assert!((n + stored) * std::mem::size_of::<Staged<u32>>() <= INDEXED_FILL_MAX_BYTES);
    assert!((n + stored) * std::mem::size_of::<Staged<Heavy>>() > INDEXED_FILL_MAX_BYTES);
    for config in build_configs() {
        let mut light = Quadtree::with_config(world, config).unwrap();
        let mut heavy = Quadtree::with_config(world, config).unwrap();
        let (mut light_ids, mut heavy_ids) = (Vec::new(), Vec::new());
        for range in [n..n + stored, 0..n] {
            let items = range.clone().map(|i| (rect_of(i), i as u32));
            light.insert_many(items, &mut light_ids).unwrap();
            let items = range.map(|i| (rect_of(i), [i as u64; 32]));
            heavy.insert_many(items, &mut heavy_ids).unwrap();
        }
        light.validate().unwrap();
        heavy.validate().unwrap();
        assert_eq!(light_ids.len(), heavy_ids.len());
        assert_eq!(light.nodes.len(), heavy.nodes.len());
        for (a, b) in light.nodes.iter().zip(&heavy.nodes) {
            assert_eq!((a.live, a.level, a.cx, a.cy), (b.live, b.level, b.cx, b.cy));
            assert_eq!(a.items.len(), b.items.len(), "{config:?}");
            for p in 0..a.items.len() {
                assert_eq!(a.items[p].id, b.items[p].id);
                assert_eq!(u64::from(a.items[p].value), b.items[p].value[31]);
                assert_eq!(a.items.rect(p), b.items.rect(p));
            }
        }
        for (a, b) in light.slots.iter().zip(heavy.slots.iter()) {
            assert_eq!((a.generation, a.node, a.pos), (b.generation, b.node, b.pos));
        }
    }
}

/// A tree rebuilt again and again with large payloads (grouped by moving the items, whose
/// buffers keep their lengths between builds) makes, each time, the lists and slots a
/// fresh tree makes from the same items: more items than the last build, fewer, and items
/// added to ones already stored.
#[test]
fn repeated_large_builds_match_fresh_ones() {
    type Heavy = (String, [u64; 40]);
    let heavy = |i: usize| (i.to_string(), [i as u64; 40]);
    let world = Rect::new(0.0, 0.0, 100.0, 80.0);
    let config = Config::default();
    let mut reused = Quadtree::with_config(world, config).unwrap();
    let mut ids = Vec::new();
    for (n, stored) in [(30_000, 0), (45_000, 0), (26_000, 0), (20_000, 10_000)] {
        assert!((n + stored) * std::mem::size_of::<Staged<Heavy>>() > INDEXED_FILL_MAX_BYTES);
        let mut fresh = Quadtree::with_config(world, config).unwrap();
        let mut fresh_ids = Vec::new();
        reused.clear();
        ids.clear();
        for range in [n..n + stored, 0..n] {
            let items = range.clone().map(|i| (rect_of(i), heavy(i)));
            reused.insert_many(items, &mut ids).unwrap();
            let items = range.map(|i| (rect_of(i), heavy(i)));
            fresh.insert_many(items, &mut fresh_ids).unwrap();
        }
        // Handles differ (a cleared tree's slots are a generation on), the lists do not.
        reused.validate().unwrap();
        assert_eq!(ids.len(), fresh_ids.len());
        // The reused tree keeps the node blocks of earlier, deeper shapes: its live nodes
        // are the fresh tree's, in the same order.
        let live = |t: &Quadtree<Heavy>| t.nodes.iter().filter(|n| n.live).count();
        assert_eq!(live(&reused), live(&fresh));
        let reused_live = reused.nodes.iter().filter(|n| n.live);
        for (a, b) in reused_live.zip(fresh.nodes.iter().filter(|n| n.live)) {
            assert_eq!((a.level, a.cx, a.cy), (b.level, b.cx, b.cy));
            assert_eq!(a.items.len(), b.items.len());
            for p in 0..a.items.len() {
                assert_eq!(a.items[p].id.index, b.items[p].id.index);
                assert_eq!(a.items[p].value, b.items[p].value);
                assert_eq!(a.items.rect(p), b.items.rect(p));
            }
        }
        for (i, &id) in ids.iter().enumerate() {
            let v = if i < stored { n + i } else { i - stored };
            assert_eq!(reused.get(id), Some(&heavy(v)));
        }
    }
}

/// A refused batch or a batch whose iterator panics half-way leaves the tree, its free
/// chain and the caller's handles as they were, and the next batch gets the handles it
/// would have got.
#[test]
fn a_refused_or_panicking_batch_changes_nothing() {
    let world = Rect::new(0.0, 0.0, 100.0, 80.0);
    let mut tree = Quadtree::new(world).unwrap();
    let mut ids = Vec::new();
    tree.insert_many((0..500).map(|i| (rect_of(i), i as u32)), &mut ids)
        .unwrap();
    // Free some slots, so that handles come from the free chain and from new slots.
    for &id in ids.iter().step_by(3) {
        tree.remove(id).unwrap();
    }
    ids.retain(|&id| tree.get(id).is_some());
    let (len, kept) = (tree.len(), ids.clone());
    let bad = (0..400).map(|i| {
        let r = if i == 399 {
            Rect::new(f32::NAN, 0.0, 1.0, 1.0)
        } else {
            rect_of(i)
        };
        (r, i as u32)
    });
    assert_eq!(
        tree.insert_many(bad, &mut ids),
        Err(BatchError {
            index: 399,
            error: QuadtreeError::NonFinite(Shape::Rect(Rect::new(f32::NAN, 0.0, 1.0, 1.0)))
        })
    );
    assert_eq!((tree.len(), &ids), (len, &kept));
    tree.validate().unwrap();
    let panicking = (0..400).map(|i| {
        assert!(i < 399, "the caller's iterator panics");
        (rect_of(i), i as u32)
    });
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tree.insert_many(panicking, &mut ids)
    }));
    assert!(caught.is_err());
    assert_eq!((tree.len(), &ids), (len, &kept));
    tree.validate().unwrap();
    // The same batch, good now, gets the slots and generations one-by-one inserts would
    // (in a clone, whose handles are its own).
    let mut one_by_one = tree.clone();
    tree.insert_many((0..400).map(|i| (rect_of(i), i as u32)), &mut ids)
        .unwrap();
    tree.validate().unwrap();
    for (i, &id) in ids[kept.len()..].iter().enumerate() {
        assert_eq!(
            one_by_one.insert(rect_of(i), i as u32).unwrap().key(),
            id.key()
        );
        assert_eq!(tree.get(id), Some(&(i as u32)));
    }
}

#[test]
fn levels_follow_each_other_in_the_table_of_cells() {
    for level in 0..=u32::from(MAX_DEPTH) + 1 {
        assert_eq!(level_base(level), ((1usize << (2 * level)) - 1) / 3);
    }
    assert_eq!(level_base(0), 0);
    for level in 0..=u32::from(MAX_DEPTH) {
        assert_eq!(level_base(level + 1) - level_base(level), 1 << (2 * level));
    }
}
