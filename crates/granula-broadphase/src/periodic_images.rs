//! Pairs across periodic boundaries: boxes wrapped into the periodic range, and images
//! (ghost boxes) of the boxes near its faces, searched by any backend together.
//!
//! Along a periodic axis of range `[lo, hi)` and period `L`, a bounded box is first moved
//! by a whole number of periods so that its centre lies in `[lo, hi)` (positions may be
//! unwrapped). If `e` is the longest bounded edge along the axis, a box `j` whose image
//! one period away overlaps a box `i` has its centre within `e` of the face it is imaged
//! across: `|c_j ± L − c_i| ≤ (e_i + e_j)/2 ≤ e` with `c_i` in the range. So only the
//! boxes whose centre lies within `e` of `lo` get an image at `+L`, and those within `e`
//! of `hi` one at `−L` (on several axes: every combination, up to 7 images for a box in
//! a corner). The backend then finds the pairs among the wrapped boxes and their images;
//! a pair of a box and an image of `j` is the pair `(i, j)`, and a pair of two images
//! repeats one of those (it is the translate of a pair of a box and an image, which
//! exists by the argument above) and is dropped. The same pair may come from both sides
//! (the image of `j` near `i` and the image of `i` near `j`, which round-off may make
//! disagree at exact touching): each pair is kept once, in ascending order. The backend's
//! pairs of two boxes come sorted already; only the pairs through an image are sorted and
//! merged in.
//!
//! A box unbounded along a periodic axis (a floor spanning a periodic x) is neither
//! wrapped nor imaged along it: it overlaps every image anyway, and its pairs with the
//! images of a box are the same pair as with the box.
//!
//! Under Lees-Edwards shear ([`PeriodicDomain::with_shear`]) a box is wrapped along the
//! gradient axis first, moved along the flow axis by the offset once per period crossed,
//! then along the other axes (the unwrapped position of a body that crossed the sliding
//! faces is that of one of its images). The images one period up
//! (down) the gradient axis are also moved by +s (−s) along the flow axis, s the offset set
//! by [`PeriodicImages::set_shear_offset`], then wrapped along the flow axis by their
//! centre and grown by the slack δ on both sides along it, and imaged across the flow
//! faces from there. A pair found through such an image stays found while the offset moves
//! by at most δ from the value of the search: the caller (the MD solver) searches again
//! before it has.
//!
//! The images are extra boxes in the backend's search, a fraction `≈ 2e/L` per periodic
//! axis of all boxes; the wrapping and the merge cost `O(n + P + I log I)` per rebuild for
//! `I` pairs through an image.

use crate::partition::is_void;
use granula_core::{Aabb, Axis, Broadphase, PeriodicDomain};

/// Wrapped boxes, their images, and the buffers of the search (reused from call to call).
#[derive(Clone, Debug, Default)]
pub struct PeriodicImages {
    domain: PeriodicDomain,
    /// The wrapped boxes, then the images.
    boxes: Vec<Aabb>,
    /// Skip flags of `boxes`.
    skip: Vec<bool>,
    /// For each image, the body it is an image of.
    image_of: Vec<u32>,
    /// The backend's pairs among `boxes`.
    raw: Vec<(u32, u32)>,
    /// The pairs that go through an image, sorted apart and merged into the others.
    across: Vec<(u32, u32)>,
    /// Lees-Edwards offset s of the images one period up the gradient axis (m).
    offset: f64,
    /// Growth δ of the sheared images along the flow axis, each side (m).
    slack: f64,
}

impl PeriodicImages {
    /// The images of the periodic axes of `domain`.
    pub fn new(domain: PeriodicDomain) -> Self {
        PeriodicImages { domain, ..Default::default() }
    }

    /// Sets the Lees-Edwards offset `offset` (m) of the images one period up the gradient
    /// axis for the next searches, and the growth `slack` (m, ≥ 0) of those images along
    /// the flow axis on each side: the pairs found stay complete while the offset moves by
    /// at most `slack`. Ignored without shear.
    pub fn set_shear_offset(&mut self, offset: f64, slack: f64) {
        self.offset = offset;
        self.slack = slack.max(0.0);
    }

    /// The periodic axes.
    pub fn domain(&self) -> &PeriodicDomain {
        &self.domain
    }

    /// Number of images made at the last call.
    pub fn images(&self) -> usize {
        self.image_of.len()
    }

    /// Fills `pairs` with every `(i, j)`, `i < j`, sorted, without duplicates, such that
    /// `boxes[i]` overlaps `boxes[j]` or one of its images a whole number of periods away
    /// along the periodic axes, leaving out pairs whose two `skip` flags are set. Exact when
    /// every bounded box is at most half a period long along each periodic axis (else a
    /// pair may also be missed beyond the nearest image).
    pub fn find_pairs<B: Broadphase + ?Sized>(
        &mut self,
        backend: &mut B,
        boxes: &[Aabb],
        skip: &[bool],
        pairs: &mut Vec<(u32, u32)>,
    ) {
        let n = boxes.len();
        // (axis index, lower bound, period) of each periodic axis, without allocating.
        let mut axes = [(0usize, 0.0f64, 0.0f64); 3];
        let mut count = 0;
        for (a, p) in self.domain.periodic_axes() {
            axes[count] = (a.index(), p.lo, p.length());
            count += 1;
        }
        let periodic = &axes[..count];
        // The longest bounded edge along each periodic axis.
        let mut reach = [0.0f64; 3];
        for b in boxes.iter().filter(|b| !is_void(b)) {
            for &(k, _, _) in periodic {
                let e = b.max[k] - b.min[k];
                if e.is_finite() {
                    reach[k] = reach[k].max(e);
                }
            }
        }
        self.boxes.clear();
        self.skip.clear();
        self.image_of.clear();
        let shear = self.domain.shear().map(|s| (s.flow.index(), s.gradient.index()));
        for (i, b) in boxes.iter().enumerate() {
            let mut w = *b;
            if !is_void(b) {
                if let Some((f, g)) = shear {
                    // Lees-Edwards: the box n periods up the gradient is the image of one in
                    // the range moved by n offsets along the flow (wrapped next).
                    let (lo, l) = periodic.iter().find(|a| a.0 == g).map_or((0.0, 1.0), |a| (a.1, a.2));
                    if (b.max[g] - b.min[g]).is_finite() {
                        let n = ((0.5 * (b.min[g] + b.max[g]) - lo) / l).floor();
                        w.min[g] -= n * l;
                        w.max[g] -= n * l;
                        w.min[f] -= n * self.offset;
                        w.max[f] -= n * self.offset;
                    }
                }
                for &(k, lo, l) in periodic {
                    if shear.is_some_and(|(_, g)| g == k) {
                        continue;
                    }
                    let b = w;
                    if (b.max[k] - b.min[k]).is_finite() {
                        let centre = 0.5 * (b.min[k] + b.max[k]);
                        let shift = l * ((centre - lo) / l).floor();
                        w.min[k] -= shift;
                        w.max[k] -= shift;
                    }
                }
            }
            self.boxes.push(w);
            self.skip.push(skip.get(i).copied().unwrap_or(false));
        }
        // Under shear, the flow's reach grows by the slack on each side of the sheared images.
        let mut sheared_reach = reach;
        if let Some((f, _)) = shear {
            sheared_reach[f] += 2.0 * self.slack;
        }
        for i in 0..n {
            let w = self.boxes[i];
            if is_void(&w) {
                continue;
            }
            match shear {
                None => self.push_images(i, w, None, periodic, &reach),
                Some((f, g)) => {
                    // The images along the gradient first, each moved along the flow by the
                    // offset and wrapped there, then imaged across the other faces.
                    self.push_images(i, w, Some(g), periodic, &reach);
                    let (lo_g, l_g) = periodic.iter().find(|a| a.0 == g).map_or((0.0, 0.0), |a| (a.1, a.2));
                    let centre = 0.5 * (w.min[g] + w.max[g]);
                    for up in [1.0, -1.0] {
                        let near = if up > 0.0 { centre < lo_g + reach[g] } else { centre >= lo_g + l_g - reach[g] };
                        if !near {
                            continue;
                        }
                        let image = self.sheared_image(w, f, g, up, l_g);
                        self.boxes.push(image);
                        self.skip.push(self.skip[i]);
                        self.image_of.push(i as u32);
                        self.push_images(i, image, Some(g), periodic, &sheared_reach);
                    }
                }
            }
        }
        backend.find_pairs(&self.boxes, &self.skip, &mut self.raw);
        // The backend's list is sorted, so its pairs of two boxes come in order; only those
        // through an image (a small share, ≈ 2e/L per axis) are sorted, then merged in.
        pairs.clear();
        self.across.clear();
        for &(a, b) in &self.raw {
            let (a, b) = (a as usize, b as usize);
            if a >= n {
                // Two images: the translate of a pair of a box and an image.
                continue;
            }
            if b < n {
                pairs.push((a as u32, b as u32));
                continue;
            }
            let (a, j) = (a as u32, self.image_of[b - n]);
            if a != j {
                self.across.push((a.min(j), a.max(j)));
            }
        }
        self.across.sort_unstable();
        merge_unique(pairs, &self.across, &mut self.raw);
    }
}

impl PeriodicImages {
    /// Pushes the images of box `i`'s (wrapped) box `w` a period away across the faces it
    /// lies within `reach` of, on every periodic axis but `fixed` (the sheared gradient
    /// axis, imaged apart), every combination except `w` itself.
    fn push_images(
        &mut self,
        i: usize,
        w: Aabb,
        fixed: Option<usize>,
        periodic: &[(usize, f64, f64)],
        reach: &[f64; 3],
    ) {
        // Per axis, the shifts (in periods) of the images: 0 and, near a face, ±1.
        let mut options = [[0i8; 3]; 3];
        let mut counts = [1usize; 3];
        for &(k, lo, l) in periodic {
            if Some(k) == fixed || !(w.max[k] - w.min[k]).is_finite() {
                continue;
            }
            let centre = 0.5 * (w.min[k] + w.max[k]);
            if centre < lo + reach[k] {
                options[k][counts[k]] = 1;
                counts[k] += 1;
            }
            if centre >= lo + l - reach[k] {
                options[k][counts[k]] = -1;
                counts[k] += 1;
            }
        }
        for &gx in &options[0][..counts[0]] {
            for &gy in &options[1][..counts[1]] {
                for &gz in &options[2][..counts[2]] {
                    if (gx, gy, gz) == (0, 0, 0) {
                        continue;
                    }
                    let mut image = w;
                    for (k, g) in [gx, gy, gz].into_iter().enumerate() {
                        if g != 0 {
                            let l = self.domain.period(Axis::ALL[k]).map_or(0.0, |p| p.length());
                            image.min[k] += f64::from(g) * l;
                            image.max[k] += f64::from(g) * l;
                        }
                    }
                    self.boxes.push(image);
                    self.skip.push(self.skip[i]);
                    self.image_of.push(i as u32);
                }
            }
        }
    }

    /// The Lees-Edwards image of the wrapped box `w` one period up (`up` = 1) or down (−1)
    /// the gradient axis `g` (period `l_g`): moved by `up` × (offset along the flow axis `f`,
    /// `l_g` along `g`), wrapped along `f` by its centre, grown by the slack along `f`.
    fn sheared_image(&self, w: Aabb, f: usize, g: usize, up: f64, l_g: f64) -> Aabb {
        let mut image = w;
        image.min[g] += up * l_g;
        image.max[g] += up * l_g;
        if let Some(p) = self.domain.period(Axis::ALL[f]) {
            let centre = 0.5 * (w.min[f] + w.max[f]) + up * self.offset;
            let shift = up * self.offset - p.length() * ((centre - p.lo) / p.length()).floor();
            image.min[f] += shift - self.slack;
            image.max[f] += shift + self.slack;
        }
        image
    }
}

/// Replaces the sorted `pairs` by the sorted union of `pairs` and the sorted `more`, each
/// pair once, through `scratch`.
fn merge_unique(pairs: &mut Vec<(u32, u32)>, more: &[(u32, u32)], scratch: &mut Vec<(u32, u32)>) {
    if more.is_empty() {
        return;
    }
    scratch.clear();
    let (mut i, mut k) = (0, 0);
    while i < pairs.len() || k < more.len() {
        let next = if k == more.len() || (i < pairs.len() && pairs[i] <= more[k]) {
            i += 1;
            pairs[i - 1]
        } else {
            k += 1;
            more[k - 1]
        };
        if scratch.last() != Some(&next) {
            scratch.push(next);
        }
    }
    std::mem::swap(pairs, scratch);
}
