//! The contact list for output: the contacts a solver published for its last step
//! ([`Solver::contacts`](granula_core::Solver::contacts)), read through the core's
//! [`Contact`] trait. Nothing here recomputes geometry: every column is what the step saw
//! at the configuration where it computed the force.

use crate::error::{IoError, Result};
use granula_core::{Contact, ContactStatus, DVec3, World};
use std::fmt::Write;
use std::path::Path;

pub use granula_core::ContactRecord;

/// The published contacts that carry a force, `out` cleared first: those whose dense
/// indices are bodies of `world` (all of them right after the step) and whose force is not
/// zero (open contacts within the detection or the law's range are left out, as the lists
/// always did).
pub fn loaded_contacts(world: &World, published: &[ContactRecord], out: &mut Vec<ContactRecord>) {
    out.clear();
    let n = world.bodies.len();
    out.extend(published.iter().filter(|c| (c.body1 as usize) < n && (c.body2 as usize) < n && c.force != DVec3::ZERO));
}

/// The name of a status in the contact list: `open`, `sticking`, `sliding` or `cohesive`.
pub fn status_name(s: ContactStatus) -> &'static str {
    match s {
        ContactStatus::Open => "open",
        ContactStatus::Sticking => "sticking",
        ContactStatus::Sliding => "sliding",
        ContactStatus::Cohesive => "cohesive",
    }
}

/// Writes a contact-force list as CSV: body handles, point, normal, gap, normal and
/// tangential force vectors, and the law's status ([`status_name`]).
pub fn write_contact_list<C: Contact>(path: &Path, world: &World, contacts: &[C]) -> Result<()> {
    let mut s = String::from("body1,body2,px,py,pz,nx,ny,nz,gap,fnx,fny,fnz,ftx,fty,ftz,status\n");
    for c in contacts {
        let (n, fnv, ftv) = (c.normal(), c.normal_force(), c.tangential_force());
        let (p, (i, j)) = (c.point(), c.bodies());
        let _ = writeln!(
            s,
            "{},{},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{}",
            world.bodies.handle[i as usize].0,
            world.bodies.handle[j as usize].0,
            p.x,
            p.y,
            p.z,
            n.x,
            n.y,
            n.z,
            c.gap(),
            fnv.x,
            fnv.y,
            fnv.z,
            ftv.x,
            ftv.y,
            ftv.z,
            status_name(c.status())
        );
    }
    std::fs::write(path, s).map_err(|e| IoError::file(path, e))
}
