//! Spatial decomposition of the box of the bodies into one subdomain per rank: a regular
//! grid chosen from the rank count and the box's shape, or recursive coordinate bisection
//! (RCB) of the bodies themselves for load balance. The outer faces of the outer subdomains
//! lie at infinity, so that every position has exactly one owner.
//!
//! **Periodic axes.** Along a periodic axis of period L = hi − lo, the subdomains cut the
//! period `[lo, hi)`: a body is owned by the subdomain that holds its wrapped position
//! (positions are stored unwrapped), and its distance to a subdomain is the smallest over
//! its images, so that a body near the face x = hi is a ghost of the rank at x = lo. A rank
//! holds every body at most once, whatever the images within its halo: the solver pairs
//! each owned body with the image of each partner nearest to it (the minimum image, as on
//! one process), which is the image in contact when L is at least twice the interaction
//! range ([`DistributedError::PeriodTooShort`] otherwise).

use crate::error::DistributedError;
use granula_core::{DVec3, PeriodicDomain};

/// One rank's subdomain: the half-open box `lo <= x < hi` (faces may be infinite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Subdomain {
    /// Lower corner.
    pub lo: DVec3,
    /// Upper corner.
    pub hi: DVec3,
}

impl Subdomain {
    /// Whether `x` is inside (lower faces included, upper ones excluded).
    pub fn contains(&self, x: DVec3) -> bool {
        x.cmpge(self.lo).all() && x.cmplt(self.hi).all()
    }

    /// Distance from `x` to the box (0 inside).
    pub fn distance(&self, x: DVec3) -> f64 {
        let below = (self.lo - x).max(DVec3::ZERO);
        let above = (x - self.hi).max(DVec3::ZERO);
        (below + above).length()
    }
}

/// The subdomains of all ranks and the interaction range they were checked against.
#[derive(Clone, Debug, PartialEq)]
pub struct Decomposition {
    /// Subdomain of each rank.
    pub subdomains: Vec<Subdomain>,
    /// The interaction range (m): largest diameter + law range + skin.
    pub cutoff: f64,
    /// The world's periodic axes (none by default): owners and distances are taken
    /// modulo their periods.
    pub periodic: PeriodicDomain,
}

const AXES: [char; 3] = ['x', 'y', 'z'];

impl Decomposition {
    /// The regular grid `px × py × pz = ranks` over the box `[lo, hi]` whose cells are at
    /// least `cutoff` thick and whose internal faces have the least total area (the ghost
    /// layers are proportional to it). Ranks are numbered x fastest.
    pub fn grid(lo: DVec3, hi: DVec3, ranks: usize, cutoff: f64) -> Result<Decomposition, DistributedError> {
        let extent = (hi - lo).max(DVec3::ZERO);
        let fits = |n: [usize; 3]| (0..3).all(|a| n[a] == 1 || extent[a] / n[a] as f64 >= cutoff);
        let area = |n: [usize; 3]| {
            let e = extent.max(DVec3::splat(cutoff));
            (n[0] - 1) as f64 * e.y * e.z + (n[1] - 1) as f64 * e.x * e.z + (n[2] - 1) as f64 * e.x * e.y
        };
        let mut best: Option<[usize; 3]> = None;
        for px in (1..=ranks).filter(|p| ranks.is_multiple_of(*p)) {
            for py in (1..=ranks / px).filter(|p| (ranks / px).is_multiple_of(*p)) {
                let n = [px, py, ranks / px / py];
                if fits(n) && best.is_none_or(|b| area(n) < area(b)) {
                    best = Some(n);
                }
            }
        }
        let Some(n) = best else {
            let fit = (0..3).map(|a| ((extent[a] / cutoff).floor() as usize).max(1)).product();
            return Err(DistributedError::TooManyRanks { ranks, extent: extent.to_array(), cutoff, fit });
        };
        let cut = |a: usize, k: usize| -> f64 {
            if k == 0 {
                f64::NEG_INFINITY
            } else if k == n[a] {
                f64::INFINITY
            } else {
                lo[a] + extent[a] * k as f64 / n[a] as f64
            }
        };
        let mut subdomains = Vec::with_capacity(ranks);
        for k in 0..n[2] {
            for j in 0..n[1] {
                for i in 0..n[0] {
                    subdomains.push(Subdomain {
                        lo: DVec3::new(cut(0, i), cut(1, j), cut(2, k)),
                        hi: DVec3::new(cut(0, i + 1), cut(1, j + 1), cut(2, k + 1)),
                    });
                }
            }
        }
        Ok(Decomposition { subdomains, cutoff, periodic: PeriodicDomain::default() })
    }

    /// Recursive coordinate bisection of `points` (positions) within the box `[lo, hi]`
    /// into `ranks` subdomains of nearly equal counts: each region is cut across its longest
    /// side at the count-weighted median of its points, the cut moved inwards when needed so
    /// that both sides stay at least `cutoff` thick (a cluster of bodies in a thin slab
    /// then gets fewer ranks than the median would give, never a thinner subdomain).
    /// Deterministic: ties in a coordinate keep the order of `points`.
    pub fn bisection(
        points: &[DVec3],
        lo: DVec3,
        hi: DVec3,
        ranks: usize,
        cutoff: f64,
    ) -> Result<Decomposition, DistributedError> {
        let mut subdomains = Vec::with_capacity(ranks);
        let outer = Subdomain { lo: DVec3::splat(f64::NEG_INFINITY), hi: DVec3::splat(f64::INFINITY) };
        let mut idx: Vec<u32> = (0..points.len() as u32).collect();
        bisect(points, &mut idx, outer, lo, hi, ranks, cutoff, &mut subdomains)
            .map_err(|fit| DistributedError::TooManyRanks { ranks, extent: (hi - lo).to_array(), cutoff, fit })?;
        let d = Decomposition { subdomains, cutoff, periodic: PeriodicDomain::default() };
        d.check(lo, hi)?;
        Ok(d)
    }

    /// Checks that every subdomain, clipped to the box `[lo, hi]`, is at least the
    /// interaction range thick along each axis on which it has a finite face.
    pub fn check(&self, lo: DVec3, hi: DVec3) -> Result<(), DistributedError> {
        for (rank, s) in self.subdomains.iter().enumerate() {
            for a in 0..3 {
                if s.lo[a].is_finite() || s.hi[a].is_finite() {
                    let thickness = s.hi[a].min(hi[a]) - s.lo[a].max(lo[a]);
                    // Both faces finite, or one face cutting the box: the slab between the
                    // faces (or the face and the box side) must hold the ghost layer.
                    if thickness < self.cutoff {
                        return Err(DistributedError::SubdomainTooThin {
                            rank,
                            axis: AXES[a],
                            thickness,
                            cutoff: self.cutoff,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The rank whose subdomain contains `x` (wrapped along the periodic axes; the first
    /// one if faces were to overlap).
    pub fn owner(&self, x: DVec3) -> usize {
        let x = self.periodic.wrap(x).0;
        self.subdomains.iter().position(|s| s.contains(x)).unwrap_or(0)
    }

    /// The ranks other than `owner` within `range` of `x` ([`Decomposition::distance`]):
    /// those that need a ghost copy of a body at `x`.
    pub fn halo(&self, x: DVec3, owner: usize, range: f64) -> impl Iterator<Item = usize> + '_ {
        let x = self.periodic.wrap(x).0;
        (0..self.subdomains.len()).filter(move |&r| r != owner && self.distance(r, x) <= range)
    }

    /// Distance from `x` to the subdomain of `rank`: along a periodic axis, from the
    /// nearest image of `x` to the subdomain's part of the period (`x` wrapped, so its
    /// images one period below and above are the only candidates); along the others, as
    /// [`Subdomain::distance`].
    pub fn distance(&self, rank: usize, x: DVec3) -> f64 {
        let s = &self.subdomains[rank];
        let gap = |v: f64, lo: f64, hi: f64| (lo - v).max(0.0) + (v - hi).max(0.0);
        let mut sum = 0.0;
        for k in 0..3 {
            let d = match self.periodic.period(granula_core::Axis::ALL[k]) {
                Some(p) => {
                    let (lo, hi, l) = (s.lo[k].max(p.lo), s.hi[k].min(p.hi), p.length());
                    gap(x[k], lo, hi).min(gap(x[k] - l, lo, hi)).min(gap(x[k] + l, lo, hi))
                }
                None => gap(x[k], s.lo[k], s.hi[k]),
            };
            sum += d * d;
        }
        sum.sqrt()
    }

    /// The box to decompose for bodies at `points` in a world of periodic axes `periodic`:
    /// the box of the centres (wrapped), replaced along each periodic axis by its period;
    /// a point for no body.
    pub fn bounds(points: impl Iterator<Item = DVec3>, periodic: &PeriodicDomain) -> (DVec3, DVec3) {
        let (mut lo, mut hi) = points
            .map(|x| periodic.wrap(x).0)
            .fold((DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)), |(lo, hi), x| (lo.min(x), hi.max(x)));
        if !lo.is_finite() {
            (lo, hi) = (DVec3::ZERO, DVec3::ZERO);
        }
        for (axis, p) in periodic.periodic_axes() {
            lo[axis.index()] = p.lo;
            hi[axis.index()] = p.hi;
        }
        (lo, hi)
    }

    /// [`Decomposition::grid`] over [`Decomposition::bounds`] of `points`, in the periodic
    /// world `periodic`, checked ([`Decomposition::check`] and the periods).
    pub fn grid_over(
        points: impl Iterator<Item = DVec3>,
        periodic: &PeriodicDomain,
        ranks: usize,
        cutoff: f64,
    ) -> Result<Decomposition, DistributedError> {
        let (lo, hi) = Self::bounds(points, periodic);
        let mut d = Self::grid(lo, hi, ranks, cutoff)?;
        d.periodic = *periodic;
        d.check_periods()?;
        d.check(lo, hi)?;
        Ok(d)
    }

    /// [`Decomposition::bisection`] of `points` (wrapped) over their
    /// [`Decomposition::bounds`] in the periodic world `periodic`, checked.
    pub fn bisection_over(
        points: &[DVec3],
        periodic: &PeriodicDomain,
        ranks: usize,
        cutoff: f64,
    ) -> Result<Decomposition, DistributedError> {
        let wrapped: Vec<DVec3> = points.iter().map(|x| periodic.wrap(*x).0).collect();
        let (lo, hi) = Self::bounds(wrapped.iter().copied(), periodic);
        let mut d = Self::bisection(&wrapped, lo, hi, ranks, cutoff)?;
        d.periodic = *periodic;
        d.check_periods()?;
        Ok(d)
    }

    /// Checks that every period is at least twice the interaction range: then a body is
    /// within the range of one image of a partner at most, and the solver's minimum image
    /// is that one ([`DistributedError::PeriodTooShort`] otherwise).
    pub fn check_periods(&self) -> Result<(), DistributedError> {
        if let Some(s) = self.periodic.shear() {
            let (flow, gradient) = (AXES[s.flow.index()], AXES[s.gradient.index()]);
            return Err(DistributedError::ShearNotSupported { flow, gradient });
        }
        for (axis, p) in self.periodic.periodic_axes() {
            if p.length() < 2.0 * self.cutoff {
                let axis = AXES[axis.index()];
                return Err(DistributedError::PeriodTooShort { axis, period: p.length(), cutoff: self.cutoff });
            }
        }
        Ok(())
    }
}

/// One level of [`Decomposition::bisection`]: `region` (the subdomain being cut, faces
/// possibly infinite) and `[lo, hi]` its part inside the box. `Err(fit)` when the region
/// cannot be cut into `ranks` pieces `cutoff` thick (`fit` of them would fit).
#[allow(clippy::too_many_arguments)]
fn bisect(
    points: &[DVec3],
    idx: &mut [u32],
    region: Subdomain,
    lo: DVec3,
    hi: DVec3,
    ranks: usize,
    cutoff: f64,
    out: &mut Vec<Subdomain>,
) -> Result<(), usize> {
    if ranks == 1 {
        out.push(region);
        return Ok(());
    }
    let extent = hi - lo;
    let axis = if extent.x >= extent.y && extent.x >= extent.z {
        0
    } else if extent.y >= extent.z {
        1
    } else {
        2
    };
    let left = ranks / 2;
    // Each side needs its number of slabs along some axis; along the cut axis at least one.
    if extent[axis] < 2.0 * cutoff {
        let fit = (0..3).map(|a| ((extent[a] / cutoff).floor() as usize).max(1)).product();
        return Err(fit);
    }
    idx.sort_by(|&a, &b| points[a as usize][axis].total_cmp(&points[b as usize][axis]));
    let k = idx.len() * left / ranks;
    let median = match (k.checked_sub(1).map(|m| idx[m]), idx.get(k)) {
        (Some(a), Some(&b)) => 0.5 * (points[a as usize][axis] + points[b as usize][axis]),
        _ => lo[axis] + extent[axis] * left as f64 / ranks as f64,
    };
    let cut = median.clamp(lo[axis] + cutoff, hi[axis] - cutoff);
    let split = idx.partition_point(|&i| points[i as usize][axis] < cut);
    let (below, above) = idx.split_at_mut(split);
    let (mut r_lo, mut r_hi) = (region, region);
    r_lo.hi[axis] = cut;
    r_hi.lo[axis] = cut;
    let (mut hi_lo, mut lo_hi) = (hi, lo);
    hi_lo[axis] = cut;
    lo_hi[axis] = cut;
    bisect(points, below, r_lo, lo, hi_lo, left, cutoff, out)?;
    bisect(points, above, r_hi, lo_hi, hi, ranks - left, cutoff, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lattice(n: usize, side: f64) -> Vec<DVec3> {
        let mut p = Vec::new();
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    p.push((DVec3::new(i as f64, j as f64, k as f64) + 0.5) * side / n as f64);
                }
            }
        }
        p
    }

    #[test]
    fn grid_cuts_the_long_side_of_a_flat_box() {
        // A 4 × 1 × 1 box on 4 ranks: cutting x only gives 3 faces of area 1 each, any
        // other grid cuts faces of area 4.
        let d = Decomposition::grid(DVec3::ZERO, DVec3::new(4.0, 1.0, 1.0), 4, 0.1).unwrap();
        assert_eq!(d.subdomains.len(), 4);
        assert_eq!(d.subdomains[1].lo.x, 1.0);
        assert_eq!(d.subdomains[1].lo.y, f64::NEG_INFINITY);
        // Every point has exactly one owner, also outside the box.
        for x in [DVec3::new(-5.0, 9.0, 0.0), DVec3::new(1.0, 0.5, 0.5), DVec3::new(3.99, -1.0, 7.0)] {
            assert_eq!(d.subdomains.iter().filter(|s| s.contains(x)).count(), 1);
        }
        assert_eq!(d.owner(DVec3::new(1.0, 0.5, 0.5)), 1);
    }

    #[test]
    fn too_many_ranks_for_the_box_is_an_error_naming_the_count() {
        // 1 m box, 0.3 m interaction range: three slabs fit along each axis, 27 in all; 7
        // ranks (prime) would need 7 slabs along one axis.
        let e = Decomposition::grid(DVec3::ZERO, DVec3::ONE, 7, 0.3).unwrap_err();
        assert!(matches!(e, DistributedError::TooManyRanks { ranks: 7, fit: 27, .. }), "{e}");
        assert!(e.to_string().contains("7 ranks"), "{e}");
    }

    #[test]
    fn bisection_balances_counts() {
        let p = lattice(10, 1.0);
        let d = Decomposition::bisection(&p, DVec3::ZERO, DVec3::ONE, 4, 0.1).unwrap();
        let mut counts = [0usize; 4];
        for x in &p {
            counts[d.owner(*x)] += 1;
        }
        // 1000 lattice points, cut at medians between lattice planes: 250 each exactly.
        assert_eq!(counts, [250; 4]);
    }

    #[test]
    fn bisection_never_cuts_thinner_than_the_range() {
        // Extreme cut: every body in a slab 0.05 thick at the bottom of a 1 m box, on 4
        // ranks with a 0.2 m range. The medians would cut inside the slab; the cuts move up
        // so every subdomain stays at least 0.2 m thick (and the check agrees).
        let p: Vec<DVec3> = lattice(10, 1.0).into_iter().map(|x| DVec3::new(x.x, x.y, x.z * 0.05)).collect();
        let (lo, hi) = (DVec3::ZERO, DVec3::new(1.0, 1.0, 1.0));
        let d = Decomposition::bisection(&p, lo, hi, 4, 0.2).unwrap();
        d.check(lo, hi).unwrap();
        for s in &d.subdomains {
            for a in 0..3 {
                let t = s.hi[a].min(hi[a]) - s.lo[a].max(lo[a]);
                assert!(t >= 0.2, "{s:?}");
            }
        }
        // A box too small for two slabs is refused.
        let e = Decomposition::bisection(&p, lo, DVec3::splat(0.3), 2, 0.2).unwrap_err();
        assert!(matches!(e, DistributedError::TooManyRanks { .. }), "{e}");
    }

    /// Periodic along x over [0, 1).
    fn periodic_x() -> PeriodicDomain {
        PeriodicDomain::default().with_axis(granula_core::Axis::X, 0.0, 1.0).unwrap()
    }

    #[test]
    fn along_a_periodic_axis_owners_and_ghosts_wrap_around() {
        // Bodies in 0.2 < x < 0.8 only, in a thin rod (only x can be cut), but x periodic
        // over [0, 1): the cuts split the period (0.25, 0.5, 0.75), not the box of the
        // centres.
        let points = [DVec3::new(0.2, 0.0, 0.0), DVec3::new(0.8, 0.05, 0.05)];
        let d = Decomposition::grid_over(points.into_iter(), &periodic_x(), 4, 0.1).unwrap();
        assert_eq!(d.subdomains[1].lo.x, 0.25);
        // A body 3 periods to the right of x = 0.3 (stored unwrapped) is rank 1's.
        assert_eq!(d.owner(DVec3::new(3.3, 0.0, 0.0)), 1);
        assert_eq!(d.owner(DVec3::new(-0.05, 0.0, 0.0)), 3);
        // A body at x = 0.97 (rank 3) is 0.03 from rank 0 through the face x = 1 ≡ 0, so
        // rank 0 holds a ghost of it; rank 2 is 0.22 away, beyond the range 0.1.
        let x = DVec3::new(0.97, 0.1, 0.1);
        // 0.97 − 1 rounds within 1e-16 of −0.03.
        assert!((d.distance(0, x) - 0.03).abs() < 1e-12);
        assert_eq!(d.halo(x, 3, 0.1).collect::<Vec<_>>(), vec![0]);
        // The same body one period further: the same ghosts.
        assert_eq!(d.halo(x + DVec3::X, 3, 0.1).collect::<Vec<_>>(), vec![0]);
        // Without the periodic axis, the cuts split the box of the centres (0.35, 0.5,
        // 0.65) and the body has no neighbour rank within range.
        let plain = Decomposition::grid(points[0], points[1], 4, 0.1).unwrap();
        assert_eq!(plain.halo(x, 3, 0.1).count(), 0);
    }

    #[test]
    fn a_period_shorter_than_two_ranges_is_refused_naming_the_axis() {
        // A period of 1 m and a range of 0.6 m: a body could touch two images of a partner.
        let e = Decomposition::grid_over([DVec3::ZERO].into_iter(), &periodic_x(), 1, 0.6).unwrap_err();
        assert!(matches!(e, DistributedError::PeriodTooShort { axis: 'x', .. }), "{e}");
        assert!(e.to_string().contains("along x"), "{e}");
        // Bisection after a rebalance checks the same.
        let e = Decomposition::bisection_over(&[DVec3::ZERO], &periodic_x(), 1, 0.6).unwrap_err();
        assert!(matches!(e, DistributedError::PeriodTooShort { .. }), "{e}");
    }

    #[test]
    fn bisection_over_a_periodic_axis_cuts_the_wrapped_positions() {
        // 1000 lattice points in the unit cube, each moved by a whole number of periods
        // along x (as unwrapped positions are): the same balance as without the moves.
        let p: Vec<DVec3> =
            lattice(10, 1.0).into_iter().enumerate().map(|(k, x)| x + DVec3::X * (k % 5) as f64 - DVec3::X).collect();
        let d = Decomposition::bisection_over(&p, &periodic_x(), 4, 0.1).unwrap();
        let mut counts = [0usize; 4];
        for x in &p {
            counts[d.owner(*x)] += 1;
        }
        assert_eq!(counts, [250; 4]);
    }

    #[test]
    fn a_thin_subdomain_is_named_in_the_error() {
        let d = Decomposition::grid(DVec3::ZERO, DVec3::new(1.0, 1.0, 1.0), 2, 0.1).unwrap();
        // The same cuts checked against a larger range: slabs 0.5 thick, range 0.6.
        let thin = Decomposition { cutoff: 0.6, ..d };
        let e = thin.check(DVec3::ZERO, DVec3::ONE).unwrap_err();
        assert!(matches!(e, DistributedError::SubdomainTooThin { rank: 0, .. }), "{e}");
    }
}
