//! Limits on what a scene may ask for, so that any input ends in a clear error instead of a
//! panic, an aborted allocation, a hang or a run that never ends. `docs/scene-format.md`
//! lists them ("Limits").

use super::check::Check;
use super::source::KeyPath;
use super::spec::SceneSpec;
use crate::error::Result;

/// Most bodies a scene may define, generated ones included (10⁸).
pub const MAX_BODIES: u64 = 100_000_000;

/// Memory a body costs, roughly, through the scene's body plans, the world's columns, the
/// solver's per-body state and a few contacts (bytes). Used only to refuse a scene that
/// cannot fit in the memory available before anything is allocated.
pub const BYTES_PER_BODY: u64 = 2048;

/// Most materials a scene may define: the pair table holds n² entries (1024² pairs take
/// about 84 MB).
pub const MAX_MATERIALS: usize = 1024;

/// Most steps a run may take (10¹²), whether given as `steps` or as `end_time / dt`.
pub const MAX_STEPS: u64 = 1_000_000_000_000;

/// Most solver threads (`[solver] threads`).
pub const MAX_THREADS: usize = 1024;

/// Largest Verlet skin (MD) or detection margin (NSCD), in radii of the scene's largest
/// sphere: beyond it every body's box reaches far past its neighbours and the broadphase
/// degenerates towards all pairs.
pub const MAX_SKIN_RADII: f64 = 10.0;

/// Most NSCD iterations per step (`[solver] max_iterations`): with
/// `criterion = "fixed_iterations"` every step takes them all.
pub const MAX_ITERATIONS: u32 = 1_000_000;

/// Most placement attempts per sphere of a random packing (`attempts_per_sphere`).
pub const MAX_ATTEMPTS_PER_SPHERE: usize = 1_000_000;

/// Most vertices of a polygon (`sides`, `sides_max`, a `vertices` list): the overlap of
/// two polygons costs O(n) per pair and step, and 002's particles have 5 to 8.
pub const MAX_POLYGON_SIDES: u32 = 1024;

/// Smallest probability that a lognormal draw falls in [min, max]: below it redrawing
/// (the truncation) would take too long, and the distribution is reported as unsatisfiable.
pub const MIN_LOGNORMAL_ACCEPTANCE: f64 = 1e-3;

/// Memory available to this process (bytes), when the system tells (`MemAvailable` of
/// `/proc/meminfo` on Linux); `None` elsewhere.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `bytes` in GiB, for messages.
fn gib(bytes: f64) -> String {
    format!("{:.1} GiB", bytes / (1u64 << 30) as f64)
}

/// Counts the bodies the scene asks for with checked arithmetic, before any is generated,
/// and refuses more than [`MAX_BODIES`] or more than the available memory holds at
/// [`BYTES_PER_BODY`] each. The error names the generator (`counts` or `count`) at which
/// the total crosses the limit and says how much the scene asks for.
pub fn body_count(c: &Check, spec: &SceneSpec) -> Result<u64> {
    body_count_within(c, spec, available_memory())
}

/// [`body_count`] against a given amount of available memory (`None`: unknown, only
/// [`MAX_BODIES`] applies).
pub fn body_count_within(c: &Check, spec: &SceneSpec, memory: Option<u64>) -> Result<u64> {
    let root = KeyPath::root();
    let explicit =
        (spec.spheres.len() + spec.planes.len() + spec.cylinders.len() + spec.polyhedra.len() + spec.polygons.len())
            as u64;
    let mut total = explicit;
    let mut generators: Vec<(KeyPath, String, Option<u64>)> = Vec::new();
    for (i, l) in spec.lattices.iter().enumerate() {
        let n = l.counts.iter().try_fold(1u64, |a, &k| a.checked_mul(u64::from(k)));
        generators.push((root.key("lattices").index(i).key("counts"), format!("{:?}", l.counts), n));
    }
    for (i, p) in spec.packings.iter().enumerate() {
        generators.push((root.key("packings").index(i).key("count"), p.count.to_string(), u64::try_from(p.count).ok()));
    }
    for (path, value, n) in generators {
        let sum = n.and_then(|n| total.checked_add(n));
        let asks = match (n, sum) {
            (Some(n), Some(s)) => format!("{n} spheres here, {s} bodies in all"),
            (Some(n), None) => format!("{n} spheres here, more than 2^64 bodies in all"),
            _ => "more than 2^64 spheres".to_string(),
        };
        let Some(s) = sum.filter(|&s| s <= MAX_BODIES) else {
            return Err(c.invalid(
                &path,
                value,
                format!("the scene asks for {asks}; at most {MAX_BODIES} bodies are allowed"),
            ));
        };
        if let Some(m) = memory {
            let need = s as f64 * BYTES_PER_BODY as f64;
            if need > m as f64 {
                return Err(c.invalid(
                    &path,
                    value,
                    format!(
                        "the scene asks for {asks}, about {} of memory ({BYTES_PER_BODY} bytes a body), \
                         but only {} is available",
                        gib(need),
                        gib(m as f64)
                    ),
                ));
            }
        }
        total = s;
    }
    Ok(total)
}

/// The complementary error function, erfc(x) = 1 − erf(x), with a fractional error below
/// 1.2e-7 everywhere (the Chebyshev fit of Numerical Recipes, `erfcc`).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The probability that ln r ~ N(ln median, sigma²) falls in [min, max].
pub fn lognormal_mass(median: f64, sigma: f64, min: f64, max: f64) -> f64 {
    if sigma == 0.0 {
        return if (min..=max).contains(&median) { 1.0 } else { 0.0 };
    }
    let phi = |r: f64| 0.5 * erfc(-(r / median).ln() / (sigma * std::f64::consts::SQRT_2));
    (phi(max) - phi(min)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_and_the_lognormal_mass_match_known_values() {
        // erfc(0) = 1, erfc(1) = 0.157299207..., erfc(-1) = 1.842700792...; the fit's
        // fractional error is below 1.2e-7.
        assert!((erfc(0.0) - 1.0).abs() < 1.2e-7);
        assert!((erfc(1.0) - 0.157_299_207_050_285).abs() < 1.2e-7 * 0.16);
        assert!((erfc(-1.0) - 1.842_700_792_949_715).abs() < 1.2e-7 * 1.85);
        // One sigma either side of the median: 0.682689...; same error budget, doubled.
        let m = lognormal_mass(1.0, 0.5, (-0.5f64).exp(), 0.5f64.exp());
        assert!((m - 0.682_689_492).abs() < 3e-7, "{m}");
        // sigma = 1e5 between tight bounds: the mass is of order 1e-7, far below the limit.
        assert!(lognormal_mass(1e-3, 1e5, 1e-3, 1.1e-3) < 1e-6);
        assert_eq!(lognormal_mass(1.0, 0.0, 0.5, 2.0), 1.0);
        assert_eq!(lognormal_mass(1.0, 0.0, 1.5, 2.0), 0.0);
    }
}
