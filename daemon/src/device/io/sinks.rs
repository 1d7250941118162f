//! Where a device's files go: the journal writer and the live PGN writer (and the search
//! worker beside them), handed to every
//! clock by its supervisor (quinn's endpoint owning the socket, not a global): a test gives
//! its own and reads what the clock hands over.
//!
//! Owns only the pair; each writer is its module's ([`persist`](super::persist),
//! [`live`](super::live)).

use super::live::LiveFiles;
use super::persist::Journals;
use super::search::Searcher;

/// The writers of a supervisor's clocks. Cheap to clone; each writer's thread starts on
/// first use and ends when the last clone is gone.
#[derive(Debug, Clone, Default)]
pub struct Sinks {
    /// The journals and game records.
    pub(crate) journals: Journals,
    /// The live PGN files.
    pub(crate) live: LiveFiles,
    /// The search of who can still mate, off the device thread.
    pub(crate) search: Searcher,
}
