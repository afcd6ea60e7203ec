//! The lane arithmetic of the batched sphere law: one straight-line body with selects in
//! place of branches, over fixed-length arrays, so that the compiler turns it into vector
//! code for the target features of the function it is inlined into (see `dispatch`).

use granula_core::{ContactBatch, BATCH_LANES};

/// The constants of one material pair (see `LawBatch::constants`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LaneConstants {
    /// Hertz: 4/3 E*; linear: k_n.
    pub force: f64,
    /// Hertz: 2 E*; linear: ½ k_n.
    pub stiffness: f64,
    /// γ_n = `damping_factor` √(m* K_n) + `damping_fixed`.
    pub damping_factor: f64,
    /// See `damping_factor`.
    pub damping_fixed: f64,
    /// k_t = `kt_factor` K_n + `kt_fixed`.
    pub kt_factor: f64,
    /// See `kt_factor`.
    pub kt_fixed: f64,
    /// γ_t = `gt_factor` γ_n (unless the same damping ratio is asked).
    pub gt_factor: f64,
    /// μ_s.
    pub mu_s: f64,
    /// μ_d ≤ μ_s.
    pub mu_d: f64,
}

const N: usize = BATCH_LANES;

/// Lanes computed together: two AVX-512 vectors, four AVX2 ones; a divisor of [`N`].
const CHUNK: usize = 8;
const _: () = assert!(N.is_multiple_of(CHUNK));

/// The law's own per-lane arrays: constants, spring histories (in and out) and the
/// outputs the status is decided from.
#[derive(Clone, Debug)]
pub(super) struct Lanes {
    force: [f64; N],
    stiffness: [f64; N],
    damping_factor: [f64; N],
    damping_fixed: [f64; N],
    kt_factor: [f64; N],
    kt_fixed: [f64; N],
    gt_factor: [f64; N],
    mu_s: [f64; N],
    mu_d: [f64; N],
    /// Spring elongation ξ, in and out.
    pub xi: [[f64; N]; 3],
    /// The spring's stiffness of the last step in, k_t of this step out.
    pub kt_old: [f64; N],
    /// Output: the normal force F_n (after the clamp).
    pub repulsion: [f64; N],
    /// Output: 1 where the spring slides, else 0.
    pub sliding: [f64; N],
}

impl Default for Lanes {
    fn default() -> Self {
        let z = [0.0; N];
        Lanes {
            force: z,
            stiffness: z,
            damping_factor: z,
            damping_fixed: z,
            kt_factor: z,
            kt_fixed: z,
            gt_factor: z,
            mu_s: z,
            mu_d: z,
            xi: [z; 3],
            kt_old: z,
            repulsion: z,
            sliding: z,
        }
    }
}

impl Lanes {
    /// Puts the constants `c` into lane `l`.
    #[inline(always)]
    pub fn set_constants(&mut self, l: usize, c: &LaneConstants) {
        self.force[l] = c.force;
        self.stiffness[l] = c.stiffness;
        self.damping_factor[l] = c.damping_factor;
        self.damping_fixed[l] = c.damping_fixed;
        self.kt_factor[l] = c.kt_factor;
        self.kt_fixed[l] = c.kt_fixed;
        self.gt_factor[l] = c.gt_factor;
        self.mu_s[l] = c.mu_s;
        self.mu_d[l] = c.mu_d;
    }
}

/// Selects `a` where `c`, else `b` (a branch-free select once vectorised).
#[inline(always)]
fn pick(c: bool, a: f64, b: f64) -> f64 {
    if c {
        a
    } else {
        b
    }
}

/// The law on the lanes of the batch, in chunks of [`CHUNK`] lanes up to `batch.len`
/// rounded up (the lanes of the last chunk beyond `batch.len` compute on stale, finite
/// values and are not read): a batch cut short by a pair the kernel does not take costs its
/// own lanes, not all [`BATCH_LANES`]. `HERTZ`: Hertz or linear normal force; `SAME_RATIO`: γ_t from
/// the normal damping ratio (γ_n √(k_t/K_n)) instead of `gt_factor` γ_n; `CLAMP`: the
/// no-attraction clamp F_n ≥ 0. Each line is the scalar sub-model's expression, in its
/// order of operations (`Hertz::elastic`, `HertzViscous::damping`, `Composed::force`,
/// `SpringSettings::inputs`, `SpringState::in_plane_with_energy`, `capped_spring_from`).
#[inline(always)]
pub(super) fn run_lanes<const HERTZ: bool, const SAME_RATIO: bool, const CLAMP: bool>(
    b: &mut ContactBatch,
    s: &mut Lanes,
) {
    let dt = b.dt;
    // At most N / CHUNK chunks, which bounds every lane index below N for the compiler.
    let chunks = b.len.div_ceil(CHUNK).min(N / CHUNK);
    for c in 0..chunks {
        for l in c * CHUNK..(c + 1) * CHUNK {
            let (nx, ny, nz) = (b.normal[0][l], b.normal[1][l], b.normal[2][l]);
            let (vx, vy, vz) = (b.velocity[0][l], b.velocity[1][l], b.velocity[2][l]);
            let d = b.overlap[l];
            let m = b.effective_mass[l];
            // Normal elastic force, stiffness and energy.
            let (fe, kn, el_stored) = if HERTZ {
                let a = (b.effective_radius[l] * d).sqrt();
                let f = s.force[l] * a * d;
                (f, s.stiffness[l] * a, 0.4 * f * d)
            } else {
                let k = s.force[l];
                (k * d, k, s.stiffness[l] * d * d)
            };
            // Damping, capped at γ_n Δt ≤ m*/4 (crate::MAX_DAMPING_STEP).
            let dot = vx * nx + vy * ny + vz * nz;
            let rate = -dot;
            let g0 = s.damping_factor[l] * (m * kn).sqrt() + s.damping_fixed[l];
            let cap_d = crate::MAX_DAMPING_STEP * m;
            let gdt = g0 * dt;
            let over = gdt > cap_d;
            let scale = cap_d / gdt;
            let fd = pick(over, g0 * rate * scale, g0 * rate);
            let g = pick(over, g0 * scale, g0);
            let mut rep = fe + fd;
            if CLAMP {
                rep = pick(rep < 0.0, 0.0, rep);
            }
            let damping_force = rep - fe;
            let load = rep.max(0.0);
            // Tangential inputs.
            let (ux, uy, uz) = (vx - dot * nx, vy - dot * ny, vz - dot * nz);
            let kt = s.kt_factor[l] * kn + s.kt_fixed[l];
            let gt = if SAME_RATIO { pick(kn > 0.0, g * (kt / kn).sqrt(), 0.0) } else { s.gt_factor[l] * g };
            let cap_s = s.mu_s[l] * load;
            let cap_k = s.mu_d[l] * load;
            // The stored spring carried to k_t and rotated into the tangent plane.
            let (x0, y0, z0) = (s.xi[0][l], s.xi[1][l], s.xi[2][l]);
            let st = s.kt_old[l];
            let len2 = x0 * x0 + y0 * y0 + z0 * z0;
            let xn = x0 * nx + y0 * ny + z0 * nz;
            let (px, py, pz) = (x0 - xn * nx, y0 - xn * ny, z0 - xn * nz);
            let p2 = px * px + py * py + pz * pz;
            let carried = st > 0.0 && kt > 0.0;
            let num = pick(carried, len2 * st, len2);
            let den = pick(carried, p2 * kt, p2);
            let energy = 0.5 * pick(carried, st, kt) * len2;
            let factor = (num / den).sqrt();
            let (empty, normal_only) = (len2 == 0.0, p2 == 0.0);
            let qx = pick(empty, x0, pick(normal_only, 0.0, px * factor));
            let qy = pick(empty, y0, pick(normal_only, 0.0, py * factor));
            let qz = pick(empty, z0, pick(normal_only, 0.0, pz * factor));
            let before = pick(empty || normal_only, 0.0, energy);
            // The capped spring step.
            let (tx, ty, tz) = (qx + ux * dt, qy + uy * dt, qz + uz * dt);
            let t2 = tx * tx + ty * ty + tz * tz;
            let saturated = kt * kt * t2 > cap_s * cap_s;
            let shrink = cap_k / (kt * t2.sqrt());
            let (sx, sy, sz) =
                (pick(saturated, tx * shrink, tx), pick(saturated, ty * shrink, ty), pick(saturated, tz * shrink, tz));
            let cap = pick(saturated, cap_k, cap_s);
            let (fx, fy, fz) = (-kt * sx - gt * ux, -kt * sy - gt * uy, -kt * sz - gt * uz);
            let f2 = fx * fx + fy * fy + fz * fz;
            let capped = f2 > cap * cap;
            let cut = cap / f2.sqrt();
            let (fx, fy, fz) = (pick(capped, fx * cut, fx), pick(capped, fy * cut, fy), pick(capped, fz * cut, fz));
            let t_stored = 0.5 * kt * (sx * sx + sy * sy + sz * sz);
            let t_dissipated = before - (fx * ux + fy * uy + fz * uz) * dt - t_stored;
            // Outputs.
            s.xi[0][l] = sx;
            s.xi[1][l] = sy;
            s.xi[2][l] = sz;
            s.kt_old[l] = kt;
            s.repulsion[l] = rep;
            s.sliding[l] = pick(saturated || capped, 1.0, 0.0);
            b.force[0][l] = rep * nx + fx;
            b.force[1][l] = rep * ny + fy;
            b.force[2][l] = rep * nz + fz;
            b.stored[l] = el_stored + t_stored;
            b.dissipated_normal[l] = damping_force * rate * dt;
            b.dissipated_sliding[l] = t_dissipated;
        }
    }
}
