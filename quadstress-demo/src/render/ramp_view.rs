//! The ramp's curve in the window, drawn with macroquad's shapes so that it shows in a web
//! page too (the files of `--plot` come from plotters, see `plot`). The same chart: log-log
//! axes, the step, draw and frame times against the particle count, brute force's estimate
//! beside them, the budget, and the largest count held.

use macroquad::color::Color;
use macroquad::shapes::{draw_circle, draw_line, draw_rectangle, draw_rectangle_lines};
use macroquad::text::{draw_text, measure_text};

use crate::state::app::App;
use crate::state::ramp::{bounds, count_label, ms_label, thousands, Ramp, Series, Stop};

const BACK: Color = Color::new(0.07, 0.07, 0.09, 0.94);
const EDGE: Color = Color::new(0.45, 0.45, 0.5, 1.0);
const GRID: Color = Color::new(1.0, 1.0, 1.0, 0.12);
const TEXT: Color = Color::new(0.9, 0.9, 0.9, 1.0);
const STEP: Color = Color::new(0.35, 0.55, 1.0, 1.0);
const DRAW: Color = Color::new(0.3, 0.8, 0.45, 1.0);
const FRAME: Color = Color::new(1.0, 0.6, 0.15, 1.0);
const BRUTE: Color = Color::new(0.6, 0.6, 0.6, 1.0);
const BUDGET: Color = Color::new(0.95, 0.25, 0.25, 1.0);

/// Text size of the chart's labels: one the window's font atlas is warmed with.
pub const TEXT_SIZE: u16 = 14;
/// Text size of its title.
pub const TITLE_SIZE: u16 = 18;

/// The chart's title: the count held once the ramp stopped, the count now while it runs.
pub fn title(ramp: &Ramp, particles: usize) -> String {
    let budget = ramp.budget_ms();
    let measure = ramp.measure().name();
    match ramp.stopped() {
        None => format!(
            "ramp: {} particles, adding until {measure}s miss {budget} ms two seconds running",
            thousands(particles)
        ),
        Some(Stop::Budget) => format!(
            "ramp: {} particles held within {budget} ms {measure}s (R: close)",
            thousands(ramp.max_particles())
        ),
        Some(why) => format!(
            "ramp stopped by {}: {} particles held, the limit is higher (R: close)",
            why.name(),
            thousands(ramp.max_particles())
        ),
    }
}

/// Draws the ramp's chart if it is shown, at the bottom left of a `width` x `height` window
/// (left of the controls panel, below the statistics, above the message line); returns the
/// screen rectangle it covers.
pub fn show(app: &App, width: f32, height: f32) -> Option<(f32, f32, f32, f32)> {
    let ramp = app.ramp.ramp.as_ref().filter(|_| app.ramp.shown)?;
    let w = (width - 340.0).clamp(200.0, 760.0);
    let h = (height * 0.45).clamp(120.0, 360.0);
    let (x, y) = (10.0, height - h - 40.0);
    draw(ramp, app.ramp.count, x, y, w, h);
    Some((x, y, w, h))
}

/// What the chart shows, for the overlay's redraw key: it changes with each point.
pub fn key(app: &App) -> (bool, usize, Option<u8>) {
    let ramp = app.ramp.ramp.as_ref();
    (
        app.ramp.shown,
        ramp.map_or(0, |r| r.points().len()),
        ramp.and_then(Ramp::stopped).map(|s| s as u8),
    )
}

/// A log axis from `lo` to `hi` mapped onto `a..b` pixels (`b < a` for the y axis).
#[derive(Clone, Copy)]
struct LogAxis {
    lo: f64,
    hi: f64,
    a: f32,
    b: f32,
}

impl LogAxis {
    fn at(&self, v: f64) -> f32 {
        let t = (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10());
        self.a + (self.b - self.a) * t.clamp(0.0, 1.0) as f32
    }

    /// The powers of ten, and 2 and 5 times them, inside the axis.
    fn ticks(&self) -> impl Iterator<Item = f64> + '_ {
        let first = self.lo.log10().floor() as i32;
        let last = self.hi.log10().ceil() as i32;
        (first..=last)
            .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
            .filter(|v| (self.lo..=self.hi).contains(v))
    }
}

/// Draws the chart into the screen rectangle `(x, y, w, h)`, titled for `particles` now.
pub fn draw(ramp: &Ramp, particles: usize, x: f32, y: f32, w: f32, h: f32) {
    draw_rectangle(x, y, w, h, BACK);
    draw_rectangle_lines(x, y, w, h, 1.0, EDGE);
    let line = f32::from(TEXT_SIZE) + 4.0;
    draw_text(
        title(ramp, particles).as_str(),
        x + 10.0,
        y + f32::from(TITLE_SIZE) + 4.0,
        f32::from(TITLE_SIZE),
        TEXT,
    );
    let points = ramp.points();
    let Some((x_lo, x_hi)) = bounds(points.iter().map(|p| p.particles as f64)) else {
        draw_text(
            "the first point comes after a second",
            x + 10.0,
            y + 2.5 * line + 10.0,
            f32::from(TEXT_SIZE),
            TEXT,
        );
        return;
    };
    let times = points.iter().flat_map(|p| {
        [p.step_ms, p.draw_ms, p.frame_ms, p.brute_force_ms]
            .into_iter()
            .flatten()
    });
    let (y_lo, y_hi) = bounds(times.chain([ramp.budget_ms()])).unwrap_or((0.1, 100.0));
    // The legend's lines below the title, the axes' labels left and below.
    let series: [(&str, Color, Series); 4] = [
        ("step", STEP, |p| p.step_ms),
        ("draw", DRAW, |p| p.draw_ms),
        ("frame", FRAME, |p| p.frame_ms),
        ("brute force pairs (estimate)", BRUTE, |p| p.brute_force_ms),
    ];
    let top = y + f32::from(TITLE_SIZE) + 2.0 * line;
    let mut lx = x + 10.0;
    for (name, color, _) in series {
        draw_line(
            lx,
            top - line * 0.8,
            lx + 18.0,
            top - line * 0.8,
            2.0,
            color,
        );
        draw_text(
            name,
            lx + 22.0,
            top - line * 0.5,
            f32::from(TEXT_SIZE),
            TEXT,
        );
        lx += 40.0 + measure_text(name, None, TEXT_SIZE, 1.0).width;
    }
    let budget_label = format!("budget {} ms", ramp.budget_ms());
    draw_line(
        lx,
        top - line * 0.8,
        lx + 18.0,
        top - line * 0.8,
        2.0,
        BUDGET,
    );
    draw_text(
        &budget_label,
        lx + 22.0,
        top - line * 0.5,
        f32::from(TEXT_SIZE),
        TEXT,
    );

    let (left, right, bottom) = (x + 60.0, x + w - 16.0, y + h - 2.0 * line);
    if right - left < 40.0 || bottom - top < 40.0 {
        return;
    }
    let xa = LogAxis {
        lo: x_lo / 1.25,
        hi: x_hi * 1.25,
        a: left,
        b: right,
    };
    let ya = LogAxis {
        lo: y_lo / 2.0,
        hi: y_hi * 2.0,
        a: bottom,
        b: top,
    };
    draw_rectangle_lines(left, top, right - left, bottom - top, 1.0, EDGE);
    // A label that would touch the last one drawn is left out: at a narrow axis 1, 2 and 5
    // of a decade can still run together.
    let mut clear_from = f32::NEG_INFINITY;
    for v in xa.ticks() {
        let px = xa.at(v);
        draw_line(px, top, px, bottom, 1.0, GRID);
        let label = count_label(v);
        let lw = measure_text(&label, None, TEXT_SIZE, 1.0).width;
        if px - lw / 2.0 < clear_from {
            continue;
        }
        clear_from = px + lw / 2.0 + 6.0;
        draw_text(
            &label,
            px - lw / 2.0,
            bottom + line,
            f32::from(TEXT_SIZE),
            TEXT,
        );
    }
    for v in ya.ticks() {
        let py = ya.at(v);
        draw_line(left, py, right, py, 1.0, GRID);
        let label = ms_label(v);
        let lw = measure_text(&label, None, TEXT_SIZE, 1.0).width;
        draw_text(
            &label,
            left - lw - 6.0,
            py + 4.0,
            f32::from(TEXT_SIZE),
            TEXT,
        );
    }
    draw_text(
        "particles",
        right - 70.0,
        bottom + 2.0 * line - 4.0,
        f32::from(TEXT_SIZE),
        TEXT,
    );
    draw_text("ms", x + 8.0, top + line, f32::from(TEXT_SIZE), TEXT);

    // The budget, dashed.
    let by = ya.at(ramp.budget_ms());
    let mut dx = left;
    while dx < right {
        draw_line(dx, by, (dx + 8.0).min(right), by, 2.0, BUDGET);
        dx += 14.0;
    }
    if ramp.max_particles() > 0 {
        let mx = xa.at(ramp.max_particles() as f64);
        draw_line(mx, top, mx, bottom, 1.0, TEXT);
    }
    for (_, color, value) in series {
        let mut last: Option<(f32, f32)> = None;
        for p in points {
            let Some(v) = value(p).filter(|v| *v > 0.0) else {
                continue;
            };
            let at = (xa.at(p.particles as f64), ya.at(v));
            if let Some((x0, y0)) = last {
                draw_line(x0, y0, at.0, at.1, 2.0, color);
            }
            draw_circle(at.0, at.1, 2.5, color);
            last = Some(at);
        }
    }
}
