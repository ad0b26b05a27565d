//! The project's bench command: every workload, the quadtree beside its baselines and peers,
//! measured in one run. Prints one `name: value unit` line per figure; BENCHMARKS.md explains
//! each workload.
//!
//! ```sh
//! cargo bench -p quadstress-benches --bench table                          # every workload
//! cargo bench -p quadstress-benches --bench table -- pairs moving          # some of them
//! cargo bench -p quadstress-benches --features peers --bench table         # with the peer crates
//! cargo bench -p quadstress-benches --features peers --bench table -- pile_10k  # beside rapier2d
//! cargo test --release -p quadstress-benches --features peers --bench table  # check every method against the oracle
//! ```
//!
//! Times are medians over repetitions. In the rows issue 38 compares against the grid
//! (`pairs` from scratch, `queries_10x10`, `moving`, `moving_walk`) the methods take turns, a
//! repetition each per round ([`Rounds`]), so that the machine's drift falls on all of them
//! alike. Compare ratios within a run, not absolute times across runs: the machines are
//! shared. Every method's count is compared with the others' (and
//! brute force's where affordable); the command exits non-zero if any differ.

#[cfg(feature = "peers")]
use quadstress_benches::peers;
use quadstress_benches::{baselines, workloads};

use std::time::{Duration, Instant};

use baselines::{SortAndSweep, UniformGrid};
use quadstress::oracle::brute_force_pairs;
use quadstress::{Config, ItemId, PairWorkspace, Placement, Quadtree, Rect, UpdateWorkspace};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};

const WORKLOADS: [&str; 10] = [
    "boxes_1m_800x600",
    "insert_10k_8x8",
    "pairs",
    "queries_10x10",
    "moving",
    "moving_walk",
    "clustered",
    "sim",
    "pile_10k",
    "pile_100k",
];

fn main() {
    // `cargo bench` passes `--bench`; `cargo test` does not, and gets the checks instead.
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let timing = args.iter().any(|a| a == "--bench");
    args.retain(|a| a != "--bench");
    if !timing {
        check();
        return;
    }
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!(
            "usage: cargo bench -p quadstress-benches --bench table -- [WORKLOAD]...   (workloads: {})",
            WORKLOADS.join(", ")
        );
        return;
    }
    for a in &args {
        if !WORKLOADS.contains(&a.as_str()) {
            eprintln!("unknown workload {a:?}; known: {}", WORKLOADS.join(", "));
            std::process::exit(2);
        }
    }
    let run = |name: &str| args.is_empty() || args.iter().any(|a| a == name);
    let mut ok = true;
    if run("boxes_1m_800x600") {
        ok &= boxes_1m_800x600();
    }
    if run("insert_10k_8x8") {
        insert_10k_8x8();
    }
    if run("pairs") {
        for n in [1_000, 10_000, 100_000, 1_000_000] {
            ok &= pairs(n);
        }
    }
    if run("queries_10x10") {
        ok &= queries_10x10();
    }
    if run("moving") {
        ok &= moving("moving", || workloads::Motion::velocity(100_000, 0.5, 78));
    }
    if run("moving_walk") {
        ok &= moving("moving_walk", || workloads::Motion::walk(0.5, 79));
    }
    if run("clustered") {
        ok &= clustered();
    }
    if run("sim") {
        sim_modes();
    }
    for (name, n) in [("pile_10k", 10_000), ("pile_100k", 100_000)] {
        if run(name) {
            pile(n);
        }
    }
    if !ok {
        eprintln!("counts disagree between methods");
        std::process::exit(1);
    }
}

/// Every method the table times, checked against the oracle on small random data; a failed
/// check panics, so `cargo test --bench table` fails.
fn check() {
    baselines::checks::baselines_match_the_oracle();
    #[cfg(feature = "peers")]
    peers::checks::peers_match_the_oracle();
    #[cfg(feature = "peers")]
    quadstress_benches::pile_peer::checks::rapier_pile_is_the_simulations_scene();
    let passed = if cfg!(feature = "peers") { 3 } else { 1 };
    println!("test result: ok. {passed} passed; 0 failed (the table's methods against the oracle)");
}

/// Median of `reps` timings of `f`, by the percentile rule the demo's reports use.
fn median<R>(reps: usize, mut f: impl FnMut() -> R) -> (Duration, R) {
    let mut seconds = Vec::with_capacity(reps);
    let mut last = None;
    for _ in 0..reps {
        let t = Instant::now();
        let r = std::hint::black_box(f());
        seconds.push(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    let median = quadstress_sim::percentile(&mut seconds, 0.5).expect("at least one repetition");
    (Duration::from_secs_f64(median), last.unwrap())
}

/// The methods of one row, timed in rounds: each round runs every method once, starting one
/// method later than the round before, and each method's figure is the median of its
/// rounds. The machines are shared and their speed drifts over seconds; timed one after
/// another, two methods of a row can see different machines, while in rounds a drift falls
/// on all of them alike, so their ratio holds from run to run (BENCHMARKS.md, "the rows
/// timed in rounds").
struct Rounds<'a> {
    methods: Vec<(String, Box<dyn FnMut() -> u64 + 'a>)>,
}

impl<'a> Rounds<'a> {
    fn new() -> Self {
        Rounds {
            methods: Vec::new(),
        }
    }

    /// Adds a method: `f` does the work once and returns its count.
    fn add(&mut self, name: impl Into<String>, f: impl FnMut() -> u64 + 'a) {
        self.methods.push((name.into(), Box::new(f)));
    }

    /// Runs `reps` rounds; returns each method's name, median time and last count, in the
    /// order they were added.
    fn run(mut self, reps: usize) -> Vec<(String, Duration, u64)> {
        let m = self.methods.len();
        let mut times = vec![Vec::with_capacity(reps); m];
        let mut counts = vec![0; m];
        for round in 0..reps {
            for k in 0..m {
                let i = (round + k) % m;
                // Once untimed, so that each timed run finds its own data in the caches, as
                // in a run of repetitions, not the method's before it.
                std::hint::black_box((self.methods[i].1)());
                let t = Instant::now();
                counts[i] = std::hint::black_box((self.methods[i].1)());
                times[i].push(t.elapsed().as_secs_f64());
            }
        }
        self.methods
            .into_iter()
            .zip(times)
            .zip(counts)
            .map(|(((name, _), mut seconds), count)| {
                let median =
                    quadstress_sim::percentile(&mut seconds, 0.5).expect("at least one round");
                (name, Duration::from_secs_f64(median), count)
            })
            .collect()
    }
}

/// Prints the rows' times, `{p}.{name}` each, and the fastest of those named `grid_cell_*`
/// as `{p}.grid` with its side ([`print_fastest_grid`]); returns the counts by name.
fn report(p: &str, results: &[(String, Duration, u64)]) -> Vec<(String, u64)> {
    for (name, t, _) in results {
        line(&format!("{p}.{name}"), ms(*t), "ms");
    }
    print_fastest_grid(
        p,
        "",
        results.iter().map(|(name, t, _)| (name.as_str(), *t)),
    );
    results.iter().map(|(n, _, c)| (n.clone(), *c)).collect()
}

/// Of the methods named `grid_cell_{side}` (one per side of [`UniformGrid::cells_for`]),
/// prints the fastest's time as `{p}.grid{suffix}` and its side as `{p}.grid.best_cell`: the
/// grid a user tuning it for this workload would pick.
fn print_fastest_grid<'a>(
    p: &str,
    suffix: &str,
    times: impl IntoIterator<Item = (&'a str, Duration)>,
) {
    let fastest = times
        .into_iter()
        .filter_map(|(name, t)| Some((name.strip_prefix("grid_cell_")?.parse::<f32>().ok()?, t)))
        .min_by_key(|&(_, t)| t);
    if let Some((cell, t)) = fastest {
        line(&format!("{p}.grid{suffix}"), ms(t), "ms");
        line(&format!("{p}.grid.best_cell"), cell as f64, "");
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn line(name: &str, value: f64, unit: &str) {
    println!("{name}: {value:.3} {unit}");
}

/// The tree as shipped (leaf capacity 32, depth 6) and the same with loose placement.
fn tree_configs() -> [(&'static str, Config); 2] {
    [
        ("tree", Config::default()),
        (
            "tree_loose",
            Config {
                placement: Placement::Loose,
                ..Config::default()
            },
        ),
    ]
}

/// One-by-one inserts into a new tree made with room for them all, as a caller who knows the
/// count makes it.
fn build(world: Rect, config: Config, rects: &[Rect]) -> (Quadtree<u32>, Vec<ItemId>) {
    let mut tree = Quadtree::with_capacity(world, config, rects.len()).unwrap();
    let ids = rects
        .iter()
        .enumerate()
        .map(|(i, r)| tree.insert(*r, i as u32).unwrap())
        .collect();
    (tree, ids)
}

fn tree_pairs(tree: &Quadtree<u32>) -> u64 {
    let mut n = 0u64;
    tree.for_each_pair(|_, _| {
        n += 1;
    });
    n
}

type RItem = GeomWithData<Rectangle<[f32; 2]>, u32>;

fn rtree(rects: &[Rect]) -> RTree<RItem> {
    RTree::bulk_load(
        rects
            .iter()
            .enumerate()
            .map(|(i, r)| {
                GeomWithData::new(
                    Rectangle::from_corners([r.min_x, r.min_y], [r.max_x, r.max_y]),
                    i as u32,
                )
            })
            .collect(),
    )
}

/// rstar's pair search: one envelope query per item, keeping the pairs whose other index is
/// larger, so each pair counts once.
fn rtree_pairs(tree: &RTree<RItem>, rects: &[Rect]) -> u64 {
    let mut n = 0u64;
    for (i, r) in rects.iter().enumerate() {
        let env = AABB::from_corners([r.min_x, r.min_y], [r.max_x, r.max_y]);
        n += tree
            .locate_in_envelope_intersecting(env)
            .filter(|o| o.data > i as u32)
            .count() as u64;
    }
    n
}

fn sap_pairs(sap: &mut SortAndSweep, rects: &[Rect]) -> u64 {
    let mut n = 0u64;
    sap.pairs(rects, |_, _| n += 1);
    n
}

fn grid_pairs(grid: &mut UniformGrid, rects: &[Rect]) -> Option<u64> {
    let mut n = 0u64;
    grid.pairs(rects, |_, _| n += 1).then_some(n)
}

fn brute_pairs(rects: &[Rect]) -> u64 {
    let mut n = 0u64;
    brute_force_pairs(rects, |_, _| n += 1);
    n
}

fn agree<S: AsRef<str> + std::fmt::Debug>(name: &str, counts: &[(S, u64)]) -> bool {
    let first = counts[0].1;
    let same = counts.iter().all(|c| c.1 == first);
    if !same {
        eprintln!("{name}: counts differ: {counts:?}");
    }
    same
}

/// Clears `tree` and inserts `rects` in bulk, payload = index.
fn rebuild_bulk(tree: &mut Quadtree<u32>, rects: &[Rect], ids: &mut Vec<ItemId>) -> usize {
    tree.clear();
    ids.clear();
    tree.insert_many(rects.iter().enumerate().map(|(i, r)| (*r, i as u32)), ids)
        .unwrap()
}

fn tree_queries(tree: &Quadtree<u32>, queries: &[Rect], out: &mut Vec<ItemId>) -> u64 {
    queries
        .iter()
        .map(|q| {
            out.clear();
            tree.query_in_rect(q, out).unwrap() as u64
        })
        .sum()
}

/// The same hits as [`tree_queries`], visited through the callback form and counted, as the
/// grid and static_aabb2d_index report theirs: no handle is written anywhere.
fn tree_visits(tree: &Quadtree<u32>, queries: &[Rect]) -> u64 {
    let mut n = 0u64;
    for q in queries {
        tree.for_each_in_rect(q, |_| {
            n += 1;
        })
        .unwrap();
    }
    n
}

fn rtree_queries(tree: &RTree<RItem>, queries: &[Rect]) -> u64 {
    queries
        .iter()
        .map(|q| {
            let env = AABB::from_corners([q.min_x, q.min_y], [q.max_x, q.max_y]);
            tree.locate_in_envelope_intersecting(env).count() as u64
        })
        .sum()
}

fn grid_queries(grid: &UniformGrid, queries: &[Rect]) -> u64 {
    let mut n = 0u64;
    for q in queries {
        grid.query(q, |_| n += 1);
    }
    n
}

/// A million 32x32 boxes in 800x600: built one by one and in bulk, then queried with
/// 32x32 rectangles, beside a store-only floor, the grid and the peers.
fn boxes_1m_800x600() -> bool {
    let p = "boxes_1m_800x600";
    let (world, rects) = workloads::boxes_32x32_800x600(1_000_000, 4);
    let centre = Rect::from_min_size(400.0, 300.0, 32.0, 32.0);
    let queries = workloads::queries(&world, 10_000, 32.0, 44);
    let (tb, brute_hits) = median(5, || rects.iter().filter(|r| r.intersects(&centre)).count());
    // Brute force checks the first 200 random queries; the methods check each other on all.
    let (tb_random, brute_random) = median(3, || {
        queries[..200]
            .iter()
            .map(|s| rects.iter().filter(|r| r.intersects(s)).count())
            .sum::<usize>()
    });
    line(
        &format!("{p}.centre_query.hits"),
        brute_hits as f64,
        "items",
    );
    line(&format!("{p}.centre_query.brute"), us(tb), "us");
    line(
        &format!("{p}.random_query.brute_mean"),
        us(tb_random) / 200.0,
        "us",
    );
    let mut counts = Vec::new();
    let mut out = Vec::with_capacity(1 << 16);
    for (label, config) in tree_configs() {
        let t = format!("{p}.{label}");
        let (build_time, (mut tree, _)) = median(5, || build(world, config, &rects));
        line(&format!("{t}.build_one_by_one"), ms(build_time), "ms");
        // The same one-by-one inserts into a cleared tree: memory already mapped, as in a
        // game that refills its tree.
        let (refill, _) = median(5, || {
            tree.clear();
            for (i, r) in rects.iter().enumerate() {
                tree.insert(*r, i as u32).unwrap();
            }
        });
        line(&format!("{t}.refill_after_clear"), ms(refill), "ms");
        let mut ids = Vec::with_capacity(rects.len());
        let (bulk, _) = median(5, || rebuild_bulk(&mut tree, &rects, &mut ids));
        line(&format!("{t}.rebuild_bulk"), ms(bulk), "ms");
        // The queries below run on the tree as the bulk build leaves it, straddlers sorted,
        // with no further call.
        rebuild_bulk(&mut tree, &rects, &mut ids);
        let (tq, hits) = median(21, || tree_queries(&tree, &[centre], &mut out));
        assert_eq!(
            hits as usize, brute_hits,
            "{t}: centre query disagrees with brute force"
        );
        line(&format!("{t}.centre_query"), us(tq), "us");
        let (tq, hits) = median(21, || tree_visits(&tree, &[centre]));
        assert_eq!(hits as usize, brute_hits, "{t}: centre visit disagrees");
        line(&format!("{t}.centre_query_visit"), us(tq), "us");
        let check = tree_queries(&tree, &queries[..200], &mut out);
        assert_eq!(
            check as usize, brute_random,
            "{t}: random queries disagree with brute force"
        );
        let (tq, hits) = median(3, || tree_queries(&tree, &queries, &mut out));
        line(&format!("{t}.random_queries_10k"), ms(tq), "ms");
        let (tv, visits) = median(3, || tree_visits(&tree, &queries));
        assert_eq!(visits, hits, "{t}: visits and query_in_rect disagree");
        line(&format!("{t}.random_queries_10k_visit"), ms(tv), "ms");
        counts.push((label, hits));
        let s = tree.stats();
        line(
            &format!("{t}.items_at_root"),
            s.items_at_root as f64,
            "items",
        );
        line(&format!("{t}.nodes"), s.nodes as f64, "nodes");
    }
    // Cells as wide as a box (a hair over): the grid's best for these queries.
    let mut grid = UniformGrid::new(UniformGrid::cells_for(32.0)[0]);
    let (tg, _) = median(5, || assert!(grid.build(&rects)));
    line(&format!("{p}.grid.build"), ms(tg), "ms");
    let (tq, hits) = median(3, || grid_queries(&grid, &queries));
    line(&format!("{p}.grid.random_queries_10k"), ms(tq), "ms");
    counts.push(("grid", hits));
    drop(grid);
    let (tr, tree) = median(3, || rtree(&rects));
    line(&format!("{p}.rstar.build_bulk"), ms(tr), "ms");
    let (tq, hits) = median(3, || rtree_queries(&tree, &queries));
    line(&format!("{p}.rstar.random_queries_10k"), ms(tq), "ms");
    counts.push(("rstar", hits));
    drop(tree);
    #[cfg(feature = "peers")]
    {
        let index = peers::static_index(&rects);
        let (t, _) = median(5, || peers::static_index(&rects));
        line(&format!("{p}.static_aabb2d_index.build_bulk"), ms(t), "ms");
        let (t, c) = median(21, || peers::static_index_queries(&index, &[centre]));
        assert_eq!(c as usize, brute_hits, "static_aabb2d_index centre query");
        line(
            &format!("{p}.static_aabb2d_index.centre_query"),
            us(t),
            "us",
        );
        let (t, hits) = median(3, || peers::static_index_queries(&index, &queries));
        line(
            &format!("{p}.static_aabb2d_index.random_queries_10k"),
            ms(t),
            "ms",
        );
        counts.push(("static_aabb2d_index", hits));
        drop(index);
        let mut boxes = Vec::new();
        let (t, _) = median(5, || peers::broccoli_build(&rects, &mut boxes));
        line(&format!("{p}.broccoli.build_bulk"), ms(t), "ms");
        let (t, _) = median(5, || peers::ParryBvh::bulk(&rects).leaf_count());
        line(&format!("{p}.parry2d.build_bulk"), ms(t), "ms");
        let bvh = peers::ParryBvh::bulk(&rects);
        let (t, hits) = median(3, || bvh.queries(&queries));
        line(&format!("{p}.parry2d.random_queries_10k"), ms(t), "ms");
        counts.push(("parry2d", hits));
        drop(bvh);
        let (t, _) = median(1, || peers::ParryBvh::one_by_one(&rects).bvh.leaf_count());
        line(&format!("{p}.parry2d.build_one_by_one"), ms(t), "ms");
    }
    floor(p, &rects);
    line(
        &format!("{p}.random_queries_10k.hits"),
        counts[0].1 as f64,
        "items",
    );
    agree(&format!("{p}.random_queries_10k"), &counts)
}

/// A floor for any one-by-one build that keeps items in per-node lists: no tree at all, each
/// box appended with a handle and a payload (28 bytes, as the tree stores it) to the list of
/// its level-4 cell (256 lists, like the loose tree's leaves), plus a 12-byte slot record per
/// item, as the tree's handle table keeps. Into fresh memory and into lists already grown.
fn floor(p: &str, rects: &[Rect]) {
    // Written, never read back: only the stores are being timed.
    #[allow(dead_code)]
    struct Stored(Rect, [u32; 2], u32);
    #[allow(dead_code)]
    struct Slot([u32; 3]);
    let fill = |lists: &mut Vec<Vec<Stored>>, slots: &mut Vec<Slot>| {
        for (i, r) in rects.iter().enumerate() {
            let cx = ((r.min_x + r.max_x) * (8.0 / 800.0)) as usize;
            let cy = ((r.min_y + r.max_y) * (8.0 / 600.0)) as usize;
            let list = &mut lists[(cy.min(15) << 4) | cx.min(15)];
            slots.push(Slot([0, 0, list.len() as u32]));
            list.push(Stored(*r, [i as u32, 0], i as u32));
        }
    };
    let (fresh, (mut lists, mut slots)) = median(5, || {
        let mut lists: Vec<Vec<Stored>> = (0..256).map(|_| Vec::new()).collect();
        let mut slots = Vec::new();
        fill(&mut lists, &mut slots);
        (lists, slots)
    });
    let (refill, _) = median(5, || {
        lists.iter_mut().for_each(Vec::clear);
        slots.clear();
        fill(&mut lists, &mut slots);
        std::hint::black_box((&lists, &slots));
    });
    line(&format!("{p}.floor.store_only_new_lists"), ms(fresh), "ms");
    line(
        &format!("{p}.floor.store_only_grown_lists"),
        ms(refill),
        "ms",
    );
    // The first touch of as many bytes as those lists and slots hold: one write per 4 KiB
    // page of a zeroed allocation, which the kernel maps only on that first write. No
    // structure that keeps every item in memory it has not written before can build faster
    // than this on the same machine.
    let bytes = rects.len() * (std::mem::size_of::<Stored>() + std::mem::size_of::<Slot>());
    let (touch, _) = median(5, || {
        let mut block = vec![0u8; bytes];
        for page in block.chunks_mut(4096) {
            page[0] = 1;
        }
        block
            .iter()
            .step_by(4096)
            .map(|&b| b as usize)
            .sum::<usize>()
    });
    line(
        &format!("{p}.floor.first_touch_of_the_same_bytes"),
        ms(touch),
        "ms",
    );
}

/// 10,000 inserts of 8x8 particles into an empty 800x600 tree.
fn insert_10k_8x8() {
    let (world, big) = workloads::boxes_32x32_800x600(10_000, 10);
    let rects: Vec<Rect> = big
        .iter()
        .map(|r| Rect::from_min_size(r.min_x, r.min_y, 8.0, 8.0))
        .collect();
    let (t, _) = median(51, || build(world, Config::default(), &rects));
    line("insert_10k_8x8", ms(t), "ms");
    line(
        "insert_10k_8x8.per_insert",
        t.as_secs_f64() * 1e9 / 1e4,
        "ns",
    );
}

/// All pairs among `n` boxes of side 2 at constant density.
fn pairs(n: usize) -> bool {
    let (world, rects) = workloads::constant_density(n, n as u64);
    let reps = if n >= 1_000_000 {
        3
    } else if n >= 100_000 {
        7
    } else {
        21
    };
    let p = format!("pairs.{n}");
    let mut counts: Vec<(String, u64)> = Vec::new();
    let mut default_search = None;
    let mut trees = Vec::new();
    for (label, config) in tree_configs() {
        let (tb, (mut tree, _)) = median(reps, || build(world, config, &rects));
        // The search on the tree that one-by-one inserts grew: its lists lie wherever the
        // heap put them, so this figure varies more between runs.
        let (tp_grown, c_grown) = median(reps, || tree_pairs(&tree));
        // A warm rebuild, as a per-frame broad phase does it: clear, then bulk insert.
        let mut ids = Vec::with_capacity(n);
        let (tr, _) = median(reps, || rebuild_bulk(&mut tree, &rects, &mut ids));
        // The rebuilt tree's search alone (the rebuild and search together, from scratch,
        // are timed in rounds with the others below).
        let (tp, c) = median(reps, || tree_pairs(&tree));
        if label == "tree" {
            default_search = Some(tp);
            // The parallel search on fixed chunks of nodes, on one and on two threads,
            // collecting the pairs' payloads as a simulation would.
            let mut ws = PairWorkspace::new();
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a thread pool");
                // The rebuild on the same threads (`par_insert_many`): the same tree.
                let (tpr, _) = median(reps, || {
                    tree.clear();
                    ids.clear();
                    pool.install(|| tree.par_insert_many(n, |i| rects[i], |i| i as u32, &mut ids))
                        .unwrap()
                });
                let (t, c) = median(reps, || {
                    ws.clear();
                    pool.install(|| tree.par_pairs(&mut ws, |a, b| Some((*a.value, *b.value))))
                        as u64
                });
                line(
                    &format!("{p}.{label}.par_rebuild_{threads}t"),
                    ms(tpr),
                    "ms",
                );
                line(&format!("{p}.{label}.par_pairs_{threads}t"), ms(t), "ms");
                line(
                    &format!("{p}.{label}.rebuild_and_par_pairs_{threads}t"),
                    ms(tpr + t),
                    "ms",
                );
                counts.push((format!("par_pairs_{threads}t"), c));
            }
        }
        line(&format!("{p}.{label}.build_one_by_one"), ms(tb), "ms");
        line(&format!("{p}.{label}.rebuild_bulk"), ms(tr), "ms");
        line(&format!("{p}.{label}.pairs"), ms(tp), "ms");
        line(
            &format!("{p}.{label}.pairs_on_grown_tree"),
            ms(tp_grown),
            "ms",
        );
        let ((), work) = tree.for_each_pair_counting(|_, _| {});
        line(
            &format!("{p}.{label}.pair_tests"),
            work.tests as f64,
            "tests",
        );
        counts.push((label.into(), c));
        counts.push((format!("{label}.grown"), c_grown));
        trees.push((label, tree, ids));
    }
    // From scratch, the tree's rebuild and search beside the others' builds and searches,
    // timed in rounds (see `Rounds`).
    let rects = &rects[..];
    let mut rounds = Rounds::new();
    for (label, tree, ids) in &mut trees {
        rounds.add(format!("{label}.rebuild_and_pairs"), || {
            rebuild_bulk(tree, rects, ids);
            tree_pairs(tree)
        });
    }
    let mut sap = SortAndSweep::default();
    rounds.add("sort_and_sweep", move || sap_pairs(&mut sap, rects));
    for cell in UniformGrid::cells_for(2.0) {
        let mut grid = UniformGrid::new(cell);
        rounds.add(format!("grid_cell_{cell:.2}"), move || {
            grid_pairs(&mut grid, rects).unwrap()
        });
    }
    rounds.add("rstar_build_and_pairs", || {
        rtree_pairs(&rtree(rects), rects)
    });
    #[cfg(feature = "peers")]
    {
        let mut boxes = Vec::new();
        rounds.add("broccoli_build_and_pairs", move || {
            peers::broccoli_pairs(rects, &mut boxes)
        });
        rounds.add("parry2d_build_and_pairs", || {
            peers::ParryBvh::bulk(rects).pairs()
        });
    }
    counts.extend(report(&p, &rounds.run(reps)));
    if n <= 100_000 {
        let (tbf, c) = median(if n <= 10_000 { 5 } else { 1 }, || brute_pairs(rects));
        line(&format!("{p}.brute"), ms(tbf), "ms");
        if let Some(tp) = default_search {
            // The ratio from the durations themselves: at N = 1,000 the millisecond lines
            // above round the search to a microsecond.
            line(&format!("{p}.tree.pairs_us"), us(tp), "us");
            line(
                &format!("{p}.tree.pairs_speedup_vs_brute"),
                tbf.as_secs_f64() / tp.as_secs_f64(),
                "x",
            );
        }
        counts.push(("brute".into(), c));
    }
    line(&format!("{p}.count"), counts[0].1 as f64, "pairs");
    agree(&p, &counts)
}

/// 100,000 random 10x10 queries among 100,000 boxes of side 2 at constant density; the
/// structures are built before the clock starts.
fn queries_10x10() -> bool {
    let p = "queries_10x10";
    let n = 100_000;
    let (world, rects) = workloads::constant_density(n, 10);
    // Query edges fall halfway between the boxes' 0.25 grid, so no box merely touches a query:
    // broccoli's rectangle query leaves such boxes out, and every method must answer the same.
    let queries: Vec<Rect> = workloads::queries(&world, 100_000, 10.0, 11)
        .iter()
        .map(|q| {
            let snap = |v: f32| (v * 4.0).floor() / 4.0 + 0.125;
            Rect::from_min_size(snap(q.min_x), snap(q.min_y), 10.0, 10.0)
        })
        .collect();
    let keyed: Vec<(u32, Rect)> = (0..).zip(rects.iter().copied()).collect();
    let want: u64 = queries[..100]
        .iter()
        .map(|q| quadstress::oracle::query_in_rect(&keyed, q).len() as u64)
        .sum();
    let mut out = Vec::with_capacity(256);
    let trees: Vec<_> = tree_configs()
        .into_iter()
        .map(|(label, config)| {
            let (tree, _) = build(world, config, &rects);
            assert_eq!(
                tree_queries(&tree, &queries[..100], &mut out),
                want,
                "{label}"
            );
            (label, tree)
        })
        .collect();
    let grids: Vec<UniformGrid> = UniformGrid::cells_for(2.0)
        .into_iter()
        .map(|cell| {
            let mut grid = UniformGrid::new(cell);
            assert!(grid.build(&rects));
            grid
        })
        .collect();
    let rtree = rtree(&rects);
    #[cfg(feature = "peers")]
    let bvh = peers::ParryBvh::bulk(&rects);
    // Every structure is built; the queries of each are timed in rounds (see `Rounds`).
    let queries = &queries[..];
    let mut rounds = Rounds::new();
    for (label, tree) in &trees {
        let mut out = Vec::with_capacity(256);
        rounds.add(*label, move || tree_queries(tree, queries, &mut out));
        rounds.add(format!("{label}_visit"), || tree_visits(tree, queries));
    }
    for grid in &grids {
        let name = format!("grid_cell_{:.2}", grid.cell());
        rounds.add(name, || grid_queries(grid, queries));
    }
    rounds.add("rstar", || rtree_queries(&rtree, queries));
    #[cfg(feature = "peers")]
    {
        let rects = &rects[..];
        rounds.add("parry2d", || bvh.queries(queries));
        // broccoli builds its tree in the call that queries it: its build is timed apart
        // and taken off.
        let mut boxes = Vec::new();
        let mut boxes_built = Vec::new();
        rounds.add("broccoli_with_build", move || {
            peers::broccoli_queries(rects, queries, &mut boxes)
        });
        rounds.add("broccoli_build", move || {
            peers::broccoli_build(rects, &mut boxes_built);
            0
        });
    }
    let results = rounds.run(15);
    let (broccoli, timed): (Vec<_>, Vec<_>) = results
        .into_iter()
        .partition(|(name, _, _)| name.starts_with("broccoli"));
    let mut counts = report(p, &timed);
    for (label, _) in &trees {
        let of = |name: &str| counts.iter().find(|(n, _)| n == name).map(|c| c.1);
        assert_eq!(
            of(&format!("{label}_visit")),
            of(label),
            "{label}: visits and query_in_rect disagree"
        );
    }
    if let [(_, with_build, c), (_, build, _)] = &broccoli[..] {
        line(
            &format!("{p}.broccoli"),
            ms(with_build.saturating_sub(*build)),
            "ms",
        );
        counts.push(("broccoli".into(), *c));
    }
    line(&format!("{p}.hits"), counts[0].1 as f64, "items");
    agree(p, &counts)
}

/// How the moving rows move the tree's boxes.
#[derive(Clone, Copy)]
enum Moves {
    /// `update_many` of every handle.
    Batch,
    /// One `update` per handle.
    Each,
    /// `update_all`, each box found by its payload.
    All,
}

/// 100,000 boxes of side 2 moving up to 0.5 per axis per frame, each at its own constant
/// velocity (`moving`) or on a random walk with a fresh step each frame (`moving_walk`):
/// update all (the tree in one batch, and one by one), then all pairs.
fn moving(p: &str, motion: impl Fn() -> workloads::Motion) -> bool {
    let n = 100_000;
    let frames = 30;
    let (world, start) = workloads::constant_density(n, 77);
    // Each method's frame: given the boxes' new places, update (or rebuild) and find all
    // pairs, returning their count.
    type Frame<'a> = Box<dyn FnMut(&[Rect]) -> u64 + 'a>;
    let mut methods: Vec<(String, Frame)> = Vec::new();
    // The tree: built once, then moved in place. Every box moves each frame, so the tree
    // takes them as one batch on this thread (`update_many`), as a caller moving
    // everything would; also with one `update` per box, and with `update_all` (each box's
    // rectangle looked up by its payload, its index).
    let trees = tree_configs()
        .into_iter()
        .map(|(label, config)| (label, config, Moves::Batch))
        .chain([
            ("tree_update_each", Config::default(), Moves::Each),
            ("tree_update_all", Config::default(), Moves::All),
        ]);
    for (label, config, moves) in trees {
        let (mut tree, ids) = build(world, config, &start);
        let mut ws = UpdateWorkspace::new();
        let frame = move |rects: &[Rect]| {
            match moves {
                Moves::Batch => tree.update_many(&ids, |i| rects[i], &mut ws).unwrap(),
                Moves::Each => {
                    for (id, r) in ids.iter().zip(rects) {
                        tree.update(*id, *r).unwrap();
                    }
                }
                Moves::All => tree
                    .update_all(|item| rects[*item.value as usize], &mut ws)
                    .unwrap(),
            }
            tree_pairs(&tree)
        };
        methods.push((label.into(), Box::new(frame)));
    }
    // parry2d's BVH is updated in place and refitted, as its docs recommend.
    #[cfg(feature = "peers")]
    {
        let mut bvh = peers::ParryBvh::bulk(&start);
        let frame = move |rects: &[Rect]| {
            bvh.update_all(rects);
            bvh.pairs()
        };
        methods.push(("parry2d".into(), Box::new(frame)));
    }
    // The others rebuild from scratch every frame; the grid with each cell side worth trying.
    let mut sap = SortAndSweep::default();
    methods.push((
        "sort_and_sweep".into(),
        Box::new(move |rects: &[Rect]| sap_pairs(&mut sap, rects)),
    ));
    for cell in UniformGrid::cells_for(2.0) {
        let mut grid = UniformGrid::new(cell);
        methods.push((
            format!("grid_cell_{cell:.2}"),
            Box::new(move |rects: &[Rect]| grid_pairs(&mut grid, rects).unwrap()),
        ));
    }
    methods.push((
        "rstar".into(),
        Box::new(|rects: &[Rect]| rtree_pairs(&rtree(rects), rects)),
    ));
    #[cfg(feature = "peers")]
    {
        let mut boxes = Vec::new();
        methods.push((
            "broccoli".into(),
            Box::new(move |rects: &[Rect]| peers::broccoli_pairs(rects, &mut boxes)),
        ));
    }
    // In rounds (see `Rounds`): each round gives every method a block of frames in turn,
    // the first untimed (it finds the method before's data in the caches), and the rounds
    // start one method later each time. Each method moves its own copy of the boxes by the
    // same motion, so every method sees the same frames in the same order.
    const ROUNDS: usize = 3;
    let block = frames / ROUNDS;
    let m = methods.len();
    let mut times = vec![Vec::with_capacity(frames); m];
    let mut totals = vec![0u64; m];
    let mut boxes: Vec<(Vec<Rect>, workloads::Motion)> =
        (0..m).map(|_| (start.clone(), motion())).collect();
    for round in 0..ROUNDS {
        for k in 0..m {
            let i = (round + k) % m;
            let (rects, motion) = &mut boxes[i];
            for f in 0..block {
                motion.advance(&world, rects);
                let t = Instant::now();
                totals[i] += (methods[i].1)(rects);
                if f > 0 {
                    times[i].push(t.elapsed());
                }
            }
        }
    }
    let mut medians = Vec::with_capacity(m);
    for ((label, _), times) in methods.iter().zip(&mut times) {
        times.sort();
        let t = times[times.len() / 2];
        line(&format!("{p}.{label}.frame"), ms(t), "ms");
        medians.push((label.as_str(), t));
    }
    print_fastest_grid(p, ".frame", medians);
    let counts: Vec<(&str, u64)> = methods
        .iter()
        .zip(&totals)
        .map(|((l, _), c)| (l.as_str(), *c))
        .collect();
    line(
        &format!("{p}.pairs_over_all_frames"),
        counts[0].1 as f64,
        "pairs",
    );
    agree(p, &counts)
}

/// 100,000 boxes of sides 1 to 64 in a few clusters: all pairs from scratch.
fn clustered() -> bool {
    let n = 100_000;
    let (world, rects) = workloads::clustered(n, 5);
    let reps = 5;
    let mut counts: Vec<(String, u64)> = Vec::new();
    for (label, config) in tree_configs() {
        let (t, c) = median(reps, || {
            let (tree, _) = build(world, config, &rects);
            tree_pairs(&tree)
        });
        line(&format!("clustered.{label}.build_and_pairs"), ms(t), "ms");
        counts.push((label.into(), c));
    }
    let mut sap = SortAndSweep::default();
    let (t, c) = median(reps, || sap_pairs(&mut sap, &rects));
    line("clustered.sort_and_sweep", ms(t), "ms");
    counts.push(("sort_and_sweep".into(), c));
    // The grid's cell must hold the largest box: 64.
    let grids: Vec<_> = UniformGrid::cells_for(64.0)
        .into_iter()
        .map(|cell| {
            let mut grid = UniformGrid::new(cell);
            let (t, c) = median(reps, || grid_pairs(&mut grid, &rects).unwrap());
            (format!("grid_cell_{cell:.2}"), t, c)
        })
        .collect();
    counts.extend(report("clustered", &grids));
    let (t, c) = median(3, || rtree_pairs(&rtree(&rects), &rects));
    line("clustered.rstar_build_and_pairs", ms(t), "ms");
    counts.push(("rstar".into(), c));
    #[cfg(feature = "peers")]
    {
        let mut boxes = Vec::new();
        let (t, c) = median(reps, || peers::broccoli_pairs(&rects, &mut boxes));
        line("clustered.broccoli_build_and_pairs", ms(t), "ms");
        counts.push(("broccoli".into(), c));
        let (t, c) = median(reps, || peers::ParryBvh::bulk(&rects).pairs());
        line("clustered.parry2d_build_and_pairs", ms(t), "ms");
        counts.push(("parry2d".into(), c));
    }
    line("clustered.count", counts[0].1 as f64, "pairs");
    agree("clustered", &counts)
}

/// The particle simulation at 10,000 particles (10% coverage, no gravity), whole steps with
/// each broad phase on one thread, in this one process; then a settled pile under gravity
/// (20,000 particles, coverage 0.5) on 1 and 2 threads, which give the same particles.
fn sim_modes() {
    use quadstress_sim::{Broadphase, SimConfig, Simulation};
    let n = 10_000;
    let mut medians = Vec::new();
    for mode in Broadphase::ALL {
        let mut config = SimConfig::with_coverage(n, 0.1);
        config.gravity_on = false;
        config.broadphase = mode;
        config.tree = Config::default();
        let mut sim = Simulation::new(config).unwrap();
        sim.set_threads(1).unwrap();
        sim.spawn_burst(n).unwrap();
        let frames = if mode == Broadphase::BruteForce {
            15
        } else {
            200
        };
        let (t, _) = median(frames, || sim.step(1.0 / 60.0).unwrap());
        let name = match mode {
            Broadphase::Incremental => "incremental",
            Broadphase::Rebuild => "rebuild",
            Broadphase::BruteForce => "brute",
        };
        line(&format!("sim.10000.{name}.step"), ms(t), "ms");
        medians.push(t);
    }
    line(
        "sim.10000.incremental_speedup_vs_brute",
        medians[2].as_secs_f64() / medians[0].as_secs_f64(),
        "x",
    );
    let n = 20_000;
    let mut piled = Vec::new();
    for threads in [1, 2] {
        let mut config = SimConfig::with_coverage(n, 0.5);
        config.tree = Config::default();
        let mut sim = Simulation::new(config).unwrap();
        sim.set_threads(threads).unwrap();
        sim.spawn_burst(n).unwrap();
        for _ in 0..600 {
            sim.step(1.0 / 60.0).unwrap();
        }
        let (t, _) = median(120, || sim.step(1.0 / 60.0).unwrap());
        line(&format!("sim.20000.piled.step_{threads}t"), ms(t), "ms");
        piled.push((t, sim.state_hash()));
    }
    assert_eq!(
        piled[0].1, piled[1].1,
        "1 and 2 threads gave different particles"
    );
    line(
        "sim.20000.piled.speedup_2t",
        piled[0].0.as_secs_f64() / piled[1].0.as_secs_f64(),
        "x",
    );
}

/// Frames of the pile workloads: `PILE_FRAMES` (default 900, 15 s), and for rapier2d
/// `PILE_RAPIER_FRAMES` (default the same; fewer at 100,000, where a frame takes about a second).
fn pile_frames(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What the table prints about a pile after its frames: the step time per frame and the
/// quality figures the headless mode prints, measured by the same code.
struct PileRow {
    frames: usize,
    step_mean_ms: f64,
    step_median_ms: f64,
    /// The same over the falling phase alone (the first [`FALLING_FRAMES`]): a run that ends
    /// asleep hides the moving part in its median.
    falling_mean_ms: f64,
    falling_median_ms: f64,
    overlap: quadstress_sim::Overlap,
    steps: quadstress_sim::ColumnSteps,
    packing: f64,
    energy: f64,
}

impl PileRow {
    fn print(&self, prefix: &str) {
        line(&format!("{prefix}.frames"), self.frames as f64, "frames");
        line(&format!("{prefix}.step_mean"), self.step_mean_ms, "ms");
        line(&format!("{prefix}.step_median"), self.step_median_ms, "ms");
        line(
            &format!("{prefix}.falling.step_mean"),
            self.falling_mean_ms,
            "ms",
        );
        line(
            &format!("{prefix}.falling.step_median"),
            self.falling_median_ms,
            "ms",
        );
        println!("{prefix}.overlap_max: {:.4} fraction", self.overlap.max);
        println!("{prefix}.overlap_mean: {:.4} fraction", self.overlap.mean);
        println!("{prefix}.column_step_p99: {:.2} sides", self.steps.p99);
        println!("{prefix}.column_step_max: {:.2} sides", self.steps.max);
        println!("{prefix}.packing: {:.3} fraction", self.packing);
        println!(
            "{prefix}.kinetic_energy_per_particle: {:.3} units2/s2",
            self.energy
        );
    }
}

/// Frames of a pile's falling and landing phase (five seconds): the phase a user watches.
const FALLING_FRAMES: usize = 300;

/// Runs `frames` steps of `step`, timing each, with the kinetic energy per particle averaged
/// over the last simulated second as the headless mode does; then measures the pile.
fn run_pile(
    config: &quadstress_sim::SimConfig,
    frames: usize,
    mut step: impl FnMut(),
    mut read: impl FnMut(&mut Vec<quadstress_sim::Particle>),
) -> PileRow {
    use quadstress_sim::{overlap_of, pile_packing, HeightProfile, STEP_SECONDS};
    let last_second = (1.0 / f64::from(STEP_SECONDS)).ceil() as usize;
    let mut seconds = Vec::with_capacity(frames);
    let mut particles = Vec::new();
    let (mut energy, mut energy_frames) = (0.0, 0usize);
    for frame in 0..frames {
        let t = Instant::now();
        step();
        seconds.push(t.elapsed().as_secs_f64());
        if frames - frame <= last_second {
            read(&mut particles);
            let ke: f64 = particles
                .iter()
                .map(|p| 0.5 * (f64::from(p.vx).powi(2) + f64::from(p.vy).powi(2)))
                .sum();
            energy += ke / particles.len().max(1) as f64;
            energy_frames += 1;
        }
    }
    read(&mut particles);
    let (s, w) = (config.particle_size, config.world);
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len().max(1) as f64;
    let mut falling = seconds[..frames.min(FALLING_FRAMES)].to_vec();
    PileRow {
        frames,
        step_mean_ms: mean(&seconds) * 1e3,
        falling_mean_ms: mean(&falling) * 1e3,
        falling_median_ms: quadstress_sim::percentile(&mut falling, 0.5).unwrap_or(0.0) * 1e3,
        step_median_ms: quadstress_sim::percentile(&mut seconds, 0.5).unwrap_or(0.0) * 1e3,
        overlap: overlap_of(&particles, s, w, config.tree),
        steps: HeightProfile::new()
            .measure(&particles, w, s)
            .unwrap_or_default(),
        packing: pile_packing(&particles, w, s),
        energy: energy / energy_frames.max(1) as f64,
    }
}

/// The standard pile of issue 35: `n` particles covering half a square world under gravity,
/// seed 1, stepped 1/60 s at a time; the simulation on one thread, and (feature `peers`)
/// rapier2d on the same scene from the same spawn, on one thread.
fn pile(n: usize) {
    use quadstress_sim::{SimConfig, Simulation, STEP_SECONDS};
    let mut config = SimConfig::with_coverage(n, 0.5);
    config.seed = 1;
    config.gravity_on = true;
    config.tree = Config::default();
    let mut sim = Simulation::new(config).unwrap();
    sim.set_threads(1).unwrap();
    sim.spawn_burst(n).unwrap();
    #[cfg(feature = "peers")]
    let spawn = sim.particles().to_vec();
    let frames = pile_frames("PILE_FRAMES", 900);
    let sim = std::cell::RefCell::new(sim);
    let ours = run_pile(
        &config,
        frames,
        || sim.borrow_mut().step(STEP_SECONDS).unwrap(),
        |out| {
            out.clear();
            out.extend_from_slice(sim.borrow().particles());
        },
    );
    ours.print(&format!("pile.{n}.quadstress_1t"));
    #[cfg(feature = "peers")]
    {
        use quadstress_benches::pile_peer::RapierPile;
        let rapier = std::cell::RefCell::new(RapierPile::new(&config, &spawn));
        let frames = pile_frames("PILE_RAPIER_FRAMES", frames);
        let theirs = run_pile(
            &config,
            frames,
            || rapier.borrow_mut().step(),
            |out| rapier.borrow().particles(out),
        );
        theirs.print(&format!("pile.{n}.rapier2d"));
        line(
            &format!("pile.{n}.rapier2d.sleeping"),
            rapier.borrow().sleeping() as f64,
            "bodies",
        );
        line(
            &format!("pile.{n}.rapier2d_vs_quadstress.step_mean"),
            theirs.step_mean_ms / ours.step_mean_ms,
            "x",
        );
        line(
            &format!("pile.{n}.rapier2d_vs_quadstress.falling.step_mean"),
            theirs.falling_mean_ms / ours.falling_mean_ms,
            "x",
        );
    }
}
