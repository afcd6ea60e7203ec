//! The evolving state of a [`ContactDynamics`] run as bytes, for checkpoints: restored into
//! a solver built from the same scene, the run continues with the same bits as if it had
//! never been interrupted.
//!
//! Saved: the clock (time, steps, h), every body's position, angle, velocity, angular
//! velocity, last force and torque (the impulses over h, read by outputs) and motion, and
//! every contact of the last step with its impulse, which the next step reads as its warm
//! start by the key (pair or wall, i, j, point). The contacts are saved whole (geometry,
//! Delassus block, law shifts, status), so that [`ContactDynamics::contacts`] and the
//! outputs that read it are the same right after a restore as before the save. Every f64 is
//! written as its 8 little-endian bytes, so nothing is rounded.
//!
//! Not saved (from the scene): shapes, masses, inertias, external forces, the settings
//! other than h, the domain and the walls.

use super::local::{Delassus, LocalStatus};
use super::{ContactDynamics, ImpulseContact};
use crate::error::{PlanarError, Result};
use crate::state::{read_kinematics, write_kinematics, Reader, Writer};

/// First bytes of a saved contact dynamics state.
const MAGIC: &[u8; 8] = b"GRPLCD01";

fn status_code(s: LocalStatus) -> u64 {
    match s {
        LocalStatus::Open => 0,
        LocalStatus::Sticking => 1,
        LocalStatus::Sliding => 2,
    }
}

impl ContactDynamics {
    /// The evolving state as bytes (see the module documentation).
    pub fn save_state(&self) -> Vec<u8> {
        let b = &self.bodies;
        let mut w = Writer::header(MAGIC, b.len(), self.time, self.steps, self.config.dt);
        for i in 0..b.len() {
            write_kinematics(&mut w, b, i);
        }
        w.u(self.contacts.len() as u64);
        for c in &self.contacts {
            w.u(u64::from(c.i) | (u64::from(c.j) << 32));
            w.u(u64::from(c.wall) | (u64::from(c.point_index) << 1) | (status_code(c.status) << 9));
            for v in [c.separation, c.velocity_shift, c.branch_i, c.branch_j, c.normal, c.impulse] {
                w.v(v);
            }
            for f in [c.gap, c.w.tt, c.w.tn, c.w.nn, c.gap_velocity, c.newton] {
                w.f(f);
            }
        }
        w.0
    }

    /// Restores a state saved by [`ContactDynamics::save_state`] into a solver built from
    /// the same scene. `Err` naming the field when the bytes are not such a state, the body
    /// count differs, a body changed its kind of motion or a contact names a body or wall
    /// the scene does not have; the solver is unchanged then.
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        let n = self.bodies.len();
        let (mut r, time, steps, dt) = Reader::header(bytes, MAGIC, "not a saved contact dynamics state", n)?;
        // Everything is read into copies first, so that a bad state leaves `self` unchanged.
        let mut b = self.bodies.clone();
        for i in 0..n {
            read_kinematics(&mut r, &mut b, i)?;
        }
        let count = r.u("contacts")? as usize;
        let mut contacts = Vec::with_capacity(count.min(bytes.len() / 8));
        for _ in 0..count {
            let ij = r.u("contact")?;
            let flags = r.u("contact")?;
            let (i, j) = ((ij & 0xFFFF_FFFF) as u32, (ij >> 32) as u32);
            let wall = flags & 1 != 0;
            let status = match flags >> 9 {
                0 => LocalStatus::Open,
                1 => LocalStatus::Sticking,
                2 => LocalStatus::Sliding,
                _ => return Err(PlanarError::BadState { field: "contact", problem: "unknown contact status" }),
            };
            let beyond = if wall { i as usize >= self.walls.len() } else { i as usize >= n };
            if j as usize >= n || beyond {
                return Err(PlanarError::BadState {
                    field: "contact",
                    problem: "a contact names a body or wall beyond the scene's",
                });
            }
            let mut v = [glam::DVec2::ZERO; 6];
            for x in &mut v {
                *x = r.v("contact")?;
            }
            let mut f = [0.0; 6];
            for x in &mut f {
                *x = r.f("contact")?;
            }
            contacts.push(ImpulseContact {
                i,
                j,
                wall,
                point_index: ((flags >> 1) & 0xFF) as u8,
                separation: v[0],
                velocity_shift: v[1],
                branch_i: v[2],
                branch_j: v[3],
                normal: v[4],
                impulse: v[5],
                gap: f[0],
                status,
                w: Delassus { tt: f[1], tn: f[2], nn: f[3] },
                gap_velocity: f[4],
                newton: f[5],
            });
        }
        r.finish()?;
        self.bodies = b;
        self.time = time;
        self.steps = steps;
        self.config.dt = dt;
        self.contacts = contacts;
        self.previous.clear();
        Ok(())
    }
}
