//! The distributed MD run: each rank steps its own world (its owned bodies, ghost copies of
//! the bodies near its subdomain, and every wall and prescribed body) with its own solver,
//! refreshes its ghosts from their owners after every step, and redistributes the bodies
//! (migration with contact histories and integrator memory, new ghost layers, optionally a
//! new decomposition for load balance) once some body could have left its ghost layer's
//! margin.

use crate::communicator::Communicator;
use crate::decomposition::Decomposition;
use crate::error::DistributedError;
use crate::ghost_message::{self, GhostState};
use crate::record::{decode, encode, BodyRecord, HistoryRecord, Migration};
use crate::timings::{lap, traffic, DistributedTimings};
use granula_core::{
    BodyHandle, ContactKey, CoreError, DVec3, GuardAccounts, IntegratorState, MassProperties, MotionKind, StepReport,
    World,
};
use granula_core::{BodyState, MassSource, Motion, RigidBody};
use granula_io::scene::spec::SolverSpec;
use granula_io::Scene;
use granula_run::{build_solver, DistributedMd, HistoryBytes, SimSolver};
use std::time::Instant;

mod checkpoint;
mod energies;
mod outputs;
pub use checkpoint::{DistributedCheckpoint, DistributedCheckpointFile};
pub use energies::RunEnergies;
pub use outputs::GatheredContacts;

/// Owner mark of the bodies every rank holds (walls, fixed and kinematic bodies).
const SHARED: u32 = u32::MAX;

/// Settings of a distributed run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistributedConfig {
    /// Rebalance by recursive coordinate bisection at a redistribution when the busiest
    /// rank owns more than `1 + balance_margin` times the mean number of bodies; `None`
    /// keeps the first (regular grid) decomposition.
    pub balance_margin: Option<f64>,
}

impl Default for DistributedConfig {
    /// Rebalance beyond 20 % above the mean.
    fn default() -> Self {
        DistributedConfig { balance_margin: Some(0.2) }
    }
}

/// Counters of a distributed run (the same on every rank).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DistributedStats {
    /// Redistributions of the bodies.
    pub redistributions: u64,
    /// Bodies that changed owner, summed over the redistributions and the ranks.
    pub migrations: u64,
    /// New decompositions by bisection.
    pub rebalances: u64,
}

/// A distributed MD run of a scene over the ranks of a [`Communicator`].
pub struct DistributedRun<C: Communicator> {
    comm: C,
    /// The scene.
    pub scene: Scene,
    /// The world built from the scene, untouched: the source of the bodies' constant data.
    template: World,
    /// This rank's world: shared, owned and ghost bodies, in global-id order.
    pub world: World,
    solver: Box<dyn SimSolver>,
    /// Global id of each local body (dense order).
    gid: Vec<u32>,
    /// Owner rank of each local body, [`SHARED`] for the shared ones.
    owner: Vec<u32>,
    decomposition: Decomposition,
    /// Positions at the last redistribution, per local body.
    reference: Vec<DVec3>,
    /// Per rank, the local owned bodies it holds ghosts of (gid order).
    send: Vec<Vec<u32>>,
    /// Per rank, the local ghosts it owns (gid order).
    recv: Vec<Vec<u32>>,
    cutoff: f64,
    skin: f64,
    config: DistributedConfig,
    /// The first step is still to come (taken with a double ghost layer, see `new`).
    fresh: bool,
    stats: DistributedStats,
    timings: DistributedTimings,
    /// The report of this rank's last step.
    pub last_report: StepReport,
    /// The contacts this rank owns of the last step, when they are published.
    contact_outputs: outputs::ContactCapture,
    /// The run's energy accounts at the runaway-energy guard's last check.
    guard_accounts: Option<GuardAccounts>,
}

impl<C: Communicator> DistributedRun<C> {
    /// Sets up the run on every rank (collective): the same scene on each; the bodies are
    /// split by a regular grid over the box of their centres.
    ///
    /// The first step primes each solver with the contact forces at the initial state, and
    /// a ghost's priming force is complete only if all its partners are present: the
    /// first step is taken with a ghost layer twice as deep, and the bodies are
    /// redistributed with the normal layer right after it.
    pub fn new(comm: C, scene: Scene, config: DistributedConfig) -> Result<Self, DistributedError> {
        let world = scene.build_world()?;
        Self::with_world(comm, scene, world, config)
    }

    /// [`DistributedRun::new`] for a world built by the caller (e.g. a packing read from a
    /// file, whose soft contacts overlap): `scene` gives the solver, the time step, the
    /// number of steps and the outputs, `world` the bodies (the same on every rank; global
    /// ids are its handles, which must equal its dense indices: a world built by insertions
    /// only).
    pub fn with_world(
        comm: C,
        scene: Scene,
        template: World,
        config: DistributedConfig,
    ) -> Result<Self, DistributedError> {
        let unsupported = |what: String| DistributedError::Unsupported { file: scene.file.clone(), what };
        if matches!(scene.spec.solver, SolverSpec::Nscd(_)) {
            return Err(unsupported("the NSCD solver (MD scenes only)".into()));
        }
        if !scene.loads.is_empty() {
            return Err(unsupported("time-dependent loads ([[loads]])".into()));
        }
        if !scene.feeds.is_empty() || !scene.outlets.is_empty() {
            return Err(unsupported(
                "feeds and outlets ([[feeds]], [[outlets]]; their insertions and removals are not distributed)".into(),
            ));
        }
        if !scene.spec.meshes.is_empty() {
            return Err(unsupported(
                "mesh walls ([[meshes]]; the distributed runner is not validated with them)".into(),
            ));
        }
        let out = &scene.spec.output;
        for (present, what) in [
            (out.flow.is_some(), "the flow output and its sink ([output] flow)"),
            (out.contact_history.is_some(), "the contact history output ([output] contact_history)"),
            (out.trajectories.is_some(), "trajectories ([output] trajectories)"),
        ] {
            if present {
                return Err(unsupported(what.into()));
            }
        }
        if let SolverSpec::Md(s) = &scene.spec.solver {
            if s.reorder_every.is_some() {
                return Err(unsupported("[solver] reorder_every (each rank keeps its bodies in its own order)".into()));
            }
        }
        let b = &template.bodies;
        if let Some(i) = (0..b.len()).find(|&i| b.handle[i].0 as usize != i) {
            return Err(unsupported(format!("a world whose body {i} has handle {:?} (bodies removed)", b.handle[i])));
        }
        if let Some(i) = (0..b.len()).find(|&i| b.motion[i] == MotionKind::Dynamic && !b.radius[i].is_finite()) {
            let name = scene.bodies.get(i).and_then(|p| p.name.clone()).unwrap_or_else(|| format!("#{i}"));
            return Err(unsupported(format!("body {name} is not a sphere (dynamic spheres only)")));
        }
        let mut solver = build_solver(&scene)?;
        let md = solver.distributed().ok_or_else(|| unsupported(format!("solver {}", solver_name(&scene))))?;
        // Partner order: a rank's per-body sums do not depend on its subset of the pairs.
        md.set_partner_order(true);
        let (range, skin) = md.reach(&template);
        let dynamic: Vec<usize> = (0..b.len()).filter(|&i| b.motion[i] == MotionKind::Dynamic).collect();
        let r_max = dynamic.iter().map(|&i| b.radius[i]).fold(0.0, f64::max);
        // A pair acts within r_i + r_j + range; a body may move half the skin before the next
        // redistribution, and so may its partner.
        let cutoff = 2.0 * r_max + range + skin;
        let centres = dynamic.iter().map(|&i| b.position[i]);
        let decomposition = Decomposition::grid_over(centres, &template.periodic, comm.size(), cutoff)?;
        let rank = comm.rank();
        let mut owned = Vec::new();
        let mut ghosts = Vec::new();
        for &i in &dynamic {
            let x = b.position[i];
            let o = decomposition.owner(x);
            let record = template_record(&template, i);
            if o == rank {
                owned.push(record);
            } else if decomposition.halo(x, o, 2.0 * cutoff).any(|r| r == rank) {
                ghosts.push((o as u32, record));
            }
        }
        let world = empty_world();
        let size = comm.size();
        let mut run = DistributedRun {
            comm,
            scene,
            template,
            world,
            solver,
            gid: Vec::new(),
            owner: Vec::new(),
            decomposition,
            reference: Vec::new(),
            send: vec![Vec::new(); size],
            recv: vec![Vec::new(); size],
            cutoff,
            skin,
            config,
            fresh: true,
            stats: DistributedStats::default(),
            timings: DistributedTimings::default(),
            last_report: StepReport::default(),
            contact_outputs: Default::default(),
            guard_accounts: None,
        };
        let shared = run.shared_from(&run.template);
        run.install(shared, owned, ghosts, Vec::new(), None, 2.0 * cutoff)?;
        Ok(run)
    }

    /// Sums each body's pair loads in partner order (`true`, set by [`DistributedRun::new`]:
    /// the same bits on any number of ranks) or by blocks of each rank's candidate list
    /// (`false`: the last bits then depend on the rank count; for the test that shows it).
    pub fn set_partner_order(&mut self, on: bool) {
        self.distributed().set_partner_order(on);
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.comm.rank()
    }

    /// The communicator.
    pub fn comm(&self) -> &C {
        &self.comm
    }

    /// The current decomposition.
    pub fn decomposition(&self) -> &Decomposition {
        &self.decomposition
    }

    /// The interaction range the ghost layers are built for (m).
    pub fn cutoff(&self) -> f64 {
        self.cutoff
    }

    /// The counters so far.
    pub fn stats(&self) -> DistributedStats {
        self.stats
    }

    /// This rank's time per phase and traffic so far.
    pub fn timings(&self) -> DistributedTimings {
        self.timings
    }

    /// Restarts this rank's timings (e.g. after a warm-up).
    pub fn reset_timings(&mut self) {
        self.timings = DistributedTimings::default();
    }

    /// Number of bodies this rank owns.
    pub fn owned(&self) -> usize {
        self.owner.iter().filter(|&&o| o == self.comm.rank() as u32).count()
    }

    /// The owner rank of local body `i` (`None` for a body every rank holds: a wall, a
    /// fixed or a kinematic body).
    pub fn owner_of(&self, i: usize) -> Option<usize> {
        self.owner.get(i).filter(|&&o| o != SHARED).map(|&o| o as usize)
    }

    /// Number of ghost bodies this rank holds.
    pub fn ghosts(&self) -> usize {
        self.owner.iter().filter(|&&o| o != SHARED && o != self.comm.rank() as u32).count()
    }

    /// Whether the scene's steps are all done.
    pub fn is_done(&self) -> bool {
        self.world.step_count() >= self.scene.steps
    }

    /// One step on every rank (collective), then the ghosts' refresh and, when due, a
    /// redistribution. An error on any rank stops every rank: the failing rank returns its
    /// own error, the others name it.
    pub fn step(&mut self) -> Result<(), DistributedError> {
        let rank = self.comm.rank();
        let dt = self.scene.dt();
        let mut clock = Instant::now();
        let result = self.solver.step(&mut self.world, dt);
        self.timings.compute += lap(&mut clock);
        self.timings.steps += 1;
        // One reduction per step: each rank's largest displacement since the last
        // redistribution plus two steps of travel at the current speed (the margin of the
        // step to come), or -1 if its step failed. Owned bodies only, which the ghost
        // refresh does not touch.
        let reach = match &result {
            Err(_) => -1.0,
            Ok(_) => {
                let b = &self.world.bodies;
                let me = rank as u32;
                let mut reach: f64 = 0.0;
                for i in (0..b.len()).filter(|&i| self.owner[i] == me) {
                    let moved = (b.position[i] - self.reference[i]).length();
                    reach = reach.max(moved + 2.0 * b.velocity[i].length() * dt);
                }
                reach
            }
        };
        let reaches = self.comm.all_gather(reach);
        self.timings.reductions += lap(&mut clock);
        match result {
            Err(source) => return Err(DistributedError::Core { rank, source }),
            Ok(report) => self.last_report = report,
        }
        if let Some(r) = reaches.iter().position(|&f| f < 0.0) {
            return Err(DistributedError::Core { rank, source: elsewhere(r) });
        }
        self.check_energy_guard()?;
        self.capture_contacts()?;
        self.refresh_ghosts()?;
        let redistribute = std::mem::take(&mut self.fresh)
            || reaches.iter().copied().fold(f64::NEG_INFINITY, f64::max) > 0.5 * self.skin;
        if redistribute {
            let mut clock = Instant::now();
            self.redistribute()?;
            self.timings.redistribute += lap(&mut clock);
        }
        Ok(())
    }

    /// Steps until the scene's end (collective).
    pub fn run_to_end(&mut self) -> Result<(), DistributedError> {
        while !self.is_done() {
            self.step()?;
        }
        Ok(())
    }

    /// The owned bodies' states of every rank at rank 0, sorted by global id (collective;
    /// `None` on the other ranks). Memory is left empty.
    pub fn gather_state(&self) -> Result<Option<Vec<BodyRecord>>, DistributedError> {
        let me = self.comm.rank() as u32;
        let mine: Vec<BodyRecord> =
            (0..self.gid.len()).filter(|&i| self.owner[i] == me).map(|i| self.record(i, None)).collect();
        let Some(all) = self.comm.gather_to_root(encode(&mine)) else {
            return Ok(None);
        };
        let mut bodies = Vec::new();
        for (from, bytes) in all.iter().enumerate() {
            bodies.extend(decode::<Vec<BodyRecord>>(bytes, 0, from)?);
        }
        bodies.sort_by_key(|r| r.gid);
        Ok(Some(bodies))
    }

    /// Copies the state of every body (gathered from the owners) into `mirror`, a world
    /// built from the scene whose dense index is the global id (collective; rank 0 passes
    /// its world, the other ranks `None`). Shared bodies' states come from rank 0's own copy.
    ///
    /// A shared body's load is the sum over the ranks of their parts (each rank's solver
    /// gathers a wall's loads from its own bodies' pairs only, see `energies.rs`), added in
    /// rank order.
    pub fn gather_into(&self, mirror: Option<&mut World>) -> Result<(), DistributedError> {
        let rank = self.comm.rank();
        let b = &self.world.bodies;
        let loads: Vec<(u32, DVec3, DVec3)> =
            (0..b.len()).filter(|&i| self.owner[i] == SHARED).map(|i| (self.gid[i], b.force[i], b.torque[i])).collect();
        let parts = self.comm.gather_to_root(encode(&loads));
        let (Some(all), Some(mirror)) = (self.gather_state()?, mirror) else {
            return Ok(());
        };
        let mut shared_loads = loads;
        for (from, bytes) in parts.iter().flatten().enumerate().skip(1) {
            let part: Vec<(u32, DVec3, DVec3)> = decode(bytes, rank, from)?;
            if part.len() != shared_loads.len() || part.iter().zip(&shared_loads).any(|(p, q)| p.0 != q.0) {
                return Err(mismatch(rank, from, "other shared bodies".into()));
            }
            for (q, p) in shared_loads.iter_mut().zip(part) {
                q.1 += p.1;
                q.2 += p.2;
            }
        }
        let m = &mut mirror.bodies;
        for r in all {
            let g = r.gid as usize;
            m.position[g] = r.position;
            m.orientation[g] = r.orientation;
            m.velocity[g] = r.velocity;
            m.angular_velocity[g] = r.angular_velocity;
            m.force[g] = r.force;
            m.torque[g] = r.torque;
        }
        let shared = (0..b.len()).filter(|&i| self.owner[i] == SHARED);
        for (i, (_, force, torque)) in shared.zip(shared_loads) {
            let g = self.gid[i] as usize;
            m.position[g] = b.position[i];
            m.orientation[g] = b.orientation[i];
            m.velocity[g] = b.velocity[i];
            m.angular_velocity[g] = b.angular_velocity[i];
            m.force[g] = force;
            m.torque[g] = torque;
        }
        mirror.set_clock(self.world.clock()).map_err(|source| DistributedError::Core { rank: 0, source })?;
        Ok(())
    }

    /// The state of local body `i` as its owner sends it, with its slice of the
    /// integrator's memory if given.
    fn record(&self, i: usize, memory: Option<&MemoryView<'_>>) -> BodyRecord {
        let b = &self.world.bodies;
        let memory = memory.map(|m| m.of(b.handle[i]).to_vec()).unwrap_or_default();
        BodyRecord::of(b, i, self.gid[i], memory)
    }

    fn distributed(&mut self) -> &mut dyn DistributedMd {
        // Checked in `new`: the solver is an MD solver.
        self.solver.distributed().expect("an MD solver")
    }

    /// Owners send the state of their bodies (and the integrator's memory for them) to the
    /// ranks that hold ghosts of them; the ghosts are overwritten.
    fn refresh_ghosts(&mut self) -> Result<(), DistributedError> {
        let rank = self.comm.rank();
        let mut clock = Instant::now();
        let busy = self.send.iter().chain(&self.recv).any(|l| !l.is_empty());
        if !busy {
            self.timings.refresh_pack += lap(&mut clock);
            return Ok(());
        }
        // The integrator's memory of one body at a time when the integrator gives it
        // (velocity Verlet): only the entries of the bodies sent and of the ghosts are
        // copied. Otherwise (Gear) the whole memory is copied out, patched and restored.
        let mut probe = Vec::new();
        let direct = !self.world.bodies.is_empty()
            && self.solver.distributed().expect("an MD solver").body_memory(&self.world, 0, &mut probe);
        let state = if direct { IntegratorState::default() } else { self.distributed().integrator_state() };
        let memory = MemoryView::new(&state);
        // Messages go only to the ranks that hold ghosts of this rank's bodies and come only
        // from the ranks this rank holds ghosts of, in rank order (`install` checked that
        // both ends agree). Flat records, no allocation per body.
        let mut values: Vec<f64> = Vec::new();
        let mut outgoing: Vec<(usize, Vec<u8>)> = Vec::new();
        {
            let mut md = if direct { self.solver.distributed() } else { None };
            let b = &self.world.bodies;
            for (to, list) in self.send.iter().enumerate().filter(|(_, list)| !list.is_empty()) {
                let mut bytes = Vec::with_capacity(list.len() * ghost_message::record_bytes(probe.len()));
                for &i in list {
                    let i = i as usize;
                    values.clear();
                    match md.as_deref_mut() {
                        Some(md) => {
                            md.body_memory(&self.world, i, &mut values);
                        }
                        None => values.extend_from_slice(memory.of(b.handle[i])),
                    }
                    ghost_message::push(&mut bytes, self.gid[i], &ghost_state(b, i), &values);
                }
                outgoing.push((to, bytes));
            }
        }
        let sources: Vec<usize> = (0..self.recv.len()).filter(|&r| !self.recv[r].is_empty()).collect();
        self.timings.refresh_pack += lap(&mut clock);
        let (messages, bytes) = traffic(rank, outgoing.iter().map(|(to, b)| (*to, &b[..])));
        self.timings.refresh_messages += messages;
        self.timings.refresh_bytes += bytes;
        let received = self.comm.exchange_with_neighbours(outgoing, &sources);
        self.timings.refresh_exchange += lap(&mut clock);
        let mut patched = state;
        for (&from, bytes) in sources.iter().zip(&received) {
            let mut reader = ghost_message::Reader::new(bytes, rank, from);
            let expected = self.recv[from].len();
            for (k, &i) in self.recv[from].iter().enumerate() {
                let i = i as usize;
                let Some((gid, s)) = reader.next(&mut values)? else {
                    return Err(mismatch(rank, from, format!("{k} ghosts, {expected} expected")));
                };
                if gid != self.gid[i] {
                    return Err(mismatch(rank, from, format!("body {gid} in place of {}", self.gid[i])));
                }
                let b = &mut self.world.bodies;
                b.position[i] = s.position;
                b.orientation[i] = s.orientation;
                b.velocity[i] = s.velocity;
                b.angular_velocity[i] = s.angular_velocity;
                b.force[i] = s.force;
                b.torque[i] = s.torque;
                if !direct {
                    write_memory(&mut patched, b.handle[i], &values);
                } else if !self.solver.distributed().expect("an MD solver").set_body_memory(&self.world, i, &values) {
                    let reason = format!("integrator memory of body {gid} ({} values) does not fit", values.len());
                    return Err(mismatch(rank, from, reason));
                }
            }
            if reader.next(&mut values)?.is_some() {
                return Err(mismatch(rank, from, format!("more ghosts than the {expected} expected")));
            }
        }
        if !direct && patched.values_per_body() > 0 && !sources.is_empty() {
            let world = std::mem::replace(&mut self.world, empty_world());
            let result = self.distributed().restore_integrator(&patched, &world);
            self.world = world;
            result.map_err(|source| DistributedError::Core { rank, source })?;
        }
        self.timings.refresh_unpack += lap(&mut clock);
        Ok(())
    }

    /// Moves every body to the rank that owns its position, with the histories of its
    /// pairs and its integrator memory, and rebuilds the ghost layers (collective).
    fn redistribute(&mut self) -> Result<(), DistributedError> {
        let (rank, size) = (self.comm.rank(), self.comm.size());
        let me = rank as u32;
        self.rebalance_if_needed()?;
        let histories =
            self.distributed().export_histories().map_err(|source| DistributedError::Core { rank, source })?;
        let state = self.distributed().integrator_state();
        let memory = MemoryView::new(&state);
        let b = &self.world.bodies;
        let new_owner: Vec<u32> = (0..b.len())
            .map(|i| if self.owner[i] == SHARED { SHARED } else { self.decomposition.owner(b.position[i]) as u32 })
            .collect();
        let mut out: Vec<Migration> = vec![Migration::default(); size];
        for i in (0..b.len()).filter(|&i| self.owner[i] == me) {
            let record = self.record(i, Some(&memory));
            let o = new_owner[i] as usize;
            for r in self.decomposition.halo(b.position[i], o, self.cutoff) {
                out[r].ghosts.push((o as u32, record.clone()));
            }
            out[o].owned.push(record);
        }
        for h in histories {
            let (Ok(i), Ok(j)) = (b.index(h.key.body1), b.index(h.key.body2)) else {
                continue;
            };
            // Sent once, by the owner of the pair's first dynamic body, to the new owners of
            // its dynamic bodies.
            let first = if self.owner[i] != SHARED { i } else { j };
            if self.owner[first] != me {
                continue;
            }
            let record = HistoryRecord {
                body1: self.gid[i],
                body2: self.gid[j],
                feature: h.key.feature,
                history: h.history,
                stored: h.stored,
            };
            let mut dests = [new_owner[i], new_owner[j]];
            dests.sort_unstable();
            for (k, &d) in dests.iter().enumerate() {
                if d != SHARED && (k == 0 || d != dests[0]) {
                    out[d as usize].histories.push(record.clone());
                }
            }
        }
        let outgoing: Vec<Vec<u8>> = out.iter().map(encode).collect();
        let (messages, bytes) = traffic(rank, outgoing.iter().map(|b| &b[..]).enumerate());
        self.timings.redistribute_messages += messages;
        self.timings.redistribute_bytes += bytes;
        let received = self.comm.exchange(outgoing);
        let mut owned = Vec::new();
        let mut ghosts = Vec::new();
        let mut histories = Vec::new();
        let mut arrived = 0u64;
        for (from, bytes) in received.iter().enumerate() {
            let m: Migration = decode(bytes, rank, from)?;
            if from != rank {
                arrived += m.owned.len() as u64;
            }
            owned.extend(m.owned);
            ghosts.extend(m.ghosts);
            histories.extend(m.histories);
        }
        let shared = self.shared_from(&self.world);
        let scalars = (state.name.clone(), state.scalars.clone());
        self.install(shared, owned, ghosts, histories, Some(scalars), self.cutoff)?;
        self.stats.redistributions += 1;
        self.stats.migrations += self.comm.sum(arrived as f64) as u64;
        Ok(())
    }

    /// A new decomposition by bisection when the busiest rank owns more than the margin
    /// above the mean (collective). A box too small for the bisection keeps the old one.
    fn rebalance_if_needed(&mut self) -> Result<(), DistributedError> {
        let Some(margin) = self.config.balance_margin else {
            return Ok(());
        };
        let size = self.comm.size();
        if size == 1 {
            return Ok(());
        }
        let counts = self.comm.all_gather(self.owned() as f64);
        let mean = counts.iter().sum::<f64>() / size as f64;
        let busiest = counts.iter().copied().fold(0.0, f64::max);
        if busiest <= (1.0 + margin) * mean {
            return Ok(());
        }
        let me = self.comm.rank() as u32;
        let b = &self.world.bodies;
        let mine: Vec<(u32, DVec3)> =
            (0..b.len()).filter(|&i| self.owner[i] == me).map(|i| (self.gid[i], b.position[i])).collect();
        let bytes = encode(&mine);
        let received = self.comm.exchange(vec![bytes; size]);
        let mut all: Vec<(u32, DVec3)> = Vec::new();
        for (from, bytes) in received.iter().enumerate() {
            all.extend(decode::<Vec<(u32, DVec3)>>(bytes, self.comm.rank(), from)?);
        }
        all.sort_by_key(|p| p.0);
        let points: Vec<DVec3> = all.iter().map(|p| p.1).collect();
        if let Ok(d) = Decomposition::bisection_over(&points, &self.template.periodic, size, self.cutoff) {
            self.decomposition = d;
            self.stats.rebalances += 1;
        }
        Ok(())
    }

    /// The shared bodies of `world` (non-dynamic), as (global id, body, force, torque).
    fn shared_from(&self, world: &World) -> Vec<(u32, RigidBody, DVec3, DVec3)> {
        let b = &world.bodies;
        let from_template = std::ptr::eq(world, &self.template);
        (0..b.len())
            .filter(|&i| b.motion[i] != MotionKind::Dynamic)
            .map(|i| {
                let gid = if from_template { b.handle[i].0 } else { self.gid[i] };
                let motion = match (b.motion[i], &b.drive[i]) {
                    (MotionKind::Kinematic, Some(d)) => {
                        Motion::Kinematic { linear: d.linear.clone(), angular: d.angular.clone() }
                    }
                    _ => Motion::Fixed,
                };
                let body = RigidBody {
                    shape: b.shape[i].clone(),
                    mass: MassSource::Explicit(MassProperties { mass: b.mass[i], inertia: b.inertia[i] }),
                    material: b.material[i],
                    motion,
                    locked: b.locked[i],
                    state: BodyState {
                        position: b.position[i],
                        orientation: b.orientation[i],
                        velocity: b.velocity[i],
                        angular_velocity: b.angular_velocity[i],
                    },
                    external_force: b.external_force[i],
                    external_torque: b.external_torque[i],
                };
                (gid, body, b.force[i], b.torque[i])
            })
            .collect()
    }

    /// Builds this rank's world from the shared bodies, the owned ones and the ghosts (in
    /// global-id order), re-seats the solver on it with `histories` and the integrator's
    /// memory (`memory`: its name and scalars; `None` before the first step, when the
    /// solver primes itself), and lays out the ghost lists for a layer `halo` deep.
    fn install(
        &mut self,
        shared: Vec<(u32, RigidBody, DVec3, DVec3)>,
        owned: Vec<BodyRecord>,
        ghosts: Vec<(u32, BodyRecord)>,
        histories: Vec<HistoryRecord>,
        memory: Option<(String, Vec<f64>)>,
        halo: f64,
    ) -> Result<(), DistributedError> {
        let rank = self.comm.rank();
        let core = |source: CoreError| DistributedError::Core { rank, source };
        let me = rank as u32;
        let mut entries: Vec<(u32, u32, Entry)> = Vec::with_capacity(shared.len() + owned.len() + ghosts.len());
        entries.extend(shared.into_iter().map(|(g, body, f, t)| (g, SHARED, Entry::Shared(Box::new(body), f, t))));
        entries.extend(owned.into_iter().map(|r| (r.gid, me, Entry::Dynamic(r))));
        entries.extend(ghosts.into_iter().map(|(o, r)| (r.gid, o, Entry::Dynamic(r))));
        entries.sort_by_key(|e| e.0);
        if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(mismatch(rank, rank, format!("body {} received twice", w[0].0)));
        }
        let t = &self.template;
        let mut world = World::builder()
            .gravity(t.gravity)
            .planar(t.planar)
            .max_overlap_ratio(t.max_overlap_ratio)
            .max_travel_ratio(t.max_travel_ratio)
            .energy_guard(None)
            .energy_reads(t.energy_reads)
            .build()
            .map_err(core)?;
        world.materials = t.materials.clone();
        world.periodic = t.periodic;
        // This rank's part of the run's ledger goes on with the new world (energies.rs).
        world.ledger = self.world.ledger;
        let mut per_body = Vec::new();
        let mut handles = Vec::new();
        let width = entries
            .iter()
            .find_map(|e| match &e.2 {
                Entry::Dynamic(r) => Some(r.memory.len()),
                _ => None,
            })
            .unwrap_or(0);
        for (gid, _, entry) in &entries {
            let (body, force, torque) = match entry {
                Entry::Shared(body, f, t) => ((**body).clone(), *f, *t),
                Entry::Dynamic(r) => (self.dynamic_body(r), r.force, r.torque),
            };
            let h = world.insert(body).map_err(core)?;
            let i = world.bodies.len() - 1;
            world.bodies.force[i] = force;
            world.bodies.torque[i] = torque;
            if let Entry::Dynamic(r) = entry {
                if width > 0 && r.memory.len() == width {
                    handles.push(h);
                    per_body.extend_from_slice(&r.memory);
                }
            }
            debug_assert_eq!(h, BodyHandle(i as u32), "body {gid}");
        }
        world.accept_overlaps();
        world.set_clock(self.world.clock()).map_err(core)?;
        self.gid = entries.iter().map(|e| e.0).collect();
        self.owner = entries.iter().map(|e| e.1).collect();
        // The ghosts' pairs, damping and work are booked by their owners (energies.rs).
        let foreign = self.foreign_marks();
        self.solver.distributed().expect("an MD solver").set_foreign(&foreign);
        if let Some((name, scalars)) = memory {
            let state = IntegratorState { name, handles, per_body, scalars };
            let keys: Vec<HistoryBytes> = histories
                .into_iter()
                .filter_map(|h| {
                    let i = self.gid.binary_search(&h.body1).ok()?;
                    let j = self.gid.binary_search(&h.body2).ok()?;
                    let key =
                        ContactKey { body1: BodyHandle(i as u32), body2: BodyHandle(j as u32), feature: h.feature };
                    Some(HistoryBytes { key, history: h.history, stored: h.stored })
                })
                .collect();
            let solver = self.solver.distributed().expect("an MD solver");
            solver.adopt(&world, &keys).map_err(core)?;
            if state.values_per_body() > 0 || !state.name.is_empty() {
                solver.restore_integrator(&state, &world).map_err(core)?;
            }
            // The pairs of two ghosts (or of a ghost and a wall) are left out: their forces
            // land on ghosts only, which their owners overwrite after every step. Not
            // before the first step (no memory yet): its priming pass needs every ghost's
            // complete force (see `with_world`).
            let passive: Vec<bool> = self.owner.iter().map(|&o| o != me && o != SHARED).collect();
            solver.set_passive(&passive);
        }
        self.reference = world.bodies.position.clone();
        for list in self.send.iter_mut().chain(self.recv.iter_mut()) {
            list.clear();
        }
        for i in 0..world.bodies.len() {
            let o = self.owner[i];
            if o == me {
                for r in self.decomposition.halo(world.bodies.position[i], rank, halo) {
                    self.send[r].push(i as u32);
                }
            } else if o != SHARED {
                self.recv[o as usize].push(i as u32);
            }
        }
        self.world = world;
        self.check_neighbours()
    }

    /// Checks that each rank expects from every other as many ghosts as that rank sends it
    /// (collective): the ghost refresh exchanges messages with the neighbours only, and a
    /// message one end does not expect would hang or go astray.
    fn check_neighbours(&self) -> Result<(), DistributedError> {
        let rank = self.comm.rank();
        let expected: Vec<Vec<u8>> = self.recv.iter().map(|l| (l.len() as u64).to_le_bytes().to_vec()).collect();
        let asked = self.comm.exchange(expected);
        let mut verdict = Ok(());
        for (from, bytes) in asked.iter().enumerate() {
            let count = <[u8; 8]>::try_from(&bytes[..]).ok().map(u64::from_le_bytes);
            if count != Some(self.send[from].len() as u64) {
                verdict = Err(mismatch(
                    rank,
                    from,
                    format!(
                        "rank {from} expects {count:?} ghosts from rank {rank}, which sends it {}",
                        self.send[from].len()
                    ),
                ));
                break;
            }
        }
        // Every rank learns of a disagreement, so that none waits for a message that will
        // not come.
        let failed = self.comm.all_gather(if verdict.is_err() { 1.0 } else { 0.0 });
        verdict?;
        match failed.iter().position(|&f| f != 0.0) {
            Some(r) => Err(mismatch(rank, r, format!("rank {r} found ghost lists that disagree with its neighbours'"))),
            None => Ok(()),
        }
    }

    /// The body of a record: shape, mass, material, locked freedoms and loads from the scene.
    fn dynamic_body(&self, r: &BodyRecord) -> RigidBody {
        let b = &self.template.bodies;
        let g = r.gid as usize;
        RigidBody {
            shape: b.shape[g].clone(),
            mass: MassSource::Explicit(MassProperties { mass: b.mass[g], inertia: b.inertia[g] }),
            material: b.material[g],
            motion: Motion::Dynamic,
            locked: b.locked[g],
            state: BodyState {
                position: r.position,
                orientation: r.orientation,
                velocity: r.velocity,
                angular_velocity: r.angular_velocity,
            },
            external_force: b.external_force[g],
            external_torque: b.external_torque[g],
        }
    }
}

/// A body of a rank's world being assembled.
enum Entry {
    /// A shared body with its force and torque.
    Shared(Box<RigidBody>, DVec3, DVec3),
    /// An owned or ghost body.
    Dynamic(BodyRecord),
}

/// The record of body `i` of the scene's world, at rest in the integrator's sense (no
/// force evaluated yet, no memory).
fn template_record(world: &World, i: usize) -> BodyRecord {
    let b = &world.bodies;
    BodyRecord { force: DVec3::ZERO, torque: DVec3::ZERO, ..BodyRecord::of(b, i, b.handle[i].0, Vec::new()) }
}

/// The state of body `i` of `b` as the ghost refresh sends it.
fn ghost_state(b: &granula_core::BodySet, i: usize) -> GhostState {
    GhostState {
        position: b.position[i],
        orientation: b.orientation[i],
        velocity: b.velocity[i],
        angular_velocity: b.angular_velocity[i],
        force: b.force[i],
        torque: b.torque[i],
    }
}

/// The integrator's per-body memory by handle.
struct MemoryView<'a> {
    state: &'a IntegratorState,
    width: usize,
}

impl<'a> MemoryView<'a> {
    fn new(state: &'a IntegratorState) -> Self {
        MemoryView { state, width: state.values_per_body() }
    }

    /// The values of `h` (empty if it has none).
    fn of(&self, h: BodyHandle) -> &'a [f64] {
        match self.state.handles.binary_search(&h) {
            Ok(k) if self.width > 0 => &self.state.per_body[k * self.width..(k + 1) * self.width],
            _ => &[],
        }
    }
}

/// Overwrites the memory of `h` in `state` with `values` (of the state's width).
fn write_memory(state: &mut IntegratorState, h: BodyHandle, values: &[f64]) {
    let width = state.values_per_body();
    if width == 0 || values.len() != width {
        return;
    }
    if let Ok(k) = state.handles.binary_search(&h) {
        state.per_body[k * width..(k + 1) * width].copy_from_slice(values);
    }
}

/// A world without bodies, to hold the place of one lent out.
fn empty_world() -> World {
    World::builder().build().expect("the default world is valid")
}

/// The error of a rank for a step that failed on rank `r`.
fn elsewhere(r: usize) -> CoreError {
    CoreError::InvalidWorld { field: "distributed step", value: format!("failed on rank {r}"), expected: "every rank" }
}

/// A message that does not fit what the receiver holds.
fn mismatch(rank: usize, from: usize, reason: String) -> DistributedError {
    DistributedError::Message { rank, from, reason }
}

/// The solver's name in the scene, for an error.
fn solver_name(scene: &Scene) -> &'static str {
    match scene.spec.solver {
        SolverSpec::Md(_) => "md",
        SolverSpec::Nscd(_) => "nscd",
    }
}
