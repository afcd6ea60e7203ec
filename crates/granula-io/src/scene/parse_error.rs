//! Key and line of a schema error whose position serde lost. Inside an internally tagged
//! table (`[solver]`, keyed by `kind`) serde reads the table as a whole before choosing the
//! variant, so an unknown name or key is reported at the table's header without the key.
//! The offending key is found again in the text: the line, below the reported position and
//! before the next table header, that sets the unknown key or holds the unknown name. The
//! names of an unknown-name message are quoted as TOML strings.

use super::source::line_column;

/// The 1-based line and column of the offending key, and the message prefixed with its
/// key path, for an "unknown variant" or "unknown field" error reported at byte `at`;
/// `None` when the message is of another kind or the key is not found.
pub(crate) fn locate(text: &str, at: usize, message: &str) -> Option<(usize, usize, String)> {
    let (variant, name) = if let Some(rest) = message.strip_prefix("unknown variant `") {
        (true, rest.split('`').next()?)
    } else if let Some(rest) = message.strip_prefix("unknown field `") {
        (false, rest.split('`').next()?)
    } else {
        return None;
    };
    let lines: Vec<&str> = text.lines().collect();
    let (first, _) = line_column(text, at);
    for (i, line) in lines.iter().enumerate().skip(first.saturating_sub(1)) {
        let t = line.trim_start();
        if i + 1 > first && t.starts_with('[') {
            break;
        }
        let Some((key, value)) = t.split_once('=') else { continue };
        let key = key.trim();
        let value = value.split('#').next().unwrap_or("").trim();
        let hit = if variant { value == format!("\"{name}\"") || value == format!("'{name}'") } else { key == name };
        if hit {
            let column = line.len() - t.len() + 1;
            let path = match table_of(&lines, i) {
                Some(table) => format!("{table}.{key}"),
                None => key.to_string(),
            };
            // Names are TOML strings: quoted as the scene spells them, ready to copy.
            let message = if variant { message.replace('`', "\"") } else { message.to_string() };
            return Some((i + 1, column, format!("key `{path}`: {message}")));
        }
    }
    None
}

/// The key path of the `key = value` line that holds byte `at` of `text` (where a type
/// error points: at the value), as `materials[0].density`; `None` when that line sets no
/// key (a table header, or a line inside a value that spans several lines).
pub(crate) fn key_at(text: &str, at: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let (line, _) = line_column(text, at);
    let t = lines.get(line.checked_sub(1)?)?.trim_start();
    if t.starts_with('[') || t.starts_with('#') {
        return None;
    }
    let (key, _) = t.split_once('=')?;
    let key = key.trim();
    let bare = |c: char| c.is_ascii_alphanumeric() || "_-. ".contains(c);
    if key.is_empty() || !key.chars().all(bare) {
        return None;
    }
    Some(match table_of(&lines, line - 1) {
        Some(table) => format!("{table}.{key}"),
        None => key.to_string(),
    })
}

/// The table that line `i` belongs to: `solver`, or `spheres[2]` for the third `[[spheres]]`.
fn table_of(lines: &[&str], i: usize) -> Option<String> {
    let j = (0..=i).rev().find(|&j| lines[j].trim_start().starts_with('['))?;
    let header = lines[j].split('#').next().unwrap_or("").trim();
    if let Some(name) = header.strip_prefix("[[").and_then(|h| h.strip_suffix("]]")) {
        let index = lines[..j].iter().filter(|l| l.split('#').next().unwrap_or("").trim() == header).count();
        Some(format!("{}[{index}]", name.trim()))
    } else {
        header.strip_prefix('[').and_then(|h| h.strip_suffix(']')).map(|name| name.trim().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_key_of_an_unknown_name_or_key_in_a_table() {
        let text = "[simulation]\ndt = 1\n\n[solver]\nkind = \"md\"\nintegrator = \"rk4\" # typo\n\n[[spheres]]\n[[spheres]]\nmotion = \"fixd\"\n";
        let at = text.find("[solver]").unwrap();
        let message = "unknown variant `rk4`, expected one of `verlet`";
        let (line, column, m) = locate(text, at, message).unwrap();
        assert_eq!((line, column), (6, 1));
        assert_eq!(m, "key `solver.integrator`: unknown variant \"rk4\", expected one of \"verlet\"");
        let at = text.find("\"fixd\"").unwrap();
        let (line, _, m) = locate(text, at, "unknown variant `fixd`, expected …").unwrap();
        assert_eq!(line, 10);
        assert!(m.starts_with("key `spheres[1].motion`"), "{m}");
        let at = text.find("[solver]").unwrap();
        assert_eq!(locate(text, at, "unknown field `kind`, expected …").unwrap().0, 5);
        assert_eq!(locate(text, at, "unknown field `radius`, expected …"), None);
        assert_eq!(locate(text, at, "missing field `dt`"), None);
    }

    #[test]
    fn names_the_key_whose_value_has_the_wrong_type() {
        let text = "gravity = 1
[[materials]]
name = \"a\"
[[materials]]
density = \"heavy\"
list = [\n  1,\n  \"x\"]
";
        let at = |s: &str| text.find(s).unwrap();
        assert_eq!(key_at(text, at("\"heavy\"")).as_deref(), Some("materials[1].density"));
        assert_eq!(key_at(text, at("1\n")).as_deref(), Some("gravity"));
        // A header, and a line inside a value spanning lines: no key.
        assert_eq!(key_at(text, at("[[materials]]")), None);
        assert_eq!(key_at(text, at("\"x\"")), None);
    }
}
