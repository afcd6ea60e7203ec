//! The evolving state of an MD [`Simulation`] as bytes, for checkpoints: what the next
//! steps depend on and the scene file does not give. Restored into a simulation built
//! from the same scene, the run continues with the same bits as if never interrupted.
//!
//! Saved: the clock (time, steps, Δt), every body's position, angle, velocity, angular
//! velocity, motion (a prescribed velocity may have been changed), the last evaluation's
//! force and torque, the Gear derivatives r₂ … r₅ of x and θ (002 Appendix A), how many
//! bodies have been started, and every contact of the last evaluation with its history
//! (the tangential elongation ξ and the branch vectors and angles of the predictor rule).
//! Every f64 is written as its 8 little-endian bytes, so nothing is rounded.
//!
//! Not saved (from the scene): shapes, masses, inertias, external forces, the law, the
//! domain, the walls, the thread settings.

use crate::bodies::{Bodies, Motion};
use crate::error::{PlanarError, Result};
use crate::law::{ContactState, PairForce};
use crate::simulation::{Contact, Simulation};
use crate::Image;
use glam::DVec2;

/// First bytes of a saved state.
const MAGIC: &[u8; 8] = b"GRPLAN01";

/// Little-endian writer of a saved state.
pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    /// A state's first fields: the tag `magic`, the body count and the clock.
    pub(crate) fn header(magic: &[u8; 8], bodies: usize, time: f64, steps: u64, dt: f64) -> Writer {
        let mut w = Writer(magic.to_vec());
        w.u(bodies as u64);
        w.f(time);
        w.u(steps);
        w.f(dt);
        w
    }
    pub(crate) fn f(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn v(&mut self, v: DVec2) {
        self.f(v.x);
        self.f(v.y);
    }
    pub(crate) fn u(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
}

/// Reader of a saved state; every read names the field it was reading when the bytes end.
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> Reader<'a> {
    /// Reads what [`Writer::header`] wrote and returns the reader after it with the time,
    /// the step count and Δt. Refused: another tag (`not_this`: what the bytes are not), a
    /// body count other than `bodies`, a clock that is not finite or a Δt that is not > 0.
    pub(crate) fn header(
        bytes: &'a [u8],
        magic: &[u8; 8],
        not_this: &'static str,
        bodies: usize,
    ) -> Result<(Reader<'a>, f64, u64, f64)> {
        if bytes.get(..8) != Some(magic.as_slice()) {
            return Err(PlanarError::BadState { field: "header", problem: not_this });
        }
        let mut r = Reader { bytes, at: 8 };
        if r.u("bodies")? as usize != bodies {
            return Err(PlanarError::BadState { field: "bodies", problem: "the body count differs from the scene's" });
        }
        let (time, steps, dt) = (r.f("time")?, r.u("steps")?, r.f("dt")?);
        if !(dt.is_finite() && dt > 0.0 && time.is_finite()) {
            return Err(PlanarError::BadState { field: "dt", problem: "inconsistent clock" });
        }
        Ok((r, time, steps, dt))
    }

    /// `Err` when bytes are left after the state (another format, or two states glued).
    pub(crate) fn finish(&self) -> Result<()> {
        if self.at != self.bytes.len() {
            return Err(PlanarError::BadState { field: "end", problem: "bytes left over after the state" });
        }
        Ok(())
    }
    fn take(&mut self, field: &'static str) -> Result<[u8; 8]> {
        let end = self.at + 8;
        let chunk =
            self.bytes.get(self.at..end).ok_or(PlanarError::BadState { field, problem: "the data ends early" })?;
        self.at = end;
        let mut out = [0u8; 8];
        out.copy_from_slice(chunk);
        Ok(out)
    }
    pub(crate) fn f(&mut self, field: &'static str) -> Result<f64> {
        Ok(f64::from_le_bytes(self.take(field)?))
    }
    pub(crate) fn v(&mut self, field: &'static str) -> Result<DVec2> {
        Ok(DVec2::new(self.f(field)?, self.f(field)?))
    }
    pub(crate) fn u(&mut self, field: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(field)?))
    }
}

impl Simulation {
    /// The evolving state as bytes (see the module documentation).
    pub fn save_state(&self) -> Vec<u8> {
        let b = &self.bodies;
        let mut w = Writer::header(MAGIC, b.len(), self.time, self.steps, self.config.dt);
        w.u(self.started as u64);
        for i in 0..b.len() {
            write_kinematics(&mut w, b, i);
            for k in 0..4 {
                w.v(b.gear_linear[i][k]);
                w.f(b.gear_angular[i][k]);
            }
        }
        w.u(self.contacts.len() as u64);
        for c in &self.contacts {
            w.u(u64::from(c.i) | (u64::from(c.j) << 32));
            w.u(u64::from(c.wall));
            w.v(c.image.separation);
            w.v(c.image.velocity_shift);
            w.v(c.branch_i);
            w.v(c.normal);
            w.f(c.area);
            let f = &c.force;
            w.v(f.force_i);
            w.f(f.torque_i);
            w.f(f.torque_j);
            w.f(f.normal);
            w.f(f.tangential);
            let s = &c.state;
            w.f(s.xi);
            w.v(s.branch_i);
            w.v(s.branch_j);
            w.f(s.angle_i);
            w.f(s.angle_j);
            w.u(u64::from(s.evaluated) | (u64::from(s.sliding) << 1));
        }
        w.0
    }

    /// Restores a state saved by [`Simulation::save_state`] from a simulation with the same
    /// bodies (built from the same scene). `Err` naming the field when the bytes are not
    /// such a state or the body count differs; the simulation is unchanged then.
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        let n = self.bodies.len();
        let (mut r, time, steps, dt) = Reader::header(bytes, MAGIC, "not a saved planar state", n)?;
        // Read everything into a copy first, so that a bad state leaves `self` unchanged.
        let mut b = self.bodies.clone();
        let started = r.u("started")? as usize;
        if started > n {
            return Err(PlanarError::BadState { field: "started", problem: "inconsistent clock" });
        }
        for i in 0..n {
            read_kinematics(&mut r, &mut b, i)?;
            for k in 0..4 {
                b.gear_linear[i][k] = r.v("gear")?;
                b.gear_angular[i][k] = r.f("gear")?;
            }
        }
        let count = r.u("contacts")? as usize;
        let mut contacts = Vec::with_capacity(count.min(bytes.len() / 8));
        for _ in 0..count {
            let ij = r.u("contact")?;
            let wall = r.u("contact")? != 0;
            let image = Image { separation: r.v("contact")?, velocity_shift: r.v("contact")? };
            let branch_i = r.v("contact")?;
            let normal = r.v("contact")?;
            let area = r.f("contact")?;
            let force = PairForce {
                force_i: r.v("contact")?,
                torque_i: r.f("contact")?,
                torque_j: r.f("contact")?,
                normal: r.f("contact")?,
                tangential: r.f("contact")?,
            };
            let xi = r.f("contact")?;
            let (sb_i, sb_j) = (r.v("contact")?, r.v("contact")?);
            let (angle_i, angle_j) = (r.f("contact")?, r.f("contact")?);
            let flags = r.u("contact")?;
            let (i, j) = ((ij & 0xFFFF_FFFF) as u32, (ij >> 32) as u32);
            if j as usize >= n || (!wall && i as usize >= n) {
                return Err(PlanarError::BadState {
                    field: "contact",
                    problem: "a contact names a body beyond the scene's",
                });
            }
            contacts.push(Contact {
                i,
                j,
                wall,
                image,
                branch_i,
                normal,
                area,
                force,
                state: ContactState {
                    xi,
                    branch_i: sb_i,
                    branch_j: sb_j,
                    angle_i,
                    angle_j,
                    evaluated: flags & 1 != 0,
                    sliding: flags & 2 != 0,
                },
            });
        }
        r.finish()?;
        self.bodies = b;
        self.time = time;
        self.steps = steps;
        self.config.dt = dt;
        self.started = started;
        self.contacts = contacts;
        Ok(())
    }
}

/// Writes body `i`'s position, angle, velocity, angular velocity, last force and torque and
/// its motion (a prescribed velocity may have been changed since the scene was read).
pub(crate) fn write_kinematics(w: &mut Writer, b: &Bodies, i: usize) {
    w.v(b.position[i]);
    w.f(b.angle[i]);
    w.v(b.velocity[i]);
    w.f(b.angular_velocity[i]);
    w.v(b.force[i]);
    w.f(b.torque[i]);
    match b.motion[i] {
        Motion::Dynamic => {
            w.u(0);
            w.v(DVec2::ZERO);
        }
        Motion::Prescribed { velocity } => {
            w.u(1);
            w.v(velocity);
        }
    }
}

/// Reads what [`write_kinematics`] wrote into body `i` of `b`; a body whose kind of motion
/// differs from the scene's (dynamic against prescribed) is refused.
pub(crate) fn read_kinematics(r: &mut Reader<'_>, b: &mut Bodies, i: usize) -> Result<()> {
    b.position[i] = r.v("position")?;
    b.angle[i] = r.f("angle")?;
    b.velocity[i] = r.v("velocity")?;
    b.angular_velocity[i] = r.f("angular velocity")?;
    b.force[i] = r.v("force")?;
    b.torque[i] = r.f("torque")?;
    let kind = r.u("motion")?;
    let velocity = r.v("motion")?;
    b.motion[i] = match (kind, b.is_dynamic(i)) {
        (0, true) => Motion::Dynamic,
        (1, false) => Motion::Prescribed { velocity },
        _ => return Err(PlanarError::BadState { field: "motion", problem: "a body changed its kind of motion" }),
    };
    Ok(())
}
