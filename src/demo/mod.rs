//! The demo binary's modules: the interactive window, its scripted mode, the headless mode.

pub mod app;
pub mod canvas;
pub mod cli;
pub mod controls;
pub mod draw;
pub mod headless;
pub mod platform;
pub mod probe;
pub mod view;

use macroquad::texture::get_screen_data;
use macroquad::window::{next_frame, screen_height, screen_width, Conf};
use quadstress::sim::{Percentiles, SimError};

use app::App;
use cli::{Args, Switch};
use controls::BINDINGS;
use view::{Camera, View};

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

/// Opens the window and runs the demo until it is closed, Esc is pressed or `--frames` have run.
pub fn run_window(args: Args) -> Result<(), String> {
    // Fail before opening a window: a bad flag or an unwritable screenshot path.
    if let Some(path) = &args.screenshot {
        std::fs::File::create(path)
            .map_err(|e| format!("cannot write screenshot {}: {e}", path.display()))?;
    }
    let gravity = args.gravity != Some(Switch::Off);
    let mut app = App::new(
        args.tree_config(),
        gravity,
        args.seed,
        args.broadphase.into(),
        platform::now_seconds,
    )
    .map_err(|e| e.to_string())?;
    app.display.colors = args.colors;
    if args.world_scale != 1.0 {
        app.set_world_scale(args.world_scale)
            .map_err(|e| e.to_string())?;
    }
    if let Some(threads) = args.threads {
        app.sim.set_threads(threads).map_err(|e| e.to_string())?;
    }
    if let Some(scale) = args.zoom {
        let (x, y) = args.center.unwrap_or(app.sim.config().world.center());
        app.camera = Camera::at(scale, x, y);
    }
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
    let mut scratch = draw::Scratch::new();
    let mut frame: u64 = 0;
    // Bounded whatever `--frames` says: exact up to a limit, then a fixed histogram.
    let mut frame_seconds = Percentiles::with_capacity(args.frames.unwrap_or(0));
    let mut last_frame_start = platform::now_seconds() - 1.0 / platform::MAX_FPS;
    loop {
        let frame_start = platform::now_seconds();
        // The time since the last frame began, pacing sleep included.
        let dt = (frame_start - last_frame_start) as f32;
        last_frame_start = frame_start;
        let view = View::new(
            app.sim.config().world,
            screen_width(),
            screen_height(),
            app.camera,
        );
        frame += 1;
        let last = args.frames.is_some_and(|n| frame >= n);

        let pointer = controls::read_pointer();
        for b in BINDINGS {
            if controls::is_active(b) {
                app.act(b, dt, &view, pointer);
            } else {
                app.release(b);
            }
        }
        for (label, _) in args.press.iter().filter(|(_, at)| *at == frame) {
            for b in controls::by_label(label) {
                app.act(b, dt, &view, pointer);
            }
        }
        if frame == 1 {
            if let Some((x, y)) = args.right_click {
                app.right_click(x, y);
                // A scripted report stays up to the last frame, however slow the frames.
                app.probe.keep_shown();
            }
        }
        if let Some((dx, dy)) = args.move_quad.filter(|_| frame > 1) {
            app.nudge_quad(dx, dy);
        }
        app.update(dt);
        app.graph.record(dt);
        if args.frames.is_some() && frame > args.warmup.saturating_add(1) {
            frame_seconds.record(f64::from(dt));
        }
        let view = View::new(
            app.sim.config().world,
            screen_width(),
            screen_height(),
            app.camera,
        );
        draw::frame(&app, &view, &mut scratch);

        if app.quit_requested() && platform::SCRIPTED_RUN_EXITS {
            println!("quit: esc at frame {frame}");
            break;
        }
        if last {
            if let Some(path) = &args.screenshot {
                let mut image = get_screen_data();
                for px in image.bytes.chunks_exact_mut(4) {
                    px[3] = 255;
                }
                image.export_png(&path.to_string_lossy());
                println!("screenshot: {}", path.display());
            }
            if args.right_click.is_some() {
                println!("quad report: {}", app.probe.line());
            }
            report_scripted_run(&app, &view, &mut frame_seconds);
            if platform::SCRIPTED_RUN_EXITS {
                break;
            }
            // A page stays open: the scripted frame is done, the demo goes on interactively.
            args.frames = None;
        }
        platform::pace(frame_start);
        next_frame().await;
    }
}

/// The summary a scripted run prints: frames, frame-time statistics, FPS.
fn report_scripted_run(app: &App, view: &View, frame_seconds: &mut Percentiles) {
    println!("particles: {} count", app.sim.len());
    println!("particle_cap: {} count", app.sim.config().max_particles);
    println!("broadphase: {}", app.sim.broadphase().name());
    println!("colors: {}", app.display.colors.name());
    println!("zoom: {} px_per_unit", view.scale());
    println!(
        "particle_side: {} px",
        view.particle_px(app.sim.config().particle_size)
    );
    println!("frames_timed: {} frames", frame_seconds.len());
    let mean = frame_seconds.mean().unwrap_or(0.0);
    if let Some(median) = frame_seconds.percentile(0.5) {
        println!("frame_time.median: {:.2} ms", median * 1e3);
    }
    if let Some(p99) = frame_seconds.percentile(0.99) {
        println!("frame_time.p99: {:.2} ms", p99 * 1e3);
    }
    if mean > 0.0 {
        println!("fps.mean: {:.1} fps", 1.0 / mean);
    }
    let t = app.times;
    println!("step.last: {:.2} ms", t.step_ms);
}
