//! Steady state allocates nothing, and no step allocates by the world's size: a counting
//! global allocator watches.

use quadstress::Rect;
use quadstress_sim::{Broadphase, SimConfig, Simulation};
use quadstress_testkit::alloc::{self, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn steady_state_steps_allocate_nothing() {
    // One test function, so no other test thread allocates while we count.
    for mode in Broadphase::ALL {
        let mut sim = Simulation::new(SimConfig {
            world: Rect::new(0.0, 0.0, 600.0, 400.0),
            gravity_on: false,
            restitution: 1.0,
            broadphase: mode,
            seed: 9,
            ..SimConfig::default()
        })
        .unwrap();
        // One thread: every phase runs on the caller's thread, the tree's batch update in its
        // serial form, so no job passes rayon's queue (which takes a new block every 63).
        sim.set_threads(1).unwrap();
        sim.spawn_burst(1500).unwrap();
        // Warm-up: buffers and the node arena grow to their high-water size (brute force is
        // slow and has only the contact list to grow). The gas's contact count finds new
        // highs for a long while: after 3,000 steps one still grew the contact buffers.
        let warm_up = if mode == Broadphase::BruteForce {
            600
        } else {
            6000
        };
        for _ in 0..warm_up {
            sim.step(1.0 / 60.0).unwrap();
        }
        let before = alloc::allocations();
        let mut contacts = 0;
        for _ in 0..200 {
            sim.step(1.0 / 60.0).unwrap();
            contacts += sim.counts().contacts;
        }
        let allocated = alloc::allocations() - before;
        assert!(contacts > 0);
        // Brute force's shorter warm-up may leave its contact list a doubling or two short
        // of the most contacts the gas ever makes; the tree modes allocate nothing at all.
        let growth = if mode == Broadphase::BruteForce { 2 } else { 0 };
        assert!(
            allocated <= growth,
            "{mode:?}: {allocated} allocations in 200 steady-state steps"
        );
    }
    // A pile at rest under gravity (every particle asleep): the broad phase's bookkeeping
    // of sleep (the flags, the boxes to refresh, the awake particles' search) reuses its
    // buffers.
    let mut sim = Simulation::new(SimConfig {
        world: Rect::new(0.0, 0.0, 600.0, 400.0),
        seed: 9,
        ..SimConfig::default()
    })
    .unwrap();
    sim.set_threads(1).unwrap();
    sim.spawn_burst(1500).unwrap();
    for _ in 0..1200 {
        sim.step(1.0 / 60.0).unwrap();
    }
    let before = alloc::allocations();
    let mut asleep = usize::MAX;
    for _ in 0..200 {
        sim.step(1.0 / 60.0).unwrap();
        asleep = asleep.min(sim.asleep().iter().filter(|&&a| a).count());
    }
    let allocated = alloc::allocations() - before;
    assert!(asleep * 4 >= 3 * sim.len(), "only {asleep} asleep");
    assert_eq!(
        allocated, 0,
        "{allocated} allocations in 200 steps of a sleeping pile"
    );
    // A world ten million particles tall: the first steps, buffers growing included,
    // allocate by the particles and their contacts, not by the world's height.
    let mut sim = Simulation::new(SimConfig {
        world: Rect::new(0.0, 0.0, 100.0, 1e7),
        particle_size: 1.0,
        seed: 9,
        ..SimConfig::default()
    })
    .unwrap();
    sim.set_threads(1).unwrap();
    sim.spawn_burst(100).unwrap();
    sim.spawn_stream(50.0, 1e7, 300, 20.0, 0.0).unwrap();
    let before = alloc::bytes();
    let mut contacts = 0;
    for _ in 0..20 {
        sim.step(1.0 / 60.0).unwrap();
        contacts += sim.counts().contacts;
    }
    let bytes = alloc::bytes() - before;
    assert!(contacts > 0);
    assert!(
        bytes < 1 << 20,
        "{bytes} bytes allocated by 20 steps of 400 particles"
    );
}
