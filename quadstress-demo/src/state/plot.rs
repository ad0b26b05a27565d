//! The ramp's files: its points as CSV, its curve as PNG or SVG drawn by plotters (desktop
//! only: plotters' wasm32 build needs wasm-bindgen, which a miniquad page does not load, and
//! a page writes no files; the window draws its own copy of the curve, see `ramp_view`).
//!
//! Both axes are logarithmic: counts from a thousand to a million and times from a tenth of a
//! millisecond to brute force's minutes share one chart that way.

use std::path::Path;

use crate::settings::files::write_via_temporary;
use crate::state::ramp::Ramp;

/// Writes the ramp's `--csv` and `--plot` files; returns a line to print for each.
pub fn write_outputs(
    ramp: &Ramp,
    csv: Option<&Path>,
    plot: Option<&Path>,
    title: &str,
) -> Result<Vec<String>, String> {
    let mut written = Vec::new();
    if let Some(path) = csv {
        write_via_temporary(path, |tmp| {
            std::fs::write(tmp, ramp.csv())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        })?;
        written.push(format!("ramp.csv: {}", path.display()));
    }
    if let Some(path) = plot {
        #[cfg(not(target_arch = "wasm32"))]
        write_via_temporary(path, |tmp| chart::draw(ramp, tmp, path, title))?;
        #[cfg(target_arch = "wasm32")]
        let _ = title;
        written.push(format!("ramp.plot: {}", path.display()));
    }
    Ok(written)
}

#[cfg(not(target_arch = "wasm32"))]
mod chart {
    use std::path::Path;
    use std::sync::Once;

    use plotters::coord::Shift;
    use plotters::prelude::*;

    use crate::settings::cli::PlotFormat;
    use crate::state::ramp::{
        bounds, count_label, labelled_tick, ms_label, thousands, Ramp, Series,
    };

    /// The text's font, shipped in `assets/fonts/` (MIT): plotters draws no text without one,
    /// and a font of our own needs no system font library.
    static FONT: &[u8] = include_bytes!("../../../assets/fonts/ProggyClean.ttf");
    /// The font family the chart's text asks for.
    const FAMILY: &str = "sans-serif";
    /// ProggyClean is drawn pixel-exact at multiples of 13 pixels.
    const TEXT: u32 = 13;
    /// The chart's size in pixels.
    pub const SIZE: (u32, u32) = (960, 600);

    /// The series' colours: step, draw, frame, brute force, budget.
    const STEP: RGBColor = RGBColor(40, 110, 255);
    const DRAW: RGBColor = RGBColor(30, 160, 90);
    const FRAME: RGBColor = RGBColor(230, 130, 20);
    const BRUTE: RGBColor = RGBColor(120, 120, 120);
    const BUDGET: RGBColor = RGBColor(210, 40, 40);

    /// Draws `ramp`'s curve into `path`, a PNG or an SVG by its extension, titled `title`
    /// (its first line large, its second, the scene, below it);
    /// messages name the file as `shown` (the file `path` is renamed to).
    ///
    /// # Errors
    /// A message for an unknown extension, a curve with no point, or a failed write.
    pub fn draw(ramp: &Ramp, path: &Path, shown: &Path, title: &str) -> Result<(), String> {
        static REGISTER: Once = Once::new();
        REGISTER.call_once(|| {
            // The font is ours and valid: a failure would show as text missing from the chart.
            let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
        });
        let failed = |e: &dyn std::fmt::Display| format!("cannot draw {}: {e}", shown.display());
        match PlotFormat::of(path) {
            Some(PlotFormat::Png) => {
                let root = BitMapBackend::new(path, SIZE).into_drawing_area();
                chart(&root, ramp, title).map_err(|e| failed(&e))?;
                root.present().map_err(|e| failed(&e))
            }
            Some(PlotFormat::Svg) => {
                let root = SVGBackend::new(path, SIZE).into_drawing_area();
                chart(&root, ramp, title).map_err(|e| failed(&e))?;
                root.present().map_err(|e| failed(&e))
            }
            None => Err(format!(
                "{}: the plot's file must end in .png or .svg",
                shown.display()
            )),
        }
    }

    fn chart<DB: DrawingBackend>(
        root: &DrawingArea<DB, Shift>,
        ramp: &Ramp,
        title: &str,
    ) -> Result<(), Box<dyn std::error::Error>>
    where
        DB::ErrorType: 'static,
    {
        let points = ramp.points();
        let (x_lo, x_hi) = bounds(points.iter().map(|p| p.particles as f64))
            .ok_or("the ramp has no point to draw (it stopped in its first second)")?;
        let times = points.iter().flat_map(|p| {
            [p.step_ms, p.draw_ms, p.frame_ms, p.brute_force_ms]
                .into_iter()
                .flatten()
        });
        let (y_lo, y_hi) = bounds(times.chain([ramp.budget_ms()])).unwrap_or((0.1, 100.0));
        // Room above the curves for the legend: a third of the axis's decades again.
        let (y_bottom, y_span) = (y_lo / 2.0, (y_hi * 2.0) / (y_lo / 2.0));
        let y_top = y_hi * 2.0 * y_span.powf(0.35);
        root.fill(&WHITE)?;
        let text = |k: u32| (FAMILY, k * TEXT).into_font();
        // The headline large, the scene (its second line) below it at the labels' size: at
        // the headline's size it would not fit the chart's width.
        let (headline, scene) = title.split_once('\n').unwrap_or((title, ""));
        let area = root.titled(headline, text(2))?;
        let area = if scene.is_empty() {
            area
        } else {
            area.titled(scene, text(1))?
        };
        let mut chart = ChartBuilder::on(&area)
            .margin(2 * TEXT)
            .x_label_area_size(3 * TEXT)
            .y_label_area_size(5 * TEXT)
            .build_cartesian_2d(
                (x_lo / 1.25..x_hi * 1.25).log_scale(),
                (y_bottom..y_top).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc("particles")
            .y_desc("milliseconds (median of each second)")
            .axis_desc_style(text(1))
            .label_style(text(1))
            // Every tick of a decade is a grid line; only 1, 2 and 5 get a label, so that
            // the labels never run together.
            .x_label_formatter(&|&x| {
                if labelled_tick(x) {
                    count_label(x)
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|&y| {
                if labelled_tick(y) {
                    ms_label(y)
                } else {
                    String::new()
                }
            })
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        let series: [(&str, RGBColor, Series); 4] = [
            ("step (simulation)", STEP, |p| p.step_ms),
            ("draw", DRAW, |p| p.draw_ms),
            ("frame", FRAME, |p| p.frame_ms),
            (
                "brute force, pair search alone (estimate from a timed sample)",
                BRUTE,
                |p| p.brute_force_ms,
            ),
        ];
        for (name, color, value) in series {
            let line: Vec<(f64, f64)> = points
                .iter()
                .filter_map(|p| value(p).map(|v| (p.particles as f64, v)))
                .filter(|&(_, v)| v > 0.0)
                .collect();
            if line.is_empty() {
                continue;
            }
            let style = color.stroke_width(2);
            chart
                .draw_series(LineSeries::new(line.iter().copied(), style))?
                .label(name)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 2 * TEXT as i32, y)], style));
            chart.draw_series(PointSeries::of_element(
                line.iter().copied(),
                3,
                color.filled(),
                &|c, s, st| Circle::new(c, s, st),
            ))?;
        }
        let budget = ramp.budget_ms();
        let label = format!("budget: {} {budget} ms", ramp.measure().name());
        chart
            .draw_series(DashedLineSeries::new(
                [(x_lo / 1.25, budget), (x_hi * 1.25, budget)],
                8,
                6,
                BUDGET.stroke_width(2),
            ))?
            .label(label)
            .legend(|(x, y)| {
                PathElement::new([(x, y), (x + 2 * TEXT as i32, y)], BUDGET.stroke_width(2))
            });
        let max = ramp.max_particles();
        if max > 0 {
            let x = max as f64;
            chart
                .draw_series(DashedLineSeries::new(
                    [(x, y_bottom), (x, y_top)],
                    4,
                    4,
                    BLACK.stroke_width(1),
                ))?
                .label(format!("largest count held: {}", thousands(max)))
                .legend(|(x, y)| {
                    PathElement::new([(x, y), (x + 2 * TEXT as i32, y)], BLACK.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(text(1))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    }
}
