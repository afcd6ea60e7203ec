//! Axis-aligned bounding boxes.

use crate::math::DVec3;

/// An axis-aligned box `[min, max]`; bounds may be infinite for walls. Serialisable, for
/// checkpoints of a broadphase's reference boxes.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Aabb {
    /// Lower corner.
    pub min: DVec3,
    /// Upper corner.
    pub max: DVec3,
}

impl Aabb {
    /// The box `center ± half_extent`.
    #[inline]
    pub fn around(center: DVec3, half_extent: DVec3) -> Self {
        Aabb { min: center - half_extent, max: center + half_extent }
    }

    /// The box grown by `margin` on every side.
    #[inline]
    pub fn inflated(&self, margin: f64) -> Self {
        Aabb { min: self.min - DVec3::splat(margin), max: self.max + DVec3::splat(margin) }
    }

    /// `true` when the two closed boxes intersect on all three axes.
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
            && self.min.z <= other.max.z
            && other.min.z <= self.max.z
    }

    /// `true` when `inner` lies inside this box (faces may touch).
    #[inline]
    pub fn contains(&self, inner: &Aabb) -> bool {
        self.min.cmple(inner.min).all() && inner.max.cmple(self.max).all()
    }

    /// `true` when every bound is finite.
    #[inline]
    pub fn is_bounded(&self) -> bool {
        self.min.is_finite() && self.max.is_finite()
    }

    /// Edge lengths.
    #[inline]
    pub fn size(&self) -> DVec3 {
        self.max - self.min
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_boxes_overlap_and_separated_do_not() {
        let a = Aabb::around(DVec3::ZERO, DVec3::ONE);
        let b = Aabb::around(DVec3::new(2.0, 0.0, 0.0), DVec3::ONE);
        let c = Aabb::around(DVec3::new(2.0 + 1e-9, 0.0, 0.0), DVec3::ONE);
        assert!(a.overlaps(&b));
        assert!(!a.overlaps(&c));
        let wall = Aabb {
            min: DVec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0),
            max: DVec3::new(f64::INFINITY, f64::INFINITY, 0.0),
        };
        assert!(wall.overlaps(&a));
        assert!(!wall.is_bounded());
    }
}
