//! Finding a key path in the scene text, so that validation errors can give a line.

use toml::de::{DeTable, DeValue};

/// One segment of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// A table key.
    Key(&'static str),
    /// An array index.
    Index(usize),
}

/// A key path such as `spheres[2].radius`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyPath(pub Vec<Seg>);

impl KeyPath {
    /// The root path.
    pub fn root() -> Self {
        KeyPath(Vec::new())
    }

    /// This path extended by a key.
    pub fn key(&self, k: &'static str) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Key(k));
        p
    }

    /// This path extended by an index.
    pub fn index(&self, i: usize) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }
}

impl std::fmt::Display for KeyPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (n, s) in self.0.iter().enumerate() {
            match s {
                Seg::Key(k) if n == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// 1-based line and column of byte offset `pos` in `text`.
pub fn line_column(text: &str, pos: usize) -> (usize, usize) {
    let pos = pos.min(text.len());
    let before = &text[..pos];
    let line = before.matches('\n').count() + 1;
    let column = before.rfind('\n').map_or(pos, |nl| pos - nl - 1) + 1;
    (line, column)
}

/// The 1-based line of the deepest part of `path` present in `text` (the value of the key
/// if present, otherwise its nearest enclosing table or array element).
pub fn line_of(text: &str, path: &KeyPath) -> Option<usize> {
    let doc = DeTable::parse(text).ok()?;
    let mut span = doc.span();
    let mut table: Option<&DeTable<'_>> = Some(doc.get_ref());
    let mut value: Option<&DeValue<'_>> = None;
    for seg in &path.0 {
        let next = match (seg, table, value) {
            (Seg::Key(k), Some(t), _) => t.get(*k),
            (Seg::Index(i), _, Some(v)) => v.get(*i),
            _ => None,
        };
        let Some(next) = next else { break };
        span = next.span();
        value = Some(next.get_ref());
        table = next.get_ref().as_table();
    }
    // An empty span (an implicit table) says nothing: fall back to no line.
    if span.is_empty() {
        return None;
    }
    Some(line_column(text, span.start).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_print_and_locate() {
        let text = "[simulation]\ndt = 1.0\n\n[[spheres]]\nradius = 1.0\n[[spheres]]\nradius = -2.0\n";
        let p = KeyPath::root().key("spheres").index(1).key("radius");
        assert_eq!(p.to_string(), "spheres[1].radius");
        assert_eq!(line_of(text, &p), Some(7));
        assert_eq!(line_of(text, &KeyPath::root().key("simulation").key("dt")), Some(2));
        assert_eq!(line_column("ab\ncd", 4), (2, 2));
    }
}
