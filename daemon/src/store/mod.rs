//! State that survives crashes and power loss (architecture §7 "nothing lost"): an
//! append-only, checksummed journal plus atomic snapshots, in the state directory.
//!
//! Owns the on-disk format and its durability (fsync per append, atomic rename for
//! snapshots and records, torn-tail repair on open). It must not decide what is recorded: records and
//! snapshots are any serde type the daemon chooses. Pure std + serde_json; no tokio, so call
//! it directly or from `spawn_blocking`.
//!
//! Files, for a store named `NAME` in directory `DIR`:
//! - `DIR/NAME.journal`: one record per line, `SEQ CRC JSON\n`, where `SEQ` is the decimal
//!   sequence number (consecutive), `CRC` the CRC-32 (8 lowercase hex digits) of the bytes
//!   `SEQ JSON` and `JSON` the record without raw newlines.
//! - `DIR/NAME.snapshot`: one line of the same form; its `SEQ` is the last journal entry it
//!   includes. Written to `NAME.snapshot.tmp`, fsynced, renamed, directory fsynced.
//! - `DIR/NAME.journal.bad-OFFSET`: bytes cut from a damaged journal tail, kept for forensics.
//!
//! The small JSON state files beside them (the round, the attached boards, ...) are
//! [`state_file`]'s: one damage policy (set aside, say, rebuild) and the same atomic write.

pub mod atomic;
mod error;
mod journal;
mod line;
mod snapshot;
pub mod state_file;

pub use error::StoreError;
#[cfg(test)]
pub(crate) use journal::full_disk;
pub use journal::{Journal, Numbered, Recovered, TailRepair, move_store};
pub(crate) use line::json_lines;
#[cfg(test)]
pub(crate) use line::{from_json, to_json};
pub use snapshot::{read_snapshot, write_snapshot};
