//! The particle simulation: walls, energy, broad-phase agreement, determinism, the cap.
#![cfg(feature = "sim")]

use quadstress::sim::{Broadphase, SimConfig, SimError, Simulation};
use quadstress::{Config, Rect};

fn small(seed: u64) -> SimConfig {
    SimConfig {
        world: Rect::new(0.0, 0.0, 400.0, 300.0),
        seed,
        ..SimConfig::default()
    }
}

fn inside(sim: &Simulation) -> bool {
    let w = sim.config().world;
    let s = sim.config().particle_size;
    sim.particles().iter().all(|p| w.contains_rect(&p.rect(s)))
}

#[test]
fn no_particle_escapes_whatever_the_time_step() {
    let mut sim = Simulation::new(small(3)).unwrap();
    sim.spawn_burst(500).unwrap();
    sim.spawn_stream(200.0, 150.0, 200, 3.0, 1e7).unwrap();
    for dt in [1.0 / 60.0, 0.5, 10.0, 1e6, 0.0, 1e-9] {
        for _ in 0..20 {
            sim.step(dt).unwrap();
            assert!(inside(&sim), "a particle left the world with dt {dt}");
            assert!(sim
                .particles()
                .iter()
                .all(|p| p.vx.is_finite() && p.vy.is_finite()));
        }
    }
    sim.tree().validate().unwrap();
}

#[test]
fn bad_time_steps_are_refused_and_nothing_moves() {
    let mut sim = Simulation::new(small(4)).unwrap();
    sim.spawn_burst(50).unwrap();
    let before = sim.particles().to_vec();
    for dt in [f32::NAN, f32::INFINITY, -1.0] {
        assert!(matches!(sim.step(dt), Err(SimError::BadTimeStep(_))));
        assert_eq!(sim.particles(), &before[..]);
    }
}

#[test]
fn energy_stays_put_without_gravity_and_with_elastic_contacts() {
    let mut sim = Simulation::new(SimConfig {
        gravity_on: false,
        restitution: 1.0,
        ..small(5)
    })
    .unwrap();
    sim.spawn_burst(300).unwrap();
    let start = sim.kinetic_energy();
    assert!(start > 0.0);
    let mut contacts = 0;
    for _ in 0..10_000 {
        sim.step(1.0 / 60.0).unwrap();
        contacts += sim.counts().contacts;
    }
    let end = sim.kinetic_energy();
    assert!(
        contacts > 1000,
        "the test must exercise contacts, saw {contacts}"
    );
    let drift = (end - start).abs() / start;
    assert!(
        drift < 0.03,
        "kinetic energy drifted {:.2}% ({start} -> {end})",
        drift * 100.0
    );
}

#[test]
fn all_broadphase_modes_find_the_same_contacts() {
    let mut sim = Simulation::new(SimConfig {
        tree: Config {
            capacity: 4,
            max_depth: 6,
            ..Config::default()
        },
        ..small(6)
    })
    .unwrap();
    sim.spawn_burst(800).unwrap();
    sim.spawn_stream(100.0, 100.0, 400, 20.0, 100.0).unwrap();
    for round in 0..20 {
        for _ in 0..5 {
            sim.step(1.0 / 60.0).unwrap();
        }
        let mut sets = Vec::new();
        for mode in Broadphase::ALL {
            sim.set_broadphase(mode);
            sim.find_contacts();
            let mut c = sim.contacts().to_vec();
            c.sort();
            let n = c.len();
            c.dedup();
            assert_eq!(c.len(), n, "{mode:?} reported a contact twice");
            sets.push(c);
            sim.tree().validate().unwrap();
        }
        assert!(!sets[0].is_empty(), "round {round}: no contacts to compare");
        assert_eq!(sets[0], sets[1], "incremental vs rebuilt, round {round}");
        assert_eq!(
            sets[0], sets[2],
            "incremental vs brute force, round {round}"
        );
        sim.set_broadphase(Broadphase::ALL[round % 3]);
    }
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let run = |seed: u64| {
        let mut sim = Simulation::new(small(seed)).unwrap();
        sim.spawn_burst(400).unwrap();
        for frame in 0..300 {
            if frame % 10 == 0 {
                sim.spawn_stream(50.0 + frame as f32, 40.0, 5, 4.0, 80.0)
                    .unwrap();
            }
            sim.step(1.0 / 60.0).unwrap();
        }
        sim.particles().to_vec()
    };
    let a = run(11);
    assert_eq!(a, run(11));
    assert_ne!(a, run(12));
}

#[test]
fn the_cap_refuses_with_a_message_and_keeps_what_fits() {
    let mut sim = Simulation::new(SimConfig {
        max_particles: 100,
        ..small(7)
    })
    .unwrap();
    assert_eq!(sim.spawn_burst(90), Ok(90));
    let err = sim
        .spawn_stream(10.0, 10.0, usize::MAX, 1.0, 1.0)
        .unwrap_err();
    assert_eq!(
        err,
        SimError::CapReached {
            cap: 100,
            spawned: 10,
            refused: usize::MAX - 10
        }
    );
    assert!(err.to_string().contains("cap of 100"));
    assert_eq!(sim.len(), 100);
    assert!(sim.spawn_burst(1).is_err());
    sim.step(0.01).unwrap();
    sim.clear();
    assert_eq!(sim.spawn_burst(5), Ok(5));
}

#[test]
fn settings_change_live_and_nothing_is_lost() {
    let mut sim = Simulation::new(small(8)).unwrap();
    sim.spawn_burst(1000).unwrap();
    sim.step(0.02).unwrap();
    let n = sim.tree().len();
    sim.set_tree_config(Config {
        capacity: 4,
        max_depth: 8,
        ..Config::default()
    })
    .unwrap();
    assert_eq!(sim.tree().len(), n);
    assert!(sim
        .set_tree_config(Config {
            capacity: 0,
            max_depth: 8,
            ..Config::default()
        })
        .is_err());
    assert_eq!(
        sim.config().tree,
        Config {
            capacity: 4,
            max_depth: 8,
            ..Config::default()
        }
    );
    sim.set_gravity(false);
    for mode in Broadphase::ALL {
        sim.set_broadphase(mode);
        sim.step(0.02).unwrap();
        sim.tree().validate().unwrap();
        assert_eq!(sim.tree().len(), 1000);
    }
}

#[test]
fn bad_settings_are_refused() {
    for bad in [
        SimConfig {
            particle_size: 0.0,
            ..SimConfig::default()
        },
        SimConfig {
            particle_size: f32::NAN,
            ..SimConfig::default()
        },
        SimConfig {
            particle_size: 1e9,
            ..SimConfig::default()
        },
        SimConfig {
            restitution: 2.0,
            ..SimConfig::default()
        },
        SimConfig {
            gravity: f32::INFINITY,
            ..SimConfig::default()
        },
        SimConfig {
            tree: Config {
                capacity: 0,
                max_depth: 6,
                ..Config::default()
            },
            ..SimConfig::default()
        },
        SimConfig {
            world: Rect::new(0.0, 0.0, -1.0, 5.0),
            ..SimConfig::default()
        },
    ] {
        assert!(Simulation::new(bad).is_err(), "{bad:?}");
    }
}
