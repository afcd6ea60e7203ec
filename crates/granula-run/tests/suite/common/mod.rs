//! What granula-run's test files share.

use std::path::PathBuf;

/// The path `granula-<prefix>-<name>-<pid>` in the system's temporary folder, with anything
/// an earlier run left there removed (the folder itself is not created: runs create their
/// output folders and refuse non-empty ones).
pub fn tmp(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("granula-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Asserts that two checkpoints hold the bodies' positions, velocities and angular
/// velocities to the bit (a resumed run against an uninterrupted one).
pub fn assert_same_motion(a: &granula_run::Checkpoint, b: &granula_run::Checkpoint) {
    let bits = |v: &[glam::DVec3]| v.iter().flat_map(|x| x.to_array().map(f64::to_bits)).collect::<Vec<_>>();
    assert_eq!(bits(&a.world.position), bits(&b.world.position), "positions");
    assert_eq!(bits(&a.world.velocity), bits(&b.world.velocity), "velocities");
    assert_eq!(bits(&a.world.angular_velocity), bits(&b.world.angular_velocity), "angular velocities");
}
