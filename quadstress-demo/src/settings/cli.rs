//! Command-line flags of the `quadstress` binary: the windowed demo, its scripted mode, and
//! the headless stress mode.

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};
use quadstress::{Config, Placement};
use quadstress_sim::Broadphase;

use crate::input::controls;
use crate::settings::panel_controls::{self, Control, Value};
use crate::settings::{ColorMode, RendererChoice, MAX_WORLD_SCALE, MAX_ZOOM, MIN_WORLD_SCALE};

/// The quadstress demo: particles in a quadtree, live.
///
/// With no flags, opens the interactive window. `--headless` runs the simulation with no
/// window and no display server and prints timings. `--spawn`, `--frames`, `--right-click`,
/// `--press`, `--zoom` and `--screenshot` script a windowed run for tests.
#[derive(Parser, Debug, Clone)]
#[command(name = "quadstress", version, about)]
pub struct Args {
    /// Print the controls table (Markdown, as in README.md) and exit.
    #[arg(long)]
    pub controls: bool,

    /// Run without a window: simulate and print per-phase timings as `name: value unit` lines.
    #[arg(long)]
    pub headless: bool,

    /// Headless: number of particles.
    #[arg(long, default_value_t = 100_000, value_parser = parse_whole::<usize>, allow_hyphen_values = true)]
    pub particles: usize,

    /// Headless: the world is a square sized so that `--particles` cover this fraction of it
    /// (at most 0.85, the world's cap); with `--ramp`, the share it fills before it widens
    /// [default: 0.1].
    #[arg(long, allow_hyphen_values = true)]
    pub coverage: Option<f32>,

    /// Exit after this many frames (headless: frames to simulate; windowed: scripted run).
    #[arg(long, value_parser = parse_whole::<u64>, allow_hyphen_values = true)]
    pub frames: Option<u64>,

    /// Worker threads of every pool: the simulation's phases, the canvas's bands, the depth
    /// walk [default: every core]; above the machine's cores it warns. Any count gives the
    /// same particles, bit for bit (headless prints `state_hash`).
    #[arg(long, value_name = "N", value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<usize>,

    /// The window's world, its width and height this many times the default (3072 x 2304);
    /// the particle cap grows with its area: 2 holds about 376,000 particles. Headless, the
    /// run simulates this world and its cap instead of the square of `--coverage`
    /// [default: 1 in the window].
    #[arg(long, value_name = "SCALE", value_parser = parse_world_scale, allow_hyphen_values = true)]
    pub world_scale: Option<f32>,

    /// Seed of the random generator.
    #[arg(long, default_value_t = 1, value_parser = parse_whole::<u64>, allow_hyphen_values = true)]
    pub seed: u64,

    /// Broad phase to start with.
    #[arg(long, value_enum, default_value_t = Mode::Incremental)]
    pub broadphase: Mode,

    /// Gravity at start [default: on in the window and the headless ramp (the window's
    /// scene); off in other headless runs, so the particles stay spread at the requested
    /// coverage instead of piling up].
    #[arg(long, value_enum)]
    pub gravity: Option<Switch>,

    /// Items a quadtree leaf holds before it splits.
    #[arg(long, default_value_t = Config::default().leaf_capacity, value_parser = parse_whole::<usize>, allow_hyphen_values = true)]
    pub capacity: usize,

    /// Depth limit of the quadtree.
    #[arg(long, default_value_t = Config::default().max_depth, value_parser = parse_whole::<u8>, allow_hyphen_values = true)]
    pub depth: u8,

    /// Where the quadtree puts an item: the smallest node containing it, or a loose node
    /// chosen by its centre and size.
    #[arg(long, value_enum, default_value_t = PlacementArg::Exact)]
    pub placement: PlacementArg,

    /// Headless: time step in seconds, from 0.0001 to 0.1.
    #[arg(long, default_value_t = 1.0 / 60.0, value_parser = parse_dt, allow_hyphen_values = true)]
    pub dt: f32,

    /// Find this machine's limit: add particles steadily (seeded, the same ones every run)
    /// until the frames (windowed; the world widens as it fills) or the steps (headless,
    /// starting from 1,000 particles) miss `--budget-ms` two seconds in a row, then print
    /// `ramp.max_particles` and the curve of times against the particle count.
    #[arg(long)]
    pub ramp: bool,

    /// With `--ramp`: a frame's (windowed) or a step's (headless) time budget in milliseconds;
    /// 16.7 is 60 FPS.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_BUDGET_MS, value_parser = parse_budget, allow_hyphen_values = true)]
    pub budget_ms: f64,

    /// With `--ramp`: write the curve's points to this CSV file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<std::path::PathBuf>,

    /// With `--ramp`: draw the curve into this file, a PNG or an SVG by its extension.
    #[arg(long, value_name = "FILE", value_parser = parse_plot_path)]
    pub plot: Option<std::path::PathBuf>,

    /// The cursor of scripted input at these world coordinates, e.g. `1000,200`: a scripted
    /// `--press LeftMouse@N` sprays particles there (windowed and headless alike).
    #[arg(long, value_name = "X,Y", value_parser = parse_point, allow_hyphen_values = true)]
    pub pointer: Option<(f32, f32)>,

    /// Windowed: particles spawned at start.
    #[arg(long, default_value_t = 0, value_parser = parse_whole::<usize>, allow_hyphen_values = true)]
    pub spawn: usize,

    /// Windowed: right-click at these world coordinates on the first frame, e.g. `700,500`;
    /// the report then follows the quad and is printed again after the last frame.
    #[arg(long, value_name = "X,Y", value_parser = parse_point, allow_hyphen_values = true)]
    pub right_click: Option<(f32, f32)>,

    /// Windowed: move the blue quad by this many world units every frame, e.g. `4,0`.
    #[arg(long, value_name = "DX,DY", value_parser = parse_point, allow_hyphen_values = true)]
    pub move_quad: Option<(f32, f32)>,

    /// Windowed: start zoomed to this many pixels per world unit (1 = 1:1, up to 4).
    #[arg(long, value_parser = parse_zoom, allow_hyphen_values = true)]
    pub zoom: Option<f32>,

    /// Windowed: the world point at the window's centre when zoomed [default: the world's
    /// centre].
    #[arg(long, value_name = "X,Y", value_parser = parse_point, allow_hyphen_values = true)]
    pub center: Option<(f32, f32)>,

    /// Windowed: what the particles' colours show at start.
    #[arg(long, value_enum, default_value_t = ColorMode::Depth)]
    pub colors: ColorMode,

    /// Act as if an input of the controls table (named as in the help, e.g. `B`, `esc`,
    /// `LeftMouse`) were pressed on frame N, e.g. `B@3`, or held from frame N to M, e.g.
    /// `LeftMouse@300-400`; repeatable. Headless takes the inputs that change the simulation.
    #[arg(long, value_name = "LABEL@N", value_parser = parse_press, allow_hyphen_values = true)]
    pub press: Vec<(String, std::ops::RangeInclusive<u64>)>,

    /// Windowed: set a control of the controls panel on frame N, through its widget, e.g.
    /// `capacity=64@3`, `gravity=off@2`, `query=circle@1`, `clear@5` (a button); repeatable.
    #[arg(long, value_name = "NAME=VALUE@N", value_parser = parse_panel, allow_hyphen_values = true)]
    pub panel: Vec<(&'static Control, Value, u64)>,

    /// Windowed: frames run before the frame times are recorded (a pile settles untimed).
    #[arg(long, default_value_t = 0, value_parser = parse_whole::<u64>, allow_hyphen_values = true)]
    pub warmup: u64,

    /// Windowed: save the last frame to this PNG file.
    #[arg(long, value_name = "FILE")]
    pub screenshot: Option<std::path::PathBuf>,

    /// Windowed: the window's size in pixels, e.g. `640x480` or `2560x1600` [default:
    /// 1280x900, or the screen's size where that is smaller].
    #[arg(long, value_name = "WxH", value_parser = parse_window, allow_hyphen_values = true)]
    pub window: Option<(u32, u32)>,

    /// Which flags the command line (or the page's URL) gave, of [`WINDOW_ONLY`]'s: a
    /// headless run refuses them.
    #[arg(skip)]
    pub window_only_given: Vec<&'static str>,

    /// Windowed: how particles and outlines are drawn (default: chosen from the OpenGL
    /// renderer: the canvas under software OpenGL, instancing on a GPU).
    #[arg(long, value_enum)]
    pub renderer: Option<RendererChoice>,

    /// Windowed: run the simulation's steps on a second thread while the frame is shown
    /// (the same particles either way: the steps never read the clock).
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub overlap: Switch,

    /// Windowed: keep the text over the world (statistics, report, help) and the controls
    /// panel in render targets, redrawn when they change and every 15 frames for the timings
    /// (off: drawn every frame, the same pixels).
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub overlay_cache: Switch,

    /// Windowed, canvas renderer: show the canvas by copying it onto the window with a
    /// framebuffer blit, filled in the window's own pixel order (desktop OpenGL 3 and newer);
    /// off: as a textured quad over the window (as in WebGL). The same pixels either way.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub blit: Switch,
}

/// The demo's flags: the command line on the desktop. In a web page, the page's URL parameters
/// read as flags, `?spawn=6000&frames=60&right-click=2100,1500` as
/// `--spawn 6000 --frames 60 --right-click 2100,1500` (a parameter with no value is a switch).
///
/// `None` when the flags are refused on the web; the message is already in the console (on the
/// desktop clap prints it and exits).
pub fn script_args() -> Option<Args> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        Some(parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit()))
    }
    #[cfg(target_arch = "wasm32")]
    {
        let words = crate::input::platform::page_args();
        let argv = std::iter::once("quadstress").chain(words.iter().map(String::as_str));
        match parse_from(argv) {
            Ok(args) if args.screenshot.is_some() => {
                eprintln!("error: a page cannot write files; take screenshots with the browser");
                None
            }
            Ok(args) => Some(args),
            Err(e) => {
                eprintln!("{e}");
                None
            }
        }
    }
}

/// The flags (by their ids, the fields' names) only a window honours: they draw, place the
/// view, time frames or start with particles of the window's own. A headless run refuses
/// them rather than run without them.
pub const WINDOW_ONLY: &[&str] = &[
    "spawn",
    "right_click",
    "move_quad",
    "zoom",
    "center",
    "colors",
    "warmup",
    "screenshot",
    "renderer",
    "overlap",
    "overlay_cache",
    "blit",
    "window",
];

/// Parses `argv` (the program's name first) and notes which [`WINDOW_ONLY`] flags it gave.
///
/// # Errors
/// clap's, for flags it refuses.
pub fn parse_from<I, T>(argv: I) -> Result<Args, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let matches = Args::command().try_get_matches_from(argv)?;
    let mut args = Args::from_arg_matches(&matches)?;
    args.window_only_given = WINDOW_ONLY
        .iter()
        .copied()
        .filter(|id| matches.value_source(id) == Some(ValueSource::CommandLine))
        .collect();
    Ok(args)
}

impl Args {
    /// The tree settings the flags give (`--capacity`, `--depth`, `--placement`).
    pub fn tree_config(&self) -> Config {
        Config {
            leaf_capacity: self.capacity,
            max_depth: self.depth,
            placement: self.placement.into(),
        }
    }
}

/// On or off.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Switch {
    /// On.
    On,
    /// Off.
    Off,
}

/// Placement names on the command line.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementArg {
    /// The smallest node whose cell contains the item.
    Exact,
    /// A loose quadtree: nodes enlarged by half a cell, items placed by centre and size.
    Loose,
}

impl From<PlacementArg> for Placement {
    fn from(p: PlacementArg) -> Self {
        match p {
            PlacementArg::Exact => Placement::Exact,
            PlacementArg::Loose => Placement::Loose,
        }
    }
}

/// Broad-phase names on the command line.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Quadtree updated incrementally.
    Incremental,
    /// Quadtree rebuilt every frame.
    Rebuild,
    /// Every pair tested.
    Brute,
}

impl From<Mode> for Broadphase {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Incremental => Broadphase::Incremental,
            Mode::Rebuild => Broadphase::Rebuild,
            Mode::Brute => Broadphase::BruteForce,
        }
    }
}

/// A whole number for a count flag: a fraction or a sign is refused with that reason, not
/// "invalid digit".
fn parse_whole<T: std::str::FromStr>(s: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    let t = s.trim();
    if t.starts_with('-') && t[1..].parse::<f64>().is_ok() {
        return Err(format!("expected a whole number of 0 or more, got {s:?}"));
    }
    if t.contains(['.', 'e', 'E']) && t.parse::<f64>().is_ok() {
        return Err(format!("expected a whole number, got {s:?}"));
    }
    t.parse()
        .map_err(|e| format!("expected a whole number, got {s:?} ({e})"))
}

/// The smallest and largest window side `--window` takes, in pixels.
pub const WINDOW_SIDES: std::ops::RangeInclusive<u32> = 320..=8192;

fn parse_window(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .trim()
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WxH, e.g. 640x480, got {s:?}"))?;
    let side = |v: &str| -> Result<u32, String> {
        let n: u32 = parse_whole(v).map_err(|e| format!("{e} in --window {s:?}"))?;
        if !WINDOW_SIDES.contains(&n) {
            return Err(format!(
                "window sides must be {} to {} pixels, got {s:?}",
                WINDOW_SIDES.start(),
                WINDOW_SIDES.end()
            ));
        }
        Ok(n)
    };
    Ok((side(w)?, side(h)?))
}

fn parse_point(s: &str) -> Result<(f32, f32), String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("expected X,Y, got {s:?}"))?;
    let x: f32 = x.trim().parse().map_err(|e| format!("bad X {x:?}: {e}"))?;
    let y: f32 = y.trim().parse().map_err(|e| format!("bad Y {y:?}: {e}"))?;
    if !(x.is_finite() && y.is_finite()) {
        return Err(format!("coordinates must be finite, got {s:?}"));
    }
    Ok((x, y))
}

fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = parse_whole(s)?;
    if !(1..=quadstress_sim::MAX_THREADS).contains(&n) {
        return Err(format!(
            "threads must be between 1 and {}, got {s:?}",
            quadstress_sim::MAX_THREADS
        ));
    }
    Ok(n)
}

fn parse_world_scale(s: &str) -> Result<f32, String> {
    let k: f32 = s
        .trim()
        .parse()
        .map_err(|e| format!("bad world scale {s:?}: {e}"))?;
    if !(k.is_finite() && (MIN_WORLD_SCALE..=MAX_WORLD_SCALE).contains(&k)) {
        return Err(format!(
            "world scale must be between {MIN_WORLD_SCALE} and {MAX_WORLD_SCALE}, got {s:?}"
        ));
    }
    Ok(k)
}

fn parse_zoom(s: &str) -> Result<f32, String> {
    let z: f32 = s
        .trim()
        .parse()
        .map_err(|e| format!("bad zoom {s:?}: {e}"))?;
    if !(z.is_finite() && z > 0.0 && z <= MAX_ZOOM) {
        return Err(format!(
            "zoom must be above 0 and at most {MAX_ZOOM}, got {s:?}"
        ));
    }
    Ok(z)
}

fn parse_press(s: &str) -> Result<(String, std::ops::RangeInclusive<u64>), String> {
    let (label, frames) = s.rsplit_once('@').unwrap_or((s, "1"));
    let frame = |f: &str| -> Result<u64, String> {
        let n: u64 = f
            .trim()
            .parse()
            .map_err(|e| format!("bad frame in {s:?}: {e}"))?;
        Ok(n.max(1))
    };
    // `N` presses on frame N; `N-M` holds the input from frame N to frame M.
    let (first, last) = match frames.split_once('-') {
        Some((a, b)) => (frame(a)?, frame(b)?),
        None => (frame(frames)?, frame(frames)?),
    };
    if first > last {
        return Err(format!("frames {first}-{last} run backwards in {s:?}"));
    }
    if controls::by_label(label).next().is_none() {
        return Err(format!(
            "no input named {label:?} in the controls table (see --controls)"
        ));
    }
    Ok((label.to_owned(), first..=last))
}

fn parse_panel(s: &str) -> Result<(&'static Control, Value, u64), String> {
    let (setting, frame) = s.rsplit_once('@').unwrap_or((s, "1"));
    let frame: u64 = frame
        .trim()
        .parse()
        .map_err(|e| format!("bad frame in {s:?}: {e}"))?;
    let (control, value) = panel_controls::parse_setting(setting)?;
    Ok((control, value, frame.max(1)))
}

/// The ramp's budget unless `--budget-ms` says otherwise: a frame at 60 FPS.
pub const DEFAULT_BUDGET_MS: f64 = 16.7;

/// The largest `--budget-ms`: a ten-second frame is no stress test.
pub const MAX_BUDGET_MS: f64 = 10_000.0;

fn parse_budget(s: &str) -> Result<f64, String> {
    let ms: f64 = s
        .trim()
        .parse()
        .map_err(|e| format!("bad budget {s:?}: {e}"))?;
    if !(ms.is_finite() && ms > 0.0 && ms <= MAX_BUDGET_MS) {
        return Err(format!(
            "budget must be above 0 and at most {MAX_BUDGET_MS} ms, got {s:?}"
        ));
    }
    Ok(ms)
}

fn parse_plot_path(s: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(s);
    match PlotFormat::of(&path) {
        Some(_) => Ok(path),
        None => Err(format!(
            "the plot's file must end in .png or .svg, got {s:?}"
        )),
    }
}

/// The range of `--dt`, in seconds: steps of 10 kHz to 10 Hz. A step of 0 moves nothing,
/// and one much longer than the demo's 1/60 s lets particles pass through each other.
pub const DT_RANGE: std::ops::RangeInclusive<f32> = 0.0001..=0.1;

fn parse_dt(s: &str) -> Result<f32, String> {
    let dt: f32 = s
        .trim()
        .parse()
        .map_err(|e| format!("bad time step {s:?}: {e}"))?;
    if !DT_RANGE.contains(&dt) {
        return Err(format!(
            "the time step must be between {} and {} seconds (60 Hz is 0.0167), got {s:?}",
            DT_RANGE.start(),
            DT_RANGE.end()
        ));
    }
    Ok(dt)
}

/// The file formats `--plot` writes, by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotFormat {
    /// `.png`.
    Png,
    /// `.svg`.
    Svg,
}

impl PlotFormat {
    /// The format a path's extension names (any case), if it names one.
    pub fn of(path: &std::path::Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(PlotFormat::Png),
            "svg" => Some(PlotFormat::Svg),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn plot_formats_follow_the_extension() {
        assert_eq!(
            PlotFormat::of(Path::new("a/curve.PNG")),
            Some(PlotFormat::Png)
        );
        assert_eq!(
            PlotFormat::of(Path::new("curve.svg")),
            Some(PlotFormat::Svg)
        );
        assert_eq!(PlotFormat::of(Path::new("curve.jpg")), None);
        assert_eq!(PlotFormat::of(Path::new("curve")), None);
    }
}
