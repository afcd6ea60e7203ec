//! The impacts the conformance kit runs, and what it measures on each.

use super::pair::{First, IsolatedPair, Sphere};
use glam::{DQuat, DVec3};
use granula_core::{ContactLaw, PairMaterial};

/// What body 1 is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// A fixed wall.
    Wall,
    /// A sphere of radius 1.25 r and the same density (free).
    Sphere,
    /// A sphere of radius `huge` · r and mass `huge`² · m (the wall's limit).
    HugeSphere(f64),
}

/// One impact: body 2 (radius r) hits body 1 at `angle` (rad) between its velocity and the
/// line of centres at first touch, with spin `spin` · v/r about an oblique axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    /// Body 1.
    pub target: Target,
    /// Impact angle (0: head-on).
    pub angle: f64,
    /// Initial spin of body 2, in units of v/r.
    pub spin: f64,
    /// Label bodies 2 and 1 the other way round (sphere targets only).
    pub swapped: bool,
    /// Rigid rotation applied to the whole set-up.
    pub frame: DQuat,
}

/// What one impact produced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Restitution −𝒱_n⁺/𝒱_n⁻ of the centres' relative normal velocity.
    pub restitution: f64,
    /// Time with positive overlap (s).
    pub contact_time: f64,
    /// Largest (E(t) − E(0))/E(0) with E = kinetic + stored.
    pub max_energy_rise: f64,
    /// |kinetic + stored + dissipated − E(0)| / E(0) at the end.
    pub ledger_error: f64,
    /// Largest |f_t| / (μ_s (f_n + F_C)) − 1 over the contact (≤ 0 when the cap holds).
    pub coulomb_excess: f64,
    /// Final state of the moving sphere (physical body 2), in the unrotated frame.
    pub projectile: Sphere,
    /// Final state of the target sphere, if any, in the unrotated frame.
    pub target: Option<Sphere>,
    /// |Δ momentum| / |initial momentum| (sphere targets only, else 0).
    pub momentum_error: f64,
    /// Steps run.
    pub steps: usize,
}

/// Scale of the set-up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    /// Radius r of the projectile (m).
    pub radius: f64,
    /// Density (kg/m³).
    pub density: f64,
    /// Impact speed (m/s).
    pub speed: f64,
}

fn mass(density: f64, r: f64) -> f64 {
    density * 4.0 / 3.0 * std::f64::consts::PI * r * r * r
}

/// Runs one impact with time step `dt` until the bodies have separated (or `max_steps`).
pub fn run<L: ContactLaw>(
    law: &L,
    (material, pair): (&PairMaterial, &L::Pair),
    s: &Scale,
    imp: &Impact,
    dt: f64,
    max_steps: usize,
) -> Outcome {
    let q = imp.frame;
    let n0 = q * DVec3::new(1.0, 0.3, -0.2).normalize();
    let t0 = q * DVec3::new(1.0, 0.3, -0.2).normalize().any_orthonormal_vector();
    let axis = q * DVec3::new(0.2, 0.9, 0.4).normalize();
    let r2 = s.radius;
    let m2 = mass(s.density, r2);
    let (r1, m1) = match imp.target {
        Target::Wall => (0.0, f64::INFINITY),
        Target::Sphere => (1.25 * r2, mass(s.density, 1.25 * r2)),
        Target::HugeSphere(h) => (h * r2, h * h * m2),
    };
    // Direction of motion of body 2: towards body 1 at `angle` from −n0.
    let u = s.speed * (-imp.angle.cos() * n0 + imp.angle.sin() * t0);
    // Start a small gap g0 = 0.02 r back along the path from the touching configuration.
    let reach = r1 + r2;
    let g0 = 0.02 * r2;
    let c = imp.angle.cos();
    let back = if let Target::Wall = imp.target {
        g0 / c.max(1e-3)
    } else {
        // |reach n0 − b û| = reach + g0, with û·n0 = −cos θ.
        let rhs = (reach + g0).powi(2) - reach * reach;
        -reach * c + (reach * reach * c * c + rhs).sqrt()
    };
    let x1 = DVec3::ZERO;
    let touch = x1 + n0 * reach;
    let projectile = Sphere {
        position: touch - u.normalize() * back,
        velocity: u,
        angular_velocity: axis * (imp.spin * s.speed / r2),
        radius: r2,
        mass: m2,
    };
    let first = match imp.target {
        Target::Wall => First::Wall { point: x1, normal: n0 },
        _ => First::Sphere(Sphere {
            position: x1,
            velocity: DVec3::ZERO,
            angular_velocity: DVec3::ZERO,
            radius: r1,
            mass: m1,
        }),
    };
    let mut pair: IsolatedPair<L> = match (imp.swapped, first) {
        (true, First::Sphere(target)) => IsolatedPair::with_pair(First::Sphere(projectile), target, *material, *pair),
        _ => IsolatedPair::with_pair(first, projectile, *material, *pair),
    };
    let e0 = pair.mechanical_energy();
    let p0 = pair.momentum();
    let relative = |p: &IsolatedPair<L>| -> (DVec3, DVec3) {
        match (&p.first, imp.swapped) {
            (First::Sphere(a), false) => (p.second.velocity - a.velocity, p.second.position - a.position),
            (First::Sphere(a), true) => (a.velocity - p.second.velocity, a.position - p.second.position),
            (First::Wall { .. }, _) => (p.second.velocity, n0),
        }
    };
    let (v_before, _) = relative(&pair);
    let vn_before = v_before.dot(n0);
    let (mut touched, mut contact_steps, mut max_rise, mut excess) = (false, 0usize, 0.0f64, -1.0f64);
    let mut n_last = n0;
    let mut steps = 0;
    let range = law.range(material);
    while steps < max_steps {
        pair.step(law, dt);
        steps += 1;
        if pair.last_overlap > 0.0 {
            touched = true;
            contact_steps += 1;
            n_last = if imp.swapped { -pair.last_normal } else { pair.last_normal };
            let f = pair.last.force;
            let fn_ = f.dot(pair.last_normal);
            let ft = (f - fn_ * pair.last_normal).length();
            let load = material.friction * (fn_ + material.cohesion_force);
            // Ignore the round-off residue of projecting a purely normal force.
            if ft > 1e-12 * f.length() {
                excess = excess.max(if load > 0.0 { ft / load - 1.0 } else { f64::INFINITY });
            }
        }
        max_rise = max_rise.max((pair.mechanical_energy() - e0) / e0);
        if touched && -pair.last_overlap > range.max(0.0) + 0.01 * r2 {
            break;
        }
    }
    let (v_after, _) = relative(&pair);
    let ledger = (pair.mechanical_energy() + pair.dissipated.total() - e0).abs() / e0;
    let inv = q.inverse();
    let unrotate = |b: &Sphere| Sphere {
        position: inv * b.position,
        velocity: inv * b.velocity,
        angular_velocity: inv * b.angular_velocity,
        ..*b
    };
    let (proj, targ) = match (&pair.first, imp.swapped) {
        (First::Sphere(a), false) => (unrotate(&pair.second), Some(unrotate(a))),
        (First::Sphere(a), true) => (unrotate(a), Some(unrotate(&pair.second))),
        (First::Wall { .. }, _) => (unrotate(&pair.second), None),
    };
    let momentum_error = match imp.target {
        Target::Wall => 0.0,
        _ => (pair.momentum() - p0).length() / p0.length(),
    };
    Outcome {
        restitution: v_after.dot(n_last) / vn_before.abs(),
        contact_time: contact_steps as f64 * dt,
        max_energy_rise: max_rise,
        ledger_error: ledger,
        coulomb_excess: excess,
        projectile: proj,
        target: targ,
        momentum_error,
        steps,
    }
}
