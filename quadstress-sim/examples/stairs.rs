use quadstress::Rect;
use quadstress_sim::{SimConfig, Simulation};
fn main() {
    let mut sim = Simulation::new(SimConfig {
        world: Rect::new(0.0, 0.0, 400.0, 300.0),
        seed: 1,
        ..SimConfig::default()
    })
    .unwrap();
    let s = sim.config().particle_size;
    let floor = sim.config().world.max_y - s;
    let n = 12;
    for c in 0..n {
        for r in 0..(n - c) {
            sim.spawn_stream(c as f32 * s, floor - r as f32 * s, 1, 0.0, 0.0)
                .unwrap();
        }
    }
    let count = sim.len();
    for f in 0..600 {
        if f == 60 {
            sim.spawn_stream(0.0, floor - (n as f32 + 1.0) * s, 1, 0.0, 0.0)
                .unwrap();
        }
        sim.step(1.0 / 60.0).unwrap();
        if f >= 60 && f % 15 == 0 {
            // the faller: the last particle added is the one at the largest index before reorder? find the one not on the grid
            let mut out = vec![];
            for p in sim.particles() {
                let gx = p.x / s;
                let gy = (floor - p.y) / s;
                if (gx - gx.round()).abs() > 0.02
                    || (gy - gy.round()).abs() > 0.02
                    || gy.round() as i32 >= n - gx.round() as i32
                {
                    out.push(format!(
                        "({gx:.2},{gy:.2} v {:.1},{:.1})",
                        p.vx / s,
                        p.vy / s
                    ));
                }
            }
            println!(
                "f{f} moved/faller: {} awake {}",
                out.join(" "),
                sim.len() - sim.sleeping()
            );
        }
    }
    let _ = count;
}
