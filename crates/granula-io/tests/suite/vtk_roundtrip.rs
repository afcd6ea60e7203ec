//! VTK files parse back (with an independent reader, vtkio) to the values written, bit for
//! bit; the `.pvd` collection lists every frame.

use glam::DVec3;
use granula_core::{
    Contact, ContactKey, ContactRecord, ContactStatus, CylinderBuilder, PlaneBuilder, SphereBuilder, World,
};
use granula_io::output::{write_contacts, write_particles, write_walls, PvdCollection, WallDisplay};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use vtkio::model::{Attribute, DataSet, Piece, PolyDataPiece, VertexNumbers};
use vtkio::Vtk;

fn tmp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("granula-io-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn piece(path: &std::path::Path) -> PolyDataPiece {
    let vtk = Vtk::import(path).expect("vtkio parses the file");
    match vtk.data {
        DataSet::PolyData { pieces, .. } => match pieces.into_iter().next().expect("one piece") {
            Piece::Inline(p) => *p,
            _ => panic!("inline piece expected"),
        },
        _ => panic!("PolyData expected"),
    }
}

fn array(attrs: &[Attribute], name: &str) -> Vec<f64> {
    for a in attrs {
        if let Attribute::DataArray(d) = a {
            if d.name == name {
                return d.data.cast_into::<f64>().expect("numeric array");
            }
        }
    }
    panic!("no array {name}")
}

fn random_world(seed: u64) -> World {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut w = World::builder().build().unwrap();
    for k in 0..20 {
        let x = DVec3::new(k as f64 * 0.1, rng.random(), rng.random::<f64>() * 1e-7);
        let s = SphereBuilder::new(0.01 + 0.03 * rng.random::<f64>(), x)
            .velocity(DVec3::new(rng.random(), -rng.random::<f64>(), 1e-300))
            .angular_velocity(DVec3::new(rng.random(), 3.0, -rng.random::<f64>() * 1e12))
            .build()
            .unwrap();
        w.insert(s).unwrap();
    }
    for i in 0..w.bodies.len() {
        w.bodies.force[i] = DVec3::new(i as f64 / 3.0, -1.0 / 7.0, 1e-17);
    }
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 5.0).length(2.0).build().unwrap()).unwrap();
    w
}

#[test]
fn particles_parse_back_bit_exactly() {
    let w = random_world(1);
    let d = tmp_dir("particles");
    let f = d.join("p.vtp");
    write_particles(&f, &w).unwrap();
    let p = piece(&f);
    let n = 20;
    let pts = p.points.cast_into::<f64>().unwrap();
    assert_eq!(pts.len(), 3 * n);
    let attrs = &p.data.point;
    let (id, radius, vel, ang, force) = (
        array(attrs, "id"),
        array(attrs, "radius"),
        array(attrs, "velocity"),
        array(attrs, "angular_velocity"),
        array(attrs, "force"),
    );
    for i in 0..n {
        assert_eq!(id[i], w.bodies.handle[i].0 as f64);
        assert_eq!(radius[i].to_bits(), w.bodies.radius[i].to_bits());
        for k in 0..3 {
            assert_eq!(pts[3 * i + k].to_bits(), w.bodies.position[i][k].to_bits());
            assert_eq!(vel[3 * i + k].to_bits(), w.bodies.velocity[i][k].to_bits());
            assert_eq!(ang[3 * i + k].to_bits(), w.bodies.angular_velocity[i][k].to_bits());
            assert_eq!(force[3 * i + k].to_bits(), w.bodies.force[i][k].to_bits());
        }
    }
    match p.verts {
        Some(VertexNumbers::XML { connectivity, offsets }) => {
            assert_eq!(connectivity, (0..n as u64).collect::<Vec<_>>());
            assert_eq!(offsets, (1..=n as u64).collect::<Vec<_>>());
        }
        other => panic!("verts: {other:?}"),
    }
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn contacts_and_walls_parse_back() {
    let w = random_world(2);
    // Contacts 0-1 (two spheres) and 20-3 (the plane and a sphere).
    let forces = [(0u32, 1u32, DVec3::new(1.5, -0.25, 1e-3)), (20, 3, DVec3::new(0.0, 0.0, 2.0))];
    let recs: Vec<ContactRecord> = forces.into_iter().map(|(i, j, f)| record(&w, i, j, f)).collect();
    assert_eq!(recs.len(), 2);
    let d = tmp_dir("contacts");
    let f = d.join("c.vtp");
    write_contacts(&f, &w, &recs).unwrap();
    let p = piece(&f);
    let fnorm = array(&p.data.cell, "normal_force");
    let ftan = array(&p.data.cell, "tangential_force");
    for (k, r) in recs.iter().enumerate() {
        let (a, b) = (r.normal_force(), r.tangential_force());
        for c in 0..3 {
            assert_eq!(fnorm[3 * k + c].to_bits(), a[c].to_bits());
            assert_eq!(ftan[3 * k + c].to_bits(), b[c].to_bits());
            // The parts add up to the force, to rounding of the projection.
            assert!((fnorm[3 * k + c] + ftan[3 * k + c] - r.force[c]).abs() < 1e-14 * (1.0 + r.force.length()));
        }
    }
    match p.lines {
        Some(VertexNumbers::XML { connectivity, offsets }) => {
            assert_eq!(connectivity, vec![0, 1, 2, 3]);
            assert_eq!(offsets, vec![2, 4]);
        }
        other => panic!("lines: {other:?}"),
    }
    let pts = p.points.cast_into::<f64>().unwrap();
    // The wall end of the second line is the contact point, the sphere end its centre.
    assert_eq!(pts[6..9], recs[1].point.to_array());
    assert_eq!(pts[9..12], w.bodies.position[3].to_array());

    let f = d.join("w.vtp");
    write_walls(&f, &w, &WallDisplay { half_size: 2.0, segments: 12 }).unwrap();
    let p = piece(&f);
    let ids = array(&p.data.cell, "id");
    // One square for the plane, 12 quads for the cylinder.
    assert_eq!(ids.len(), 13);
    assert_eq!(ids[0], 20.0);
    assert!(ids[1..].iter().all(|&i| i == 21.0));
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn pvd_lists_every_frame() {
    let w = random_world(3);
    let d = tmp_dir("pvd");
    let mut pvd = PvdCollection::new(d.join("particles.pvd"));
    let times = [0.0, 1e-5, 0.1 + 0.2, 7.0];
    for (k, t) in times.iter().enumerate() {
        let name = format!("particles_{k:06}.vtp");
        write_particles(&d.join(&name), &w).unwrap();
        pvd.push(*t, &name).unwrap();
    }
    let text = std::fs::read_to_string(d.join("particles.pvd")).unwrap();
    let entries: Vec<&str> = text.lines().filter(|l| l.contains("<DataSet")).collect();
    assert_eq!(entries.len(), times.len());
    for (k, (line, t)) in entries.iter().zip(times).enumerate() {
        let ts: f64 = line.split("timestep=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert_eq!(ts.to_bits(), t.to_bits());
        let file = line.split("file=\"").nth(1).unwrap().split('"').next().unwrap();
        assert_eq!(file, format!("particles_{k:06}.vtp"));
        // Every listed frame exists and parses.
        piece(&d.join(file));
    }
    std::fs::remove_dir_all(d).unwrap();
}

/// A contact record of bodies `i`, `j` of `w` with force `f` on `j`, its geometry from the
/// core narrowphase at the world's configuration (as a solver would publish it).
fn record(w: &World, i: u32, j: u32, f: DVec3) -> ContactRecord {
    let g = granula_core::narrowphase::collide(&w.bodies, i as usize, j as usize, f64::INFINITY).unwrap().unwrap();
    let b = &w.bodies;
    ContactRecord {
        key: ContactKey { body1: b.handle[i as usize], body2: b.handle[j as usize], feature: g.feature },
        body1: i,
        body2: j,
        point: g.point,
        normal: g.normal,
        tangent: g.tangents().0,
        gap: g.gap,
        branch1: g.branch1,
        branch2: g.branch2,
        relative_velocity: DVec3::ZERO,
        force: f,
        couple: DVec3::ZERO,
        status: ContactStatus::Sticking,
    }
}
