//! The contact-dynamics examples run small, with physics asserts.

#[allow(dead_code)]
#[path = "../../examples/chain_sound.rs"]
mod chain_sound;

#[test]
fn chain_sound_small_chain_rings_at_the_continuum_frequency() {
    // A 20-sphere chain with N_I = 40: the continuum model (000 eqs. 58, 60) with L = 20 d.
    let runs = chain_sound::run(&[40], 20);
    let r = &runs[0].result;
    let (w, t) = r.theory;
    // Same tolerances as N5 (ω 2 %, τ 5 %); the short chain has λ = 80 d, k d = 0.079,
    // still in the long-wave regime of the continuum model.
    assert!((r.fit.omega / w - 1.0).abs() < 0.02, "ω Δt {} vs {w}", r.fit.omega);
    assert!((r.fit.tau / t - 1.0).abs() < 0.05, "τ/Δt {} vs {t}", r.fit.tau);
    let dir = std::env::temp_dir().join(format!("granula-chain-sound-{}", std::process::id()));
    chain_sound::write_outputs(&runs, &dir).unwrap();
    let csv = std::fs::read_to_string(dir.join("chain_sound.csv")).unwrap();
    assert!(csv.lines().count() > 100);
    assert!(std::fs::metadata(dir.join("chain_sound.png")).unwrap().len() > 1000);
    // The SVG carries the axis titles and the panel caption as text.
    let svg = std::fs::read_to_string(dir.join("chain_sound.svg")).unwrap();
    assert!(svg.contains("x / d") && svg.contains("N_I = 40"), "axis title and caption in the SVG");
    std::fs::remove_dir_all(&dir).ok();
}

#[allow(dead_code)]
#[path = "../../examples/piston_2d.rs"]
mod piston_2d;

#[test]
fn piston_2d_small_packing_rings_with_omega_sqrt_n_i_and_tau_inverse_n_i() {
    let p = piston_2d::Piston::new(200);
    let prepared = piston_2d::prepare(&p, 1);
    let piston = prepared.bodies.len() - 1;
    // Compressed and at rest: the piston has come down and stopped.
    assert!(prepared.bodies.velocity[piston].y.abs() < 1e-4, "{}", prepared.bodies.velocity[piston].y);
    let r20 = piston_2d::measure(&p, &prepared, 20);
    let r80 = piston_2d::measure(&p, &prepared, 80);
    // 000 §3.3.2: ω ∝ √N_I (ratio 2 for N_I 20 → 80) and τ ∝ 1/N_I (ratio 4). One small
    // random packing and a fit over a few periods: the ratios scatter by about ±20 %, so
    // the bounds check the scaling law, not a precise value.
    let rw = r80.omega / r20.omega;
    let rt = r20.tau / r80.tau;
    assert!((1.6..2.5).contains(&rw), "ω ratio {rw}: {} {}", r20.omega, r80.omega);
    assert!((2.5..6.0).contains(&rt), "τ ratio {rt}: {} {}", r20.tau, r80.tau);
}

#[allow(dead_code)]
#[path = "../../examples/sphere_heap.rs"]
mod sphere_heap;

#[test]
fn sphere_heap_small_rolling_friction_steepens_the_heap() {
    let flat = sphere_heap::heap_angle(&sphere_heap::pour(45, 0.0, 4000)).0;
    let (steep, speed) = sphere_heap::heap_angle(&sphere_heap::pour(45, 0.2 * sphere_heap::R, 4000));
    // Without rolling resistance nothing stops a sphere rolling down a flank: the bed is
    // flat, and the fitted slope of a flat bed is a fraction of a degree (the bins' top
    // heights differ by less than a radius): below 1° (measured 0°).
    assert!(flat < 1.0, "without rolling friction: {flat:.2}°");
    // With it the heap stands (001 §1.7). The steepest incline one sphere rests on by
    // rolling friction alone is atan(μ_r/r) = 11.3°; the splash of the tall, narrow pour
    // keeps a 45-sphere heap below that. Allowed: from half that angle to that angle
    // (measured 8.7°, 0.77 of it).
    let bound = sphere_heap::rolling_rest_angle(0.2 * sphere_heap::R, sphere_heap::R);
    assert!(steep > 0.5 * bound && steep <= bound, "with rolling friction {steep:.2}°, atan(μ_r/r) = {bound:.2}°");
    // With rolling resistance the heap comes to rest (rolling spheres stop within
    // v/((5/7) μ_r g/r) ≈ 0.1 s): the last speeds are mm/s.
    assert!(speed < 1e-2, "largest speed {speed}");
}
