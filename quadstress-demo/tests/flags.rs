//! The demo binary given hostile flags: absurd counts, wrapping sums, empty runs. Each is
//! refused with a message before any work, or runs in bounded memory and prints only what it
//! measured.
//!
//! The windowed test needs an X server:
//! `xvfb-run -a -s "-screen 0 1024x768x24" cargo test --release --test flags -- --ignored`

use std::process::{Command, Output};
use std::time::Duration;

use quadstress_demo::report;
use quadstress_testkit::run;

const BIN: &str = env!("CARGO_BIN_EXE_quadstress");

fn quadstress(args: &[&str]) -> Output {
    run::without_display(BIN, args)
}

fn stdout_of(args: &[&str]) -> String {
    run::succeeded(args, &quadstress(args))
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

/// A warm-up as long as the run, or longer (`u64::MAX` once wrapped `1 + warmup` to 0 and
/// timed every frame), would time nothing: it is refused, windowed and headless, before a
/// window opens.
#[test]
fn a_warmup_that_leaves_no_frame_is_refused() {
    for args in [
        &["--warmup", "18446744073709551615", "--frames", "5"][..],
        &["--warmup", "5", "--frames", "5"],
        &[
            "--headless",
            "--particles",
            "10",
            "--warmup",
            "240",
            "--frames",
            "120",
        ],
    ] {
        let stderr = refused(args);
        assert!(
            stderr.contains("--warmup") && stderr.contains("shorter"),
            "{stderr}"
        );
    }
}

/// A shorter warm-up leaves the rest of the frames timed.
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn a_warmup_leaves_the_rest_timed() {
    let args = ["--warmup", "2", "--frames", "5"];
    let mut out = Command::new(BIN).args(args).output().unwrap();
    // A busy Xvfb now and then refuses a connection before the demo's code runs: tried again.
    for _ in 0..3 {
        if out.status.success()
            || !String::from_utf8_lossy(&out.stderr).contains("XOpenDisplay() failed")
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
        out = Command::new(BIN).args(args).output().unwrap();
    }
    assert!(out.status.success(), "{:?}", out.status);
    let stdout = String::from_utf8_lossy(&out.stdout);
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

/// A time step outside 0.0001 to 0.1 s is refused (0 moved nothing; 10 s let particles pass
/// through each other).
#[test]
fn time_steps_outside_the_sane_range_are_refused() {
    for dt in ["0", "10", "-0.01", "0.00001", "NaN", "inf"] {
        let stderr = refused(&[
            "--headless",
            "--particles",
            "10",
            "--frames",
            "1",
            "--dt",
            dt,
        ]);
        assert!(stderr.contains("time step"), "--dt {dt}: {stderr}");
    }
    let stdout = stdout_of(&[
        "--headless",
        "--particles",
        "10",
        "--frames",
        "1",
        "--dt",
        "0.1",
    ]);
    assert!(stdout.contains("step_seconds: 0.1 s"), "{stdout}");
}

/// More threads than cores run, with a warning on standard error.
#[test]
fn more_threads_than_cores_warn() {
    let cores = std::thread::available_parallelism().unwrap().get();
    let over = (cores + 1).to_string();
    let out = quadstress(&[
        "--headless",
        "--particles",
        "100",
        "--frames",
        "1",
        "--threads",
        &over,
    ]);
    assert!(out.status.success(), "{:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!("warning: --threads {over} is more than")),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("threads: {over} threads")),
        "{stdout}"
    );
    let out = quadstress(&[
        "--headless",
        "--particles",
        "100",
        "--frames",
        "1",
        "--threads",
        "1",
    ]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Without a display the window says, in one line, how to run it instead of panicking.
#[cfg(target_os = "linux")]
#[test]
fn no_display_says_to_use_xvfb_run() {
    let stderr = refused(&["--frames", "1"]);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("xvfb-run") && stderr.contains("--headless"),
        "{stderr}"
    );
}

/// A fresh scratch directory for one test's files.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("quadstress-flags-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The ramp's points from its report: (particles, step ms).
fn ramp_points(stdout: &str) -> Vec<(f64, f64)> {
    (0..)
        .map_while(|i| {
            let n = report::number(stdout, &format!("ramp.point.{i}.particles"))?;
            let step = report::number(stdout, &format!("ramp.point.{i}.step"))?;
            Some((n, step))
        })
        .collect()
}

/// A headless ramp with a small budget stops at the first second whose median step misses
/// it, and reports the last count that held; its CSV has the same points and its PNG is a
/// chart (the step series' blue is drawn).
#[test]
fn a_headless_ramp_stops_at_its_budget_and_writes_its_curve() {
    let dir = scratch_dir("ramp-png");
    let (csv, png) = (dir.join("curve.csv"), dir.join("curve.png"));
    let stdout = stdout_of(&[
        "--headless",
        "--ramp",
        "--budget-ms",
        "0.5",
        "--threads",
        "1",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        png.to_str().unwrap(),
    ]);
    assert!(stdout.contains("ramp.stopped_by: budget\n"), "{stdout}");
    let points = ramp_points(&stdout);
    assert_eq!(
        report::number(&stdout, "ramp.points"),
        Some(points.len() as f64),
        "{stdout}"
    );
    // It stops at the second slow second in a row: the last two points missed, and no two
    // in a row did before them.
    assert!(points.len() >= 2, "{stdout}");
    let (before, last_two) = points.split_at(points.len() - 2);
    let last = &last_two[1];
    assert!(last_two.iter().all(|p| p.1 > 0.5), "{stdout}");
    assert!(before.last().is_none_or(|p| p.1 <= 0.5), "{stdout}");
    assert!(
        before.windows(2).all(|w| w[0].1 <= 0.5 || w[1].1 <= 0.5),
        "{stdout}"
    );
    let held = points.iter().filter(|p| p.1 <= 0.5).map(|p| p.0);
    let max = report::number(&stdout, "ramp.max_particles").expect("ramp.max_particles");
    assert_eq!(max, held.fold(0.0, f64::max), "{stdout}");
    assert!(
        points.windows(2).all(|w| w[0].0 < w[1].0),
        "the count grows: {points:?}"
    );
    // Far below the world's growth limits: a 0.5 ms step holds some thousands.
    assert!(last.0 < 1e6, "{stdout}");

    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[0].starts_with("particles,step_ms,"), "{text}");
    assert_eq!(rows.len(), points.len() + 1, "{text}");
    for (row, (n, step)) in rows[1..].iter().zip(&points) {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells[0].parse::<f64>().unwrap(), *n, "{row}");
        let csv_step: f64 = cells[1].parse().unwrap();
        assert!((csv_step - step).abs() < 1e-3, "{row} vs {step}");
        // Headless draws nothing: no draw or frame times.
        assert_eq!((cells[2], cells[3]), ("", ""), "{row}");
    }

    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert!(info.width >= 640 && info.height >= 400, "{info:?}");
    let channels = info.color_type.samples();
    let blue = pixels
        .chunks_exact(channels)
        .filter(|px| px[..3] == [40, 110, 255])
        .count();
    assert!(
        blue > 100,
        "the step series is drawn: {blue} pixels of its blue"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `--plot FILE.svg` writes an SVG document with the step and brute-force series and the
/// budget; an unknown extension, or the files without `--ramp`, are refused before any work.
#[test]
fn a_ramp_plot_is_an_svg_by_its_extension_and_bad_outputs_are_refused() {
    let dir = scratch_dir("ramp-svg");
    let svg = dir.join("curve.svg");
    stdout_of(&[
        "--headless",
        "--ramp",
        "--budget-ms",
        "0.3",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..100]);
    assert!(text.trim_end().ends_with("</svg>"));
    assert_eq!(
        text.matches("<text").count(),
        text.matches("</text>").count()
    );
    for label in [
        "step (simulation)",
        "brute force",
        "budget: step 0.3 ms",
        "particles",
    ] {
        assert!(text.contains(label), "no {label:?} in the SVG");
    }
    assert!(text.matches("<polyline").count() >= 2, "two series drawn");

    let jpg = dir.join("curve.jpg");
    let stderr = refused(&["--headless", "--ramp", "--plot", jpg.to_str().unwrap()]);
    assert!(stderr.contains(".png or .svg"), "{stderr}");
    let csv = dir.join("curve.csv");
    let stderr = refused(&["--headless", "--csv", csv.to_str().unwrap()]);
    assert!(stderr.contains("add --ramp"), "{stderr}");
    let stderr = refused(&["--headless", "--ramp", "--csv", "/nonexistent/dir/a.csv"]);
    assert!(stderr.contains("cannot write"), "{stderr}");
    for budget in ["0", "-1", "NaN", "inf", "1e9"] {
        let stderr = refused(&["--headless", "--ramp", "--budget-ms", budget]);
        assert!(stderr.contains("budget"), "{budget}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// `--frames` bounds a ramp: it stops there and says so, counting no point it did not close.
#[test]
fn a_ramp_cut_short_by_frames_says_so() {
    let stdout = stdout_of(&["--headless", "--ramp", "--frames", "130"]);
    assert!(stdout.contains("ramp.stopped_by: frames\n"), "{stdout}");
    assert!(stdout.contains("steps: 130 steps\n"), "{stdout}");
    assert_eq!(
        report::number(&stdout, "ramp.points"),
        Some(2.0),
        "{stdout}"
    );
    assert_eq!(ramp_points(&stdout).len(), 2);
}

/// Headless scripted input: a stream poured at `--pointer` for a second adds the cursor's
/// 600 particles a second, as in the window, the same on any thread count; where the
/// pointer is matters.
#[test]
fn a_headless_stream_pours_at_the_pointer() {
    let pour = |pointer: &str, threads: &str| {
        stdout_of(&[
            "--headless",
            "--particles",
            "2000",
            "--coverage",
            "0.3",
            "--gravity",
            "on",
            "--pointer",
            pointer,
            "--press",
            "LeftMouse@31-90",
            "--frames",
            "120",
            "--threads",
            threads,
        ])
    };
    let one = pour("300,100", "1");
    assert_eq!(report::number(&one, "particles_end"), Some(2600.0), "{one}");
    let hash = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("state_hash:"))
            .unwrap()
            .to_owned()
    };
    assert_eq!(hash(&one), hash(&pour("300,100", "2")));
    assert_ne!(hash(&one), hash(&pour("500,100", "1")));
    // A pointer outside the world pours at its edge.
    let outside = pour("-1e6,1e6", "1");
    assert_eq!(
        report::number(&outside, "particles_end"),
        Some(2600.0),
        "{outside}"
    );
}

/// Headless `--press` and `--panel` do what they do in the window: spawn, clear, pause and
/// single-step; inputs that only change what a window shows are refused.
#[test]
fn headless_presses_and_panel_settings_act_as_in_the_window() {
    let run = |extra: &[&str]| {
        // A world with room for the panel's 5,000 more (its cap is 85% of its area).
        let mut args = vec!["--headless", "--particles", "300", "--frames", "6"];
        args.extend_from_slice(&["--coverage", "0.02"]);
        args.extend_from_slice(extra);
        stdout_of(&args)
    };
    let spawned = run(&["--panel", "spawn@2"]);
    assert_eq!(
        report::number(&spawned, "particles_end"),
        Some(5300.0),
        "{spawned}"
    );
    for clear in [&["--panel", "clear@3"][..], &["--press", "C@3"]] {
        let cleared = run(clear);
        assert_eq!(
            report::number(&cleared, "particles_end"),
            Some(0.0),
            "{cleared}"
        );
    }
    // Paused from the first frame, no step runs (and none is timed); `.` steps once.
    let paused = run(&["--press", "space@1"]);
    assert!(!paused.contains("step.median"), "{paused}");
    let stepped = run(&["--press", "space@1", "--press", ".@4"]);
    assert!(stepped.contains("step.median"), "{stepped}");
    let gravity = run(&["--panel", "gravity=on@1"]);
    assert_ne!(
        gravity.lines().last(),
        run(&[]).lines().last(),
        "gravity changed the particles"
    );

    for args in [
        &["--headless", "--press", "V@2"][..],
        &["--headless", "--press", "tab@2"],
        &["--headless", "--panel", "colors=speed@2"],
        &["--headless", "--panel", "world=2@2"],
        &["--headless", "--pointer", "10,10"],
    ] {
        let stderr = refused(args);
        assert!(
            stderr.contains("window shows") || stderr.contains("add a --press"),
            "{args:?}: {stderr}"
        );
    }
    let stderr = refused(&["--headless", "--ramp", "--press", "C@5"]);
    assert!(stderr.contains("ramp adds its own"), "{stderr}");
    let stderr = refused(&["--headless", "--press", "C@5-3"]);
    assert!(stderr.contains("backwards"), "{stderr}");
}

/// The panel's typed counts, scripted headless: `count` and `spawn` add exactly the count,
/// `stop` ends a held key exactly at its count; a bad count is refused before any work, and
/// one above the world's room changes nothing and says why.
#[test]
fn headless_typed_counts_spawn_exactly_and_stop_held_keys() {
    let run = |extra: &[&str]| {
        let mut args = vec!["--headless", "--world-scale", "1", "--particles", "0"];
        args.extend_from_slice(&["--gravity", "on", "--frames", "90"]);
        args.extend_from_slice(extra);
        stdout_of(&args)
    };
    let spawned = run(&["--panel", "count=777@1", "--panel", "spawn@2"]);
    assert_eq!(
        report::number(&spawned, "particles_end"),
        Some(777.0),
        "{spawned}"
    );
    // `2` (6,000 a second) and `1` held for 80 steps would spawn 8,400.
    let held = ["--press", "2@1-80", "--press", "1@1-80"];
    let stopped = run(&[&["--panel", "stop=1234@1"][..], &held].concat());
    assert_eq!(
        report::number(&stopped, "particles_end"),
        Some(1234.0),
        "{stopped}"
    );
    assert!(
        stopped.contains("held spawn keys stop at 1234 particles"),
        "{stopped}"
    );
    let free = run(&held);
    assert_eq!(
        report::number(&free, "particles_end"),
        Some(8400.0),
        "{free}"
    );
    // More than the world's room: nothing spawned, the room said.
    let room = run(&[
        "--panel",
        "count=94003@1",
        "--press",
        "1@1-20",
        "--panel",
        "spawn@30",
    ]);
    assert_eq!(
        report::number(&room, "particles_end"),
        Some(100.0),
        "{room}"
    );
    assert!(
        room.contains("spawn 94003 refused: room for 93903 more"),
        "{room}"
    );
    for bad in [
        "count=@1",
        "count=-5@1",
        "count=abc@1",
        "count=1e30@1",
        "count=1504052@1",
        "stop=-1@2",
    ] {
        let stderr = refused(&["--headless", "--panel", bad]);
        assert!(
            stderr.contains("takes a whole number from"),
            "{bad}: {stderr}"
        );
    }
}

/// Runs the demo with `DISPLAY` set to `display` (and no Wayland display).
fn quadstress_on(display: &str, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("DISPLAY", display)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("the demo binary runs")
}

/// A display that is set but has no X server behind it gets the same one-line hint as a
/// missing one, exit 2, instead of miniquad's "XOpenDisplay() failed!" panic (exit 101).
#[cfg(target_os = "linux")]
#[test]
fn an_unreachable_display_gets_the_one_line_hint() {
    // No X server listens on display 4321 (its socket would be /tmp/.X11-unix/X4321).
    assert!(!std::path::Path::new("/tmp/.X11-unix/X4321").exists());
    let out = quadstress_on(":4321", &["--frames", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{:?}\n{stderr}", out.status);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: ") && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert!(
        stderr.contains("DISPLAY=:4321")
            && stderr.contains("xvfb-run")
            && stderr.contains("--headless"),
        "{stderr}"
    );
}

/// A refused run changes no file: the `--csv`, `--plot` and `--screenshot` files a user
/// already has are left byte for byte as they were, and nothing is left beside them (the
/// outputs are written to a temporary file renamed at the end, once every check passed).
#[test]
fn a_refused_run_changes_no_output_file() {
    let dir = scratch_dir("refused-outputs");
    let kept = |name: &str| {
        let path = dir.join(name);
        std::fs::write(&path, format!("the user's {name}\nsecond line\n")).unwrap();
        path
    };
    let (csv, png, svg, shot) = (
        kept("curve.csv"),
        kept("curve.png"),
        kept("curve.svg"),
        kept("shot.png"),
    );
    let path = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let ramp_refused = |flag: &str, file: &str| {
        // `--press` with `--ramp` is refused after the flags parse.
        let stderr = refused(&[
            "--headless",
            "--ramp",
            flag,
            file,
            "--press",
            "B@1",
            "--frames",
            "3",
        ]);
        assert!(stderr.contains("ramp adds its own"), "{stderr}");
    };
    ramp_refused("--csv", &path(&csv));
    ramp_refused("--plot", &path(&png));
    ramp_refused("--plot", &path(&svg));
    // A coverage refused by the headless run's own check, after the outputs were checked.
    refused(&[
        "--headless",
        "--ramp",
        "--csv",
        &path(&csv),
        "--coverage",
        "2",
    ]);
    // A window whose display does not answer.
    let out = quadstress_on(":4321", &["--frames", "2", "--screenshot", &path(&shot)]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // Without a display at all.
    refused(&["--frames", "2", "--screenshot", &path(&shot)]);
    for file in [&csv, &png, &svg, &shot] {
        let name = file.file_name().unwrap().to_str().unwrap();
        assert_eq!(
            std::fs::read_to_string(file).unwrap(),
            format!("the user's {name}\nsecond line\n"),
            "{name} changed"
        );
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 4, "files left beside the outputs: {left:?}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A ramp that runs replaces the user's `--csv` and `--plot` files with its own, whole.
#[test]
fn a_ramp_that_runs_replaces_its_output_files() {
    let dir = scratch_dir("replaced-outputs");
    let (csv, svg) = (dir.join("curve.csv"), dir.join("curve.svg"));
    std::fs::write(&csv, "old\n").unwrap();
    std::fs::write(&svg, "old\n").unwrap();
    stdout_of(&[
        "--headless",
        "--ramp",
        "--frames",
        "70",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("particles,step_ms,"), "{text}");
    assert_eq!(text.lines().count(), 2, "one point in 70 steps: {text}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    let _ = std::fs::remove_dir_all(dir);
}

/// No particle count passes the world's cap in any mode: a headless run holding the flood
/// key fills its world to 85% of its area and stops there (it used to spawn on to 6,100
/// particles in a world for 172, a packing of 30); `--particles` above the cap and a
/// coverage above it are refused.
#[test]
fn headless_spawning_stops_at_the_worlds_cap() {
    let stdout = stdout_of(&[
        "--headless",
        "--particles",
        "100",
        "--coverage",
        "0.5",
        "--gravity",
        "on",
        "--press",
        "2@1-60",
        "--frames",
        "60",
    ]);
    let side = report::number(&stdout, "world_side").expect("world_side");
    let cap = (side * side * 0.85 / 64.0).floor();
    assert_eq!(
        report::number(&stdout, "particle_cap"),
        Some(cap),
        "{stdout}"
    );
    assert_eq!(
        report::number(&stdout, "particles_end"),
        Some(cap),
        "{stdout}"
    );
    let stderr = refused(&["--headless", "--coverage", "0.9", "--frames", "1"]);
    assert!(stderr.contains("at most 0.85"), "{stderr}");
    let stderr = refused(&["--headless", "--coverage", "-0.5", "--frames", "1"]);
    assert!(stderr.contains("--coverage must be above 0"), "{stderr}");
    // So small that the world would hold more than a simulation indexes: the flag is named.
    for (coverage, particles) in [("1e-10", "200"), ("1e-45", "1")] {
        let stderr = refused(&[
            "--headless",
            "--coverage",
            coverage,
            "--particles",
            particles,
            "--frames",
            "1",
        ]);
        assert!(
            stderr.contains(&format!("--coverage {coverage} is too small"))
                && stderr.contains("give a larger --coverage"),
            "{stderr}"
        );
    }
    let stderr = refused(&[
        "--headless",
        "--world-scale",
        "0.25",
        "--particles",
        "6000",
        "--frames",
        "1",
    ]);
    assert!(
        stderr.contains("more than the world holds: 5875"),
        "{stderr}"
    );
}

/// Headless `--world-scale` runs the window's world and its cap (3072 x 2304 times the
/// scale, 85% of its area), so that a fill scripted headless is the window user's; it used
/// to be ignored. With `--coverage`, which sizes another world, it is refused.
#[test]
fn headless_world_scale_is_the_windows_world_and_cap() {
    let stdout = stdout_of(&[
        "--headless",
        "--world-scale",
        "0.25",
        "--particles",
        "0",
        "--gravity",
        "on",
        "--press",
        "2@1-120",
        "--frames",
        "120",
    ]);
    let (w, h) = (3072.0 * 0.25, 2304.0 * 0.25);
    assert_eq!(report::number(&stdout, "world_width"), Some(w), "{stdout}");
    assert_eq!(report::number(&stdout, "world_height"), Some(h), "{stdout}");
    let cap = (w * h * 0.85 / 64.0_f64).floor();
    assert_eq!(
        report::number(&stdout, "particle_cap"),
        Some(cap),
        "{stdout}"
    );
    assert_eq!(
        report::number(&stdout, "particles_end"),
        Some(cap),
        "{stdout}"
    );
    assert!(!stdout.contains("world_side"), "{stdout}");
    let stderr = refused(&[
        "--headless",
        "--world-scale",
        "1.2",
        "--coverage",
        "0.3",
        "--frames",
        "1",
    ]);
    assert!(stderr.contains("give one of them"), "{stderr}");
}

/// Headless runs print the step's mean and 90th percentile beside its median and 99th, the
/// share of particles awake, and the deepest overlap of any step after the first second,
/// which the overlap at the end can only equal or stay under.
#[test]
fn headless_runs_print_the_steps_spread_the_awake_share_and_the_worst_overlap() {
    let stdout = stdout_of(&[
        "--headless",
        "--particles",
        "3000",
        "--coverage",
        "0.3",
        "--gravity",
        "on",
        "--frames",
        "150",
    ]);
    let get =
        |name: &str| report::number(&stdout, name).unwrap_or_else(|| panic!("{name}: {stdout}"));
    let (median, p90, p99, mean) = (
        get("step.median"),
        get("step.p90"),
        get("step.p99"),
        get("step.mean"),
    );
    assert!(median <= p90 && p90 <= p99, "{stdout}");
    assert!(mean > 0.0 && mean <= p99 * 1.5, "{stdout}");
    let awake = get("awake.mean");
    assert!((0.0..=1.0).contains(&awake), "{stdout}");
    assert!(awake > 0.5, "a falling pile is mostly awake: {stdout}");
    assert!(get("overlap.worst") >= get("overlap.max"), "{stdout}");
    // Under a second of steps there is no step to take the worst of.
    let short = stdout_of(&["--headless", "--particles", "300", "--frames", "30"]);
    assert!(!short.contains("overlap.worst"), "{short}");
    assert!(short.contains("awake.mean: "), "{short}");
}

/// The headless ramp's default scene is the window's, a pile under gravity; `--gravity off`
/// makes it a gas. The chart's title names the scene.
#[test]
fn the_headless_ramp_piles_under_gravity_unless_told_otherwise() {
    let dir = scratch_dir("ramp-scene");
    let svg = dir.join("curve.svg");
    let pile = stdout_of(&[
        "--headless",
        "--ramp",
        "--frames",
        "61",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(pile.contains("\ngravity: on\n"), "{pile}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("headless, gravity on, coverage 0.1, world square"),
        "the title names the scene"
    );
    let gas = stdout_of(&["--headless", "--ramp", "--frames", "1", "--gravity", "off"]);
    assert!(gas.contains("\ngravity: off\n"), "{gas}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A headless run refuses every flag only a window honours, naming it, instead of running
/// without it (`--screenshot`, `--spawn` and the rest used to be ignored, exit 0).
#[test]
fn headless_refuses_window_only_flags() {
    let dir = scratch_dir("window-only");
    let shot = dir.join("shot.png");
    for (flag, value) in [
        ("--spawn", "10"),
        ("--right-click", "100,100"),
        ("--move-quad", "1,0"),
        ("--zoom", "2"),
        ("--center", "100,100"),
        ("--colors", "speed"),
        ("--warmup", "1"),
        ("--screenshot", shot.to_str().unwrap()),
        ("--renderer", "canvas"),
        ("--overlap", "off"),
        ("--overlay-cache", "off"),
        ("--blit", "off"),
        ("--window", "640x480"),
    ] {
        let stderr = refused(&["--headless", "--frames", "3", flag, value]);
        assert!(
            stderr.contains(&format!("{flag} is for the window")),
            "{flag}: {stderr}"
        );
    }
    assert!(!shot.exists(), "nothing written");
    // A default written out is still the window's flag: refused too.
    let stderr = refused(&["--headless", "--frames", "3", "--colors", "depth"]);
    assert!(stderr.contains("--colors is for the window"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Negative numbers get the project's own message (a count is 0 or more, a scale positive)
/// instead of clap's "unexpected argument '-1'".
#[test]
fn negative_numbers_get_the_projects_message() {
    for (flag, value, says) in [
        ("--seed", "-1", "whole number of 0 or more"),
        ("--particles", "-5", "whole number of 0 or more"),
        ("--frames", "-1", "whole number of 0 or more"),
        ("--capacity", "-1", "whole number of 0 or more"),
        ("--depth", "-2", "whole number of 0 or more"),
        ("--spawn", "-3", "whole number of 0 or more"),
        ("--warmup", "-1", "whole number of 0 or more"),
        ("--threads", "-2", "whole number of 0 or more"),
        ("--world-scale", "-1", "world scale must be between"),
        ("--zoom", "-1", "zoom must be above 0"),
        ("--coverage", "-0.1", "--coverage must be above 0"),
        ("--right-click", "-5,-5", "--right-click"),
    ] {
        let out = quadstress(&["--headless", flag, value]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(
            !stderr.contains("unexpected argument"),
            "{flag} {value}: {stderr}"
        );
        assert!(stderr.contains(says), "{flag} {value}: {stderr}");
    }
}

/// `--window WxH` takes a size within 320 to 8192 pixels a side, and refuses others.
#[test]
fn window_sizes_are_checked() {
    for bad in ["100x100", "640", "640x0", "axb", "9000x600", "-640x480"] {
        let out = quadstress(&["--window", bad, "--frames", "1"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("--window"), "{bad}: {stderr}");
        assert!(!stderr.contains("unexpected argument"), "{bad}: {stderr}");
    }
}
