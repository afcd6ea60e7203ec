//! A scene spec written as TOML text that reads back to the same spec
//! ([`SceneSpec::to_toml`]): the text of a scene a program built in memory
//! (`Scene::from_spec_with`), which its checkpoints keep and its messages count lines in.

use super::spec::{MotionSpec, OutputSpec, SceneSpec, SphereSpec};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

impl SceneSpec {
    /// This scene as TOML text, which the scene readers read back to this spec, every f64
    /// bit for bit. The tables come in the schema's order with the spheres last; each
    /// `[[spheres]]` table holds the keys that differ from their defaults and is written
    /// directly (a few tenths of a second for 10⁶ spheres), the other tables as the `toml`
    /// crate writes them. Errors: those of the `toml` crate's writer (none for a spec made
    /// of this schema's types).
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        // Destructured whole, so that a key added to the schema must be added here.
        let SceneSpec {
            simulation,
            solver,
            materials,
            pairs,
            spheres,
            planes,
            cylinders,
            lattices,
            packings,
            polyhedra,
            polygons,
            meshes,
            loads,
            feeds,
            outlets,
            output,
        } = self;
        let mut text = String::new();
        section(&mut text, "simulation", simulation, false)?;
        section(&mut text, "solver", solver, false)?;
        section(&mut text, "materials", materials, materials.is_empty())?;
        section(&mut text, "pairs", pairs, pairs.is_empty())?;
        section(&mut text, "planes", planes, planes.is_empty())?;
        section(&mut text, "cylinders", cylinders, cylinders.is_empty())?;
        section(&mut text, "lattices", lattices, lattices.is_empty())?;
        section(&mut text, "packings", packings, packings.is_empty())?;
        section(&mut text, "polyhedra", polyhedra, polyhedra.is_empty())?;
        section(&mut text, "polygons", polygons, polygons.is_empty())?;
        section(&mut text, "meshes", meshes, meshes.is_empty())?;
        section(&mut text, "loads", loads, loads.is_empty())?;
        section(&mut text, "feeds", feeds, feeds.is_empty())?;
        section(&mut text, "outlets", outlets, outlets.is_empty())?;
        section(&mut text, "output", output, *output == OutputSpec::default())?;
        text.reserve(spheres.len() * 80);
        for s in spheres {
            sphere(&mut text, s)?;
        }
        Ok(text)
    }
}

/// Appends `key = value` as the `toml` crate writes it (a table or an array of tables, the
/// keys in the schema's order); nothing when `default` (the key left out).
fn section<T: Serialize>(text: &mut String, key: &str, value: &T, default: bool) -> Result<(), toml::ser::Error> {
    if default {
        return Ok(());
    }
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(&toml::to_string(&BTreeMap::from([(key, value)]))?);
    Ok(())
}

/// `x` as a TOML float that reads back to the same bits: Rust's shortest round-trip form
/// (`0.001`, `1e-7`, `-0.0`), or `nan`, `inf`, `-inf`.
fn float(text: &mut String, x: f64) {
    if x.is_nan() {
        text.push_str("nan");
    } else if x.is_infinite() {
        text.push_str(if x > 0.0 { "inf" } else { "-inf" });
    } else {
        let _ = write!(text, "{x:?}");
    }
}

fn number(text: &mut String, key: &str, x: f64) {
    text.push_str(key);
    text.push_str(" = ");
    float(text, x);
    text.push('\n');
}

fn vector(text: &mut String, key: &str, v: &[f64; 3]) {
    text.push_str(key);
    text.push_str(" = [");
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        float(text, *x);
    }
    text.push_str("]\n");
}

/// A vector key whose default is zero: written unless every component is +0.0 (a -0.0 is
/// written, so that it reads back with its sign).
fn nonzero_vector(text: &mut String, key: &str, v: &[f64; 3]) {
    if v.iter().any(|x| x.to_bits() != 0) {
        vector(text, key, v);
    }
}

fn value<T: Serialize>(text: &mut String, key: &str, v: &T) -> Result<(), toml::ser::Error> {
    let _ = writeln!(text, "{key} = {}", toml::Value::try_from(v)?);
    Ok(())
}

/// One `[[spheres]]` table with the keys that differ from their defaults.
fn sphere(text: &mut String, s: &SphereSpec) -> Result<(), toml::ser::Error> {
    let SphereSpec {
        name,
        radius,
        position,
        velocity,
        angular_velocity,
        material,
        motion,
        force,
        torque,
        mass,
        lock_rotation,
        lock_axes,
    } = s;
    text.push_str("\n[[spheres]]\n");
    if let Some(n) = name {
        value(text, "name", n)?;
    }
    number(text, "radius", *radius);
    vector(text, "position", position);
    nonzero_vector(text, "velocity", velocity);
    nonzero_vector(text, "angular_velocity", angular_velocity);
    if let Some(m) = material {
        value(text, "material", m)?;
    }
    if *motion != MotionSpec::Dynamic {
        value(text, "motion", motion)?;
    }
    nonzero_vector(text, "force", force);
    nonzero_vector(text, "torque", torque);
    if let Some(m) = mass {
        number(text, "mass", *m);
    }
    if *lock_rotation {
        text.push_str("lock_rotation = true\n");
    }
    if !lock_axes.is_empty() {
        value(text, "lock_axes", lock_axes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Scene;
    use super::*;

    const SCENE: &str = r#"
[simulation]
dt = 1e-5
end_time = 0.01
gravity = [0.0, -0.0, -9.81]

[solver]
kind = "md"
damping = "tsuji"
skin = 2e-4

[[materials]]
name = "glass"
young_modulus = 1e8
[[materials]]
name = "steel"
density = 7800.0

[[pairs]]
materials = ["glass", "steel"]
friction = 0.2

[[spheres]]
name = "a \"quoted\" name, ü\n"
radius = 0.001
position = [0.0, 0.0, 0.01]
velocity = [-0.0, 0.0, 0.0]
angular_velocity = [1e-300, 1.5e300, 0.1]
material = "steel"
motion = "kinematic"
force = [0.0, 0.0, 1.0]
torque = [0.0, 2.0, 0.0]
mass = 0.003
lock_rotation = true
lock_axes = ["x", "y"]

[[spheres]]
radius = 0.00099999999999999
position = [0.1, 0.2, 0.30000000000000004]

[[planes]]
name = "floor"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
vibration = { amplitude = [0.0, 0.0, 0.001], frequency = 50.0 }
motion = "kinematic"

[[packings]]
count = 3
region = { shape = "box", min = [0.0, 0.0, 0.02], max = [0.01, 0.01, 0.03] }
size = { distribution = "uniform", min = 0.0009, max = 0.001 }

[[polyhedra]]
shape = { kind = "mesh", vertices = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]] }
position = [0.5, 0.5, 0.5]

[output]
series = { every = 10 }
"#;

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The f64 of a sphere, as bits (`==` on f64 does not see the sign of a zero).
    fn sphere_bits(s: &SphereSpec) -> Vec<u64> {
        let mut all = vec![s.radius];
        for v in [s.position, s.velocity, s.angular_velocity, s.force, s.torque] {
            all.extend(v);
        }
        all.extend(s.mass);
        bits(&all)
    }

    #[test]
    fn the_text_reads_back_to_the_same_spec() {
        let spec: SceneSpec = toml::from_str(SCENE).unwrap();
        let text = spec.to_toml().unwrap();
        let again: SceneSpec = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(again, spec, "{text}");
        for (a, b) in spec.spheres.iter().zip(&again.spheres) {
            assert_eq!(sphere_bits(a), sphere_bits(b));
        }
        assert_eq!(bits(&again.simulation.gravity), bits(&spec.simulation.gravity));
        // The spheres come last, with the keys that differ from their defaults.
        let second = text.rsplit("[[spheres]]").next().unwrap();
        assert_eq!(second.trim(), "radius = 0.00099999999999999\nposition = [0.1, 0.2, 0.30000000000000004]");
        assert!(text.contains("velocity = [-0.0, 0.0, 0.0]"), "{text}");
        // The other tables as the schema orders them, the first key first.
        assert!(text.starts_with("[simulation]\ndt = 0.00001\n"), "{text}");
    }

    #[test]
    fn every_finite_float_reads_back_bit_for_bit() {
        // A xorshift over the bit patterns: subnormals, huge and tiny values, both zeros.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut spec: SceneSpec = toml::from_str(SCENE).unwrap();
        let template = spec.spheres[1].clone();
        spec.spheres.clear();
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state);
            if x.is_finite() {
                x
            } else {
                -0.0
            }
        };
        for _ in 0..2000 {
            let mut s = template.clone();
            s.radius = next();
            s.position = [next(), next(), f64::MIN_POSITIVE / 3.0];
            s.velocity = [next(), -0.0, 0.0];
            spec.spheres.push(s);
        }
        let text = spec.to_toml().unwrap();
        let again: SceneSpec = toml::from_str(&text).unwrap();
        assert_eq!(spec.spheres.len(), again.spheres.len());
        for (a, b) in spec.spheres.iter().zip(&again.spheres) {
            assert_eq!(sphere_bits(a), sphere_bits(b));
        }
    }

    #[test]
    fn a_spec_validates_as_its_text() {
        let mut spec: SceneSpec = toml::from_str(SCENE).unwrap();
        // No polyhedra: this reader has no maker of their shapes.
        spec.polyhedra.clear();
        let built = Scene::from_spec_with("<built>", spec.clone(), None).unwrap();
        let read = Scene::parse("<built>", &built.text).unwrap();
        assert_eq!(built.spec, read.spec);
        assert_eq!((built.steps, built.dt().to_bits()), (read.steps, read.dt().to_bits()));
        assert_eq!(built.bodies.len(), read.bodies.len());
        for (a, b) in built.bodies.iter().zip(&read.bodies) {
            assert_eq!(
                (a.body.state.position, a.body.mass, &a.name, &a.origin),
                (b.body.state.position, b.body.mass, &b.name, &b.origin)
            );
        }
        // The errors of the file reader, naming the key path and a line of the text.
        spec.spheres[1].radius = -1.0;
        let e = Scene::from_spec_with("<built>", spec.clone(), None).unwrap_err();
        let message = e.to_string();
        let crate::IoError::Invalid { at, .. } = e else { panic!("{message}") };
        assert_eq!(at.key, "spheres[1].radius", "{message}");
        let text = spec.to_toml().unwrap();
        let line = text.lines().nth(at.line.unwrap() - 1).unwrap();
        assert_eq!(line, "radius = -1.0", "{message}");
        spec.spheres[1].radius = 0.001;
        spec.spheres[1].position[1] = f64::NAN;
        let message = Scene::from_spec_with("<built>", spec, None).unwrap_err().to_string();
        assert!(message.contains("key `spheres[1].position`") && message.contains("finite"), "{message}");
    }
}
