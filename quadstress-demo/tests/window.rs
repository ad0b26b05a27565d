//! The demo binary run as a person would, in its own processes (one macroquad window per
//! process): the headless mode with no display at all, and scripted windowed runs whose
//! screenshots and console reports are checked.
//!
//! The windowed tests need an X server:
//! `xvfb-run -a -s "-screen 0 1024x768x24" cargo test --release -- --ignored`

use std::process::Command;

use quadstress_demo::{palette, report};

const BIN: &str = env!("CARGO_BIN_EXE_quadstress");
/// The demo's world is 3072x2304 in a 1024x768 window: one pixel is three world units.
const SCALE: f32 = 1.0 / 3.0;
const QUAD_EDGE: [u8; 3] = rgb(palette::QUAD_EDGE_RGBA);
const HIGHLIGHT: [u8; 3] = rgb(palette::HIGHLIGHT);

/// The colour of the demo's `rgba`, without its opacity.
const fn rgb([r, g, b, _]: [u8; 4]) -> [u8; 3] {
    [r, g, b]
}

fn run(args: &[&str]) -> String {
    quadstress_testkit::run::succeeded(args, &quadstress_testkit::run::windowed(BIN, args))
}

/// The number after `key: ` in the report line.
fn field(line: &str, key: &str) -> usize {
    let rest = &line[line
        .find(key)
        .unwrap_or_else(|| panic!("no {key:?} in {line:?}"))
        + key.len()..];
    rest.trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

struct Png {
    width: usize,
    height: usize,
    rgba: Vec<u8>,
}

impl Png {
    fn read(path: &std::path::Path) -> Png {
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut rgba = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut rgba).unwrap();
        assert_eq!(
            info.color_type,
            png::ColorType::Rgba,
            "the screenshot is RGBA"
        );
        Png {
            width: info.width as usize,
            height: info.height as usize,
            rgba,
        }
    }

    fn at(&self, x: usize, y: usize) -> [u8; 4] {
        let i = (y * self.width + x) * 4;
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }

    fn is(&self, x: usize, y: usize, rgb: [u8; 3]) -> bool {
        let p = self.at(x, y);
        p[..3].iter().zip(rgb).all(|(a, b)| a.abs_diff(b) <= 2)
    }
}

fn temp_png(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("quadstress-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs the binary headless with no display server and returns its standard output.
fn headless(args: &[&str]) -> String {
    let args = [&["--headless"], args].concat();
    quadstress_testkit::run::succeeded(&args, &quadstress_testkit::run::without_display(BIN, &args))
}

#[test]
fn headless_mode_needs_no_display() {
    let stdout = headless(&["--particles", "3000", "--frames", "20", "--seed", "3"]);
    for name in [
        "tree_update.median",
        "pair_search.p99",
        "resolution.median",
        "step.median",
        "step.p99",
        "contacts.mean",
        "tree.nodes",
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("no {name} in\n{stdout}"));
        let value: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(value.is_finite() && value >= 0.0, "{line}");
    }
    assert!(stdout.contains("particles: 3000 count"));
}

/// Both placements find the same contacts on the first frame (before any response makes the
/// runs differ), and the run reports which placement it used.
#[test]
fn headless_placements_find_the_same_contacts() {
    let contacts = |placement: &str| {
        let stdout = headless(&[
            "--particles",
            "20000",
            "--frames",
            "1",
            "--seed",
            "5",
            "--placement",
            placement,
        ]);
        assert!(
            stdout.contains(&format!("tree_placement: {placement}\n")),
            "{stdout}"
        );
        stdout
            .lines()
            .find(|l| l.starts_with("contacts.mean: "))
            .unwrap_or_else(|| panic!("no contacts in\n{stdout}"))
            .to_owned()
    };
    let exact = contacts("exact");
    assert_ne!(exact, "contacts.mean: 0.0 pairs", "too sparse to compare");
    assert_eq!(exact, contacts("loose"));
}

#[test]
fn headless_output_into_a_closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = Command::new(BIN)
        .args(["--headless", "--particles", "2000", "--frames", "30"])
        .env_remove("DISPLAY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is gone: the rest of the output meets a closed pipe.
    assert!(first.starts_with("particles: "), "{first}");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bad_flags_are_refused_with_a_message() {
    for args in [
        &["--headless", "--depth", "99", "--frames", "1"][..],
        &["--headless", "--coverage", "0", "--frames", "1"],
        &["--right-click", "1,nan"],
        &["--right-click", "12"],
        &["--headless", "--placement", "sideways", "--frames", "1"],
        &["--zoom", "9"],
        &["--press", "nothing@3"],
    ] {
        let out = Command::new(BIN)
            .args(args)
            .env_remove("DISPLAY")
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} was accepted");
        assert!(!out.stderr.is_empty(), "{args:?} gave no message");
    }
}

/// The `[x0, y0, x1, y1]` of the quad in a report line.
fn quad_of(line: &str) -> [f32; 4] {
    let inside = &line[line.find('[').unwrap() + 1..line.find(']').unwrap()];
    let v: Vec<f32> = inside
        .split(',')
        .map(|t| t.trim().parse().unwrap())
        .collect();
    [v[0], v[1], v[2], v[3]]
}

/// Checks a report line's counts against each other and returns (touching, visited, tested).
fn check_report(line: &str) -> (usize, usize, usize) {
    let count = field(line, "particles touching:");
    assert_eq!(count, field(line, "brute force:"), "{line}");
    assert!(line.contains("(agrees)"), "{line}");
    assert_eq!(line.contains("collides: yes"), count > 0, "{line}");
    let visited = field(line, "nodes visited:");
    let visited_of = field(line, &format!("nodes visited: {visited} of"));
    let tested = field(line, "particles tested:");
    let tested_of = field(line, &format!("particles tested: {tested} of"));
    assert!(1 <= visited && visited <= visited_of, "{line}");
    assert!(count <= tested && tested <= tested_of, "{line}");
    (count, visited, tested)
}

/// `rgb` blended over `under` with opacity `alpha` (0 to 255), as the demo's canvas does.
fn blend(under: [u8; 3], rgb: [u8; 3], alpha: u32) -> [u8; 3] {
    let mix = |u: u8, c: u8| ((u32::from(u) * (255 - alpha) + u32::from(c) * alpha) / 255) as u8;
    [
        mix(under[0], rgb[0]),
        mix(under[1], rgb[1]),
        mix(under[2], rgb[2]),
    ]
}

const FLOOR: [u8; 3] = rgb(palette::FLOOR_RGBA);
const QUAD_FILL: ([u8; 3], u32) = (palette::QUAD_FILL.0, palette::QUAD_FILL.1 as u32);
const VISITED_TINT: ([u8; 3], u32) = (palette::VISITED_TINT.0, palette::VISITED_TINT.1 as u32);

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn right_click_shades_the_visited_nodes_and_follows_the_moving_quad() {
    let shot = temp_png("right_click.png");
    let stdout = run(&[
        "--spawn",
        "6000",
        "--frames",
        "30",
        "--gravity",
        "off",
        "--seed",
        "5",
        "--right-click",
        "900,900",
        "--move-quad",
        "30,15",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    // The click's report, and the last frame's, each agreeing with brute force.
    let click = stdout
        .lines()
        .find(|l| l.starts_with("right-click:"))
        .expect("a right-click report");
    let last = stdout
        .lines()
        .find(|l| l.starts_with("quad report:"))
        .expect("a report after the last frame");
    let (count, _, _) = check_report(click);
    assert!(count > 0, "{click}");
    let (count, visited, tested) = check_report(last);
    assert!(count > 0, "{last}");
    assert!(
        tested * 4 < 6000,
        "the tree tested {tested} of 6000 particles"
    );
    assert!(visited >= 2, "{last}");
    // The quad was centred on the click, then moved 29 times by (30, 15).
    assert_eq!(quad_of(click), [600.0, 675.0, 1200.0, 1125.0], "{click}");
    assert_eq!(quad_of(last), [1470.0, 1110.0, 2070.0, 1560.0], "{last}");

    let img = Png::read(&shot);
    assert_eq!((img.width, img.height), (1024, 768));
    assert!(
        img.rgba.chunks_exact(4).all(|p| p[3] == 255),
        "alpha is forced to 255"
    );
    let [qx0, qy0, qx1, qy1] = quad_of(last).map(|v| (v * SCALE) as usize);
    // The quad's edge where the quad is now.
    let edge = (qy0 + 5..qy1 - 5)
        .filter(|&y| (qx0 - 1..=qx0 + 1).any(|x| img.is(x, y, QUAD_EDGE)))
        .count();
    assert!(
        edge * 10 >= (qy1 - qy0 - 10) * 9,
        "quad edge at {edge} rows"
    );
    // Visited leaves are tinted: inside the quad the floor shows the quad's fill and the
    // tint, and no floor far from the quad is tinted.
    let in_quad = blend(
        blend(FLOOR, QUAD_FILL.0, QUAD_FILL.1),
        VISITED_TINT.0,
        VISITED_TINT.1,
    );
    let outside = blend(FLOOR, VISITED_TINT.0, VISITED_TINT.1);
    let tinted_in_quad = (qy0 + 4..qy1 - 4)
        .flat_map(|y| (qx0 + 4..qx1 - 4).map(move |x| (x, y)))
        .filter(|&(x, y)| img.is(x, y, in_quad))
        .count();
    assert!(
        tinted_in_quad > 1000,
        "{tinted_in_quad} tinted floor pixels in the quad"
    );
    let untinted_in_quad = (qy0 + 4..qy1 - 4)
        .flat_map(|y| (qx0 + 4..qx1 - 4).map(move |x| (x, y)))
        .filter(|&(x, y)| img.is(x, y, blend(FLOOR, QUAD_FILL.0, QUAD_FILL.1)))
        .count();
    assert_eq!(
        untinted_in_quad, 0,
        "floor in the quad that the query did not visit"
    );
    let far_tinted = (0..200)
        .flat_map(|y| (0..img.width).map(move |x| (x, y)))
        .filter(|&(x, y)| img.is(x, y, outside))
        .count();
    assert_eq!(
        far_tinted, 0,
        "tinted floor in the top rows, far from the quad"
    );

    // Highlighted particles: at the quad where it is now (give or take the highlight's
    // border), never where it was clicked.
    let mut inside = 0;
    let mut away = 0;
    for y in 0..img.height {
        for x in 0..img.width {
            if img.is(x, y, HIGHLIGHT) {
                if x + 6 >= qx0 && x <= qx1 + 6 && y + 6 >= qy0 && y <= qy1 + 6 {
                    inside += 1
                } else {
                    away += 1
                }
            }
        }
    }
    assert!(
        inside >= count,
        "{inside} highlight pixels for {count} particles"
    );
    assert_eq!(away, 0, "highlight pixels away from the quad");
}

/// Connected runs of pixels of one colour, as bounding boxes with pixel counts.
fn blobs(img: &Png, rgb: [u8; 3]) -> Vec<([usize; 4], usize)> {
    let mut seen = vec![false; img.width * img.height];
    let mut out = Vec::new();
    for y0 in 0..img.height {
        for x0 in 0..img.width {
            if seen[y0 * img.width + x0] || !img.is(x0, y0, rgb) {
                continue;
            }
            let mut stack = vec![(x0, y0)];
            seen[y0 * img.width + x0] = true;
            let (mut bb, mut n) = ([x0, y0, x0, y0], 0);
            while let Some((x, y)) = stack.pop() {
                n += 1;
                bb = [bb[0].min(x), bb[1].min(y), bb[2].max(x), bb[3].max(y)];
                let near = [
                    (x.wrapping_sub(1), y),
                    (x + 1, y),
                    (x, y.wrapping_sub(1)),
                    (x, y + 1),
                ];
                for (nx, ny) in near {
                    if nx < img.width
                        && ny < img.height
                        && !seen[ny * img.width + nx]
                        && img.is(nx, ny, rgb)
                    {
                        seen[ny * img.width + nx] = true;
                        stack.push((nx, ny));
                    }
                }
            }
            out.push((bb, n));
        }
    }
    out
}

/// Every particle drawn is a full square of one size: `side` px at this zoom.
fn particles_are_squares_of(zoom: &str, side: usize) {
    let shot = temp_png(&format!("zoom_{zoom}.png"));
    let stdout = run(&[
        "--spawn",
        "400",
        "--gravity",
        "off",
        "--frames",
        "3",
        "--colors",
        "contact",
        "--zoom",
        zoom,
        "--center",
        "1536,1152",
        "--panel",
        "outlines=off@1",
        "--press",
        "tab@1",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains(&format!("particle_side: {side} px")),
        "{stdout}"
    );
    let img = Png::read(&shot);
    let free = [60, 75, 100];
    if side >= 6 {
        // A one-pixel darker border around the particle's colour: lone particles show as
        // (side - 2)-pixel squares ringed by the border.
        let border = [60u16, 75, 100].map(|c| (c * 9 / 16) as u8);
        let inner = side - 2;
        let ringed = blobs(&img, free)
            .iter()
            .filter(|([x0, y0, x1, y1], n)| {
                *x0 > 0 && *y0 > 0 && *x1 + 1 < img.width && *y1 + 1 < img.height && {
                    let square = (x1 - x0 + 1, y1 - y0 + 1, *n) == (inner, inner, inner * inner);
                    let ring = (x0 - 1..=x1 + 1)
                        .all(|x| img.is(x, y0 - 1, border) && img.is(x, y1 + 1, border))
                        && (y0 - 1..=y1 + 1)
                            .all(|y| img.is(x0 - 1, y, border) && img.is(x1 + 1, y, border));
                    square && ring
                }
            })
            .count();
        assert!(
            ringed >= 10,
            "only {ringed} bordered particles of {side} px"
        );
        return;
    }
    let found = blobs(&img, free);
    // Overlapping particles merge into larger blobs; the lone ones must all be exact squares.
    let lone: Vec<_> = found.iter().filter(|(_, n)| *n <= side * side).collect();
    assert!(lone.len() >= 10, "only {} lone particles", lone.len());
    for ([x0, y0, x1, y1], n) in lone {
        let clipped = *x0 == 0 || *y0 == 0 || *x1 == img.width - 1 || *y1 == img.height - 1;
        // The quad's edge is drawn over the particles.
        let under_quad_edge = (y0.saturating_sub(2)..=(y1 + 2).min(img.height - 1)).any(|y| {
            (x0.saturating_sub(2)..=(x1 + 2).min(img.width - 1)).any(|x| img.is(x, y, QUAD_EDGE))
        });
        if !clipped && !under_quad_edge {
            assert_eq!(
                (x1 - x0 + 1, y1 - y0 + 1, *n),
                (side, side, side * side),
                "at ({x0}, {y0})"
            );
        }
    }
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn at_one_to_one_every_particle_is_8_by_8_pixels() {
    particles_are_squares_of("1", 8);
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn zoomed_out_every_particle_is_one_size_and_at_least_2_pixels() {
    particles_are_squares_of("0.3333", 3);
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn depth_colours_in_a_crowd_of_70000_still_show_the_node_lines() {
    let shot = temp_png("pile.png");
    let stdout = run(&[
        "--spawn",
        "70000",
        "--frames",
        "3",
        "--press",
        "tab@1",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    assert!(stdout.contains("particles: 70000 count"), "{stdout}");
    let img = Png::read(&shot);
    // The depth-6 leaves fill the pile: their particles' colour and their outlines' colour,
    // side by side, in the lower half of the window.
    let (particle, outline) = ([46, 130, 145], [77, 217, 242]);
    let (mut particles, mut lines) = (0, 0);
    for y in 400..760 {
        for x in 0..img.width {
            particles += usize::from(img.is(x, y, particle));
            lines += usize::from(img.is(x, y, outline));
        }
    }
    let area = 360 * img.width;
    assert!(
        particles * 3 > area,
        "{particles} particle pixels of {area}"
    );
    // A 16-pixel cell has a one-pixel outline: about 1/8 of the pixels.
    assert!(lines * 20 > area, "{lines} outline pixels of {area}");
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn brute_force_is_refused_at_70000_particles() {
    let stdout = run(&[
        "--spawn",
        "70000",
        "--frames",
        "3",
        "--broadphase",
        "rebuild",
        "--press",
        "B@2",
    ]);
    assert!(
        stdout.contains("brute force refused: 70000 particles"),
        "{stdout}"
    );
    assert!(
        stdout.contains("broadphase: quadtree (incremental)"),
        "{stdout}"
    );
}

/// Pixels of white text in the middle band of the window, where the hint goes (nothing else
/// drawn there is that light).
fn hint_pixels(img: &Png) -> usize {
    // Below the blue quad (screen rows 300 to 450, columns 400 to 600) and the controls panel
    // (to row 588).
    (591..670)
        // Not the world's white border in the first and last columns.
        .flat_map(|y| (2..img.width - 2).map(move |x| (x, y)))
        .filter(|&(x, y)| img.at(x, y)[..3].iter().all(|&c| c > 180))
        .count()
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn an_empty_world_shows_a_hint_that_goes_once_particles_exist() {
    let empty = temp_png("hint_empty.png");
    run(&["--frames", "3", "--screenshot", empty.to_str().unwrap()]);
    let img = Png::read(&empty);
    assert!(hint_pixels(&img) > 200, "no hint on an empty world");
    // The hint covers no part of the quad: its bottom edge shows along its whole width.
    let bottom = (400..600).filter(|&x| img.is(x, 449, QUAD_EDGE)).count();
    assert!(
        bottom >= 195,
        "{bottom} of 200 pixels of the quad's bottom edge"
    );
    let spawned = temp_png("hint_spawned.png");
    let stdout = run(&[
        "--frames",
        "3",
        "--press",
        "2@1",
        "--screenshot",
        spawned.to_str().unwrap(),
    ]);
    assert!(!stdout.contains("particles: 0 count"), "{stdout}");
    assert_eq!(
        hint_pixels(&Png::read(&spawned)),
        0,
        "the hint stays after spawning"
    );
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn esc_closes_the_help_then_the_panel_then_ends_the_program() {
    let started = std::time::Instant::now();
    // The panel is open from the start; H opens the help.
    let stdout = run(&[
        "--frames", "100000", "--press", "H@2", "--press", "esc@3", "--press", "esc@4", "--press",
        "esc@5",
    ]);
    assert!(stdout.contains("quit: esc at frame 5"), "{stdout}");
    let stdout = run(&["--frames", "100000", "--press", "P@2", "--press", "esc@3"]);
    assert!(stdout.contains("quit: esc at frame 3"), "{stdout}");
    assert!(started.elapsed().as_secs() < 60);
}

/// The value of `key: ` in a scripted run's summary.
fn summary<'a>(stdout: &'a str, key: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
        .unwrap_or_else(|| panic!("no {key} in\n{stdout}"))
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn the_panel_sets_what_the_keys_set() {
    let stdout = run(&[
        "--frames",
        "8",
        "--spawn",
        "500",
        "--panel",
        "capacity=64@2",
        "--panel",
        "depth=4@2",
        "--panel",
        "gravity=off@3",
        "--panel",
        "placement=loose@3",
        "--panel",
        "colors=speed@4",
        "--panel",
        "query=circle@4",
        "--panel",
        "broadphase=brute@5",
        "--panel",
        "threads=1@5",
    ]);
    assert!(
        stdout.contains("tree rebuilt: leaf capacity 64"),
        "{stdout}"
    );
    assert_eq!(summary(&stdout, "leaf_capacity"), "64 items");
    assert_eq!(summary(&stdout, "depth_limit"), "4 levels");
    assert_eq!(summary(&stdout, "placement"), "loose");
    assert_eq!(summary(&stdout, "gravity"), "off");
    assert_eq!(summary(&stdout, "colors"), "speed");
    assert_eq!(summary(&stdout, "query"), "circle");
    assert_eq!(summary(&stdout, "broadphase"), "brute force");
    assert_eq!(summary(&stdout, "particles"), "500 count");
    assert_eq!(summary(&stdout, "threads"), "1 count");
    // A bigger world: room for four times the particles, the old ones gone.
    let stdout = run(&["--frames", "4", "--spawn", "500", "--panel", "world=2@2"]);
    assert_eq!(summary(&stdout, "particles"), "0 count");
    let cap: usize = summary(&stdout, "particle_cap")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // 85% of a world of 6144 x 4608 units, in particles of 8 x 8.
    assert_eq!(cap, (6144.0 * 4608.0 * 0.85 / 64.0) as usize, "{cap}");
    // Buttons: spawn adds a batch, clear empties the world, with the panel shown and with
    // it hidden.
    for hidden in [false, true] {
        let mut args = vec![
            "--frames", "6", "--panel", "spawn@2", "--panel", "clear@3", "--panel", "spawn@5",
        ];
        if hidden {
            args.extend(["--press", "tab@1"]);
        }
        let stdout = run(&args);
        assert_eq!(
            summary(&stdout, "particles"),
            "5000 count",
            "hidden: {hidden}"
        );
        let stdout = run(&["--frames", "4", "--spawn", "300", "--panel", "clear@2"]);
        assert_eq!(summary(&stdout, "particles"), "0 count");
    }
    // Any leaf capacity and world scale the flags take, and the keys at their limits.
    let stdout = run(&[
        "--frames",
        "4",
        "--spawn",
        "300",
        "--capacity",
        "100000",
        "--world-scale",
        "1.2",
        "--panel",
        "capacity=2048@2",
        "--press",
        "]@3",
    ]);
    assert_eq!(summary(&stdout, "leaf_capacity"), "4096 items");
    let stdout = run(&["--frames", "3", "--capacity", "1048576", "--press", "]@2"]);
    assert_eq!(summary(&stdout, "leaf_capacity"), "1048576 items");
    assert!(stdout.contains("nothing rebuilt"), "{stdout}");
    // A bad setting is refused before a window opens.
    let out = std::process::Command::new(BIN)
        .args(["--panel", "capacity=0@2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("capacity takes a whole number"));
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn circle_and_nearest_queries_agree_with_brute_force() {
    let common = [
        "--spawn",
        "6000",
        "--frames",
        "20",
        "--gravity",
        "off",
        "--seed",
        "5",
        "--right-click",
        "900,900",
        "--move-quad",
        "30,15",
    ];
    let circle = run(&[&common[..], &["--panel", "query=circle@1"]].concat());
    for prefix in ["right-click:", "quad report:"] {
        let line = circle.lines().find(|l| l.starts_with(prefix)).unwrap();
        assert!(line.contains("blue circle ("), "{line}");
        let (count, _, tested) = check_report(line);
        assert!(count > 0 && tested * 4 < 6000, "{line}");
    }
    let rect = run(&common);
    let in_rect = field(
        rect.lines()
            .find(|l| l.starts_with("right-click:"))
            .unwrap(),
        "particles touching:",
    );
    let in_circle = field(
        circle
            .lines()
            .find(|l| l.starts_with("right-click:"))
            .unwrap(),
        "particles touching:",
    );
    assert!(
        in_circle < in_rect,
        "{in_circle} in the circle, {in_rect} in its quad"
    );

    let nearest = run(&[
        &common[..],
        &["--panel", "query=nearest@1", "--panel", "k=37@1"],
    ]
    .concat());
    for prefix in ["right-click:", "quad report:"] {
        let line = nearest.lines().find(|l| l.starts_with(prefix)).unwrap();
        assert!(
            line.starts_with(&format!("{prefix} nearest 37 to (")),
            "{line}"
        );
        assert_eq!(field(line, "particles found:"), 37, "{line}");
        assert_eq!(field(line, "brute force:"), 37, "{line}");
        assert!(line.contains("(agrees, same distances)"), "{line}");
        let within = field(line, "nodes within reach:");
        assert!(within >= 1 && within < field(line, &format!("reach: {within} of")));
    }
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn an_idle_window_is_held_to_60_frames_a_second() {
    let stdout = run(&["--frames", "40", "--press", "space@1"]);
    let fps: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("fps.mean: "))
        .and_then(|v| v.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(fps <= 63.0, "{fps} frames a second while idle");
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn node_outlines_are_drawn_and_subdivision_shows() {
    let shot = temp_png("outlines.png");
    run(&[
        "--spawn",
        "3000",
        "--frames",
        "10",
        "--gravity",
        "off",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    let img = Png::read(&shot);
    // The root's outline, in white, is inside the window on all four sides (the world fills
    // the 1024x768 window exactly).
    let white = [255, 255, 255];
    let (w, h) = (img.width, img.height);
    let right = (250..h).filter(|&y| img.is(w - 1, y, white)).count();
    let bottom = (0..w).filter(|&x| img.is(x, h - 1, white)).count();
    let left = (250..h).filter(|&y| img.is(0, y, white)).count();
    assert!(right * 10 >= (h - 250) * 9, "right edge at {right} rows");
    assert!(left * 10 >= (h - 250) * 9, "left edge at {left} rows");
    assert!(bottom * 10 >= w * 9, "bottom edge at {bottom} columns");
    // The root splits: its vertical centre line (world x = 1536, screen x = 512) is drawn down
    // the whole window, below the HUD, in the depth-1 colour.
    let depth1 = [255, 217, 77];
    let rows: Vec<usize> = (250..760).collect();
    let lit = rows
        .iter()
        .filter(|&&y| (511..=513).any(|x| img.is(x, y, depth1)))
        .count();
    assert!(
        lit * 10 >= rows.len() * 8,
        "root split line at {lit} of {} rows",
        rows.len()
    );
    // And deeper levels exist: some pixels in the colours of depths 2 to 6.
    let deeper = [
        [255, 153, 51],
        [242, 89, 89],
        [204, 102, 230],
        [115, 140, 255],
        [77, 217, 242],
    ];
    let found = deeper
        .iter()
        .filter(|c| {
            (0..img.height)
                .step_by(3)
                .any(|y| (0..img.width).any(|x| img.is(x, y, **c)))
        })
        .count();
    assert!(found >= 2, "only {found} deeper outline colours drawn");
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn a_right_click_that_misses_says_no() {
    // No particles at all: the quad touches nothing.
    let stdout = run(&["--spawn", "0", "--frames", "5", "--right-click", "300,300"]);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("right-click:"))
        .unwrap();
    assert!(line.contains("collides: no"), "{line}");
    assert_eq!(check_report(line).0, 0);
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn loose_placement_draws_the_loose_bounds() {
    let shot = temp_png("loose.png");
    run(&[
        "--spawn",
        "3000",
        "--frames",
        "5",
        "--gravity",
        "off",
        "--placement",
        "loose",
        // The controls panel (in the screenshot) would cover the line.
        "--press",
        "P@1",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    let img = Png::read(&shot);
    // The left depth-1 node's cell is world x 0 to 1536; its loose bounds reach half a cell
    // further, to x = 2304: screen x = 768, where exact placement draws no depth-1 line.
    let depth1 = [255, 217, 77];
    let rows: Vec<usize> = (250..760).collect();
    let lit = rows
        .iter()
        .filter(|&&y| (767..=769).any(|x| img.is(x, y, depth1)))
        .count();
    assert!(
        lit * 10 >= rows.len() * 8,
        "loose bound at {lit} of {} rows",
        rows.len()
    );
}

/// A 3,000-particle scene with a right-clicked quad and the HUD hidden, run once per entry of
/// `routes` (the flags that pick a drawing route) and captured; `check` reads each run's
/// standard output.
fn route_shots(name: &str, routes: [&[&str]; 2], check: impl Fn(usize, &str)) -> [Png; 2] {
    let mut i = 0;
    routes.map(|flags| {
        let shot = temp_png(&format!("{name}_{i}.png"));
        let mut args = flags.to_vec();
        let scene = [
            "--spawn",
            "3000",
            "--frames",
            "10",
            "--gravity",
            "off",
            "--seed",
            "5",
            "--right-click",
            "900,900",
            "--press",
            "tab@1",
            "--screenshot",
        ];
        args.extend(scene);
        args.push(shot.to_str().unwrap());
        check(i, &run(&args));
        i += 1;
        Png::read(&shot)
    })
}

/// Asserts that two routes' shots agree to within `tolerance` per channel below the quad's
/// report panel (whose query time differs from run to run), and that the scene is there:
/// the magenta highlights and the blue quad's edge, red and blue in their places.
fn assert_same_scene(what: &str, a: &Png, b: &Png, tolerance: u8) {
    assert_eq!((a.width, a.height), (b.width, b.height));
    let mut differ = 0;
    for y in 160..a.height {
        for x in 0..a.width {
            let (p, q) = (a.at(x, y), b.at(x, y));
            differ += usize::from(p.iter().zip(q).any(|(p, q)| p.abs_diff(q) > tolerance));
        }
    }
    assert_eq!(differ, 0, "pixels where {what}");
    let count = |rgb: [u8; 3]| {
        (160..b.height)
            .flat_map(|y| (0..b.width).map(move |x| (x, y)))
            .filter(|&(x, y)| b.is(x, y, rgb))
            .count()
    };
    for (name, rgb) in [("highlight", HIGHLIGHT), ("quad edge", QUAD_EDGE)] {
        assert!(count(rgb) > 100, "{} {name} pixels", count(rgb));
    }
}

/// The instanced renderer (one draw call) covers the same pixels as the canvas, which the
/// tests above check in detail: llvmpipe has OpenGL 4.5, so both routes run under Xvfb.
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn the_instanced_renderer_draws_what_the_canvas_draws() {
    let renderers = ["canvas", "instanced"];
    let [canvas, instanced] = route_shots(
        "route",
        [&["--renderer", "canvas"], &["--renderer", "instanced"]],
        |i, stdout| {
            let start = format!("renderer: {} (", renderers[i]);
            assert!(
                stdout.lines().any(|l| l.starts_with(&start)),
                "no {start:?} line in\n{stdout}"
            );
        },
    );
    // Blending may round differently by a step or two.
    assert_same_scene("the renderers differ", &canvas, &instanced, 2);
    // The root's white outline too.
    let white = (160..instanced.height)
        .flat_map(|y| (0..instanced.width).map(move |x| (x, y)))
        .filter(|&(x, y)| instanced.is(x, y, [255, 255, 255]))
        .count();
    assert!(white > 500, "{white} white pixels");
}

/// The canvas shown by a framebuffer blit (in the window's pixel order) and as a textured
/// quad (as in WebGL) gives the same pixels.
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn the_canvas_blitted_shows_what_the_textured_quad_shows() {
    let routes = [", blit;", ", textured quad;"];
    let [blitted, quad] = route_shots(
        "blit",
        [
            &["--blit", "on", "--renderer", "canvas"],
            &["--blit", "off", "--renderer", "canvas"],
        ],
        |i, stdout| {
            let line = stdout
                .lines()
                .find(|l| l.starts_with("renderer: canvas ("))
                .unwrap_or_else(|| panic!("no canvas renderer line in\n{stdout}"));
            assert!(line.contains(routes[i]), "{line}");
        },
    );
    assert_same_scene("the blit differs", &blitted, &quad, 0);
}

/// The renderer is chosen from OpenGL's renderer string: software OpenGL gets the canvas.
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn software_opengl_gets_the_canvas_by_default() {
    let stdout = run(&["--frames", "2"]);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("renderer: "))
        .unwrap_or_else(|| panic!("no renderer line in\n{stdout}"));
    if line.contains("llvmpipe") {
        assert!(line.starts_with("renderer: canvas ("), "{line}");
    }
    for name in ["frame_work.median", "draw.median", "present.median"] {
        assert!(
            stdout.contains(&format!("{name}: ")),
            "no {name} in\n{stdout}"
        );
    }
}

/// The steps that run on a second thread while a frame is shown give the same particles as
/// steps in line: the same quad report after 40 frames of a falling pile.
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn stepping_beside_the_drawing_gives_the_same_particles() {
    let report = |overlap: &str| {
        let stdout = run(&[
            "--overlap",
            overlap,
            "--spawn",
            "4000",
            "--frames",
            "40",
            "--gravity",
            "on",
            "--seed",
            "9",
            "--right-click",
            "1500,1800",
        ]);
        assert!(
            stdout.contains(&format!("step_overlap: {overlap}")),
            "{stdout}"
        );
        let line = stdout
            .lines()
            .find(|l| l.starts_with("quad report:"))
            .expect("a report after the last frame")
            .to_owned();
        (
            field(&line, "particles touching:"),
            field(&line, "nodes visited:"),
            field(&line, "particles tested:"),
        )
    };
    let (on, off) = (report("on"), report("off"));
    assert!(on.0 > 0, "{on:?}");
    assert_eq!(on, off);
}

/// The text over the world kept in a render target shows the same pixels as the text drawn
/// onto the window every frame: the help over a pile (the statistics panel hidden, whose
/// timings differ from run to run).
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn the_cached_overlay_shows_what_drawing_it_every_frame_shows() {
    let shots = ["on", "off"].map(|cache| {
        let shot = temp_png(&format!("overlay_{cache}.png"));
        let stdout = run(&[
            "--overlay-cache",
            cache,
            "--spawn",
            "3000",
            "--frames",
            "12",
            "--seed",
            "5",
            "--press",
            "tab@1",
            "--press",
            "H@1",
            "--screenshot",
            shot.to_str().unwrap(),
        ]);
        let expected = if cache == "on" { "cached" } else { "direct" };
        assert!(
            stdout.lines().any(|l| l == format!("overlay: {expected}")),
            "no overlay: {expected} line in\n{stdout}"
        );
        Png::read(&shot)
    });
    let [cached, direct] = &shots;
    assert_eq!((cached.width, cached.height), (direct.width, direct.height));
    let mut differ = 0;
    for y in 0..cached.height {
        for x in 0..cached.width {
            let (a, b) = (cached.at(x, y), direct.at(x, y));
            differ += usize::from(a.iter().zip(b).any(|(p, q)| p.abs_diff(q) > 2));
        }
    }
    assert_eq!(differ, 0, "pixels where the cached overlay differs");
    // The help is there: a large dark box with light text in the window's middle.
    let (cx, cy) = (cached.width / 2, cached.height / 2);
    let text = (cy - 100..cy + 100)
        .flat_map(|y| (cx - 200..cx + 200).map(move |x| (x, y)))
        .filter(|&(x, y)| cached.at(x, y)[..3].iter().all(|&c| c > 120))
        .count();
    assert!(text > 1000, "{text} light text pixels in the help");
}

/// The screenshot shows the controls panel (macroquad's `ui`, drawn after the frame): its
/// light window right of the world, gone with `P`.
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn the_screenshot_shows_the_controls_panel() {
    let light = |hide: bool| {
        let shot = temp_png(&format!("panel_{hide}.png"));
        let mut args = vec!["--spawn", "2000", "--frames", "6", "--screenshot"];
        args.push(shot.to_str().unwrap());
        if hide {
            args.extend(["--press", "P@1"]);
        }
        run(&args);
        let img = Png::read(&shot);
        // The panel: 300 x 382 pixels, 4 from the right edge, from y = 140.
        let x0 = img.width - 304;
        (150..500)
            .flat_map(|y| (x0 + 10..x0 + 290).map(move |x| (x, y)))
            .filter(|&(x, y)| img.at(x, y)[..3].iter().all(|&c| c > 200))
            .count()
    };
    let (shown, hidden) = (light(false), light(true));
    assert!(shown > 280 * 350 / 2, "{shown} light pixels with the panel");
    assert!(hidden < 280 * 350 / 20, "{hidden} light pixels without it");
}

/// Pixels of colour `rgb` in the screen box `[x0, x1) x [y0, y1)`.
fn count_in(img: &Png, rgb: [u8; 3], [x0, y0, x1, y1]: [usize; 4]) -> usize {
    (y0..y1.min(img.height))
        .flat_map(|y| (x0..x1.min(img.width)).map(move |x| (x, y)))
        .filter(|&(x, y)| img.is(x, y, rgb))
        .count()
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn the_blue_quad_lies_under_the_controls_panel() {
    // World (2700, 700) puts the whole quad where the panel is in a 1024-pixel-wide window:
    // x 800 to 1000, y 158 to 308 (the panel: x 720 to 1020, y 140 to 522).
    let panel_box = [720, 140, 1020, 522];
    let mut counts = Vec::new();
    for hide_panel in [false, true] {
        let shot = temp_png(&format!("quad_under_panel_{hide_panel}.png"));
        let mut args = vec![
            "--frames",
            "3",
            "--right-click",
            "2700,700",
            "--screenshot",
            shot.to_str().unwrap(),
        ];
        if hide_panel {
            args.extend(["--press", "P@1"]);
        }
        let stdout = run(&args);
        assert!(stdout.contains("quad report:"), "{stdout}");
        counts.push(count_in(&Png::read(&shot), QUAD_EDGE, panel_box));
    }
    assert_eq!(counts[0], 0, "the quad's edge shows over the panel");
    assert!(counts[1] > 500, "the quad's edge is missing: {counts:?}");
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn leaves_only_outlines_and_the_leaves_that_changed_show() {
    const ROOT_OUTLINE: [u8; 3] = rgb(palette::OUTLINE_COLORS[0]);
    const FLASH: [u8; 3] = palette::FLASH.0;
    let whole = [0, 0, usize::MAX, usize::MAX];
    let shot_of = |outlines: &str| {
        let shot = temp_png(&format!("outlines_{outlines}.png"));
        run(&[
            "--spawn",
            "20000",
            "--frames",
            "30",
            "--press",
            "tab@1",
            "--panel",
            &format!("outlines={outlines}@1"),
            "--screenshot",
            shot.to_str().unwrap(),
        ]);
        Png::read(&shot)
    };
    let (all, leaves, off) = (shot_of("all"), shot_of("leaves"), shot_of("off"));
    // The root is no leaf in a crowd: its outline (the world's border) goes with the
    // leaves-only view, and the leaves' lines stay.
    assert!(count_in(&all, ROOT_OUTLINE, whole) > 1000);
    assert_eq!(count_in(&leaves, ROOT_OUTLINE, whole), 0);
    // Falling particles make leaves split and merge every frame: their edges are marked.
    assert!(count_in(&all, FLASH, whole) > 50, "no changed leaf marked");
    assert!(
        count_in(&leaves, FLASH, whole) > 50,
        "no changed leaf marked"
    );
    assert_eq!(count_in(&off, FLASH, whole), 0);
}

/// A windowed ramp adds particles until its frames miss the budget for a second (or the
/// scripted run's frames run out), reports the largest count held with the curve's points,
/// writes them, and draws the chart in the window.
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn a_windowed_ramp_reports_and_draws_its_curve() {
    let (csv, plot, shot) = (
        temp_png("ramp.csv"),
        temp_png("ramp-curve.png"),
        temp_png("ramp-window.png"),
    );
    let stdout = run(&[
        "--ramp",
        "--frames",
        "900",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        plot.to_str().unwrap(),
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    let stopped_by = stdout
        .lines()
        .find_map(|l| l.strip_prefix("ramp.stopped_by: "))
        .unwrap_or_else(|| panic!("no ramp report:\n{stdout}"));
    assert!(["budget", "frames"].contains(&stopped_by), "{stdout}");
    let max = report::number(&stdout, "ramp.max_particles").expect("ramp.max_particles");
    let miss_above = report::number(&stdout, "ramp.miss_above").unwrap();
    let points: Vec<(f64, f64, f64)> = (0..)
        .map_while(|i| {
            let n = report::number(&stdout, &format!("ramp.point.{i}.particles"))?;
            let frame = report::number(&stdout, &format!("ramp.point.{i}.frame"))?;
            let draw = report::number(&stdout, &format!("ramp.point.{i}.draw"))?;
            Some((n, frame, draw))
        })
        .collect();
    assert_eq!(
        report::number(&stdout, "ramp.points"),
        Some(points.len() as f64)
    );
    // A budget stop is two slow seconds in a row, the last two points; no two before them.
    if stopped_by == "budget" {
        let (before, last_two) = points.split_at(points.len().saturating_sub(2));
        assert!(
            last_two.len() == 2 && last_two.iter().all(|p| p.1 > miss_above),
            "{stdout}"
        );
        assert!(before.last().is_none_or(|p| p.1 <= miss_above), "{stdout}");
    }
    assert!(
        points
            .windows(3)
            .all(|w| w[0].1 <= miss_above || w[1].1 <= miss_above),
        "{stdout}"
    );
    let held = points.iter().filter(|p| p.1 <= miss_above).map(|p| p.0);
    assert_eq!(max, held.fold(0.0, f64::max), "{stdout}");
    // The frames are paced to 60 FPS: none is shorter than about 1/60 s.
    assert!(points.iter().all(|p| p.1 > 15.0 && p.2 > 0.0), "{stdout}");

    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), points.len() + 1, "{rows}");
    for row in rows.lines().skip(1) {
        let cells: Vec<&str> = row.split(',').collect();
        assert!(
            cells[1..4].iter().all(|c| !c.is_empty()),
            "step, draw, frame: {row}"
        );
    }
    let curve = Png::read_any(&plot);
    assert_eq!((curve.0, curve.1), (960, 600));

    // The chart at the bottom left, its budget line dashed in red.
    let img = Png::read(&shot);
    let mut red = 0;
    for y in img.height / 2..img.height {
        for x in 0..img.width / 2 {
            red += usize::from(img.is(x, y, [242, 64, 64]));
        }
    }
    // How much of the dashed line shows depends on where the curves cross it: any part of it
    // is enough to know it is drawn (nothing else at the bottom left is this red).
    assert!(red > 30, "{red} pixels of the chart's budget line");
}

impl Png {
    /// The width and height of any PNG (the plot is RGB).
    fn read_any(path: &std::path::Path) -> (u32, u32) {
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let reader = decoder.read_info().unwrap();
        let info = reader.info();
        (info.width, info.height)
    }
}

/// `--pointer` places the scripted inputs' cursor: a held left mouse pours its stream there,
/// as it does headless.
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn a_scripted_left_mouse_pours_at_the_pointer() {
    let shot = temp_png("pointer.png");
    // World (2100, 1800) is screen (700, 600): clear of the statistics, the panel and the quad.
    let stdout = run(&[
        "--gravity",
        "off",
        "--pointer",
        "2100,1800",
        "--press",
        "LeftMouse@2-31",
        "--frames",
        "32",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    let particles = stdout
        .lines()
        .find_map(|l| l.strip_prefix("particles: "))
        .and_then(|r| r.split(' ').next()?.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("no particle count:\n{stdout}"));
    assert!(particles > 0, "{stdout}");
    let img = Png::read(&shot);
    let lit = |cx: usize, cy: usize| {
        let mut n = 0;
        for y in cy - 30..cy + 30 {
            for x in cx - 30..cx + 30 {
                n +=
                    usize::from(img.at(x, y)[..3].iter().map(|&c| u32::from(c)).sum::<u32>() > 200);
            }
        }
        n
    };
    let (at_pointer, elsewhere) = (lit(700, 600), lit(300, 600));
    assert!(
        at_pointer > 40 && at_pointer > 4 * elsewhere,
        "{at_pointer} lit pixels at the pointer, {elsewhere} elsewhere"
    );
}

/// `--threads` governs every pool: the canvas fills its bands on rayon's global pool, built
/// with the same count as the simulation's.
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn threads_govern_the_canvas_bands_too() {
    let stdout = run(&["--threads", "3", "--frames", "2", "--renderer", "canvas"]);
    assert!(stdout.contains("renderer: canvas (3 bands"), "{stdout}");
    assert!(stdout.contains("threads: 3 count"), "{stdout}");
}

#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn the_help_hides_the_panel_and_covers_what_lies_under_it() {
    const PANEL_BACK: [u8; 3] = [238, 238, 238];
    let panel_box = [720, 140, 1020, 530];
    let shot_of = |help: bool| {
        let shot = temp_png(&format!("help_{help}.png"));
        let mut args = vec![
            "--frames",
            "4",
            "--spawn",
            "3000",
            "--right-click",
            "1536,1152",
            "--screenshot",
            shot.to_str().unwrap(),
        ];
        if help {
            args.extend(["--press", "H@2"]);
        }
        run(&args);
        Png::read(&shot)
    };
    let (plain, help) = (shot_of(false), shot_of(true));
    assert!(count_in(&plain, PANEL_BACK, panel_box) > 5000, "no panel");
    assert_eq!(
        count_in(&help, PANEL_BACK, panel_box),
        0,
        "the panel shows over the help"
    );
    // The quad in the middle of the window is under the help's opaque back: no particle
    // highlight shows through it.
    let middle = [400, 300, 620, 460];
    assert!(count_in(&plain, HIGHLIGHT, middle) > 20);
    assert_eq!(count_in(&help, HIGHLIGHT, middle), 0);
}

/// The value after `name: ` on the line that starts with it.
fn line_value<'a>(stdout: &'a str, name: &str) -> &'a str {
    report::value(stdout, name).unwrap_or_else(|| panic!("no {name} in:\n{stdout}"))
}

/// A scripted window run repeats: held spawn keys spawn per simulated step, not by the
/// frames' real time (which varies from run to run), so the same script gives the same
/// particles and `state_hash` on every run, and the same as the script run headless in the
/// window's world. (Twice `--press 1@1-180 --press 2@180-360 --frames 400` used to end with
/// 20,771 and 19,141 particles.)
#[test]
#[ignore = "needs a display (xvfb-run)"]
fn a_scripted_run_repeats_and_equals_the_same_script_headless() {
    let script = [
        "--press",
        "1@1-40",
        "--press",
        "2@20-50",
        "--press",
        "LeftMouse@30-45",
        "--pointer",
        "900,300",
        "--frames",
        "60",
    ];
    let windowed = || {
        let stdout = run(&script);
        (
            line_value(&stdout, "particles").to_owned(),
            line_value(&stdout, "state_hash").to_owned(),
        )
    };
    let first = windowed();
    // 300 a second for 40 steps, 6,000 a second for 31, the cursor's 600 for 16.
    assert_eq!(first.0, (200 + 3100 + 160).to_string(), "{first:?}");
    assert_eq!(windowed(), first, "a second run");
    let mut headless_args = vec!["--world-scale", "1", "--particles", "0", "--gravity", "on"];
    headless_args.extend_from_slice(&script);
    let stdout = headless(&headless_args);
    assert_eq!(line_value(&stdout, "particles_end"), first.0, "{stdout}");
    assert_eq!(line_value(&stdout, "state_hash"), first.1, "{stdout}");
}

/// The panel's typed counts in a scripted window: held keys stop exactly at `stop`, the
/// spawn button adds exactly `count`, and the window ends as the same script headless.
#[test]
#[ignore = "needs a display (xvfb-run)"]
fn typed_counts_stop_held_keys_and_spawn_exactly_as_headless() {
    let script = [
        "--panel",
        "stop=1234@1",
        "--press",
        "2@1-40",
        "--panel",
        "count=321@42",
        "--panel",
        "spawn@42",
        "--frames",
        "45",
    ];
    let stdout = run(&script);
    assert_eq!(line_value(&stdout, "particles"), "1555", "{stdout}");
    let mut headless_args = vec!["--world-scale", "1", "--particles", "0", "--gravity", "on"];
    headless_args.extend_from_slice(&script);
    let alone = headless(&headless_args);
    assert_eq!(line_value(&alone, "particles_end"), "1555", "{alone}");
    assert_eq!(
        line_value(&alone, "state_hash"),
        line_value(&stdout, "state_hash")
    );
}

/// Whether the column `x` has `rgb` on every row from `y0` to `y1` (one pixel of slack at
/// the corners).
fn column_is(img: &Png, x: usize, (y0, y1): (usize, usize), rgb: [u8; 3]) -> bool {
    (y0 + 1..y1).all(|y| (x.saturating_sub(1)..=x + 1).any(|x| img.is(x, y, rgb)))
}

/// At 640x480 (panel shown), 1280x900 and 2560x1600 the blue quad's report and the quad
/// itself are whole on screen: the report's blue frame is unbroken on all four sides, and the
/// quad's frame shows where the view puts it. At 640x480 the panel, drawn at full size, used
/// to cover the report's lower half and the quad's right side; it is now drawn smaller and
/// docked at the bottom right.
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn the_report_and_the_quad_stay_visible_at_every_window_size() {
    for (w, h) in [(640usize, 480usize), (1280, 900), (2560, 1600)] {
        let shot = temp_png(&format!("layout_{w}x{h}.png"));
        let size = format!("{w}x{h}");
        let mut args = vec![
            "--window",
            &size,
            "--spawn",
            "3000",
            "--right-click",
            "1500,1100",
            "--frames",
            "6",
            "--screenshot",
            shot.to_str().unwrap(),
        ];
        // A small window starts with the panel hidden: shown here, as a user would.
        if w < 720 {
            args.extend(["--press", "P@1"]);
        }
        let stdout = run(&args);
        assert!(stdout.contains("quad report:"), "{stdout}");
        let img = Png::read(&shot);
        assert_eq!((img.width, img.height), (w, h), "--window {size}");
        // The report: a box right-aligned 4 pixels from the right edge, from y = 4, framed in
        // the quad's blue. Its right frame runs down to its bottom frame, a row of blue.
        let right = w - 5;
        let frame_rows: Vec<usize> = (0..h / 3)
            .filter(|&y| count_in(&img, QUAD_EDGE, [w / 2, y, w, y + 1]) > 100)
            .collect();
        let (top, bottom) = (frame_rows[0], *frame_rows.last().unwrap());
        assert!(
            bottom > top + 60,
            "{size}: the report's frame rows {frame_rows:?}"
        );
        assert!(
            column_is(&img, right, (top, bottom), QUAD_EDGE),
            "{size}: the report's right frame is broken (covered)"
        );
        let left = (w / 2..w)
            .find(|&x| column_is(&img, x, (top, bottom), QUAD_EDGE))
            .expect("the report's left frame");
        assert!(left < right - 100, "{size}: left frame at {left}");
        // The quad, 600 x 450 world units centred on the right-click, where the view (the
        // world fitted to the window, centred) puts it: its frame shows on all four sides.
        let s = (w as f64 / 3072.0).min(h as f64 / 2304.0);
        let (ox, oy) = (
            (w as f64 / 2.0 - 1536.0 * s).round(),
            (h as f64 / 2.0 - 1152.0 * s).round(),
        );
        let at = |x: f64, y: f64| ((ox + x * s) as usize, (oy + y * s) as usize);
        let (x0, y0) = at(1200.0, 875.0);
        let (x1, y1) = at(1800.0, 1325.0);
        let frame = count_in(&img, QUAD_EDGE, [x0 - 3, y0 - 3, x1 + 4, y1 + 4])
            - count_in(&img, QUAD_EDGE, [x0 + 4, y0 + 4, x1 - 3, y1 - 3]);
        let perimeter = 2 * ((x1 - x0) + (y1 - y0));
        assert!(
            frame >= perimeter,
            "{size}: {frame} pixels of the quad's frame, perimeter {perimeter}"
        );
    }
}

/// A windowed ramp asked for its files (`--ramp --plot`, no `--frames`) ends by itself once
/// it stopped and wrote them (it used to write them and stay open: killed after 18 min).
#[test]
#[ignore = "opens a window: run under xvfb-run -a cargo test --release -- --ignored"]
fn a_scripted_windowed_ramp_exits_when_done() {
    let csv = temp_png("ramp_exit.csv");
    let _ = std::fs::remove_file(&csv);
    // A budget no frame under software OpenGL meets: two windows miss, after the settling.
    let mut child = Command::new(BIN)
        .args([
            "--ramp",
            "--budget-ms",
            "0.5",
            "--csv",
            csv.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            panic!("the ramp did not end within 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    assert!(status.success(), "{status:?}\n{stdout}");
    assert!(stdout.contains("ramp.stopped_by: budget"), "{stdout}");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 3, "two points, both missed: {text}");
}
