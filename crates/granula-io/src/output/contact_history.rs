//! Per-contact time series and contact events of chosen bodies or pairs: what a researcher
//! needs to compare an impact with theory (contact duration, largest overlap, largest
//! force) without rebuilding it from trajectories.
//!
//! Everything comes from the contacts the solver published for the step
//! ([`Solver::contacts`](granula_core::Solver::contacts)): the forces the step applied (the
//! MD forces, or the NSCD impulses divided by Δt), the geometry (overlap, point, normal) at
//! the configuration where the force was computed, the overlap rate from the published
//! relative velocity, and the law's sliding status.

use super::open_csv;
use crate::error::{IoError, Result};
use glam::DVec3;
use granula_core::{Contact, ContactStatus, World};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Header of `contact_history.csv`.
pub const CONTACT_HISTORY_HEADER: &str = "time,step,body1,body2,overlap,overlap_rate,normal_force,tangential_force,\
ftx,fty,ftz,sliding,px,py,pz,nx,ny,nz";

/// Header of `contact_events.csv`.
pub const CONTACT_EVENTS_HEADER: &str =
    "body1,body2,start_time,end_time,duration,max_overlap,max_normal_force,first_step_time,last_step_time,steps";

/// Which contacts are followed, by body handle number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContactFilter {
    /// Every contact of one of these bodies.
    pub bodies: Vec<u32>,
    /// The contact between these two bodies (either order).
    pub pairs: Vec<(u32, u32)>,
}

impl ContactFilter {
    /// Whether the contact between handles `a` and `b` is followed; an empty filter
    /// follows every contact.
    pub fn accepts(&self, a: u32, b: u32) -> bool {
        if self.bodies.is_empty() && self.pairs.is_empty() {
            return true;
        }
        self.bodies.contains(&a)
            || self.bodies.contains(&b)
            || self.pairs.iter().any(|&(p, q)| (p, q) == (a, b) || (p, q) == (b, a))
    }
}

/// One followed contact at one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSample {
    /// Handle number of body 1 (the body the normal points away from).
    pub body1: u32,
    /// Handle number of body 2.
    pub body2: u32,
    /// Overlap δ = −gap (m), positive in contact.
    pub overlap: f64,
    /// Overlap rate δ̇ = −𝒱·n (m/s) from the published relative velocity at the contact
    /// point, positive while the bodies approach.
    pub overlap_rate: f64,
    /// Normal force F_n = f·n on body 2 (N), positive in compression.
    pub normal_force: f64,
    /// Tangential force on body 2, f − (f·n) n (N).
    pub tangential_force: DVec3,
    /// The law reported the contact as sliding ([`ContactStatus::Sliding`]).
    pub sliding: bool,
    /// Contact point (m).
    pub point: DVec3,
    /// Unit normal from body 1 to body 2.
    pub normal: DVec3,
}

/// A contact in progress.
#[derive(Clone, Copy, Debug, PartialEq)]
struct OpenContact {
    body1: u32,
    body2: u32,
    start: f64,
    first_time: f64,
    last_time: f64,
    last_overlap: f64,
    last_rate: f64,
    max_overlap: f64,
    max_normal_force: f64,
    steps: u64,
    /// Number of the last observation that saw the contact.
    seen: u64,
}

/// A finished contact: one line of `contact_events.csv`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactEvent {
    /// Handle number of body 1.
    pub body1: u32,
    /// Handle number of body 2.
    pub body2: u32,
    /// Start time (s): the zero of the overlap, interpolated linearly back from the first
    /// step in contact with its overlap rate, and kept within the step.
    pub start_time: f64,
    /// End time (s): the zero of the overlap extrapolated from the last step in contact,
    /// kept before the first step without the contact; `None` while the contact is open.
    pub end_time: Option<f64>,
    /// Largest overlap over the steps in contact (m).
    pub max_overlap: f64,
    /// Largest normal force over the steps in contact (N).
    pub max_normal_force: f64,
    /// Time of the first step with the contact (s).
    pub first_step_time: f64,
    /// Time of the last step with the contact (s).
    pub last_step_time: f64,
    /// Number of steps with the contact.
    pub steps: u64,
}

impl ContactEvent {
    /// Contact duration end − start (s), `None` while the contact is open.
    pub fn duration(&self) -> Option<f64> {
        self.end_time.map(|e| e - self.start_time)
    }
}

/// The writer of `contact_history.csv` and `contact_events.csv`.
pub struct ContactHistory {
    dir: PathBuf,
    series: BufWriter<File>,
    events: BufWriter<File>,
    every: u64,
    filter: ContactFilter,
    labels: Vec<String>,
    open: BTreeMap<(u32, u32), OpenContact>,
    samples: Vec<ContactSample>,
    observations: u64,
}

/// The label of body `h`: its name, or `#h` for a body without a name.
pub fn body_label(names: &[Option<String>], h: u32) -> String {
    match names.get(h as usize) {
        Some(Some(n)) => n.clone(),
        _ => format!("#{h}"),
    }
}

impl ContactHistory {
    /// Opens the two files in `dir` (appending with `append`). `names` holds each body's
    /// name by handle number, `every` the interval of the time series in steps.
    pub fn create(
        dir: &Path,
        filter: ContactFilter,
        names: &[Option<String>],
        every: u64,
        append: bool,
    ) -> Result<Self> {
        let labels = (0..names.len() as u32).map(|h| body_label(names, h)).collect();
        Ok(ContactHistory {
            dir: dir.to_path_buf(),
            series: open_csv(&dir.join("contact_history.csv"), CONTACT_HISTORY_HEADER, append)?,
            events: open_csv(&dir.join("contact_events.csv"), CONTACT_EVENTS_HEADER, append)?,
            every: every.max(1),
            filter,
            labels,
            open: BTreeMap::new(),
            samples: Vec::new(),
            observations: 0,
        })
    }

    fn label(&self, h: u32) -> String {
        self.labels.get(h as usize).cloned().unwrap_or_else(|| format!("#{h}"))
    }

    /// The samples of the last observed step.
    pub fn samples(&self) -> &[ContactSample] {
        &self.samples
    }

    /// Observes the contacts of the step just taken, as the solver published them (dense
    /// indices of `world`; contacts without force are skipped), `dt` the step length. Must
    /// be called after every step for the events to be right; writes the time series when
    /// the step is due and an event line for every followed contact that ended.
    pub fn observe<C: Contact>(&mut self, world: &World, contacts: &[C], dt: f64) -> Result<()> {
        let b = &world.bodies;
        let t = world.time();
        self.samples.clear();
        for c in contacts {
            let ((i, j), f) = (c.bodies(), c.force());
            let (iu, ju) = (i as usize, j as usize);
            if iu >= b.len() || ju >= b.len() || f == DVec3::ZERO {
                continue;
            }
            let (h1, h2) = (b.handle[iu].0, b.handle[ju].0);
            if !self.filter.accepts(h1, h2) {
                continue;
            }
            let n = c.normal();
            let fn_ = f.dot(n);
            self.samples.push(ContactSample {
                body1: h1,
                body2: h2,
                overlap: -c.gap(),
                overlap_rate: -c.relative_velocity().dot(n),
                normal_force: fn_,
                tangential_force: c.tangential_force(),
                sliding: c.status() == ContactStatus::Sliding,
                point: c.point(),
                normal: n,
            });
        }
        // Starts and updates.
        self.observations += 1;
        let now = self.observations;
        for s in &self.samples {
            let key = (s.body1.min(s.body2), s.body1.max(s.body2));
            let c = self.open.entry(key).or_insert_with(|| {
                // The overlap grew from zero within the step just taken: interpolate back
                // along the overlap rate, within [t − Δt, t].
                let back = if s.overlap_rate > 0.0 && s.overlap > 0.0 { s.overlap / s.overlap_rate } else { 0.0 };
                let back = back.min(dt);
                OpenContact {
                    body1: s.body1,
                    body2: s.body2,
                    start: t - back,
                    first_time: t,
                    last_time: t,
                    last_overlap: s.overlap,
                    last_rate: s.overlap_rate,
                    max_overlap: s.overlap,
                    max_normal_force: s.normal_force,
                    steps: 0,
                    seen: now,
                }
            });
            c.seen = now;
            c.last_time = t;
            c.last_overlap = s.overlap;
            c.last_rate = s.overlap_rate;
            c.max_overlap = c.max_overlap.max(s.overlap);
            c.max_normal_force = c.max_normal_force.max(s.normal_force);
            c.steps += 1;
        }
        // Ends: followed contacts absent from this step.
        let ended: Vec<(u32, u32)> = self.open.iter().filter(|(_, c)| c.seen != now).map(|(k, _)| *k).collect();
        for key in ended {
            if let Some(c) = self.open.remove(&key) {
                let ahead = if c.last_rate < 0.0 && c.last_overlap > 0.0 { c.last_overlap / -c.last_rate } else { 0.0 };
                let end = c.last_time + ahead.min(t - c.last_time);
                self.write_event(&finish(c, Some(end)))?;
            }
        }
        if world.step_count().is_multiple_of(self.every) && !self.samples.is_empty() {
            self.write_samples(t, world.step_count())?;
        }
        Ok(())
    }

    fn write_samples(&mut self, t: f64, step: u64) -> Result<()> {
        let path = self.dir.join("contact_history.csv");
        let mut text = String::new();
        for s in &self.samples {
            use std::fmt::Write as _;
            let ft = s.tangential_force;
            let _ = writeln!(
                text,
                "{t:?},{step},{},{},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{},{:?},{:?},{:?},{:?},{:?},{:?}",
                self.label(s.body1),
                self.label(s.body2),
                s.overlap,
                s.overlap_rate,
                s.normal_force,
                ft.length(),
                ft.x,
                ft.y,
                ft.z,
                u8::from(s.sliding),
                s.point.x,
                s.point.y,
                s.point.z,
                s.normal.x,
                s.normal.y,
                s.normal.z
            );
        }
        self.series.write_all(text.as_bytes()).map_err(|e| IoError::file(&path, e))?;
        self.series.flush().map_err(|e| IoError::file(&path, e))
    }

    fn write_event(&mut self, e: &ContactEvent) -> Result<()> {
        let path = self.dir.join("contact_events.csv");
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:?}"));
        writeln!(
            self.events,
            "{},{},{:?},{},{},{:?},{:?},{:?},{:?},{}",
            self.label(e.body1),
            self.label(e.body2),
            e.start_time,
            opt(e.end_time),
            opt(e.duration()),
            e.max_overlap,
            e.max_normal_force,
            e.first_step_time,
            e.last_step_time,
            e.steps
        )
        .map_err(|err| IoError::file(&path, err))?;
        self.events.flush().map_err(|err| IoError::file(&path, err))
    }

    /// Writes the contacts still open as events without an end (the run stopped during
    /// them). Called when the writer is dropped.
    pub fn close_open(&mut self) -> Result<()> {
        let open: Vec<OpenContact> = std::mem::take(&mut self.open).into_values().collect();
        for c in open {
            self.write_event(&finish(c, None))?;
        }
        Ok(())
    }
}

impl Drop for ContactHistory {
    fn drop(&mut self) {
        // Nothing to report an error to while dropping; the lines are best effort.
        let _ = self.close_open();
    }
}

fn finish(c: OpenContact, end: Option<f64>) -> ContactEvent {
    ContactEvent {
        body1: c.body1,
        body2: c.body2,
        start_time: c.start,
        end_time: end,
        max_overlap: c.max_overlap,
        max_normal_force: c.max_normal_force,
        first_step_time: c.first_time,
        last_step_time: c.last_time,
        steps: c.steps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_follows_bodies_pairs_or_everything() {
        let all = ContactFilter::default();
        assert!(all.accepts(3, 9));
        let f = ContactFilter { bodies: vec![2], pairs: vec![(5, 7)] };
        assert!(f.accepts(2, 9) && f.accepts(9, 2));
        assert!(f.accepts(7, 5) && f.accepts(5, 7));
        assert!(!f.accepts(5, 9));
    }

    #[test]
    fn labels_are_names_or_numbers() {
        let names = vec![Some("a".to_string()), None];
        assert_eq!(body_label(&names, 0), "a");
        assert_eq!(body_label(&names, 1), "#1");
        assert_eq!(body_label(&names, 5), "#5");
    }
}
