//! Checks and settings that come before either mode starts: flags that contradict each
//! other, the thread count every pool of the program uses, and a window with no display.

use quadstress_sim::{SimConfig, MAX_PARTICLES};

use crate::settings::cli::{Args, Switch};
use crate::settings::{
    particle_cap_of, particles_covering, scaled_world, MAX_COVERAGE, PARTICLE_SIZE,
};

/// Refuses flags that contradict each other, whatever the mode, and window-only flags in a
/// headless run.
pub fn check(args: &Args) -> Result<(), String> {
    if let Some(frames) = args.frames {
        if args.warmup > 0 && args.warmup >= frames {
            return Err(format!(
                "--warmup {} leaves none of --frames {frames} to time: the warm-up must be \
                 shorter than the run",
                args.warmup
            ));
        }
    }
    if args.headless {
        if let Some(flag) = args.window_only_given.first() {
            return Err(format!(
                "--{} is for the window: a headless run draws nothing and cannot honour it \
                 (leave it out, or drop --headless)",
                flag.replace('_', "-")
            ));
        }
    }
    Ok(())
}

/// Makes `--threads` govern every pool of the program: the simulation's own (set where each
/// mode builds it) and rayon's global pool, which the canvas's bands and the depth walk run
/// on. Warns when the count is above the machine's cores, where the threads take turns.
pub fn apply_threads(args: &Args) {
    let Some(threads) = args.threads else {
        return;
    };
    #[cfg(not(target_arch = "wasm32"))]
    {
        if let Ok(cores) = std::thread::available_parallelism() {
            if threads > cores.get() {
                eprintln!(
                    "warning: --threads {threads} is more than this machine's {cores} cores: \
                     the threads take turns, and every phase runs slower"
                );
            }
        }
        // Built once, before anything runs on it: this cannot fail but for a second call.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global();
    }
    #[cfg(target_arch = "wasm32")]
    let _ = threads;
}

/// The hint every refused display ends with: how to run the demo without one.
pub const DISPLAY_HINT: &str =
    "run the window under a virtual one, `xvfb-run -a quadstress ...`, or use --headless";

/// On Linux and the BSDs, the window is an X11 window (miniquad's default; under Wayland it
/// opens through XWayland's `DISPLAY`): without `DISPLAY`, says to use `xvfb-run` (or
/// `--headless`) instead of the windowing library's panic. A display that is set but does
/// not answer is refused by the window itself, which asks it (see `window::run_window`).
pub fn check_display() -> Result<(), String> {
    #[cfg(all(
        unix,
        not(target_os = "macos"),
        not(target_os = "ios"),
        not(target_os = "android"),
        not(target_arch = "wasm32")
    ))]
    {
        if std::env::var_os("DISPLAY").is_none_or(|v| v.is_empty()) {
            let wayland = std::env::var_os("WAYLAND_DISPLAY").is_some_and(|v| !v.is_empty());
            return Err(format!(
                "no display (DISPLAY is unset{}): {DISPLAY_HINT}",
                if wayland {
                    "; the window needs X11, which Wayland offers through XWayland's DISPLAY"
                } else {
                    ""
                }
            ));
        }
    }
    Ok(())
}

/// The share of a headless run's square world its particles cover unless `--coverage` says
/// otherwise.
pub const DEFAULT_COVERAGE: f32 = 0.1;

/// The one set-up of the headless runs' simulation: the world (the window's at
/// `--world-scale`, or a square that `particles` cover to `--coverage`), its cap (never more
/// than [`MAX_COVERAGE`] of its area, as in the window), and the flags' seed, gravity, broad
/// phase and tree. `ramp` is the headless ramp's: gravity on unless `--gravity off` (the
/// window's scene), and a cap of `--coverage` of the area, where the ramp widens the world.
///
/// # Errors
/// A message for a coverage outside (0, [`MAX_COVERAGE`]], one so small that the world would
/// hold more than [`MAX_PARTICLES`], `--coverage` with `--world-scale` outside the ramp, or
/// more `particles` than the world holds.
pub fn headless_config(args: &Args, particles: usize, ramp: bool) -> Result<SimConfig, String> {
    let coverage = args.coverage.unwrap_or(DEFAULT_COVERAGE);
    if !(coverage.is_finite() && coverage > 0.0 && coverage <= MAX_COVERAGE) {
        return Err(format!(
            "--coverage must be above 0 and at most {MAX_COVERAGE} (the world's cap), got {coverage}"
        ));
    }
    let world = match args.world_scale {
        Some(_) if args.coverage.is_some() && !ramp => {
            return Err(
                "--world-scale runs the window's world; --coverage sizes a square one for \
                 --particles: give one of them"
                    .to_owned(),
            )
        }
        Some(scale) => scaled_world(scale),
        None => SimConfig::with_coverage(particles.max(1), coverage).world,
    };
    let cap = if ramp {
        particles_covering(world, coverage)
    } else {
        particle_cap_of(world)
    };
    if cap > MAX_PARTICLES {
        // A tiny coverage makes a world that would hold more particles than a simulation
        // indexes: say which flag did it, not which derived setting refused it.
        let world = if world.width().is_finite() && world.height().is_finite() {
            format!(
                "{} x {} units, room for {cap}",
                world.width(),
                world.height()
            )
        } else {
            "beyond f32's range".to_owned()
        };
        return Err(format!(
            "--coverage {coverage:?} is too small for --particles {particles}: their world \
             ({world}) would hold more than the {MAX_PARTICLES} particles a simulation takes; \
             give a larger --coverage"
        ));
    }
    if particles > cap {
        let share = if ramp { coverage } else { MAX_COVERAGE };
        return Err(format!(
            "{particles} particles are more than the world holds: {cap} cover {:.0}% of its \
             {} x {} units",
            share * 100.0,
            world.width(),
            world.height()
        ));
    }
    let gravity_on = match args.gravity {
        Some(g) => g == Switch::On,
        None => ramp,
    };
    Ok(SimConfig {
        world,
        particle_size: PARTICLE_SIZE,
        max_particles: cap,
        gravity_on,
        seed: args.seed,
        broadphase: args.broadphase.into(),
        tree: args.tree_config(),
        ..SimConfig::default()
    })
}
