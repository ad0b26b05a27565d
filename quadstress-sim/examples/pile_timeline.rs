//! Where the falling pile's step time goes, frame by frame: a measurement for issue 49, not a
//! test. It steps the standard pile (100,000 particles, coverage 0.5, gravity, seed 1) for 300
//! frames and every 10 frames prints the mean step and solve (`resolution`) times of those
//! frames, the contacts, and how many particles sleep and how fast the awake ones move (in
//! sides a second): a median over the whole run hides which phase (the free fall, the landing,
//! the settling pile) costs what.
//!
//! `cargo run --release -p quadstress-sim --example pile_timeline -- [THREADS] [SEED]`
//! (2 threads and seed 1 by default).

use std::time::Instant;

use quadstress_sim::{Phase, SimConfig, Simulation};

/// Upper bounds (sides a second) of the speed classes the report counts awake particles in.
const SPEEDS: [f32; 4] = [0.5, 2.0, 10.0, 50.0];

fn main() {
    let mut args = std::env::args().skip(1);
    let threads: usize = args
        .next()
        .map_or(2, |s| s.parse().expect("THREADS: a count"));
    let seed: u64 = args
        .next()
        .map_or(1, |s| s.parse().expect("SEED: a number"));
    let n = 100_000;
    let mut config = SimConfig::with_coverage(n, 0.5);
    config.gravity_on = true;
    config.seed = seed;
    config.threads = Some(threads);
    let mut sim = Simulation::new(config).expect("the standard pile's settings");
    sim.spawn_burst(n).expect("room for the pile");
    let size = sim.config().particle_size;
    let start = Instant::now();
    let clock = || start.elapsed().as_secs_f64();
    println!(
        "frames, step ms, resolution ms, contacts, asleep, awake below {SPEEDS:?} sides/s, faster"
    );
    let (mut step, mut solve) = (0.0, 0.0);
    for frame in 1..=300 {
        let t = sim.step_timed(1.0 / 60.0, clock).expect("a valid step");
        step += t.step_ms;
        solve += t
            .by_phase()
            .iter()
            .filter(|(phase, _)| *phase == Phase::Resolve)
            .map(|(_, ms)| ms)
            .sum::<f64>();
        if frame % 10 == 0 {
            let mut classes = [0usize; SPEEDS.len() + 1];
            for (q, _) in sim
                .particles()
                .iter()
                .zip(sim.asleep())
                .filter(|(_, &asleep)| !asleep)
            {
                let speed = (q.vx * q.vx + q.vy * q.vy).sqrt() / size;
                classes[SPEEDS.partition_point(|&bound| bound <= speed)] += 1;
            }
            println!(
                "{}-{frame}, {:.2}, {:.2}, {}, {}, {classes:?}",
                frame - 9,
                step / 10.0,
                solve / 10.0,
                sim.contacts().len(),
                sim.sleeping(),
            );
            (step, solve) = (0.0, 0.0);
        }
    }
}
