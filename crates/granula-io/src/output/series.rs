//! The CSV time series: one row of global quantities per output step.

use super::contacts::ContactRecord;
use granula_core::{MotionKind, StepReport, World};

/// Column names of the series file.
pub const SERIES_HEADER: &str = "time,step,kinetic_translational,kinetic_rotational,potential,elastic_stored,\
dissipated,external_work,contacts,coordination,max_overlap,iterations,residual,support_imbalance";

/// One row of the series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesRow {
    /// Simulated time (s).
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    /// Σ ½ m v² of dynamic bodies (J).
    pub kinetic_translational: f64,
    /// Σ ½ ω·Iω of dynamic bodies (J).
    pub kinetic_rotational: f64,
    /// Gravitational potential energy, zero at the origin (J).
    pub potential: f64,
    /// Elastic energy stored in contacts (J).
    pub elastic_stored: f64,
    /// Energy dissipated since the start (J).
    pub dissipated: f64,
    /// Work of external forces and kinematic bodies since the start (J).
    pub external_work: f64,
    /// Contacts reported by the solver in the last step.
    pub contacts: usize,
    /// Mean coordination number of dynamic spheres, counting force-carrying contacts:
    /// Z = (2 c_pp + c_pw) / N, c_pp the particle-particle and c_pw the particle-wall contacts.
    pub coordination: f64,
    /// Largest overlap in the last step (m).
    pub max_overlap: f64,
    /// Solver iterations in the last step (0 for MD).
    pub iterations: u32,
    /// Final residual of the solver's criterion in the last step.
    pub residual: f64,
    /// The last step's global force balance, |supports − load| / |load|
    /// ([`StepReport::support_imbalance`]): zero for a packing at rest on its supports;
    /// `None` (an empty field) when the step had no load or its solver does not report
    /// the balance (MD).
    pub support_imbalance: Option<f64>,
}

impl SeriesRow {
    /// Gathers a row from the world, the last step's report and its contact records.
    pub fn gather(world: &World, report: &StepReport, contacts: &[ContactRecord]) -> Self {
        let b = &world.bodies;
        let is_particle = |i: usize| b.motion[i] == MotionKind::Dynamic && b.shape[i].sphere_radius().is_some();
        let n = (0..b.len()).filter(|&i| is_particle(i)).count();
        let ends: usize = contacts
            .iter()
            .filter(|c| c.force != glam::DVec3::ZERO)
            .map(|c| is_particle(c.body1 as usize) as usize + is_particle(c.body2 as usize) as usize)
            .sum();
        SeriesRow {
            time: world.time(),
            step: world.step_count(),
            kinetic_translational: world.kinetic_energy_translational(),
            kinetic_rotational: world.kinetic_energy_rotational(),
            potential: world.potential_energy(),
            elastic_stored: world.ledger.stored_elastic,
            dissipated: world.ledger.dissipated.total(),
            external_work: world.ledger.external_work,
            contacts: report.contacts,
            coordination: if n > 0 { ends as f64 / n as f64 } else { 0.0 },
            max_overlap: report.max_overlap,
            iterations: report.iterations,
            residual: report.residual,
            support_imbalance: report.support_imbalance(),
        }
    }

    /// The CSV line (no newline), floats in shortest round-trip form; an absent balance is
    /// an empty field.
    pub fn to_csv(&self) -> String {
        let balance = self.support_imbalance.map_or(String::new(), |b| format!("{b:?}"));
        format!(
            "{:?},{},{:?},{:?},{:?},{:?},{:?},{:?},{},{:?},{:?},{},{:?},{balance}",
            self.time,
            self.step,
            self.kinetic_translational,
            self.kinetic_rotational,
            self.potential,
            self.elastic_stored,
            self.dissipated,
            self.external_work,
            self.contacts,
            self.coordination,
            self.max_overlap,
            self.iterations,
            self.residual
        )
    }
}
