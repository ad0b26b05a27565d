//! Running a binary of the workspace (the demo) as a person would, in its own process.

use std::process::{Command, Output};
use std::time::Duration;

/// Runs `bin` with `args` and no display server (`DISPLAY` and `WAYLAND_DISPLAY` unset), so
/// that a windowed run is refused the way it is on a machine without one.
pub fn without_display(bin: &str, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("the binary runs")
}

/// Runs `bin` with `args` on the display it was given. Two windowed runs at once on one Xvfb
/// now and then find the server refusing a connection: such a run never reached the
/// program's code, so it is tried again (three times, half a second apart); any other
/// failure stands.
pub fn windowed(bin: &str, args: &[&str]) -> Output {
    let run = || {
        Command::new(bin)
            .args(args)
            .output()
            .expect("the binary runs")
    };
    let mut out = run();
    for _ in 0..3 {
        let refused = String::from_utf8_lossy(&out.stderr).contains("XOpenDisplay() failed");
        if out.status.success() || !refused {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
        out = run();
    }
    out
}

/// The standard output of a run that must have succeeded; panics with its standard error
/// (and output) otherwise.
pub fn succeeded(args: &[&str], out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?} failed ({:?}): {}\n{stdout}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
