//! Pairings from a FIDE TRF-16 file (as Swiss-Manager and JaVaFo write it): one round's
//! pairings read from the player lines.
//!
//! A player line starts with `001`; by column (from 1): starting rank 5–8, title 11–13, name
//! 15–47, rating 49–52, FIDE id 58–68, and for round R a block at column 92 + 10·(R−1):
//! opponent's starting rank (4 columns), colour (`w`/`b`, 2 columns on), result (2 more).
//! A player paired in the round (opponent not `0000` or blank) is one half of a game whose
//! other half must name them back with the other colour; byes are left out.
//!
//! What we assume (TRF has no board numbers): the boards are numbered in the order the games
//! appear, a game appearing at the first line of its two players (pairing programs write the
//! players of a round's pairings in board order when they export them sorted by board);
//! teams (`013` lines) are not read. Owns this format only.

use std::collections::HashMap;

use super::{LineError, Pairing, Player};

/// Columns `from..=to` (from 1) of `chars`, trimmed; empty past the end.
fn col(chars: &[char], from: usize, to: usize) -> String {
    let end = to.min(chars.len());
    if from > end {
        return String::new();
    }
    chars[from - 1..end]
        .iter()
        .collect::<String>()
        .trim()
        .to_owned()
}

/// One player line.
struct Line {
    no: usize,
    player: Player,
    /// Opponent's starting rank (0: none) and colour (`w`/`b`) in the round.
    opponent: u32,
    colour: char,
}

/// The pairings of round `round` in `content`; problems go to `errors`.
pub(super) fn parse(content: &str, round: u32, errors: &mut Vec<LineError>) -> Vec<Pairing> {
    // Saturating: a round past any line's end is a round without pairings, never a panic.
    let start = usize::try_from(round.max(1) - 1)
        .unwrap_or(usize::MAX)
        .saturating_mul(10)
        .saturating_add(92);
    let mut players: HashMap<u32, Line> = HashMap::new();
    let mut order = Vec::new();
    let mut rounds_seen = false;
    for (i, text) in content.lines().enumerate() {
        let no = i + 1;
        if !text.starts_with("001") {
            continue;
        }
        let chars: Vec<char> = text.chars().collect();
        let line = match player_line(&chars, start) {
            Ok((id, player, opponent, colour)) => {
                rounds_seen |= chars.len() >= start;
                if players.contains_key(&id) {
                    errors.push(LineError::new(
                        no,
                        format!("player {id} has a line already; each starting rank has one"),
                    ));
                    continue;
                }
                order.push(id);
                (
                    id,
                    Line {
                        no,
                        player,
                        opponent,
                        colour,
                    },
                )
            }
            Err(e) => {
                errors.push(LineError::new(no, e));
                continue;
            }
        };
        players.insert(line.0, line.1);
    }
    if players.is_empty() && errors.is_empty() {
        errors.push(LineError::new(
            0,
            "no player lines (001) in the TRF file; is it a TRF-16 file?",
        ));
        return Vec::new();
    }
    if !rounds_seen && errors.is_empty() {
        errors.push(LineError::new(
            0,
            format!(
                "the TRF file has no pairings for round {round}; give the round its pairings \
                 are for with --round"
            ),
        ));
        return Vec::new();
    }
    // The games in order of their first line.
    let mut games: Vec<(usize, u32, u32)> = Vec::new();
    for id in &order {
        let me = &players[id];
        if me.opponent == 0 {
            continue;
        }
        let Some(them) = players.get(&me.opponent) else {
            errors.push(LineError::new(
                me.no,
                format!("round {round}: opponent {} has no player line", me.opponent),
            ));
            continue;
        };
        if them.opponent != *id || them.colour == me.colour {
            errors.push(LineError::new(
                me.no,
                format!(
                    "round {round}: player {id} plays {} with {}, but line {} does not pair them \
                     back with the other colour",
                    me.opponent,
                    if me.colour == 'w' { "white" } else { "black" },
                    them.no
                ),
            ));
            continue;
        }
        if me.colour == 'w' {
            games.push((me.no.min(them.no), *id, me.opponent));
        }
    }
    games.sort_unstable();
    games
        .into_iter()
        .zip(1..)
        .map(|((_, white, black), board)| Pairing {
            board,
            line: players[&white].no,
            white: players[&white].player.clone(),
            black: players[&black].player.clone(),
        })
        .collect()
}

/// A player line's starting rank, player and round entry (opponent, colour).
fn player_line(chars: &[char], start: usize) -> Result<(u32, Player, u32, char), String> {
    let rank = col(chars, 5, 8);
    let id = match rank.parse::<u32>() {
        Ok(n) if n > 0 => n,
        _ => {
            return Err(format!(
                "the starting rank {rank:?} (columns 5-8) is not a number; is this a TRF-16 \
                 player line?"
            ));
        }
    };
    let player = Player {
        name: super::name(&col(chars, 15, 47), &format!("player {id}'s"))?,
        fide_id: super::fide_id(&col(chars, 58, 68), "the FIDE id (columns 58-68)")?,
        elo: super::elo(&col(chars, 49, 52), "the rating (columns 49-52)")?,
        title: trf_title(&super::title(
            &col(chars, 11, 13),
            "the title (columns 11-13)",
        )?),
        team: String::new(),
        start_rank: Some(id),
    };
    let (end, at) = (start.saturating_add(3), start.saturating_add(5));
    let opponent = col(chars, start, end);
    let colour = col(chars, at, at).to_ascii_lowercase();
    let opponent = match opponent.as_str() {
        "" => 0,
        o => o.parse::<u32>().map_err(|_| {
            format!("the opponent {o:?} (columns {start}-{end}) is not a starting rank")
        })?,
    };
    let colour = match (opponent, colour.as_str()) {
        (0, _) => '-',
        (_, "w") => 'w',
        (_, "b") => 'b',
        (_, c) => {
            return Err(format!("the colour {c:?} (column {at}) is not w or b"));
        }
    };
    Ok((id, player, opponent, colour))
}

/// A TRF title in PGN's spelling: the older one-letter codes (`g`, `wm`) as `GM`, `WIM`.
fn trf_title(title: &str) -> String {
    match title.to_ascii_lowercase().as_str() {
        "g" => "GM".into(),
        "m" => "IM".into(),
        "f" => "FM".into(),
        "c" => "CM".into(),
        "wg" => "WGM".into(),
        "wm" => "WIM".into(),
        "wf" => "WFM".into(),
        "wc" => "WCM".into(),
        _ => title.to_ascii_uppercase(),
    }
}
