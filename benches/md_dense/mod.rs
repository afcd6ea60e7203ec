//! The "dense" benchmark scenario, shared by the `md_step` bench, the `md_bench` and
//! `nscd_bench` benchmarks and granula-mpi's `dense_bench`:
//! a settled packing of 1 mm spheres (ρ = 2500 kg/m³) read from `benches/data`, five flat
//! walls (x = 0, x = L, y = 0, y = L, z = 0), gravity 9.81 m/s² along −z, and the material
//! E = 1e7 Pa, ν = 0.3, e = 0.5, μ = 0.5 for spheres and walls.
//!
//! **Generated packings** ([`world_of`] for an N other than 1000, 8000 or 27000, e.g.
//! 1000000): a dense lattice built in memory instead of read from a file: m = ⌈∛N⌉ spheres
//! a side (m³ in all) of radius 0.5 mm on a simple cubic lattice of spacing 2r(1 − 10⁻³),
//! each centre jittered by a deterministic uniform offset of at most ±2·10⁻⁴ r per
//! coordinate, in the same open box, material, law and step as the packings. Every sphere
//! overlaps its lattice neighbours by about 10⁻³ r (close to the settled packings' typical
//! overlaps), so it has about 3 contacts per sphere (the settled packings: 2.4).

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

/// The packing of `n` spheres from `benches/data` (1000, 8000 or 27000), or a generated
/// lattice of about `n` spheres for other sizes.
#[allow(dead_code)] // each includer uses its own subset of this module
pub fn world_of(n: usize) -> Result<World, Box<dyn std::error::Error>> {
    if [1000, 8000, 27000].contains(&n) {
        dense_world(n)
    } else {
        lattice_world(n)
    }
}

/// The scenario's material (glass beads and walls).
fn glass() -> Material {
    Material {
        name: "glass".into(),
        density: 2500.0,
        friction: 0.5,
        restitution: 0.5,
        young_modulus: 1e7,
        poisson_ratio: 0.3,
        ..Material::default()
    }
}

/// Radius of the generated lattice's spheres (m), as in the packings.
const LATTICE_RADIUS: f64 = 5e-4;

/// A uniform number in [−1, 1) from the counter `k` (SplitMix64), for the lattice's
/// deterministic jitter.
fn jitter(k: u64) -> f64 {
    let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// The generated dense lattice packing of about `n` spheres (see the module's header),
/// numbered layer by layer, in the packings' box and material.
#[allow(dead_code)] // each includer uses its own subset of this module
pub fn lattice_world(n: usize) -> Result<World, Box<dyn std::error::Error>> {
    let m = (n as f64).cbrt().ceil() as usize;
    let r = LATTICE_RADIUS;
    let a = 2.0 * r * (1.0 - 1e-3);
    let l = m as f64 * a;
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(glass()).build()?;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0))?;
    for k in 0..m {
        for j in 0..m {
            for i in 0..m {
                let id = ((k * m + j) * m + i) as u64 * 3;
                let e = 2e-4 * r;
                let x = DVec3::new(
                    (i as f64 + 0.5) * a + e * jitter(id),
                    (j as f64 + 0.5) * a + e * jitter(id + 1),
                    // Resting on the floor with the same overlap as between neighbours.
                    r * (1.0 - 1e-3) + k as f64 * a + e * jitter(id + 2),
                );
                w.insert(SphereBuilder::new(r, x).build()?)?;
            }
        }
    }
    w.accept_overlaps();
    Ok(w)
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
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(glass()).build()?;
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
