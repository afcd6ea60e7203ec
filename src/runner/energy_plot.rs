//! The figure a run ends with: the energy ledger of `series.csv` against time, as
//! `energy.svg` and `energy.png` in the output folder.

use plotters::prelude::*;
use std::error::Error;
use std::path::{Path, PathBuf};

/// DejaVu Sans (Bitstream Vera licence, `assets/fonts/LICENSE-DejaVu.txt`): the PNG's
/// text is drawn with it, so the figure is readable on machines without system fonts.
const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// The ledger's accounts plotted, as (label, columns of `series.csv` summed, colour).
const CURVES: [(&str, &[&str], RGBColor); 5] = [
    ("kinetic (translation + rotation)", &["kinetic_translational", "kinetic_rotational"], RGBColor(31, 119, 180)),
    ("potential − initial potential", &["potential"], RGBColor(44, 160, 44)),
    ("stored elastic", &["elastic_stored"], RGBColor(255, 127, 14)),
    ("dissipated", &["dissipated"], RGBColor(214, 39, 40)),
    ("external work", &["external_work"], RGBColor(148, 103, 189)),
];

/// Reads `dir/series.csv` and writes `dir/energy.svg` and `dir/energy.png`; returns the
/// two paths, or `None` when the run wrote no series or fewer than two rows.
pub fn write(dir: &Path, title: &str) -> Result<Option<[PathBuf; 2]>, Box<dyn Error>> {
    let path = dir.join("series.csv");
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(None) };
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let column =
        |name: &str| header.iter().position(|h| *h == name).ok_or(format!("{}: no column {name}", path.display()));
    let time = column("time")?;
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        rows.push(line.split(',').map(|v| v.parse().unwrap_or(f64::NAN)).collect());
    }
    if rows.len() < 2 {
        return Ok(None);
    }
    let mut curves = Vec::new();
    for (label, names, colour) in CURVES {
        let idx = names.iter().map(|n| column(n)).collect::<Result<Vec<_>, _>>()?;
        let value = |r: &Vec<f64>| idx.iter().map(|&i| r.get(i).copied().unwrap_or(f64::NAN)).sum::<f64>();
        // The potential energy is relative to the initial configuration (its zero is arbitrary).
        let offset = if label.starts_with("potential") { value(&rows[0]) } else { 0.0 };
        let points: Vec<(f64, f64)> = rows.iter().map(|r| (r[time], value(r) - offset)).collect();
        curves.push((label, colour, points));
    }
    let finite = curves.iter().flat_map(|c| c.2.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (mut t0, mut t1, mut e0, mut e1) = (f64::MAX, f64::MIN, 0.0f64, 0.0f64);
    for &(t, e) in finite {
        (t0, t1, e0, e1) = (t0.min(t), t1.max(t), e0.min(e), e1.max(e));
    }
    if !(t1 > t0) {
        return Ok(None);
    }
    let pad = 0.05 * (e1 - e0).max(f64::MIN_POSITIVE);
    let ranges = (t0..t1, (e0 - pad)..(e1 + pad));
    let svg = dir.join("energy.svg");
    let png = dir.join("energy.png");
    // Both backends lay text out with the registered font (the SVG names its family).
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).map_err(|_| "unreadable font")?;
    draw(SVGBackend::new(&svg, (900, 560)).into_drawing_area(), title, &curves, ranges.clone())?;
    draw(BitMapBackend::new(&png, (900, 560)).into_drawing_area(), title, &curves, ranges)?;
    Ok(Some([svg, png]))
}

type Curve<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    curves: &[Curve<'_>],
    (t, e): (std::ops::Range<f64>, std::ops::Range<f64>),
) -> Result<(), Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(t, e)?;
    chart.configure_mesh().x_desc("time (s)").y_desc("energy (J)").draw()?;
    for (label, colour, points) in curves {
        let colour = *colour;
        let finite = points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite());
        chart
            .draw_series(LineSeries::new(finite, colour.stroke_width(2)))?
            .label(*label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.85)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}
