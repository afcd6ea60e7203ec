//! The contact-dynamics examples run small, with physics asserts.

#[allow(dead_code)]
#[path = "../examples/chain_sound.rs"]
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
    std::fs::remove_dir_all(&dir).ok();
}
