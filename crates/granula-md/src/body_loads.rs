//! Body-level terms of the step: non-viscous local damping, the power of kinematic bodies
//! and the work of constant external loads, for the energy ledger.

use granula_core::parallel;
use granula_core::{BodySet, DVec3, MotionKind};
use granula_laws::LocalDamping;
use rayon::prelude::*;

/// Adds the non-viscous damping of `granula_laws::LocalDamping` (004 §2.3.2.4,
/// F_d = −α |F| sign(v) per component, F the resultant of contact, external and gravity
/// forces; the same on torques) to `bodies.force` / `bodies.torque`, which hold the contact
/// loads; returns the energy it dissipates over `dt`, −(F_d·v + T_d·ω) Δt, at the velocities
/// of the force evaluation, summed over the bodies not marked in `foreign` (bodies beyond
/// the slice are not: see [`MdSolver::set_foreign_bodies`](crate::MdSolver::set_foreign_bodies)).
pub(crate) fn apply_local_damping(
    bodies: &mut BodySet,
    gravity: DVec3,
    damping: &LocalDamping,
    dt: f64,
    foreign: &[bool],
) -> f64 {
    let BodySet {
        force,
        torque,
        external_force,
        external_torque,
        velocity,
        angular_velocity,
        inv_mass,
        mass,
        locked,
        ..
    } = bodies;
    let (external_force, external_torque, velocity, angular_velocity) =
        (&external_force[..], &external_torque[..], &velocity[..], &angular_velocity[..]);
    let (inv_mass, mass, locked) = (&inv_mass[..], &mass[..], &locked[..]);
    // Fixed runs of bodies, each summing its own dissipation, the runs' sums added in run
    // order: the same bits on any number of threads.
    let run = |(k, (force, torque)): (usize, (&mut [DVec3], &mut [DVec3]))| {
        let mut dissipated = 0.0;
        for (a, (f, t)) in force.iter_mut().zip(torque.iter_mut()).enumerate() {
            let i = k * DAMPING_RUN + a;
            if inv_mass[i] == 0.0 {
                continue;
            }
            let lock = locked[i];
            let total = lock.mask_linear(*f + external_force[i] + gravity * mass[i]);
            let (damped, power) = damping.apply(total, lock.mask_linear(velocity[i]));
            let total_t = lock.mask_angular(*t + external_torque[i]);
            let (damped_t, power_t) = damping.apply(total_t, lock.mask_angular(angular_velocity[i]));
            *f += damped - total;
            *t += damped_t - total_t;
            if !foreign.get(i).copied().unwrap_or(false) {
                dissipated += (power + power_t) * dt;
            }
        }
        dissipated
    };
    let mut sums = [0.0; SUMS_ON_STACK];
    let runs = force.len().div_ceil(DAMPING_RUN);
    let pairs = force.par_chunks_mut(DAMPING_RUN).zip(torque.par_chunks_mut(DAMPING_RUN)).enumerate();
    let tasks = parallel::min_len(DAMPING_TASK / DAMPING_RUN);
    if runs <= SUMS_ON_STACK {
        pairs.zip(sums[..runs].par_iter_mut()).with_min_len(tasks).for_each(|(p, s)| *s = run(p));
        sums[..runs].iter().sum()
    } else {
        // More than the stack holds (over half a million bodies): the sums of the runs
        // collected in a vector, in run order.
        let all: Vec<f64> = pairs.with_min_len(tasks).map(run).collect();
        all.iter().sum()
    }
}

/// The bodies of one run of [`apply_local_damping`]: its smallest unit of work, and the
/// grain of its sum.
const DAMPING_RUN: usize = 256;

/// The smallest task, in bodies, of [`apply_local_damping`] on several threads: some 25 ns
/// a body, so 512 take about ten microseconds, several times a task's hand-over.
const DAMPING_TASK: usize = 512;

/// Runs whose sums [`apply_local_damping`] keeps on the stack (up to 524 288 bodies).
const SUMS_ON_STACK: usize = 2048;

/// Power delivered to the other bodies by kinematic bodies through contacts,
/// P = −Σ_k (F_k·v_k + T_k·ω_k), with F_k, T_k the contact loads on kinematic body k.
pub(crate) fn kinematic_power(bodies: &BodySet) -> f64 {
    let mut p = 0.0;
    for i in 0..bodies.len() {
        if bodies.motion[i] == MotionKind::Kinematic {
            p -= bodies.force[i].dot(bodies.velocity[i]) + bodies.torque[i].dot(bodies.angular_velocity[i]);
        }
    }
    p
}

/// Work of the constant external loads on dynamic bodies over a step:
/// F_ext·(x₁ − x₀) (exact for a constant force) + T_ext·(ω₀ + ω₁) Δt/2, summed over the
/// bodies not marked in `foreign`.
pub(crate) fn external_load_work(bodies: &BodySet, x0: &[DVec3], w0: &[DVec3], dt: f64, foreign: &[bool]) -> f64 {
    let mut work = 0.0;
    for i in 0..bodies.len() {
        if bodies.inv_mass[i] == 0.0 || foreign.get(i).copied().unwrap_or(false) {
            continue;
        }
        let (f, t) = (bodies.external_force[i], bodies.external_torque[i]);
        if f != DVec3::ZERO {
            work += f.dot(bodies.position[i] - x0[i]);
        }
        if t != DVec3::ZERO {
            work += t.dot(w0[i] + bodies.angular_velocity[i]) * 0.5 * dt;
        }
    }
    work
}
