//! Structure-of-arrays storage of all bodies of a world.
//!
//! Solvers index bodies by a dense index `0..len()`; users hold stable [`BodyHandle`]s.
//! Removing a body moves the last one into its slot (swap-remove), so dense indices change
//! only on removal or on an explicit reorder ([`BodySet::permute`]), and
//! [`BodySet::structure_version`] counts such changes for solvers that keep per-body state
//! of their own.

use crate::body::{Body, Dofs, MassSource, Motion, Prescribed};
use crate::error::{BodyRef, CoreError, Result};
use crate::handle::{BodyHandle, MaterialId};
use crate::material::MaterialTable;
use crate::math::{integrate_orientation, DMat3, DQuat, DVec3};
use crate::permutation::Permutation;
use crate::shape::{Aabb, MassProperties, Shape};

/// Kinematic prescription of one body, stored beside its dense index.
#[derive(Clone, Debug)]
pub struct KinematicDrive {
    /// Velocity as a function of time.
    pub linear: Prescribed,
    /// Angular velocity as a function of time.
    pub angular: Prescribed,
}

/// How a stored body moves (the data-free part of [`Motion`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MotionKind {
    /// Integrated from forces.
    Dynamic,
    /// Never moves.
    Fixed,
    /// Velocity prescribed by [`BodySet::drive`].
    Kinematic,
}

/// All bodies, one column per quantity. Columns are public for solvers' hot loops; only
/// [`BodySet::insert`] and [`BodySet::remove`] may change their length, and only they and
/// [`BodySet::permute`] the order of the bodies.
#[derive(Clone, Debug, Default)]
pub struct BodySet {
    /// Handle of each dense index.
    pub handle: Vec<BodyHandle>,
    /// Position of the centre of mass.
    pub position: Vec<DVec3>,
    /// Orientation of the principal axes.
    pub orientation: Vec<DQuat>,
    /// Velocity.
    pub velocity: Vec<DVec3>,
    /// Angular velocity (world frame).
    pub angular_velocity: Vec<DVec3>,
    /// Force accumulator: contact forces of the last force evaluation (solvers fill it;
    /// outputs and checkpoints read it; integrators receive the loads through an
    /// [`AccelerationField`](crate::AccelerationField), not from here).
    pub force: Vec<DVec3>,
    /// Torque accumulator (world frame), as `force`.
    pub torque: Vec<DVec3>,
    /// Constant external force (besides gravity).
    pub external_force: Vec<DVec3>,
    /// Constant external torque.
    pub external_torque: Vec<DVec3>,
    /// Mass (infinite for walls).
    pub mass: Vec<f64>,
    /// `1/m`, zero unless the body is dynamic.
    pub inv_mass: Vec<f64>,
    /// Principal moments of inertia.
    pub inertia: Vec<DVec3>,
    /// `1/I` per principal axis, zero unless the body is dynamic.
    pub inv_inertia: Vec<DVec3>,
    /// Shape.
    pub shape: Vec<Shape>,
    /// Sphere radius, or `f64::INFINITY` for any other shape (hot-loop copy of `shape`).
    pub radius: Vec<f64>,
    /// Material.
    pub material: Vec<MaterialId>,
    /// Motion kind.
    pub motion: Vec<MotionKind>,
    /// Kinematic drive (`Some` for kinematic bodies).
    pub drive: Vec<Option<KinematicDrive>>,
    /// Locked degrees of freedom (the world's planar mode included).
    pub locked: Vec<Dofs>,
    slot: Vec<u32>,
    version: u64,
}

const REMOVED: u32 = u32::MAX;

/// Calls the macro `$apply` with the names of every per-body column of [`BodySet`], so
/// that an operation on whole bodies (removal, reordering) lists them in one place.
macro_rules! every_column {
    ($apply:ident) => {
        $apply!(
            handle,
            position,
            orientation,
            velocity,
            angular_velocity,
            force,
            torque,
            external_force,
            external_torque,
            mass,
            inv_mass,
            inertia,
            inv_inertia,
            shape,
            radius,
            material,
            motion,
            drive,
            locked
        )
    };
}

impl BodySet {
    /// Rotational kinetic energy ½ ω_b · I ω_b of body `i` (dense index), ω_b the angular
    /// velocity in the body frame, over its finite principal moments (J).
    pub fn rotational_energy(&self, i: usize) -> f64 {
        let wb = self.orientation[i].inverse() * self.angular_velocity[i];
        let inertia = self.inertia[i];
        let mut e = 0.0;
        for k in 0..3 {
            if inertia[k].is_finite() {
                e += 0.5 * inertia[k] * wb[k] * wb[k];
            }
        }
        e
    }

    /// Number of bodies.
    #[inline]
    pub fn len(&self) -> usize {
        self.handle.len()
    }

    /// `true` when there is no body.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.handle.is_empty()
    }

    /// The handle the next insertion gets: handles are issued in increasing order and never
    /// reused, so the bodies with a handle at or above an earlier `next_handle()` are the
    /// ones inserted since.
    #[inline]
    pub fn next_handle(&self) -> BodyHandle {
        BodyHandle(self.slot.len() as u32)
    }

    /// Counts insertions, removals and reorders ([`BodySet::permute`]); per-body solver state
    /// keyed by dense index must be rebuilt (or permuted alike) when it changes.
    #[inline]
    pub fn structure_version(&self) -> u64 {
        self.version
    }

    /// The dense index of a handle.
    #[inline]
    pub fn index(&self, h: BodyHandle) -> Result<usize> {
        match self.slot.get(h.0 as usize) {
            Some(&s) if s != REMOVED => Ok(s as usize),
            _ => Err(CoreError::NoSuchBody { handle: h }),
        }
    }

    /// Changes the prescribed motion of kinematic body `h` from now on: its velocity and
    /// angular velocity become `linear` and `angular` (functions of the simulated time,
    /// read at the next step), and its current velocities take their values at `time` (s),
    /// so that forces and outputs see the new motion at once. A body that is not kinematic
    /// is refused ([`CoreError::InvalidBody`] naming `motion`): its velocity is the
    /// solver's.
    pub fn set_drive(&mut self, h: BodyHandle, linear: Prescribed, angular: Prescribed, time: f64) -> Result<()> {
        let i = self.index(h)?;
        if self.motion[i] != MotionKind::Kinematic {
            return Err(CoreError::invalid_body(BodyRef::Handle(h), "motion", self.motion[i], "a kinematic body"));
        }
        self.velocity[i] = linear.at(time);
        self.angular_velocity[i] = angular.at(time);
        self.drive[i] = Some(KinematicDrive { linear, angular });
        Ok(())
    }

    /// Inserts a body; mass properties come from its shape, its material (or explicit
    /// density or mass) and the planar flag (spheres become discs of unit thickness when
    /// their mass comes from a density).
    pub fn insert(&mut self, body: &impl Body, materials: &MaterialTable, planar: bool) -> Result<BodyHandle> {
        let handle = BodyHandle(self.slot.len() as u32);
        let who = BodyRef::New;
        let material = body.material();
        let density_of_material =
            materials.get(material).map_err(|_| CoreError::unknown_material_id(who, material))?.density;
        let shape = body.shape().clone();
        let state = body.state();
        let motion = body.motion().clone();
        let props = mass_properties(&shape, body.mass_source(), density_of_material, planar)?;
        let (kind, drive) = match motion {
            Motion::Dynamic => (MotionKind::Dynamic, None),
            Motion::Fixed => (MotionKind::Fixed, None),
            Motion::Kinematic { linear, angular } => (MotionKind::Kinematic, Some(KinematicDrive { linear, angular })),
        };
        if kind == MotionKind::Dynamic && !props.mass.is_finite() {
            return Err(CoreError::invalid_body(
                who,
                "mass",
                props.mass,
                "finite for a dynamic body: give a mass or make it fixed or kinematic",
            ));
        }
        if kind == MotionKind::Dynamic {
            props.check_dynamic(who)?;
        }
        let mut locked = body.locked();
        if planar {
            locked = locked | Dofs::PLANAR;
        }
        let dynamic = kind == MotionKind::Dynamic;
        let (f_ext, t_ext) = body.external_load();
        self.handle.push(handle);
        self.position.push(state.position);
        self.orientation.push(state.orientation);
        self.velocity.push(if dynamic { locked.mask_linear(state.velocity) } else { state.velocity });
        self.angular_velocity.push(if dynamic {
            locked.mask_angular(state.angular_velocity)
        } else {
            state.angular_velocity
        });
        self.force.push(DVec3::ZERO);
        self.torque.push(DVec3::ZERO);
        self.external_force.push(f_ext);
        self.external_torque.push(t_ext);
        self.mass.push(props.mass);
        self.inv_mass.push(if dynamic { props.inv_mass() } else { 0.0 });
        self.inertia.push(props.inertia);
        self.inv_inertia.push(if dynamic { props.inv_inertia() } else { DVec3::ZERO });
        self.radius.push(shape.sphere_radius().unwrap_or(f64::INFINITY));
        self.shape.push(shape);
        self.material.push(material);
        self.motion.push(kind);
        self.drive.push(drive);
        self.locked.push(locked);
        self.slot.push((self.handle.len() - 1) as u32);
        self.version += 1;
        Ok(handle)
    }

    /// Removes a body (swap-remove). The handle is retired for good.
    pub fn remove(&mut self, h: BodyHandle) -> Result<()> {
        let i = self.index(h)?;
        let last = self.len() - 1;
        macro_rules! swap_remove_all {
            ($($col:ident),*) => { $( self.$col.swap_remove(i); )* };
        }
        every_column!(swap_remove_all);
        self.slot[h.0 as usize] = REMOVED;
        if i != last {
            let moved = self.handle[i];
            self.slot[moved.0 as usize] = i as u32;
        }
        self.version += 1;
        Ok(())
    }

    /// The permutation that brings these bodies into the dense order `order` (handles, as
    /// [`BodySet::handle`] after the permutation): a world restored in its insertion order
    /// gets back the order of a run that reordered its bodies. The error names the first
    /// handle that is unknown or repeated, or the count that differs.
    pub fn permutation_to(&self, order: &[BodyHandle]) -> Result<Permutation> {
        if order.len() != self.len() {
            return Err(CoreError::InvalidWorld {
                field: "body order",
                value: format!("{} handles for {} bodies", order.len(), self.len()),
                expected: "one handle per body",
            });
        }
        let source = order.iter().map(|h| self.index(*h).map(|i| i as u32)).collect::<Result<Vec<_>>>()?;
        Permutation::from_sources(source)
    }

    /// Stores the bodies in the order of `permutation` (the body at new dense index `k` is
    /// the one at old index [`Permutation::source`]`(k)`): every column moves alike, each
    /// handle keeps its body, and [`BodySet::structure_version`] moves on. Nothing is
    /// computed, so no body's state changes by a bit. Solver or integrator state keyed by
    /// dense index must follow ([`Integrator::permute_bodies`](crate::Integrator::permute_bodies)).
    /// A permutation of another length is refused with an error naming both lengths.
    pub fn permute(&mut self, permutation: &Permutation) -> Result<()> {
        if permutation.len() != self.len() {
            return Err(CoreError::InvalidWorld {
                field: "permutation",
                value: format!("{} indices for {} bodies", permutation.len(), self.len()),
                expected: "one index per body",
            });
        }
        macro_rules! permute_all {
            ($($col:ident),*) => { $( permutation.apply(&mut self.$col); )* };
        }
        every_column!(permute_all);
        for (k, h) in self.handle.iter().enumerate() {
            self.slot[h.0 as usize] = k as u32;
        }
        self.version += 1;
        Ok(())
    }

    /// World-frame bounding box of body `i`.
    #[inline]
    pub fn aabb(&self, i: usize) -> Aabb {
        match self.shape[i] {
            Shape::Sphere { radius } => Aabb::around(self.position[i], DVec3::splat(radius)),
            ref s => s.aabb(self.position[i], self.orientation[i]),
        }
    }

    /// Inverse inertia tensor of body `i` in the world frame, `R diag(1/I) Rᵀ`.
    #[inline]
    pub fn inv_inertia_world(&self, i: usize) -> DMat3 {
        let r = DMat3::from_quat(self.orientation[i]);
        r * DMat3::from_diagonal(self.inv_inertia[i]) * r.transpose()
    }

    /// Velocity of the material point at world position `p` of body `i`: v + ω × (p − x).
    #[inline]
    pub fn point_velocity(&self, i: usize, p: DVec3) -> DVec3 {
        self.velocity[i] + self.angular_velocity[i].cross(p - self.position[i])
    }

    /// Angular acceleration of body `i` from a world-frame torque, with Euler's gyroscopic
    /// term ([`euler_angular_acceleration`] on the body's columns). Zero for non-dynamic
    /// bodies.
    #[inline]
    pub fn angular_acceleration(&self, i: usize, torque: DVec3, omega: DVec3) -> DVec3 {
        euler_angular_acceleration(
            torque,
            omega,
            self.orientation[i],
            self.inertia[i],
            self.inv_inertia[i],
            self.locked[i],
        )
    }

    /// Advances every kinematic body from `t` to `t + dt`: velocities are set to their value
    /// at `t + dt`, positions move and orientations turn by their prescriptions' steps
    /// ([`Prescribed::step`]: the integral of a drive, the midpoint rule for a function).
    pub fn advance_kinematic(&mut self, t: f64, dt: f64) {
        for i in 0..self.len() {
            // The one-byte motion column first: most bodies are dynamic, and the drive column
            // is wide.
            if self.motion[i] != MotionKind::Kinematic {
                continue;
            }
            if let Some(d) = &self.drive[i] {
                // v Δt and ω Δt of constant drives: the bits of the midpoint rule they had
                // before drives knew their integrals.
                self.position[i] += d.linear.step(t, dt);
                self.orientation[i] = integrate_orientation(self.orientation[i], d.angular.step(t, dt), 1.0);
                self.velocity[i] = d.linear.at(t + dt);
                self.angular_velocity[i] = d.angular.at(t + dt);
            }
        }
    }

    /// Sets the velocities of kinematic bodies to their prescribed values at `t`.
    pub fn set_kinematic_velocities(&mut self, t: f64) {
        for i in 0..self.len() {
            if let Some(d) = &self.drive[i] {
                self.velocity[i] = d.linear.at(t);
                self.angular_velocity[i] = d.angular.at(t);
            }
        }
    }

    /// Checks that every body's state is finite; the error names the first body and field.
    pub fn check_finite(&self, step: u64, time: f64) -> Result<()> {
        // Fast pass: a NaN or an infinity survives any sum, so a finite sum over the whole
        // state clears every body at once; otherwise (or if finite values overflowed) the
        // slow pass names the first body at fault.
        let mut sum = DVec3::ZERO;
        for i in 0..self.len() {
            let q = self.orientation[i];
            sum += self.position[i] + self.velocity[i] + self.angular_velocity[i] + DVec3::new(q.x, q.y, q.z + q.w);
        }
        if sum.is_finite() {
            return Ok(());
        }
        for i in 0..self.len() {
            let field = if !self.position[i].is_finite() {
                "position"
            } else if !self.velocity[i].is_finite() {
                "velocity"
            } else if !self.angular_velocity[i].is_finite() {
                "angular velocity"
            } else if !self.orientation[i].is_finite() {
                "orientation"
            } else {
                continue;
            };
            return Err(CoreError::NonFiniteState { body: self.handle[i], field, step, time });
        }
        Ok(())
    }

    /// Mass properties of body `i`.
    pub fn mass_properties(&self, i: usize) -> MassProperties {
        MassProperties { mass: self.mass[i], inertia: self.inertia[i] }
    }
}

/// Mass properties of a shape from a mass source.
fn mass_properties(shape: &Shape, source: MassSource, material_density: f64, planar: bool) -> Result<MassProperties> {
    let from_density = |rho: f64| -> Result<MassProperties> {
        Ok(match shape {
            Shape::Sphere { radius } if planar => MassProperties::disc(rho, *radius),
            Shape::Sphere { radius } => MassProperties::solid_sphere(rho, *radius),
            Shape::Plane { .. } | Shape::Cylinder(_) => MassProperties::INFINITE,
            Shape::Custom(c) => c.mass_properties(rho).unwrap_or(MassProperties::INFINITE),
        })
    };
    match source {
        MassSource::Material => from_density(material_density),
        MassSource::Density(rho) => from_density(rho),
        MassSource::Explicit(p) => Ok(match shape {
            // An explicit mass on a sphere keeps the sphere's (or disc's) moments.
            Shape::Sphere { radius } if !p.inertia.is_finite() => {
                if planar {
                    MassProperties::disc_of_mass(p.mass, *radius)
                } else {
                    MassProperties::sphere_of_mass(p.mass, *radius)
                }
            }
            Shape::Sphere { radius } if planar => MassProperties::disc_of_mass(p.mass, *radius),
            _ => p,
        }),
    }
}

/// Angular acceleration of a rigid body from a world-frame torque, with Euler's gyroscopic
/// term: α = R I⁻¹ (Rᵀ T − ω_b × I ω_b), ω_b = Rᵀ ω (003 eq. 1; 004 §2.3.2), where R is the
/// rotation of `orientation` and I = diag(`inertia`) the principal moments. A spherical top
/// (equal moments) has no gyroscopic term and needs no rotation: α = T/I. Locked rotation
/// components are zeroed; zero when `inv_inertia` is zero (non-dynamic bodies).
///
/// A free function of the columns so that integrators can run it over slices.
#[inline(always)]
pub fn euler_angular_acceleration(
    torque: DVec3,
    omega: DVec3,
    orientation: DQuat,
    inertia: DVec3,
    inv_inertia: DVec3,
    locked: Dofs,
) -> DVec3 {
    if inv_inertia == DVec3::ZERO {
        return DVec3::ZERO;
    }
    let alpha = if inertia.x == inertia.y && inertia.y == inertia.z {
        torque * inv_inertia.x
    } else {
        let q = orientation;
        let wb = q.inverse() * omega;
        let tb = q.inverse() * torque;
        q * ((tb - wb.cross(inertia * wb)) * inv_inertia)
    };
    locked.mask_angular(alpha)
}
