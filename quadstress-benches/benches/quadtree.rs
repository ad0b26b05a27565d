//! Criterion benchmarks: the quadtree beside its baselines on the same data.
//! `cargo bench -p quadstress-benches --bench quadtree` runs them; `cargo bench -p quadstress-benches --bench table` prints the project's table.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use quadstress::{Config, Placement, Quadtree, Rect};
use quadstress_benches::baselines::{SortAndSweep, UniformGrid};
use quadstress_benches::workloads;

fn build(world: Rect, rects: &[Rect]) -> Quadtree<u32> {
    build_with(world, Config::default(), rects)
}

fn build_with(world: Rect, config: Config, rects: &[Rect]) -> Quadtree<u32> {
    let mut tree = Quadtree::with_config(world, config).unwrap();
    for (i, r) in rects.iter().enumerate() {
        tree.insert(*r, i as u32).unwrap();
    }
    tree
}

fn insert(c: &mut Criterion) {
    let (world, big) = workloads::boxes_32x32_800x600(10_000, 10);
    let rects: Vec<Rect> = big
        .iter()
        .map(|r| Rect::from_min_size(r.min_x, r.min_y, 8.0, 8.0))
        .collect();
    c.bench_function("insert10k", |b| b.iter(|| build(world, black_box(&rects))));
}

fn pairs(c: &mut Criterion) {
    let mut group = c.benchmark_group("pairs");
    group.sample_size(20);
    for n in [1_000usize, 10_000, 100_000] {
        let (world, rects) = workloads::constant_density(n, n as u64);
        let tree = build(world, &rects);
        group.bench_with_input(BenchmarkId::new("tree_search", n), &n, |b, _| {
            b.iter(|| {
                let mut k = 0u32;
                tree.for_each_pair(|_, _| {
                    k += 1;
                });
                k
            })
        });
        let mut rebuilt = Quadtree::with_config(world, Config::default()).unwrap();
        let mut ids = Vec::new();
        group.bench_with_input(
            BenchmarkId::new("tree_rebuild_and_search", n),
            &n,
            |b, _| {
                b.iter(|| {
                    rebuilt.clear();
                    ids.clear();
                    rebuilt
                        .insert_many(rects.iter().map(|r| (*r, 0u32)), &mut ids)
                        .unwrap();
                    let mut k = 0u32;
                    rebuilt.for_each_pair(|_, _| {
                        k += 1;
                    });
                    k
                })
            },
        );
        let mut grid = UniformGrid::new(4.0);
        group.bench_with_input(BenchmarkId::new("grid", n), &n, |b, _| {
            b.iter(|| {
                let mut k = 0u32;
                grid.pairs(&rects, |_, _| k += 1);
                k
            })
        });
        let mut sap = SortAndSweep::default();
        group.bench_with_input(BenchmarkId::new("sort_and_sweep", n), &n, |b, _| {
            b.iter(|| {
                let mut k = 0u32;
                sap.pairs(&rects, |_, _| k += 1);
                k
            })
        });
    }
    group.finish();
}

fn query(c: &mut Criterion) {
    let (world, rects) = workloads::boxes_32x32_800x600(100_000, 4);
    let q = Rect::from_min_size(200.0, 150.0, 32.0, 32.0);
    let mut out = Vec::with_capacity(4096);
    for (name, placement) in [
        ("query_rect_32x32_in_100k", Placement::Exact),
        ("query_rect_32x32_in_100k_loose", Placement::Loose),
    ] {
        let config = Config {
            placement,
            ..Config::default()
        };
        let tree = build_with(world, config, &rects);
        c.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                tree.query_in_rect(black_box(&q), &mut out).unwrap()
            })
        });
    }
    c.bench_function("brute_rect_32x32_in_100k", |b| {
        b.iter(|| rects.iter().filter(|r| r.intersects(black_box(&q))).count())
    });
}

criterion_group!(benches, insert, pairs, query);
criterion_main!(benches);
