//! Checks and settings that come before either mode starts: flags that contradict each
//! other, the thread count every pool of the program uses, and a window with no display.

use super::cli::Args;

/// Refuses flags that contradict each other, whatever the mode.
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

/// On Linux and the BSDs, a window needs an X or Wayland display: without one, says to use
/// `xvfb-run` (or `--headless`) instead of the windowing library's panic.
pub fn check_display() -> Result<(), String> {
    #[cfg(all(
        unix,
        not(target_os = "macos"),
        not(target_os = "ios"),
        not(target_os = "android")
    ))]
    {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        if !set("DISPLAY") && !set("WAYLAND_DISPLAY") {
            return Err(
                "no display (DISPLAY and WAYLAND_DISPLAY are unset): run the window \
                        under a virtual one, `xvfb-run -a quadstress ...`, or use --headless"
                    .to_owned(),
            );
        }
    }
    Ok(())
}
