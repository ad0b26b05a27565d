//! rapier2d on the simulation's pile (feature `peers`): the same scene as a
//! [`Simulation`](quadstress_sim::Simulation) with the same settings and seed (square bodies as
//! cuboid colliders with their rotation locked, at the particles' spawn positions and speeds,
//! the same gravity, the same 1/60 s step, the world's walls as fixed cuboids), so that the
//! table shows its step time and the same quality figures beside the project's.
//!
//! rapier is set up as its documentation recommends for such a scene: a [`PhysicsWorld`] with
//! the default [`IntegrationParameters`](rapier2d::prelude::IntegrationParameters) (4 solver
//! iterations, soft contacts, warm starting, sleeping), except `length_unit`, set to the
//! particle's side as its docs ask of a world whose typical object is not a metre (the
//! tolerances and sleep thresholds scale with it). Contacts bounce with the simulation's
//! restitution; friction is rapier's default (0.5). One thread, as rapier2d's default
//! features build it; the table runs the simulation on one thread too.

use quadstress::Rect;
use quadstress_sim::{Particle, SimConfig};
use rapier2d::prelude::*;

/// A rapier2d world holding the pile's particles as rotation-locked boxes.
pub struct RapierPile {
    world: PhysicsWorld,
    bodies: Vec<RigidBodyHandle>,
    half: f32,
}

impl RapierPile {
    /// The scene of `config` with one body per particle of `spawn` (top-left corners and
    /// velocities, as the simulation spawned them).
    pub fn new(config: &SimConfig, spawn: &[Particle]) -> Self {
        let mut world = PhysicsWorld::new();
        // y grows downward in the simulation; rapier has no preferred direction.
        world.gravity = Vector::new(
            0.0,
            if config.gravity_on {
                config.gravity
            } else {
                0.0
            },
        );
        world.integration_parameters.dt = quadstress_sim::STEP_SECONDS;
        world.integration_parameters.length_unit = config.particle_size;
        let half = config.particle_size / 2.0;
        let w = config.world;
        // The walls: four fixed boxes, each as thick as the world is wide or tall, so that
        // nothing pushed hard against one can pass it.
        let (cx, cy) = ((w.min_x + w.max_x) / 2.0, (w.min_y + w.max_y) / 2.0);
        let (hw, hh) = (w.width() / 2.0, w.height() / 2.0);
        let walls = world.insert_body(RigidBodyBuilder::fixed());
        for (x, y, hx, hy) in [
            (cx, w.min_y - hh, 2.0 * hw, hh),
            (cx, w.max_y + hh, 2.0 * hw, hh),
            (w.min_x - hw, cy, hw, 2.0 * hh),
            (w.max_x + hw, cy, hw, 2.0 * hh),
        ] {
            world.insert_collider(
                ColliderBuilder::cuboid(hx, hy)
                    .translation(Vector::new(x, y))
                    .restitution(config.restitution),
                Some(walls),
            );
        }
        let bodies = spawn
            .iter()
            .map(|p| {
                let body = RigidBodyBuilder::dynamic()
                    .translation(Vector::new(p.x + half, p.y + half))
                    .linvel(Vector::new(p.vx, p.vy))
                    .lock_rotations();
                let collider = ColliderBuilder::cuboid(half, half).restitution(config.restitution);
                world.insert(body, collider).0
            })
            .collect();
        RapierPile {
            world,
            bodies,
            half,
        }
    }

    /// One step of 1/60 s.
    pub fn step(&mut self) {
        self.world.step();
    }

    /// The bodies as particles (top-left corners and velocities), in spawn order, into `out`.
    pub fn particles(&self, out: &mut Vec<Particle>) {
        out.clear();
        out.extend(self.bodies.iter().map(|&h| {
            let b = &self.world.bodies[h];
            let (t, v) = (b.translation(), b.linvel());
            Particle {
                x: t.x - self.half,
                y: t.y - self.half,
                vx: v.x,
                vy: v.y,
            }
        }));
    }

    /// How many bodies sleep.
    pub fn sleeping(&self) -> usize {
        self.bodies
            .iter()
            .filter(|&&h| self.world.bodies[h].is_sleeping())
            .count()
    }
}

/// Whether `p`'s square lies inside `world` grown by `margin` on every side.
fn inside(p: &Particle, size: f32, world: Rect, margin: f32) -> bool {
    world.grown(f64::from(margin)).contains_rect(&p.rect(size))
}

/// The checks `cargo test --bench table` runs on the scene.
pub mod checks {
    use super::*;
    use quadstress_sim::Simulation;

    /// The scene is the simulation's: the same bodies where it spawned them, the same
    /// gravity pulling them down onto the floor, the walls holding them in.
    pub fn rapier_pile_is_the_simulations_scene() {
        let config = SimConfig {
            world: Rect::new(0.0, 0.0, 160.0, 120.0),
            seed: 3,
            ..SimConfig::default()
        };
        let mut sim = Simulation::new(config).unwrap();
        sim.spawn_burst(120).unwrap();
        let mut pile = RapierPile::new(&config, sim.particles());
        let mut now = Vec::new();
        pile.particles(&mut now);
        // The same places (to the rounding of the centre's `x + side / 2`) and speeds.
        assert_eq!(now.len(), sim.len());
        for (a, b) in now.iter().zip(sim.particles()) {
            assert!(
                (a.x - b.x).abs() < 1e-4 && (a.y - b.y).abs() < 1e-4,
                "{a:?} {b:?}"
            );
            assert_eq!((a.vx, a.vy), (b.vx, b.vy));
        }
        for _ in 0..240 {
            pile.step();
        }
        pile.particles(&mut now);
        let s = config.particle_size;
        // rapier lets boxes sink a little into what they rest on: a tenth of a side allowed.
        assert!(now.iter().all(|p| inside(p, s, config.world, 0.1 * s)));
        // Four seconds later the boxes lie in the bottom rows: 120 boxes of 64 fill 0.4 of a
        // 160-wide world's bottom 48 units (6 rows); allow twice that.
        let low = now
            .iter()
            .filter(|p| p.y >= config.world.max_y - 12.0 * s)
            .count();
        assert_eq!(low, now.len(), "the boxes fell onto the floor");
        // The floor holds the bottom row at the floor.
        let lowest = now.iter().map(|p| p.y).fold(f32::MIN, f32::max);
        assert!(
            (lowest + s - config.world.max_y).abs() < 0.1 * s,
            "{lowest}"
        );
    }
}
