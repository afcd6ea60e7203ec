//! The loads of the contacts on each wall, one row per wall and output step
//! (`wall_loads.csv`): what a user reads as a drum's torque, a piston's force or the load a
//! hopper's walls carry.

use granula_core::{BodyHandle, DVec3, Shape, World};
use std::io::Write;

/// Column names of the wall-load file.
pub const WALL_LOADS_HEADER: &str = "time,step,wall,fx,fy,fz,tx,ty,tz,px,py,pz,power";

/// The loads on one wall at one step.
#[derive(Clone, Debug, PartialEq)]
pub struct WallLoad {
    /// The wall's label: its name, or where the scene defines it (`planes[0]`).
    pub wall: String,
    /// Sum of the contact forces the bodies exert on the wall (N).
    pub force: DVec3,
    /// Sum of their moments about the wall's reference point `point` (N m), plus the laws'
    /// pure couples. About another point c the torque is `torque + (point − c) × force`.
    pub torque: DVec3,
    /// The wall's reference point at the step (m): a plane's point, a cylinder's centre, a
    /// mesh's placed origin.
    pub point: DVec3,
    /// Power the wall delivers to the bodies through the contacts, −(F·v + T·ω) with v and ω
    /// the wall's velocity and angular velocity (W): positive for a drum that lifts its
    /// charge or a piston that compresses.
    pub power: f64,
}

impl WallLoad {
    /// The CSV line (no newline) at `time` and `step`, floats in shortest round-trip form.
    /// A label holding a comma or a quote is quoted (RFC 4180).
    pub fn to_csv(&self, time: f64, step: u64) -> String {
        let (f, t, p) = (self.force, self.torque, self.point);
        let label = if self.wall.contains([',', '"', '\n']) {
            format!("\"{}\"", self.wall.replace('"', "\"\""))
        } else {
            self.wall.clone()
        };
        format!(
            "{time:?},{step},{label},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?}",
            f.x, f.y, f.z, t.x, t.y, t.z, p.x, p.y, p.z, self.power
        )
    }
}

/// `true` for the shapes the wall-load file reports: planes, cylinders and custom walls
/// (mesh walls).
pub fn is_wall(shape: &Shape) -> bool {
    match shape {
        Shape::Plane { .. } | Shape::Cylinder(_) => true,
        Shape::Custom(c) => c.is_wall(),
        Shape::Sphere { .. } => false,
    }
}

/// The loads of the last step on the walls `walls` (label and handle), read from the
/// world's load columns (the solver leaves the contact loads of the step there); a wall
/// no longer in the world is skipped.
pub fn wall_loads(world: &World, walls: &[(String, BodyHandle)]) -> Vec<WallLoad> {
    let b = &world.bodies;
    walls
        .iter()
        .filter_map(|(label, h)| {
            let i = b.index(*h).ok()?;
            let (force, torque) = (b.force[i], b.torque[i]);
            let power = -(force.dot(b.velocity[i]) + torque.dot(b.angular_velocity[i]));
            Some(WallLoad { wall: label.clone(), force, torque, point: b.position[i], power })
        })
        .collect()
}

/// Writes the rows of [`wall_loads`] at the world's time and step.
pub fn write_wall_loads(w: &mut impl Write, world: &World, walls: &[(String, BodyHandle)]) -> std::io::Result<()> {
    for load in wall_loads(world, walls) {
        writeln!(w, "{}", load.to_csv(world.time(), world.step_count()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use granula_core::{PlaneBuilder, SphereBuilder};

    #[test]
    fn a_label_with_a_comma_is_quoted_and_the_power_has_the_drive_sign() {
        let load = WallLoad {
            wall: "drum, \"big\"".into(),
            force: DVec3::X,
            torque: DVec3::ZERO,
            point: DVec3::ZERO,
            power: 2.0,
        };
        assert_eq!(load.to_csv(0.5, 3), "0.5,3,\"drum, \"\"big\"\"\",1.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,2.0");
        let mut world = World::builder().build().unwrap();
        let floor = world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
        world.insert(SphereBuilder::new(0.1, DVec3::new(0.0, 0.0, 0.1)).build().unwrap()).unwrap();
        assert!(is_wall(&world.bodies.shape[0]) && !is_wall(&world.bodies.shape[1]));
        // A floor pushed down (−z) by the bodies on it while it rises (+z) compresses them:
        // it delivers the power −(F·v) = 1.5 W.
        let i = world.bodies.index(floor).unwrap();
        world.bodies.force[i] = DVec3::new(0.0, 0.0, -3.0);
        world.bodies.velocity[i] = DVec3::new(0.0, 0.0, 0.5);
        let rows = wall_loads(&world, &[("floor".into(), floor), ("gone".into(), BodyHandle(7))]);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].power, 1.5);
    }
}
