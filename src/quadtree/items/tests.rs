use super::runs::{gallop_partition, ordered, sort_by_key_bits};
use super::scan::{HitBatch, ListHits};
use super::*;
use std::ops::ControlFlow;

use quadstress_testkit::brute::pairs_where;
use quadstress_testkit::TestRng;

/// Bit `k` set when lane `k` intersects `r`, one lane at a time: the oracle of the
/// vector forms.
fn hits_scalar(lanes: &Lanes, r: &Rect) -> u32 {
    (0..W).fold(0, |mask, k| {
        mask | u32::from(lanes.get(k).intersects(r)) << k
    })
}

/// The workspace's seeded generator drawing coordinates on a coarse grid, so exact touches
/// along edges and corners are common.
struct Coords(TestRng);

impl Coords {
    fn new(seed: u64) -> Self {
        Coords(TestRng::new(seed))
    }

    fn coord(&mut self) -> f32 {
        self.0.below(16) as f32
    }

    fn rect(&mut self) -> Rect {
        let (x, y) = (self.coord(), self.coord());
        Rect::new(x, y, x + self.coord() / 4.0, y + self.coord() / 4.0)
    }
}

/// A list of `n` random items whose payload is their position, and their rectangles kept
/// apart as the oracle.
fn list(rng: &mut Coords, n: usize) -> (ItemList<usize>, Vec<Rect>) {
    let mut items = ItemList::default();
    let mut rects = Vec::new();
    for value in 0..n {
        let id = crate::quadtree::SlotKey {
            index: value as u32,
            generation: 0,
        };
        let rect = rng.rect();
        items.push(rect, Entry { id, value }, |_, _| {});
        rects.push(rect);
    }
    (items, rects)
}

/// Every item's rectangle, by payload, as the list stores it.
fn stored(items: &ItemList<usize>) -> Vec<(usize, Rect)> {
    let mut all: Vec<_> = items.items().map(|it| (*it.value, it.rect)).collect();
    all.sort_by_key(|&(v, _)| v);
    all
}

/// `bounds` against a fold over the oracle's rectangles, for lists that fill whole
/// blocks, part of one, or none, and after removals leave emptied lanes behind.
#[test]
fn bounds_cover_exactly_the_items() {
    let mut rng = Coords::new(11);
    let fold = |rects: &[Rect]| {
        rects.iter().copied().reduce(|a, b| {
            Rect::new(
                a.min_x.min(b.min_x),
                a.min_y.min(b.min_y),
                a.max_x.max(b.max_x),
                a.max_y.max(b.max_y),
            )
        })
    };
    for n in [0, 1, 7, 8, 9, 16, 23, 40] {
        let (mut items, rects) = list(&mut rng, n);
        assert_eq!(items.bounds(), fold(&rects), "n = {n}");
        if n > 2 {
            let (gone, _) = items.swap_remove(n / 2, |_, _| {});
            let left: Vec<Rect> = items.items().map(|it| it.rect).collect();
            assert_eq!(left.len(), n - 1);
            assert!(rects.contains(&gone));
            assert_eq!(items.bounds(), fold(&left), "n = {n}, after a removal");
        }
    }
}

#[test]
fn rectangles_follow_their_entries_through_every_change() {
    let mut rng = Coords::new(5);
    let (mut items, mut rects) = list(&mut rng, 37);
    let expect = |rects: &[Rect], keep: &dyn Fn(usize) -> bool| -> Vec<(usize, Rect)> {
        (0..rects.len())
            .filter(|&v| keep(v))
            .map(|v| (v, rects[v]))
            .collect()
    };
    assert_eq!(stored(&items), expect(&rects, &|_| true));
    // Changes: new rectangles for some, then removals from the front, middle and end.
    for pos in [0, 9, 36] {
        let v = items[pos].value;
        rects[v] = rng.rect();
        items.set_rect(pos, rects[v], |_, _| {});
    }
    let mut gone = Vec::new();
    for pos in [0, 17, 33, 5] {
        let (rect, entry) = items.swap_remove(pos, |_, _| {});
        assert_eq!(rect, rects[entry.value]);
        gone.push(entry.value);
        assert!(items.lanes_consistent());
    }
    assert_eq!(stored(&items), expect(&rects, &|v| !gone.contains(&v)));
    // Moving everything to another list keeps each rectangle with its entry.
    let (mut other, other_rects) = list(&mut rng, 3);
    let mut positions = Vec::new();
    other.append_from(&mut items, |e, p| positions.push((e.value, p)));
    assert!(items.is_empty() && items.lanes_consistent() && other.lanes_consistent());
    for &(v, p) in &positions {
        assert_eq!((other[p].value, other.rect(p)), (v, rects[v]));
    }
    assert_eq!(
        (other.rect(0), other.rect(2)),
        (other_rects[0], other_rects[2])
    );
    let mut out = Vec::new();
    other.move_into(&mut out);
    assert_eq!(out.len(), 3 + 37 - gone.len());
    assert!(other.is_empty() && other.lanes_consistent());
    assert_eq!((out[1].0, out[1].1.value), (other_rects[1], 1));
    for (rect, e) in &out[3..] {
        assert_eq!(*rect, rects[e.value]);
    }
}

#[test]
fn every_block_test_matches_rect_intersects() {
    let mut rng = Coords::new(7);
    for n in 0..40 {
        let (items, rects) = list(&mut rng, n);
        for _ in 0..20 {
            let r = rng.rect();
            for (b, lanes) in items.lanes.iter().enumerate() {
                let want = (0..W)
                    .filter(|&k| rects.get(b * W + k).is_some_and(|e| e.intersects(&r)))
                    .fold(0, |m, k| m | 1 << k);
                assert_eq!(hits_scalar(lanes, &r), want);
                assert_eq!(lanes.hits(&r), want);
                if let Some(avx) = Avx::detect() {
                    assert_eq!(avx.run(|| lanes.hits_avx(avx, &r)), want);
                }
            }
        }
    }
}

/// Every block test the pair search may be handed: the compile-time form, the scalar
/// meaning, and AVX where the CPU has it.
type BlockTest = Box<dyn Fn(&Lanes, &Rect) -> u32>;

fn block_tests() -> Vec<BlockTest> {
    let mut tests: Vec<BlockTest> = vec![Box::new(Lanes::hits), Box::new(hits_scalar)];
    if let Some(avx) = Avx::detect() {
        tests.push(Box::new(move |l: &Lanes, r: &Rect| {
            avx.run(|| l.hits_avx(avx, r))
        }));
    }
    tests
}

#[test]
fn scans_find_what_brute_force_finds() {
    let mut rng = Coords::new(11);
    // Past 64 items the pair search joins the masks of more than one group of blocks.
    for n in (0..40).chain([63, 64, 65, 71, 130, 200]) {
        let (items, rects) = list(&mut rng, n);
        // A random query, one that meets every item (more hits than a batch holds, every
        // block whole) and one that meets about half (whole blocks between partial ones).
        let r = rng.rect();
        for r in [
            r,
            Rect::new(-1.0, -1.0, 40.0, 40.0),
            Rect::new(-1.0, 3.0, 40.0, 11.0),
        ] {
            scans_find_what_brute_force_finds_for(&items, &rects, r);
        }
    }
}

fn scans_find_what_brute_force_finds_for(items: &ItemList<usize>, rects: &[Rect], r: Rect) {
    let n = items.len();
    for from in 0..=n {
        let want: Vec<usize> = (from..n).filter(|&i| rects[i].intersects(&r)).collect();
        let dispatched = hits_from(items, &r, from);
        for &(v, rect) in &dispatched {
            assert_eq!(rect, rects[v]);
        }
        let dispatched: Vec<usize> = dispatched.into_iter().map(|(v, _)| v).collect();
        let portable = portable_scan(items, &r, from);
        assert_eq!((&dispatched, &portable), (&want, &want));
    }
    let want_hits: Vec<usize> = (0..n).filter(|&i| rects[i].intersects(&r)).collect();
    let want = pairs_where(rects, |a, b| a.intersects(b));
    for hits in block_tests() {
        // In list order, each hit once, and the items of the blocks tested counted.
        let (mut found, mut tests) = (Vec::new(), 0);
        let _ = items.for_each_hit_grouped(
            &r,
            |e| {
                assert_eq!(e.rect, rects[*e.value]);
                found.push(*e.value);
                ControlFlow::<()>::Continue(())
            },
            &hits,
            &mut tests,
        );
        assert_eq!((&found, tests), (&want_hits, n as u64), "{n} items");
        // Each pair once, `a` before `b`, `b` in list order, then `a`.
        let mut pairs = Vec::new();
        let _ = items.for_each_pair_inside(
            |a, b| {
                assert_eq!((a.rect, b.rect), (rects[*a.value], rects[*b.value]));
                pairs.push((*a.value, *b.value));
                ControlFlow::<()>::Continue(())
            },
            &hits,
        );
        let mut sorted = pairs.clone();
        sorted.sort_unstable_by_key(|&(a, b)| (b, a));
        assert_eq!(pairs, sorted, "{n} items");
        sorted.sort_unstable();
        assert_eq!(sorted, want, "{n} items");
    }
    let want: Vec<u32> = (0..n)
        .filter(|&i| rects[i].intersects(&r))
        .map(|i| i as u32)
        .collect();
    let mut gathered = Vec::new();
    let mut pending = ListHits::new();
    items.gather_hits(&r, &mut gathered, &mut None, &mut pending, Lanes::hits);
    pending.gather_into(&mut gathered);
    assert_eq!(gathered.iter().map(|id| id.index).collect::<Vec<_>>(), want);
    if let Some(avx) = Avx::detect() {
        gathered.clear();
        let mut pending = ListHits::new();
        items.gather_hits_avx(&r, &mut gathered, &mut None, &mut pending, avx);
        pending.gather_into(&mut gathered);
        assert_eq!(gathered.iter().map(|id| id.index).collect::<Vec<_>>(), want);
    }
}

#[test]
fn galloping_finds_what_partition_point_finds() {
    let mut rng = Coords::new(23);
    for n in 0..70 {
        // Sorted keys with runs of equal ones, as a run's clamped keys have.
        let mut keys: Vec<f32> = (0..n).map(|_| rng.coord()).collect();
        keys.sort_by(f32::total_cmp);
        for t in -1..=17 {
            let t = t as f32;
            let want = keys.partition_point(|&k| k < t);
            let want_le = keys.partition_point(|&k| k <= t);
            for guess in 0..=n + 2 {
                assert_eq!(
                    gallop_partition(&keys, guess, |k| k < t),
                    want,
                    "{keys:?} {t}"
                );
                assert_eq!(gallop_partition(&keys, guess, |k| k <= t), want_le);
            }
        }
    }
}

#[test]
fn a_hit_batch_holds_the_set_bits_in_order() {
    for mask in 0u32..256 {
        let want: Vec<u32> = (0..W as u32).filter(|k| mask >> k & 1 == 1).collect();
        let mut batch = HitBatch::new();
        assert!(!batch.push(16, mask));
        let got: Vec<u32> = batch.take().iter().map(|p| p - 16).collect();
        assert_eq!(got, want, "{mask:08b}");
        assert!(batch.take().is_empty());
    }
    // Full once it holds `CAP` positions, and every one kept.
    let mut batch = HitBatch::new();
    let blocks = HitBatch::CAP / W;
    for b in 0..blocks {
        assert_eq!(batch.push(b * W, 0xff), b + 1 == blocks);
    }
    let all: Vec<u32> = (0..HitBatch::CAP as u32).collect();
    assert_eq!(batch.take(), &all[..]);
}

#[test]
fn grouped_scans_and_pairs_stop_when_told() {
    let mut rng = Coords::new(5);
    let (items, _) = list(&mut rng, 150);
    let everything = Rect::new(-1.0, -1.0, 100.0, 100.0);
    let mut seen = 0;
    let flow = items.for_each_hit_grouped(
        &everything,
        |_| {
            seen += 1;
            if seen == 70 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
        Lanes::hits,
        &mut 0,
    );
    assert_eq!((flow, seen), (ControlFlow::Break(()), 70));
    let mut seen = 0;
    let flow = items.for_each_pair_inside(
        |_, _| {
            seen += 1;
            if seen == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
        Lanes::hits,
    );
    assert_eq!((flow, seen), (ControlFlow::Break(()), 3));
}

/// A list split at a centre line: through random pushes, moves (some across the line) and
/// removals, the positions reported to `moved` stay right, every entry stays in its group
/// and band, the runs (sorted now and then, more or less often) stay sorted with every
/// entry within their reach, and the banded scans find what brute force finds.
#[test]
fn groups_bands_and_runs_follow_every_change() {
    for (seed, sort_every, steps) in [(13, 700, 3000), (17, 97, 1500), (19, 1500, 3000)] {
        groups_bands_and_runs_follow(seed, sort_every, steps);
    }
}

fn groups_bands_and_runs_follow(seed: u64, sort_every: usize, steps: usize) {
    let mut rng = Coords::new(seed);
    let mut items = ItemList::default();
    items.make_banded(8.0);
    let mut scratch = Vec::new();
    // Payload: the item's number; `at[v]` its position as the callbacks report it.
    let mut rects: Vec<Option<Rect>> = Vec::new();
    let mut at: Vec<usize> = Vec::new();
    let mut sorted_once = false;
    for step in 0..steps {
        let live: Vec<usize> = (0..rects.len()).filter(|&v| rects[v].is_some()).collect();
        // Grow to a few hundred items, then churn; a full sort now and then.
        let choice = if live.len() > 400 {
            2 + rng.coord() as usize % 2
        } else {
            rng.coord() as usize % 5
        };
        if step % sort_every == sort_every / 2 {
            items.sort_runs(&mut scratch, |e, p| at[e.value] = p);
        }
        if step % 40 == 20 {
            // Many in-place moves at once, as a batch update makes: each entry a small
            // step, where it keeps its group.
            let (dx, dy) = (rng.coord() / 8.0 - 1.0, rng.coord() / 8.0 - 1.0);
            let mut next: Vec<Option<Rect>> = vec![None; rects.len()];
            for (v, r) in rects.iter_mut().enumerate() {
                if let Some(old) = *r {
                    let new = Rect::new(
                        old.min_x + dx,
                        old.min_y + dy,
                        old.max_x + dx,
                        old.max_y + dy,
                    );
                    if v % 3 != 0 && items.keeps_group(at[v], &new) {
                        next[v] = Some(new);
                        *r = Some(new);
                    }
                }
            }
            // The slot index is the item's number here.
            items.rewrite_each(|index| next[index as usize], |_| {});
        }
        match choice {
            0 | 1 | 4 => {
                let v = rects.len();
                let rect = rng.rect();
                let id = crate::quadtree::SlotKey {
                    index: v as u32,
                    generation: 0,
                };
                at.push(usize::MAX);
                let p = items.push(rect, Entry { id, value: v }, |e, p| at[e.value] = p);
                at[v] = p;
                rects.push(Some(rect));
            }
            2 if !live.is_empty() => {
                let v = live[step % live.len()];
                let rect = rng.rect();
                // Mostly small moves, as moving objects make, sometimes a jump.
                let old = rects[v].unwrap();
                let rect = if step % 3 == 0 {
                    rect
                } else {
                    let (dx, dy) = (rng.coord() / 16.0 - 0.45, rng.coord() / 16.0 - 0.45);
                    Rect::new(
                        old.min_x + dx,
                        old.min_y + dy,
                        old.max_x + dx,
                        old.max_y + dy,
                    )
                };
                at[v] = items.set_rect(at[v], rect, |e, p| at[e.value] = p);
                rects[v] = Some(rect);
            }
            3 if !live.is_empty() => {
                let v = live[(step * 7) % live.len()];
                let (rect, e) = items.swap_remove(at[v], |e, p| at[e.value] = p);
                assert_eq!((e.value, Some(rect)), (v, rects[v]));
                rects[v] = None;
            }
            _ => {}
        }
        assert!(items.lanes_consistent(), "seed {seed}, step {step}");
        sorted_once |= items.has_runs();
        for (v, r) in rects.iter().enumerate() {
            if let Some(r) = r {
                assert_eq!((items[at[v]].value, items.rect(at[v])), (v, *r));
            }
        }
        // Now and then a query that meets every item (more hits than one batch holds) or
        // about half of them.
        let q = rng.rect();
        let q = match step % 10 {
            0 => Rect::new(-1.0, -1.0, 40.0, 40.0),
            5 => Rect::new(-1.0, 3.0, 40.0, 11.0),
            _ => q,
        };
        let want: Vec<usize> = (0..rects.len())
            .filter(|&v| rects[v].is_some_and(|r| r.intersects(&q)))
            .collect();
        assert_eq!(sorted_hits(&items, &q), want);
        let mut grouped = Vec::new();
        let _ = items.for_each_hit_grouped(
            &q,
            |e| {
                grouped.push(*e.value);
                ControlFlow::<()>::Continue(())
            },
            Lanes::hits,
            &mut 0,
        );
        grouped.sort_unstable();
        assert_eq!(grouped, want);
        let sorted_gather = |hits: &dyn Fn(&Lanes, &Rect) -> u32| {
            let mut gathered = Vec::new();
            let mut pending = ListHits::new();
            items.gather_hits(&q, &mut gathered, &mut None, &mut pending, hits);
            pending.gather_into(&mut gathered);
            let mut gathered: Vec<usize> = gathered.iter().map(|id| id.index as usize).collect();
            gathered.sort_unstable();
            gathered
        };
        assert_eq!(sorted_gather(&Lanes::hits), want);
        if let Some(avx) = Avx::detect() {
            let gathered = avx.run(|| sorted_gather(&|l, r| l.hits_avx(avx, r)));
            assert_eq!(gathered, want);
            // The entry point `query_in_rect` calls.
            let mut direct = Vec::new();
            let mut pending = ListHits::new();
            items.gather_hits_avx(&q, &mut direct, &mut None, &mut pending, avx);
            pending.gather_into(&mut direct);
            let mut direct: Vec<usize> = direct.iter().map(|id| id.index as usize).collect();
            direct.sort_unstable();
            assert_eq!(direct, want);
        }
        // The portable block test, and a scan from a position on.
        let from = step % (items.len() + 1);
        let want: Vec<usize> = want.into_iter().filter(|&v| at[v] >= from).collect();
        let mut portable = portable_scan(&items, &q, from);
        portable.sort_unstable();
        assert_eq!(portable, want);
    }
    assert!(sorted_once, "seed {seed}: the runs must be exercised");
}

/// The walks read nodes by index, and a node of 128 bytes is a shift away.
#[test]
fn a_node_fits_in_128_bytes() {
    assert!(std::mem::size_of::<crate::quadtree::arena::Node<u32>>() <= 128);
    assert!(std::mem::size_of::<crate::quadtree::arena::Node<[u32; 2]>>() <= 128);
}

/// A banded list whose groups share a block: a query meeting neither band tests no
/// block, one meeting one band tests that group's blocks (the shared one included), and
/// every scan still finds what brute force finds.
/// The values and rectangles `for_each_hit` reports for `r` from position `from`, in
/// the order it reports them.
fn hits_from(items: &ItemList<usize>, r: &Rect, from: usize) -> Vec<(usize, Rect)> {
    let mut found = Vec::new();
    let _ = items.for_each_hit(r, from, &mut None, |e| {
        found.push((*e.value, e.rect));
        ControlFlow::<()>::Continue(())
    });
    found
}

/// The values `for_each_hit` reports for `r` from position 0, sorted.
fn sorted_hits(items: &ItemList<usize>, r: &Rect) -> Vec<usize> {
    let mut found: Vec<usize> = hits_from(items, r, 0).into_iter().map(|(v, _)| v).collect();
    found.sort_unstable();
    found
}

/// The values the region queries' scan reports for `r` from position `from` with the
/// portable block test, in order.
fn portable_scan(items: &ItemList<usize>, r: &Rect, from: usize) -> Vec<usize> {
    let mut found = Vec::new();
    let _ = items.scan(
        r,
        from,
        &mut None,
        |e| {
            found.push(*e.value);
            ControlFlow::<()>::Continue(())
        },
        hits_scalar,
    );
    found
}

/// A list of `rects` in order, entry `i` with the value `i`.
fn list_of(rects: &[Rect]) -> ItemList<usize> {
    let mut items = ItemList::default();
    for (value, &rect) in rects.iter().enumerate() {
        let id = crate::quadtree::SlotKey {
            index: value as u32,
            generation: 0,
        };
        items.push(rect, Entry { id, value }, |_, _| {});
    }
    items
}

#[test]
fn a_query_missing_both_bands_tests_no_block() {
    // 13 items crossing x = 50 (around y = 10..20), then 6 crossing only y = 50.
    let rects: Vec<Rect> = (0..19)
        .map(|value| {
            let f = value as f32;
            if value < 13 {
                Rect::new(49.0, 10.0 + f * 0.5, 51.0, 11.0 + f * 0.5)
            } else {
                Rect::new(60.0 + f, 49.0, 61.0 + f, 51.0)
            }
        })
        .collect();
    let mut items = list_of(&rects);
    items.make_banded(50.0);
    assert_eq!(items.split(), 13);
    // The query, then the first block and the number of blocks tested.
    let cases = [
        (Rect::new(0.0, 0.0, 5.0, 5.0), None),
        (Rect::new(45.0, 12.0, 55.0, 13.0), Some((0, 2))),
        (Rect::new(70.0, 48.0, 75.0, 52.0), Some((1, 2))),
        (Rect::new(0.0, 0.0, 100.0, 100.0), Some((0, 3))),
    ];
    for (q, want_blocks) in cases {
        let (a, b) = items.window(&q);
        let tested = (b > a).then_some((a, b - a));
        assert_eq!(tested, want_blocks, "{q:?}");
        let want: Vec<usize> = (0..19).filter(|&v| rects[v].intersects(&q)).collect();
        assert_eq!(sorted_hits(&items, &q), want, "{q:?}");
    }
}

#[test]
fn a_query_beside_the_line_skips_the_far_half() {
    // 256 items 4 wide crossing x = 50, their middles left or right of it in turn, spread
    // along y.
    let rects: Vec<Rect> = (0..256)
        .map(|value| {
            let (y, left) = ((value / 2) as f32 * 0.75, value % 2 == 0);
            let x = if left { 47.0 } else { 49.0 } + (value % 7) as f32 * 0.1;
            Rect::new(x, y, x + 4.0, y + 1.0)
        })
        .collect();
    let mut items = list_of(&rects);
    items.make_banded(50.0);
    items.sort_runs(&mut Vec::new(), |_, _| {});
    assert!(items.lanes_consistent());
    let run = items.run(0);
    assert_eq!((run.len(), run.mid), (256, 128));
    for (q, near) in [
        // Right of every left item's right edge (at most 51.6): only the right half.
        (Rect::new(52.0, 20.0, 60.0, 40.0), false),
        // Left of every right item's left edge (at least 49): only the left half.
        (Rect::new(40.0, 20.0, 48.5, 40.0), true),
    ] {
        let spans = items.spans(&q);
        let tested: Vec<usize> = spans.at[..spans.n]
            .iter()
            .flat_map(|&(a, b)| a..b)
            .collect();
        assert!(!tested.is_empty(), "{q:?}");
        // Every position tested holds an item of the half the query can meet.
        for &p in &tested {
            assert_eq!(items[p].value % 2 == 0, near, "{q:?} at {p}");
        }
        let mut got = Vec::new();
        let _ = items.for_each_hit_windowed(&q, &mut None, |it| {
            got.push(*it.value);
            ControlFlow::<()>::Continue(())
        });
        got.sort();
        let want: Vec<usize> = (0..256).filter(|&v| rects[v].intersects(&q)).collect();
        assert!(!want.is_empty());
        assert_eq!(got, want, "{q:?}");
    }
}

#[test]
fn a_scan_stops_when_told() {
    let mut rng = Coords::new(3);
    let everything = Rect::new(-1.0, -1.0, 100.0, 100.0);
    let half = Rect::new(-1.0, 3.0, 40.0, 11.0);
    // A short scan; a long one stopping inside a whole block and after a batch was
    // reported; a long one stopping inside a batch.
    for (n, q, stop) in [(30, everything, 5), (200, everything, 70), (200, half, 20)] {
        let (items, rects) = list(&mut rng, n);
        let want: Vec<usize> = (0..n).filter(|&i| rects[i].intersects(&q)).collect();
        assert!(want.len() > stop);
        let mut seen = Vec::new();
        let flow = items.for_each_hit(&q, 0, &mut None, |e| {
            seen.push(*e.value);
            if seen.len() == stop {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!((flow, &seen[..]), (ControlFlow::Break(()), &want[..stop]));
    }
}

#[test]
fn the_radix_sort_gives_what_sorting_whole_words_gives() {
    let mut rng = Coords::new(41);
    for n in [0, 1, 255, 256, 257, 1000, 5000] {
        // Keys with many ties (a coarse grid), some negative, some in a narrow range (equal
        // high bytes, skipped passes); offsets in order, as the sort is given them.
        for spread in [16.0f32, 0.001] {
            let mut words: Vec<u64> = (0..n)
                .map(|i| {
                    let k = (rng.coord() - 8.0) * spread;
                    (u64::from(ordered(k)) << 32) | i as u64
                })
                .collect();
            let mut want = words.clone();
            want.sort_unstable();
            let mut buf = vec![0; n];
            sort_by_key_bits(&mut words, &mut buf);
            assert_eq!(words, want, "{n} words, spread {spread}");
        }
    }
}

/// A list filled at once (`fill_order`, then `fill_in_order`) holds what pushing the same
/// entries one after the other leaves, banded or not: the same entries and lanes in the
/// same order, the same split and bands (signed zeros included).
#[test]
fn a_filled_list_is_the_list_the_pushes_leave() {
    let mut rng = Coords::new(11);
    let mut perm = Vec::new();
    for n in [0, 1, 7, 8, 9, 23, 64, 200] {
        for banded in [false, true] {
            let rects: Vec<Rect> = (0..n)
                .map(|i| match i % 5 {
                    // On the line, and with signed zeros, so that the bands' ties show.
                    0 => Rect::new(-0.0, 1.0, 0.0, 2.0),
                    1 => Rect::new(0.0, -0.0, 3.0, 0.0),
                    _ => {
                        let r = rng.rect();
                        Rect::new(r.min_x - 8.0, r.min_y, r.max_x - 8.0, r.max_y)
                    }
                })
                .collect();
            let entry = |value: usize| Entry {
                id: crate::quadtree::SlotKey {
                    index: value as u32,
                    generation: 0,
                },
                value,
            };
            let (mut pushed, mut filled) = (ItemList::default(), ItemList::default());
            if banded {
                pushed.make_banded(0.0);
                filled.make_banded(0.0);
            }
            for (v, r) in rects.iter().enumerate() {
                pushed.push(*r, entry(v), |_, _| {});
            }
            let order: Vec<u32> = match filled.fill_order(rects.iter().copied(), &mut perm) {
                None => (0..n as u32).collect(),
                Some(perm) => perm.to_vec(),
            };
            filled.fill_in_order(
                order
                    .iter()
                    .map(|&k| (rects[k as usize], entry(k as usize))),
            );
            let bits = |r: Rect| [r.min_x, r.min_y, r.max_x, r.max_y].map(f32::to_bits);
            assert_eq!(filled.split, pushed.split, "{n} {banded}");
            assert_eq!(
                filled.bands.map(bits),
                pushed.bands.map(bits),
                "{n} {banded}"
            );
            assert_eq!(filled.lanes, pushed.lanes, "{n} {banded}");
            let values = |l: &ItemList<usize>| l.iter().map(|e| e.value).collect::<Vec<_>>();
            assert_eq!(values(&filled), values(&pushed), "{n} {banded}");
            let lane_bits =
                |l: &ItemList<usize>| (0..l.len()).map(|p| bits(l.rect(p))).collect::<Vec<_>>();
            assert_eq!(lane_bits(&filled), lane_bits(&pushed));
            assert!(filled.lanes_consistent());
        }
    }
}

/// `rewrite_each` tells `ahead` every entry's slot once, in list order, and at least two
/// blocks before it asks `new_rect` for it, on lists of every length around the block
/// boundaries; what it writes is what `new_rect` gave.
#[test]
fn rewrites_are_announced_two_blocks_ahead() {
    let mut rng = Coords::new(17);
    for n in [0, 1, 7, 8, 9, 16, 17, 23, 24, 25, 40, 70] {
        let (mut items, before) = list(&mut rng, n);
        let next: Vec<Rect> = (0..n).map(|_| rng.rect()).collect();
        let announced = std::cell::RefCell::new(Vec::new());
        let mut asked = Vec::new();
        items.rewrite_each(
            |index| {
                // An entry of block `b` is asked for once the blocks up to `b + 2` (or the
                // list's end) were announced.
                let seen = announced.borrow().len();
                let b = asked.len() / W;
                asked.push(index);
                assert_eq!(seen, n.min((b + 3) * W), "{n} items, block {b}");
                (index % 3 != 0).then(|| next[index as usize])
            },
            |index| announced.borrow_mut().push(index),
        );
        let order: Vec<u32> = items.entries.iter().map(|e| e.id.index).collect();
        assert_eq!(*announced.borrow(), order, "{n} items");
        assert_eq!(asked, order, "{n} items");
        for (p, e) in items.entries.iter().enumerate() {
            let i = e.id.index as usize;
            let want = if i % 3 != 0 { next[i] } else { before[i] };
            assert_eq!(items.rect(p), want);
        }
    }
}
