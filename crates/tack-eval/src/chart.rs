//! The report's chart: success rate against mean tokens per run, one
//! labelled point per variant, as an SVG string.
//!
//! **Key decision: the SVG is a pure function of the summaries.** No clock,
//! no random placement, no font files (plotters' built-in size estimate lays
//! the text out): a report checked in beside its runs changes only when the
//! runs do. Labels are placed beside their point, trying right, left, above
//! and below, in that order, so two close variants do not print over each
//! other.

use plotters::prelude::*;

use crate::report::{VariantSummary, thousands};
use crate::suite::INTERFACES;

/// Width and height of the chart, in pixels.
pub const SIZE: (u32, u32) = (800, 500);

const LABEL_SIZE: f64 = 14.0;

/// One colour per interface, in the suite's interface order; grey for others.
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];
const OTHER: RGBColor = RGBColor(110, 110, 110);

fn colour(interface: &str) -> RGBColor {
    INTERFACES
        .iter()
        .position(|i| *i == interface)
        .and_then(|i| PALETTE.get(i).copied())
        .unwrap_or(OTHER)
}

/// The SVG of success rate (y, %) against mean tokens per run (x), one
/// point per variant that has a judged run, labelled with its name and
/// coloured by interface. An error (as text) when no variant can be placed
/// or drawing fails.
pub fn success_vs_tokens_svg(summaries: &[VariantSummary], title: &str) -> Result<String, String> {
    let points: Vec<(&VariantSummary, f64, f64)> = summaries
        .iter()
        .filter_map(|s| Some((s, s.mean_tokens?, s.success_rate? * 100.0)))
        .collect();
    if points.is_empty() {
        return Err("no variant has a judged run (passed or failed) to place on the chart".into());
    }
    let max_tokens = points.iter().map(|(_, x, _)| *x).fold(0.0, f64::max);
    let x_max = nice_ceiling(max_tokens * 1.15);
    let mut svg = String::new();
    draw(&mut svg, &points, title, x_max).map_err(|e| format!("drawing the chart: {e}"))?;
    Ok(svg)
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn draw(
    svg: &mut String,
    points: &[(&VariantSummary, f64, f64)],
    title: &str,
    x_max: f64,
) -> DrawResult {
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(20)
        .margin_bottom(38)
        .x_label_area_size(50)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..x_max, 0f64..105f64)?;
    chart
        .configure_mesh()
        .x_desc("mean tokens per run")
        .y_desc("success rate (%)")
        .x_labels(8)
        .y_labels(11)
        .x_label_formatter(&|x| thousands(Some(*x)))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .light_line_style(RGBColor(238, 238, 238))
        .max_light_lines(1)
        .axis_desc_style(("sans-serif", 15))
        .label_style(("sans-serif", 13))
        .draw()?;
    chart.draw_series(
        points
            .iter()
            .map(|(s, x, y)| Circle::new((*x, *y), 6, colour(&s.interface).filled())),
    )?;
    legend(&root, points)?;

    // Labels in pixels, placed so they neither overlap nor leave the plot.
    let plot = chart.plotting_area().get_pixel_range();
    let bounds = (plot.0.start, plot.1.start, plot.0.end, plot.1.end);
    let font = ("sans-serif", LABEL_SIZE).into_font();
    let mut taken: Vec<Rect> = points
        .iter()
        .map(|(_, x, y)| {
            let (px, py) = chart.backend_coord(&(*x, *y));
            Rect {
                x0: px - 6,
                y0: py - 6,
                x1: px + 6,
                y1: py + 6,
            }
        })
        .collect();
    for (s, x, y) in points {
        let (px, py) = chart.backend_coord(&(*x, *y));
        let (w, h) = label_size(&s.variant);
        let candidates = [
            (px + 10, py - h / 2),
            (px - 10 - w, py - h / 2),
            (px - w / 2, py - 10 - h),
            (px - w / 2, py + 10),
            (px + 10, py - h - 4),
            (px + 10, py + 4),
            (px - 10 - w, py - h - 4),
            (px - 10 - w, py + 4),
        ];
        let rects = candidates.map(|(x0, y0)| Rect {
            x0,
            y0,
            x1: x0 + w,
            y1: y0 + h,
        });
        let place = rects
            .iter()
            .find(|r| r.inside(bounds) && !taken.iter().any(|t| t.overlaps(r)))
            .or_else(|| rects.iter().find(|r| r.inside(bounds)))
            .copied()
            .unwrap_or(rects[0]);
        taken.push(place);
        root.draw(&Text::new(
            s.variant.clone(),
            (place.x0, place.y0),
            font.clone().color(&colour(&s.interface).mix(0.95)),
        ))?;
    }
    root.present()?;
    Ok(())
}

/// The interfaces' colours, in a row under the x axis (outside the plot,
/// where it can hide no point).
fn legend(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    points: &[(&VariantSummary, f64, f64)],
) -> DrawResult {
    let mut interfaces: Vec<&str> = points
        .iter()
        .map(|(s, _, _)| s.interface.as_str())
        .collect();
    interfaces.sort_by_key(|i| (INTERFACES.iter().position(|k| k == i), *i));
    interfaces.dedup();
    let entry_width = |i: &str| 14 + label_size(i).0 + 20;
    let total: i32 = interfaces.iter().map(|i| entry_width(i)).sum();
    let mut x = (SIZE.0 as i32 - total).max(0) / 2;
    let y = SIZE.1 as i32 - 18;
    for interface in interfaces {
        let c = colour(interface);
        root.draw(&Circle::new((x + 5, y), 5, c.filled()))?;
        root.draw(&Text::new(
            interface.to_owned(),
            (x + 14, y - LABEL_SIZE as i32 / 2),
            ("sans-serif", LABEL_SIZE)
                .into_font()
                .color(&BLACK.mix(0.8)),
        ))?;
        x += entry_width(interface);
    }
    Ok(())
}

/// A box in pixels.
#[derive(Debug, Clone, Copy)]
struct Rect {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
}

impl Rect {
    fn overlaps(&self, other: &Rect) -> bool {
        self.x0 < other.x1 && other.x0 < self.x1 && self.y0 < other.y1 && other.y0 < self.y1
    }

    fn inside(&self, (x0, y0, x1, y1): (i32, i32, i32, i32)) -> bool {
        self.x0 >= x0 && self.y0 >= y0 && self.x1 <= x1 && self.y1 <= y1
    }
}

/// The size a label takes, as plotters estimates text without font files.
fn label_size(text: &str) -> (i32, i32) {
    let em = LABEL_SIZE / 1.24 / 1.24;
    let width = (em * 0.7 * text.chars().count() as f64).ceil() as i32;
    (width.max(1), LABEL_SIZE.ceil() as i32)
}

/// The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10ⁿ)
/// at or above `value`; at least 10.
fn nice_ceiling(value: f64) -> f64 {
    if !value.is_finite() || value <= 10.0 {
        return 10.0;
    }
    let magnitude = 10f64.powf(value.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|v| *v >= value)
        .unwrap_or(10.0 * magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;
    use crate::report::summarize;
    use crate::report::tests::run;

    fn summaries() -> Vec<VariantSummary> {
        let mut runs = vec![
            run("quote", "mcp", 0, Status::Passed),
            run("quote", "mcp", 1, Status::Failed),
            run("quote", "typed", 0, Status::Passed),
            run("quote", "code-search", 0, Status::Passed),
            run("quote", "skill", 0, Status::Diverged),
        ];
        runs[2].tokens.output = 9000;
        summarize(&runs)
    }

    #[test]
    fn the_chart_is_an_svg_with_a_label_per_variant_that_has_judged_runs() {
        let svg = success_vs_tokens_svg(&summaries(), "market: success against tokens").unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..100.min(svg.len())]);
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("width=\"800\" height=\"500\""), "{svg}");
        for label in [
            "mcp",
            "typed",
            "code-search",
            "market: success against tokens",
        ] {
            assert!(
                svg.contains(&format!(">\n{label}\n</text>")),
                "no {label} in {svg}"
            );
        }
        assert!(svg.contains("mean tokens per run"));
        assert!(svg.contains("success rate (%)"));
        // The skill variant only diverged: it has no place on either axis.
        assert!(!svg.contains(">\nskill\n</text>"));
        // Three points and a legend of their three interfaces.
        assert_eq!(svg.matches("<circle").count(), 6);
        assert!(svg.contains(">\ncode\n</text>"));
    }

    #[test]
    fn the_same_summaries_give_the_same_svg() {
        let a = success_vs_tokens_svg(&summaries(), "t").unwrap();
        let b = success_vs_tokens_svg(&summaries(), "t").unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn close_points_get_labels_that_do_not_overlap() {
        let mut runs = vec![
            run("quote", "mcp", 0, Status::Passed),
            run("quote", "typed", 0, Status::Passed),
            run("quote", "declared", 0, Status::Passed),
        ];
        runs[1].tokens.output += 10;
        runs[2].tokens.output += 20;
        let svg = success_vs_tokens_svg(&summarize(&runs), "t").unwrap();
        let mut places: Vec<(i32, i32)> = ["mcp", "typed", "declared"]
            .iter()
            .map(|label| text_position(&svg, label))
            .collect();
        places.sort();
        places.dedup();
        assert_eq!(places.len(), 3, "{svg}");
    }

    /// The x and y of the `<text>` element holding `label`.
    fn text_position(svg: &str, label: &str) -> (i32, i32) {
        let end = svg.find(&format!(">\n{label}\n</text>")).unwrap();
        let start = svg[..end].rfind("<text").unwrap();
        let tag = &svg[start..end];
        let attr = |name: &str| -> i32 {
            let at = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            let rest = &tag[at..];
            rest[..rest.find('"').unwrap()].parse::<f64>().unwrap() as i32
        };
        (attr("x"), attr("y"))
    }

    #[test]
    fn no_judged_run_is_an_error_not_an_empty_chart() {
        let s = summarize(&[run("quote", "mcp", 0, Status::Diverged)]);
        let err = success_vs_tokens_svg(&s, "t").unwrap_err();
        assert!(err.contains("no variant has a judged run"), "{err}");
    }

    #[test]
    fn axis_ends_are_round_numbers() {
        assert_eq!(nice_ceiling(4830.0), 5000.0);
        assert_eq!(nice_ceiling(10810.0), 12000.0);
        assert_eq!(nice_ceiling(21000.0), 25000.0);
        assert_eq!(nice_ceiling(0.0), 10.0);
        assert_eq!(nice_ceiling(100.0), 100.0);
    }
}

#[cfg(test)]
mod look {
    /// `cargo test -p tack-eval --lib -- --ignored chart::look` writes a
    /// sample chart to the temporary directory, for a person to look at.
    #[test]
    #[ignore = "writes a sample chart for a person to look at"]
    fn write_sample() {
        use crate::record::Status;
        use crate::report::tests::run;
        let variants = [
            ("builtin", 0, 3),
            ("typed", 800, 3),
            ("declared", 900, 2),
            ("mcp", 5200, 2),
            ("mcp-search", 1500, 1),
            ("code", 300, 3),
            ("skill", 2500, 3),
        ];
        let mut runs = Vec::new();
        for (variant, extra, passing) in variants {
            for repeat in 0..3 {
                let status = if repeat < passing {
                    Status::Passed
                } else {
                    Status::Failed
                };
                let mut r = run("quote", variant, repeat, status);
                r.tokens.output += extra;
                runs.push(r);
            }
        }
        let summaries = crate::report::summarize(&runs);
        let svg =
            super::success_vs_tokens_svg(&summaries, "market-analyst: success against tokens")
                .unwrap();
        let path = std::env::temp_dir().join("tack-eval-chart.svg");
        std::fs::write(&path, svg).unwrap();
        eprintln!("{}", path.display());
    }
}
