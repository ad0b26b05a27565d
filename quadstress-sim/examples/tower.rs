use quadstress::Rect;
use quadstress_sim::{SimConfig, Simulation};
fn main() {
    let mut sim = Simulation::new(SimConfig {
        world: Rect::new(0.0, 0.0, 400.0, 300.0),
        seed: 5,
        ..SimConfig::default()
    })
    .unwrap();
    let (s, floor) = (
        sim.config().particle_size,
        sim.config().world.max_y - sim.config().particle_size,
    );
    for k in 0..8 {
        sim.spawn_stream(200.0, floor - k as f32 * s, 1, 0.0, 0.0)
            .unwrap();
    }
    for f in 0..600 {
        sim.step(1.0 / 60.0).unwrap();
        if f % 20 == 19 {
            let v: Vec<String> = sim
                .particles()
                .iter()
                .map(|p| format!("({:.2},{:.2} v{:.2},{:.2})", p.x, p.y, p.vx, p.vy))
                .collect();
            println!("{f} sleeping {} {}", sim.sleeping(), v.join(" "));
        }
    }
}
