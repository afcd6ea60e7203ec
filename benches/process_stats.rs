//! What a benchmark binary reads of its own process on Linux: CPU time and peak resident
//! memory (shared by the `md_bench` benchmark and granula-mpi's `dense_bench`). Both are NaN
//! where the `/proc` files do not exist.

/// CPU time of the whole process (user + system, s) from `/proc/self/stat`, or NaN where
/// that file does not exist.
pub fn process_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return f64::NAN };
    // Fields after the command name (which is in parentheses): utime and stime are the 12th
    // and 13th of them, in clock ticks (100 per second on Linux).
    let Some(rest) = stat.rsplit(')').next() else { return f64::NAN };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |k: usize| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
    (tick(11) + tick(12)) / 100.0
}

/// Peak resident memory of the process so far (bytes, `VmHWM` of `/proc/self/status`), or
/// NaN where that file does not exist.
pub fn peak_rss_bytes() -> f64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return f64::NAN };
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb * 1024.0)
}
