//! Property tests: random sequences of insert / remove / update / clear / set_config,
//! checked after every step against a brute-force model of the same items, with
//! `validate()` after every mutation.

use std::collections::HashMap;
use std::ops::ControlFlow;
#[cfg(feature = "rayon")]
use std::sync::OnceLock;

use proptest::prelude::*;
use quadstress::{
    oracle, BatchError, Config, ItemError, ItemId, ItemRef, Placement, Quadtree, QuadtreeError,
    Rect, Shape,
};

const WORLD: Rect = Rect::new(0.0, 0.0, 100.0, 80.0);

/// Coordinates on a 0.25 grid, so exact touches between rectangles (and with cell lines)
/// happen often; some rectangles reach outside the world.
fn coord(lo: i32, hi: i32) -> impl Strategy<Value = f32> {
    (lo * 4..=hi * 4).prop_map(|v| v as f32 * 0.25)
}

fn rect() -> impl Strategy<Value = Rect> {
    let size = prop_oneof![
        4 => Just(0.0f32),
        30 => (0..=8).prop_map(|v| v as f32 * 0.25),
        10 => (0..=40).prop_map(|v| v as f32 * 0.5),
        2 => (0..=240).prop_map(|v| v as f32 * 0.5),
    ];
    (coord(-20, 115), coord(-20, 95), size.clone(), size)
        .prop_map(|(x, y, w, h)| Rect::new(x, y, x + w, y + h))
}

fn point() -> impl Strategy<Value = (f32, f32)> {
    (coord(-20, 120), coord(-20, 100))
}

#[derive(Clone, Debug)]
enum Op {
    Insert(Rect),
    /// Remove the n-th live item (modulo); `stale` tries an already removed handle instead.
    Remove(usize, bool),
    Update(usize, Rect),
    /// Moves the n-th live item by a small step, as moving objects do.
    Nudge(usize, f32, f32),
    /// Sorts the straddlers of the internal nodes into runs (`sort_straddlers`).
    SortStraddlers,
    Clear,
    /// Capacity, depth, and loose (true) or exact placement.
    SetConfig(usize, u8, bool),
    /// Bulk insert; `bad` puts a NaN rectangle last, which must refuse the whole batch. With
    /// a thread count (1 to 3), `par_insert_many` on a pool of that many threads, checked
    /// against `insert_many` on a clone: the same tree, node for node and item for item.
    InsertMany(Vec<Rect>, bool, usize),
    /// Adds the number to the payload of every item in the rectangle (`for_each_in_rect_mut`).
    MutateRect(Rect, u32),
    /// Adds the number to every payload (`iter_mut`).
    MutateAll(u32),
    /// Keeps a clone of the tree; `Restore` puts the last one back.
    Snapshot,
    Restore,
    /// Moves the n-th live items (modulo) at once: with a thread count (1 to 3),
    /// `par_update_many` on a pool of that many threads, else `update_many`; checked against
    /// `update_many` (bit for bit) and against one `update` each (the same nodes holding the
    /// same items), both on clones.
    UpdateMany(Vec<(usize, Rect)>, usize),
    /// Moves every item at once (`update_all`; with a thread count from 1 to 3,
    /// `par_update_all` on a pool of that many threads): the item whose payload is `v` takes
    /// entry `v` (modulo) of the list, a step or a jump. With `true`, the item of the
    /// smallest payload gets a NaN rectangle, which must refuse the walk and change nothing.
    /// Checked against `update_all` (bit for bit) and one `update` each (the same nodes
    /// holding the same items), both on clones.
    UpdateAll(Vec<(f32, f32, Option<Rect>)>, bool, usize),
    /// Clones the tree and inserts the rectangle into both: each refuses the other's new
    /// handle. With `true` the clone goes on as the tree.
    CloneApart(Rect, bool),
    /// Clones the tree and goes on with the clone, the model keeping the handles made
    /// before the copy (which the clone accepts, while its queries hand out its own): every
    /// later op and query reaches the items through them.
    CloneOn,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        40 => rect().prop_map(Op::Insert),
        12 => (any::<usize>(), prop::bool::weighted(0.2)).prop_map(|(i, s)| Op::Remove(i, s)),
        30 => (any::<usize>(), rect()).prop_map(|(i, r)| Op::Update(i, r)),
        1 => Just(Op::Clear),
        2 => (1usize..6, 0u8..7, any::<bool>()).prop_map(|(c, d, l)| Op::SetConfig(c, d, l)),
        3 => (prop::collection::vec(rect(), 0..40), prop::bool::weighted(0.2), 0usize..4).prop_map(|(v, b, t)| Op::InsertMany(v, b, t)),
        3 => (rect(), 1u32..1000).prop_map(|(r, k)| Op::MutateRect(r, k)),
        1 => (1u32..1000).prop_map(Op::MutateAll),
        1 => Just(Op::SortStraddlers),
        2 => Just(Op::Snapshot),
        2 => Just(Op::Restore),
        3 => (prop::collection::vec((any::<usize>(), rect()), 0..12), 0usize..4).prop_map(|(m, t)| Op::UpdateMany(m, t)),
        2 => (rect(), any::<bool>()).prop_map(|(r, k)| Op::CloneApart(r, k)),
        3 => Just(Op::CloneOn),
        2 => (prop::collection::vec(all_move(rect()), 1..8), prop::bool::weighted(0.2), 0usize..4).prop_map(|(m, b, t)| Op::UpdateAll(m, b, t)),
    ]
}

/// One entry of [`Op::UpdateAll`]: mostly a small step, sometimes a jump to `jump`.
fn all_move(jump: impl Strategy<Value = Rect>) -> impl Strategy<Value = (f32, f32, Option<Rect>)> {
    let step = (-8..=8).prop_map(|v| v as f32 * 0.125);
    (step.clone(), step, prop::option::weighted(0.2, jump))
}

#[derive(Clone, Debug)]
enum Probe {
    Rect(Rect),
    Point(f32, f32),
    Circle(f32, f32, f32),
    Nearest(f32, f32, usize),
}

fn probe() -> impl Strategy<Value = Probe> {
    prop_oneof![
        rect().prop_map(Probe::Rect),
        point().prop_map(|(x, y)| Probe::Point(x, y)),
        (point(), (0..=60).prop_map(|v| v as f32 * 0.5))
            .prop_map(|((x, y), r)| Probe::Circle(x, y, r)),
        (point(), 1usize..6).prop_map(|((x, y), k)| Probe::Nearest(x, y, k)),
    ]
}

/// A pool of `threads` threads, from 1 to 3, made once per test binary.
#[cfg(feature = "rayon")]
fn pool(threads: usize) -> &'static rayon::ThreadPool {
    static POOLS: [OnceLock<rayon::ThreadPool>; 3] = [const { OnceLock::new() }; 3];
    POOLS[threads - 1].get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool")
    })
}

/// `insert_many` of `batch`, or with `threads` from 1 to 3, `par_insert_many` on a pool of
/// that many threads, checked against `insert_many` on a clone: the same result, the same
/// handles, the same tree node for node and item for item.
#[cfg(feature = "rayon")]
fn bulk_insert(
    tree: &mut Quadtree<u32>,
    batch: &[(Rect, u32)],
    threads: usize,
    ids: &mut Vec<ItemId>,
) -> Result<Result<usize, BatchError>, TestCaseError> {
    if threads == 0 {
        return Ok(tree.insert_many(batch.iter().copied(), ids));
    }
    let mut serial = tree.clone();
    let mut serial_ids = Vec::new();
    let serial_result = serial.insert_many(batch.iter().copied(), &mut serial_ids);
    let pool = pool(threads);
    let result =
        pool.install(|| tree.par_insert_many(batch.len(), |i| batch[i].0, |i| batch[i].1, ids));
    prop_assert_eq!(result, serial_result);
    // The same slots: `serial` is a clone, whose handles are its own.
    let slots = |ids: &[ItemId]| ids.iter().map(|id| id.index()).collect::<Vec<_>>();
    prop_assert_eq!(slots(ids), slots(&serial_ids));
    let layout = |t: &Quadtree<u32>| {
        let items: Vec<_> = t.iter().map(|i| (i.id.index(), i.rect, *i.value)).collect();
        (t.nodes().collect::<Vec<_>>(), items)
    };
    prop_assert_eq!(
        layout(tree),
        layout(&serial),
        "parallel and serial trees differ"
    );
    Ok(result)
}

#[cfg(not(feature = "rayon"))]
fn bulk_insert(
    tree: &mut Quadtree<u32>,
    batch: &[(Rect, u32)],
    _threads: usize,
    ids: &mut Vec<ItemId>,
) -> Result<Result<usize, BatchError>, TestCaseError> {
    Ok(tree.insert_many(batch.iter().copied(), ids))
}

/// The model keyed by `tree`'s own handles: `tree` is a clone of the tree whose handles key
/// `model`, so it accepts them, but its queries hand out its own (for the same slots).
fn rekeyed(
    tree: &Quadtree<u32>,
    model: &HashMap<ItemId, (Rect, u32)>,
) -> Result<HashMap<ItemId, (Rect, u32)>, TestCaseError> {
    let own: HashMap<u32, ItemId> = tree.iter().map(|i| (i.id.index(), i.id)).collect();
    let mut out = HashMap::new();
    for (&id, &(r, v)) in model {
        prop_assert_eq!((tree.rect(id), tree.get(id)), (Some(r), Some(&v)));
        out.insert(own[&id.index()], (r, v));
    }
    Ok(out)
}

/// The model's key of each slot: a live item's slot is its own, whichever tree's handle keys
/// it.
fn slot_keys(model: &HashMap<ItemId, (Rect, u32)>) -> HashMap<u32, ItemId> {
    model.keys().map(|&k| (k.index(), k)).collect()
}

/// Each node in walk order with its items (slot, rectangle, payload) in list order: all
/// that the order of a tree's answers depends on.
fn layout(t: &Quadtree<u32>) -> Vec<String> {
    let mut out = Vec::new();
    t.for_each_node_items(|node, items| {
        let held: Vec<_> = items.map(|i| (i.id.index(), i.rect, *i.value)).collect();
        out.push(format!("{node:?} {held:?}"));
    });
    out
}

/// The nodes with the items each holds, in no particular order.
fn node_set(t: &Quadtree<u32>) -> Vec<String> {
    let mut out = Vec::new();
    t.for_each_node_items(|node, items| {
        let mut held: Vec<_> = items.map(|i| *i.value).collect();
        held.sort_unstable();
        out.push(format!(
            "{:?} {} {} {held:?}",
            node.rect, node.depth, node.is_leaf
        ));
    });
    out.sort();
    out
}

/// `update_many` of `moves` on `tree`, or with `threads` from 1 to 3, `par_update_many` on
/// a pool of that many threads; checked against `update_many` on a clone (the same tree, in
/// order) and one `update` each on another (the same nodes holding the same items).
fn batch_update(
    tree: &mut Quadtree<u32>,
    ids: &[ItemId],
    rects: &[Rect],
    threads: usize,
) -> Result<(), TestCaseError> {
    let mut serial = tree.clone();
    let mut one_by_one = tree.clone();
    let mut ws = quadstress::UpdateWorkspace::new();
    #[cfg(feature = "rayon")]
    if threads > 0 {
        let pool = pool(threads);
        pool.install(|| tree.par_update_many(ids, |k| rects[k], &mut ws))
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    }
    if threads == 0 || cfg!(not(feature = "rayon")) {
        tree.update_many(ids, |k| rects[k], &mut ws)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    }
    serial
        .update_many(ids, |k| rects[k], &mut ws)
        .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    prop_assert_eq!(
        layout(tree),
        layout(&serial),
        "par_update_many and update_many differ"
    );
    for (&id, r) in ids.iter().zip(rects) {
        one_by_one.update(id, *r).unwrap();
    }
    prop_assert_eq!(
        node_set(tree),
        node_set(&one_by_one),
        "one update each differs"
    );
    Ok(())
}

/// `update_all` of `new_rect` on `tree`, or with `threads` from 1 to 3, `par_update_all` on a
/// pool of that many threads; checked against `update_all` on a clone (the same result, the
/// same tree, in order) and, unless refused, one `update` each on another (the same nodes
/// holding the same items).
fn all_update(
    tree: &mut Quadtree<u32>,
    new_rect: &(dyn Fn(ItemRef<'_, u32>) -> Rect + Sync),
    threads: usize,
) -> Result<Result<(), ItemError>, TestCaseError> {
    let mut serial = tree.clone();
    let mut one_by_one = tree.clone();
    let mut ws = quadstress::UpdateWorkspace::new();
    let done = match threads {
        #[cfg(feature = "rayon")]
        1..=3 => {
            let pool = pool(threads);
            pool.install(|| tree.par_update_all(new_rect, &mut ws))
        }
        _ => tree.update_all(new_rect, &mut ws),
    };
    let serial_done = serial.update_all(new_rect, &mut ws);
    // Each tree has its own handles: compare the slots.
    let slot = |r: Result<(), ItemError>| r.map_err(|e| (e.id.index(), e.error));
    prop_assert_eq!(slot(done), slot(serial_done));
    prop_assert_eq!(
        layout(tree),
        layout(&serial),
        "par_update_all and update_all differ"
    );
    if done.is_ok() {
        let moves: Vec<(ItemId, Rect)> = one_by_one.iter().map(|i| (i.id, new_rect(i))).collect();
        for (id, r) in moves {
            one_by_one.update(id, r).unwrap();
        }
        prop_assert_eq!(
            node_set(tree),
            node_set(&one_by_one),
            "one update each differs"
        );
    }
    if let Err(e) = tree.validate() {
        return Err(TestCaseError::fail(format!("after update_all: {e}")));
    }
    Ok(done)
}

fn sorted(mut v: Vec<ItemId>) -> Vec<ItemId> {
    v.sort();
    v
}

/// Runs every form of one region query stem on `$tree` with the stem's arguments, and
/// returns what each found, by form: the iterator, the callback, the `Vec`, the counting
/// and the `_mut` forms, and the callback stopped at its first item (at most one).
macro_rules! every_form {
    ($tree:expr, $iter:ident, $for_each:ident, $query:ident, $counting:ident, $mutable:ident, ($($arg:expr),*)) => {{
        let tree: &mut Quadtree<u32> = $tree;
        let iterated: Vec<ItemRef<'_, u32>> = tree.$iter($($arg),*).collect();
        let iterated: Found =
            iterated.iter().map(|i| (i.id, i.rect, *i.value)).collect();
        let mut called = Vec::new();
        tree.$for_each($($arg,)* |i| called.push((i.id, i.rect, *i.value))).unwrap();
        let mut listed = Vec::new();
        let appended = tree.$query($($arg,)* &mut listed).unwrap();
        assert_eq!(appended, listed.len(), "{} returns what it appends", stringify!($query));
        let listed: Found = listed
            .iter()
            .map(|&id| (id, tree.rect(id).unwrap(), *tree.get(id).unwrap()))
            .collect();
        let mut counted = Vec::new();
        let ((), counts) = tree
            .$counting($($arg,)* |_| {}, |i| counted.push((i.id, i.rect, *i.value)))
            .unwrap();
        assert!(counted.len() as u64 <= counts.tests, "{} counts its tests", stringify!($counting));
        let mut lent = Vec::new();
        tree.$mutable($($arg,)* |i| lent.push((i.id, i.rect, *i.value))).unwrap();
        let first = tree
            .$for_each($($arg,)* |i| ControlFlow::Break((i.id, i.rect, *i.value)))
            .unwrap();
        let first: Vec<_> = match first {
            ControlFlow::Break(item) => vec![item],
            ControlFlow::Continue(()) => Vec::new(),
        };
        [
            (stringify!($iter), iterated),
            (stringify!($for_each), called),
            (stringify!($query), listed),
            (stringify!($counting), counted),
            (stringify!($mutable), lent),
            ("the first item", first),
        ]
    }};
}

/// What one form of a query found: each item's handle, rectangle and payload.
type Found = Vec<(ItemId, Rect, u32)>;

/// Checks that each form found the items `want` (each with its rectangle and payload, as
/// `mine`, the model under the tree's own handles, holds them), the stopped one the first
/// of them or none.
fn check_forms(
    mine: &HashMap<ItemId, (Rect, u32)>,
    want: &[ItemId],
    forms: [(&str, Found); 6],
    what: &str,
) {
    for (form, found) in forms {
        let mut keys = Vec::new();
        for (id, rect, value) in found {
            let item = mine.get(&id);
            assert_eq!(
                item,
                Some(&(rect, value)),
                "{form} {what}: one of the tree's own"
            );
            keys.push(id);
        }
        if form == "the first item" {
            assert_eq!(keys.len(), usize::from(!want.is_empty()), "{form} {what}");
            assert!(keys.iter().all(|k| want.contains(k)), "{form} {what}");
        } else {
            assert_eq!(sorted(keys), want, "{form} {what}");
        }
    }
}

/// Compares every form of every query stem with the brute-force oracle over `model`. The
/// model may be keyed by handles made before `tree` was cloned (which `tree` accepts, while
/// its queries hand out its own): the answers are compared under the tree's own handles,
/// and the queries that take a handle are given the model's.
fn check_queries(tree: &mut Quadtree<u32>, model: &HashMap<ItemId, (Rect, u32)>, probe: &Probe) {
    assert_eq!(tree.len(), model.len());
    for (&k, &(r, v)) in model {
        assert_eq!((tree.rect(k), tree.get(k)), (Some(r), Some(&v)), "{k:?}");
    }
    // The tree's own handle of each slot, as its plain iterator hands them out.
    let own_of_slot: HashMap<u32, ItemId> = tree.iter().map(|i| (i.id.index(), i.id)).collect();
    let own = |k: ItemId| own_of_slot[&k.index()];
    let mine: HashMap<ItemId, (Rect, u32)> = model.iter().map(|(&k, &v)| (own(k), v)).collect();
    let items: Vec<(ItemId, Rect)> = mine.iter().map(|(id, (r, _))| (*id, *r)).collect();
    match *probe {
        Probe::Rect(q) => {
            let want = oracle::query_in_rect(&items, &q);
            let forms = every_form!(
                tree,
                iter_in_rect,
                for_each_in_rect,
                query_in_rect,
                for_each_in_rect_counting,
                for_each_in_rect_mut,
                (&q)
            );
            check_forms(&mine, &want, forms, &format!("{q:?}"));
        }
        Probe::Point(x, y) => {
            let want = oracle::query_at_point(&items, x, y);
            let forms = every_form!(
                tree,
                iter_at_point,
                for_each_at_point,
                query_at_point,
                for_each_at_point_counting,
                for_each_at_point_mut,
                (x, y)
            );
            check_forms(&mine, &want, forms, &format!("point {x},{y}"));
        }
        Probe::Circle(x, y, rad) => {
            let want = oracle::query_in_circle(&items, x, y, rad);
            let forms = every_form!(
                tree,
                iter_in_circle,
                for_each_in_circle,
                query_in_circle,
                for_each_in_circle_counting,
                for_each_in_circle_mut,
                (x, y, rad)
            );
            check_forms(&mine, &want, forms, &format!("circle {x},{y} r {rad}"));
        }
        Probe::Nearest(x, y, k) => {
            let mut out = Vec::new();
            tree.query_nearest(x, y, k, &mut out).unwrap();
            let dists: Vec<f32> = out.iter().map(|&(_, d)| d).collect();
            let want = oracle::nearest_distances(&items, x, y, k);
            assert_eq!(dists, want, "nearest {k} to {x},{y}");
            for &(id, d) in &out {
                let (r, _) = mine[&id];
                assert_eq!(r.distance(x, y), d, "reported distance of {id:?}");
            }
            // Equal distances come in handle order.
            for w in out.windows(2) {
                assert!(w[0].1 < w[1].1 || (w[0].1 == w[1].1 && w[0].0 < w[1].0));
            }
            // The callback and counting forms lend the same items, in the same order, with
            // payloads.
            let mut lent = Vec::new();
            tree.for_each_nearest(x, y, k, |item, d| {
                assert_eq!(
                    Some(&(item.rect, *item.value)),
                    mine.get(&item.id),
                    "nearest's item"
                );
                lent.push((item.id, d));
            })
            .unwrap();
            assert_eq!(lent, out, "for_each_nearest {k} to {x},{y}");
            let mut counted = Vec::new();
            let ((), counts) = tree
                .for_each_nearest_counting(
                    x,
                    y,
                    k,
                    |_| {},
                    |item, d| {
                        assert_eq!(Some(&(item.rect, *item.value)), mine.get(&item.id));
                        counted.push((item.id, d));
                    },
                )
                .unwrap();
            assert_eq!(counted, out, "for_each_nearest_counting {k} to {x},{y}");
            assert!(counts.tests >= out.len() as u64);
        }
    }
    // All pairs, each once, by every form: the same pairs in the same order (one search), so
    // one sorted copy is compared with brute force.
    let mut pairs = Vec::new();
    tree.query_pairs(&mut pairs);
    let ordered = |(a, b): (ItemId, ItemId)| (a.min(b), a.max(b));
    let mut called = Vec::new();
    tree.for_each_pair(|a, b| called.push(ordered((a.id, b.id))));
    assert_eq!(called, pairs, "for_each_pair");
    let mut counted = Vec::new();
    let ((), counts) = tree.for_each_pair_counting(|a, b| counted.push(ordered((a.id, b.id))));
    assert_eq!(counted, pairs, "for_each_pair_counting");
    assert!(counts.tests >= pairs.len() as u64);
    // By slot, which names a live item alone: sorting pairs of `u32`s keeps this check
    // cheap where hundreds of straddlers make tens of thousands of pairs.
    let mut pairs: Vec<(u32, u32)> = pairs
        .iter()
        .map(|&(a, b)| (a.index().min(b.index()), a.index().max(b.index())))
        .collect();
    let n = pairs.len();
    pairs.sort_unstable();
    pairs.dedup();
    assert_eq!(pairs.len(), n, "a pair was reported twice");
    let by_slot: Vec<(u32, Rect)> = items.iter().map(|&(id, r)| (id.index(), r)).collect();
    assert_eq!(pairs, oracle::query_pairs(&by_slot), "pairs");
    // Everything colliding with a few existing items, through the model's handles (which
    // may be older than `tree`).
    let mut keys: Vec<ItemId> = model.keys().copied().collect();
    keys.sort();
    for &id in keys.iter().step_by(keys.len() / 3 + 1) {
        let want = oracle::query_colliding_with(&items, own(id));
        let forms = every_form!(
            tree,
            iter_colliding_with,
            for_each_colliding_with,
            query_colliding_with,
            for_each_colliding_with_counting,
            for_each_colliding_with_mut,
            (id)
        );
        check_forms(&mine, &want, forms, &format!("colliding with {id:?}"));
    }
    // The iterators know their lengths exactly.
    assert_eq!(tree.iter().len(), model.len());
    assert_eq!(tree.nodes().len(), tree.nodes().count());
    assert_eq!(tree.nodes().len(), tree.stats().nodes);
    // Iteration sees exactly the model, with payloads.
    let mut seen: Vec<(ItemId, u32)> = tree.iter().map(|it| (it.id, *it.value)).collect();
    seen.sort();
    let mut want: Vec<(ItemId, u32)> = mine.iter().map(|(id, (_, v))| (*id, *v)).collect();
    want.sort();
    assert_eq!(seen, want, "iter");
    // The walk by node sees the nodes of `nodes()`, each with its own items, and every item
    // once, with its rectangle.
    let (mut walked_nodes, mut walked) = (Vec::new(), Vec::new());
    tree.for_each_node_items(|node, items| {
        assert_eq!(items.len(), node.items, "a node's item count");
        walked_nodes.push(node);
        walked.extend(items.map(|it| (it.id, *it.value, it.rect)));
    });
    assert_eq!(
        walked_nodes,
        tree.nodes().collect::<Vec<_>>(),
        "nodes by walk"
    );
    walked.sort_by_key(|&(id, v, _)| (id, v));
    let want: Vec<(ItemId, u32, Rect)> = want
        .iter()
        .map(|&(id, v)| (id, v, tree.rect(id).expect("a stored item")))
        .collect();
    assert_eq!(walked, want, "items by node");
    // The same walk on every thread: each node once, with its items.
    #[cfg(feature = "rayon")]
    {
        let par = std::sync::Mutex::new((Vec::new(), Vec::new()));
        tree.par_for_each_node_items(|node, items| {
            let mut par = par.lock().unwrap();
            assert_eq!(items.len(), node.items, "a node's item count");
            par.0.push(node);
            par.1.extend(items.map(|it| (it.id, *it.value, it.rect)));
        });
        let (mut nodes, mut items) = par.into_inner().unwrap();
        nodes.sort_by_key(|n| n.order_key());
        let mut by_walk = walked_nodes.clone();
        by_walk.sort_by_key(|n| n.order_key());
        assert_eq!(nodes, by_walk, "nodes by parallel walk");
        items.sort_by_key(|&(id, v, _)| (id, v));
        assert_eq!(items, want, "items by node, in parallel");
    }
}

/// A key that orders nodes the same way however a walk met them: depth, then cell.
#[cfg(feature = "rayon")]
trait NodeKey {
    fn order_key(&self) -> (u8, u32, u32);
}

#[cfg(feature = "rayon")]
impl NodeKey for quadstress::NodeInfo {
    fn order_key(&self) -> (u8, u32, u32) {
        (
            self.depth,
            self.rect.min_x.to_bits(),
            self.rect.min_y.to_bits(),
        )
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn tree_matches_brute_force(
        capacity in 1usize..6,
        depth in 0u8..7,
        loose in any::<bool>(),
        far in any::<bool>(),
        ops in prop::collection::vec((op(), probe()), 1..80),
    ) {
        run_case(capacity, depth, placement_of(loose), far, ops)?;
    }

    #[test]
    fn deep_trees_with_many_items_match_brute_force(
        capacity in 1usize..4,
        depth in 4u8..=10,
        loose in any::<bool>(),
        far in any::<bool>(),
        ops in prop::collection::vec((op(), probe()), 150..300),
    ) {
        run_case(capacity, depth, placement_of(loose), far, ops)?;
    }
}

/// Rectangles that cross the world's centre lines (x = 50, y = 40) or a line of the next
/// level, of mixed sizes: they stay high in an exact tree, in groups large enough to be
/// kept in sorted runs.
fn straddler() -> impl Strategy<Value = Rect> {
    let line = prop_oneof![4 => Just(50.0f32), 1 => Just(25.0), 1 => Just(75.0)];
    let hline = prop_oneof![4 => Just(40.0f32), 1 => Just(20.0), 1 => Just(60.0)];
    let size = prop_oneof![
        8 => (1..=12).prop_map(|v| v as f32 * 0.25),
        2 => (1..=40).prop_map(|v| v as f32 * 0.5),
    ];
    (
        any::<bool>(),
        line,
        hline,
        coord(-5, 105),
        size.clone(),
        size,
        (0..=8).prop_map(|v| v as f32 * 0.125),
    )
        .prop_map(|(vertical, x, y, along, w, h, off)| {
            if vertical {
                // Crosses the vertical line at `x`, anywhere along it.
                Rect::new(x - w * off, along, x - w * off + w, along + h)
            } else {
                Rect::new(along, y - h * off, along + w, y - h * off + h)
            }
        })
}

fn straddler_op() -> impl Strategy<Value = Op> {
    let step = (-8..=8).prop_map(|v| v as f32 * 0.125);
    prop_oneof![
        30 => straddler().prop_map(Op::Insert),
        6 => (any::<usize>(), Just(false)).prop_map(|(i, s)| Op::Remove(i, s)),
        20 => (any::<usize>(), step.clone(), step).prop_map(|(i, dx, dy)| Op::Nudge(i, dx, dy)),
        4 => (any::<usize>(), straddler()).prop_map(|(i, r)| Op::Update(i, r)),
        3 => (any::<usize>(), rect()).prop_map(|(i, r)| Op::Update(i, r)),
        1 => (prop::collection::vec(straddler(), 0..80), Just(false), 0usize..4).prop_map(|(v, b, t)| Op::InsertMany(v, b, t)),
        2 => Just(Op::SortStraddlers),
        1 => Just(Op::Snapshot),
        1 => Just(Op::Restore),
        2 => (prop::collection::vec((any::<usize>(), straddler()), 0..40), 0usize..4).prop_map(|(m, t)| Op::UpdateMany(m, t)),
        1 => (straddler(), any::<bool>()).prop_map(|(r, k)| Op::CloneApart(r, k)),
        1 => Just(Op::CloneOn),
        2 => (prop::collection::vec(all_move(straddler()), 1..8), prop::bool::weighted(0.1), 0usize..4).prop_map(|(m, b, t)| Op::UpdateAll(m, b, t)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 10, ..ProptestConfig::default() })]

    /// Hundreds of items crossing a few lines: large groups in the high nodes, kept in sorted
    /// runs that moves, removals and inserts keep disturbing.
    #[test]
    fn many_straddlers_in_sorted_runs_match_brute_force(
        capacity in 1usize..6,
        far in any::<bool>(),
        ops in prop::collection::vec((straddler_op(), probe()), 300..900),
    ) {
        run_case(capacity, 6, Placement::Exact, far, ops)?;
    }
}

fn placement_of(loose: bool) -> Placement {
    if loose {
        Placement::Loose
    } else {
        Placement::Exact
    }
}

/// A world far from the origin stresses the f32 mapping from coordinates to cells.
fn shift(far: bool) -> (f32, f32) {
    if far {
        (12345.5, -6789.25)
    } else {
        (0.0, 0.0)
    }
}

fn moved(r: Rect, (ox, oy): (f32, f32)) -> Rect {
    Rect::new(r.min_x + ox, r.min_y + oy, r.max_x + ox, r.max_y + oy)
}

fn moved_probe(p: Probe, (ox, oy): (f32, f32)) -> Probe {
    match p {
        Probe::Rect(r) => Probe::Rect(moved(r, (ox, oy))),
        Probe::Point(x, y) => Probe::Point(x + ox, y + oy),
        Probe::Circle(x, y, r) => Probe::Circle(x + ox, y + oy, r),
        Probe::Nearest(x, y, k) => Probe::Nearest(x + ox, y + oy, k),
    }
}

fn run_case(
    capacity: usize,
    depth: u8,
    placement: Placement,
    far: bool,
    ops: Vec<(Op, Probe)>,
) -> Result<(), TestCaseError> {
    {
        let off = shift(far);
        let mut tree = Quadtree::with_config(
            moved(WORLD, off),
            Config {
                leaf_capacity: capacity,
                max_depth: depth,
                placement,
            },
        )
        .unwrap();
        let mut model: HashMap<ItemId, (Rect, u32)> = HashMap::new();
        let mut dead: Vec<ItemId> = Vec::new();
        let mut snapshot = None;
        let mut next_value = 0u32;
        for (op, probe) in ops {
            match op {
                Op::Insert(r) => {
                    let r = moved(r, off);
                    let id = tree.insert(r, next_value).unwrap();
                    prop_assert!(
                        model.insert(id, (r, next_value)).is_none(),
                        "handle reused while live"
                    );
                    next_value += 1;
                }
                Op::Remove(i, stale) => {
                    if stale && !dead.is_empty() {
                        let id = dead[i % dead.len()];
                        prop_assert_eq!(tree.remove(id), None);
                        prop_assert_eq!(
                            tree.update(id, Rect::new(0.0, 0.0, 1.0, 1.0)),
                            Err(QuadtreeError::StaleId)
                        );
                        prop_assert!(tree.get(id).is_none());
                    } else if !model.is_empty() {
                        let mut ids: Vec<_> = model.keys().copied().collect();
                        ids.sort();
                        let id = ids[i % ids.len()];
                        let (_, v) = model.remove(&id).unwrap();
                        prop_assert_eq!(tree.remove(id), Some(v));
                        dead.push(id);
                    }
                }
                Op::Update(i, r) => {
                    let r = moved(r, off);
                    if !model.is_empty() {
                        let mut ids: Vec<_> = model.keys().copied().collect();
                        ids.sort();
                        let id = ids[i % ids.len()];
                        tree.update(id, r).unwrap();
                        model.get_mut(&id).unwrap().0 = r;
                        prop_assert_eq!(tree.rect(id), Some(r));
                    }
                }
                Op::Nudge(i, dx, dy) => {
                    if !model.is_empty() {
                        let mut ids: Vec<_> = model.keys().copied().collect();
                        ids.sort();
                        let id = ids[i % ids.len()];
                        let r = model[&id].0;
                        let r = Rect::new(r.min_x + dx, r.min_y + dy, r.max_x + dx, r.max_y + dy);
                        tree.update(id, r).unwrap();
                        model.get_mut(&id).unwrap().0 = r;
                    }
                }
                Op::SortStraddlers => {
                    tree.sort_straddlers();
                    for (&id, &(r, v)) in &model {
                        prop_assert_eq!((tree.rect(id), tree.get(id)), (Some(r), Some(&v)));
                    }
                }
                Op::Clear => {
                    tree.clear();
                    dead.extend(model.keys().copied());
                    model.clear();
                }
                Op::SetConfig(c, d, l) => {
                    tree.set_config(Config {
                        leaf_capacity: c,
                        max_depth: d,
                        placement: placement_of(l),
                    })
                    .unwrap();
                }
                Op::InsertMany(rects, bad, threads) => {
                    let mut batch: Vec<(Rect, u32)> = rects
                        .iter()
                        .enumerate()
                        .map(|(k, r)| (moved(*r, off), next_value + k as u32))
                        .collect();
                    // Both forms report the bad rectangle of lowest index.
                    let at_bad = if threads == 0 {
                        batch.len()
                    } else {
                        batch.len() / 2
                    };
                    if bad {
                        batch.insert(at_bad, (Rect::new(f32::NAN, 0.0, 1.0, 1.0), 0));
                    }
                    let mut ids = Vec::new();
                    let result = bulk_insert(&mut tree, &batch, threads, &mut ids)?;
                    if bad {
                        let refused = BatchError {
                            index: at_bad,
                            error: QuadtreeError::NonFinite(Shape::Rect(Rect::new(
                                f32::NAN,
                                0.0,
                                1.0,
                                1.0,
                            ))),
                        };
                        prop_assert_eq!(result, Err(refused));
                        prop_assert!(ids.is_empty());
                    } else {
                        prop_assert_eq!(result, Ok(batch.len()));
                        for (id, (r, v)) in ids.iter().zip(batch) {
                            prop_assert!(
                                model.insert(*id, (r, v)).is_none(),
                                "handle reused while live"
                            );
                        }
                        next_value += rects.len() as u32;
                    }
                }
                Op::MutateRect(r, k) => {
                    let r = moved(r, off);
                    let mut seen = 0;
                    let by_slot = slot_keys(&model);
                    tree.for_each_in_rect_mut(&r, |item| {
                        assert_eq!(item.rect, model[&by_slot[&item.id.index()]].0);
                        *item.value = item.value.wrapping_add(k);
                        seen += 1;
                    })
                    .unwrap();
                    let items: Vec<(ItemId, Rect)> =
                        model.iter().map(|(id, (r, _))| (*id, *r)).collect();
                    let hit = oracle::query_in_rect(&items, &r);
                    prop_assert_eq!(seen, hit.len(), "each item in the rectangle once");
                    for id in hit {
                        let v = &mut model.get_mut(&id).unwrap().1;
                        *v = v.wrapping_add(k);
                    }
                }
                Op::MutateAll(k) => {
                    let mut seen = 0;
                    let by_slot = slot_keys(&model);
                    for item in tree.iter_mut() {
                        prop_assert_eq!(item.rect, model[&by_slot[&item.id.index()]].0);
                        *item.value = item.value.wrapping_add(k);
                        seen += 1;
                    }
                    prop_assert_eq!(seen, model.len());
                    for (_, v) in model.values_mut() {
                        *v = v.wrapping_add(k);
                    }
                }
                Op::UpdateMany(moves, threads) => {
                    if !model.is_empty() {
                        let mut live: Vec<_> = model.keys().copied().collect();
                        live.sort();
                        let ids: Vec<ItemId> =
                            moves.iter().map(|(i, _)| live[i % live.len()]).collect();
                        let rects: Vec<Rect> = moves.iter().map(|(_, r)| moved(*r, off)).collect();
                        batch_update(&mut tree, &ids, &rects, threads)?;
                        for (id, r) in ids.iter().zip(rects) {
                            model.get_mut(id).unwrap().0 = r;
                        }
                    }
                }
                Op::UpdateAll(moves, bad, threads) => {
                    let to = |v: u32, r: Rect| match moves[v as usize % moves.len()] {
                        (_, _, Some(jump)) => moved(jump, off),
                        (dx, dy, None) => moved(r, (dx, dy)),
                    };
                    let refused = if bad {
                        model.values().map(|(_, v)| *v).min()
                    } else {
                        None
                    };
                    let new_rect = |item: ItemRef<'_, u32>| {
                        if Some(*item.value) == refused {
                            Rect::new(f32::NAN, 0.0, 1.0, 1.0)
                        } else {
                            to(*item.value, item.rect)
                        }
                    };
                    let before = layout(&tree);
                    let done = all_update(&mut tree, &new_rect, threads)?;
                    if refused.is_some() {
                        let nan = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
                        prop_assert_eq!(
                            done.map_err(|e| e.error),
                            Err(QuadtreeError::NonFinite(Shape::Rect(nan)))
                        );
                        prop_assert_eq!(layout(&tree), before, "a refused walk changed the tree");
                    } else {
                        prop_assert!(done.is_ok());
                        for (r, v) in model.values_mut() {
                            *r = to(*v, *r);
                        }
                    }
                }
                Op::CloneApart(r, keep) => {
                    let r = moved(r, off);
                    let mut copy = tree.clone();
                    let mine = tree.insert(r, next_value).unwrap();
                    let theirs = copy.insert(r, next_value).unwrap();
                    prop_assert_eq!(mine.index(), theirs.index());
                    for (t, foreign) in [(&mut copy, mine), (&mut tree, theirs)] {
                        prop_assert!(!t.contains(foreign));
                        prop_assert_eq!(t.get(foreign), None);
                        prop_assert_eq!(t.remove(foreign), None);
                        prop_assert_eq!(t.update(foreign, r), Err(QuadtreeError::StaleId));
                    }
                    if let Err(e) = copy.validate() {
                        return Err(TestCaseError::fail(format!("clone: {e}")));
                    }
                    if keep {
                        model = rekeyed(&copy, &model)?;
                        model.insert(theirs, (r, next_value));
                        tree = copy;
                    } else {
                        model.insert(mine, (r, next_value));
                    }
                    next_value += 1;
                }
                Op::CloneOn => {
                    tree = tree.clone();
                    for (&id, &(r, v)) in &model {
                        prop_assert_eq!((tree.rect(id), tree.get(id)), (Some(r), Some(&v)));
                    }
                    for &id in &dead {
                        prop_assert!(!tree.contains(id), "a stale handle lives again in a clone");
                    }
                }
                Op::Snapshot => {
                    let mut copy = tree.clone();
                    if let Err(e) = copy.validate() {
                        return Err(TestCaseError::fail(format!("clone: {e}")));
                    }
                    let copied = rekeyed(&copy, &model)?;
                    check_queries(&mut copy, &copied, &moved_probe(probe.clone(), off));
                    snapshot = Some((copy, copied, dead.clone()));
                }
                Op::Restore => {
                    // The snapshot stays, so it can be restored again: the restored tree is a
                    // clone of it, and handles of the snapshot's items work in it.
                    if let Some((copy, m, d)) = &snapshot {
                        tree = copy.clone();
                        model = rekeyed(&tree, m)?;
                        dead = d.clone();
                    }
                }
            }
            if let Err(e) = tree.validate() {
                return Err(TestCaseError::fail(format!("{e}")));
            }
            check_queries(&mut tree, &model, &moved_probe(probe, off));
        }
    }
    Ok(())
}
