//! The journal's notes, typed: what happened besides the engine's inputs (a connection, the
//! board's serial number, which half is White's, the mode and an observed clock's declared
//! control, a flag, a rename, an operator's correction of the board's game, moves read
//! from the board's own memory (or why not), the lever's
//! agreement with the running side, a detach), their text, and after which inputs the
//! lever's agreement is noted ([`lever_noted_after`]).
//!
//! Owns the one spelling of each note: the session says a [`Note`], the journal and the
//! game's record keep its text, and a restore reads back the notes the game depends on
//! ([`Note::read`]). The text must stay as it is: journals written before are read with it.
//! Pure data of the session layer: the journal (`io::persist`) writes and reads it, this
//! module must not import it.

use std::fmt;

use crate::link::display::{BoardSide, parse_board_side};
use crate::session::observe::Mode;
use chessclock_engine::{FlagReason, Input, Side};

const WHITE_SIDE: &str = "white_side ";
const BOARD_SERIAL: &str = "board_serial ";
const LEVER_IN_STEP: &str = "lever in step";
const LEVER_OUT_OF_STEP: &str = "lever out of step";
const MODE: &str = "mode ";
const DECLARED: &str = "declared control ";
const PIECES_AWAITED: &str = "pieces awaited";
const PIECES_SHOWN: &str = "pieces show the game";

/// Something the journal keeps that is not replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// White plays on this half of the clock (`white_side left`).
    WhiteSide(BoardSide),
    /// The game is played on the board with this serial number (`board_serial 12345`).
    BoardSerial(String),
    /// The port is open again (`reconnected`).
    Reconnected,
    /// The port is gone, and why (`disconnected: end of file`).
    Disconnected(String),
    /// The clock is driven or observed from now on (`mode observe`).
    Mode(Mode),
    /// The clock was renamed (`renamed "a" to "b"`).
    Renamed { old: String, new: String },
    /// An observed clock's game was ended by an operator (`new game (observe mode)`).
    NewObservedGame,
    /// A flag fell (`flag white time`).
    Flag { side: Side, reason: FlagReason },
    /// The lever's raised end agrees with the player whose time runs (`lever in step`), or
    /// no longer does (`lever out of step`): after a restart, a lever that was in step and
    /// shows the other player to move is a press made while the daemon was not running.
    Lever(bool),
    /// The operator declared the control an observed clock runs (`declared control G/90
    /// inc/30`, canonical notation).
    Declared(String),
    /// The clock was detached with its game under way, which was archived as it stood
    /// (`detached: the game was archived as it stood`).
    Detached,
    /// The operator corrected the board's game (`correction: undo 2`, `correction: force
    /// e7e5`, `correction: position <FEN>`, `correction: position board`), and the position
    /// it left (`... -> <FEN>`).
    Correction { what: String, fen: String },
    /// The board on the port is another than the one the game was played on (a spare
    /// swapped in): nothing it shows is read until it shows the game's position (`pieces
    /// awaited`), or it does now (`pieces show the game`).
    PiecesAwaited(bool),
    /// Moves read from the board's own memory (its move log) as made while nobody listened,
    /// and the position they left (`board memory: Nf3 Nc6 -> <FEN>`); they have no clock.
    BoardMemory { moves: String, fen: String },
    /// The board's memory was read and not used, and why (`board memory not used: ...`).
    BoardMemoryNotUsed(String),
}

impl Note {
    /// The note a game depends on, from its journal text: which half is White's, which
    /// board it is played on, the lever, the mode and an observed clock's declared control;
    /// `None` for the others (and for text this version does not know).
    pub fn read(what: &str) -> Option<Note> {
        if let Some(side) = what.strip_prefix(WHITE_SIDE) {
            return parse_board_side(side).ok().map(Note::WhiteSide);
        }
        if let Some(mode) = what.strip_prefix(MODE) {
            return Mode::parse(mode).map(Note::Mode);
        }
        if let Some(control) = what.strip_prefix(DECLARED) {
            return Some(Note::Declared(control.to_owned()));
        }
        match what {
            LEVER_IN_STEP => return Some(Note::Lever(true)),
            LEVER_OUT_OF_STEP => return Some(Note::Lever(false)),
            PIECES_AWAITED => return Some(Note::PiecesAwaited(true)),
            PIECES_SHOWN => return Some(Note::PiecesAwaited(false)),
            _ => {}
        }
        what.strip_prefix(BOARD_SERIAL)
            .map(|serial| Note::BoardSerial(serial.to_owned()))
    }
}

/// Whether the journal notes the lever ([`Note::Lever`]) right after `input`: an input that
/// may set a clock running or change whose clock runs (a press, a start, a resume, a ruling
/// that resumes play). A restore trusts a lever note only when no such input came after it.
pub fn lever_noted_after(input: &Input) -> bool {
    matches!(
        input,
        Input::Start { .. }
            | Input::Press { .. }
            | Input::PressMove { .. }
            | Input::Resume
            | Input::Ruling { .. }
    )
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::WhiteSide(side) => write!(f, "{WHITE_SIDE}{}", side.as_str()),
            Note::BoardSerial(serial) => write!(f, "{BOARD_SERIAL}{serial}"),
            Note::Reconnected => f.write_str("reconnected"),
            Note::Disconnected(why) => write!(f, "disconnected: {why}"),
            Note::Mode(mode) => write!(f, "{MODE}{}", mode.as_str()),
            Note::Declared(control) => write!(f, "{DECLARED}{control}"),
            Note::Renamed { old, new } => write!(f, "renamed {old:?} to {new:?}"),
            Note::NewObservedGame => f.write_str("new game (observe mode)"),
            Note::Flag { side, reason } => write!(f, "flag {} {reason}", side.as_str()),
            Note::Lever(true) => f.write_str(LEVER_IN_STEP),
            Note::Lever(false) => f.write_str(LEVER_OUT_OF_STEP),
            Note::Correction { what, fen } => write!(f, "correction: {what} -> {fen}"),
            Note::Detached => f.write_str("detached: the game was archived as it stood"),
            Note::PiecesAwaited(true) => f.write_str(PIECES_AWAITED),
            Note::PiecesAwaited(false) => f.write_str(PIECES_SHOWN),
            Note::BoardMemory { moves, fen } => write!(f, "board memory: {moves} -> {fen}"),
            Note::BoardMemoryNotUsed(why) => write!(f, "board memory not used: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of every note is the one journals have been written with.
    #[test]
    fn notes_are_written_as_before_and_the_game_s_notes_read_back() {
        let cases = [
            (Note::WhiteSide(BoardSide::Right), "white_side right"),
            (Note::BoardSerial("24680".into()), "board_serial 24680"),
            (Note::Reconnected, "reconnected"),
            (
                Note::Disconnected("end of file".into()),
                "disconnected: end of file",
            ),
            (Note::Mode(Mode::Observe), "mode observe"),
            (
                Note::Renamed {
                    old: "a".into(),
                    new: "b c".into(),
                },
                "renamed \"a\" to \"b c\"",
            ),
            (Note::NewObservedGame, "new game (observe mode)"),
            (
                Note::Detached,
                "detached: the game was archived as it stood",
            ),
            (
                Note::Flag {
                    side: Side::White,
                    reason: FlagReason::Time,
                },
                "flag white time",
            ),
            (
                Note::Correction {
                    what: "undo 1".into(),
                    fen: "8/8/8/8/8/8/8/K1k5 w - - 0 1".into(),
                },
                "correction: undo 1 -> 8/8/8/8/8/8/8/K1k5 w - - 0 1",
            ),
            (
                Note::BoardMemory {
                    moves: "Nf3 Nc6".into(),
                    fen: "8/8/8/8/8/8/8/K1k5 w - - 0 1".into(),
                },
                "board memory: Nf3 Nc6 -> 8/8/8/8/8/8/8/K1k5 w - - 0 1",
            ),
            (
                Note::BoardMemoryNotUsed("no anchor".into()),
                "board memory not used: no anchor",
            ),
        ];
        for (note, text) in cases {
            assert_eq!(note.to_string(), text);
        }
        assert_eq!(
            Note::read("white_side right"),
            Some(Note::WhiteSide(BoardSide::Right))
        );
        assert_eq!(
            Note::read("board_serial 13579"),
            Some(Note::BoardSerial("13579".into()))
        );
        assert_eq!(Note::read("lever in step"), Some(Note::Lever(true)));
        assert_eq!(Note::Lever(false).to_string(), "lever out of step");
        assert_eq!(Note::read("lever out of step"), Some(Note::Lever(false)));
        assert_eq!(Note::read("mode observe"), Some(Note::Mode(Mode::Observe)));
        assert_eq!(Note::read("mode drive"), Some(Note::Mode(Mode::Drive)));
        assert_eq!(
            Note::read("declared control G/90 inc/30"),
            Some(Note::Declared("G/90 inc/30".into()))
        );
        for awaited in [true, false] {
            let note = Note::PiecesAwaited(awaited);
            assert_eq!(Note::read(&note.to_string()), Some(note));
        }
        assert_eq!(Note::read("white_side up"), None);
        assert_eq!(Note::read("reconnected"), None);
    }
}
