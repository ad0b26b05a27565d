//! The interactive window and its scripted mode: the frame loop.

use macroquad::texture::get_screen_data;
use macroquad::ui::root_ui;
use macroquad::window::{next_frame, screen_height, screen_width, Conf};
use quadstress_sim::{Percentiles, SimConfig, SimError, Simulation};

use crate::app::App;
use crate::cli::{Args, RendererArg, Switch};
use crate::controls::BINDINGS;
use crate::platform::Renderer;
use crate::view::{Camera, View};
use crate::{canvas, controls, draw, instanced, panel, platform, stepper};

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

/// Text sizes the HUD, the legend, the graph's labels and the help draw at.
const TEXT_SIZES: [u16; 8] = [13, 14, 15, 18, 19, 20, 22, 24];

/// Puts every printable ASCII glyph at every [`TEXT_SIZES`] size into the default font's
/// atlas before the first frame. A glyph first met mid-frame grows the atlas into a new texture
/// while draw calls queued earlier in the frame still name the old one (WebGL then logs
/// "glBindTexture called with an already deleted texture"): which text first needs which glyph
/// should not decide that.
fn warm_font_atlas() {
    let glyphs: Vec<char> = (' '..='~').collect();
    let font = macroquad::text::get_default_font();
    // `draw_text` scales its size by the display's density, rounding up.
    let dpi = macroquad::miniquad::window::dpi_scale();
    for size in TEXT_SIZES {
        font.populate_font_cache(&glyphs, (f32::from(size) * dpi).ceil() as u16);
    }
}

/// Picks the renderer for this window's OpenGL (or the one `--renderer` asks for) and says
/// which, and why, on the console.
fn start_route(args: &Args) -> (draw::Route, Renderer, String) {
    let forced = args.renderer.map(|r| match r {
        RendererArg::Canvas => Renderer::Canvas,
        RendererArg::Instanced => Renderer::Instanced,
    });
    let gl_name = platform::gl_renderer();
    // SAFETY: only reads the context's description.
    let info = unsafe { macroquad::window::get_internal_gl() }
        .quad_context
        .info();
    let instancing = info.features.instancing && info.glsl_support.v330;
    let (mut renderer, mut why) = Renderer::choose(forced, &gl_name, instancing);
    let mut route = None;
    if renderer == Renderer::Instanced {
        // SAFETY: the context is current; the renderer keeps only ids it created.
        let gl = unsafe { macroquad::window::get_internal_gl() };
        match instanced::Instanced::new(gl.quad_context) {
            Ok(i) => route = Some(draw::Route::Instanced(i)),
            Err(_) => {
                renderer = Renderer::Canvas;
                why = "the instancing shader did not compile";
            }
        }
    }
    // The blit needs desktop OpenGL 3 (GLSL 3.30 comes with it); WebGL1 has none.
    let blit = args.blit == Switch::On && info.glsl_support.v330 && !cfg!(target_arch = "wasm32");
    let layout = if blit {
        canvas::Layout::Bgra
    } else {
        canvas::Layout::Rgba
    };
    let route = route.unwrap_or_else(|| draw::Route::Canvas(canvas::Canvas::new(layout)));
    let detail = match renderer {
        Renderer::Canvas => format!(
            "{} bands, {}",
            platform::threads(),
            if blit { "blit" } else { "textured quad" }
        ),
        Renderer::Instanced => "one call".to_owned(),
    };
    println!(
        "renderer: {} ({detail}; {why}) on {gl_name}",
        renderer.name()
    );
    (route, renderer, gl_name)
}

/// Timings of the timed frames of a scripted run, in seconds, in bounded memory.
struct RunTimes {
    frame: Percentiles,
    work: Percentiles,
    draw: Percentiles,
    present: Percentiles,
    step: Percentiles,
    step_wait: Percentiles,
    /// From the last frame's steps coming back to this frame's starting: the part of a frame
    /// that runs while no step does.
    before_steps: Percentiles,
}

async fn run(mut app: App, mut args: Args) {
    warm_font_atlas();
    let (route, renderer, gl_name) = start_route(&args);
    let mut scratch = draw::Scratch::new(route, args.overlay_cache == Switch::On);
    println!(
        "overlay: {}",
        if scratch.overlay.cached() {
            "cached"
        } else {
            "direct"
        }
    );
    // "llvmpipe (LLVM 15.0.6, 256 bits)": the name before the details fits the HUD.
    let short = gl_name.split(" (").next().unwrap_or_default();
    app.renderer = format!("{} on {short}", renderer.name());
    let stand_in = Simulation::new(SimConfig {
        max_particles: 0,
        ..SimConfig::default()
    })
    .expect("the default configuration is valid");
    let mut stepper = stepper::Stepper::new(args.overlap == Switch::On, stand_in);
    let mut panel_text = panel::PanelText::default();
    let mut scripted = Vec::with_capacity(args.panel.len());
    let mut frame: u64 = 0;
    // Bounded whatever `--frames` says: exact up to a limit, then a fixed histogram.
    let timed = || Percentiles::with_capacity(args.frames.unwrap_or(0));
    let mut times = RunTimes {
        frame: timed(),
        work: timed(),
        draw: timed(),
        present: timed(),
        step: timed(),
        step_wait: timed(),
        before_steps: timed(),
    };
    let mut last_frame_start = platform::now_seconds() - 1.0 / platform::MAX_FPS;
    let (mut slept, mut present) = (0.0, 0.0);
    loop {
        let frame_start = platform::now_seconds();
        // The time since the last frame began, pacing sleep included.
        let real = frame_start - last_frame_start;
        let dt = real as f32;
        last_frame_start = frame_start;
        // The steps started last frame ran while it was shown: wait for any still running.
        let stepped = stepper.finish(&mut app.sim);
        let step_wait = platform::now_seconds() - frame_start;
        app.stepped(stepped);
        let view = View::new(
            app.sim.config().world,
            screen_width(),
            screen_height(),
            app.camera,
        );
        frame += 1;
        let last = args.frames.is_some_and(|n| frame >= n);

        let pointer = controls::read_pointer();
        // The panel's clicks, wheel turns and keys are its own, not the world's: the keyboard
        // goes where the pointer is, so no keystroke reaches both a text box and the table.
        let over_panel = panel::is_over(&app, pointer.x, pointer.y);
        if !over_panel {
            panel::release_keyboard();
        }
        for b in BINDINGS {
            if controls::is_active(b) && !panel::takes(b, over_panel) {
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
        scripted.clear();
        scripted.extend(
            args.panel
                .iter()
                .filter(|&&(_, _, at)| at == frame)
                .map(|&(c, v, _)| (c, v)),
        );
        panel::show(&mut app, &scripted, screen_width(), &mut panel_text);
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
        let steps = app.begin_frame(real, args.frames.is_some());
        app.graph.record(dt);
        let view = View::new(
            app.sim.config().world,
            screen_width(),
            screen_height(),
            app.camera,
        );
        let draw_start = platform::now_seconds();
        draw::prepare(&app, &view, &mut scratch);
        let mut draw = platform::now_seconds() - draw_start;
        // The frame's steps: on the step thread while the frame is filled and shown, once
        // nothing more of it reads the simulation (the text over the world, drawn straight
        // onto the window, reads it; the last frame's report too).
        let early = scratch.overlay.cached() && !last;
        if early {
            stepper.start(&mut app.sim, steps, app.fixed.step_seconds());
        }
        let before_steps = platform::now_seconds() - frame_start - step_wait;
        let show_start = platform::now_seconds();
        draw::show(&app, &view, &mut scratch);
        draw += platform::now_seconds() - show_start;
        // The frame's drawing is its CPU part now and the last frame's hand-over to OpenGL.
        app.profile.draw.push((draw + present) * 1e3);
        app.profile.present.push(present * 1e3);
        app.profile.step_wait.push(step_wait * 1e3);
        if args.frames.is_some() && frame > args.warmup.saturating_add(1) {
            times.frame.record(real);
            times.work.record(real - slept);
            times.draw.record(draw + present);
            times.present.record(present);
            times.step_wait.record(step_wait);
            if early {
                times.before_steps.record(before_steps);
            }
            if let Some(t) = stepped.times {
                times.step.record(t.step_ms / 1e3);
            }
        }

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
            report_scripted_run(&app, &view, &mut times.frame);
            println!(
                "step_overlap: {}",
                if stepper.overlaps() { "on" } else { "off" }
            );
            for (name, values) in [
                ("frame_work", &mut times.work),
                ("draw", &mut times.draw),
                ("present", &mut times.present),
                ("step", &mut times.step),
                ("step_wait", &mut times.step_wait),
                ("before_steps", &mut times.before_steps),
            ] {
                if let Some(median) = values.percentile(0.5) {
                    println!("{name}.median: {:.2} ms", median * 1e3);
                }
            }
            if platform::SCRIPTED_RUN_EXITS {
                break;
            }
            // A page stays open: the scripted frame is done, the demo goes on interactively.
            args.frames = None;
        }
        if !early {
            // In line, or on the step thread while the frame is shown.
            stepper.start(&mut app.sim, steps, app.fixed.step_seconds());
        }
        // Handing the frame to OpenGL starts here: choosing the panel's camera flushes the
        // frame's draw calls.
        let present_start = platform::now_seconds();
        scratch.panel.before_present(
            &mut root_ui(),
            screen_width() as u32,
            screen_height() as u32,
        );
        next_frame().await;
        present = platform::now_seconds() - present_start;
        // Paced after the frame is shown, so that showing it counts towards the frame's
        // 1/60 s instead of coming on top of it.
        slept = platform::pace(frame_start);
    }
}

/// The summary a scripted run prints: frames, frame-time statistics, FPS.
fn report_scripted_run(app: &App, view: &View, frame_seconds: &mut Percentiles) {
    println!("particles: {} count", app.sim.len());
    println!("particle_cap: {} count", app.sim.config().max_particles);
    println!("threads: {} count", app.sim.threads());
    println!("broadphase: {}", app.sim.broadphase().name());
    println!("colors: {}", app.display.colors.name());
    let tree = app.sim.config().tree;
    println!("leaf_capacity: {} items", tree.leaf_capacity);
    println!("depth_limit: {} levels", tree.max_depth);
    println!("placement: {}", crate::app::placement_name(tree.placement));
    println!(
        "gravity: {}",
        if app.sim.config().gravity_on {
            "on"
        } else {
            "off"
        }
    );
    println!("query: {}", app.probe.shape().name());
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
