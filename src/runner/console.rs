//! Standard output as an ordinary fallible writer: a write error is an error like any other
//! (`granula check scene > /dev/full` fails with a message and status 1), and a closed pipe
//! (`granula run scene | head -2`) is not an error: the lines are dropped, the work goes on
//! and the program ends with its usual status.

use granula_io::IoError;
use std::io::{ErrorKind, Write};

/// Lines to standard output.
pub struct Console {
    out: std::io::Stdout,
    /// The reader went away (a broken pipe): further lines are dropped.
    closed: bool,
}

impl Console {
    /// Standard output.
    pub fn new() -> Self {
        Console { out: std::io::stdout(), closed: false }
    }

    /// Writes one line (flushed: standard output is line-buffered). A broken pipe closes
    /// the console quietly; any other failure is an [`IoError::File`] naming standard
    /// output.
    pub fn line(&mut self, args: std::fmt::Arguments<'_>) -> Result<(), IoError> {
        if self.closed {
            return Ok(());
        }
        let written = self.out.write_fmt(args).and_then(|()| self.out.write_all(b"\n")).and_then(|()| self.out.flush());
        match written {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(IoError::file("standard output", e)),
        }
    }
}

/// `say!(console, "format", args...)`: one line through [`Console::line`], `?`-propagating
/// its error.
macro_rules! say {
    ($c:expr, $($arg:tt)*) => {
        $c.line(format_args!($($arg)*))?
    };
}
pub(crate) use say;
