//! The interactive window and its scripted mode: the frame loop.

use macroquad::ui::root_ui;
use macroquad::window::{next_frame, screen_height, screen_width, Conf};
use quadstress_sim::SimError;

use crate::input::controls::{Pointer, BINDINGS};
use crate::input::{controls, platform};
use crate::render::canvas::{Canvas, Layout};
use crate::render::instanced::Instanced;
use crate::render::scene::Painter;
use crate::render::{draw, gl, panel};
use crate::settings::cli::{Args, Switch};
use crate::settings::{files, startup};
use crate::settings::{is_small_window, ui_scale, RendererChoice};
use crate::state::app::App;
use crate::state::profile::FrameTimes;
use crate::state::ramp::Sample;
use crate::state::ramp_window;
use crate::state::script::Script;
use crate::state::stepper::Stepper;
use crate::state::view::{Camera, View};

/// The window's size at start where the screen has room for it.
const START_SIZE: (u32, u32) = (1280, 900);

/// The window's size where an X screen's size could not be read: one most screens hold.
const FALLBACK_SIZE: (u32, u32) = (1024, 768);

/// The window: title, resizable, `size` (`--window`) or else 1280x900, or the X `screen`'s
/// size where that is smaller.
pub fn window_conf(size: Option<(u32, u32)>, screen: Option<(u32, u32)>) -> Conf {
    let unknown = if gl::X11 { FALLBACK_SIZE } else { START_SIZE };
    let screen = screen.unwrap_or(unknown);
    let (width, height) = size.unwrap_or((START_SIZE.0.min(screen.0), START_SIZE.1.min(screen.1)));
    Conf {
        window_title: "quadstress".to_owned(),
        window_width: width as i32,
        window_height: height as i32,
        window_resizable: true,
        ..Default::default()
    }
}

/// Why no window can open, in one line with the way out.
fn no_window(why: gl::NoX11) -> String {
    match why {
        gl::NoX11::NoLibrary => {
            "cannot open a window: libX11 is not installed (Debian: libx11-6, libxi6, libgl1); \
             install it, or use --headless"
                .to_owned()
        }
        gl::NoX11::Unreachable => format!(
            "cannot open the display DISPLAY={} (XOpenDisplay() failed): no X server answers \
             there, or it refused this program (under `xvfb-run -a`, another run may have taken its number: try \
             again); {}",
            std::env::var("DISPLAY").unwrap_or_default(),
            startup::DISPLAY_HINT
        ),
    }
}

/// Turns miniquad's panic when it cannot open the display after all (the server went away
/// between the check and the window) into the same one-line message and exit status as the
/// check's; every other panic is reported as before.
fn refuse_display_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("");
        if message.starts_with("XOpenDisplay() failed") {
            eprintln!("error: {}", no_window(gl::NoX11::Unreachable));
            platform::exit(2);
        } else if message.starts_with("X11 backend failed") {
            eprintln!("error: {}", no_window(gl::NoX11::NoLibrary));
            platform::exit(2);
        }
        default(info);
    }));
}

/// Opens the window and runs the demo until it is closed, Esc is pressed or `--frames` have run.
pub fn run_window(args: Args) -> Result<(), String> {
    // Asked first: a display that does not answer is refused before anything is set up.
    let screen = gl::x11_screen_size().map_err(no_window)?;
    // Fail before opening a window: a bad flag or an unwritable screenshot path (the file
    // itself is left as it is until the last frame replaces it).
    if let Some(path) = &args.screenshot {
        files::check_writable(path).map_err(|e| format!("screenshot: {e}"))?;
    }
    let gravity = args.gravity != Some(Switch::Off);
    let mut app = App::new(
        args.tree_config(),
        gravity,
        args.seed,
        args.broadphase.into(),
        args.threads,
        platform::now_seconds,
    )
    .map_err(|e| e.to_string())?;
    app.display.colors = args.colors;
    if let Some(scale) = args.world_scale.filter(|&s| s != 1.0) {
        app.set_world_scale(scale)?;
    }
    if let Some(scale) = args.zoom {
        let (x, y) = args.center.unwrap_or(app.sim().config().world.center());
        app.camera = Camera::at(scale, x, y);
    }
    app.ramp.budget_ms = args.budget_ms;
    if args.ramp {
        app.ramp.start();
    }
    match app.sim_mut().spawn_burst(args.spawn) {
        Ok(_) => {}
        Err(e @ SimError::CapReached { .. }) => eprintln!("{e}"),
        Err(e) => return Err(e.to_string()),
    }
    if gl::X11 {
        refuse_display_panics();
    }
    let conf = macroquad::conf::Conf {
        miniquad_conf: window_conf(args.window, screen),
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
fn warm_font_atlas(scale: f32) {
    let glyphs: Vec<char> = (' '..='~').collect();
    let font = macroquad::text::get_default_font();
    // `draw_text` scales its size by the display's density, rounding up.
    let dpi = macroquad::miniquad::window::dpi_scale();
    // The help's keys and title are 4 and 6 above the text; the panel's font is 16.
    let extra = [18.0 * scale + 4.0, 18.0 * scale + 6.0, 16.0 * scale];
    // A small window's panel is drawn smaller than its text (see `panel::scale`).
    let small_panel = panel::SMALL_SCALES.map(|s| 16.0 * s);
    for size in TEXT_SIZES
        .map(|s| f32::from(s) * scale)
        .into_iter()
        .chain(extra)
        .chain(small_panel)
    {
        font.populate_font_cache(&glyphs, (size.round() * dpi).ceil() as u16);
    }
}

/// The scale the text is drawn at in the window now (see `settings::ui_scale`).
fn text_scale() -> f32 {
    let (w, h) = (screen_width(), screen_height());
    if is_small_window(w, h) {
        1.0
    } else {
        ui_scale(w, h)
    }
}

/// Picks the renderer for this window's OpenGL (or the one `--renderer` asks for) and says
/// which, and why, on the console; returns it and the OpenGL's name.
fn start_painter(args: &Args) -> (Box<dyn Painter>, String) {
    let gl_name = gl::renderer_name();
    let info = gl::context_info();
    let (renderer, mut why) = RendererChoice::choose(args.renderer, &gl_name, info.instancing);
    let mut painter: Option<Box<dyn Painter>> = None;
    if renderer == RendererChoice::Instanced {
        match gl::with_backend(Instanced::new) {
            Ok(i) => painter = Some(Box::new(i)),
            Err(_) => why = "the instancing shader did not compile",
        }
    }
    // The blit needs desktop OpenGL 3 (GLSL 3.30 comes with it); WebGL1 has none.
    let blit = args.blit == Switch::On && info.glsl_330 && !cfg!(target_arch = "wasm32");
    let painter = painter
        .unwrap_or_else(|| Box::new(Canvas::new(if blit { Layout::Bgra } else { Layout::Rgba })));
    let detail = match painter.renderer() {
        RendererChoice::Canvas => format!(
            "{} bands, {}",
            platform::threads(),
            if blit { "blit" } else { "textured quad" }
        ),
        RendererChoice::Instanced => "one call".to_owned(),
    };
    println!(
        "renderer: {} ({detail}; {why}) on {gl_name}",
        painter.renderer().name()
    );
    (painter, gl_name)
}

/// The view of `app`'s world in the window as it is now.
fn view_of(app: &App) -> View {
    View::new(
        app.sim().config().world,
        screen_width(),
        screen_height(),
        app.camera,
    )
}

/// This frame's input through the controls table. The panel's clicks, wheel turns and keys
/// are its own, not the world's: the keyboard goes where the pointer is, so no keystroke
/// reaches both a text box and the table.
fn take_input(app: &mut App, dt: f32, view: &View, pointer: Pointer) {
    let over_panel = panel::is_over(app, pointer.x, pointer.y);
    if !over_panel {
        panel::release_keyboard();
    }
    for b in BINDINGS {
        if controls::is_active(b) && !panel::takes(b, over_panel) {
            app.act(b, dt, view, pointer);
        } else {
            app.release(b);
        }
    }
}

/// Saves the window's pixels to `path` as an opaque PNG, through a temporary file (see
/// `files`).
#[cfg(not(target_arch = "wasm32"))]
fn save_screenshot(path: &std::path::Path) -> Result<(), String> {
    let image = macroquad::texture::get_screen_data();
    let (w, h) = (usize::from(image.width), usize::from(image.height));
    // OpenGL's rows run bottom to top; a PNG's top to bottom.
    let mut rgba = Vec::with_capacity(w * h * 4);
    for row in image.bytes.chunks_exact(w * 4).rev() {
        for px in row.chunks_exact(4) {
            rgba.extend_from_slice(&[px[0], px[1], px[2], 255]);
        }
    }
    files::write_via_temporary(path, |tmp| {
        let failed =
            |e: &dyn std::fmt::Display| format!("cannot write screenshot {}: {e}", path.display());
        let file = std::fs::File::create(tmp).map_err(|e| failed(&e))?;
        let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), w as u32, h as u32);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(|e| failed(&e))?;
        writer.write_image_data(&rgba).map_err(|e| failed(&e))?;
        writer.finish().map_err(|e| failed(&e))
    })?;
    println!("screenshot: {}", path.display());
    Ok(())
}

/// The frame loop: input, the frame's steps, drawing, as in macroquad's examples, with the
/// steps of one frame running on the step thread while the next is drawn and shown.
async fn run(mut app: App, args: Args) {
    // Only the scale in use: every scale's glyphs at once grow macroquad's atlas past what it
    // packs reliably. A window resized to another scale warms that one before drawing.
    let mut warm_scale = text_scale();
    warm_font_atlas(warm_scale);
    let (painter, gl_name) = start_painter(&args);
    // "llvmpipe (LLVM 15.0.6, 256 bits)": the name before the details fits the HUD.
    let short = gl_name.split(" (").next().unwrap_or_default();
    app.renderer = format!("{} on {short}", painter.renderer().name());
    let mut renderer = draw::Renderer::new(painter, args.overlay_cache == Switch::On);
    println!(
        "overlay: {}",
        if renderer.overlay.cached() {
            "cached"
        } else {
            "direct"
        }
    );
    // A small window starts with the world in view: the panel opens with `P`.
    if is_small_window(screen_width(), screen_height()) {
        app.display.panel = false;
    }
    let mut stepper = Stepper::new(args.overlap == Switch::On);
    let mut script = Script::new(&args);
    let mut panel_text = panel::PanelText::default();
    let mut last_frame_start = platform::now_seconds() - 1.0 / platform::MAX_FPS;
    let (mut slept, mut present, mut last_draw) = (0.0, 0.0, 0.0);
    // The frame a scripted run ends at once its ramp stopped: half a second on, chart drawn.
    let mut ramp_end: Option<u64> = None;
    loop {
        let frame_start = platform::now_seconds();
        // The time since the last frame began, pacing sleep included.
        let real = frame_start - last_frame_start;
        let dt = real as f32;
        last_frame_start = frame_start;
        // The steps started last frame ran while it was shown: wait for any still running.
        let stepped = stepper.finish(app.sim_slot());
        let step_wait = platform::now_seconds() - frame_start;
        app.stepped(stepped);
        script.next_frame();
        if text_scale() != warm_scale {
            warm_scale = text_scale();
            warm_font_atlas(warm_scale);
        }
        let sample = Sample {
            step_ms: stepped.times.map(|t| t.step_ms),
            draw_ms: Some((last_draw + present) * 1e3),
            frame_ms: Some(real * 1e3),
        };
        if ramp_window::frame(&mut app, sample)
            || (script.is_last() && ramp_window::stop_for_frames(&mut app))
        {
            ramp_window::report(&app, args.csv.as_deref(), args.plot.as_deref());
            // A ramp asked for its files or a number of frames is a scripted run: it ends
            // once done (it used to write its files and stay open); one started by hand
            // stays, and says how to close it.
            if script.scripted() || args.csv.is_some() || args.plot.is_some() {
                ramp_end = Some(script.frame() + 30);
            } else {
                app.say(format_args!(
                    "ramp done: R closes the chart, Esc (twice with the panel open) ends the demo"
                ));
            }
        }
        let last = script.is_last() || ramp_end.is_some_and(|end| script.frame() >= end);

        let view = view_of(&app);
        let pointer = controls::read_pointer();
        take_input(&mut app, dt, &view, pointer);
        // `--pointer` places the scripted inputs' cursor, as headless.
        let scripted_pointer = args.pointer.map_or(pointer, |(x, y)| {
            let (sx, sy) = view.to_screen(x, y);
            Pointer {
                x: sx,
                y: sy,
                wheel: 0.0,
            }
        });
        script.press(&mut app, dt, &view, scripted_pointer);
        panel::show(
            &mut app,
            script.panel_settings(),
            (screen_width(), screen_height()),
            &mut panel_text,
        );
        script.move_quad(&mut app);
        let steps = app.begin_frame(real, script.scripted());
        let view = view_of(&app);
        let draw_start = platform::now_seconds();
        draw::prepare(&app, &view, &mut renderer);
        let mut draw = platform::now_seconds() - draw_start;
        // The frame's steps: on the step thread while the frame is filled and shown, once
        // nothing more of it reads the simulation (the text over the world, drawn straight
        // onto the window, reads it; the last frame's report too).
        let early = renderer.overlay.cached() && !last;
        let step_seconds = app.fixed.step_seconds();
        let mut steps_started = early;
        if early {
            stepper.start(app.sim_slot(), steps, step_seconds);
        }
        let before_steps = platform::now_seconds() - frame_start - step_wait;
        let show_start = platform::now_seconds();
        draw::show(&app, &view, &mut renderer);
        draw += platform::now_seconds() - show_start;
        last_draw = draw;
        // The frame's drawing is its CPU part now and the last frame's hand-over to OpenGL.
        let times = FrameTimes {
            frame: real,
            slept,
            draw: draw + present,
            present,
            step_wait,
            before_steps: early.then_some(before_steps),
            step: stepped.times.map(|t| t.step_ms / 1e3),
        };
        app.profile.record(frame_start, &times);
        script.record(times);

        if app.quit_requested() && platform::SCRIPTED_RUN_EXITS {
            println!("quit: esc at frame {}", script.frame());
            break;
        }
        if last {
            #[cfg(not(target_arch = "wasm32"))]
            let saved = args.screenshot.as_deref().map(save_screenshot);
            // A page writes no files (`--screenshot` is refused there).
            #[cfg(target_arch = "wasm32")]
            let saved: Option<Result<(), String>> = None;
            // The last frame's steps run before the report (after its picture), so that it
            // tells the state after every scripted frame's steps, as a headless run does.
            let stepped = crate::state::stepper::run_steps(
                app.sim_mut(),
                steps,
                step_seconds,
                platform::now_seconds,
            );
            app.stepped(stepped);
            steps_started = true;
            script.report(&app, &view, stepper.overlaps());
            if let Some(Err(e)) = saved {
                eprintln!("error: {e}");
                platform::exit(1);
            }
            if platform::SCRIPTED_RUN_EXITS {
                break;
            }
            // A page stays open: the scripted frame is done, the demo goes on interactively.
            script.end();
        }
        if !steps_started {
            // In line, or on the step thread while the frame is shown.
            stepper.start(app.sim_slot(), steps, step_seconds);
        }
        // Handing the frame to OpenGL starts here: choosing the panel's camera flushes the
        // frame's draw calls.
        let present_start = platform::now_seconds();
        renderer.panel.before_present(
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
