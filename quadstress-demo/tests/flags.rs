//! The demo binary given hostile flags: absurd counts, wrapping sums, empty runs. Each is
//! refused with a message before any work, or runs in bounded memory and prints only what it
//! measured.
//!
//! The windowed test needs an X server:
//! `xvfb-run -a -s "-screen 0 1024x768x24" cargo test --release --test flags -- --ignored`

use std::process::{Command, Output};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_quadstress");

fn quadstress(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("the demo binary runs")
}

fn stdout_of(args: &[&str]) -> String {
    let out = quadstress(args);
    assert!(
        out.status.success(),
        "quadstress {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The run is refused with a message on standard error, before it prints anything.
fn refused(args: &[&str]) -> String {
    let out = quadstress(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: {:?}\n{stderr}",
        out.status
    );
    assert!(
        out.stdout.is_empty(),
        "{args:?} started work:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    stderr
}

#[test]
fn no_frames_print_no_frame_statistics() {
    let stdout = stdout_of(&["--headless", "--particles", "100", "--frames", "0"]);
    assert!(stdout.contains("frames: 0 frames"), "{stdout}");
    for line in stdout.lines() {
        assert!(
            !line.contains(".median:")
                && !line.contains(".p99:")
                && !line.starts_with("contacts.mean:")
                && !line.starts_with("pairs_tested.mean:")
                && !line.starts_with("kinetic_energy"),
            "a statistic of no frames: {line}"
        );
    }
    assert!(stdout.contains("tree.nodes: "), "{stdout}");
}

#[test]
fn no_particles_make_zero_brute_force_pairs() {
    let stdout = stdout_of(&["--headless", "--particles", "0", "--frames", "3"]);
    assert!(
        stdout.contains("\npairs_brute_force: 0 pairs\n"),
        "{stdout}"
    );
    let stdout = stdout_of(&["--headless", "--particles", "1001", "--frames", "1"]);
    assert!(
        stdout.contains("\npairs_brute_force: 500500 pairs\n"),
        "{stdout}"
    );
}

/// The resident memory of a running process, in KiB (Linux).
fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Timing storage does not grow with `--frames`: a run of 4 billion or `u64::MAX` frames
/// starts and runs in a few MiB (it used to reserve 8 bytes a frame a phase up front, and
/// die).
#[test]
fn huge_frame_counts_run_in_bounded_memory() {
    for frames in ["4000000000", "18446744073709551615"] {
        let mut child = Command::new(BIN)
            .args(["--headless", "--particles", "0", "--frames", frames])
            .env_remove("DISPLAY")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Long enough for more than the exact limit of frames, so the histogram is in use.
        std::thread::sleep(Duration::from_millis(1500));
        let still_running = child.try_wait().unwrap().is_none();
        let rss = resident_kib(child.id());
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        assert!(
            still_running,
            "--frames {frames}: ended with {:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(kib) = rss {
            assert!(kib < 64 << 10, "--frames {frames}: {kib} KiB resident");
        }
    }
}

#[test]
fn counts_the_machine_cannot_hold_are_refused_before_any_work() {
    // u32::MAX - 1 particles take terabytes.
    let stderr = refused(&["--headless", "--particles", "4294967294", "--frames", "1"]);
    assert!(
        stderr.contains("--particles 4294967294 needs about") && stderr.contains("available"),
        "{stderr}"
    );
    // Above what the tree can index.
    let stderr = refused(&["--headless", "--particles", "4294967295", "--frames", "1"]);
    assert!(stderr.contains("--particles must be at most"), "{stderr}");
    let stderr = refused(&[
        "--headless",
        "--particles",
        "18446744073709551615",
        "--frames",
        "1",
    ]);
    assert!(stderr.contains("--particles must be at most"), "{stderr}");
}

#[test]
fn bad_numbers_are_refused_before_any_work() {
    for args in [
        &["--headless", "--dt", "NaN", "--frames", "1"][..],
        &["--headless", "--dt", "-1", "--frames", "1"],
        &["--headless", "--dt", "inf", "--frames", "1"],
        &["--headless", "--coverage", "1e-45", "--frames", "1"],
        &[
            "--headless",
            "--capacity",
            "18446744073709551615",
            "--frames",
            "1",
        ],
        &["--headless", "--capacity", "0", "--frames", "1"],
        &["--headless", "--depth", "255", "--frames", "1"],
    ] {
        refused(args);
    }
}

/// A warm-up of `u64::MAX` frames leaves no frame timed (`1 + warmup` used to wrap to 0 and
/// time them all).
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn a_huge_warmup_times_no_frame() {
    let window = |args: &[&str]| {
        let out = Command::new(BIN).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {:?}", out.status);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let stdout = window(&["--warmup", "18446744073709551615", "--frames", "5"]);
    assert!(stdout.contains("frames_timed: 0 frames"), "{stdout}");
    assert!(!stdout.contains("frame_time.median"), "{stdout}");
    let stdout = window(&["--warmup", "2", "--frames", "5"]);
    assert!(stdout.contains("frames_timed: 2 frames"), "{stdout}");
}

#[test]
fn a_pile_reports_its_column_steps_after_its_packing() {
    let stdout = stdout_of(&[
        "--headless",
        "--particles",
        "2000",
        "--coverage",
        "0.5",
        "--gravity",
        "on",
        "--frames",
        "120",
    ]);
    let value = |name: &str| -> f64 {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} in\n{stdout}"));
        assert!(line.ends_with(" sides"), "{line}");
        line[name.len()..]
            .trim()
            .trim_end_matches(" sides")
            .parse()
            .unwrap()
    };
    let (max, p99) = (
        value("pile.column_step.max:"),
        value("pile.column_step.p99:"),
    );
    // The world is 506 units square (2000 * 64 / 0.5 square units): 63 sides tall.
    assert!(0.0 <= p99 && p99 <= max && max <= 63.25, "{stdout}");
    let at = |name: &str| stdout.find(name).unwrap();
    assert!(at("pile.packing:") < at("pile.column_step.max:"));
    // Without gravity there is no pile to measure.
    let gas = stdout_of(&["--headless", "--particles", "200", "--frames", "2"]);
    assert!(!gas.contains("pile.column_step"), "{gas}");
}

#[test]
fn whole_number_settings_refuse_fractions_from_the_flags_and_the_panel() {
    for args in [
        &["--capacity", "2.5"][..],
        &["--depth", "3.5"],
        &["--spawn", "1e3"],
        &["--threads", "2.5"],
        &["--frames", "4.0"],
        &["--panel", "threads=2.5@2"],
        &["--panel", "capacity=48.5@1"],
        &["--panel", "k=1.5@1"],
    ] {
        let stderr = refused(args);
        assert!(stderr.contains("whole number"), "{args:?}: {stderr}");
    }
}
