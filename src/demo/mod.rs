//! The demo binary's modules: the interactive window, its scripted mode, the headless mode.

pub mod app;
pub mod canvas;
pub mod cli;
pub mod controls;
pub mod draw;
pub mod headless;
pub mod platform;
pub mod view;

use macroquad::texture::get_screen_data;
use macroquad::time::get_frame_time;
use macroquad::window::{next_frame, screen_height, screen_width, Conf};
use quadstress::sim::SimError;
use quadstress::Config;

use app::{App, WORLD};
use cli::{Args, Switch};
use view::View;

/// The window: title, default size, resizable.
pub fn window_conf() -> Conf {
    Conf {
        window_title: "quadstress".to_owned(),
        window_width: 1024,
        window_height: 768,
        window_resizable: true,
        ..Default::default()
    }
}

/// Opens the window and runs the demo until it is closed or `--frames` have run.
pub fn run_window(args: Args) -> Result<(), String> {
    // Fail before opening a window: a bad flag or an unwritable screenshot path.
    if let Some(path) = &args.screenshot {
        std::fs::File::create(path)
            .map_err(|e| format!("cannot write screenshot {}: {e}", path.display()))?;
    }
    let tree = Config {
        capacity: args.capacity,
        max_depth: args.depth,
        placement: args.placement.into(),
    };
    let gravity = args.gravity != Some(Switch::Off);
    let mut app =
        App::new(tree, gravity, args.seed, args.broadphase.into()).map_err(|e| e.to_string())?;
    match app.sim.spawn_burst(args.spawn) {
        Ok(_) => {}
        Err(e @ SimError::CapReached { .. }) => eprintln!("{e}"),
        Err(e) => return Err(e.to_string()),
    }
    let conf = macroquad::conf::Conf {
        miniquad_conf: window_conf(),
        // Fewer, larger batches: a draw call can hold up to 65,536 vertices (u16 indices).
        draw_call_vertex_capacity: 60_000,
        draw_call_index_capacity: 90_000,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, run(app, args));
    Ok(())
}

async fn run(mut app: App, mut args: Args) {
    let mut hud = String::with_capacity(1024);
    let mut canvas = canvas::Canvas::new();
    let mut frame: u64 = 0;
    let mut frame_seconds: Vec<f32> =
        Vec::with_capacity(args.frames.unwrap_or(0).min(1 << 20) as usize);
    loop {
        let dt = get_frame_time();
        let view = View::fit(WORLD, screen_width(), screen_height());
        frame += 1;
        let last = args.frames.is_some_and(|n| frame >= n);

        app.handle_input(dt, &view);
        app.update(dt);
        if last {
            if let Some((x, y)) = args.right_click {
                app.right_click(x, y);
            }
        }
        app.record_frame(dt);
        if args.frames.is_some() && frame > 1 {
            frame_seconds.push(dt);
        }
        draw::frame(&app, &view, &mut canvas, &mut hud);

        if last {
            if let Some(path) = &args.screenshot {
                let mut image = get_screen_data();
                for px in image.bytes.chunks_exact_mut(4) {
                    px[3] = 255;
                }
                image.export_png(&path.to_string_lossy());
                println!("screenshot: {}", path.display());
            }
            report_scripted_run(&app, &mut frame_seconds);
            if platform::SCRIPTED_RUN_EXITS {
                break;
            }
            // A page stays open: the scripted frame is done, the demo goes on interactively.
            args.frames = None;
        }
        next_frame().await;
    }
}

/// The summary a scripted run prints: frames, frame-time statistics, FPS.
fn report_scripted_run(app: &App, frame_seconds: &mut [f32]) {
    frame_seconds.sort_by(f32::total_cmp);
    let n = frame_seconds.len();
    println!("particles: {} count", app.sim.len());
    println!("frames: {} frames", n + 1);
    if n > 0 {
        let mean = frame_seconds.iter().sum::<f32>() / n as f32;
        println!("frame_time.median: {:.2} ms", frame_seconds[n / 2] * 1e3);
        println!(
            "frame_time.p99: {:.2} ms",
            frame_seconds[(n * 99 / 100).min(n - 1)] * 1e3
        );
        println!("fps.mean: {:.1} fps", 1.0 / mean);
    }
}
