//! The simulation under hostile configurations and inputs: whatever it accepts, no call
//! panics, every particle stays inside the walls with finite velocity, the tree stays valid
//! and holds every particle, `touching` agrees with a scan of the particles, and no particle
//! a step reports asleep moved in it or carries a velocity (gravity flipped on and off, new
//! particles landing on sleepers).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use quadstress::{Config, Placement, Rect};
use quadstress_fuzz::{Num, WorldSpec, R};
use quadstress_sim::{Broadphase, Percentiles, SimConfig, SimError, Simulation};

#[derive(Arbitrary, Debug)]
enum Op {
    Burst(u8),
    BurstAll,
    Stream(Num, Num, u8, Num, Num),
    Step(Num),
    StepFrame,
    Broadphase(u8),
    Gravity(bool),
    Touching(R),
    TreeConfig(u8, u8, bool),
    Clear,
    /// Hostile durations into the reports' bounded percentile record.
    Times(Vec<Num>, u16, u8),
}

#[derive(Arbitrary, Debug)]
struct Input {
    world: WorldSpec,
    size: Num,
    cap: u16,
    huge_cap: u8,
    gravity: Num,
    gravity_on: bool,
    restitution: Num,
    capacity: u8,
    depth: u8,
    broadphase: u8,
    iterations: u8,
    threads: u8,
    seed: u64,
    ops: Vec<Op>,
}

fn mode(i: u8) -> Broadphase {
    Broadphase::ALL[i as usize % Broadphase::ALL.len()]
}

fn check(sim: &Simulation) {
    let c = sim.config();
    if let Some(threads) = c.threads {
        assert_eq!(sim.threads(), threads);
    }
    let w = c.world;
    let s = c.particle_size;
    for (i, p) in sim.particles().iter().enumerate() {
        assert!(
            w.contains_rect(&p.rect(s)),
            "particle {i} {p:?} outside {w:?}"
        );
        assert!(p.vx.is_finite() && p.vy.is_finite(), "particle {i} {p:?}");
    }
    assert_eq!(sim.tree().len(), sim.len());
    if let Err(e) = sim.tree().validate() {
        panic!("invariant broken: {}", e.message());
    }
    assert!(sim.kinetic_energy().is_finite());
}

/// Where every particle was before a step, by exact position: a step may renumber them.
fn places(sim: &Simulation) -> std::collections::HashSet<(u32, u32)> {
    sim.particles()
        .iter()
        .map(|p| (p.x.to_bits(), p.y.to_bits()))
        .collect()
}

/// Every particle the last step reports asleep is still and stayed where it was.
fn check_sleepers(sim: &Simulation, before: &std::collections::HashSet<(u32, u32)>) {
    for (p, _) in sim.particles().iter().zip(sim.asleep()).filter(|(_, &a)| a) {
        assert_eq!((p.vx, p.vy), (0.0, 0.0), "a sleeper with a velocity: {p:?}");
        assert!(
            before.contains(&(p.x.to_bits(), p.y.to_bits())),
            "a sleeper moved: {p:?}"
        );
    }
}

fuzz_target!(|input: Input| {
    let world = input.world.get();
    let unit = Rect::new(0.0, 0.0, 1.0, 1.0);
    let max_particles = match input.huge_cap % 8 {
        0 => usize::MAX,
        1 => 1 << 40,
        2 => u32::MAX as usize,
        _ => input.cap as usize % 600,
    };
    let config = SimConfig {
        world,
        particle_size: input.size.get(&world, false),
        max_particles,
        gravity: input.gravity.get(&unit, false),
        gravity_on: input.gravity_on,
        restitution: input.restitution.get(&unit, false),
        tree: Config {
            leaf_capacity: input.capacity as usize % 40,
            max_depth: input.depth % 12,
            placement: if input.capacity & 0x80 != 0 {
                Placement::Loose
            } else {
                Placement::Exact
            },
        },
        seed: input.seed,
        broadphase: mode(input.broadphase),
        solver_iterations: input.iterations as u32 % 6,
        // Every kind of count: none (every core), the two refused extremes, 1 to 5.
        threads: match input.threads % 8 {
            0 => None,
            1 => Some(0),
            2 => Some(usize::MAX),
            k => Some(usize::from(k) - 2),
        },
    };
    let Ok(mut sim) = Simulation::new(config) else {
        return;
    };
    check(&sim);
    let mut steps = 0;
    for op in input.ops.into_iter().take(64) {
        match op {
            Op::Burst(n) => {
                let before = sim.len();
                match sim.spawn_burst(n as usize) {
                    Ok(k) => assert_eq!(k, n as usize),
                    Err(SimError::CapReached { spawned, .. }) => {
                        assert_eq!(sim.len(), before + spawned)
                    }
                    Err(e) => panic!("spawn_burst: {e}"),
                }
            }
            Op::BurstAll => {
                // Only where the cap leaves little room: otherwise this spawns billions.
                if sim.config().max_particles - sim.len() <= 600 {
                    let r = sim.spawn_burst(usize::MAX);
                    assert!(matches!(r, Err(SimError::CapReached { .. })), "{r:?}");
                    assert_eq!(sim.len(), sim.config().max_particles);
                }
            }
            Op::Stream(x, y, n, spread, speed) => {
                let (x, y) = (x.get(&world, false), y.get(&world, true));
                let (spread, speed) = (spread.get(&world, false), speed.get(&world, false));
                let r = sim.spawn_stream(x, y, n as usize, spread, speed);
                let finite = [x, y, spread, speed].iter().all(|v| v.is_finite());
                match r {
                    Ok(k) => assert!(finite && k == n as usize),
                    Err(SimError::NonFinite) => assert!(!finite),
                    Err(SimError::CapReached { .. }) => assert!(finite),
                    Err(e) => panic!("spawn_stream: {e}"),
                }
            }
            Op::Step(dt) => {
                if steps >= 40 {
                    continue;
                }
                steps += 1;
                let dt = dt.get(&unit, false);
                let before = sim.particles().to_vec();
                let places_before = places(&sim);
                match sim.step(dt) {
                    Ok(()) => {
                        assert!(dt.is_finite() && dt >= 0.0);
                        check_sleepers(&sim, &places_before);
                    }
                    Err(SimError::BadTimeStep(_)) => {
                        assert!(!(dt.is_finite() && dt >= 0.0));
                        assert_eq!(sim.particles(), &before[..]);
                    }
                    Err(e) => panic!("step: {e}"),
                }
            }
            Op::StepFrame => {
                if steps >= 40 {
                    continue;
                }
                steps += 1;
                let before = places(&sim);
                sim.step(1.0 / 60.0).unwrap();
                check_sleepers(&sim, &before);
            }
            Op::Broadphase(i) => sim.set_broadphase(mode(i)),
            Op::Gravity(on) => sim.set_gravity(on),
            Op::Touching(q) => {
                let q = q.get(&world);
                let mut out = Vec::new();
                match sim.touching(&q, &mut out) {
                    Ok(n) => {
                        assert_eq!(n, sim.touching_brute_force(&q));
                        out.sort_unstable();
                        let s = sim.config().particle_size;
                        let want: Vec<u32> = (0..sim.len() as u32)
                            .filter(|&i| sim.particles()[i as usize].rect(s).intersects(&q))
                            .collect();
                        assert_eq!(out, want);
                    }
                    Err(_) => assert!(q.check().is_err()),
                }
            }
            Op::TreeConfig(c, d, loose) => {
                let cfg = Config {
                    leaf_capacity: c as usize % 40,
                    max_depth: d % 12,
                    placement: if loose {
                        Placement::Loose
                    } else {
                        Placement::Exact
                    },
                };
                assert_eq!(sim.set_tree_config(cfg).is_ok(), cfg.check().is_ok());
            }
            Op::Clear => sim.clear(),
            Op::Times(values, repeat, p) => {
                let mut times = Percentiles::with_capacity(u64::MAX);
                let mut all = Vec::new();
                // Repeated past the exact limit now and then, so the histogram answers.
                let rounds = if repeat % 8 == 0 {
                    70_000 / values.len().max(1) + 1
                } else {
                    1
                };
                for _ in 0..rounds {
                    for v in &values {
                        let v = f64::from(v.get(&unit, false));
                        times.record(v);
                        all.push(if v > 0.0 { v.min(f64::MAX) } else { 0.0 });
                    }
                }
                assert_eq!(times.len(), all.len() as u64);
                let p = f64::from(p) / 255.0;
                match times.percentile(p) {
                    None => assert!(all.is_empty()),
                    Some(got) => {
                        all.sort_by(f64::total_cmp);
                        let rank = ((all.len() as f64 * p).ceil() as usize).clamp(1, all.len());
                        let want = all[rank - 1];
                        assert!(got >= all[0] && got <= all[all.len() - 1], "{got}");
                        if want >= 1e-9 && want <= 4e9 {
                            assert!((got - want).abs() <= want / 500.0, "{got} vs {want}");
                        }
                    }
                }
            }
        }
        check(&sim);
    }
});
