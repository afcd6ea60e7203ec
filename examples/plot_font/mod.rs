//! The font the examples' PNG figures draw their text with, shared by the examples that
//! plot (each includes this file as a module).

/// DejaVu Sans (Bitstream Vera licence, `assets/fonts/LICENSE-DejaVu.txt`), so that PNGs
/// carry text on machines without system fonts.
const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Registers [`FONT`] as plotters' `sans-serif`: the bitmap backend draws text with it
/// (ab_glyph) and fails with `FontUnavailable` without it; the SVG backend only names the
/// family.
pub fn register() -> Result<(), &'static str> {
    plotters::style::register_font("sans-serif", plotters::style::FontStyle::Normal, FONT)
        .map_err(|_| "unreadable font")
}
