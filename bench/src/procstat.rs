//! Readings from `/proc`: a process's CPU time (utime + stime), RSS and thread count, and the
//! machine (CPUs, model name, load average).
//!
//! Owns the parsing of those files (tested on synthetic text); it holds no state and judges
//! nothing.

use anyhow::{Context, Result, bail};
use serde::Serialize;

/// utime + stime (+ the waited-for children's, separately) of a process, in clock ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTicks {
    /// utime + stime of the process itself.
    pub own: u64,
    /// cutime + cstime: children it has waited for.
    pub children: u64,
}

/// Parse `/proc/PID/stat`: fields 14-17 counted after the `(comm)` field, whose text may
/// hold spaces and parentheses.
pub fn parse_stat(text: &str) -> Result<CpuTicks> {
    let after = text
        .rfind(')')
        .map(|i| &text[i + 1..])
        .context("no `(comm)` field in /proc/PID/stat")?;
    // After comm: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
    let f: Vec<&str> = after.split_whitespace().collect();
    let num = |field: usize| -> Result<u64> {
        let s = f
            .get(field - 3)
            .with_context(|| format!("/proc/PID/stat has no field {field}"))?;
        s.parse::<i64>()
            .map(|v| v.max(0) as u64)
            .with_context(|| format!("field {field} of /proc/PID/stat is not a number: {s:?}"))
    };
    Ok(CpuTicks {
        own: num(14)? + num(15)?,
        children: num(16)? + num(17)?,
    })
}

/// CPU ticks of `pid` (`"self"` for the bench).
pub fn cpu_ticks(pid: &str) -> Result<CpuTicks> {
    let path = format!("/proc/{pid}/stat");
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
    parse_stat(&text)
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`).
pub fn ticks_per_second() -> u64 {
    rustix::param::clock_ticks_per_second()
}

/// Resident set and threads of a process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Memory {
    /// VmRSS, KiB.
    pub rss_kib: u64,
    /// Threads.
    pub threads: u64,
}

/// Parse `/proc/PID/status` for `VmRSS` and `Threads`.
pub fn parse_status(text: &str) -> Result<Memory> {
    let field = |name: &str| -> Result<u64> {
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .with_context(|| format!("/proc/PID/status has no {name}"))?;
        let n = line
            .trim_start_matches(':')
            .split_whitespace()
            .next()
            .unwrap_or("");
        n.parse()
            .with_context(|| format!("{name} in /proc/PID/status is not a number: {n:?}"))
    };
    Ok(Memory {
        rss_kib: field("VmRSS")?,
        threads: field("Threads")?,
    })
}

/// RSS and threads of `pid`.
pub fn memory(pid: &str) -> Result<Memory> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
    parse_status(&text)
}

/// The 1-minute load average from `/proc/loadavg` text.
pub fn parse_loadavg(text: &str) -> Result<f64> {
    let first = text.split_whitespace().next().unwrap_or("");
    match first.parse() {
        Ok(v) => Ok(v),
        Err(_) => bail!("/proc/loadavg does not start with a number: {first:?}"),
    }
}

/// The 1-minute load average now.
pub fn loadavg() -> Result<f64> {
    parse_loadavg(&std::fs::read_to_string("/proc/loadavg").context("cannot read /proc/loadavg")?)
}

/// The first `model name` in `/proc/cpuinfo` text.
pub fn parse_model_name(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == "model name").then(|| v.trim().to_owned())
    })
}

/// The machine the bench ran on.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// CPUs available to the bench.
    pub nproc: usize,
    /// CPU model.
    pub model_name: String,
}

/// Describe this machine.
pub fn machine() -> Machine {
    Machine {
        nproc: std::thread::available_parallelism().map_or(1, usize::from),
        model_name: std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| parse_model_name(&t))
            .unwrap_or_else(|| "unknown".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_after_an_awkward_comm() {
        let text = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 \
                    250 75 3 4 20 0 7 0 12345 1000000 300 18446744073709551615";
        let t = parse_stat(text).expect("parses");
        assert_eq!(
            t,
            CpuTicks {
                own: 325,
                children: 7
            }
        );
        assert!(parse_stat("4242 S 1").is_err());
        assert!(parse_stat("1 (x) S 1 2").is_err());
    }

    #[test]
    fn status_rss_and_threads() {
        let text = "Name:\tchessclockd\nVmPeak:\t  9000 kB\nVmRSS:\t    5120 kB\nThreads:\t131\n";
        assert_eq!(
            parse_status(text).expect("parses"),
            Memory {
                rss_kib: 5120,
                threads: 131
            }
        );
        assert!(parse_status("Name:\tx\n").is_err());
    }

    #[test]
    fn loadavg_and_model() {
        assert_eq!(
            parse_loadavg("7.41 6.02 5.10 3/900 1234\n").ok(),
            Some(7.41)
        );
        assert!(parse_loadavg("").is_err());
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(parse_model_name(cpuinfo).as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(parse_model_name("processor : 0\n"), None);
    }
}
