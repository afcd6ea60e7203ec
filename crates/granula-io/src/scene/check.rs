//! Validation helpers: each check returns an [`IoError`] naming the file, the key path, its
//! line and the value.

use super::source::{line_of, KeyPath};
use crate::error::{IoError, Location, Result};
use glam::DVec3;
use granula_core::{CoreError, MaterialId};
use std::collections::HashMap;

/// The context of a validation: the file name, its text, and the material names in id
/// order.
pub struct Check<'a> {
    /// The file name as given by the user.
    pub file: &'a str,
    /// The scene text.
    pub text: &'a str,
    /// Material names in id order.
    pub materials: Vec<String>,
    /// Material ids by name (the first of equal names), for lookups in constant time.
    ids: HashMap<String, u16>,
}

impl<'a> Check<'a> {
    /// The context of validating `text` (named `file`) with these material names in id
    /// order. Names beyond the `u16` range get no id (the scene's material limit refuses
    /// them first).
    pub fn new(file: &'a str, text: &'a str, materials: Vec<String>) -> Self {
        let mut ids = HashMap::with_capacity(materials.len());
        for (i, m) in materials.iter().enumerate() {
            if let Ok(id) = u16::try_from(i) {
                ids.entry(m.clone()).or_insert(id);
            }
        }
        Check { file, text, materials, ids }
    }

    /// The location of a key path.
    pub fn at(&self, path: &KeyPath) -> Location {
        Location { file: self.file.to_string(), key: path.to_string(), line: line_of(self.text, path) }
    }

    /// An [`IoError::Invalid`] at `path`.
    pub fn invalid(&self, path: &KeyPath, value: impl std::fmt::Debug, problem: impl Into<String>) -> IoError {
        IoError::Invalid { at: self.at(path), value: format!("{value:?}"), problem: problem.into() }
    }

    /// A finite value > 0.
    pub fn positive(&self, path: &KeyPath, v: f64) -> Result<f64> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(self.invalid(path, v, "must be finite and > 0"))
        }
    }

    /// A finite value ≥ 0.
    pub fn non_negative(&self, path: &KeyPath, v: f64) -> Result<f64> {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(self.invalid(path, v, "must be finite and >= 0"))
        }
    }

    /// A vector with finite components.
    pub fn vector(&self, path: &KeyPath, v: [f64; 3]) -> Result<DVec3> {
        let d = DVec3::from_array(v);
        if d.is_finite() {
            Ok(d)
        } else {
            Err(self.invalid(path, v, "components must be finite"))
        }
    }

    /// A finite non-zero direction (not normalised).
    pub fn direction(&self, path: &KeyPath, v: [f64; 3]) -> Result<DVec3> {
        let d = self.vector(path, v)?;
        if d.length() > 0.0 {
            Ok(d)
        } else {
            Err(self.invalid(path, v, "must be a non-zero direction"))
        }
    }

    /// The id of a material by name; `None` means the first material.
    pub fn material(&self, path: &KeyPath, name: Option<&String>) -> Result<MaterialId> {
        match name {
            None => Ok(MaterialId(0)),
            Some(n) => match self.ids.get(n) {
                Some(&i) => Ok(MaterialId(i)),
                None if self.materials.len() <= 16 => {
                    Err(self.invalid(path, n, format!("unknown material; the scene defines {:?}", self.materials)))
                }
                None => Err(self.invalid(
                    path,
                    n,
                    format!("unknown material; the scene defines {} materials", self.materials.len()),
                )),
            },
        }
    }

    /// Maps a core error about a body or material onto the key path of the item at fault.
    pub fn core(&self, path: &KeyPath, e: CoreError) -> IoError {
        match e {
            CoreError::InvalidBody { field, value, expected, .. } => {
                let p = if field.contains(' ') { path.clone() } else { path.key(field) };
                IoError::Invalid { at: self.at(&p), value, problem: format!("{field}: {expected}") }
            }
            CoreError::InvalidMaterial { field, value, expected, .. } => IoError::Invalid {
                at: self.at(&path.key(field)),
                value: format!("{value:?}"),
                problem: expected.into(),
            },
            other => IoError::Invalid { at: self.at(path), value: String::new(), problem: other.to_string() },
        }
    }
}
