//! Time stamps that survive a daemon restart: wall time, and CLOCK_BOOTTIME with the boot
//! id, so the gap across a restart is measured on a clock that never steps.
//!
//! Owns reading those clocks; deciding what a gap means is [`super::restore`]'s job.

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// Wall-clock milliseconds since the Unix epoch.
pub(crate) fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// CLOCK_BOOTTIME (monotonic, counts suspend, never steps) with the boot it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Boot {
    /// `/proc/sys/kernel/random/boot_id`: which boot the milliseconds count from.
    pub id: String,
    /// Milliseconds since that boot.
    pub ms: u64,
}

/// The boot id of this boot (read once), if the kernel tells it.
fn boot_id() -> Option<&'static str> {
    static ID: OnceLock<Option<String>> = OnceLock::new();
    ID.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .ok()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    })
    .as_deref()
}

/// Now, on the boot clock.
pub(crate) fn boot_now() -> Option<Boot> {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    let ms = u64::try_from(ts.tv_sec)
        .ok()?
        .saturating_mul(1000)
        .saturating_add(u64::try_from(ts.tv_nsec).ok()? / 1_000_000);
    Some(Boot {
        id: boot_id()?.to_owned(),
        ms,
    })
}

/// Where and when "now" is, for measuring a gap: wall time and the boot clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Now {
    pub wall_ms: u64,
    pub boot: Option<Boot>,
}

impl Now {
    /// Read both clocks.
    pub(crate) fn read() -> Now {
        Now {
            wall_ms: wall_ms(),
            boot: boot_now(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boot_clock_has_an_id_and_moves_forward() {
        let a = boot_now().expect("Linux has CLOCK_BOOTTIME and a boot id");
        let b = boot_now().expect("again");
        assert_eq!(a.id.len(), 36, "{a:?}");
        assert_eq!(a.id, b.id);
        assert!(b.ms >= a.ms);
    }
}
