//! A uniform grid of cubic cells over the bounding box of the bulk boxes.

use granula_core::{Aabb, DVec3};

/// Cell coordinates `[cx, cy, cz]`.
pub(crate) type CellCoord = [usize; 3];

/// A uniform grid: origin, cell edge and number of cells per axis. The number of cells is
/// capped (see [`Grid::fit`]) so that bodies spread far apart cost memory `O(n)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Grid {
    origin: DVec3,
    inv_edge: f64,
    dims: [usize; 3],
}

impl Default for Grid {
    fn default() -> Self {
        Grid { origin: DVec3::ZERO, inv_edge: 0.0, dims: [1, 1, 1] }
    }
}

impl Grid {
    /// A grid over `bounds` with cells of edge `edge` (or larger: the edge is increased
    /// until the grid has at most `max_cells` cells). A non-positive or non-finite `edge`
    /// or non-finite bounds give a single cell, which stays correct.
    pub fn fit(bounds: &Aabb, edge: f64, max_cells: usize) -> Self {
        let extent = bounds.size();
        if !(edge > 0.0 && edge.is_finite() && extent.is_finite()) {
            return Grid { origin: bounds.min, inv_edge: 0.0, dims: [1, 1, 1] };
        }
        let mut edge = edge;
        loop {
            let d = (extent / edge).floor() + DVec3::ONE;
            let cells = d.x * d.y * d.z;
            if cells <= max_cells as f64 {
                return Grid {
                    origin: bounds.min,
                    inv_edge: 1.0 / edge,
                    dims: [d.x as usize, d.y as usize, d.z as usize],
                };
            }
            // Grow the edge by the cube root of the excess (and a little more, to terminate).
            edge *= (cells / max_cells as f64).cbrt() * 1.001;
        }
    }

    /// Number of cells.
    #[inline]
    pub fn len(&self) -> usize {
        self.dims[0] * self.dims[1] * self.dims[2]
    }

    /// The cell holding point `p` (clamped to the grid; monotone in each coordinate).
    #[inline]
    pub fn cell_of(&self, p: DVec3) -> CellCoord {
        let mut c = [0usize; 3];
        for (k, ck) in c.iter_mut().enumerate() {
            // Truncation equals `floor` for t ≥ 0; negative (and NaN) values clamp to 0.
            let t = (p[k] - self.origin[k]) * self.inv_edge;
            *ck = if !(t >= 0.0) {
                0
            } else if t >= self.dims[k] as f64 {
                self.dims[k] - 1
            } else {
                t as usize
            };
        }
        c
    }

    /// Linear index of a cell.
    #[inline]
    pub fn index(&self, c: CellCoord) -> usize {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_clamped_and_capped() {
        let b = Aabb { min: DVec3::ZERO, max: DVec3::new(10.0, 1.0, 1.0) };
        let g = Grid::fit(&b, 1.0, 1000);
        // 10 / 1 + 1 = 11 cells along x, 2 along y and z.
        assert_eq!(g.dims, [11, 2, 2]);
        assert_eq!(g.cell_of(DVec3::new(-5.0, 0.5, 0.5)), [0, 0, 0]);
        assert_eq!(g.cell_of(DVec3::new(10.0, 1.0, 1.0)), [10, 1, 1]);
        assert_eq!(g.cell_of(DVec3::new(1e9, f64::NAN, 0.0)), [10, 0, 0]);
        let far = Aabb { min: DVec3::ZERO, max: DVec3::splat(1e12) };
        assert!(Grid::fit(&far, 1.0, 64).len() <= 64);
        assert_eq!(Grid::fit(&far, 0.0, 64).len(), 1);
    }
}
