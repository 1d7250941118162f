//! Where the game's live PGN file was last written and whether it is due. Only the
//! bookkeeping; the file is written elsewhere.

/// Where the game's live PGN file was last written, and whether it must be written again.
/// Invariant: a file is written once the game deserves one and then follows its game (a
/// board renumbered within its round leaves no file under the old number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct LiveFeed {
    /// The game's PGN changed since the file was last written.
    due: bool,
    /// The place (round, board) it was last written at.
    at: Option<(u32, u32)>,
}

impl LiveFeed {
    /// The game's PGN changed: the file is due.
    pub(crate) fn changed(&mut self) {
        self.due = true;
    }

    /// Whether the file is due (once).
    pub(crate) fn take_due(&mut self) -> bool {
        std::mem::take(&mut self.due)
    }

    /// Whether the file was written at `at` already.
    pub(crate) fn written_at(&self, at: (u32, u32)) -> bool {
        self.at == Some(at)
    }

    /// The file is written at `at` now: the board number of the same round's file it
    /// replaces, if the board was renumbered.
    pub(crate) fn write_at(&mut self, at: (u32, u32)) -> Option<u32> {
        let before = self.at.replace(at)?;
        (before.0 == at.0 && before.1 != at.1).then_some(before.1)
    }
}

#[cfg(test)]
mod tests {
    use super::LiveFeed;

    #[test]
    fn the_live_file_follows_its_game_and_a_renumbered_board_replaces_its_old_file() {
        let mut live = LiveFeed::default();
        assert!(!live.take_due());
        live.changed();
        assert!(live.take_due());
        assert!(!live.take_due(), "due once");
        assert!(!live.written_at((1, 3)));
        assert_eq!(live.write_at((1, 3)), None, "the first file replaces none");
        assert!(live.written_at((1, 3)));
        assert_eq!(live.write_at((1, 3)), None, "the same file again");
        assert_eq!(
            live.write_at((1, 4)),
            Some(3),
            "renumbered within its round"
        );
        assert_eq!(live.write_at((2, 1)), None, "an earlier round's file stays");
    }
}
