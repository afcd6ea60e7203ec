//! Reading the files a user names (scene files, checkpoints): only regular files, and at
//! most a stated number of bytes. A FIFO would block the read until some other program
//! writes to it, and a device such as `/dev/zero` would be read until the memory runs out;
//! both are refused by name before anything is read, as is a file larger than the bound.
//! (Mesh files are read the same way by `granula-polyhedra`.)

use crate::error::{IoError, Result};
use std::io::Read;
use std::path::Path;

/// Largest scene file read (bytes): 1 GiB, some ten million explicit bodies.
pub const MAX_SCENE_BYTES: u64 = 1 << 30;

/// Largest checkpoint file read (bytes): 64 GiB, beyond the state of the largest scene
/// ([`limits::MAX_BODIES`](crate::scene::limits::MAX_BODIES) bodies) granula runs.
pub const MAX_CHECKPOINT_BYTES: u64 = 1 << 36;

/// What a file that is not a regular file is, for messages.
fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

fn refused(path: &Path, problem: String) -> IoError {
    IoError::InputFile { path: path.to_path_buf(), problem }
}

/// [`IoError::InputFile`] unless `meta` is that of a regular file.
fn regular(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_file() {
        Ok(())
    } else {
        Err(refused(path, format!("is {}, not a regular file; only regular files are read", kind_of(meta.file_type()))))
    }
}

/// The whole of the regular file at `path` (a symbolic link is followed to its target),
/// at most `max_bytes` long. Errors: [`IoError::File`] when it cannot be opened or read,
/// [`IoError::InputFile`] when it is not a regular file (a FIFO, a device, a socket, a
/// folder) or is larger than `max_bytes`; each names the path.
pub fn read_input(path: &Path, max_bytes: u64) -> Result<Vec<u8>> {
    let meta = std::fs::metadata(path).map_err(|e| IoError::file(path, e))?;
    regular(path, &meta)?;
    let too_large = || refused(path, format!("is larger than {max_bytes} bytes, the most read for this file"));
    if meta.len() > max_bytes {
        return Err(too_large());
    }
    let file = std::fs::File::open(path).map_err(|e| IoError::file(path, e))?;
    // The file opened is checked again: the path may name another file by now.
    regular(path, &file.metadata().map_err(|e| IoError::file(path, e))?)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| IoError::file(path, e))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_input`] of a UTF-8 text file; a file that is not UTF-8 is an [`IoError::File`]
/// naming it.
pub fn read_input_text(path: &Path, max_bytes: u64) -> Result<String> {
    String::from_utf8(read_input(path, max_bytes)?)
        .map_err(|e| IoError::file(path, std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

/// `true` when `path` is a regular file (following symbolic links): what may be opened
/// to peek at its first bytes without blocking.
pub fn is_regular_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}
