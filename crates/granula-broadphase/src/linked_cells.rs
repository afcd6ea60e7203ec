//! Linked cells on a uniform grid, for polydisperse packings.
//!
//! Every bulk box is entered into each cell it spans (a counting sort into a compact
//! cell-start / entry array, rebuilt every call). A pair of overlapping boxes then shares at
//! least one cell, in particular the cell holding the lower corner of their intersection,
//! `max(min_i, min_j)`: the pair is reported only from that cell, so each pair is found
//! exactly once without a hash set. Body `i` scans the cells it spans for entries `j > i`,
//! sorts its short row of partners and appends it, so the output comes out in ascending
//! order without a global sort.

use crate::error::{positive, Result};
use crate::grid::Grid;
use crate::partition::{both_skipped, large_threshold, max_edge, Partition, DEFAULT_LARGE_RATIO};
use granula_core::{Aabb, Broadphase, DVec3};

/// How the cell edge is chosen at each call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CellSize {
    /// The longest edge of the largest bulk box: every box spans at most 2 cells per axis.
    LargestBody,
    /// `factor` times the mean longest edge of the bulk boxes: better for wide size
    /// distributions, where big bodies then span many cells but small ones share few.
    MeanBody {
        /// Multiple of the mean edge (> 0).
        factor: f64,
    },
    /// A fixed edge (m, > 0).
    Fixed(f64),
}

/// Linked-cells broadphase (see the module doc).
///
/// Cost per call: `O(n)` to size the grid and classify the boxes, `O(n c)` to fill the cells
/// for `c` cells spanned per box (1 to 8 with [`CellSize::LargestBody`]), `O(n m c)` box tests
/// for `m` entries per cell, plus the sort of each body's short partner row, plus `O(L n)`
/// for `L` walls or other large boxes kept out of the grid. No state is carried between
/// calls except buffers; the number of cells is at most `4 n + 64`.
#[derive(Clone, Debug)]
pub struct LinkedCells {
    cell_size: CellSize,
    large_ratio: f64,
    partition: Partition,
    grid: Grid,
    /// Cell span `[lo, hi]` of each bulk box, by position in `partition.bulk`.
    spans: Vec<[[usize; 3]; 2]>,
    start: Vec<u32>,
    cursor: Vec<u32>,
    entries: Vec<u32>,
    row: Vec<u32>,
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
            spans: Vec::new(),
            start: Vec::new(),
            cursor: Vec::new(),
            entries: Vec::new(),
            row: Vec::new(),
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

    /// Sizes the grid over the bulk boxes.
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
    }

    /// Enters every bulk box into the cells it spans (counting sort: entries of a cell come
    /// out in ascending body order).
    fn fill_cells(&mut self, boxes: &[Aabb]) {
        let cells = self.grid.len();
        self.start.clear();
        self.start.resize(cells + 1, 0);
        self.spans.clear();
        for &b in &self.partition.bulk {
            let bx = &boxes[b as usize];
            let span = [self.grid.cell_of(bx.min), self.grid.cell_of(bx.max)];
            for_each_cell(&self.grid, span, |c| self.start[c + 1] += 1);
            self.spans.push(span);
        }
        for c in 0..cells {
            self.start[c + 1] += self.start[c];
        }
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.start[..cells]);
        self.entries.clear();
        self.entries.resize(self.start[cells] as usize, 0);
        for (k, &b) in self.partition.bulk.iter().enumerate() {
            for_each_cell(&self.grid, self.spans[k], |c| {
                self.entries[self.cursor[c] as usize] = b;
                self.cursor[c] += 1;
            });
        }
    }

    /// Appends the bulk–bulk pairs in ascending order.
    fn collect_pairs(&mut self, boxes: &[Aabb], skip: &[bool], pairs: &mut Vec<(u32, u32)>) {
        for (k, &i) in self.partition.bulk.iter().enumerate() {
            let bi = &boxes[i as usize];
            self.row.clear();
            let [lo, hi] = self.spans[k];
            for cz in lo[2]..=hi[2] {
                for cy in lo[1]..=hi[1] {
                    for cx in lo[0]..=hi[0] {
                        let here = [cx, cy, cz];
                        let c = self.grid.index(here);
                        let cell = &self.entries[self.start[c] as usize..self.start[c + 1] as usize];
                        let first = cell.partition_point(|&j| j <= i);
                        for &j in &cell[first..] {
                            let bj = &boxes[j as usize];
                            // Report the pair only from the cell of the intersection's lower corner.
                            if bi.overlaps(bj) && self.grid.cell_of(bi.min.max(bj.min)) == here {
                                self.row.push(j);
                            }
                        }
                    }
                }
            }
            self.row.sort_unstable();
            for &j in &self.row {
                if !both_skipped(skip, i as usize, j as usize) {
                    pairs.push((i, j));
                }
            }
        }
    }
}

/// Calls `f` with the linear index of every cell in the span `[lo, hi]`.
#[inline]
fn for_each_cell(grid: &Grid, [lo, hi]: [[usize; 3]; 2], mut f: impl FnMut(usize)) {
    for cz in lo[2]..=hi[2] {
        for cy in lo[1]..=hi[1] {
            for cx in lo[0]..=hi[0] {
                f(grid.index([cx, cy, cz]));
            }
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
