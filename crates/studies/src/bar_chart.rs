//! Grouped bar charts as PNG (the HAAC figures of `mixgc sim --plot`), drawn with
//! `plotters`' bitmap backend and the embedded DejaVu Sans font, like the profile plots.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::register_font;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::common::CliError;

const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";

const COLOURS: [RGBColor; 6] = [
    RGBColor(44, 160, 44),
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// One chart: a bar per series in each group.
pub struct BarChart<'a> {
    pub title: &'a str,
    pub y_label: &'a str,
    /// Legend names, one per bar of a group (at most six).
    pub series: &'a [&'a str],
    /// Each group's label and one value per series (non-positive values are left out on a
    /// log scale).
    pub groups: &'a [(String, Vec<f64>)],
    pub log_y: bool,
}

fn plot_error(e: impl std::fmt::Display) -> CliError {
    format!("cannot draw a plot: {e}").into()
}

/// Draws `chart` into the PNG file `path`.
pub fn write_png(path: &Path, chart: &BarChart) -> Result<(), CliError> {
    register_font(FAMILY, FontStyle::Normal, FONT).map_err(|_| "the embedded font does not load")?;
    let width = (180 + 110 * chart.groups.len() as u32).clamp(700, 2000);
    let root = BitMapBackend::new(path, (width, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let values = || chart.groups.iter().flat_map(|(_, v)| v.iter().copied());
    let top = values().fold(0.0, f64::max);
    let n = chart.groups.len().max(1) as f64;
    let series = chart.series.len().clamp(1, COLOURS.len());
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(chart.title, (FAMILY, 20))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(80);
    let label = |i: usize| {
        let style = TextStyle::from((FAMILY, 14)).pos(Pos::new(HPos::Center, VPos::Top));
        (chart.groups[i].0.clone(), style)
    };
    if chart.log_y {
        let lo = values().filter(|&v| v > 0.0).fold(f64::MAX, f64::min);
        let (lo, hi) = if lo == f64::MAX {
            (0.1, 10.0)
        } else {
            (lo / 2.0, top * 8.0)
        };
        let mut c = builder
            .build_cartesian_2d(-0.5..n - 0.5, (lo..hi).log_scale())
            .map_err(plot_error)?;
        c.configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(chart.y_label)
            .label_style((FAMILY, 13))
            .draw()
            .map_err(plot_error)?;
        for (i, (_, vals)) in chart.groups.iter().enumerate() {
            let w = 0.8 / series as f64;
            for (j, &v) in vals.iter().take(series).enumerate() {
                if v > 0.0 {
                    let x0 = i as f64 - 0.4 + j as f64 * w;
                    let rect = Rectangle::new([(x0 + 0.01, lo), (x0 + w - 0.01, v)], COLOURS[j].filled());
                    c.draw_series(std::iter::once(rect)).map_err(plot_error)?;
                }
            }
            let (x, y) = c.backend_coord(&(i as f64, lo));
            let (text, style) = label(i);
            root.draw(&Text::new(text, (x, y + 8), style))
                .map_err(plot_error)?;
        }
        legend(&mut c, chart.series)
    } else {
        let hi = if top > 0.0 { top * 1.3 } else { 1.0 };
        let mut c = builder
            .build_cartesian_2d(-0.5..n - 0.5, 0.0..hi)
            .map_err(plot_error)?;
        c.configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(chart.y_label)
            .label_style((FAMILY, 13))
            .draw()
            .map_err(plot_error)?;
        for (i, (_, vals)) in chart.groups.iter().enumerate() {
            let w = 0.8 / series as f64;
            for (j, &v) in vals.iter().take(series).enumerate() {
                let x0 = i as f64 - 0.4 + j as f64 * w;
                let rect = Rectangle::new(
                    [(x0 + 0.01, 0.0), (x0 + w - 0.01, v.max(0.0))],
                    COLOURS[j].filled(),
                );
                c.draw_series(std::iter::once(rect)).map_err(plot_error)?;
            }
            let (x, y) = c.backend_coord(&(i as f64, 0.0));
            let (text, style) = label(i);
            root.draw(&Text::new(text, (x, y + 8), style))
                .map_err(plot_error)?;
        }
        legend(&mut c, chart.series)
    }?;
    root.present()
        .map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}

fn legend<'a, X, Y>(
    c: &mut ChartContext<'a, BitMapBackend<'a>, Cartesian2d<X, Y>>,
    series: &[&str],
) -> Result<(), CliError>
where
    X: plotters::coord::ranged1d::Ranged<ValueType = f64>,
    Y: plotters::coord::ranged1d::Ranged<ValueType = f64>,
{
    for (j, &name) in series.iter().take(COLOURS.len()).enumerate() {
        let colour = COLOURS[j];
        c.draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
            .map_err(plot_error)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], colour.filled()));
    }
    c.configure_series_labels()
        .label_font((FAMILY, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(plot_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_linear_and_log_charts() {
        let dir = std::env::temp_dir().join(format!("mixgc-bars-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let groups = vec![
            ("a".to_string(), vec![1.0, 30.0]),
            ("b".to_string(), vec![0.0, 2.5]),
        ];
        for log_y in [false, true] {
            let path = dir.join(format!("bars-{log_y}.png"));
            let chart = BarChart {
                title: "t",
                y_label: "speedup",
                series: &["x", "y"],
                groups: &groups,
                log_y,
            };
            write_png(&path, &chart).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(&bytes[1..4], b"PNG");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
