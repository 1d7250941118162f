//! A broadcast-grade PGN writer (pure: values in, text out).
//!
//! Owns the PGN export form of one game: the Seven Tag Roster in its order, then `Board`,
//! `TimeControl` (or `?` plus `ChessclockdControl` with our canonical notation),
//! `WhiteClock`/`BlackClock`, `Termination`, `Variant`/`SetUp`/`FEN` for a game from a set
//! position, and any extra tags; SAN movetext with correct move numbers (from the FEN's for a
//! set position; `N...` after a comment), `{[%clk h:mm:ss] [%emt h:mm:ss]}` after each move,
//! the result (after a comment saying why where the tags cannot: an Armageddon draw scored
//! for Black), and lines of at most 79 characters (PGN standard §8.2.2, export format). A
//! clock's own record knows the presses but not the moves: moves without SAN are written as
//! a note comment first, then each move's number and its clock comment only
//! (`1. {[%clk 0:04:58]} 1... {[%clk 0:04:55]}`), which the PGN grammar allows (§18: a move
//! number indication is an element of its own) and readers take as a game without moves
//! (`docs/board-game.md`). It is the workspace's one PGN writer. It must not know where
//! moves come from or render time controls (the engine does that). [`read`] is its
//! counterpart for tags: it splits a PGN file into games and reads their tags.

use std::fmt::Write as _;

use shakmaty::Color;

use chessclock_engine::ResultReason;

use crate::event::GameResult;

pub mod read;

/// The Seven Tag Roster, in export order.
pub const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// Tags this writer produces itself (not accepted as game info). `GameId` is the game's own
/// id, given by its recorder ([`GameInfo::set_game_id`]), never typed in.
pub const GENERATED: [&str; 7] = [
    "Result",
    "TimeControl",
    "ChessclockdControl",
    "WhiteClock",
    "BlackClock",
    "Termination",
    "GameId",
];

/// A tag name or value that cannot go into a PGN.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    /// Tag names are letters, digits and `_`, starting with a letter (PGN §8.1.1).
    #[error(
        "{0:?} is not a PGN tag name; use letters, digits and _ and start with a letter, like \"Round\""
    )]
    BadName(String),
    /// The writer sets this tag itself.
    #[error("the {0} tag is written from the game itself and cannot be set as game info")]
    Generated(String),
    /// Tag values are one line.
    #[error("the value of {0} contains a line break; tag values must be one line")]
    LineBreak(String),
}

/// Tag names whose standard spelling is used whatever the case they are given in.
const KNOWN_TAGS: [&str; 20] = [
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Board",
    "Annotator",
    "ECO",
    "Opening",
    "EventDate",
    "WhiteElo",
    "BlackElo",
    "WhiteTitle",
    "BlackTitle",
    "WhiteFideId",
    "BlackFideId",
    "WhiteTeam",
    "BlackTeam",
    "Mode",
];

/// `name` in the PGN standard's spelling when it is a known tag (`white` is `White`).
fn canonical_tag(name: &str) -> String {
    let name = name.trim();
    KNOWN_TAGS
        .iter()
        .find(|k| k.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_owned(), |k| (*k).to_owned())
}

/// Game information: the tags a PGN carries besides the generated ones, in order of setting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameInfo {
    tags: Vec<(String, String)>,
}

impl GameInfo {
    /// No information (every roster tag `?`, the date `????.??.??`).
    pub fn new() -> GameInfo {
        GameInfo::default()
    }

    /// Set a tag (replacing an earlier value); an empty value removes it.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), TagError> {
        let mut chars = name.chars();
        let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok {
            return Err(TagError::BadName(name.to_owned()));
        }
        if GENERATED.contains(&name) {
            return Err(TagError::Generated(name.to_owned()));
        }
        if value.contains(['\n', '\r']) {
            return Err(TagError::LineBreak(name.to_owned()));
        }
        self.tags.retain(|(n, _)| n != name);
        if !value.is_empty() {
            self.tags.push((name.to_owned(), value.to_owned()));
        }
        Ok(())
    }

    /// Set several tags, all or nothing (the first bad tag is the error); known tag names
    /// are taken in the standard's spelling whatever their case (`white` is `White`).
    pub fn set_all(&mut self, tags: &[(String, String)]) -> Result<(), TagError> {
        let mut info = self.clone();
        for (name, value) in tags {
            info.set(&canonical_tag(name), value)?;
        }
        *self = info;
        Ok(())
    }

    /// The game's id, its `GameId` tag: what a broadcast matches the game by, whatever else
    /// of its tags changes (docs/relay.md). Set by the game's recorder, not as game
    /// information (which refuses it); an empty or multi-line id is left out.
    pub fn set_game_id(&mut self, id: &str) {
        self.tags.retain(|(n, _)| n != "GameId");
        if !id.is_empty() && !id.contains(['\n', '\r']) {
            self.tags.push(("GameId".to_owned(), id.to_owned()));
        }
    }

    /// A tag's value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// All tags set, in order of setting.
    pub fn tags(&self) -> &[(String, String)] {
        &self.tags
    }

    /// These tags, then each of `defaults` these do not set (the tags every game carries,
    /// typed in or not: `Event`, `Site`, `Date`, `Round`, `Board`).
    pub fn or(&self, defaults: &GameInfo) -> GameInfo {
        let mut info = self.clone();
        for (name, value) in &defaults.tags {
            if info.get(name).is_none() {
                info.tags.push((name.clone(), value.clone()));
            }
        }
        info
    }
}

/// One move for the PGN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnMove {
    /// SAN, e.g. `Nf3`; `None` when the move is not known (a clock's record: presses only).
    pub san: Option<String>,
    /// The mover's clock after the move, ms.
    pub clock_ms: Option<u64>,
    /// The time the move took, ms.
    pub elapsed_ms: Option<u64>,
}

/// Everything one PGN game is written from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// Event, Site, Date, Round, White, Black, Board and extra tags.
    pub info: GameInfo,
    /// The `TimeControl` value in PGN form (rendered by the engine), `None` when the control
    /// has no PGN form.
    pub time_control: Option<String>,
    /// Our canonical notation of the control, written as `ChessclockdControl` when
    /// `time_control` is `None`.
    pub control_notation: Option<String>,
    /// The moves from the start position (or `setup`'s), White first (unless `black_first`
    /// or the setup's side to move).
    pub moves: Vec<PgnMove>,
    /// The first move is Black's: a clock's record of a game Black started (moves without
    /// SAN; a game read from the pieces begins with White's move).
    pub black_first: bool,
    /// White's clock now, ms (`WhiteClock`).
    pub white_clock_ms: Option<u64>,
    /// Black's clock now, ms (`BlackClock`).
    pub black_clock_ms: Option<u64>,
    /// The result, `None` for a game in progress (`*`).
    pub result: Option<GameResult>,
    /// `Termination` (e.g. `normal`, `time forfeit`, `unterminated`).
    pub termination: Option<String>,
    /// A comment before the result that says why it is what it is, where the tags cannot
    /// (an Armageddon draw scored for Black: [`result_comment`]).
    pub result_comment: Option<String>,
    /// The position the moves begin from (FEN) when it is not the standard start, and whether
    /// the game is Chess960: `SetUp`, `FEN` (and `Variant "Chess960"`); the moves are numbered
    /// from the FEN's move number and side to move.
    pub setup: Option<(String, bool)>,
}

/// The `Termination` tag of a game that ended for `reason`.
pub fn termination(reason: ResultReason) -> &'static str {
    match reason {
        ResultReason::Flag(_)
        | ResultReason::BothMainTimesExpired
        | ResultReason::InsufficientMaterial => "time forfeit",
        ResultReason::Board
        | ResultReason::DrawClaimOpponentInExtra
        | ResultReason::WinnerInExtraTime
        | ResultReason::Checkmate
        | ResultReason::Stalemate
        | ResultReason::BoardSignal
        | ResultReason::FivefoldRepetition
        | ResultReason::SeventyFiveMoves
        | ResultReason::DeadPosition
        | ResultReason::ThreefoldRepetition
        | ResultReason::FiftyMoves
        | ResultReason::InsufficientLosingChances
        | ResultReason::Armageddon => "normal",
    }
}

/// The comment before the result of a game that ended for `reason`, when the result needs
/// one: an Armageddon draw (`drawn_by`, the engine snapshot's, when known) scored `0-1`.
pub fn result_comment(reason: ResultReason, drawn_by: Option<ResultReason>) -> Option<String> {
    (reason == ResultReason::Armageddon).then(|| match drawn_by {
        Some(d) => format!(
            "Armageddon: drawn ({}); a draw scores as a win for Black",
            d.as_str().replace('_', " ")
        ),
        None => "Armageddon: drawn; a draw scores as a win for Black".to_owned(),
    })
}

/// The note before the movetext of moves without SAN.
pub const NO_MOVES_NOTE: &str = "Moves not recorded: move numbers and clock times only.";

/// `h:mm:ss` of a clock value, seconds rounded up as the clock's display shows them.
pub fn clock_hms(ms: u64) -> String {
    chessclock_engine::hms_text(ms.div_ceil(1000))
}

/// `h:mm:ss` of a duration, to the nearest second.
pub fn elapsed_hms(ms: u64) -> String {
    chessclock_engine::hms_text(ms.saturating_add(500) / 1000)
}

fn tag(out: &mut String, name: &str, value: &str) {
    let value = value.replace('\\', "\\\\").replace('"', "\\\"");
    let _ = writeln!(out, "[{name} \"{value}\"]");
}

/// Lines of at most this many characters (PGN standard, export format).
pub const LINE_MAX: usize = 79;

/// The game as PGN export text, ending with a blank line.
pub fn write(game: &PgnGame) -> String {
    let mut out = String::new();
    let result = game.result.map_or("*", GameResult::pgn);
    for name in ROSTER {
        let value = match name {
            "Result" => result,
            "Date" => game.info.get(name).unwrap_or("????.??.??"),
            _ => game.info.get(name).unwrap_or("?"),
        };
        tag(&mut out, name, value);
    }
    if let Some(board) = game.info.get("Board") {
        tag(&mut out, "Board", board);
    }
    match &game.time_control {
        Some(tc) => tag(&mut out, "TimeControl", tc),
        None => {
            tag(&mut out, "TimeControl", "?");
            if let Some(n) = &game.control_notation {
                tag(&mut out, "ChessclockdControl", n);
            }
        }
    }
    if let Some(ms) = game.white_clock_ms {
        tag(&mut out, "WhiteClock", &clock_hms(ms));
    }
    if let Some(ms) = game.black_clock_ms {
        tag(&mut out, "BlackClock", &clock_hms(ms));
    }
    if let Some(t) = &game.termination {
        tag(&mut out, "Termination", t);
    }
    if let Some((fen, chess960)) = &game.setup {
        if *chess960 {
            tag(&mut out, "Variant", "Chess960");
        }
        tag(&mut out, "SetUp", "1");
        tag(&mut out, "FEN", fen);
    }
    for (name, value) in game.info.tags() {
        if !ROSTER.contains(&name.as_str()) && name != "Board" {
            tag(&mut out, name, value);
        }
    }
    out.push('\n');
    wrap(&mut out, movetext(game, result));
    out.push('\n');
    out
}

fn movetext(game: &PgnGame, result: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    if game.moves.iter().any(|m| m.san.is_none()) {
        tokens.push(format!("{{{NO_MOVES_NOTE}}}"));
    }
    let mut after_comment = true;
    // A game set up from a FEN counts on from its move number and side to move.
    let first = game
        .setup
        .as_ref()
        .map_or(usize::from(game.black_first), |(fen, _)| {
            let mut fields = fen.split_whitespace().skip(1);
            let black = fields.next() == Some("b");
            let number = fields
                .nth(3)
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(1);
            number.saturating_sub(1) * 2 + usize::from(black)
        });
    for (i, m) in game.moves.iter().enumerate() {
        let ply = i + first;
        let number = ply / 2 + 1;
        let color = if ply.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        };
        let mut parts = Vec::new();
        if let Some(ms) = m.clock_ms {
            parts.push(format!("[%clk {}]", clock_hms(ms)));
        }
        if let Some(ms) = m.elapsed_ms {
            parts.push(format!("[%emt {}]", elapsed_hms(ms)));
        }
        let comment = (!parts.is_empty()).then(|| format!("{{{}}}", parts.join(" ")));
        // A move number stays on the line of its move (or, without a move, of its comment).
        let Some(san) = &m.san else {
            let dots = if color == Color::White { "." } else { "..." };
            tokens.push(match comment {
                Some(c) => format!("{number}{dots} {c}"),
                None => format!("{number}{dots}"),
            });
            after_comment = true;
            continue;
        };
        tokens.push(match color {
            Color::White => format!("{number}. {san}"),
            Color::Black if after_comment => format!("{number}... {san}"),
            Color::Black => san.clone(),
        });
        after_comment = comment.is_some();
        tokens.extend(comment);
    }
    if let Some(c) = &game.result_comment {
        // Word by word, so that a long comment wraps (a brace comment may span lines).
        let c = format!("{{{}}}", c.replace('}', ")"));
        tokens.extend(c.split_whitespace().map(str::to_owned));
    }
    tokens.push(result.to_owned());
    tokens
}

/// Join tokens with spaces into lines of at most [`LINE_MAX`] characters.
fn wrap(out: &mut String, tokens: Vec<String>) {
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > LINE_MAX {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push('\n');
}

#[cfg(test)]
mod tests;
