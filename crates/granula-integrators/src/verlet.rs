//! Velocity Verlet (kick-drift-kick).

use crate::per_body::PerBody;
use granula_core::math::integrate_orientations;
use granula_core::{
    euler_angular_acceleration, parallel, AccelerationField, BodySet, BodySums, CoreError, DQuat, DVec3, Dofs,
    Integrator, IntegratorState, Permutation, SummedBody, VelocityOffsets,
};
use rayon::prelude::*;

/// Bodies per parallel task (fixed chunks: each body is updated from its own data only, so
/// the split does not change any result).
const CHUNK: usize = 2048;

/// Bodies per parallel task when some body has unequal principal moments. Its correct runs
/// [`GYROSCOPIC_SWEEPS`] evaluations of Euler's equations, and its predict turns a full
/// inertia tensor: about 80 ns a body for the two halves of a step of polyhedra against
/// some 15 for spheres (2-core AMD EPYC virtual machine). So a thousand polyhedra make two
/// tasks of 40 µs, worth handing to a second thread, where a thousand spheres stay one.
const ASYMMETRIC_CHUNK: usize = 512;

/// Fixed-point sweeps for the implicit gyroscopic half kick; the contraction factor is
/// |ω| Δt, so three sweeps leave an error of order (|ω| Δt)³ relative.
const GYROSCOPIC_SWEEPS: usize = 3;

/// Velocity Verlet, second order and symplectic for position-only forces (004 §2.3.2):
///
/// v(t + Δt/2) = v(t) + a(t) Δt/2, x(t + Δt) = x(t) + v(t + Δt/2) Δt (predict),
/// v(t + Δt) = v(t + Δt/2) + a(t + Δt) Δt/2 (correct).
///
/// Rotations follow the same kicks with Euler's equations (gyroscopic term ω × Iω, 003 eq. 1;
/// the second half kick is solved by fixed-point sweeps since the term depends on
/// ω(t + Δt)); the orientation turns by ω(t + Δt/2) Δt through the exponential map and stays
/// a unit quaternion.
///
/// Between predict and correct the body set holds the half-step velocities, which is what
/// incremental springs need (𝒱 Δt is then the displacement of the step). Velocity-dependent
/// normal forces (dashpots) need the velocity at the force's time level t + Δt instead: with
/// [`ForceVelocity::Predicted`] (the default) the integrator offers the offsets to
/// v(t) + a(t) Δt through [`Integrator::force_velocity_offsets`], and the solver uses them
/// for the normal part of the relative velocity. Positions, and the trajectories under
/// position-only forces, do not depend on the choice.
///
/// Bodies are updated in parallel with rayon (in the pool the caller runs in), each from its
/// own data only, so results do not depend on the number of threads.
#[derive(Clone, Debug, Default)]
pub struct VelocityVerlet {
    /// Linear and angular accelerations of the last force evaluation.
    accel: PerBody<(DVec3, DVec3)>,
    /// Between predict and correct, Δt/2 of the step: the offsets from the half-step
    /// velocities to the predicted ones are then `accel` · Δt/2 (the accelerations are
    /// zero for non-dynamic bodies and on locked degrees of freedom, so these are the
    /// kicks of the predict). `None` between steps, so not part of the saved state.
    half_step: Option<f64>,
    /// The velocity the normal forces see.
    force_velocity: ForceVelocity,
    /// The task size chosen for the body set of this structure version (see
    /// [`VelocityVerlet::chunk_len`]): a matter of speed only, not part of the state.
    chunk: Option<(u64, usize)>,
    /// Per chunk, the sums of a half step that adds them up (scratch of one call).
    partial_sums: Vec<BodySums>,
}

/// The velocity that velocity-dependent normal forces see at the force evaluation of a
/// [`VelocityVerlet`] step, at the positions x(t + Δt).
///
/// This is the modified velocity Verlet of Groot and Warren (J. Chem. Phys. 107, 4423
/// (1997), eq. 22) with the force velocity ṽ(t + Δt) = v(t) + λ Δt a(t): λ = 1/2 is
/// [`ForceVelocity::HalfStep`], λ = 1 is [`ForceVelocity::Predicted`]. Only λ = 1 makes
/// ṽ(t + Δt) an O(Δt²) estimate of v(t + Δt); with λ = 1/2 the dashpot lags by Δt/2 and the
/// restitution of a damped impact is first order in Δt (−1.07 % for e = 0.2 at t_c/100,
/// Hertz with the damping calibrated from e, against −0.06 % with λ = 1; errors for every
/// integrator in `docs/contact-laws.md`). No extra force evaluation either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ForceVelocity {
    /// The normal relative velocity at the contact is taken from
    /// v(t + Δt/2) + a(t) Δt/2 = v(t) + a(t) Δt (Groot-Warren λ = 1), the tangential part and
    /// the relative angular velocity from the half-step velocities (incremental springs).
    #[default]
    Predicted,
    /// Every part of the relative velocity from the half-step velocities v(t + Δt/2)
    /// (Groot-Warren λ = 1/2, the classic kick-drift-kick).
    HalfStep,
}

impl VelocityVerlet {
    /// The memory of the body at dense index `i` of `bodies`, laid out as in
    /// [`Integrator::save_state`] (linear then angular acceleration, 6 values), or `None`
    /// when the memory is not in step with `bodies` (no step taken since their last
    /// structural change or since a restore). One body's entry, without copying the rest.
    pub fn body_memory(&self, bodies: &BodySet, i: usize) -> Option<[f64; 6]> {
        let (a, b) = self.accel.get_in_step(bodies, i)?;
        Some([a.x, a.y, a.z, b.x, b.y, b.z])
    }

    /// Overwrites the memory of the body at dense index `i` with `values` (the layout of
    /// [`VelocityVerlet::body_memory`]); `false`, with nothing written, when the memory is
    /// not in step with `bodies` or `values` does not hold 6 numbers.
    pub fn set_body_memory(&mut self, bodies: &BodySet, i: usize, values: &[f64]) -> bool {
        let (Some(slot), [ax, ay, az, bx, by, bz]) = (self.accel.get_mut_in_step(bodies, i), values) else {
            return false;
        };
        // Masked by the body's locks, as the integrator's own accelerations are (the
        // velocity offsets of a step are these times Δt/2).
        let lock = bodies.locked[i];
        *slot = (lock.mask_linear(DVec3::new(*ax, *ay, *az)), lock.mask_angular(DVec3::new(*bx, *by, *bz)));
        true
    }
}

impl VelocityVerlet {
    /// A new integrator, normal forces seeing [`ForceVelocity::Predicted`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A new integrator whose normal forces see `force_velocity`.
    pub fn with_force_velocity(force_velocity: ForceVelocity) -> Self {
        VelocityVerlet { force_velocity, ..Self::default() }
    }

    /// The velocity the normal forces see.
    pub fn force_velocity(&self) -> ForceVelocity {
        self.force_velocity
    }
}

impl VelocityVerlet {
    /// Bodies per parallel task: [`ASYMMETRIC_CHUNK`] if some dynamic body has unequal
    /// principal moments, else [`CHUNK`]; chosen again when the body set's structure changes
    /// ([`BodySet::structure_version`]). A moment edited by hand without such a change
    /// leaves the choice as it was, which changes the speed only: the chunks never change a
    /// result.
    fn chunk_len(&mut self, bodies: &BodySet) -> usize {
        let version = bodies.structure_version();
        match self.chunk {
            Some((v, len)) if v == version => len,
            _ => {
                let asymmetric = bodies
                    .inertia
                    .iter()
                    .zip(&bodies.inv_mass)
                    .any(|(m, inv)| *inv != 0.0 && !(m.x == m.y && m.y == m.z));
                let len = if asymmetric { ASYMMETRIC_CHUNK } else { CHUNK };
                self.chunk = Some((version, len));
                len
            }
        }
    }

    /// Runs `half` (the predict or the correct of one chunk of bodies) over the bodies in
    /// parallel chunks ([`VelocityVerlet::chunk_len`]), each with its own columns and its slice of the
    /// accelerations and velocity offsets: one closure call per chunk, a plain loop inside
    /// (inlined, no per-body dispatch).
    ///
    /// Each chunk adds its bodies to its own partial [`BodySums`] (when `half` sums), and the
    /// partials are merged in chunk order into the returned sums: chunks are fixed, so the
    /// sums do not depend on the number of threads either.
    fn for_each_chunk(
        &mut self,
        bodies: &mut BodySet,
        field: &AccelerationField<'_>,
        dt: f64,
        half: fn(BodyChunk<'_>, DVec3, f64, &mut BodySums),
    ) -> BodySums {
        let chunk = self.chunk_len(bodies);
        self.partial_sums.clear();
        self.partial_sums.resize(bodies.len().div_ceil(chunk), BodySums::EMPTY);
        let AccelerationField { gravity, force, torque } = *field;
        let BodySet {
            position,
            velocity,
            angular_velocity,
            orientation,
            external_force,
            external_torque,
            inv_mass,
            mass,
            radius,
            inertia,
            inv_inertia,
            locked,
            ..
        } = bodies;
        let shared = SharedColumns {
            inv_mass,
            mass,
            radius,
            inertia,
            inv_inertia,
            locked,
            external_force,
            external_torque,
            force,
            torque,
        };
        position
            .par_chunks_mut(chunk)
            .zip(velocity.par_chunks_mut(chunk))
            .zip(angular_velocity.par_chunks_mut(chunk))
            .zip(orientation.par_chunks_mut(chunk))
            .zip(self.accel.values.par_chunks_mut(chunk))
            .zip(self.partial_sums.par_iter_mut())
            .with_min_len(parallel::min_len(1))
            .enumerate()
            .for_each(|(k, (((((x, v), w), q), accel), sums))| {
                half(shared.chunk(k * chunk, x, q, v, w, accel), gravity, dt, sums);
            });
        let mut total = BodySums::EMPTY;
        for s in &self.partial_sums {
            total.merge(s);
        }
        total
    }
}

/// The bodies `start..start + position.len()` of a body set, as a half step of one chunk
/// sees them: the columns it writes, mutable, and those it reads, every slice cut to the
/// range (index `m` is body `start + m`).
#[derive(Debug)]
struct BodyChunk<'a> {
    /// Dense index of the chunk's first body.
    start: usize,
    /// Positions (written).
    position: &'a mut [DVec3],
    /// Orientations (written).
    orientation: &'a mut [DQuat],
    /// Velocities (written).
    velocity: &'a mut [DVec3],
    /// Angular velocities (written).
    angular_velocity: &'a mut [DVec3],
    /// Inverse masses (zero: not dynamic, left untouched).
    inv_mass: &'a [f64],
    /// Masses (read for the sums only).
    mass: &'a [f64],
    /// Bounding radii (read for the sums only).
    radius: &'a [f64],
    /// Principal moments of inertia.
    inertia: &'a [DVec3],
    /// Inverse principal moments.
    inv_inertia: &'a [DVec3],
    /// Locked degrees of freedom.
    locked: &'a [Dofs],
    /// Constant external forces.
    external_force: &'a [DVec3],
    /// Constant external torques.
    external_torque: &'a [DVec3],
    /// The contact forces the half step uses (those of [`AccelerationField::force`]).
    force: &'a [DVec3],
    /// The contact torques the half step uses.
    torque: &'a [DVec3],
    /// The accelerations of the last evaluation (linear, angular), written by the correct.
    accel: &'a mut [(DVec3, DVec3)],
}

impl BodyChunk<'_> {
    /// Whether every body of the chunk is dynamic (non-zero inverse mass) with nothing
    /// locked: one pass without an early exit, so that it vectorises.
    #[inline]
    fn all_free(&self) -> bool {
        self.inv_mass
            .iter()
            .zip(self.locked)
            .fold(true, |all, (&inv_m, &lock)| all & (inv_m != 0.0) & (lock == Dofs::NONE))
    }

    /// [`BodyChunk::all_free`], and every body a spherical top (equal principal moments)
    /// with a finite moment (non-zero inverse).
    #[inline]
    fn all_free_spherical(&self) -> bool {
        self.all_free()
            && self
                .inertia
                .iter()
                .zip(self.inv_inertia)
                .fold(true, |all, (i, inv)| all & (i.x == i.y) & (i.y == i.z) & (inv.x != 0.0))
    }

    /// The values of body `m` of the chunk that [`BodySums`] reads.
    #[inline(always)]
    fn summed(&self, m: usize) -> SummedBody {
        SummedBody {
            inv_mass: self.inv_mass[m],
            mass: self.mass[m],
            radius: self.radius[m],
            position: self.position[m],
            velocity: self.velocity[m],
            angular_velocity: self.angular_velocity[m],
            orientation: self.orientation[m],
            inertia: self.inertia[m],
            inv_inertia: self.inv_inertia[m],
            external_force: self.external_force[m],
            external_torque: self.external_torque[m],
        }
    }
}

impl Integrator for VelocityVerlet {
    fn name(&self) -> &'static str {
        "velocity_verlet"
    }

    /// Takes a new body's accelerations from `field`, sizes the offset columns, and runs
    /// the half kick and drift over the bodies in parallel chunks.
    fn predict(&mut self, bodies: &mut BodySet, field: &AccelerationField<'_>, t: f64, dt: f64) {
        self.predict_summing(bodies, field, t, dt, None);
    }

    /// [`Integrator::predict`] adding up the start sums inside the chunks' loops.
    fn predict_summing(
        &mut self,
        bodies: &mut BodySet,
        field: &AccelerationField<'_>,
        _t: f64,
        dt: f64,
        start: Option<&mut BodySums>,
    ) {
        self.accel.sync(bodies, |i| (field.linear(bodies, i), field.angular(bodies, i, bodies.angular_velocity[i])));
        self.half_step = Some(0.5 * dt);
        match start {
            Some(s) => *s = self.for_each_chunk(bodies, field, dt, predict_chunk::<true>),
            None => {
                self.for_each_chunk(bodies, field, dt, predict_chunk::<false>);
            }
        }
    }

    /// The closing half kick over the bodies in parallel chunks; clears the offsets, the
    /// scratch of one step.
    fn correct(&mut self, bodies: &mut BodySet, field: &AccelerationField<'_>, _t: f64, dt: f64) {
        self.for_each_chunk(bodies, field, dt, correct_chunk::<false, false>);
        self.half_step = None;
    }

    /// [`Integrator::correct`] adding up the end sums inside the chunks' loops.
    fn correct_summing(
        &mut self,
        bodies: &mut BodySet,
        field: &AccelerationField<'_>,
        _t: f64,
        dt: f64,
        energies: bool,
        end: &mut BodySums,
    ) {
        let half = if energies { correct_chunk::<true, true> } else { correct_chunk::<true, false> };
        *end = self.for_each_chunk(bodies, field, dt, half);
        self.half_step = None;
    }

    /// With [`ForceVelocity::Predicted`], between predict and correct: a(t) Δt/2 and
    /// α(t) Δt/2 per body, which take the half-step velocities in the body set to
    /// v(t) + a(t) Δt and ω(t) + α(t) Δt. `None` otherwise.
    fn force_velocity_offsets(&self) -> Option<VelocityOffsets<'_>> {
        let scale = self.half_step.filter(|_| self.force_velocity == ForceVelocity::Predicted)?;
        Some(VelocityOffsets { rates: &self.accel.values, scale })
    }

    /// Moves the accelerations of the last force evaluation and, between predict and
    /// correct, the velocity offsets of the step with the bodies: the next half step gives
    /// each body the bits it would have had in the old order.
    fn permute_bodies(&mut self, permutation: &Permutation, bodies: &BodySet) {
        self.accel.permute(permutation, bodies);
    }

    /// The accelerations of the last force evaluation (6 values per body, keyed by handle),
    /// which the next half kick uses: they were evaluated at the half-step velocities, so
    /// they cannot be recomputed from the end-of-step state when forces depend on velocity.
    fn save_state(&self) -> IntegratorState {
        crate::per_body::save_pairs(&self.accel, self.name())
    }

    /// Restores [`VelocityVerlet::save_state`]'s accelerations.
    fn restore_state(&mut self, state: &IntegratorState, _bodies: &BodySet) -> Result<(), CoreError> {
        let name = self.name();
        crate::per_body::restore_pairs(&mut self.accel, name, state)
    }
}

/// The columns a half step reads, whole, to be cut into the ranges of [`BodyChunk`]s.
#[derive(Clone, Copy)]
struct SharedColumns<'a> {
    inv_mass: &'a [f64],
    mass: &'a [f64],
    radius: &'a [f64],
    inertia: &'a [DVec3],
    inv_inertia: &'a [DVec3],
    locked: &'a [Dofs],
    external_force: &'a [DVec3],
    external_torque: &'a [DVec3],
    force: &'a [DVec3],
    torque: &'a [DVec3],
}

impl<'a> SharedColumns<'a> {
    /// The chunk of the bodies `start..start + position.len()` with these written columns.
    fn chunk<'c>(
        &self,
        start: usize,
        position: &'c mut [DVec3],
        orientation: &'c mut [DQuat],
        velocity: &'c mut [DVec3],
        angular_velocity: &'c mut [DVec3],
        accel: &'c mut [(DVec3, DVec3)],
    ) -> BodyChunk<'c>
    where
        'a: 'c,
    {
        let r = start..start + position.len();
        // The contact loads may be absent (empty) when a half step does not read them.
        let loads = |c: &'a [DVec3]| if c.is_empty() { c } else { &c[r.clone()] };
        BodyChunk {
            start,
            position,
            orientation,
            velocity,
            angular_velocity,
            inv_mass: &self.inv_mass[r.clone()],
            mass: &self.mass[r.clone()],
            radius: &self.radius[r.clone()],
            inertia: &self.inertia[r.clone()],
            inv_inertia: &self.inv_inertia[r.clone()],
            locked: &self.locked[r.clone()],
            external_force: &self.external_force[r.clone()],
            external_torque: &self.external_torque[r.clone()],
            force: loads(self.force),
            torque: loads(self.torque),
            accel,
        }
    }
}

/// The half kick and drift of [`VelocityVerlet`] for the bodies of `chunk`:
/// v += a(t) Δt/2, x += v Δt, ω += α(t) Δt/2, q turned by ω Δt (004 §2.3.2), with the
/// accelerations of the last evaluation (`chunk.accel`). With `SUM`, the chunk's state
/// at the start of the step is added to `sums` first ([`BodySums::add_start`]), in a loop
/// of its own: the chunk is then in cache for the update, and neither loop's body grows
/// past the registers (one loop doing both measured slower than two passes over all bodies).
#[inline]
fn predict_chunk<const SUM: bool>(chunk: BodyChunk<'_>, gravity: DVec3, dt: f64, sums: &mut BodySums) {
    let half = 0.5 * dt;
    if SUM {
        for m in 0..chunk.position.len() {
            sums.add_start(&chunk.summed(m), gravity, dt);
        }
    }
    if chunk.all_free() {
        // Every body dynamic and unlocked: the masks below are the identity and the loops
        // need no test per body (the same operations, so the same bits).
        for ((v, x), (w, &(a, alpha))) in chunk
            .velocity
            .iter_mut()
            .zip(chunk.position.iter_mut())
            .zip(chunk.angular_velocity.iter_mut().zip(&*chunk.accel))
        {
            let v_half = *v + a * half;
            *v = v_half;
            *x += v_half * dt;
            *w += alpha * half;
        }
        let w = &*chunk.angular_velocity;
        integrate_orientations(chunk.orientation, |m| w[m] * dt);
        return;
    }
    for m in 0..chunk.position.len() {
        if chunk.inv_mass[m] == 0.0 {
            continue;
        }
        let (a, alpha) = chunk.accel[m];
        let lock = chunk.locked[m];
        let (kick, spin) = (lock.mask_linear(a * half), lock.mask_angular(alpha * half));
        let v = chunk.velocity[m] + kick;
        chunk.velocity[m] = v;
        chunk.position[m] += lock.mask_linear(v * dt);
        chunk.angular_velocity[m] += spin;
    }
    // The orientations in a loop of their own (see `integrate_orientations`), from the
    // new angular velocities; bodies that are not dynamic keep theirs.
    let (inv_mass, locked, w) = (chunk.inv_mass, chunk.locked, &*chunk.angular_velocity);
    integrate_orientations(chunk.orientation, |m| {
        if inv_mass[m] == 0.0 {
            DVec3::ZERO
        } else {
            locked[m].mask_angular(w[m]) * dt
        }
    });
}

/// The closing half kick of [`VelocityVerlet`] for the bodies of `chunk`:
/// v += a(t + Δt) Δt/2 with the contact loads of `chunk.force` / `chunk.torque`, ω by
/// Euler's equations (003 eq. 1) solved by fixed-point sweeps; the new accelerations go to
/// `chunk.accel`. With `SUM`, the chunk's state at the end of the step is then added
/// to `sums` ([`BodySums::add_end`], with the energies when `ENERGIES`), in a loop of its
/// own over the chunk while it is in cache.
#[inline]
fn correct_chunk<const SUM: bool, const ENERGIES: bool>(
    mut chunk: BodyChunk<'_>,
    gravity: DVec3,
    dt: f64,
    sums: &mut BodySums,
) {
    let half = 0.5 * dt;
    if chunk.all_free_spherical() {
        correct_free_spherical(&mut chunk, gravity, half);
    } else {
        correct_general(&mut chunk, gravity, half);
    }
    if SUM {
        for m in 0..chunk.velocity.len() {
            sums.add_end::<ENERGIES>(chunk.start + m, &chunk.summed(m), gravity);
        }
    }
}

/// The closing half kick of [`correct_chunk`] when every body of the chunk is dynamic,
/// unlocked and a spherical top with finite moments ([`BodyChunk::all_free_spherical`]):
/// the operations of [`correct_general`] for such bodies (Euler's equations reduce to
/// α = T/I, one evaluation), without a test per body.
#[inline]
fn correct_free_spherical(chunk: &mut BodyChunk<'_>, gravity: DVec3, half: f64) {
    let n = chunk.velocity.len();
    let (force, torque) = (&chunk.force[..n], &chunk.torque[..n]);
    let (external_force, external_torque) = (&chunk.external_force[..n], &chunk.external_torque[..n]);
    let (inv_mass, inv_inertia) = (&chunk.inv_mass[..n], &chunk.inv_inertia[..n]);
    let (velocity, angular_velocity, accel) =
        (&mut chunk.velocity[..n], &mut chunk.angular_velocity[..n], &mut chunk.accel[..n]);
    for m in 0..n {
        let a = (force[m] + external_force[m]) * inv_mass[m] + gravity;
        let alpha = (torque[m] + external_torque[m]) * inv_inertia[m].x;
        velocity[m] += a * half;
        angular_velocity[m] += alpha * half;
        accel[m] = (a, alpha);
    }
}

/// The closing half kick of [`correct_chunk`] for any bodies: non-dynamic ones are left
/// as they are, locks mask the accelerations, asymmetric tops take the fixed-point sweeps.
#[inline]
fn correct_general(chunk: &mut BodyChunk<'_>, gravity: DVec3, half: f64) {
    for m in 0..chunk.velocity.len() {
        let inv_m = chunk.inv_mass[m];
        if inv_m == 0.0 {
            continue;
        }
        let lock = chunk.locked[m];
        let a = lock.mask_linear((chunk.force[m] + chunk.external_force[m]) * inv_m + gravity);
        let t = chunk.torque[m] + chunk.external_torque[m];
        // ω(t + Δt) = ω(t + Δt/2) + α(ω(t + Δt)) Δt/2 is implicit through the gyroscopic
        // term; a few fixed-point sweeps keep the scheme second order for asymmetric bodies
        // (a spherical top has no gyroscopic term: one evaluation is exact).
        let (q, moments, inv_moments) = (chunk.orientation[m], chunk.inertia[m], chunk.inv_inertia[m]);
        let sweeps = if moments.x == moments.y && moments.y == moments.z { 1 } else { GYROSCOPIC_SWEEPS };
        let w_half = chunk.angular_velocity[m];
        let mut w_new = w_half;
        let mut alpha = DVec3::ZERO;
        for _ in 0..sweeps {
            alpha = euler_angular_acceleration(t, w_new, q, moments, inv_moments, lock);
            w_new = w_half + alpha * half;
        }
        chunk.velocity[m] += a * half;
        chunk.angular_velocity[m] = w_new;
        chunk.accel[m] = (a, alpha);
    }
}
