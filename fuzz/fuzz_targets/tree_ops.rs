//! Random operation sequences with hostile values against a model (a plain list of items):
//! every answer is checked against brute force, `validate()` runs after every operation.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use quadstress::{
    BatchError, Config, ItemError, ItemId, PairWorkspace, Placement, Quadtree, QuadtreeError, Rect,
    Shape, UpdateWorkspace, MAX_DEPTH, MAX_ITEMS,
};
use quadstress_fuzz::{layout, world_is_valid, Num, WorldSpec, R};
use quadstress_testkit::brute::pairs_where;
use quadstress_testkit::exact::{distance_squared, intersects, rect_error};

#[derive(Arbitrary, Debug)]
enum Op {
    Insert(R),
    InsertMany(Vec<R>),
    Remove(u16),
    Update(u16, R),
    UpdateMany(Vec<(u16, R)>),
    QueryRect(R),
    QueryPoint(Num, Num),
    Circle(Num, Num, Num),
    Nearest(Num, Num, u8),
    Colliding(u16),
    Pairs,
    ParPairs,
    Stale(u16),
    Foreign,
    /// Churns one slot of the other tree, whose handles this tree must still refuse.
    ForeignChurn(u16),
    /// A handle of a tree that no longer exists.
    Dropped,
    Reserve(u8, u32),
    Clear,
    SetConfig(u8, u8, bool),
    /// Sorts the straddlers of the internal nodes into runs (bulk builds do too).
    SortStraddlers,
    /// `par_insert_many` on rayon's pool, against `insert_many` on a clone: the same result,
    /// handles and tree.
    ParInsertMany(Vec<R>),
    /// A clone: it validates and holds the same items under the same handles; an item
    /// inserted into each afterwards is refused by the other (by every access). With `keep`,
    /// the clone goes on as the tree (its own handles from then on).
    Clone(R, bool),
    /// A clone that goes on as the tree while the model keeps the handles made before the
    /// copy: the clone accepts them, by every access, while its queries hand out its own
    /// (so answers are compared by slot).
    CloneOn,
    /// `update_many` on the caller's thread, checked against one `update` each on a clone
    /// (the same nodes holding the same items) and, run on another clone, against
    /// `par_update_many` (the same tree, order included).
    UpdateManySerial(Vec<(u16, R)>),
    /// `update_all`: the item whose payload is `v` moves to entry `v` (modulo) of the list;
    /// the first refused rectangle in the tree's order is reported and nothing changes.
    /// Checked against `par_update_all` on a clone (the same result and tree, order included).
    UpdateAll(Vec<R>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    world: WorldSpec,
    capacity: u8,
    depth: u8,
    loose: bool,
    /// Room asked for up front: `with_capacity`.
    room: (u8, u32),
    ops: Vec<Op>,
}

/// Most items the model holds: brute-force pairs stay cheap.
const MODEL_ITEMS: usize = 300;

fn config(capacity: u8, depth: u8, loose: bool) -> Config {
    Config {
        leaf_capacity: capacity as usize % 70,
        max_depth: depth % (MAX_DEPTH + 2),
        placement: if loose {
            Placement::Loose
        } else {
            Placement::Exact
        },
    }
}

/// A count to reserve room for: small, or past what any tree can hold (never a huge count a
/// tree could take: the fuzzer's allocator would refuse it by aborting).
fn room(kind: u8, small: u32, len: usize) -> usize {
    match kind % 6 {
        0 => usize::MAX,
        1 => 1 << 40,
        2 => MAX_ITEMS - len + 1,
        3 => MAX_ITEMS + 1 + small as usize,
        _ => small as usize % 5000,
    }
}

/// The slots of the handles, ascending: a live item's slot names it whichever tree's handle
/// the model keeps for it (see `Op::CloneOn`).
fn sorted(v: Vec<ItemId>) -> Vec<u32> {
    let mut slots: Vec<u32> = v.iter().map(|id| id.index()).collect();
    slots.sort_unstable();
    slots
}

fuzz_target!(|input: Input| {
    let world = input.world.get();
    let cfg = config(input.capacity, input.depth, input.loose);
    let n = room(input.room.0, input.room.1, 0);
    let made = Quadtree::<u32>::with_capacity(world, cfg, n);
    if !world_is_valid(&world) {
        assert_eq!(
            made.unwrap_err(),
            QuadtreeError::InvalidWorld(world),
            "{world:?}"
        );
        return;
    }
    let mut tree = match made {
        Ok(t) => t,
        Err(e) => {
            match cfg.check() {
                Err(c) => assert_eq!(c, e),
                Ok(()) => assert!(n > MAX_ITEMS && e == QuadtreeError::Full, "{n}: {e:?}"),
            }
            return;
        }
    };
    assert!(n <= MAX_ITEMS && tree.capacity() >= n);
    // Another tree, whose handles must never reach this one's items.
    let mut other = Quadtree::<u32>::new(Rect::new(0.0, 0.0, 1.0, 1.0)).unwrap();
    let mut foreign: Vec<ItemId> = (0..4)
        .map(|i| other.insert(Rect::new(0.0, 0.0, 0.5, 0.5), i).unwrap())
        .collect();
    let mut model: Vec<(ItemId, Rect, u32)> = Vec::new();
    let mut stale: Vec<ItemId> = Vec::new();
    let mut next_value = 0u32;
    for op in input.ops.into_iter().take(400) {
        match op {
            Op::Insert(r) => {
                if model.len() >= MODEL_ITEMS {
                    continue;
                }
                let r = r.get(&world);
                match rect_error(&r) {
                    Some(e) => assert_eq!(tree.insert(r, 0), Err(e)),
                    None => {
                        let id = tree.insert(r, next_value).unwrap();
                        model.push((id, r, next_value));
                        next_value += 1;
                    }
                }
            }
            Op::InsertMany(rs) => {
                let rs: Vec<Rect> = rs
                    .iter()
                    .take(MODEL_ITEMS - model.len())
                    .map(|r| r.get(&world))
                    .collect();
                let bad = rs
                    .iter()
                    .enumerate()
                    .find_map(|(index, r)| rect_error(r).map(|error| BatchError { index, error }));
                let mut ids = Vec::new();
                let items = rs
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (*r, next_value + i as u32));
                match bad {
                    Some(e) => {
                        assert_eq!(tree.insert_many(items, &mut ids), Err(e));
                        assert!(ids.is_empty());
                    }
                    None => {
                        assert_eq!(tree.insert_many(items, &mut ids), Ok(rs.len()));
                        for (i, (id, r)) in ids.iter().zip(&rs).enumerate() {
                            model.push((*id, *r, next_value + i as u32));
                        }
                        next_value += rs.len() as u32;
                    }
                }
            }
            Op::ParInsertMany(rs) => {
                let rs: Vec<Rect> = rs
                    .iter()
                    .take(MODEL_ITEMS - model.len())
                    .map(|r| r.get(&world))
                    .collect();
                let mut twin = tree.clone();
                let mut twin_ids = Vec::new();
                let items = rs
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (*r, next_value + i as u32));
                let want = twin.insert_many(items, &mut twin_ids);
                let mut ids = Vec::new();
                let got =
                    tree.par_insert_many(rs.len(), |i| rs[i], |i| next_value + i as u32, &mut ids);
                assert_eq!(got, want);
                // The same slots (the clone's handles are its own), the same tree.
                let slots = |ids: &[ItemId]| ids.iter().map(|id| id.index()).collect::<Vec<_>>();
                assert_eq!(slots(&ids), slots(&twin_ids));
                assert_eq!(layout(&tree), layout(&twin));
                if got.is_ok() {
                    for (i, (id, r)) in ids.iter().zip(&rs).enumerate() {
                        model.push((*id, *r, next_value + i as u32));
                    }
                    next_value += rs.len() as u32;
                }
            }
            Op::Remove(i) => {
                if model.is_empty() {
                    continue;
                }
                let (id, _, v) = model.swap_remove(i as usize % model.len());
                assert_eq!(tree.remove(id), Some(v));
                stale.push(id);
            }
            Op::Update(i, r) => {
                if model.is_empty() {
                    continue;
                }
                let i = i as usize % model.len();
                let r = r.get(&world);
                match rect_error(&r) {
                    Some(e) => assert_eq!(tree.update(model[i].0, r), Err(e)),
                    None => {
                        tree.update(model[i].0, r).unwrap();
                        model[i].1 = r;
                    }
                }
            }
            Op::UpdateMany(moves) => {
                if model.is_empty() {
                    continue;
                }
                let ids: Vec<ItemId> = moves
                    .iter()
                    .map(|(i, _)| model[*i as usize % model.len()].0)
                    .collect();
                let rects: Vec<Rect> = moves.iter().map(|(_, r)| r.get(&world)).collect();
                let refused = rects
                    .iter()
                    .enumerate()
                    .find_map(|(k, r)| rect_error(r).map(|e| (k, e)));
                let mut ws = UpdateWorkspace::new();
                match refused {
                    Some((index, error)) => assert_eq!(
                        tree.par_update_many(&ids, |k| rects[k], &mut ws),
                        Err(BatchError { index, error })
                    ),
                    None => {
                        tree.par_update_many(&ids, |k| rects[k], &mut ws).unwrap();
                        for ((i, _), r) in moves.iter().zip(&rects) {
                            let n = model.len();
                            model[*i as usize % n].1 = *r;
                        }
                    }
                }
            }
            Op::UpdateManySerial(moves) => {
                if model.is_empty() {
                    continue;
                }
                let picked: Vec<usize> = moves
                    .iter()
                    .map(|(i, _)| *i as usize % model.len())
                    .collect();
                let ids: Vec<ItemId> = picked.iter().map(|&i| model[i].0).collect();
                let rects: Vec<Rect> = moves.iter().map(|(_, r)| r.get(&world)).collect();
                let refused = rects
                    .iter()
                    .enumerate()
                    .find_map(|(k, r)| rect_error(r).map(|e| (k, e)));
                let mut ws = UpdateWorkspace::new();
                let mut parallel = tree.clone();
                let mut one_by_one = tree.clone();
                let got = tree.update_many(&ids, |k| rects[k], &mut ws);
                match refused {
                    Some((index, error)) => {
                        assert_eq!(got, Err(BatchError { index, error }));
                        continue;
                    }
                    None => got.unwrap(),
                }
                // Handles made before the copies reach the same items in them.
                parallel
                    .par_update_many(&ids, |k| rects[k], &mut ws)
                    .unwrap();
                assert_eq!(layout(&parallel), layout(&tree), "par_update_many");
                for (&id, r) in ids.iter().zip(&rects) {
                    one_by_one.update(id, *r).unwrap();
                }
                let as_set = |t: &Quadtree<u32>| {
                    let mut l: Vec<_> = layout(t)
                        .into_iter()
                        .map(|(n, mut items)| {
                            items.sort_by_key(|e| e.0);
                            (format!("{:?} {} {}", n.rect, n.depth, n.is_leaf), items)
                        })
                        .collect();
                    l.sort_by(|a, b| a.0.cmp(&b.0));
                    format!("{l:?}")
                };
                assert_eq!(as_set(&one_by_one), as_set(&tree), "one update each");
                for (&i, r) in picked.iter().zip(&rects) {
                    model[i].1 = *r;
                }
            }
            Op::UpdateAll(moves) => {
                if moves.is_empty() {
                    continue;
                }
                let rects: Vec<Rect> = moves.iter().map(|r| r.get(&world)).collect();
                let to = |v: u32| rects[v as usize % rects.len()];
                let refused = tree.iter().find_map(|i| {
                    rect_error(&to(*i.value)).map(|error| ItemError { id: i.id, error })
                });
                let before = layout(&tree);
                let mut parallel = tree.clone();
                let mut ws = UpdateWorkspace::new();
                let got = tree.update_all(|i| to(*i.value), &mut ws);
                let got_parallel = parallel.par_update_all(|i| to(*i.value), &mut ws);
                assert_eq!(got, refused.map_or(Ok(()), Err));
                // The clone's handles are its own: compare the slots.
                let slot = |r: Result<(), ItemError>| r.map_err(|e| (e.id.index(), e.error));
                assert_eq!(slot(got_parallel), slot(got));
                assert_eq!(layout(&parallel), layout(&tree), "par_update_all");
                if refused.is_some() {
                    assert_eq!(
                        layout(&tree),
                        before,
                        "a refused update_all changed the tree"
                    );
                } else {
                    for (_, r, v) in &mut model {
                        *r = to(*v);
                    }
                }
            }
            Op::Clone(r, keep) => {
                let mut copy = tree.clone();
                if let Err(e) = copy.validate() {
                    panic!("clone: {}", e.message());
                }
                for (id, r, v) in &model {
                    assert_eq!((copy.rect(*id), copy.get(*id)), (Some(*r), Some(v)));
                }
                assert_eq!(layout(&copy), layout(&tree));
                let r = r.get(&world);
                if rect_error(&r).is_none() && model.len() < MODEL_ITEMS {
                    let mine = tree.insert(r, next_value).unwrap();
                    let theirs = copy.insert(r, next_value).unwrap();
                    for (t, foreign) in [(&mut copy, mine), (&mut tree, theirs)] {
                        assert!(!t.contains(foreign));
                        assert_eq!(t.get(foreign), None);
                        assert_eq!(t.rect(foreign), None);
                        assert_eq!(t.update(foreign, world), Err(QuadtreeError::StaleId));
                        assert_eq!(t.remove(foreign), None);
                    }
                    model.push((if keep { theirs } else { mine }, r, next_value));
                    next_value += 1;
                }
                if keep {
                    // The model by the clone's own handles, which its queries hand out.
                    let own: std::collections::HashMap<u32, ItemId> =
                        copy.iter().map(|i| (i.id.index(), i.id)).collect();
                    for e in &mut model {
                        e.0 = own[&e.0.index()];
                    }
                    tree = copy;
                }
            }
            Op::CloneOn => {
                tree = tree.clone();
                for (id, r, v) in &model {
                    assert!(tree.contains(*id));
                    assert_eq!((tree.rect(*id), tree.get(*id)), (Some(*r), Some(v)));
                }
                for &id in &stale {
                    assert!(!tree.contains(id), "a stale handle lives again in a clone");
                }
                if let Err(e) = tree.validate() {
                    panic!("clone: {}", e.message());
                }
            }
            Op::QueryRect(q) => {
                let q = q.get(&world);
                let mut out = Vec::new();
                match rect_error(&q) {
                    Some(e) => assert_eq!(tree.query_in_rect(&q, &mut out), Err(e)),
                    None => {
                        tree.query_in_rect(&q, &mut out).unwrap();
                        let want: Vec<ItemId> = model
                            .iter()
                            .filter(|(_, r, _)| intersects(r, &q))
                            .map(|e| e.0)
                            .collect();
                        assert_eq!(sorted(out), sorted(want), "rect {q:?}");
                    }
                }
            }
            Op::QueryPoint(x, y) => {
                let (x, y) = (x.get(&world, false), y.get(&world, true));
                let mut out = Vec::new();
                if !(x.is_finite() && y.is_finite()) {
                    assert_eq!(
                        tree.query_at_point(x, y, &mut out),
                        Err(QuadtreeError::NonFinite(Shape::Point { x, y }))
                    );
                    continue;
                }
                tree.query_at_point(x, y, &mut out).unwrap();
                let p = Rect::new(x, y, x, y);
                let want: Vec<ItemId> = model
                    .iter()
                    .filter(|(_, r, _)| intersects(r, &p))
                    .map(|e| e.0)
                    .collect();
                assert_eq!(sorted(out), sorted(want), "point {x},{y}");
            }
            Op::Circle(x, y, r) => {
                let (x, y) = (x.get(&world, false), y.get(&world, true));
                let r = r.get(&world, false);
                let mut out = Vec::new();
                let got = tree.query_in_circle(x, y, r, &mut out);
                if !(x.is_finite() && y.is_finite() && r.is_finite()) {
                    let circle = Shape::Circle { x, y, r };
                    assert_eq!(got, Err(QuadtreeError::NonFinite(circle)));
                } else if r < 0.0 {
                    assert_eq!(got, Err(QuadtreeError::NegativeRadius(r)));
                } else {
                    got.unwrap();
                    let rr = r as f64 * r as f64;
                    let want: Vec<ItemId> = model
                        .iter()
                        .filter(|(_, rect, _)| distance_squared(rect, x, y) <= rr)
                        .map(|e| e.0)
                        .collect();
                    assert_eq!(sorted(out), sorted(want), "circle {x},{y} r {r}");
                }
            }
            Op::Nearest(x, y, k) => {
                let (x, y) = (x.get(&world, false), y.get(&world, true));
                // Any k is allowed: it is bounded by the items, not reserved up front.
                let k = if k == u8::MAX {
                    usize::MAX
                } else {
                    k as usize % 12
                };
                let mut out = Vec::new();
                if !(x.is_finite() && y.is_finite()) {
                    assert_eq!(
                        tree.query_nearest(x, y, k, &mut out),
                        Err(QuadtreeError::NonFinite(Shape::Point { x, y }))
                    );
                    continue;
                }
                let n = tree.query_nearest(x, y, k, &mut out).unwrap();
                assert_eq!(n, out.len());
                let mut want: Vec<f32> = model
                    .iter()
                    .map(|(_, r, _)| distance_squared(r, x, y).sqrt() as f32)
                    .collect();
                want.sort_by(f32::total_cmp);
                want.truncate(k);
                let got: Vec<f32> = out.iter().map(|e| e.1).collect();
                assert_eq!(got, want, "nearest {k} to {x},{y}");
                for (id, d) in out {
                    let (_, r, _) = model
                        .iter()
                        .find(|e| e.0.index() == id.index())
                        .expect("a live handle");
                    assert_eq!(distance_squared(r, x, y).sqrt() as f32, d);
                }
            }
            Op::Colliding(i) => {
                if model.is_empty() {
                    continue;
                }
                let (id, of, _) = model[i as usize % model.len()];
                let want: Vec<ItemId> = model
                    .iter()
                    .filter(|(o, r, _)| *o != id && intersects(r, &of))
                    .map(|e| e.0)
                    .collect();
                let want = sorted(want);
                // Every form, through the model's handle (older than the tree after a
                // `CloneOn`): none may find the item itself.
                let mut got = Vec::new();
                tree.for_each_colliding_with(id, |item| got.push(item.id))
                    .unwrap();
                assert_eq!(sorted(got), want, "for_each_colliding_with");
                let got: Vec<ItemId> = tree.iter_colliding_with(id).map(|i| i.id).collect();
                assert_eq!(sorted(got), want, "iter_colliding_with");
                let mut got = Vec::new();
                tree.query_colliding_with(id, &mut got).unwrap();
                assert_eq!(sorted(got), want, "query_colliding_with");
                let mut got = Vec::new();
                tree.for_each_colliding_with_counting(id, |_| {}, |i| got.push(i.id))
                    .unwrap();
                assert_eq!(sorted(got), want, "for_each_colliding_with_counting");
                let mut got = Vec::new();
                tree.for_each_colliding_with_mut(id, |i| got.push(i.id))
                    .unwrap();
                assert_eq!(sorted(got), want, "for_each_colliding_with_mut");
            }
            Op::Pairs => {
                let mut got = Vec::new();
                tree.query_pairs(&mut got);
                // By slot: see `sorted`.
                let by_slot =
                    |a: ItemId, b: ItemId| (a.index().min(b.index()), a.index().max(b.index()));
                let mut got: Vec<(u32, u32)> =
                    got.into_iter().map(|(a, b)| by_slot(a, b)).collect();
                got.sort_unstable();
                let mut want: Vec<(u32, u32)> = pairs_where(&model, |a, b| intersects(&a.1, &b.1))
                    .into_iter()
                    .map(|(i, j)| by_slot(model[i].0, model[j].0))
                    .collect();
                want.sort_unstable();
                assert_eq!(got, want);
            }
            Op::ParPairs => {
                let mut serial = Vec::new();
                tree.for_each_pair(|a, b| {
                    serial.push((a.id, b.id));
                });
                let mut ws = PairWorkspace::new();
                tree.par_pairs(&mut ws, |a, b| Some((a.id, b.id)));
                assert!(ws.iter().copied().eq(serial));
            }
            Op::Stale(i) => {
                if stale.is_empty() {
                    continue;
                }
                let id = stale[i as usize % stale.len()];
                assert!(!tree.contains(id));
                assert_eq!(tree.get(id), None);
                assert_eq!(tree.update(id, world), Err(QuadtreeError::StaleId));
                assert_eq!(tree.remove(id), None);
            }
            Op::Foreign => {
                for &id in &foreign {
                    assert!(!tree.contains(id));
                    assert_eq!(tree.remove(id), None);
                }
            }
            Op::ForeignChurn(times) => {
                // Moves the other tree's generation of slot 0 along: whatever it reaches,
                // its handles stay refused here.
                for _ in 0..times % 2000 {
                    let gone = foreign.swap_remove(0);
                    other.remove(gone).unwrap();
                    foreign.push(other.insert(Rect::new(0.0, 0.0, 0.5, 0.5), 9).unwrap());
                }
                for &id in &foreign {
                    assert!(other.contains(id));
                    assert!(!tree.contains(id));
                    assert_eq!(tree.get(id), None);
                    assert_eq!(tree.update(id, world), Err(QuadtreeError::StaleId));
                }
            }
            Op::Dropped => {
                let mut gone = Quadtree::<u32>::new(world).unwrap();
                let ids: Vec<ItemId> = (0..3).map(|i| gone.insert(world, i).unwrap()).collect();
                drop(gone);
                for id in ids {
                    assert!(!tree.contains(id));
                    assert_eq!(tree.remove(id), None);
                }
            }
            Op::Reserve(kind, small) => {
                let n = room(kind, small, tree.len());
                let fits = tree.len().checked_add(n).is_some_and(|t| t <= MAX_ITEMS);
                match tree.reserve(n) {
                    Ok(()) => assert!(fits && tree.capacity() >= tree.len() + n),
                    Err(e) => assert!(!fits && e == QuadtreeError::Full, "{n}: {e:?}"),
                }
            }
            Op::Clear => {
                tree.clear();
                stale.extend(model.drain(..).map(|e| e.0));
            }
            Op::SortStraddlers => {
                tree.sort_straddlers();
                for (id, r, v) in &model {
                    assert_eq!((tree.rect(*id), tree.get(*id)), (Some(*r), Some(v)));
                }
            }
            Op::SetConfig(c, d, loose) => {
                let cfg = config(c, d, loose);
                match cfg.check() {
                    Ok(()) => tree.set_config(cfg).unwrap(),
                    Err(e) => assert_eq!(tree.set_config(cfg), Err(e)),
                }
            }
        }
        if let Err(e) = tree.validate() {
            panic!("invariant broken: {}", e.message());
        }
        assert_eq!(tree.len(), model.len());
        for (id, r, v) in &model {
            assert_eq!(tree.get(*id), Some(v));
            assert_eq!(tree.rect(*id), Some(*r));
        }
    }
});
