//! A block of sphere contacts laid out as a structure of arrays, the input and output of a
//! law's batched form ([`ContactLaw::force_batch`](crate::ContactLaw::force_batch)).
//!
//! The solver fills the inputs of up to [`BATCH_LANES`] contacts (the same values a
//! [`ContactKinematics`](crate::ContactKinematics) would carry), the law writes the
//! outputs and updates the histories the lanes name. A law offers the batched form only if
//! its force reads nothing but what a batch holds (normal, overlap, relative velocity, R*,
//! m*, the pair material, Δt): no branch vectors, no relative angular velocity, no
//! rotation increments.

use crate::contact::ContactStatus;
use crate::math::DVec3;

/// The number of contacts in one batch: a multiple of every vector width (2, 4, 8 lanes of
/// f64), small enough for the batch to stay in the first-level cache (about 20 KiB).
pub const BATCH_LANES: usize = 64;

/// Up to [`BATCH_LANES`] contacts, one array per quantity. Lanes at and beyond
/// [`ContactBatch::len`] hold stale but finite values and are never read back.
#[derive(Clone, Debug)]
pub struct ContactBatch {
    /// Number of contacts in use.
    pub len: usize,
    /// Time step Δt (s), common to the batch.
    pub dt: f64,
    /// Unit normal from body 1 to body 2, x, y and z components.
    pub normal: [[f64; BATCH_LANES]; 3],
    /// Overlap δ > 0 (m).
    pub overlap: [f64; BATCH_LANES],
    /// Relative velocity at the contact point 𝒱 (000 eq. 3), as the solver gives it to
    /// [`ContactKinematics::relative_velocity`](crate::ContactKinematics::relative_velocity).
    pub velocity: [[f64; BATCH_LANES]; 3],
    /// Effective radius R* (m).
    pub effective_radius: [f64; BATCH_LANES],
    /// Effective mass m* (kg).
    pub effective_mass: [f64; BATCH_LANES],
    /// Position of the contact's material pair in the material table's pair list.
    pub material: [u32; BATCH_LANES],
    /// Index of the contact's history in the history slice passed with the batch.
    pub slot: [u32; BATCH_LANES],
    /// Output: force on body 2, x, y, z (body 1 receives the opposite).
    pub force: [[f64; BATCH_LANES]; 3],
    /// Output: elastic energy stored after the step (J).
    pub stored: [f64; BATCH_LANES],
    /// Output: energy dissipated by the normal damping during the step (J).
    pub dissipated_normal: [f64; BATCH_LANES],
    /// Output: energy dissipated by the tangential model during the step (J).
    pub dissipated_sliding: [f64; BATCH_LANES],
    /// Output: the law's decision for each contact.
    pub status: [ContactStatus; BATCH_LANES],
}

impl Default for ContactBatch {
    fn default() -> Self {
        ContactBatch {
            len: 0,
            dt: 0.0,
            normal: [[0.0; BATCH_LANES]; 3],
            overlap: [0.0; BATCH_LANES],
            velocity: [[0.0; BATCH_LANES]; 3],
            effective_radius: [0.0; BATCH_LANES],
            effective_mass: [0.0; BATCH_LANES],
            material: [0; BATCH_LANES],
            slot: [0; BATCH_LANES],
            force: [[0.0; BATCH_LANES]; 3],
            stored: [0.0; BATCH_LANES],
            dissipated_normal: [0.0; BATCH_LANES],
            dissipated_sliding: [0.0; BATCH_LANES],
            status: [ContactStatus::Open; BATCH_LANES],
        }
    }
}

impl ContactBatch {
    /// Whether all lanes are in use.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.len == BATCH_LANES
    }

    /// Appends a contact; returns its lane. The caller keeps `len` below
    /// [`BATCH_LANES`] ([`ContactBatch::is_full`]).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        normal: DVec3,
        overlap: f64,
        velocity: DVec3,
        effective_radius: f64,
        effective_mass: f64,
        material: u32,
        slot: u32,
    ) -> usize {
        let l = self.len;
        debug_assert!(l < BATCH_LANES);
        self.normal[0][l] = normal.x;
        self.normal[1][l] = normal.y;
        self.normal[2][l] = normal.z;
        self.overlap[l] = overlap;
        self.velocity[0][l] = velocity.x;
        self.velocity[1][l] = velocity.y;
        self.velocity[2][l] = velocity.z;
        self.effective_radius[l] = effective_radius;
        self.effective_mass[l] = effective_mass;
        self.material[l] = material;
        self.slot[l] = slot;
        self.len = l + 1;
        l
    }

    /// The normal of lane `l`.
    #[inline(always)]
    pub fn normal_of(&self, l: usize) -> DVec3 {
        DVec3::new(self.normal[0][l], self.normal[1][l], self.normal[2][l])
    }

    /// The relative velocity of lane `l`.
    #[inline(always)]
    pub fn velocity_of(&self, l: usize) -> DVec3 {
        DVec3::new(self.velocity[0][l], self.velocity[1][l], self.velocity[2][l])
    }

    /// The output force of lane `l`.
    #[inline(always)]
    pub fn force_of(&self, l: usize) -> DVec3 {
        DVec3::new(self.force[0][l], self.force[1][l], self.force[2][l])
    }
}
