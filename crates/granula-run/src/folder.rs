//! The output folder: refusing to mix a new run into old results, locking it for the life
//! of a run, clearing granula's own files on request, and rewinding the files of a resumed
//! run to its checkpoint so that no row or frame is written twice.
//!
//! Symbolic links inside the folder are never followed: clearing removes a link that has
//! the name of an output (the link, not its target), and a resume refuses an output file or
//! frame folder that is a link. The folder itself may be a link (to a scratch disk, say):
//! the path the user gives is resolved once, and the run writes inside its target.

use granula_io::output::{write_atomic, PvdCollection, TMP_EXTENSION};
use granula_io::scene::spec::OutputSpec;
use granula_io::{IoError, Result};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// What [`Run::start`](super::Run::start) does with an output folder that already holds
/// files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExistingOutput {
    /// Refuse a folder that is not empty (the default): new results never mix with old
    /// ones.
    #[default]
    Refuse,
    /// Delete granula's outputs in the folder first ([`clear_outputs`]); other files stay.
    Overwrite,
}

/// The CSV files granula appends to, besides `stress_<name>.csv`.
const CSV_FILES: [&str; 5] = ["series.csv", "trajectories.csv", "flow.csv", "feeds.csv", "outlets.csv"];
/// The `.pvd` collections.
const PVD_FILES: [&str; 4] = ["particles.pvd", "contacts.pvd", "walls.pvd", "shapes.pvd"];
/// The checkpoint file of a run.
pub const CHECKPOINT_FILE: &str = "checkpoint.bin";
/// The lock file of an output folder in use ([`FolderLock`]).
pub const LOCK_FILE: &str = ".granula.lock";

fn err(p: &Path) -> impl FnOnce(std::io::Error) -> IoError + '_ {
    move |e| IoError::file(p, e)
}

fn folder_error(path: &Path, problem: impl Into<String>) -> IoError {
    IoError::OutputFolder { path: path.to_path_buf(), problem: problem.into() }
}

/// The names of the entries of `dir`, sorted (empty when it does not exist).
fn entries(dir: &Path) -> Result<Vec<String>> {
    let read = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(IoError::file(dir, e)),
    };
    let mut names = Vec::new();
    for e in read {
        names.push(e.map_err(err(dir))?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// The lock of an output folder, held by a run for its life: the file [`LOCK_FILE`] in the
/// folder, created only if absent, holding the process id of the run; removed when the
/// lock is dropped. A second run on the same folder (from another process or the same
/// one) is refused while the first holds it, instead of mixing the two runs' files.
///
/// A lock left by a process that no longer runs (killed by SIGKILL, a crash) is stale: on
/// Linux, where `/proc/<id>` tells whether a process runs, it is taken over. Elsewhere, or
/// when the file does not hold a process id, the folder counts as in use; the error says
/// to delete the lock file if no run uses the folder. (A process id reused by another
/// program also keeps the folder locked: refusing is the safe side.)
#[derive(Debug)]
pub struct FolderLock {
    path: PathBuf,
}

impl FolderLock {
    /// Takes the lock of the folder `dir`, which must exist. Errors:
    /// [`IoError::OutputFolder`] naming the folder and the process that holds it, or
    /// [`IoError::File`] when the lock file cannot be created.
    pub fn acquire(dir: &Path) -> Result<FolderLock> {
        use std::io::Write;
        let path = dir.join(LOCK_FILE);
        let pid = std::process::id();
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    if let Err(e) = writeln!(f, "{pid}") {
                        // A lock that names no process would keep the folder locked.
                        let _ = std::fs::remove_file(&path);
                        return Err(IoError::file(&path, e));
                    }
                    return Ok(FolderLock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = lock_holder(&path);
                    if holder.is_some_and(|h| process_running(h) == Some(false)) && lock_holder(&path) == holder {
                        // Stale: left by a process that no longer runs.
                        match std::fs::remove_file(&path) {
                            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(IoError::file(&path, e)),
                            _ => continue,
                        }
                    }
                    let who = match holder {
                        Some(h) if h == pid => format!("another run of this process ({h})"),
                        Some(h) => format!("the run of process {h}"),
                        None => "a run whose lock file does not name its process".to_string(),
                    };
                    return Err(folder_error(
                        dir,
                        format!(
                            "is in use by {who} (lock file {}); wait for it to end, or choose another folder \
                             (if no granula run uses this folder, delete the lock file)",
                            path.display()
                        ),
                    ));
                }
                Err(e) => return Err(IoError::file(&path, e)),
            }
        }
        Err(folder_error(dir, format!("its lock file {} keeps coming back", path.display())))
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Only a lock that is still this process's (a stale-lock takeover by another
        // process must not lose its lock).
        if lock_holder(&self.path) == Some(std::process::id()) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The process id in a lock file; `None` when it cannot be read, is not a regular file or
/// holds no process id.
fn lock_holder(path: &Path) -> Option<u32> {
    if !path.symlink_metadata().is_ok_and(|m| m.is_file() && m.len() < 64) {
        return None;
    }
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Whether process `pid` runs: `Some` on Linux (`/proc/<pid>` exists while it runs),
/// `None` where the system does not tell that way.
fn process_running(pid: u32) -> Option<bool> {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return None;
    }
    Some(proc.join(pid.to_string()).exists())
}

/// Prepares the folder of a new run: creates it, locks it ([`FolderLock`]: a folder that
/// another run uses is refused), refuses it when it is not empty (unless `existing` says to
/// overwrite, then clears granula's outputs in it, [`clear_outputs`]), and returns its
/// absolute, canonical path, which the run stores in its checkpoints (so that a resume from
/// any working directory writes to the same folder), with the lock, which the run keeps for
/// its life.
pub fn prepare_new(dir: &Path, existing: ExistingOutput) -> Result<(PathBuf, FolderLock)> {
    if dir.exists() && !dir.is_dir() {
        return Err(folder_error(dir, "is a file, not a folder"));
    }
    std::fs::create_dir_all(dir).map_err(err(dir))?;
    let lock = FolderLock::acquire(dir)?;
    let names: Vec<String> = entries(dir)?.into_iter().filter(|n| n != LOCK_FILE).collect();
    if !names.is_empty() {
        match existing {
            ExistingOutput::Refuse => {
                let shown: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
                let more = if names.len() > 3 { ", ..." } else { "" };
                return Err(folder_error(
                    dir,
                    format!(
                        "is not empty ({} entries: {}{more}); choose another folder, or overwrite its results \
                         (`granula run --overwrite`)",
                        names.len(),
                        shown.join(", ")
                    ),
                ));
            }
            ExistingOutput::Overwrite => clear_outputs(dir)?,
        }
    }
    Ok((std::fs::canonicalize(dir).map_err(err(dir))?, lock))
}

/// `true` for a file name granula writes at the top of an output folder.
fn is_output_file(name: &str) -> bool {
    CSV_FILES.contains(&name)
        || PVD_FILES.contains(&name)
        || name == CHECKPOINT_FILE
        || (name.starts_with("stress_") && name.ends_with(".csv"))
        || name.ends_with(TMP_EXTENSION)
}

/// The step of a frame file `<prefix>_<step>.<ext>` (`vtk/particles_000001000.vtp`,
/// `contacts/contacts_000001000.csv`), if the name has that form.
fn frame_step(name: &str, prefixes: &[&str], ext: &str) -> Option<u64> {
    let stem = name.strip_suffix(ext)?;
    let (prefix, step) = stem.rsplit_once('_')?;
    if !prefixes.contains(&prefix) || step.is_empty() || !step.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    step.parse().ok()
}

/// The frame folders of an output folder: name, file prefixes, extension.
const FRAME_DIRS: [(&str, &[&str], &str); 2] =
    [("vtk", &["particles", "contacts", "walls", "shapes"], ".vtp"), ("contacts", &["contacts"], ".csv")];

/// What is at `p`, without following a symbolic link (`None`: nothing).
fn kind(p: &Path) -> Option<std::fs::FileType> {
    p.symlink_metadata().ok().map(|m| m.file_type())
}

/// `true` for a frame folder's name (`vtk`, `contacts`).
fn is_frame_dir(name: &str) -> bool {
    FRAME_DIRS.iter().any(|(sub, ..)| *sub == name)
}

/// Removes granula's outputs from `dir`: the CSV files, `.pvd` collections, checkpoint,
/// temporary files, and the frames in `vtk/` and `contacts/` (each folder removed when it
/// is left empty). Files granula does not write are left alone. Symbolic links are never
/// followed: a link with the name of an output, a frame or a frame folder is removed (the
/// link, not what it points to), as is any other entry of such a name that is not a folder
/// (a FIFO would block the run's writer).
pub fn clear_outputs(dir: &Path) -> Result<()> {
    for name in entries(dir)? {
        let p = dir.join(&name);
        let Some(k) = kind(&p) else { continue };
        if (is_output_file(&name) && !k.is_dir()) || (is_frame_dir(&name) && k.is_symlink()) {
            std::fs::remove_file(&p).map_err(err(&p))?;
        }
    }
    for (sub, prefixes, ext) in FRAME_DIRS {
        let d = dir.join(sub);
        if !kind(&d).is_some_and(|k| k.is_dir()) {
            continue;
        }
        for name in entries(&d)? {
            let p = d.join(&name);
            let Some(k) = kind(&p) else { continue };
            if (frame_step(&name, prefixes, ext).is_some() || name.ends_with(TMP_EXTENSION)) && !k.is_dir() {
                std::fs::remove_file(&p).map_err(err(&p))?;
            }
        }
        if entries(&d)?.is_empty() {
            std::fs::remove_dir(&d).map_err(err(&d))?;
        }
    }
    Ok(())
}

/// Cuts `path` after its header and the rows that `keep` accepts, stopping at the first row
/// it rejects (rows are in time order) or at an incomplete last line (a write cut short). A
/// file without a complete header is removed, so that the writer starts it again.
fn truncate_rows(path: &Path, keep: impl Fn(&str) -> bool) -> Result<()> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(IoError::file(path, e)),
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut offset: u64 = 0;
    let mut header = true;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(err(path))?;
        if n == 0 {
            return Ok(());
        }
        let complete = line.last() == Some(&b'\n');
        let accepted = complete && (header || std::str::from_utf8(&line).is_ok_and(|l| keep(l.trim_end())));
        if !accepted {
            break;
        }
        header = false;
        offset += n as u64;
    }
    drop(reader);
    if offset == 0 {
        return std::fs::remove_file(path).map_err(err(path));
    }
    let f = OpenOptions::new().write(true).open(path).map_err(err(path))?;
    f.set_len(offset).map_err(err(path))
}

/// Refuses, before a resume writes into `dir`, an output file that is not a regular file
/// (a symbolic link, whose target the run would truncate and append to, or a FIFO) and a
/// frame folder that is not a folder of its own (a link).
fn refuse_links(dir: &Path, spec: &OutputSpec) -> Result<()> {
    let stress = spec.stress.iter().map(|s| format!("stress_{}.csv", s.name));
    let files = CSV_FILES.iter().chain(PVD_FILES.iter()).map(|s| s.to_string()).chain(stress);
    for name in files {
        let p = dir.join(&name);
        match kind(&p) {
            Some(k) if k.is_symlink() => {
                return Err(folder_error(&p, "is a symbolic link; granula writes its outputs only as its own files"))
            }
            Some(k) if !k.is_file() => return Err(folder_error(&p, "is not a regular file")),
            _ => {}
        }
    }
    for (sub, ..) in FRAME_DIRS {
        let d = dir.join(sub);
        if kind(&d).is_some_and(|k| !k.is_dir()) {
            let what = if kind(&d).is_some_and(|k| k.is_symlink()) { "a symbolic link" } else { "not a folder" };
            return Err(folder_error(&d, format!("is {what}; granula writes its frames only in a folder of its own")));
        }
    }
    Ok(())
}

/// Field `k` of a CSV row as a number.
fn field<T: std::str::FromStr>(row: &str, k: usize) -> Option<T> {
    row.split(',').nth(k)?.parse().ok()
}

/// Rewinds the outputs in `dir` to the state of a checkpoint taken at `step` and `time`,
/// before a resumed run appends to them: rows of `series.csv`, `feeds.csv` and
/// `outlets.csv` after `step`, and rows of
/// `trajectories.csv`, `stress_<name>.csv` and `flow.csv` after `time`, are cut; frames in
/// `vtk/` and `contacts/` after `step` are deleted; the `.pvd` files are rewritten from the
/// checkpoint's `collections`; temporary files are removed. A run killed after its last
/// checkpoint (SIGKILL, a crash, a power cut) thus resumes without duplicated rows or
/// frames.
pub fn rewind(dir: &Path, spec: &OutputSpec, step: u64, time: f64, collections: &[PvdCollection]) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    refuse_links(dir, spec)?;
    truncate_rows(&dir.join("series.csv"), |r| field::<u64>(r, 1).is_some_and(|s| s <= step))?;
    let by_time = |r: &str| field::<f64>(r, 0).is_some_and(|t| t <= time);
    truncate_rows(&dir.join("trajectories.csv"), by_time)?;
    truncate_rows(&dir.join("flow.csv"), by_time)?;
    for name in ["feeds.csv", "outlets.csv"] {
        truncate_rows(&dir.join(name), |r| field::<u64>(r, 1).is_some_and(|s| s <= step))?;
    }
    for s in &spec.stress {
        truncate_rows(&dir.join(format!("stress_{}.csv", s.name)), by_time)?;
    }
    for name in entries(dir)? {
        if name.ends_with(TMP_EXTENSION) {
            let p = dir.join(&name);
            std::fs::remove_file(&p).map_err(err(&p))?;
        }
    }
    for (sub, prefixes, ext) in FRAME_DIRS {
        let d = dir.join(sub);
        for name in entries(&d)? {
            let late = frame_step(&name, prefixes, ext).is_some_and(|s| s > step);
            if late || name.ends_with(TMP_EXTENSION) {
                let p = d.join(&name);
                std::fs::remove_file(&p).map_err(err(&p))?;
            }
        }
    }
    for c in collections {
        write_atomic(&c.path, &c.to_xml())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_names_parse_and_others_do_not() {
        let vtk = ["particles", "contacts", "walls"];
        assert_eq!(frame_step("particles_000001000.vtp", &vtk, ".vtp"), Some(1000));
        assert_eq!(frame_step("walls_000000000.vtp", &vtk, ".vtp"), Some(0));
        assert_eq!(frame_step("mine_000001000.vtp", &vtk, ".vtp"), None);
        assert_eq!(frame_step("particles_12a.vtp", &vtk, ".vtp"), None);
        assert_eq!(frame_step("particles_.vtp", &vtk, ".vtp"), None);
        assert!(is_output_file("stress_bottom.csv") && is_output_file("particles.tmp~"));
        assert!(!is_output_file("notes.txt") && !is_output_file("scene.toml"));
    }
}
