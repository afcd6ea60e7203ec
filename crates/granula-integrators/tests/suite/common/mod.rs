//! Half steps of an integrator whose contact loads the tests write into the body set's
//! `force` / `torque` columns: the columns are lent to the [`AccelerationField`] for the
//! call, as the MD solver does.

use granula_core::{AccelerationField, BodySet, DVec3, Integrator};

/// Half steps with the body set's load columns as the integrator's loads.
pub trait LentLoads {
    /// [`Integrator::predict`] with the loads in `b.force` / `b.torque` and `gravity`.
    fn predict_lent(&mut self, b: &mut BodySet, gravity: DVec3, t: f64, dt: f64);
    /// [`Integrator::correct`] with the loads in `b.force` / `b.torque` and `gravity`.
    fn correct_lent(&mut self, b: &mut BodySet, gravity: DVec3, t: f64, dt: f64);
}

/// Calls `half` with the load columns of `b` moved into a field and back.
fn lend(b: &mut BodySet, gravity: DVec3, half: impl FnOnce(&mut BodySet, &AccelerationField<'_>)) {
    let (force, torque) = (std::mem::take(&mut b.force), std::mem::take(&mut b.torque));
    half(b, &AccelerationField { gravity, force: &force, torque: &torque });
    (b.force, b.torque) = (force, torque);
}

impl<I: Integrator + ?Sized> LentLoads for I {
    fn predict_lent(&mut self, b: &mut BodySet, gravity: DVec3, t: f64, dt: f64) {
        lend(b, gravity, |b, field| self.predict(b, field, t, dt));
    }
    fn correct_lent(&mut self, b: &mut BodySet, gravity: DVec3, t: f64, dt: f64) {
        lend(b, gravity, |b, field| self.correct(b, field, t, dt));
    }
}
