//! The "dense" benchmark scenario, shared by the `md_step` bench, the `md_bench` and
//! `nscd_bench` examples and granula-mpi's `dense_bench`:
//! a settled packing of 1 mm spheres (ρ = 2500 kg/m³) read from `benches/data`, five flat
//! walls (x = 0, x = L, y = 0, y = L, z = 0), gravity 9.81 m/s² along −z, and the material
//! E = 1e7 Pa, ν = 0.3, e = 0.5, μ = 0.5 for spheres and walls.

use flate2::read::GzDecoder;
use granula_core::{DVec3, Material, MaterialId, SphereBuilder, World};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;

/// Time step of the scenario (s).
pub const DT: f64 = 5e-6;
/// Verlet skin of the scenario (m).
pub const SKIN: f64 = 1e-4;

/// Path of the packing with `n` spheres: `benches/data` of the repository, found above the
/// manifest folder of the crate that includes this module (the root package or a crate
/// under `crates/`).
pub fn packing_path(n: usize) -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let data = manifest.ancestors().map(|a| a.join("benches").join("data")).find(|d| d.is_dir());
    data.unwrap_or_else(|| manifest.join("benches").join("data")).join(format!("dense_{n}.xyzr.gz"))
}

/// Builds the world of the packing with `n` spheres (1000, 8000 or 27000).
pub fn dense_world(n: usize) -> Result<World, Box<dyn std::error::Error>> {
    let file = std::fs::File::open(packing_path(n))?;
    let mut lines = BufReader::new(GzDecoder::new(file)).lines();
    let header = lines.next().ok_or("empty packing file")??;
    let mut l = f64::NAN;
    for field in header.trim_start_matches('#').split_whitespace() {
        if let Some(v) = field.strip_prefix("L=") {
            l = v.parse()?;
        }
    }
    if !(l > 0.0) {
        return Err(format!("no box size L in header '{header}'").into());
    }
    let material = Material {
        name: "glass".into(),
        density: 2500.0,
        friction: 0.5,
        restitution: 0.5,
        young_modulus: 1e7,
        poisson_ratio: 0.3,
        ..Material::default()
    };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(material).build()?;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0))?;
    for line in lines {
        let line = line?;
        let v: Vec<f64> = line.split_whitespace().map(str::parse).collect::<Result<_, _>>()?;
        if v.len() != 4 {
            return Err(format!("bad packing line '{line}'").into());
        }
        w.insert(SphereBuilder::new(v[3], DVec3::new(v[0], v[1], v[2])).build()?)?;
    }
    // A settled packing overlaps by design (up to 1.25 % of a radius in dense_27000, above
    // the insertion check's tolerance): accept its overlaps as imported from another code.
    w.accept_overlaps();
    Ok(w)
}
