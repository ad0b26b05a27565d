//! A small window onto a quadtree: boxes drift about, the tree's nodes are outlined, boxes
//! that touch another turn red, and the boxes under the mouse's square turn blue.
//!
//! `cargo run --release --example viewer --features demo [-- --frames N]`
//! Esc quits; `--frames N` quits by itself after N frames (CI runs it under Xvfb).

use macroquad::prelude::*;
use quadstress::{ItemId, Quadtree, Rect};

const WORLD: Rect = Rect::new(0.0, 0.0, 1024.0, 768.0);
const BOXES: usize = 1500;
const SIDE: f32 = 6.0;
/// Half the side of the square that follows the mouse.
const PROBE: f32 = 60.0;

fn window_conf() -> Conf {
    Conf {
        window_title: "quadstress viewer".to_owned(),
        window_width: 1024,
        window_height: 768,
        ..Default::default()
    }
}

/// `--frames N` from the command line: quit after N frames.
fn frame_limit() -> Option<u64> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == "--frames")?;
    let n = args.get(at + 1).and_then(|n| n.parse().ok());
    Some(n.expect("--frames takes a count"))
}

struct Body {
    id: ItemId,
    pos: Vec2,
    vel: Vec2,
}

#[macroquad::main(window_conf)]
async fn main() {
    let limit = frame_limit();
    let mut tree = Quadtree::new(WORLD).expect("a valid world");
    let mut bodies: Vec<Body> = (0..BOXES)
        .map(|i| {
            let pos = vec2(
                rand::gen_range(0.0, WORLD.max_x - SIDE),
                rand::gen_range(0.0, WORLD.max_y - SIDE),
            );
            let vel = vec2(rand::gen_range(-1.0, 1.0), rand::gen_range(-1.0, 1.0)) * 60.0;
            let rect = Rect::from_min_size(pos.x, pos.y, SIDE, SIDE);
            let id = tree.insert(rect, i).expect("a finite box");
            Body { id, pos, vel }
        })
        .collect();
    let mut touching = vec![false; BOXES];
    let mut frames = 0u64;
    loop {
        if is_key_pressed(KeyCode::Escape) || limit.is_some_and(|n| frames >= n) {
            break;
        }
        // Move: `update` is O(1) while a box stays in its node.
        let dt = get_frame_time().min(1.0 / 20.0);
        for b in &mut bodies {
            b.pos += b.vel * dt;
            if b.pos.x < 0.0 || b.pos.x > WORLD.max_x - SIDE {
                b.vel.x = -b.vel.x;
            }
            if b.pos.y < 0.0 || b.pos.y > WORLD.max_y - SIDE {
                b.vel.y = -b.vel.y;
            }
            b.pos = b
                .pos
                .clamp(Vec2::ZERO, vec2(WORLD.max_x, WORLD.max_y) - SIDE);
            let rect = Rect::from_min_size(b.pos.x, b.pos.y, SIDE, SIDE);
            tree.update(b.id, rect)
                .expect("a live handle and a finite box");
        }
        // Pairs: every box that touches another.
        touching.fill(false);
        tree.for_each_pair(|a, b| {
            touching[*a.value] = true;
            touching[*b.value] = true;
        });

        clear_background(Color::from_rgba(20, 22, 28, 255));
        for node in tree.nodes() {
            let r = node.rect;
            let shade = Color::from_rgba(70, 80, 100, 255);
            draw_rectangle_lines(r.min_x, r.min_y, r.width(), r.height(), 1.0, shade);
        }
        for (i, b) in bodies.iter().enumerate() {
            let color = if touching[i] { RED } else { LIGHTGRAY };
            draw_rectangle(b.pos.x, b.pos.y, SIDE, SIDE, color);
        }
        // The region query as an iterator: the boxes under the mouse's square.
        let (mx, my) = mouse_position();
        let probe = Rect::new(mx - PROBE, my - PROBE, mx + PROBE, my + PROBE);
        let mut under = 0;
        for item in tree.iter_in_rect(&probe) {
            let r = item.rect;
            draw_rectangle(r.min_x, r.min_y, r.width(), r.height(), SKYBLUE);
            under += 1;
        }
        draw_rectangle_lines(
            probe.min_x,
            probe.min_y,
            2.0 * PROBE,
            2.0 * PROBE,
            2.0,
            BLUE,
        );
        let pairs = touching.iter().filter(|&&t| t).count();
        let text = format!(
            "{} boxes, {} nodes, {} touching, {} under the mouse, {} FPS",
            tree.len(),
            tree.nodes().len(),
            pairs,
            under,
            get_fps()
        );
        draw_text(&text, 10.0, 24.0, 24.0, WHITE);
        frames += 1;
        next_frame().await;
    }
    println!("viewer: {frames} frames, {} boxes", tree.len());
}
