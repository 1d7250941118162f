//! Recovering the moves a board saw while no host listened, from its own move log (an
//! EE_MOVES dump, spec §8a, decoded by `chessclock_protocol::ee_log`).
//!
//! Owns finding the anchor (the last point of the log where the pieces stood as in the
//! position the game last knew; the log knows the whole placement only after a power-up
//! inventory or a set-up tag) and replaying the field records after it through a tracker
//! that starts from that position, so the moves are found exactly as the live tracker finds
//! them from FIELD_UPDATEs (no second move finder). The result is the moves, ending in the
//! position the board shows now, or a refusal that says why. It must not change the game
//! (the caller appends the moves), do IO or read a clock; clock records are ignored (the log
//! cannot say whose move they timed for sure).

use chessclock_protocol::Orientation;
use chessclock_protocol::ee_log::EeRecord;
use shakmaty::{Board, Chess, Position};

use super::{Tracker, TrackerConfig, differences, fen};
use crate::event::{BoardState, Difference, GameEvent, MoveEvent};
use crate::placement::{RawFields, placement, raw_fields};

/// The moves recovered from a board's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// The moves, oldest first; `ply` counts from the known position (1 = the first
    /// recovered), `at_ms` is meaningless (the log keeps no time).
    pub moves: Vec<MoveEvent>,
    /// The position after them (the one the board shows now).
    pub position: Chess,
    /// Index of the first record replayed (after the anchor); the records' length when
    /// nothing had moved.
    pub from_record: usize,
}

/// Why the log's moves were not recovered (the game stays as it is).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecoveryError {
    /// No power-up inventory or set-up tag: the log never says where all the pieces stood.
    #[error(
        "the board's log holds no power-up inventory or set-up tag, so it never says where \
         all the pieces stood (a long gap may have overwritten it): the moves made meanwhile \
         cannot be recovered; enter them by hand"
    )]
    NoReference,
    /// The pieces never stood in the game's last known position in what the log holds.
    #[error(
        "the board's log never shows the pieces as the game last knew them ({fen}): it may \
         have been overwritten or the board swapped; the moves made meanwhile cannot be \
         recovered; enter them by hand"
    )]
    NoAnchor {
        /// The position the game last knew.
        fen: String,
    },
    /// A placement in the log that no single legal move explains (an illegal or ambiguous
    /// sequence).
    #[error(
        "after {recovered} recovered moves ({fen}) the board's log shows pieces no single legal \
         move explains ({}): nothing was recovered; enter the moves by hand",
        list(.differences)
    )]
    NotExplained {
        /// Moves that had been found before it.
        recovered: usize,
        /// The position they reached.
        fen: String,
        /// Where the log's pieces differ from that position.
        differences: Vec<Difference>,
    },
    /// The log shows a new game set up or a result set with the pieces.
    #[error(
        "the board's log shows {what} after the game's last known position: nothing was \
         recovered; the game stays as it was"
    )]
    LeftTheGame {
        /// "a new game" or "a result".
        what: &'static str,
    },
    /// The log's moves end in another position than the board shows now.
    #[error(
        "the moves in the board's log end in {fen}, not in the position the board shows now \
         ({}): the log is stale or moves were made while the board was off; nothing was \
         recovered",
        list(.differences)
    )]
    EndsElsewhere {
        /// Where the log's moves end.
        fen: String,
        /// Where the board now differs from that position.
        differences: Vec<Difference>,
    },
}

fn list(d: &[Difference]) -> String {
    let shown: Vec<String> = d.iter().take(6).map(ToString::to_string).collect();
    let more = d.len().saturating_sub(6);
    if more > 0 {
        format!("{}; {more} more", shown.join("; "))
    } else {
        shown.join("; ")
    }
}

/// Recover the moves of `records` (a decoded dump, oldest first) made from `known`, the
/// position the game last knew, on a board lying in `orientation` whose fields (its own
/// numbering) are `shown` now. See the module docs.
pub fn recover(
    known: &Chess,
    orientation: Orientation,
    records: &[EeRecord],
    shown: &RawFields,
) -> Result<Recovered, RecoveryError> {
    let shown_board = placement(shown, orientation);
    if shown_board == *known.board() {
        return Ok(Recovered {
            moves: Vec::new(),
            position: known.clone(),
            from_record: records.len(),
        });
    }
    let (anchor, raw) = match anchor(known.board(), orientation, records) {
        Ok(a) => a,
        Err(Reference::Never) => return Err(RecoveryError::NoReference),
        Err(Reference::NotKnown) => return Err(RecoveryError::NoAnchor { fen: fen(known) }),
    };
    let mut t = Tracker::new(TrackerConfig {
        orientation: Some(orientation),
        ..TrackerConfig::default()
    });
    t.orientation = Some(orientation);
    t.positions = vec![known.clone()];
    t.state = BoardState::Synced;
    t.raw = raw;
    t.seen = true;
    let from_record = anchor + 1;
    let mut now = 0;
    let mut inventory: Option<RawFields> = None;
    for record in &records[from_record..] {
        now += 1;
        let field = match *record {
            EeRecord::Field { piece, square, .. } => Some((square.field(), piece)),
            _ => None,
        };
        // A power-up's inventory ends at the first record that is not one more piece on a
        // square it has not named: the board then stood as the inventory says.
        if let Some(inv) = &mut inventory {
            match field {
                Some((f, Some(p))) if inv[usize::from(f)].is_none() => {
                    inv[usize::from(f)] = Some(p);
                    continue;
                }
                _ => {
                    let inv = *inv;
                    inventory = None;
                    t.on_board_dump(now, &inv);
                }
            }
        }
        match (*record, field) {
            (_, Some((f, piece))) => t.on_field_update(now, f, piece),
            (EeRecord::PowerUp | EeRecord::Watchdog | EeRecord::StartTag, _) => {
                inventory = Some([None; 64]);
            }
            _ => {}
        }
    }
    now += 1;
    if let Some(inv) = inventory {
        t.on_board_dump(now, &inv);
    }
    t.finish(now);
    let mut left = None;
    while let Some(e) = t.poll_event() {
        match e {
            GameEvent::NewGame { .. } | GameEvent::SetUp { .. } => left = Some("a new game"),
            GameEvent::Result { .. } => left = Some("a result"),
            _ => {}
        }
    }
    if let Some(what) = left.or(matches!(t.state, BoardState::Finished(_)).then_some("a result")) {
        return Err(RecoveryError::LeftTheGame { what });
    }
    let Some(position) = t.position().cloned() else {
        return Err(RecoveryError::LeftTheGame { what: "a new game" });
    };
    if t.state != BoardState::Synced {
        let log_board = placement(&t.raw, orientation);
        return Err(RecoveryError::NotExplained {
            recovered: t.moves.len(),
            fen: fen(&position),
            differences: differences(position.board(), &log_board),
        });
    }
    if shown_board != *position.board() {
        return Err(RecoveryError::EndsElsewhere {
            fen: fen(&position),
            differences: differences(position.board(), &shown_board),
        });
    }
    Ok(Recovered {
        moves: t.moves.iter().map(|m| m.event.clone()).collect(),
        position,
        from_record,
    })
}

/// Why no anchor was found.
enum Reference {
    /// The log never says where all the pieces stood.
    Never,
    /// It does, but never as the known position.
    NotKnown,
}

/// The last record after which the log's placement equals `known`, and the fields then.
fn anchor(
    known: &Board,
    orientation: Orientation,
    records: &[EeRecord],
) -> Result<(usize, RawFields), Reference> {
    let start = Board::default();
    let mut raw: Option<RawFields> = None;
    let mut found = None;
    for (i, record) in records.iter().enumerate() {
        match *record {
            EeRecord::PowerUp | EeRecord::Watchdog | EeRecord::StartTag | EeRecord::EmptyBoard => {
                raw = Some([None; 64]);
            }
            EeRecord::BeginPos => raw = Some(raw_fields(&start, Orientation::Normal)),
            EeRecord::BeginPosRot => raw = Some(raw_fields(&start, Orientation::Rotated)),
            EeRecord::Field { piece, square, .. } => {
                if let Some(r) = &mut raw {
                    r[usize::from(square.field())] = piece;
                }
            }
            _ => {}
        }
        if let Some(r) = &raw
            && placement(r, orientation) == *known
        {
            found = Some((i, *r));
        }
    }
    match (found, raw) {
        (Some(a), _) => Ok(a),
        (None, None) => Err(Reference::Never),
        (None, Some(_)) => Err(Reference::NotKnown),
    }
}

#[cfg(test)]
mod tests;
