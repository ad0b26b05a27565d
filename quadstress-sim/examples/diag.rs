use quadstress_sim::{SimConfig, Simulation};
use std::io::Write;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a[1].parse().unwrap();
    let cov: f32 = a[2].parse().unwrap();
    let seed: u64 = a[3].parse().unwrap();
    let frames: usize = a[4].parse().unwrap();
    let out = &a[5];
    let mut config = SimConfig::with_coverage(n, cov);
    config.seed = seed;
    config.gravity_on = true;
    if let Ok(r) = std::env::var("REST") {
        config.restitution = r.parse().unwrap();
    }
    config.max_particles = config.max_particles.max(n);
    let mut sim = Simulation::new(config).unwrap();
    if let Ok(t) = std::env::var("T") {
        sim.set_threads(t.parse().unwrap()).unwrap();
    }
    sim.spawn_burst(n).unwrap();
    let mut acc = 0.0;
    for f in 0..frames {
        if let Ok(v) = std::env::var("POUR") {
            let v: Vec<f32> = v.split(',').map(|x| x.parse().unwrap()).collect();
            if (f as f32) >= v[2] && (f as f32) <= v[3] {
                sim.spawn_stream(
                    v[0],
                    v[1],
                    10,
                    6.0,
                    std::env::var("SPEED").map_or(120.0, |s| s.parse().unwrap()),
                )
                .unwrap();
            }
        }
        let t0 = std::time::Instant::now();
        sim.step(1.0 / 60.0).unwrap();
        acc += t0.elapsed().as_secs_f64() * 1e3;
        if let Ok(t) = std::env::var("TRACE") {
            let s = config.particle_size;
            let wd = config.world;
            for i in t.split(',').map(|x| x.parse::<usize>().unwrap()) {
                let p = sim.particles()[i];
                println!(
                    "f{} #{i} x {:.3} top {:.3} v ({:.2},{:.2}) {}",
                    f + 1,
                    (p.x - wd.min_x) / s,
                    (wd.max_y - p.y) / s,
                    p.vx / s,
                    p.vy / s,
                    ""
                );
            }
        }
        if let Ok(r) = std::env::var("HIGH") {
            let r: Vec<f32> = r.split(',').map(|x| x.parse().unwrap()).collect();
            if (f + 1) as f32 >= r[0] && (f + 1) as f32 <= r[1] {
                let s = config.particle_size;
                for (i, p) in sim.particles().iter().enumerate() {
                    let top = (config.world.max_y - p.y) / s;
                    if top > r[2] {
                        println!(
                            "f{} high #{i} x {:.2} top {:.2} v ({:.2},{:.2}) {}",
                            f + 1,
                            p.x / s,
                            top,
                            p.vx / s,
                            p.vy / s,
                            ""
                        );
                    }
                }
            }
        }
        if let Ok(r) = std::env::var("VXOVER") {
            let r: f32 = r.parse().unwrap();
            let s = config.particle_size;
            for (i, p) in sim.particles().iter().enumerate() {
                if p.vx.abs() / s > r {
                    let top = (config.world.max_y - p.y) / s;
                    println!(
                        "f{} vx #{i} x {:.2} top {:.2} v ({:.2},{:.2}) {}",
                        f + 1,
                        p.x / s,
                        top,
                        p.vx / s,
                        p.vy / s,
                        ""
                    );
                }
            }
        }
        if std::env::var("MAXVX").is_ok() && f + 1 >= 430 {
            let s = config.particle_size;
            let (i, p) = sim
                .particles()
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.vx.abs().partial_cmp(&b.1.vx.abs()).unwrap())
                .unwrap();
            println!(
                "f{} maxvx #{i} x {:.2} top {:.2} v ({:.2},{:.2}) {}",
                f + 1,
                p.x / s,
                (config.world.max_y - p.y) / s,
                p.vx / s,
                p.vy / s,
                ""
            );
        }
        if std::env::var("DUMP").is_ok() && (f + 1) % 100 == 0 {
            dump(&sim, &config, &format!("{out}.{}.pgm", f + 1));
        }
        if ((f + 1) % 50 == 0 || f + 1 == 25) && std::env::var("HP").is_ok() {
            let mut hp = quadstress_sim::HeightProfile::new();
            let _ = sim.column_steps(&mut hp);
            let h = hp.heights();
            let mid = h[h.len() / 2 - 5..h.len() / 2 + 5].iter().sum::<f64>() / 10.0;
            let s = config.particle_size;
            let mut cnt = [0usize; 6];
            for p in sim.particles() {
                let c = (p.x / s) as usize;
                if c < 6 {
                    cnt[c] += 1;
                }
            }
            println!("  counts L {cnt:?}");
            let nb = (config.world.width() / s / 10.0) as usize + 1;
            let mut bins = vec![0usize; nb];
            for p in sim.particles() {
                bins[((p.x + 0.5 * s) / s / 10.0) as usize] += 1;
            }
            println!("  bins10 {bins:?}");
            println!(
                "  wall heights L {:?} mid {:.0} R {:?}",
                h[..6].iter().map(|x| x.round() as i32).collect::<Vec<_>>(),
                mid,
                h[h.len() - 6..]
                    .iter()
                    .map(|x| x.round() as i32)
                    .collect::<Vec<_>>()
            );
        }
        if std::env::var("DEEP").is_ok() {
            let ps = sim.particles();
            let s = config.particle_size;
            for &(a, b) in sim.contacts() {
                let (pa, pb) = (ps[a as usize], ps[b as usize]);
                let o = ((s - (pa.x - pb.x).abs()).max(0.0) * (s - (pa.y - pb.y).abs()).max(0.0))
                    / (s * s);
                if o > 0.5 {
                    println!("frame {} deep {a} {b} o {o:.3} a ({:.2},{:.2} v {:.1},{:.1}) b ({:.2},{:.2} v {:.1},{:.1})", f + 1, pa.x, pa.y, pa.vx, pa.vy, pb.x, pb.y, pb.vx, pb.vy);
                }
            }
        }
        if std::env::var("SPD").map_or(false, |v| {
            v.split(',').any(|v| v.parse::<usize>().unwrap() == f + 1)
        }) {
            let w = config.world;
            let s = config.particle_size;
            let nb = 12;
            let mut sum = vec![0f64; nb];
            let mut cnt = vec![0usize; nb];
            let mut fast = vec![0usize; nb];
            for p in sim.particles() {
                let h = ((w.max_y - p.y) / s / 20.0) as usize;
                let h = h.min(nb - 1);
                let v = ((p.vx * p.vx + p.vy * p.vy) as f64).sqrt();
                sum[h] += v;
                cnt[h] += 1;
                if v > 4.0 {
                    fast[h] += 1;
                }
            }
            let mut sx = vec![0f64; 5];
            let mut cx = vec![0usize; 5];
            for p in sim.particles() {
                let b = ((p.x / w.width()) * 5.0) as usize;
                let b = b.min(4);
                sx[b] += ((p.vx * p.vx + p.vy * p.vy) as f64).sqrt();
                cx[b] += 1;
            }
            println!(
                "frame {} speed by 20-side band from floor: {}",
                f + 1,
                (0..nb)
                    .map(|i| format!(
                        "{:.1}({}/{})",
                        sum[i] / cnt[i].max(1) as f64,
                        fast[i],
                        cnt[i]
                    ))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            println!(
                "   by x fifth: {}",
                (0..5)
                    .map(|i| format!("{:.1}", sx[i] / cx[i].max(1) as f64))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        if (f + 1) % 50 == 0 {
            println!(
                "frame {} mean_ms {:.2} contacts {} sleeping {} ke {:.3}",
                f + 1,
                acc / 50.0,
                sim.counts().contacts,
                sim.sleeping(),
                sim.kinetic_energy() / n as f64
            );
            acc = 0.0;
        }
    }
    dump(&sim, &config, out);
    if std::env::var("FAST").is_ok() {
        let s = config.particle_size;
        let wd = config.world;
        let mut v: Vec<(f32, usize)> = sim
            .particles()
            .iter()
            .enumerate()
            .map(|(i, p)| (((p.vx * p.vx + p.vy * p.vy).sqrt() / s), i))
            .filter(|x| x.0 > 0.5)
            .collect();
        v.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
        let ke: f32 = v.iter().map(|x| 0.5 * x.0 * x.0 * s * s).sum();
        println!(
            "moving >0.5: {} ke share {:.1}",
            v.len(),
            ke / sim.particles().len() as f32
        );
        for &(sp, i) in v.iter().take(25) {
            let p = sim.particles()[i];
            println!(
                "fast #{i} speed {sp:.2} x {:.2} top {:.2} v ({:.2},{:.2}) {}",
                (p.x - wd.min_x) / s,
                (wd.max_y - p.y) / s,
                p.vx / s,
                p.vy / s,
                ""
            );
        }
    }
    if let Ok(w) = std::env::var("WHO") {
        let c: Vec<f32> = w.split(',').map(|x| x.parse().unwrap()).collect();
        let s = config.particle_size;
        let wd = config.world;
        let mut v: Vec<(f32, f32, usize)> = sim
            .particles()
            .iter()
            .enumerate()
            .map(|(i, p)| ((p.x - wd.min_x) / s, (wd.max_y - p.y) / s, i))
            .filter(|&(x, h, _)| x >= c[0] && x < c[1] && h >= c[2] && h < c[3])
            .collect();
        v.sort_by(|a, b| {
            b.1.partial_cmp(&a.1)
                .unwrap()
                .then(a.0.partial_cmp(&b.0).unwrap())
        });
        for (x, h, i) in v {
            let p = sim.particles()[i];
            println!(
                "#{i} x {x:.3} top {h:.3} v ({:.2},{:.2}) {}",
                p.vx / s,
                p.vy / s,
                ""
            );
        }
    }
    let (mut lo, mut hi) = (f32::MAX, f32::MIN);
    for p in sim.particles() {
        lo = lo.min(p.x);
        hi = hi.max(p.x);
    }
    println!("x range {lo} {hi} world {:?}", config.world);
    let mut near = 0;
    for p in sim.particles() {
        if p.x > config.world.max_x - 4.0 * config.particle_size {
            near += 1;
        }
    }
    println!("within 3 sides of right wall: {near}");
    let mut hp = quadstress_sim::HeightProfile::new();
    let steps = sim.column_steps(&mut hp);
    println!(
        "{steps:?} packing {:.3} overlap {:?}",
        sim.pile_packing(),
        sim.overlap()
    );
    let h = hp.heights();
    println!("left {:?}", &h[..10]);
    println!("right {:?}", &h[h.len() - 10..]);
    for i in 1..h.len() {
        let d = (h[i] - h[i - 1]).abs();
        if d >= 2.5 {
            println!("col {} {:.1} -> {:.1}", i, h[i - 1], h[i]);
        }
    }
}
fn crop(sim: &Simulation, config: &SimConfig, out: &str, c: &str) {
    let c: Vec<f32> = c.split(',').map(|x| x.parse().unwrap()).collect();
    let s = config.particle_size;
    let w = config.world;
    // c = col0, col1, h0, h1 in sides (h from the floor)
    let k = 10.0; // px per side
    let (iw, ih) = (((c[1] - c[0]) * k) as usize, ((c[3] - c[2]) * k) as usize);
    let mut img = vec![255u8; iw * ih];
    for p in sim.particles() {
        let x0 = (p.x - w.min_x) / s - c[0];
        let top = (w.max_y - p.y) / s; // height of the square's bottom? p.y is min corner
        let y0 = c[3] - top; // rows from the crop top
        for yy in 0..(k as i32) {
            for xx in 0..(k as i32) {
                let px = (x0 * k) as i32 + xx;
                let py = (y0 * k) as i32 + yy;
                if px < 0 || py < 0 || px >= iw as i32 || py >= ih as i32 {
                    continue;
                }
                let edge = xx == 0 || yy == 0 || xx == k as i32 - 1 || yy == k as i32 - 1;
                let v: u8 = if edge {
                    0
                } else if sim_asleep(p) {
                    150
                } else {
                    100
                };
                let i = py as usize * iw + px as usize;
                img[i] = img[i].min(v);
            }
        }
    }
    let mut f = std::fs::File::create(out).unwrap();
    write!(f, "P5\n{iw} {ih}\n255\n").unwrap();
    f.write_all(&img).unwrap();
}
fn sim_asleep(p: &quadstress_sim::Particle) -> bool {
    p.vx == 0.0 && p.vy == 0.0
}
fn dump(sim: &Simulation, config: &SimConfig, out: &str) {
    if let Ok(c) = std::env::var("CROP") {
        crop(sim, config, &format!("{out}.crop.pgm"), &c);
    }
    let w = config.world;
    let s = config.particle_size;
    let px = s / 2.0;
    let (iw, ih) = (
        (w.width() / px) as usize + 1,
        (w.height() / px) as usize + 1,
    );
    let mut img = vec![255u8; iw * ih];
    for p in sim.particles() {
        let (x0, y0) = (
            ((p.x - w.min_x) / px) as usize,
            ((p.y - w.min_y) / px) as usize,
        );
        for y in y0..(y0 + 2).min(ih) {
            for x in x0..(x0 + 2).min(iw) {
                img[y * iw + x] = img[y * iw + x].saturating_sub(120);
            }
        }
    }
    let mut f = std::fs::File::create(out).unwrap();
    write!(f, "P5\n{iw} {ih}\n255\n").unwrap();
    f.write_all(&img).unwrap();
}
#[allow(dead_code)]
fn unused() {}
