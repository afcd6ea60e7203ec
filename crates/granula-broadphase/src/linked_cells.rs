//! Linked cells on a uniform grid, for polydisperse packings.
//!
//! Every bulk box is entered into the one cell holding its lower corner `min` (a counting
//! sort into a compact cell-start / entry array, rebuilt every call, with a copy of the
//! boxes in cell order so that scans read memory sequentially). If `E` is the longest edge
//! of all bulk boxes, a box `j` overlapping box `i` has its lower corner in
//! `[min_i − E, max_i]` on every axis, so body `i` scans the cells of that range (3 per axis
//! when cells have edge `E`; the cells of one x-row are contiguous and scanned as one slice)
//! and keeps the partners `j > i` whose boxes overlap its own. Each pair is found exactly
//! once, from its smaller index, without a hash set; each body sorts its short row of
//! partners, so the output comes out in ascending order without a global sort. Bodies of
//! any size ratio are handled exactly; a wide size distribution only costs more tests.

use crate::error::{positive, Result};
use crate::grid::Grid;
use crate::partition::{both_skipped, large_threshold, max_edge, Partition, DEFAULT_LARGE_RATIO};
use granula_core::{parallel, Aabb, Broadphase, DVec3};
use rayon::prelude::*;

/// How the cell edge is chosen at each call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CellSize {
    /// The longest edge of the largest bulk box: a body scans 3 cells per axis.
    LargestBody,
    /// `factor` times the mean longest edge of the bulk boxes: fewer bodies per cell in a
    /// wide size distribution, but every body scans `2 + E / edge` cells per axis.
    MeanBody {
        /// Multiple of the mean edge (> 0).
        factor: f64,
    },
    /// A fixed edge (m, > 0).
    Fixed(f64),
}

/// Linked-cells broadphase (see the module doc).
///
/// Cost per call: `O(n)` to classify the boxes, size the grid and fill the cells (one entry
/// per body), then per body the scan of `(2 + ⌈E / h⌉)³` cells (27 with the default
/// [`CellSize::LargestBody`]) holding `m` bodies each on average, i.e. about
/// `(2 + E / h)³ m / 2` box tests, plus the sort of its short partner row, plus `O(L n)` for
/// `L` walls or other large boxes kept out of the grid. Nothing but buffers is carried
/// between calls, so the cost does not depend on how far bodies moved; the number of cells
/// is at most `4 n + 64`, so bodies spread far apart cost memory `O(n)`.
#[derive(Clone, Debug)]
pub struct LinkedCells {
    cell_size: CellSize,
    large_ratio: f64,
    partition: Partition,
    grid: Grid,
    /// Longest edge of the bulk boxes of the current call.
    reach: f64,
    /// Cell of each bulk box's lower corner, by position in `partition.bulk`.
    home: Vec<u32>,
    start: Vec<u32>,
    cursor: Vec<u32>,
    entries: Vec<u32>,
    sorted_boxes: Vec<Aabb>,
    /// The per-task buffers of [`LinkedCells::collect_pairs`].
    runs: Vec<ScanRun>,
    /// Cell entries read by the scans of the last call.
    last_scanned: usize,
}

impl Default for LinkedCells {
    fn default() -> Self {
        Self::new()
    }
}

impl LinkedCells {
    /// Cells sized from the largest bulk body ([`CellSize::LargestBody`]).
    pub fn new() -> Self {
        LinkedCells {
            cell_size: CellSize::LargestBody,
            large_ratio: DEFAULT_LARGE_RATIO,
            partition: Partition::default(),
            grid: Grid::default(),
            reach: 0.0,
            home: Vec::new(),
            start: Vec::new(),
            cursor: Vec::new(),
            entries: Vec::new(),
            sorted_boxes: Vec::new(),
            runs: Vec::new(),
            last_scanned: 0,
        }
    }

    /// Chooses how cells are sized. Error when a factor or edge is not finite and > 0.
    pub fn with_cell_size(mut self, size: CellSize) -> Result<Self> {
        match size {
            CellSize::LargestBody => {}
            CellSize::MeanBody { factor } => {
                positive("cell_size.factor", factor)?;
            }
            CellSize::Fixed(edge) => {
                positive("cell_size.edge", edge)?;
            }
        }
        self.cell_size = size;
        Ok(self)
    }

    /// Sets the ratio between the edge of a box and the mean box edge above which the box is
    /// kept out of the grid and tested against all others. Error unless finite and > 0.
    pub fn with_large_ratio(mut self, ratio: f64) -> Result<Self> {
        self.large_ratio = positive("large_ratio", ratio)?;
        Ok(self)
    }

    /// The cell edge policy.
    pub fn cell_size(&self) -> CellSize {
        self.cell_size
    }

    /// Number of cells of the grid of the last call.
    pub fn cell_count(&self) -> usize {
        self.grid.len()
    }

    /// Cell entries the scans of the last call read (each one a candidate of the `j > i`
    /// filter and, past it, a box test): the machine-independent work of a call, some 27
    /// entries per body at the default cell size, whatever the motion.
    pub fn last_scanned(&self) -> usize {
        self.last_scanned
    }

    /// Sizes the grid over the bulk boxes and records the longest edge.
    fn fit_grid(&mut self, boxes: &[Aabb]) {
        let mut bounds = Aabb { min: DVec3::INFINITY, max: DVec3::NEG_INFINITY };
        let (mut largest, mut sum) = (0.0f64, 0.0);
        for &b in &self.partition.bulk {
            let bx = &boxes[b as usize];
            bounds.min = bounds.min.min(bx.min);
            bounds.max = bounds.max.max(bx.max);
            let e = max_edge(bx);
            largest = largest.max(e);
            sum += e;
        }
        let n = self.partition.bulk.len();
        let edge = match self.cell_size {
            CellSize::LargestBody => largest,
            CellSize::MeanBody { factor } => factor * sum / n.max(1) as f64,
            CellSize::Fixed(edge) => edge,
        };
        // Boxes of zero size (points) give no edge: fall back to one cell per body on average.
        let edge = if edge > 0.0 { edge } else { max_edge(&bounds) / (n.max(1) as f64).cbrt() };
        self.grid = Grid::fit(&bounds, edge, 4 * n + 64);
        self.reach = largest;
    }

    /// Enters every bulk box into the cell of its lower corner (counting sort: entries of a
    /// cell come out in ascending body order), with a copy of the boxes in the same order.
    fn fill_cells(&mut self, boxes: &[Aabb]) {
        let cells = self.grid.len();
        self.start.clear();
        self.start.resize(cells + 1, 0);
        self.home.clear();
        for &b in &self.partition.bulk {
            let c = self.grid.index(self.grid.cell_of(boxes[b as usize].min));
            self.start[c + 1] += 1;
            self.home.push(c as u32);
        }
        for c in 0..cells {
            self.start[c + 1] += self.start[c];
        }
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.start[..cells]);
        let filled = self.start[cells] as usize;
        self.entries.clear();
        self.entries.resize(filled, 0);
        self.sorted_boxes.clear();
        self.sorted_boxes.resize(filled, Aabb { min: DVec3::ZERO, max: DVec3::ZERO });
        for (&b, &c) in self.partition.bulk.iter().zip(&self.home) {
            let at = self.cursor[c as usize] as usize;
            self.entries[at] = b;
            self.sorted_boxes[at] = boxes[b as usize];
            self.cursor[c as usize] += 1;
        }
    }

    /// Appends the bulk–bulk pairs in ascending order: the bulk bodies in runs of
    /// [`SCAN_RUN`], each run's pairs into its own buffer (in parallel on a rayon pool when
    /// there are several runs), then the buffers in run order. A run's pairs depend on its
    /// bodies only, so the list is the same on any number of threads.
    fn collect_pairs(&mut self, boxes: &[Aabb], skip: &[bool], pairs: &mut Vec<(u32, u32)>) {
        let runs = self.partition.bulk.len().div_ceil(SCAN_RUN);
        if self.runs.len() < runs {
            self.runs.resize_with(runs, ScanRun::default);
        }
        let cells = CellScan {
            grid: &self.grid,
            start: &self.start,
            entries: &self.entries,
            sorted_boxes: &self.sorted_boxes,
            // The reach is padded so that rounding can only widen the scanned range: E (1 + 1e-9)
            // exceeds any edge computed with round-off, and 4 ε |min| covers the subtraction.
            reach: self.reach * (1.0 + 1e-9),
            boxes,
            skip,
        };
        self.partition
            .bulk
            .par_chunks(SCAN_RUN)
            .zip(self.runs[..runs].par_iter_mut())
            .with_min_len(parallel::min_len(1))
            .for_each(|(bodies, run)| cells.scan(bodies, run));
        self.last_scanned = 0;
        for run in &self.runs[..runs] {
            pairs.extend_from_slice(&run.pairs);
            self.last_scanned += run.scanned;
        }
    }
}

/// Bulk bodies per task of [`LinkedCells::collect_pairs`]: a body scans 27 cells in some
/// 150-300 ns, so a run takes a few hundred microseconds, far above what handing it to
/// another thread costs, and a packing of 10⁴ bodies makes five runs.
const SCAN_RUN: usize = 2048;

/// The pairs of one run of bulk bodies, and the partner row of the body being scanned.
#[derive(Clone, Debug, Default)]
struct ScanRun {
    pairs: Vec<(u32, u32)>,
    row: Vec<u32>,
    /// Cell entries read.
    scanned: usize,
}

/// What every run of [`LinkedCells::collect_pairs`] reads: the filled grid and the boxes.
struct CellScan<'a> {
    grid: &'a Grid,
    start: &'a [u32],
    entries: &'a [u32],
    sorted_boxes: &'a [Aabb],
    reach: f64,
    boxes: &'a [Aabb],
    skip: &'a [bool],
}

impl CellScan<'_> {
    /// The pairs `(i, j)`, `j > i`, of the bodies `i` of `bodies` (ascending), in ascending
    /// order, into `run.pairs` (cleared first).
    fn scan(&self, bodies: &[u32], run: &mut ScanRun) {
        let ScanRun { pairs, row, scanned } = run;
        pairs.clear();
        *scanned = 0;
        for &i in bodies {
            let bi = &self.boxes[i as usize];
            let pad = DVec3::splat(self.reach) + bi.min.abs() * (4.0 * f64::EPSILON);
            let lo = self.grid.cell_of(bi.min - pad);
            let hi = self.grid.cell_of(bi.max);
            row.clear();
            for cz in lo[2]..=hi[2] {
                for cy in lo[1]..=hi[1] {
                    let first = self.start[self.grid.index([lo[0], cy, cz])] as usize;
                    let last = self.start[self.grid.index([hi[0], cy, cz]) + 1] as usize;
                    *scanned += last - first;
                    for (&j, bj) in self.entries[first..last].iter().zip(&self.sorted_boxes[first..last]) {
                        if j > i && bi.overlaps(bj) {
                            row.push(j);
                        }
                    }
                }
            }
            row.sort_unstable();
            pairs.extend(row.iter().filter(|&&j| !both_skipped(self.skip, i as usize, j as usize)).map(|&j| (i, j)));
        }
    }
}

impl Broadphase for LinkedCells {
    fn name(&self) -> &'static str {
        "linked_cells"
    }

    fn find_pairs(&mut self, boxes: &[Aabb], skip: &[bool], pairs: &mut Vec<(u32, u32)>) {
        let threshold = large_threshold(boxes, self.large_ratio);
        self.partition.split(boxes, threshold);
        self.fit_grid(boxes);
        self.fill_cells(boxes);
        pairs.clear();
        self.collect_pairs(boxes, skip, pairs);
        self.partition.merge_large_pairs(boxes, skip, pairs);
    }
}
