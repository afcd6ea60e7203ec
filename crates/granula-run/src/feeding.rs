//! The scene's feeds and outlets during a run: after every step, the outlets due remove
//! what left, then the feeds due insert their batches; `feeds.csv` and `outlets.csv`
//! record the totals; checkpoints carry the feeds' random streams, the totals and the
//! list of inserted particles, which a resume inserts again (same handles) before the
//! removals are replayed and the state restored.

use granula_core::World;
use granula_feed::{Drawn, Feed, FeedState, Outlet, OutletCounts};
use granula_io::output::open_csv;
use granula_io::{IoError, Result, Scene};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The file of the feeds' totals, a row per feed and batch.
pub const FEEDS_CSV: &str = "feeds.csv";
/// The file of the outlets' totals, a row per outlet and removal that removed a body.
pub const OUTLETS_CSV: &str = "outlets.csv";

/// A particle a feed inserted: the feed (index in `[[feeds]]`), its drawn radius (m) and
/// the seed of its shape (0 for a sphere). Its handle is the scene's body count plus its
/// place in the list.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct InsertedParticle {
    /// Index of the feed in `[[feeds]]`.
    pub feed: u32,
    /// Drawn radius (m).
    pub radius: f64,
    /// Seed of its shape (a polyhedron's); 0 for a sphere.
    pub seed: u64,
}

/// What the feeds and outlets of a run carry through a checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FeedingState {
    /// Each feed's state, in `[[feeds]]` order.
    pub feeds: Vec<FeedState>,
    /// Each outlet's totals, in `[[outlets]]` order.
    pub outlets: Vec<OutletCounts>,
    /// Every particle the feeds inserted, in insertion (handle) order.
    pub inserted: Vec<InsertedParticle>,
}

/// The feeds and outlets of a running scene, with their output files.
pub(crate) struct Feeding {
    feeds: Vec<Feed>,
    outlets: Vec<Outlet>,
    inserted: Vec<InsertedParticle>,
    feeds_csv: Option<(PathBuf, BufWriter<File>)>,
    outlets_csv: Option<(PathBuf, BufWriter<File>)>,
}

impl Feeding {
    /// The feeds and outlets of `scene`, without files yet ([`Feeding::open`]).
    pub(crate) fn new(scene: &Scene) -> Result<Feeding> {
        let feeds = scene.feeds.iter().cloned().map(Feed::new).collect::<std::result::Result<Vec<_>, _>>()?;
        let outlets = scene.outlets.iter().cloned().map(Outlet::new).collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(Feeding { feeds, outlets, inserted: Vec::new(), feeds_csv: None, outlets_csv: None })
    }

    /// Opens the files in `dir` (appended to when `append`: a resume in the run's own
    /// folder). A scene without feeds opens no `feeds.csv`, one without outlets no
    /// `outlets.csv`.
    pub(crate) fn open(&mut self, dir: &Path, append: bool) -> Result<()> {
        let open = |name: &str, header: &str, any: bool| -> Result<Option<(PathBuf, BufWriter<File>)>> {
            let path = dir.join(name);
            Ok(if any { Some((path.clone(), open_csv(&path, header, append)?)) } else { None })
        };
        let header = "time,step,feed,batches,inserted_count,inserted_mass,not_placed_count,not_placed_mass";
        self.feeds_csv = open(FEEDS_CSV, header, !self.feeds.is_empty())?;
        self.outlets_csv = open(OUTLETS_CSV, "time,step,outlet,removed_count,removed_mass", !self.outlets.is_empty())?;
        Ok(())
    }

    /// `true` when the scene has neither feeds nor outlets.
    pub(crate) fn is_empty(&self) -> bool {
        self.feeds.is_empty() && self.outlets.is_empty()
    }

    /// After a step: the outlets due remove their bodies (handles appended to `removed`),
    /// then the feeds due insert their batches; rows go to the files.
    pub(crate) fn after_step(&mut self, world: &mut World, removed: &mut Vec<u32>) -> Result<()> {
        let (step, time) = (world.step_count(), world.time());
        for o in self.outlets.iter_mut().filter(|o| o.is_due(step)) {
            let gone = o.remove(world)?;
            removed.extend(gone.iter().map(|h| h.0));
            if let (false, Some((path, w))) = (gone.is_empty(), &mut self.outlets_csv) {
                let c = o.counts();
                writeln!(w, "{time:?},{step},{},{},{:?}", o.config().name, c.removed, c.removed_mass)
                    .and_then(|_| w.flush())
                    .map_err(|e| IoError::file(path.as_path(), e))?;
            }
        }
        for (k, f) in self.feeds.iter_mut().enumerate().filter(|(_, f)| f.is_due(step)) {
            let batch = f.feed(world)?;
            let feed = k as u32;
            self.inserted.extend(batch.inserted.iter().map(|&(_, d)| InsertedParticle {
                feed,
                radius: d.radius,
                seed: d.seed,
            }));
            if let Some((path, w)) = &mut self.feeds_csv {
                let c = f.counts();
                writeln!(
                    w,
                    "{time:?},{step},{},{},{},{:?},{},{:?}",
                    f.config().name,
                    c.batches,
                    c.inserted,
                    c.inserted_mass,
                    c.not_placed,
                    c.not_placed_mass
                )
                .and_then(|_| w.flush())
                .map_err(|e| IoError::file(path.as_path(), e))?;
            }
        }
        Ok(())
    }

    /// The state for a checkpoint.
    pub(crate) fn state(&self) -> FeedingState {
        FeedingState {
            feeds: self.feeds.iter().map(Feed::save_state).collect(),
            outlets: self.outlets.iter().map(Outlet::counts).collect(),
            inserted: self.inserted.clone(),
        }
    }

    /// The feeds' totals so far, by name, for a summary.
    pub(crate) fn feed_counts(&self) -> Vec<(String, granula_feed::FeedCounts)> {
        self.feeds.iter().map(|f| (f.config().name.clone(), f.counts())).collect()
    }

    /// The outlets' totals so far, by name.
    pub(crate) fn outlet_counts(&self) -> Vec<(String, OutletCounts)> {
        self.outlets.iter().map(|o| (o.config().name.clone(), o.counts())).collect()
    }

    /// Restores a checkpoint's state into a world freshly built from the scene (before its
    /// removals are replayed): the inserted spheres go in again under their handles, the
    /// feeds and outlets get their states back. A state that does not fit the scene is
    /// refused as damaged, naming `path`.
    pub(crate) fn restore(&mut self, state: &FeedingState, world: &mut World, path: &Path) -> Result<()> {
        let damaged = |problem: String| IoError::CheckpointDamaged { path: path.to_path_buf(), problem };
        if state.feeds.len() != self.feeds.len() || state.outlets.len() != self.outlets.len() {
            return Err(damaged(format!(
                "{} feeds and {} outlets saved, the scene has {} and {}",
                state.feeds.len(),
                state.outlets.len(),
                self.feeds.len(),
                self.outlets.len()
            )));
        }
        for (k, s) in state.inserted.iter().enumerate() {
            let Some(feed) = self.feeds.get(s.feed as usize) else {
                return Err(damaged(format!("inserted particle {k} names feed {}, which the scene has not", s.feed)));
            };
            let c = feed.config();
            let expected = world.bodies.next_handle();
            let body = feed.body(c.region.aabb().min, Drawn { radius: s.radius, seed: s.seed });
            let body = body.map_err(|e| damaged(format!("inserted particle {k}: {e}")))?;
            let h = world.insert(body).map_err(|e| damaged(format!("inserted particle {k}: {e}")))?;
            if h != expected {
                return Err(damaged(format!("inserted particle {k} got handle {h:?}, {expected:?} expected")));
            }
        }
        for (f, s) in self.feeds.iter_mut().zip(&state.feeds) {
            f.restore_state(s).map_err(|e| damaged(e.to_string()))?;
        }
        for (o, s) in self.outlets.iter_mut().zip(&state.outlets) {
            o.restore_counts(*s).map_err(|e| damaged(e.to_string()))?;
        }
        self.inserted.clone_from(&state.inserted);
        Ok(())
    }
}
