//! PNG plots like ABLE's Figs. 4–9, drawn with `plotters`' bitmap backend. Text uses the
//! DejaVu Sans font embedded in the binary (assets/, Bitstream Vera licence), so plots
//! render on machines without system fonts.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::register_font;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::ratios::{Cost, Ratio};
use super::report::SUMMARY_WIDTH;
use super::workload::{find, Op, Record, Repr};
use crate::common::CliError;

/// The files [`write_all`] writes.
pub const FILES: [&str; 6] = [
    "fig4.png", "fig5.png", "fig6.png", "fig7.png", "fig8.png", "fig9.png",
];

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";

/// Size of a figure in pixels.
const SIZE: (u32, u32) = (1600, 620);

/// Stacked parts of a communication bar: garbled tables, garbler inputs, OT, outputs.
const COMM_PARTS: [(&str, RGBColor); 4] = [
    ("garbled tables", RGBColor(230, 171, 2)),
    ("garbler inputs", RGBColor(31, 119, 180)),
    ("OT (evaluator inputs)", RGBColor(44, 160, 44)),
    ("outputs", RGBColor(214, 39, 40)),
];

/// Stacked parts of a time bar.
const TIME_PARTS: [(&str, RGBColor); 2] = [
    ("garbling", RGBColor(31, 119, 180)),
    ("evaluation", RGBColor(255, 127, 14)),
];

/// One colour per common op in the ratio plots.
const OP_COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

fn plot_error(e: impl std::fmt::Display) -> CliError {
    format!("cannot draw a plot: {e}").into()
}

/// Writes fig4.png … fig9.png into `dir`.
pub fn write_all(dir: &Path, records: &[Record], ratios: &[Ratio]) -> Result<(), CliError> {
    register_font(FAMILY, FontStyle::Normal, FONT).map_err(|_| "the embedded font does not load")?;
    let w = bar_width(records);
    let crt_ops = [Op::Add, Op::Sub, Op::PubMul, Op::Mul, Op::Mux, Op::PubExp, Op::Bc];
    let first_vs_opt = |ops: &[Op]| groups(records, w, ops, &[Repr::Crt, Repr::CrtOpt]);
    figure(dir, "fig4.png", |root| {
        let panels = root.split_evenly((1, 2));
        let parts = &COMM_PARTS;
        bar_panel(
            &panels[0],
            &format!("{w}-bit CRT communication (left: first-k primes, right: optimized)"),
            "bytes",
            &first_vs_opt(&crt_ops),
            parts,
            comm,
        )?;
        bar_panel(
            &panels[1],
            &format!("{w}-bit BD communication (first-k, optimized)"),
            "bytes",
            &first_vs_opt(&[Op::Bd]),
            parts,
            comm,
        )
    })?;
    figure(dir, "fig5.png", |root| {
        let panels = root.split_evenly((1, 2));
        let parts = &TIME_PARTS;
        bar_panel(
            &panels[0],
            &format!("{w}-bit CRT run time (left: first-k primes, right: optimized)"),
            "µs",
            &first_vs_opt(&crt_ops),
            parts,
            time,
        )?;
        bar_panel(
            &panels[1],
            &format!("{w}-bit BD run time (first-k, optimized)"),
            "µs",
            &first_vs_opt(&[Op::Bd]),
            parts,
            time,
        )
    })?;
    let unique = [Op::Xor, Op::And, Op::Div, Op::Mod, Op::Geq, Op::Bc, Op::Bd];
    let common = [Op::Add, Op::Sub, Op::PubMul, Op::Mul, Op::Mux, Op::PubExp];
    let vs_bool = |ops: &[Op]| groups(records, w, ops, &[Repr::Bool, Repr::CrtOpt]);
    figure(dir, "fig6.png", |root| {
        let panels = root.split_evenly((1, 2));
        bar_panel(
            &panels[0],
            &format!("{w}-bit Boolean-only ops and conversions (CRT optimized)"),
            "bytes",
            &vs_bool(&unique),
            &COMM_PARTS,
            comm,
        )?;
        bar_panel(
            &panels[1],
            &format!("{w}-bit common ops (left: Boolean, right: CRT optimized)"),
            "bytes",
            &vs_bool(&common),
            &COMM_PARTS,
            comm,
        )
    })?;
    figure(dir, "fig7.png", |root| {
        let panels = root.split_evenly((1, 2));
        bar_panel(
            &panels[0],
            &format!("{w}-bit Boolean-only ops and conversions (CRT optimized)"),
            "µs",
            &vs_bool(&unique),
            &TIME_PARTS,
            time,
        )?;
        bar_panel(
            &panels[1],
            &format!("{w}-bit common ops (left: Boolean, right: CRT optimized)"),
            "µs",
            &vs_bool(&common),
            &TIME_PARTS,
            time,
        )
    })?;
    for (file, conversion) in [("fig8.png", Op::Bc), ("fig9.png", Op::Bd)] {
        figure(dir, file, |root| {
            for (panel, cost) in root.split_evenly((1, 3)).iter().zip(Cost::ALL) {
                ratio_panel(panel, ratios, conversion, cost)?;
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// The width of the bar figures: 16 bits as ABLE, else the measured width nearest to it.
fn bar_width(records: &[Record]) -> u32 {
    records
        .iter()
        .map(|r| r.width)
        .min_by_key(|&w| w.abs_diff(SUMMARY_WIDTH))
        .unwrap_or(SUMMARY_WIDTH)
}

/// Draws one PNG into `dir/file`.
fn figure(
    dir: &Path,
    file: &str,
    draw: impl FnOnce(&DrawingArea<BitMapBackend, Shift>) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let path = dir.join(file);
    let root = BitMapBackend::new(&path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    draw(&root)?;
    root.present()
        .map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}

/// The communication parts of a record.
fn comm(r: &Record) -> Vec<f64> {
    [r.table_bytes, r.garbler_input_bytes, r.ot_bytes, r.output_bytes]
        .map(|b| b as f64)
        .to_vec()
}

/// The time parts of a record.
fn time(r: &Record) -> Vec<f64> {
    vec![r.garble_us, r.eval_us]
}

/// One labelled group of bars (one bar per representation the op has).
struct Group<'r> {
    label: &'static str,
    bars: Vec<&'r Record>,
}

fn groups<'r>(records: &'r [Record], w: u32, ops: &[Op], reprs: &[Repr]) -> Vec<Group<'r>> {
    ops.iter()
        .map(|&op| Group {
            label: op.title(),
            bars: reprs.iter().filter_map(|&r| find(records, op, r, w)).collect(),
        })
        .filter(|g| !g.bars.is_empty())
        .collect()
}

/// A panel of stacked bars: one group per op, `parts(record)` stacked bottom up.
fn bar_panel(
    area: &DrawingArea<BitMapBackend, Shift>,
    title: &str,
    unit: &str,
    groups: &[Group],
    legend: &[(&str, RGBColor)],
    parts: fn(&Record) -> Vec<f64>,
) -> Result<(), CliError> {
    let top = groups
        .iter()
        .flat_map(|g| g.bars.iter().map(|r| parts(r).iter().sum::<f64>()))
        .fold(0.0, f64::max);
    // Headroom for the legend above the tallest bar.
    let top = if top > 0.0 { top * 1.35 } else { 1.0 };
    let n = groups.len().max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FAMILY, 17))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5..n - 0.5, 0.0..top)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(unit)
        .label_style((FAMILY, 13))
        .draw()
        .map_err(plot_error)?;
    for (i, g) in groups.iter().enumerate() {
        let width = 0.8 / g.bars.len() as f64;
        for (j, r) in g.bars.iter().enumerate() {
            let x0 = i as f64 - 0.4 + j as f64 * width + 0.02;
            let mut base = 0.0;
            for (value, (_, colour)) in parts(r).into_iter().zip(legend) {
                let rect = Rectangle::new([(x0, base), (x0 + width - 0.04, base + value)], colour.filled());
                chart.draw_series(std::iter::once(rect)).map_err(plot_error)?;
                base += value;
            }
        }
        // The op's name under its group, outside the plotting area.
        let (x, y) = chart.backend_coord(&(i as f64, 0.0));
        let style = TextStyle::from((FAMILY, 14)).pos(Pos::new(HPos::Center, VPos::Top));
        area.draw(&Text::new(
            g.label,
            (x - area.get_base_pixel().0, y - area.get_base_pixel().1 + 8),
            style,
        ))
        .map_err(plot_error)?;
    }
    for &(name, colour) in legend {
        chart
            .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
            .map_err(plot_error)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], colour.filled()));
    }
    chart
        .configure_series_labels()
        .label_font((FAMILY, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(plot_error)
}

/// One panel of Fig. 8 (BC) or 9 (BD): r against the width for each common op, log scale;
/// widths where the op never pays (r undefined) are left out.
fn ratio_panel(
    area: &DrawingArea<BitMapBackend, Shift>,
    ratios: &[Ratio],
    conversion: Op,
    cost: Cost,
) -> Result<(), CliError> {
    let points = |op: Op| -> Vec<(f64, f64)> {
        ratios
            .iter()
            .filter(|r| r.conversion == conversion && r.cost == cost && r.op == op)
            .filter_map(|r| r.ratio.map(|v| (f64::from(r.width).log2(), v)))
            .collect()
    };
    let all: Vec<(f64, f64)> = Op::COMMON.iter().flat_map(|&op| points(op)).collect();
    let (lo, hi) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    // Headroom (a decade and more) for the legend above the highest point.
    let (lo, hi) = if all.is_empty() {
        (0.1, 10.0)
    } else {
        (lo / 2.0, hi * 20.0)
    };
    let widths: Vec<f64> = ratios.iter().map(|r| f64::from(r.width).log2()).collect();
    let (x0, x1) = widths
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &w| (a.min(w), b.max(w)));
    let (x0, x1) = if widths.is_empty() {
        (2.0, 6.0)
    } else {
        (x0 - 0.3, x1 + 0.3)
    };
    let title = format!(
        "{} ratio by {}",
        conversion.title(),
        match cost {
            Cost::TableBytes => "garbled-table bytes",
            Cost::GarbleTime => "garbling time",
            Cost::EvalTime => "evaluation time",
        }
    );
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FAMILY, 17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, (lo..hi).log_scale())
        .map_err(plot_error)?;
    // Labels at whole powers of two only.
    let width_label = |v: &f64| {
        if (v - v.round()).abs() < 0.01 {
            format!("{}", 2f64.powf(v.round()))
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .x_desc("bits")
        .y_desc(format!("ops per {}", conversion.title()))
        .x_label_formatter(&width_label)
        .label_style((FAMILY, 13))
        .draw()
        .map_err(plot_error)?;
    for (&op, colour) in Op::COMMON.iter().zip(OP_COLOURS) {
        let line = points(op);
        chart
            .draw_series(LineSeries::new(line.clone(), colour.stroke_width(2)))
            .map_err(plot_error)?
            .label(op.title())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2)));
        chart
            .draw_series(line.into_iter().map(|p| Circle::new(p, 4, colour.filled())))
            .map_err(plot_error)?;
    }
    chart
        .configure_series_labels()
        .label_font((FAMILY, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(plot_error)
}
