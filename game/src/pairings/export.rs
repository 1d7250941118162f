//! What a round gives back: a board's game as PGN when only its result is known (a paper
//! board: no clock, no e-board), and the round's results for the pairing program, as CSV
//! (`board,white,black,result`) or as the TRF-16 file the pairings came from with the round's
//! results filled in (pure: values in, text out).
//!
//! TRF-16 (FIDE's tournament report file, what Swiss-Manager, JaVaFo and bbpPairings read):
//! a player line (`001`) has the points in columns 81–84 (`4.5`) and, for round R, the block
//! at column 92 + 10·(R−1): opponent (4 columns), colour (2 on), result (2 more): `1` won,
//! `0` lost, `=` drawn, `+` won by forfeit, `-` lost by forfeit. A result filled in here sets that one character of both players'
//! lines and their points (the points of a result written before are taken back first, so
//! exporting twice is harmless); every other character of the file is kept. Owns these
//! forms only; the model and the reading are `mod.rs`'s and the formats' modules'.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{LineError, Pairing, PairingsError};
use crate::event::GameResult;
use crate::pgn::{GameInfo, PgnGame};

/// One board of a round and its result (`None`: not known yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardResult {
    /// The board's pairing.
    pub pairing: Pairing,
    /// Its result.
    pub result: Option<GameResult>,
    /// The result is a forfeit (the game was not played; `+-` or `-+`).
    pub forfeit: bool,
}

/// How a result is written for the pairing program: `1-0`, `0-1`, `1/2-1/2`, or for a
/// forfeit `+-` (White wins) and `-+` (Black wins).
pub fn result_word(result: GameResult, forfeit: bool) -> &'static str {
    match (result, forfeit) {
        (GameResult::WhiteWins, true) => "+-",
        (GameResult::BlackWins, true) => "-+",
        (r, _) => r.pgn(),
    }
}

/// The PGN of a board whose game is known only by its pairing and result (a paper board):
/// the pairing's tags in round `round` (`Round "R.B"`, `Board`, players...), then `defaults`
/// (`Event`, `Site`), the result and no moves.
pub fn paper_pgn(
    pairing: &Pairing,
    round: u32,
    defaults: &[(String, String)],
    result: Option<GameResult>,
) -> String {
    let mut info = GameInfo::new();
    // The pairing's tags were checked when it was loaded; a tag that is not (a name with a
    // line break from a hand-written state file) is left out rather than the board.
    for (name, value) in pairing.tags(round) {
        let _ = info.set(&name, &value);
    }
    let mut base = GameInfo::new();
    for (name, value) in defaults {
        let _ = base.set(name, value);
    }
    crate::pgn::write(&PgnGame {
        info: info.or(&base),
        result,
        ..PgnGame::default()
    })
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(value: &str) -> String {
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_owned()
    }
}

/// The round's results as CSV: a header `board,white,black,result`, then one line per board in
/// board order; a result not known yet is `*`, a forfeit `+-` or `-+` ([`result_word`]).
pub fn csv_results(boards: &[BoardResult]) -> String {
    let mut sorted: Vec<&BoardResult> = boards.iter().collect();
    sorted.sort_by_key(|b| b.pairing.board);
    let mut out = String::from("board,white,black,result\n");
    for b in sorted {
        let _ = writeln!(
            out,
            "{},{},{},{}",
            b.pairing.board,
            csv_field(&b.pairing.white.name),
            csv_field(&b.pairing.black.name),
            b.result.map_or("*", |r| result_word(r, b.forfeit))
        );
    }
    out
}

/// What a TRF result character is worth, in tenths of a point.
fn tenths(code: char) -> u32 {
    match code {
        '1' | '+' | 'W' | 'F' => 10,
        '=' | 'D' | 'H' => 5,
        _ => 0,
    }
}

/// The TRF result characters of White and Black for `result` (a forfeit: `+` and `-`).
fn codes(result: GameResult, forfeit: bool) -> (char, char) {
    match (result, forfeit) {
        (GameResult::WhiteWins, true) => ('+', '-'),
        (GameResult::BlackWins, true) => ('-', '+'),
        (GameResult::WhiteWins, false) => ('1', '0'),
        (GameResult::BlackWins, false) => ('0', '1'),
        (GameResult::Draw, _) => ('=', '='),
    }
}

/// `content`, a TRF-16 file holding round `round`'s pairings, with the results of `results`
/// (by board number, the boards as [`super::parse`] numbers them) filled in: each player's
/// result character of the round and their points; a board in `forfeits` is written as a
/// forfeit (`+`/`-`). A board without a result is left as it is. The file's pairings must read as they did when loaded (the errors name the lines).
pub fn trf_results(
    content: &str,
    round: u32,
    results: &BTreeMap<u32, GameResult>,
    forfeits: &BTreeSet<u32>,
) -> Result<String, PairingsError> {
    let pairings = super::parse(content, Some(super::Format::Trf), round)?;
    let mut code_of: BTreeMap<u32, char> = BTreeMap::new();
    for p in &pairings {
        let (Some(result), Some(white), Some(black)) = (
            results.get(&p.board),
            p.white.start_rank,
            p.black.start_rank,
        ) else {
            continue;
        };
        let (w, b) = codes(*result, forfeits.contains(&p.board));
        code_of.insert(white, w);
        code_of.insert(black, b);
    }
    // Column (from 1) of the round's result character.
    let at = usize::try_from(round.max(1) - 1)
        .unwrap_or(usize::MAX)
        .saturating_mul(10)
        .saturating_add(99);
    let mut out = String::with_capacity(content.len());
    let mut errors = Vec::new();
    for (i, line) in content.split_inclusive('\n').enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        let ending = &line[body.len()..];
        let code = body
            .starts_with("001")
            .then(|| body.chars().skip(4).take(4).collect::<String>())
            .and_then(|rank| rank.trim().parse::<u32>().ok())
            .and_then(|rank| code_of.get(&rank).copied());
        match code {
            Some(code) => match fill(body, at, code) {
                Ok(filled) => out.push_str(&filled),
                Err(e) => {
                    errors.push(LineError::new(i + 1, e));
                    out.push_str(body);
                }
            },
            None => out.push_str(body),
        }
        out.push_str(ending);
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(PairingsError(errors))
    }
}

/// A player line with `code` at column `at` and its points (columns 81–84) made to match.
fn fill(line: &str, at: usize, code: char) -> Result<String, String> {
    let mut chars: Vec<char> = line.chars().collect();
    if chars.len() < at {
        chars.resize(at, ' ');
    }
    let old = chars[at - 1];
    chars[at - 1] = code;
    if chars.len() < 84 {
        chars.resize(84, ' ');
    }
    let points: String = chars[80..84].iter().collect();
    let points = points.trim();
    let was = if points.is_empty() {
        0
    } else {
        let (whole, tenth) = points.split_once('.').unwrap_or((points, "0"));
        match (whole.parse::<u32>(), tenth.parse::<u32>()) {
            (Ok(w), Ok(t)) if tenth.len() == 1 => w * 10 + t,
            _ => {
                return Err(format!(
                    "the points {points:?} (columns 81-84) are not a number like 4.5; fix the \
                     player line or export CSV"
                ));
            }
        }
    };
    let now = (was + tenths(code)).saturating_sub(tenths(old));
    let text = format!("{:>4}", format!("{}.{}", now / 10, now % 10));
    if text.len() > 4 {
        return Err(format!(
            "{text} points do not fit columns 81-84; fix the player line or export CSV"
        ));
    }
    for (slot, c) in chars[80..84].iter_mut().zip(text.chars()) {
        *slot = c;
    }
    Ok(chars.into_iter().collect::<String>().trim_end().to_owned())
}
