//! Moves from the board's own memory: when a new link's first board dump (the daemon
//! restarted with a game under way, the port came back after a USB drop or a Bluetooth gap)
//! shows pieces the game cannot explain, the board's move log is asked for (dgt-protocol §8a); when it arrives, the moves it shows from the
//! game's last position to the pieces now are played on the board's game, journaled as the
//! board game's steps with a note that they came from the board's memory, and said. They get
//! no clock (the log cannot say). Anything else (no log, a log that does not decode, or one
//! the game crate's `recover` refuses) leaves the game as it is and says why.
//!
//! Owns the glue only: the exchange on the wire is the driver's, reading the log the
//! protocol crate's and finding the moves the game crate's. No IO.

use chessclock_game::{Correction, recover};
use chessclock_protocol::ee_log;

use super::{Note, Session};
use crate::link::driver::Instant;

impl Session {
    /// A new link's first board dump was read at `at`: if nothing explains the pieces, ask
    /// the board what it saw meanwhile.
    pub(super) fn ask_board_memory(&mut self, at: Instant) {
        let tracker = self.board.game().tracker();
        // Pieces only lifted are a move under way (the live reading ends it), not something
        // the memory explains: its replay would end in the air too.
        let unexplained = matches!(
            tracker.state(),
            chessclock_game::BoardState::Unexplained { .. }
        );
        if unexplained && tracker.position().is_some() && tracker.orientation().is_some() {
            self.driver.request_board_log(at);
        }
    }

    /// The board's move log arrived at `now` (`None`: the board did not send it whole).
    pub(super) fn board_memory(&mut self, now: Instant, payload: Option<Vec<u8>>) {
        let clock = self.cfg.clock;
        let outcome = match payload {
            None => Err("the board did not send its move log".to_owned()),
            Some(payload) => self.recover_from(&payload),
        };
        match outcome {
            Ok(None) => {}
            Ok(Some(moves)) => {
                let t = self.time_at(now).as_ms();
                let mut played = Vec::new();
                for (uci, san) in &moves {
                    // Played as a forced move, with no clock: the log has none.
                    if let Err(e) =
                        self.board
                            .game_mut()
                            .correct(t, &Correction::Force(uci.clone()), None)
                    {
                        tracing::warn!(clock, "a move from the board's memory not played: {e}");
                        break;
                    }
                    played.push(san.clone());
                }
                self.drain_board(now);
                let fen = self.board.game().fen();
                let moves = played.join(" ");
                self.note(
                    now,
                    Note::BoardMemory {
                        moves: moves.clone(),
                        fen: fen.clone(),
                    },
                    true,
                );
                self.notify(format!(
                    "clock {clock}: the board's memory shows {moves} played while chessclockd \
                     did not listen: read as the game's next moves (without clock times); if \
                     that is wrong, `chessclockctl move {clock} undo {}` takes them back",
                    played.len()
                ));
                self.board.changed();
                self.published.mark_changed();
            }
            Err(why) => {
                self.note(now, Note::BoardMemoryNotUsed(why.clone()), false);
                self.notify(format!(
                    "clock {clock}: the board's memory was not used: {why}; the game is as \
                     it was"
                ));
            }
        }
    }

    /// The moves (UCI, SAN) the log `payload` shows from the game's position to the pieces
    /// as they stand; `None` when the game has no position or the pieces show it.
    fn recover_from(&self, payload: &[u8]) -> Result<Option<Vec<(String, String)>>, String> {
        let tracker = self.board.game().tracker();
        let (Some(known), Some(orientation)) = (tracker.position(), tracker.orientation()) else {
            return Ok(None);
        };
        let log = ee_log::decode(payload).map_err(|e| e.to_string())?;
        let r = recover(known, orientation, &log.records, tracker.fields())
            .map_err(|e| e.to_string())?;
        Ok((!r.moves.is_empty()).then(|| r.moves.into_iter().map(|m| (m.uci, m.san)).collect()))
    }
}
