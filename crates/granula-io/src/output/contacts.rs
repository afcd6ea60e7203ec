//! Contact records for output: geometry from the core narrowphase at the current
//! configuration, forces from the solver.

use crate::error::{IoError, Result};
use glam::DVec3;
use granula_core::narrowphase::collide;
use granula_core::World;
use std::fmt::Write;
use std::path::Path;

/// One contact with its force, for output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactRecord {
    /// Dense index of body 1.
    pub body1: u32,
    /// Dense index of body 2.
    pub body2: u32,
    /// Contact point (m).
    pub point: DVec3,
    /// Unit normal from body 1 to body 2.
    pub normal: DVec3,
    /// Gap (m), negative for overlap.
    pub gap: f64,
    /// Branch vector from body 1's centre to the contact point (m).
    pub branch1: DVec3,
    /// Branch vector from body 2's centre to the contact point (m).
    pub branch2: DVec3,
    /// Force on body 2 (N); body 1 receives the opposite.
    pub force: DVec3,
}

impl ContactRecord {
    /// Normal part of the force, (f·n) n.
    pub fn normal_force(&self) -> DVec3 {
        self.force.dot(self.normal) * self.normal
    }

    /// Tangential part of the force, f − (f·n) n.
    pub fn tangential_force(&self) -> DVec3 {
        self.force - self.normal_force()
    }
}

/// Builds the records of the contacts `(i, j, force on j)` given by a solver, computing
/// each contact's geometry with the core narrowphase at the current configuration. Pairs
/// whose geometry is undefined are skipped. `out` is cleared first.
pub fn contact_records(world: &World, forces: impl Iterator<Item = (u32, u32, DVec3)>, out: &mut Vec<ContactRecord>) {
    out.clear();
    for (i, j, f) in forces {
        let (iu, ju) = (i as usize, j as usize);
        if iu >= world.bodies.len() || ju >= world.bodies.len() {
            continue;
        }
        if let Ok(Some(g)) = collide(&world.bodies, iu, ju, f64::INFINITY) {
            out.push(ContactRecord {
                body1: i,
                body2: j,
                point: g.point,
                normal: g.normal,
                gap: g.gap,
                branch1: g.branch1,
                branch2: g.branch2,
                force: f,
            });
        }
    }
}

/// Writes a contact-force list as CSV: body handles, point, normal, gap, normal and
/// tangential force vectors.
pub fn write_contact_list(path: &Path, world: &World, contacts: &[ContactRecord]) -> Result<()> {
    let mut s = String::from("body1,body2,px,py,pz,nx,ny,nz,gap,fnx,fny,fnz,ftx,fty,ftz\n");
    for c in contacts {
        let (fnv, ftv) = (c.normal_force(), c.tangential_force());
        let _ = writeln!(
            s,
            "{},{},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?}",
            world.bodies.handle[c.body1 as usize].0,
            world.bodies.handle[c.body2 as usize].0,
            c.point.x,
            c.point.y,
            c.point.z,
            c.normal.x,
            c.normal.y,
            c.normal.z,
            c.gap,
            fnv.x,
            fnv.y,
            fnv.z,
            ftv.x,
            ftv.y,
            ftv.z
        );
    }
    std::fs::write(path, s).map_err(|e| IoError::file(path, e))
}
