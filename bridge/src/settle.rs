//! The settle time of the public outputs: a half-move of a board's game is public once it
//! has stood for the settle time (`settle`, 3 s by default), so a move the board misread for
//! a moment and the operator took back (`move undo`, the piece put back) never reaches the
//! viewers, while the operator's own screen shows every move at once. Lichess never removes
//! a pushed move (spec/lichess-broadcast.md §2), so this is the only place to stop one.
//!
//! Pure, in the caller's time (milliseconds): given a board's game as it stands now, the
//! game as the public sees it (the main line cut after its last settled half-move, `Result`
//! and the movetext's result `*` while a move is held back) and when to look again. Applied
//! after the broadcast delay (on the delayed boards), a move is public `delay + settle`
//! after it was made. Knows nothing of the network or the daemon.

use std::collections::HashMap;

/// The main line's half-moves of a PGN: each SAN and the byte range of the movetext after
/// it up to the next half-move (its comments and variations), in the text.
fn plies(pgn: &str) -> (usize, Vec<(String, usize)>) {
    // The movetext starts after the tags (lines starting with `[`) and the blank line.
    let mut start = 0;
    for line in pgn.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') || t.is_empty() {
            start += line.len();
        } else {
            break;
        }
    }
    let text = &pgn[start..];
    let mut out = Vec::new();
    let (mut comment, mut depth) = (false, 0u32);
    let mut word = String::new();
    let mut word_end = 0;
    let flush = |word: &mut String, end: usize, depth: u32, out: &mut Vec<(String, usize)>| {
        let w = std::mem::take(word);
        if depth > 0 || matches!(w.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
            return;
        }
        let san = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if !san.is_empty() && !san.starts_with('$') {
            out.push((san.to_owned(), start + end));
        }
    };
    for (i, c) in text.char_indices() {
        match c {
            '}' if comment => comment = false,
            _ if comment => {}
            '{' => {
                flush(&mut word, word_end, depth, &mut out);
                comment = true;
            }
            '(' => {
                flush(&mut word, word_end, depth, &mut out);
                depth += 1;
            }
            ')' => {
                flush(&mut word, word_end, depth, &mut out);
                depth = depth.saturating_sub(1);
            }
            c if c.is_whitespace() => flush(&mut word, word_end, depth, &mut out),
            c => {
                word.push(c);
                word_end = i + c.len_utf8();
            }
        }
    }
    flush(&mut word, word_end, depth, &mut out);
    (start, out)
}

/// `pgn` with only its first `n` half-moves (and what follows each, its clock comment):
/// the game unfinished (`Result "*"`, movetext ending in `*`).
fn cut(pgn: &str, n: usize) -> String {
    let (start, plies) = plies(pgn);
    if n >= plies.len() {
        return pgn.to_owned();
    }
    let end = match n {
        0 => start,
        n => {
            // After the n-th half-move: its comments (`{[%clk ...]}`), not the next one's
            // move number.
            let from = plies[n - 1].1;
            let rest = &pgn[from..];
            let mut keep = 0;
            let mut inside = false;
            for (i, c) in rest.char_indices() {
                match c {
                    '{' => inside = true,
                    '}' if inside => {
                        inside = false;
                        keep = i + 1;
                    }
                    _ if inside => {}
                    c if c.is_whitespace() => {}
                    _ => break,
                }
            }
            from + keep
        }
    };
    let mut out = String::new();
    for line in pgn[..start].lines() {
        if line.trim_start().starts_with("[Result ") {
            out.push_str("[Result \"*\"]\n");
        } else if line.trim().is_empty() {
            continue;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push('\n');
    let moves = pgn[start..end].trim();
    if !moves.is_empty() {
        out.push_str(moves);
        out.push(' ');
    }
    out.push_str("*\n");
    out
}

/// Each board's half-moves and when each was first seen (ms), while it stood since.
#[derive(Debug)]
pub(crate) struct Settle {
    after_ms: u64,
    boards: HashMap<u32, Vec<(String, u64)>>,
}

impl Settle {
    /// Half-moves are public once they stood `after_ms` (0: at once).
    pub(crate) fn new(after_ms: u64) -> Settle {
        Settle {
            after_ms,
            boards: HashMap::new(),
        }
    }

    /// Board `board`'s game is `pgn` at `now_ms`: the game the public outputs give, and
    /// when a held-back half-move is due (`None`: nothing held back).
    pub(crate) fn public(&mut self, board: u32, pgn: &str, now_ms: u64) -> (String, Option<u64>) {
        if self.after_ms == 0 {
            return (pgn.to_owned(), None);
        }
        let (_, now) = plies(pgn);
        let seen = self.boards.entry(board).or_default();
        let same = seen
            .iter()
            .zip(&now)
            .take_while(|((a, _), (b, _))| a == b)
            .count();
        seen.truncate(same);
        seen.extend(now[same..].iter().map(|(san, _)| (san.clone(), now_ms)));
        let settled = seen
            .iter()
            .take_while(|(_, t)| t.saturating_add(self.after_ms) <= now_ms)
            .count();
        let due = seen
            .get(settled)
            .map(|(_, t)| t.saturating_add(self.after_ms));
        (cut(pgn, settled), due)
    }

    /// Forget the boards not in `boards` (gone from the round).
    pub(crate) fn keep(&mut self, boards: &[u32]) {
        self.boards.retain(|b, _| boards.contains(b));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAGS: &str = "[Event \"Hall Open\"]\n[Round \"1.3\"]\n[Result \"1-0\"]\n\n";

    #[test]
    fn the_game_is_cut_after_its_settled_half_moves_with_their_clocks() {
        let pgn = format!(
            "{TAGS}1. e4 {{[%clk 0:04:58]}} 1... e5 {{[%clk 0:04:57]}} 2. Qh5 (2. Nf3) Nc6 \
             {{[%clk 0:04:50]}} 1-0\n"
        );
        assert_eq!(cut(&pgn, 4), pgn);
        assert_eq!(
            cut(&pgn, 2),
            "[Event \"Hall Open\"]\n[Round \"1.3\"]\n[Result \"*\"]\n\n1. e4 {[%clk 0:04:58]} \
             1... e5 {[%clk 0:04:57]} *\n"
        );
        assert_eq!(
            cut(&pgn, 0),
            "[Event \"Hall Open\"]\n[Round \"1.3\"]\n[Result \"*\"]\n\n*\n"
        );
        let three = cut(&pgn, 3);
        assert!(
            three.ends_with("1... e5 {[%clk 0:04:57]} 2. Qh5 *\n"),
            "{three}"
        );
    }

    #[test]
    fn a_move_taken_back_within_the_settle_time_is_never_public() {
        let mut s = Settle::new(3_000);
        let game = |moves: &str| format!("{TAGS}{moves} *\n");
        // e4 at 0 s: held back until 3 s.
        let (p, due) = s.public(3, &game("1. e4"), 0);
        assert!(p.ends_with("\n\n*\n"), "{p}");
        assert_eq!(due, Some(3_000));
        let (p, due) = s.public(3, &game("1. e4"), 3_000);
        assert!(p.ends_with("1. e4 *\n"), "{p}");
        assert_eq!(due, None);
        // e5 at 4 s, misread as Nf6 first at 4 s, taken back at 5.5 s: Nf6 never shows, e5
        // counts from its own time.
        let (p, _) = s.public(3, &game("1. e4 Nf6"), 4_000);
        assert!(p.ends_with("1. e4 *\n"), "{p}");
        let (p, due) = s.public(3, &game("1. e4 e5"), 5_500);
        assert!(p.ends_with("1. e4 *\n"), "{p}");
        assert_eq!(due, Some(8_500));
        let (p, _) = s.public(3, &game("1. e4 e5"), 8_499);
        assert!(!p.contains("e5"), "{p}");
        let (p, due) = s.public(3, &game("1. e4 e5"), 8_500);
        assert!(p.ends_with("1. e4 e5 *\n"), "{p}");
        assert_eq!(due, None);
        // Other boards have their own times; a board gone is forgotten.
        let (p, _) = s.public(4, &game("1. d4"), 8_500);
        assert!(!p.contains("d4"), "{p}");
        s.keep(&[4]);
        let (p, _) = s.public(3, &game("1. e4 e5"), 9_000);
        assert!(!p.contains("e4"), "board 3 starts again: {p}");
        // Off: every move at once.
        let mut off = Settle::new(0);
        assert_eq!(off.public(1, &game("1. e4"), 0), (game("1. e4"), None));
    }

    #[test]
    fn a_result_waits_for_the_last_move() {
        let mut s = Settle::new(3_000);
        let done = format!("{TAGS}1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n");
        let (p, _) = s.public(1, &format!("{TAGS}1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 *\n"), 0);
        assert!(p.contains("[Result \"*\"]"), "{p}");
        let (p, _) = s.public(
            1,
            &format!("{TAGS}1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 *\n"),
            3_000,
        );
        assert!(p.ends_with("Nf6 *\n"), "{p}");
        let (p, due) = s.public(1, &done, 4_000);
        assert!(p.contains("[Result \"*\"]") && !p.contains("Qxf7#"), "{p}");
        assert_eq!(due, Some(7_000));
        assert_eq!(s.public(1, &done, 7_000).0, done);
    }
}
