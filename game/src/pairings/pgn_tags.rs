//! Pairings as PGN with tags only, as pairing programs export them: one game per board, its
//! board from the `Board` tag, or else from a `Round` of the form `R.B`.
//!
//! A game is a run of tag lines (`[Name "value"]`, `\"` and `\\` escaped); whatever follows
//! (movetext such as `*`, blank lines) ends it. The players come from `White`, `Black`,
//! `WhiteFideId`, `WhiteElo`, `WhiteTitle`, `WhiteTeam` and Black's likewise; other tags are
//! ignored. Owns this format only.

use super::{LineError, Pairing};
use crate::pgn::read::tag;

/// The pairings of `content`; problems go to `errors`.
pub(super) fn parse(content: &str, errors: &mut Vec<LineError>) -> Vec<Pairing> {
    // Each game: the line of its first tag and its tags.
    let mut games: Vec<(usize, Vec<(String, String)>)> = Vec::new();
    let mut in_tags = false;
    for (i, line) in content.lines().enumerate() {
        let no = i + 1;
        let line = line.trim_start_matches('\u{feff}').trim();
        if !line.starts_with('[') {
            in_tags = false;
            continue;
        }
        let (name, value) = match tag(line) {
            Ok(t) => t,
            Err(e) => {
                errors.push(LineError::new(no, e));
                continue;
            }
        };
        if !in_tags {
            games.push((no, Vec::new()));
            in_tags = true;
        }
        if let Some((_, tags)) = games.last_mut() {
            tags.push((name, value));
        }
    }
    let mut out = Vec::new();
    for (no, tags) in games {
        match game(&tags) {
            Ok(mut p) => {
                p.line = no;
                out.push(p);
            }
            Err(e) => errors.push(LineError::new(no, e)),
        }
    }
    out
}

/// One game's pairing from its tags.
fn game(tags: &[(String, String)]) -> Result<Pairing, String> {
    let get = |name: &str| {
        tags.iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    let board = match (get("Board"), get("Round")) {
        (Some(b), _) => super::board(b)?,
        (None, Some(r)) if r.contains('.') => {
            let b = r.rsplit('.').next().unwrap_or_default();
            super::board(b).map_err(|e| format!("Round {r:?}: {e}"))?
        }
        _ => {
            return Err(
                "the game has no board number; give it a Board tag, or a Round tag like \"3.1\" \
                 (round 3, board 1)"
                    .into(),
            );
        }
    };
    let mut p = Pairing {
        board,
        ..Pairing::default()
    };
    for (side, player) in [("White", &mut p.white), ("Black", &mut p.black)] {
        let field = |key: &str| get(&format!("{side}{key}")).unwrap_or_default();
        player.name = super::name(get(side).unwrap_or_default(), side)?;
        player.fide_id = super::fide_id(field("FideId"), &format!("{side}FideId"))?;
        player.elo = super::elo(field("Elo"), &format!("{side}Elo"))?;
        player.title = super::title(field("Title"), &format!("{side}Title"))?;
        player.team = super::one_line(field("Team"), &format!("{side}Team"))?;
    }
    Ok(p)
}
